//! Parity games, solved exactly.
//!
//! A parity game is played on a directed graph whose vertices have an owner (Even or Odd,
//! the player who moves there) and a priority. A play goes on forever; Even wins it when
//! the largest priority seen infinitely often is even, Odd when it is odd. From every vertex
//! one player can force a win, with a *positional* strategy (a fixed move per vertex).
//! Model checking of the modal mu-calculus, and LTL synthesis, reduce to parity games.
//!
//! This crate reads and writes the games and solutions of PGSolver's format ([`pg`]),
//! solves games with one of three algorithms ([`Algorithm`]: Zielonka's, priority promotion,
//! the quasi-polynomial recursive one) after preprocessing ([`solve_with`]), checks a
//! claimed solution with a verifier that shares no code with the solvers ([`verify`]), and
//! changes games into games with the same winners ([`reduce`]: priority compression and
//! inflation, the W/L/D games of `retrograde-solve` as parity games). Every algorithm is made
//! of the graph engine's attractor ([`retrograde_solve::attract`]), the retrograde
//! propagation restricted to a subgame.
//!
//! The crate does no I/O: games and solutions are read from bytes (gzip or bzip2 bytes are
//! decompressed by [`decompress`]) and written to any [`std::io::Write`].
//!
//! # Example
//! ```
//! use retrograde_parity::{pg, solve, verify, Claim, Player};
//!
//! // Even moves at 0 and 2, Odd at 1. Odd, at 1, can go back to 0 or on to 2, which loops
//! // on itself with priority 4.
//! let text = b"parity 2;\n0 3 0 1;\n1 1 1 0,2;\n2 4 0 2;\n";
//! let game = pg::parse_game(text).unwrap();
//! let s = solve(&game);
//! // The cycle 0 -> 1 -> 0 has largest priority 3: Odd wins 0 and 1 by staying on it.
//! assert_eq!(s.winners(), &[Player::Odd, Player::Odd, Player::Even]);
//! assert_eq!(s.strategy(1), Some(0));
//! verify(&game, &Claim::from(&s)).unwrap();
//!
//! let mut out = Vec::new();
//! pg::write_solution(&game, &s, &mut out).unwrap();
//! assert_eq!(out, b"paritysol 2;\n0 1;\n1 1 0;\n2 0 2;\n");
//! ```
#![warn(missing_docs)]

mod algo;
mod game;
pub mod pg;
mod pp;
mod priority;
mod qpz;
pub mod reduce;
mod scc;
mod solution;
mod solve;
mod verify;
mod zielonka;

pub use game::{GameError, ParityGame, Player};
pub use pg::decompress;
pub use solution::{Solution, NONE};
pub use solve::{solve, solve_with, Algorithm, Options, Phases};
pub use verify::{verify, Claim, Wrong};
