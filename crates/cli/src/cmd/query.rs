//! `retrograde query DB`: the value of positions of a finished database, and of each move,
//! without solving: the database says which game it holds.

use super::Status;
use crate::cli::{QueryArgs, QueryOutput};
use crate::input::{self, Line};
use anyhow::{anyhow, Result};
use retrograde_registry::{database, Answer, Built, Database, Query, QueryError};
use retrograde_tier::{read_meta, DirStorage, Storage, META};
use std::io::Write;
use std::sync::Arc;

/// The longest line a query may take on standard input.
const MAX_LINE: usize = 1 << 16;

/// A database opened by its directory alone.
pub struct Opened {
    /// Its answers.
    pub answer: Box<dyn Answer>,
    /// The game and its parameters (`connect4 4x4`), or `graph`.
    pub name: String,
    /// A few lines naming the game and its rules.
    pub title: String,
    /// The names of the sides, the first mover's first.
    pub sides: [String; 2],
    /// How to repair it when a file turns out damaged: ``run `retrograde game NAME ...
    /// --db DIR --resume` ``, or for a graph ``run `retrograde solve FILE --db DIR` ``.
    pub repair: String,
    /// Its files, to tell when they change on disk (a server opens it again then).
    pub storage: Arc<DirStorage>,
}

impl Opened {
    /// A lookup error as a message, with how to repair a damaged database.
    pub fn fail(&self, e: QueryError) -> anyhow::Error {
        match e {
            QueryError::Lookup(e) if e.is_damage() => {
                anyhow!("{}: {e}; {} to repair it", self.name, self.repair)
            }
            e => anyhow!("{}: {e}", self.name),
        }
    }
}

/// Opens the finished database in `dir`, whatever it holds: `query` and `serve` both use it.
///
/// The game a database describes is kept for the rest of the process (its answers borrow
/// it), one for each game: a database opened again takes the game kept.
pub fn open(dir: &std::path::Path) -> Result<Opened> {
    let files = Arc::new(DirStorage::new(dir.to_path_buf()));
    let storage: Arc<dyn Storage> = files.clone();
    let shown = dir.display().to_string();
    if !dir.is_dir() {
        anyhow::bail!("{shown}: not a directory (a database is the directory `--db DIR` wrote)");
    }
    // Only a finished database is read (its description is written last).
    if !matches!(storage.size(META), Ok(Some(_))) {
        return Err(super::db::not_finished(dir));
    }
    let db = database(storage.clone());
    // A graph database is repaired by solving the graph again (its solve does not resume);
    // with its description damaged, its files say what it is.
    let graph = match &db {
        Ok(Database::Graph(_)) => true,
        Ok(Database::Game(_)) => false,
        Err(_) => match read_meta(&*storage) {
            Ok(Some(m)) => m.game == "graph",
            _ => dir.join("graph.values").exists(),
        },
    };
    let repair = match super::db::repair_command(dir, &*storage) {
        Some(command) => format!("run `{command}`"),
        None if graph => format!("solve the graph again with `retrograde solve FILE --db {shown}`"),
        None => format!("solve again with --db {shown} --resume"),
    };
    let fail = |e: retrograde_tier::Error| {
        if e.is_damage() {
            anyhow!("{e}; {repair} to repair it")
        } else {
            anyhow!("{e}")
        }
    };
    match db.map_err(fail)? {
        Database::Graph(g) => Ok(Opened {
            title: format!("a solved graph of {} vertices", g.db().vertices()),
            answer: g,
            name: "graph".into(),
            sides: ["first player".into(), "second player".into()],
            repair,
            storage: files,
        }),
        Database::Game(built) => {
            let built = kept(built);
            let name = built.name();
            let answer = built
                .open(storage)
                .map_err(fail)?
                .ok_or_else(|| super::db::not_finished(dir))?;
            Ok(Opened {
                answer,
                title: built.title(),
                name,
                sides: built.side_names(),
                repair,
                storage: files,
            })
        }
    }
}

/// `built` for the rest of the process (the answers of a database borrow its game): the
/// game of that name kept before, when a database of it was opened already (a server opens
/// a database again when its files change), else `built`, leaked.
fn kept(built: Box<dyn Built>) -> &'static dyn Built {
    static KEPT: std::sync::Mutex<Vec<&'static dyn Built>> = std::sync::Mutex::new(Vec::new());
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let name = built.name();
    if let Some(&b) = kept.iter().find(|b| b.name() == name) {
        return b;
    }
    let b: &'static dyn Built = Box::leak(built);
    kept.push(b);
    b
}

pub fn run(args: &QueryArgs, out: &mut impl Write) -> Result<Status> {
    let opened = open(&args.db)?;
    let answer = &*opened.answer;
    let json = args.output == QueryOutput::Json;
    if !args.stdin {
        let q = match (&args.moves, &args.position) {
            (Some(m), Some(p)) => Query::After(p.clone(), split_moves(m)),
            (None, Some(p)) => Query::Position(p.clone()),
            (Some(m), None) => Query::Moves(split_moves(m)),
            (None, None) => Query::Moves(Vec::new()),
        };
        let a = answer.query(&q).map_err(|e| opened.fail(e))?;
        super::game::print_answer(&a, json, out)?;
        return Ok(Status::Success);
    }
    // Many queries, one a line, each read in bounded pieces: a line over the limit is
    // skipped (never held whole) and reported by its number.
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    let mut failed = false;
    for n in 1.. {
        let result = match input::read_line(&mut input, &mut line, MAX_LINE)
            .map_err(|e| anyhow!("<stdin>:{n}: cannot read: {e}"))?
        {
            Line::End => break,
            Line::TooLong(len) => Err(format!(
                "a line longer than {} KiB ({len} bytes), skipped: a query is one short line",
                MAX_LINE >> 10
            )),
            Line::Whole => {
                let text = String::from_utf8_lossy(&line);
                let text = text.trim();
                if text.is_empty() || text.starts_with('#') {
                    continue;
                }
                let q = match text.strip_prefix("moves:") {
                    Some(m) => Query::Moves(split_moves(m)),
                    None => Query::Position(text.to_string()),
                };
                match answer.query(&q) {
                    Ok(a) => {
                        super::game::print_answer(&a, json, out)?;
                        Ok(())
                    }
                    Err(QueryError::Lookup(e)) => return Err(opened.fail(QueryError::Lookup(e))),
                    Err(e) => Err(e.to_string()),
                }
            }
        };
        if let Err(m) = result {
            failed = true;
            if json {
                writeln!(out, "{}", serde_json::json!({"line": n, "error": m}))?;
            } else {
                out.flush()?;
                eprintln!("retrograde: <stdin>:{n}: {m}");
            }
        }
    }
    if failed {
        out.flush()?;
        anyhow::bail!("some queries failed (see above)");
    }
    Ok(Status::Success)
}

/// `1,2,3` as moves; an empty string is the start.
fn split_moves(m: &str) -> Vec<String> {
    m.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}
