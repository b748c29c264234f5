//! The chess benchmark: `cargo bench -p retrograde-bench --bench chess` solves every chess
//! ending of 3 and 4 pieces (66 materials, both colours: `KQvKR` and `KRvKQ` are two
//! endings) as one tier DAG, so that each tier is solved once, in memory, with the library
//! (no CLI), at the thread counts of `RETRO_BENCH_THREADS` (default `2`). It prints the
//! positions (both sides to move, every legal placement: symmetric twins counted), the
//! classes solved (one per symmetry class), the time, positions per second, the process's
//! peak memory (`VmHWM`, which only grows: read it for the first row) and bytes per
//! position.
//!
//! The result is checked against the published longest mates (DTM in moves, the winner
//! to move): KQvK 10, KRvK 16, KPvK 28, KBBvK 19, KBNvK 33, KQvKR 35, KQvKQ 13, KRvKB 29
//! and KRvKN 40 (18 and 27, often quoted, are their longest depths to conversion, not to
//! mate), KRvKP 43 (the pawn's side wins: the longest of 4 pieces), and of 5 pieces
//! KBNvKN 107 (213 plies: H. Conrady's longest mates of every Nalimov table, CCC, June
//! 2000) and KPPvKP 127 (the longest of 5 pieces: OEIS A274458, and Conrady's 254 plies
//! with the loser to move); and the longest of every 3- and 4-piece ending, 43 moves
//! (OEIS A274458). A fast wrong answer fails the benchmark.
//!
//! `RETRO_BENCH_CHESS=KRPvKR` (any list of endings, comma-separated) solves those instead,
//! with the tiers in files under `target/bench-data/chess` (only the tiers in use stay in
//! memory). Without `--bench` (as `cargo test --benches` runs it), a smoke run of the
//! 3-piece endings.

use crate::table::{grouped, mib, Table};
use retrograde_games::chess::{Chess, Material};
use retrograde_tier::{solve, DirStorage, SolveOptions, Solved, TierGame};
use std::sync::Arc;
use std::time::Instant;

/// Entry point of the `chess` bench target.
pub fn main() {
    if let Err(e) = run() {
        eprintln!("retrograde-bench chess: error: {e}");
        std::process::exit(1);
    }
}

/// Published longest mates, in moves, the winner to move.
const PUBLISHED: &[(&str, u32)] = &[
    ("KQvK", 10),
    ("KRvK", 16),
    ("KPvK", 28),
    ("KBBvK", 19),
    ("KBNvK", 33),
    ("KQvKR", 35),
    ("KQvKQ", 13),
    ("KRvKB", 29),
    ("KRvKN", 40),
    ("KRvKP", 43),
    ("KBNvKN", 107),
    ("KPPvKP", 127),
];

/// The longest mate of every ending of 3 and 4 pieces, in moves (KRvKP's).
const LONGEST_OF_4: u32 = 43;

fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn run() -> Result<(), String> {
    let full = std::env::args().any(|a| a == "--bench");
    let threads: Vec<usize> = std::env::var("RETRO_BENCH_THREADS")
        .unwrap_or_else(|_| "2".into())
        .split(',')
        .map(|t| {
            t.trim()
                .parse()
                .map_err(|_| format!("bad thread count {t:?}"))
        })
        .collect::<Result<_, _>>()?;
    let asked = std::env::var("RETRO_BENCH_CHESS").ok();
    let (roots, label): (Vec<Material>, String) = match &asked {
        Some(list) => (
            list.split(',')
                .map(Material::parse)
                .collect::<Result<_, _>>()
                .map_err(|e| format!("RETRO_BENCH_CHESS={list:?}: {e}"))?,
            list.clone(),
        ),
        None if full => {
            let mut m = Material::all(3);
            m.extend(Material::all(4));
            (m, "every 3- and 4-piece ending".into())
        }
        None => (Material::all(3), "every 3-piece ending (smoke run)".into()),
    };
    let game = Chess::endings(&roots);
    let mut table = Table::new(&[
        "endings",
        "threads",
        "positions",
        "classes",
        "seconds",
        "positions/s",
        "peak MiB",
        "bytes/position",
    ]);
    for &n in &threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| e.to_string())?;
        let mut opts = SolveOptions::default();
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-data/chess");
        if asked.is_some() {
            let _ = std::fs::remove_dir_all(&dir);
            opts.storage = Some(Arc::new(DirStorage::new(dir.clone())));
        }
        let started = Instant::now();
        let s = pool
            .install(|| solve(&game, &opts))
            .map_err(|e| e.to_string())?;
        let seconds = started.elapsed().as_secs_f64();
        let st = s.stats();
        // Check the published longest mates of the endings solved.
        for &(m, moves) in PUBLISHED {
            let mat = Material::parse(m).map_err(|e| format!("{m}: {e}"))?;
            let tiers: Vec<_> = s.tiers().iter().filter(|t| t.mat == mat).copied().collect();
            if tiers.is_empty() {
                continue;
            }
            let longest = tiers
                .iter()
                .filter_map(|&t| s.tier_stats(t).ok().flatten().and_then(|x| x.longest_win))
                .max();
            if longest != Some(2 * moves - 1) {
                return Err(format!(
                    "{m}: longest win {longest:?} plies, published mate in {moves} ({} plies)",
                    2 * moves - 1
                ));
            }
        }
        if asked.is_none() && full && st.longest_win != Some(2 * LONGEST_OF_4 - 1) {
            return Err(format!(
                "every 3- and 4-piece ending: longest win {:?} plies, published mate in {LONGEST_OF_4}",
                st.longest_win
            ));
        }
        let peak = peak_rss();
        table.row(vec![
            label.clone(),
            n.to_string(),
            grouped(st.positions),
            grouped(st.classes),
            format!("{seconds:.1}"),
            grouped((st.positions as f64 / seconds) as u64),
            peak.map_or("?".into(), mib),
            peak.map_or("?".into(), |p| {
                format!("{:.2}", p as f64 / st.positions as f64)
            }),
        ]);
        eprintln!(
            "{}: {} tiers, {} slots; longest win {:?} plies",
            game.name(),
            s.tiers().len(),
            grouped(s.tier_sizes().iter().sum()),
            st.longest_win
        );
        if asked.is_some() {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    print!("{}", table.render());
    Ok(())
}
