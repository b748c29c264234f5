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
//!
//! A scored graph (a graph with `score` terminals) runs step 2 once per score level, from the
//! largest `|score|` down, seeded with the terminals of that `|score|`, the counters kept
//! from level to level; the vertices a level decides get `+|score|` if won, `-|score|` if
//! lost. Why this gives the contract's values is in `scored.rs`. With scores +1, -1 and 0
//! only it is the unscored run, step for step.
//! 5. Best moves are chosen in a separate pass, in parallel (`moves.rs`): for each vertex the
//!    smallest successor id whose value realizes the vertex's value. The choice depends only
//!    on the values, never on the order of the queue or the number of threads.
//!
//! This file is the sequential solver, the readable reference. `levels.rs` computes the same
//! values level by level on many threads, in one process or across ranks; the driver
//! (`driver.rs`: `solve_with_options`, and `solve_share` for ranks) picks one of the two and
//! both share the best-move pass.
//!
//! # Memory
//! Beside the graph, while solving: 4 bytes per vertex of cells (the counter of moves not yet
//! known to lose while open; outcome and remoteness, packed in the same `u32`, once decided)
//! and 4 bytes of queue. Packing needs counters and remoteness below 2^30 (graphs of up to
//! 2^30 vertices); bigger graphs use a state byte beside a full `u32`. Afterwards the cells
//! become the 1-byte outcome and 4-byte remoteness arrays, the queue is freed, and the 4-byte
//! best-move array is made. A scored graph adds the 8-byte score array (written as each
//! vertex is decided; on huge pages) and, briefly, its seeds grouped by score level.

use crate::cell::{packed_decided, packed_is_open, packed_state, LOSS, LOW, OPEN, TIE, WIN};
use crate::hint::prefetch;
use crate::scored::{signed, ScoreLevels};
use crate::share::terminal;
use crate::solution::{Solution, NONE};
use crate::value::Outcome;
use crate::{Engine, Phases, Rules};
use retrograde_graph::{Graph, TurnRule};

/// The values (no best moves) from the sequential engine, with the cell layout chosen by the
/// caller (tests compare both).
pub(crate) fn solve_layout(g: &Graph, rules: &Rules, packed: bool) -> (Solution, Phases) {
    match g.turn_rule() {
        TurnRule::Alternate => solve_with(g, rules, |_, _, _| false, packed),
        TurnRule::GoAgain { reverse, .. } => solve_with(g, rules, |e, _, _| reverse.get(e), packed),
        TurnRule::Arena { owner } => solve_with(
            g,
            rules,
            |_, u, v| owner.get(u as usize) == owner.get(v as usize),
            packed,
        ),
    }
}

/// Per-vertex solver state: open (with its counter of moves not yet known to lose) or
/// decided (outcome and remoteness). Two layouts behind one interface, so the propagation is
/// written once.
trait Cells {
    fn is_open(&self, v: usize) -> bool;
    /// The outcome code of a decided vertex (`OPEN` for an open one).
    fn state(&self, v: usize) -> u8;
    /// The remoteness of a decided vertex.
    fn level(&self, v: usize) -> u32;
    fn decide(&mut self, v: usize, state: u8, remoteness: u32);
    fn set_counter(&mut self, v: usize, count: u32);
    /// One more move of open `v` is known to lose; true when none is left.
    fn count_down(&mut self, v: usize) -> bool;
    fn prefetch(&self, v: usize);
    /// Outcome codes and remoteness (`NONE` for draws, which are the vertices still open).
    fn finish(self) -> (Vec<u8>, Vec<u32>);
}

/// One `u32` per vertex: the top two bits are 0 while open (the rest is the counter), else
/// 1 + the outcome code (the rest is the remoteness). One cache line holds everything the
/// propagation reads about a vertex. Valid when counters and remoteness stay below 2^30.
/// The level engine uses the same layout in atomic cells (`levels.rs`).
struct Packed(Vec<u32>);

impl Cells for Packed {
    #[inline(always)]
    fn is_open(&self, v: usize) -> bool {
        packed_is_open(self.0[v])
    }
    #[inline(always)]
    fn state(&self, v: usize) -> u8 {
        packed_state(self.0[v])
    }
    #[inline(always)]
    fn level(&self, v: usize) -> u32 {
        self.0[v] & LOW
    }
    #[inline(always)]
    fn decide(&mut self, v: usize, state: u8, remoteness: u32) {
        self.0[v] = packed_decided(state, remoteness);
    }
    #[inline(always)]
    fn set_counter(&mut self, v: usize, count: u32) {
        debug_assert!(count <= LOW);
        self.0[v] = count;
    }
    #[inline(always)]
    fn count_down(&mut self, v: usize) -> bool {
        self.0[v] -= 1;
        self.0[v] == 0
    }
    #[inline(always)]
    fn prefetch(&self, v: usize) {
        prefetch(&self.0, v);
    }
    fn finish(self) -> (Vec<u8>, Vec<u32>) {
        let state: Vec<u8> = (0..self.0.len()).map(|v| self.state(v)).collect();
        let mut rem = self.0;
        for (r, &s) in rem.iter_mut().zip(&state) {
            *r = if s == OPEN { NONE } else { *r & LOW };
        }
        (state, rem)
    }
}

/// The general layout: a state byte and a full `u32` counter/remoteness per vertex.
struct Split {
    state: Vec<u8>,
    count: Vec<u32>,
}

impl Cells for Split {
    #[inline(always)]
    fn is_open(&self, v: usize) -> bool {
        self.state[v] == OPEN
    }
    #[inline(always)]
    fn state(&self, v: usize) -> u8 {
        self.state[v]
    }
    #[inline(always)]
    fn level(&self, v: usize) -> u32 {
        self.count[v]
    }
    #[inline(always)]
    fn decide(&mut self, v: usize, state: u8, remoteness: u32) {
        self.state[v] = state;
        self.count[v] = remoteness;
    }
    #[inline(always)]
    fn set_counter(&mut self, v: usize, count: u32) {
        self.count[v] = count;
    }
    #[inline(always)]
    fn count_down(&mut self, v: usize) -> bool {
        self.count[v] -= 1;
        self.count[v] == 0
    }
    #[inline(always)]
    fn prefetch(&self, v: usize) {
        prefetch(&self.state, v);
        prefetch(&self.count, v);
    }
    fn finish(self) -> (Vec<u8>, Vec<u32>) {
        let Split { state, mut count } = self;
        for (c, &s) in count.iter_mut().zip(&state) {
            if s == OPEN {
                *c = NONE;
            }
        }
        (state, count)
    }
}

/// The solver, specialised by the turn rule: `keeps(e, u, v)` tells whether reverse edge `e`
/// (the move `u -> v`) leaves the same player to move.
fn solve_with(
    g: &Graph,
    rules: &Rules,
    keeps: impl Fn(usize, u32, u32) -> bool,
    packed: bool,
) -> (Solution, Phases) {
    let n = g.vertex_count();
    let mut phases = Phases {
        engine: Engine::Sequential,
        threads: 1,
        ..Phases::default()
    };
    let (state, remoteness, score) = if packed {
        let cells: Vec<u32> = retrograde_graph::huge::zeroed(n);
        propagate(g, rules, &keeps, Packed(cells), &mut phases)
    } else {
        let state = vec![OPEN; n];
        retrograde_graph::huge::advise(&state);
        let count: Vec<u32> = retrograde_graph::huge::zeroed(n);
        propagate(g, rules, &keeps, Split { state, count }, &mut phases)
    };
    let solution = Solution {
        outcome: state,
        remoteness,
        best: Vec::new(),
        score,
    };
    (solution, phases)
}

/// Terminals, then wins and losses (score level by score level in a scored graph), then
/// ties; see the module docs. Returns outcome codes, remoteness and, for a scored graph,
/// scores (else empty).
fn propagate<C: Cells>(
    g: &Graph,
    rules: &Rules,
    keeps: &impl Fn(usize, u32, u32) -> bool,
    mut cells: C,
    phases: &mut Phases,
) -> (Vec<u8>, Vec<u32>, Vec<i64>) {
    let clock = std::time::Instant::now();
    let n = g.vertex_count();
    let mut queue: Vec<u32> = Vec::with_capacity(n);
    // In a scored graph, the |score| of each terminal queued, in queue order.
    let (scored, mut abs) = (g.is_scored(), Vec::new());
    for v in 0..n as u32 {
        match terminal(g, rules, v) {
            Some(val) => {
                cells.decide(v as usize, val.outcome() as u8, 0);
                if val.outcome() != Outcome::Tie {
                    queue.push(v);
                    if scored {
                        abs.push(val.score.unsigned_abs());
                    }
                }
            }
            // The builder guarantees out-degree < u32::MAX (and `fits_packed` < 2^30).
            None => cells.set_counter(v as usize, g.out_degree(v) as u32),
        }
    }

    // Wins and losses: in a scored graph one score level at a time, from the highest |score|,
    // the queue seeded with that level's terminals (`scored.rs`); else one level.
    let mut score = Vec::new();
    if scored {
        score = retrograde_graph::huge::zeroed::<i64>(n);
        let levels = ScoreLevels::new(&queue, &abs);
        // The queue keeps its room; the seeds wait in their levels.
        queue.clear();
        drop(abs);
        for (k, seeds) in levels {
            let start = queue.len();
            queue.extend_from_slice(&seeds);
            spread(g, keeps, &mut cells, &mut queue, start, phases);
            for &v in &queue[start..] {
                score[v as usize] = signed(k, cells.state(v as usize));
            }
        }
    } else {
        spread(g, keeps, &mut cells, &mut queue, 0, phases);
    }
    phases.propagate = clock.elapsed();
    let clock = std::time::Instant::now();

    // Ties, in order of remoteness, through vertices still open.
    let tie_start = queue.len();
    for v in 0..n as u32 {
        if cells.state(v as usize) == TIE {
            queue.push(v);
        }
    }
    let mut head = tie_start;
    while head < queue.len() {
        let v = queue[head];
        head += 1;
        let r = cells.level(v as usize) + 1;
        for &u in g.predecessors(v) {
            if cells.is_open(u as usize) {
                cells.decide(u as usize, TIE, r);
                queue.push(u);
            }
        }
    }
    drop(queue);
    let (state, remoteness) = cells.finish();
    phases.ties = clock.elapsed();
    (state, remoteness, score)
}

/// Wins and losses spread from `queue[head..]` (decided vertices, in non-decreasing
/// remoteness) in FIFO order, the vertices they decide appended to `queue`: the one
/// propagation loop (`attract::spread`, which fetches memory ahead) with the solver's step.
fn spread<C: Cells>(
    g: &Graph,
    keeps: &impl Fn(usize, u32, u32) -> bool,
    cells: &mut C,
    queue: &mut Vec<u32>,
    head: usize,
    phases: &mut Phases,
) {
    let mut step = Decide { cells, keeps };
    phases.edges_scanned += crate::attract::spread(g, &mut step, queue, head);
}

/// The solver's step: the move `u -> v` wins for `u` when `v` is lost for the player to
/// move there (won, through a move that keeps the turn), and otherwise counts down the moves
/// of `u` not yet known to lose; at zero `u` is lost. A decided `v` of remoteness `r - 1`
/// decides `u` at `r`.
struct Decide<'a, C, K> {
    cells: &'a mut C,
    keeps: &'a K,
}

impl<C: Cells, K: Fn(usize, u32, u32) -> bool> crate::attract::Step for Decide<'_, C, K> {
    /// Whether `v` is lost for the player to move there, and the remoteness it gives.
    type Decided = (bool, u32);

    #[inline(always)]
    fn decided(&self, v: u32) -> (bool, u32) {
        (
            self.cells.state(v as usize) == LOSS,
            self.cells.level(v as usize) + 1,
        )
    }

    #[inline(always)]
    fn step(&mut self, e: usize, u: u32, v: u32, (child_lost, r): (bool, u32)) -> bool {
        let ui = u as usize;
        if !self.cells.is_open(ui) {
            return false;
        }
        if child_lost != (self.keeps)(e, u, v) {
            self.cells.decide(ui, WIN, r);
            true
        } else if self.cells.count_down(ui) {
            self.cells.decide(ui, LOSS, r);
            true
        } else {
            false
        }
    }

    #[inline(always)]
    fn prefetch(&self, v: u32) {
        self.cells.prefetch(v as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::Solo;
    use crate::share::Share;
    use proptest::prelude::*;
    use retrograde_graph::{GraphBuilder, Primitive};

    fn best_moves(g: &Graph, rules: &Rules, s: &Solution) -> Vec<u32> {
        crate::moves::best_moves(g, rules, s, &Solo).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        /// The packed cells (used whenever they fit) and the general split layout give the
        /// same solution.
        #[test]
        fn packed_and_split_layouts_agree(
            n in 1u32..40,
            edges in prop::collection::vec((0u32..40, 0u32..40, any::<bool>()), 0..120),
            ties in prop::collection::vec(0u32..40, 0..3),
            rule in 0usize..3,
        ) {
            let mut b = GraphBuilder::new();
            for (u, v, again) in edges {
                let (u, v) = (u % n, v % n);
                if again { b.add_edge_again(u, v) } else { b.add_edge(u, v) }
            }
            for t in ties {
                b.set_primitive(t % n, Primitive::Tie);
            }
            b.ensure_vertices(n as u64).unwrap();
            let g = b.build().unwrap();
            let rules = Rules { no_move: [Primitive::Loss, Primitive::Win, Primitive::Tie][rule] };
            prop_assert!(g.fits_packed());
            let (packed, split) = (solve_layout(&g, &rules, true).0, solve_layout(&g, &rules, false).0);
            prop_assert_eq!(&packed, &split);
            prop_assert_eq!(best_moves(&g, &rules, &packed), best_moves(&g, &rules, &split));
        }
    }

    #[test]
    fn packed_cells_round_trip() {
        let mut c = Packed(vec![0; 4]);
        c.set_counter(0, 2);
        assert!(c.is_open(0) && !c.count_down(0) && c.count_down(0));
        for (v, s) in [WIN, LOSS, TIE].into_iter().enumerate() {
            c.decide(v + 1, s, LOW);
            assert!(!c.is_open(v + 1));
            assert_eq!((c.state(v + 1), c.level(v + 1)), (s, LOW));
        }
        let (state, rem) = c.finish();
        assert_eq!(state, [OPEN, WIN, LOSS, TIE]);
        assert_eq!(rem, [NONE, LOW, LOW, LOW]);
    }
}
