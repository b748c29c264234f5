//! The level-synchronous engine: the values of the sequential solver in `retro.rs` (the
//! reference), computed on all the threads of the current rayon pool, in one process or
//! across the ranks of an [`Exchange`], by one piece of code over a [`Share`] of the graph.
//!
//! # Algorithm
//! The sequential FIFO queue holds the decided vertices in non-decreasing remoteness, and a
//! vertex decided while a vertex of remoteness `r` is processed gets `r + 1`. Here the queue
//! is cut into its levels: the *frontier* of level `r` is every vertex decided with
//! remoteness `r`, and all of it is processed before any vertex of level `r + 1`.
//! 1. Seed (in parallel over the held vertices): terminals are decided with remoteness 0,
//!    every other vertex is open with its out-degree as counter. Frontier 0 is the win and
//!    loss terminals in place order; tie terminals wait for step 3.
//! 2. Wins and losses: the frontier is split into chunks of [`CHUNK`] vertices, many more
//!    than threads, processed by rayon's work stealing. Every reverse edge `u -> v` of a
//!    frontier vertex `v` gives `u` an *update*: a win, or a count-down. An update of a
//!    vertex this share holds is applied at once: an open `u` is either won (compare-exchange
//!    from the open cell it was read as to `win(r + 1)`) or counted down (compare-exchange to
//!    the counter minus one, or to `loss(r + 1)` when it reaches 0). A failed exchange
//!    rereads the cell and stops if another thread decided `u` meanwhile. Exactly one
//!    exchange decides a vertex, and only its thread appends the vertex to its chunk's list;
//!    the lists are concatenated into the next frontier. An update of a vertex another rank
//!    holds goes into that rank's buffer (4 bytes: the vertex's place at its owner and a
//!    bit), and one exchange per level delivers the buffers and tells every rank whether any
//!    has work left; the owners apply what they receive the same way (in parallel when it is
//!    more than a chunk), before the next level starts.
//!
//!    A scored graph runs step 2 once per score level, from the largest `|score|` down
//!    (`scored.rs`): frontier 0 is that level's terminals, the cells (and their counters)
//!    stay, and each frontier's vertices get the level's score (`+|score|` won, `-|score|`
//!    lost) as it is settled. Across ranks every rank runs every level: the next `|score|` is
//!    the largest any rank has left (one reduction), and a rank with no seed there starts
//!    with an empty frontier. What is said below of the levels holds inside each score level.
//! 3. Ties: the same levels through still-open vertices, from the tie terminals.
//! 4. The cells become the solution's outcome and remoteness arrays (open = draw).
//!
//! One process is the placement [`Whole`](crate::place::Whole): every vertex is held, so
//! `held` is a constant `Some` and [`Placement::ALONE`] leaves out the buffers and the
//! exchange at compile time; the loop is the one-process loop and nothing more.
//!
//! A frontier of at most one chunk (or any frontier when the pool has one thread) is
//! processed inline on the calling thread with plain loads and stores instead of
//! compare-exchange, so that long thin graphs (a 10M-vertex path has 10M levels of one
//! vertex) cost no more per level than the sequential queue does.
//!
//! Whether a move keeps the turn is split between its two ends ([`Turn`]), so that neither
//! needs the other's data: the child's side sends `lost XOR again XOR (arena AND NOT
//! owner(child))`, the parent's side XORs in `arena AND owner(parent)`; the result is `lost
//! XOR keeps`, the update's "wins" bit (in an arena, keeps = owners equal).
//!
//! # Why the values are the sequential ones, bit for bit, for every thread count and K
//! Everything that decides a value is fixed by the levels, not by the order inside one:
//! - A vertex is won exactly when some reverse edge into it carries a win, and lost exactly
//!   when all its moves have been counted down. Both cannot happen to the same vertex (a move
//!   that wins is never counted down, so the counter cannot reach 0), so racing threads can
//!   only disagree about *when inside a level* a vertex is decided, never about its outcome.
//! - The level at which that happens is the first level holding a winning child, or the
//!   level holding the last counted-down child: a property of the set of vertices of each
//!   level, which by induction is the sequential solver's set, so the remoteness is the same.
//! - Across ranks, each edge's update is made once (by the holder of the child) and applied
//!   once (by the holder of the parent), and a level's updates are all applied before the
//!   next level starts (the exchange that ends a level is a collective every rank enters).
//! - Only the order of vertices inside a frontier depends on the threads and ranks, and no
//!   value reads that order. Best moves come from the separate, order-free pass in
//!   `moves.rs`.
//!
//! # Memory
//! One `AtomicU32` per held vertex in the packed layout of `retro.rs` (which is why a whole
//! graph that does not fit it falls back to the sequential engine), the current and the next
//! frontier, and the per-chunk lists being concatenated: at most 12 bytes per vertex beside
//! the cells, against the sequential queue's 4 (in practice a level is a small part of the
//! graph). Across ranks, also one level's update buffers (4 bytes an update sent or
//! received). The cells become the remoteness array in place.

use crate::cell::{packed_decided, packed_is_open, packed_state, LOSS, LOW, OPEN, TIE, WIN};
use crate::error::{places, Error};
use crate::exchange::Exchange;
use crate::hint::prefetch;
use crate::place::Placement;
use crate::scored::{signed, ScoreLevels};
use crate::share::{terminal, Share};
use crate::solution::{Solution, NONE};
use crate::{Engine, Phases, Rules};
use rayon::prelude::*;
use retrograde_graph::{BitSet, TurnRule};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Frontier vertices per task: a few thousand, so that a level of a big graph gives many more
/// tasks than threads (work stealing evens out the chunks' different in-degrees), and each
/// task is long enough (thousands of cache misses) for its scheduling cost not to show.
pub(crate) const CHUNK: usize = 4096;

/// The values (no best moves) of every vertex `g` holds, with frontier chunks of `chunk`
/// vertices (tests use tiny chunks so that small graphs are split between threads too). `g`
/// must fit the packed layout ([`Share::fits_packed`]) on every rank. A collective across
/// ranks.
///
/// # Errors
/// A malformed message from another rank.
pub(crate) fn values<G: Share + ?Sized>(
    g: &G,
    rules: &Rules,
    chunk: usize,
    ex: &dyn Exchange,
) -> Result<(Solution, Phases), Error> {
    match g.turn_rule() {
        TurnRule::Alternate => solve_with(g, rules, chunk, Alternate, ex),
        TurnRule::GoAgain { reverse, .. } => solve_with(g, rules, chunk, GoAgain(reverse), ex),
        TurnRule::Arena { owner } => solve_with(g, rules, chunk, Arena(owner), ex),
    }
}

/// Whether an update wins its parent, split between the ends of the move (module docs): the
/// child's side `half(child, lost) XOR edge(e)` travels with the update, the parent's side
/// `own(parent)` is XORed in where it is applied. Each rule a type (the defaults are
/// [`Alternate`]'s), so the engine is compiled once per rule with its tests constant.
trait Turn: Sync {
    /// The child's half, from its place and whether it is lost.
    fn half(&self, _child: usize, lost: bool) -> bool {
        lost
    }
    /// Whether reverse entry `e` is a go-again move.
    fn edge(&self, _e: usize) -> bool {
        false
    }
    /// The parent's half, from its place.
    fn own(&self, _parent: usize) -> bool {
        false
    }
}

/// Every move passes the turn.
struct Alternate;

impl Turn for Alternate {}

/// Flagged moves keep the turn: one bit per reverse entry.
struct GoAgain<'a>(&'a BitSet);

impl Turn for GoAgain<'_> {
    fn edge(&self, e: usize) -> bool {
        self.0.get(e)
    }
}

/// A move keeps the turn when its ends have the same owner: one bit per held vertex.
struct Arena<'a>(&'a BitSet);

impl Turn for Arena<'_> {
    fn half(&self, child: usize, lost: bool) -> bool {
        lost == self.0.get(child)
    }
    fn own(&self, parent: usize) -> bool {
        self.0.get(parent)
    }
}

/// The engine's state: the cells of the held vertices, and how a level is cut into tasks.
struct Levels<'a, G: ?Sized, T> {
    g: &'a G,
    cells: Vec<AtomicU32>,
    turn: T,
    chunk: usize,
    threads: usize,
    /// The ranks updates can go to: 0 when one process holds everything.
    ranks: usize,
}

/// What the tasks of a level give: the vertices they decided (places), the updates for
/// other ranks (by rank, 4 bytes each) and the reverse edges they looked at.
struct Out {
    next: Vec<u32>,
    away: Vec<Vec<u8>>,
    scanned: u64,
}

impl Out {
    fn new(ranks: usize) -> Out {
        Out {
            next: Vec::new(),
            away: vec![Vec::new(); ranks],
            scanned: 0,
        }
    }

    /// Appends `part`, the output of the next task.
    fn append(&mut self, part: Out) {
        self.next.extend_from_slice(&part.next);
        self.scanned += part.scanned;
        for (to, from) in self.away.iter_mut().zip(part.away) {
            to.extend_from_slice(&from);
        }
    }
}

/// The engine, for one turn rule.
fn solve_with<G: Share + ?Sized, T: Turn>(
    g: &G,
    rules: &Rules,
    chunk: usize,
    turn: T,
    ex: &dyn Exchange,
) -> Result<(Solution, Phases), Error> {
    debug_assert!(g.fits_packed());
    let threads = rayon::current_num_threads();
    let mut phases = Phases {
        engine: Engine::Parallel,
        threads,
        ..Phases::default()
    };
    let clock = std::time::Instant::now();
    let (cells, frontier, ties, abs) = seed(g, rules);
    let levels = Levels {
        g,
        cells,
        turn,
        chunk: chunk.max(1),
        threads,
        ranks: if G::Place::ALONE { 0 } else { ex.size() },
    };
    let mut score = Vec::new();
    if g.is_scored() {
        score = retrograde_graph::huge::zeroed::<i64>(g.len());
        let seeds = ScoreLevels::new(&frontier, &abs);
        drop((frontier, abs));
        phases.edges_scanned = levels.score_levels(seeds, &mut score, ex)?;
    } else {
        phases.edges_scanned = levels.run::<false>(frontier, ex, |_| {})?;
    }
    phases.propagate = clock.elapsed();
    let clock = std::time::Instant::now();
    levels.run::<true>(ties, ex, |_| {})?;
    let (outcome, remoteness) = finish(levels.cells);
    phases.ties = clock.elapsed();
    let solution = Solution {
        outcome,
        remoteness,
        best: Vec::new(),
        score,
    };
    Ok((solution, phases))
}

impl<G: Share + ?Sized, T: Turn> Levels<'_, G, T> {
    /// Wins and losses of a scored graph: [`Levels::run`] once per score level (`scored.rs`),
    /// from the largest `|score|` down, seeded with this share's win and loss terminals of
    /// that `|score|` (`seeds`), the scores of the places each level decides written to
    /// `score`. Across
    /// ranks each level's `K` is the largest any rank has left (one reduction a level), so
    /// every rank runs every level. Returns the reverse edges looked at.
    fn score_levels(
        &self,
        seeds: ScoreLevels,
        score: &mut [i64],
        ex: &dyn Exchange,
    ) -> Result<u64, Error> {
        let mut mine = seeds.into_iter().peekable();
        let mut scanned = 0;
        loop {
            let local = mine.peek().map_or(0, |l| l.0);
            let k = if G::Place::ALONE {
                local
            } else {
                let mut k = [local];
                ex.max(&mut k);
                k[0]
            };
            if k == 0 {
                return Ok(scanned);
            }
            let seeds = match mine.next_if(|l| l.0 == k) {
                Some((_, seeds)) => seeds,
                None => Vec::new(),
            };
            let cells = &self.cells;
            scanned += self.run::<false>(seeds, ex, |decided| {
                for &v in decided {
                    let state = packed_state(cells[v as usize].load(Relaxed));
                    score[v as usize] = signed(k, state);
                }
            })?;
        }
    }

    /// Runs levels from `frontier` (places decided at level 0) until no rank has work left:
    /// wins and losses, or with `TIES` ties; `settled` sees every frontier (the places
    /// decided at each level, the first one included). Returns the reverse edges looked at.
    ///
    /// Relaxed atomics suffice: within a level every cell is only touched by read-modify-
    /// writes of that one cell, and rayon's join at the end of a task set orders it before
    /// the next.
    fn run<const TIES: bool>(
        &self,
        mut frontier: Vec<u32>,
        ex: &dyn Exchange,
        mut settled: impl FnMut(&[u32]),
    ) -> Result<u64, Error> {
        settled(&frontier);
        let alone = G::Place::ALONE;
        let mut go = if alone {
            !frontier.is_empty()
        } else {
            ex.any(!frontier.is_empty())
        };
        let mut scanned = 0;
        let mut r = 0u32;
        while go {
            // Every level decides at least one new vertex, so r < n <= LOW.
            r += 1;
            let mut out = self.tasks(&frontier, |part, shared, out| {
                self.spread::<TIES>(part, r, shared, out);
            });
            scanned += out.scanned;
            if alone {
                go = !out.next.is_empty();
            } else {
                let more = !out.next.is_empty() || out.away.iter().any(|a| !a.is_empty());
                let (got, flag) = ex.all_to_all_max(std::mem::take(&mut out.away), u64::from(more));
                let step = if TIES { "ties" } else { "wins and losses" };
                let mut updates = Vec::with_capacity(got.iter().map(Vec::len).sum::<usize>() / 4);
                for (from, b) in got.iter().enumerate() {
                    places(b, from, step, self.cells.len(), |p, bit| {
                        updates.push(p | u32::from(bit) << 31);
                    })?;
                }
                drop(got);
                out.append(self.tasks(&updates, |part, shared, out| {
                    for &x in part {
                        let (u, bit) = ((x & !(1 << 31)) as usize, x >> 31 == 1);
                        self.update::<TIES>(u, bit, r, shared, &mut out.next);
                    }
                }));
                go = flag == 1;
            }
            frontier = out.next;
            settled(&frontier);
        }
        Ok(scanned)
    }

    /// Runs `step(part, shared, out)` over `items` cut into chunks, on the pool's threads
    /// (`shared`: other threads may be changing cells at the same time), or inline when
    /// they are one chunk or the pool has one thread; the outputs joined in order.
    fn tasks(&self, items: &[u32], step: impl Fn(&[u32], bool, &mut Out) + Sync) -> Out {
        if self.threads <= 1 || items.len() <= self.chunk {
            let mut out = Out::new(self.ranks);
            step(items, false, &mut out);
            return out;
        }
        let parts: Vec<Out> = items
            .par_chunks(self.chunk)
            .map(|part| {
                let mut out = Out::new(self.ranks);
                step(part, true, &mut out);
                out
            })
            .collect();
        let mut all = Out::new(self.ranks);
        all.next.reserve(parts.iter().map(|p| p.next.len()).sum());
        for part in parts {
            all.append(part);
        }
        all
    }

    /// Level `r`'s updates from `part` of the frontier of level `r - 1`: applied to the
    /// vertices held here (those decided go to `out.next`), put in `out.away` for the others.
    #[inline(always)]
    fn spread<const TIES: bool>(&self, part: &[u32], r: u32, shared: bool, out: &mut Out) {
        let g = self.g;
        let (off, rev, cells) = (g.reverse_offsets(), g.reverse_sources(), &self.cells);
        let place = g.placement();
        for (i, &v) in part.iter().enumerate() {
            // The frontier is known ahead, as the sequential queue is: fetch offsets, then
            // predecessor lists, then the predecessors' cells, a few vertices ahead.
            if let Some(&w) = part.get(i + 32) {
                prefetch(off, w as usize);
            }
            if let Some(&w) = part.get(i + 16) {
                prefetch(rev, off[w as usize] as usize);
                prefetch(cells, w as usize);
            }
            if let Some(&w) = part.get(i + 8) {
                let w = w as usize;
                for &u in &rev[off[w] as usize..off[w + 1] as usize] {
                    if let Some(l) = g.held(u) {
                        prefetch(cells, l as usize);
                    }
                }
            }
            let v = v as usize;
            let half = !TIES
                && self
                    .turn
                    .half(v, packed_state(cells[v].load(Relaxed)) == LOSS);
            let range = off[v] as usize..off[v + 1] as usize;
            out.scanned += range.len() as u64;
            for e in range {
                let u = rev[e];
                let bit = !TIES && half != self.turn.edge(e);
                match g.held(u) {
                    Some(l) => self.update::<TIES>(l as usize, bit, r, shared, &mut out.next),
                    None => {
                        let (o, l) = place.place(u64::from(u));
                        let x = l as u32 | u32::from(bit) << 31;
                        out.away[o].extend_from_slice(&x.to_le_bytes());
                    }
                }
            }
        }
    }

    /// Applies an update of level `r` to held vertex `u` (with `TIES`: open becomes a tie;
    /// else `bit` is the child's half of the wins bit), and lists `u` in `next` when this
    /// call decided it.
    #[inline(always)]
    fn update<const TIES: bool>(
        &self,
        u: usize,
        bit: bool,
        r: u32,
        shared: bool,
        next: &mut Vec<u32>,
    ) {
        let cell = &self.cells[u];
        let seen = cell.load(Relaxed);
        if !packed_is_open(seen) {
            return;
        }
        let decided = if TIES {
            // While ties spread, an open cell only ever changes by becoming a tie, so a
            // failed exchange means another thread took it.
            let tie = packed_decided(TIE, r);
            if shared {
                cell.compare_exchange(seen, tie, Relaxed, Relaxed).is_ok()
            } else {
                cell.store(tie, Relaxed);
                true
            }
        } else {
            decide_win_or_count_down(cell, seen, bit != self.turn.own(u), r, shared)
        };
        if decided {
            next.push(u as u32);
        }
    }
}

/// One move of open `u` (its cell was read as `seen`) is now known: a win for `u`'s mover
/// when `wins`, else a move that loses, counted down. Returns true when this call decided `u`
/// (won it, or counted its last move down), which happens exactly once per decided vertex.
/// `shared`: other threads may be changing cells at the same time (else plain stores do).
#[inline(always)]
fn decide_win_or_count_down(cell: &AtomicU32, seen: u32, wins: bool, r: u32, shared: bool) -> bool {
    let step = |open: u32| {
        if wins {
            (packed_decided(WIN, r), true)
        } else if open == 1 {
            (packed_decided(LOSS, r), true)
        } else {
            (open - 1, false)
        }
    };
    if !shared {
        let (new, decided) = step(seen);
        cell.store(new, Relaxed);
        return decided;
    }
    let mut seen = seen;
    loop {
        let (new, decided) = step(seen);
        match cell.compare_exchange_weak(seen, new, Relaxed, Relaxed) {
            Ok(_) => return decided,
            // Decided by another thread: nothing left to do here.
            Err(now) if !packed_is_open(now) => return false,
            // Counted down by another thread (or a spurious failure): try again.
            Err(now) => seen = now,
        }
    }
}

/// Step 1: the cells (terminals decided, others open with their out-degree), the win and loss
/// terminals (frontier 0) and the tie terminals, both in place order. One parallel pass.
#[allow(clippy::type_complexity)]
fn seed<G: Share + ?Sized>(g: &G, rules: &Rules) -> (Vec<AtomicU32>, Vec<u32>, Vec<u32>, Vec<u64>) {
    const PART: usize = 1 << 16;
    // Zeroed memory straight from the allocator (huge pages advised, not yet touched), seen as
    // atomics in place: the pass below is the first to write it, on every thread.
    let mut cells: Vec<AtomicU32> = retrograde_graph::huge::zeroed::<u32>(g.len())
        .into_iter()
        .map(AtomicU32::new)
        .collect();
    let scored = g.is_scored();
    let parts: Vec<(Vec<u32>, Vec<u32>, Vec<u64>)> = cells
        .par_chunks_mut(PART)
        .enumerate()
        .map(|(i, part)| {
            let base = i * PART;
            let (mut wl, mut ties, mut abs) = (Vec::new(), Vec::new(), Vec::new());
            for (j, cell) in part.iter_mut().enumerate() {
                let v = (base + j) as u32;
                *cell.get_mut() = match terminal(g, rules, v) {
                    Some(val) => {
                        let state = val.outcome() as u8;
                        if state == TIE {
                            ties.push(v);
                        } else {
                            wl.push(v);
                            if scored {
                                abs.push(val.score.unsigned_abs());
                            }
                        }
                        packed_decided(state, 0)
                    }
                    // `fits_packed`: out-degrees are below 2^30.
                    None => g.out_degree_at(v) as u32,
                };
            }
            (wl, ties, abs)
        })
        .collect();
    let (mut wl, mut ties, mut abs) = (Vec::new(), Vec::new(), Vec::new());
    for (a, b, c) in parts {
        wl.extend_from_slice(&a);
        ties.extend_from_slice(&b);
        abs.extend_from_slice(&c);
    }
    (cells, wl, ties, abs)
}

/// Step 4: outcome codes and remoteness (`NONE` for draws, the cells still open); the cells'
/// memory becomes the remoteness array.
fn finish(mut cells: Vec<AtomicU32>) -> (Vec<u8>, Vec<u32>) {
    let mut state: Vec<u8> = retrograde_graph::huge::zeroed(cells.len());
    cells
        .par_iter_mut()
        .zip(state.par_iter_mut())
        .with_min_len(1 << 14)
        .for_each(|(c, s)| {
            let c = c.get_mut();
            *s = packed_state(*c);
            *c = if *s == OPEN { NONE } else { *c & LOW };
        });
    // Reuses the allocation (a `Vec` collected from its own `into_iter` with a map between
    // types of one layout is built in place).
    let remoteness: Vec<u32> = cells.into_iter().map(AtomicU32::into_inner).collect();
    (state, remoteness)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::{run_local, Solo};
    use crate::moves::best_moves;
    use crate::retro::solve_layout;
    use crate::testing::{forged, random_graph};
    use crate::{solve_with_options, DistGraph, Error, SolveOptions};
    use proptest::prelude::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use retrograde_graph::{Graph, GraphBuilder, Primitive};
    use std::sync::OnceLock;

    /// The level engine on a whole graph, with frontier chunks of `chunk` vertices.
    fn solve_chunked(g: &Graph, rules: &Rules, chunk: usize) -> (Solution, Phases) {
        values(g, rules, chunk, &Solo).unwrap()
    }

    /// Pools of 1, 2, 3 and 4 threads, made once for all cases.
    fn pools() -> &'static [rayon::ThreadPool] {
        static POOLS: OnceLock<Vec<rayon::ThreadPool>> = OnceLock::new();
        POOLS.get_or_init(|| {
            (1..=4)
                .map(|t| {
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(t)
                        .build()
                        .unwrap()
                })
                .collect()
        })
    }

    /// A random graph: `n` vertices, edges `(u, v, again)` taken modulo `n`, terminal labels,
    /// and owners (an arena: go-again flags are then ignored) when given.
    fn graph(
        n: u32,
        edges: &[(u32, u32, bool)],
        terminal: &[(u32, u8)],
        owners: Option<&[bool]>,
    ) -> Graph {
        let mut b = GraphBuilder::new();
        for &(u, v, again) in edges {
            let (u, v) = (u % n, v % n);
            if again && owners.is_none() {
                b.add_edge_again(u, v);
            } else {
                b.add_edge(u, v);
            }
        }
        for &(v, p) in terminal {
            b.set_primitive(v % n, primitive(p));
        }
        if let Some(o) = owners {
            for v in 0..n {
                b.set_owner(v, o[v as usize % o.len()] as u64).unwrap();
            }
        }
        b.ensure_vertices(n as u64).unwrap();
        b.build().unwrap()
    }

    fn primitive(c: u8) -> Primitive {
        [Primitive::Win, Primitive::Loss, Primitive::Tie][c as usize % 3]
    }

    /// The parallel engine, with frontier chunks of `chunk` vertices, in every pool gives the
    /// sequential engine's solution bit for bit: outcomes, remoteness and best moves.
    fn check(g: &Graph, rules: &Rules, chunk: usize) -> Result<(), TestCaseError> {
        let (mut want, _) = solve_layout(g, rules, true);
        want.best = best_moves(g, rules, &want, &Solo).unwrap();
        for pool in pools() {
            let (got, phases) = pool.install(|| {
                let (mut s, p) = solve_chunked(g, rules, chunk);
                s.best = best_moves(g, rules, &s, &Solo).unwrap();
                (s, p)
            });
            prop_assert_eq!(phases.threads, pool.current_num_threads());
            prop_assert_eq!(
                &got,
                &want,
                "{} threads, chunks of {}",
                phases.threads,
                chunk
            );
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// Small graphs full of cycles, self-loops and parallel edges, with terminal labels,
        /// go-again moves or owners, under every no-move rule; chunks of 1 to 4 vertices, so
        /// that even these are split between threads.
        #[test]
        fn small_graphs_parallel_equals_sequential(
            n in 1u32..40,
            edges in prop::collection::vec((0u32..40, 0u32..40, prop::bool::weighted(0.25)), 0..120),
            terminal in prop::collection::vec((0u32..40, 0u8..3), 0..4),
            owners in prop::option::weighted(0.3, prop::collection::vec(any::<bool>(), 1..40)),
            rule in 0u8..3,
            chunk in 1usize..5,
        ) {
            let g = graph(n, &edges, &terminal, owners.as_deref());
            check(&g, &Rules { no_move: primitive(rule) }, chunk)?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

        /// Bigger random graphs (up to 3,000 vertices, levels of hundreds of vertices split in
        /// chunks of up to 64), drawn from a seed.
        #[test]
        fn random_graphs_parallel_equals_sequential(
            seed in any::<u64>(),
            n in 1u32..3000,
            per_vertex in 1u32..5,
            again in 0u32..3,
            terminals in 0u32..20,
            arena in any::<bool>(),
            rule in 0u8..3,
            chunk in 1usize..65,
        ) {
            let mut rng = SmallRng::seed_from_u64(seed);
            let edges: Vec<(u32, u32, bool)> = (0..n * per_vertex)
                .map(|_| (rng.gen_range(0..n), rng.gen_range(0..n), rng.gen_range(0..8) < again))
                .collect();
            let terminal: Vec<(u32, u8)> =
                (0..terminals).map(|_| (rng.gen_range(0..n), rng.gen_range(0..3))).collect();
            let owners: Option<Vec<bool>> = arena.then(|| (0..n).map(|_| rng.gen()).collect());
            let g = graph(n, &edges, &terminal, owners.as_deref());
            check(&g, &Rules { no_move: primitive(rule) }, chunk)?;
        }
    }

    /// `solve` picks the parallel engine in pools of several threads and the sequential one
    /// in a pool of one, and the public entry point gives the same solution either way.
    #[test]
    fn auto_engine_follows_the_pool() {
        // One move per vertex on average: a third of the vertices are dead ends, so the
        // first frontier is several chunks long and really is split between threads.
        let mut rng = SmallRng::seed_from_u64(7);
        let n = 50_000u32;
        let edges: Vec<(u32, u32, bool)> = (0..n)
            .map(|_| (rng.gen_range(0..n), rng.gen_range(0..n), false))
            .collect();
        let g = graph(n, &edges, &[], None);
        let rules = Rules::default();
        let want = solve_with_options(
            &g,
            &rules,
            &SolveOptions {
                engine: Engine::Sequential,
                ..SolveOptions::default()
            },
        )
        .0;
        for pool in pools() {
            for engine in [Engine::Auto, Engine::Parallel, Engine::Sequential] {
                let opts = SolveOptions {
                    engine,
                    ..SolveOptions::default()
                };
                let (got, phases) = pool.install(|| solve_with_options(&g, &rules, &opts));
                let threads = pool.current_num_threads();
                let ran = match engine {
                    Engine::Auto if threads > 1 => Engine::Parallel,
                    Engine::Auto => Engine::Sequential,
                    e => e,
                };
                assert_eq!(phases.engine, ran, "{engine:?} in {threads} threads");
                let threads = if ran == Engine::Sequential {
                    1
                } else {
                    threads
                };
                assert_eq!(phases.threads, threads, "{engine:?}");
                assert_eq!(got, want, "{engine:?} in {threads} threads");
            }
        }
    }

    /// A long path: one level per vertex, processed inline (and no recursion).
    #[test]
    fn a_path_has_one_level_per_vertex() {
        let n = 100_000u32;
        let edges: Vec<(u32, u32, bool)> = (0..n - 1).map(|v| (v, v + 1, false)).collect();
        let g = graph(n, &edges, &[], None);
        let rules = Rules::default();
        let (want, _) = solve_layout(&g, &rules, true);
        let (got, _) = pools()[1].install(|| solve_chunked(&g, &rules, 1));
        assert_eq!(got, want);
        assert_eq!(got.value(0), crate::Value::Win(n - 1));
    }

    /// Per rank, a pool of 1 and one of 2 threads of its own (a rank blocks a thread of its
    /// pool while it waits for the others in a collective).
    fn rank_pool(rank: usize, threads: usize) -> &'static rayon::ThreadPool {
        static POOLS: OnceLock<Vec<rayon::ThreadPool>> = OnceLock::new();
        let pools = POOLS.get_or_init(|| {
            (0..8)
                .map(|i| {
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(1 + i / 4)
                        .build()
                        .unwrap()
                })
                .collect()
        });
        &pools[(threads - 1) * 4 + rank]
    }

    /// The whole solution, joined at rank 0, of `k` ranks solving `g` with the level engine
    /// and the best-move pass, each on `threads` threads with chunks of `chunk` vertices:
    /// the very code one process runs, over the ranks' placement.
    /// The rank pools are shared by the tests that run ranks, which the test harness runs
    /// at once: one at a time, or a rank of one test waiting in a collective would hold the
    /// pool thread a rank of the other needs.
    fn by_ranks(g: &Graph, rules: &Rules, k: usize, threads: usize, chunk: usize) -> Solution {
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let got = run_local(k, |ex| {
            let run = || {
                let share = DistGraph::from_graph(g, ex).unwrap();
                let (mut s, phases) = values(&share, rules, chunk, ex).unwrap();
                assert_eq!(phases.threads, threads);
                s.best = best_moves(&share, rules, &s, ex).unwrap();
                crate::testing::gather(&s, g.is_scored(), ex)
            };
            rank_pool(ex.rank(), threads).install(run)
        });
        got.into_iter().next().flatten().unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(120))]

        /// 1 to 4 ranks (threads of this process), each on 1 or 2 threads with chunks of 1 to
        /// 4 vertices, give one process's solution bit for bit: values, remoteness and best
        /// moves, on graphs with cycles, primitives, go-again moves or arenas, under every
        /// no-move rule.
        #[test]
        fn ranks_and_threads_give_the_one_process_solution(seed: u64, chunk in 1usize..5) {
            let g = random_graph(seed);
            for no_move in [Primitive::Loss, Primitive::Win, Primitive::Tie] {
                let rules = Rules { no_move };
                let want = crate::solve(&g, &rules);
                for k in 1..=4 {
                    for threads in [1, 2] {
                        let got = by_ranks(&g, &rules, k, threads, chunk);
                        prop_assert_eq!(&got, &want, "{} ranks x {} threads", k, threads);
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]

        /// Scored graphs (score levels, each a run of levels): every pool and chunk size
        /// gives the sequential engine's solution, scores included.
        #[test]
        fn scored_graphs_parallel_equals_sequential(seed: u64, chunk in 1usize..5, rule in 0u8..3) {
            let g = crate::testing::random_scored_graph(seed);
            prop_assert!(g.is_scored());
            check(&g, &Rules { no_move: primitive(rule) }, chunk)?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(60))]

        /// 1 to 4 ranks, each on 1 or 2 threads, give one process's solution of a scored
        /// graph bit for bit (the ranks agree on each score level with a reduction; a rank
        /// without a seed in a level still runs it).
        #[test]
        fn ranks_give_the_one_process_solution_of_scored_graphs(seed: u64, chunk in 1usize..5) {
            let g = crate::testing::random_scored_graph(seed);
            let rules = Rules::default();
            let want = crate::solve(&g, &rules);
            prop_assert!(want.is_scored());
            for k in 1..=4 {
                for threads in [1, 2] {
                    let got = by_ranks(&g, &rules, k, threads, chunk);
                    prop_assert_eq!(&got, &want, "{} ranks x {} threads", k, threads);
                }
            }
        }
    }

    /// A malformed update from another rank is an error naming the step, the rank and what
    /// is wrong, never a panic or a wrong value.
    #[test]
    fn a_malformed_update_is_an_error() {
        // Rank 0 holds 0 and 1, a dead end: its first level has work.
        let mut b = GraphBuilder::new();
        b.add_edge(0, 1);
        b.add_edge(2, 3);
        b.add_edge(3, 2);
        let g = b.build().unwrap();
        for (message, problem) in [
            (vec![1, 2, 3], "3 bytes, not a whole number of 4-byte words"),
            (
                1000u32.to_le_bytes().to_vec(),
                "vertex place 1000, but this rank holds",
            ),
        ] {
            let ex = forged(message);
            let share = DistGraph::from_graph(&g, &ex).unwrap();
            let e = values(&share, &Rules::default(), CHUNK, &ex).unwrap_err();
            let Error::Message {
                step,
                from,
                problem: p,
            } = &e
            else {
                panic!("{e:?}");
            };
            assert_eq!((*step, *from), ("wins and losses", 1), "{e}");
            assert!(p.starts_with(problem), "{e}");
            assert!(e
                .to_string()
                .starts_with("a malformed message from rank 1 (wins and losses): "));
        }
    }
}
