//! Exact retrograde analysis of two-player game graphs.
//!
//! Given a [`Graph`] (positions and moves) and [`Rules`] (what a dead end means), [`solve`]
//! labels every vertex with its [`Value`] for the player to move (win, loss, tie or draw, and
//! the remoteness: plies to the end when the winner hurries and the loser stalls) and a best
//! move, in O(n + m) time. [`verify`] checks a solution independently of the solver.
//! [`attract`] is the solver's backward propagation as a building block: the attractor of a
//! player to a set within a subgame of an arena, which parity game algorithms call again and
//! again.
//!
//! This crate does no I/O.
//!
//! # Example
//! ```
//! use retrograde_graph::format::{parse, Format, ParseOptions};
//! use retrograde_solve::{solve, verify, Outcome, Rules, Value};
//!
//! // 0 -> 1 -> 2, and 3 <-> 4 forever.
//! let g = parse(b"0 1\n1 2\n3 4\n4 3\n", Format::Edges, &ParseOptions::default()).unwrap();
//! let s = solve(&g, &Rules::default());
//! assert_eq!(s.value(0), Value::Loss(2));
//! assert_eq!(s.value(1), Value::Win(1));
//! assert_eq!(s.outcome(3), Outcome::Draw);
//! assert_eq!(s.best_move(3), Some(4));
//! verify(&g, &Rules::default(), &s).unwrap();
//! ```
#![warn(missing_docs)]

pub mod attract;
mod cell;
pub mod csv;
pub mod dgraph;
mod driver;
mod error;
pub mod exchange;
mod hint;
mod levels;
mod moves;
mod options;
pub mod place;
mod retro;
mod scored;
pub mod share;
mod solution;
#[cfg(test)]
mod testing;
mod value;
mod verify;

pub use dgraph::DistGraph;
pub use driver::{
    solve, solve_distributed, solve_share, solve_with_options, solve_with_phases, terminal_score,
    terminal_value,
};
pub use error::Error;
pub use hint::prefetch;
pub use options::{Engine, Phases, Rules, SolveOptions};
pub use retrograde_graph::{Graph, Primitive};
pub use share::Share;
pub use solution::{Counts, DistSolution, Solution};
pub use value::{Outcome, Scored, Value};
pub use verify::{verify, verify_share, Violation};
