//! `retrograde query DB`: the value of positions of a finished database, and of each move,
//! without solving: the database says which game it holds.

use super::Status;
use crate::cli::{QueryArgs, QueryOutput};
use crate::input::{self, Line};
use crate::output;
use anyhow::{anyhow, Result};
use retrograde_registry::{Query, QueryError};
use std::io::Write;

/// The longest line a query may take on standard input.
const MAX_LINE: usize = 1 << 16;

pub fn run(args: &QueryArgs, out: &mut impl Write) -> Result<Status> {
    let opened = super::db::open(&args.db)?;
    let answer = &*opened.db.answer;
    let json = args.output == QueryOutput::Json;
    if !args.stdin {
        let q = match (&args.moves, &args.position) {
            (Some(m), Some(p)) => Query::After(p.clone(), split_moves(m)),
            (None, Some(p)) => Query::Position(p.clone()),
            (Some(m), None) => Query::Moves(split_moves(m)),
            (None, None) => Query::Moves(Vec::new()),
        };
        let a = answer.query(&q).map_err(|e| opened.fail(e))?;
        output::answer(&a, json, out)?;
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
                        output::answer(&a, json, out)?;
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
