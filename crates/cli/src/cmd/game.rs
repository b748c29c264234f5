//! `retrograde game NAME`: solve a built-in game given by its rules.
//!
//! Everything about a game comes from its registry entry, and the road from its parameters
//! to its answer is the registry's [`Run`]; this file reads the files its parameters name,
//! draws progress, and prints the report (or the answer to `--query`, the positions of
//! `--dump`, or the IOI protocol of `scores --play`).

use super::db::{run_error, tier_error};
use super::Status;
use crate::cli::{GameArgs, GameOutput};
use crate::{input, mem, output, progress};
use anyhow::{anyhow, bail, Result};
use retrograde_registry::{Answer, Query, QueryError, Reuse, Run};
use retrograde_solve::exchange::Exchange;
use std::io::Write;
use std::time::Instant;

pub fn run(
    args: &GameArgs,
    ex: &dyn Exchange,
    started: Instant,
    out: &mut impl Write,
) -> Result<Status> {
    // A game's subcommand takes only the flags that game accepts (see `games.rs`).
    let (choice, tiers, asked, dump) = (
        &args.game.choice,
        &args.game.tiers,
        &args.game.query,
        args.game.dump,
    );
    let entry = choice.entry;
    if asked.is_some() && dump {
        bail!("game {}: --query and --dump: one or the other", entry.name);
    }
    let values = choice.args(false)?;
    let built = entry.build(&values).map_err(|e| anyhow!("{e}"))?;
    let name = built.name();
    // Across K ranks, each holds about 1/K of the values; rank 0 prints, the others nothing.
    let ranks = ex.size() as u64;
    if ranks > 1 && (asked.is_some() || dump) {
        bail!("{name}: --query and --dump read a database: solve with --db under mpirun, then ask without it");
    }
    if let (Some(d), 0) = (&tiers.db, ex.rank()) {
        if let Some(note) = foreign_shares(d, (ranks > 1).then_some(ranks)) {
            eprintln!("retrograde: {note}");
        }
    }
    let (bars, shown) = progress::tier_bars(built.logs_tiers());
    let run = Run::new(built)
        .db(tiers.db.clone())
        .resume(tiers.resume)
        .compact(tiers.compact)
        .working(tiers.cells.into())
        // A query to a finished database needs no solve: its files are opened as the query
        // reads them. With --resume every file is checked first (the solve takes a finished
        // database up, and solves a damaged table again).
        .reuse(match asked.is_some() && !tiers.resume {
            true => Reuse::Finished,
            false => Reuse::Never,
        })
        // A summary needs the totals and the start's value only: no database is written then.
        .keep_values(tiers.db.is_some() || asked.is_some() || dump)
        .memory(mem::limit())
        .give_back(mem::give_back)
        .progress(shown);
    let ran = run.start(ex);
    bars.lock().unwrap_or_else(|p| p.into_inner()).finish();
    let ran = ran.map_err(|e| run_error(&name, e, tiers.db.is_some(), ex))?;
    let fail = |e| tier_error(&name, e, tiers.db.is_some());
    if ex.rank() != 0 {
        // Only rank 0 holds what the report reads, and prints.
        return Ok(Status::Success);
    }
    if ranks > 1 && !progress::is_quiet() {
        let (bytes, n) = (ran.traffic().bytes, ran.traffic().positions);
        if n == 0 {
            eprintln!("retrograde: {ranks} ranks exchanged {bytes} bytes; no position was solved (every tier was taken up)");
        } else {
            let each = bytes as f64 / n as f64;
            eprintln!("retrograde: {ranks} ranks exchanged {bytes} bytes, {each:.2} per position solved ({n})");
        }
    }
    if let Some(q) = asked {
        return query(&ran, q, &name, args.output, out);
    }
    if dump {
        ran.dump(out)
            .map_err(|e| anyhow::Error::new(e).context(format!("{name}: --dump")))?;
        return Ok(Status::Success);
    }
    if let Some(mut p) = ran.protocol() {
        // The IOI protocol: our lines out (flushed), the opponent's in.
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut buf = Vec::new();
        let mut number = 0;
        loop {
            for line in p.output() {
                writeln!(out, "{line}")?;
            }
            out.flush()?;
            if p.done() {
                return Ok(Status::Success);
            }
            number += 1;
            if input::read_command(&mut input, &mut buf, number)? == 0 {
                bail!("<stdin>: {}", p.ended_early());
            }
            let line = String::from_utf8_lossy(&buf);
            p.input(line.trim_end_matches(['\n', '\r']))
                .map_err(|e| anyhow!("<stdin>:{number}: {e}"))?;
        }
    }
    let report = ran.summary().map_err(fail)?;
    output::report(&report, args.output == GameOutput::Json, started, out)?;
    Ok(Status::Success)
}

/// A note when `dir` holds shares of an MPI run (`TIER.values.part-R-of-K`) that this run
/// does not read: one process reads none, and `ranks` ranks read only shares of `ranks`.
/// Without it, a run pointed at such a directory would solve from scratch without a word.
pub fn foreign_shares(dir: &std::path::Path, ranks: Option<u64>) -> Option<String> {
    let mut found: Option<(u64, String)> = None;
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((whole, tail)) = name.rsplit_once(".part-") else {
            continue;
        };
        // A run's shares come with the whole file rank 0 put together, which one
        // process reads.
        if ranks.is_none() && dir.join(whole).exists() {
            continue;
        }
        let Some((r, k)) = tail.split_once("-of-") else {
            continue;
        };
        let (Ok(_), Ok(k)) = (r.parse::<u64>(), k.parse::<u64>()) else {
            continue;
        };
        if Some(k) != ranks && found.as_ref().is_none_or(|(_, f)| name < *f) {
            found = Some((k, name));
        }
    }
    let (k, file) = found?;
    let who = match ranks {
        Some(n) => format!("this run on {n} ranks"),
        None => "one process".to_string(),
    };
    Some(format!(
        "{} holds the shares of a run on {k} MPI ranks (such as {file}): only `mpirun -n {k}` reads them, so {who} solves without them",
        dir.display()
    ))
}

/// Answers a query and prints it.
fn query(
    answer: &dyn Answer,
    moves: &[String],
    name: &str,
    output: GameOutput,
    out: &mut impl Write,
) -> Result<Status> {
    let moves: Vec<String> = moves.iter().filter(|m| !m.is_empty()).cloned().collect();
    let a = answer.query(&Query::Moves(moves)).map_err(|e| match e {
        QueryError::Lookup(e) => tier_error(name, e, true),
        e => anyhow!("{name}: --query: {e}"),
    })?;
    output::answer(&a, output == GameOutput::Json, out)?;
    Ok(Status::Success)
}
