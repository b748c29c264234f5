//! `retrograde verify`: check a CSV solution against its graph, without the solver.

use super::Status;
use crate::cli::VerifyArgs;
use crate::input;
use anyhow::{anyhow, bail, Result};
use retrograde_graph::Graph;
use retrograde_solve::csv::read_csv;
use retrograde_solve::{verify, Solution};
use std::io::{BufRead, BufReader, Write};

/// Reads a solution CSV (see [`retrograde_solve::csv::read_csv`]); errors name the file and
/// line.
fn read_solution(
    name: &str,
    reader: impl BufRead,
    g: &Graph,
) -> Result<(Solution, Option<String>)> {
    let (s, wrong) = read_csv(reader, g).map_err(|e| match e.line {
        Some(l) => anyhow!("{name}:{l}: {}", e.message),
        None => anyhow!("{name}: {}", e.message),
    })?;
    Ok((
        s,
        wrong.map(|w| format!("{name}:{}: {}", w.line, w.message)),
    ))
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
