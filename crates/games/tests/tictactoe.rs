//! m,n,k-games against a plain negamax written here (no shared code), and known counts.

use retrograde_games::tictactoe::TicTacToe;
use retrograde_solve::{Outcome, Value};
use retrograde_tier::{explicit_graph, solve, SolveOptions, Solved};

/// Negamax over boards as cell arrays: +1 win, 0 tie, -1 loss for the player to move.
fn negamax(cells: &mut Vec<u8>, rows: usize, cols: usize, k: usize, to_move: u8) -> i32 {
    let other = 3 - to_move;
    let line = |cells: &[u8], who: u8| {
        for r in 0..rows as i64 {
            for c in 0..cols as i64 {
                for (dr, dc) in [(0i64, 1i64), (1, 0), (1, 1), (1, -1)] {
                    let ok = (0..k as i64).all(|i| {
                        let (rr, cc) = (r + dr * i, c + dc * i);
                        rr >= 0
                            && cc >= 0
                            && rr < rows as i64
                            && cc < cols as i64
                            && cells[(rr * cols as i64 + cc) as usize] == who
                    });
                    if ok {
                        return true;
                    }
                }
            }
        }
        false
    };
    if line(cells, other) {
        return -1;
    }
    if cells.iter().all(|&c| c != 0) {
        return 0;
    }
    let mut best = -2;
    for i in 0..cells.len() {
        if cells[i] == 0 {
            cells[i] = to_move;
            best = best.max(-negamax(cells, rows, cols, k, other));
            cells[i] = 0;
        }
    }
    best
}

#[test]
fn small_boards_match_negamax() {
    for (r, c, k) in [
        (3, 3, 3),
        (2, 2, 2),
        (2, 3, 2),
        (3, 3, 2),
        (2, 4, 3),
        (1, 4, 2),
        (3, 2, 3),
    ] {
        let game = TicTacToe::new(r, c, k).unwrap();
        let ours = solve(&game, &SolveOptions::default())
            .unwrap()
            .start_value()
            .unwrap()
            .unwrap()
            .outcome();
        let want = match negamax(
            &mut vec![0; (r * c) as usize],
            r as usize,
            c as usize,
            k as usize,
            1,
        ) {
            1 => Outcome::Win,
            -1 => Outcome::Loss,
            _ => Outcome::Tie,
        };
        assert_eq!(ours, want, "{r}x{c}, k = {k}");
    }
}

#[test]
fn known_results() {
    let s3 = TicTacToe::new(3, 3, 3).unwrap();
    let s = solve(&s3, &SolveOptions::default()).unwrap();
    assert_eq!(s.start_value().unwrap(), Some(Value::Tie(9)));
    assert_eq!(s.stats().positions, 5478);
    assert_eq!(s.stats().classes, 765);
    // 1x13 with 2 in a row is a first-player win in 3.
    let g = TicTacToe::new(1, 13, 2).unwrap();
    let s = solve(&g, &SolveOptions::default()).unwrap();
    assert_eq!(s.start_value().unwrap(), Some(Value::Win(3)));
}

#[test]
fn bad_shapes() {
    assert!(TicTacToe::new(0, 3, 3).is_err());
    assert!(TicTacToe::new(6, 6, 4).is_err());
    assert!(TicTacToe::new(3, 3, 4).is_err());
    assert!(TicTacToe::new(3, 3, 0).is_err());
}

/// Every position (reachable or not) against the graph engine on the explicit graph.
#[test]
fn every_position_agrees_with_the_graph_engine() {
    for (r, c, k) in [(3, 3, 3), (2, 3, 2), (3, 4, 3), (2, 4, 3)] {
        let game = TicTacToe::new(r, c, k).unwrap();
        let s = solve(&game, &SolveOptions::default()).unwrap();
        let e = explicit_graph(&game, 1_000_000).unwrap();
        let g = retrograde_solve::solve(&e.graph, &retrograde_solve::Rules::default());
        for (v, p) in e.positions.iter().enumerate() {
            assert_eq!(
                s.value(p).unwrap(),
                Some(g.value(v as u32)),
                "{r}x{c} k{k} {p:?}"
            );
        }
    }
}
