//! `retrograde verify`: check a CSV solution against its graph, without the solver.

use super::Status;
use crate::cli::VerifyArgs;
use crate::input;
use anyhow::{anyhow, bail, Context, Result};
use retrograde_solve::{verify, Outcome, Solution, Value};
use std::io::{BufRead, BufReader, Write};

/// Reads a solution CSV (header `vertex,outcome,remoteness,best_move`, extra columns ignored)
/// for a graph of `n` vertices. Every vertex must appear exactly once, in any order.
fn read_solution(name: &str, reader: impl BufRead, n: usize) -> Result<Solution> {
    let mut values: Vec<Option<Value>> = vec![None; n];
    let mut best: Vec<Option<u32>> = vec![None; n];
    let mut lines = reader.split(b'\n');
    let header = match lines.next() {
        None => bail!("{name}:1: expected the header vertex,outcome,remoteness,best_move, found an empty file"),
        Some(h) => h.with_context(|| format!("{name}: cannot read"))?,
    };
    let header = String::from_utf8_lossy(&header);
    if !header
        .trim_end_matches('\r')
        .starts_with("vertex,outcome,remoteness,best_move")
    {
        bail!(
            "{name}:1: expected the header vertex,outcome,remoteness,best_move, found {:?}",
            header.trim_end()
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
        if f.len() < 4 {
            return Err(at(format!(
                "expected 4 fields vertex,outcome,remoteness,best_move, found {:?}",
                text
            )));
        }
        let v: usize = f[0]
            .parse()
            .ok()
            .filter(|&v: &usize| v < n)
            .ok_or_else(|| at(format!("expected a vertex id below {n}, found {:?}", f[0])))?;
        if values[v].is_some() {
            return Err(at(format!("vertex {v} appears twice")));
        }
        let outcome: Outcome = f[1].parse().map_err(at)?;
        let value = match (outcome, f[2]) {
            (Outcome::Draw, "") => Value::Draw,
            (Outcome::Draw, r) => return Err(at(format!("a draw has no remoteness, found {r:?}"))),
            (o, r) => Value::new(
                o,
                r.parse()
                    .map_err(|_| at(format!("expected a remoteness, found {r:?}")))?,
            ),
        };
        values[v] = Some(value);
        best[v] = match f[3] {
            "" => None,
            b => Some(
                b.parse::<u32>()
                    .ok()
                    .filter(|&b| (b as usize) < n)
                    .ok_or_else(|| {
                        at(format!(
                            "expected a best move below {n} or nothing, found {b:?}"
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
    Solution::from_values(&values, &best).map_err(|e| anyhow!("{name}: {e}"))
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
    let s = read_solution(&name, reader, g.vertex_count())?;
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
