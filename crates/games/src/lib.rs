//! Games given by rules: the [`Game`] trait, [`solve_game`] to solve every reachable
//! position of one exactly, and the built-in games.
//!
//! The built-ins are the seed documents' games (the pebble game, the policeman and the thief,
//! the Great Game, IOI 2001 Scores) with their own input formats.
#![warn(missing_docs)]

pub mod about;
pub mod chess;
pub mod connect4;
pub mod dots;
mod error;
mod explore;
mod game;
pub mod great_game;
pub mod kalah;
mod limits;
pub mod pebbles;
pub mod play;
pub mod police;
pub mod quixo;
pub mod scores;
pub mod teeko;
pub mod tictactoe;

pub use error::GameError;
pub use explore::{memory_limit, set_memory_limit, solve_game, ExploreError, GameSolution, Stats};
pub use game::Game;
