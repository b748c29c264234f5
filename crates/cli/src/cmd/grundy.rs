//! `retrograde grundy`: Sprague-Grundy values (generalized, for loopy graphs) of a graph file.

use super::Status;
use crate::cli::{GrundyArgs, GrundyOutput};
use crate::flags::{GraphArgs, NoMove};
use crate::{input, mem, output};
use anyhow::{anyhow, bail, Result};
use retrograde_graph::Graph;
use retrograde_impartial::{grundy, verify, Grundy, Sg};
use retrograde_solve::{solve_with_options, Solution, SolveOptions, Value};
use std::io::Write;
use std::time::Instant;

/// At most this many distinct values are listed one by one in the text summary.
const LISTED_VALUES: usize = 24;

/// Why `grundy` and `sum` refuse a scored graph ([`input::load_refusing_scores`]).
pub const NO_SCORES: &str = "Sprague-Grundy values have no scores: an impartial game ends when the player to move has no move, and that player loses (`retrograde solve` reads scored graphs)";

pub fn run(
    args: &GrundyArgs,
    verbose: bool,
    started: Instant,
    out: &mut impl Write,
) -> Result<Status> {
    let graph_args = GraphArgs {
        format: args.format,
        vertices: args.vertices,
        no_move: NoMove::Loss,
    };
    let loaded = input::load_refusing_scores(args.file.as_deref(), &graph_args, Some(NO_SCORES))?;
    let g = &loaded.graph;
    let chosen: Vec<u32> = args
        .vertex
        .iter()
        .map(|v| input::vertex(g, v))
        .collect::<Result<_>>()?;

    let t = Instant::now();
    let s = grundy(g).map_err(|e| anyhow!("{}: {e}", loaded.name))?;
    let time = t.elapsed();
    if args.verify {
        if let Err(v) = verify(g, &s) {
            bail!(
                "{}: internal error: the values failed verification: {v}",
                loaded.name
            );
        }
    }
    // Misère outcomes come from the engine with the no-move rule reversed.
    let misere = args.misere.then(|| {
        solve_with_options(
            g,
            &input::rules(NoMove::Win),
            &SolveOptions {
                best_moves: false,
                ..SolveOptions::default()
            },
        )
        .0
    });
    if verbose {
        eprintln!(
            "parse {:.3} s, build {:.3} s, grundy {:.3} s ({})",
            loaded.parse.as_secs_f64(),
            loaded.build.as_secs_f64(),
            time.as_secs_f64(),
            if s.is_acyclic() {
                "acyclic: mex recursion"
            } else {
                "cycles: staged algorithm"
            }
        );
        if let Some(p) = mem::peak_rss_bytes() {
            eprintln!("peak memory {:.1} MiB", p as f64 / (1 << 20) as f64);
        }
    }

    let all: Box<dyn Iterator<Item = u32>> = if chosen.is_empty() {
        Box::new(0..g.vertex_count() as u32)
    } else {
        Box::new(chosen.iter().copied())
    };
    let misere = misere.as_ref();
    match args.output {
        GrundyOutput::Text => {
            if !args.summary {
                for v in all {
                    text_row(g, &s, misere, v, out)?;
                }
            }
            if args.summary || chosen.is_empty() {
                text_summary(g, &s, started, out)?;
            }
        }
        GrundyOutput::Csv if args.summary => {
            let c = s.counts();
            writeln!(
                out,
                "vertices,edges,acyclic,win,loss,draw,infinite,max_value,seconds"
            )?;
            writeln!(
                out,
                "{},{},{},{},{},{},{},{},{:.6}",
                g.vertex_count(),
                g.edge_count(),
                s.is_acyclic(),
                c.win(),
                c.loss(),
                c.draw(),
                c.infinite(),
                s.max_finite().map_or(String::new(), |m| m.to_string()),
                started.elapsed().as_secs_f64()
            )?;
        }
        GrundyOutput::Csv => {
            out.write_all(b"vertex,grundy")?;
            if args.counters {
                out.write_all(b",counter")?;
            }
            if misere.is_some() {
                out.write_all(b",misere_outcome,misere_remoteness")?;
            }
            out.write_all(b"\n")?;
            for v in all {
                csv_row(&s, misere, args.counters, v, out)?;
            }
        }
        GrundyOutput::Json => {
            write!(out, "{{{}", json_totals(g, &s))?;
            if !args.summary {
                out.write_all(b",\"positions\":[")?;
                for (i, v) in all.enumerate() {
                    out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
                    json_row(g, &s, misere, v, out)?;
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

/// `5 (name): 2 (win, counter 4)`, `6: inf{1} (draw)`, plus `; misère: loss in 3`.
fn text_row(
    g: &Graph,
    s: &Grundy,
    misere: Option<&Solution>,
    v: u32,
    out: &mut impl Write,
) -> std::io::Result<()> {
    write!(
        out,
        "{}: {} ({}",
        output::label(g, v),
        s.value(v),
        s.outcome(v)
    )?;
    if let Some(c) = s.counter(v) {
        write!(out, ", counter {c}")?;
    }
    out.write_all(b")")?;
    if let Some(m) = misere {
        write!(out, "; misère: {}", m.value(v))?;
    }
    writeln!(out)
}

fn text_summary(
    g: &Graph,
    s: &Grundy,
    started: Instant,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let c = s.counts();
    writeln!(
        out,
        "{} vertices, {} edges, {}",
        g.vertex_count(),
        g.edge_count(),
        if s.is_acyclic() {
            "no cycle: every value is the mex of the moves' values"
        } else {
            "with cycles: generalized Sprague-Grundy values"
        }
    )?;
    let listed: Vec<String> = c
        .finite
        .iter()
        .enumerate()
        .filter(|&(_, &k)| k > 0)
        .take(LISTED_VALUES)
        .map(|(value, k)| format!("{value}: {k}"))
        .collect();
    let distinct = c.finite.iter().filter(|&&k| k > 0).count();
    if distinct == 0 {
        writeln!(out, "finite values: none")?;
    } else {
        write!(
            out,
            "finite values (value: vertices): {}",
            listed.join(", ")
        )?;
        if distinct > LISTED_VALUES {
            write!(
                out,
                ", ... ({distinct} distinct values, the largest {})",
                c.finite.len() - 1
            )?;
        }
        writeln!(out)?;
    }
    writeln!(
        out,
        "infinite values: {} ({} win, {} draw)",
        c.infinite(),
        c.infinite_win,
        c.infinite_draw
    )?;
    writeln!(out, "win {}, loss {}, draw {}", c.win(), c.loss(), c.draw())?;
    writeln!(out, "time {:.3} s", started.elapsed().as_secs_f64())
}

/// A Grundy value as one CSV field (quoted when it holds a comma).
fn csv_value(v: Sg<'_>) -> String {
    match v {
        Sg::Infinite(k) if k.len() > 1 => format!("\"{v}\""),
        _ => v.to_string(),
    }
}

fn csv_row(
    s: &Grundy,
    misere: Option<&Solution>,
    counters: bool,
    v: u32,
    out: &mut impl Write,
) -> std::io::Result<()> {
    write!(out, "{v},{}", csv_value(s.value(v)))?;
    if counters {
        out.write_all(b",")?;
        if let Some(c) = s.counter(v) {
            write!(out, "{c}")?;
        }
    }
    if let Some(m) = misere {
        let value = m.value(v);
        write!(out, ",{},", value.outcome())?;
        if let Some(r) = value.remoteness() {
            write!(out, "{r}")?;
        }
    }
    out.write_all(b"\n")
}

fn json_totals(g: &Graph, s: &Grundy) -> String {
    let c = s.counts();
    let opt = |x: Option<u32>| x.map_or("null".to_string(), |r| r.to_string());
    format!(
        "\"vertices\":{},\"edges\":{},\"acyclic\":{},\"win\":{},\"loss\":{},\"draw\":{},\"infinite\":{},\"by_value\":{},\"max_value\":{},\"max_counter\":{}",
        g.vertex_count(),
        g.edge_count(),
        s.is_acyclic(),
        c.win(),
        c.loss(),
        c.draw(),
        c.infinite(),
        serde_json::to_string(&c.finite).expect("numbers serialize"),
        opt(s.max_finite()),
        opt(c.max_counter)
    )
}

fn json_row(
    g: &Graph,
    s: &Grundy,
    misere: Option<&Solution>,
    v: u32,
    out: &mut impl Write,
) -> Result<()> {
    write!(out, "{{\"vertex\":{v}")?;
    if let Some(n) = g.name(v) {
        write!(out, ",\"name\":{}", serde_json::to_string(n)?)?;
    }
    match s.value(v) {
        Sg::Finite(n) => write!(
            out,
            ",\"grundy\":{n},\"counter\":{}",
            s.counter(v).unwrap_or(0)
        )?,
        value @ Sg::Infinite(k) => {
            write!(out, ",\"grundy\":\"{value}\",\"k\":{k:?},\"counter\":null")?
        }
    }
    write!(out, ",\"outcome\":\"{}\"", s.outcome(v))?;
    if let Some(m) = misere {
        let value: Value = m.value(v);
        let r = value
            .remoteness()
            .map_or("null".to_string(), |r| r.to_string());
        write!(
            out,
            ",\"misere\":{{\"outcome\":\"{}\",\"remoteness\":{r}}}",
            value.outcome()
        )?;
    }
    out.write_all(b"}")?;
    Ok(())
}
