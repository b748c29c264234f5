//! `retrograde solve`: solve a graph file and print the values.

use super::Status;
use crate::cli::{OutputArg, SolveArgs};
use crate::output::Whole;
use crate::{input, mem, output};
use anyhow::{bail, Result};
use retrograde_solve::exchange::Exchange;
use retrograde_solve::{solve_with_options, verify, Engine, SolveOptions};
use std::io::Write;
use std::time::Instant;

pub fn run(
    args: &SolveArgs,
    ex: Option<&dyn Exchange>,
    verbose: bool,
    started: Instant,
    out: &mut impl Write,
) -> Result<Status> {
    // Across MPI ranks: each rank reads and holds its share of the graph.
    if let Some(w) = ex.filter(|w| w.size() > 1) {
        return super::solve_dist::run(args, w, verbose, started, out);
    }
    // One writer at a time: a second one stops here, before reading its graph.
    let storage = args
        .db
        .as_deref()
        .map(|dir| super::db::for_writing(dir, None))
        .transpose()?;
    let loaded = input::load(args.file.as_deref(), &args.graph)?;
    let g = &loaded.graph;
    let rules = input::rules(args.graph.no_move);
    // Resolve vertex arguments before the (possibly long) solve, so typos fail fast.
    let chosen: Vec<u32> = args
        .vertex
        .iter()
        .map(|v| input::vertex(g, v))
        .collect::<Result<_>>()?;
    let line_from = args
        .line
        .as_deref()
        .map(|v| input::vertex(g, v))
        .transpose()?;

    let t = Instant::now();
    // Totals need no best moves: skip that pass over every edge unless something shows them.
    let opts = SolveOptions {
        best_moves: !args.summary || args.verify || args.db.is_some(),
        ..SolveOptions::default()
    };
    let (s, phases) = solve_with_options(g, &rules, &opts);
    let solve_time = t.elapsed();
    if args.verify {
        let t = Instant::now();
        if let Err(v) = verify(g, &rules, &s) {
            bail!(
                "{}: internal error: the solution failed verification: {v}",
                loaded.name
            );
        }
        if verbose {
            eprintln!("verify  {:>9.3} s  ok", t.elapsed().as_secs_f64());
        }
    }
    let counts = s.counts();
    if let Some(storage) = &storage {
        let mut stats = retrograde_tier::Stats {
            positions: g.vertex_count() as u64,
            moves: g.edge_count() as u64,
            classes: g.vertex_count() as u64,
            states: g.vertex_count() as u64,
            solve: solve_time,
            explore: loaded.parse + loaded.build,
            ..Default::default()
        };
        for v in 0..g.vertex_count() as u32 {
            stats.count(s.value(v));
        }
        let params = db_params(
            &loaded.name,
            g.vertex_count(),
            g.edge_count() as u64,
            g.start(),
            &rules,
        );
        retrograde_tier::graphdb::write(&**storage, g, &s, &stats, params)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    if verbose {
        let m = g.edge_count() as f64;
        for (phase, d) in [
            ("parse", loaded.parse),
            ("build", loaded.build),
            ("solve", solve_time),
        ] {
            let secs = d.as_secs_f64();
            eprintln!(
                "{phase:<7} {secs:>9.3} s  {:>8.1} M edges/s",
                m / secs.max(1e-9) / 1e6
            );
        }
        eprintln!(
            "  propagate {:.3} s ({} reverse edges scanned), ties {:.3} s, best moves {:.3} s; {} engine, {} thread{}",
            phases.propagate.as_secs_f64(),
            phases.edges_scanned,
            phases.ties.as_secs_f64(),
            phases.best_moves.as_secs_f64(),
            if phases.engine == Engine::Parallel {
                "parallel"
            } else {
                "sequential"
            },
            phases.threads,
            if phases.threads == 1 { "" } else { "s" },
        );
        if let Some(p) = mem::peak_rss_bytes() {
            eprintln!("peak memory {:.1} MiB", p as f64 / (1 << 20) as f64);
        }
    }

    if let Some(v) = line_from {
        let (line, repeats) = s.line(v);
        output::line(&Whole(g, &s), args.output, &line, repeats, out)?;
        return Ok(Status::Success);
    }

    let all: Box<dyn Iterator<Item = u32>> = if chosen.is_empty() {
        Box::new(0..g.vertex_count() as u32)
    } else {
        Box::new(chosen.iter().copied())
    };
    match args.output {
        OutputArg::Text => {
            if !args.summary {
                for v in all {
                    output::text_row(&Whole(g, &s), v, out)?;
                }
            }
            if args.summary || chosen.is_empty() {
                output::text_summary(
                    g.vertex_count() as u64,
                    g.edge_count() as u64,
                    &counts,
                    started.elapsed().as_secs_f64(),
                    out,
                )?;
            }
        }
        OutputArg::Csv => {
            if args.summary {
                writeln!(
                    out,
                    "vertices,edges,win,loss,tie,draw,max_remoteness,seconds"
                )?;
                let r = counts
                    .max_remoteness
                    .map_or(String::new(), |r| r.to_string());
                writeln!(
                    out,
                    "{},{},{},{},{},{},{r},{:.6}",
                    g.vertex_count(),
                    g.edge_count(),
                    counts.win,
                    counts.loss,
                    counts.tie,
                    counts.draw,
                    started.elapsed().as_secs_f64()
                )?;
            } else {
                output::csv_header(g.is_arena(), out)?;
                for v in all {
                    output::csv_row(&Whole(g, &s), v, out)?;
                }
            }
        }
        OutputArg::Json => {
            write!(
                out,
                "{{{}",
                output::json_totals(g.vertex_count() as u64, g.edge_count() as u64, &counts)
            )?;
            if !args.summary {
                out.write_all(b",\"positions\":[")?;
                for (i, v) in all.enumerate() {
                    out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
                    output::json_row(&Whole(g, &s), v, out)?;
                }
                out.write_all(b"\n]")?;
            }
            let peak = mem::peak_rss_bytes().map_or("null".to_string(), |p| p.to_string());
            writeln!(
                out,
                ",\"seconds\":{:.6},\"peak_rss_bytes\":{peak}}}",
                started.elapsed().as_secs_f64()
            )?;
        }
    }
    Ok(Status::Success)
}

/// The `params` a graph database records (`database.json`): the file and the rules. Also
/// written by ranks (`solve_dist`).
pub(crate) fn db_params(
    file: &str,
    vertices: usize,
    edges: u64,
    start: Option<u32>,
    rules: &retrograde_solve::Rules,
) -> serde_json::Value {
    serde_json::json!({
        "game": "graph",
        "file": file,
        "vertices": vertices,
        "edges": edges,
        "start": start,
        "no_move": rules.no_move.as_str(),
    })
}
