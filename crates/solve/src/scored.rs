//! Scores on graphs with cycles: the score levels both engines walk (issue 24).
//!
//! A scored graph gives some terminals a score ([`Graph::score`](retrograde_graph::Graph)),
//! the points the player to move there gets; a `terminal` label is worth +1, -1 or 0 and a
//! dead end the no-move rule's. A position's value is a [`Scored`]: the score the player to
//! move can force, a game that never ends being worth 0 (Washburn's *deterministic graphical
//! games*), with remoteness as the contract says: a positive score hurries (1 + the smallest
//! remoteness among the moves that realise it), a negative one stalls (1 + the largest), a tie
//! hurries, a draw has none; the mover's order is [`Scored`](crate::Scored)'s.
//!
//! # Algorithm: score levels, each a layered retrograde
//! Let `K1 > K2 > … > Kp > 0` be the distinct `|score|` of the terminals whose score is not 0
//! (sorted once: O(t + p log p) for t such terminals, [`ScoreLevels::new`]). Every vertex
//! starts open with its out-degree as counter, as in the unscored solver. Then, for each `K`
//! from the largest:
//! 1. the queue is seeded with the terminals of `|score| = K` (remoteness 0);
//! 2. the wins-and-losses propagation of `retro.rs` runs unchanged from them: a vertex
//!    processed with remoteness `r` wins each open parent for which it is worth `-K` through
//!    the move (`Scored::through`: a loss passed across, or a win kept by a go-again move or
//!    an owner who moves again) with `+K` in `r + 1`, and counts down each other open parent,
//!    which is lost with `-K` in `r + 1` when its counter reaches 0;
//! 3. the vertices decided in the level (the queue from the seeds on) get the score `+K` if
//!    won, `-K` if lost.
//!
//! The counters are never reset: a move into a vertex decided at an earlier level stays
//! counted down. After the last level, ties spread from the terminals of score 0 through the
//! vertices still open, exactly as the unscored tie phase; what is left is a draw. With scores
//! +1, -1 and 0 only there is one level, `K = 1`, and this *is* the unscored solver, step for
//! step: the values, remoteness and best moves are the same bit for bit. The work is O(n + m)
//! over all levels (each reverse edge is looked at once, when its child is decided) plus the
//! sort of the `p` distinct payoffs.
//!
//! # Why these are the contract's values
//! By induction on the levels, with the claim: *before level `K`, the vertices decided are
//! exactly those of value `|score| > K` with their values, and every open vertex has all its
//! decided children worth less than `-K` to it through the move* (a child worth more would
//! have won it already) — so every move of an open vertex to a decided child is counted down.
//! - The score. An open vertex has an open child (its counter is not 0), and from an open
//!   vertex a player can always move to an open one, so neither player can force a terminal
//!   of `|score| > K` (nor worse than `-K`) from there: open values lie in `[-K, K]`. In level
//!   `K`, a vertex is won when a child is worth `-K` to the child's mover through a turn pass
//!   (or `+K` through a go-again move): it gets `+K`, the most an open vertex can get. It is
//!   lost when its last open move is counted down: every move then leads to a child worth at
//!   most `-K` to it, and the last one, decided in level `K`, exactly `-K` (a child worth `+K`
//!   would have won it): its best is `-K`. What is still open after the level has every
//!   decided child worth less than `-K` (or `-K'` for an earlier `K'`) to it, so the claim
//!   holds for the next level. After the last level the open vertices can force neither a
//!   positive nor a negative score: 0, a tie if some line of open vertices reaches a terminal
//!   of score 0 (both prefer an end to none), else a draw.
//! - The remoteness. Inside a level the queue holds the decided vertices in non-decreasing
//!   remoteness (each vertex decided while processing one of remoteness `r` gets `r + 1`, the
//!   seeds have 0). The moves that realise `+K` for a vertex are exactly its moves to children
//!   of this level worth `-K` to it through the move; the first such child processed has the
//!   smallest remoteness, so a win gets 1 + the smallest. The moves that realise `-K` are its
//!   moves to children of this level (children of earlier levels are worth less); the last one
//!   counted down is the one processed last, of the largest remoteness, so a loss gets 1 + the
//!   largest. Ties are the unscored tie phase, 1 + the smallest.
//! - The best move is chosen afterwards from the values alone (`moves.rs`): the smallest
//!   successor whose value through the move equals the vertex's, score and remoteness.
//!
//! The level engine (`levels.rs`) runs the same levels: the same seeds, its level-synchronous
//! propagation inside each, the scores written from each frontier; across ranks the ranks
//! agree on the next `K` with one reduction (the largest `K` any rank has left), so every rank
//! runs every level, with no seed where it holds none.

use crate::cell::WIN;
use std::collections::HashMap;

/// The decided terminals other than ties, grouped by `|score|`: `(K, terminals of |score| K
/// in the order given)`, the largest `K` first.
pub(crate) struct ScoreLevels {
    levels: Vec<(u64, Vec<u32>)>,
}

impl ScoreLevels {
    /// Groups `terminals` by `abs`, their `|score|` (not 0), given in the same order (the
    /// seeding collects both, so no score is looked up again): O(t) expected for the
    /// grouping, and O(p log p) for sorting the `p` distinct values.
    pub(crate) fn new(terminals: &[u32], abs: &[u64]) -> ScoreLevels {
        debug_assert_eq!(terminals.len(), abs.len());
        let mut index: HashMap<u64, usize> = HashMap::new();
        let mut levels: Vec<(u64, Vec<u32>)> = Vec::new();
        for (&v, &k) in terminals.iter().zip(abs) {
            debug_assert!(k > 0, "a tie is no score level");
            let i = *index.entry(k).or_insert_with(|| {
                levels.push((k, Vec::new()));
                levels.len() - 1
            });
            levels[i].1.push(v);
        }
        levels.sort_unstable_by_key(|l| std::cmp::Reverse(l.0));
        ScoreLevels { levels }
    }
}

impl IntoIterator for ScoreLevels {
    type Item = (u64, Vec<u32>);
    type IntoIter = std::vec::IntoIter<(u64, Vec<u32>)>;
    fn into_iter(self) -> Self::IntoIter {
        self.levels.into_iter()
    }
}

/// The score of a vertex decided in level `k` with outcome code `state` (a win or a loss).
/// `k <= 2^63 - 1`: it is a score's absolute value.
#[inline]
pub(crate) fn signed(k: u64, state: u8) -> i64 {
    let k = k as i64;
    if state == WIN {
        k
    } else {
        -k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_grouped_and_sorted_largest_first() {
        let abs = [5u64, 1, 5, i64::MAX as u64, 1];
        let got: Vec<_> = ScoreLevels::new(&[0, 1, 2, 3, 4], &abs)
            .into_iter()
            .collect();
        assert_eq!(
            got,
            [(i64::MAX as u64, vec![3]), (5, vec![0, 2]), (1, vec![1, 4])]
        );
        assert_eq!(signed(i64::MAX as u64, WIN), i64::MAX);
        assert_eq!(signed(i64::MAX as u64, crate::cell::LOSS), -i64::MAX);
    }
}
