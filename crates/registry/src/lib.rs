//! Every built-in game, described once.
//!
//! An [`Entry`] gives a game's name, its rules in words, its parameters ([`Param`]), and how
//! to build it from their values; the built game ([`Built`]) solves itself and answers
//! ([`Answer`]) with a [`Report`], queries by moves or position, a play session, or (IOI
//! Scores) a protocol. `retrograde game`, `play`, `query` and `serve` dispatch from
//! [`entries`], and a database records its game's name and parameters so that it can be
//! opened with nothing but its directory.
//!
//! This crate does no I/O: a parameter that is a file arrives as bytes ([`Input`]).
//!
//! ```
//! use retrograde_registry::{entry, Args, Query};
//! use retrograde_solve::exchange::Solo;
//! use retrograde_tier::SolveOptions;
//! let e = entry("tictactoe").unwrap();
//! let args = Args::with_defaults(e.params).unwrap();
//! let game = e.build(&args).unwrap();
//! let answer = game.solve(&SolveOptions::default(), &Solo).unwrap().answer;
//! let q = answer.query(&Query::Moves(vec!["b2".into()])).unwrap();
//! assert_eq!(q.value.to_string(), "tie in 8");
//! assert_eq!(q.moves.len(), 8);
//! ```
#![warn(missing_docs)]

pub mod chess;
mod database;
mod entries;
mod entry;
mod explored;
mod heap;
mod held;
mod params;
mod play_graph;
mod problems;
pub mod report;
mod run;
mod tier;

pub use database::{database, open, Database, GraphAnswer, Opened};
pub use entries::{entries, entry, tier_games};
pub use entry::{Drawing, Entry, Make};
pub use explored::{Explore, Explored};
pub use held::Held;
pub use params::{parse, ArgError, ArgValue, Args, Input, Kind, Param, OPTIONAL};
pub use report::{plies, Report, Taken};
pub use run::{Ran, Reuse, Run, RunError};
pub use tier::{Hooks, Standard, TierBuilt};

use retrograde_games::play::DynSession;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::{Scored, Value};
use retrograde_tier::{Error, SolveOptions, Storage, Traffic};
use std::sync::Arc;

/// A game built from its parameters, ready to solve.
pub trait Built: Send + Sync {
    /// The game and its parameters: `connect4 5x4` (a database records it).
    fn name(&self) -> String;

    /// A few lines naming the game and its rules, for `play` (none by default).
    fn title(&self) -> String {
        String::new()
    }

    /// The names of the sides, the side that moves first first (`X`, `O`; `white`,
    /// `black`): a drawing's legend names the players with them.
    fn side_names(&self) -> [String; 2] {
        ["first player".into(), "second player".into()]
    }

    /// Whether solving should keep its tiers in files even without `--db` (a temporary
    /// directory), because they would not all fit in memory.
    fn needs_storage(&self) -> bool {
        false
    }

    /// Whether progress is logged a tier at a time (a long solve of many tables, often run
    /// in the background): one line per tier finished, with the time left.
    fn logs_tiers(&self) -> bool {
        false
    }

    /// Whether a solve into a database always takes up what an interrupted one left (as
    /// with `--resume`).
    fn resumes(&self) -> bool {
        false
    }

    /// The bytes of memory solving will need at least, when known before solving (`stored`:
    /// whether tiers go to files); the caller compares it with its limit and names both.
    ///
    /// # Errors
    /// A size past what can be counted.
    fn memory_needed(&self, stored: bool) -> Result<Option<u64>, Error> {
        let _ = stored;
        Ok(None)
    }

    /// Refuses sizes out of reach that [`Built::memory_needed`] cannot tell (a game's own
    /// estimate, such as Connect-4's number of positions): `memory_limit` is the bytes
    /// available, `stored` whether tiers go to files. [`plan`] calls it after comparing
    /// the memory needed with the limit; the default refuses nothing.
    ///
    /// # Errors
    /// What would be needed, and why it is refused ([`TooBig`]).
    fn check(&self, memory_limit: Option<u64>, stored: bool) -> Result<(), TooBig> {
        let _ = (memory_limit, stored);
        Ok(())
    }

    /// Whether it is solved by the tier engine, which runs across the ranks of an
    /// [`Exchange`] as it runs in one process. The other games are solved in one process
    /// only: [`dyn Built::solve`](Built#method.solve) refuses them on more than one rank.
    fn on_ranks(&self) -> bool {
        false
    }

    /// Solves it over `ex` ([`Solo`](retrograde_solve::exchange::Solo): one process); every
    /// rank calls it alike. Call it through [`dyn Built::solve`](Built#method.solve), the one
    /// place that refuses ranks for a game that runs in one process only.
    ///
    /// # Errors
    /// See [`Error`].
    fn solve_over(&self, opts: &SolveOptions, ex: &dyn Exchange) -> Result<Solved<'_>, Error>;

    /// The finished database in `storage`, if there is one (tier games only).
    ///
    /// # Errors
    /// A damaged or foreign database.
    fn open(&self, storage: Arc<dyn Storage>) -> Result<Option<Box<dyn Answer + '_>>, Error> {
        let _ = storage;
        Ok(None)
    }
}

impl<'b> dyn Built + 'b {
    /// Solves it: in one process (`ex` is [`Solo`](retrograde_solve::exchange::Solo)), or
    /// across the ranks of `ex` (every rank calls this alike: see
    /// `retrograde_tier::solve_distributed`), where rank 0's answer reports as one
    /// process's. A game that is not a tier game ([`Built::on_ranks`]) is refused on more
    /// than one rank, here.
    ///
    /// # Errors
    /// See [`Error`]; [`Error::Unsupported`] for a game that runs in one process only, on
    /// ranks.
    pub fn solve(&self, opts: &SolveOptions, ex: &dyn Exchange) -> Result<Solved<'_>, Error> {
        if ex.size() > 1 && !self.on_ranks() {
            return Err(Error::Unsupported(format!(
                "{} is not solved across ranks: run it as one process (without mpirun)",
                self.name()
            )));
        }
        self.solve_over(opts, ex)
    }
}

/// A solve's answer, and what crossed between ranks to make it (nothing in one process).
pub struct Solved<'a> {
    /// The answer.
    pub answer: Box<dyn Answer + 'a>,
    /// Bytes and positions exchanged, summed over the ranks.
    pub traffic: Traffic,
}

impl<'a> Solved<'a> {
    /// An answer made in one process.
    pub fn alone(answer: Box<dyn Answer + 'a>) -> Solved<'a> {
        Solved {
            answer,
            traffic: Traffic::default(),
        }
    }
}

/// Why a game cannot be built from its parameters ([`Entry::build`]). `Display` gives the
/// message `retrograde game` prints.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// A parameter missing or refused.
    Arg(ArgError),
    /// The game refuses its parameters: `connect4: a 0x4 board has no cells`.
    Game {
        /// The game's command name (`connect4`).
        game: &'static str,
        /// Why.
        why: retrograde_games::GameError,
    },
    /// An input file that does not parse: `map.txt:3: ...`.
    Input {
        /// The file's name.
        name: String,
        /// Where and why.
        error: retrograde_graph::format::ParseError,
    },
    /// Parameters that do not go together or that the game refuses, in words (chess given
    /// both an ending and `--up-to`, an octal code, too many heaps for a splitting game).
    Invalid(String),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Arg(e) => e.fmt(f),
            BuildError::Game { game, why } => write!(f, "{game}: {why}"),
            BuildError::Input { name, error } => match error.line {
                Some(l) => write!(f, "{name}:{l}: {}", error.message),
                None => write!(f, "{name}: {}", error.message),
            },
            BuildError::Invalid(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<ArgError> for BuildError {
    fn from(e: ArgError) -> Self {
        BuildError::Arg(e)
    }
}

/// Why a game's own check refuses its size ([`Built::check`]); [`plan`] puts the game's
/// name before the message.
#[derive(Copy, Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TooBig {
    /// More positions than can be solved here.
    Positions {
        /// The game's bound on its positions.
        bound: f64,
        /// The largest size solved here, and its positions, in words: `the largest board
        /// solved here is 6x5, 2.8e9`.
        largest: &'static str,
    },
    /// More columns than the game's solver takes.
    Columns {
        /// The columns asked for.
        width: u32,
        /// The most it takes.
        max: u32,
    },
}

impl std::fmt::Display for TooBig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TooBig::Positions { bound, largest } => {
                write!(f, "far too many positions: up to {bound:.1e} ({largest})")
            }
            TooBig::Columns { max, .. } => write!(f, "at most {max} columns"),
        }
    }
}

impl std::error::Error for TooBig {}

/// Why a game is refused before anything big is allocated. Each names the game (its
/// [`Built::name`]); the message starts with it.
#[derive(Debug)]
pub enum Refused {
    /// Its plan needs more memory than the limit: `connect4 7x6: needs about ..., limit
    /// ... (from MemAvailable)`.
    Memory {
        /// The game.
        game: String,
        /// What it needs (each rank's share, with ranks) and the limit.
        refusal: retrograde_mem::Refusal,
    },
    /// A size the game does not support (its own check): `connect4 20x1: at most 16
    /// columns`.
    Size {
        /// The game.
        game: String,
        /// Why.
        why: TooBig,
    },
    /// Its memory plan cannot be made (the engine refuses the game's tiers).
    Plan {
        /// The game.
        game: String,
        /// Why.
        error: Error,
    },
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Memory { game, refusal } => write!(f, "{game}: {refusal}"),
            Refused::Size { game, why } => write!(f, "{game}: {why}"),
            Refused::Plan { game, error } => write!(f, "{game}: {error}"),
        }
    }
}

// The message holds its reason's: no `source`, so that a chain of errors says it once.
impl std::error::Error for Refused {}

/// The memory plan of a built game, checked before solving (by `retrograde game` and
/// `play`, and by the Python package, so both refuse alike): the memory it needs, when
/// known ([`Built::memory_needed`]), against `limit`, then its own checks
/// ([`Built::check`]). `stored`: whether tiers go to files; `ranks` processes with the same
/// limit each share the need. Messages start with the game's name.
///
/// # Errors
/// What would be needed and the limit, or why the size is refused.
pub fn plan(
    built: &dyn Built,
    stored: bool,
    limit: Option<retrograde_mem::Limit>,
    ranks: u64,
) -> Result<(), Refused> {
    let game = || built.name();
    let ranks = ranks.max(1);
    let need = built.memory_needed(stored).map_err(|error| Refused::Plan {
        game: game(),
        error,
    })?;
    if let Some(need) = need {
        retrograde_mem::within(need.div_ceil(ranks), limit).map_err(|refusal| Refused::Memory {
            game: game(),
            refusal,
        })?;
    }
    built
        .check(limit.map(|l| l.room().saturating_mul(ranks)), stored)
        .map_err(|why| Refused::Size { game: game(), why })
}

/// A position asked about: by the moves from the start, or in the game's notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// Move names from the start (empty: the start).
    Moves(Vec<String>),
    /// A position in the game's own notation.
    Position(String),
    /// The position after move names played from a position in the game's notation (for
    /// games without a start, such as a chess ending).
    After(String, Vec<String>),
}

/// What a query answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryAnswer {
    /// The position in the game's notation.
    pub position: String,
    /// A picture of it.
    pub picture: String,
    /// The name of the side to move.
    pub side: String,
    /// Its value for the side to move.
    pub value: Value,
    /// The legal moves (their names) with their values for the player who makes them, best
    /// first: every one, or the best [`MAX_LISTED`] when there are more.
    pub moves: Vec<(String, Value)>,
    /// How many legal moves are not listed (after the best [`MAX_LISTED`]).
    pub more: u64,
    /// The board as a grid of cells, for games whose positions are one (drawings).
    pub board: Option<Grid>,
    /// For games with scores: the position's value with its score, and each listed move's
    /// (in the order of `moves`). The JSON then takes outcomes and remoteness from them and
    /// adds `score`.
    pub scores: Option<(Scored, Vec<Scored>)>,
}

/// The most moves an answer lists (the best ones; `more` counts the rest): a graph vertex
/// with ten million moves would otherwise make an answer of half a gigabyte.
pub const MAX_LISTED: usize = 1000;

impl QueryAnswer {
    /// Keeps the best [`MAX_LISTED`] of `moves` (already ranked), counting the rest in
    /// `more`.
    pub fn cut(&mut self) {
        if self.moves.len() > MAX_LISTED {
            self.more += (self.moves.len() - MAX_LISTED) as u64;
            self.moves.truncate(MAX_LISTED);
            if let Some((_, m)) = &mut self.scores {
                m.truncate(MAX_LISTED);
            }
        }
    }
}

impl QueryAnswer {
    /// The answer as one line of JSON: `retrograde query --output json` prints it and the
    /// web explorer's `/api/query` returns it, so the two cannot differ.
    ///
    /// `{"position", "to_move", "outcome", "remoteness" (null for a draw), "moves": [{"move",
    /// "outcome", "remoteness"}], "more", "board": {"rows", "cols", "cells"}}`, each move's
    /// value for the player who makes it, best first; `more` (the moves not listed, after
    /// the best [`MAX_LISTED`]) only when there are some; `board` only for games drawn on
    /// a grid.
    pub fn to_json(&self) -> String {
        let scored = self.scores.as_ref();
        let json = AnswerJson {
            position: &self.position,
            to_move: &self.side,
            outcome: scored
                .map_or(self.value.outcome(), |s| s.0.outcome())
                .as_str(),
            remoteness: scored.map_or(self.value.remoteness(), |s| s.0.remoteness),
            score: scored.map(|s| s.0.score),
            moves: self
                .moves
                .iter()
                .enumerate()
                .map(|(i, (m, v))| {
                    let s = scored.and_then(|s| s.1.get(i));
                    MoveJson {
                        r#move: m,
                        outcome: s.map_or(v.outcome(), |s| s.outcome()).as_str(),
                        remoteness: s.map_or(v.remoteness(), |s| s.remoteness),
                        score: s.map(|s| s.score),
                    }
                })
                .collect(),
            more: self.more,
            board: self.board.as_ref(),
        };
        // Strings, numbers and a list of structs: serializing cannot fail.
        serde_json::to_string(&json).expect("an answer always serializes")
    }
}

/// The JSON shape of a [`QueryAnswer`] (fields in this order).
#[derive(serde::Serialize)]
struct AnswerJson<'a> {
    position: &'a str,
    to_move: &'a str,
    outcome: &'static str,
    remoteness: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<i64>,
    moves: Vec<MoveJson<'a>>,
    #[serde(skip_serializing_if = "is_zero")]
    more: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    board: Option<&'a Grid>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(serde::Serialize)]
struct MoveJson<'a> {
    r#move: &'a str,
    outcome: &'static str,
    remoteness: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<i64>,
}

/// A board as rows of cells, for drawing it: the games whose position notation is a grid
/// (rows from the top separated by `/`, one character a cell, then perhaps the side to
/// move: `x.o/.../... o`; or a FEN, whose digits count empty cells) are drawn from it,
/// with no code of their own. Cells are named as in move names: files `a`, `b`… from the
/// left, ranks `1`, `2`… from the bottom.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Grid {
    /// The number of rows.
    pub rows: usize,
    /// The number of columns.
    pub cols: usize,
    /// Each row from the top, one character a cell: `.` empty, else the piece (`x` the
    /// first player's, `o` the second's; chess: white's upper case, black's lower case).
    pub cells: Vec<String>,
    /// The cells that decided a finished game (the winning line), named as moves name
    /// them (`c3`); empty (and left out of the JSON) otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub line: Vec<String>,
}

impl Grid {
    /// The grid of a position string, if it is one: its first word is rows of equal
    /// length (at most 26 cells, letters or `.`) separated by `/`, at most 99 of them. With
    /// two rows or more, a number stands for that many empty cells (FEN: `4k3`).
    pub fn from_position(text: &str) -> Option<Grid> {
        let board = text.split_whitespace().next()?;
        let runs = board.contains('/');
        let mut cells = Vec::new();
        for row in board.split('/') {
            let mut cell = String::new();
            let mut count = 0usize;
            for b in row.bytes() {
                if runs && b.is_ascii_digit() {
                    count = count * 10 + usize::from(b - b'0');
                    if count > 26 {
                        return None;
                    }
                    continue;
                }
                cell.extend(std::iter::repeat_n('.', count));
                count = 0;
                if !(b == b'.' || b.is_ascii_alphabetic()) {
                    return None;
                }
                cell.push(char::from(b));
            }
            cell.extend(std::iter::repeat_n('.', count));
            cells.push(cell);
        }
        let cols = cells.first()?.len();
        let fits = (1..=26).contains(&cols)
            && cells.len() <= 99
            && cells.iter().all(|row| row.len() == cols);
        fits.then_some(Grid {
            rows: cells.len(),
            cols,
            cells,
            line: Vec::new(),
        })
    }

    /// The name of the cell at `row` (from the top) and `col` (from the left): `a1` is
    /// the bottom left.
    pub fn cell_name(&self, row: usize, col: usize) -> String {
        format!(
            "{}{}",
            char::from(b'a' + (col % 26) as u8),
            self.rows.saturating_sub(row)
        )
    }
}

/// IOI-style interaction without I/O: lines out, lines in.
pub trait Protocol {
    /// Lines to write now (flushed before reading).
    fn output(&mut self) -> Vec<String>;
    /// Whether the game is over.
    fn done(&self) -> bool;
    /// One line read.
    ///
    /// # Errors
    /// A bad or illegal move: which and why (IOI Scores is the one game with a protocol).
    fn input(&mut self, line: &str) -> Result<(), retrograde_games::scores::OpponentError>;
    /// What to say when the input ends before the game does.
    fn ended_early(&self) -> String;
}

/// A solved game (shared between threads by servers).
pub trait Answer: Send + Sync {
    /// The report of the solve.
    ///
    /// # Errors
    /// A value that cannot be read.
    fn report(&self) -> Result<Report, Error>;

    /// Answers a query.
    ///
    /// # Errors
    /// An illegal move or a malformed position (which and why), or a value that cannot be
    /// read.
    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        let _ = q;
        Err(QueryError::Unanswered(Unanswered::NoQueries))
    }

    /// [`Answer::query`], given up with [`QueryError::TooLong`] once `deadline` has passed
    /// (a server bounds the work of one request so). The default answers as `query` does:
    /// games whose answers take a bounded number of moves need no more.
    ///
    /// # Errors
    /// As [`Answer::query`], and [`QueryError::TooLong`].
    fn query_until(
        &self,
        q: &Query,
        deadline: std::time::Instant,
    ) -> Result<QueryAnswer, QueryError> {
        let _ = deadline;
        self.query(q)
    }

    /// A play session with the human on `side` (from `from`, a position in the game's
    /// notation, when given), and its opening text.
    ///
    /// # Errors
    /// A game that cannot be played, a bad side or position ([`QueryError::Side`], the
    /// variants of a query's position), a value that cannot be read.
    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), QueryError> {
        let _ = (side, from);
        Err(QueryError::Unanswered(Unanswered::NoPlay))
    }

    /// The IOI protocol, for games that have one and were asked for it.
    fn protocol(&self) -> Option<Box<dyn Protocol + '_>> {
        None
    }

    /// Writes every position of the game with its value as CSV (`--dump`; games whose
    /// [`Built::dumps`] says so).
    ///
    /// # Errors
    /// A write that fails, or a value that cannot be read.
    fn dump(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let _ = out;
        Err(std::io::Error::other("this game has no --dump"))
    }
}

/// A question a game or database does not answer, whatever the position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unanswered {
    /// The game answers no queries.
    NoQueries,
    /// The game has no position notation: it is asked by moves from its start.
    NoNotation,
    /// A graph is asked by moves from its start or by a vertex, not both.
    MovesAndVertex,
    /// The graph has no start vertex to play moves from.
    NoStart,
    /// The game cannot be played (`play`).
    NoPlay,
    /// The game is played from its start only: a start position was given.
    FromStartOnly,
    /// The game (an ending, a graph without a start vertex) is played from a position given.
    NoStartPosition,
}

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unanswered::NoQueries => "this game does not answer queries",
            Unanswered::NoNotation => {
                "this game has no position notation: ask by moves from the start"
            }
            Unanswered::MovesAndVertex => {
                "a graph is asked by moves from its start or by a vertex, not both"
            }
            Unanswered::NoStart => "the graph has no start vertex: ask for a vertex",
            Unanswered::NoPlay => "this game cannot be played",
            Unanswered::FromStartOnly => "this game is played from its start only",
            Unanswered::NoStartPosition => {
                "the game has no start position: give one with --position"
            }
        })
    }
}

/// Why a query has no answer.
#[derive(Debug)]
pub enum QueryError {
    /// A question the game or database does not answer.
    Unanswered(Unanswered),
    /// A position the game's notation cannot read: `position "x": why (expected ...)`.
    Position {
        /// The text asked (shortened when long).
        text: String,
        /// Why it is no position.
        why: Box<retrograde_tier::NotationError>,
        /// What the game's positions look like.
        expected: String,
    },
    /// A position of the game that the solution does not hold.
    NotHeld {
        /// The position, in the game's notation.
        position: String,
        /// Whether the game has a start (its solution holds what the start reaches).
        from_start: bool,
    },
    /// A vertex id or name the graph does not have.
    NoVertex {
        /// The text asked (shortened when long).
        text: String,
        /// Vertices in the graph.
        vertices: u64,
    },
    /// Move `index` (from 1) of a line is not legal where it is played.
    IllegalMove {
        /// Its place in the line, from 1.
        index: usize,
        /// The move as asked.
        asked: String,
        /// Where it was played: the legal moves there (none: the game was over), or the
        /// graph's vertices (from, to) without an edge.
        legal: Legal,
    },
    /// A move or position the game's notation cannot read, or an illegal move.
    Notation(retrograde_tier::NotationError),
    /// A value that cannot be read.
    Lookup(Error),
    /// The answer would take longer than allowed ([`Answer::query_until`]).
    TooLong(String),
    /// A side to play ([`Answer::session`]) that names no side of the game.
    Side(retrograde_games::play::SideError),
}

/// What was legal where a move of a line was not ([`QueryError::IllegalMove`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Legal {
    /// The legal moves' names there (none: the game was over).
    Moves(Vec<String>),
    /// A graph's vertices, named, with no edge from the first to the second.
    NoEdge(String, String),
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryError::Unanswered(u) => u.fmt(f),
            QueryError::Position {
                text,
                why,
                expected,
            } => write!(f, "position {text:?}: {why} (expected {expected})"),
            QueryError::NotHeld {
                position,
                from_start,
            } => {
                write!(f, "{position} is not a position this solution holds")?;
                if *from_start {
                    f.write_str(" (it cannot be reached from the start)")?;
                }
                Ok(())
            }
            QueryError::NoVertex { text, vertices } => write!(
                f,
                "{text:?} is neither a vertex id (0 to {}) nor a vertex name",
                vertices.saturating_sub(1)
            ),
            QueryError::IllegalMove {
                index,
                asked,
                legal: Legal::Moves(legal),
            } => {
                write!(f, "move {index} ({asked:?}) is not legal here (")?;
                match legal.is_empty() {
                    true => f.write_str("the game is over)"),
                    false => write!(f, "legal moves: {})", legal.join(", ")),
                }
            }
            QueryError::IllegalMove {
                index,
                asked,
                legal: Legal::NoEdge(from, to),
            } => write!(
                f,
                "move {index} ({asked:?}): vertex {from} has no move to {to}"
            ),
            QueryError::TooLong(m) => f.write_str(m),
            QueryError::Side(e) => write!(f, "--side: {e}"),
            QueryError::Lookup(e) => e.fmt(f),
            QueryError::Notation(e) => e.fmt(f),
        }
    }
}

/// The message holds the cause's (`Lookup`, `Notation`: match them for the typed cause):
/// no `source`, so that a chain of causes does not say it twice.
impl std::error::Error for QueryError {}

impl From<retrograde_tier::NotationError> for QueryError {
    fn from(e: retrograde_tier::NotationError) -> Self {
        QueryError::Notation(e)
    }
}

impl From<Error> for QueryError {
    fn from(e: Error) -> Self {
        QueryError::Lookup(e)
    }
}

impl From<retrograde_games::play::StartError> for QueryError {
    fn from(e: retrograde_games::play::StartError) -> Self {
        use retrograde_games::play::StartError;
        match e {
            StartError::Side(e) => QueryError::Side(e),
            StartError::Lookup(e) => QueryError::Lookup(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_build_says_which_game_and_why() {
        let e = entry("connect4").unwrap();
        let build = |a: &Args| e.build(a).err().expect("refused");
        let mut a = Args::with_defaults(e.params).unwrap();
        a.set("width", ArgValue::Number(0));
        let err = build(&a);
        assert_eq!(
            err,
            BuildError::Game {
                game: "connect4",
                why: retrograde_games::GameError::Connect4NoCells {
                    width: 0,
                    height: 4
                }
            }
        );
        assert_eq!(err.to_string(), "connect4: a 0x4 board has no cells");
        a.set("width", ArgValue::Number(1 << 32));
        assert!(matches!(
            build(&a),
            BuildError::Arg(ArgError::TooBig { name, value: 4294967296 }) if name == "width"
        ));
        // A file that does not parse is named with the line.
        let e = entry("police-thief").unwrap();
        let mut a = Args::with_defaults(e.params).unwrap();
        let name = e.params[0].name;
        a.set(
            name,
            ArgValue::Input(Input {
                name: "map.txt".into(),
                bytes: b"1 2\nPQ\n".to_vec(),
            }),
        );
        let err = e.build(&a).err().expect("refused");
        assert!(matches!(&err, BuildError::Input { name, .. } if name == "map.txt"));
        assert!(err.to_string().starts_with("map.txt:"), "{err}");
    }

    #[test]
    fn a_game_s_own_check_refuses_with_a_typed_reason() {
        let e = entry("connect4").unwrap();
        let mut a = Args::with_defaults(e.params).unwrap();
        a.set("width", ArgValue::Number(20));
        a.set("height", ArgValue::Number(1));
        let built = e.build(&a).expect("a 20x1 board is built");
        assert_eq!(
            built.check(None, false),
            Err(TooBig::Columns { width: 20, max: 16 })
        );
        let e = plan(&*built, false, None, 1).unwrap_err();
        let Refused::Size { game, why } = &e else {
            panic!("refused for its size: {e}")
        };
        assert_eq!(
            (game.as_str(), why),
            ("connect4 20x1", &TooBig::Columns { width: 20, max: 16 })
        );
        assert_eq!(e.to_string(), "connect4 20x1: at most 16 columns");
    }

    #[test]
    fn entries_take_their_flags_from_their_games() {
        let flags = |name| {
            let e = entry(name).unwrap();
            (e.tiered, e.start, e.dump)
        };
        assert_eq!(flags("tictactoe"), (true, true, false));
        assert_eq!(flags("kalah"), (true, true, false));
        assert_eq!(flags("chess"), (true, false, true));
        assert_eq!(flags("pebbles"), (false, true, false));
        assert_eq!(flags("octal"), (false, true, false));
        // A game stored as the mover sees the board reports its boards (Kalah, Quixo); one
        // that is not, not (tic-tac-toe).
        let fields = |name, args: serde_json::Value| {
            let e = entry(name).unwrap();
            let built = e.build(&Args::from_json(e.params, &args).unwrap()).unwrap();
            let solved = built
                .solve(&SolveOptions::default(), &retrograde_solve::exchange::Solo)
                .unwrap();
            let r = solved.answer.report().unwrap();
            r.fields.into_iter().map(|f| f.0).collect::<Vec<_>>()
        };
        let kalah = fields("kalah", serde_json::json!({ "pits": 2, "seeds": 2 }));
        assert!(kalah.contains(&"states".to_string()), "{kalah:?}");
        let quixo = fields("quixo", serde_json::json!({ "size": 3 }));
        assert!(quixo.contains(&"states".to_string()), "{quixo:?}");
        let ttt = fields("tictactoe", serde_json::json!({}));
        assert!(!ttt.contains(&"states".to_string()), "{ttt:?}");
    }

    #[test]
    fn grids_come_from_position_strings_that_are_grids() {
        let g = Grid::from_position("x.o/.../..x o").unwrap();
        assert_eq!((g.rows, g.cols), (3, 3));
        assert_eq!(g.cells, ["x.o", "...", "..x"]);
        assert_eq!(Grid::from_position("..../xo..").unwrap().rows, 2);
        // Not grids: a vertex id, ragged rows (a FEN's too), other characters, nothing.
        for text in [
            "7",
            "x./...",
            "rnb/8/ppp",
            "x-o/...",
            "",
            "  ",
            "/",
            "x//x",
            "99/99",
        ] {
            assert_eq!(Grid::from_position(text), None, "{text:?}");
        }
        // A FEN: digits count empty cells; cells are named as UCI names squares.
        let fen = Grid::from_position("8/8/8/4k3/8/8/8/KR6 w - - 0 1").unwrap();
        assert_eq!((fen.rows, fen.cols), (8, 8));
        assert_eq!(fen.cells[3], "....k...");
        assert_eq!(fen.cells[7], "KR......");
        assert_eq!(fen.cell_name(3, 4), "e5");
        assert_eq!(fen.cell_name(7, 0), "a1");
    }

    #[test]
    fn the_json_of_an_answer_keeps_its_shape() {
        let a = QueryAnswer {
            position: "x../.../... o".into(),
            picture: String::new(),
            side: "O".into(),
            value: Value::Tie(8),
            moves: vec![("b2".into(), Value::Tie(8)), ("a1".into(), Value::Draw)],
            more: 0,
            board: Grid::from_position("x../.../... o"),
            scores: None,
        };
        assert_eq!(
            a.to_json(),
            r#"{"position":"x../.../... o","to_move":"O","outcome":"tie","remoteness":8,"moves":[{"move":"b2","outcome":"tie","remoteness":8},{"move":"a1","outcome":"draw","remoteness":null}],"board":{"rows":3,"cols":3,"cells":["x..","...","..."]}}"#
        );
        let mut graph = QueryAnswer { board: None, ..a };
        assert!(!graph.to_json().contains("board") && !graph.to_json().contains("more"));
        // Past MAX_LISTED moves, the best are listed and the rest counted.
        graph.moves = vec![("1".into(), Value::Draw); MAX_LISTED + 5];
        graph.cut();
        assert_eq!((graph.moves.len(), graph.more), (MAX_LISTED, 5));
        assert!(
            graph.to_json().ends_with(r#""more":5}"#),
            "{}",
            graph.to_json()
        );
    }
}
