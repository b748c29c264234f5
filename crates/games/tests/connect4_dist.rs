//! Connect-4 solved across 1 to 4 ranks that are threads of this process (the distributed
//! sorted-keys engine, with the mirror symmetry counted): every position's value, the totals
//! and the tier sizes (positions up to symmetry) are one process's, bit for bit.

use retrograde_games::connect4::Connect4;
use retrograde_solve::exchange::{run_local, Exchange};
use retrograde_solve::Value;
use retrograde_tier::{
    explicit_graph, small_rounds_for_tests, solve, solve_distributed, tierfile, SolveOptions,
    Solved, Stats, TierGame, TierSolution,
};

type Board = <Connect4 as TierGame>::Position;

fn untimed(s: &Stats) -> Stats {
    Stats {
        explore: Default::default(),
        solve: Default::default(),
        ..s.clone()
    }
}

fn answer(
    s: &TierSolution<'_, Connect4>,
    positions: &[Board],
) -> (Vec<Option<Value>>, Stats, Vec<u64>) {
    (
        positions.iter().map(|p| s.value(p).unwrap()).collect(),
        untimed(s.stats()),
        s.tier_sizes().to_vec(),
    )
}

fn check(w: u32, h: u32, small_rounds: bool) {
    let g = Connect4::new(w, h).unwrap();
    let positions = explicit_graph(&g, 2_000_000).unwrap().positions;
    let one = solve(&g, &SolveOptions::default()).unwrap();
    let (values, stats, sizes) = answer(&one, &positions);
    assert!(values.iter().all(Option::is_some));
    // Positions up to symmetry, whether the values are kept or not.
    assert_eq!(sizes.iter().sum::<u64>(), stats.classes);
    let mut lean = SolveOptions::default();
    lean.keep_values = false;
    assert_eq!(solve(&g, &lean).unwrap().tier_sizes(), &sizes[..]);
    small_rounds_for_tests(small_rounds);
    for k in 1..=4 {
        let got = run_local(k, |ex| {
            let (s, _) = solve_distributed(&g, &SolveOptions::default(), ex, true).unwrap();
            (ex.rank() == 0).then(|| answer(&s, &positions))
        });
        let (v, s, z) = got.into_iter().next().flatten().expect("rank 0");
        assert_eq!(s, stats, "{w}x{h}, {k} ranks: totals");
        assert_eq!(z, sizes, "{w}x{h}, {k} ranks: tier sizes");
        assert!(v == values, "{w}x{h}, {k} ranks: values");
    }
}

#[test]
fn small_boards_are_solved_alike_on_1_to_4_ranks() {
    // Tiny rounds: many exchanges per tier.
    for (w, h) in [(1, 1), (2, 3), (3, 3), (4, 3), (3, 4)] {
        check(w, h, true);
    }
}

#[test]
fn four_by_four_is_solved_alike_on_1_to_4_ranks() {
    check(4, 4, false);
}

#[test]
fn a_distributed_database_is_the_one_process_database() {
    // Rank 0 puts the shares together as one process writes its database: the keys of the
    // canonical positions (the mirror symmetry drops the others) and their values, byte for
    // byte; the directory opens as a finished database answering alike.
    use retrograde_tier::{open, MemStorage};
    use std::sync::Arc;
    small_rounds_for_tests(true);
    for (w, h) in [(3, 3), (4, 3), (3, 4)] {
        let g = Connect4::new(w, h).unwrap();
        let positions = explicit_graph(&g, 2_000_000).unwrap().positions;
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
            run_local(k, |ex| {
                solve_distributed(&g, &opts, ex, false).unwrap();
            });
            for f in &files {
                assert!(
                    st.get(f).map(|b| tierfile::content(&b))
                        == one_st.get(f).map(|b| tierfile::content(&b)),
                    "{w}x{h}, {k} ranks: {f} differs from one process's"
                );
            }
            let opened = open(&g, Arc::new(st.clone()))
                .unwrap()
                .expect("a finished database");
            assert!(answer(&opened, &positions) == want, "{w}x{h}, {k} ranks");
        }
    }
}
