//! The query and serve benchmark: `cargo bench -p retrograde-bench --bench serve` (build the
//! CLI first: `cargo build --release -p retrograde-cli`).
//!
//! For each database (made once under `target/bench-data/serve-NAME` with `retrograde game
//! ... --db`; default `c4-5x4` and `quixo-4`, or names as arguments / `RETRO_BENCH_DBS`):
//! - 10,000 random positions (random walks from the start, of uniformly random length, made
//!   with a fixed seed), each asked by its position string through the registry, as `query`
//!   does:
//!   - *warm*: one open database, asked every position once before the timed pass;
//!   - *cold*: a database opened afresh for each query (its block cache empty: the tier
//!     file's header read, one block and its index entry read and decompressed); the operating
//!     system's file cache is warm (dropping it would disturb the other users of the
//!     machine), so this is a cold start of the database, not of the disk;
//! - `retrograde serve` under load: 16 clients on loopback, each sending 200 requests for
//!   random positions of those databases, one connection per request, each answer checked
//!   against the library's; latency per request (connect, request, full reply).
//!
//! Prints p50, p99 and max for each. Without `--bench` (as `cargo test --benches` runs
//! it), a smoke run on connect4 4x4 with 500 positions.

use crate::table::{latency_row, percentiles, Table};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use retrograde_registry::{Answer, Query};
use retrograde_tier::{DirStorage, Storage};
use std::env;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Entry point of the `serve` bench target.
pub fn main() {
    if let Err(e) = run() {
        eprintln!("retrograde-bench serve: error: {e}");
        std::process::exit(1);
    }
}

/// The `retrograde game` arguments that make the database `name`.
fn game_args(name: &str) -> Result<Vec<String>, String> {
    let (game, size) = name
        .split_once('-')
        .ok_or_else(|| format!("{name:?}: expected c4-WxH or quixo-N"))?;
    Ok(match game {
        "c4" => {
            let (w, h) = size
                .split_once('x')
                .ok_or_else(|| format!("{name:?}: expected c4-WxH"))?;
            ["connect4", "--width", w, "--height", h]
                .map(String::from)
                .to_vec()
        }
        "quixo" => ["quixo", "--size", size].map(String::from).to_vec(),
        "ttt" => ["tictactoe", "--rows", size, "--cols", size, "--k", size]
            .map(String::from)
            .to_vec(),
        _ => return Err(format!("{name:?}: expected c4-WxH, quixo-N or ttt-N")),
    })
}

/// Opens the database in `dir` as `query` does.
fn open(dir: &Path) -> Result<Box<dyn Answer>, String> {
    let storage: Arc<dyn Storage> = Arc::new(DirStorage::new(dir.to_path_buf()));
    Ok(retrograde_registry::open(storage)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .answer)
}

/// `n` random positions of `answer` (position strings), by random walks from the start.
fn positions(answer: &dyn Answer, n: usize, seed: u64) -> Result<Vec<String>, String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut moves: Vec<String> = Vec::new();
        let steps = rng.gen_range(0..40);
        loop {
            let a = answer
                .query(&Query::Moves(moves.clone()))
                .map_err(|e| e.to_string())?;
            if moves.len() >= steps || a.moves.is_empty() {
                out.push(a.position);
                break;
            }
            moves.push(a.moves[rng.gen_range(0..a.moves.len())].0.clone());
        }
    }
    Ok(out)
}

fn run() -> Result<(), String> {
    let bench_mode = env::args().any(|a| a == "--bench");
    let mut names: Vec<String> = env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if names.is_empty() {
        names = match env::var("RETRO_BENCH_DBS") {
            Ok(v) => v.split(',').map(|s| s.trim().to_string()).collect(),
            Err(_) if bench_mode => vec!["c4-5x4".into(), "quixo-4".into()],
            Err(_) => vec!["c4-4x4".into()],
        };
    }
    let count = if bench_mode { 10_000 } else { 500 };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(cli) = crate::release_cli(bench_mode, "serve")? else {
        return Ok(());
    };
    let data = root.join("target/bench-data");
    std::fs::create_dir_all(&data).map_err(|e| format!("{}: {e}", data.display()))?;
    let mut table = Table::new(&[
        "database", "what", "queries", "p50 us", "p99 us", "max us", "per s",
    ]);
    let mut served: Vec<(String, PathBuf, Vec<String>)> = Vec::new();
    for name in &names {
        let dir = data.join(format!("serve-{name}"));
        if !dir.join("database.json").exists() {
            println!("making {} ...", dir.display());
            let status = Command::new(&cli)
                .arg("game")
                .args(game_args(name)?)
                .arg("--db")
                .arg(&dir)
                .args(["--quiet", "--resume"])
                .stdout(Stdio::null())
                .status()
                .map_err(|e| format!("{}: {e}", cli.display()))?;
            if !status.success() {
                return Err(format!("making the {name} database failed"));
            }
        }
        let warm = open(&dir)?;
        let ps = positions(&*warm, count, 7)?;
        // Warm: every position once, then the timed pass.
        for p in &ps {
            warm.query(&Query::Position(p.clone()))
                .map_err(|e| e.to_string())?;
        }
        let mut times = Vec::with_capacity(ps.len());
        let started = Instant::now();
        for p in &ps {
            let t = Instant::now();
            let a = warm
                .query(&Query::Position(p.clone()))
                .map_err(|e| e.to_string())?;
            times.push(t.elapsed());
            std::hint::black_box(a);
        }
        latency_row(
            &mut table,
            name,
            "query, warm",
            ps.len(),
            percentiles(times),
            started.elapsed(),
        );
        // Cold: a fresh database for each query; the open timed apart.
        let (mut times, mut opens) = (Vec::new(), Vec::new());
        let started = Instant::now();
        for p in &ps {
            let t = Instant::now();
            let fresh = open(&dir)?;
            opens.push(t.elapsed());
            let t = Instant::now();
            let a = fresh
                .query(&Query::Position(p.clone()))
                .map_err(|e| e.to_string())?;
            times.push(t.elapsed());
            std::hint::black_box(a);
        }
        let total = started.elapsed();
        latency_row(
            &mut table,
            name,
            "open database",
            ps.len(),
            percentiles(opens),
            total,
        );
        latency_row(
            &mut table,
            name,
            "query, cold (fresh open)",
            ps.len(),
            percentiles(times),
            total,
        );
        served.push((name.clone(), dir, ps));
    }

    // The server under load.
    let mut cmd = Command::new(&cli);
    cmd.arg("serve");
    for (_, dir, _) in &served {
        cmd.arg(dir);
    }
    let mut child = cmd
        .args(["--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", cli.display()))?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().ok_or("no stdout")?)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let addr: Result<SocketAddr, String> = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|u| u.strip_suffix('/'))
        .and_then(|u| u.parse().ok())
        .ok_or_else(|| format!("serve printed {line:?}"));
    let result = addr.and_then(|addr| load(addr, &served, bench_mode));
    let _ = child.kill();
    let _ = child.wait();
    let (times, total) = result?;
    let n = times.len();
    latency_row(
        &mut table,
        &names.join("+"),
        "serve: 16 clients",
        n,
        percentiles(times),
        total,
    );
    println!("{}", table.render());
    println!(
        "cold: each query on a database opened afresh (block cache empty; the OS file cache is warm)."
    );
    Ok(())
}

/// 16 clients, each `per` requests for random positions; every answer checked.
fn load(
    addr: SocketAddr,
    served: &[(String, PathBuf, Vec<String>)],
    bench_mode: bool,
) -> Result<(Vec<Duration>, Duration), String> {
    if !addr.ip().is_loopback() {
        return Err(format!("{addr} is not a loopback address"));
    }
    let per = if bench_mode { 200 } else { 20 };
    // The expected bodies, from the library.
    let mut cases: Vec<(String, String)> = Vec::new();
    for (_, dir, ps) in served {
        let answer = open(dir)?;
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for p in ps.iter().take(2000) {
            let a = answer
                .query(&Query::Position(p.clone()))
                .map_err(|e| e.to_string())?;
            cases.push((
                format!("/api/query?db={id}&position={}", encode(p)),
                a.to_json(),
            ));
        }
    }
    let cases = Arc::new(cases);
    let started = Instant::now();
    let clients: Vec<_> = (0..16u64)
        .map(|c| {
            let cases = cases.clone();
            std::thread::spawn(move || -> Result<Vec<Duration>, String> {
                let mut rng = SmallRng::seed_from_u64(c);
                let mut times = Vec::with_capacity(per);
                for _ in 0..per {
                    let (path, want) = &cases[rng.gen_range(0..cases.len())];
                    let t = Instant::now();
                    let got = get(addr, path)?;
                    times.push(t.elapsed());
                    if &got != want {
                        return Err(format!("{path}: got {got:?}, expected {want:?}"));
                    }
                }
                Ok(times)
            })
        })
        .collect();
    let mut times = Vec::new();
    for c in clients {
        times.extend(c.join().map_err(|_| "a client panicked")??);
    }
    Ok((times, started.elapsed()))
}

/// The body of `GET path` (status 200 expected), one connection.
fn get(addr: SocketAddr, path: &str) -> Result<String, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut raw = String::new();
    s.read_to_string(&mut raw).map_err(|e| e.to_string())?;
    let (head, body) = raw.split_once("\r\n\r\n").ok_or("no headers")?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!("{path}: {head}"));
    }
    Ok(body.to_string())
}

fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
