//! One [`Built`] and one [`Answer`] for every tier game with a notation, with or without
//! scores: a game with scores (`type Score = Scores`: Dots and Boxes, Kalah) reports and
//! answers with them. What an entry adds to a game's rules ([`Hooks`]) is the standard
//! game's unless it says otherwise: Connect-4 checks its size, chess reports by side to move.

use crate::{Answer, Built, Query, QueryAnswer, QueryError, Report, Solved, TooBig, Unanswered};
use retrograde_games::about::About;
use retrograde_games::connect4::{position_bound, Connect4};
use retrograde_games::play::{start_session, DynSession, TierPlay};
use retrograde_solve::exchange::Exchange;
use retrograde_solve::{Scored, Value};
use retrograde_tier::{
    play_moves, replay, Error, Notation, Scoring, SolveOptions, Solved as _, Storage, TierGame,
    TierSolution, Traffic, Turn,
};
use std::marker::PhantomData;
use std::sync::Arc;

/// What a tier game's entry adds to its rules where it differs from the standard tier game:
/// a size check of its own, files even without `--db`, a report of its own. Every item has
/// the standard game's default ([`Standard`]).
pub trait Hooks<G: Notation>: Send + Sync + 'static {
    /// Whether positions are named by moves from the start (`--query MOVES`); a game
    /// without a start (a chess ending) is asked by position (`query DB --position`).
    const FROM_START: bool = true;

    /// Whether `--dump` writes every position as CSV ([`Hooks::dump`]).
    const DUMPS: bool = false;

    /// Whether `--compact` applies: the game's tables hold both sides to move
    /// (`TierGame::sides`), so that a finished database may keep one side's values and
    /// derive the other's (chess endings).
    const COMPACTS: bool = false;

    /// Refuses sizes out of reach that the engine's memory plan cannot tell
    /// ([`Built::check`]).
    ///
    /// # Errors
    /// What would be needed, and why it is refused.
    fn check(game: &G, memory_limit: Option<u64>, stored: bool) -> Result<(), TooBig> {
        let _ = (game, memory_limit, stored);
        Ok(())
    }

    /// Whether solving keeps the tiers in files even without `--db`
    /// ([`Built::needs_storage`]).
    fn needs_storage(game: &G) -> bool {
        let _ = game;
        false
    }

    /// Whether it is a set of tables solved as one (a chess tablebase): the run logs a line
    /// per table and always resumes into a database ([`Built::logs_tiers`],
    /// [`Built::resumes`]).
    fn is_set(game: &G) -> bool {
        let _ = game;
        false
    }

    /// Whether its report reads every value, so that across ranks rank 0 keeps them all.
    fn reads_every_value(game: &G) -> bool {
        let _ = game;
        false
    }

    /// The report of a solution ([`standard`]: the start's value and the totals).
    ///
    /// # Errors
    /// A value that cannot be read.
    fn report(solution: &TierSolution<'_, G>, about: &About) -> Result<Report, Error> {
        standard(solution, about)
    }

    /// Writes every position with its value as CSV (games that say [`Hooks::DUMPS`]).
    ///
    /// # Errors
    /// A write that fails, or a value that cannot be read.
    fn dump(solution: &TierSolution<'_, G>, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let _ = (solution, out);
        Err(std::io::Error::other("this game has no --dump"))
    }
}

/// The standard tier game's entry: every [`Hooks`] default.
pub struct Standard;

impl<G: Notation> Hooks<G> for Standard {}

/// Connect-4's entry: its tiers in files (a temporary directory without `--db`), and a
/// bound on its positions before the engine's plan (which cannot know a sorted tier's
/// size before finding it).
pub struct Connect4Sizes;

impl Hooks<Connect4> for Connect4Sizes {
    fn check(g: &Connect4, _limit: Option<u64>, _stored: bool) -> Result<(), TooBig> {
        let bound = position_bound(g.width(), g.height());
        if bound > 1e12 {
            return Err(TooBig::Positions {
                bound,
                largest: "the largest board solved here is 6x5, 2.8e9",
            });
        }
        if g.width() > 16 {
            return Err(TooBig::Columns {
                width: g.width(),
                max: 16,
            });
        }
        Ok(())
    }

    fn needs_storage(_: &Connect4) -> bool {
        true
    }
}

/// A tier game built from its parameters, with its entry's [`Hooks`].
pub struct TierBuilt<G, H = Standard> {
    game: G,
    about: &'static About,
    /// The parameter values, recorded in a database.
    params: serde_json::Value,
    hooks: PhantomData<H>,
}

impl<G, H> TierBuilt<G, H> {
    /// `game`, described by `about`, built from the parameter values `params` (a database
    /// records them).
    pub fn new(game: G, about: &'static About, params: serde_json::Value) -> Self {
        TierBuilt {
            game,
            about,
            params,
            hooks: PhantomData,
        }
    }

    /// The game.
    pub fn game(&self) -> &G {
        &self.game
    }
}

impl<G: Notation + Send + Sync + 'static, H: Hooks<G>> Built for TierBuilt<G, H> {
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
        H::needs_storage(&self.game)
    }

    fn logs_tiers(&self) -> bool {
        H::is_set(&self.game)
    }

    fn resumes(&self) -> bool {
        H::is_set(&self.game)
    }

    /// The engine's own plan (the one it checks again before it allocates).
    fn memory_needed(&self, stored: bool) -> Result<Option<u64>, Error> {
        retrograde_tier::memory_plan(&self.game, stored)
    }

    fn check(&self, memory_limit: Option<u64>, stored: bool) -> Result<(), TooBig> {
        H::check(&self.game, memory_limit, stored)
    }

    fn on_ranks(&self) -> bool {
        true
    }

    /// Across ranks, rank 0 answers as one process: from the files it puts together when
    /// the tiers go to files, else from the tiers it gathers (a start's, or a game's root
    /// tiers when values are kept).
    fn solve_over(&self, opts: &SolveOptions, ex: &dyn Exchange) -> Result<Solved<'_>, Error> {
        let mut opts = recorded(opts, self.about.name, &self.params);
        opts.keep_values |= ex.size() > 1 && H::reads_every_value(&self.game);
        let (solution, traffic) = solve_tiers(&self.game, &opts, ex)?;
        let answer = Box::new(TierAnswer {
            built: self,
            solution,
        });
        Ok(Solved { answer, traffic })
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

struct TierAnswer<'b, G: Notation, H> {
    built: &'b TierBuilt<G, H>,
    solution: TierSolution<'b, G>,
}

impl<G: Notation + Send + Sync + 'static, H: Hooks<G>> Answer for TierAnswer<'_, G, H> {
    fn report(&self) -> Result<Report, Error> {
        H::report(&self.solution, self.built.about)
    }

    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        query(&self.solution, q)
    }

    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), QueryError> {
        if from.is_none() && self.solution.game().start().is_none() {
            return Err(QueryError::Unanswered(Unanswered::NoStartPosition));
        }
        session(&self.solution, self.built.game.title(), side, from)
    }

    fn dump(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        H::dump(&self.solution, out)
    }
}

/// The standard report of a tier game: the start's value (with its score, for a game with
/// scores) and the totals; the positions up to symmetry (named by the game's
/// [`About::symmetry`]) when symmetry reduced them; the boards seen by the player to move
/// for a game stored as the mover sees it ([`TierGame::MOVER_VIEW`]); each tier's size.
///
/// # Errors
/// A value that cannot be read; a game without a start.
pub fn standard<G: Notation>(
    solution: &TierSolution<'_, G>,
    about: &About,
) -> Result<Report, Error> {
    let st = solution.stats().clone();
    let game = solution.game();
    let start = match game.start() {
        Some(p) => solution.scored(&p)?,
        None => None,
    }
    .ok_or_else(|| Error::Unsupported("this game has no start".into()))?;
    let mut lines = Vec::new();
    let mut fields = Vec::new();
    if st.classes != st.positions || !about.symmetry.is_empty() {
        let by = match about.symmetry {
            "" => "symmetry",
            named => named,
        };
        lines.push(format!("positions up to {by} {}", st.classes));
        fields.push(("symmetry_reduced".into(), serde_json::json!(st.classes)));
    }
    if G::MOVER_VIEW {
        lines.push(format!(
            "distinct boards seen by the player to move {}",
            st.states
        ));
        fields.push(("states".into(), serde_json::json!(st.states)));
    }
    fields.push((
        "tier_sizes".into(),
        serde_json::json!(solution.tier_sizes()),
    ));
    Ok(Report {
        game: about.name.into(),
        first_line: None,
        lines,
        fields,
        standard: Some((start.value().unwrap_or(Value::Draw), st)),
        score: <G::Score as Scoring<G>>::SCORED.then_some(start),
        timed: true,
        example: None,
        taken: None,
    })
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
