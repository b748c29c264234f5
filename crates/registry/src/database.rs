//! Opening a database with nothing but its directory: it says what it holds.

use crate::play_graph::PlayGraphDb;
use crate::{
    entry, Answer, Args, Built, Entry, Held, Legal, Query, QueryAnswer, QueryError, Report,
    Unanswered, MAX_LISTED,
};
use retrograde_games::play::{start_session, DynSession};
use retrograde_solve::{Scored, Value};
use retrograde_tier::{read_meta, Error, GraphDb, Storage};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a database directory holds.
pub enum Database {
    /// A built-in game, rebuilt from the parameters it recorded; open it with
    /// [`Built::open`].
    Game(Box<dyn Built>),
    /// A solved graph file.
    Graph(Box<GraphAnswer>),
}

/// Reads `storage`'s description and rebuilds what it describes.
///
/// # Errors
/// No database there, a damaged description, or a game this build does not know.
pub fn database(storage: Arc<dyn Storage>) -> Result<Database, Error> {
    let Some(recorded) = Recorded::read(&*storage)? else {
        let name = storage.describe(retrograde_tier::META);
        let db = GraphDb::open(storage)?.ok_or(Error::Missing { file: name })?;
        return Ok(Database::Graph(Box::new(GraphAnswer { db })));
    };
    let built = recorded
        .entry
        .build(&recorded.args)
        .map_err(|m| recorded.damaged(m))?;
    recorded.check(&built.name())?;
    Ok(Database::Game(built))
}

/// A finished database opened by its directory alone ([`open`]).
pub struct Opened {
    /// Its answers, which own what they need.
    pub answer: Box<dyn Answer>,
    /// The game and its parameters (`connect4 4x4`), or `graph`.
    pub name: String,
    /// A few lines naming the game and its rules.
    pub title: String,
    /// The names of the sides, the first mover's first.
    pub sides: [String; 2],
    /// Whether it holds a solved graph (repaired by solving the graph again, where a
    /// game's database is repaired by solving with `--resume`).
    pub graph: bool,
}

/// Opens the finished database in `storage`, whatever it holds: a game rebuilt from the
/// parameters it recorded, its tier files opened as queries read them, or a solved graph.
/// What `query`, `serve` and Python's `open` read.
///
/// # Errors
/// No finished database there ([`Error::Missing`]), a damaged description or file, or a game
/// this build does not know.
pub fn open(storage: Arc<dyn Storage>) -> Result<Opened, Error> {
    match database(storage.clone())? {
        Database::Graph(g) => Ok(Opened {
            title: format!("a solved graph of {} vertices", g.db().vertices()),
            answer: g,
            name: "graph".into(),
            sides: ["first player".into(), "second player".into()],
            graph: true,
        }),
        Database::Game(built) => {
            let built: Arc<dyn Built> = built.into();
            let (name, title, sides) = (built.name(), built.title(), built.side_names());
            let answer = Held::open(built, storage.clone())?.ok_or_else(|| Error::Missing {
                file: storage.describe(retrograde_tier::META),
            })?;
            Ok(Opened {
                answer: Box::new(answer),
                name,
                title,
                sides,
                graph: false,
            })
        }
    }
}

/// What a game's database says it holds: the game's registry entry, the parameters it was
/// solved with, and the name it was solved under.
pub(crate) struct Recorded {
    /// The game's entry.
    pub entry: &'static Entry,
    /// The parameters it was solved with.
    pub args: Args,
    /// The game's name as solved (`chess KQvK`).
    pub game: String,
    /// The description's file, for messages.
    file: String,
}

impl Recorded {
    /// Reads `storage`'s description; `None` for a solved graph.
    ///
    /// # Errors
    /// No database there, a damaged description, or a game this build does not know.
    pub fn read(storage: &dyn Storage) -> Result<Option<Recorded>, Error> {
        let file = storage.describe(retrograde_tier::META);
        let meta = read_meta(storage)?.ok_or_else(|| Error::Missing { file: file.clone() })?;
        let game = meta
            .params
            .get("game")
            .and_then(|g| g.as_str())
            .ok_or_else(|| {
                Error::damaged(
                    file.clone(),
                    "it does not say which game it holds (a database of an older build?)",
                )
            })?;
        if game == "graph" {
            return Ok(None);
        }
        let entry = entry(game).ok_or_else(|| {
            Error::Unsupported(format!(
                "{file}: a database of {game:?}, a game this build does not know"
            ))
        })?;
        let args = Args::from_json(
            entry.params,
            meta.params.get("args").unwrap_or(&serde_json::Value::Null),
        )
        .map_err(|m| Error::damaged(file.clone(), m.to_string()))?;
        Ok(Some(Recorded {
            entry,
            args,
            game: meta.game,
            file,
        }))
    }

    /// The description is damaged: `why`.
    pub fn damaged(&self, why: impl std::fmt::Display) -> Error {
        Error::damaged(self.file.clone(), why.to_string())
    }

    /// Checks that `name`, the name of the game made from the recorded parameters, is the
    /// game recorded.
    ///
    /// # Errors
    /// [`Error::Damaged`] when it is not.
    pub fn check(&self, name: &str) -> Result<(), Error> {
        if name != self.game {
            return Err(self.damaged(format!(
                "its parameters make {name:?}, it says {:?}",
                self.game
            )));
        }
        Ok(())
    }
}

/// The answer took too long.
fn late() -> QueryError {
    QueryError::TooLong("the answer took too long (a vertex with very many moves?)".to_string())
}

/// A solved graph, answering like a game.
pub struct GraphAnswer {
    db: GraphDb,
}

impl GraphAnswer {
    /// The database.
    pub fn db(&self) -> &GraphDb {
        &self.db
    }

    fn label(&self, v: u32) -> String {
        match self.db.name(v) {
            Some(n) => format!("{v} ({n})"),
            None => v.to_string(),
        }
    }

    /// The best [`MAX_LISTED`] moves from `v` (target, value for the mover: `through(child's
    /// value read by read, keeps turn)`), best first and then in move order, and how many
    /// more there are: every move's value read once, in order, keeping the best so far
    /// (cut back to MAX_LISTED whenever twice that many are held), against `deadline`.
    fn ranked<K: Ord + Copy>(
        &self,
        v: u32,
        mut read: impl FnMut(u32) -> Result<K, Error>,
        through: fn(K, bool) -> K,
        deadline: Instant,
    ) -> Result<(Vec<(u32, K)>, u64), QueryError> {
        let mut best: Vec<(std::cmp::Reverse<K>, u64, u32)> = Vec::new();
        let keep = |best: &mut Vec<(std::cmp::Reverse<K>, u64, u32)>| {
            best.sort_unstable();
            best.truncate(MAX_LISTED);
        };
        let mut failed = None;
        let mut n = 0u64;
        let whole = self.db.each_move(v, &mut |t, keeps| {
            if n % 4096 == 0 && n > 0 && Instant::now() > deadline {
                failed = Some(late());
                return false;
            }
            match read(t) {
                Ok(x) => best.push((std::cmp::Reverse(through(x, keeps)), n, t)),
                Err(e) => {
                    failed = Some(QueryError::Lookup(e));
                    return false;
                }
            }
            n += 1;
            if best.len() >= 2 * MAX_LISTED {
                keep(&mut best);
            }
            true
        })?;
        if let (false, Some(e)) = (whole, failed) {
            return Err(e);
        }
        keep(&mut best);
        let more = n - best.len() as u64;
        Ok((
            best.into_iter()
                .map(|(std::cmp::Reverse(x), _, t)| (t, x))
                .collect(),
            more,
        ))
    }

    fn vertex(&self, text: &str) -> Result<u32, QueryError> {
        self.db.vertex(text).ok_or_else(|| QueryError::NoVertex {
            text: crate::tier::shorten(text),
            vertices: self.db.vertices(),
        })
    }
}

impl Answer for GraphAnswer {
    fn report(&self) -> Result<Report, Error> {
        let start = match self.db.start() {
            Some(v) => Some((self.db.value(v)?, self.db.stats().clone())),
            None => None,
        };
        Ok(Report {
            game: "graph".into(),
            first_line: Some(format!("a solved graph of {} vertices", self.db.vertices())),
            standard: start,
            score: match self.db.start() {
                Some(v) if self.db.is_scored() => Some(self.db.scored(v)?),
                _ => None,
            },
            timed: true,
            // Without a start vertex, the explorer opens at the first vertex.
            example: (self.db.start().is_none() && self.db.vertices() > 0).then(|| "0".into()),
            ..Report::default()
        })
    }

    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        // A day: no deadline to speak of.
        self.query_until(q, Instant::now() + Duration::from_secs(86_400))
    }

    /// Replaying a move is a binary search among the vertex's moves; the answer reads the
    /// value of every move once, in order, keeping the best [`MAX_LISTED`]: time linear in
    /// the moves, memory in the listed ones, checked against `deadline` as it goes.
    fn query_until(&self, q: &Query, deadline: Instant) -> Result<QueryAnswer, QueryError> {
        let v = match q {
            Query::Position(text) => self.vertex(text)?,
            Query::After(..) => return Err(QueryError::Unanswered(Unanswered::MovesAndVertex)),
            Query::Moves(moves) => {
                let mut v = self
                    .db
                    .start()
                    .ok_or(QueryError::Unanswered(Unanswered::NoStart))?;
                for (i, m) in moves.iter().enumerate() {
                    if Instant::now() > deadline {
                        return Err(late());
                    }
                    let to = self.vertex(m)?;
                    if self.db.find_move(v, to)?.is_none() {
                        // No move at all: the game is over there (a terminal or a dead end).
                        let legal = match self.db.move_count(v)? {
                            0 => Legal::Moves(Vec::new()),
                            _ => Legal::NoEdge(self.label(v), self.label(to)),
                        };
                        return Err(QueryError::IllegalMove {
                            index: i + 1,
                            asked: m.clone(),
                            legal,
                        });
                    }
                    v = to;
                }
                v
            }
        };
        if self.db.is_scored() {
            let value = self.db.scored(v)?;
            let (ranked, more) =
                self.ranked(v, self.db.scored_reader(), Scored::through, deadline)?;
            let moves = ranked
                .iter()
                .map(|&(t, x)| (t.to_string(), x.value().unwrap_or(Value::Draw)))
                .collect();
            let scores = ranked.iter().map(|&(_, x)| x).collect();
            return Ok(QueryAnswer {
                position: v.to_string(),
                picture: format!("vertex {}\n", self.label(v)),
                side: "The player".into(),
                value: value.value().unwrap_or(Value::Draw),
                more,
                moves,
                board: None,
                scores: Some((value, scores)),
            });
        }
        let value = self.db.value(v)?;
        let (ranked, more) = self.ranked(v, self.db.value_reader(), Value::through, deadline)?;
        let moves: Vec<(String, Value)> = ranked
            .into_iter()
            .map(|(t, x)| (t.to_string(), x))
            .collect();
        Ok(QueryAnswer {
            position: v.to_string(),
            picture: format!("vertex {}\n", self.label(v)),
            side: "The player".into(),
            value,
            more,
            moves,
            board: None,
            scores: None,
        })
    }

    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), QueryError> {
        let start = match from {
            Some(text) => self.vertex(text)?,
            None => self
                .db
                .start()
                .ok_or(QueryError::Unanswered(Unanswered::NoStartPosition))?,
        };
        Ok(start_session(PlayGraphDb::new(&self.db, start), side)?)
    }
}
