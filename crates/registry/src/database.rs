//! Opening a database with nothing but its directory: it says what it holds.

use crate::play_graph::PlayGraphDb;
use crate::{entry, Answer, Args, Built, Query, QueryAnswer, QueryError, Report};
use retrograde_games::play::{start_session, DynSession};
use retrograde_solve::Value;
use retrograde_tier::{rank_moves, read_meta, Error, GraphDb, Storage};
use std::sync::Arc;

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
    let name = storage.describe(retrograde_tier::META);
    let meta = read_meta(&*storage)?.ok_or_else(|| Error::Missing { file: name.clone() })?;
    let game = meta
        .params
        .get("game")
        .and_then(|g| g.as_str())
        .ok_or_else(|| {
            Error::damaged(
                name.clone(),
                "it does not say which game it holds (a database of an older build?)",
            )
        })?;
    if game == "graph" {
        let db = GraphDb::open(storage)?.ok_or_else(|| Error::Missing { file: name.clone() })?;
        return Ok(Database::Graph(Box::new(GraphAnswer { db })));
    }
    let e = entry(game).ok_or_else(|| {
        Error::Unsupported(format!(
            "{name}: a database of {game:?}, a game this build does not know"
        ))
    })?;
    let args = Args::from_json(
        e.params,
        meta.params.get("args").unwrap_or(&serde_json::Value::Null),
    )
    .map_err(|m| Error::damaged(name.clone(), m))?;
    let built = (e.build)(&args).map_err(|m| Error::damaged(name.clone(), m))?;
    if built.name() != meta.game {
        return Err(Error::damaged(
            name,
            format!(
                "its parameters make {:?}, it says {:?}",
                built.name(),
                meta.game
            ),
        ));
    }
    Ok(Database::Game(built))
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

    fn vertex(&self, text: &str) -> Result<u32, QueryError> {
        self.db.vertex(text).ok_or_else(|| {
            QueryError::Bad(format!(
                "{:?} is neither a vertex id (0 to {}) nor a vertex name",
                crate::tier::shorten(text),
                self.db.vertices().saturating_sub(1)
            ))
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
            timed: true,
            ..Report::default()
        })
    }

    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        let v = match q {
            Query::Position(text) => self.vertex(text)?,
            Query::After(..) => {
                return Err(QueryError::Bad(
                    "a graph is asked by moves from its start or by a vertex, not both".into(),
                ))
            }
            Query::Moves(moves) => {
                let mut v = self.db.start().ok_or_else(|| {
                    QueryError::Bad("the graph has no start vertex: ask for a vertex".into())
                })?;
                for (i, m) in moves.iter().enumerate() {
                    let to = self.vertex(m)?;
                    let next = self.db.moves(v)?;
                    if !next.iter().any(|&(t, _)| t == to) {
                        return Err(QueryError::Bad(format!(
                            "move {} ({m:?}): vertex {} has no move to {}",
                            i + 1,
                            self.label(v),
                            self.label(to)
                        )));
                    }
                    v = to;
                }
                v
            }
        };
        let value = self.db.value(v)?;
        let mut moves: Vec<(String, Value)> = Vec::new();
        for (t, keeps) in self.db.moves(v)? {
            moves.push((t.to_string(), self.db.value(t)?.through(keeps)));
        }
        rank_moves(&mut moves);
        Ok(QueryAnswer {
            position: v.to_string(),
            picture: format!("vertex {}\n", self.label(v)),
            side: "The player".into(),
            value,
            moves,
            board: None,
        })
    }

    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), String> {
        let start = match from {
            Some(text) => self.vertex(text).map_err(|e| e.to_string())?,
            None => self
                .db
                .start()
                .ok_or("the graph has no start vertex: give one with --position")?,
        };
        start_session(PlayGraphDb::new(&self.db, start), side)
    }
}
