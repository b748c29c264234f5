//! The distributed engine (`solve_distributed`) on 1 to 4 ranks that are threads of this
//! process (`retrograde_solve::exchange::run_local`): every position's value, the totals
//! and the start's value must be those of one process, bit for bit; shares written to a
//! storage must resume to the same answer after some are lost or damaged.

mod random;

use proptest::prelude::*;
use random::*;
use retrograde_solve::exchange::{run_local, Exchange};
use retrograde_solve::Value;
use retrograde_tier::*;
use std::sync::Arc;

fn untimed(s: &Stats) -> Stats {
    Stats {
        explore: Default::default(),
        solve: Default::default(),
        ..s.clone()
    }
}

/// Every slot's value (holes and non-canonical slots as `None`), tier by tier.
fn all_values<G: DenseIndex>(game: &G, s: &TierSolution<'_, G>) -> Vec<Vec<Option<Value>>> {
    s.tiers()
        .iter()
        .zip(s.tier_sizes())
        .map(|(&t, &n)| {
            (0..n)
                .map(|i| game.unrank(t, i).and_then(|p| s.value(&p).unwrap()))
                .collect()
        })
        .collect()
}

/// Solves on `k` thread ranks; rank 0's answer with every tier.
fn distributed<G: DenseIndex + Sync>(
    game: &G,
    k: usize,
    opts: &SolveOptions,
) -> (Vec<Vec<Option<Value>>>, Stats, Option<Value>, Traffic) {
    let mut out = run_local(k, |ex| {
        let (s, traffic) = solve_distributed(game, opts, ex, true).unwrap();
        // The other ranks hold the totals only.
        let values = (ex.rank() == 0).then(|| all_values(game, &s));
        let start = (ex.rank() == 0).then(|| s.start_value().unwrap()).flatten();
        (values, untimed(s.stats()), start, traffic)
    });
    let stats = out[0].1.clone();
    for (r, o) in out.iter().enumerate() {
        assert_eq!(o.1, stats, "rank {r}'s totals");
    }
    let (values, stats, start, traffic) = out.swap_remove(0);
    (values.expect("rank 0"), stats, start, traffic)
}

fn check<G: DenseIndex + Sync>(game: &G) {
    let one = solve(game, &SolveOptions::default()).unwrap();
    let want = all_values(game, &one);
    for k in 1..=4 {
        let (values, stats, start, _) = distributed(game, k, &SolveOptions::default());
        assert_eq!(values, want, "{k} ranks: values");
        assert_eq!(stats, untimed(one.stats()), "{k} ranks: totals");
        assert_eq!(start, one.start_value().unwrap(), "{k} ranks: start");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_dense_games_are_solved_alike_on_1_to_4_ranks(seed: u64) {
        // Init rounds of three places: a small tier takes several on every rank.
        small_rounds_for_tests(true);
        check(&Plain(Rules::random(seed, false, false)));
        check(&PlainUnmoves(Rules::random(seed, false, false)));
        check(&AgainUnmoves(Rules::random(seed, false, true)));
        check(&Again(Rules::random(seed, false, true)));
        check(&Sym(Rules::random(seed, true, false)));
        check(&SymEdges(Rules::random(seed, true, false)));
        check(&SymAgain(Rules::random(seed, true, true)));
    }
}

#[test]
fn lost_and_damaged_shares_are_solved_again_on_resume() {
    for seed in 0..12 {
        let g = SymAgain(Rules::random(seed, true, true));
        let one = solve(&g, &SolveOptions::default()).unwrap();
        let want = all_values(&g, &one);
        for k in [2, 3] {
            let st = MemStorage::new();
            let mut opts = SolveOptions::default();
            opts.storage = Some(Arc::new(st.clone()));
            distributed(&g, k, &opts);
            let mut names = st.names();
            names.sort();
            // Rank 1 lost its last share; another share is damaged.
            if let Some(f) = names.iter().rev().find(|n| n.contains("part-1-")) {
                st.remove(f).unwrap();
            }
            if let Some(f) = names.iter().find(|n| n.contains("part-0-")) {
                let mut b = st.get(f).unwrap();
                let at = b.len() - 1;
                b[at] ^= 0x55;
                st.put(f, b);
            }
            opts.resume = true;
            let (values, stats, _, _) = distributed(&g, k, &opts);
            assert_eq!(values, want, "seed {seed}, {k} ranks");
            assert_eq!(stats, untimed(one.stats()));
        }
    }
}

#[test]
fn a_distributed_database_is_the_one_process_database() {
    // The values files rank 0 puts together are those one process writes, byte for byte,
    // and the directory opens as a finished database with the same values.
    for seed in 0..8 {
        let g = SymAgain(Rules::random(seed, true, true));
        let one_st = MemStorage::new();
        let mut opts = SolveOptions::default();
        opts.storage = Some(Arc::new(one_st.clone()));
        let one = solve(&g, &opts).unwrap();
        let want = all_values(&g, &one);
        let files: Vec<String> = one_st
            .names()
            .into_iter()
            .filter(|n| n.ends_with(".values"))
            .collect();
        assert!(!files.is_empty());
        for k in 1..=4 {
            let st = MemStorage::new();
            let mut opts = SolveOptions::default();
            opts.storage = Some(Arc::new(st.clone()));
            distributed(&g, k, &opts);
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
            assert_eq!(all_values(&g, &opened), want, "seed {seed}, {k} ranks");
            assert_eq!(
                opened.start_value().unwrap(),
                one.start_value().unwrap(),
                "seed {seed}, {k} ranks"
            );
        }
    }
}

/// The values of tier `t` only (holes and non-canonical slots as `None`).
fn tier_values<G: DenseIndex>(game: &G, s: &TierSolution<'_, G>, t: G::Tier) -> Vec<Option<Value>> {
    (0..game.tier_size(t))
        .map(|i| game.unrank(t, i).and_then(|p| s.value(&p).unwrap()))
        .collect()
}

#[test]
fn without_whole_rank_0_answers_for_the_root_tiers_or_from_the_files() {
    // A game without a start (a chess ending) is asked about its root tiers: rank 0 holds
    // them when values are kept. With a storage, rank 0 answers every tier from the files it
    // put together, as one process answers from its own.
    let mut startless = 0;
    for seed in 0..40 {
        let mut rules = Rules::random(seed, true, true);
        rules.start = None;
        let g = SymAgain(rules);
        let one_st = MemStorage::new();
        let mut one_opts = SolveOptions::default();
        one_opts.storage = Some(Arc::new(one_st.clone()));
        let one = solve(&g, &one_opts).unwrap();
        let want = all_values(&g, &one);
        let root = *g.root_tiers().first().unwrap();
        startless += 1;
        for k in 2..=4 {
            for keep in [true, false] {
                let mut opts = SolveOptions::default();
                opts.keep_values = keep;
                let got = run_local(k, |ex| {
                    let (s, _) = solve_distributed(&g, &opts, ex, false).unwrap();
                    let roots = (ex.rank() == 0 && keep).then(|| tier_values(&g, &s, root));
                    (roots, untimed(s.stats()))
                });
                if keep {
                    let pos = one.tiers().iter().position(|&t| t == root).unwrap();
                    assert_eq!(
                        got[0].0.as_ref(),
                        Some(&want[pos]),
                        "seed {seed}, {k} ranks"
                    );
                }
                for (r, (_, stats)) in got.iter().enumerate() {
                    assert_eq!(
                        *stats,
                        untimed(one.stats()),
                        "seed {seed}, {k} ranks, rank {r}"
                    );
                }
            }
            let st = MemStorage::new();
            let mut opts = SolveOptions::default();
            opts.storage = Some(Arc::new(st.clone()));
            let got = run_local(k, |ex| {
                let (s, _) = solve_distributed(&g, &opts, ex, false).unwrap();
                let bytes: Vec<Option<u64>> =
                    s.tiers().iter().map(|&t| s.stored_bytes(t)).collect();
                (ex.rank() == 0).then(|| (all_values(&g, &s), bytes))
            });
            let (values, bytes) = got[0].clone().expect("rank 0");
            assert_eq!(values, want, "seed {seed}, {k} ranks, from the files");
            let one_bytes: Vec<Option<u64>> =
                one.tiers().iter().map(|&t| one.stored_bytes(t)).collect();
            assert!(bytes.iter().all(Option::is_some), "seed {seed}: {bytes:?}");
            assert_eq!(bytes, one_bytes, "seed {seed}, {k} ranks: bytes on disk");
        }
    }
    assert!(startless > 0);
}

/// One tier of `SIZE` slots in which only the first 64 have moves inside it (a cycle, with
/// an exit to a lost slot from every seventh); every other slot is a tie, game over. Split
/// into rounds of a few thousand places, every rank's last rounds have no move inside.
#[derive(Debug)]
struct CycleFirst;

impl CycleFirst {
    const SIZE: u64 = 6 * 4096 + 37;
}

impl TierGame for CycleFirst {
    type Position = u32;
    type Tier = u8;
    type Layout = Dense;
    type Parents = ReverseEdges;
    type Symmetry = NoSymmetry;
    type Turn = Alternate;
    type Score = Unscored;

    fn name(&self) -> String {
        "cycle-first".into()
    }
    fn start(&self) -> Option<u32> {
        Some(0)
    }
    fn tier(&self, _: &u32) -> u8 {
        0
    }
    fn child_tiers(&self, _: u8, _: &mut Vec<u8>) {}
    fn tier_name(&self, _: u8) -> String {
        "all".into()
    }
    fn primitive(&self, &p: &u32) -> Option<retrograde_graph::Primitive> {
        match p {
            0..64 => None,
            64..128 => Some(retrograde_graph::Primitive::Loss),
            _ => Some(retrograde_graph::Primitive::Tie),
        }
    }
    fn moves(&self, &p: &u32, out: &mut Vec<u32>) {
        if p < 64 {
            out.push((p + 1) % 64);
            if p % 7 == 0 {
                out.push(64 + p);
            }
        }
    }
    fn no_move(&self) -> retrograde_graph::Primitive {
        retrograde_graph::Primitive::Loss
    }
}

impl DenseIndex for CycleFirst {
    fn tier_size(&self, _: u8) -> u64 {
        Self::SIZE
    }
    fn rank(&self, &p: &u32) -> u64 {
        u64::from(p)
    }
    fn unrank(&self, _: u8, i: u64) -> Option<u32> {
        Some(i as u32)
    }
}

#[test]
fn moves_inside_a_tier_in_the_first_round_only_are_solved_on_every_rank() {
    // Rounds of one task of places: every rank runs several, and only the first holds the
    // cycle. The levels must run all the same (they did not when only the last round's
    // answer said whether the tier has moves inside: every cycle slot was a draw).
    small_rounds_for_tests(true);
    let g = CycleFirst;
    let one = solve(&g, &SolveOptions::default()).unwrap();
    let want = all_values(&g, &one);
    assert!(
        want[0][..64]
            .iter()
            .any(|v| matches!(v, Some(Value::Win(_)))),
        "the cycle holds wins"
    );
    for k in 1..=4 {
        let (values, stats, start, _) = distributed(&g, k, &SolveOptions::default());
        assert_eq!(values, want, "{k} ranks");
        assert_eq!(stats, untimed(one.stats()), "{k} ranks: totals");
        assert_eq!(start, one.start_value().unwrap(), "{k} ranks: start");
    }
}
