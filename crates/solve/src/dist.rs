//! The level-synchronous engine (`par.rs`, whose notes explain why levels make the answer
//! independent of who decides what) across the ranks of an [`Exchange`], on a graph divided
//! among them ([`DistGraph`]: rank `r` holds only the moves from and to its vertices).
//!
//! # Algorithm
//! Each rank owns the vertices of one id range and their cells, in the packed layout (4
//! bytes a vertex). Per level, a rank processes the frontier vertices it owns: every reverse
//! edge into one gives its source an update (win, or count-down). An update of a vertex the
//! rank owns is applied at once; one of a vertex another rank owns goes into that rank's
//! buffer (4 bytes: the vertex's place in its owner's range and a bit), and one exchange per
//! level delivers the buffers and tells every rank whether any has work left. Ties likewise.
//! Each edge's update is made once (by the owner of the child) and applied once (by the
//! owner of the source), and all of a level's updates are applied before the next level
//! starts, so each level's set of decided vertices, and their values, are one process's.
//!
//! Whether a move keeps the turn is split between the two ends, so that neither needs the
//! other's data: the child's owner sends `lost XOR again XOR (arena AND NOT owner(child))`,
//! the source's owner XORs in `arena AND owner(source)`; the result is `lost XOR keeps`, the
//! update's "wins" bit (in an arena, keeps = owners equal).
//!
//! Best moves: every rank asks the owners of its vertices' successors for their values, in
//! one batched exchange (4 bytes a distinct remote successor, answered with 5: the outcome,
//! with the owner bit in an arena, and the remoteness), then picks for each of its
//! vertices the smallest successor whose value, seen through the move, is the vertex's:
//! the one-process choice.
//!
//! Within a rank the work is sequential (one thread).
//!
//! # Memory
//! Beside the rank's share of the graph: 4 bytes of cells per owned vertex, the frontiers,
//! and one level's update buffers; for best moves, 9 bytes per distinct remote successor and
//! 4 per owned vertex; the local solution holds 9 bytes per owned vertex.

use crate::dgraph::DistGraph;
use crate::exchange::Exchange;
use crate::retro::{packed_decided, packed_is_open, packed_state, LOSS, LOW, OPEN, TIE, WIN};
use crate::solution::{Counts, Solution, NONE};
use crate::value::{Outcome, Value};
use crate::verify::Violation;
use crate::Rules;
use retrograde_graph::{Graph, Primitive};

/// One rank's part of a solution: the values (and best moves) of the vertices it owns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistSolution {
    lo: u32,
    part: Solution,
}

impl DistSolution {
    /// The vertices covered.
    pub fn range(&self) -> std::ops::Range<u32> {
        self.lo..self.lo + self.part.len() as u32
    }

    /// The value of an owned vertex.
    pub fn value(&self, v: u32) -> Value {
        self.part.value(v - self.lo)
    }

    /// The best move from an owned vertex (`None` at a terminal, or without best moves).
    pub fn best_move(&self, v: u32) -> Option<u32> {
        self.part.best_move(v - self.lo)
    }

    /// The totals over every rank's vertices (a collective; every rank gets them).
    pub fn counts(&self, ex: &dyn Exchange) -> Counts {
        let c = self.part.counts();
        let mut sums = [c.win, c.loss, c.tie, c.draw];
        ex.sum(&mut sums);
        let some = |x: Option<u32>| x.map_or(0, |r| r as u64 + 1);
        let mut maxes = [
            some(c.max_remoteness),
            some(c.longest_win),
            some(c.longest_loss),
        ];
        ex.max(&mut maxes);
        let back = |x: u64| x.checked_sub(1).map(|r| r as u32);
        Counts {
            win: sums[0],
            loss: sums[1],
            tie: sums[2],
            draw: sums[3],
            max_remoteness: back(maxes[0]),
            longest_win: back(maxes[1]),
            longest_loss: back(maxes[2]),
        }
    }

    /// Every rank's part, joined at rank 0 (a collective; `None` elsewhere). For tests and
    /// small graphs: rank 0 then holds 9 bytes per vertex of the whole graph.
    pub fn gather(&self, ex: &dyn Exchange) -> Option<Solution> {
        let mut mine = Vec::with_capacity(self.part.len() * 9);
        let best = self.part.has_best_moves();
        for i in 0..self.part.len() {
            mine.push(self.part.outcome[i]);
            mine.extend_from_slice(&self.part.remoteness[i].to_le_bytes());
            if best {
                mine.extend_from_slice(&self.part.best[i].to_le_bytes());
            }
        }
        let all = ex.gather(&mine)?;
        let mut s = Solution {
            outcome: Vec::new(),
            remoteness: Vec::new(),
            best: Vec::new(),
        };
        for b in all {
            for c in b.chunks_exact(if best { 9 } else { 5 }) {
                s.outcome.push(c[0]);
                s.remoteness
                    .push(u32::from_le_bytes([c[1], c[2], c[3], c[4]]));
                if best {
                    s.best.push(u32::from_le_bytes([c[5], c[6], c[7], c[8]]));
                }
            }
        }
        Some(s)
    }
}

/// The value the rules fix at an owned vertex `v`, as [`crate::terminal_value`].
fn terminal(g: &DistGraph, rules: &Rules, v: u32) -> Option<Value> {
    let p = g
        .primitive(v)
        .or_else(|| (g.out_degree(v) == 0).then_some(rules.no_move))?;
    Some(match p {
        Primitive::Win => Value::Win(0),
        Primitive::Loss => Value::Loss(0),
        Primitive::Tie => Value::Tie(0),
    })
}

/// Solves the graph `g` is a share of, across the ranks of `ex` (every rank calls this with
/// its share and the same rules); each rank gets the values (and, with `best_moves`, the
/// best moves) of its own vertices, equal bit for bit to [`crate::solve`]'s.
///
/// # Errors
/// A graph the packed layout does not hold (a vertex with 2^30 moves or more, or 2^30
/// vertices or more); the same on every rank.
pub fn solve_distributed(
    g: &DistGraph,
    rules: &Rules,
    best_moves: bool,
    ex: &dyn Exchange,
) -> Result<DistSolution, String> {
    if !ex.all(g.max_out_degree() <= LOW as u64 && g.vertex_count() <= LOW as usize) {
        return Err(
            "the graph has a vertex with 2^30 moves or more, or 2^30 vertices or more: it is not solved across ranks".into(),
        );
    }
    let k = ex.size();
    let ranges = g.ranges();
    let lo = g.range().start;
    let count = g.range().len();
    let arena = g.is_arena();
    // Seed.
    let mut cells = vec![0u32; count];
    let (mut frontier, mut ties) = (Vec::new(), Vec::new());
    for v in g.range() {
        cells[(v - lo) as usize] = match terminal(g, rules, v) {
            Some(val) => {
                let state = val.outcome() as u8;
                if state == TIE {
                    ties.push(v);
                } else {
                    frontier.push(v);
                }
                packed_decided(state, 0)
            }
            None => g.out_degree(v) as u32,
        };
    }

    // Wins and losses, then ties.
    for phase in 0..2 {
        let mut frontier = std::mem::take(if phase == 0 { &mut frontier } else { &mut ties });
        let mut r = 0u32;
        let mut go = ex.any(!frontier.is_empty());
        while go {
            r += 1;
            let mut next = Vec::new();
            let mut away: Vec<Vec<u8>> = vec![Vec::new(); k];
            // `bit` is the sender's half of the wins bit (module docs).
            let apply = |cells: &mut [u32], u: u32, bit: bool, next: &mut Vec<u32>| {
                let wins = bit != (arena && g.owner(u) == 1);
                let cell = &mut cells[(u - lo) as usize];
                if !packed_is_open(*cell) {
                    return;
                }
                if phase == 1 {
                    *cell = packed_decided(TIE, r);
                    next.push(u);
                } else if wins {
                    *cell = packed_decided(WIN, r);
                    next.push(u);
                } else if *cell == 1 {
                    *cell = packed_decided(LOSS, r);
                    next.push(u);
                } else {
                    *cell -= 1;
                }
            };
            for &v in &frontier {
                let lost = packed_state(cells[(v - lo) as usize]) == LOSS;
                let half = lost != (arena && g.owner(v) == 0);
                for (e, u) in g.predecessors(v) {
                    let bit = half != g.reverse_again(e);
                    let o = ranges.owner(u);
                    if o == g.rank() {
                        apply(&mut cells, u, bit, &mut next);
                    } else {
                        let x = (u - ranges.start(o)) | u32::from(bit) << 31;
                        away[o].extend_from_slice(&x.to_le_bytes());
                    }
                }
            }
            let more = !next.is_empty() || away.iter().any(|a| !a.is_empty());
            let (got, flag) = ex.all_to_all_max(away, u64::from(more));
            for b in got {
                for c in b.chunks_exact(4) {
                    let x = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                    let p = (x & !(1 << 31)) as usize;
                    if p >= count {
                        return Err(format!(
                            "an update for vertex place {p}, outside this rank's range"
                        ));
                    }
                    apply(&mut cells, lo + p as u32, x >> 31 == 1, &mut next);
                }
            }
            frontier = next;
            go = flag == 1;
        }
    }

    let mut part = Solution {
        outcome: Vec::with_capacity(count),
        remoteness: Vec::with_capacity(count),
        best: Vec::new(),
    };
    for c in cells {
        let s = packed_state(c);
        part.outcome.push(s);
        part.remoteness.push(if s == OPEN { NONE } else { c & LOW });
    }
    let mut out = DistSolution { lo, part };
    if best_moves {
        out.part.best = best(g, rules, &out, ex);
    }
    Ok(out)
}

/// Remote successors a rank asks about per step of the best-move pass, at most (about).
const BATCH: usize = if cfg!(test) { 7 } else { 1 << 21 };

/// The best moves of the owned vertices (module docs): for each, the smallest successor
/// whose value, seen through the move, is the vertex's.
fn best(g: &DistGraph, rules: &Rules, s: &DistSolution, ex: &dyn Exchange) -> Vec<u32> {
    let mut out = Vec::with_capacity(g.range().len());
    let arena = g.is_arena();
    with_successors(g, rules, s, ex, |u, fixed, look| {
        if fixed.is_some() {
            out.push(NONE);
            return;
        }
        let want = s.value(u);
        let mut best = NONE;
        for (e, v) in g.successors(u) {
            if v >= best {
                continue;
            }
            let (value, owner) = look(v);
            let keeps = if arena {
                owner == g.owner(u)
            } else {
                g.forward_again(e)
            };
            if value.through(keeps) == want {
                best = v;
            }
        }
        out.push(best);
    });
    out
}

/// Visits every owned vertex `u`, in order, as `visit(u, the value the rules fix there,
/// look)`, where `look(v)` is the value and owner (0 or 1) of a successor `v` of a `u` that
/// is not a terminal. The vertices go in steps of consecutive ones whose remote successors
/// number at most about [`BATCH`] (which bounds the memory of the requests and answers): per
/// step, every rank asks the owners for the values of its step's distinct remote successors
/// in one exchange (4 bytes each) and gets them in a second (5 bytes each). Every rank takes
/// part in every step (a collective).
fn with_successors(
    g: &DistGraph,
    rules: &Rules,
    s: &DistSolution,
    ex: &dyn Exchange,
    mut visit: impl FnMut(u32, Option<Value>, &dyn Fn(u32) -> (Value, u8)),
) {
    let (k, me) = (ex.size(), g.rank());
    let ranges = g.ranges();
    let (lo, end) = (g.range().start, g.range().end);
    let mut next = lo;
    loop {
        // The distinct remote successors of a step's vertices, by owner, as places in the
        // owner's range, sorted.
        let from = next;
        let mut asks: Vec<Vec<u32>> = vec![Vec::new(); k];
        let mut asked = 0;
        while next < end && asked < BATCH {
            let u = next;
            next += 1;
            if terminal(g, rules, u).is_some() {
                continue;
            }
            for (_, v) in g.successors(u) {
                let o = ranges.owner(v);
                if o != me {
                    asks[o].push(v - ranges.start(o));
                    asked += 1;
                }
            }
        }
        for a in &mut asks {
            a.sort_unstable();
            a.dedup();
        }
        let send = asks
            .iter()
            .map(|a| a.iter().flat_map(|x| x.to_le_bytes()).collect())
            .collect();
        let answers: Vec<Vec<u8>> = ex
            .all_to_all(send)
            .into_iter()
            .map(|b| {
                b.chunks_exact(4)
                    .flat_map(|c| {
                        let v = lo + u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                        let mut a = [0u8; 5];
                        if g.range().contains(&v) {
                            let x = s.value(v);
                            a[0] = x.outcome() as u8 | g.owner(v) << 7;
                            a[1..].copy_from_slice(&x.remoteness().unwrap_or(NONE).to_le_bytes());
                        }
                        a
                    })
                    .collect()
            })
            .collect();
        let got = ex.all_to_all(answers);
        let look = |v: u32| -> (Value, u8) {
            let o = ranges.owner(v);
            if o == me {
                return (s.value(v), g.owner(v));
            }
            let p = v - ranges.start(o);
            let a = asks[o]
                .binary_search(&p)
                .ok()
                .and_then(|i| got[o].get(5 * i..5 * i + 5))
                .unwrap_or(&[3, 0, 0, 0, 0]);
            let value = Value::new(
                Outcome::from_code(a[0] & 3),
                u32::from_le_bytes([a[1], a[2], a[3], a[4]]),
            );
            (value, a[0] >> 7)
        };
        for u in from..next {
            visit(u, terminal(g, rules, u), &look);
        }
        if !ex.any(next < end) {
            return;
        }
    }
}

/// [`crate::verify`] across ranks: every rank checks its own vertices by the same rule, with
/// the values of their remote successors fetched from their owners in batched exchanges
/// (as for best moves), and every rank gets the same answer: the first violation by vertex
/// id over all ranks (a collective).
///
/// # Errors
/// The first [`Violation`], by vertex id.
pub fn verify_distributed(
    g: &DistGraph,
    rules: &Rules,
    s: &DistSolution,
    ex: &dyn Exchange,
) -> Result<(), Violation> {
    let none = !g.range().is_empty() && !s.part.has_best_moves();
    if ex.any(none) {
        return Err(Violation {
            vertex: 0,
            message: "the solution has no best moves to check".into(),
        });
    }
    let arena = g.is_arena();
    let mut first: Option<Violation> = None;
    let mut moves = Vec::new();
    with_successors(g, rules, s, ex, |u, fixed, look| {
        if first.is_some() {
            return;
        }
        moves.clear();
        if fixed.is_none() {
            moves.extend(g.successors(u).map(|(e, v)| {
                let (value, owner) = look(v);
                let keeps = if arena {
                    owner == g.owner(u)
                } else {
                    g.forward_again(e)
                };
                (v, value.through(keeps))
            }));
        }
        if let Err(message) =
            crate::verify::check(s.value(u), fixed, s.best_move(u), moves.iter().copied())
        {
            first = Some(Violation { vertex: u, message });
        }
    });
    // Ranks hold ascending ranges: the first rank with a violation has the first one.
    let mine = first.map_or_else(Vec::new, |v| {
        let mut b = v.vertex.to_le_bytes().to_vec();
        b.extend_from_slice(v.message.as_bytes());
        b
    });
    let mut chosen = ex
        .gather(&mine)
        .and_then(|all| all.into_iter().find(|b| !b.is_empty()))
        .unwrap_or_default();
    ex.broadcast(&mut chosen);
    match chosen.get(..4) {
        None => Ok(()),
        Some(v) => Err(Violation {
            vertex: u32::from_le_bytes(v.try_into().expect("4 bytes")),
            message: String::from_utf8_lossy(&chosen[4..]).into_owned(),
        }),
    }
}

/// [`solve_distributed`] on a whole graph every rank holds, joined at rank 0 (`None`
/// elsewhere): the one-process [`Solution`], for tests.
///
/// # Errors
/// As [`solve_distributed`].
pub fn solve_whole_distributed(
    g: &Graph,
    rules: &Rules,
    ex: &dyn Exchange,
) -> Result<Option<Solution>, String> {
    let share = DistGraph::from_graph(g, ex)?;
    Ok(solve_distributed(&share, rules, true, ex)?.gather(ex))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::run_local;
    use proptest::prelude::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use retrograde_graph::{GraphBuilder, Primitive};

    /// A random graph with cycles, primitives and (sometimes) go-again edges or an arena.
    fn random(seed: u64) -> Graph {
        let mut rng = SmallRng::seed_from_u64(seed);
        let n = rng.gen_range(1..60u32);
        let mut b = GraphBuilder::new();
        let kind = rng.gen_range(0..3);
        for v in 0..n {
            for _ in 0..rng.gen_range(0..4) {
                let w = rng.gen_range(0..n);
                if kind == 1 && rng.gen_bool(0.3) {
                    b.add_edge_again(v, w);
                } else {
                    b.add_edge(v, w);
                }
            }
            if rng.gen_bool(0.1) || v + 1 == n {
                let p = [Primitive::Win, Primitive::Loss, Primitive::Tie][rng.gen_range(0..3)];
                b.set_primitive(v, p);
            }
            if kind == 2 {
                b.set_owner(v, rng.gen_range(0..2)).unwrap();
            }
        }
        b.build().unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn one_to_four_ranks_give_the_one_process_solution(seed: u64) {
            let g = random(seed);
            for no_move in [Primitive::Loss, Primitive::Win, Primitive::Tie] {
                let rules = Rules { no_move };
                let want = crate::solve(&g, &rules);
                for k in 1..=4 {
                    let got = run_local(k, |ex| solve_whole_distributed(&g, &rules, ex).unwrap());
                    let s = got.into_iter().next().unwrap().unwrap();
                    prop_assert_eq!(&s.outcome, &want.outcome, "{} ranks", k);
                    prop_assert_eq!(&s.remoteness, &want.remoteness, "{} ranks", k);
                    prop_assert_eq!(&s.best, &want.best, "{} ranks", k);
                }
            }
        }

        /// The distributed check accepts the solution, and finds in a damaged one exactly the
        /// violation the one-process check finds (vertex and message), for 1 to 4 ranks.
        #[test]
        fn the_distributed_check_is_the_one_process_check(seed: u64, damage: u64) {
            let g = random(seed);
            let rules = Rules { no_move: Primitive::Loss };
            let whole = crate::solve(&g, &rules);
            let mut bad = whole.clone();
            let n = g.vertex_count();
            let x = (damage % n as u64) as usize;
            match damage / n as u64 % 3 {
                0 => bad.remoteness[x] = bad.remoteness[x].wrapping_add(1),
                1 => bad.outcome[x] = (bad.outcome[x] + 1) % 4,
                _ => bad.best[x] = if bad.best[x] == NONE { 0 } else { NONE },
            }
            for (s, what) in [(&whole, "the solution"), (&bad, "the damaged one")] {
                let want = crate::verify(&g, &rules, s);
                if std::ptr::eq(s, &whole) {
                    prop_assert_eq!(&want, &Ok(()));
                } else if damage / n as u64 % 3 == 1 {
                    // Another value at `x`: its own moves give the old one.
                    prop_assert!(want.is_err());
                }
                for k in 1..=4 {
                    let got = run_local(k, |ex| {
                        let share = DistGraph::from_graph(&g, ex).unwrap();
                        let r = share.range();
                        let (a, b) = (r.start as usize, r.end as usize);
                        let part = DistSolution {
                            lo: r.start,
                            part: Solution {
                                outcome: s.outcome[a..b].to_vec(),
                                remoteness: s.remoteness[a..b].to_vec(),
                                best: s.best[a..b].to_vec(),
                            },
                        };
                        verify_distributed(&share, &rules, &part, ex)
                    });
                    for (r, v) in got.iter().enumerate() {
                        prop_assert_eq!(v, &want, "{}, {} ranks, rank {}", what, k, r);
                    }
                }
            }
        }
    }
}
