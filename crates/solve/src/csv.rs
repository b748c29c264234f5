//! A solution read back from the CSV that `solve --output csv` writes (see docs/format.md), so
//! that [`verify`](crate::verify) can check it without the solver.

use crate::{Outcome, Scored, Solution, Value};
use retrograde_graph::format::{read_line, Line};
use retrograde_graph::Graph;
use std::fmt;
use std::io::BufRead;

/// Why a solution CSV could not be read: the line (1-based) when there is one, and what was
/// expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvError {
    /// The line, 1-based; `None` for the file as a whole (a missing vertex).
    pub line: Option<usize>,
    /// What was expected and found.
    pub message: String,
}

impl CsvError {
    fn at(line: usize, message: String) -> CsvError {
        CsvError {
            line: Some(line),
            message,
        }
    }

    fn io(e: std::io::Error) -> CsvError {
        CsvError {
            line: None,
            message: format!("cannot read: {e}"),
        }
    }
}

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for CsvError {}

/// A well-formed row that contradicts the graph (an arena's owner or winner): the solution
/// is wrong, not malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The line, 1-based.
    pub line: usize,
    /// What disagrees.
    pub message: String,
}

/// A token quoted for an error message: at most 40 characters, with the length when cut.
pub fn excerpt(s: &str) -> String {
    let short: String = s.chars().take(40).collect();
    if short.len() == s.len() {
        format!("{s:?}")
    } else {
        format!("{:?}… ({} bytes)", short, s.len())
    }
}

const HEADER: &str = "vertex,outcome,remoteness,best_move";
const ARENA_HEADER: &str = "vertex,outcome,remoteness,best_move,owner,winner";
const SCORED_HEADER: &str = "vertex,outcome,remoteness,best_move,score";
const SCORED_ARENA_HEADER: &str = "vertex,outcome,remoteness,best_move,score,owner,winner";

/// The longest line of a solution read: a row takes well under a hundred bytes.
const MAX_LINE: usize = 64 << 10;

/// The score column of a row whose outcome is `outcome`: empty for a draw, else an integer
/// in `-(2^63-1)..=2^63-1` with the outcome's sign (0 for a tie).
fn parse_score(outcome: Outcome, text: &str) -> Result<i64, String> {
    if outcome == Outcome::Draw {
        return match text {
            "" => Ok(0),
            t => Err(format!("a draw has no score, found {}", excerpt(t))),
        };
    }
    let score: i64 = text
        .parse()
        .ok()
        .filter(|&x| x != i64::MIN)
        .ok_or_else(|| {
            format!(
                "expected a score from -{max} to {max}, found {}",
                excerpt(text),
                max = i64::MAX
            )
        })?;
    let sign = match outcome {
        Outcome::Win => 1,
        Outcome::Loss => -1,
        _ => 0,
    };
    if score.signum() != sign {
        return Err(format!("a {outcome} with the score {score}"));
    }
    Ok(score)
}

/// Reads a solution CSV for the graph `g`: the header `vertex,outcome,remoteness,best_move`
/// (then `,score` for a scored graph, and `,owner,winner` for an arena, as `solve --output
/// csv` writes them; no other columns), then one row per vertex, in any order, each with
/// exactly the header's fields. A score is empty for a draw and has the outcome's sign.
/// An arena's owner must be the graph's, and its winner the one its outcome names: the
/// first that is not is returned beside the solution (a wrong solution, not a malformed one).
///
/// # Errors
/// A malformed file (a line longer than 64 KiB among them): the line and what was expected
/// there.
pub fn read_csv(reader: impl BufRead, g: &Graph) -> Result<(Solution, Option<Mismatch>), CsvError> {
    let n = g.vertex_count();
    let arena = g.is_arena();
    let scored = g.is_scored();
    let want = match (arena, scored) {
        (false, false) => HEADER,
        (true, false) => ARENA_HEADER,
        (false, true) => SCORED_HEADER,
        (true, true) => SCORED_ARENA_HEADER,
    };
    // Where the arena's columns start.
    let at_owner = if scored { 5 } else { 4 };
    let columns = want.split(',').count();
    let mut values: Vec<Option<Scored>> = vec![None; n];
    let mut best: Vec<Option<u32>> = vec![None; n];
    // The first owner or winner that disagrees with the graph: a wrong solution.
    let mut wrong: Option<Mismatch> = None;
    // Lines are read in the reader's pieces, at most MAX_LINE bytes kept: a row is short,
    // and a longer line is an error naming it, never held whole.
    let mut reader = reader;
    let mut buf = Vec::new();
    let mut no = 0usize;
    let mut next = |buf: &mut Vec<u8>| -> Result<Option<usize>, CsvError> {
        no += 1;
        match read_line(&mut reader, buf, MAX_LINE).map_err(CsvError::io)? {
            Line::End => Ok(None),
            Line::Whole => Ok(Some(no)),
            Line::TooLong(len) => Err(CsvError::at(
                no,
                format!(
                    "expected a CSV row of at most {} KiB, found a line of {len} bytes",
                    MAX_LINE >> 10
                ),
            )),
        }
    };
    if next(&mut buf)?.is_none() {
        return Err(CsvError::at(
            1,
            format!("expected the header {want}, found an empty file"),
        ));
    }
    let header = std::mem::take(&mut buf);
    check_header(&String::from_utf8_lossy(&header), want, arena, scored)?;
    while let Some(no) = next(&mut buf)? {
        let line = &buf;
        let text = std::str::from_utf8(line)
            .map_err(|_| {
                CsvError::at(
                    no,
                    "expected a CSV row, found bytes that are not UTF-8".into(),
                )
            })?
            .trim_end_matches('\r');
        if text.is_empty() {
            continue;
        }
        let at = |msg: String| CsvError::at(no, msg);
        let f: Vec<&str> = text.split(',').collect();
        if f.len() != columns {
            return Err(at(format!(
                "expected {columns} fields {want}, found {}",
                excerpt(text)
            )));
        }
        let v: usize = f[0]
            .parse()
            .ok()
            .filter(|&v: &usize| v < n)
            .ok_or_else(|| {
                at(format!(
                    "expected a vertex id below {n}, found {}",
                    excerpt(f[0])
                ))
            })?;
        if values[v].is_some() {
            return Err(at(format!("vertex {v} appears twice")));
        }
        let outcome: Outcome = f[1].parse().map_err(|_| {
            at(format!(
                "expected win, loss, tie or draw, found {}",
                excerpt(f[1])
            ))
        })?;
        let value = match (outcome, f[2]) {
            (Outcome::Draw, "") => Value::Draw,
            (Outcome::Draw, r) => {
                return Err(at(format!(
                    "a draw has no remoteness, found {}",
                    excerpt(r)
                )))
            }
            (o, r) => Value::new(
                o,
                r.parse()
                    .map_err(|_| at(format!("expected a remoteness, found {}", excerpt(r))))?,
            ),
        };
        let value = if scored {
            let score = parse_score(outcome, f[4]).map_err(at)?;
            Scored::new(score, value.remoteness())
        } else {
            Scored::from(value)
        };
        if arena {
            let mismatch = arena_mismatch(g, v, outcome, f[at_owner], f[at_owner + 1], no)?;
            wrong = wrong.or(mismatch);
        }
        values[v] = Some(value);
        best[v] = match f[3] {
            "" => None,
            b => Some(
                b.parse::<u32>()
                    .ok()
                    .filter(|&b| (b as usize) < n)
                    .ok_or_else(|| {
                        at(format!(
                            "expected a best move below {n} or nothing, found {}",
                            excerpt(b)
                        ))
                    })?,
            ),
        };
    }
    if let Some(missing) = values.iter().position(Option::is_none) {
        return Err(CsvError {
            line: None,
            message: format!("vertex {missing} is missing (the graph has {n} vertices)"),
        });
    }
    let values: Vec<Scored> = values
        .into_iter()
        .map(|v| v.expect("all present"))
        .collect();
    let s = if scored {
        Solution::from_scored(&values, &best)
    } else {
        let values: Vec<Value> = values
            .iter()
            .map(|v| v.value().expect("a score +1, -1 or 0 by the outcome"))
            .collect();
        Solution::from_values(&values, &best)
    };
    let s = s.map_err(|e| CsvError {
        line: None,
        message: e.to_string(),
    })?;
    Ok((s, wrong))
}

/// Checks a solution CSV's header (`text`, its first line) against the one `want`ed, saying
/// why another known header does not fit this graph.
fn check_header(text: &str, want: &str, arena: bool, scored: bool) -> Result<(), CsvError> {
    let header = text.trim_end_matches('\r');
    let header = header.strip_prefix('\u{feff}').unwrap_or(header);
    if header == want {
        return Ok(());
    }
    let why = match (arena, scored, header) {
        (false, _, ARENA_HEADER | SCORED_ARENA_HEADER) => {
            " (owner and winner apply to arenas only, and this graph has no owners)"
        }
        (true, _, HEADER | SCORED_HEADER) => {
            " (the graph is an arena: its solution has owner and winner columns)"
        }
        (_, true, HEADER | ARENA_HEADER) => {
            " (the graph is scored: its solution has a score column)"
        }
        (_, false, SCORED_HEADER | SCORED_ARENA_HEADER) => {
            " (a score column belongs to a scored graph, and this graph has no scores)"
        }
        _ => "",
    };
    Err(CsvError::at(
        1,
        format!("expected the header {want}, found {}{why}", excerpt(header)),
    ))
}

/// An arena row's owner and winner fields (`owner`, `winner`) read and compared with the
/// graph: a malformed field is an error of line `no`, a field that disagrees with the graph
/// is the row's [`Mismatch`] (a wrong solution, not a malformed one).
fn arena_mismatch(
    g: &Graph,
    v: usize,
    outcome: Outcome,
    owner_field: &str,
    winner_field: &str,
    no: usize,
) -> Result<Option<Mismatch>, CsvError> {
    let at = |msg: String| CsvError::at(no, msg);
    let owner = g.owner(v as u32);
    let player = |t: &str, what: &str| -> Result<Option<u8>, CsvError> {
        match t {
            "0" => Ok(Some(0)),
            "1" => Ok(Some(1)),
            "" if what == "winner" => Ok(None),
            t => Err(at(format!(
                "expected the {what} 0 or 1{}, found {}",
                if what == "winner" { " or nothing" } else { "" },
                excerpt(t)
            ))),
        }
    };
    let given_owner = player(owner_field, "owner")?;
    let given_winner = player(winner_field, "winner")?;
    let winner = match outcome {
        Outcome::Win => Some(owner),
        Outcome::Loss => Some(1 - owner),
        _ => None,
    };
    if given_owner != Some(owner) {
        return Ok(Some(Mismatch {
            line: no,
            message: format!(
                "vertex {v}: owner {owner_field} in the solution, but player {owner} moves there in the graph"
            ),
        }));
    }
    if given_winner != winner {
        return Ok(Some(Mismatch {
            line: no,
            message: format!(
                "vertex {v}: winner {winner_field:?} in the solution, but a {outcome} for player {owner} (who moves there) makes the winner {}",
                winner.map_or("nobody".into(), |w| format!("player {w}"))
            ),
        }));
    }
    Ok(None)
}
