//! Each reduction against the plain solve (Zielonka's algorithm, no preprocessing, the game
//! whole): priority compression and inflation, self-loops and the rest of preprocessing, one
//! component at a time; and the W/L/D games of the graph engine as parity games, against the
//! graph engine's own solve.

mod common;

use common::random_game;
use proptest::prelude::*;
use retrograde_graph::{GraphBuilder, Primitive};
use retrograde_parity::reduce::{compress, compressed_priorities, inflate, wld_outcomes};
use retrograde_parity::{solve_with, verify, Algorithm, Claim, Options, ParityGame, Player};
use retrograde_solve::{solve, Outcome, Rules};

fn plain(g: &ParityGame) -> Vec<Player> {
    let opts = Options {
        algorithm: Algorithm::Zielonka,
        preprocess: false,
        scc: false,
    };
    solve_with(g, &opts).0.winners().to_vec()
}

/// The winners with these options, checked by the verifier.
fn with(g: &ParityGame, preprocess: bool, scc: bool) -> Vec<Player> {
    let opts = Options {
        algorithm: Algorithm::Zielonka,
        preprocess,
        scc,
    };
    let s = solve_with(g, &opts).0;
    assert_eq!(verify(g, &Claim::from(&s)), Ok(()));
    s.winners().to_vec()
}

/// A game with many self-loops, winning and losing, some the only move.
fn loopy(seed: u64, n: usize) -> ParityGame {
    let g = random_game(seed, n, 3, 8);
    let mut moves: Vec<(u32, u32)> = (0..n as u32)
        .flat_map(|v| g.successors(v).iter().map(move |&w| (v, w)))
        .collect();
    for v in (0..n as u32).filter(|v| (v + seed as u32) % 3 == 0) {
        moves.push((v, v));
    }
    ParityGame::new(
        g.priorities().to_vec(),
        (0..n as u32).map(|v| g.owner(v)).collect(),
        &moves,
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn compression_keeps_the_winners(seed in any::<u64>(), n in 1usize..80, d in 1u32..30) {
        let g = random_game(seed, n, 3, d);
        let c = compress(&g);
        let (levels, count) = compressed_priorities(g.priorities());
        prop_assert_eq!(c.priorities(), &levels[..]);
        // Levels alternate in parity and every one is used.
        let mut used: Vec<u32> = levels.clone();
        used.sort_unstable();
        used.dedup();
        prop_assert_eq!(used.len() as u32 + used[0], count);
        prop_assert_eq!(plain(&c), plain(&g));
    }

    #[test]
    fn inflation_keeps_the_winners(seed in any::<u64>(), n in 1usize..80, d in 1u32..6) {
        let g = random_game(seed, n, 3, d);
        let i = inflate(&g);
        let mut p = i.priorities().to_vec();
        p.sort_unstable();
        p.dedup();
        prop_assert_eq!(p.len(), n, "every vertex a priority of its own");
        prop_assert_eq!(plain(&i), plain(&g));
    }

    #[test]
    fn self_loops_and_preprocessing_keep_the_winners(seed in any::<u64>(), n in 1usize..80) {
        let g = loopy(seed, n);
        prop_assert_eq!(with(&g, true, false), plain(&g));
    }

    #[test]
    fn components_keep_the_winners(seed in any::<u64>(), n in 1usize..120, deg in 1usize..3) {
        let g = random_game(seed, n, deg, 6);
        prop_assert_eq!(with(&g, false, true), plain(&g));
        prop_assert_eq!(with(&g, true, true), plain(&g));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// A W/L/D game of the graph engine as two parity games gives the engine's outcomes
    /// (a tie or a draw both as "neither wins"), for every turn rule and no-move rule.
    #[test]
    fn wld_games_as_parity_games(
        n in 1u32..30,
        edges in prop::collection::vec((0u32..30, 0u32..30, any::<bool>()), 0..80),
        labels in prop::collection::vec((0u32..30, 0u8..4), 0..6),
        owners in prop::collection::vec(any::<bool>(), 30),
        turn in 0u8..3,
        no_move in 0u8..3,
    ) {
        let mut b = GraphBuilder::new();
        for (u, v, again) in edges {
            if turn == 1 && again {
                b.add_edge_again(u % n, v % n);
            } else {
                b.add_edge(u % n, v % n);
            }
        }
        for (v, l) in labels {
            match l {
                0 => b.set_primitive(v % n, Primitive::Win),
                1 => b.set_primitive(v % n, Primitive::Loss),
                2 => b.set_primitive(v % n, Primitive::Tie),
                _ => b.set_score(v % n, if v % 2 == 0 { 3 } else { -2 }).unwrap(),
            }
        }
        if turn == 2 {
            for v in 0..n {
                b.set_owner(v, owners[v as usize] as u64).unwrap();
            }
        }
        b.ensure_vertices(n as u64).unwrap();
        let g = b.build().unwrap();
        let rules = Rules {
            no_move: [Primitive::Loss, Primitive::Win, Primitive::Tie][no_move as usize],
        };
        let solved = solve(&g, &rules);
        let engine: Vec<Outcome> = (0..n)
            .map(|v| match solved.outcome(v) {
                Outcome::Tie => Outcome::Draw,
                o => o,
            })
            .collect();
        prop_assert_eq!(wld_outcomes(&g, &rules), engine);
    }
}
