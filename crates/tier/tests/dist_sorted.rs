//! The distributed sorted-keys engine (`solve_distributed` on a game with ordered moves) on
//! 1 to 4 ranks that are threads of this process, against the one-process engine: every
//! position's value, the totals, the tier sizes and the start's value must be the same, bit
//! for bit; shares written to a storage must resume to the same answer after some are lost
//! or damaged. Rounds are made tiny (`small_rounds_for_tests`), so that even these small
//! games take many rounds of every exchange.

mod random;

use proptest::prelude::*;
use random::*;
use retrograde_solve::exchange::{run_local, Exchange};
use retrograde_solve::Value;
use retrograde_tier::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

fn untimed(s: &Stats) -> Stats {
    Stats {
        explore: Default::default(),
        solve: Default::default(),
        ..s.clone()
    }
}

/// What a solve answered: every reachable position's value (in the explicit graph's order),
/// the totals, the tier sizes and the start's value.
#[derive(Debug, PartialEq)]
struct Answer {
    values: Vec<Option<Value>>,
    stats: Stats,
    sizes: Vec<u64>,
    start: Option<Value>,
}

fn answer<G: TierGame>(s: &TierSolution<'_, G>, positions: &[G::Position]) -> Answer {
    let values: Vec<Option<Value>> = positions.iter().map(|p| s.value(p).unwrap()).collect();
    assert!(
        values.iter().all(Option::is_some),
        "a position without a value"
    );
    Answer {
        values,
        stats: untimed(s.stats()),
        sizes: s.tier_sizes().to_vec(),
        start: s.start_value().unwrap(),
    }
}

/// One process: the values, totals and tier sizes (positions up to symmetry: what the
/// database keeps, whether or not one is written) from a solve that keeps them; a solve that
/// keeps the totals only gives the same sizes.
fn one_process<G: TierGame>(game: &G, positions: &[G::Position]) -> Answer {
    let s = solve(game, &SolveOptions::default()).unwrap();
    let a = answer(&s, positions);
    let mut lean = SolveOptions::default();
    lean.keep_values = false;
    assert_eq!(solve(game, &lean).unwrap().tier_sizes(), &a.sizes[..]);
    a
}

/// Solves on `k` thread ranks; rank 0's answer with every tier. Every rank's totals agree.
fn distributed<G: TierGame + Sync>(
    game: &G,
    k: usize,
    opts: &SolveOptions,
    positions: &[G::Position],
) -> (Answer, Traffic)
where
    G::Position: Sync,
{
    small_rounds_for_tests(true);
    let mut out = run_local(k, |ex| {
        let (s, traffic) = solve_distributed(game, opts, ex, true).unwrap();
        let a = (ex.rank() == 0).then(|| answer(&s, positions));
        (a, untimed(s.stats()), traffic)
    });
    for (r, o) in out.iter().enumerate() {
        assert_eq!(o.1, out[0].1, "rank {r}'s totals");
        assert_eq!(o.2, out[0].2, "rank {r}'s traffic");
    }
    let (a, _, traffic) = out.swap_remove(0);
    (a.expect("rank 0"), traffic)
}

fn check<G: TierGame + Sync>(game: &G)
where
    G::Position: Sync,
{
    let positions = explicit_graph(game, 200_000).unwrap().positions;
    let want = one_process(game, &positions);
    for k in 1..=4 {
        let (got, traffic) = distributed(game, k, &SolveOptions::default(), &positions);
        assert_eq!(got, want, "{k} ranks");
        assert_eq!(traffic.positions, want.stats.positions, "{k} ranks: solved");
        if k == 1 {
            assert_eq!(traffic.bytes, 0);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_sorted_games_are_solved_alike_on_1_to_4_ranks(seed: u64) {
        check(&Sorted::random(seed, false, false));
        check(&Sorted::random(seed, false, true));
        check(&Sorted::random(seed, true, true));
    }
}

/// Whether every tier was reused, and whether every was solved, by the events of a solve.
fn reuse_events(opts: &mut SolveOptions) -> Arc<Mutex<Vec<bool>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    opts.progress = Some(Arc::new(move |e: &Event<'_>| {
        if let Event::Tier { reused, .. } = e {
            s.lock().unwrap().push(*reused);
        }
    }));
    seen
}

#[test]
fn lost_and_damaged_shares_are_solved_again_on_resume() {
    for seed in 0..16 {
        let g = Sorted::random(seed, seed % 2 == 0, true);
        let positions = explicit_graph(&g, 200_000).unwrap().positions;
        let want = one_process(&g, &positions);
        for k in [2, 3] {
            let st = MemStorage::new();
            let mut opts = SolveOptions::default();
            opts.storage = Some(Arc::new(st.clone()));
            assert_eq!(distributed(&g, k, &opts, &positions).0, want);
            let mut names = st.names();
            names.sort();
            assert!(names
                .iter()
                .any(|n| n.contains(&format!(".keys.part-0-of-{k}"))));
            assert!(names
                .iter()
                .any(|n| n.contains(&format!(".values.part-0-of-{k}"))));

            // Everything intact: every tier is reused.
            opts.resume = true;
            let seen = reuse_events(&mut opts);
            assert_eq!(distributed(&g, k, &opts, &positions).0, want);
            assert!(seen.lock().unwrap().iter().all(|&r| r), "seed {seed}");

            // Rank 1 lost a share of keys; a share of values and one of keys are damaged.
            let keys: Vec<&String> = names.iter().filter(|n| n.contains(".keys.")).collect();
            let values: Vec<&String> = names.iter().filter(|n| n.contains(".values.")).collect();
            if let Some(f) = keys.iter().rev().find(|n| n.contains("part-1-")) {
                st.remove(f).unwrap();
            }
            for f in [keys[0], values[values.len() / 2]] {
                if let Some(mut b) = st.get(f) {
                    let at = b.len() / 2;
                    b[at] ^= 0x55;
                    st.put(f, b);
                }
            }
            let seen = reuse_events(&mut opts);
            assert_eq!(
                distributed(&g, k, &opts, &positions).0,
                want,
                "seed {seed}, {k} ranks"
            );
            assert!(seen.lock().unwrap().iter().any(|&r| !r), "seed {seed}");
        }
    }
}

#[test]
fn shares_of_another_number_of_ranks_are_not_reused() {
    let g = Sorted::random(7, false, false);
    let positions = explicit_graph(&g, 200_000).unwrap().positions;
    let want = one_process(&g, &positions);
    let st = MemStorage::new();
    let mut opts = SolveOptions::default();
    opts.storage = Some(Arc::new(st.clone()));
    distributed(&g, 2, &opts, &positions);
    opts.resume = true;
    let seen = reuse_events(&mut opts);
    assert_eq!(distributed(&g, 3, &opts, &positions).0, want);
    assert!(seen.lock().unwrap().iter().all(|&r| !r));
}

#[test]
fn files_that_serve_the_solve_only_are_removed() {
    let g = Sorted::random(3, false, true);
    let positions = explicit_graph(&g, 200_000).unwrap().positions;
    let want = one_process(&g, &positions);
    let st = MemStorage::new();
    let mut opts = SolveOptions::default();
    opts.storage = Some(Arc::new(st.clone()));
    opts.keep_values = false;
    assert_eq!(distributed(&g, 3, &opts, &positions).0, want);
    assert_eq!(st.names(), Vec::<String>::new());
}

#[test]
fn a_distributed_database_is_the_one_process_database() {
    // The keys and values files rank 0 puts together from the shares are those one process
    // writes, byte for byte, and the directory opens as a finished database with the same
    // values, tier sizes and start value.
    for seed in 0..12 {
        let g = Sorted::random(seed, seed % 2 == 0, seed % 3 != 0);
        let positions = explicit_graph(&g, 200_000).unwrap().positions;
        let one_st = MemStorage::new();
        let mut opts = SolveOptions::default();
        opts.storage = Some(Arc::new(one_st.clone()));
        let one = solve(&g, &opts).unwrap();
        let want = answer(&one, &positions);
        let files: Vec<String> = one_st
            .names()
            .into_iter()
            .filter(|n| n.ends_with(".values") || n.ends_with(".keys"))
            .collect();
        assert!(files.iter().any(|f| f.ends_with(".keys")));
        for k in 1..=4 {
            let st = MemStorage::new();
            let mut opts = SolveOptions::default();
            opts.storage = Some(Arc::new(st.clone()));
            distributed(&g, k, &opts, &positions);
            for f in &files {
                assert!(
                    st.get(f).map(|b| tierfile::content(&b))
                        == one_st.get(f).map(|b| tierfile::content(&b)),
                    "seed {seed}, {k} ranks: {f} differs from one process's"
                );
            }
            let opened = open(&g, Arc::new(st.clone()))
                .unwrap()
                .expect("a finished database");
            assert_eq!(answer(&opened, &positions), want, "seed {seed}, {k} ranks");
        }
    }
}

/// How a solve on `k` thread ranks (one process for `k = 0`) failed, if it did: whether with
/// `Error::Game`, and the message (a rank that fails ends the others, as MPI's abort does).
fn failure<G: TierGame + Sync>(game: &G, k: usize) -> Option<(bool, String)>
where
    G::Position: Sync,
{
    let opts = SolveOptions::default();
    if k == 0 {
        let e = solve(game, &opts).err()?;
        return Some((matches!(e, Error::Game(_)), e.to_string()));
    }
    small_rounds_for_tests(true);
    let seen = Mutex::new(None);
    let ran = catch_unwind(AssertUnwindSafe(|| {
        run_local(k, |ex| {
            if let Err(e) = solve_distributed(game, &opts, ex, true) {
                let what = (matches!(e, Error::Game(_)), e.to_string());
                seen.lock().unwrap().get_or_insert(what);
                panic!("rank {} failed", ex.rank());
            }
        })
    }));
    let seen = seen.into_inner().unwrap();
    match ran {
        Ok(_) => None,
        Err(_) => Some(seen.unwrap_or((false, "a rank panicked".into()))),
    }
}

#[test]
fn a_game_that_breaks_the_api_is_an_error_not_a_panic() {
    // Children of a slot that are not increasing in the key, and keys past their bits: an
    // Error::Game on one process and on 1 to 3 ranks (or, when the break does not show in a
    // game this small, a solve), never a panic.
    for broken in [Broken::Unordered, Broken::PastBits] {
        let mut errors = 0;
        for seed in 0..24 {
            let mut g = Sorted::random(seed, false, false);
            g.broken = broken;
            for k in 0..=3 {
                match failure(&g, k) {
                    Some((true, _)) => errors += 1,
                    Some((false, m)) => panic!("{broken:?}, seed {seed}, {k} ranks: {m}"),
                    None => {}
                }
            }
        }
        assert!(errors > 0, "{broken:?}");
    }
}
