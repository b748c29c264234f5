//! The tier game API: what a game gives the engine.
//!
//! A game is its rules. [`TierGame`] is what every game gives (positions, tiers, moves, the
//! value the rules fix); four associated types say, in the type system, which optional
//! capabilities it has, each backed by a trait of its own:
//!
//! | associated type | choices | the game then implements |
//! |---|---|---|
//! | [`TierGame::Layout`] | [`Dense`] / [`SortedKeys`] | [`DenseIndex`] / [`OrderedMoves`] |
//! | [`TierGame::Parents`] | [`Unmoves`] / [`ReverseEdges`] | [`UnmoveGame`] / nothing |
//! | [`TierGame::Symmetry`] | [`Symmetries`] / [`NoSymmetry`] | [`SymmetricGame`] / nothing |
//! | [`TierGame::Turn`] | [`Alternate`] / [`GoAgain`] | nothing / [`GoAgainGame`] |
//! | [`TierGame::Score`] | [`Unscored`] / [`Scores`] | nothing / [`ScoredGame`] (and [`DenseIndex`]) |
//!
//! The compiler checks that a game implements the trait behind each choice, and the engine
//! reads the choice from the type (a constant per game), never by probing at run time.
//!
//! # Tiers
//! Positions are grouped into tiers, and the tiers form a DAG: every move stays in its tier
//! or goes to one of the tier's [`child tiers`](TierGame::child_tiers). The engine solves a
//! tier once all its child tiers are solved, so only the tiers in use need to be in memory.
//! Moves inside a tier may form cycles (a *loopy* tier); a tier none of whose moves stay in
//! it is solved in one pass.

use crate::error::Error;
use retrograde_graph::Primitive;
use std::fmt::Debug;
use std::hash::Hash;

/// A two-player game whose positions are grouped into tiers (see the [module docs](self)).
///
/// Every value is stated for the player to move. A position with no moves and no
/// [`primitive`](TierGame::primitive) value takes the [`no_move`](TierGame::no_move) rule
/// (a loss, by default).
pub trait TierGame: Sync + Sized {
    /// A position: everything that decides what can happen next. Small and `Copy`.
    type Position: Copy + Eq + Ord + Hash + Debug + Send + Sync;
    /// A tier's name in the DAG of tiers.
    type Tier: Copy + Eq + Ord + Hash + Debug + Send + Sync;
    /// How positions are stored: [`Dense`] or [`SortedKeys`].
    type Layout: Layout<Self>;
    /// How the engine finds a position's predecessors in its tier: [`Unmoves`] or
    /// [`ReverseEdges`].
    type Parents: Parents<Self>;
    /// [`Symmetries`] or [`NoSymmetry`].
    type Symmetry: Symmetry<Self>;
    /// [`Alternate`] (every move passes the turn) or [`GoAgain`].
    type Turn: Turn<Self>;
    /// [`Unscored`] (win, loss, tie or draw) or [`Scores`] (by how much: [`ScoredGame`]).
    type Score: Scoring<Self>;

    /// Whether a position is the board as the player to move sees it (the colours swap
    /// after every move, as in Quixo or Teeko stored by "mine" and "theirs"), so that it does
    /// not say whose turn it is. Then the totals count a position once for each player
    /// found to move there; otherwise once. Only the totals depend on it.
    const MOVER_VIEW: bool = false;

    /// The game and its parameters in a few words, e.g. `quixo 4x4`: written into every
    /// file of a database so that files of another game are refused. At most 40 bytes.
    fn name(&self) -> String;

    /// The position the game starts from, if it has one; then the engine also counts the
    /// positions reachable from it. Games without a start (a chess ending) solve their
    /// [`root_tiers`](TierGame::root_tiers).
    fn start(&self) -> Option<Self::Position>;

    /// The tiers to solve (with every tier below them). Default: the start's tier.
    fn root_tiers(&self) -> Vec<Self::Tier> {
        self.start().map(|p| self.tier(&p)).into_iter().collect()
    }

    /// The tier of a position.
    fn tier(&self, p: &Self::Position) -> Self::Tier;

    /// Appends the tiers that moves from `t` can reach, other than `t` itself (no matter
    /// whether some position actually reaches them). The tiers must form a DAG.
    fn child_tiers(&self, t: Self::Tier, out: &mut Vec<Self::Tier>);

    /// A short name of a tier that can be part of a file name: letters, digits, `-` and
    /// `_` (e.g. `07`, `KRvK`).
    fn tier_name(&self, t: Self::Tier) -> String;

    /// The tier [`tier_name`](TierGame::tier_name) calls `name`, when the game can tell
    /// (`None` by default). Optional: with it, opening a database lazily
    /// ([`open_lazy`](crate::open_lazy)) takes the tiers from the database's description
    /// (each checked against its name and size) instead of walking every tier of the game,
    /// which for a chess tablebase of 912 tables costs more than the query.
    fn tier_named(&self, name: &str) -> Option<Self::Tier> {
        let _ = name;
        None
    }

    /// The value the rules fix at `p` for the player to move (the game is over there), or
    /// `None` to play on. Not asked of positions the index holds but that are not positions
    /// of the game.
    fn primitive(&self, p: &Self::Position) -> Option<Primitive>;

    /// Appends the position after each legal move from `p`, in a fixed order. Not called
    /// when [`primitive`](TierGame::primitive) fixes `p`'s value.
    fn moves(&self, p: &Self::Position, out: &mut Vec<Self::Position>);

    /// Appends the positions after `p`'s moves that leave its tier (those
    /// [`moves`](TierGame::moves) lists, in any order) and returns how many of its moves
    /// stay inside the tier. The engine asks it where it only counts the moves inside
    /// (un-moves, [`DISTINCT_MOVES`](TierGame::DISTINCT_MOVES) and
    /// [`children_apart`](SymmetricGame::children_apart)), so that a game can count them
    /// without making their positions. Default: [`moves_split_by_tier`], `moves` split by
    /// [`tier`](TierGame::tier); `check_game` tests an override against it.
    fn moves_leaving(&self, p: &Self::Position, out: &mut Vec<Self::Position>) -> usize {
        moves_split_by_tier(self, p, out)
    }

    /// Whether [`moves`](TierGame::moves) never lists one position twice, nor (for an
    /// [`UnmoveGame`]) `unmoves`. The engine counts each move to a distinct canonical
    /// position once; with this promise, two moves can meet only when one's position is
    /// not its own canonical form, so only those few are compared with the others
    /// (otherwise every move goes through a hash set). The solver trusts the promise (a
    /// test in its inner loop would cost what the promise saves): a game that breaks it
    /// can get wrong values, so run `check_game`, which tests it, on a game that makes it.
    const DISTINCT_MOVES: bool = false;

    /// The value of a position without moves and without a primitive value. Default: a
    /// loss (normal play).
    fn no_move(&self) -> Primitive {
        Primitive::Loss
    }

    /// An upper bound on every remoteness, if the game knows one (e.g. the number of
    /// cells of a board that only fills up). With a bound below 64 the engine keeps a value
    /// in one byte instead of two. A value past the bound is an error, never a wrong one.
    fn remoteness_bound(&self) -> Option<u32> {
        None
    }

    /// An upper bound on the moves of a position that stay inside its tier, if the game
    /// knows one (0 for a game whose every move leaves its tier, such as a board that only
    /// fills up). The memory plan of a game without un-moves counts the tier's reverse edges
    /// with it; without one it counts [`ASSUMED_MOVES_INSIDE`] a position, and the engine
    /// checks the edges it found against the limit before it lays them out. `check_game`
    /// tests the bound. Default: none.
    fn moves_inside_bound(&self) -> Option<u64> {
        None
    }
}

/// The moves inside a tier a position is assumed to make, for the memory plan of a game
/// without un-moves that gives no [`TierGame::moves_inside_bound`].
pub const ASSUMED_MOVES_INSIDE: u64 = 4;

// ------------------------------------------------------------------------------------------
// Layout: how a tier's positions are numbered.

/// A dense index per tier: the positions of tier `t` are numbered `0..tier_size(t)`, and
/// arrays of that size hold their values. Every number need not be a position: `unrank`
/// answers `None` for the holes.
pub trait DenseIndex: TierGame {
    /// Numbers in the tier's index (positions and holes).
    fn tier_size(&self, t: Self::Tier) -> u64;
    /// The number of `p` in its tier, below [`tier_size`](DenseIndex::tier_size).
    fn rank(&self, p: &Self::Position) -> u64;
    /// The position numbered `i` in tier `t`, or `None` when `i` is a hole.
    fn unrank(&self, t: Self::Tier, i: u64) -> Option<Self::Position>;
    /// The position numbered `i` in tier `t`, where `i` is known to be a position (the
    /// engine solved its slot): the levels ask it of every decided position, the totals of
    /// every solved one. Default: [`unrank`](DenseIndex::unrank); a game may skip the
    /// tests that tell holes apart (asked of a hole, it may answer anything).
    #[inline]
    fn unrank_solved(&self, t: Self::Tier, i: u64) -> Option<Self::Position> {
        self.unrank(t, i)
    }
    /// Calls `f(i, unrank(t, i))` for every `i` of `range`, in order. Override when the
    /// positions of a range can be listed faster than one `unrank` each.
    fn for_each_in(
        &self,
        t: Self::Tier,
        range: std::ops::Range<u64>,
        mut f: impl FnMut(u64, Option<Self::Position>),
    ) {
        for i in range {
            f(i, self.unrank(t, i));
        }
    }
    /// Where tier `t`'s numbers split into its two *sides* (usually the two sides to move):
    /// a number below it and one from it are on different sides, and every move inside
    /// the tier, its child made canonical, goes from one side to the other. A compact
    /// database ([`SolveOptions::compact`](crate::SolveOptions::compact)) may then keep one
    /// side's values and answer the other's from their moves (one ply). `None` (the
    /// default): the tier has no such split. A move inside the tier that stays on its side
    /// is an error of the lookup that meets it, never a wrong value.
    fn sides(&self, t: Self::Tier) -> Option<u64> {
        let _ = t;
        None
    }
}

/// Sorted keys: the engine finds the positions reachable from the start tier by tier, keeps
/// each tier as a sorted array of keys, and looks values up by merging rather than by an
/// index. For games whose positions are sparse in any index that is easy to compute.
///
/// Moves are numbered by *slot* (a Connect-4 column): [`slot_child`](OrderedMoves::slot_child)
/// gives the move of one slot, and must be **strictly increasing in the key over the
/// positions of one tier that have that slot**: `key(p) < key(q)` implies
/// `key(child(p, s)) < key(child(q, s))`. So the children through one slot of a sorted tier
/// come out sorted, and a tier is found by merging and solved by merge-joins, with no sort and
/// no search. Every move must leave its tier (the engine refuses a loopy tier in this layout),
/// and [`TierGame::moves`] must give the slot children in slot order.
pub trait OrderedMoves: TierGame {
    /// The key of a position: distinct positions of a tier get distinct keys.
    fn key(&self, p: &Self::Position) -> u64;
    /// The position with key `k` in tier `t`.
    fn key_position(&self, t: Self::Tier, k: u64) -> Self::Position;
    /// Bits the keys of tier `t` need: at most 32 lets the engine keep them as `u32`.
    fn key_bits(&self, t: Self::Tier) -> u32;
    /// The number of slots (at most 16).
    fn slots(&self) -> usize;
    /// The position after the move of slot `s` from `p`, if that move is legal.
    fn slot_child(&self, p: &Self::Position, s: usize) -> Option<Self::Position>;
    /// The slots with a legal move from `p`, as bits: bit `s` is set when
    /// [`slot_child`](OrderedMoves::slot_child)`(p, s)` is a move. The default asks
    /// `slot_child` slot by slot; a game may answer faster (the engine asks for every
    /// position twice, and [`check_game`](crate::check_game) compares the two).
    #[inline]
    fn slot_flags(&self, p: &Self::Position) -> u16 {
        (0..self.slots()).fold(0u16, |f, s| {
            f | u16::from(self.slot_child(p, s).is_some()) << s
        })
    }
}

/// The layout chosen by [`TierGame::Layout`]: [`Dense`] or [`SortedKeys`], a strategy that
/// carries what depends on it. Code that works differently per layout is a
/// [`LayoutVisitor`], whose method for the game's layout runs with that layout's trait in
/// scope ([`DenseIndex`] or [`OrderedMoves`]): the engine never matches on a kind of
/// layout, and never calls a method of the other family.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layout the game `{G}` can use",
    label = "the game's `type Layout`",
    note = "`type Layout = Dense` needs `impl DenseIndex for {G}`; `type Layout = SortedKeys` needs `impl OrderedMoves for {G}`"
)]
pub trait Layout<G: TierGame>: sealed::Sealed {
    /// The name a database records: `dense` or `sorted`.
    const NAME: &'static str;
    /// The number `p` is kept under in its tier: its rank in the dense index, or its key.
    fn number(game: &G, p: &G::Position) -> u64;
    /// Runs `v`'s method for this layout.
    fn visit<V: LayoutVisitor<G>>(v: V) -> V::Out;
}

/// Work that depends on the layout: one method per layout, each with the layout's trait
/// in scope. Run it with [`Layout::visit`] (or [`visit`]).
pub trait LayoutVisitor<G: TierGame> {
    /// What the work gives.
    type Out;
    /// The work for a [`Dense`] game.
    fn dense(self) -> Self::Out
    where
        G: DenseIndex;
    /// The work for a [`SortedKeys`] game.
    fn sorted(self) -> Self::Out
    where
        G: OrderedMoves;
}

/// Runs `v`'s method for `G`'s layout.
#[inline]
pub fn visit<G: TierGame, V: LayoutVisitor<G>>(v: V) -> V::Out {
    <G::Layout as Layout<G>>::visit(v)
}

/// Layout: a dense index per tier ([`DenseIndex`]).
#[derive(Copy, Clone, Debug)]
pub struct Dense;
/// Layout: sorted keys of the reachable positions ([`OrderedMoves`]).
#[derive(Copy, Clone, Debug)]
pub struct SortedKeys;

impl<G: DenseIndex> Layout<G> for Dense {
    const NAME: &'static str = "dense";
    #[inline]
    fn number(game: &G, p: &G::Position) -> u64 {
        game.rank(p)
    }
    #[inline]
    fn visit<V: LayoutVisitor<G>>(v: V) -> V::Out {
        v.dense()
    }
}
impl<G: OrderedMoves> Layout<G> for SortedKeys {
    const NAME: &'static str = "sorted";
    #[inline]
    fn number(game: &G, p: &G::Position) -> u64 {
        game.key(p)
    }
    #[inline]
    fn visit<V: LayoutVisitor<G>>(v: V) -> V::Out {
        v.sorted()
    }
}

// ------------------------------------------------------------------------------------------
// Parents: un-moves, or reverse edges built by the engine.

/// Un-moves: the predecessors of a position inside its tier, so that retrograde analysis
/// needs no stored edges.
pub trait UnmoveGame: TierGame {
    /// Appends every position of `p`'s tier that has a move to `p` (duplicates allowed).
    /// Numbers that are not positions (holes of a dense index) may be included: the engine
    /// skips them. Positions of other tiers must not be.
    fn unmoves(&self, p: &Self::Position, out: &mut Vec<Self::Position>);

    /// [`UnmoveGame::unmoves`] of the canonical position `p`, whose number in its tier is
    /// `i` (a [`DenseIndex`] game's [`rank`](DenseIndex::rank)), with the parents the game
    /// numbers more cheaply than the engine: `ranked` gets each such parent's number and
    /// whether its move to `p` keeps the turn, `out` the other parents, as `unmoves`
    /// gives them. A number in `ranked` must be the rank of a parent that is its own
    /// canonical form, and the two lists together must be `unmoves`' parents, each once
    /// ([`check_game`](crate::check_game) checks it). The engine then counts a ranked
    /// parent down without making it, finding its canonical form or ranking it. By default
    /// every parent goes to `out`.
    ///
    /// For chess, an un-move of a piece other than a king keeps the king pair, so when that
    /// pair needs no symmetry the parent is canonical, and its number is the child's with
    /// the side to move and one square changed.
    #[inline]
    fn unmoves_ranked(
        &self,
        p: &Self::Position,
        i: u64,
        ranked: &mut Vec<(u64, bool)>,
        out: &mut Vec<Self::Position>,
    ) {
        let _ = (i, ranked);
        self.unmoves(p, out)
    }
}

/// How the engine finds predecessors, chosen by [`TierGame::Parents`].
pub trait Parents<G: TierGame>: sealed::Sealed {
    /// Whether the game generates un-moves.
    const UNMOVES: bool;
    /// The game's un-moves; called only when `UNMOVES`.
    fn unmoves(game: &G, p: &G::Position, out: &mut Vec<G::Position>);
    /// The game's un-moves, some by number ([`UnmoveGame::unmoves_ranked`]); called only
    /// when `UNMOVES`.
    #[inline]
    fn unmoves_ranked(
        game: &G,
        p: &G::Position,
        i: u64,
        ranked: &mut Vec<(u64, bool)>,
        out: &mut Vec<G::Position>,
    ) {
        let _ = (i, ranked);
        Self::unmoves(game, p, out)
    }
}

/// Parents: the game gives un-moves ([`UnmoveGame`]).
#[derive(Copy, Clone, Debug)]
pub struct Unmoves;
/// Parents: the engine builds the reverse edges of each loopy tier in memory (4 bytes an
/// edge inside the tier), from the moves.
#[derive(Copy, Clone, Debug)]
pub struct ReverseEdges;

impl<G: UnmoveGame> Parents<G> for Unmoves {
    const UNMOVES: bool = true;
    #[inline]
    fn unmoves(game: &G, p: &G::Position, out: &mut Vec<G::Position>) {
        game.unmoves(p, out)
    }
    #[inline]
    fn unmoves_ranked(
        game: &G,
        p: &G::Position,
        i: u64,
        ranked: &mut Vec<(u64, bool)>,
        out: &mut Vec<G::Position>,
    ) {
        game.unmoves_ranked(p, i, ranked, out)
    }
}
impl<G: TierGame> Parents<G> for ReverseEdges {
    const UNMOVES: bool = false;
    fn unmoves(_: &G, _: &G::Position, _: &mut Vec<G::Position>) {
        unreachable!("the engine asks for un-moves only when Parents::UNMOVES")
    }
}

// ------------------------------------------------------------------------------------------
// Symmetry.

/// Symmetries: maps of the positions that keep the rules (and the tier, and the player to
/// move), such as a board's rotations and reflections. The engine stores and solves one
/// position of each class, its *canonical* one; any other position's value is its
/// canonical position's.
pub trait SymmetricGame: TierGame {
    /// How many symmetries there are, the identity (number 0) included.
    fn symmetry_count(&self) -> usize;
    /// The image of `p` under symmetry `g` (`0 <= g < symmetry_count()`).
    fn apply_symmetry(&self, p: &Self::Position, g: usize) -> Self::Position;
    /// The canonical position of `p`'s class: the same for every position of the class,
    /// and one of them. Default: the least image (by `Ord`); override with something faster.
    fn canonical(&self, p: &Self::Position) -> Self::Position {
        (0..self.symmetry_count())
            .map(|g| self.apply_symmetry(p, g))
            .min()
            .expect("the identity is a symmetry")
    }
    /// Whether `p` is its class's canonical position.
    fn is_canonical(&self, p: &Self::Position) -> bool {
        self.canonical(p) == *p
    }
    /// The number of distinct positions in `p`'s class: the number of symmetries over the
    /// number that leave `p` as it is. Override with something faster if it matters.
    fn class_size(&self, p: &Self::Position) -> u64 {
        let n = self.symmetry_count();
        let fixed = (0..n).filter(|&g| self.apply_symmetry(p, g) == *p).count();
        (n / fixed.max(1)) as u64
    }
    /// Whether no symmetry maps one of `p`'s moves inside its tier onto another (their
    /// positions are in distinct classes). With [`TierGame::DISTINCT_MOVES`] and un-moves,
    /// the engine then counts `p`'s moves inside the tier without their canonical forms.
    /// Default: `false`, which is always true to say; `check_game` tests a `true`.
    fn children_apart(&self, _p: &Self::Position) -> bool {
        false
    }
}

/// Whether and how the engine reduces by symmetry, chosen by [`TierGame::Symmetry`].
pub trait Symmetry<G: TierGame>: sealed::Sealed {
    /// Whether the game has symmetries.
    const SYMMETRIC: bool;
    /// The canonical position of `p` (`p` itself without symmetries).
    fn canonical(game: &G, p: &G::Position) -> G::Position;
    /// Whether `p` is canonical.
    fn is_canonical(game: &G, p: &G::Position) -> bool;
    /// The number of distinct positions in `p`'s class (1 without symmetries).
    fn class_size(game: &G, p: &G::Position) -> u64;
    /// The images of `p` under every symmetry, the identity's first (`p` alone without).
    fn images(game: &G, p: &G::Position) -> Vec<G::Position>;
    /// Whether `p`'s moves inside its tier reach distinct classes when they reach distinct
    /// positions (always, without symmetries).
    fn children_apart(game: &G, p: &G::Position) -> bool;
}

/// Symmetry: the game gives symmetries ([`SymmetricGame`]).
#[derive(Copy, Clone, Debug)]
pub struct Symmetries;
/// Symmetry: none.
#[derive(Copy, Clone, Debug)]
pub struct NoSymmetry;

impl<G: SymmetricGame> Symmetry<G> for Symmetries {
    const SYMMETRIC: bool = true;
    #[inline(always)]
    fn canonical(game: &G, p: &G::Position) -> G::Position {
        game.canonical(p)
    }
    #[inline(always)]
    fn is_canonical(game: &G, p: &G::Position) -> bool {
        game.is_canonical(p)
    }
    #[inline]
    fn class_size(game: &G, p: &G::Position) -> u64 {
        game.class_size(p)
    }
    fn images(game: &G, p: &G::Position) -> Vec<G::Position> {
        (0..game.symmetry_count())
            .map(|g| game.apply_symmetry(p, g))
            .collect()
    }
    #[inline(always)]
    fn children_apart(game: &G, p: &G::Position) -> bool {
        game.children_apart(p)
    }
}
impl<G: TierGame> Symmetry<G> for NoSymmetry {
    const SYMMETRIC: bool = false;
    #[inline]
    fn canonical(_: &G, p: &G::Position) -> G::Position {
        *p
    }
    #[inline]
    fn is_canonical(_: &G, _: &G::Position) -> bool {
        true
    }
    fn class_size(_: &G, _: &G::Position) -> u64 {
        1
    }
    fn images(_: &G, p: &G::Position) -> Vec<G::Position> {
        vec![*p]
    }
    #[inline]
    fn children_apart(_: &G, _: &G::Position) -> bool {
        true
    }
}

// ------------------------------------------------------------------------------------------
// Turn.

/// Go-again moves: some moves leave the same player to move.
pub trait GoAgainGame: TierGame {
    /// Whether the move from `from` to `to` leaves the same player to move.
    fn keeps_turn(&self, from: &Self::Position, to: &Self::Position) -> bool;
}

/// The turn rule, chosen by [`TierGame::Turn`].
pub trait Turn<G: TierGame>: sealed::Sealed {
    /// Whether some moves keep the turn.
    const GO_AGAIN: bool;
    /// Whether the move from `from` to `to` keeps the turn.
    fn keeps_turn(game: &G, from: &G::Position, to: &G::Position) -> bool;
}

/// Turn: every move passes the turn.
#[derive(Copy, Clone, Debug)]
pub struct Alternate;
/// Turn: the game says which moves keep it ([`GoAgainGame`]).
#[derive(Copy, Clone, Debug)]
pub struct GoAgain;

impl<G: TierGame> Turn<G> for Alternate {
    const GO_AGAIN: bool = false;
    #[inline]
    fn keeps_turn(_: &G, _: &G::Position, _: &G::Position) -> bool {
        false
    }
}
impl<G: GoAgainGame> Turn<G> for GoAgain {
    const GO_AGAIN: bool = true;
    #[inline]
    fn keeps_turn(game: &G, from: &G::Position, to: &G::Position) -> bool {
        game.keeps_turn(from, to)
    }
}

// ------------------------------------------------------------------------------------------
// Scores.

/// A game that says by how much: terminal positions have a score, and moves that leave
/// their tier collect a reward for their mover (captured seeds, completed boxes). Moves
/// inside a tier, where loops are possible, collect nothing.
///
/// A position's value is a [`retrograde_solve::Scored`]: the best, by the mover's
/// preference, over its moves of the move's reward plus the value of what follows from the
/// mover's side (`child.through_with(keeps_turn, reward)`). A game that never ends is worth
/// the rewards collected on the way (an endless play stays in one tier, where nothing more is
/// collected): its outcome is their sign, its remoteness none (a draw when they sum to 0).
///
/// The engine asks [`TierGame::primitive`] only whether the game is over at a position;
/// its value there is [`terminal_score`](ScoredGame::terminal_score) (a position without
/// moves is over too, and [`TierGame::no_move`] is not asked).
pub trait ScoredGame: TierGame {
    /// The least and the greatest score any position can have (from here to the end, for
    /// the player to move): holding 0 (ties and draws), within `-32,766..=32,766` (a value
    /// is stored in 4 bytes). A score outside the declared range is an error, never a wrong
    /// value. [`check_scored`](crate::check_scored) checks this and the other promises.
    fn score_range(&self) -> (i64, i64);
    /// The score of a position where the game is over, for the player to move there.
    fn terminal_score(&self, p: &Self::Position) -> i64;
    /// The points the mover collects by the move from `from` to `to`, a move that leaves
    /// `from`'s tier (never asked of a move inside a tier).
    fn reward(&self, from: &Self::Position, to: &Self::Position) -> i64;
}

/// The largest score a tier solve stores, and the least is its negation: 32,766 (a value is
/// stored in 4 bytes).
pub const MAX_SCORE: i64 = 0x7FFE;

/// The rule for a declared score range ([`ScoredGame::score_range`]): it holds 0 (ties and
/// draws; else [`Error::Game`]) and lies within `±`[`MAX_SCORE`] (else
/// [`Error::Unsupported`]).
pub(crate) fn score_range_fits((lo, hi): (i64, i64)) -> Result<(), Error> {
    if lo > 0 || hi < 0 {
        return Err(Error::Game(format!(
            "the score range {lo}..={hi} does not hold 0 (ties and draws)"
        )));
    }
    if lo < -MAX_SCORE || hi > MAX_SCORE {
        return Err(Error::Unsupported(format!(
            "a score range of {lo}..={hi}: scores from -{MAX_SCORE} to {MAX_SCORE} are stored"
        )));
    }
    Ok(())
}

/// Whether a game has scores, chosen by [`TierGame::Score`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a score rule the game `{G}` can use",
    label = "the game's `type Score`",
    note = "`type Score = Scores` needs `impl ScoredGame for {G}` and the dense layout (`type Layout = Dense` with `impl DenseIndex for {G}`): scores are not supported with sorted keys; `type Score = Unscored` needs nothing"
)]
pub trait Scoring<G: TierGame>: sealed::Sealed {
    /// Whether the game has scores.
    const SCORED: bool;
    /// The least and the greatest score ([`ScoredGame::score_range`]; `-1..=1` without
    /// scores).
    fn score_range(g: &G) -> (i64, i64);
    /// The score of a position where the game is over ([`ScoredGame::terminal_score`];
    /// without scores `+1`, `-1` or `0` by its primitive value or the no-move rule).
    fn terminal_score(g: &G, p: &G::Position) -> i64;
    /// The points a move that leaves its tier collects ([`ScoredGame::reward`]; 0 without
    /// scores).
    fn reward(g: &G, from: &G::Position, to: &G::Position) -> i64;
}

/// Score: none; a position is a win, loss, tie or draw.
#[derive(Copy, Clone, Debug)]
pub struct Unscored;
/// Score: the game gives scores and rewards ([`ScoredGame`]); dense layout only.
#[derive(Copy, Clone, Debug)]
pub struct Scores;

impl<G: TierGame> Scoring<G> for Unscored {
    const SCORED: bool = false;
    fn score_range(_: &G) -> (i64, i64) {
        (-1, 1)
    }
    fn terminal_score(g: &G, p: &G::Position) -> i64 {
        match g.primitive(p).unwrap_or_else(|| g.no_move()) {
            Primitive::Win => 1,
            Primitive::Loss => -1,
            Primitive::Tie => 0,
        }
    }
    #[inline(always)]
    fn reward(_: &G, _: &G::Position, _: &G::Position) -> i64 {
        0
    }
}
impl<G: ScoredGame + DenseIndex> Scoring<G> for Scores {
    const SCORED: bool = true;
    fn score_range(g: &G) -> (i64, i64) {
        g.score_range()
    }
    #[inline]
    fn terminal_score(g: &G, p: &G::Position) -> i64 {
        g.terminal_score(p)
    }
    #[inline]
    fn reward(g: &G, from: &G::Position, to: &G::Position) -> i64 {
        g.reward(from, to)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Unscored {}
    impl Sealed for super::Scores {}
    impl Sealed for super::Dense {}
    impl Sealed for super::SortedKeys {}
    impl Sealed for super::Unmoves {}
    impl Sealed for super::ReverseEdges {}
    impl Sealed for super::Symmetries {}
    impl Sealed for super::NoSymmetry {}
    impl Sealed for super::Alternate {}
    impl Sealed for super::GoAgain {}
}

// ------------------------------------------------------------------------------------------
// Shorthands the engine uses.

#[inline(always)]
pub(crate) fn canonical<G: TierGame>(g: &G, p: &G::Position) -> G::Position {
    <G::Symmetry as Symmetry<G>>::canonical(g, p)
}

#[inline]
/// [`TierGame::moves_leaving`]'s default: appends `p`'s moves that leave its tier (in the
/// order [`TierGame::moves`] lists them) and returns how many stay inside it.
pub fn moves_split_by_tier<G: TierGame>(
    game: &G,
    p: &G::Position,
    out: &mut Vec<G::Position>,
) -> usize {
    let start = out.len();
    game.moves(p, out);
    let t = game.tier(p);
    // Exits to the front, in their order; the moves inside dropped.
    let mut kept = start;
    for i in start..out.len() {
        if game.tier(&out[i]) != t {
            out.swap(kept, i);
            kept += 1;
        }
    }
    let inside = out.len() - kept;
    out.truncate(kept);
    inside
}

pub(crate) fn keeps<G: TierGame>(g: &G, from: &G::Position, to: &G::Position) -> bool {
    <G::Turn as Turn<G>>::keeps_turn(g, from, to)
}
