//! Playing a disjunctive sum: which component to move in, and where.

use crate::value::{sum, Sg, SgBuf};
use retrograde_solve::Outcome;

/// A move in one component: the value of the component after it and, for a component on a
/// graph with cycles, the counter there (see [`crate::Grundy::counter`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Opt<'a> {
    /// The component's value after the move.
    pub value: Sg<'a>,
    /// Its counter, when it has one (a finite value on a graph); `None` counts as 0.
    pub counter: Option<u32>,
}

/// What the player to move in a sum should do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Play {
    /// A winning move: option `option` of component `component`. It leaves a sum of value 0
    /// (a loss for the opponent); among such moves in that component it has the least
    /// counter, so that a winner who keeps answering this way makes progress instead of
    /// cycling.
    Win {
        /// The component to move in.
        component: usize,
        /// The index of the move in that component's options.
        option: usize,
    },
    /// Nobody can force a win; this move keeps the draw (the sum after it is a draw for the
    /// opponent too).
    Draw {
        /// The component to move in.
        component: usize,
        /// The index of the move in that component's options.
        option: usize,
    },
    /// Every move leaves the opponent a win (or there is no move at all).
    Loss,
}

/// The value of a sum of components with these `values`, and the move to play: a winning
/// move when the sum is a win, a move that keeps the draw when it is a draw.
///
/// `options[i]` lists the moves of component `i` by the value they lead to.
///
/// # Panics
/// When `values` and `options` differ in length, or the options contradict the values
/// (a win with no winning move, a draw with no drawing move): values and options must come
/// from the same solved components.
///
/// # Complexity
/// O(k² + total options × (|K| + k)) for `k` components.
///
/// ```
/// use retrograde_impartial::{play_sum, Opt, Play, Sg};
/// // Nim heaps of 3 and 5: the nim-sum is 6; move the 5 down to 3 (its option 3).
/// let heap = |n: u32| -> Vec<Opt> {
///     (0..n).map(|v| Opt { value: Sg::Finite(v), counter: None }).collect()
/// };
/// let (value, play) = play_sum(&[Sg::Finite(3), Sg::Finite(5)], &[heap(3), heap(5)]);
/// assert_eq!(value.to_string(), "6");
/// assert_eq!(play, Play::Win { component: 1, option: 3 });
/// ```
pub fn play_sum(values: &[Sg<'_>], options: &[Vec<Opt<'_>>]) -> (SgBuf, Play) {
    assert_eq!(
        values.len(),
        options.len(),
        "one list of options per component"
    );
    let total = sum(values.iter().copied());
    let outcome = total.outcome();
    if outcome == Outcome::Loss {
        return (total, Play::Loss);
    }
    for (i, opts) in options.iter().enumerate() {
        let rest = sum(values
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &v)| v));
        let mut best: Option<(u32, usize)> = None;
        for (o, opt) in opts.iter().enumerate() {
            let after = sum([rest.as_sg(), opt.value]).outcome();
            match (outcome, after) {
                (Outcome::Win, Outcome::Loss) => {
                    let c = opt.counter.unwrap_or(0);
                    if best.is_none_or(|(b, _)| c < b) {
                        best = Some((c, o));
                    }
                }
                (Outcome::Draw, Outcome::Draw) => {
                    return (
                        total,
                        Play::Draw {
                            component: i,
                            option: o,
                        },
                    )
                }
                _ => {}
            }
        }
        if let Some((_, option)) = best {
            return (
                total,
                Play::Win {
                    component: i,
                    option,
                },
            );
        }
    }
    panic!("the sum {total} is a {outcome} but no move realizes it: options and values disagree");
}
