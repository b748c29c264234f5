//! `retrograde parity`: solve a parity game in PGSolver's format (gzip and bzip2 files
//! too), and print who wins every vertex and how (`retrograde_parity` does the work).

use super::Status;
use crate::input;
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use retrograde_parity::{
    pg, solve_with, verify, Algorithm, Claim, Options, ParityGame, Phases, Player, Solution,
};
use serde::Serialize;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const PARITY_HELP: &str = "\
The game (PGSolver's format, as Oink and PGSolver read it):
  parity 4;              an optional header: the largest vertex id
  start 0;               an optional start vertex
  0 3 1 1,2 \"name\";      id, priority, owner (0 Even, 1 Odd), successors, a name
  1 2 0 0;               ...every id from 0 to the largest exactly once
  A play goes on forever; Even wins it when the largest priority seen infinitely often is
  even, Odd when it is odd. A vertex without successors (`3 2 0;`) is lost by its owner,
  who cannot move (PGSolver and Oink refuse such files). Files compressed with gzip or
  bzip2 are read as they are.

Output (--output):
  text      a line per vertex: its winner and, where the winner moves, the winning move
  csv       vertex,priority,owner,winner,strategy (0 Even, 1 Odd; strategy empty where
            the winner does not move)
  json      the totals and a \"positions\" list (winner and owner 0 or 1, strategy or null)
  pgsolver  PGSolver's solution format: \"paritysol N;\" then \"id winner [move];\"

Algorithms (--algorithm): zielonka (default, the fastest on the games of practice), pp
(priority promotion), qpz (quasi-polynomial: never exponential, slower on easy games).
Time and memory: about 40 bytes per vertex and 8 per edge; see docs/parity.md.

Examples:
  retrograde parity game.pg
  retrograde parity game.pg.gz --output pgsolver > game.sol && retrograde verify-parity game.pg.gz game.sol
  retrograde parity game.pg --summary --output json
  retrograde parity game.pg --vertex 0 --algorithm pp";

/// The flags of `retrograde parity`.
#[derive(Debug, Args)]
#[command(after_help = PARITY_HELP)]
pub struct ParityArgs {
    /// The game (PGSolver's format, plain, gzip or bzip2); `-` or nothing reads standard
    /// input.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// How to print the solution.
    #[arg(long, short, value_enum, default_value_t = ParityOutput::Text)]
    pub output: ParityOutput,
    /// Print only the totals.
    #[arg(long, conflicts_with = "vertex")]
    pub summary: bool,
    /// Print only these vertices (an id, or a name from the file); repeatable.
    #[arg(long, value_name = "V")]
    pub vertex: Vec<String>,
    /// The algorithm: zielonka, pp or qpz. Every one gives the same winners.
    #[arg(long, value_name = "NAME", default_value = "zielonka", value_parser = parse_algorithm)]
    pub algorithm: Algorithm,
    /// Solve one strongly connected component at a time, bottom ones first.
    #[arg(long)]
    pub scc: bool,
    /// Leave self-loops and one-parity games to the algorithm (dead ends are still lost by
    /// their owners).
    #[arg(long)]
    pub no_preprocess: bool,
    /// Check the solution with the independent verifier before printing.
    #[arg(long)]
    pub verify: bool,
}

fn parse_algorithm(s: &str) -> Result<Algorithm, String> {
    s.parse()
}

/// `--output` of `parity`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ParityOutput {
    /// A line per vertex, then the totals.
    Text,
    /// vertex,priority,owner,winner,strategy.
    Csv,
    /// One JSON object: the totals and the positions.
    Json,
    /// PGSolver's solution format (Oink reads it too).
    Pgsolver,
}

/// Reads a file (or standard input) whole and decompresses it; returns the text, the name
/// messages give the file, and the time taken.
pub(crate) fn read_text(path: Option<&Path>) -> Result<(Vec<u8>, String, Duration)> {
    let name = input::display_name(path);
    let clock = Instant::now();
    let mut bytes = Vec::new();
    input::open(path)?
        .read_to_end(&mut bytes)
        .with_context(|| format!("{name}: cannot read"))?;
    let limit = crate::mem::limit_bytes();
    let text = retrograde_parity::decompress(&bytes, limit)
        .map_err(|e| anyhow!("{name}: {e}"))?
        .into_owned();
    Ok((text, name, clock.elapsed()))
}

/// Reads and parses a game, its size checked against the memory limit first (parsing holds
/// about three bytes per byte of text) and after (the solve's working memory).
pub(crate) fn load(path: Option<&Path>) -> Result<(ParityGame, String, Duration, Duration)> {
    let (text, name, read) = read_text(path)?;
    crate::mem::check(
        &format!("{name}: reading {} bytes of parity game", text.len()),
        3 * text.len() as u64,
    )?;
    let clock = Instant::now();
    let game = pg::parse_game(&text).map_err(|e| input::located(&name, e))?;
    let parse = clock.elapsed();
    drop(text);
    let (n, m) = (game.vertex_count() as u64, game.edge_count() as u64);
    crate::mem::check(
        &format!("{name}: solving a parity game of {n} vertices and {m} edges"),
        game.heap_bytes() as u64 + 40 * n,
    )?;
    Ok((game, name, read, parse))
}

pub fn run(
    args: &ParityArgs,
    verbose: bool,
    started: Instant,
    out: &mut impl Write,
) -> Result<Status> {
    if args.summary && args.output == ParityOutput::Pgsolver {
        bail!("--summary has no pgsolver form: choose --output text, csv or json");
    }
    let (game, name, read, parse) = load(args.file.as_deref())?;
    let chosen: Vec<u32> = args
        .vertex
        .iter()
        .map(|v| vertex_of(&game, v))
        .collect::<Result<_>>()?;
    let opts = Options {
        algorithm: args.algorithm,
        preprocess: !args.no_preprocess,
        scc: args.scc,
    };
    let (s, phases) = solve_with(&game, &opts);
    if args.verify {
        let clock = Instant::now();
        if let Err(w) = verify(&game, &Claim::from(&s)) {
            bail!("{name}: internal error: the solution failed verification: {w}");
        }
        if verbose {
            eprintln!("verify   {:.6} s  ok", clock.elapsed().as_secs_f64());
        }
    }
    let clock = Instant::now();
    print(&game, &s, &phases, args, &chosen, started, out)?;
    out.flush()?;
    if verbose {
        report(&game, &phases, args.algorithm, read, parse, clock.elapsed());
    }
    Ok(Status::Success)
}

/// The vertex a command-line argument names: an id, or a name from the file.
pub(crate) fn vertex_of(game: &ParityGame, text: &str) -> Result<u32> {
    if let Some(v) = game.vertex_named(text) {
        return Ok(v);
    }
    let n = game.vertex_count();
    match text.parse::<u64>() {
        Ok(id) if n == 0 => bail!("vertex {id} does not exist (the game has no vertices)"),
        Ok(id) => bail!(
            "vertex {id} does not exist (the game has {n} vertices, ids 0 to {})",
            n - 1
        ),
        Err(_) => {
            bail!("no vertex is named {text:?} (expected a vertex id or a name from the file)")
        }
    }
}

/// `-v`: each phase's time, then the peak memory.
fn report(
    game: &ParityGame,
    p: &Phases,
    algorithm: Algorithm,
    read: Duration,
    parse: Duration,
    print: Duration,
) {
    let secs = |d: Duration| d.as_secs_f64();
    eprintln!("read     {:.6} s", secs(read));
    eprintln!(
        "parse    {:.6} s  {} vertices, {} edges",
        secs(parse),
        game.vertex_count(),
        game.edge_count()
    );
    eprintln!(
        "prep     {:.6} s  {} vertices solved by preprocessing, {} priority levels",
        secs(p.preprocess),
        p.preprocessed,
        p.levels
    );
    eprintln!(
        "solve    {:.6} s  {algorithm}, {} iterations, {} component{}",
        secs(p.solve),
        p.iterations,
        p.components,
        if p.components == 1 { "" } else { "s" }
    );
    eprintln!("print    {:.6} s", secs(print));
    let peak = crate::mem::peak_rss_bytes().map_or("unknown".into(), |b| {
        format!("{:.1} MiB", b as f64 / (1 << 20) as f64)
    });
    eprintln!("peak memory {peak}");
}

/// `3 (name)` or `3`.
fn label(game: &ParityGame, v: u32) -> String {
    match game.name(v) {
        Some(n) => format!("{v} ({n})"),
        None => v.to_string(),
    }
}

/// One row of the JSON output.
#[derive(Serialize)]
struct Row<'a> {
    vertex: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    priority: u32,
    owner: u8,
    winner: u8,
    strategy: Option<u32>,
}

/// The totals of the JSON output.
#[derive(Serialize)]
struct Totals {
    vertices: usize,
    edges: usize,
    max_priority: Option<u32>,
    even: usize,
    odd: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<Start>,
    algorithm: &'static str,
    preprocessed: usize,
}

#[derive(Serialize)]
struct Start {
    vertex: u32,
    winner: u8,
}

fn row<'a>(game: &'a ParityGame, s: &Solution, v: u32) -> Row<'a> {
    Row {
        vertex: v,
        name: game.name(v),
        priority: game.priority(v),
        owner: game.owner(v).index(),
        winner: s.winner(v).index(),
        strategy: s.strategy(v),
    }
}

fn print(
    game: &ParityGame,
    s: &Solution,
    p: &Phases,
    args: &ParityArgs,
    chosen: &[u32],
    started: Instant,
    out: &mut impl Write,
) -> Result<()> {
    let all: Box<dyn Iterator<Item = u32>> = if chosen.is_empty() {
        Box::new(0..game.vertex_count() as u32)
    } else {
        Box::new(chosen.iter().copied())
    };
    let (even, odd) = (s.won_by(Player::Even), s.won_by(Player::Odd));
    match args.output {
        ParityOutput::Pgsolver => {
            if chosen.is_empty() {
                pg::write_solution(game, s, out)?;
            } else {
                // A partial solution: the chosen vertices only (Oink reads those too).
                writeln!(out, "paritysol {};", game.vertex_count().saturating_sub(1))?;
                for v in all {
                    write!(out, "{v} {}", s.winner(v).index())?;
                    if let Some(m) = s.strategy(v) {
                        write!(out, " {m}")?;
                    }
                    writeln!(out, ";")?;
                }
            }
        }
        ParityOutput::Csv if args.summary => {
            writeln!(out, "vertices,edges,max_priority,even,odd,seconds")?;
            writeln!(
                out,
                "{},{},{},{even},{odd},{:.6}",
                game.vertex_count(),
                game.edge_count(),
                game.max_priority().map_or(String::new(), |m| m.to_string()),
                started.elapsed().as_secs_f64()
            )?;
        }
        ParityOutput::Csv => {
            writeln!(out, "vertex,priority,owner,winner,strategy")?;
            let mut num = itoa::Buffer::new();
            for v in all {
                write!(
                    out,
                    "{v},{},{},{},",
                    game.priority(v),
                    game.owner(v).index(),
                    s.winner(v).index()
                )?;
                if let Some(m) = s.strategy(v) {
                    out.write_all(num.format(m).as_bytes())?;
                }
                out.write_all(b"\n")?;
            }
        }
        ParityOutput::Text => {
            if !args.summary {
                for v in all {
                    write!(out, "{}: {} wins", label(game, v), s.winner(v))?;
                    if let Some(m) = s.strategy(v) {
                        write!(out, ", move to {}", label(game, m))?;
                    }
                    writeln!(
                        out,
                        " (priority {}, {} moves)",
                        game.priority(v),
                        game.owner(v)
                    )?;
                }
            }
            if args.summary || chosen.is_empty() {
                write!(
                    out,
                    "{} vertices, {} edges",
                    game.vertex_count(),
                    game.edge_count()
                )?;
                match game.max_priority() {
                    Some(m) => writeln!(out, ", priorities up to {m}")?,
                    None => writeln!(out)?,
                }
                if let Some(st) = game.start() {
                    writeln!(out, "start {}: {} wins", label(game, st), s.winner(st))?;
                }
                writeln!(out, "Even wins {even}")?;
                writeln!(out, "Odd wins  {odd}")?;
                writeln!(
                    out,
                    "algorithm {}, after preprocessing solved {} of {} vertices",
                    args.algorithm,
                    p.preprocessed,
                    game.vertex_count()
                )?;
                writeln!(out, "time  {:.3} s", started.elapsed().as_secs_f64())?;
            }
        }
        ParityOutput::Json => {
            let totals = Totals {
                vertices: game.vertex_count(),
                edges: game.edge_count(),
                max_priority: game.max_priority(),
                even,
                odd,
                start: game.start().map(|v| Start {
                    vertex: v,
                    winner: s.winner(v).index(),
                }),
                algorithm: args.algorithm.as_str(),
                preprocessed: p.preprocessed,
            };
            // The totals' fields, then the rows, then the time: one object.
            let head = serde_json::to_string(&totals)?;
            out.write_all(&head.as_bytes()[..head.len() - 1])?;
            if !args.summary {
                out.write_all(b",\"positions\":[")?;
                for (i, v) in all.enumerate() {
                    out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
                    serde_json::to_writer(&mut *out, &row(game, s, v))?;
                }
                out.write_all(b"\n]")?;
            }
            let peak = crate::mem::peak_rss_bytes().map_or("null".into(), |b| b.to_string());
            writeln!(
                out,
                ",\"seconds\":{:.6},\"peak_rss_bytes\":{peak}}}",
                started.elapsed().as_secs_f64()
            )?;
        }
    }
    Ok(())
}
