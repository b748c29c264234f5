//! `retrograde solve`: solve a graph file and print the values, in one process or across the
//! ranks of `mpirun -n K` (K > 1), by one path over a [`Share`] of the graph: one process
//! holds the whole graph (`input::load`), a rank its share (`input::load_share`: its part of
//! the file, its vertices' moves: `retrograde_solve::dgraph`). The solve, `--verify`, `--db`
//! and the printing below are the same code for both; with one process every collective is
//! the identity ([`Solo`]).
//!
//! Printing: rank 0 prints the header and its own rows, then each other rank's rows in rank
//! order, which that rank formats itself and sends in pieces of at most [`PIECE`] bytes (one
//! collective a piece), so no rank ever holds more than its own share and one piece; the
//! other ranks print nothing. Totals are sums and maxima over the ranks. Text rows name the
//! best move; its name, when another rank holds it, is fetched from that rank in one batched
//! exchange. With `--vertex V` (an id, or a name every rank looks up among its own vertices),
//! each rank formats the chosen rows it holds and rank 0 gathers them and prints them in the
//! order given. `--verify` checks every vertex by the one rule of
//! `retrograde_solve::verify_share` before anything is printed. `--line V` walks the best
//! moves across the ranks, then prints the line run by run (see [`line`]). `--db DIR` writes
//! one process's database (across ranks rank 0 writes the files, every rank sending its
//! part: `retrograde_tier::graphdb::write`, one path for both).

use super::Status;
use crate::cli::{OutputArg, SolveArgs};
use crate::input::{self, agreed, Loaded};
use crate::mem;
use crate::output::{self, Rows};
use anyhow::{anyhow, Result};
use retrograde_solve::exchange::{Exchange, Solo};
use retrograde_solve::place::Placement;
use retrograde_solve::share::ask_about;
use retrograde_solve::{
    solve_share, verify_share, Engine, Rules, Scored, Share, Solution, SolveOptions, Value,
};
use retrograde_tier::{graphdb, Stats, Storage};
use std::collections::HashMap;
use std::io::Write;
use std::time::Instant;

/// Bytes of formatted rows a rank sends to rank 0 in one step, at most (about).
const PIECE: usize = 4 << 20;

pub fn run(
    args: &SolveArgs,
    ex: &dyn Exchange,
    verbose: bool,
    started: Instant,
    out: &mut impl Write,
) -> Result<Status> {
    let path = args.file.as_deref();
    // One writer at a time (rank 0 locks for the job): a second one stops here, before
    // reading its graph.
    let storage = args
        .db
        .as_deref()
        .map(|dir| super::db::for_writing(dir, ex))
        .transpose()?;
    let storage = storage.as_deref().map(|s| s as &dyn Storage);
    if ex.size() > 1 {
        let loaded = input::load_share(path, &args.graph, ex)?;
        solve(&loaded, args, ex, storage, verbose, started, out)
    } else {
        let loaded = input::load(path, &args.graph)?;
        solve(&loaded, args, &Solo, storage, verbose, started, out)
    }
}

/// An error of the solver, as the CLI reports it: every rank meets a graph too large alike
/// ([`input::Agreed`]); a malformed message from another rank only the rank that got it
/// (which then ends the job).
fn solver_error(name: &str, e: retrograde_solve::Error) -> anyhow::Error {
    let mine = matches!(e, retrograde_solve::Error::Message { .. });
    let e = anyhow!("{name}: {e}");
    if mine {
        e
    } else {
        agreed(e)
    }
}

fn solve<G: Share>(
    loaded: &Loaded<G>,
    args: &SolveArgs,
    ex: &dyn Exchange,
    storage: Option<&dyn Storage>,
    verbose: bool,
    started: Instant,
    out: &mut impl Write,
) -> Result<Status> {
    let g = &loaded.graph;
    let rules = input::rules(args.graph.no_move);
    // Resolve vertex arguments before the (possibly long) solve, so typos fail fast.
    let chosen: Vec<u32> = args
        .vertex
        .iter()
        .map(|v| input::vertex_of(g, v, ex))
        .collect::<Result<_>>()?;
    let line_from = args
        .line
        .as_deref()
        .map(|v| input::vertex_of(g, v, ex))
        .transpose()?;
    let t = Instant::now();
    // Totals need no best moves: skip that pass over every edge unless something shows them.
    let opts = SolveOptions {
        best_moves: !args.summary || args.verify || line_from.is_some() || args.db.is_some(),
        ..SolveOptions::default()
    };
    let (s, phases) =
        solve_share(g, &rules, &opts, ex).map_err(|e| solver_error(&loaded.name, e))?;
    let solve_time = t.elapsed();
    if args.verify {
        let t = Instant::now();
        let verdict = verify_share(g, &rules, &s, ex).map_err(|e| solver_error(&loaded.name, e))?;
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
    if let Some(storage) = storage {
        // Each rank counts its own vertices and moves, rank 0 the times.
        let held = g.len() as u64;
        let mut stats = Stats {
            positions: held,
            moves: g.forward_targets().len() as u64,
            classes: held,
            states: held,
            ..Default::default()
        };
        if ex.rank() == 0 {
            stats.solve = solve_time;
            stats.explore = loaded.parse + loaded.build;
        }
        for l in 0..held as u32 {
            stats.count(s.value(l));
        }
        let params = db_params(
            &loaded.name,
            g.vertex_count(),
            g.edge_count(),
            g.start(),
            &rules,
        );
        graphdb::write(storage, g, &s, &stats, params, ex).map_err(|e| anyhow!("{e}"))?;
    }
    let counts = s.counts_across(ex);
    if verbose {
        report(loaded, &phases, solve_time, ex);
    }
    let text_rows = args.output == OutputArg::Text && !args.summary;
    let view = View {
        g,
        s: &s,
        names: if text_rows && g.has_names() && !G::Place::ALONE {
            remote_best_names(g, &s, ex).map_err(|e| solver_error(&loaded.name, e))?
        } else {
            HashMap::new()
        },
    };
    if let Some(v) = line_from {
        line(&view, v, args.output, ex, out)?;
        return Ok(Status::Success);
    }
    print(&view, args, &chosen, &counts, started, ex, out)?;
    Ok(Status::Success)
}

/// `-v`: the phases (rank 0), and every rank's memory.
fn report<G: Share>(
    loaded: &Loaded<G>,
    phases: &retrograde_solve::Phases,
    solve: std::time::Duration,
    ex: &dyn Exchange,
) {
    let g = &loaded.graph;
    if ex.rank() == 0 {
        let m = g.edge_count() as f64;
        for (phase, d) in [
            ("parse", loaded.parse),
            ("build", loaded.build),
            ("solve", solve),
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
    }
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    let peak =
        mem::peak_rss_bytes().map_or("unknown".into(), |p| format!("{:.1} MiB", mib(p as usize)));
    if ex.size() == 1 {
        eprintln!("peak memory {peak}");
    } else {
        let first = if g.is_empty() { 0 } else { g.global(0) };
        eprintln!(
            "rank {} of {}: vertices {first}..{}, graph share {:.1} MiB, peak memory {peak}",
            ex.rank(),
            ex.size(),
            first as usize + g.len(),
            mib(g.heap_bytes()),
        );
    }
}

/// Rows, the summary or both, in the output format asked for.
fn print<G: Share>(
    view: &View<'_, G>,
    args: &SolveArgs,
    chosen: &[u32],
    counts: &retrograde_solve::Counts,
    started: Instant,
    ex: &dyn Exchange,
    out: &mut impl Write,
) -> Result<()> {
    let (n, m) = (view.g.vertex_count() as u64, view.g.edge_count());
    let rank0 = ex.rank() == 0;
    match args.output {
        OutputArg::Text => {
            if !args.summary {
                stream(view, chosen, ex, out, |_, v, b| {
                    output::text_row(view, v, b)
                })?;
            }
            if rank0 && (args.summary || chosen.is_empty()) {
                output::text_summary(n, m, counts, started.elapsed().as_secs_f64(), out)?;
            }
        }
        OutputArg::Csv if args.summary => {
            if rank0 {
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
            if rank0 {
                output::csv_header(view.g.is_arena(), view.g.is_scored(), out)?;
            }
            stream(view, chosen, ex, out, |_, v, b| output::csv_row(view, v, b))?;
        }
        OutputArg::Json => {
            if rank0 {
                write!(out, "{{{}", output::json_totals(n, m, counts))?;
            }
            if !args.summary {
                if rank0 {
                    out.write_all(b",\"positions\":[")?;
                }
                stream(view, chosen, ex, out, |i, v, b| {
                    b.write_all(if i == 0 { b"\n" } else { b",\n" })?;
                    output::json_row(view, v, b)
                })?;
                if rank0 {
                    out.write_all(b"\n]")?;
                }
            }
            // The largest peak of any rank.
            let mut peak = [mem::peak_rss_bytes().map_or(0, |p| p + 1)];
            ex.max(&mut peak);
            let peak = peak[0]
                .checked_sub(1)
                .map_or("null".to_string(), |p| p.to_string());
            if rank0 {
                writeln!(
                    out,
                    ",\"seconds\":{:.6},\"peak_rss_bytes\":{peak}}}",
                    started.elapsed().as_secs_f64()
                )?;
            }
        }
    }
    Ok(())
}

/// The rows of the vertices a share holds: the share and its part of the solution.
struct View<'a, G> {
    g: &'a G,
    s: &'a Solution,
    /// Names of best moves that other ranks hold (text rows only).
    names: HashMap<u32, String>,
}

impl<G: Share> View<'_, G> {
    /// The place of a vertex this share holds (rows are only formatted by their holder).
    fn at(&self, v: u32) -> u32 {
        self.g
            .held(v)
            .unwrap_or_else(|| panic!("vertex {v} is not held here"))
    }
}

impl<G: Share> Rows for View<'_, G> {
    fn is_arena(&self) -> bool {
        self.g.is_arena()
    }
    fn owner(&self, v: u32) -> u8 {
        self.g.owner_at(self.at(v))
    }
    fn name(&self, v: u32) -> Option<&str> {
        self.g.name_at(self.at(v))
    }
    fn value(&self, v: u32) -> Value {
        self.s.value(self.at(v))
    }
    fn scored(&self, v: u32) -> Option<Scored> {
        self.g.is_scored().then(|| self.s.scored(self.at(v)))
    }
    fn best_move(&self, v: u32) -> Option<u32> {
        self.s.best_move(self.at(v))
    }
    fn best_name(&self, v: u32) -> Option<&str> {
        let b = self.best_move(v)?;
        match self.g.held(b) {
            Some(l) => self.g.name_at(l),
            None => self.names.get(&b).map(String::as_str),
        }
    }
}

/// Rank 0 writes its rows, then every other rank's in rank order (module docs); with
/// `chosen` vertices, only their rows, in the order given (each rank formats those it holds,
/// rank 0 gathers them). `row(i, v, buf)` formats vertex `v`, the `i`-th printed. A
/// collective.
fn stream<G: Share>(
    view: &View<'_, G>,
    chosen: &[u32],
    ex: &dyn Exchange,
    out: &mut impl Write,
    row: impl Fn(usize, u32, &mut Vec<u8>) -> std::io::Result<()>,
) -> Result<()> {
    let g = view.g;
    if !chosen.is_empty() {
        // (index, length, bytes) of each chosen row this rank holds.
        let mut mine = Vec::new();
        let mut b = Vec::new();
        for (i, &v) in chosen.iter().enumerate() {
            if g.held(v).is_some() {
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
                while let (Some(i), Some(l)) = (word(b, at), word(b, at + 8)) {
                    let end = (at + 16).saturating_add(l as usize).min(b.len());
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
    let mut places = 0..g.len() as u32;
    // Fills a piece with the next rows; whether rows are left.
    let mut fill = |buf: &mut Vec<u8>| -> Result<bool> {
        while buf.len() < PIECE {
            match places.next() {
                Some(l) => {
                    let v = g.global(l);
                    row(v as usize, v, buf)?;
                }
                None => return Ok(false),
            }
        }
        Ok(!places.is_empty())
    };
    for from in 0..ex.size() {
        relay(ex, from, out, &mut fill)?;
    }
    Ok(())
}

/// Rank `from`'s pieces of output, made by `fill(empty piece)` (whether more follow), written
/// by rank 0 as they come: a collective a piece, except for rank 0's own (the others take
/// no part in them).
fn relay(
    ex: &dyn Exchange,
    from: usize,
    out: &mut impl Write,
    mut fill: impl FnMut(&mut Vec<u8>) -> Result<bool>,
) -> Result<()> {
    let me = ex.rank();
    loop {
        let mut buf = Vec::with_capacity(if me == from { PIECE + (1 << 12) } else { 0 });
        let more = me == from && fill(&mut buf)?;
        if from == 0 {
            if me == 0 {
                out.write_all(&buf)?;
            }
            if !more {
                return Ok(());
            }
            continue;
        }
        let mut send = vec![Vec::new(); ex.size()];
        send[0] = buf;
        let (got, flag) = ex.all_to_all_max(send, u64::from(more));
        if me == 0 {
            out.write_all(&got[from])?;
        }
        if flag == 0 {
            return Ok(());
        }
    }
}

/// The little-endian `u64` at `b[at..at + 8]`, if there is one.
fn word(b: &[u8], at: usize) -> Option<u64> {
    let w = b.get(at..at + 8)?;
    Some(u64::from_le_bytes([
        w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7],
    ]))
}

/// `--line V`, printed by rank 0. First the walk: the holder of the vertex reached follows
/// best moves while they stay among its vertices (each rank remembers the vertices of the
/// line it holds, to see one come again), then hands the next vertex on in one collective
/// (every rank learns where the line goes: the holder of each of its *runs* of consecutive
/// vertices, and how it ends). Then the printing: run by run, its holder formats its rows
/// and sends them to rank 0 in pieces (as [`stream`]); the opening is formatted by the
/// start's holder, the ending by the holder of the last vertex (or of the vertex met again).
/// Memory: each rank its vertices of the line; every rank one word per run. One process
/// walks the whole line as one run.
fn line<G: Share>(
    view: &View<'_, G>,
    start: u32,
    format: OutputArg,
    ex: &dyn Exchange,
    out: &mut impl Write,
) -> Result<()> {
    let place = view.g.placement();
    let holder = |v: u32| place.owner(u64::from(v));
    let me = ex.rank();
    // The walk: this rank's runs (first ply, vertices), every run's holder.
    let mut seen = std::collections::HashSet::new();
    let mut runs: Vec<(u64, Vec<u32>)> = Vec::new();
    let mut holders: Vec<usize> = Vec::new();
    let (mut at, mut ply) = (start, 0u64);
    // How the line ends: (its last vertex, or the vertex met again; whether it repeats).
    let (end, repeats) = loop {
        let o = holder(at);
        // [how it goes on (1: at `vertex`, ply `next`; 2: ends at `vertex`; 3: meets
        // `vertex` again), vertex, next, whether `o` walked a run].
        let mut step = [0u64; 4];
        if o == me {
            step = if seen.insert(at) {
                let mut run = vec![at];
                let mut cur = at;
                let how = loop {
                    match view.best_move(cur) {
                        None => break [2, u64::from(cur), 0],
                        Some(b) if holder(b) != me => {
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
            holders.push(o);
        }
        match step[0] {
            1 => (at, ply) = (step[1] as u32, step[2]),
            2 => break (step[1] as u32, false),
            _ => break (step[1] as u32, true),
        }
    };
    // The printing: the opening, every run, the ending, each by its holder.
    let mut parts = vec![holder(start)];
    parts.extend(&holders);
    parts.push(holder(end));
    let mut mine = runs.iter();
    for (i, &o) in parts.iter().enumerate() {
        // This rank's rows of the part, piece by piece.
        let mut rows: Option<(u64, &[u32])> = None;
        if o == me && i > 0 && i + 1 < parts.len() {
            rows = mine.next().map(|(p, r)| (*p, &r[..]));
        }
        relay(ex, o, out, |buf| {
            if i == 0 {
                output::line_open(view, format, start, repeats, buf)?;
            } else if i + 1 == parts.len() {
                output::line_close(view, format, end, repeats, buf)?;
            } else if let Some((p, r)) = rows.as_mut() {
                let mut n = 0;
                while n < r.len() && buf.len() < PIECE {
                    output::line_row(view, format, *p, r[n], buf)?;
                    *p += 1;
                    n += 1;
                }
                *r = &r[n..];
                return Ok(!r.is_empty());
            }
            Ok(false)
        })?;
    }
    Ok(())
}

/// The names of the best moves of this rank's vertices that other ranks hold, asked of
/// their holders in one batched exchange (a place asked, answered with the name's length and
/// bytes).
fn remote_best_names<G: Share>(
    g: &G,
    s: &Solution,
    ex: &dyn Exchange,
) -> Result<HashMap<u32, String>, retrograde_solve::Error> {
    let remote =
        (0..g.len() as u32).filter_map(|l| s.best_move(l).filter(|&b| g.held(b).is_none()));
    let step = "names of best moves";
    let got = ask_about(g, ex, step, remote, None, |l, a| {
        let name = g.name_at(l).unwrap_or_default();
        a.extend_from_slice(&(name.len() as u32).to_le_bytes());
        a.extend_from_slice(name.as_bytes());
    })?;
    let mut names = HashMap::new();
    for (from, (vs, b)) in got.into_iter().enumerate() {
        let short = || retrograde_solve::Error::Message {
            step,
            from,
            problem: format!("fewer than {} names", vs.len()),
        };
        let mut rest = &b[..];
        for &v in &vs {
            let len = rest.get(..4).ok_or_else(short)?;
            let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
            let text = rest.get(4..4 + len).ok_or_else(short)?;
            if !text.is_empty() {
                names.insert(v, String::from_utf8_lossy(text).into_owned());
            }
            rest = &rest[4 + len..];
        }
    }
    Ok(names)
}

/// The `params` a graph database records (`database.json`): the file and the rules.
fn db_params(
    file: &str,
    vertices: usize,
    edges: u64,
    start: Option<u32>,
    rules: &Rules,
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

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_graph::GraphBuilder;
    use retrograde_solve::DistGraph;
    use std::cell::Cell;

    /// Rank 0 of two, whose partner asks nothing and answers with `reply`.
    struct Partner {
        reply: Vec<u8>,
        calls: Cell<usize>,
    }

    impl Exchange for Partner {
        fn rank(&self) -> usize {
            0
        }
        fn size(&self) -> usize {
            2
        }
        fn all_to_all(&self, mut send: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
            self.calls.set(self.calls.get() + 1);
            send[1] = if self.calls.get() == 1 {
                Vec::new()
            } else {
                self.reply.clone()
            };
            send
        }
        fn sum(&self, _: &mut [u64]) {}
        fn max(&self, _: &mut [u64]) {}
        fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
            Some(vec![bytes.to_vec(), Vec::new()])
        }
        fn broadcast(&self, _: &mut Vec<u8>) {}
        fn bytes_sent(&self) -> u64 {
            0
        }
    }

    /// The name of a best move held by another rank comes from that rank's reply; a reply
    /// cut short is an error naming the step and the rank, not a missing name.
    #[test]
    fn a_short_reply_of_names_is_an_error() {
        let mut b = GraphBuilder::new();
        b.add_edge(0, 3);
        b.add_edge(1, 2);
        b.set_name(3, "far");
        let g = b.build().unwrap();
        let ask = |reply: Vec<u8>| {
            let ex = Partner {
                reply,
                calls: Cell::new(0),
            };
            let share = DistGraph::from_graph(&g, &ex).unwrap();
            let s = Solution::from_values(&[Value::Win(1); 2], &[Some(3), None]).unwrap();
            remote_best_names(&share, &s, &ex)
        };
        let good = [3u32.to_le_bytes().as_slice(), b"far"].concat();
        assert_eq!(ask(good).unwrap().get(&3).map(String::as_str), Some("far"));
        for short in [vec![], vec![3, 0, 0, 0, b'f'], vec![3, 0]] {
            let e = ask(short).unwrap_err().to_string();
            assert_eq!(
                e,
                "a malformed message from rank 1 (names of best moves): fewer than 1 names"
            );
        }
    }
}
