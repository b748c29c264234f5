//! One [`Built`] and one [`Answer`] for every tier game with a notation, with or without
//! scores: a game with scores (`type Score = Scores`: Dots and Boxes, Kalah) reports and
//! answers with them.

use crate::{Answer, Built, Query, QueryAnswer, QueryError, Report, Solved};
use retrograde_games::play::{start_session, DynSession, TierPlay};
use retrograde_solve::exchange::Exchange;
use retrograde_solve::{Scored, Value};
use retrograde_tier::{
    play_moves, replay, Error, Notation, Scoring, SolveOptions, Solved as _, Storage, TierGame,
    TierSolution, Traffic, Turn,
};
use std::sync::Arc;

/// A game's own check before solving: (game, memory limit, tiers in files).
pub type Check<G> = fn(&G, Option<u64>, bool) -> Result<(), crate::TooBig>;

/// A tier game and how to report it.
pub struct TierBuilt<G> {
    /// The game.
    pub game: G,
    /// The command name (`quixo`).
    pub command: &'static str,
    /// What the symmetry classes are called in the report: `rotation and reflection`.
    pub symmetry: &'static str,
    /// Whether to report distinct states (games whose positions are the mover's view).
    pub states: bool,
    /// Whether solving keeps its tiers in files even without `--db`.
    pub stored: bool,
    /// A check of its own before solving (else: the values of every tier must fit).
    pub check: Option<Check<G>>,
    /// The parameter values, recorded in a database.
    pub params: serde_json::Value,
}

impl<G: Notation + Send + Sync + 'static> Built for TierBuilt<G> {
    fn name(&self) -> String {
        self.game.name()
    }

    fn title(&self) -> String {
        self.game.title()
    }

    fn side_names(&self) -> [String; 2] {
        self.game.side_names()
    }

    fn needs_storage(&self) -> bool {
        self.stored
    }

    /// The engine's own plan (the one it checks again before it allocates).
    fn memory_needed(&self, stored: bool) -> Result<Option<u64>, Error> {
        retrograde_tier::memory_plan(&self.game, stored)
    }

    fn check(&self, memory_limit: Option<u64>, stored: bool) -> Result<(), crate::TooBig> {
        match self.check {
            Some(f) => f(&self.game, memory_limit, stored),
            None => Ok(()),
        }
    }

    fn on_ranks(&self) -> bool {
        true
    }

    fn solve_over(&self, opts: &SolveOptions, ex: &dyn Exchange) -> Result<Solved<'_>, Error> {
        let opts = recorded(opts, self.command, &self.params);
        let (solution, traffic) = solve_tiers(&self.game, &opts, ex)?;
        Ok(Solved {
            answer: Box::new(TierAnswer {
                built: self,
                solution,
            }),
            traffic,
        })
    }

    fn open(&self, storage: Arc<dyn Storage>) -> Result<Option<Box<dyn Answer + '_>>, Error> {
        Ok(
            retrograde_tier::open_lazy(&self.game, storage)?.map(|solution| {
                Box::new(TierAnswer {
                    built: self,
                    solution,
                }) as Box<dyn Answer + '_>
            }),
        )
    }
}

struct TierAnswer<'b, G: Notation> {
    built: &'b TierBuilt<G>,
    solution: TierSolution<'b, G>,
}

impl<G: Notation + Send + Sync + 'static> Answer for TierAnswer<'_, G> {
    fn report(&self) -> Result<Report, Error> {
        let st = self.solution.stats().clone();
        let game = self.solution.game();
        let start = match game.start() {
            Some(p) => self.solution.scored(&p)?,
            None => None,
        }
        .ok_or_else(|| Error::Unsupported("this game has no start".into()))?;
        let mut lines = Vec::new();
        let mut fields = Vec::new();
        if st.classes != st.positions || !self.built.symmetry.is_empty() {
            lines.push(format!(
                "positions up to {} {}",
                self.built.symmetry, st.classes
            ));
            fields.push(("symmetry_reduced".into(), serde_json::json!(st.classes)));
        }
        if self.built.states {
            lines.push(format!(
                "distinct boards seen by the player to move {}",
                st.states
            ));
            fields.push(("states".into(), serde_json::json!(st.states)));
        }
        fields.push((
            "tier_sizes".into(),
            serde_json::json!(self.solution.tier_sizes()),
        ));
        Ok(Report {
            game: self.built.command.into(),
            first_line: None,
            lines,
            fields,
            standard: Some((start.value().unwrap_or(Value::Draw), st)),
            score: <G::Score as Scoring<G>>::SCORED.then_some(start),
            timed: true,
            example: None,
        })
    }

    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        query(&self.solution, q)
    }

    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), QueryError> {
        session(&self.solution, self.built.title(), side, from)
    }
}

/// Solves `game` over `ex`: in one process every tier is kept when values are
/// ([`SolveOptions::keep_values`]); across ranks, rank 0 keeps what its answer reads (see
/// `retrograde_tier::solve_distributed`).
pub(crate) fn solve_tiers<'g, G: TierGame>(
    game: &'g G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
) -> Result<(TierSolution<'g, G>, Traffic), Error> {
    let whole = ex.size() == 1 && opts.keep_values;
    retrograde_tier::solve_distributed(game, opts, ex, whole)
}

/// `opts` with what a database records to rebuild the game: its command and arguments.
pub(crate) fn recorded(
    opts: &SolveOptions,
    command: &str,
    params: &serde_json::Value,
) -> SolveOptions {
    let mut opts = opts.clone();
    opts.params = serde_json::json!({ "game": command, "args": params });
    opts
}

/// At most 40 characters of `s`, for messages.
pub(crate) fn shorten(s: &str) -> String {
    let t: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        format!("{t}…")
    } else {
        t
    }
}

/// Answers a query from a solution of a tier game: the position (after the moves), its
/// value and every move's, best first.
pub(crate) fn query<G: Notation + Send + Sync>(
    solution: &TierSolution<'_, G>,
    q: &Query,
) -> Result<QueryAnswer, QueryError> {
    let (p, side) = resolve(solution.game(), q)?;
    answer(solution, &p, side)
}

/// The position a query names and the side to move there.
pub(crate) fn resolve<G: Notation>(game: &G, q: &Query) -> Result<(G::Position, u8), QueryError> {
    Ok(match q {
        Query::Moves(m) => replay(game, m)?,
        Query::Position(text) => parse(game, text)?,
        Query::After(text, moves) => {
            let (p, side) = parse(game, text)?;
            play_moves(game, p, side, moves)?
        }
    })
}

/// The answer at `p`, `side` to move, from a solution of a tier game: its value and every
/// move's, best first.
pub(crate) fn answer<G: Notation + Send + Sync>(
    solution: &TierSolution<'_, G>,
    p: &G::Position,
    side: u8,
) -> Result<QueryAnswer, QueryError> {
    let game = solution.game();
    let p = *p;
    let value = solution.scored(&p)?.ok_or_else(|| QueryError::NotHeld {
        position: game.position_string(&p, side),
        from_start: game.start().is_some(),
    })?;
    let mut named = Vec::new();
    if game.primitive(&p).is_none() {
        game.named_moves(&p, side, &mut named);
    }
    let mut moves = Vec::with_capacity(named.len());
    for (name, c) in named {
        let v = solution.scored(&c)?.ok_or_else(|| {
            QueryError::Lookup(Error::Game(format!(
                "move {name} leads out of the database"
            )))
        })?;
        let reward = match game.tier(&c) == game.tier(&p) {
            true => 0,
            false => <G::Score as Scoring<G>>::reward(game, &p, &c),
        };
        moves.push((name, v.through_with(keeps(game, &p, &c), reward)));
    }
    // Best first; equal values in the game's move order.
    moves.sort_by_key(|m| std::cmp::Reverse(m.1));
    let position = game.position_string(&p, side);
    let mut board = crate::Grid::from_position(&position);
    if let Some(b) = &mut board {
        b.line = game
            .winning_cells(&p, side)
            .into_iter()
            .map(|(r, c)| b.cell_name(r as usize, c as usize))
            .collect();
    }
    let mut answer = QueryAnswer {
        board,
        position,
        picture: game.render(&p, side),
        side: game.side_names()[usize::from(side & 1)].clone(),
        value: plain(value),
        moves: moves.iter().map(|(n, v)| (n.clone(), plain(*v))).collect(),
        more: 0,
        scores: <G::Score as Scoring<G>>::SCORED
            .then(|| (value, moves.iter().map(|m| m.1).collect())),
    };
    answer.cut();
    Ok(answer)
}

/// Whether the mover moves again after the move from `p` to `c`.
fn keeps<G: TierGame>(game: &G, p: &G::Position, c: &G::Position) -> bool {
    <G::Turn as Turn<G>>::keeps_turn(game, p, c)
}

/// A value without its margin (a game with scores that never ends after points were
/// collected reads as a draw; the answer's scores have it whole).
fn plain(v: Scored) -> Value {
    v.value().unwrap_or(Value::Draw)
}

/// A position in the game's notation, or a query error that says what was expected.
pub(crate) fn parse<G: Notation>(game: &G, text: &str) -> Result<(G::Position, u8), QueryError> {
    game.parse_position(text)
        .map_err(|why| QueryError::Position {
            text: shorten(text),
            why: Box::new(why),
            expected: game.position_help(),
        })
}

/// A play session against perfect play from a solution of a tier game.
pub(crate) fn session<'a, G: Notation + Send + Sync>(
    solution: &'a TierSolution<'_, G>,
    title: String,
    side: &str,
    from: Option<&str>,
) -> Result<(Box<dyn DynSession + 'a>, String), QueryError> {
    let game = solution.game();
    let start = match from {
        Some(text) => {
            let (p, side) = parse(game, text)?;
            if solution.scored(&p)?.is_none() {
                return Err(QueryError::NotHeld {
                    position: game.position_string(&p, side),
                    from_start: game.start().is_some(),
                });
            }
            Some((p, side))
        }
        None => None,
    };
    let play = TierPlay::new(solution, title, start)?;
    Ok(start_session(play, side)?)
}
