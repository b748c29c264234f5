//! The parity game benchmark, side by side with Oink (trolando/oink, the reference
//! implementation): `cargo bench -p retrograde-bench --bench parity`.
//!
//! # What it needs
//! Oink built from its source (it is not fetched or built here): `RETRO_OINK` names its
//! `oink` binary, `RETRO_OINK_EXAMPLES` its `examples/` folder of `.pg` games (SYNTCOMP's),
//! and `RETRO_OINK_TOOLS` the folder of its generators (`tc`, `rngame`, `counter_*`, built
//! with `-DOINK_BUILD_EXTRA_TOOLS=ON`; default: the folder of `RETRO_OINK`). This program's
//! side is the release CLI, `target/release/retrograde` (`RETRO_BENCH_CLI`), so that both
//! sides are whole processes that parse a file, solve it and write a solution. Without
//! `RETRO_OINK` each part says so and is skipped.
//!
//! # What is measured (every run of every tool, the tools alternated)
//! - **examples**: for every `.pg` game of the folder, `RETRO_BENCH_RUNS` rounds (default
//!   3), each round running Oink's default solver (`oink FILE SOL`: tangle learning with
//!   its preprocessing), this program with each of its algorithms (`retrograde parity FILE
//!   -v --output pgsolver --algorithm A`), and Oink with each of the solvers of
//!   `RETRO_PARITY_SOLVERS` (default: its fast families and its quasi-polynomial and
//!   strategy improvement ones; 10 s at most each). The times are the programs' own phase
//!   times, the minimum over the rounds per file (the table; totals also with the medians,
//!   which a shared machine inflates): Oink's `parsing took` and `total solving time` (which
//!   leaves out its re-indexing by priority and its building of the predecessor lists), and
//!   this program's `parse` (text to both adjacency lists) and `prep` + `solve`. The winners
//!   of every algorithm must equal Oink's on every vertex (a fast wrong answer fails the
//!   benchmark). Printed per file and in total: each side's parse and solve, Oink's fastest
//!   solver on the file, and the ratios.
//! - **generators**: for each family of Oink's generators (the two binary counters `tc` and
//!   `tc+`, the `counter_*` counterexamples, random games by `rngame N N 1 4`), the largest
//!   size each tool solves within `RETRO_PARITY_LIMIT` seconds (default 60) of wall time,
//!   sizes doubling (up to games of 2^23 vertices), then halving the gap twice; Oink's
//!   default against this program's default and its quasi-polynomial algorithm. Where both
//!   solved a size, their winners must agree.
//! - **memory**: peak resident set size (GNU `time`) of each tool on two random games of a
//!   million vertices (2 and 8 moves each, `rngame`), less that on a tiny game, fitted as
//!   bytes per vertex and bytes per edge.
//!
//! `RETRO_PARITY_PARTS` picks parts (default `examples,generators,memory`),
//! `RETRO_PARITY_FILTER` runs only the examples whose name contains it,
//! `RETRO_PARITY_FAMILIES` only the generator families of those generators (a comma list of
//! `tc`, `tc+`, `counter_rr`, ..., `rngame`). Started without
//! `--bench` (as `cargo test --benches` does) it makes a quick smoke run of the library.

use crate::external::Runner;
use std::collections::HashMap;
use std::env;
use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Oink's solvers tried for the fastest per file (its fast families, and the others whose
/// worst case is good).
const SOLVERS: &str = "zlk,uzlk,zlkpp-std,zlkq,pp,ppp,rr,dp,npp,fpi,fpj,fpjg,tl,rtl,psi,qpt";

/// Our algorithms.
const OURS: [&str; 3] = ["zielonka", "pp", "qpz"];

pub fn main() {
    if let Err(e) = run() {
        eprintln!("retrograde-bench parity: error: {e}");
        std::process::exit(1);
    }
}

struct Config {
    oink: Option<PathBuf>,
    examples: Option<PathBuf>,
    tools: Option<PathBuf>,
    cli: PathBuf,
    runs: usize,
    parts: Vec<String>,
    solvers: Vec<String>,
    limit: Duration,
    filter: Option<String>,
    families: Option<Vec<String>>,
    scratch: PathBuf,
}

fn var(name: &str) -> Option<String> {
    env::var(name).ok().filter(|s| !s.is_empty())
}

impl Config {
    fn from_env() -> Result<Config, String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let oink = var("RETRO_OINK").map(PathBuf::from);
        let tools = var("RETRO_OINK_TOOLS").map(PathBuf::from).or_else(|| {
            oink.as_ref()
                .and_then(|o| o.parent().map(Path::to_path_buf))
        });
        let num = |name: &str, default: u64| -> Result<u64, String> {
            var(name).map_or(Ok(default), |s| {
                s.parse()
                    .map_err(|_| format!("{name}={s:?} is not a number"))
            })
        };
        Ok(Config {
            oink,
            examples: var("RETRO_OINK_EXAMPLES").map(PathBuf::from),
            tools,
            cli: var("RETRO_BENCH_CLI")
                .map(PathBuf::from)
                .unwrap_or_else(|| root.join("target/release/retrograde")),
            runs: num("RETRO_BENCH_RUNS", 3)?.max(1) as usize,
            parts: var("RETRO_PARITY_PARTS")
                .unwrap_or_else(|| "examples,generators,memory".into())
                .split(',')
                .map(str::to_string)
                .collect(),
            solvers: var("RETRO_PARITY_SOLVERS")
                .unwrap_or_else(|| SOLVERS.into())
                .split(',')
                .map(str::to_string)
                .collect(),
            limit: Duration::from_secs(num("RETRO_PARITY_LIMIT", 60)?),
            filter: var("RETRO_PARITY_FILTER"),
            families: var("RETRO_PARITY_FAMILIES")
                .map(|s| s.split(',').map(str::to_string).collect()),
            scratch: root.join("target/bench-data/parity"),
        })
    }
}

fn run() -> Result<(), String> {
    if !env::args().any(|a| a == "--bench") {
        return smoke();
    }
    let cfg = Config::from_env()?;
    fs::create_dir_all(&cfg.scratch).map_err(|e| format!("{}: {e}", cfg.scratch.display()))?;
    if !cfg.cli.exists() {
        return Err(format!(
            "{} is missing: cargo build --release -p retrograde-cli",
            cfg.cli.display()
        ));
    }
    let Some(oink) = cfg.oink.clone() else {
        println!("RETRO_OINK is not set: nothing to compare with (see the module docs)");
        return Ok(());
    };
    println!(
        "parity games: retrograde ({}) against Oink ({})",
        cfg.cli.display(),
        oink.display()
    );
    if cfg.parts.iter().any(|p| p == "examples") {
        examples(&cfg, &oink)?;
    }
    if cfg.parts.iter().any(|p| p == "generators") {
        generators(&cfg, &oink)?;
    }
    if cfg.parts.iter().any(|p| p == "memory") {
        memory(&cfg, &oink)?;
    }
    Ok(())
}

/// `cargo test --benches`: the library on a small random game, verified.
fn smoke() -> Result<(), String> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    let n = 2000u32;
    let mut moves = Vec::new();
    for v in 0..n {
        for _ in 0..rng.gen_range(1..4) {
            moves.push((v, rng.gen_range(0..n)));
        }
    }
    let prio = (0..n).map(|_| rng.gen_range(0..n)).collect();
    let owner = (0..n)
        .map(|_| retrograde_parity::Player::from_bit(rng.gen_bool(0.5)))
        .collect();
    let game =
        retrograde_parity::ParityGame::new(prio, owner, &moves).map_err(|e| e.to_string())?;
    for a in retrograde_parity::Algorithm::ALL {
        let opts = retrograde_parity::Options {
            algorithm: a,
            ..Default::default()
        };
        let (s, _) = retrograde_parity::solve_with(&game, &opts);
        retrograde_parity::verify(&game, &retrograde_parity::Claim::from(&s))
            .map_err(|w| format!("{a}: {w}"))?;
    }
    println!("smoke run (started without --bench): a random game of {n} vertices, every algorithm verified");
    Ok(())
}

/// How a timed run ended.
enum Ran {
    Done {
        stdout: String,
        stderr: String,
        wall: Duration,
    },
    TimedOut,
    Failed(String),
}

/// Runs `program args` with standard output to `out` (or captured), killing it after
/// `limit`.
fn run_limited(program: &Path, args: &[OsString], out: Option<&Path>, limit: Duration) -> Ran {
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null()).stderr(Stdio::piped());
    match out {
        Some(path) => match fs::File::create(path) {
            Ok(f) => {
                cmd.stdout(f);
            }
            Err(e) => return Ran::Failed(format!("{}: {e}", path.display())),
        },
        None => {
            cmd.stdout(Stdio::piped());
        }
    }
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return Ran::Failed(format!("cannot run {}: {e}", program.display())),
    };
    // Both pipes are read on threads, so that a chatty program never blocks on them.
    let pipe = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut r) = r {
                let _ = r.read_to_string(&mut s);
            }
            s
        })
    };
    let stdout = pipe(
        child
            .stdout
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let stderr = pipe(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => return Ran::Failed(e.to_string()),
        }
    };
    let wall = start.elapsed();
    let (stdout, stderr) = (
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default(),
    );
    match status {
        None => Ran::TimedOut,
        Some(s) if s.success() => Ran::Done {
            stdout,
            stderr,
            wall,
        },
        Some(s) => Ran::Failed(format!(
            "{} exited with {s}: {}",
            program.display(),
            stderr.trim()
        )),
    }
}

/// Oink's own phase times: `parsing took X sec.` and `total solving time: Y sec.`.
fn oink_times(stdout: &str) -> Option<(f64, f64)> {
    let after = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.split_once(key).map(|(_, rest)| rest.trim().to_string()))
            .and_then(|r| {
                r.split_whitespace()
                    .next()
                    .and_then(|x| x.parse::<f64>().ok())
            })
    };
    Some((after("parsing took")?, after("total solving time:")?))
}

/// This program's `-v` phase times: `parse`, and `prep` + `solve`.
fn our_times(stderr: &str) -> Option<(f64, f64)> {
    let phase = |name: &str| {
        stderr.lines().find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some(name))
                .then(|| w.next().and_then(|x| x.parse::<f64>().ok()))
                .flatten()
        })
    };
    Some((phase("parse")?, phase("prep")? + phase("solve")?))
}

/// The winners (0 or 1 by vertex) of a PGSolver solution.
fn winners(text: &str) -> Result<Vec<u8>, String> {
    let mut w: Vec<u8> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with("paritysol") && !l.trim().is_empty())
    {
        let mut it = line.trim().trim_end_matches(';').split_whitespace();
        let v: usize = it
            .next()
            .and_then(|x| x.parse().ok())
            .ok_or_else(|| format!("a solution line {line:?}"))?;
        let x: u8 = it
            .next()
            .and_then(|x| x.parse().ok())
            .ok_or_else(|| format!("a solution line {line:?}"))?;
        if w.len() <= v {
            w.resize(v + 1, 2);
        }
        w[v] = x;
    }
    Ok(w)
}

fn min(xs: &mut [f64]) -> f64 {
    xs.iter().copied().fold(f64::INFINITY, f64::min)
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn ms(s: f64) -> String {
    format!("{:.3}", s * 1e3)
}

fn os(s: &str) -> OsString {
    OsString::from(s)
}

/// One file's times, of one statistic over its rounds.
#[derive(Default)]
struct Row {
    name: String,
    n: u64,
    m: u64,
    oink_parse: f64,
    oink_solve: f64,
    fastest: (String, f64),
    ours_parse: f64,
    ours: Vec<f64>,
}

fn examples(cfg: &Config, oink: &Path) -> Result<(), String> {
    let Some(dir) = &cfg.examples else {
        println!("examples: RETRO_OINK_EXAMPLES is not set, skipped");
        return Ok(());
    };
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pg"))
        .filter(|p| {
            cfg.filter
                .as_deref()
                .is_none_or(|f| p.to_string_lossy().contains(f))
        })
        .collect();
    files.sort();
    let tenth = Duration::from_secs(10);
    let oink_sol = cfg.scratch.join("oink.sol");
    let our_sol = cfg.scratch.join("ours.sol");
    println!(
        "\nexamples: {} games of {}, {} rounds each (the minimum of each tool's own phase times, ms)",
        files.len(),
        dir.display(),
        cfg.runs
    );
    println!(
        "{:<44} {:>7} {:>8} | {:>8} {:>8} {:>14} | {:>8} {:>8} {:>8} {:>8} | {:>6} {:>6}",
        "file",
        "n",
        "m",
        "oink pars",
        "oink tl",
        "fastest",
        "our pars",
        "zielonka",
        "pp",
        "qpz",
        "/tl",
        "/fast"
    );
    let mut raws = Vec::new();
    for file in &files {
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let f = file.as_os_str().to_os_string();
        let mut oink_parse = Vec::new();
        let mut oink_solve = Vec::new();
        let mut ours_parse = Vec::new();
        let mut ours: Vec<Vec<f64>> = vec![Vec::new(); OURS.len()];
        let mut solvers: HashMap<String, Vec<f64>> = HashMap::new();
        let mut reference: Option<Vec<u8>>;
        let mut size = (0, 0);
        for _round in 0..cfg.runs {
            match run_limited(
                oink,
                &[f.clone(), oink_sol.clone().into_os_string()],
                None,
                tenth,
            ) {
                Ran::Done { stdout, .. } => {
                    let (p, s) = oink_times(&stdout)
                        .ok_or_else(|| format!("{name}: Oink's times in {stdout:?}"))?;
                    oink_parse.push(p);
                    oink_solve.push(s);
                    if let Some(l) = stdout.lines().find(|l| l.contains("parity game with")) {
                        let nums: Vec<u64> = l
                            .split_whitespace()
                            .filter_map(|w| w.parse().ok())
                            .collect();
                        if nums.len() >= 2 {
                            size = (nums[nums.len() - 2], nums[nums.len() - 1]);
                        }
                    }
                    let text = fs::read_to_string(&oink_sol).map_err(|e| e.to_string())?;
                    reference = Some(winners(&text)?);
                }
                Ran::TimedOut => return Err(format!("{name}: Oink took more than 10 s")),
                Ran::Failed(e) => return Err(format!("{name}: {e}")),
            }
            for (k, a) in OURS.iter().enumerate() {
                let args = [
                    os("parity"),
                    f.clone(),
                    os("-v"),
                    os("--output"),
                    os("pgsolver"),
                    os("--algorithm"),
                    os(a),
                ];
                match run_limited(&cfg.cli, &args, Some(&our_sol), tenth) {
                    Ran::Done { stderr, .. } => {
                        let (p, s) = our_times(&stderr)
                            .ok_or_else(|| format!("{name}: our times in {stderr:?}"))?;
                        if k == 0 {
                            ours_parse.push(p);
                        }
                        ours[k].push(s);
                        let text = fs::read_to_string(&our_sol).map_err(|e| e.to_string())?;
                        if Some(winners(&text)?) != reference {
                            return Err(format!("{name}: {a}'s winners differ from Oink's"));
                        }
                    }
                    Ran::TimedOut => ours[k].push(f64::INFINITY),
                    Ran::Failed(e) => return Err(format!("{name}: {e}")),
                }
            }
            for s in &cfg.solvers {
                let args = [os(&format!("--{s}")), f.clone()];
                if let Ran::Done { stdout, .. } = run_limited(oink, &args, None, tenth) {
                    if let Some((_, t)) = oink_times(&stdout) {
                        solvers.entry(s.clone()).or_default().push(t);
                    }
                }
            }
        }
        let raw = Raw {
            name,
            size,
            oink_parse,
            oink_solve,
            solvers,
            ours_parse,
            ours,
        };
        let row = raw.row(cfg.runs, min);
        println!(
            "{:<44} {:>7} {:>8} | {:>8} {:>8} {:>6} {:>7} | {:>8} {:>8} {:>8} {:>8} | {:>6.2} {:>6.2}",
            row.name.chars().take(44).collect::<String>(),
            row.n,
            row.m,
            ms(row.oink_parse),
            ms(row.oink_solve),
            row.fastest.0,
            ms(row.fastest.1),
            ms(row.ours_parse),
            ms(row.ours[0]),
            ms(row.ours[1]),
            ms(row.ours[2]),
            row.ours[0] / row.oink_solve.max(1e-9),
            row.ours[0] / row.fastest.1.max(1e-9),
        );
        raws.push(raw);
    }
    for (stat, f) in [
        ("minimum", min as fn(&mut [f64]) -> f64),
        ("median", median),
    ] {
        let rows: Vec<Row> = raws.iter().map(|r| r.row(cfg.runs, f)).collect();
        totals(&rows, stat);
        if stat == "minimum" {
            fastest_solvers(&rows);
        }
    }
    Ok(())
}

/// Every round's times of one file.
struct Raw {
    name: String,
    size: (u64, u64),
    oink_parse: Vec<f64>,
    oink_solve: Vec<f64>,
    solvers: HashMap<String, Vec<f64>>,
    ours_parse: Vec<f64>,
    ours: Vec<Vec<f64>>,
}

impl Raw {
    /// The row of one statistic over the rounds (the minimum or the median).
    fn row(&self, runs: usize, stat: fn(&mut [f64]) -> f64) -> Row {
        let mut fastest = ("tl".to_string(), stat(&mut self.oink_solve.clone()));
        let mut names: Vec<&String> = self.solvers.keys().collect();
        names.sort();
        for s in names {
            let ts = &self.solvers[s];
            // A solver that failed or timed out in some round is not counted on this file.
            if ts.len() == runs {
                let t = stat(&mut ts.clone());
                if t < fastest.1 {
                    fastest = (s.clone(), t);
                }
            }
        }
        Row {
            name: self.name.clone(),
            n: self.size.0,
            m: self.size.1,
            oink_parse: stat(&mut self.oink_parse.clone()),
            oink_solve: stat(&mut self.oink_solve.clone()),
            fastest,
            ours_parse: stat(&mut self.ours_parse.clone()),
            ours: self.ours.iter().map(|t| stat(&mut t.clone())).collect(),
        }
    }
}

/// The totals over the files, of one statistic.
fn totals(rows: &[Row], stat: &str) {
    let sum = |f: &dyn Fn(&Row) -> f64| rows.iter().map(f).sum::<f64>();
    let (op, os_, of, up) = (
        sum(&|r| r.oink_parse),
        sum(&|r| r.oink_solve),
        sum(&|r| r.fastest.1),
        sum(&|r| r.ours_parse),
    );
    println!(
        "
totals over {} games, the {stat} of each file's rounds (s):",
        rows.len()
    );
    println!(
        "  parse: Oink {op:.4}, retrograde {up:.4} ({:.2}x Oink's)",
        up / op.max(1e-12)
    );
    println!(
        "  solve: Oink's default (tl) {os_:.4}, Oink's fastest solver per file {of:.4} (moonshot: {:.4})",
        of / 2.0
    );
    for (k, a) in OURS.iter().enumerate() {
        let t = sum(&|r| r.ours[k]);
        let at_most_tl = rows.iter().filter(|r| r.ours[k] <= r.oink_solve).count();
        let half_fastest = rows
            .iter()
            .filter(|r| r.ours[k] <= r.fastest.1 / 2.0)
            .count();
        println!(
            "  retrograde {a:<9} {t:.4}: {:.2}x Oink's default, {:.2}x its fastest per file; per file at most Oink's default on {at_most_tl}, at most half its fastest on {half_fastest} of {}",
            t / os_.max(1e-12),
            t / of.max(1e-12),
            rows.len()
        );
    }
}

/// How often each of Oink's solvers was its fastest on a file.
fn fastest_solvers(rows: &[Row]) {
    let mut by_solver: HashMap<&str, usize> = HashMap::new();
    for r in rows {
        *by_solver.entry(r.fastest.0.as_str()).or_default() += 1;
    }
    let mut by: Vec<_> = by_solver.into_iter().collect();
    by.sort_by_key(|x| std::cmp::Reverse(x.1));
    println!(
        "  Oink's fastest solver per file: {}",
        by.iter()
            .map(|(s, c)| format!("{s} {c}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

/// A family of generated games: its name, the generator and its arguments for a size.
struct Family {
    name: &'static str,
    tool: &'static str,
    args: fn(u64) -> Vec<String>,
    start: u64,
}

/// The largest game generated (vertices): past it a family stops growing, marked "(cap)".
const CAP_VERTICES: u64 = 1 << 23;

fn families() -> Vec<Family> {
    let n = |k: u64| vec![k.to_string()];
    vec![
        Family {
            name: "two counters (tc)",
            tool: "tc",
            args: n,
            start: 2,
        },
        Family {
            name: "tc+",
            tool: "tc+",
            args: n,
            start: 2,
        },
        Family {
            name: "counter_rr",
            tool: "counter_rr",
            args: n,
            start: 2,
        },
        Family {
            name: "counter_dp",
            tool: "counter_dp",
            args: n,
            start: 2,
        },
        Family {
            name: "counter_m",
            tool: "counter_m",
            args: n,
            start: 2,
        },
        Family {
            name: "counter_qpt",
            tool: "counter_qpt",
            args: n,
            start: 2,
        },
        Family {
            name: "counter_core",
            tool: "counter_core",
            args: n,
            start: 2,
        },
        Family {
            name: "counter_rob",
            tool: "counter_rob",
            args: n,
            start: 2,
        },
        Family {
            name: "counter_ortl",
            tool: "counter_ortl",
            args: n,
            start: 2,
        },
        Family {
            name: "counter_symsi",
            tool: "counter_symsi",
            args: n,
            start: 2,
        },
        Family {
            name: "random (rngame N N 1 4)",
            tool: "rngame",
            args: |k| vec![k.to_string(), k.to_string(), "1".into(), "4".into()],
            start: 1 << 16,
        },
    ]
}

/// Writes family `f`'s game of size `k` (once) and returns its path.
fn generate(cfg: &Config, f: &Family, k: u64) -> Result<PathBuf, String> {
    let tools = cfg.tools.as_ref().ok_or("RETRO_OINK_TOOLS is not set")?;
    let path = cfg.scratch.join(format!("{}-{k}.pg", f.tool));
    if !path.exists() {
        let out = fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let status = Command::new(tools.join(f.tool))
            .args((f.args)(k))
            .stdout(out)
            .status()
            .map_err(|e| format!("cannot run {}: {e}", tools.join(f.tool).display()))?;
        if !status.success() {
            let _ = fs::remove_file(&path);
            return Err(format!("{} {:?} failed", f.tool, (f.args)(k)));
        }
    }
    Ok(path)
}

/// One tool on a generated game: the winners when it finished within the limit.
fn solve_generated(cfg: &Config, oink: &Path, tool: &str, game: &Path) -> Option<(Vec<u8>, f64)> {
    let sol = cfg.scratch.join("gen.sol");
    let ran = if tool == "oink" {
        run_limited(
            oink,
            &[game.as_os_str().into(), sol.clone().into_os_string()],
            None,
            cfg.limit,
        )
    } else {
        let args = [
            os("parity"),
            game.as_os_str().into(),
            os("--output"),
            os("pgsolver"),
            os("--algorithm"),
            os(tool),
        ];
        run_limited(&cfg.cli, &args, Some(&sol), cfg.limit)
    };
    match ran {
        Ran::Done { wall, .. } => {
            let w = winners(&fs::read_to_string(&sol).ok()?).ok()?;
            Some((w, wall.as_secs_f64()))
        }
        Ran::TimedOut => None,
        Ran::Failed(e) => {
            println!("    ({tool} failed on {}: {e})", game.display());
            None
        }
    }
}

fn generators(cfg: &Config, oink: &Path) -> Result<(), String> {
    if cfg.tools.is_none() {
        println!("generators: RETRO_OINK_TOOLS is not set, skipped");
        return Ok(());
    }
    println!(
        "\ngenerators: the largest size each tool solves within {} s (wall time, parse to solution written)",
        cfg.limit.as_secs()
    );
    println!(
        "{:<26} {:<10} {:>10} {:>10} {:>9}",
        "family", "tool", "size", "vertices", "seconds"
    );
    let chosen = |f: &Family| {
        cfg.families
            .as_ref()
            .is_none_or(|fs| fs.iter().any(|t| t == f.tool))
    };
    for f in families().into_iter().filter(chosen) {
        let mut solved: HashMap<u64, Vec<u8>> = HashMap::new();
        for tool in ["oink", "zielonka", "qpz"] {
            // Doubling, then two halvings of the gap between the last size solved and the
            // first not.
            let mut last: Option<(u64, f64)> = None;
            let mut k = f.start;
            let mut failed = None;
            loop {
                let game = generate(cfg, &f, k)?;
                if vertex_count(&game) > CAP_VERTICES {
                    break;
                }
                match solve_generated(cfg, oink, tool, &game) {
                    Some((w, t)) => {
                        check_same(&mut solved, k, w, f.name)?;
                        last = Some((k, t));
                        k *= 2;
                    }
                    None => {
                        failed = Some(k);
                        break;
                    }
                }
            }
            if let (Some(bad), Some((good, _))) = (failed, last) {
                let (mut lo, mut hi) = (good, bad);
                for _ in 0..2 {
                    let mid = lo + (hi - lo) / 2;
                    if mid == lo {
                        break;
                    }
                    let game = generate(cfg, &f, mid)?;
                    match solve_generated(cfg, oink, tool, &game) {
                        Some((w, t)) => {
                            check_same(&mut solved, mid, w, f.name)?;
                            last = Some((mid, t));
                            lo = mid;
                        }
                        None => hi = mid,
                    }
                }
            }
            match last {
                Some((k, t)) => {
                    let game = generate(cfg, &f, k)?;
                    let n = vertex_count(&game);
                    let capped = if failed.is_none() { " (cap)" } else { "" };
                    println!(
                        "{:<26} {:<10} {:>10} {:>10} {:>9.2}{capped}",
                        f.name, tool, k, n, t
                    );
                }
                None => println!("{:<26} {:<10} {:>10}", f.name, tool, "none"),
            }
        }
    }
    Ok(())
}

/// Two tools' winners on one game agree (the first recorded is kept).
fn check_same(
    seen: &mut HashMap<u64, Vec<u8>>,
    k: u64,
    w: Vec<u8>,
    family: &str,
) -> Result<(), String> {
    match seen.get(&k) {
        Some(x) if *x != w => Err(format!("{family} size {k}: the tools' winners differ")),
        Some(_) => Ok(()),
        None => {
            seen.insert(k, w);
            Ok(())
        }
    }
}

/// The vertex count a game file's header gives (plus one), or its vertex lines.
fn vertex_count(path: &Path) -> u64 {
    fs::read_to_string(path)
        .ok()
        .and_then(|t| {
            let first = t
                .lines()
                .next()?
                .trim()
                .strip_prefix("parity")?
                .trim()
                .trim_end_matches(';');
            first.trim().parse::<u64>().ok().map(|n| n + 1)
        })
        .unwrap_or(0)
}

fn memory(cfg: &Config, oink: &Path) -> Result<(), String> {
    let Some(tools) = &cfg.tools else {
        println!("memory: RETRO_OINK_TOOLS is not set, skipped");
        return Ok(());
    };
    if !Runner::new(cfg.scratch.join("time.out")).measures_rss() {
        println!("memory: GNU time (/usr/bin/time) is missing, skipped");
        return Ok(());
    }
    let n: u64 = 1_000_000;
    let mut games = Vec::new();
    for (deg, label) in [(1u64, "tiny"), (2, "2 moves"), (8, "8 moves")] {
        let size = if label == "tiny" { 10 } else { n };
        let path = cfg.scratch.join(format!("mem-{size}-{deg}.pg"));
        if !path.exists() {
            let out = fs::File::create(&path).map_err(|e| e.to_string())?;
            let d = deg.to_string();
            let status = Command::new(tools.join("rngame"))
                .args([size.to_string(), size.to_string(), d.clone(), d])
                .stdout(out)
                .status()
                .map_err(|e| e.to_string())?;
            if !status.success() {
                return Err("rngame failed".into());
            }
        }
        games.push((path, size, size * deg));
    }
    println!("\nmemory: peak RSS on random games of {n} vertices (rngame N N d d), fitted per vertex and per edge");
    let rss_file = cfg.scratch.join("time.out");
    let limit = cfg.limit * 5;
    let peak = |program: &Path, mut args: Vec<OsString>| -> Result<Option<u64>, String> {
        let mut all = vec![
            os("-f"),
            os("%M"),
            os("-o"),
            rss_file.clone().into_os_string(),
        ];
        all.push(program.as_os_str().into());
        all.append(&mut args);
        match run_limited(Path::new("/usr/bin/time"), &all, None, limit) {
            Ran::Done { .. } => {
                let text = fs::read_to_string(&rss_file).map_err(|e| e.to_string())?;
                let kib: u64 = text
                    .lines()
                    .last()
                    .and_then(|l| l.trim().parse().ok())
                    .ok_or("no RSS")?;
                Ok(Some(kib * 1024))
            }
            Ran::TimedOut => Ok(None),
            Ran::Failed(e) => Err(e),
        }
    };
    for tool in ["oink", "retrograde"] {
        let mut rss = Vec::new();
        for (path, _, _) in &games {
            let sol = cfg.scratch.join("mem.sol");
            let r = if tool == "oink" {
                peak(
                    oink,
                    vec![path.clone().into_os_string(), sol.into_os_string()],
                )?
            } else {
                peak(
                    &cfg.cli,
                    vec![os("parity"), path.clone().into_os_string(), os("--summary")],
                )?
            };
            match r {
                Some(r) => rss.push(r as f64),
                None => {
                    println!(
                        "  {tool:<10} did not finish {} within {} s",
                        path.display(),
                        limit.as_secs()
                    );
                    break;
                }
            }
        }
        if rss.len() < 3 {
            continue;
        }
        let (m1, m2) = (games[1].2 as f64, games[2].2 as f64);
        let per_edge = (rss[2] - rss[1]) / (m2 - m1);
        let per_vertex = (rss[1] - rss[0] - per_edge * m1) / n as f64;
        println!(
            "  {tool:<10} base {:.1} MiB, {:.1} MiB and {:.1} MiB: {per_vertex:.1} bytes per vertex, {per_edge:.1} per edge",
            rss[0] / 1048576.0,
            rss[1] / 1048576.0,
            rss[2] / 1048576.0
        );
    }
    Ok(())
}
