//! An independent check of a solution against its graph.
//!
//! The check is local and needs no solver: every terminal must carry the value the rules fix,
//! and every other vertex must carry exactly the best value its moves give (the best by
//! [`Value`]'s preference order of the children's values seen through each move), with a best
//! move that realizes it. Because every win, loss and tie is justified by a child whose
//! remoteness is one less, a solution that passes is the unique exact one.

use crate::retro::terminal_value;
use crate::{Rules, Solution, Value};
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
    let n = g.vertex_count();
    let fail = |v: u32, message: String| Err(Violation { vertex: v, message });
    if s.len() != n {
        return fail(
            0,
            format!(
                "the solution has {} vertices but the graph has {n}",
                s.len()
            ),
        );
    }
    if !s.has_best_moves() && n > 0 {
        return fail(0, "the solution has no best moves to check".into());
    }
    let targets = g.forward_targets();
    for u in 0..n as u32 {
        let claimed = s.value(u);
        if let Some(fixed) = terminal_value(g, rules, u) {
            if claimed != fixed {
                return fail(
                    u,
                    format!("a terminal whose value is {fixed}, not {claimed}"),
                );
            }
            if let Some(b) = s.best_move(u) {
                return fail(u, format!("a terminal, but it has best move {b}"));
            }
            continue;
        }
        let mut best: Option<(Value, u32)> = None;
        for e in g.successor_range(u) {
            let v = targets[e];
            let seen = s.value(v).through(g.forward_keeps_turn(e, u, v));
            if best.is_none_or(|(b, _)| seen > b) {
                best = Some((seen, v));
            }
        }
        let (want, via) = best.expect("a non-terminal vertex has a move");
        if claimed != want {
            return fail(
                u,
                format!("claimed {claimed}, but its moves give {want} (move to {via})"),
            );
        }
        let Some(b) = s.best_move(u) else {
            return fail(u, format!("{claimed} but no best move"));
        };
        let realizes = g.successor_range(u).any(|e| {
            targets[e] == b && s.value(b).through(g.forward_keeps_turn(e, u, b)) == claimed
        });
        if !realizes {
            return fail(u, format!("best move {b} does not realize {claimed}"));
        }
    }
    Ok(())
}
