//! Solving one tier of a dense-layout game, in parallel, over a placement: one process owns
//! every slot ([`Whole`](retrograde_solve::place::Whole)), or each rank of a distributed solve
//! owns a share ([`Blocks`](retrograde_solve::place::Blocks)) and what crosses ranks goes
//! through the [`Exchange`] in one batch per step. The code is the same; with `Whole` every
//! test of ownership is a constant and the exchanges compile away.
//!
//! # Algorithm
//! The tier's child tiers are solved; their values are looked up through canonical
//! positions and ranks ([`Below`]). One numbered slot of the tier's index is one position
//! (or a hole: a number that is no position, or a position that is not canonical under the
//! game's symmetries; holes are never solved and never read). A rank keeps the slots it owns
//! in one array, by *place*.
//!
//! 1. **Init**, in parallel over runs of places (with ranks, in rounds of at most [`ROUND`]
//!    places that every rank runs alike). A primitive position, or one without moves, is
//!    decided at remoteness 0. Otherwise its moves are split: moves *inside* the tier are
//!    collected as (canonical child's slot, keeps-turn) pairs, **deduplicated**, and counted
//!    (the counter; with un-moves only counted, and without canonical forms where the game
//!    says no symmetry maps one move onto another, `SymmetricGame::children_apart`); moves
//!    to child tiers (*exits*) are looked up, and only the best exit
//!    value (seen through the move, by the mover's preference) is kept:
//!    - a win in `r` through an exit: the position is *seeded* to be won at level `r` unless
//!      something inside the tier wins sooner, and its counter gets one more (a move that is
//!      never counted down, so the position can never also be lost);
//!    - a tie or a draw through an exit: one more on the counter for good (it cannot lose);
//!      a tie in `r` is also seeded for the tie phase;
//!    - only losing exits, the slowest in `r`: one more on the counter, taken off at level
//!      `r - 1` (a *phantom* move decided then), so that the position is lost at level
//!      `max(r, 1 + its slowest move inside)`, exactly as if the exits were in the tier.
//!
//!    A position with no move inside the tier is decided at once by its best exit. An exit
//!    another rank owns is *requested*: per owner, the places of the round's remote exits by
//!    child tier, in the order met (4 bytes each, repeats included: cheaper than sorting them
//!    away), go out in one all-to-all (which also tells whether the tier has a move inside it
//!    on any rank), the cells come back in the same order in a second one; then the waiting
//!    positions are settled from the same best exit one process finds.
//!    Without un-moves, the init also records the tier's reverse edges (child slot -> parent
//!    slot and keeps-turn bit), sent to the owner of the child and laid out as CSR there.
//! 2. **Wins and losses**, level by level, as in the graph engine's parallel solver: the
//!    frontier of level `r` is every position decided with remoteness `r` (plus the seeds of
//!    `r` still open, won now; plus the phantoms of `r` counted down), sorted by place so
//!    that neighbours' parents share cache lines (a 5-piece chess table: 0.875 of the CPU
//!    unsorted). For every parent
//!    (un-moves, canonicalized, ranked and deduplicated; or the reverse edges) the child's
//!    value seen through the move either wins the parent (compare-exchange from undecided)
//!    or counts it down; the thread that takes the counter from 1 to 0 decides the loss. An
//!    update of a parent another rank owns goes into that rank's buffer (4 bytes: the place
//!    and a win bit; a position's parents are first sorted, without a branch, into this
//!    rank's and the others', see [`Sides`]); one all-to-all per level delivers the buffers
//!    and tells every rank whether any has work left.
//! 3. **Ties**: the same levels (the same code) through the still undecided positions,
//!    from the tie terminals and the tie seeds.
//! 4. What is left undecided is a draw.
//!
//! # Why this is the graph engine's answer, bit for bit, for every placement
//! On the game's explicit graph the FIFO solver decides every vertex at the level of its
//! first winning child or its last losing one. Here exits are vertices of already solved
//! tiers, whose levels are known: a winning exit of remoteness `r` acts at level `r` (the
//! seed), a losing one counts down at level `r - 1` (the phantom; with several losing exits,
//! only the slowest can be the last, so one phantom stands for all). Deduplication makes a
//! parent's counter and its children's un-moves count the same edges: with symmetries, the
//! counter counts distinct canonical children, and each canonical child, once decided,
//! counts down each distinct canonical parent once. Parallel edges and symmetric twins do not
//! change any value, so the values are those of the full graph. A position is never both won
//! and lost (a winning move is never counted down), so racing threads only race over *who*
//! writes a value, never over *which*; the level is fixed by the sets of positions of the
//! earlier levels. With ranks, a level's updates are all applied before the next level
//! starts (the all-to-all is the barrier), each (child, parent, keeps) update is made once
//! (by the child's owner) and applied once (by the parent's), and init reads the same exits:
//! so the result depends neither on the number of threads nor on the number of ranks.
//!
//! # Cells
//! One atomic cell per slot holds everything: a value once decided, else the counter (an
//! *open* code, see [`crate::store::cell`]), so one compare-exchange from the value just
//! read both counts a position down and decides it, and the propagation touches one cache
//! line per parent. A frontier of at most one chunk, or any frontier on one thread, is
//! processed with plain loads and stores instead.
//!
//! The levels ([`levels`]) ask of a cell only its atomic twin and open codes ([`Open`]),
//! and write what a [`Rule`] says a position won, lost or tied at level `r` holds: the
//! unscored [`Plain`] for value cells, [`AtScore`] for the 4-byte cells of games with
//! scores.
//!
//! # Scores
//! A game with scores ([`ScoredGame`](crate::ScoredGame)) runs this very code with
//! [`ScoreCell`]s, whose values are [`Scored`] (the rule is written once over [`Worth`]):
//! a terminal position is worth its terminal score, an exit the child's value through the
//! move plus the move's reward, and the best exit is kept as above. Inside the tier moves
//! collect nothing, so a position decided at score `s` makes its parents' options worth
//! `±s`, and a play that never leaves the tier is worth 0: the tier is a deterministic
//! graphical game whose terminals are the exits and the tier's own terminal positions.
//! Its events are settled in *stages*, the largest `|score|` first (both signs at each):
//! at stage `s`, step 2 with "win" meaning `+s` and "loss" `-s` (a positive event decides
//! its position if still open: nothing better is left, since better options have larger
//! scores, or the same score and came earlier; a negative one counts it down, and the
//! last count decides it), its finite levels and then once more those without a
//! remoteness (a game that never ends after points were collected: their level 0), the
//! counters staying in the open cells from one stage to the next; then the ties (step 3)
//! with the same code; what is left open is a draw. Without scores there is one stage, and
//! the code is what it was (the stage is `()`). With ranks, the ranks first agree on the
//! stages (each sends its own to all), since every stage's levels are collectives. With
//! scores +1, -1 and 0 this is the unscored rule (tested against it).
//!
//! Exits are located first (canonical child, rank) and prefetched, and read once the moves
//! inside the tier are counted, so that their cache misses overlap.
//!
//! # Limits
//! One process handles tiers of up to `u32::MAX` slots; a rank holds fewer than 2^31 places
//! of a tier (messages carry a bit beside a place), so a tier bigger than one process's
//! may be spread over enough ranks (it needs un-moves then: reverse edges name their parents
//! by `u32` slot).
//!
//! # Memory (per rank: its share of each)
//! Per slot of the tier: one value cell (1, 2 or 4 bytes; the plain cells of the answer
//! take the atomics' memory in place); the level lists (4 bytes per entry: in all, at most
//! about one entry per position for the decided lists, plus seeds and phantoms); an init
//! round's events before they are filed (8 bytes each, 16 with scores, at most one a place
//! of the round); without un-moves, 8 bytes per move inside the tier while the reverse edges
//! are built, 4 (plus offsets, 8 per slot) once they are. The memory plan counts each of
//! these with one model, `engine::Work`. Solved in class cells instead (`classes.rs`): a
//! byte a slot, the lists packed (at most 3 bytes an entry, about one where places are
//! close) and a level log of as much, 10 bytes a slot at most (`Work::classes`); the tier's
//! value cells are made at the end, whole without a storage, a batch of blocks at a time
//! with one. With ranks, per init round the exits
//! waiting for remote values (8 bytes each, plus 12 a waiting position), and per level at
//! most 4 bytes per update crossing ranks.

use crate::api::game::{canonical, keeps, DenseIndex, Parents, Scoring, Symmetry};
use crate::engine::distinct::Keys;
use crate::engine::log::Packed;
use crate::engine::SolveOptions;
use crate::error::Error;
use crate::store::cell::{Cell, CellArray, Class, Open, ScoreCell, Worth};
use rayon::prelude::*;
use rdst::RadixSort;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::place::Placement;
pub(crate) use retrograde_solve::prefetch;
use retrograde_solve::{Scored, Value};
use std::collections::HashMap;

/// Places per init task (a multiple of every unit of a dealing).
pub(crate) const TASK: u64 = 1 << 12;
/// Frontier positions per task; smaller frontiers are processed inline.
const CHUNK: usize = 1 << 11;
/// Places per init round across ranks. Each round ends with two exchanges, where the ranks
/// wait for the slowest: 2^17 against 2^16 took 0.08 s off Quixo 4x4 at K = 2 (4.85 s
/// against 4.90 s, five runs each, alternated), for about 5 MB a rank of waiting exits. One
/// process runs its init in rounds of [`ALONE_ROUND`].
pub(crate) const ROUND: u64 = 1 << 17;
/// Places per init round of one process. The round's events wait in its tasks' lists (8
/// bytes each, in small vectors) until they are filed by level (4 bytes each). In one round
/// for the whole tier, KQRvKN alone (242 million slots) peaked at 1.54 GiB and still held
/// 1.13 GiB after its solve (the allocator kept the freed vectors); in rounds of 2^22
/// places (about 32 MB of events, 1,024 tasks to balance across threads), 0.80 and 0.56
/// GiB, in the same time.
pub(crate) const ALONE_ROUND: u64 = 1 << 22;
/// How many received updates ahead of the one applied the cell of one is prefetched.
const AHEAD: usize = 16;
/// How many frontier positions ahead of the one whose parents are updated its cell is
/// prefetched.
const FRONT_AHEAD: usize = 4;

/// The solved tiers a tier's moves reach: (tier, this rank's cells of it by place, its
/// placement).
pub(crate) struct Below<'a, G: DenseIndex, C, P> {
    pub tiers: Vec<(G::Tier, &'a [C], P)>,
}

impl<G: DenseIndex, C: Cell, P: Placement> Below<'_, G, C, P> {
    /// Which child tier `c` is in (its number here), the owner of `c`'s canonical position
    /// there and its place.
    #[inline]
    pub fn locate(
        &self,
        game: &G,
        from: G::Tier,
        c: &G::Position,
    ) -> Result<(usize, usize, u64), Error> {
        let tc = game.tier(c);
        let Some(k) = self.tiers.iter().position(|(t, _, _)| *t == tc) else {
            return Err(Error::Game(format!(
                "a move from tier {from:?} reaches tier {tc:?}, which is not one of its child tiers"
            )));
        };
        let part = &self.tiers[k].2;
        let i = game.rank(&canonical(game, c));
        if i >= part.size() {
            return Err(Error::Game(format!(
                "a move from tier {from:?} reaches {c:?}, rank {i}, past the size of tier {tc:?}"
            )));
        }
        let (owner, l) = part.place(i);
        Ok((k, owner, l))
    }

    /// The value of a located cell (`cell`, read here or sent by its owner).
    #[inline]
    pub fn read(&self, from: G::Tier, k: usize, l: u64, cell: C) -> Result<C::V, Error> {
        cell.decode().ok_or_else(|| {
            Error::Game(format!(
                "a move from tier {from:?} reaches place {l} of tier {:?}, which has no value",
                self.tiers[k].0
            ))
        })
    }

    /// The value of `c` (a position of a child tier this rank owns) for the player to move
    /// there.
    pub fn value(&self, game: &G, from: G::Tier, c: &G::Position) -> Result<C::V, Error> {
        let (k, _, l) = self.locate(game, from, c)?;
        self.read(from, k, l, self.tiers[k].1[l as usize])
    }
}

/// Whether cell updates may race (several threads on one frontier).
#[derive(Copy, Clone)]
pub(crate) struct Racy(pub(crate) bool);

/// Decides an open cell as `v`; whether this call did.
#[inline]
pub(crate) fn decide<C: Open>(cell: &C::Atomic, v: C, racy: Racy) -> bool {
    loop {
        let cur = C::load(cell);
        if cur.counter().is_none() {
            return false;
        }
        if !racy.0 {
            C::store(cell, v);
            return true;
        }
        if C::exchange(cell, cur, v) {
            return true;
        }
    }
}

/// Counts an open cell down, deciding it as `lost` when its counter reaches 0; whether this
/// call decided it.
#[inline]
pub(crate) fn count_down<C: Open>(
    cell: &C::Atomic,
    lost: Option<C>,
    max: u32,
    racy: Racy,
    t: &dyn std::fmt::Debug,
) -> Result<bool, Error> {
    loop {
        let cur = C::load(cell);
        let Some(n) = cur.counter() else {
            return Ok(false);
        };
        let new = match n {
            0 => {
                return Err(Error::Game(format!(
                    "un-moves give a position of tier {t:?} more moves than its moves do"
                )))
            }
            1 => need(lost, max, t)?,
            _ => C::open(n - 1).expect("smaller"),
        };
        if !racy.0 {
            C::store(cell, new);
            return Ok(n == 1);
        }
        if C::exchange(cell, cur, new) {
            return Ok(n == 1);
        }
    }
}

/// A tier's cells while it is solved, by place: what the init and the levels read and
/// write. [`Wide`] holds a value cell a slot (the value, or the counter while open);
/// [`Narrow`](crate::engine::classes::Narrow) a byte a slot (the class, or the counter),
/// the remoteness going to a level log. The init and the levels are written once over it.
pub(crate) trait Slots: Sync {
    /// A decided cell, as the levels' [`Rule`] makes it.
    type C: Copy + Eq + Send + Sync + std::fmt::Debug;
    /// The values the init decides with (a child's, seen through the move).
    type V: Worth;
    /// What the levels of each phase write.
    type Rule: Rule<Self::C>;
    /// The rule of the levels of `phase`.
    fn rule(phase: Phase<<Self::V as Worth>::Stage>) -> Self::Rule;
    /// Takes the counters the cells do not hold (the init's [`InitOut::escaped`]).
    fn escaped(&mut self, escaped: Vec<(u32, u32)>) -> Result<(), Error>;
    /// Places.
    fn len(&self) -> usize;
    /// The cell at place `l`.
    fn get(&self, l: usize) -> Self::C;
    /// Whether place `l` is undecided.
    fn is_open(&self, l: usize) -> bool;
    /// Decides open place `l` as `v`; whether this call did.
    fn decide(&self, l: usize, v: Self::C, racy: Racy) -> bool;
    /// Counts open place `l` down, deciding it as `lost` when its counter reaches 0;
    /// whether this call decided it.
    fn count_down(
        &self,
        l: usize,
        lost: Option<Self::C>,
        max: u32,
        racy: Racy,
        t: &dyn std::fmt::Debug,
    ) -> Result<bool, Error>;
    /// Asks the processor for place `l`'s cache line.
    fn prefetch(&self, l: usize);
    /// Marks place `l` a hole (init).
    fn hole(&self, l: usize);
    /// Decides place `l` as `v` (init).
    fn value(&self, l: usize, v: Self::V, t: &dyn std::fmt::Debug) -> Result<(), Error>;
    /// Opens place `l` with `counter` (init): `Ok(true)` when the counter does not fit the
    /// cell and goes to a side table (the caller lists it, [`InitOut::escaped`]).
    fn open(&self, l: usize, counter: u32, t: &dyn std::fmt::Debug) -> Result<bool, Error>;
}

/// A value cell a slot: the value once decided, else the counter.
pub(crate) struct Wide<C: Open>(pub(crate) Vec<C::Atomic>);

impl<C: Staged> Slots for Wide<C> {
    type C = C;
    type V = C::V;
    type Rule = C::Rule;
    #[inline]
    fn rule(phase: Phase<<C::V as Worth>::Stage>) -> C::Rule {
        match phase {
            Phase::Decisive { stage, never } => C::rule(stage, never),
            Phase::Ties => C::ties(),
        }
    }
    fn escaped(&mut self, escaped: Vec<(u32, u32)>) -> Result<(), Error> {
        // Value cells refuse a counter they do not hold (`open`).
        debug_assert!(escaped.is_empty());
        Ok(())
    }
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn get(&self, l: usize) -> C {
        C::load(&self.0[l])
    }
    #[inline]
    fn is_open(&self, l: usize) -> bool {
        C::load(&self.0[l]).counter().is_some()
    }
    #[inline]
    fn decide(&self, l: usize, v: C, racy: Racy) -> bool {
        decide::<C>(&self.0[l], v, racy)
    }
    #[inline]
    fn count_down(
        &self,
        l: usize,
        lost: Option<C>,
        max: u32,
        racy: Racy,
        t: &dyn std::fmt::Debug,
    ) -> Result<bool, Error> {
        count_down::<C>(&self.0[l], lost, max, racy, t)
    }
    #[inline]
    fn prefetch(&self, l: usize) {
        prefetch(&self.0, l)
    }
    #[inline]
    fn hole(&self, l: usize) {
        C::store(&self.0[l], C::HOLE)
    }
    #[inline]
    fn value(&self, l: usize, v: C::V, t: &dyn std::fmt::Debug) -> Result<(), Error> {
        C::store(&self.0[l], enc::<C>(v, t)?);
        Ok(())
    }
    #[inline]
    fn open(&self, l: usize, count: u32, t: &dyn std::fmt::Debug) -> Result<bool, Error> {
        let open = C::open(count).ok_or_else(|| {
            Error::Unsupported(format!(
                "a position of tier {t:?} has {count} distinct moves; {}-byte value cells count at most {}",
                C::BYTES,
                C::MAX_COUNTER
            ))
        })?;
        C::store(&self.0[l], open);
        Ok(false)
    }
}

/// What the levels tell of each level they run: its frontier, the positions decided at the
/// level (sorted by place). The class cells' solve logs them ([`crate::engine::classes`]);
/// value cells hold their values already (`()`).
pub(crate) trait Record<S: Copy + Ord + std::hash::Hash> {
    /// Whether the init's lists are to be packed ([`Levels::Packed`]: a log keeps values
    /// out of the cells, and the lists waiting for their level are as big as the cells).
    const PACKED: bool;

    /// Level `r`'s frontier in `phase`.
    fn level(&mut self, phase: Phase<S>, r: u32, frontier: &[u32]) -> Result<(), Error>;

    /// A tier without moves inside runs no levels: its init's lists of decided positions
    /// are told as the levels' frontiers would have been.
    fn unlooped(&mut self, mut lists: Lists<S>) -> Result<(), Error> {
        for (stage, lists) in lists.in_order() {
            for (never, [mut decided, _, _]) in [(false, lists.finite), (true, lists.never)] {
                for r in 0..decided.len() {
                    let phase = Phase::Decisive { stage, never };
                    self.level(phase, r, &decided.take(r))?;
                }
            }
        }
        for r in 0..lists.ties.len() {
            self.level(Phase::Ties, r, &lists.ties.take(r))?;
        }
        Ok(())
    }
}

impl<S: Copy + Ord + std::hash::Hash> Record<S> for () {
    const PACKED: bool = false;
    #[inline]
    fn level(&mut self, _: Phase<S>, _: u32, _: &[u32]) -> Result<(), Error> {
        Ok(())
    }
    fn unlooped(&mut self, _: Lists<S>) -> Result<(), Error> {
        Ok(())
    }
}

/// Per level, the places of an event (`Vec` index = level): plain, or packed (sorted
/// lists of varints, [`Packed`]: about a byte a place instead of four) for the class cells'
/// solve, whose init files its events in place order.
pub(crate) enum Levels {
    /// `Vec<u32>`s.
    Plain(Vec<Vec<u32>>),
    /// Packed lists.
    Packed(Vec<Packed>),
}

impl Default for Levels {
    fn default() -> Self {
        Levels::Plain(Vec::new())
    }
}

impl Levels {
    /// Empty lists, packed or not.
    pub(crate) fn new(packed: bool) -> Levels {
        match packed {
            true => Levels::Packed(Vec::new()),
            false => Levels::Plain(Vec::new()),
        }
    }
    /// Appends `i` to level `r`'s list (packed: after every place there).
    pub(crate) fn push(&mut self, r: u32, i: u32) {
        fn at<T: Default>(v: &mut Vec<T>, r: u32) -> &mut T {
            let r = r as usize;
            if v.len() <= r {
                v.resize_with(r + 1, T::default);
            }
            &mut v[r]
        }
        match self {
            Levels::Plain(v) => at(v, r).push(i),
            Levels::Packed(v) => at(v, r).push(i),
        }
    }
    /// Level `r`'s list, taken out.
    pub(crate) fn take(&mut self, r: u32) -> Vec<u32> {
        let r = r as usize;
        match self {
            Levels::Plain(v) => v.get_mut(r).map(std::mem::take).unwrap_or_default(),
            Levels::Packed(v) => v
                .get_mut(r)
                .map(|p| std::mem::take(p).to_vec())
                .unwrap_or_default(),
        }
    }
    /// Levels with a list (the last may be empty).
    pub(crate) fn len(&self) -> u32 {
        match self {
            Levels::Plain(v) => v.len() as u32,
            Levels::Packed(v) => v.len() as u32,
        }
    }
}

/// Remoteness none, in a list of events: a win or a loss (with scores) of a game that never
/// ends.
pub(crate) const NEVER: u32 = u32::MAX;

/// What the init of one run of places found.
pub(crate) struct InitOut<V: Worth> {
    /// Wins and losses decided at init: (stage, remoteness or [`NEVER`], place).
    pub(crate) decided: Vec<(V::Stage, u32, u32)>,
    /// Ties decided at init: (remoteness, place).
    pub(crate) ties: Vec<(u32, u32)>,
    /// Winning exits.
    pub(crate) seeds: Vec<(V::Stage, u32, u32)>,
    /// Tying exits of positions still open.
    pub(crate) tie_seeds: Vec<(u32, u32)>,
    /// Losing exits of positions with moves inside: counted down at this level.
    pub(crate) phantoms: Vec<(V::Stage, u32, u32)>,
    /// Reverse edges (child slot, parent slot | keeps << 31), without un-moves.
    pub(crate) edges: Vec<(u32, u32)>,
    /// Positions opened with a counter their cells do not hold: (place, counter).
    pub(crate) escaped: Vec<(u32, u32)>,
    /// Some move stays in the tier.
    pub(crate) loopy: bool,
    /// Positions solved (canonical, not holes).
    pub(crate) solved: u64,
    /// Their moves, each position's times its class size (for the totals of a game
    /// without a start, which would otherwise generate every position's moves again).
    pub(crate) moves: u64,
    /// Positions waiting for exits another rank owns: (place, moves inside, best exit so
    /// far).
    pending: Vec<(u32, u32, Option<V>)>,
    /// Their remote exits by bucket `owner x child tiers + child tier`: the places asked
    /// for, in the order met ...
    asks: Vec<Vec<u32>>,
    /// ... and for each, `index in pending << 1 | keeps`, ...
    askers: Vec<Vec<u32>>,
    /// ... and with scores the move's reward.
    rewards: Vec<Vec<i64>>,
}

impl<V: Worth> Default for InitOut<V> {
    fn default() -> Self {
        InitOut {
            decided: Vec::new(),
            ties: Vec::new(),
            seeds: Vec::new(),
            tie_seeds: Vec::new(),
            phantoms: Vec::new(),
            edges: Vec::new(),
            escaped: Vec::new(),
            loopy: false,
            solved: 0,
            moves: 0,
            pending: Vec::new(),
            asks: Vec::new(),
            askers: Vec::new(),
            rewards: Vec::new(),
        }
    }
}

/// The lists of one stage of wins and losses (without scores the only one; with scores a
/// `|score|`), each `[decided, seeds, phantoms]`: those with a remoteness, then those
/// without (with scores, a game that never ends).
pub(crate) struct Stage {
    pub(crate) finite: [Levels; 3],
    pub(crate) never: [Levels; 3],
}

impl Stage {
    fn new(packed: bool) -> Stage {
        let new = || std::array::from_fn(|_| Levels::new(packed));
        Stage {
            finite: new(),
            never: new(),
        }
    }
}

/// The level lists of a tier's init, gathered from the [`InitOut`]s of its runs: wins and
/// losses by stage, then ties.
pub(crate) struct Lists<S> {
    index: HashMap<S, usize>,
    stages: Vec<(S, Stage)>,
    pub(crate) ties: Levels,
    pub(crate) tie_seeds: Levels,
    /// Whether the lists are packed (then events are filed in place order).
    packed: bool,
}

impl<S: Copy + Ord + std::hash::Hash> Lists<S> {
    pub(crate) fn new(packed: bool) -> Self {
        Lists {
            index: HashMap::new(),
            stages: Vec::new(),
            ties: Levels::new(packed),
            tie_seeds: Levels::new(packed),
            packed,
        }
    }

    /// The number of stage `s`'s lists (new ones are empty).
    pub(crate) fn stage(&mut self, s: S) -> usize {
        let stages = &mut self.stages;
        let packed = self.packed;
        *self.index.entry(s).or_insert_with(|| {
            stages.push((s, Stage::new(packed)));
            stages.len() - 1
        })
    }

    /// Files `o`'s events by stage and level (packed lists: a task's events are sorted by
    /// place first, since with ranks the positions that waited for remote exits come last).
    pub(crate) fn add<V: Worth<Stage = S>>(&mut self, o: &mut InitOut<V>) {
        if self.packed {
            for v in [&mut o.decided, &mut o.seeds, &mut o.phantoms] {
                if !v.is_sorted_by_key(|e| e.2) {
                    v.sort_unstable_by_key(|e| e.2);
                }
            }
            for v in [&mut o.ties, &mut o.tie_seeds] {
                if !v.is_sorted_by_key(|e| e.1) {
                    v.sort_unstable_by_key(|e| e.1);
                }
            }
        }
        for (list, events) in [&o.decided, &o.seeds, &o.phantoms].into_iter().enumerate() {
            // Runs of one stage (without scores, every event) take one look-up.
            let mut last: Option<(S, usize)> = None;
            for &(s, r, i) in events {
                let k = match last {
                    Some((k, j)) if k == s => j,
                    _ => {
                        let j = self.stage(s);
                        last = Some((s, j));
                        j
                    }
                };
                let stage = &mut self.stages[k].1;
                match r {
                    NEVER => stage.never[list].push(0, i),
                    _ => stage.finite[list].push(r, i),
                }
            }
        }
        for &(r, i) in &o.ties {
            self.ties.push(r, i);
        }
        for &(r, i) in &o.tie_seeds {
            self.tie_seeds.push(r, i);
        }
    }

    /// The stages, largest first.
    pub(crate) fn in_order(&mut self) -> Vec<(S, Stage)> {
        self.index.clear();
        let mut v = std::mem::take(&mut self.stages);
        v.sort_unstable_by_key(|s| std::cmp::Reverse(s.0));
        v
    }
}

/// Per-thread scratch space.
pub(crate) struct Scratch<P> {
    pub(crate) moves: Vec<P>,
    /// Parents the game numbered itself: (number, keeps-turn).
    pub(crate) ranked: Vec<(u64, bool)>,
    /// The distinct (slot << 1 | keeps-turn) of moves inside the tier or of parents.
    pub(crate) inside: Keys<u64>,
    /// Moves inside the tier as (canonical child, keeps-turn), with un-moves: counting
    /// needs no rank.
    pub(crate) inside_pos: Keys<(P, bool)>,
    /// Exits located: (child tier, slot, keeps-turn, reward).
    pub(crate) exits: Vec<(usize, usize, bool, i64)>,
    /// The distinct parents of `inside`, across ranks, this rank's first: (owner, place
    /// there, keeps-turn) (see [`Sides`]).
    pub(crate) sorted: Vec<(usize, u32, bool)>,
}

impl<P: Copy + Eq + std::hash::Hash> Scratch<P> {
    pub(crate) fn new() -> Scratch<P> {
        Scratch {
            moves: Vec::with_capacity(64),
            ranked: Vec::with_capacity(64),
            inside: Keys::new(),
            inside_pos: Keys::new(),
            exits: Vec::with_capacity(64),
            sorted: Vec::with_capacity(64),
        }
    }
}

pub(crate) fn enc<C: Cell>(v: C::V, t: &dyn std::fmt::Debug) -> Result<C, Error> {
    C::encode(v).ok_or_else(|| Error::Remoteness {
        tier: format!("{t:?}"),
        max: C::MAX_REMOTENESS,
    })
}

/// What the levels write (step 2 and 3): the value of a position won, lost or tied at
/// remoteness `r`, and whether a decided cell is a loss. [`Plain`] is the unscored rule on
/// value cells; a game with scores runs the same levels once per score level with a rule of
/// its own (`scored.rs`). A rule is a type, so the unscored levels are compiled as before.
pub(crate) trait Rule<C>: Sync {
    /// The largest remoteness the cells hold.
    const MAX_REMOTENESS: u32;
    /// Won at `r` (`None`: `r` does not fit).
    fn won(&self, r: u32) -> Option<C>;
    /// Lost at `r`.
    fn lost(&self, r: u32) -> Option<C>;
    /// Tied at `r`.
    fn tied(&self, r: u32) -> Option<C>;
    /// Whether decided cell `c` is a loss for its mover.
    fn is_loss(&self, c: C) -> bool;
}

/// A cell that must exist: a remoteness that fits (`max`, the cells' largest).
#[inline]
pub(crate) fn need<C>(c: Option<C>, max: u32, t: &dyn std::fmt::Debug) -> Result<C, Error> {
    c.ok_or_else(|| Error::Remoteness {
        tier: format!("{t:?}"),
        max,
    })
}

/// The unscored rule: wins, losses and ties in value cells.
pub(crate) struct Plain;

impl<C: Cell<V = Value>> Rule<C> for Plain {
    const MAX_REMOTENESS: u32 = C::MAX_REMOTENESS;
    #[inline]
    fn won(&self, r: u32) -> Option<C> {
        C::encode(Value::Win(r))
    }
    #[inline]
    fn lost(&self, r: u32) -> Option<C> {
        C::encode(Value::Loss(r))
    }
    #[inline]
    fn tied(&self, r: u32) -> Option<C> {
        C::encode(Value::Tie(r))
    }
    #[inline]
    fn is_loss(&self, c: C) -> bool {
        c.is_loss()
    }
}

/// The rule of the levels at score level `s` (`|score|`): won is `+s`, lost `-s`, at the
/// remoteness of the level, or with none in the `never` phase (a game that never ends);
/// tied is 0.
pub(crate) struct AtScore {
    s: i64,
    never: bool,
}

impl AtScore {
    #[inline]
    fn at(&self, score: i64, r: u32) -> Option<ScoreCell> {
        let r = (!self.never).then_some(r);
        ScoreCell::encode(Scored::new(score, r))
    }
}

impl Rule<ScoreCell> for AtScore {
    const MAX_REMOTENESS: u32 = ScoreCell::MAX_REMOTENESS;
    #[inline]
    fn won(&self, r: u32) -> Option<ScoreCell> {
        self.at(self.s, r)
    }
    #[inline]
    fn lost(&self, r: u32) -> Option<ScoreCell> {
        self.at(-self.s, r)
    }
    #[inline]
    fn tied(&self, r: u32) -> Option<ScoreCell> {
        ScoreCell::encode(Scored::new(0, Some(r)))
    }
    #[inline]
    fn is_loss(&self, c: ScoreCell) -> bool {
        c.is_loss()
    }
}

/// A cell's rule for the levels of each stage: [`Plain`] for value cells (one stage),
/// [`AtScore`] for cells with scores.
pub(crate) trait Staged: CellArray {
    /// The rule.
    type Rule: Rule<Self>;
    /// The sequential reference's answer for one tier (`seq.rs`; value cells only).
    fn sequential<G: DenseIndex, P: Placement>(
        game: &G,
        t: G::Tier,
        below: &Below<'_, G, Self, P>,
    ) -> Result<(Vec<Self>, u64), Error>;
    /// The rule of the wins and losses of stage `s` (`never`: those without a remoteness).
    fn rule(s: <Self::V as Worth>::Stage, never: bool) -> Self::Rule;
    /// The rule of the ties.
    fn ties() -> Self::Rule;
}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl Staged for $t {
            type Rule = Plain;
            fn sequential<G: DenseIndex, P: Placement>(
                game: &G,
                t: G::Tier,
                below: &Below<'_, G, $t, P>,
            ) -> Result<(Vec<$t>, u64), Error> {
                crate::engine::seq::solve_tier(game, t, below)
            }
            #[inline]
            fn rule(_: (), _: bool) -> Plain {
                Plain
            }
            #[inline]
            fn ties() -> Plain {
                Plain
            }
        }
    )*};
}
plain!(u8, u16);

impl Staged for ScoreCell {
    type Rule = AtScore;
    fn sequential<G: DenseIndex, P: Placement>(
        _: &G,
        _: G::Tier,
        _: &Below<'_, G, ScoreCell, P>,
    ) -> Result<(Vec<ScoreCell>, u64), Error> {
        Err(Error::Unsupported(
            "the sequential reference solves games without scores only".into(),
        ))
    }
    fn rule(s: u64, never: bool) -> AtScore {
        AtScore { s: s as i64, never }
    }
    fn ties() -> AtScore {
        AtScore { s: 0, never: false }
    }
}

/// Decides, seeds or opens slot `i` from its number of distinct moves inside the tier and
/// its best exit (seen through the move).
#[inline]
pub(crate) fn settle<S: Slots>(
    t: &dyn std::fmt::Debug,
    cells: &S,
    i: u32,
    inside: u32,
    best: Option<S::V>,
    out: &mut InitOut<S::V>,
) -> Result<(), Error> {
    let r_of = |r: Option<u32>| r.unwrap_or(NEVER);
    let mut count = inside;
    if inside == 0 {
        // Every move is an exit: the best one decides.
        let v = best.expect("a position with moves has an exit when none stays");
        cells.value(i as usize, v, t)?;
        match v.class() {
            Class::Win(s, r) | Class::Loss(s, r) => out.decided.push((s, r_of(r), i)),
            Class::Tie(r) => out.ties.push((r, i)),
            Class::Draw => {}
        }
        return Ok(());
    }
    if let Some(v) = best {
        count += 1;
        match v.class() {
            Class::Win(s, r) => out.seeds.push((s, r_of(r), i)),
            Class::Tie(r) => out.tie_seeds.push((r, i)),
            Class::Draw => {}
            // A losing exit of remoteness r counts down at level r - 1 (r >= 1).
            Class::Loss(s, r) => {
                out.phantoms
                    .push((s, r.map_or(NEVER, |r| r.saturating_sub(1)), i))
            }
        }
    }
    if cells.open(i as usize, count, t)? {
        out.escaped.push((i, count));
    }
    Ok(())
}

/// The tier's cells of this rank's places, solved (holes 0, draws [`Cell::DRAW`]), the
/// number of positions solved and, for a game without a start, their moves weighted by
/// class size (see [`InitOut::moves`]). Every rank calls it for the same tier (a
/// collective).
pub(crate) fn solve_tier<G: DenseIndex, C: Staged, P: Placement>(
    game: &G,
    t: G::Tier,
    part: P,
    below: &Below<'_, G, C, P>,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<(Vec<C>, u64, Option<u64>), Error> {
    let n = part.len(ex.rank());
    check_size(&t, &part, n)?;
    let mut cells = Wide::<C>(
        (0..n)
            .into_par_iter()
            .map(|_| C::UNDECIDED.atomic())
            .collect(),
    );
    let (solved, moves) = solve_slots(game, t, part, below, &mut cells, &mut (), ex, opts)?;
    // 4. Draws; holes back to 0. In place: the plain cells take the atomics' memory (the
    // same layout, which `collect` reuses), so the tier is never held twice.
    cells.0.par_iter().for_each(|a| match C::load(a) {
        c if c.counter().is_some() => C::store(a, C::DRAW),
        c if c == C::HOLE => C::store(a, C::UNDECIDED),
        _ => {}
    });
    let out: Vec<C> = cells.0.into_iter().map(C::into_inner).collect();
    Ok((out, solved, moves))
}

/// Steps 1 to 3 on this rank's `cells` (every one set): the init, then the levels of each
/// stage and the ties, each level's frontier told to `log`. Returns the number of positions
/// solved and, for a game without a start, their moves weighted by class size.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_slots<G, C, S, P, L>(
    game: &G,
    t: G::Tier,
    part: P,
    below: &Below<'_, G, C, P>,
    cells: &mut S,
    log: &mut L,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<(u64, Option<u64>), Error>
where
    G: DenseIndex,
    C: Staged,
    S: Slots<V = C::V>,
    P: Placement,
    L: Record<<C::V as Worth>::Stage>,
{
    let me = ex.rank();
    let n = part.len(me);
    let init = init::<G, C, S, P>(game, t, part, below, cells, L::PACKED, ex)?;
    let Init {
        lists,
        loopy,
        solved,
        moves,
        edges,
        escaped,
    } = init;
    cells.escaped(escaped)?;
    let cells = &*cells;
    let moves = game.start().is_none().then_some(moves);
    if !loopy {
        log.unlooped(lists)?;
        return Ok((solved, moves));
    }
    let (rev_off, rev) = match <G::Parents as Parents<G>>::UNMOVES {
        true => (Vec::new(), Vec::new()),
        false => reverse_edges(&t, n, edges, ex)?,
    };
    let parents = ParentsOf {
        game,
        t,
        part,
        me,
        rev_off: &rev_off,
        rev: &rev,
    };
    let mut lists = lists;
    if !<C::V as Worth>::SCORED {
        // The one stage, on every rank.
        lists.stage(<C::V as Worth>::stage_of(0));
    } else if !P::ALONE {
        // Every rank runs every stage (the levels are collectives).
        agree_on_stages::<C::V>(&mut lists, ex)?;
    }
    for (stage, Stage { finite, never }) in lists.in_order() {
        let phase = Phase::Decisive {
            stage,
            never: false,
        };
        levels::<G, S, P, _, L, false>(
            &parents,
            cells,
            finite,
            &S::rule(phase),
            phase,
            log,
            ex,
            opts,
        )?;
        if <C::V as Worth>::SCORED {
            let phase = Phase::Decisive { stage, never: true };
            levels::<G, S, P, _, L, false>(
                &parents,
                cells,
                never,
                &S::rule(phase),
                phase,
                log,
                ex,
                opts,
            )?;
        }
    }
    let ties = [lists.ties, lists.tie_seeds, Levels::default()];
    let phase = Phase::Ties;
    levels::<G, S, P, _, L, true>(&parents, cells, ties, &S::rule(phase), phase, log, ex, opts)?;
    Ok((solved, moves))
}

/// Refuses a tier whose places do not fit: `u32` places in one process, and below 2^31 on
/// every rank (a message carries a bit beside a place); without un-moves, slots below 2^31
/// (a reverse edge carries the keeps bit beside its parent's slot).
pub(crate) fn check_size<P: Placement>(
    t: &dyn std::fmt::Debug,
    part: &P,
    n: u64,
) -> Result<(), Error> {
    let size = part.size();
    if P::ALONE && n > u64::from(u32::MAX) {
        return Err(Error::Unsupported(format!(
            "tier {t:?} has {size} slots; the engine handles at most {} a tier",
            u32::MAX
        )));
    }
    let kk = part.ranks();
    if !P::ALONE && (0..kk).any(|r| part.len(r) >= 1 << 31) {
        return Err(Error::Unsupported(format!(
            "tier {t:?} has {size} slots: over {kk} ranks, a rank would hold 2^31 or more; use at least {} ranks",
            size.div_ceil((1 << 31) - TASK)
        )));
    }
    Ok(())
}

/// Makes every rank's stages the same: those of any rank (each sends its own to all).
fn agree_on_stages<V: Worth>(lists: &mut Lists<V::Stage>, ex: &dyn Exchange) -> Result<(), Error> {
    let mine: Vec<u8> = lists
        .stages
        .iter()
        .flat_map(|(s, _)| V::stage_bits(*s).to_le_bytes())
        .collect();
    let got = ex.all_to_all(vec![mine; ex.size()]);
    for (d, g) in got.iter().enumerate() {
        if g.len() % 8 != 0 {
            return Err(Error::Exchange(format!(
                "rank {d} sent {} bytes of score levels",
                g.len()
            )));
        }
        for b in g.chunks_exact(8) {
            lists.stage(V::stage_of(u64::from_le_bytes(b.try_into().expect("8"))));
        }
    }
    Ok(())
}

/// What a tier's init found.
struct Init<V: Worth> {
    lists: Lists<V::Stage>,
    /// Some move stays in the tier, on some rank.
    loopy: bool,
    solved: u64,
    /// Moves weighted by class size (a game without a start only).
    moves: u64,
    /// Reverse edges inside the tier by the owner of their child: (child's place there,
    /// parent slot | keeps << 31) pairs, flat.
    edges: Vec<Vec<u32>>,
    /// Positions opened with a counter their cells do not hold: (place, counter).
    escaped: Vec<(u32, u32)>,
}

/// Init (step 1) of this rank's places, in rounds (one for one process); `packed`: its
/// lists packed.
fn init<G: DenseIndex, C: Cell, S: Slots<V = C::V>, P: Placement>(
    game: &G,
    t: G::Tier,
    part: P,
    below: &Below<'_, G, C, P>,
    cells: &S,
    packed: bool,
    ex: &dyn Exchange,
) -> Result<Init<C::V>, Error> {
    let (me, kk) = (ex.rank(), ex.size());
    let n = part.len(me);
    if !<G::Parents as Parents<G>>::UNMOVES && part.size() >= 1 << 31 {
        return Err(Error::Unsupported(format!(
            "tier {t:?} has {} slots; without un-moves the engine handles at most 2^31 a tier",
            part.size()
        )));
    }
    let mut found = Init {
        lists: Lists::new(packed),
        loopy: false,
        solved: 0,
        moves: 0,
        edges: vec![Vec::new(); kk],
        escaped: Vec::new(),
    };
    let round = match (crate::engine::small_rounds(), P::ALONE) {
        // A few places: tests' small tiers then take several rounds.
        (true, _) => 3,
        (false, true) => ALONE_ROUND,
        (false, false) => ROUND,
    };
    let rounds = (0..kk)
        .map(|r| part.len(r).div_ceil(round))
        .max()
        .unwrap_or(0);
    let buckets = if P::ALONE { 0 } else { kk * below.tiers.len() };
    let weigh = game.start().is_none();
    for r in 0..rounds {
        let lo = (r * round).min(n);
        let hi = (lo + round).min(n);
        let tasks = (hi - lo).div_ceil(TASK);
        let mut outs: Vec<InitOut<C::V>> = (0..tasks)
            .into_par_iter()
            .map_init(Scratch::new, |s, task| {
                let a = lo + task * TASK;
                let b = (a + TASK).min(hi);
                let scored = <C::V as Worth>::SCORED;
                let mut out = InitOut {
                    asks: vec![Vec::new(); buckets],
                    askers: vec![Vec::new(); buckets],
                    rewards: vec![Vec::new(); if scored { buckets } else { 0 }],
                    ..InitOut::default()
                };
                let mut err = Ok(());
                part.runs(me, a, b, |l0, g| {
                    let g0 = g.start;
                    game.for_each_in(t, g, |i, p| {
                        if err.is_err() {
                            return;
                        }
                        let l = (l0 + (i - g0)) as u32;
                        let at = Slot { i, l };
                        if let Err(e) = init_one::<G, C, S, P>(
                            game, t, &part, me, below, at, p, cells, s, weigh, &mut out,
                        ) {
                            err = Err(e);
                        }
                    });
                });
                err.map(|_| out)
            })
            .collect::<Result<_, Error>>()?;
        let loopy_here = outs.iter().any(|o| o.loopy);
        // A move inside the tier in any round, on any rank: then the levels run (on every
        // rank, since they are collectives).
        found.loopy |= if P::ALONE {
            loopy_here
        } else {
            // The requests for remote exits also tell whether any rank has a move inside.
            ask_remote_exits::<G, C, S, P>(game, t, below, &mut outs, loopy_here, cells, ex)?
        };
        for mut o in outs {
            found.lists.add(&mut o);
            found.escaped.append(&mut o.escaped);
            found.solved += o.solved;
            found.moves += o.moves;
            for (c, p) in o.edges {
                let (d, lc) = part.place(u64::from(c));
                found.edges[d].push(lc as u32);
                found.edges[d].push(p);
            }
        }
    }
    Ok(found)
}

/// A slot and its place on this rank.
#[derive(Copy, Clone)]
struct Slot {
    i: u64,
    l: u32,
}

/// Init of slot `at` (position `p`, or a hole): decides, seeds or opens it, or leaves it
/// pending when some exit is another rank's. With `weigh`, adds its moves times its class
/// size to `out.moves`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn init_one<G: DenseIndex, C: Cell, S: Slots<V = C::V>, P: Placement>(
    game: &G,
    t: G::Tier,
    part: &P,
    me: usize,
    below: &Below<'_, G, C, P>,
    at: Slot,
    p: Option<G::Position>,
    cells: &S,
    s: &mut Scratch<G::Position>,
    weigh: bool,
    out: &mut InitOut<C::V>,
) -> Result<(), Error> {
    let Slot { i, l } = at;
    let Some(p) = p else {
        cells.hole(l as usize);
        return Ok(());
    };
    if !<G::Symmetry as Symmetry<G>>::is_canonical(game, &p) {
        cells.hole(l as usize);
        return Ok(());
    }
    out.solved += 1;
    let scored = <C::V as Worth>::SCORED;
    let unmoves = <G::Parents as Parents<G>>::UNMOVES;
    // With un-moves the moves inside are only counted: distinct moves to classes the game
    // says are distinct are counted as they come, without their canonical forms, and the
    // game need not even make their positions (`moves_leaving`).
    let mut apart = false;
    let mut apart_inside = 0;
    let fixed = match game.primitive(&p) {
        Some(v) => Some(<C::V as Worth>::over(game, &p, Some(v))),
        None => {
            s.moves.clear();
            apart = unmoves
                && G::DISTINCT_MOVES
                && <G::Symmetry as Symmetry<G>>::children_apart(game, &p);
            if apart {
                apart_inside = game.moves_leaving(&p, &mut s.moves);
            } else {
                game.moves(&p, &mut s.moves);
            }
            let all = s.moves.len() + apart_inside;
            if weigh {
                let w = <G::Symmetry as Symmetry<G>>::class_size(game, &p);
                out.moves += w * all as u64;
            }
            (all == 0).then(|| <C::V as Worth>::over(game, &p, None))
        }
    };
    if let Some(v) = fixed {
        if scored {
            in_range(game, v, &p)?;
        }
        cells.value(l as usize, v, &t)?;
        match v.class() {
            Class::Tie(_) => out.ties.push((0, l)),
            Class::Win(s, _) | Class::Loss(s, _) => out.decided.push((s, 0, l)),
            Class::Draw => unreachable!("a game over has a remoteness"),
        }
        return Ok(());
    }
    s.inside.clear(G::DISTINCT_MOVES);
    s.inside_pos.clear(G::DISTINCT_MOVES);
    s.exits.clear();
    let pending = out.pending.len() as u32;
    let mut remote = false;
    // Exits are located and prefetched first, read after the moves inside are counted.
    for c in &s.moves {
        let k = keeps(game, &p, c);
        if game.tier(c) == t {
            if apart {
                return Err(Error::Game(format!(
                    "{c:?}, a move of {p:?} that moves_leaving gives, is inside its tier {t:?}"
                )));
            }
            let cc = canonical(game, c);
            let sure = G::DISTINCT_MOVES && cc == *c;
            if unmoves {
                s.inside_pos.add((cc, k), sure);
                continue;
            }
            let j = game.rank(&cc);
            if j >= part.size() {
                return Err(Error::Game(format!(
                    "rank {j} of a position of tier {t:?}, whose size is {}",
                    part.size()
                )));
            }
            s.inside.add(j << 1 | u64::from(k), sure);
        } else {
            let (ct, owner, lj) = below.locate(game, t, c)?;
            let reward = <G::Score as Scoring<G>>::reward(game, &p, c);
            if P::ALONE || owner == me {
                prefetch(below.tiers[ct].1, lj as usize);
                s.exits.push((ct, lj as usize, k, reward));
            } else {
                remote = true;
                let b = owner * below.tiers.len() + ct;
                out.asks[b].push(lj as u32);
                out.askers[b].push(pending << 1 | u32::from(k));
                if scored {
                    out.rewards[b].push(reward);
                }
            }
        }
    }
    let inside = if unmoves {
        s.inside_pos.keys().len() + apart_inside
    } else {
        let keys = s.inside.keys();
        for &e in keys {
            out.edges
                .push(((e >> 1) as u32, i as u32 | ((e & 1) as u32) << 31));
        }
        keys.len()
    };
    if inside > 0 {
        out.loopy = true;
    }
    let mut best: Option<C::V> = None;
    for &(ct, lj, k, reward) in &s.exits {
        let v = below
            .read(t, ct, lj as u64, below.tiers[ct].1[lj])?
            .through(k, reward);
        if scored {
            in_range(game, v, &p)?;
        }
        if best.is_none_or(|b| v > b) {
            best = Some(v);
        }
    }
    if remote {
        out.pending.push((l, inside as u32, best));
        return Ok(());
    }
    settle(&t, cells, l, inside as u32, best, out)
}

/// Checks a value with scores against the game's declared range (a game that breaks its
/// promise gets an error, never a wrong value).
#[cold]
fn out_of_range<G: DenseIndex, V: Worth>(game: &G, v: V, p: &dyn std::fmt::Debug) -> Error {
    let (lo, hi) = <G::Score as Scoring<G>>::score_range(game);
    Error::Game(format!(
        "{p:?} is worth {} ({}), outside the declared score range {lo}..={hi}",
        v.scored(),
        v.scored().score
    ))
}

#[inline]
fn in_range<G: DenseIndex, V: Worth>(game: &G, v: V, p: &dyn std::fmt::Debug) -> Result<(), Error> {
    match v.within(<G::Score as Scoring<G>>::score_range(game)) {
        true => Ok(()),
        false => Err(out_of_range(game, v, p)),
    }
}

/// The remote exits of a round (ranks only): one request per owner, the places it owns by
/// child tier, in the order the positions met them (repeats and all: sorting them away cost
/// more than sending them); the answer, the cells in the same order. Then every waiting
/// position is settled. Returns whether any rank has a move inside the tier.
fn ask_remote_exits<G: DenseIndex, C: Cell, S: Slots<V = C::V>, P: Placement>(
    game: &G,
    t: G::Tier,
    below: &Below<'_, G, C, P>,
    outs: &mut [InitOut<C::V>],
    loopy: bool,
    cells: &S,
    ex: &dyn Exchange,
) -> Result<bool, Error> {
    let kk = ex.size();
    let nct = below.tiers.len();
    // `at[task][b]`: where the task's first exit of bucket `b = owner x children + child
    // tier` is answered in its owner's reply.
    let mut at: Vec<Vec<usize>> = Vec::with_capacity(outs.len());
    let mut next = vec![0usize; kk * nct];
    for d in 0..kk {
        let mut sum = 0;
        for ct in 0..nct {
            let b = d * nct + ct;
            next[b] = sum;
            sum += outs.iter().map(|o| o.asks[b].len()).sum::<usize>();
        }
    }
    for o in outs.iter() {
        at.push(next.clone());
        for (x, a) in next.iter_mut().zip(&o.asks) {
            *x += a.len();
        }
    }
    let requests: Vec<Vec<u8>> = (0..kk)
        .map(|d| {
            let by_tier = |ct: usize| outs.iter().map(move |o| &o.asks[d * nct + ct]);
            let total: usize = (0..nct)
                .map(|ct| by_tier(ct).map(Vec::len).sum::<usize>())
                .sum();
            if total == 0 {
                return Vec::new();
            }
            let mut m = Vec::with_capacity(4 * nct + 4 * total);
            for ct in 0..nct {
                let len: usize = by_tier(ct).map(Vec::len).sum();
                m.extend_from_slice(&(len as u32).to_le_bytes());
                for a in by_tier(ct) {
                    for &lj in a {
                        m.extend_from_slice(&lj.to_le_bytes());
                    }
                }
            }
            m
        })
        .collect();
    let (got, any_loopy) = ex.all_to_all_max(requests, u64::from(loopy));
    let answers: Vec<Vec<u8>> = got
        .iter()
        .enumerate()
        .map(|(d, req)| answer_exits(&t, below, req, d))
        .collect::<Result<_, Error>>()?;
    let replies = ex.all_to_all(answers);
    for (d, reply) in replies.iter().enumerate() {
        let want: usize = outs
            .iter()
            .flat_map(|o| &o.asks[d * nct..(d + 1) * nct])
            .map(Vec::len)
            .sum();
        if reply.len() != C::BYTES * want {
            return Err(Error::Exchange(format!(
                "rank {d} answered {} bytes for {want} exits of tier {t:?}",
                reply.len(),
            )));
        }
    }
    outs.par_iter_mut()
        .zip(at)
        .try_for_each(|(o, at)| -> Result<(), Error> {
            for (b, askers) in o.askers.iter().enumerate() {
                let (owner, ct) = (b / nct, b % nct);
                for (n, &x) in askers.iter().enumerate() {
                    let c = cell_at::<C>(&replies[owner], at[b] + n);
                    let lj = o.asks[b][n];
                    let reward = o.rewards.get(b).map_or(0, |r| r[n]);
                    let v = below
                        .read(t, ct, u64::from(lj), c)?
                        .through(x & 1 == 1, reward);
                    if <C::V as Worth>::SCORED {
                        let at = format!("place {} of tier {t:?}", o.pending[(x >> 1) as usize].0);
                        in_range(game, v, &at)?;
                    }
                    let best = &mut o.pending[(x >> 1) as usize].2;
                    if best.is_none_or(|b| v > b) {
                        *best = Some(v);
                    }
                }
            }
            o.asks = Vec::new();
            o.askers = Vec::new();
            o.rewards = Vec::new();
            let pending = std::mem::take(&mut o.pending);
            for (l, inside, best) in pending {
                settle(&t, cells, l, inside, best, o)?;
            }
            Ok(())
        })?;
    Ok(any_loopy == 1)
}

/// The cells another rank asked for (`req`: per child tier a count, then that many places),
/// in the order asked.
fn answer_exits<G: DenseIndex, C: Cell, P>(
    t: &G::Tier,
    below: &Below<'_, G, C, P>,
    req: &[u8],
    from: usize,
) -> Result<Vec<u8>, Error> {
    let bad = || {
        Error::Exchange(format!(
            "rank {from} sent a malformed request for exits of tier {t:?}"
        ))
    };
    let mut ans = Vec::with_capacity(req.len() / 4 * C::BYTES);
    let mut rest = req;
    for (_, cells, _) in &below.tiers {
        if rest.is_empty() {
            break;
        }
        let h = rest.get(..4).ok_or_else(bad)?;
        let m = u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as usize;
        let body = rest.get(4..4 + 4 * m).ok_or_else(bad)?;
        rest = &rest[4 + 4 * m..];
        for lj in prefetched(body, |l| prefetch(cells, l), !0) {
            let c = cells.get(lj as usize).copied().ok_or_else(bad)?;
            push_cell(&mut ans, c);
        }
    }
    if !rest.is_empty() {
        return Err(bad());
    }
    Ok(ans)
}

/// The reverse edges inside a tier at the owners of their child slots, CSR by place: this
/// rank's edges (`edges[d]` for rank `d`) go to their owners first (one process keeps its
/// own).
pub(crate) fn reverse_edges(
    t: &dyn std::fmt::Debug,
    n: u64,
    edges: Vec<Vec<u32>>,
    ex: &dyn Exchange,
) -> Result<(Vec<u64>, Vec<u32>), Error> {
    let got: Vec<Vec<u32>> = if ex.size() == 1 {
        edges
    } else {
        let out = edges.iter().map(|v| bytes_of_u32(v)).collect();
        drop(edges);
        ex.all_to_all(out)
            .iter()
            .map(|g| u32s(g).collect())
            .collect()
    };
    let past = || Error::Exchange(format!("a reverse edge past a share of tier {t:?}"));
    let mut off = vec![0u64; n as usize + 1];
    for g in &got {
        for e in g.chunks_exact(2) {
            *off.get_mut(e[0] as usize + 1).ok_or_else(past)? += 1;
        }
    }
    for i in 0..n as usize {
        off[i + 1] += off[i];
    }
    let mut fill = off.clone();
    let mut rev = vec![0u32; off[n as usize] as usize];
    for g in got {
        for e in g.chunks_exact(2) {
            rev[fill[e[0] as usize] as usize] = e[1];
            fill[e[0] as usize] += 1;
        }
    }
    Ok((off, rev))
}

/// Wins and losses (step 2), or with `TIES` ties (step 3), level by level, from the
/// lists of what is decided at each level (`decided`), seeded by a winning or tying exit
/// (`seeds`) or counted down by a losing one (`phantoms`, wins and losses only). A win or a
/// loss updates every parent (won, or counted down); a tie, every parent still open (tied
/// one ply later). Each level's frontier, sorted, is told to `log` (of `phase`) first. Each
/// level ends with one exchange (an update of another rank's parent is its place, with a
/// win bit for wins and losses), which also tells whether any rank has work left: then the
/// next level runs everywhere. Level 0 runs on every rank of a loopy tier.
#[allow(clippy::too_many_arguments)]
pub(crate) fn levels<G, S, P, R, L, const TIES: bool>(
    parents: &ParentsOf<'_, G, P>,
    cells: &S,
    [mut decided, mut seeds, mut phantoms]: [Levels; 3],
    rule: &R,
    phase: Phase<<S::V as Worth>::Stage>,
    log: &mut L,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<(), Error>
where
    G: DenseIndex,
    S: Slots,
    P: Placement,
    R: Rule<S::C>,
    L: Record<<S::V as Worth>::Stage>,
{
    let (t, me, kk) = (parents.t, parents.me, ex.size());
    let mut r = 0u32;
    let mut go = true;
    // What the level before decided.
    let mut carried: Vec<u32> = Vec::new();
    while go {
        let mut frontier = decided.take(r);
        if frontier.is_empty() {
            frontier = std::mem::take(&mut carried);
        } else {
            frontier.append(&mut carried);
        }
        let s = seeds.take(r);
        if !s.is_empty() {
            let seeded = if TIES { rule.tied(r) } else { rule.won(r) };
            let seeded = need(seeded, R::MAX_REMOTENESS, &t)?;
            frontier.extend(
                s.into_iter()
                    .filter(|&i| cells.decide(i as usize, seeded, Racy(false))),
            );
        }
        // In place order, so that neighbours' parents share cache lines and each chunk
        // works on one stretch of the tier. A radix sort (places are below the tier's
        // size): the comparison sort took 3% of a chess ending's time.
        if frontier.len() > CHUNK {
            frontier.radix_sort_unstable();
        } else {
            frontier.sort_unstable();
        }
        log.level(phase, r, &frontier)?;
        let max = R::MAX_REMOTENESS;
        let lost_next = rule.lost(r + 1);
        let won_next = if TIES {
            rule.tied(r + 1)
        } else {
            rule.won(r + 1)
        };
        // A parent's update: won (or tied), or counted down; whether this call decided it.
        let update = |l: usize, win: bool, racy: Racy| -> Result<bool, Error> {
            if TIES {
                Ok(cells.is_open(l) && cells.decide(l, need(won_next, max, &t)?, racy))
            } else if win {
                Ok(cells.decide(l, need(won_next, max, &t)?, racy))
            } else {
                cells.count_down(l, lost_next, max, racy, &t)
            }
        };
        let mut next = Vec::new();
        for i in phantoms.take(r) {
            if cells.count_down(i as usize, lost_next, max, Racy(false), &t)? {
                next.push(i);
            }
        }
        let away = levels_step(&frontier, &mut next, kk, |chunk, s, out, away, racy| {
            for (x, &c) in chunk.iter().enumerate() {
                // The frontier's places are sparse in a large tier: its cells are cache
                // misses, taken a few positions (each a few dozen parents) ahead.
                if let Some(&ahead) = chunk.get(x + FRONT_AHEAD) {
                    cells.prefetch(ahead as usize);
                }
                let lost = !TIES && rule.is_loss(cells.get(c as usize));
                parents.each(c, s, &|l| cells.prefetch(l), |owner, lq, k| {
                    let win = lost != k;
                    if !P::ALONE && owner != me {
                        let x = if TIES { lq } else { lq | u32::from(win) << 31 };
                        away[owner].extend_from_slice(&x.to_le_bytes());
                    } else if update(lq as usize, win, racy)? {
                        out.push(lq);
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })?;
        drop(frontier);
        let more = decided.len().max(seeds.len()).max(phantoms.len()) > r + 1 || !next.is_empty();
        let (got, more) = swap::<P>(ex, away, more, opts)?;
        let mask = if TIES { !0 } else { !(1 << 31) };
        for g in got {
            for x in prefetched(&g, |l| cells.prefetch(l), mask) {
                let lq = x & mask;
                if update(
                    place_of(cells.len(), lq, &t)?,
                    !TIES && x >> 31 == 1,
                    Racy(false),
                )? {
                    next.push(lq);
                }
            }
        }
        carried = next;
        go = more;
        r += 1;
    }
    Ok(())
}

/// Which levels run: the wins and losses of a stage (`never`: those without a remoteness,
/// with scores), or the ties.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Phase<S> {
    /// Wins and losses of stage `stage`.
    Decisive {
        /// The stage.
        stage: S,
        /// Those that never end.
        never: bool,
    },
    /// Ties.
    Ties,
}

/// A place another rank sent, checked against this share's `n` places (a malformed message
/// is an error).
#[inline]
fn place_of(n: usize, l: u32, t: &dyn std::fmt::Debug) -> Result<usize, Error> {
    match (l as usize) < n {
        true => Ok(l as usize),
        false => Err(Error::Exchange(format!(
            "an update for place {l} past a share of tier {t:?}"
        ))),
    }
}

/// Runs `step(chunk, scratch, decided, away, racy)` over a level's frontier: inline when it
/// is at most one chunk or the pool has one thread, else over chunks in parallel (racy).
/// Appends what the chunks decided to `next`; returns their updates for other ranks, by
/// rank.
fn levels_step<P: Copy + Eq + std::hash::Hash + Send>(
    frontier: &[u32],
    next: &mut Vec<u32>,
    kk: usize,
    step: impl Fn(&[u32], &mut Scratch<P>, &mut Vec<u32>, &mut [Vec<u8>], Racy) -> Result<(), Error>
        + Sync,
) -> Result<Vec<Vec<u8>>, Error> {
    let mut away: Vec<Vec<u8>> = vec![Vec::new(); kk];
    if frontier.is_empty() {
        return Ok(away);
    }
    if frontier.len() <= CHUNK || rayon::current_num_threads() == 1 {
        step(frontier, &mut Scratch::new(), next, &mut away, Racy(false))?;
        return Ok(away);
    }
    let results: Vec<(Vec<u32>, Vec<Vec<u8>>)> = frontier
        .par_chunks(CHUNK)
        .map_init(Scratch::new, |s, chunk| {
            let mut out = Vec::new();
            let mut away = vec![Vec::new(); kk];
            step(chunk, s, &mut out, &mut away, Racy(true)).map(|_| (out, away))
        })
        .collect::<Result<_, Error>>()?;
    for (out, a) in results {
        if next.is_empty() {
            *next = out;
        } else {
            next.extend(out);
        }
        append_each(&mut away, a);
    }
    Ok(away)
}

/// Appends each buffer of `from` to the one of `into` with the same index (taking it whole
/// when that one is empty): per-destination buffers of parallel chunks, gathered.
pub(crate) fn append_each<T>(into: &mut [Vec<T>], from: Vec<Vec<T>>) {
    for (d, v) in from.into_iter().enumerate() {
        if into[d].is_empty() {
            into[d] = v;
        } else {
            into[d].extend(v);
        }
    }
}

/// The end of a level: exchanges the updates for other ranks (`away`, by rank) and returns
/// what arrived and whether any rank has more to do (`more` here); one process only checks
/// for a cancel.
pub(crate) fn swap<P: Placement>(
    ex: &dyn Exchange,
    away: Vec<Vec<u8>>,
    more: bool,
    opts: &SolveOptions,
) -> Result<(Vec<Vec<u8>>, bool), Error> {
    if P::ALONE {
        opts.cancelled()?;
        return Ok((Vec::new(), more));
    }
    let more = more || away.iter().any(|a| !a.is_empty());
    let (got, flag) = ex.all_to_all_max(away, self::flag(more, opts));
    Ok((got, still(flag)?))
}

/// Whether `b` holds on some rank (one process: whether it holds), unless a rank was
/// cancelled.
pub(crate) fn anything<P: Placement>(
    ex: &dyn Exchange,
    b: bool,
    opts: &SolveOptions,
) -> Result<bool, Error> {
    if P::ALONE {
        opts.cancelled()?;
        return Ok(b);
    }
    let mut m = [flag(b, opts)];
    ex.max(&mut m);
    still(m[0])
}

/// This rank's flag: 1 when it has more to do, 2 or 3 when it was cancelled.
pub(crate) fn flag(more: bool, opts: &SolveOptions) -> u64 {
    u64::from(more) | u64::from(opts.cancelled().is_err()) << 1
}

/// Whether to go on, from the ranks' largest flag.
pub(crate) fn still(flag: u64) -> Result<bool, Error> {
    if flag >= 2 {
        return Err(Error::Interrupted);
    }
    Ok(flag == 1)
}

/// Where a tier's parents come from.
pub(crate) struct ParentsOf<'a, G: DenseIndex, P> {
    pub(crate) game: &'a G,
    pub(crate) t: G::Tier,
    pub(crate) part: P,
    pub(crate) me: usize,
    /// Reverse edges by place (without un-moves): offsets and parent slot | keeps << 31.
    pub(crate) rev_off: &'a [u64],
    pub(crate) rev: &'a [u32],
}

impl<G: DenseIndex, P: Placement> ParentsOf<'_, G, P> {
    /// Calls `f(owner, place there, keeps)` once for every distinct (parent, keeps) with a
    /// move to place `l`, this rank's parents first; `hint(place)` is called as soon as a
    /// parent is placed (whoever owns it: a wasted hint is cheaper than a branch).
    #[inline]
    fn each(
        &self,
        l: u32,
        s: &mut Scratch<G::Position>,
        hint: &impl Fn(usize),
        mut f: impl FnMut(usize, u32, bool) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if !<G::Parents as Parents<G>>::UNMOVES {
            let (a, b) = (self.rev_off[l as usize], self.rev_off[l as usize + 1]);
            let edges = &self.rev[a as usize..b as usize];
            if P::ALONE {
                for &e in edges {
                    f(0, e & !(1 << 31), e >> 31 == 1)?;
                }
                return Ok(());
            }
            let mut by = Sides::new(&mut s.sorted, edges.len());
            for &e in edges {
                let (owner, lq) = self.part.place(u64::from(e & !(1 << 31)));
                by.put((owner, lq as u32, e >> 31 == 1), owner == self.me);
            }
            return by.each(f);
        }
        let game = self.game;
        let i = self.part.global(self.me, u64::from(l));
        let p = game.unrank_solved(self.t, i).ok_or_else(|| {
            Error::Game(format!(
                "slot {i} of tier {:?} holds a value but is no position (unrank gave none)",
                self.t
            ))
        })?;
        s.moves.clear();
        s.ranked.clear();
        <G::Parents as Parents<G>>::unmoves_ranked(game, &p, i, &mut s.ranked, &mut s.moves);
        s.inside.clear(G::DISTINCT_MOVES);
        let all = s.ranked.len() + s.moves.len();
        let mut by = Sides::new(&mut s.sorted, if P::ALONE { 0 } else { all });
        // Parents the game numbered: their own canonical forms, so distinct when the game
        // promises distinct moves.
        for &(j, k) in &s.ranked {
            if j >= self.part.size() {
                return Err(Error::Game(format!(
                    "unmoves_ranked of {p:?} gives rank {j}, past the size {} of tier {:?}",
                    self.part.size(),
                    self.t
                )));
            }
            s.inside.add(j << 1 | u64::from(k), G::DISTINCT_MOVES);
        }
        for q in &s.moves {
            if game.tier(q) != self.t {
                return Err(Error::Game(format!(
                    "an un-move of {p:?} gives {q:?}, outside its tier {:?}",
                    self.t
                )));
            }
            let k = keeps(game, q, &p);
            let cq = canonical(game, q);
            let j = game.rank(&cq);
            if j >= self.part.size() {
                return Err(Error::Game(format!(
                    "an un-move of {p:?} gives {q:?}, rank {j}, past the size {} of tier {:?}",
                    self.part.size(),
                    self.t
                )));
            }
            s.inside
                .add(j << 1 | u64::from(k), G::DISTINCT_MOVES && cq == *q);
        }
        for &e in s.inside.keys() {
            let (owner, lj) = self.part.place(e >> 1);
            hint(lj as usize);
            if !P::ALONE {
                by.put((owner, lj as u32, e & 1 == 1), owner == self.me);
            }
        }
        if P::ALONE {
            for &e in s.inside.keys() {
                f(0, (e >> 1) as u32, e & 1 == 1)?;
            }
            return Ok(());
        }
        by.each(f)
    }
}

/// At most `n` items put in a buffer of `n + 1`, this rank's from the front (in order) and
/// the others' from the back (in reverse order), without a branch: which rank owns a parent
/// is a coin toss at K = 2, which a branch mispredicts half the time. [`Sides::each`] then
/// visits this rank's first, so that each run of calls takes one side of the caller's test
/// of the owner, predicted.
struct Sides<'a, T> {
    buf: &'a mut [T],
    lo: usize,
    hi: usize,
}

impl<'a, T: Copy + Default> Sides<'a, T> {
    #[inline]
    fn new(buf: &'a mut Vec<T>, n: usize) -> Self {
        buf.clear();
        buf.resize(n + 1, T::default());
        Sides { buf, lo: 0, hi: n }
    }

    #[inline]
    fn put(&mut self, e: T, mine: bool) {
        self.buf[self.lo] = e;
        self.buf[self.hi] = e;
        self.lo += usize::from(mine);
        self.hi -= usize::from(!mine);
    }
}

impl Sides<'_, (usize, u32, bool)> {
    #[inline]
    fn each(self, mut f: impl FnMut(usize, u32, bool) -> Result<(), Error>) -> Result<(), Error> {
        for &(owner, lq, k) in self.buf[..self.lo].iter().chain(&self.buf[self.hi + 1..]) {
            f(owner, lq, k)?;
        }
        Ok(())
    }
}

/// Little-endian bytes of `u32`s.
pub(crate) fn bytes_of_u32(v: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 * v.len());
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// The `u32`s of little-endian bytes.
pub(crate) fn u32s(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

/// The `u32`s of `b`, each read `AHEAD` before it is yielded to call `hint(x & mask)`, a
/// prefetch (received updates land at random places: their cache misses overlap).
pub(crate) fn prefetched<'a>(
    b: &'a [u8],
    hint: impl Fn(usize) + 'a,
    mask: u32,
) -> impl Iterator<Item = u32> + 'a {
    let n = b.len() / 4;
    let at =
        move |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    (0..n).map(move |i| {
        if i + AHEAD < n {
            hint((at(i + AHEAD) & mask) as usize);
        }
        at(i)
    })
}

/// Appends a cell in `C::BYTES` little-endian bytes.
#[inline]
pub(crate) fn push_cell<C: Cell>(out: &mut Vec<u8>, c: C) {
    let x = c.to_bits().to_le_bytes();
    out.extend_from_slice(&x[..C::BYTES]);
}

/// The `i`th cell of a buffer of [`push_cell`]s (checked for length by the caller).
#[inline]
pub(crate) fn cell_at<C: Cell>(b: &[u8], i: usize) -> C {
    match C::BYTES {
        1 => C::from_bits(u32::from(b[i])),
        2 => C::from_bits(u32::from(u16::from_le_bytes([b[2 * i], b[2 * i + 1]]))),
        _ => C::from_bits(u32::from_le_bytes(
            b[4 * i..4 * i + 4].try_into().expect("4 bytes"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end of a tier's solve turns its atomic cells into plain ones without a second
    /// array: the memory plan counts the tier's cells once.
    #[test]
    fn plain_cells_take_the_atomics_memory() {
        fn same<C: Cell>() {
            let cells: Vec<C::Atomic> = (0..10_000).map(|_| C::UNDECIDED.atomic()).collect();
            let at = cells.as_ptr() as usize;
            let out: Vec<C> = cells.into_iter().map(C::into_inner).collect();
            assert_eq!(out.as_ptr() as usize, at);
            assert_eq!(out.len(), 10_000);
        }
        same::<u8>();
        same::<u16>();
        same::<ScoreCell>();
    }
}
