//! Printers: solutions as text for people, CSV and JSON for scripts (see docs/format.md),
//! and a game's report and a query's answer as text or JSON.

use crate::cli::OutputArg;
use retrograde_graph::Graph;
use retrograde_registry::{QueryAnswer, Report};
use retrograde_solve::{Counts, Outcome, Scored, Value};
use std::io::{self, Write};
use std::time::Instant;

/// Writes an unsigned integer without allocating.
fn num(out: &mut impl Write, n: u64) -> io::Result<()> {
    out.write_all(itoa::Buffer::new().format(n).as_bytes())
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string always serializes")
}

/// `3 (name)` or `3`.
pub fn label(g: &Graph, v: u32) -> String {
    label_of(v, g.name(v))
}

fn label_of(v: u32, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("{v} ({n})"),
        None => v.to_string(),
    }
}

/// What a row of output shows about a vertex (of a whole graph and its solution, or of one
/// MPI rank's share of them: `cmd::solve`).
pub trait Rows {
    /// Whether vertices have owners (rows then show the owner and the winner).
    fn is_arena(&self) -> bool;
    /// The player who moves at `v` (0 outside arenas).
    fn owner(&self, v: u32) -> u8;
    /// The name of `v`, if any.
    fn name(&self, v: u32) -> Option<&str>;
    /// The value of `v`.
    fn value(&self, v: u32) -> Value;
    /// The value of `v` with its score, in a scored graph (`None` in an unscored one: rows
    /// then show no score).
    fn scored(&self, v: u32) -> Option<Scored>;
    /// The best move from `v`, if any.
    fn best_move(&self, v: u32) -> Option<u32>;
    /// The name of `v`'s best move, if any (text rows show it).
    fn best_name(&self, v: u32) -> Option<&str>;

    /// In an arena, the player who wins from `v` (as [`retrograde_solve::Solution::winner`]).
    fn winner(&self, v: u32) -> Option<u8> {
        match self.value(v).outcome() {
            Outcome::Win => Some(self.owner(v)),
            Outcome::Loss => Some(1 - self.owner(v)),
            _ => None,
        }
    }
}

/// A value as people read it: `win in 3`, or with a score `win by 2 in 3`.
fn shown(g: &impl Rows, v: u32) -> String {
    match g.scored(v) {
        Some(x) => x.to_string(),
        None => g.value(v).to_string(),
    }
}

/// Writes a score (nothing for a draw, which has none).
fn score_field(x: Scored, out: &mut impl Write) -> io::Result<()> {
    if x.outcome() != Outcome::Draw {
        out.write_all(itoa::Buffer::new().format(x.score).as_bytes())?;
    }
    Ok(())
}

/// The CSV header for a graph (a scored graph has a score column, arenas two more).
pub fn csv_header(arena: bool, scored: bool, out: &mut impl Write) -> io::Result<()> {
    out.write_all(b"vertex,outcome,remoteness,best_move")?;
    if scored {
        out.write_all(b",score")?;
    }
    if arena {
        out.write_all(b",owner,winner")?;
    }
    out.write_all(b"\n")
}

/// One CSV row.
pub fn csv_row(g: &impl Rows, v: u32, out: &mut impl Write) -> io::Result<()> {
    let value = g.value(v);
    num(out, v as u64)?;
    out.write_all(b",")?;
    out.write_all(value.outcome().as_str().as_bytes())?;
    out.write_all(b",")?;
    if let Some(r) = value.remoteness() {
        num(out, r as u64)?;
    }
    out.write_all(b",")?;
    if let Some(b) = g.best_move(v) {
        num(out, b as u64)?;
    }
    if let Some(x) = g.scored(v) {
        out.write_all(b",")?;
        score_field(x, out)?;
    }
    if g.is_arena() {
        out.write_all(b",")?;
        num(out, g.owner(v) as u64)?;
        out.write_all(b",")?;
        if let Some(w) = g.winner(v) {
            num(out, w as u64)?;
        }
    }
    out.write_all(b"\n")
}

/// One text line: `3 (name): win in 5, move to 4` (`win by 2 in 5` in a scored graph).
pub fn text_row(g: &impl Rows, v: u32, out: &mut impl Write) -> io::Result<()> {
    write!(out, "{}: {}", label_of(v, g.name(v)), shown(g, v))?;
    match g.best_move(v) {
        Some(b) => write!(out, ", move to {}", label_of(b, g.best_name(v)))?,
        None => write!(out, " (terminal)")?,
    }
    if g.is_arena() {
        write!(out, "; player {} moves", g.owner(v))?;
        if let Some(w) = g.winner(v) {
            write!(out, ", player {w} wins")?;
        }
    }
    writeln!(out)
}

/// One JSON object for a vertex (no trailing comma or newline).
pub fn json_row(g: &impl Rows, v: u32, out: &mut impl Write) -> io::Result<()> {
    let value = g.value(v);
    out.write_all(b"{\"vertex\":")?;
    num(out, v as u64)?;
    if let Some(n) = g.name(v) {
        write!(out, ",\"name\":{}", json_str(n))?;
    }
    write!(out, ",\"outcome\":\"{}\",\"remoteness\":", value.outcome())?;
    match value.remoteness() {
        Some(r) => num(out, r as u64)?,
        None => out.write_all(b"null")?,
    }
    if let Some(x) = g.scored(v) {
        out.write_all(b",\"score\":")?;
        match x.outcome() {
            Outcome::Draw => out.write_all(b"null")?,
            _ => score_field(x, out)?,
        }
    }
    out.write_all(b",\"best_move\":")?;
    match g.best_move(v) {
        Some(b) => num(out, b as u64)?,
        None => out.write_all(b"null")?,
    }
    if g.is_arena() {
        write!(out, ",\"owner\":{},\"winner\":", g.owner(v))?;
        match g.winner(v) {
            Some(w) => num(out, w as u64)?,
            None => out.write_all(b"null")?,
        }
    }
    out.write_all(b"}")
}

/// The totals as JSON fields (without braces), shared by every JSON output.
pub fn json_totals(vertices: u64, edges: u64, c: &Counts) -> String {
    let opt = |x: Option<u32>| x.map_or("null".to_string(), |r| r.to_string());
    format!(
        "\"vertices\":{},\"edges\":{},\"win\":{},\"loss\":{},\"tie\":{},\"draw\":{},\"max_remoteness\":{},\"longest_win\":{},\"longest_loss\":{}",
        vertices,
        edges,
        c.win,
        c.loss,
        c.tie,
        c.draw,
        opt(c.max_remoteness),
        opt(c.longest_win),
        opt(c.longest_loss)
    )
}

/// The totals for people.
pub fn text_summary(
    vertices: u64,
    edges: u64,
    c: &Counts,
    seconds: f64,
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(out, "{vertices} vertices, {edges} edges")?;
    writeln!(out, "win   {}", c.win)?;
    writeln!(out, "loss  {}", c.loss)?;
    writeln!(out, "tie   {}", c.tie)?;
    writeln!(out, "draw  {}", c.draw)?;
    match c.max_remoteness {
        Some(r) => writeln!(out, "longest game: {}", retrograde_registry::plies(r))?,
        None => writeln!(out, "longest game: none (no position ends)")?,
    }
    writeln!(out, "time  {seconds:.3} s")
}

/// The optimal line from a vertex (`--line`), in the output format `format`: what comes
/// before its rows. Written in three parts (open, rows, close) so that MPI ranks can each
/// format the part they hold.
pub fn line_open(
    r: &impl Rows,
    format: OutputArg,
    start: u32,
    repeats: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    match format {
        OutputArg::Text => writeln!(
            out,
            "optimal play from {}: {}",
            label_of(start, r.name(start)),
            shown(r, start)
        ),
        OutputArg::Csv if r.scored(start).is_some() => {
            writeln!(out, "ply,vertex,outcome,remoteness,score")
        }
        OutputArg::Csv => writeln!(out, "ply,vertex,outcome,remoteness"),
        OutputArg::Json => write!(out, "{{\"start\":{start},\"repeats\":{repeats},\"line\":["),
    }
}

/// Row `ply` of a line: vertex `v`.
pub fn line_row(
    r: &impl Rows,
    format: OutputArg,
    ply: u64,
    v: u32,
    out: &mut impl Write,
) -> io::Result<()> {
    let value = r.value(v);
    match format {
        OutputArg::Text => {
            write!(out, "{ply:>4}  {}: {}", label_of(v, r.name(v)), shown(r, v))?;
            if r.is_arena() {
                write!(out, "  (player {} moves)", r.owner(v))?;
            }
            writeln!(out)
        }
        OutputArg::Csv => {
            let rem = value.remoteness().map_or(String::new(), |x| x.to_string());
            write!(out, "{ply},{v},{},{rem}", value.outcome())?;
            if let Some(x) = r.scored(v) {
                out.write_all(b",")?;
                score_field(x, out)?;
            }
            writeln!(out)
        }
        OutputArg::Json => {
            if ply > 0 {
                out.write_all(b",")?;
            }
            json_row(r, v, out)
        }
    }
}

/// What comes after a line's rows: `end` is its last vertex, or with `repeats` the vertex
/// its last one's best move meets again.
pub fn line_close(
    r: &impl Rows,
    format: OutputArg,
    end: u32,
    repeats: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    match format {
        OutputArg::Text if repeats => writeln!(
            out,
            "then {} again: the game never ends",
            label_of(end, r.name(end))
        ),
        OutputArg::Text if r.value(end).outcome() == Outcome::Draw => writeln!(out, "(draw)"),
        OutputArg::Text => match r.scored(end) {
            Some(x) if x.score != 0 => writeln!(
                out,
                "game over: {} by {} for the player to move",
                x.outcome(),
                x.score.unsigned_abs()
            ),
            _ => writeln!(
                out,
                "game over: {} for the player to move",
                r.value(end).outcome()
            ),
        },
        OutputArg::Csv => Ok(()),
        OutputArg::Json => writeln!(out, "]}}"),
    }
}

/// Prints a query's answer: text, or the JSON object of the contract (`outcome`,
/// `remoteness`, `moves`).
pub fn answer(a: &QueryAnswer, json: bool, out: &mut impl Write) -> io::Result<()> {
    if json {
        writeln!(out, "{}", a.to_json())?;
        return Ok(());
    }
    out.write_all(a.picture.as_bytes())?;
    if !a.picture.ends_with('\n') {
        writeln!(out)?;
    }
    match &a.scores {
        Some((v, _)) => writeln!(out, "{} to move: {v}", a.side)?,
        None => writeln!(out, "{} to move: {}", a.side, a.value)?,
    }
    if a.moves.is_empty() {
        writeln!(out, "no moves: the game is over")?;
    } else {
        // One move a line, names aligned: a long list stays readable.
        writeln!(out, "moves, best first (value for the mover):")?;
        let width = a.moves.iter().map(|(m, _)| m.chars().count()).max();
        let scores = a.scores.as_ref().map(|(_, m)| m);
        for (i, (m, v)) in a.moves.iter().enumerate() {
            let w = width.unwrap_or(0);
            match scores.and_then(|s| s.get(i)) {
                Some(s) => writeln!(out, "  {m:<w$}  {s}")?,
                None => writeln!(out, "  {m:<w$}  {v}")?,
            }
        }
        if a.more > 0 {
            writeln!(out, "  and {} more", a.more)?;
        }
    }
    Ok(())
}

/// Prints a game's report: its lines, or its JSON object (`json`), with the time since
/// `started` and the peak memory.
pub fn report(r: &Report, json: bool, started: Instant, out: &mut impl Write) -> io::Result<()> {
    let seconds = started.elapsed().as_secs_f64();
    let peak = retrograde_mem::peak_rss_bytes();
    match json {
        true => writeln!(out, "{}", r.json(seconds, peak)),
        false => out.write_all(r.text(seconds, peak).as_bytes()),
    }
}
