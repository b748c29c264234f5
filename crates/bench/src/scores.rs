//! The scores benchmark (issue 24): `cargo bench -p retrograde-bench --bench scores` solves a
//! uniform random graph three times, side by side in the same run, and prints the ratios:
//! - **dead ends lost**: the plain edge list, every dead end a loss (the default rules);
//! - **dead ends won/lost by sign**: the same moves, every dead end labelled win or loss by
//!   the sign of its score below: the win/loss/draw solve of the scored game, the base of the
//!   issue's target;
//! - **scored**: the same moves, every dead end given a score `±k`, `k` uniform in `1..=P`
//!   with a random sign (`P = 1000` by default: 1,000 score levels, each a layered
//!   retrograde, and up to 2,000 distinct payoffs).
//!
//! The graph (`n` vertices, `4 n` moves `u -> v` with `u` and `v` uniform in `0..n`,
//! `SmallRng::seed_from_u64(42)`, the engine bench's uniform graph) is built in memory, not
//! read from a file. Each solve (values, remoteness and best moves, `Engine::Auto`) runs in
//! rayon pools of 1 and 2 threads, the three in turn, and the medians are compared, with the
//! phases of the last run: the target is a ratio of at most 1.5 at 10M vertices. The scored
//! solution is checked with `verify` (not timed), so a fast wrong answer fails.
//!
//! Most of the uniform graph is drawn (about 8% of its vertices decided at 10M/40M), so the
//! score levels there touch little of it; `RETRO_BENCH_SHAPE=dag` keeps each move `u -> v` as
//! going from the smaller id to the larger (a move `u -> u` is left out): a DAG, where every
//! vertex is decided and every move is scanned by the propagation.
//!
//! Options: the size as an argument (`-- 1m`, default `10m`), `RETRO_BENCH_RUNS=N` (default
//! 3), `RETRO_BENCH_PAYOFFS=P` (default 1000), `RETRO_BENCH_SHAPE=uniform|dag`. Without `--bench` (as `cargo test --benches`
//! runs it): one quick run at 10k vertices.

use crate::gen::{Size, SEED};
use crate::table::{grouped, ratio, secs, Table};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use retrograde_graph::{Graph, GraphBuilder, Primitive};
use retrograde_solve::{solve_with_options, verify, Phases, Rules, SolveOptions};
use std::env;
use std::time::{Duration, Instant};

/// Entry point of the `scores` bench target; exits with status 1 on a failure.
pub fn main() {
    if let Err(e) = run() {
        eprintln!("retrograde-bench scores: error: {e}");
        std::process::exit(1);
    }
}

/// How the dead ends of the uniform random graph are valued.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Ends {
    /// As the no-move rule says: losses (the plain edge list).
    Plain,
    /// Labelled win or loss by the sign of their score: the win/loss/draw game of the scored
    /// graph.
    Signs,
    /// Scored `±k`, `k` uniform in `1..=P`.
    Scores(u64),
}

/// The uniform random graph of `size`, its dead ends valued as `ends` says (the scores and
/// signs are drawn the same way for `Signs` and `Scores`).
fn graph(size: &Size, ends: Ends, dag: bool) -> Result<Graph, String> {
    let n = u32::try_from(size.n).map_err(|_| "too many vertices".to_string())?;
    let mut rng = SmallRng::seed_from_u64(SEED);
    let mut b = GraphBuilder::with_capacity(size.m as usize);
    for _ in 0..size.m {
        let (u, v) = (rng.gen_range(0..n), rng.gen_range(0..n));
        match dag {
            false => b.add_edge(u, v),
            true if u != v => b.add_edge(u.min(v), u.max(v)),
            true => {}
        }
    }
    b.ensure_vertices(size.n).map_err(|e| e.to_string())?;
    let p = match ends {
        Ends::Plain => return b.build().map_err(|e| e.to_string()),
        Ends::Signs => 1000,
        Ends::Scores(p) => p,
    };
    let g = b.build().map_err(|e| e.to_string())?;
    let mut scores = Vec::new();
    for u in (0..n).filter(|&u| g.out_degree(u) == 0) {
        let k = rng.gen_range(1..=p as i64);
        scores.push((u, if rng.gen_bool(0.5) { k } else { -k }));
    }
    // The same moves again, with the dead ends valued.
    let mut b = GraphBuilder::with_capacity(size.m as usize);
    for u in 0..n {
        for &v in g.successors(u) {
            b.add_edge(u, v);
        }
    }
    drop(g);
    for (u, s) in scores {
        if ends == Ends::Signs {
            b.set_primitive(
                u,
                if s > 0 {
                    Primitive::Win
                } else {
                    Primitive::Loss
                },
            );
        } else {
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
    let dag = match env::var("RETRO_BENCH_SHAPE").as_deref() {
        Ok("dag") => true,
        Ok("uniform") | Err(_) => false,
        Ok(s) => return Err(format!("RETRO_BENCH_SHAPE={s:?}: expected uniform or dag")),
    };
    let t = Instant::now();
    let graphs = [
        ("dead ends lost", graph(&size, Ends::Plain, dag)?),
        (
            "dead ends won/lost by sign",
            graph(&size, Ends::Signs, dag)?,
        ),
        ("scored", graph(&size, Ends::Scores(payoffs), dag)?),
    ];
    let scored = &graphs[2].1;
    let dead = (0..scored.vertex_count() as u32)
        .filter(|&v| scored.out_degree(v) == 0)
        .count() as u64;
    println!(
        "scores: {} {} vertices, {} moves, {} dead ends scored ±1..={payoffs}; built in {:.1} s",
        if dag { "DAG," } else { "uniform graph," },
        grouped(size.n),
        grouped(size.m),
        grouped(dead),
        t.elapsed().as_secs_f64()
    );
    let rules = Rules::default();
    let opts = SolveOptions::default();
    let mut table = Table::new(&[
        "threads",
        "graph",
        "solve s",
        "propagate s",
        "ties s",
        "best moves s",
        "edges scanned",
        "decided",
        "scored / this",
    ]);
    let mut checked = false;
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| e.to_string())?;
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); graphs.len()];
        let mut last: Vec<Option<(Phases, u64)>> = vec![None; graphs.len()];
        for _ in 0..runs.max(1) {
            for (i, (_, g)) in graphs.iter().enumerate() {
                let t = Instant::now();
                let (s, phases) = pool.install(|| solve_with_options(g, &rules, &opts));
                times[i].push(t.elapsed());
                if i == 2 && !checked {
                    verify(g, &rules, &s).map_err(|v| format!("the scored solution: {v}"))?;
                    checked = true;
                }
                let c = s.counts();
                last[i] = Some((phases, c.win + c.loss + c.tie));
            }
        }
        let medians: Vec<Duration> = times.into_iter().map(median).collect();
        for (i, (name, _)) in graphs.iter().enumerate() {
            let (p, decided) = last[i].expect("one run at least");
            table.row(vec![
                threads.to_string(),
                name.to_string(),
                secs(medians[i]),
                secs(p.propagate),
                secs(p.ties),
                secs(p.best_moves),
                grouped(p.edges_scanned),
                grouped(decided),
                ratio(medians[2].as_secs_f64(), medians[i].as_secs_f64()),
            ]);
        }
    }
    println!("{}", table.render());
    Ok(())
}
