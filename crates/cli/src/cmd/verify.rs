//! `retrograde verify`: check a CSV solution against its graph, without the solver.

use super::Status;
use crate::cli::VerifyArgs;
use crate::input;
use crate::output::excerpt;
use anyhow::{anyhow, bail, Context, Result};
use retrograde_graph::Graph;
use retrograde_solve::{verify, Outcome, Solution, Value};
use std::io::{BufRead, BufReader, Write};

const HEADER: &str = "vertex,outcome,remoteness,best_move";
const ARENA_HEADER: &str = "vertex,outcome,remoteness,best_move,owner,winner";

/// Reads a solution CSV for the graph `g`: the header `vertex,outcome,remoteness,best_move`
/// (and `,owner,winner` for an arena, as `solve --output csv` writes them; no other
/// columns), then one row per vertex, in any order, each with exactly the header's fields.
/// An arena's owner must be the graph's, and its winner the one its outcome names: the
/// first that is not is returned beside the solution (a wrong solution, not a malformed one).
fn read_solution(
    name: &str,
    reader: impl BufRead,
    g: &Graph,
) -> Result<(Solution, Option<String>)> {
    let n = g.vertex_count();
    let arena = g.is_arena();
    let want = if arena { ARENA_HEADER } else { HEADER };
    let columns = want.split(',').count();
    let mut values: Vec<Option<Value>> = vec![None; n];
    let mut best: Vec<Option<u32>> = vec![None; n];
    // The first owner or winner that disagrees with the graph: a wrong solution.
    let mut wrong: Option<String> = None;
    let mut lines = reader.split(b'\n');
    let header = match lines.next() {
        None => bail!("{name}:1: expected the header {want}, found an empty file"),
        Some(h) => h.with_context(|| format!("{name}: cannot read"))?,
    };
    let header = String::from_utf8_lossy(&header);
    let header = header.trim_end_matches('\r');
    let header = header.strip_prefix('\u{feff}').unwrap_or(header);
    if header != want {
        let why = match (arena, header) {
            (false, ARENA_HEADER) => {
                " (owner and winner apply to arenas only, and this graph has no owners)"
            }
            (true, HEADER) => " (the graph is an arena: its solution has owner and winner columns)",
            _ => "",
        };
        bail!(
            "{name}:1: expected the header {want}, found {}{why}",
            excerpt(header)
        );
    }
    for (i, line) in lines.enumerate() {
        let no = i + 2;
        let line = line.with_context(|| format!("{name}: cannot read"))?;
        let text = std::str::from_utf8(&line)
            .map_err(|_| {
                anyhow!("{name}:{no}: expected a CSV row, found bytes that are not UTF-8")
            })?
            .trim_end_matches('\r');
        if text.is_empty() {
            continue;
        }
        let at = |msg: String| anyhow!("{name}:{no}: {msg}");
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
        if arena {
            let owner = g.owner(v as u32);
            let player = |t: &str, what: &str| -> Result<Option<u8>> {
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
            let given_owner = player(f[4], "owner")?;
            let given_winner = player(f[5], "winner")?;
            let winner = match outcome {
                Outcome::Win => Some(owner),
                Outcome::Loss => Some(1 - owner),
                _ => None,
            };
            if wrong.is_none() && given_owner != Some(owner) {
                wrong = Some(format!(
                    "{name}:{no}: vertex {v}: owner {} in the solution, but player {owner} moves there in the graph",
                    f[4]
                ));
            } else if wrong.is_none() && given_winner != winner {
                wrong = Some(format!(
                    "{name}:{no}: vertex {v}: winner {:?} in the solution, but a {outcome} for player {owner} (who moves there) makes the winner {}",
                    f[5],
                    winner.map_or("nobody".into(), |w| format!("player {w}"))
                ));
            }
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
        bail!("{name}: vertex {missing} is missing (the graph has {n} vertices)");
    }
    let values: Vec<Value> = values
        .into_iter()
        .map(|v| v.expect("all present"))
        .collect();
    let s = Solution::from_values(&values, &best).map_err(|e| anyhow!("{name}: {e}"))?;
    Ok((s, wrong))
}

pub fn run(args: &VerifyArgs, out: &mut impl Write) -> Result<Status> {
    let stdin_twice = args.solution.as_os_str() == "-" && args.file.as_os_str() == "-";
    if stdin_twice {
        bail!("the graph and the solution cannot both come from standard input");
    }
    let loaded = input::load(Some(&args.file), &args.graph)?;
    let g = &loaded.graph;
    let name = input::display_name(Some(&args.solution));
    let reader = BufReader::new(input::open(Some(&args.solution))?);
    let (s, wrong) = read_solution(&name, reader, g)?;
    if let Some(w) = wrong {
        writeln!(out, "wrong: {w}")?;
        return Ok(Status::Negative);
    }
    match verify(g, &input::rules(args.graph.no_move), &s) {
        Ok(()) => {
            writeln!(
                out,
                "ok: {} vertices checked, the solution is exact",
                g.vertex_count()
            )?;
            Ok(Status::Success)
        }
        Err(v) => {
            writeln!(out, "wrong: {name}: {v}")?;
            Ok(Status::Negative)
        }
    }
}
