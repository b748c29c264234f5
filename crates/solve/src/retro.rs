//! Layered retrograde analysis, O(n + m).
//!
//! # Algorithm
//! 1. Terminals are decided first: a vertex with a primitive label takes it; a vertex with no
//!    move takes the no-move rule's value. All have remoteness 0.
//! 2. Wins and losses spread backwards through the reverse edges in a FIFO queue. Every vertex
//!    decided while processing a vertex of remoteness `r` gets `r + 1`, so the queue holds
//!    vertices in non-decreasing remoteness: the first winning child found is the fastest win,
//!    and the move that completes a loss (its counter of undecided moves reaches 0) is the
//!    slowest. This is what makes the remoteness exact; a LIFO/DFS order (the seeds') gives
//!    right labels but wrong remoteness.
//! 3. Ties spread the same way through vertices that are still undecided (neither player can
//!    win there, so both prefer a level end to an endless game).
//! 4. What is left is a draw.
//! 5. Best moves are chosen in a separate pass, in parallel: for each vertex the smallest
//!    successor id whose value realizes the vertex's value. The choice depends only on the
//!    values, never on the order of the queue or the number of threads.
//!
//! # Memory
//! Beside the graph: 1 byte (state) + 4 bytes (counter of undecided moves, reused for the
//! remoteness once decided) + 4 bytes (queue) per vertex while solving; the queue is freed
//! before the 4-byte best-move array is made.

use crate::solution::{Solution, NONE};
use crate::value::{Outcome, Value};
use crate::Rules;
use rayon::prelude::*;
use retrograde_graph::{Graph, Primitive, TurnRule};

const WIN: u8 = Outcome::Win as u8;
const LOSS: u8 = Outcome::Loss as u8;
const TIE: u8 = Outcome::Tie as u8;
/// Undecided while solving; whatever is still undecided at the end is a draw.
const OPEN: u8 = Outcome::Draw as u8;

/// The value the rules fix at `v` (a primitive label, or the no-move rule at a dead end), if
/// any. Such a vertex is terminal: it has no best move.
pub fn terminal_value(g: &Graph, rules: &Rules, v: u32) -> Option<Value> {
    let p = g
        .primitive(v)
        .or_else(|| (g.out_degree(v) == 0).then_some(rules.no_move))?;
    Some(match p {
        Primitive::Win => Value::Win(0),
        Primitive::Loss => Value::Loss(0),
        Primitive::Tie => Value::Tie(0),
    })
}

/// Solves every vertex of `g` under `rules`.
///
/// # Complexity
/// O(n + m) time; memory as described in the module docs.
///
/// # Example
/// ```
/// use retrograde_graph::GraphBuilder;
/// use retrograde_solve::{solve, Rules, Value};
/// // Pebbles 0..=10, take 1 or 2: v is lost exactly when v % 3 == 0.
/// let mut b = GraphBuilder::new();
/// for v in 1..=10u32 {
///     b.add_edge(v, v - 1);
///     if v >= 2 { b.add_edge(v, v - 2); }
/// }
/// let g = b.build().unwrap();
/// let s = solve(&g, &Rules::default());
/// assert_eq!(s.value(10), Value::Win(7));
/// assert_eq!(s.value(9), Value::Loss(6));
/// assert_eq!(s.best_move(10), Some(9));
/// ```
pub fn solve(g: &Graph, rules: &Rules) -> Solution {
    solve_with_phases(g, rules).0
}

/// Time spent in each phase of [`solve`], and the work done.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Phases {
    /// Seeding the terminals and spreading wins and losses.
    pub propagate: std::time::Duration,
    /// Spreading ties.
    pub ties: std::time::Duration,
    /// Choosing best moves.
    pub best_moves: std::time::Duration,
    /// Reverse edges looked at while spreading wins and losses.
    pub edges_scanned: u64,
}

/// [`solve`], also reporting how long each phase took.
pub fn solve_with_phases(g: &Graph, rules: &Rules) -> (Solution, Phases) {
    match g.turn_rule() {
        TurnRule::Alternate => solve_with(g, rules, |_, _, _| false),
        TurnRule::GoAgain { reverse, .. } => solve_with(g, rules, |e, _, _| reverse.get(e)),
        TurnRule::Arena { owner } => solve_with(g, rules, |_, u, v| {
            owner.get(u as usize) == owner.get(v as usize)
        }),
    }
}

/// The solver, specialised by the turn rule: `keeps(e, u, v)` tells whether reverse edge `e`
/// (the move `u -> v`) leaves the same player to move.
fn solve_with(
    g: &Graph,
    rules: &Rules,
    keeps: impl Fn(usize, u32, u32) -> bool,
) -> (Solution, Phases) {
    let mut phases = Phases::default();
    let clock = std::time::Instant::now();
    let n = g.vertex_count();
    let mut state = vec![OPEN; n];
    retrograde_graph::huge::advise(&state);
    // Counter of moves not yet known to lose for the mover; remoteness once decided.
    let mut count: Vec<u32> = retrograde_graph::huge::zeroed(n);
    let mut queue: Vec<u32> = Vec::with_capacity(n);

    for v in 0..n as u32 {
        match terminal_value(g, rules, v) {
            Some(val) => {
                state[v as usize] = val.outcome() as u8;
                if val.outcome() != Outcome::Tie {
                    queue.push(v);
                }
            }
            None => {
                // The builder guarantees out-degree < u32::MAX.
                count[v as usize] = g.out_degree(v) as u32;
            }
        }
    }

    // Wins and losses, in order of remoteness. The queue is known ahead, so memory is fetched
    // ahead in three stages: offsets, then predecessor lists, then the predecessors' state.
    let rev = g.reverse_sources();
    let rev_off = g.reverse_offsets();
    let mut head = 0;
    while head < queue.len() {
        if let Some(&w) = queue.get(head + 32) {
            prefetch(rev_off, w as usize);
        }
        if let Some(&w) = queue.get(head + 16) {
            prefetch(rev, rev_off[w as usize] as usize);
            prefetch(&count, w as usize);
        }
        if let Some(&w) = queue.get(head + 8) {
            for &u in g.predecessors(w) {
                prefetch(&state, u as usize);
                prefetch(&count, u as usize);
            }
        }
        let v = queue[head];
        head += 1;
        let child_lost = state[v as usize] == LOSS;
        let r = count[v as usize] + 1;
        let range = g.predecessor_range(v);
        phases.edges_scanned += range.len() as u64;
        for e in range {
            let u = rev[e];
            let ui = u as usize;
            if state[ui] != OPEN {
                continue;
            }
            if child_lost != keeps(e, u, v) {
                state[ui] = WIN;
                count[ui] = r;
                queue.push(u);
            } else {
                count[ui] -= 1;
                if count[ui] == 0 {
                    state[ui] = LOSS;
                    count[ui] = r;
                    queue.push(u);
                }
            }
        }
    }

    phases.propagate = clock.elapsed();
    let clock = std::time::Instant::now();

    // Ties, in order of remoteness, through vertices still open.
    let tie_start = queue.len();
    for v in 0..n as u32 {
        if state[v as usize] == TIE {
            count[v as usize] = 0;
            queue.push(v);
        }
    }
    let mut head = tie_start;
    while head < queue.len() {
        let v = queue[head];
        head += 1;
        let r = count[v as usize] + 1;
        for &u in g.predecessors(v) {
            let ui = u as usize;
            if state[ui] == OPEN {
                state[ui] = TIE;
                count[ui] = r;
                queue.push(u);
            }
        }
    }
    drop(queue);

    // Draws: no remoteness.
    for (s, c) in state.iter().zip(count.iter_mut()) {
        if *s == OPEN {
            *c = NONE;
        }
    }

    phases.ties = clock.elapsed();
    let clock = std::time::Instant::now();
    let mut solution = Solution {
        outcome: state,
        remoteness: count,
        best: Vec::new(),
    };
    solution.best = best_moves(g, rules, &solution);
    phases.best_moves = clock.elapsed();
    (solution, phases)
}

/// A hint to bring `data[i]` into cache; no effect on results (and none off x86-64).
#[inline(always)]
fn prefetch<T>(data: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        if i < data.len() {
            // SAFETY: a prefetch is a hint that never dereferences or faults, and SSE is part
            // of every x86-64 target; the address is in bounds anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(data.as_ptr().wrapping_add(i).cast::<i8>()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, i);
}

/// For every non-terminal vertex, the smallest successor whose value, seen through the move,
/// equals the vertex's value (the first such, as successors are sorted). Runs in parallel; the result does not depend on the threads.
pub(crate) fn best_moves(g: &Graph, rules: &Rules, s: &Solution) -> Vec<u32> {
    let mut best = vec![NONE; g.vertex_count()];
    retrograde_graph::huge::advise(&best);
    let targets = g.forward_targets();
    let offsets = g.forward_offsets();
    best.par_chunks_mut(4096)
        .enumerate()
        .for_each(|(chunk, out)| {
            let base = chunk * 4096;
            for (i, slot) in out.iter_mut().enumerate() {
                let u = (base + i) as u32;
                // Targets are read in order: fetch the values of those a few vertices ahead.
                if let Some(&e) = offsets.get(base + i + 16) {
                    if let Some(&v) = targets.get(e as usize) {
                        prefetch(&s.outcome, v as usize);
                        prefetch(&s.remoteness, v as usize);
                    }
                }
                if terminal_value(g, rules, u).is_some() {
                    continue;
                }
                let want = s.value(u);
                // Successors are sorted by id: the first that realizes the value is the smallest.
                for e in g.successor_range(u) {
                    let v = targets[e];
                    if s.value(v).through(g.forward_keeps_turn(e, u, v)) == want {
                        *slot = v;
                        break;
                    }
                }
                debug_assert!(*slot != NONE, "vertex {u} has no move realizing {want}");
            }
        });
    best
}
