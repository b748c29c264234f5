//! `mpirun -n K retrograde solve FILE`: the graph divided among K ranks (each reads its part
//! of the file and keeps the moves from and to its own vertices: `retrograde_solve::dgraph`),
//! solved across them (`retrograde_solve::solve_distributed`), printed by rank 0 exactly as
//! one process prints it.
//!
//! Printing: rank 0 prints the header and its own rows, then each other rank's rows in rank
//! order, which that rank formats itself and sends in pieces of at most [`PIECE`] bytes (one
//! collective a piece), so no rank ever holds more than its own share and one piece. Totals
//! are sums and maxima over the ranks. Text rows name the best move; its name, when it
//! belongs to another rank, is fetched from that rank in one batched exchange. With
//! `--vertex V` (an id, or a name every rank looks up among its own vertices), each rank
//! formats the chosen rows it owns and rank 0 gathers them and prints them in the order
//! given. `--verify` checks every rank's vertices by the one-process rule
//! (`retrograde_solve::verify_distributed`), before anything is printed. `--line V` walks
//! the best moves across the ranks, then prints the line run by run (see [`line`]). `--db
//! DIR` writes one process's database: rank 0 writes the files, every rank sending its part
//! (`retrograde_tier::graphdb::write_distributed`). Standard input is read by rank 0 and
//! dealt to the ranks (`input::load_share`).

use super::Status;
use crate::cli::{OutputArg, SolveArgs};
use crate::input::{self, agreed};
use crate::mem;
use crate::output::{self, Rows};
use anyhow::{anyhow, Result};
use retrograde_solve::exchange::Exchange;
use retrograde_solve::{
    solve_distributed, verify_share, DistGraph, DistSolution, Share as _, Value,
};
use std::collections::HashMap;
use std::io::Write;
use std::time::Instant;

/// Bytes of formatted rows a rank sends to rank 0 in one step, at most (about).
const PIECE: usize = 4 << 20;

/// One rank's rows: its share of the graph and of the solution.
struct Share<'a> {
    g: &'a DistGraph,
    s: &'a DistSolution,
    /// Names of best moves that other ranks own (text rows only).
    names: HashMap<u32, String>,
}

impl Rows for Share<'_> {
    fn is_arena(&self) -> bool {
        self.g.is_arena()
    }
    fn owner(&self, v: u32) -> u8 {
        self.g.owner(v)
    }
    fn name(&self, v: u32) -> Option<&str> {
        self.g.name(v)
    }
    fn value(&self, v: u32) -> Value {
        self.s.value(v)
    }
    fn best_move(&self, v: u32) -> Option<u32> {
        self.s.best_move(v)
    }
    fn best_name(&self, v: u32) -> Option<&str> {
        let b = self.s.best_move(v)?;
        if self.g.range().contains(&b) {
            self.g.name(b)
        } else {
            self.names.get(&b).map(String::as_str)
        }
    }
}

pub fn run(
    args: &SolveArgs,
    ex: &dyn Exchange,
    verbose: bool,
    started: Instant,
    out: &mut impl Write,
) -> Result<Status> {
    let loaded = input::load_share(args.file.as_deref(), &args.graph, ex)?;
    let g = &loaded.graph;
    let rules = input::rules(args.graph.no_move);
    // Resolve vertex arguments before the (possibly long) solve, as one process does.
    let chosen: Vec<u32> = args
        .vertex
        .iter()
        .map(|v| vertex(g, v, ex))
        .collect::<Result<_>>()?;
    let line_from = args.line.as_deref().map(|v| vertex(g, v, ex)).transpose()?;
    let t = Instant::now();
    let best_moves = !args.summary || args.verify || line_from.is_some() || args.db.is_some();
    let s = solve_distributed(g, &rules, best_moves, ex)
        .map_err(|e| agreed(anyhow!("{}: {e}", loaded.name)))?;
    let solve_time = t.elapsed();
    if args.verify {
        let t = Instant::now();
        let verdict = verify_share(g, &rules, s.part(), ex).map_err(|e| anyhow!("{e}"))?;
        if let Err(v) = verdict {
            return Err(agreed(anyhow!(
                "{}: internal error: the solution failed verification: {v}",
                loaded.name
            )));
        }
        if verbose && ex.rank() == 0 {
            // One write: other ranks' lines share the launcher's stderr.
            let line = format!("verify  {:>9.3} s  ok\n", t.elapsed().as_secs_f64());
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
    }
    if let Some(dir) = &args.db {
        // As one process writes it (`cmd::solve`): each rank counts its own vertices and
        // moves, rank 0 the times, and rank 0 writes the files.
        let storage = retrograde_tier::DirStorage::new(dir.clone());
        let mut stats = retrograde_tier::Stats {
            positions: g.range().len() as u64,
            moves: g.forward_targets().len() as u64,
            classes: g.range().len() as u64,
            states: g.range().len() as u64,
            ..Default::default()
        };
        if ex.rank() == 0 {
            stats.solve = solve_time;
            stats.explore = loaded.parse + loaded.build;
        }
        for v in g.range() {
            stats.count(s.value(v));
        }
        let params = super::solve::db_params(
            &loaded.name,
            g.vertex_count(),
            g.edge_count(),
            g.start(),
            &rules,
        );
        retrograde_tier::graphdb::write_distributed(&storage, g, &s, &stats, params, ex)
            .map_err(|e| anyhow!("{e}"))?;
    }
    let counts = s.part().counts_across(ex);
    let text_rows = args.output == OutputArg::Text && !args.summary;
    let share = Share {
        g,
        s: &s,
        names: if text_rows && g.has_names() {
            remote_best_names(g, &s, ex)
        } else {
            HashMap::new()
        },
    };
    let (n, m) = (g.vertex_count() as u64, g.edge_count());
    if verbose {
        if ex.rank() == 0 {
            for (phase, d) in [
                ("parse", loaded.parse),
                ("build", loaded.build),
                ("solve", solve_time),
            ] {
                let secs = d.as_secs_f64();
                eprintln!(
                    "{phase:<7} {secs:>9.3} s  {:>8.1} M edges/s",
                    m as f64 / secs.max(1e-9) / 1e6
                );
            }
        }
        eprintln!(
            "rank {} of {}: vertices {}..{}, graph share {:.1} MiB, peak memory {}",
            ex.rank(),
            ex.size(),
            g.range().start,
            g.range().end,
            g.heap_bytes() as f64 / (1 << 20) as f64,
            mem::peak_rss_bytes().map_or("unknown".into(), |p| format!(
                "{:.1} MiB",
                p as f64 / (1 << 20) as f64
            )),
        );
    }

    if let Some(v) = line_from {
        line(&share, v, args.output, ex, out)?;
        return Ok(Status::Success);
    }
    match args.output {
        OutputArg::Text => {
            if !args.summary {
                stream(&share, &chosen, ex, out, |_, v, b| {
                    output::text_row(&share, v, b)
                })?;
            }
            if ex.rank() == 0 && chosen.is_empty() {
                output::text_summary(n, m, &counts, started.elapsed().as_secs_f64(), out)?;
            }
        }
        OutputArg::Csv if args.summary => {
            if ex.rank() == 0 {
                writeln!(
                    out,
                    "vertices,edges,win,loss,tie,draw,max_remoteness,seconds"
                )?;
                let r = counts
                    .max_remoteness
                    .map_or(String::new(), |r| r.to_string());
                writeln!(
                    out,
                    "{n},{m},{},{},{},{},{r},{:.6}",
                    counts.win,
                    counts.loss,
                    counts.tie,
                    counts.draw,
                    started.elapsed().as_secs_f64()
                )?;
            }
        }
        OutputArg::Csv => {
            if ex.rank() == 0 {
                output::csv_header(g.is_arena(), out)?;
            }
            stream(&share, &chosen, ex, out, |_, v, b| {
                output::csv_row(&share, v, b)
            })?;
        }
        OutputArg::Json => {
            if ex.rank() == 0 {
                write!(out, "{{{}", output::json_totals(n, m, &counts))?;
            }
            if !args.summary {
                if ex.rank() == 0 {
                    out.write_all(b",\"positions\":[")?;
                }
                stream(&share, &chosen, ex, out, |i, v, b| {
                    b.write_all(if i == 0 { b"\n" } else { b",\n" })?;
                    output::json_row(&share, v, b)
                })?;
                if ex.rank() == 0 {
                    out.write_all(b"\n]")?;
                }
            }
            // The largest peak of any rank.
            let mut peak = [mem::peak_rss_bytes().map_or(0, |p| p + 1)];
            ex.max(&mut peak);
            let peak = peak[0]
                .checked_sub(1)
                .map_or("null".to_string(), |p| p.to_string());
            if ex.rank() == 0 {
                writeln!(
                    out,
                    ",\"seconds\":{:.6},\"peak_rss_bytes\":{peak}}}",
                    started.elapsed().as_secs_f64()
                )?;
            }
        }
    }
    Ok(Status::Success)
}

/// Rank 0 writes its rows, then every other rank's in rank order (module docs); with
/// `chosen` vertices, only their rows, in the order given (each rank formats those it owns,
/// rank 0 gathers them). `row(i, v, buf)` formats vertex `v`, the `i`-th printed. A collective.
fn stream(
    share: &Share<'_>,
    chosen: &[u32],
    ex: &dyn Exchange,
    out: &mut impl Write,
    row: impl Fn(usize, u32, &mut Vec<u8>) -> std::io::Result<()>,
) -> Result<()> {
    let (k, me) = (ex.size(), ex.rank());
    if !chosen.is_empty() {
        // (index, length, bytes) of each chosen row this rank owns.
        let mut mine = Vec::new();
        let mut b = Vec::new();
        for (i, &v) in chosen.iter().enumerate() {
            if share.g.range().contains(&v) {
                b.clear();
                row(i, v, &mut b)?;
                mine.extend_from_slice(&(i as u64).to_le_bytes());
                mine.extend_from_slice(&(b.len() as u64).to_le_bytes());
                mine.extend_from_slice(&b);
            }
        }
        if let Some(all) = ex.gather(&mine) {
            let mut rows: Vec<Option<&[u8]>> = vec![None; chosen.len()];
            for b in &all {
                let mut at = 0;
                while at + 16 <= b.len() {
                    let i = u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
                    let l = u64::from_le_bytes(b[at + 8..at + 16].try_into().expect("8 bytes"));
                    let end = (at + 16 + l as usize).min(b.len());
                    if let Some(r) = rows.get_mut(i as usize) {
                        *r = Some(&b[at + 16..end]);
                    }
                    at = end;
                }
            }
            for r in rows.into_iter().flatten() {
                out.write_all(r)?;
            }
        }
        return Ok(());
    }
    let mut vs = share.g.range();
    let mut buf = Vec::with_capacity(PIECE + (1 << 12));
    // Fills `buf` with the next rows; whether rows are left.
    let mut fill = |buf: &mut Vec<u8>| -> Result<bool> {
        buf.clear();
        while buf.len() < PIECE {
            match vs.next() {
                Some(v) => row(v as usize, v, buf)?,
                None => return Ok(false),
            }
        }
        Ok(!vs.is_empty())
    };
    if me == 0 {
        loop {
            let more = fill(&mut buf)?;
            out.write_all(&buf)?;
            if !more {
                break;
            }
        }
    }
    for turn in 1..k {
        loop {
            let mut send = vec![Vec::new(); k];
            let mut more = false;
            if me == turn {
                more = fill(&mut buf)?;
                send[0] = std::mem::take(&mut buf);
            }
            let (got, flag) = ex.all_to_all_max(send, u64::from(more));
            if me == 0 {
                out.write_all(&got[turn])?;
            }
            if flag == 0 {
                break;
            }
        }
    }
    Ok(())
}

/// `--line V` across ranks, printed by rank 0 as one process prints it. First the walk:
/// the owner of the vertex reached follows best moves while they stay among its vertices
/// (each rank remembers the vertices of the line it owns, to see one come again), then hands
/// the next vertex on in one collective (every rank learns where the line goes: the owner
/// of each of its *runs* of consecutive vertices, and how it ends). Then the printing: run
/// by run, its owner formats its rows and sends them to rank 0 in pieces (as [`stream`]);
/// the opening is formatted by the start's owner, the ending by the owner of the last
/// vertex (or of the vertex met again). Memory: each rank its vertices of the line; every
/// rank one word per run.
fn line(
    share: &Share<'_>,
    start: u32,
    format: OutputArg,
    ex: &dyn Exchange,
    out: &mut impl Write,
) -> Result<()> {
    let ranges = share.g.ranges();
    let me = ex.rank();
    // The walk: this rank's runs (first ply, vertices), every run's owner.
    let mut seen = std::collections::HashSet::new();
    let mut runs: Vec<(u64, Vec<u32>)> = Vec::new();
    let mut owners: Vec<usize> = Vec::new();
    let (mut at, mut ply) = (start, 0u64);
    // How the line ends: (its last vertex, or the vertex met again; whether it repeats).
    let (end, repeats) = loop {
        let o = ranges.owner(at);
        // [how it goes on (1: at `vertex`, ply `next`; 2: ends at `vertex`; 3: meets
        // `vertex` again), vertex, next, whether `o` walked a run].
        let mut step = [0u64; 4];
        if o == me {
            step = if seen.insert(at) {
                let mut run = vec![at];
                let mut cur = at;
                let how = loop {
                    match share.s.best_move(cur) {
                        None => break [2, u64::from(cur), 0],
                        Some(b) if ranges.owner(b) != me => {
                            break [1, u64::from(b), ply + run.len() as u64]
                        }
                        Some(b) if !seen.insert(b) => break [3, u64::from(b), 0],
                        Some(b) => {
                            run.push(b);
                            cur = b;
                        }
                    }
                };
                runs.push((ply, run));
                [how[0], how[1], how[2], 1]
            } else {
                [3, u64::from(at), 0, 0]
            };
        }
        ex.max(&mut step);
        if step[3] == 1 {
            owners.push(o);
        }
        match step[0] {
            1 => (at, ply) = (step[1] as u32, step[2]),
            2 => break (step[1] as u32, false),
            _ => break (step[1] as u32, true),
        }
    };
    // The printing: the opening, every run, the ending, each by its owner.
    let mut parts = vec![ranges.owner(start)];
    parts.extend(&owners);
    parts.push(ranges.owner(end));
    let mut mine = runs.iter();
    let mut buf = Vec::with_capacity(PIECE + (1 << 12));
    for (i, &o) in parts.iter().enumerate() {
        // This rank's rows of the part, piece by piece.
        let mut rows: Option<(u64, &[u32])> = None;
        if o == me && i > 0 && i + 1 < parts.len() {
            let (p, r) = mine.next().expect("a run of this rank");
            rows = Some((*p, &r[..]));
        }
        loop {
            buf.clear();
            let mut more = false;
            if o == me {
                if i == 0 {
                    output::line_open(share, format, start, repeats, &mut buf)?;
                } else if i + 1 == parts.len() {
                    output::line_close(share, format, end, repeats, &mut buf)?;
                } else if let Some((p, r)) = rows.as_mut() {
                    let mut n = 0;
                    while n < r.len() && buf.len() < PIECE {
                        output::line_row(share, format, *p, r[n], &mut buf)?;
                        *p += 1;
                        n += 1;
                    }
                    *r = &r[n..];
                    more = !r.is_empty();
                }
            }
            let mut send = vec![Vec::new(); ex.size()];
            send[0] = std::mem::take(&mut buf);
            let (got, flag) = ex.all_to_all_max(send, u64::from(more));
            if me == 0 {
                out.write_all(&got[o])?;
            }
            if flag == 0 {
                break;
            }
        }
    }
    Ok(())
}

/// A vertex named on the command line, by id or by name, as [`input::vertex`] finds it in a
/// whole graph (the same messages); names are looked up by every rank in its own vertices.
/// A collective; the error is [`input::Agreed`].
fn vertex(g: &DistGraph, text: &str, ex: &dyn Exchange) -> Result<u32> {
    let n = g.vertex_count() as u64;
    if let Ok(id) = text.parse::<u64>() {
        if id < n {
            return Ok(id as u32);
        }
        if n == 0 {
            return Err(agreed(anyhow!(
                "vertex {id} does not exist (the graph has no vertices)"
            )));
        }
        return Err(agreed(anyhow!(
            "vertex {id} does not exist (the graph has {n} vertices, ids 0 to {})",
            n - 1
        )));
    }
    if g.has_names() {
        // The smallest vertex with that name, of any rank.
        let found = g.range().find(|&v| g.name(v) == Some(text));
        let mut w = [found.map_or(0, |v| u64::MAX - v as u64)];
        ex.max(&mut w);
        if w[0] != 0 {
            return Ok((u64::MAX - w[0]) as u32);
        }
        return Err(agreed(anyhow!(
            "no vertex is named {text:?} (expected a vertex id or a name from the file)"
        )));
    }
    Err(agreed(anyhow!("expected a vertex id, found {text:?}")))
}

/// The names of the best moves of this rank's vertices that other ranks own, asked of their
/// owners in one batched exchange (4 bytes an id, answered with the name's length and bytes).
fn remote_best_names(g: &DistGraph, s: &DistSolution, ex: &dyn Exchange) -> HashMap<u32, String> {
    let (k, me) = (ex.size(), ex.rank());
    let ranges = g.ranges();
    let mut asks: Vec<Vec<u32>> = vec![Vec::new(); k];
    for v in g.range() {
        if let Some(b) = s.best_move(v) {
            let o = ranges.owner(b);
            if o != me {
                asks[o].push(b);
            }
        }
    }
    for a in &mut asks {
        a.sort_unstable();
        a.dedup();
    }
    let send = asks
        .iter()
        .map(|a| a.iter().flat_map(|x| x.to_le_bytes()).collect())
        .collect();
    let answers = ex
        .all_to_all(send)
        .into_iter()
        .map(|b| {
            let mut a = Vec::new();
            for c in b.chunks_exact(4) {
                let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                let name = if g.range().contains(&v) {
                    g.name(v).unwrap_or_default()
                } else {
                    ""
                };
                a.extend_from_slice(&(name.len() as u32).to_le_bytes());
                a.extend_from_slice(name.as_bytes());
            }
            a
        })
        .collect();
    let mut names = HashMap::new();
    for (o, b) in ex.all_to_all(answers).into_iter().enumerate() {
        let mut at = 0;
        for &v in &asks[o] {
            let Some(l) = b.get(at..at + 4) else { break };
            let l = u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize;
            let text = b.get(at + 4..at + 4 + l).unwrap_or_default();
            at += 4 + l;
            if !text.is_empty() {
                names.insert(v, String::from_utf8_lossy(text).into_owned());
            }
        }
    }
    names
}
