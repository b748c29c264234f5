//! IOI 2001 "Score" against a plain minimax written here (recursion over the game tree,
//! which is finite because every cycle passes through position 1), plus the input checks
//! and state-tracking play. Nothing is shared with the library but the text format.

use proptest::prelude::*;
use retrograde_games::scores::{self, Instance, MoveError};
use retrograde_solve::Outcome;

/// An instance as the test sees it: 0-based, `adj[v][w]` for an arrow `v → w`.
#[derive(Clone, Debug)]
struct Plain {
    adj: Vec<Vec<bool>>,
    owner: Vec<u8>,
    value: Vec<u64>,
}

impl Plain {
    fn n(&self) -> usize {
        self.owner.len()
    }

    /// The IOI text.
    fn text(&self) -> String {
        let mut s = format!("{}\n", self.n());
        for row in &self.adj {
            let row: Vec<&str> = row.iter().map(|&b| if b { "1" } else { "0" }).collect();
            s += &row.join(" ");
            s.push('\n');
        }
        let owners: Vec<String> = self.owner.iter().map(u8::to_string).collect();
        let values: Vec<String> = self.value.iter().map(u64::to_string).collect();
        s + &owners.join(" ") + "\n" + &values.join(" ") + "\n"
    }

    /// Whether the rules accept it: every position has an arrow, and every cycle passes
    /// through position 0 (depth-first search for a cycle without arrows into 0).
    fn valid(&self) -> bool {
        let n = self.n();
        if self.adj.iter().any(|row| !row.contains(&true)) {
            return false;
        }
        // 0 = unseen, 1 = on the stack, 2 = done.
        fn dfs(adj: &[Vec<bool>], v: usize, mark: &mut [u8]) -> bool {
            mark[v] = 1;
            for w in 1..adj.len() {
                if adj[v][w] && (mark[w] == 1 || (mark[w] == 0 && !dfs(adj, w, mark))) {
                    return false;
                }
            }
            mark[v] = 2;
            true
        }
        let mut mark = vec![0u8; n];
        (0..n).all(|v| mark[v] != 0 || dfs(&self.adj, v, &mut mark))
    }

    /// Scores after the owner of `v` picks up its value.
    fn pick(&self, v: usize, mut sc: [u64; 3]) -> [u64; 3] {
        let o = self.owner[v] as usize;
        sc[o] = sc[o].max(self.value[v]);
        sc
    }

    fn final_winner(sc: [u64; 3]) -> u8 {
        assert_ne!(sc[1], sc[2], "a tie");
        if sc[1] > sc[2] {
            1
        } else {
            2
        }
    }

    /// The winner under optimal play with the token on `v` and scores `sc` (`sc[1]`,
    /// `sc[2]`), the owner of `v` to move.
    fn minimax(&self, v: usize, sc: [u64; 3]) -> u8 {
        let o = self.owner[v];
        let sc = self.pick(v, sc);
        for w in 0..self.n() {
            if !self.adj[v][w] {
                continue;
            }
            let r = if w == 0 {
                Self::final_winner(sc)
            } else {
                self.minimax(w, sc)
            };
            if r == o {
                return o;
            }
        }
        3 - o
    }
}

/// Plays from the start with `hero` following `best_move` and the other player trying every
/// legal move; the test keeps its own token and scores alongside the library's state. Every
/// game must end with `hero` winning. Returns the number of games played.
fn play_all(p: &Plain, inst: &Instance, sol: &scores::ScoresSolution<'_>, hero: u8) -> u64 {
    // (library state, token, scores) to explore; the stack keeps it iterative.
    let mut stack = vec![(inst.start(), 0usize, [0u64; 3], true)];
    let mut games = 0;
    while let Some((s, v, sc, first)) = stack.pop() {
        assert_eq!(s.position(), v + 1);
        assert_eq!((inst.score(&s, 1), inst.score(&s, 2)), (sc[1], sc[2]));
        if v == 0 && !first {
            assert!(inst.is_over(&s));
            assert_eq!(inst.to_move(&s), None);
            assert_eq!(inst.winner_at(&s), Some(hero), "{}", p.text());
            assert_eq!(Plain::final_winner(sc), hero);
            assert_eq!(sol.best_move(&s), None);
            assert!(inst.legal_moves(&s).is_empty());
            assert!(inst.apply(&s, 1).is_err());
            games += 1;
            continue;
        }
        assert!(!inst.is_over(&s));
        assert_eq!(inst.winner_at(&s), None);
        let mover = p.owner[v];
        assert_eq!(inst.to_move(&s), Some(mover));
        assert_eq!(sol.winner_from(&s), Some(p.minimax(v, sc)));
        let legal: Vec<usize> = (0..p.n()).filter(|&w| p.adj[v][w]).map(|w| w + 1).collect();
        assert_eq!(inst.legal_moves(&s), legal);
        let after = p.pick(v, sc);
        if mover == hero {
            let to = sol.best_move(&s).expect("a move");
            assert!(legal.contains(&to));
            stack.push((inst.apply(&s, to).unwrap(), to - 1, after, false));
        } else {
            for &to in &legal {
                stack.push((inst.apply(&s, to).unwrap(), to - 1, after, false));
            }
        }
    }
    games
}

/// Everything checked on one valid instance; returns the games played.
fn check(p: &Plain) -> u64 {
    let text = p.text();
    let inst = scores::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(inst.positions(), p.n());
    let sol = inst.solve().unwrap();
    let expected = p.minimax(0, [0; 3]);
    assert_eq!(sol.winner(), expected, "{text}");
    let start_wins = sol.start_value().outcome() == Outcome::Win;
    assert_eq!(start_wins, p.owner[0] == expected);
    assert_eq!(sol.winner_from(&inst.start()), Some(expected));
    assert!(sol.stats().positions >= 2);
    play_all(p, &inst, &sol, expected)
}

/// A random valid instance: a random order of positions 2..N, arrows only forward in that
/// order (position 1 first) plus arrows back to position 1, each position given one if it
/// has none; random owners; distinct values.
fn instances() -> impl Strategy<Value = Plain> {
    (1usize..=7)
        .prop_flat_map(|n| {
            (
                Just(n),
                Just((1..n).collect::<Vec<usize>>()).prop_shuffle(),
                prop::collection::vec(prop::bool::weighted(0.4), n * n),
                prop::collection::vec(prop::bool::weighted(0.35), n),
                prop::collection::vec(1u8..=2, n),
                Just((1..=30u64).collect::<Vec<u64>>()).prop_shuffle(),
            )
        })
        .prop_map(|(n, order, fwd, back, owner, values)| {
            let mut order_full = vec![0];
            order_full.extend(order);
            let mut adj = vec![vec![false; n]; n];
            for i in 0..n {
                for j in i + 1..n {
                    adj[order_full[i]][order_full[j]] = fwd[i * n + j];
                }
            }
            for v in 0..n {
                if back[v] || !adj[v].contains(&true) {
                    adj[v][0] = true;
                }
            }
            Plain {
                adj,
                owner,
                value: values[..n].to_vec(),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn winner_matches_minimax_and_best_moves_win(p in instances()) {
        prop_assert!(p.valid());
        prop_assert!(check(&p) >= 1);
    }
}

/// Every arrow matrix, owner assignment and value order for N ≤ 3: the parser accepts
/// exactly the valid ones, and the solver agrees with minimax on them.
#[test]
fn every_tiny_instance() {
    let mut valid = 0;
    for n in 1..=3usize {
        let perms: Vec<Vec<u64>> = match n {
            1 => vec![vec![7]],
            2 => vec![vec![7, 9], vec![9, 7]],
            _ => vec![
                vec![1, 2, 3],
                vec![1, 3, 2],
                vec![2, 1, 3],
                vec![2, 3, 1],
                vec![3, 1, 2],
                vec![3, 2, 1],
            ],
        };
        for bits in 0u32..1 << (n * n) {
            let adj: Vec<Vec<bool>> = (0..n)
                .map(|i| (0..n).map(|j| bits >> (i * n + j) & 1 == 1).collect())
                .collect();
            for owners in 0u32..1 << n {
                let owner: Vec<u8> = (0..n).map(|i| 1 + (owners >> i & 1) as u8).collect();
                for value in &perms {
                    let p = Plain {
                        adj: adj.clone(),
                        owner: owner.clone(),
                        value: value.clone(),
                    };
                    let parsed = scores::parse(p.text().as_bytes());
                    assert_eq!(parsed.is_ok(), p.valid(), "{}\n{parsed:?}", p.text());
                    if p.valid() {
                        check(&p);
                        valid += 1;
                    }
                }
            }
        }
    }
    assert!(valid > 100, "{valid}");
}

/// The seed's example, read off its picture. Four nodes; single boxes `| |` are player 1's,
/// double boxes `|| ||` player 2's; the numbers inside are the values; vertex 1 is the top
/// left node (value 1, player 1). Arrows, by their arrowheads:
/// - top left → bottom left (value 3, player 1), down the left edge (`->| 3 |`);
/// - bottom left → bottom right (value 4, player 2) (`| 3 |------->|| 4 ||`);
/// - bottom right → top right (value 2, player 2), up the right edge (`|| 2 ||<-`);
/// - top right → top left (`| 1 |<-------|| 2 ||`);
/// - the diagonal from the top corner of the value-3 box to `->` at the value-2 box: value 3
///   → value 2. (The other direction would close the cycle 2 → 3 → 4 → 2 without vertex 1,
///   which the task excludes, so this reading is forced.)
///
/// Only vertex 1 is numbered by the picture, so every numbering of the other three is tried.
/// Play: player 1 picks 1, must move to the value-3 node, picks 3, then moves to the value-2
/// node (player 2 picks 2 and must return: 3 > 2) rather than to the value-4 node (player 2
/// would pick 4). So player 1 wins.
#[test]
fn seed_example() {
    // Nodes by value: 1 top left, 2 top right, 3 bottom left, 4 bottom right.
    let arrows_by_value = [(1, 3), (3, 4), (4, 2), (2, 1), (3, 2)];
    let owner_by_value = [1u8, 2, 1, 2];
    for labels in [
        [1, 2, 3, 4],
        [1, 2, 4, 3],
        [1, 3, 2, 4],
        [1, 3, 4, 2],
        [1, 4, 2, 3],
        [1, 4, 3, 2],
    ] {
        // labels[k]: the vertex number of the node with value k+1.
        let mut p = Plain {
            adj: vec![vec![false; 4]; 4],
            owner: vec![0; 4],
            value: vec![0; 4],
        };
        for k in 0..4 {
            p.owner[labels[k] - 1] = owner_by_value[k];
            p.value[labels[k] - 1] = k as u64 + 1;
        }
        for (a, b) in arrows_by_value {
            p.adj[labels[a - 1] - 1][labels[b - 1] - 1] = true;
        }
        assert!(p.valid());
        assert_eq!(check(&p), 1);
        let inst = scores::parse(p.text().as_bytes()).unwrap();
        let sol = inst.solve().unwrap();
        assert_eq!(sol.winner(), 1);
        assert_eq!(sol.best_move(&inst.start()), Some(labels[2]));
        let at3 = inst.apply(&inst.start(), labels[2]).unwrap();
        assert_eq!(inst.score(&at3, 1), 1);
        assert_eq!(sol.best_move(&at3), Some(labels[1]));
        // Moving to the value-4 node instead loses.
        let at4 = inst.apply(&at3, labels[3]).unwrap();
        assert_eq!(sol.winner_from(&at4), Some(2));
    }
}

#[test]
fn self_loop_on_position_one_ends_at_once() {
    let inst = scores::parse(b"1\n1\n2\n5\n").unwrap();
    let sol = inst.solve().unwrap();
    assert_eq!(sol.winner(), 2);
    assert_eq!(inst.to_move(&inst.start()), Some(2));
    let end = inst.apply(&inst.start(), 1).unwrap();
    assert!(inst.is_over(&end));
    assert_eq!((inst.score(&end, 1), inst.score(&end, 2)), (0, 5));
    assert_eq!(inst.winner_at(&end), Some(2));
    assert_eq!(sol.stats().positions, 2);
}

#[test]
fn apply_checks_the_move() {
    // 1 → 2 → 1, 1 → 3 → 1.
    let inst = scores::parse(b"3\n0 1 1\n1 0 0\n1 0 0\n1 2 2\n10 20 5\n").unwrap();
    let sol = inst.solve().unwrap();
    let s = inst.start();
    assert_eq!(inst.legal_moves(&s), vec![2, 3]);
    let e = inst.apply(&s, 1).unwrap_err();
    assert_eq!(e, MoveError::NoArrow { from: 1, to: 1 });
    assert_eq!(
        e.to_string(),
        "there is no arrow from position 1 to position 1"
    );
    let e = inst.apply(&s, 4).unwrap_err();
    assert_eq!(
        e,
        MoveError::NoPosition {
            to: 4,
            positions: 3
        }
    );
    assert_eq!(
        e.to_string(),
        "there is no position 4 (positions run from 1 to 3)"
    );
    assert!(inst.apply(&s, 0).is_err());
    // Player 1 must avoid position 2 (player 2 would pick 20 > 10).
    assert_eq!(sol.winner(), 1);
    assert_eq!(sol.best_move(&s), Some(3));
    let s = inst.apply(&s, 3).unwrap();
    assert_eq!(s.pick(1), Some(1));
    assert_eq!(s.pick(2), None);
    assert_eq!(inst.to_move(&s), Some(2));
    assert_eq!(sol.best_move(&s), Some(1)); // its only move
    let s = inst.apply(&s, 1).unwrap();
    assert_eq!(inst.winner_at(&s), Some(1));
    assert_eq!(inst.apply(&s, 2).unwrap_err(), MoveError::Over);
    assert_eq!(MoveError::Over.to_string(), "the game is over");
    // A state from a bigger instance does not fit this one.
    let big = scores::parse(b"4\n0 0 0 1\n1 0 0 0\n1 0 0 0\n1 0 0 0\n1 1 1 1\n1 2 3 4\n").unwrap();
    let foreign = big.apply(&big.start(), 4).unwrap();
    assert_eq!(inst.to_move(&foreign), None);
    assert_eq!(sol.best_move(&foreign), None);
    assert_eq!(sol.value(&foreign), None);
    assert_eq!(inst.apply(&foreign, 1).unwrap_err(), MoveError::Foreign);
}

fn parse_err(text: &str) -> (Option<u64>, String) {
    let e = scores::parse(text.as_bytes()).unwrap_err();
    (e.line, e.message)
}

#[test]
fn parse_errors_name_the_line() {
    let ok = "3\n0 1 1\n1 0 0\n1 0 0\n1 2 2\n10 20 5\n";
    assert!(scores::parse(ok.as_bytes()).is_ok());
    // Tokens may be laid out freely.
    assert!(scores::parse(b"  3 0 1 1 1 0 0\r\n1 0 0 1\t2 2 10 20 5").is_ok());

    let cases: &[(&str, Option<u64>, &str)] = &[
        ("", None, "expected the number of positions N, found end of input"),
        ("\n\n", Some(2), "expected the number of positions N, found end of input"),
        ("0\n", Some(1), "expected the number of positions N (a positive integer), found \"0\""),
        ("x\n", Some(1), "expected the number of positions N (a positive integer), found \"x\""),
        ("-3\n", Some(1), "found \"-3\""),
        (
            "99999999999999999999\n",
            Some(1),
            "expected the number of positions N (a positive integer), found \"99999999999999999999\"",
        ),
        (
            "3\n0 1 1\n1 2 0\n",
            Some(3),
            "expected 0 or 1 for the arrow from position 2 to position 2, found \"2\"",
        ),
        (
            "3\n0 1 1\n1 0\n",
            Some(3),
            "expected 0 or 1 for the arrow from position 2 to position 3, found end of input",
        ),
        // A huge N with a short file is only "too short", not an allocation.
        (
            "4000000000\n0 1\n",
            Some(2),
            "expected 0 or 1 for the arrow from position 1 to position 3, found end of input",
        ),
        ("3\n0 1 1\n0 0 0\n1 0 0\n", Some(3), "position 2 has no arrow"),
        ("3\n0 1 1\n0\n0\n0\n1 0 0\n", Some(5), "position 2 has no arrow"),
        (
            "3\n0 1 0\n0 0 1\n0 1 0\n1 2 2\n1 2 3\n",
            Some(3),
            "position 2 is on a cycle that avoids position 1 (2 -> 3 -> 2), so the game could go on forever",
        ),
        (
            "3\n0 1 1\n1 0 0\n1 0 1\n1 2 2\n1 2 3\n",
            Some(4),
            "position 3 is on a cycle that avoids position 1 (3 -> 3)",
        ),
        (
            // 2 → 3 → 4 → 2, arrows from 1 and back to 1 too.
            "4\n0 1 0 0\n1 0 1 0\n0 0 0 1\n0 1 0 0\n1 2 1 2\n1 2 3 4\n",
            Some(3),
            "position 2 is on a cycle that avoids position 1 (2 -> 3 -> 4 -> 2)",
        ),
        (
            "3\n0 1 1\n1 0 0\n1 0 0\n1 3 2\n10 20 5\n",
            Some(5),
            "expected the owner of position 2 (1 or 2), found \"3\"",
        ),
        (
            "3\n0 1 1\n1 0 0\n1 0 0\n1 2\n",
            Some(5),
            "expected the owner of position 3 (1 or 2), found end of input",
        ),
        (
            "3\n0 1 1\n1 0 0\n1 0 0\n1 2 2\n10\n0\n5\n",
            Some(7),
            "expected the value of position 2 (a positive integer), found \"0\"",
        ),
        (
            "3\n0 1 1\n1 0 0\n1 0 0\n1 2 2\n10 2.5 5\n",
            Some(6),
            "expected the value of position 2 (a positive integer), found \"2.5\"",
        ),
        (
            "3\n0 1 1\n1 0 0\n1 0 0\n1 2 2\n10 20\n",
            Some(6),
            "expected the value of position 3 (a positive integer), found end of input",
        ),
        (
            "3\n0 1 1\n1 0 0\n1 0 0\n1 2 2\n10 20\n\n10\n",
            Some(8),
            "position 3 has the value 10, like position 1 (values must be distinct)",
        ),
        (
            "3\n0 1 1\n1 0 0\n1 0 0\n1 2 2\n10 20 5\n\n7\n",
            Some(8),
            "expected the end of the input after the 3 values, found \"7\"",
        ),
    ];
    for &(text, line, message) in cases {
        let (l, m) = parse_err(text);
        assert_eq!(l, line, "{text:?}: {m}");
        assert!(m.contains(message), "{text:?}: {m:?} lacks {message:?}");
    }
}

/// A larger instance (a random DAG on 24 positions plus arrows back to 1) solves quickly
/// and agrees with minimax; the tree is small enough because arrows are sparse.
#[test]
fn larger_instance_agrees_with_minimax() {
    use rand::rngs::SmallRng;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    let mut rng = SmallRng::seed_from_u64(2001);
    for _ in 0..5 {
        let n = 24;
        let mut values: Vec<u64> = (1..=1000).collect();
        values.shuffle(&mut rng);
        let mut p = Plain {
            adj: vec![vec![false; n]; n],
            owner: (0..n).map(|_| rng.gen_range(1..=2)).collect(),
            value: values[..n].to_vec(),
        };
        for v in 0..n {
            for w in v + 1..n.min(v + 4) {
                p.adj[v][w] = rng.gen_bool(0.5);
            }
            if rng.gen_bool(0.2) || !p.adj[v].contains(&true) {
                p.adj[v][0] = true;
            }
        }
        assert!(p.valid());
        let inst = scores::parse(p.text().as_bytes()).unwrap();
        let sol = inst.solve().unwrap();
        assert_eq!(sol.winner(), p.minimax(0, [0; 3]));
    }
}

/// Positions nothing points to change nothing: 165 of them (each with an arrow to 1) added
/// to small instances, which takes N past the dense index's limit (states then live in a
/// hash map).
#[test]
fn unreachable_padding_changes_nothing() {
    use rand::rngs::SmallRng;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    let mut rng = SmallRng::seed_from_u64(165);
    let (n, pad) = (6usize, 165usize);
    for _ in 0..20 {
        let mut values: Vec<u64> = (1..=1000).collect();
        values.shuffle(&mut rng);
        let total = n + pad;
        let mut p = Plain {
            adj: vec![vec![false; total]; total],
            owner: (0..total).map(|_| rng.gen_range(1..=2)).collect(),
            value: values[..total].to_vec(),
        };
        for v in 0..total {
            if v < n {
                for w in v + 1..n {
                    p.adj[v][w] = rng.gen_bool(0.5);
                }
            }
            if v >= n || rng.gen_bool(0.3) || !p.adj[v].contains(&true) {
                p.adj[v][0] = true;
            }
        }
        let inst = scores::parse(p.text().as_bytes()).unwrap();
        let sol = inst.solve().unwrap();
        assert_eq!(sol.winner(), p.minimax(0, [0; 3]));
        assert!(sol.stats().positions < 200);
        assert!(check(&p) >= 1);
    }
}
