//! The verifier against an independent judge: every single-move change to a correct
//! strategy is rejected exactly when the changed strategy loses somewhere in its player's
//! region (judged by `common`'s one-player game, which shares nothing with the verifier);
//! every change of one vertex's winner, and every dropped move, is rejected.

mod common;

use common::{odd_wins, random_game};
use proptest::prelude::*;
use retrograde_parity::{solve, verify, Claim, ParityGame, Player};

/// The game seen from Odd's side: owners swapped and every priority one higher, so that
/// Odd's wins are Even's there.
fn swapped(g: &ParityGame) -> ParityGame {
    let n = g.vertex_count() as u32;
    let moves: Vec<(u32, u32)> = (0..n)
        .flat_map(|v| g.successors(v).iter().map(move |&w| (v, w)))
        .collect();
    ParityGame::new(
        g.priorities().iter().map(|&p| p + 1).collect(),
        (0..n).map(|v| g.owner(v).opponent()).collect(),
        &moves,
    )
    .unwrap()
}

/// Does `claim`'s strategy for `p` win every vertex of `p`'s claimed region? The opponent,
/// alone in the one-player game `p`'s moves leave, must not win any of them.
fn wins_its_region(g: &ParityGame, claim: &Claim, p: Player) -> bool {
    let n = g.vertex_count();
    let game = if p == Player::Even {
        g.clone()
    } else {
        swapped(g)
    };
    // p's moves in its region; elsewhere any move (the region is closed, so they never
    // matter there).
    let sigma: Vec<Option<u32>> = (0..n as u32)
        .map(|v| {
            if claim.winner[v as usize] == Some(p) {
                claim.strategy[v as usize].map(|s| s as u32)
            } else {
                g.successors(v).first().copied()
            }
        })
        .collect();
    let lost = odd_wins(&game, &sigma);
    (0..n).all(|v| claim.winner[v] != Some(p) || !lost[v])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn catches_every_losing_change(seed in any::<u64>(), n in 1usize..40, deg in 1usize..4, d in 1u32..7) {
        let g = random_game(seed, n, deg, d);
        let right = Claim::from(&solve(&g));
        prop_assert_eq!(verify(&g, &right), Ok(()));
        for v in 0..n as u32 {
            let w = right.winner[v as usize].unwrap();
            // Another winner: the solution is unique, so this is always wrong.
            let mut flipped = right.clone();
            flipped.winner[v as usize] = Some(w.opponent());
            prop_assert!(verify(&g, &flipped).is_err(), "vertex {} given to the other player", v);
            if g.owner(v) != w {
                continue;
            }
            let mut dropped = right.clone();
            dropped.strategy[v as usize] = None;
            prop_assert!(verify(&g, &dropped).is_err());
            for &t in g.successors(v) {
                if Some(t as u64) == right.strategy[v as usize] {
                    continue;
                }
                let mut changed = right.clone();
                changed.strategy[v as usize] = Some(t as u64);
                let still_wins = right.winner[t as usize] == Some(w)
                    && wins_its_region(&g, &changed, w);
                prop_assert_eq!(
                    verify(&g, &changed).is_ok(),
                    still_wins,
                    "vertex {} moving to {} instead of {:?}", v, t, right.strategy[v as usize]
                );
            }
        }
    }
}

/// The property above is not vacuous: over these games, changes that still win and changes
/// that lose (within the region, by a cycle) both occur, and the verifier tells them apart.
#[test]
fn both_kinds_of_change_occur() {
    let (mut kept, mut lost_by_cycle) = (0, 0);
    for seed in 0..300u64 {
        let g = random_game(seed, 12 + seed as usize % 20, 3, 5);
        let right = Claim::from(&solve(&g));
        for v in 0..g.vertex_count() as u32 {
            let w = right.winner[v as usize].unwrap();
            if g.owner(v) != w {
                continue;
            }
            for &t in g.successors(v) {
                if Some(t as u64) == right.strategy[v as usize]
                    || right.winner[t as usize] != Some(w)
                {
                    continue;
                }
                let mut changed = right.clone();
                changed.strategy[v as usize] = Some(t as u64);
                match verify(&g, &changed) {
                    Ok(()) => kept += 1,
                    Err(retrograde_parity::Wrong::Cycle { .. }) => lost_by_cycle += 1,
                    Err(e) => panic!("a move within the region is wrong only by a cycle: {e}"),
                }
            }
        }
    }
    assert!(
        kept > 100 && lost_by_cycle > 100,
        "kept {kept}, lost {lost_by_cycle}"
    );
}

/// The verifier checks in parallel: the same verdict, and the same first fault, in pools of
/// 1 to 4 threads, on right claims and on claims with a fault or several.
#[test]
fn same_verdict_for_every_thread_count() {
    use rand::{Rng, SeedableRng};
    let pools: Vec<rayon::ThreadPool> = (1..=4)
        .map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
    for seed in 0..200u64 {
        let g = random_game(seed, 200 + seed as usize, 3, 6);
        let mut claim = Claim::from(&solve(&g));
        for _ in 0..(seed % 4) {
            let v = rng.gen_range(0..g.vertex_count());
            if rng.gen_bool(0.5) {
                claim.winner[v] = claim.winner[v].map(Player::opponent);
            } else {
                claim.strategy[v] = Some(rng.gen_range(0..g.vertex_count() as u64));
            }
        }
        let verdicts: Vec<_> = pools
            .iter()
            .map(|p| p.install(|| verify(&g, &claim)))
            .collect();
        assert!(
            verdicts.iter().all(|v| *v == verdicts[0]),
            "seed {seed}: {verdicts:?}"
        );
    }
}
