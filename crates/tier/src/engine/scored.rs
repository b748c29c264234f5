//! Solving a game with scores ([`ScoredGame`]): who wins and by how much.
//!
//! Dense layout only, in memory, on one process: the tiers are solved children first, each
//! position's [`Scored`] value is kept in 4 bytes (see [`ScoreCell`]), and the solution
//! answers lookups of every tier. A tier none of whose moves stays in it is solved in one
//! parallel pass (every move is an *exit* to a solved tier); a loopy tier then settles
//! the rest on one thread, as below.
//!
//! # Algorithm inside a tier
//! Exits are known values (`child.through_with(keeps, reward)`), and only the best one of a
//! position matters (the others are worse, so they neither decide it nor can be its last
//! move). Inside the tier, moves collect nothing, so a position decided at score `s` makes
//! its parents' options worth `±s`, and a play that never leaves the tier is worth 0: the
//! tier is a deterministic graphical game whose terminals are the exits and the tier's own
//! terminal positions.
//!
//! Events (a position, and what one of its moves is worth to its mover) are settled in the
//! order of [`key`]: the largest `|score|` first (both signs at each level), at one level by
//! remoteness, a remoteness of none after every finite one. A positive event decides its
//! position if still open (nothing better is left: better options have larger scores, or
//! the same score and came earlier); a negative one counts it down, and the last count
//! decides it (its other moves were all worse). Each position starts with a counter of its
//! distinct moves inside the tier (by canonical child and keeps-turn) plus one for its best
//! exit, which is an event at its own key (a *seed* if it wins, a counted-down move if it
//! loses). A decided position makes an event for each parent, at a key never earlier than
//! the current one. Then score 0: a tie (the terminals and exits worth 0 with a remoteness)
//! spreads to every open parent, fastest first, as in the unscored engine; what is left open
//! never ends and collects nothing more here: a draw.
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
use crate::api::game::{canonical, keeps, DenseIndex, ScoredGame, Symmetry};
use crate::engine::SolveOptions;
use crate::error::Error;
use crate::stats::Stats;
use crate::store::identity::{for_solve, Identified};
use crate::store::meta::{
    header, read_meta, values_file, write_meta, Meta, FORMAT, META, META_VERSION,
};
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Kind, Reader, BLOCK_ELEMS};
use rayon::prelude::*;
use retrograde_solve::{Outcome, Scored};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
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

    /// The value, for a game whose least score is `lo`; `None` for a hole.
    #[inline]
    pub fn decode(self, lo: i64) -> Option<Scored> {
        if self == Self::HOLE {
            return None;
        }
        let r = self.0 & 0xFFFF;
        Some(Scored::new(
            lo + i64::from(self.0 >> 16),
            (r != 0xFFFF).then_some(r),
        ))
    }
}

/// The event order (smaller first): `|score|` descending, then remoteness, none last.
#[inline]
fn key(v: Scored) -> (u64, u64) {
    (
        u64::MAX - v.score.unsigned_abs(),
        v.remoteness.map_or(u64::MAX, u64::from),
    )
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
/// range of more than 65,535 scores or a tier of more than `u32::MAX` slots,
/// [`Error::Remoteness`] past 65,534 plies, [`Error::Memory`] past `opts.memory_limit`
/// (4 bytes a slot of every tier, plus the work of the largest loopy tier).
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
        let cells = solve_tier(game, t, &children, &tiers, lo, hi)?;
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
/// needs more while it is solved: about 40 bytes a position with moves inside it).
///
/// # Errors
/// [`Error::Game`] when the tiers do not form a DAG.
pub fn scored_memory<G: ScoredGame + DenseIndex>(game: &G) -> Result<u64, Error> {
    Ok(memory_of(game, &Dag::build(game)?))
}

/// A position with moves inside its tier: its slot, those moves (canonical child's slot,
/// keeps-turn; distinct) and its best exit.
type OpenSlot = (u32, Vec<(u32, bool)>, Option<Scored>);

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

/// One tier's cells.
fn solve_tier<G: ScoredGame + DenseIndex>(
    game: &G,
    t: G::Tier,
    children: &[G::Tier],
    tiers: &HashMap<G::Tier, Vec<ScoreCell>>,
    lo: i64,
    hi: i64,
) -> Result<Vec<ScoreCell>, Error> {
    let size = game.tier_size(t);
    if size > u64::from(u32::MAX) {
        return Err(Error::Unsupported(format!("tier {t:?} has {size} slots")));
    }
    let n = size as usize;
    let encode = |v: Scored| {
        ScoreCell::encode(v, lo).ok_or_else(|| Error::Remoteness {
            tier: format!("{t:?}"),
            max: ScoreCell::MAX_REMOTENESS,
        })
    };
    // Init in parallel: the cells of positions decided at once; the loopy rest aside.
    const TASK: usize = 1 << 12;
    let mut cells = vec![ScoreCell::HOLE; n];
    let open: Vec<Vec<OpenSlot>> = cells
        .par_chunks_mut(TASK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut moves = Vec::new();
            let mut open = Vec::new();
            for (o, cell) in chunk.iter_mut().enumerate() {
                let i = (c * TASK + o) as u64;
                match init_slot(game, t, i, children, tiers, (lo, hi), &mut moves)? {
                    Init::Hole => {}
                    Init::Done(v) => *cell = encode(v)?,
                    Init::Open(inside, best) => open.push((i as u32, inside, best)),
                }
            }
            Ok(open)
        })
        .collect::<Result<_, Error>>()?;
    let open: Vec<_> = open.into_iter().flatten().collect();
    if open.is_empty() {
        return Ok(cells);
    }
    let values = settle_loopy(&cells, open, lo);
    for (i, v) in values {
        cells[i as usize] = encode(v)?;
    }
    Ok(cells)
}

/// The loopy part of a tier, on one thread: the values of the open positions.
fn settle_loopy(cells: &[ScoreCell], open: Vec<OpenSlot>, lo: i64) -> Vec<(u32, Scored)> {
    let n = cells.len();
    let mut value: Vec<Option<Scored>> = cells.iter().map(|c| c.decode(lo)).collect();
    let mut is_open = vec![false; n];
    let mut counter = vec![0u32; n];
    // Parents by child, as CSR.
    let mut offsets = vec![0u32; n + 1];
    for (_, inside, _) in &open {
        for &(j, _) in inside {
            offsets[j as usize + 1] += 1;
        }
    }
    for j in 0..n {
        offsets[j + 1] += offsets[j];
    }
    let mut fill = offsets.clone();
    let mut parents = vec![(0u32, false); offsets[n] as usize];
    let mut events: BTreeMap<(u64, u64), Vec<(u32, Scored)>> = BTreeMap::new();
    let mut ties: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (i, inside, best) in &open {
        is_open[*i as usize] = true;
        value[*i as usize] = None;
        counter[*i as usize] = inside.len() as u32 + u32::from(best.is_some());
        for &(j, k) in inside {
            parents[fill[j as usize] as usize] = (*i, k);
            fill[j as usize] += 1;
        }
        match best {
            Some(e) if e.score != 0 => events.entry(key(*e)).or_default().push((*i, *e)),
            Some(Scored {
                remoteness: Some(r),
                ..
            }) => ties.entry(*r).or_default().push(*i),
            _ => {}
        }
    }
    let parents_of = |c: usize| &parents[offsets[c] as usize..offsets[c + 1] as usize];
    // A decided position's events for its parents.
    let spread = |c: usize,
                  v: Scored,
                  events: &mut BTreeMap<(u64, u64), Vec<(u32, Scored)>>,
                  ties: &mut BTreeMap<u32, Vec<u32>>| {
        for &(q, k) in parents_of(c) {
            let w = v.through(k);
            if w.score != 0 {
                events.entry(key(w)).or_default().push((q, w));
            } else if let Some(r) = w.remoteness {
                ties.entry(r).or_default().push(q);
            }
        }
    };
    for c in 0..n {
        if let (Some(v), false) = (value[c], is_open[c]) {
            spread(c, v, &mut events, &mut ties);
        }
    }
    while let Some((_, list)) = events.pop_first() {
        for (q, w) in list {
            let qu = q as usize;
            if value[qu].is_some() {
                continue;
            }
            if w.score < 0 {
                counter[qu] -= 1;
                if counter[qu] > 0 {
                    continue;
                }
            }
            value[qu] = Some(w);
            spread(qu, w, &mut events, &mut ties);
        }
    }
    while let Some((r, list)) = ties.pop_first() {
        for q in list {
            let qu = q as usize;
            if value[qu].is_none() {
                let v = Scored::new(0, Some(r));
                value[qu] = Some(v);
                spread(qu, v, &mut BTreeMap::new(), &mut ties);
            }
        }
    }
    open.iter()
        .map(|(i, _, _)| (*i, value[*i as usize].unwrap_or(Scored::DRAW)))
        .collect()
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
