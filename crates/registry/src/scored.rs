//! One [`Built`] and one [`Answer`] for every tier game with scores (Dots and Boxes,
//! Kalah): solved by the one engine (one process, or ranks), seen with scores
//! (`retrograde_tier::ScoredSolution`); the report and the query answers carry the score.

use crate::tier::{recorded, resolve, shorten};
use crate::{Answer, Built, Query, QueryAnswer, QueryError, Report};
use retrograde_games::play::{start_session, DynSession, ScoredPlay};
use retrograde_solve::Value;
use retrograde_tier::{
    open_scored, solve_scored, DenseIndex, Error, Notation, ScoredGame, ScoredSolution,
    SolveOptions, Storage,
};
use std::sync::Arc;

/// A game's own check before solving: (game, memory limit).
pub type ScoredCheck<G> = fn(&G, Option<u64>) -> Result<(), String>;

/// A tier game with scores and how to report it.
pub struct ScoredBuilt<G> {
    /// The game.
    pub game: G,
    /// The command name (`dots-and-boxes`).
    pub command: &'static str,
    /// A check of its own before solving.
    pub check: Option<ScoredCheck<G>>,
    /// The parameter values, recorded in a database.
    pub params: serde_json::Value,
}

impl<G: ScoredGame + DenseIndex + Notation + Send + Sync + 'static> Built for ScoredBuilt<G> {
    fn name(&self) -> String {
        self.game.name()
    }

    fn title(&self) -> String {
        self.game.title()
    }

    fn side_names(&self) -> [String; 2] {
        self.game.side_names()
    }

    /// The engine's plan: 4 bytes a slot of the tiers held at the peak.
    fn memory_needed(&self, stored: bool) -> Result<Option<u64>, String> {
        Ok(Some(
            retrograde_tier::scored_memory(&self.game, stored).map_err(|e| e.to_string())?,
        ))
    }

    fn check(&self, memory_limit: Option<u64>, _stored: bool) -> Result<(), String> {
        match self.check {
            Some(f) => f(&self.game, memory_limit),
            None => Ok(()),
        }
    }

    fn solve(&self, opts: &SolveOptions) -> Result<Box<dyn Answer + '_>, Error> {
        let opts = recorded(opts, self.command, &self.params);
        let solution = solve_scored(&self.game, &opts)?;
        Ok(Box::new(ScoredAnswer {
            command: self.command,
            solution,
        }))
    }

    fn solve_distributed(
        &self,
        opts: &SolveOptions,
        ex: &dyn retrograde_solve::exchange::Exchange,
    ) -> Result<(Box<dyn Answer + '_>, retrograde_tier::Traffic), Error> {
        let opts = recorded(opts, self.command, &self.params);
        let (solution, traffic) = retrograde_tier::solve_distributed(&self.game, &opts, ex, false)?;
        let answer = ScoredAnswer {
            command: self.command,
            solution: solution.into(),
        };
        Ok((Box::new(answer), traffic))
    }

    fn open(&self, storage: Arc<dyn Storage>) -> Result<Option<Box<dyn Answer + '_>>, Error> {
        Ok(open_scored(&self.game, storage)?.map(|solution| {
            Box::new(ScoredAnswer {
                command: self.command,
                solution,
            }) as Box<dyn Answer + '_>
        }))
    }
}

struct ScoredAnswer<'g, G: ScoredGame + DenseIndex> {
    command: &'static str,
    solution: ScoredSolution<'g, G>,
}

impl<G: ScoredGame + DenseIndex + Notation + Send + Sync + 'static> Answer for ScoredAnswer<'_, G> {
    fn report(&self) -> Result<Report, Error> {
        let st = self.solution.stats().clone();
        let start = self
            .solution
            .start_value()?
            .ok_or_else(|| Error::Unsupported("this game has no start".into()))?;
        Ok(Report {
            game: self.command.into(),
            standard: Some((start.value().unwrap_or(Value::Draw), st)),
            score: Some(start),
            timed: true,
            ..Report::default()
        })
    }

    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        let game = self.solution.game();
        let (p, side) = resolve(game, q)?;
        let value = self.solution.value(&p).map_err(|_| {
            QueryError::Bad(format!(
                "{} is not a position of this game",
                game.position_string(&p, side)
            ))
        })?;
        let ranked = self.solution.moves(&p)?;
        let mut named = Vec::new();
        game.named_moves(&p, side, &mut named);
        let name_of = |c: &G::Position| {
            named
                .iter()
                .find(|(_, q)| q == c)
                .map(|(n, _)| n.clone())
                .unwrap_or_default()
        };
        let moves = ranked
            .iter()
            .map(|(c, v)| (name_of(c), v.value().unwrap_or(Value::Draw)))
            .collect();
        let scores = ranked.iter().map(|(_, v)| *v).collect();
        let position = game.position_string(&p, side);
        let mut answer = QueryAnswer {
            board: None,
            picture: game.render(&p, side),
            side: game.side_names()[usize::from(side & 1)].clone(),
            value: value.value().unwrap_or(Value::Draw),
            moves,
            more: 0,
            scores: Some((value, scores)),
            position,
        };
        answer.cut();
        Ok(answer)
    }

    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), String> {
        let game = self.solution.game();
        let start = match from {
            Some(text) => {
                let (p, side) = game.parse_position(text).map_err(|e| {
                    format!(
                        "position {:?}: {e} (expected {})",
                        shorten(text),
                        game.position_help()
                    )
                })?;
                self.solution
                    .value(&p)
                    .map_err(|_| format!("position {:?} is not one of this game", shorten(text)))?;
                Some((p, side))
            }
            None => None,
        };
        let play =
            ScoredPlay::new(&self.solution, game.title(), start).map_err(|e| e.to_string())?;
        start_session(play, side)
    }
}
