//! Solving a game with scores ([`ScoredGame`]): who wins and by how much.
//!
//! Dense layout only, in memory, on one process: the tiers are solved children first, each
//! position's [`Scored`] value is kept in 4 bytes (see [`ScoreCell`]), and the solution
//! answers lookups of every tier. A tier is initialised in one parallel pass (every move
//! that leaves it is an *exit* to a solved tier); if some move stays in it, the rest is
//! settled in parallel by the dense engine's levels ([`dense::levels`], the code unscored
//! tiers run), once per score level, as below. What is still apart from `dense.rs`: the
//! init (rewards and terminal scores), the driver (in memory, tiers written at the end) and
//! ranks.
//!
//! # Algorithm inside a tier
//! Exits are known values (`child.through_with(keeps, reward)`), and only the best one of a
//! position matters (the others are worse, so they neither decide it nor can be its last
//! move). Inside the tier, moves collect nothing, so a position decided at score `s` makes
//! its parents' options worth `±s`, and a play that never leaves the tier is worth 0: the
//! tier is a deterministic graphical game whose terminals are the exits and the tier's own
//! terminal positions.
//!
//! Events (a position, and what one of its moves is worth to its mover) are settled in
//! this order: the largest `|score|` first (both signs at each level), at one level by
//! remoteness, a remoteness of none after every finite one. A positive event decides its
//! position if still open (nothing better is left: better options have larger scores, or
//! the same score and came earlier); a negative one counts it down, and the last count
//! decides it (its other moves were all worse). Each position starts with a counter of its
//! distinct moves inside the tier (by canonical child and keeps-turn) plus one for its best
//! exit, which is an event at its own place in the order (a *seed* if it wins, a *phantom*
//! counted down if it loses). A decided position makes an event for each parent, never
//! earlier than the current one. Then score 0: a tie (the terminals and exits worth 0 with
//! a remoteness) spreads to every open parent, fastest first, as in the unscored engine;
//! what is left open never ends and collects nothing more here: a draw.
//!
//! At one score level `s` this is the unscored win/loss propagation with "win" meaning `+s`
//! and "loss" `-s`: so each score level runs [`dense::levels`] with a [`Rule`] that writes
//! `±s` (its finite remoteness levels, then once more with the remoteness none for the
//! events without one), the counters staying in the open cells from one score level to the
//! next; then the tie levels with the same code. A position is decided by exactly one
//! compare-exchange, and which value it gets depends only on the levels, never on the
//! threads (the argument of `dense.rs`).
//!
//! With scores +1, -1 and 0 this is the unscored engine's rule (tested against it).
//!
//! # Database
//! With a storage ([`SolveOptions::storage`]), every tier's cells are written as a tier
//! file of 4-byte elements (`NAME.values`, checksummed blocks, holes stored as `u32::MAX`:
//! see [`crate::store::tierfile`]) and `database.json` records `layout: "scored"`, the
//! start's value and the totals; [`open_scored`] reads them back (checked: a damaged byte is
//! an error, never a value). `resume` reuses a finished database of the same game instead
//! of solving again (an interrupted solve starts over: tiers are written at the end).

use crate::api::dag::Dag;
use crate::api::game::{canonical, keeps, DenseIndex, Parents, ScoredGame, Symmetry};
use crate::engine::dense::{self, Levels, ParentsOf, Rule};
use crate::engine::SolveOptions;
use crate::error::Error;
use crate::stats::Stats;
use crate::store::cell::Open;
use crate::store::identity::{for_solve, Identified};
use crate::store::meta::{
    header, read_meta, values_file, write_meta, Meta, FORMAT, META, META_VERSION,
};
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Kind, Reader, BLOCK_ELEMS};
use rayon::prelude::*;
use retrograde_solve::exchange::Solo;
use retrograde_solve::place::Whole;
use retrograde_solve::{Outcome, Scored};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

/// One position's value in 4 bytes: the score's offset from the game's least score in the
/// high 16 bits, the remoteness in the low 16 (`0xFFFF`: none). `u32::MAX` is a hole.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ScoreCell(pub u32);

impl ScoreCell {
    /// A hole: a number of the index that is no position (or not a canonical one).
    pub const HOLE: ScoreCell = ScoreCell(u32::MAX);
    /// The largest remoteness a cell holds.
    pub const MAX_REMOTENESS: u32 = 0xFFFE;
    /// The most distinct scores a game may have.
    pub const MAX_SCORES: u64 = 0xFFFF;

    /// Encodes `v` for a game whose least score is `lo`; `None` if it does not fit.
    #[inline]
    pub fn encode(v: Scored, lo: i64) -> Option<ScoreCell> {
        let off = v.score.checked_sub(lo)?;
        if !(0..0xFFFF).contains(&off) {
            return None;
        }
        let r = match v.remoteness {
            Some(r) if r <= Self::MAX_REMOTENESS => r,
            Some(_) => return None,
            None => 0xFFFF,
        };
        Some(ScoreCell((off as u32) << 16 | r))
    }

    /// The value, for a game whose least score is `lo`; `None` for a hole (or an open cell,
    /// while a tier is solved).
    #[inline]
    pub fn decode(self, lo: i64) -> Option<Scored> {
        if self.0 >> 16 == 0xFFFF {
            return None;
        }
        let r = self.0 & 0xFFFF;
        Some(Scored::new(
            lo + i64::from(self.0 >> 16),
            (r != 0xFFFF).then_some(r),
        ))
    }
}

/// While a tier is solved, an undecided position holds its counter: `0xFFFF` in the high
/// 16 bits (no score offset), the counter in the low 16 (at most `0xFFFE`: `u32::MAX` is
/// the hole).
impl Open for ScoreCell {
    type Atomic = AtomicU32;
    const MAX_COUNTER: u32 = 0xFFFE;

    #[inline]
    fn open(counter: u32) -> Option<ScoreCell> {
        (counter <= Self::MAX_COUNTER).then_some(ScoreCell(0xFFFF_0000 | counter))
    }
    #[inline]
    fn counter(self) -> Option<u32> {
        (self.0 >> 16 == 0xFFFF && self != Self::HOLE).then_some(self.0 & 0xFFFF)
    }
    #[inline]
    fn atomic(self) -> AtomicU32 {
        AtomicU32::new(self.0)
    }
    #[inline]
    fn load(a: &AtomicU32) -> ScoreCell {
        ScoreCell(a.load(Relaxed))
    }
    #[inline]
    fn store(a: &AtomicU32, v: ScoreCell) {
        a.store(v.0, Relaxed)
    }
    #[inline]
    fn exchange(a: &AtomicU32, current: ScoreCell, new: ScoreCell) -> bool {
        a.compare_exchange(current.0, new.0, Relaxed, Relaxed)
            .is_ok()
    }
    #[inline]
    fn into_inner(a: AtomicU32) -> ScoreCell {
        ScoreCell(a.into_inner())
    }
}

/// The layout a database of a game with scores records.
pub const SCORED_LAYOUT: &str = "scored";

/// A solved game with scores: every tier's cells, in memory.
pub struct ScoredSolution<'g, G: ScoredGame + DenseIndex> {
    game: &'g G,
    lo: i64,
    tiers: HashMap<G::Tier, Vec<ScoreCell>>,
    stats: Stats,
}

/// Solves `game` (every tier below its roots) with scores, on the current rayon pool.
///
/// # Errors
/// [`Error::Game`] when the game breaks the API (a move into a tier that is not a child tier,
/// a rank past its tier, a score outside its declared range), [`Error::Unsupported`] for a
/// range of more than 65,535 scores, a tier of more than `u32::MAX` slots (2^31 without
/// un-moves) or a position with more than 65,534 distinct moves inside its tier,
/// [`Error::Remoteness`] past 65,534 plies (or a score outside the declared range reached
/// inside a tier), [`Error::Memory`] past `opts.memory_limit` (4 bytes a slot of every
/// tier; the work of a loopy tier comes on top), [`Error::Interrupted`] when
/// `opts` cancels the solve.
///
/// # Example
/// See `docs/tier-games.md` ("Scores").
pub fn solve_scored<'g, G: ScoredGame + DenseIndex>(
    game: &'g G,
    opts: &SolveOptions,
) -> Result<ScoredSolution<'g, G>, Error> {
    let (lo, hi) = game.score_range();
    if lo > 0 || hi < 0 {
        return Err(Error::Game(format!(
            "the score range {lo}..={hi} does not hold 0 (ties and draws)"
        )));
    }
    if lo > hi
        || hi
            .checked_sub(lo)
            .is_none_or(|w| w as u64 >= ScoreCell::MAX_SCORES)
    {
        return Err(Error::Unsupported(format!(
            "a score range of {lo}..={hi}: at most {} scores",
            ScoreCell::MAX_SCORES
        )));
    }
    if opts.resume {
        if let Some(st) = &opts.storage {
            if let Ok(Some(done)) = open_scored(game, st.clone()) {
                return Ok(done);
            }
        }
    }
    let dag = Dag::build(game)?;
    let needed = memory_of(game, &dag);
    if let Some(limit) = opts.memory_limit {
        if needed > limit {
            return Err(Error::Memory {
                what: "the values of every tier".into(),
                needed,
                limit,
            });
        }
    }
    let t0 = Instant::now();
    let mut tiers: HashMap<G::Tier, Vec<ScoreCell>> = HashMap::new();
    for &k in &dag.order {
        let t = dag.tiers[k];
        let children: Vec<G::Tier> = dag.children[k].iter().map(|&c| dag.tiers[c]).collect();
        let cells = solve_tier(game, t, &children, &tiers, (lo, hi), opts)?;
        tiers.insert(t, cells);
    }
    let mut s = ScoredSolution {
        game,
        lo,
        tiers,
        stats: Stats::default(),
    };
    s.stats.solve = t0.elapsed();
    let t1 = Instant::now();
    s.count(&dag)?;
    s.stats.explore = t1.elapsed();
    if let Some(st) = &opts.storage {
        s.write(&dag, st.clone(), &opts.params)?;
    }
    Ok(s)
}

/// The finished database of `game` with scores in `storage`, read into memory; `Ok(None)`
/// when the storage holds no finished database.
///
/// # Errors
/// A database of another game ([`Error::Foreign`]), not of a game with scores, or damaged
/// ([`Error::Damaged`], [`Error::Missing`]).
pub fn open_scored<G: ScoredGame + DenseIndex>(
    game: &G,
    storage: Arc<dyn Storage>,
) -> Result<Option<ScoredSolution<'_, G>>, Error> {
    let Some(meta) = read_meta(&*storage)? else {
        return Ok(None);
    };
    let describe = storage.describe(META);
    if meta.game != game.name() {
        return Err(Error::Foreign {
            file: describe,
            holds: meta.game,
            wanted: game.name(),
        });
    }
    if meta.layout != SCORED_LAYOUT || meta.cell_bytes != 4 {
        return Err(Error::damaged(
            describe,
            format!(
                "a database of layout {:?} with {}-byte cells, not of a game with scores",
                meta.layout, meta.cell_bytes
            ),
        ));
    }
    let id = meta
        .identity()
        .ok_or_else(|| Error::damaged(describe.clone(), "no identity"))?;
    let st = Identified::wrap(storage, id);
    let dag = Dag::build(game)?;
    let name = game.name();
    let mut tiers = HashMap::new();
    for (k, &t) in dag.tiers.iter().enumerate() {
        let file = values_file(&dag.names[k]);
        let r = Reader::open(&*st, &file, &header(&name, &dag.names[k], Kind::Values, 4))?;
        let cells: Vec<u32> = r.read_elems(&*st)?;
        if cells.len() as u64 != game.tier_size(t) {
            return Err(Error::damaged(
                st.describe(&file),
                format!("{} values, the tier has {}", cells.len(), game.tier_size(t)),
            ));
        }
        tiers.insert(t, cells.into_iter().map(ScoreCell).collect());
    }
    Ok(Some(ScoredSolution {
        game,
        lo: game.score_range().0,
        tiers,
        stats: meta.stats,
    }))
}

/// The bytes the values of every tier take (4 a slot).
fn memory_of<G: DenseIndex>(game: &G, dag: &Dag<G::Tier>) -> u64 {
    dag.tiers
        .iter()
        .map(|&t| game.tier_size(t))
        .fold(0u64, u64::saturating_add)
        .saturating_mul(4)
}

/// The memory [`solve_scored`] needs at least: 4 bytes a slot of every tier (a loopy tier
/// needs more while it is solved: 16 bytes an event of its init (a position decided at
/// once, a best exit), 4 bytes an entry of the level lists, and without un-moves 8 bytes a
/// slot and 12 a move inside it for the reverse edges).
///
/// # Errors
/// [`Error::Game`] when the tiers do not form a DAG.
pub fn scored_memory<G: ScoredGame + DenseIndex>(game: &G) -> Result<u64, Error> {
    Ok(memory_of(game, &Dag::build(game)?))
}

/// What init finds at one slot.
enum Init {
    Hole,
    Done(Scored),
    /// Moves inside the tier (canonical child's slot, keeps-turn; distinct) and the best
    /// exit.
    Open(Vec<(u32, bool)>, Option<Scored>),
}

fn check_range(v: Scored, lo: i64, hi: i64, p: &dyn std::fmt::Debug) -> Result<Scored, Error> {
    if v.score < lo || v.score > hi {
        return Err(Error::Game(format!(
            "{p:?} is worth {v} ({}), outside the declared score range {lo}..={hi}",
            v.score
        )));
    }
    Ok(v)
}

/// The value of `c` (a position of a child tier) for its mover.
fn lookup<G: ScoredGame + DenseIndex>(
    game: &G,
    t: G::Tier,
    c: &G::Position,
    children: &[G::Tier],
    tiers: &HashMap<G::Tier, Vec<ScoreCell>>,
    lo: i64,
) -> Result<Scored, Error> {
    let tc = game.tier(c);
    let cells = children
        .contains(&tc)
        .then(|| tiers.get(&tc))
        .flatten()
        .ok_or_else(|| {
            Error::Game(format!(
                "a move from tier {t:?} reaches tier {tc:?}, which is not one of its child tiers"
            ))
        })?;
    let j = game.rank(&canonical(game, c));
    cells
        .get(j as usize)
        .and_then(|cell| cell.decode(lo))
        .ok_or_else(|| {
            Error::Game(format!(
                "a move from tier {t:?} reaches {c:?}, rank {j}, which has no value in tier {tc:?}"
            ))
        })
}

fn init_slot<G: ScoredGame + DenseIndex>(
    game: &G,
    t: G::Tier,
    i: u64,
    children: &[G::Tier],
    tiers: &HashMap<G::Tier, Vec<ScoreCell>>,
    (lo, hi): (i64, i64),
    moves: &mut Vec<G::Position>,
) -> Result<Init, Error> {
    let size = game.tier_size(t);
    let Some(p) = game.unrank(t, i) else {
        return Ok(Init::Hole);
    };
    if !<G::Symmetry as Symmetry<G>>::is_canonical(game, &p) {
        return Ok(Init::Hole);
    }
    moves.clear();
    if game.primitive(&p).is_none() {
        game.moves(&p, moves);
    }
    if moves.is_empty() {
        let v = Scored::new(game.terminal_score(&p), Some(0));
        return Ok(Init::Done(check_range(v, lo, hi, &p)?));
    }
    let mut inside = Vec::new();
    let mut best: Option<Scored> = None;
    for c in moves.iter() {
        let k = keeps(game, &p, c);
        if game.tier(c) == t {
            let j = game.rank(&canonical(game, c));
            if j >= size {
                return Err(Error::Game(format!(
                    "a move from {p:?} reaches rank {j}, past tier {t:?}'s size {size}"
                )));
            }
            inside.push((j as u32, k));
        } else {
            let w = lookup(game, t, c, children, tiers, lo)?.through_with(k, game.reward(&p, c));
            best = best.max(Some(check_range(w, lo, hi, &p)?));
        }
    }
    if inside.is_empty() {
        return Ok(Init::Done(best.expect("moves, none inside: an exit")));
    }
    inside.sort_unstable();
    inside.dedup();
    Ok(Init::Open(inside, best))
}

/// An event of a tier's init, for the levels: `|score| << 32 | remoteness` (`u32::MAX`:
/// none), the slot, and what it is.
type Event = (u64, u32, What);

/// What an init event is (the lists of `dense.rs`).
#[derive(Copy, Clone)]
enum What {
    /// Decided at init, with a score other than 0.
    Decided,
    /// A winning best exit.
    Seed,
    /// A losing best exit.
    Phantom,
    /// Tied at init.
    Tie,
    /// A tying best exit.
    TieSeed,
}

/// The events of a decided position or of a position's best exit (`exit`).
#[inline]
fn event(v: Scored, i: u32, exit: bool, out: &mut Vec<Event>) {
    let r = v.remoteness.unwrap_or(u32::MAX);
    let key = v.score.unsigned_abs() << 32 | u64::from(r);
    let kind = match (v.score.signum(), exit) {
        (0, _) if v.remoteness.is_none() => return,
        (0, false) => What::Tie,
        (0, true) => What::TieSeed,
        (_, false) => What::Decided,
        (1, true) => What::Seed,
        _ => What::Phantom,
    };
    out.push((key, i, kind));
}

/// The events of a tier's init, put in the lists of their score levels (and the ties' lists
/// apart), and the reverse edges found beside them, as one list.
fn stages(
    found: impl Iterator<Item = (Vec<Event>, Vec<u32>, bool)>,
) -> (BTreeMap<u64, Stage>, Levels, Levels, Vec<u32>) {
    let mut stages: BTreeMap<u64, Stage> = BTreeMap::new();
    let (mut ties, mut tie_seeds) = (Levels::default(), Levels::default());
    let mut edges = Vec::new();
    for (events, e, _) in found {
        edges.extend(e);
        for (key, i, kind) in events {
            let (s, r) = (key >> 32, key as u32);
            let list = match kind {
                What::Tie => {
                    ties.push(r, i);
                    continue;
                }
                What::TieSeed => {
                    tie_seeds.push(r, i);
                    continue;
                }
                What::Decided => 0,
                What::Seed => 1,
                What::Phantom => 2,
            };
            let stage = stages.entry(s).or_default();
            match r {
                u32::MAX => stage.never[list].push(0, i),
                // A losing exit of remoteness r counts down at level r - 1 (r >= 1).
                _ if list == 2 => stage.finite[2].push(r.saturating_sub(1), i),
                _ => stage.finite[list].push(r, i),
            }
        }
    }
    (stages, ties, tie_seeds, edges)
}

/// The lists of one score level: those with a remoteness, then those without.
#[derive(Default)]
struct Stage {
    finite: [Levels; 3],
    never: [Levels; 3],
}

/// The rule of the levels at score level `s` (`|score|`): won is `+s`, lost `-s`, at the
/// remoteness of the level, or with none in the `never` phase; tied is 0.
struct AtScore {
    lo: i64,
    s: i64,
    never: bool,
}

impl AtScore {
    #[inline]
    fn at(&self, score: i64, r: u32) -> Option<ScoreCell> {
        let r = (!self.never).then_some(r);
        ScoreCell::encode(Scored::new(score, r), self.lo)
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
        ScoreCell::encode(Scored::new(0, Some(r)), self.lo)
    }
    #[inline]
    fn is_loss(&self, c: ScoreCell) -> bool {
        c.decode(self.lo).is_some_and(|v| v.score < 0)
    }
}

/// One tier's cells: init in parallel, then, if some move stays in the tier, the dense
/// engine's levels ([`dense::levels`]) once per score level, largest `|score|` first, each
/// with its finite remoteness levels and then those without; then ties; what is left open
/// is a draw.
fn solve_tier<G: ScoredGame + DenseIndex>(
    game: &G,
    t: G::Tier,
    children: &[G::Tier],
    tiers: &HashMap<G::Tier, Vec<ScoreCell>>,
    (lo, hi): (i64, i64),
    opts: &SolveOptions,
) -> Result<Vec<ScoreCell>, Error> {
    let size = game.tier_size(t);
    let unmoves = <G::Parents as Parents<G>>::UNMOVES;
    if size > u64::from(u32::MAX) || (!unmoves && size >= 1 << 31) {
        return Err(Error::Unsupported(format!("tier {t:?} has {size} slots")));
    }
    let n = size as usize;
    let encode = |v: Scored| {
        ScoreCell::encode(v, lo).ok_or_else(|| Error::Remoteness {
            tier: format!("{t:?}"),
            max: ScoreCell::MAX_REMOTENESS,
        })
    };
    // Init in parallel: positions decided at once, the others open with their counters;
    // the events and reverse edges (child slot, parent slot | keeps << 31) aside.
    const TASK: usize = 1 << 12;
    let cells: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    let found: Vec<(Vec<Event>, Vec<u32>, bool)> = cells
        .par_chunks(TASK)
        .enumerate()
        .map(|(c, chunk)| {
            let (mut moves, mut events, mut edges, mut loopy) =
                (Vec::new(), Vec::new(), Vec::new(), false);
            for (o, cell) in chunk.iter().enumerate() {
                let i = (c * TASK + o) as u32;
                let x = match init_slot(
                    game,
                    t,
                    u64::from(i),
                    children,
                    tiers,
                    (lo, hi),
                    &mut moves,
                )? {
                    Init::Hole => ScoreCell::HOLE,
                    Init::Done(v) => encode(v)?,
                    Init::Open(inside, best) => {
                        loopy = true;
                        if !unmoves {
                            for &(j, k) in &inside {
                                edges.extend([j, i | u32::from(k) << 31]);
                            }
                        }
                        if let Some(b) = best {
                            event(b, i, true, &mut events);
                        }
                        let count = inside.len() as u32 + u32::from(best.is_some());
                        ScoreCell::open(count).ok_or_else(|| {
                            Error::Unsupported(format!(
                                "a position of tier {t:?} has {count} distinct moves; at most {}",
                                ScoreCell::MAX_COUNTER
                            ))
                        })?
                    }
                };
                <ScoreCell as Open>::store(cell, x);
            }
            Ok((events, edges, loopy))
        })
        .collect::<Result<_, Error>>()?;
    if found.iter().any(|f| f.2) {
        // The positions decided at init, from their cells (no list kept for a tier without
        // moves inside it).
        let decided: Vec<Vec<Event>> = cells
            .par_chunks(TASK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut out = Vec::new();
                for (o, cell) in chunk.iter().enumerate() {
                    if let Some(v) = <ScoreCell as Open>::load(cell).decode(lo) {
                        event(v, (c * TASK + o) as u32, false, &mut out);
                    }
                }
                out
            })
            .collect();
        let found = found
            .into_iter()
            .chain(decided.into_iter().map(|d| (d, Vec::new(), false)));
        let (stages, ties, tie_seeds, edges) = stages(found);
        let (rev_off, rev) = match unmoves {
            true => (Vec::new(), Vec::new()),
            false => dense::reverse_edges(&t, size, vec![edges], &Solo)?,
        };
        let parents = ParentsOf {
            game,
            t,
            part: Whole::new(size),
            me: 0,
            rev_off: &rev_off,
            rev: &rev,
        };
        for (s, stage) in stages.into_iter().rev() {
            let Stage { finite, never } = stage;
            for (lists, never) in [(finite, false), (never, true)] {
                let rule = AtScore {
                    lo,
                    s: s as i64,
                    never,
                };
                dense::levels::<G, ScoreCell, Whole, _, false>(
                    &parents, &cells, lists, &rule, &Solo, opts,
                )?;
            }
        }
        let rule = AtScore {
            lo,
            s: 0,
            never: false,
        };
        let lists = [ties, tie_seeds, Levels::default()];
        dense::levels::<G, ScoreCell, Whole, _, true>(&parents, &cells, lists, &rule, &Solo, opts)?;
    }
    let draw = encode(Scored::DRAW)?;
    Ok(cells
        .into_par_iter()
        .map(|a| match <ScoreCell as Open>::into_inner(a) {
            c if c.counter().is_some() => draw,
            c => c,
        })
        .collect())
}

impl<'g, G: ScoredGame + DenseIndex> ScoredSolution<'g, G> {
    /// The game.
    pub fn game(&self) -> &'g G {
        self.game
    }

    /// Totals over the positions reachable from the start (every position solved when the
    /// game has no start). A position counts once, even in a game whose positions are the
    /// mover's view; with symmetries a canonical position counts its class's positions
    /// (`classes` counts the classes). A game that never ends after points were collected
    /// counts as a win or a loss by its sign.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The value of `p` for the player to move.
    ///
    /// # Errors
    /// [`Error::Game`] when `p` is not a position of a solved tier.
    pub fn value(&self, p: &G::Position) -> Result<Scored, Error> {
        let t = self.game.tier(p);
        let cells = self
            .tiers
            .get(&t)
            .ok_or_else(|| Error::Game(format!("{p:?} is in tier {t:?}, which is not solved")))?;
        let i = self.game.rank(&canonical(self.game, p));
        cells
            .get(i as usize)
            .and_then(|c| c.decode(self.lo))
            .ok_or_else(|| Error::Game(format!("{p:?} (rank {i}) has no value in tier {t:?}")))
    }

    /// The start's value, if the game has a start.
    ///
    /// # Errors
    /// As [`ScoredSolution::value`].
    pub fn start_value(&self) -> Result<Option<Scored>, Error> {
        self.game.start().map(|p| self.value(&p)).transpose()
    }

    /// Each legal move from `p` with its value for the player who makes it
    /// (`child.through_with(keeps, reward)`), best first (ties in the game's move order).
    /// Empty where the game is over.
    ///
    /// # Errors
    /// As [`ScoredSolution::value`].
    pub fn moves(&self, p: &G::Position) -> Result<Vec<(G::Position, Scored)>, Error> {
        let g = self.game;
        let mut moves = Vec::new();
        if g.primitive(p).is_none() {
            g.moves(p, &mut moves);
        }
        let t = g.tier(p);
        let mut out = moves
            .into_iter()
            .map(|c| {
                let reward = if g.tier(&c) == t { 0 } else { g.reward(p, &c) };
                Ok((c, self.value(&c)?.through_with(keeps(g, p, &c), reward)))
            })
            .collect::<Result<Vec<_>, Error>>()?;
        out.sort_by_key(|m| std::cmp::Reverse(m.1));
        Ok(out)
    }

    /// Writes every tier's file, then `database.json` (the last: a database without it is
    /// not finished).
    fn write(
        &self,
        dag: &Dag<G::Tier>,
        storage: Arc<dyn Storage>,
        params: &serde_json::Value,
    ) -> Result<(), Error> {
        let name = self.game.name();
        let id = for_solve(&*storage, &name, false, true)?;
        let st = Identified::wrap(storage, id);
        for (k, t) in dag.tiers.iter().enumerate() {
            let cells: Vec<u32> = self.tiers[t].iter().map(|c| c.0).collect();
            tierfile::write(
                &*st,
                &values_file(&dag.names[k]),
                &header(&name, &dag.names[k], Kind::Values, 4),
                &tierfile::le_bytes(&cells),
                tierfile::Codec::Zstd(3),
                BLOCK_ELEMS,
            )?;
        }
        write_meta(
            &*st,
            Meta {
                format: FORMAT.into(),
                version: META_VERSION,
                id: id.to_hex(),
                game: name,
                params: params.clone(),
                layout: SCORED_LAYOUT.into(),
                cell_bytes: 4,
                tiers: dag
                    .names
                    .iter()
                    .zip(&dag.tiers)
                    .map(|(n, &t)| (n.clone(), self.game.tier_size(t)))
                    .collect(),
                start: self.start_value()?.map(|v| v.to_string()),
                stats: self.stats.clone(),
                tier_stats: vec![None; dag.tiers.len()],
                checksum: String::new(),
            },
        )
    }

    /// The totals: over the positions reachable from the start, found tier by tier
    /// (parents first) in parallel, one bit a slot; within a tier, frontier by frontier.
    fn count(&mut self, dag: &Dag<G::Tier>) -> Result<(), Error> {
        let g = self.game;
        let mut st = Stats::default();
        let Some(start) = g.start() else {
            for (t, cells) in &self.tiers {
                for (i, c) in cells.iter().enumerate() {
                    if let (Some(v), Some(p)) = (c.decode(self.lo), g.unrank(*t, i as u64)) {
                        tally(v, <G::Symmetry as Symmetry<G>>::class_size(g, &p), &mut st);
                    }
                }
            }
            self.stats = Stats {
                solve: self.stats.solve,
                ..st
            };
            return Ok(());
        };
        let seen: HashMap<G::Tier, Vec<AtomicU64>> = self
            .tiers
            .iter()
            .map(|(t, c)| {
                (
                    *t,
                    (0..c.len().div_ceil(64))
                        .map(|_| AtomicU64::new(0))
                        .collect(),
                )
            })
            .collect();
        // Whether this call marked slot `i` of `bits`.
        let mark = |bits: &[AtomicU64], i: u64| {
            let bit = 1u64 << (i % 64);
            bits[(i / 64) as usize].fetch_or(bit, Relaxed) & bit == 0
        };
        let start = canonical(g, &start);
        let bits = seen
            .get(&g.tier(&start))
            .ok_or_else(|| Error::Game(format!("the start {start:?} is in a tier not solved")))?;
        mark(bits, g.rank(&start));
        for &k in dag.order.iter().rev() {
            let t = dag.tiers[k];
            let bits = &seen[&t];
            // One reachable position: tallied, its children marked (those of this tier
            // that this call marked go into `next`).
            let visit =
                |i: u64, st: &mut Stats, next: &mut Vec<u64>, moves: &mut Vec<G::Position>| {
                    let p = g.unrank(t, i).ok_or_else(|| {
                        Error::Game(format!("rank {i} of tier {t:?} is no position"))
                    })?;
                    let n = <G::Symmetry as Symmetry<G>>::class_size(g, &p);
                    tally(self.value(&p)?, n, st);
                    moves.clear();
                    if g.primitive(&p).is_none() {
                        g.moves(&p, moves);
                    }
                    st.moves += n * moves.len() as u64;
                    for c in moves.iter() {
                        let c = canonical(g, c);
                        let tc = g.tier(&c);
                        let j = g.rank(&c);
                        let cb = seen
                            .get(&tc)
                            .ok_or_else(|| Error::Game(format!("{c:?} is in a tier not solved")))?;
                        if j / 64 >= cb.len() as u64 {
                            return Err(Error::Game(format!("{c:?} has rank {j}, past its tier")));
                        }
                        if mark(cb, j) && tc == t {
                            next.push(j);
                        }
                    }
                    Ok::<(), Error>(())
                };
            // The positions marked before this tier's turn, 4096 slots a task; then those
            // its own moves reach, frontier by frontier.
            // (A copy of the bits first: positions of this tier that its own moves mark
            // during the pass go to the next frontier only, never visited twice.)
            let words_per_task = 64;
            let marked: Vec<u64> = bits.iter().map(|w| w.load(Relaxed)).collect();
            let parts: Vec<(Stats, Vec<u64>)> = marked
                .par_chunks(words_per_task)
                .enumerate()
                .map(|(c, words)| {
                    let (mut st, mut next, mut moves) = (Stats::default(), Vec::new(), Vec::new());
                    for (w, &word) in words.iter().enumerate() {
                        let mut x = word;
                        let base = ((c * words_per_task + w) * 64) as u64;
                        while x != 0 {
                            let i = base + u64::from(x.trailing_zeros());
                            x &= x - 1;
                            visit(i, &mut st, &mut next, &mut moves)?;
                        }
                    }
                    Ok((st, next))
                })
                .collect::<Result<_, Error>>()?;
            let mut frontier = Vec::new();
            for (part, next) in parts {
                st.merge(&part);
                frontier.extend(next);
            }
            while !frontier.is_empty() {
                let parts: Vec<(Stats, Vec<u64>)> = frontier
                    .par_chunks(1 << 12)
                    .map(|chunk| {
                        let (mut st, mut next, mut moves) =
                            (Stats::default(), Vec::new(), Vec::new());
                        for &i in chunk {
                            visit(i, &mut st, &mut next, &mut moves)?;
                        }
                        Ok((st, next))
                    })
                    .collect::<Result<_, Error>>()?;
                frontier = Vec::new();
                for (part, next) in parts {
                    st.merge(&part);
                    frontier.extend(next);
                }
            }
        }
        self.stats = Stats {
            solve: self.stats.solve,
            ..st
        };
        Ok(())
    }
}

/// Counts a class of `n` positions of value `v` (a game that never ends after points were
/// collected counts as a win or a loss by their sign).
fn tally(v: Scored, n: u64, st: &mut Stats) {
    st.positions += n;
    st.classes += 1;
    st.states += n;
    match v.value() {
        Some(x) => st.count_many(x, n),
        None if v.outcome() == Outcome::Win => st.win += n,
        None => st.loss += n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_codes_are_neither_values_nor_holes() {
        let lo = -5;
        for n in [0, 1, 0xFFFE] {
            let c = ScoreCell::open(n).unwrap();
            assert_eq!((c.counter(), c.decode(lo)), (Some(n), None));
        }
        assert_eq!(ScoreCell::open(0xFFFF), None);
        assert_eq!(ScoreCell::HOLE.counter(), None);
        for v in [
            Scored::new(-5, Some(0)),
            Scored::new(5, Some(ScoreCell::MAX_REMOTENESS)),
            Scored::DRAW,
            Scored::new(3, None),
        ] {
            let c = ScoreCell::encode(v, lo).unwrap();
            assert_eq!((c.counter(), c.decode(lo)), (None, Some(v)));
        }
    }
}
