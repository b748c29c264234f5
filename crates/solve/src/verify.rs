//! An independent check of a solution against its graph.
//!
//! The check is local and needs no solver: every terminal must carry the value the rules fix,
//! and every other vertex must carry exactly the best value its moves give (the best by the
//! mover's order of [`Scored`] values, which on an unscored graph is [`Value`](crate::Value)'s,
//! of the children's values seen through each move), with a best move that realizes it and is
//! the smallest successor that does (the rule the solver documents, so that a best move never
//! depends on the order of work). Because every win, loss and tie is justified by a child
//! whose remoteness is one less, a solution that passes is the unique exact one; in a scored
//! graph the scores are checked by the same rule (and a game that never ends is worth 0).

use crate::error::Error;
use crate::exchange::{Exchange, Solo};
use crate::moves::over_moves;
use crate::place::Placement;
use crate::share::{terminal, Share};
use crate::{Rules, Scored, Solution};
use retrograde_graph::Graph;
use std::fmt;

/// The first inconsistency found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The vertex.
    pub vertex: u32,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "vertex {}: {}", self.vertex, self.message)
    }
}

impl std::error::Error for Violation {}

/// Checks `s` against `g` and `rules`.
///
/// # Errors
/// The first [`Violation`], by vertex id.
///
/// # Complexity
/// O(n + m).
pub fn verify(g: &Graph, rules: &Rules, s: &Solution) -> Result<(), Violation> {
    match verify_share(g, rules, s, &Solo) {
        Ok(verdict) => verdict,
        // One process exchanges no message, the only way the pass can fail.
        Err(e) => unreachable!("one process: {e}"),
    }
}

/// [`verify`] on a [`Share`] of a graph: `s` holds the values and best moves of the vertices
/// `g` holds, by place. Across ranks every rank checks its own vertices by the same rule, the
/// values of their remote targets fetched from their holders in batched steps (as for best
/// moves), and every rank gets the same verdict: the first violation by vertex id over all
/// ranks (a collective).
///
/// # Errors
/// The outer error: a malformed message from another rank. The inner one, the verdict: the
/// first [`Violation`], by vertex id.
pub fn verify_share<G: Share + ?Sized>(
    g: &G,
    rules: &Rules,
    s: &Solution,
    ex: &dyn Exchange,
) -> Result<Result<(), Violation>, Error> {
    let alone = G::Place::ALONE;
    let any = |b: bool| if alone { b } else { ex.any(b) };
    if any(s.len() != g.len()) {
        let mut n = [s.len() as u64, g.len() as u64];
        if !alone {
            ex.sum(&mut n);
        }
        let message = format!(
            "the solution has {} vertices but the graph has {}",
            n[0], n[1]
        );
        return Ok(Err(Violation { vertex: 0, message }));
    }
    if any(!s.has_best_moves() && !g.is_empty()) {
        let message = "the solution has no best moves to check".into();
        return Ok(Err(Violation { vertex: 0, message }));
    }
    let (off, targets) = (g.forward_offsets(), g.forward_targets());
    let mut pieces = vec![(); g.len()];
    let first = over_moves(g, rules, s, ex, &mut pieces, |first, piece, look| {
        let mut moves = Vec::new();
        for u in first..first + piece.len() as u32 {
            moves.clear();
            let fixed = terminal(g, rules, u);
            if fixed.is_none() {
                let range = off[u as usize] as usize..off[u as usize + 1] as usize;
                moves.extend(range.map(|e| (targets[e], look.seen(e, u, targets[e]))));
            }
            let claimed = s.scored(u);
            let show = Show(g.is_scored());
            if let Err(message) = check(show, claimed, fixed, s.best_move(u), moves.iter().copied())
            {
                let vertex = g.global(u);
                return Some(Violation { vertex, message });
            }
        }
        None
    })?;
    if alone {
        return Ok(first.map_or(Ok(()), Err));
    }
    Ok(first_of_all(g, first, ex))
}

/// The violation with the smallest vertex id of every rank's first one, at every rank (a
/// collective): the id by a reduction, the message from the rank that holds the vertex.
fn first_of_all<G: Share + ?Sized>(
    g: &G,
    mine: Option<Violation>,
    ex: &dyn Exchange,
) -> Result<(), Violation> {
    let mut w = [mine.as_ref().map_or(0, |v| u64::MAX - u64::from(v.vertex))];
    ex.max(&mut w);
    if w[0] == 0 {
        return Ok(());
    }
    let vertex = (u64::MAX - w[0]) as u32;
    let mut send = vec![Vec::new(); ex.size()];
    if let Some(v) = mine.filter(|v| v.vertex == vertex) {
        send = vec![v.message.into_bytes(); ex.size()];
    }
    let got = ex.all_to_all(send);
    let holder = g.placement().owner(u64::from(vertex));
    let message = String::from_utf8_lossy(&got[holder]).into_owned();
    Err(Violation { vertex, message })
}

/// How a value is written in a message: with its score in a scored graph, else as the
/// [`Value`](crate::Value) it is (so that an unscored graph's messages say "win in 3").
#[derive(Copy, Clone)]
struct Show(bool);

impl Show {
    fn at(self, v: Scored) -> String {
        match v.value() {
            Some(value) if !self.0 => value.to_string(),
            _ => v.to_string(),
        }
    }
}

/// The rule for one vertex, the one place it is written: `claimed` its value, `fixed` the
/// value the rules fix if it is a terminal, `best` its best move, `moves` its moves as
/// (target, the target's value seen through the move), in the graph's order. The message
/// says what is wrong. Values carry scores (+1, -1 and 0 in an unscored graph, whose order
/// is then [`Value`](crate::Value)'s).
fn check(
    show: Show,
    claimed: Scored,
    fixed: Option<Scored>,
    best: Option<u32>,
    moves: impl Iterator<Item = (u32, Scored)> + Clone,
) -> Result<(), String> {
    if let Some(fixed) = fixed {
        if claimed != fixed {
            return Err(format!(
                "a terminal whose value is {}, not {}",
                show.at(fixed),
                show.at(claimed)
            ));
        }
        if let Some(b) = best {
            return Err(format!("a terminal, but it has best move {b}"));
        }
        return Ok(());
    }
    let claimed_text = show.at(claimed);
    // `through` saturates at the largest remoteness, where a go-again cycle would justify
    // itself; no line of play on a graph of `u32` vertices is that long.
    if claimed.remoteness == Some(u32::MAX) {
        return Err(format!("{claimed_text}: longer than any line of play"));
    }
    // A value with a score other than 0 and no end cannot come from a graph (only from tier
    // rewards), nor can an outcome that disagrees with the score's sign.
    if claimed.remoteness.is_none() && claimed.score != 0 {
        return Err(format!(
            "{claimed_text}: a graph's game that never ends is worth 0"
        ));
    }
    // The best value the moves give, and the smallest target giving it (whatever the order
    // of the moves: a share of a graph lists them in its own).
    let mut top: Option<(Scored, u32)> = None;
    for (v, seen) in moves.clone() {
        if top.is_none_or(|(b, w)| seen > b || (seen == b && v < w)) {
            top = Some((seen, v));
        }
    }
    let Some((want, via)) = top else {
        return Err("a vertex with no move that is not a terminal".into());
    };
    if claimed != want {
        return Err(format!(
            "claimed {claimed_text}, but its moves give {} (move to {via})",
            show.at(want)
        ));
    }
    let Some(b) = best else {
        return Err(format!("{claimed_text} but no best move"));
    };
    if !moves.into_iter().any(|(v, seen)| v == b && seen == claimed) {
        return Err(format!("best move {b} does not realize {claimed_text}"));
    }
    // The documented rule: the smallest successor that realizes the value.
    if b != via {
        return Err(format!(
            "best move {b} realizes {claimed_text}, but so does {via}, a smaller successor: the best move is the smallest that realizes the value"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::run_local;
    use crate::solution::NONE;
    use crate::testing::{forged, random_graph};
    use crate::DistGraph;
    use proptest::prelude::*;
    use retrograde_graph::Primitive;

    /// The part of a whole solution that the rank holding vertices `a..b` holds.
    fn part(s: &Solution, a: usize, b: usize) -> Solution {
        Solution {
            outcome: s.outcome[a..b].to_vec(),
            remoteness: s.remoteness[a..b].to_vec(),
            best: s.best[a..b].to_vec(),
            score: s.score.get(a..b).unwrap_or_default().to_vec(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The check across 1 to 4 ranks accepts the solution, and finds in a damaged one
        /// exactly the violation one process finds (vertex and message).
        #[test]
        fn the_check_across_ranks_is_the_one_process_check(seed: u64, damage: u64) {
            let g = random_graph(seed);
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
                let want = verify(&g, &rules, s);
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
                        verify_share(&share, &rules, &part(s, a, b), ex).unwrap()
                    });
                    for (r, v) in got.iter().enumerate() {
                        prop_assert_eq!(v, &want, "{}, {} ranks, rank {}", what, k, r);
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(60))]

        /// On scored graphs (answers about remote targets carry the score), the check across
        /// 1 to 4 ranks accepts the solution and finds a changed score where one process does.
        #[test]
        fn the_check_across_ranks_checks_scores(seed: u64, damage: u64) {
            let g = crate::testing::random_scored_graph(seed);
            let rules = Rules::default();
            let whole = crate::solve(&g, &rules);
            let mut bad = whole.clone();
            // Another score of the same sign at a win or loss (a tie's or draw's is 0 by
            // its outcome).
            let x = (damage % g.vertex_count() as u64) as usize;
            let old = bad.score[x];
            prop_assume!(old != 0);
            bad.score[x] = match old {
                1 => 2,
                -1 => -2,
                s => s - s.signum(),
            };
            for s in [&whole, &bad] {
                let want = verify(&g, &rules, s);
                prop_assert_eq!(want.is_ok(), std::ptr::eq(s, &whole));
                for k in 1..=4 {
                    let got = run_local(k, |ex| {
                        let share = DistGraph::from_graph(&g, ex).unwrap();
                        let r = share.range();
                        let (a, b) = (r.start as usize, r.end as usize);
                        verify_share(&share, &rules, &part(s, a, b), ex).unwrap()
                    });
                    for v in &got {
                        prop_assert_eq!(v, &want, "{} ranks", k);
                    }
                }
            }
        }
    }

    /// A malformed question or answer from another rank is an error naming it.
    #[test]
    fn a_malformed_question_is_an_error() {
        let g = random_graph(5);
        let rules = Rules::default();
        let whole = crate::solve(&g, &rules);
        let ex = forged(vec![9; 6]);
        let share = DistGraph::from_graph(&g, &ex).unwrap();
        let n = share.range().len();
        let part = Solution {
            outcome: whole.outcome[..n].to_vec(),
            remoteness: whole.remoteness[..n].to_vec(),
            best: whole.best[..n].to_vec(),
            score: Vec::new(),
        };
        let e = verify_share(&share, &rules, &part, &ex).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a malformed message from rank 1 (values of targets): 6 bytes, not a whole number of 4-byte words"
        );
    }
}
