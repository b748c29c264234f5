//! The lean solver (no stored moves, predecessors by un-moves) against the explorer (stored
//! moves, the engine), position by position, on every game that supports both.

use retrograde_games::connect4::Connect4;
use retrograde_games::pebbles::Pebbles;
use retrograde_games::tictactoe::TicTacToe;
use retrograde_games::{solve_game, solve_game_lean, Game};
use retrograde_graph::Primitive;
use retrograde_solve::Rules;

fn agree<G: Game>(game: &G, rules: &Rules) {
    let lean = solve_game_lean(game, rules).unwrap();
    let full = solve_game(game, rules).unwrap();
    let (a, b) = (lean.stats(), full.stats());
    assert_eq!(
        (
            a.positions,
            a.moves,
            a.win,
            a.loss,
            a.tie,
            a.draw,
            &a.histogram
        ),
        (
            b.positions,
            b.moves,
            b.win,
            b.loss,
            b.tie,
            b.draw,
            &b.histogram
        )
    );
    assert_eq!(lean.start_value(), full.start_value());
    let size = game.index_size().unwrap();
    for i in 0..size {
        if let Some(p) = game.position(i) {
            assert_eq!(lean.value(&p), full.value(&p), "index {i}");
        }
    }
}

#[test]
fn tictactoe() {
    for (r, c, k) in [
        (3, 3, 3),
        (2, 2, 2),
        (3, 3, 2),
        (3, 4, 3),
        (4, 3, 3),
        (2, 5, 3),
    ] {
        agree(&TicTacToe::new(r, c, k).unwrap(), &Rules::default());
    }
    for no_move in [Primitive::Win, Primitive::Tie] {
        agree(&TicTacToe::new(3, 3, 3).unwrap(), &Rules { no_move });
    }
}

#[test]
fn pebbles() {
    for take in [vec![1, 2], vec![2, 3], vec![1, 3, 4], vec![5]] {
        for no_move in [Primitive::Loss, Primitive::Win, Primitive::Tie] {
            agree(&Pebbles::new(40, take.clone()).unwrap(), &Rules { no_move });
        }
    }
}

#[test]
fn connect4() {
    for (w, h) in [(3, 3), (4, 3), (3, 4), (2, 5), (5, 2)] {
        agree(&Connect4::new(w, h).unwrap(), &Rules::default());
    }
}

#[test]
fn symmetry_counts() {
    // 3x3 tic-tac-toe: 5478 positions, 765 up to the 8 symmetries of the square.
    let ttt = TicTacToe::new(3, 3, 3).unwrap();
    let s = solve_game_lean(&ttt, &Rules::default()).unwrap();
    assert_eq!(s.symmetry_reduced_positions(), 765);
    // Connect-4 4x3: the tier solver's mirror count agrees with the canonical form's.
    let g = Connect4::new(4, 3).unwrap();
    let tiers = g
        .solve(&retrograde_games::connect4::SolveOptions::default())
        .unwrap();
    let lean = solve_game_lean(&g, &Rules::default()).unwrap();
    assert_eq!(
        lean.symmetry_reduced_positions(),
        tiers.symmetry_reduced_positions()
    );
}

#[test]
fn unsupported_games_are_refused() {
    struct NoUnmoves;
    impl Game for NoUnmoves {
        type Position = u32;
        fn start(&self) -> u32 {
            0
        }
        fn moves(&self, _: &u32, _: &mut Vec<u32>) {}
        fn primitive(&self, _: &u32) -> Option<Primitive> {
            None
        }
        fn index_size(&self) -> Option<u64> {
            Some(1)
        }
        fn index(&self, _: &u32) -> u64 {
            0
        }
        fn position(&self, _: u64) -> Option<u32> {
            Some(0)
        }
    }
    let e = solve_game_lean(&NoUnmoves, &Rules::default())
        .err()
        .unwrap();
    assert!(e.to_string().contains("unmoves"), "{e}");
}

/// The tier solvers give the same values whatever the number of threads (the merge ranges
/// and chunks split differently).
#[test]
fn tier_solvers_do_not_depend_on_threads() {
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let g = Connect4::new(4, 4).unwrap();
    let solve = |n: usize| {
        pool(n).install(|| {
            g.solve(&retrograde_games::connect4::SolveOptions::default())
                .unwrap()
        })
    };
    let (one, three) = (solve(1), solve(3));
    assert_eq!(one.stats().histogram, three.stats().histogram);
    assert_eq!(one.tier_sizes(), three.tier_sizes());
    for key in 0..1u64 << g.key_bits() {
        if g.is_valid(key) {
            assert_eq!(one.value(key), three.value(key));
        }
    }
    let q = retrograde_games::quixo::Quixo::new(3).unwrap();
    let a = pool(1).install(|| q.solve().unwrap());
    let b = pool(3).install(|| q.solve().unwrap());
    for x in 0u32..512 {
        for o in 0u32..512 {
            if x & o == 0 {
                assert_eq!(a.value(x, o), b.value(x, o));
            }
        }
    }
    assert_eq!(a.stats().histogram, b.stats().histogram);
}
