//! The chess probe benchmark: `cargo bench -p retrograde-bench --bench probe` (build the CLI
//! first: `cargo build --release -p retrograde-cli`).
//!
//! The tablebase of every ending up to `RETRO_BENCH_PROBE_PIECES` pieces (default 4) is made
//! once under `target/bench-data/chess-upto-N` with `retrograde game chess --up-to N --db`,
//! then probed through the Rust API ([`Tablebase`]) as chess programs probe tablebases, at
//! 10,000 random positions (a fixed seed): a uniformly random ending among those held, its
//! pieces on random squares (pawns on ranks 2 to 7), either side to move, kept when the
//! tablebase takes it as a position (not the side not to move in check, kings apart). For
//! each, p50, p99 and max:
//! - *value, warm*: [`Probe::value`] (the outcome and depth to mate) on one open tablebase,
//!   every position asked once before the timed pass;
//! - *probe, warm*: [`Probe::fen`], what `query` answers: the value and every legal move's,
//!   every position asked once before (after the values' pass: the blocks of 10,000
//!   positions' moves do not fit the probe's cache of 256 MiB of decoded blocks);
//! - *open*: [`Tablebase::open`] and [`Tablebase::probe`] (the directory's description;
//!   a table's file is opened when first probed);
//! - *value, cold*: the first [`Probe::value`] on a tablebase just opened (its table's file
//!   opened, its header read and checked, and a block and its index entry read, checked and
//!   decompressed). The operating system's file cache is
//!   warm (dropping it would disturb the machine's other users): a cold start of the
//!   tablebase, not of the disk;
//! - *query, a process a FEN*: `retrograde query DIR --position FEN` run for each of the
//!   first 200 positions: the process's start, the open and the answer with every move's.
//!
//! Also the tablebase's size on disk and bits a position. Checked before the measurements
//! (a difference fails the bench after them): the whole and compact tablebases agree on
//! the 10,000 positions; the longest mate of each ending (with 5 pieces, term by term
//! OEIS A274458); and short depths to mate against a plain search of the crate's boards
//! (`plain_search`: in every ending of the largest size, random positions with a mate
//! within 3 plies for or against the side to move, or none). Without `--bench` (as `cargo
//! test --benches` runs it), a smoke run on 3 pieces with 300 positions.

use crate::table::{grouped, latency_row, percentiles, Table};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use retrograde_games::chess::{plain, Material};
use retrograde_registry::chess::{Probe, Tablebase};
use retrograde_solve::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Entry point of the `probe` bench target.
pub fn main() {
    if let Err(e) = run() {
        eprintln!("retrograde-bench probe: error: {e}");
        std::process::exit(1);
    }
}

/// `count` random positions the tablebase holds, as FENs: a random ending of 3 to `pieces`
/// pieces, its pieces on random squares, a random side to move, kept when the probe takes
/// it.
pub fn positions(
    probe: &Probe,
    pieces: usize,
    count: usize,
    seed: u64,
) -> Result<Vec<String>, String> {
    let endings: Vec<String> = (3..=pieces)
        .flat_map(Material::all)
        .map(|m| m.to_string())
        .collect();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(count);
    let mut tries = 0u64;
    while out.len() < count {
        tries += 1;
        if tries > 1000 * count as u64 + 1000 {
            return Err(format!(
                "only {} of {count} random positions were taken by the tablebase",
                out.len()
            ));
        }
        let ending = &endings[rng.gen_range(0..endings.len())];
        if let Some(fen) = random_fen(ending, &mut rng) {
            if probe.value(&fen).is_ok() {
                out.push(fen);
            }
        }
    }
    Ok(out)
}

/// A FEN with the pieces of `ending` (`KRPvKR`: white's, then black's) on distinct random
/// squares, pawns on ranks 2 to 7, a random side to move; `None` when `cozy-chess` takes
/// it for no position. It may still be none for the tablebase (kings side by side).
fn random_fen(ending: &str, rng: &mut SmallRng) -> Option<String> {
    use cozy_chess::{BoardBuilder, Color, Piece};
    let mut b = BoardBuilder::empty();
    let (white, black) = ending.split_once('v').unwrap_or((ending, "K"));
    let pieces = white
        .chars()
        .map(|c| (c, Color::White))
        .chain(black.chars().map(|c| (c, Color::Black)));
    for (letter, colour) in pieces {
        let piece = match letter.to_ascii_uppercase() {
            'K' => Piece::King,
            'Q' => Piece::Queen,
            'R' => Piece::Rook,
            'B' => Piece::Bishop,
            'N' => Piece::Knight,
            _ => Piece::Pawn,
        };
        loop {
            let sq = rng.gen_range(0..64);
            let back_rank = matches!(sq / 8, 0 | 7);
            if b.board[sq].is_none() && !(piece == Piece::Pawn && back_rank) {
                b.board[sq] = Some((piece, colour));
                break;
            }
        }
    }
    b.side_to_move = if rng.gen_bool(0.5) {
        Color::White
    } else {
        Color::Black
    };
    b.build().ok().map(|board| board.to_string())
}

/// Bytes of the files in `dir`.
fn dir_bytes(dir: &Path) -> Result<u64, String> {
    let mut total = 0;
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let e = e.map_err(|e| format!("{}: {e}", dir.display()))?;
        total += e
            .metadata()
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .len();
    }
    Ok(total)
}

fn run() -> Result<(), String> {
    let bench_mode = std::env::args().any(|a| a == "--bench");
    let pieces: usize = match std::env::var("RETRO_BENCH_PROBE_PIECES") {
        Ok(v) => v
            .trim()
            .parse()
            .ok()
            .filter(|p| (3..=5).contains(p))
            .ok_or_else(|| format!("RETRO_BENCH_PROBE_PIECES={v:?}: expected 3, 4 or 5"))?,
        Err(_) if bench_mode => 4,
        Err(_) => 3,
    };
    let count = if bench_mode { 10_000 } else { 300 };
    let Some(cli) = crate::release_cli(bench_mode, "probe")? else {
        return Ok(());
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join(format!("target/bench-data/chess-upto-{pieces}"));
    if !dir.join("database.json").exists() {
        println!("making {} ...", dir.display());
        let status = Command::new(&cli)
            .args([
                "game",
                "chess",
                "--up-to",
                &pieces.to_string(),
                "--quiet",
                "--db",
            ])
            .arg(&dir)
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("{}: {e}", cli.display()))?;
        if !status.success() {
            return Err(format!("making the {pieces}-piece tablebase failed"));
        }
    }
    // The same set made compact (one side to move kept of each table that has two): a
    // copy of the files, then `--compact`, which rewrites them without solving.
    let compact = root.join(format!("target/bench-data/chess-upto-{pieces}-compact"));
    if !compact.join("database.json").exists() {
        println!("making {} ...", compact.display());
        let _ = std::fs::remove_dir_all(&compact);
        std::fs::create_dir_all(&compact).map_err(|e| format!("{}: {e}", compact.display()))?;
        for f in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
            let f = f.map_err(|e| format!("{}: {e}", dir.display()))?;
            std::fs::copy(f.path(), compact.join(f.file_name()))
                .map_err(|e| format!("{}: {e}", f.path().display()))?;
        }
        let status = Command::new(&cli)
            .args(["game", "chess", "--up-to", &pieces.to_string()])
            .args(["--quiet", "--compact", "--db"])
            .arg(&compact)
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("{}: {e}", cli.display()))?;
        if !status.success() {
            return Err(format!(
                "making the {pieces}-piece tablebase compact failed"
            ));
        }
    }
    let tb = Tablebase::open(&dir).map_err(|e| e.to_string())?;
    let probe = tb.probe().map_err(|e| e.to_string())?;
    let fens = positions(&probe, pieces, count, 27)?;
    let mut table = Table::new(&[
        "tablebase",
        "what",
        "queries",
        "p50 us",
        "p99 us",
        "max us",
        "per s",
    ]);
    let ctb = Tablebase::open(&compact).map_err(|e| e.to_string())?;
    let cprobe = ctb.probe().map_err(|e| e.to_string())?;
    for fen in &fens {
        let (a, b) = (probe.value(fen), cprobe.value(fen));
        let (a, b) = (a.map_err(|e| e.to_string())?, b.map_err(|e| e.to_string())?);
        if a != b {
            return Err(format!("{fen}: {a:?} whole, {b:?} compact"));
        }
    }
    // Checked first, reported last: a difference fails the bench after its measurements.
    let searched = plain_search(&probe, pieces, if bench_mode { 2_000 } else { 1_000 });
    let checked = longest_mates(&probe, pieces).and(searched);
    for (d, kind) in [(&dir, ""), (&compact, ", compact")] {
        let name = format!("chess, up to {pieces} pieces{kind}");
        measure(d, &name, &fens, &mut table)?;
        query_processes(&cli, d, &name, &fens[..fens.len().min(QUERIES)], &mut table)?;
    }
    println!("{}", table.render());
    let positions = probe_positions(&cli, &dir, pieces)?;
    for d in [&dir, &compact] {
        let bytes = dir_bytes(d)?;
        println!(
            "{}: {} bytes on disk, {} positions, {:.2} bits a position",
            d.display(),
            grouped(bytes),
            grouped(positions),
            bytes as f64 * 8.0 / positions as f64
        );
    }
    println!(
        "cold: the first probe on a tablebase just opened (block cache empty; the OS file cache is warm)."
    );
    checked
}

/// The kinds of position [`plain_search`] checks, by the tablebase's value for the side to
/// move, and what the search must find.
const KINDS: [&str; 6] = [
    "mate in 1 ply",
    "mate in 3 plies (none in 1)",
    "checkmated",
    "mated in 2 plies (not now)",
    "no mate within 3 plies",
    "not mated within 2 plies",
];

/// The kind of a position of value `v` (an index of [`KINDS`]).
fn kind(v: Value) -> usize {
    match v {
        Value::Win(1) => 0,
        Value::Win(3) => 1,
        Value::Loss(0) => 2,
        Value::Loss(2) => 3,
        Value::Loss(_) => 5,
        _ => 4,
    }
}

/// Whether a plain search of the crate's moves ([`plain`]) finds on `b` what the
/// tablebase's value says of kind `k`.
fn searched_as(b: &cozy_chess::Board, k: usize) -> bool {
    match k {
        0 => plain::can_mate(b, 1),
        1 => plain::can_mate(b, 3) && !plain::can_mate(b, 1),
        2 => plain::mated_within(b, 0),
        3 => plain::mated_within(b, 2) && !plain::mated_within(b, 0),
        4 => !plain::can_mate(b, 3),
        _ => !plain::mated_within(b, 2),
    }
}

/// Short depths to mate against a plain search on the crate's boards, sharing nothing
/// with the rules: in every ending of exactly `pieces` pieces (each colouring), `tries`
/// random positions are probed, and up to 3 of each kind of [`KINDS`] are searched. A
/// difference is an error naming the position.
fn plain_search(probe: &Probe, pieces: usize, tries: usize) -> Result<(), String> {
    use rayon::prelude::*;
    const EACH: usize = 3;
    let started = Instant::now();
    let endings: Vec<String> = Material::all(pieces)
        .into_iter()
        .map(|m| m.to_string())
        .collect();
    let picked: Vec<Vec<(String, Value)>> = endings
        .par_iter()
        .enumerate()
        .map(|(e, ending)| {
            let mut rng = SmallRng::seed_from_u64(1_000 + e as u64);
            let mut got: Vec<(String, Value)> = Vec::new();
            let mut count = [0usize; KINDS.len()];
            for _ in 0..tries {
                let Some(fen) = random_fen(ending, &mut rng) else {
                    continue;
                };
                let Ok(v) = probe.value(&fen) else {
                    continue;
                };
                let k = kind(v);
                if count[k] < EACH {
                    count[k] += 1;
                    got.push((fen, v));
                }
                if count.iter().all(|&c| c == EACH) {
                    break;
                }
            }
            got
        })
        .collect();
    let wrong: Vec<String> = picked
        .par_iter()
        .flatten()
        .filter_map(|(fen, v)| match fen.parse::<cozy_chess::Board>() {
            Ok(b) => (!searched_as(&b, kind(*v))).then(|| format!("{fen}: {v:?}")),
            Err(e) => Some(format!("{fen}: not a board to search ({e:?})")),
        })
        .collect();
    let mut by_kind = [0usize; KINDS.len()];
    for (_, v) in picked.iter().flatten() {
        by_kind[kind(*v)] += 1;
    }
    let with_mates = picked
        .iter()
        .filter(|got| got.iter().any(|(_, v)| kind(*v) < 4))
        .count();
    println!(
        "plain search, {} endings of {pieces} pieces ({with_mates} with a short mate found), {} positions in {:.1} s: {}",
        endings.len(),
        by_kind.iter().sum::<usize>(),
        started.elapsed().as_secs_f64(),
        KINDS
            .iter()
            .zip(by_kind)
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if by_kind[..4].contains(&0) {
        return Err(format!(
            "the plain search met no position of some kind: {by_kind:?}"
        ));
    }
    match wrong.first() {
        None => Ok(()),
        Some(first) => Err(format!(
            "the plain search disagrees with the tablebase at {} positions, first {first}",
            wrong.len()
        )),
    }
}

/// OEIS A274458 (David A. Corneth, 2016, from K. Kryukov's longest checkmates of the
/// Nalimov tables; OEIS, CC BY-SA 4.0): `A274458[n - 1]` endings of up to 5 pieces (each
/// material of each colour, `KQvKR` and `KRvKQ` two) have their longest mate, white to
/// move, in `n` moves; those where white never mates are not counted.
const A274458: [u32; 127] = [
    20, 6, 3, 8, 3, 2, 6, 5, 5, 4, 0, 1, 3, 1, 3, 6, 5, 0, 5, 3, 6, 2, 1, 3, 1, 1, 1, 6, 11, 7, 4,
    3, 9, 3, 3, 2, 3, 2, 2, 7, 7, 0, 5, 1, 1, 0, 0, 0, 1, 3, 2, 0, 1, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0,
    0, 1, 0, 3, 2, 1, 2, 0, 1, 1, 3, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 1, 0, 0, 1, 0, 0, 1, 2, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 1,
];

/// The longest mate of each ending, white to move, read from every file of the whole
/// tablebase and counted by its length in moves: with 5 pieces, equal to OEIS A274458 term
/// by term; with fewer, the longest of all is the one the sequence's comments name (KPvK,
/// mate in 28, for 3 pieces; KPvKR, 43, for 4).
fn longest_mates(probe: &Probe, pieces: usize) -> Result<(), String> {
    let started = Instant::now();
    let mates = probe.longest_mates().map_err(|e| e.to_string())?;
    let seconds = started.elapsed().as_secs_f64();
    let mut counts = vec![0u32; 1];
    let mut longest: Option<(u32, &str)> = None;
    for (ending, plies) in &mates {
        let Some(plies) = plies else { continue };
        let moves = plies.div_ceil(2) as usize;
        if counts.len() <= moves {
            counts.resize(moves + 1, 0);
        }
        counts[moves] += 1;
        if longest.is_none_or(|(m, _)| moves as u32 > m) {
            longest = Some((moves as u32, ending));
        }
    }
    let ours: Vec<u32> = counts[1..].to_vec();
    println!(
        "longest mates, white to move: {} endings, {} with a mate, the longest {longest:?} moves; read in {seconds:.1} s",
        mates.len(),
        ours.iter().sum::<u32>()
    );
    println!(
        "  by moves (n: endings): {}",
        ours.iter()
            .enumerate()
            .filter(|c| *c.1 > 0)
            .map(|(n, c)| format!("{}: {c}", n + 1))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if pieces == 5 {
        let mut ours = ours;
        ours.resize(A274458.len().max(ours.len()), 0);
        let differ: Vec<String> = (0..ours.len())
            .filter(|&n| ours[n] != A274458.get(n).copied().unwrap_or(0))
            .map(|n| {
                let named: Vec<&str> = mates
                    .iter()
                    .filter(|(_, p)| p.map(|p| p.div_ceil(2) as usize) == Some(n + 1))
                    .map(|(e, _)| e.as_str())
                    .collect();
                format!(
                    "{} moves: {} against {} (ours: {})",
                    n + 1,
                    ours[n],
                    A274458.get(n).copied().unwrap_or(0),
                    named.join(", ")
                )
            })
            .collect();
        if !differ.is_empty() {
            let none: Vec<&str> = mates
                .iter()
                .filter(|(_, p)| p.is_none())
                .map(|(e, _)| e.as_str())
                .collect();
            println!(
                "  endings where white to move never mates: {}",
                none.join(", ")
            );
            return Err(format!(
                "the longest mates differ from OEIS A274458: {}",
                differ.join("; ")
            ));
        }
        println!(
            "  equal to OEIS A274458, all 127 terms ({} endings)",
            A274458.iter().sum::<u32>()
        );
    } else {
        let named = if pieces == 3 {
            (28, "KPvK")
        } else {
            (43, "KPvKR")
        };
        if longest != Some(named) {
            return Err(format!(
                "the longest mate is {longest:?}, OEIS A274458 names {named:?}"
            ));
        }
    }
    Ok(())
}

/// The four rows of one tablebase: value and probe warm, open, value cold.
fn measure(dir: &Path, name: &str, fens: &[String], table: &mut Table) -> Result<(), String> {
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let probe = tb.probe().map_err(|e| e.to_string())?;
    // Warm: every position asked the same question once, then the timed pass (a probe
    // with moves reads its moves' blocks too: their blocks would crowd the cache of the
    // values' pass).
    for (what, full) in [("value, warm", false), ("probe with moves, warm", true)] {
        for fen in fens {
            if full {
                probe.fen(fen).map_err(|e| e.to_string())?;
            } else {
                probe.value(fen).map_err(|e| e.to_string())?;
            }
        }
        let mut times = Vec::with_capacity(fens.len());
        let started = Instant::now();
        for fen in fens {
            let t = Instant::now();
            if full {
                std::hint::black_box(probe.fen(fen).map_err(|e| e.to_string())?);
            } else {
                std::hint::black_box(probe.value(fen).map_err(|e| e.to_string())?);
            }
            times.push(t.elapsed());
        }
        latency_row(
            table,
            name,
            what,
            fens.len(),
            percentiles(times),
            started.elapsed(),
        );
    }
    // Cold: a tablebase opened afresh for each position; the open timed apart.
    let (mut opens, mut firsts) = (Vec::new(), Vec::new());
    let started = Instant::now();
    for fen in fens {
        let t = Instant::now();
        let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
        let probe = tb.probe().map_err(|e| e.to_string())?;
        opens.push(t.elapsed());
        let t = Instant::now();
        std::hint::black_box(probe.value(fen).map_err(|e| e.to_string())?);
        firsts.push(t.elapsed());
    }
    let total = started.elapsed();
    latency_row(table, name, "open", fens.len(), percentiles(opens), total);
    let cold = percentiles(firsts);
    latency_row(
        table,
        name,
        "value, cold (just opened)",
        fens.len(),
        cold,
        total,
    );
    Ok(())
}

/// Positions asked of `query` one process each.
const QUERIES: usize = 200;

/// `retrograde query DIR --position FEN`, a process for each of `fens`: what a script that
/// asks one position pays, the process's start and the tablebase's open included.
fn query_processes(
    cli: &Path,
    dir: &Path,
    name: &str,
    fens: &[String],
    table: &mut Table,
) -> Result<(), String> {
    let mut times = Vec::with_capacity(fens.len());
    let started = Instant::now();
    for fen in fens {
        let t = Instant::now();
        let out = Command::new(cli)
            .arg("query")
            .arg(dir)
            .args(["--position", fen, "--output", "json"])
            .output()
            .map_err(|e| format!("{}: {e}", cli.display()))?;
        times.push(t.elapsed());
        if !out.status.success() {
            return Err(format!(
                "query {fen}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    let (n, total) = (fens.len(), started.elapsed());
    latency_row(
        table,
        name,
        "query, a process a FEN",
        n,
        percentiles(times),
        total,
    );
    Ok(())
}

/// The positions of the whole set, from the finished database's JSON report (taken up, not
/// solved again).
fn probe_positions(cli: &Path, dir: &Path, pieces: usize) -> Result<u64, String> {
    let out = Command::new(cli)
        .args(["game", "chess", "--up-to", &pieces.to_string()])
        .args(["--quiet", "-o", "json", "--db"])
        .arg(dir)
        .output()
        .map_err(|e| format!("{}: {e}", cli.display()))?;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("the report of {}: {e}", dir.display()))?;
    json["total"]["positions"]
        .as_u64()
        .ok_or_else(|| format!("the report of {} has no total positions", dir.display()))
}
