//! Impartial games: Sprague-Grundy values, loopy games, sums and heap games.
//!
//! In an impartial game both players have the same moves (every plain game graph, and the
//! pebble game of seed 004, are impartial). Win or loss alone does not say what happens when
//! several such games are played side by side, a move in exactly one of them each turn (their
//! *disjunctive sum*); the Sprague-Grundy value does. Under normal play (who cannot move
//! loses):
//! - on a graph without cycles every position has a finite value, the mex (least non-negative
//!   integer not among) of its moves' values; a position of value `n` plays like a nim heap
//!   of `n`, and a sum's value is the XOR of its components' values ([`grundy()`]);
//! - on a graph with cycles some positions have an infinite value `∞(K)`, `K` the finite values
//!   of their moves: the generalized Sprague-Grundy function of Smith (1966) and Fraenkel and
//!   Yesha (1986), computed by their staged algorithm with counters that make a winner's
//!   progress provable ([`grundy()`], [`Sg`]);
//! - a sum with exactly one infinite component `∞(K)` is a win for the player to move iff the
//!   XOR of the other components lies in `K`; with two or more it is a draw ([`sum`],
//!   [`play_sum`]);
//! - heap games (octal games such as Kayles, subtraction games, Grundy's game, nim) have
//!   nim-sequences computed from the XOR of smaller heaps' values, with periodicity proved by
//!   the Guy-Smith theorem ([`HeapGame`]).
//!
//! Misère play (who cannot move wins) is not covered: misère sums do not follow the XOR rule.
//! The engine (`retrograde_solve::solve` with `Rules { no_move: Primitive::Win }`) solves a
//! single misère game, or an explicit product graph of a sum.
//!
//! This crate does no I/O.
//!
//! # Example
//! ```
//! use retrograde_graph::format::{parse, Format, ParseOptions};
//! use retrograde_impartial::{grundy, sum, HeapGame, Sg};
//! use retrograde_solve::Outcome;
//!
//! // A loopy graph: 0 <-> 1, 1 -> 2 (a dead end), 3 -> 3 (a self-loop), 3 -> 2.
//! let g = parse(b"0 1\n1 0\n1 2\n3 3\n3 2\n", Format::Edges, &ParseOptions::default()).unwrap();
//! let s = grundy(&g).unwrap();
//! assert_eq!(s.value(0), Sg::Finite(0)); // lost: the only move is to 1, which wins
//! assert_eq!(s.value(1), Sg::Finite(1));
//! assert_eq!(s.value(3).to_string(), "inf{0}"); // won, but no nim heap
//!
//! // Vertex 3 beside a Kayles row of 4 pins (value 1): 1 is not in {0}, so a draw.
//! let kayles = HeapGame::octal("0.77").unwrap().nim_sequence(5);
//! let total = sum([s.value(3), Sg::Finite(kayles[4])]);
//! assert_eq!(total.to_string(), "inf{1}");
//! assert_eq!(total.outcome(), Outcome::Draw);
//! ```
#![warn(missing_docs)]

mod game;
mod grundy;
pub mod heap;
mod sum;
mod value;
mod verify;

pub use game::{grundy_game, GameGrundy};
pub use grundy::{grundy, grundy_with, Counts, Grundy, GrundyError, Method};
pub use heap::{HeapError, HeapGame, HeapMove, Leaves, Period, MAX_OCTAL_DIGITS};
pub use sum::{play_sum, Opt, Play};
pub use value::{mex, sum, Sg, SgBuf};
pub use verify::{verify, Violation};
