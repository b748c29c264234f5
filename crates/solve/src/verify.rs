//! An independent check of a solution against its graph.
//!
//! The check is local and needs no solver: every terminal must carry the value the rules fix,
//! and every other vertex must carry exactly the best value its moves give (the best by
//! [`Value`]'s preference order of the children's values seen through each move), with a best
//! move that realizes it and is the smallest successor that does (the rule the solver
//! documents, so that a best move never depends on the order of work). Because every win, loss and tie is justified by a child whose
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
        let moves = g.successor_range(u).map(|e| {
            let v = targets[e];
            (v, s.value(v).through(g.forward_keeps_turn(e, u, v)))
        });
        check(
            s.value(u),
            terminal_value(g, rules, u),
            s.best_move(u),
            moves,
        )
        .map_err(|message| Violation { vertex: u, message })?;
    }
    Ok(())
}

/// The rule for one vertex, the one place it is written (the distributed check uses it as
/// well): `claimed` its value, `fixed` the value the rules fix if it is a terminal, `best`
/// its best move, `moves` its moves as (target, the target's value seen through the move),
/// in the graph's order. The message says what is wrong.
pub(crate) fn check(
    claimed: Value,
    fixed: Option<Value>,
    best: Option<u32>,
    moves: impl Iterator<Item = (u32, Value)> + Clone,
) -> Result<(), String> {
    if let Some(fixed) = fixed {
        if claimed != fixed {
            return Err(format!("a terminal whose value is {fixed}, not {claimed}"));
        }
        if let Some(b) = best {
            return Err(format!("a terminal, but it has best move {b}"));
        }
        return Ok(());
    }
    // `through` saturates at the largest remoteness, where a go-again cycle would justify
    // itself; no line of play on a graph of `u32` vertices is that long.
    if claimed.remoteness() == Some(u32::MAX) {
        return Err(format!("{claimed}: longer than any line of play"));
    }
    // The best value the moves give, and the smallest target giving it (whatever the order
    // of the moves: a share of a graph lists them in its own).
    let mut top: Option<(Value, u32)> = None;
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
            "claimed {claimed}, but its moves give {want} (move to {via})"
        ));
    }
    let Some(b) = best else {
        return Err(format!("{claimed} but no best move"));
    };
    if !moves.into_iter().any(|(v, seen)| v == b && seen == claimed) {
        return Err(format!("best move {b} does not realize {claimed}"));
    }
    // The documented rule: the smallest successor that realizes the value.
    if b != via {
        return Err(format!(
            "best move {b} realizes {claimed}, but so does {via}, a smaller successor: the best move is the smallest that realizes the value"
        ));
    }
    Ok(())
}
