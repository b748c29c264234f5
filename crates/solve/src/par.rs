//! Level-synchronous parallel retrograde analysis: the same values as the sequential solver
//! in `retro.rs` (the reference), computed on all the threads of the current rayon pool.
//!
//! # Algorithm
//! The sequential FIFO queue holds the decided vertices in non-decreasing remoteness, and a
//! vertex decided while a vertex of remoteness `r` is processed gets `r + 1`. Here the queue
//! is cut into its levels: the *frontier* of level `r` is every vertex decided with
//! remoteness `r`, and all of it is processed before any vertex of level `r + 1`.
//! 1. Seed (in parallel over the vertices): terminals are decided with remoteness 0, every
//!    other vertex is open with its out-degree as counter. Frontier 0 is the win and loss
//!    terminals in id order; tie terminals wait for step 3.
//! 2. Wins and losses: the frontier is split into chunks of [`CHUNK`] vertices, many more
//!    than threads, processed by rayon's work stealing. For each reverse edge `u -> v` of a
//!    frontier vertex `v`, an open `u` is either won at once (compare-exchange from the open
//!    cell it was read as to `win(r + 1)`) or counted down (compare-exchange to the counter
//!    minus one, or to `loss(r + 1)` when it reaches 0). A failed exchange rereads the cell
//!    and stops if another thread decided `u` meanwhile. Exactly one exchange decides a
//!    vertex, and only its thread appends the vertex to its chunk's next-frontier list; the
//!    lists are concatenated (in chunk order) into the next frontier.
//! 3. Ties: the same levels through still-open vertices, from the tie terminals.
//! 4. The cells become the solution's outcome and remoteness arrays (open = draw).
//!
//! A frontier of at most one chunk (or any frontier when the pool has one thread) is
//! processed inline on the calling thread with plain loads and stores instead of
//! compare-exchange, so that long thin graphs (a 10M-vertex path has 10M levels of one
//! vertex) cost no more per level than the sequential queue does.
//!
//! # Why the values are the sequential ones, bit for bit
//! Everything that decides a value is fixed by the levels, not by the order inside one:
//! - A vertex is won exactly when some reverse edge into it carries a win, and lost exactly
//!   when all its moves have been counted down. Both cannot happen to the same vertex (a move
//!   that wins is never counted down, so the counter cannot reach 0), so racing threads can
//!   only disagree about *when inside a level* a vertex is decided, never about its outcome.
//! - The level at which that happens is the first level holding a winning child, or the
//!   level holding the last counted-down child: a property of the set of vertices of each
//!   level, which by induction is the sequential solver's set, so the remoteness is the same.
//! - Only the order of vertices inside a frontier depends on the threads, and no value reads
//!   that order. Best moves come from the separate, order-free pass in `retro.rs`.
//!
//! # Memory
//! One `AtomicU32` per vertex in the packed layout of `retro.rs` (which is why graphs that do
//! not fit it fall back to the sequential engine), the current and the next frontier, and the
//! per-chunk lists being concatenated: at most 12 bytes per vertex beside the cells, against
//! the sequential queue's 4 (in practice a level is a small part of the graph). The cells
//! become the remoteness array in place.

use crate::retro::{
    packed_decided, packed_is_open, packed_state, prefetch, terminal_value, LOSS, LOW, OPEN, TIE,
    WIN,
};
use crate::solution::{Solution, NONE};
use crate::{Engine, Phases, Rules};
use rayon::prelude::*;
use retrograde_graph::{Graph, TurnRule};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Frontier vertices per task: a few thousand, so that a level of a big graph gives many more
/// tasks than threads (work stealing evens out the chunks' different in-degrees), and each
/// task is long enough (thousands of cache misses) for its scheduling cost not to show.
pub(crate) const CHUNK: usize = 4096;

/// The values (no best moves) of every vertex; the graph must fit the packed layout
/// (`retro::fits_packed`).
pub(crate) fn solve_values(g: &Graph, rules: &Rules) -> (Solution, Phases) {
    solve_chunked(g, rules, CHUNK)
}

/// [`solve_values`] with frontier chunks of `chunk` vertices (tests use tiny chunks so that
/// small graphs are split between threads too).
pub(crate) fn solve_chunked(g: &Graph, rules: &Rules, chunk: usize) -> (Solution, Phases) {
    let chunk = chunk.max(1);
    match g.turn_rule() {
        TurnRule::Alternate => solve_with(g, rules, chunk, |_, _, _| false),
        TurnRule::GoAgain { reverse, .. } => solve_with(g, rules, chunk, |e, _, _| reverse.get(e)),
        TurnRule::Arena { owner } => solve_with(g, rules, chunk, |_, u, v| {
            owner.get(u as usize) == owner.get(v as usize)
        }),
    }
}

/// The solver, specialised by the turn rule: `keeps(e, u, v)` tells whether reverse edge `e`
/// (the move `u -> v`) leaves the same player to move.
fn solve_with(
    g: &Graph,
    rules: &Rules,
    chunk: usize,
    keeps: impl Fn(usize, u32, u32) -> bool + Sync,
) -> (Solution, Phases) {
    debug_assert!(crate::retro::fits_packed(g));
    let threads = rayon::current_num_threads();
    let mut phases = Phases {
        engine: Engine::Parallel,
        threads,
        ..Phases::default()
    };
    let clock = std::time::Instant::now();
    let (cells, frontier, ties) = seed(g, rules);

    // Wins and losses.
    let rev = g.reverse_sources();
    let rev_off = g.reverse_offsets();
    phases.edges_scanned = levels(frontier, chunk, threads, |part, r, shared, next| {
        let mut scanned = 0;
        for (i, &v) in part.iter().enumerate() {
            // The frontier is known ahead, as the sequential queue is: fetch offsets, then
            // predecessor lists, then the predecessors' cells, a few vertices ahead.
            if let Some(&w) = part.get(i + 32) {
                prefetch(rev_off, w as usize);
            }
            if let Some(&w) = part.get(i + 16) {
                prefetch(rev, rev_off[w as usize] as usize);
                prefetch(&cells, w as usize);
            }
            if let Some(&w) = part.get(i + 8) {
                for &u in g.predecessors(w) {
                    prefetch(&cells, u as usize);
                }
            }
            let child_lost = packed_state(cells[v as usize].load(Relaxed)) == LOSS;
            let range = g.predecessor_range(v);
            scanned += range.len() as u64;
            for e in range {
                let u = rev[e];
                let cell = &cells[u as usize];
                let seen = cell.load(Relaxed);
                if !packed_is_open(seen) {
                    continue;
                }
                let wins = child_lost != keeps(e, u, v);
                if decide_win_or_count_down(cell, seen, wins, r, shared) {
                    next.push(u);
                }
            }
        }
        scanned
    });
    phases.propagate = clock.elapsed();
    let clock = std::time::Instant::now();

    // Ties, through vertices still open.
    levels(ties, chunk, threads, |part, r, shared, next| {
        for (i, &v) in part.iter().enumerate() {
            if let Some(&w) = part.get(i + 8) {
                for &u in g.predecessors(w) {
                    prefetch(&cells, u as usize);
                }
            }
            for &u in g.predecessors(v) {
                let cell = &cells[u as usize];
                let seen = cell.load(Relaxed);
                if !packed_is_open(seen) {
                    continue;
                }
                let tie = packed_decided(TIE, r);
                // While ties spread, an open cell only ever changes by becoming a tie, so a
                // failed exchange means another thread took it.
                let took = if shared {
                    cell.compare_exchange(seen, tie, Relaxed, Relaxed).is_ok()
                } else {
                    cell.store(tie, Relaxed);
                    true
                };
                if took {
                    next.push(u);
                }
            }
        }
        0
    });
    let (outcome, remoteness) = finish(cells);
    phases.ties = clock.elapsed();
    let solution = Solution {
        outcome,
        remoteness,
        best: Vec::new(),
    };
    (solution, phases)
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

/// Runs levels until a frontier is empty: `step(part, r, shared, next)` processes `part` of
/// the frontier of level `r - 1`, appends the vertices it decides (with remoteness `r`) to
/// `next`, and returns a count of work done; the counts are summed.
///
/// Relaxed atomics suffice: within a level every cell is only touched by read-modify-writes
/// of that one cell, and rayon's join at the end of a level orders it before the next.
fn levels<F>(mut frontier: Vec<u32>, chunk: usize, threads: usize, step: F) -> u64
where
    F: Fn(&[u32], u32, bool, &mut Vec<u32>) -> u64 + Sync,
{
    let mut next = Vec::new();
    let mut work = 0;
    let mut r = 0u32;
    while !frontier.is_empty() {
        // Every level decides at least one new vertex, so r < n <= LOW.
        r += 1;
        next.clear();
        if threads <= 1 || frontier.len() <= chunk {
            work += step(&frontier, r, false, &mut next);
        } else {
            let parts: Vec<(Vec<u32>, u64)> = frontier
                .par_chunks(chunk)
                .map(|part| {
                    let mut out = Vec::new();
                    let w = step(part, r, true, &mut out);
                    (out, w)
                })
                .collect();
            next.reserve(parts.iter().map(|p| p.0.len()).sum());
            for (out, w) in parts {
                next.extend_from_slice(&out);
                work += w;
            }
        }
        std::mem::swap(&mut frontier, &mut next);
    }
    work
}

/// Step 1: the cells (terminals decided, others open with their out-degree), the win and loss
/// terminals (frontier 0) and the tie terminals, both in id order. One parallel pass.
fn seed(g: &Graph, rules: &Rules) -> (Vec<AtomicU32>, Vec<u32>, Vec<u32>) {
    const PART: usize = 1 << 16;
    // Zeroed memory straight from the allocator (huge pages advised, not yet touched), seen as
    // atomics in place: the pass below is the first to write it, on every thread.
    let mut cells: Vec<AtomicU32> = retrograde_graph::huge::zeroed::<u32>(g.vertex_count())
        .into_iter()
        .map(AtomicU32::new)
        .collect();
    let parts: Vec<(Vec<u32>, Vec<u32>)> = cells
        .par_chunks_mut(PART)
        .enumerate()
        .map(|(i, part)| {
            let base = i * PART;
            let (mut wl, mut ties) = (Vec::new(), Vec::new());
            for (j, cell) in part.iter_mut().enumerate() {
                let v = (base + j) as u32;
                *cell.get_mut() = match terminal_value(g, rules, v) {
                    Some(val) => {
                        let state = val.outcome() as u8;
                        if state == TIE {
                            ties.push(v);
                        } else {
                            wl.push(v);
                        }
                        packed_decided(state, 0)
                    }
                    // `fits_packed`: out-degrees are below 2^30.
                    None => g.out_degree(v) as u32,
                };
            }
            (wl, ties)
        })
        .collect();
    let (mut wl, mut ties) = (Vec::new(), Vec::new());
    for (a, b) in parts {
        wl.extend_from_slice(&a);
        ties.extend_from_slice(&b);
    }
    (cells, wl, ties)
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
    use crate::retro::{best_moves, solve_layout};
    use crate::{solve_with_options, SolveOptions};
    use proptest::prelude::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use retrograde_graph::{GraphBuilder, Primitive};
    use std::sync::OnceLock;

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
        want.best = best_moves(g, rules, &want);
        for pool in pools() {
            let (got, phases) = pool.install(|| {
                let (mut s, p) = solve_chunked(g, rules, chunk);
                s.best = best_moves(g, rules, &s);
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
}
