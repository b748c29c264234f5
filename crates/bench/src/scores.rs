//! The scores benchmark (issue 24): `cargo bench -p retrograde-bench --bench scores` solves a
//! uniform random graph twice, side by side in the same run, and prints the ratio:
//! - **unscored**: every dead end is a loss (the default rules): win/loss/draw;
//! - **scored**: the same moves, every dead end given a score `±k`, `k` uniform in
//!   `1..=P` with a random sign (`P = 1000` by default: 1,000 score levels, each a
//!   layered retrograde, and up to 2,000 distinct payoffs).
//!
//! The graph (`n` vertices, `4 n` moves `u -> v` with `u` and `v` uniform in `0..n`,
//! `SmallRng::seed_from_u64(42)`, the engine bench's uniform graph) is built in memory, not
//! read from a file. Each solve (values, remoteness and best moves, `Engine::Auto`) runs in
//! rayon pools of 1 and 2 threads, alternating unscored and scored, and the medians are
//! compared: the target is a ratio of at most 1.5 at 10M vertices. The scored
//! solution is checked with `verify` (not timed), so a fast wrong answer fails.
//!
//! Options: the size as an argument (`-- 1m`, default `10m`), `RETRO_BENCH_RUNS=N` (default
//! 3), `RETRO_BENCH_PAYOFFS=P` (default 1000). Without `--bench` (as `cargo test --benches`
//! runs it): one quick run at 10k vertices.

use crate::gen::{Size, SEED};
use crate::table::{grouped, ratio, secs, Table};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use retrograde_graph::{Graph, GraphBuilder};
use retrograde_solve::{solve_with_options, verify, Rules, Solution, SolveOptions};
use std::env;
use std::time::{Duration, Instant};

/// Entry point of the `scores` bench target; exits with status 1 on a failure.
pub fn main() {
    if let Err(e) = run() {
        eprintln!("retrograde-bench scores: error: {e}");
        std::process::exit(1);
    }
}

/// The uniform random graph of `size`, and with `payoffs`, its dead ends scored.
fn graph(size: &Size, payoffs: Option<u64>) -> Result<Graph, String> {
    let n = u32::try_from(size.n).map_err(|_| "too many vertices".to_string())?;
    let mut rng = SmallRng::seed_from_u64(SEED);
    let mut b = GraphBuilder::with_capacity(size.m as usize);
    for _ in 0..size.m {
        let (u, v) = (rng.gen_range(0..n), rng.gen_range(0..n));
        b.add_edge(u, v);
    }
    b.ensure_vertices(size.n).map_err(|e| e.to_string())?;
    let g = b.build().map_err(|e| e.to_string())?;
    let Some(p) = payoffs else {
        return Ok(g);
    };
    // The same moves again, with scores on the dead ends.
    let mut b = GraphBuilder::with_capacity(size.m as usize);
    for u in 0..n {
        for &v in g.successors(u) {
            b.add_edge(u, v);
        }
        if g.out_degree(u) == 0 {
            let k = rng.gen_range(1..=p as i64);
            let s = if rng.gen_bool(0.5) { k } else { -k };
            b.set_score(u, s).map_err(|e| e.to_string())?;
        }
    }
    b.ensure_vertices(size.n).map_err(|e| e.to_string())?;
    b.build().map_err(|e| e.to_string())
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn run() -> Result<(), String> {
    let bench = env::args().any(|a| a == "--bench");
    let label = env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_else(|| if bench { "10m" } else { "10k" }.into());
    let size = Size::parse(&label)?;
    let runs: usize = match env::var("RETRO_BENCH_RUNS") {
        Ok(r) => r.parse().map_err(|_| format!("RETRO_BENCH_RUNS={r:?}"))?,
        Err(_) if bench => 3,
        Err(_) => 1,
    };
    let payoffs: u64 = match env::var("RETRO_BENCH_PAYOFFS") {
        Ok(p) => p
            .parse()
            .ok()
            .filter(|&p| p > 0 && p <= i64::MAX as u64)
            .ok_or_else(|| format!("RETRO_BENCH_PAYOFFS={p:?}"))?,
        Err(_) => 1000,
    };
    let t = Instant::now();
    let plain = graph(&size, None)?;
    let scored = graph(&size, Some(payoffs))?;
    let dead = (0..plain.vertex_count() as u32)
        .filter(|&v| plain.out_degree(v) == 0)
        .count() as u64;
    println!(
        "scores: {} vertices, {} moves, {} dead ends scored ±1..={payoffs}; built in {:.1} s",
        grouped(size.n),
        grouped(size.m),
        grouped(dead),
        t.elapsed().as_secs_f64()
    );
    let rules = Rules::default();
    let opts = SolveOptions::default();
    let mut table = Table::new(&["threads", "unscored s", "scored s", "scored / unscored"]);
    let mut checked = false;
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| e.to_string())?;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..runs.max(1) {
            let timed = |g: &Graph| -> (Solution, Duration) {
                let t = Instant::now();
                let s = pool.install(|| solve_with_options(g, &rules, &opts).0);
                (s, t.elapsed())
            };
            let (_, d) = timed(&plain);
            a.push(d);
            let (s, d) = timed(&scored);
            b.push(d);
            if !checked {
                verify(&scored, &rules, &s).map_err(|v| format!("the scored solution: {v}"))?;
                checked = true;
            }
        }
        let (a, b) = (median(a), median(b));
        table.row(vec![
            threads.to_string(),
            secs(a),
            secs(b),
            ratio(b.as_secs_f64(), a.as_secs_f64()),
        ]);
    }
    println!("{}", table.render());
    Ok(())
}
