//! The tier engine: a game is its rules, the engine does the rest.
//!
//! A game implements [`TierGame`] (positions grouped into tiers that form a DAG, the moves,
//! the value the rules fix) and chooses, in its type, a layout ([`Dense`] index or
//! [`SortedKeys`]), how parents are found ([`Unmoves`] or [`ReverseEdges`]), whether it has
//! [`Symmetries`], and its turn rule ([`Alternate`] or [`GoAgain`]); see [`game`] for the
//! table. [`solve`] then labels every position of every tier below the roots with its value
//! for the player to move (win, loss, tie or draw, and the exact remoteness), with the
//! semantics of the graph engine (`retrograde_solve`): tier by tier, children first, in
//! parallel on the current rayon pool (the same answer for every number of threads), one
//! position per symmetry class, only the tiers in use in memory, finished tiers written to a
//! [`Storage`] and reused on resume, within a memory limit. The answer is a
//! [`TierSolution`], a [`Solved`]: the value of any position, its moves ranked, the totals.
//!
//! This crate does no I/O of its own except through [`Storage`]; [`DirStorage`] is the one
//! implementation that touches the file system.
//!
//! # Example: a complete game
//! The pebble game: take one or two pebbles; who faces an empty bag cannot move and loses.
//! A tier is the number of pebbles (every move goes to a smaller one), and each tier holds
//! one position.
//! ```
//! use retrograde_tier::{
//!     solve, Alternate, Dense, DenseIndex, NoSymmetry, ReverseEdges, SolveOptions, Solved,
//!     TierGame, Unscored,
//! };
//! use retrograde_graph::Primitive;
//! use retrograde_solve::Value;
//!
//! struct Pebbles(u32);
//!
//! impl TierGame for Pebbles {
//!     type Position = u32;
//!     type Tier = u32;
//!     type Layout = Dense;
//!     type Parents = ReverseEdges;
//!     type Symmetry = NoSymmetry;
//!     type Turn = Alternate;
//!     type Score = Unscored;
//!
//!     fn name(&self) -> String { format!("pebbles {}", self.0) }
//!     fn start(&self) -> Option<u32> { Some(self.0) }
//!     fn tier(&self, p: &u32) -> u32 { *p }
//!     fn child_tiers(&self, t: u32, out: &mut Vec<u32>) {
//!         out.extend((1..=2).filter(|&k| k <= t).map(|k| t - k));
//!     }
//!     fn tier_name(&self, t: u32) -> String { t.to_string() }
//!     fn primitive(&self, _: &u32) -> Option<Primitive> { None }
//!     fn moves(&self, p: &u32, out: &mut Vec<u32>) {
//!         out.extend((1..=2).filter(|&k| k <= *p).map(|k| p - k));
//!     }
//! }
//!
//! impl DenseIndex for Pebbles {
//!     fn tier_size(&self, _: u32) -> u64 { 1 }
//!     fn rank(&self, _: &u32) -> u64 { 0 }
//!     fn unrank(&self, t: u32, _: u64) -> Option<u32> { Some(t) }
//! }
//!
//! let game = Pebbles(10);
//! let s = solve(&game, &SolveOptions::default()).unwrap();
//! assert_eq!(s.start_value().unwrap(), Some(Value::Win(7)));
//! assert_eq!(s.value(&9).unwrap(), Some(Value::Loss(6)));
//! // Every move from 10, with its value for the player who makes it, best first.
//! assert_eq!(s.ranked_moves(&10).unwrap(), vec![(9, Value::Win(7)), (8, Value::Loss(6))]);
//! assert_eq!(s.stats().positions, 11);
//! // The game keeps the promises the engine relies on.
//! retrograde_tier::check_game(&game, 100).unwrap();
//! ```
//!
//! See `docs/tier-games.md` in the repository for a guide to adding a game.
#![warn(missing_docs)]

pub mod api;
mod engine;
mod error;
mod stats;
pub mod store;

pub use api::{game, index, notation};
pub use store::{graphdb, identity, storage, tierfile};

pub use api::check::{check_game, check_scored, Violation};
pub use api::explicit::{explicit_graph, Explicit};
pub use engine::scored::{open_scored, scored_memory, solve_scored, ScoredSolution};
#[doc(hidden)]
pub use engine::small_rounds_for_tests;
pub use engine::solution::{rank_moves, Solved, TierSolution};
pub use engine::sorted::keys_share_file;
pub use engine::{
    memory_plan, open, open_lazy, share_file, solve, solve_distributed, Engine, Event, ProgressFn,
    SolveOptions, Traffic, Working,
};
pub use error::{human_bytes, Error};
pub use game::{
    moves_split_by_tier, Alternate, Dense, DenseIndex, GoAgain, GoAgainGame, Layout, LayoutVisitor,
    NoSymmetry, OrderedMoves, Parents, ReverseEdges, ScoredGame, Scores, Scoring, SortedKeys,
    SymmetricGame, Symmetries, Symmetry, TierGame, Turn, UnmoveGame, Unmoves, Unscored,
};
pub use graphdb::GraphDb;
pub use notation::{play_moves, replay, Notation, NotationError};
pub use stats::Stats;
pub use storage::{DirStorage, MemStorage, Storage, StorageWriter};
pub use store::cell::{AnyCells, Cell, ScoreCell};
pub use store::identity::{Facts, Identified, Identity};
pub use store::meta::{read_meta, read_tier_totals, Meta, META, TOTALS};
