//! `retrograde game NAME`: solve a built-in game given by its rules.
//!
//! Everything about a game comes from its registry entry; this file reads the files its
//! parameters name, picks where tiers are kept, draws progress, and prints the report (or
//! the answer to `--query`, or the IOI protocol of `scores --play`).

use super::Status;
use crate::cli::{GameArgs, GameOutput};
use crate::mem;
use crate::progress;
use anyhow::{anyhow, bail, Result};
use retrograde_registry::{Answer, Built, Query, QueryAnswer, QueryError, Report};
use retrograde_solve::exchange::Exchange;
use retrograde_tier::{DirStorage, Error, Event, SolveOptions, Storage};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub fn run(
    args: &GameArgs,
    ex: Option<&dyn Exchange>,
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
    let built = (entry.build)(&values).map_err(|e| anyhow!("{e}"))?;
    let name = built.name();
    let limit = mem::limit_bytes();

    // Where the tiers go: --db, a temporary directory for games that need files, or memory.
    let mut _tmp = None;
    // A finished database answers --query without a lock; a solve locks it first.
    let dir = tiers
        .db
        .as_ref()
        .map(|d| Arc::new(DirStorage::new(d.clone())));
    let lock = || dir.as_deref().map_or(Ok(()), |d| super::db::lock(d, ex));
    let storage: Option<Arc<dyn Storage>> = match &dir {
        Some(d) => Some(d.clone()),
        None if entry.tiered && built.needs_storage() => {
            let t = tempfile::Builder::new()
                .prefix("retrograde-tiers-")
                .tempdir()
                .map_err(|e| anyhow!("cannot create a temporary directory for the tiers: {e}"))?;
            let s: Arc<dyn Storage> = Arc::new(DirStorage::new(t.path().to_path_buf()));
            _tmp = Some(t);
            Some(s)
        }
        None => None,
    };
    // Across K ranks, each holds about 1/K of the values.
    let ranks = ex.map_or(1, |w| w.size() as u64);
    if let Some(d) = &tiers.db {
        if ex.map_or(0, |w| w.rank()) == 0 {
            if let Some(note) = foreign_shares(d, ex.map(|_| ranks)) {
                eprintln!("retrograde: {note}");
            }
        }
    }
    check_ranks(&*built, storage.is_some(), ranks)?;
    let fail = |e: Error| tier_error(&name, e, tiers.db.is_some());
    // A set of tables (chess --up-to) takes up what an interrupted run left in --db.
    let resume = tiers.resume || (built.resumes() && tiers.db.is_some());
    let options = |storage, keep| {
        let (mut opts, bars) = options(storage, resume, limit, keep);
        opts.compact = tiers.compact;
        if built.logs_tiers() {
            bars.lock().unwrap_or_else(|p| p.into_inner()).log = Some(Log::default());
        }
        (opts, bars)
    };

    // Across MPI ranks: solve, and rank 0 reports (the others print nothing).
    if let Some(ex) = ex {
        if asked.is_some() || dump {
            bail!("{name}: --query and --dump read a database: solve with --db under mpirun, then ask without it");
        }
        let (opts, bars) = options(storage.clone(), tiers.db.is_some());
        lock()?;
        let (answer, traffic) =
            solve_distributed(&*built, (opts, bars.clone()), ex).map_err(fail)?;
        if ex.rank() != 0 {
            // Only rank 0 holds what the report reads, and prints.
            return Ok(Status::Success);
        }
        if !crate::progress::is_quiet() {
            let (k, bytes, n) = (ex.size(), traffic.bytes, traffic.positions);
            if n == 0 {
                eprintln!("retrograde: {k} ranks exchanged {bytes} bytes; no position was solved (every tier was taken up)");
            } else {
                let each = bytes as f64 / n as f64;
                eprintln!("retrograde: {k} ranks exchanged {bytes} bytes, {each:.2} per position solved ({n})");
            }
        }
        let mut report = answer.report().map_err(fail)?;
        let taken = kept(&mut report, tiers.db.as_deref(), &bars);
        return print_report(&report, args.output, started, taken, out);
    }

    // A query to a finished database needs no solve. Its files are opened as the query
    // reads them; with --resume every file is checked first (the solve below takes a
    // finished database up, and solves a damaged table again).
    if let (Some(q), Some(st), false) = (asked, &storage, resume) {
        if tiers.db.is_some() {
            if let Some(answer) = built.open(st.clone()).map_err(fail)? {
                return query(&*answer, q, &name, args.output, out);
            }
        }
    }
    // A summary needs the totals and the start's value only: no database is written then.
    let keep = tiers.db.is_some() || asked.is_some() || dump;
    lock()?;
    let (opts, bars) = options(storage.clone(), keep);
    let answer = solve(&*built, (opts, bars.clone())).map_err(fail)?;
    if let Some(q) = asked {
        return query(&*answer, q, &name, args.output, out);
    }
    if dump {
        answer
            .dump(out)
            .map_err(|e| anyhow::Error::new(e).context(format!("{name}: --dump")))?;
        return Ok(Status::Success);
    }
    if let Some(mut p) = answer.protocol() {
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
            if super::play::read_line(&mut input, &mut buf, number)? == 0 {
                bail!("<stdin>: {}", p.ended_early());
            }
            let line = String::from_utf8_lossy(&buf);
            p.input(line.trim_end_matches(['\n', '\r']))
                .map_err(|e| anyhow!("<stdin>:{number}: {e}"))?;
        }
    }
    let mut report = answer.report().map_err(fail)?;
    let taken = kept(&mut report, tiers.db.as_deref(), &bars);
    print_report(&report, args.output, started, taken, out)
}

/// Finished tiers a run took up from its database instead of solving them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// Every tier: the database was finished, and the run solved and wrote nothing.
    All,
    /// These many, and the run solved the others.
    Some(usize),
}

/// Adds to a report where the tiers were written (or that none was: a finished database
/// taken up whole) and, for a set of tables (a solve with a log), how many this run solved
/// and how many it took up from the database. Returns what was taken up, if anything.
fn kept(report: &mut Report, db: Option<&std::path::Path>, bars: &Mutex<Bars>) -> Option<Taken> {
    let bars = bars.lock().unwrap_or_else(|p| p.into_inner());
    let taken = bars.taken();
    if let Some((solved, reused)) = bars.log.as_ref().map(Log::tables) {
        report
            .lines
            .push(format!("tables solved {solved}, reused {reused}"));
        report
            .fields
            .push(("tables_solved".into(), serde_json::json!(solved)));
        report
            .fields
            .push(("tables_reused".into(), serde_json::json!(reused)));
    }
    if let Some(d) = db {
        let d = d.display();
        report.lines.push(match taken {
            Some(Taken::All) => {
                format!("every tier taken up from {d} (finished before): no tier solved or written")
            }
            Some(Taken::Some(k)) => {
                format!("tiers written to {d} ({k} finished before, taken up)")
            }
            None => format!("tiers written to {d}"),
        });
        report
            .fields
            .push(("db".into(), serde_json::json!(d.to_string())));
    }
    taken
}

/// Refuses a game whose size is out of reach before anything big is allocated: the memory
/// it needs (when known) against the limit, then its own checks.
pub fn check(built: &dyn Built, stored: bool) -> Result<()> {
    check_ranks(built, stored, 1)
}

/// [`check`] for a solve across `ranks` processes with the same memory limit each: each
/// needs about `1/ranks` of the memory (the registry's plan, which Python checks too).
fn check_ranks(built: &dyn Built, stored: bool, ranks: u64) -> Result<()> {
    retrograde_registry::plan(built, stored, mem::limit(), ranks).map_err(anyhow::Error::new)
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

/// A tier error with the game's name, and how to repair a damaged database.
pub fn tier_error(name: &str, e: Error, has_db: bool) -> anyhow::Error {
    if let Error::Memory { what, needed, .. } = &e {
        let what = if what.is_empty() { "solving" } else { what };
        return match mem::limit() {
            Some(l) => anyhow!("{name}: {what} {}", mem::refusal(*needed, l)),
            None => anyhow!(
                "{name}: {what} needs about {} of memory, more than could be allocated",
                mem::human(*needed)
            ),
        };
    }
    if e.is_damage() && has_db {
        anyhow!("{name}: {e}; run the same command with --resume to solve the damaged part again")
    } else {
        anyhow!("{name}: {e}")
    }
}

/// The options of a tier solve, built once from the command line: where tiers go, whether
/// finished ones are reused, the memory limit (the engine's plan checks it), whether the
/// values are kept (a summary needs the totals only), and the progress bars.
pub fn options(
    storage: Option<Arc<dyn Storage>>,
    resume: bool,
    limit: Option<u64>,
    keep_values: bool,
) -> (SolveOptions, Arc<Mutex<Bars>>) {
    let bars = Arc::new(Mutex::new(Bars::default()));
    let b = bars.clone();
    let mut opts = SolveOptions::default();
    opts.memory_limit = limit;
    opts.give_back = Some(mem::give_back);
    opts.keep_values = keep_values;
    opts.storage = storage;
    opts.resume = resume;
    opts.progress = Some(Arc::new(move |e: &Event<'_>| {
        b.lock().unwrap_or_else(|p| p.into_inner()).event(e)
    }));
    (opts, bars)
}

/// Solves with progress bars on standard error.
pub fn solve<'b>(
    built: &'b dyn Built,
    (opts, bars): (SolveOptions, Arc<Mutex<Bars>>),
) -> Result<Box<dyn Answer + 'b>, Error> {
    let answer = built.solve(&opts);
    bars.lock().unwrap_or_else(|p| p.into_inner()).finish();
    answer
}

/// Solves across the ranks of `ex`, with progress bars (rank 0's, when not quiet). Without
/// `keep_values` (no `--db`), files serve the solve only (Connect-4's shares of keys).
fn solve_distributed<'b>(
    built: &'b dyn Built,
    (opts, bars): (SolveOptions, Arc<Mutex<Bars>>),
    ex: &dyn Exchange,
) -> Result<(Box<dyn Answer + 'b>, retrograde_tier::Traffic), Error> {
    let answer = built.solve_distributed(&opts, ex);
    bars.lock().unwrap_or_else(|p| p.into_inner()).finish();
    answer
}

/// The bars of a tier solve: finding tiers (sorted keys), solving, counting; and for a
/// set of tables, a line per tier finished.
#[derive(Default)]
pub struct Bars {
    /// A line per tier finished, on standard error (unless quiet).
    pub log: Option<Log>,
    /// Tiers taken up from the database ([`Event::Reused`]).
    reused: usize,
    /// Whether the run did any work of its own: found, solved, compacted or put tiers
    /// together.
    worked: bool,
    total: u64,
    discover: Option<indicatif::ProgressBar>,
    solve: Option<indicatif::ProgressBar>,
    count: Option<indicatif::ProgressBar>,
    assemble: Option<indicatif::ProgressBar>,
}

/// The log of a long solve (a set of chess tables): a line per tier solved, with how long
/// it took and the time left at the pace of the run so far (small tiers are solved several
/// at a time, so the pace is of the wall time, not the sum of the tiers' times), and one
/// line for the tiers taken up from the database (they cost nothing).
#[derive(Default)]
pub struct Log {
    /// Tiers and slots in all (the plan).
    tiers: usize,
    slots: u64,
    /// Tiers and slots taken up from the database.
    reused: (usize, u64),
    /// Tiers and slots solved so far.
    solved: (usize, u64),
    /// Tiers met so far (solved or reused).
    seen: usize,
    /// When the first tier to solve started.
    since: Option<Instant>,
}

impl Log {
    /// Takes an event; returns the line to print, if any.
    fn event(&mut self, e: &Event<'_>) -> Option<String> {
        match e {
            Event::Plan { tiers, slots } => (self.tiers, self.slots) = (*tiers, *slots),
            Event::Reused { tiers, slots } => {
                self.reused = (*tiers, *slots);
                return Some(format!(
                    "retrograde: {tiers} finished tables ({slots} slots) taken up from the database"
                ));
            }
            Event::Tier { reused: true, .. } => self.seen += 1,
            Event::Tier { reused: false, .. } => {
                self.since.get_or_insert_with(Instant::now);
            }
            Event::Solved {
                tier,
                size,
                seconds,
            } => return Some(self.solved(tier, *size, *seconds)),
            _ => {}
        }
        None
    }

    /// The line of a tier just solved.
    fn solved(&mut self, name: &str, size: u64, took: f64) -> String {
        self.seen += 1;
        self.solved = (self.solved.0 + 1, self.solved.1 + size);
        let to_solve = self.slots.saturating_sub(self.reused.1).max(1);
        let left = to_solve.saturating_sub(self.solved.1);
        let spent = self.since.map_or(0.0, |t| t.elapsed().as_secs_f64());
        let pace = spent / self.solved.1.max(1) as f64;
        format!(
            "retrograde: table {}/{} {name} ({size} slots) solved in {took:.1} s; {:.1}% of the work done, {}",
            self.seen,
            self.tiers,
            // Of the whole set: a resume starts where the last run stopped, not at 0%.
            100.0 * (self.reused.1 + self.solved.1.min(to_solve)) as f64
                / self.slots.max(1) as f64,
            match pace * left as f64 {
                _ if left == 0 => "done".to_string(),
                s if s < 0.5 => "under a second left".to_string(),
                s => format!(
                    "about {} left",
                    indicatif::HumanDuration(std::time::Duration::try_from_secs_f64(s).unwrap_or(std::time::Duration::MAX))
                ),
            }
        )
    }

    /// The tables solved and reused, for the report.
    pub fn tables(&self) -> (usize, usize) {
        (self.solved.0, self.reused.0)
    }
}

impl Bars {
    /// Prints a line of the log above the bars.
    fn say(&self, line: String) {
        if progress::is_quiet() {
            return;
        }
        match &self.solve {
            Some(b) => b.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    fn event(&mut self, e: &Event<'_>) {
        if let Some(line) = self.log.as_mut().and_then(|l| l.event(e)) {
            self.say(line);
        }
        match e {
            Event::Reused { tiers, .. } => self.reused = *tiers,
            Event::Discover { .. }
            | Event::Tier { reused: false, .. }
            | Event::Solved { .. }
            | Event::Compact { .. }
            | Event::Assemble { .. } => self.worked = true,
            _ => {}
        }
        match e {
            Event::Plan { slots, .. } => self.total = *slots,
            Event::Discover { tier, positions } => {
                let b = self
                    .discover
                    .get_or_insert_with(|| progress::bar(0, "discover"));
                b.set_position(*positions);
                b.set_message(format!("positions, tier {tier}"));
            }
            Event::Tier {
                tier, size, done, ..
            } => {
                if let Some(d) = self.discover.take() {
                    self.total = d.position();
                    d.finish_and_clear();
                }
                let total = self.total.max(done + size);
                let b = self
                    .solve
                    .get_or_insert_with(|| progress::bar(total, "solve"));
                b.set_length(total);
                b.set_position(*done);
                b.set_message(format!("tier {tier}"));
            }
            Event::Count { done, total } => {
                if let Some(s) = self.solve.take() {
                    s.finish_and_clear();
                }
                let b = self
                    .count
                    .get_or_insert_with(|| progress::bar(*total, "count"));
                b.set_position(*done);
            }
            // Putting ranks' shares together, or making the files compact: the last phase.
            Event::Assemble { done, total } | Event::Compact { done, total } => {
                for b in [self.solve.take(), self.count.take()].into_iter().flatten() {
                    b.finish_and_clear();
                }
                let b = self.assemble.get_or_insert_with(|| match e {
                    Event::Compact { .. } => {
                        let b = progress::bar(*total, "compact");
                        b.set_message("bytes of values files");
                        b
                    }
                    _ => progress::bar(*total, "database"),
                });
                b.set_position(*done);
            }
            Event::Damaged { error } => {
                if let Some(s) = &self.solve {
                    s.suspend(|| eprintln!("retrograde: warning: {error}: solving it again"));
                } else {
                    eprintln!("retrograde: warning: {error}: solving it again");
                }
            }
            _ => {}
        }
    }

    /// What the run took up from its database, from the events it saw.
    fn taken(&self) -> Option<Taken> {
        match (self.reused, self.worked) {
            (0, _) => None,
            (_, false) => Some(Taken::All),
            (k, true) => Some(Taken::Some(k)),
        }
    }

    fn finish(&mut self) {
        for b in [
            self.discover.take(),
            self.solve.take(),
            self.count.take(),
            self.assemble.take(),
        ]
        .into_iter()
        .flatten()
        {
            b.finish_and_clear();
        }
    }
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
    print_answer(&a, output == GameOutput::Json, out)?;
    Ok(Status::Success)
}

/// Prints a query's answer: text, or the JSON object of the contract (`outcome`,
/// `remoteness`, `moves`).
pub fn print_answer(a: &QueryAnswer, json: bool, out: &mut impl Write) -> Result<()> {
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

/// `12.3M`: a rate per second in readable units.
fn rate(n: u64, seconds: f64) -> String {
    let r = n as f64 / seconds.max(1e-9);
    if r >= 1e6 {
        format!("{:.1}M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1}k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}

/// Ends a report's time line with the peak memory, when the system tells it.
fn end_with_peak(out: &mut impl Write, peak: Option<u64>) -> std::io::Result<()> {
    match peak {
        Some(p) => writeln!(out, ", peak memory {}", mem::human(p)),
        None => writeln!(out),
    }
}

/// Prints a report: the start value (or the game's own first line), its lines, the totals,
/// and the time this run took (the totals' phase times are a solve's: left out when the run
/// `taken` up every tier, and the rate with them when it took up some).
pub fn print_report(
    r: &Report,
    output: GameOutput,
    started: Instant,
    taken: Option<Taken>,
    out: &mut impl Write,
) -> Result<Status> {
    let seconds = started.elapsed().as_secs_f64();
    let peak = mem::peak_rss_bytes();
    match output {
        GameOutput::Text => {
            match (&r.first_line, &r.standard) {
                (Some(l), _) => writeln!(out, "{l}")?,
                (None, Some((start, _))) => match &r.score {
                    Some(s) => writeln!(out, "first player: {s}")?,
                    None => writeln!(out, "first player: {start}")?,
                },
                (None, None) => {}
            }
            if let (Some(_), Some((start, _))) = (&r.first_line, &r.standard) {
                writeln!(out, "start position: {start} for the player to move")?;
            }
            for l in &r.lines {
                writeln!(out, "{l}")?;
            }
            if let Some((_, st)) = &r.standard {
                writeln!(out, "positions {}, moves {}", st.positions, st.moves)?;
                writeln!(
                    out,
                    "win {}, loss {}, tie {}, draw {}",
                    st.win, st.loss, st.tie, st.draw
                )?;
                let plies =
                    |x: Option<u32>| x.map_or("none".to_string(), retrograde_registry::plies);
                writeln!(
                    out,
                    "longest win {}, longest loss {}",
                    plies(st.longest_win),
                    plies(st.longest_loss)
                )?;
                let (explore, solve) = (st.explore.as_secs_f64(), st.solve.as_secs_f64());
                match taken {
                    None => write!(
                        out,
                        "time {seconds:.3} s (explore {explore:.3} s, solve {solve:.3} s), {} positions/s",
                        rate(st.positions, seconds)
                    )?,
                    Some(Taken::All) => write!(
                        out,
                        "time {seconds:.3} s (every tier taken up from the database)"
                    )?,
                    Some(Taken::Some(k)) => write!(
                        out,
                        "time {seconds:.3} s (explore {explore:.3} s, solve {solve:.3} s; {k} tiers taken up)"
                    )?,
                }
                end_with_peak(out, peak)?;
            } else if r.timed {
                write!(out, "time {seconds:.3} s")?;
                end_with_peak(out, peak)?;
            }
        }
        GameOutput::Json => {
            let mut j = serde_json::Map::new();
            j.insert("game".into(), serde_json::json!(r.game));
            if let Some((start, st)) = &r.standard {
                let histogram: Vec<[u64; 3]> =
                    st.histogram.iter().map(|&(w, l, t)| [w, l, t]).collect();
                let start = match &r.score {
                    Some(s) => serde_json::json!({
                        "outcome": s.outcome().as_str(),
                        "remoteness": s.remoteness,
                        "score": s.score,
                    }),
                    None => serde_json::json!({
                        "outcome": start.outcome().as_str(),
                        "remoteness": start.remoteness(),
                    }),
                };
                j.insert("start".into(), start);
                for (k, v) in [
                    ("positions", st.positions),
                    ("moves", st.moves),
                    ("win", st.win),
                    ("loss", st.loss),
                    ("tie", st.tie),
                    ("draw", st.draw),
                ] {
                    j.insert(k.into(), serde_json::json!(v));
                }
                j.insert("longest_win".into(), serde_json::json!(st.longest_win));
                j.insert("longest_loss".into(), serde_json::json!(st.longest_loss));
                j.insert("histogram".into(), serde_json::json!(histogram));
            }
            for (k, v) in &r.fields {
                j.insert(k.clone(), v.clone());
            }
            j.insert("seconds".into(), serde_json::json!(seconds));
            if r.standard.is_some() || r.timed {
                j.insert("peak_rss_bytes".into(), serde_json::json!(peak));
            }
            writeln!(out, "{}", serde_json::Value::Object(j))?;
        }
    }
    Ok(Status::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After a resume the share done counts the tables taken up, and the time left only
    /// the slots still to solve.
    #[test]
    fn a_resumed_set_reports_its_share_of_the_whole_set() {
        let mut log = Log::default();
        log.event(&Event::Plan {
            tiers: 4,
            slots: 1000,
        });
        let taken = log.event(&Event::Reused {
            tiers: 2,
            slots: 600,
        });
        assert!(taken.unwrap().contains("2 finished tables (600 slots)"));
        for (tier, done) in [("KvK", 0), ("KBvK", 300)] {
            let line = log.event(&Event::Tier {
                tier,
                size: 300,
                done,
                reused: true,
            });
            assert_eq!(line, None);
        }
        for (i, tier) in ["KQvK", "KRvK"].into_iter().enumerate() {
            let start = log.event(&Event::Tier {
                tier,
                size: 200,
                done: 600 + 200 * i as u64,
                reused: false,
            });
            assert_eq!(start, None);
            let line = log
                .event(&Event::Solved {
                    tier,
                    size: 200,
                    seconds: 1.25,
                })
                .unwrap();
            let want = [
                "table 3/4 KQvK (200 slots) solved in 1.2 s; 80.0% of the work done",
                "table 4/4 KRvK (200 slots) solved in 1.2 s; 100.0% of the work done, done",
            ];
            assert!(line.contains(want[i]), "{line}");
        }
        assert_eq!(log.tables(), (2, 2));
    }
}
