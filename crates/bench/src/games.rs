//! The games benchmark: `cargo bench -p retrograde-bench --bench games` runs the built-in
//! games' solvers through the CLI (`target/release/retrograde game … --output json`, built
//! first with `cargo build --release -p retrograde-cli`) at 1 and 2 threads and prints a
//! table: positions, seconds, positions per second, peak memory (the CLI's own `VmHWM`),
//! bytes per reachable position, and the 1-thread / 2-thread time ratio.
//!
//! Each run is a separate process, so its peak memory is its own. The CLI's answers are
//! checked against the known ones where the literature has them (John Tromp's Connect-4
//! counts and values): a fast wrong answer fails the benchmark.
//!
//! Options:
//! - games: arguments (`cargo bench -p retrograde-bench --bench games -- c4-5x5 quixo-4`) or
//!   `RETRO_BENCH_GAMES`; names `c4-WxH`, `quixo-N`, `police-N` (an N x N map with walls,
//!   generated with a fixed seed into `target/bench-data/`). Default: `c4-5x4, c4-6x4,
//!   c4-5x5, quixo-4, police-40`. `c4-6x5` (2.8e9 positions, about 18 min and 6.6 GiB on 2
//!   cores; a 0.4 GB database in `target/bench-data/c4-6x5`) runs only when asked for.
//! - `RETRO_BENCH_THREADS=1,2` (default): thread counts;
//! - `RETRO_BENCH_CLI=PATH`: the CLI binary;
//! - `RETRO_BENCH_CROSSCHECK_ONLY=1` (with `GAMESMAN`): compare 400 random Teeko positions in
//!   the two databases an earlier `teeko` run left, without solving again;
//! - `GAMESMAN=PATH`: GamesmanOne's `gamesman` binary (UC Berkeley's C solver, built with
//!   `shared/tools/build-gamesman.sh`); then every game it also solves (Quixo 4x4 as
//!   `gamesman solve quixo 1`, Teeko as `gamesman solve teeko`) is run by both at each
//!   thread count (`OMP_NUM_THREADS`), one after the other, each in a fresh directory for
//!   its database, under `/usr/bin/time` for wall time and peak memory, and a second table
//!   prints the ratios. GamesmanOne writes its database as it solves; so does retrograde
//!   in these runs (`--db`), so both do the same job. Both databases are kept under
//!   `target/bench-data/` (`gamesman-GAME`, `retrograde-db-GAME`).
//!
//! Without `--bench` (as `cargo test --benches` runs it), a smoke run of `c4-4x4` and
//! `quixo-3` at the default thread counts.

use crate::table::{grouped, mib, ratio, Table};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::Value as Json;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Entry point of the `games` bench target.
pub fn main() {
    if let Err(e) = run() {
        eprintln!("retrograde-bench games: error: {e}");
        std::process::exit(1);
    }
}

/// One game to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bench {
    /// Connect-4, width × height.
    Connect4(u32, u32),
    /// Quixo n × n.
    Quixo(u32),
    /// Teeko.
    Teeko,
    /// The policeman and the thief on an n × n map.
    Police(u32),
}

impl Bench {
    /// Parses `c4-5x5`, `quixo-4`, `police-40`.
    ///
    /// # Errors
    /// Any other name.
    pub fn parse(s: &str) -> Result<Bench, String> {
        let bad = || format!("unknown game {s:?} (c4-WxH, quixo-N, police-N, teeko)");
        if let Some(rest) = s.strip_prefix("c4-") {
            let (w, h) = rest.split_once('x').ok_or_else(bad)?;
            Ok(Bench::Connect4(
                w.parse().map_err(|_| bad())?,
                h.parse().map_err(|_| bad())?,
            ))
        } else if let Some(n) = s.strip_prefix("quixo-") {
            Ok(Bench::Quixo(n.parse().map_err(|_| bad())?))
        } else if let Some(n) = s.strip_prefix("police-") {
            Ok(Bench::Police(n.parse().map_err(|_| bad())?))
        } else if s == "teeko" {
            Ok(Bench::Teeko)
        } else {
            Err(bad())
        }
    }

    fn name(&self) -> String {
        match self {
            Bench::Connect4(w, h) => format!("connect4 {w}x{h}"),
            Bench::Quixo(n) => format!("quixo {n}x{n}"),
            Bench::Police(n) => format!("police-thief {n}x{n}"),
            Bench::Teeko => "teeko".into(),
        }
    }

    /// GamesmanOne's arguments for the same game, when it has it.
    fn gamesman(&self) -> Option<Vec<&'static str>> {
        match self {
            Bench::Quixo(4) => Some(vec!["solve", "quixo", "1"]),
            Bench::Teeko => Some(vec!["solve", "teeko"]),
            _ => None,
        }
    }

    /// The CLI arguments (after `--threads N`).
    fn args(&self, data: &Path) -> Result<Vec<String>, String> {
        let mut a: Vec<String> = vec!["game".into()];
        match self {
            Bench::Connect4(w, h) => {
                a.extend(
                    [
                        "connect4",
                        "--width",
                        &w.to_string(),
                        "--height",
                        &h.to_string(),
                    ]
                    .map(String::from),
                );
                if w * h >= 30 {
                    let db = data.join(format!("c4-{w}x{h}"));
                    a.extend(["--db".to_string(), db.display().to_string()]);
                }
            }
            Bench::Quixo(n) => {
                a.extend(["quixo", "--size", &n.to_string()].map(String::from));
            }
            Bench::Teeko => a.push("teeko".into()),
            Bench::Police(n) => {
                let map = data.join(format!("police-{n}.map"));
                if !map.exists() {
                    fs::create_dir_all(data).map_err(|e| e.to_string())?;
                    fs::write(&map, police_map(*n, 42)).map_err(|e| e.to_string())?;
                }
                a.extend(["police-thief".to_string(), map.display().to_string()]);
            }
        }
        a.extend(["--output", "json"].map(String::from));
        Ok(a)
    }

    /// The known answer: (start outcome, positions), when the literature has it.
    fn known(&self) -> Option<(&'static str, u64)> {
        // John Tromp, "John's Connect Four Playground": positions and values by board size.
        match self {
            Bench::Connect4(4, 4) => Some(("tie", 161_029)),
            Bench::Connect4(5, 5) => Some(("tie", 69_763_700)),
            Bench::Connect4(6, 4) => Some(("loss", 94_910_577)),
            Bench::Connect4(6, 5) => Some(("tie", 2_818_972_642)),
            // Our own earlier results, confirmed by the value iteration of the tests (3x3)
            // and by GamesmanOne (4x4: a first-player win).
            Bench::Quixo(4) => Some(("win", 82_497_861)),
            // A draw: Guy Steele (1998). The count is ours (the small boards' counts are
            // checked against a plain search in the tests), kept to catch a change.
            Bench::Teeko => Some(("draw", 171_875_046)),
            _ => None,
        }
    }
}

/// An `n × n` map: a border of walls with gaps, about 15% walls inside, exits on two sides,
/// the policeman near one corner and the thief near the middle.
pub fn police_map(n: u32, seed: u64) -> String {
    let mut rng = SmallRng::seed_from_u64(seed);
    let n = n.max(4) as usize;
    let mut g = vec![vec!['.'; n]; n];
    for (r, row) in g.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            if rng.gen_range(0..100) < 15 {
                *cell = '*';
            }
            if r == 0 || c == 0 {
                *cell = if rng.gen_range(0..10) == 0 { 'E' } else { '*' };
            }
        }
    }
    g[1][1] = 'P';
    g[n / 2][n / 2] = 'T';
    let mut out = format!("{n} {n}\n");
    for row in g {
        out.extend(row);
        out.push('\n');
    }
    out
}

fn run() -> Result<(), String> {
    let bench_mode = env::args().any(|a| a == "--bench");
    let games = chosen(bench_mode)?;
    let threads: Vec<usize> = env::var("RETRO_BENCH_THREADS")
        .unwrap_or_else(|_| "1,2".into())
        .split(',')
        .map(|t| {
            t.trim()
                .parse()
                .map_err(|_| format!("bad thread count {t:?}"))
        })
        .collect::<Result<_, _>>()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(cli) = crate::release_cli(bench_mode, "games")? else {
        return Ok(());
    };
    let data = root.join("target/bench-data");
    let mut table = Table::new(&[
        "game",
        "threads",
        "start",
        "positions",
        "seconds",
        "Mpos/s",
        "peak MiB",
        "B/pos",
        "1t/this",
    ]);
    let mut notes = String::new();
    let gamesman = env::var_os("GAMESMAN").map(PathBuf::from);
    let mut peers = Table::new(&[
        "game",
        "threads",
        "retrograde s",
        "GamesmanOne s",
        "speed-up",
        "retrograde MiB",
        "GamesmanOne MiB",
        "memory ratio",
    ]);
    if let (Some(bin), Ok(_)) = (&gamesman, env::var("RETRO_BENCH_CROSSCHECK_ONLY")) {
        // Only compare the databases a previous run left (see crosscheck_teeko).
        let n = crosscheck_teeko(
            &cli,
            &data.join("retrograde-db-teeko"),
            bin,
            &data.join("gamesman-teeko"),
            400,
        )?;
        println!("teeko: {n} random positions have the same value and remoteness in GamesmanOne's database");
        return Ok(());
    }
    for game in &games {
        let mut first_secs = None;
        for &t in &threads {
            let peer = gamesman.as_ref().zip(game.gamesman());
            let r = solve(&cli, &data, game, t, peer.is_some())?;
            if let Some((bin, gargs)) = peer {
                let dir = data.join(format!("gamesman-{}", game.name().replace(' ', "-")));
                let (gs, gpeak) = run_gamesman(bin, &gargs, t, &dir)?;
                if *game == Bench::Teeko && t == threads[threads.len() - 1] {
                    let db = data.join("retrograde-db-teeko");
                    let n = crosscheck_teeko(&cli, &db, bin, &dir, 400)?;
                    let _ = writeln!(
                        notes,
                        "teeko: {n} random positions have the same value and remoteness in GamesmanOne's database"
                    );
                }
                peers.row(vec![
                    game.name(),
                    t.to_string(),
                    format!("{:.2}", r.wall),
                    format!("{gs:.2}"),
                    ratio(gs, r.wall),
                    mib(r.peak),
                    mib(gpeak),
                    format!("{:.2}", r.peak as f64 / gpeak.max(1) as f64),
                ]);
            }
            let first = *first_secs.get_or_insert(r.wall);
            table.row(vec![
                game.name(),
                t.to_string(),
                r.start.clone(),
                grouped(r.positions),
                format!("{:.2}", r.wall),
                format!("{:.2}", r.positions as f64 / r.wall / 1e6),
                mib(r.peak),
                format!("{:.2}", r.peak as f64 / r.positions.max(1) as f64),
                ratio(first, r.wall),
            ]);
            if let (Some(c), true) = (r.classes, t == threads[0]) {
                let _ = writeln!(
                    notes,
                    "{}: {} positions up to symmetry",
                    game.name(),
                    grouped(c)
                );
            }
        }
    }
    print!("{}", table.render());
    if bench_mode {
        print!("{notes}");
    }
    if gamesman.is_some() {
        println!("\nagainst GamesmanOne, side by side (speed-up = GamesmanOne time / retrograde time; memory ratio = retrograde / GamesmanOne):");
        print!("{}", peers.render());
    }
    Ok(())
}

/// The games asked for: the arguments, else `RETRO_BENCH_GAMES`, else the default set (a
/// smoke set without `--bench`).
fn chosen(bench_mode: bool) -> Result<Vec<Bench>, String> {
    let mut names: Vec<String> = env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if names.is_empty() {
        names = match env::var("RETRO_BENCH_GAMES") {
            Ok(v) => v.split(',').map(str::to_string).collect(),
            Err(_) if bench_mode => ["c4-5x4", "c4-6x4", "c4-5x5", "quixo-4", "police-40"]
                .map(String::from)
                .to_vec(),
            Err(_) => ["c4-4x4", "quixo-3"].map(String::from).to_vec(),
        };
    }
    names.iter().map(|n| Bench::parse(n.trim())).collect()
}

/// One run of a game through the CLI: what its JSON report said, and its wall time.
struct Solved {
    wall: f64,
    positions: u64,
    /// The start's outcome and remoteness: `win 7`.
    start: String,
    peak: u64,
    classes: Option<u64>,
}

/// Solves `game` with the CLI on `t` threads (writing its database under `data` when
/// `with_db`, as a peer that writes one does), checking the answer against the known one.
fn solve(cli: &Path, data: &Path, game: &Bench, t: usize, with_db: bool) -> Result<Solved, String> {
    let mut args = game.args(data)?;
    if with_db {
        // Both write their database, so both do the same job.
        let db = data.join(format!("retrograde-db-{}", game.name().replace(' ', "-")));
        let _ = fs::remove_dir_all(&db);
        args.extend(["--db".to_string(), db.display().to_string()]);
    }
    let started = Instant::now();
    let out = Command::new(cli)
        .arg("--threads")
        .arg(t.to_string())
        .args(&args)
        .output()
        .map_err(|e| format!("{}: {e}", cli.display()))?;
    let wall = started.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            game.name(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let j: Json = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{}: bad JSON: {e}", game.name()))?;
    let positions = j["positions"].as_u64().unwrap_or(0);
    let outcome = j["start"]["outcome"].as_str().unwrap_or("?").to_string();
    let remoteness = j["start"]["remoteness"]
        .as_u64()
        .map_or(String::new(), |r| format!(" {r}"));
    if let Some((want, count)) = game.known() {
        if (want, count) != (outcome.as_str(), positions) {
            return Err(format!(
                "{}: got {outcome} with {positions} positions, the known answer is {want} with {count}",
                game.name()
            ));
        }
    }
    Ok(Solved {
        wall,
        positions,
        start: format!("{outcome}{remoteness}"),
        peak: j["peak_rss_bytes"].as_u64().unwrap_or(0),
        classes: j["symmetry_reduced"].as_u64(),
    })
}

/// Compares `samples` random Teeko positions (random boards of every stage, both sides to
/// move) between our database `db` and GamesmanOne's in `dir` (`gamesman query teeko 0
/// POSITION`, one process a position): the same outcome, and the same remoteness where
/// there is one. Positions our notation refuses (the side to move already has a winning
/// shape, which cannot happen in a game) are skipped. Returns how many were compared.
fn crosscheck_teeko(
    cli: &Path,
    db: &Path,
    bin: &Path,
    dir: &Path,
    samples: usize,
) -> Result<usize, String> {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    while ours.len() < samples {
        let pieces = rng.gen_range(0..=8usize);
        let (nx, no) = (pieces.div_ceil(2), pieces / 2);
        let x_to_move = if pieces == 8 {
            rng.gen_bool(0.5)
        } else {
            pieces % 2 == 0
        };
        let mut board = [b'-'; 25];
        for (who, count) in [(b'X', nx), (b'O', no)] {
            let mut placed = 0;
            while placed < count {
                let c = rng.gen_range(0..25);
                if board[c] == b'-' {
                    board[c] = who;
                    placed += 1;
                }
            }
        }
        let rows: Vec<String> = board
            .chunks(5)
            .map(|r| {
                r.iter()
                    .map(|&c| match c {
                        b'X' => 'x',
                        b'O' => 'o',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        ours.push(format!(
            "{} {}",
            rows.join("/"),
            if x_to_move { 'x' } else { 'o' }
        ));
        theirs.push(format!(
            "{}_{}",
            if x_to_move { 1 } else { 2 },
            String::from_utf8_lossy(&board)
        ));
    }
    let mut child = Command::new(cli)
        .arg("query")
        .arg(db)
        .args(["--stdin", "--output", "json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", cli.display()))?;
    {
        use std::io::Write as _;
        let mut input = child.stdin.take().ok_or("no stdin")?;
        for p in &ours {
            writeln!(input, "{p}").map_err(|e| e.to_string())?;
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let answers: Vec<Json> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).map_err(|e| format!("query output {l:?}: {e}")))
        .collect::<Result<_, _>>()?;
    if answers.len() != samples {
        return Err(format!(
            "query answered {} of {samples} positions",
            answers.len()
        ));
    }
    let mut compared = 0;
    for ((mine, formal), a) in ours.iter().zip(&theirs).zip(&answers) {
        if a.get("error").is_some() {
            continue;
        }
        let g = Command::new(bin)
            .args(["query", "teeko", "0", formal])
            .current_dir(dir)
            .output()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        let text = String::from_utf8_lossy(&g.stdout);
        let gj: Json = serde_json::from_str(text.trim())
            .map_err(|e| format!("gamesman query {formal}: {e}: {text}"))?;
        let gv = match gj["positionValue"].as_str() {
            Some("lose") => "loss",
            Some(v) => v,
            None => return Err(format!("gamesman query {formal}: no value: {text}")),
        };
        let same_outcome = a["outcome"].as_str() == Some(gv);
        let same_remoteness = gv == "draw" || a["remoteness"].as_i64() == gj["remoteness"].as_i64();
        if !(same_outcome && same_remoteness) {
            return Err(format!(
                "teeko {mine}: retrograde says {} {}, GamesmanOne says {gv} {} ({formal})",
                a["outcome"], a["remoteness"], gj["remoteness"]
            ));
        }
        compared += 1;
    }
    Ok(compared)
}

/// Runs GamesmanOne in a fresh directory with `threads` OpenMP threads; its wall time in
/// seconds and peak memory in bytes (from `/usr/bin/time`). Its database stays in `dir`
/// (under `target/bench-data/`) for comparing answers.
fn run_gamesman(
    bin: &Path,
    args: &[&str],
    threads: usize,
    dir: &Path,
) -> Result<(f64, u64), String> {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = Command::new("/usr/bin/time")
        .args(["-f", "BENCH-TIME %e %M"])
        .arg(bin)
        .args(args)
        .current_dir(dir)
        .env("OMP_NUM_THREADS", threads.to_string())
        .output()
        .map_err(|e| format!("/usr/bin/time {}: {e}", bin.display()))?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{} {args:?} failed: {err}", bin.display()));
    }
    let line = err
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("BENCH-TIME "))
        .ok_or_else(|| format!("no timing from /usr/bin/time: {err}"))?;
    let mut parts = line.split_whitespace();
    let secs: f64 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or("bad time")?;
    let kib: u64 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or("bad memory")?;
    Ok((secs, kib * 1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(Bench::parse("c4-6x5"), Ok(Bench::Connect4(6, 5)));
        assert_eq!(Bench::parse("quixo-4"), Ok(Bench::Quixo(4)));
        assert_eq!(Bench::parse("police-40"), Ok(Bench::Police(40)));
        assert_eq!(Bench::parse("teeko"), Ok(Bench::Teeko));
        assert!(Bench::parse("chess").is_err());
        assert!(Bench::parse("c4-6").is_err());
    }

    #[test]
    fn maps_are_valid() {
        let m = police_map(40, 42);
        assert_eq!(m, police_map(40, 42));
        let lines: Vec<&str> = m.lines().collect();
        assert_eq!(lines[0], "40 40");
        assert_eq!(lines.len(), 41);
        assert_eq!(m.matches('P').count() + m.matches('T').count(), 2);
        assert!(m.contains('E'));
    }
}
