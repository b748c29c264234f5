//! The `retrograde` benchmark harness: `cargo bench -p retrograde-bench` prints a table of
//! times, throughputs, memory and the comparison with the C++ seed baseline.
//!
//! # Inputs
//! For each size (`1m`: 1,000,000 vertices and 4,000,000 edges; `10m`: 10,000,000 and
//! 40,000,000; any `Nk`/`Nm` works, always 4 edges per vertex) a uniform random edge list
//! (`u v` per line, `u` and `v` uniform in `0..n`, `SmallRng::seed_from_u64(42)`) is written
//! to `target/bench-data/` on first use and reused afterwards. The files are never committed.
//!
//! # What is measured
//! All times are medians over the runs (3 by default), taken with the file already in the
//! page cache (it was just written or read), so they measure CPU and memory work, not disk.
//! - **parse**: open the file, `File::read` it in 16 MiB blocks, and
//!   [`TextParser::feed`](retrograde_graph::format::TextParser::feed) each block
//!   (`Format::Edges`). Reading is included.
//! - **build**: [`TextParser::finish`](retrograde_graph::format::TextParser::finish) and
//!   [`GraphBuilder::build`](retrograde_graph::GraphBuilder::build) (the CSR layout).
//! - **solve**: [`solve`](retrograde_solve::solve) with the default rules (values, remoteness
//!   and best moves). Counting the outcomes afterwards is not timed.
//! - **propagation**: the win/loss propagation inside `solve` on one core (the sequential
//!   engine in a one-thread pool), as reported by [`solve_with_phases`]: time, reverse edges
//!   scanned, and both rates. On the uniform graphs most vertices are draws and few edges
//!   are scanned; the `-dag` sizes (`10m-dag`: edges `u -> v` with `v < u`, so every vertex
//!   is decided) scan every edge.
//! - **threads**: the same `solve` inside rayon pools of 1 and 2 threads (`Engine::Auto`:
//!   the sequential engine on 1 thread, the parallel one on more), and the parallel engine
//!   forced on 1 thread (its overhead); each run solves once per pool, in turn, on the graph
//!   already built, and every solution must equal the first one bit for bit. With the phases
//!   of each (propagation, ties, best moves) and the speed-up: 1-thread time / N-thread time.
//!   The CLI end to end also runs with `--threads 1` and `--threads 2`.
//! - **end to end**: wall time, spawn to exit, of `target/release/retrograde solve FILE
//!   --summary --output json` (the CLI must be built first: `cargo build --release -p
//!   retrograde-cli`; skipped with a note when absent). Its self-reported `peak_rss_bytes` is
//!   compared with the memory budget `16 m + 32 n` bytes.
//! - **baseline**: `crates/bench/cpp/seed000.cpp` (the seed's recursive DFS) compiled with
//!   `g++ -O2 -std=c++17 -pthread` into `target/bench-data/seed000` (skipped when there is no
//!   `g++`), run on the same file: wall time, and its own `parse`/`build`/`solve` phase times
//!   from its standard error. Its win/loss/draw counts must equal the library's, and so must
//!   the CLI's counts: a fast wrong answer fails the benchmark.
//!
//! Peak RSS of the external programs is also taken from GNU `time -f %M` when
//! `/usr/bin/time` is GNU time.
//!
//! # Options
//! - sizes: arguments (`cargo bench -p retrograde-bench -- 1m`) or `RETRO_BENCH_SIZES=1m,10m`
//!   (default `1m,10m,10m-dag`);
//! - `RETRO_BENCH_RUNS=N`: runs per measurement (default 3);
//! - `RETRO_BENCH_THREADS=1,2`: the thread counts compared (default `1,2`; 1 is always
//!   included, as the base of the speed-ups);
//! - `RETRO_BENCH_CLI=PATH`: the CLI binary (default `target/release/retrograde`).
//!
//! Run without `--bench` (as `cargo test --benches` does), the harness makes one quick smoke
//! run at 10k vertices and skips the external programs.

pub mod chess;
pub mod external;
pub mod games;
pub mod gen;
pub mod parity;
pub mod probe;
pub mod scores;
pub mod serve;
pub mod table;

use external::{CliSummary, CppCounts, ProcRun, Runner};
use gen::Size;
use retrograde_graph::format::{Format, ParseOptions, TextParser};
use retrograde_solve::{
    solve_with_options, solve_with_phases, Counts, Engine, Phases, Rules, Solution, SolveOptions,
};
use std::env;
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};
use table::{grouped, mega_rate, mib, millis, ratio, secs, Table};

/// The block size the parse phase reads with.
pub const BLOCK: usize = 16 << 20;

/// Entry point of the `engine` bench target: runs the benchmark and exits with status 1 on
/// any failure (including a disagreement between the programs).
pub fn main() {
    if let Err(e) = run() {
        eprintln!("retrograde-bench: error: {e}");
        std::process::exit(1);
    }
}

/// What to run.
#[derive(Debug)]
struct Config {
    sizes: Vec<Size>,
    runs: usize,
    /// Whether to run the CLI and the C++ baseline.
    external: bool,
    /// Started without `--bench`: a quick smoke run.
    smoke: bool,
    /// The thread counts compared, starting with 1.
    threads: Vec<usize>,
}

impl Config {
    fn from_env() -> Result<Config, String> {
        let args: Vec<String> = env::args().skip(1).collect();
        if !args.iter().any(|a| a == "--bench") {
            return Ok(Config {
                sizes: vec![Size::parse("10k")?],
                runs: 1,
                external: false,
                smoke: true,
                threads: vec![1, 2],
            });
        }
        let positional: Vec<&str> = args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .map(String::as_str)
            .collect();
        let from_env = env::var("RETRO_BENCH_SIZES").ok();
        let spec = if !positional.is_empty() {
            positional.join(",")
        } else {
            from_env.unwrap_or_else(|| "1m,10m,10m-dag".to_string())
        };
        let sizes = spec
            .split([',', ' '])
            .filter(|s| !s.is_empty())
            .map(Size::parse)
            .collect::<Result<Vec<_>, _>>()?;
        let runs = match env::var("RETRO_BENCH_RUNS") {
            Ok(s) => s
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&r| r > 0)
                .ok_or_else(|| format!("bad RETRO_BENCH_RUNS {s:?}"))?,
            Err(_) => 3,
        };
        let threads = thread_counts(env::var("RETRO_BENCH_THREADS").ok().as_deref())?;
        Ok(Config {
            sizes,
            runs,
            external: true,
            smoke: false,
            threads,
        })
    }
}

/// The thread counts to compare, from `RETRO_BENCH_THREADS` (default `1,2`): sorted, without
/// repeats, 1 always first (the base of the speed-ups).
fn thread_counts(spec: Option<&str>) -> Result<Vec<usize>, String> {
    let mut threads = vec![1];
    for t in spec
        .unwrap_or("1,2")
        .split([',', ' '])
        .filter(|t| !t.is_empty())
    {
        let n = t
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("bad RETRO_BENCH_THREADS entry {t:?}"))?;
        threads.push(n);
    }
    threads.sort_unstable();
    threads.dedup();
    Ok(threads)
}

/// One way of solving that the thread comparison times: an engine in a pool of some threads.
struct Mode {
    threads: usize,
    engine: Engine,
    pool: rayon::ThreadPool,
}

impl Mode {
    fn label(&self) -> String {
        let engine = match (self.engine, self.threads) {
            (Engine::Auto, 1) | (Engine::Sequential, _) => "sequential engine",
            (Engine::Auto, _) => "parallel engine",
            (Engine::Parallel, _) => "parallel engine forced",
        };
        let s = if self.threads == 1 { "" } else { "s" };
        format!("{} thread{s} ({engine})", self.threads)
    }
}

/// The modes compared: `Engine::Auto` at every thread count, and the parallel engine forced
/// on one thread.
fn modes(threads: &[usize]) -> Result<Vec<Mode>, String> {
    let mut modes = Vec::new();
    let mut add = |threads: usize, engine: Engine| -> Result<(), String> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| format!("cannot start a pool of {threads} threads: {e}"))?;
        modes.push(Mode {
            threads,
            engine,
            pool,
        });
        Ok(())
    };
    for &t in threads {
        add(t, Engine::Auto)?;
        if t == 1 {
            add(1, Engine::Parallel)?;
        }
    }
    Ok(modes)
}

/// Where things are: the cargo target directory, found from this executable's path
/// (`<target>/<profile>/deps/engine-<hash>`), else `CARGO_TARGET_DIR`, else the workspace's
/// `target/`.
fn target_dir() -> PathBuf {
    let from_exe = env::current_exe().ok().and_then(|exe| {
        let deps = exe.parent()?;
        (deps.file_name()? == "deps").then(|| deps.parent()?.parent().map(Path::to_path_buf))?
    });
    from_exe
        .or_else(|| env::var_os("CARGO_TARGET_DIR").map(PathBuf::from))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

/// The external programs that are available.
struct Programs {
    runner: Runner,
    cli: Option<PathBuf>,
    cpp: Option<PathBuf>,
}

fn run() -> Result<(), String> {
    let cfg = Config::from_env()?;
    let target = target_dir();
    let data = target.join("bench-data");
    fs::create_dir_all(&data).map_err(|e| format!("creating {}: {e}", data.display()))?;

    print_header(&cfg, &data);
    let modes = modes(&cfg.threads)?;
    let programs = Programs {
        runner: Runner::new(data.join("time-report.txt")),
        cli: if cfg.external {
            find_cli(&target)
        } else {
            None
        },
        cpp: if cfg.external {
            build_cpp(&data)?
        } else {
            None
        },
    };
    if cfg.external && !programs.runner.measures_rss() {
        println!("note: /usr/bin/time is not GNU time; external peak RSS (time %M) not measured");
    }
    for size in &cfg.sizes {
        bench_size(&cfg, &programs, &modes, &data, size)?;
    }
    Ok(())
}

fn print_header(cfg: &Config, data: &Path) {
    let threads = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    println!("retrograde engine benchmark, {}", date());
    println!("machine: nproc {threads} (available_parallelism), {cpu}");
    if cfg.smoke {
        println!("smoke run (started without --bench): one run at 10k, external programs skipped");
    }
    println!(
        "input: uniform random edge lists (random DAGs, edges u -> v with v < u, for -dag sizes), 4 edges per vertex, seed {}, in {}",
        gen::SEED,
        data.display()
    );
    println!(
        "times: median of {} run(s), warm page cache; parse = File::read in 16 MiB blocks + \
         TextParser::feed; build = finish + build; solve = solve(Rules::default()); \
         end to end = process wall time, spawn to exit",
        cfg.runs
    );
    println!(
        "threads compared: {:?} (rayon pools; the other rows use the default pool); load average at start: {}",
        cfg.threads,
        load_average()
    );
}

/// The first three fields of `/proc/loadavg` (other work on the machine skews the timings).
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string())
}

/// The `date` command's output, or seconds since the epoch without it.
fn date() -> String {
    Command::new("date")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| {
            let s = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            format!("unix time {s}")
        })
}

/// The CLI binary, or `None` (with a note) when it is not built.
fn find_cli(target: &Path) -> Option<PathBuf> {
    let path = env::var_os("RETRO_BENCH_CLI")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("release").join("retrograde"));
    if !path.is_file() {
        println!(
            "note: {} not found; end-to-end runs skipped (build it with \
             `cargo build --release -p retrograde-cli`)",
            path.display()
        );
        return None;
    }
    let age = fs::metadata(&path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .map_or(String::new(), |a| {
            format!(", built {} min ago", a.as_secs() / 60)
        });
    println!("cli: {}{age}", path.display());
    Some(path)
}

/// Compiles the C++ baseline, or returns `None` (with a note) when there is no `g++`.
fn build_cpp(data: &Path) -> Result<Option<PathBuf>, String> {
    let Some(version) = external::gxx_version() else {
        println!("note: g++ not found; C++ baseline skipped");
        return Ok(None);
    };
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("cpp/seed000.cpp");
    let exe = data.join("seed000");
    external::compile_cpp(&src, &exe)?;
    println!(
        "baseline: {} (g++ {}; {version})",
        exe.display(),
        external::CXX_FLAGS.join(" ")
    );
    Ok(Some(exe))
}

/// One in-process run of the library phases.
#[derive(Debug)]
struct LibRun {
    parse: Duration,
    build: Duration,
    solve: Duration,
    /// The win/loss propagation of the sequential engine on one core.
    propagate: Duration,
    /// Reverse edges the propagation looked at.
    scanned: u64,
    vertices: u64,
    edges: u64,
    counts: Counts,
    /// One solve per [`Mode`], in order.
    modes: Vec<ModeRun>,
}

/// One timed solve in one [`Mode`].
#[derive(Debug)]
struct ModeRun {
    solve: Duration,
    phases: Phases,
}

impl LibRun {
    fn total(&self) -> Duration {
        self.parse + self.build + self.solve
    }
}

/// Parses, builds and solves the graph in `path`, timing each phase; then solves it again in
/// each mode, checking that every solution equals the first.
fn run_library(path: &Path, modes: &[Mode]) -> Result<LibRun, String> {
    let start = std::time::Instant::now();
    let mut file = File::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?;
    let mut buf = vec![0u8; BLOCK];
    let mut parser = TextParser::new(Format::Edges);
    loop {
        let len = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(len) => len,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("reading {}: {e}", path.display())),
        };
        parser
            .feed(&buf[..len])
            .map_err(|e| format!("{}:{e}", path.display()))?;
    }
    let parse = start.elapsed();
    drop(buf);

    let start = std::time::Instant::now();
    let graph = parser
        .finish(&ParseOptions::default())
        .map_err(|e| format!("{}: {e}", path.display()))?
        .build()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let build = start.elapsed();

    let start = std::time::Instant::now();
    let (solution, phases) = solve_with_phases(&graph, &Rules::default());
    let solve = start.elapsed();

    let mut runs = Vec::with_capacity(modes.len());
    for mode in modes {
        let (s, d, phases) = solve_in(&graph, mode);
        if s != solution {
            return Err(format!(
                "{}: the solution with {} differs from the default pool's",
                path.display(),
                mode.label()
            ));
        }
        drop(s);
        runs.push(ModeRun { solve: d, phases });
    }
    let sequential = modes
        .iter()
        .zip(&runs)
        .find(|(m, _)| m.threads == 1 && m.engine == Engine::Auto)
        .map_or(phases, |(_, r)| r.phases);

    Ok(LibRun {
        parse,
        build,
        solve,
        propagate: sequential.propagate,
        scanned: phases.edges_scanned,
        vertices: graph.vertex_count() as u64,
        edges: graph.edge_count() as u64,
        counts: solution.counts(),
        modes: runs,
    })
}

/// Solves `graph` (values and best moves, default rules) in `mode`'s pool with its engine.
fn solve_in(graph: &retrograde_graph::Graph, mode: &Mode) -> (Solution, Duration, Phases) {
    let opts = SolveOptions {
        engine: mode.engine,
        ..SolveOptions::default()
    };
    mode.pool.install(|| {
        let start = std::time::Instant::now();
        let (s, phases) = solve_with_options(graph, &Rules::default(), &opts);
        (s, start.elapsed(), phases)
    })
}

/// The median of some durations (the upper one of an even count).
fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort_unstable();
    xs[xs.len() / 2]
}

/// The median of some milliseconds.
fn median_ms(mut xs: Vec<f64>) -> f64 {
    xs.sort_unstable_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// What the external programs gave for one size.
struct CliResult {
    wall: Duration,
    peak_self: u64,
    peak_time: Option<u64>,
}

struct CppResult {
    wall: Duration,
    phases_ms: [f64; 3],
    peak_time: Option<u64>,
}

fn bench_size(
    cfg: &Config,
    programs: &Programs,
    modes: &[Mode],
    data: &Path,
    size: &Size,
) -> Result<(), String> {
    eprintln!("[{}] preparing the input", size.label);
    let (path, written) = gen::ensure_graph(data, size)?;
    let file_bytes = fs::metadata(&path).map_or(0, |m| m.len());
    let lib = library_runs(cfg, modes, &path, size)?;
    let (n, m, counts) = (lib[0].vertices, lib[0].edges, lib[0].counts);
    let file = path.as_os_str();
    let cli = cli_runs(cfg, programs, file, size, (n, m, &counts))?;
    let cli_threads = cli_thread_runs(cfg, programs, file, size, (n, m, &counts))?;
    let cpp = cpp_runs(cfg, programs, file, size, &counts)?;

    // ---- report ----
    let agree = [(cli.is_some(), "CLI"), (cpp.is_some(), "C++ baseline")];
    print_size(size, &path, file_bytes, written, (n, m, &counts), &agree);
    print_phases(&lib, m, cli.as_ref(), cpp.as_ref());
    print_threads(cfg, modes, &lib, &cli_threads);
    print_memory(n, m, cli.as_ref(), cpp.as_ref());
    Ok(())
}

/// The library's runs of `path` (`cfg.runs` of them), which must agree, on a graph of the
/// size asked.
fn library_runs(
    cfg: &Config,
    modes: &[Mode],
    path: &Path,
    size: &Size,
) -> Result<Vec<LibRun>, String> {
    let mut lib = Vec::with_capacity(cfg.runs);
    for i in 0..cfg.runs {
        eprintln!("[{}] library run {}/{}", size.label, i + 1, cfg.runs);
        let r = run_library(path, modes)?;
        if let Some(first) = lib.first() {
            let first: &LibRun = first;
            if (r.vertices, r.edges, r.counts) != (first.vertices, first.edges, first.counts) {
                return Err(format!(
                    "library runs disagree on {}: {:?} vs {:?}",
                    path.display(),
                    r.counts,
                    first.counts
                ));
            }
        }
        lib.push(r);
    }
    let m = lib[0].edges;
    if m != size.m {
        return Err(format!(
            "{} has {m} edges, expected {}",
            path.display(),
            size.m
        ));
    }
    Ok(lib)
}

/// The CLI's summary runs, checked against the library's counts (`n`, `m`, `counts`).
fn cli_runs(
    cfg: &Config,
    programs: &Programs,
    file: &OsStr,
    size: &Size,
    (n, m, counts): (u64, u64, &Counts),
) -> Result<Option<CliResult>, String> {
    Ok(match &programs.cli {
        None => None,
        Some(exe) => {
            let args = [
                OsStr::new("solve"),
                file,
                "--summary".as_ref(),
                "--output".as_ref(),
                "json".as_ref(),
            ];
            let runs = run_n(cfg, &programs.runner, exe, &args, &size.label, "retrograde")?;
            let mut peak_self = 0;
            for r in &runs {
                let s = external::parse_cli_summary(&r.stdout)?;
                check_cli(&s, n, m, counts)?;
                peak_self = peak_self.max(s.peak_rss_bytes);
            }
            Some(CliResult {
                wall: median(runs.iter().map(|r| r.wall).collect()),
                peak_self,
                peak_time: runs.iter().filter_map(|r| r.max_rss_bytes).max(),
            })
        }
    })
}

/// The CLI end to end at each thread count of `cfg`, in turn within each round: the wall
/// times by thread count.
fn cli_thread_runs(
    cfg: &Config,
    programs: &Programs,
    file: &OsStr,
    size: &Size,
    (n, m, counts): (u64, u64, &Counts),
) -> Result<Vec<Vec<Duration>>, String> {
    // The CLI end to end at each thread count, in turn within each round.
    let mut cli_threads: Vec<Vec<Duration>> = vec![Vec::new(); cfg.threads.len()];
    if let Some(exe) = &programs.cli {
        for i in 0..cfg.runs {
            for (t, walls) in cfg.threads.iter().zip(&mut cli_threads) {
                eprintln!(
                    "[{}] retrograde --threads {t} run {}/{}",
                    size.label,
                    i + 1,
                    cfg.runs
                );
                let t = t.to_string();
                let args = [
                    OsStr::new("--threads"),
                    t.as_ref(),
                    "solve".as_ref(),
                    file,
                    "--summary".as_ref(),
                    "--output".as_ref(),
                    "json".as_ref(),
                ];
                let r = programs.runner.run(exe, &args)?;
                check_cli(&external::parse_cli_summary(&r.stdout)?, n, m, counts)?;
                walls.push(r.wall);
            }
        }
    }
    Ok(cli_threads)
}

/// The C++ baseline's runs, checked against the library's counts.
fn cpp_runs(
    cfg: &Config,
    programs: &Programs,
    file: &OsStr,
    size: &Size,
    counts: &Counts,
) -> Result<Option<CppResult>, String> {
    Ok(match &programs.cpp {
        None => None,
        Some(exe) => {
            let runs = run_n(cfg, &programs.runner, exe, &[file], &size.label, "seed000")?;
            let mut phases: [Vec<f64>; 3] = Default::default();
            for r in &runs {
                check_cpp(&external::parse_cpp_counts(&r.stdout)?, counts)?;
                for (v, ms) in phases
                    .iter_mut()
                    .zip(external::parse_cpp_phases(&r.stderr)?)
                {
                    v.push(ms);
                }
            }
            Some(CppResult {
                wall: median(runs.iter().map(|r| r.wall).collect()),
                phases_ms: phases.map(median_ms),
                peak_time: runs.iter().filter_map(|r| r.max_rss_bytes).max(),
            })
        }
    })
}

/// The size's heading: the graph, its file, and the counts every program agreed on.
fn print_size(
    size: &Size,
    path: &Path,
    file_bytes: u64,
    written: Option<Duration>,
    (n, m, counts): (u64, u64, &Counts),
    agree: &[(bool, &str)],
) {
    println!();
    println!(
        "== {}: n = {}, m = {}; {} ({} MiB, {})",
        size.label,
        grouped(n),
        grouped(m),
        path.display(),
        mib(file_bytes),
        written.map_or("reused".to_string(), |d| format!(
            "written in {} s",
            secs(d)
        ))
    );
    let remoteness = counts
        .max_remoteness
        .map_or("none".to_string(), |r| r.to_string());
    let agree: Vec<&str> = agree.iter().filter(|a| a.0).map(|a| a.1).collect();
    println!(
        "counts: win {} loss {} tie {} draw {}, max remoteness {remoteness}{}",
        grouped(counts.win),
        grouped(counts.loss),
        grouped(counts.tie),
        grouped(counts.draw),
        if agree.is_empty() {
            String::new()
        } else {
            format!(
                " ({} agree{})",
                agree.join(" and "),
                if agree.len() == 1 { "s" } else { "" }
            )
        }
    );
    println!();
}

/// The library's phases against the C++ baseline's, and the propagation's rate.
fn print_phases(lib: &[LibRun], m: u64, cli: Option<&CliResult>, cpp: Option<&CppResult>) {
    let mut t = Table::new(&[
        "phase", "Rust s", "Medges/s", "Rust ms", "C++ ms", "C++/Rust",
    ]);
    let phase_rows = [
        (
            "parse (read + feed)",
            median(lib.iter().map(|r| r.parse).collect()),
            0,
        ),
        (
            "build (finish + build)",
            median(lib.iter().map(|r| r.build).collect()),
            1,
        ),
        ("solve", median(lib.iter().map(|r| r.solve).collect()), 2),
    ];
    for (name, d, i) in phase_rows {
        let c = cpp.map(|c| c.phases_ms[i]);
        t.row(time_row(name, Some(d), m, c));
    }
    let total_cpp = cpp.map(|c| c.phases_ms.iter().sum());
    t.row(time_row(
        "library total",
        Some(median(lib.iter().map(LibRun::total).collect())),
        m,
        total_cpp,
    ));
    t.row(time_row(
        "end to end (wall)",
        cli.map(|c| c.wall),
        m,
        cpp.map(|c| c.wall.as_secs_f64() * 1e3),
    ));
    print!("{}", t.render());
    let prop = median(lib.iter().map(|r| r.propagate).collect());
    let scanned = lib[0].scanned;
    let p = prop.as_secs_f64().max(1e-9);
    println!(
        "propagation (one core): {} s, {} reverse edges scanned: {:.1} M scanned edges/s, {:.1} M graph edges/s",
        secs(prop),
        grouped(scanned),
        scanned as f64 / p / 1e6,
        m as f64 / p / 1e6
    );
    println!();
}

/// Peak memory against the budget of 16 bytes an edge and 32 a vertex.
fn print_memory(n: u64, m: u64, cli: Option<&CliResult>, cpp: Option<&CppResult>) {
    let budget = 16 * m + 32 * n;
    let mut t = Table::new(&[
        "process",
        "peak RSS MiB",
        "bytes/edge",
        "budget MiB",
        "verdict",
    ]);
    let mem_row = |name: &str, bytes: u64, judged: bool| {
        vec![
            name.to_string(),
            mib(bytes),
            format!("{:.1}", bytes as f64 / m as f64),
            if judged { mib(budget) } else { "-".to_string() },
            if !judged {
                "-".to_string()
            } else if bytes <= budget {
                "within budget".to_string()
            } else {
                "OVER budget".to_string()
            },
        ]
    };
    match cli {
        Some(c) => {
            t.row(mem_row("retrograde (peak_rss_bytes)", c.peak_self, true));
            if let Some(b) = c.peak_time {
                t.row(mem_row("retrograde (time %M)", b, true));
            }
        }
        None => t.row(vec![
            "retrograde".to_string(),
            "-".to_string(),
            "-".to_string(),
            mib(budget),
            "not run".to_string(),
        ]),
    }
    if let Some(b) = cpp.and_then(|c| c.peak_time) {
        t.row(mem_row("seed000 C++ (time %M)", b, false));
    }
    println!("memory budget 16 m + 32 n = {} bytes", grouped(budget));
    print!("{}", t.render());
}

/// The thread comparison: per mode, the medians of solve and its phases, the CLI end to end
/// at that thread count, and the speed-ups over one thread.
fn print_threads(cfg: &Config, modes: &[Mode], lib: &[LibRun], cli: &[Vec<Duration>]) {
    let med = |i: usize, f: &dyn Fn(&ModeRun) -> Duration| {
        median(lib.iter().map(|r| f(&r.modes[i])).collect())
    };
    let solve: Vec<Duration> = (0..modes.len()).map(|i| med(i, &|r| r.solve)).collect();
    let e2e = |threads: usize| {
        let i = cfg.threads.iter().position(|&t| t == threads)?;
        (!cli[i].is_empty()).then(|| median(cli[i].clone()))
    };
    let base = solve[0].as_secs_f64();
    let base_e2e = e2e(1).map(|d| d.as_secs_f64());
    let mut t = Table::new(&[
        "solve (values + best moves)",
        "solve s",
        "propagate",
        "ties",
        "best moves",
        "speed-up",
        "end to end s",
        "speed-up",
    ]);
    for (i, mode) in modes.iter().enumerate() {
        let dash = || "-".to_string();
        let wall = (mode.engine == Engine::Auto)
            .then(|| e2e(mode.threads))
            .flatten();
        t.row(vec![
            mode.label(),
            secs(solve[i]),
            secs(med(i, &|r| r.phases.propagate)),
            secs(med(i, &|r| r.phases.ties)),
            secs(med(i, &|r| r.phases.best_moves)),
            ratio(base, solve[i].as_secs_f64()),
            wall.map_or_else(dash, secs),
            match (base_e2e, wall) {
                (Some(b), Some(w)) => ratio(b, w.as_secs_f64()),
                _ => dash(),
            },
        ]);
    }
    println!(
        "threads: solve in rayon pools of each size (median of {} run(s)); end to end = the CLI \
         with --threads N --summary (values only); speed-up = 1-thread time / this time",
        lib.len()
    );
    print!("{}", t.render());
    println!();
}

/// A row of the time table: Rust time and rate, C++ time, and the ratio.
fn time_row(name: &str, rust: Option<Duration>, m: u64, cpp_ms: Option<f64>) -> Vec<String> {
    let dash = || "-".to_string();
    let rust_ms = rust.map(|d| d.as_secs_f64() * 1e3);
    vec![
        name.to_string(),
        rust.map_or_else(dash, secs),
        rust.map_or_else(dash, |d| mega_rate(m, d)),
        rust_ms.map_or_else(dash, millis),
        cpp_ms.map_or_else(dash, millis),
        match (cpp_ms, rust_ms) {
            (Some(c), Some(r)) => ratio(c, r),
            _ => dash(),
        },
    ]
}

/// Runs an external program `cfg.runs` times.
fn run_n(
    cfg: &Config,
    runner: &Runner,
    exe: &Path,
    args: &[&OsStr],
    label: &str,
    name: &str,
) -> Result<Vec<ProcRun>, String> {
    (0..cfg.runs)
        .map(|i| {
            eprintln!("[{label}] {name} run {}/{}", i + 1, cfg.runs);
            runner.run(exe, args)
        })
        .collect()
}

/// The CLI's summary must describe the same graph and solution as the library.
fn check_cli(s: &CliSummary, n: u64, m: u64, c: &Counts) -> Result<(), String> {
    let lib = CliSummary {
        vertices: n,
        edges: m,
        win: c.win,
        loss: c.loss,
        tie: c.tie,
        draw: c.draw,
        max_remoteness: c.max_remoteness.map(u64::from),
        peak_rss_bytes: s.peak_rss_bytes,
    };
    if *s != lib {
        return Err(format!(
            "the CLI disagrees with the library:\n  cli     {s:?}\n  library {lib:?}"
        ));
    }
    Ok(())
}

/// The C++ baseline's counts must equal the library's (it has no ties: with the default
/// rules and a plain edge list there are none).
fn check_cpp(cpp: &CppCounts, c: &Counts) -> Result<(), String> {
    let lib = CppCounts {
        win: c.win,
        loss: c.loss,
        draw: c.draw + c.tie,
    };
    if *cpp != lib || c.tie != 0 {
        return Err(format!(
            "the C++ baseline disagrees with the library:\n  c++     {cpp:?}\n  library {c:?}"
        ));
    }
    Ok(())
}

/// The CLI binary the game and serve benches run: `RETRO_BENCH_CLI`, else
/// `target/release/retrograde`. When it is missing, an error in a real bench run; in a smoke
/// run (`cargo test --benches`) a notice and `None`, so the run is skipped.
///
/// # Errors
/// The binary is missing in a real bench run.
pub fn release_cli(bench_mode: bool, bench: &str) -> Result<Option<PathBuf>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cli = env::var_os("RETRO_BENCH_CLI")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/release/retrograde"));
    if cli.exists() {
        return Ok(Some(cli));
    }
    if bench_mode {
        return Err(format!(
            "{} not found: build it first with `cargo build --release -p retrograde-cli`",
            cli.display()
        ));
    }
    println!(
        "{bench} bench smoke run skipped: {} is not built",
        cli.display()
    );
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(win: u64, loss: u64, tie: u64, draw: u64) -> Counts {
        Counts {
            win,
            loss,
            tie,
            draw,
            max_remoteness: Some(3),
            ..Counts::default()
        }
    }

    #[test]
    fn a_wrong_baseline_answer_fails() {
        let c = counts(5, 3, 0, 2);
        let ok = CppCounts {
            win: 5,
            loss: 3,
            draw: 2,
        };
        assert!(check_cpp(&ok, &c).is_ok());
        assert!(check_cpp(&CppCounts { win: 4, ..ok }, &c).is_err());
        assert!(check_cpp(&ok, &counts(5, 3, 1, 1)).is_err());
    }

    #[test]
    fn a_wrong_cli_answer_fails() {
        let c = counts(5, 3, 0, 2);
        let ok = CliSummary {
            vertices: 10,
            edges: 40,
            win: 5,
            loss: 3,
            tie: 0,
            draw: 2,
            max_remoteness: Some(3),
            peak_rss_bytes: 1 << 20,
        };
        assert!(check_cli(&ok, 10, 40, &c).is_ok());
        assert!(check_cli(
            &CliSummary {
                draw: 1,
                ..ok.clone()
            },
            10,
            40,
            &c
        )
        .is_err());
        assert!(check_cli(
            &CliSummary {
                max_remoteness: None,
                ..ok.clone()
            },
            10,
            40,
            &c
        )
        .is_err());
        assert!(check_cli(&ok, 10, 41, &c).is_err());
    }

    #[test]
    fn thread_counts_start_at_one() {
        assert_eq!(thread_counts(None).unwrap(), [1, 2]);
        assert_eq!(thread_counts(Some("4,2,2")).unwrap(), [1, 2, 4]);
        assert!(thread_counts(Some("0")).is_err());
        assert!(thread_counts(Some("two")).is_err());
    }

    #[test]
    fn medians() {
        let ms = |v: &[u64]| v.iter().map(|&x| Duration::from_millis(x)).collect();
        assert_eq!(median(ms(&[3, 1, 2])), Duration::from_millis(2));
        assert_eq!(median(ms(&[7])), Duration::from_millis(7));
        assert_eq!(median_ms(vec![2.0, 9.0, 1.0]), 2.0);
    }
}
