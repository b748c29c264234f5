//! The level-synchronous engine (`par.rs`, whose notes explain why levels make the answer
//! independent of who decides what) across the ranks of an [`Exchange`].
//!
//! Every rank holds the whole graph (each parses the file: the memory of the graph is not
//! divided yet) and owns the vertices of one id range, `n * r / K .. n * (r + 1) / K`: their
//! cells, in the packed layout. Per level, a rank processes the frontier vertices it owns;
//! an update (win, or count-down) of a predecessor it owns is applied at once, one of a
//! predecessor another rank owns goes into that rank's buffer (4 bytes: the vertex's place
//! in its owner's range and a win bit), and one exchange per level delivers the buffers and
//! tells every rank whether any has work left. Ties likewise. Each edge's update is made once
//! (by the owner of the child) and applied once (by the owner of the predecessor), and all of
//! a level's updates are applied before the next level starts, so each level's set of decided
//! vertices, and their values, are one process's. Rank 0 gathers the outcomes and remoteness
//! and computes the best moves with the one-process pass.
//!
//! Within a rank the work is sequential (one thread).

use crate::exchange::Exchange;
use crate::retro::{
    best_moves, fits_packed, packed_decided, packed_is_open, packed_state, terminal_value, LOSS,
    LOW, OPEN, TIE, WIN,
};
use crate::solution::{Solution, NONE};
use crate::Rules;
use retrograde_graph::{Graph, TurnRule};

/// The first vertex of rank `r`'s range.
fn start(n: usize, k: usize, r: usize) -> usize {
    (n as u128 * r as u128 / k as u128) as usize
}

/// Solves `g` across the ranks of `ex` (every rank calls this with the same graph and
/// rules); rank 0 gets the solution, with best moves, equal bit for bit to [`crate::solve`]'s;
/// the other ranks get `None`.
///
/// # Errors
/// A graph the packed layout does not hold (counters or remoteness of 2^30 or more), or a
/// rank's range of 2^31 vertices or more.
pub fn solve_distributed(
    g: &Graph,
    rules: &Rules,
    ex: &dyn Exchange,
) -> Result<Option<Solution>, String> {
    if !fits_packed(g) {
        return Err(
            "the graph has a vertex with 2^30 moves or more: it is not solved across ranks".into(),
        );
    }
    let (me, k) = (ex.rank(), ex.size());
    let n = g.vertex_count();
    let owner = |v: u32| -> usize {
        // The last rank whose range starts at or before v.
        let mut r = ((v as u128 * k as u128) / n.max(1) as u128) as usize;
        while r + 1 < k && start(n, k, r + 1) <= v as usize {
            r += 1;
        }
        while r > 0 && start(n, k, r) > v as usize {
            r -= 1;
        }
        r
    };
    let (lo, hi) = (start(n, k, me), start(n, k, me + 1));
    if (0..k).any(|r| start(n, k, r + 1) - start(n, k, r) >= 1 << 31) {
        return Err(format!(
            "{n} vertices over {k} ranks: a rank would own 2^31 or more; use more ranks"
        ));
    }
    // Seed.
    let mut cells = vec![0u32; hi - lo];
    let (mut frontier, mut ties) = (Vec::new(), Vec::new());
    for v in lo..hi {
        cells[v - lo] = match terminal_value(g, rules, v as u32) {
            Some(val) => {
                let state = val.outcome() as u8;
                if state == TIE {
                    ties.push(v as u32);
                } else {
                    frontier.push(v as u32);
                }
                packed_decided(state, 0)
            }
            None => g.out_degree(v as u32) as u32,
        };
    }
    let keeps = |e: usize, u: u32, v: u32| -> bool {
        match g.turn_rule() {
            TurnRule::Alternate => false,
            TurnRule::GoAgain { reverse, .. } => reverse.get(e),
            TurnRule::Arena { owner } => owner.get(u as usize) == owner.get(v as usize),
        }
    };
    let rev = g.reverse_sources();

    // Wins and losses, then ties: `step(v, r, away, next)` for each frontier vertex.
    for phase in 0..2 {
        let mut frontier = std::mem::take(if phase == 0 { &mut frontier } else { &mut ties });
        let mut r = 0u32;
        let mut m = [u64::from(!frontier.is_empty())];
        ex.max(&mut m);
        let mut go = m[0] == 1;
        while go {
            r += 1;
            let mut next = Vec::new();
            let mut away: Vec<Vec<u32>> = vec![Vec::new(); k];
            let apply = |cells: &mut [u32], u: u32, wins: bool, next: &mut Vec<u32>| {
                let cell = &mut cells[u as usize - lo];
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
                let child_lost = packed_state(cells[v as usize - lo]) == LOSS;
                for e in g.predecessor_range(v) {
                    let u = rev[e];
                    let wins = child_lost != keeps(e, u, v);
                    let o = owner(u);
                    if o == me {
                        apply(&mut cells, u, wins, &mut next);
                    } else {
                        away[o].push((u as usize - start(n, k, o)) as u32 | u32::from(wins) << 31);
                    }
                }
            }
            let more = !next.is_empty() || away.iter().any(|a| !a.is_empty());
            let bytes = away
                .iter()
                .map(|a| a.iter().flat_map(|x| x.to_le_bytes()).collect())
                .collect();
            let (got, flag) = ex.all_to_all_max(bytes, u64::from(more));
            for b in got {
                for c in b.chunks_exact(4) {
                    let x = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                    let u = lo + (x & !(1 << 31)) as usize;
                    if u >= hi {
                        return Err(format!(
                            "an update for vertex {u}, outside this rank's range"
                        ));
                    }
                    apply(&mut cells, u as u32, x >> 31 == 1, &mut next);
                }
            }
            frontier = next;
            go = flag == 1;
        }
    }

    // Rank 0 gathers outcomes and remoteness, then finds the best moves.
    let mine: Vec<u8> = cells
        .iter()
        .flat_map(|&c| {
            let s = packed_state(c);
            let rem = if s == OPEN { NONE } else { c & LOW };
            let mut b = [0u8; 5];
            b[0] = s;
            b[1..].copy_from_slice(&rem.to_le_bytes());
            b
        })
        .collect();
    let Some(all) = ex.gather(&mine) else {
        return Ok(None);
    };
    let mut outcome = Vec::with_capacity(n);
    let mut remoteness = Vec::with_capacity(n);
    for (r, b) in all.iter().enumerate() {
        if b.len() != 5 * (start(n, k, r + 1) - start(n, k, r)) {
            return Err(format!("rank {r} sent {} bytes for its vertices", b.len()));
        }
        for c in b.chunks_exact(5) {
            outcome.push(c[0]);
            remoteness.push(u32::from_le_bytes([c[1], c[2], c[3], c[4]]));
        }
    }
    let mut s = Solution {
        outcome,
        remoteness,
        best: Vec::new(),
    };
    s.best = best_moves(g, rules, &s);
    Ok(Some(s))
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
                    let got = run_local(k, |ex| solve_distributed(&g, &rules, ex).unwrap());
                    let s = got.into_iter().next().unwrap().unwrap();
                    prop_assert_eq!(&s.outcome, &want.outcome, "{} ranks", k);
                    prop_assert_eq!(&s.remoteness, &want.remoteness, "{} ranks", k);
                    prop_assert_eq!(&s.best, &want.best, "{} ranks", k);
                }
            }
        }
    }
}
