//! `retrograde query DB`: the value of positions of a finished database, and of each move,
//! without solving: the database says which game it holds.

use super::Status;
use crate::cli::{QueryArgs, QueryOutput};
use anyhow::{anyhow, Result};
use retrograde_registry::{database, Answer, Built, Database, Query, QueryError};
use retrograde_tier::{DirStorage, Storage};
use std::io::{BufRead, Write};
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
}

/// Opens the database in `dir`, whatever it holds: `query` and `serve` both use it.
///
/// The game a database describes is built once and kept for the rest of the process (its
/// answers borrow it), so call this once per database.
pub fn open(dir: &std::path::Path) -> Result<Opened> {
    let storage: Arc<dyn Storage> = Arc::new(DirStorage::new(dir.to_path_buf()));
    let shown = dir.display().to_string();
    if !dir.is_dir() {
        anyhow::bail!("{shown}: not a directory (a database is the directory `--db DIR` wrote)");
    }
    let fail = |e: retrograde_tier::Error| {
        if e.is_damage() {
            anyhow!("{e}; solve again with --db {shown} --resume to repair it")
        } else {
            anyhow!("{e}")
        }
    };
    match database(storage.clone()).map_err(fail)? {
        Database::Graph(g) => Ok(Opened {
            title: format!("a solved graph of {} vertices", g.db().vertices()),
            answer: g,
            name: "graph".into(),
            sides: ["first player".into(), "second player".into()],
        }),
        Database::Game(built) => {
            let built: &'static dyn Built = Box::leak(built);
            let name = built.name();
            let answer = built
                .open(storage)
                .map_err(fail)?
                .ok_or_else(|| anyhow!("{shown}: no finished database of {name}"))?;
            Ok(Opened {
                answer,
                title: built.title(),
                name,
                sides: built.side_names(),
            })
        }
    }
}

/// Opens the database in `dir` and calls `f` with its answers and its name.
pub fn with_database<T>(
    dir: &std::path::Path,
    f: impl FnOnce(&dyn Answer, &str) -> Result<T>,
) -> Result<T> {
    let opened = open(dir)?;
    f(&*opened.answer, &opened.name)
}

pub fn run(args: &QueryArgs, out: &mut impl Write) -> Result<Status> {
    with_database(&args.db, |answer, name| {
        let json = args.output == QueryOutput::Json;
        if !args.stdin {
            let q = match (&args.moves, &args.position) {
                (Some(m), Some(p)) => Query::After(p.clone(), split_moves(m)),
                (None, Some(p)) => Query::Position(p.clone()),
                (Some(m), None) => Query::Moves(split_moves(m)),
                (None, None) => Query::Moves(Vec::new()),
            };
            let a = answer.query(&q).map_err(|e| fail(name, e))?;
            super::game::print_answer(&a, json, out)?;
            return Ok(Status::Success);
        }
        // Many queries, one a line.
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut line = Vec::new();
        let mut failed = false;
        for n in 1.. {
            line.clear();
            let got = std::io::Read::take(&mut input, MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut line)
                .map_err(|e| anyhow!("<stdin>: cannot read: {e}"))?;
            if got == 0 {
                break;
            }
            let result = if line.len() > MAX_LINE && !line.ends_with(b"\n") {
                // Skip the rest of the line.
                let mut rest = Vec::new();
                input
                    .read_until(b'\n', &mut rest)
                    .map_err(|e| anyhow!("<stdin>: cannot read: {e}"))?;
                Err(format!("a line longer than {MAX_LINE} bytes"))
            } else {
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
                    Err(QueryError::Lookup(e)) => return Err(fail(name, QueryError::Lookup(e))),
                    Err(e) => Err(e.to_string()),
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
    })
}

/// `1,2,3` as moves; an empty string is the start.
fn split_moves(m: &str) -> Vec<String> {
    m.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn fail(name: &str, e: QueryError) -> anyhow::Error {
    match e {
        QueryError::Lookup(e) if e.is_damage() => {
            anyhow!("{name}: {e}; solve again with --resume to repair it")
        }
        e => anyhow!("{name}: {e}"),
    }
}
