//! Games with scores ([`ScoredGame`]), seen as such: who wins and by how much.
//!
//! They are solved by the one engine ([`solve`](crate::solve), on one process or across
//! ranks with [`solve_distributed`](crate::solve_distributed)), in 4-byte cells
//! ([`ScoreCell`](crate::store::cell::ScoreCell)); see `dense.rs` for the algorithm (the
//! levels once per score level). [`ScoredSolution`] is the engine's [`TierSolution`]
//! answering with [`Scored`] values.

use crate::api::game::{DenseIndex, ScoredGame};
use crate::engine::solution::TierSolution;
use crate::engine::SolveOptions;
use crate::error::Error;
use crate::stats::Stats;
use crate::store::storage::Storage;
use retrograde_solve::Scored;
use std::sync::Arc;

/// A solved game with scores: the engine's solution (in memory, or in a database's files),
/// answering with scores.
pub struct ScoredSolution<'g, G: ScoredGame + DenseIndex> {
    inner: TierSolution<'g, G>,
}

/// Solves `game` (every tier below its roots) with scores, on the current rayon pool:
/// [`solve`](crate::solve), seen with scores.
///
/// # Errors
/// As [`solve`](crate::solve); also [`Error::Game`] for a score outside the declared range
/// and [`Error::Unsupported`] for a range past `±32,766`.
///
/// # Example
/// See `docs/tier-games.md` ("Scores").
pub fn solve_scored<'g, G: ScoredGame + DenseIndex>(
    game: &'g G,
    opts: &SolveOptions,
) -> Result<ScoredSolution<'g, G>, Error> {
    Ok(ScoredSolution {
        inner: crate::engine::solve(game, opts)?,
    })
}

/// The finished database of `game` with scores in `storage`; `Ok(None)` when the storage
/// holds no finished database: [`open`](crate::open), seen with scores.
///
/// # Errors
/// A database of another game ([`Error::Foreign`]), not of a game with scores, or damaged
/// ([`Error::Damaged`], [`Error::Missing`]).
pub fn open_scored<G: ScoredGame + DenseIndex>(
    game: &G,
    storage: Arc<dyn Storage>,
) -> Result<Option<ScoredSolution<'_, G>>, Error> {
    Ok(crate::engine::open(game, storage)?.map(|inner| ScoredSolution { inner }))
}

/// The memory a one-process solve of `game` needs at its peak: [`memory_plan`](crate::memory_plan).
///
/// # Errors
/// [`Error::Game`] when the tiers do not form a DAG.
pub fn scored_memory<G: ScoredGame + DenseIndex>(game: &G, stored: bool) -> Result<u64, Error> {
    Ok(crate::engine::memory_plan(game, stored)?.unwrap_or(0))
}

impl<'g, G: ScoredGame + DenseIndex> From<TierSolution<'g, G>> for ScoredSolution<'g, G> {
    /// The engine's solution of a game with scores (from [`solve`](crate::solve),
    /// [`solve_distributed`](crate::solve_distributed) or [`open`](crate::open)), seen with
    /// scores.
    fn from(inner: TierSolution<'g, G>) -> Self {
        ScoredSolution { inner }
    }
}

impl<'g, G: ScoredGame + DenseIndex> ScoredSolution<'g, G> {
    /// The game.
    pub fn game(&self) -> &'g G {
        self.inner.game()
    }

    /// The engine's solution.
    pub fn solution(&self) -> &TierSolution<'g, G> {
        &self.inner
    }

    /// Totals over the positions reachable from the start (every position solved when the
    /// game has no start). With symmetries a canonical position counts its class's
    /// positions (`classes` counts the classes). A game that never ends after points were
    /// collected counts as a win or a loss by its sign.
    pub fn stats(&self) -> &Stats {
        &self.inner.stats
    }

    /// The value of `p` for the player to move.
    ///
    /// # Errors
    /// [`Error::Game`] when `p` is not a position of a solved tier; a damaged file.
    pub fn value(&self, p: &G::Position) -> Result<Scored, Error> {
        self.inner.scored(p)?.ok_or_else(|| {
            let t = self.game().tier(p);
            Error::Game(format!("{p:?} has no value in tier {t:?}"))
        })
    }

    /// The start's value, if the game has a start.
    ///
    /// # Errors
    /// As [`ScoredSolution::value`].
    pub fn start_value(&self) -> Result<Option<Scored>, Error> {
        self.game().start().map(|p| self.value(&p)).transpose()
    }

    /// Each legal move from `p` with its value for the player who makes it
    /// (`child.through_with(keeps, reward)`), best first (ties in the game's move order).
    /// Empty where the game is over.
    ///
    /// # Errors
    /// As [`ScoredSolution::value`].
    pub fn moves(&self, p: &G::Position) -> Result<Vec<(G::Position, Scored)>, Error> {
        self.inner.scored_moves(p)
    }
}
