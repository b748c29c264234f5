//! The solver against a naive oracle on thousands of random small graphs.
//!
//! The oracle is written here, separately from the solver: synchronous value iteration with a
//! depth bound. After round k it knows exactly the wins and losses of remoteness <= k (a win
//! needs a child known lost, a loss needs every child known won); a second iteration does the
//! same for ties among what is left; the rest are draws. It costs O(n * (n + m)) and shares no
//! code with the queue-based solver.

use proptest::prelude::*;
use retrograde_graph::{Graph, GraphBuilder, Primitive};
use retrograde_solve::{
    solve, solve_with_options, verify, Engine, Outcome, Rules, Solution, SolveOptions, Value,
};

#[derive(Clone, Debug)]
struct Spec {
    n: u32,
    edges: Vec<(u32, u32, bool)>,
    terminal: Vec<(u32, u8)>,
    owners: Option<Vec<bool>>,
    no_move: u8,
}

fn primitive(c: u8) -> Primitive {
    [Primitive::Win, Primitive::Loss, Primitive::Tie][c as usize % 3]
}

fn build(s: &Spec) -> Graph {
    let mut b = GraphBuilder::new();
    for &(u, v, again) in &s.edges {
        if again && s.owners.is_none() {
            b.add_edge_again(u, v);
        } else {
            b.add_edge(u, v);
        }
    }
    for &(v, p) in &s.terminal {
        b.set_primitive(v, primitive(p));
    }
    if let Some(o) = &s.owners {
        for (v, &x) in o.iter().enumerate() {
            b.set_owner(v as u32, x as u64).unwrap();
        }
    }
    b.ensure_vertices(s.n as u64).unwrap();
    b.build().unwrap()
}

/// Random graphs with cycles, self-loops, parallel edges, isolated vertices, terminal labels,
/// go-again edges or owners, and every no-move rule.
fn spec() -> impl Strategy<Value = Spec> {
    (1u32..14).prop_flat_map(|n| {
        let edge = (0..n, 0..n, prop::bool::weighted(0.25));
        (
            Just(n),
            prop::collection::vec(edge, 0..(3 * n as usize + 2)),
            prop::collection::vec((0..n, 0u8..3), 0..3),
            prop::option::weighted(0.3, prop::collection::vec(any::<bool>(), n as usize)),
            0u8..3,
        )
            .prop_map(|(n, edges, terminal, owners, no_move)| Spec {
                n,
                edges,
                terminal,
                owners,
                no_move,
            })
    })
}

/// Who keeps the move along u -> v, straight from the spec.
fn keeps(s: &Spec, u: u32, v: u32, again: bool) -> bool {
    match &s.owners {
        Some(o) => o[u as usize] == o[v as usize],
        None => again,
    }
}

fn oracle(s: &Spec) -> Vec<Value> {
    let n = s.n as usize;
    let mut label: Vec<Option<Primitive>> = vec![None; n];
    for &(v, p) in &s.terminal {
        label[v as usize] = Some(primitive(p)); // the last label given wins, as in the builder
    }
    let mut moves: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
    for &(u, v, again) in &s.edges {
        moves[u as usize].push((v as usize, keeps(s, u, v, again)));
    }
    for v in 0..n {
        if label[v].is_none() && moves[v].is_empty() {
            label[v] = Some(primitive(s.no_move));
        }
    }
    // Wins and losses, as (is_win, remoteness) for the player to move.
    let mut wl: Vec<Option<(bool, u32)>> = vec![None; n];
    for v in 0..n {
        match label[v] {
            Some(Primitive::Win) => wl[v] = Some((true, 0)),
            Some(Primitive::Loss) => wl[v] = Some((false, 0)),
            _ => {}
        }
    }
    for _round in 0..=n + 1 {
        let prev = wl.clone();
        for v in 0..n {
            if label[v].is_some() || prev[v].is_some() {
                continue;
            }
            // Child results seen by v's mover: (mover wins?, remoteness of child).
            let seen: Vec<Option<(bool, u32)>> = moves[v]
                .iter()
                .map(|&(c, keep)| prev[c].map(|(w, r)| (if keep { w } else { !w }, r)))
                .collect();
            let fastest_win = seen.iter().flatten().filter(|x| x.0).map(|x| x.1).min();
            if let Some(r) = fastest_win {
                wl[v] = Some((true, r + 1));
            } else if seen.iter().all(|x| matches!(x, Some((false, _)))) {
                let slowest = seen.iter().flatten().map(|x| x.1).max().unwrap();
                wl[v] = Some((false, slowest + 1));
            }
        }
        if round_is_stable(&prev, &wl) {
            break;
        }
    }
    // Ties among the rest.
    let mut tie: Vec<Option<u32>> = (0..n)
        .map(|v| (label[v] == Some(Primitive::Tie)).then_some(0))
        .collect();
    for _round in 0..=n + 1 {
        let prev = tie.clone();
        for v in 0..n {
            if label[v].is_some() || wl[v].is_some() || prev[v].is_some() {
                continue;
            }
            if let Some(r) = moves[v].iter().filter_map(|&(c, _)| prev[c]).min() {
                tie[v] = Some(r + 1);
            }
        }
        if prev == tie {
            break;
        }
    }
    (0..n)
        .map(|v| match (wl[v], tie[v]) {
            (Some((true, r)), _) => Value::Win(r),
            (Some((false, r)), _) => Value::Loss(r),
            (None, Some(r)) => Value::Tie(r),
            (None, None) => Value::Draw,
        })
        .collect()
}

fn solve_with(g: &Graph, rules: &Rules, engine: Engine) -> Solution {
    let opts = SolveOptions {
        engine,
        ..SolveOptions::default()
    };
    solve_with_options(g, rules, &opts).0
}

fn round_is_stable(a: &[Option<(bool, u32)>], b: &[Option<(bool, u32)>]) -> bool {
    a == b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Both engines (the parallel one on the default pool's threads).
    #[test]
    fn solver_matches_value_iteration(s in spec()) {
        let g = build(&s);
        let rules = Rules { no_move: primitive(s.no_move) };
        let want = oracle(&s);
        for engine in [Engine::Sequential, Engine::Parallel] {
            let sol = solve_with(&g, &rules, engine);
            for v in 0..s.n {
                prop_assert_eq!(sol.value(v), want[v as usize], "{:?}, vertex {}", engine, v);
            }
            // Best moves: present exactly at non-terminals, and they realize the value.
            prop_assert_eq!(verify(&g, &rules, &sol), Ok(()));
        }
    }

    #[test]
    fn verify_rejects_a_changed_value(s in spec(), pick in any::<prop::sample::Index>(), to in 0u8..4, r in 0u32..4) {
        let g = build(&s);
        let rules = Rules { no_move: primitive(s.no_move) };
        let sol = solve(&g, &rules);
        let v = pick.index(s.n as usize) as u32;
        let new = match to { 0 => Value::Win(r), 1 => Value::Loss(r), 2 => Value::Tie(r), _ => Value::Draw };
        prop_assume!(new != sol.value(v));
        let mut values: Vec<Value> = (0..s.n).map(|x| sol.value(x)).collect();
        let best: Vec<Option<u32>> = (0..s.n).map(|x| sol.best_move(x)).collect();
        values[v as usize] = new;
        let bad = retrograde_solve::Solution::from_values(&values, &best).unwrap();
        prop_assert!(verify(&g, &rules, &bad).is_err());
    }
}

#[test]
fn pebbles_seed_004() {
    // Seed 004: 10 pebbles, take 1 or 2; v is lost iff v % 3 == 0.
    let mut b = GraphBuilder::new();
    for v in 1..=10u32 {
        b.add_edge(v, v - 1);
        if v >= 2 {
            b.add_edge(v, v - 2);
        }
    }
    let g = b.build().unwrap();
    let s = solve(&g, &Rules::default());
    for v in 0..=10u32 {
        let want = if v % 3 == 0 {
            Outcome::Loss
        } else {
            Outcome::Win
        };
        assert_eq!(s.outcome(v), want, "pebbles {v}");
        // Remoteness: the loser stalls (takes 1), the winner takes v % 3.
        let r = s.remoteness(v).unwrap();
        assert_eq!(
            r,
            if v % 3 == 0 {
                2 * v / 3
            } else {
                2 * (v / 3) + 1
            }
        );
    }
    // Matin starts with 10 pebbles and wins (10 % 3 != 0): take 1.
    assert_eq!(s.best_move(10), Some(9));
}

#[test]
fn self_loop_is_never_a_loss_seed_004() {
    // "If a vertex has a self-loop, then this vertex will certainly not be L."
    let mut b = GraphBuilder::new();
    b.add_edge(0, 0);
    b.add_edge(0, 1);
    b.add_edge(2, 2);
    let g = b.build().unwrap();
    let s = solve(&g, &Rules::default());
    assert_eq!(s.value(0), Value::Win(1));
    assert_eq!(s.value(2), Value::Draw);
    assert_eq!(s.best_move(2), Some(2));
}

#[test]
fn misere_and_tie_rules() {
    // A path 0 -> 1 -> 2.
    let mut b = GraphBuilder::new();
    b.add_edge(0, 1);
    b.add_edge(1, 2);
    let g = b.build().unwrap();
    let s = solve(
        &g,
        &Rules {
            no_move: Primitive::Win,
        },
    );
    assert_eq!(
        [s.value(0), s.value(1), s.value(2)],
        [Value::Win(2), Value::Loss(1), Value::Win(0)]
    );
    let s = solve(
        &g,
        &Rules {
            no_move: Primitive::Tie,
        },
    );
    assert_eq!(
        [s.value(0), s.value(1), s.value(2)],
        [Value::Tie(2), Value::Tie(1), Value::Tie(0)]
    );
}

#[test]
fn a_loser_prefers_a_tie_to_a_draw_to_a_loss() {
    // 0 can go to a won position (1 -> 4, loss for 4's mover... see below), a draw cycle (2),
    // or a tie (3).
    let mut b = GraphBuilder::new();
    b.add_edge(0, 1); // 1 is a win for its mover (1 -> 4, 4 has no move)
    b.add_edge(1, 4);
    b.add_edge(0, 2); // 2 <-> 5 forever
    b.add_edge(2, 5);
    b.add_edge(5, 2);
    b.add_edge(0, 3);
    b.set_primitive(3, Primitive::Tie);
    let g = b.build().unwrap();
    let s = solve(&g, &Rules::default());
    assert_eq!(s.value(0), Value::Tie(1));
    assert_eq!(s.best_move(0), Some(3));
}

#[test]
fn a_path_of_ten_million_vertices() {
    // No recursion: the seed's DFS overflows its stack long before this.
    let n = 10_000_000u32;
    let mut b = GraphBuilder::with_capacity(n as usize);
    for v in 0..n - 1 {
        b.add_edge(v, v + 1);
    }
    let g = b.build().unwrap();
    // Both engines, side by side (debug builds are slow); the parallel one runs one level per
    // vertex here, 10 million levels, in a pool of two threads.
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let (sequential, parallel) = std::thread::scope(|scope| {
        let sequential = scope.spawn(|| solve_with(&g, &Rules::default(), Engine::Sequential));
        let parallel = two.install(|| solve_with(&g, &Rules::default(), Engine::Parallel));
        (sequential.join().unwrap(), parallel)
    });
    assert_eq!(sequential, parallel);
    let s = parallel;
    // The last vertex has no move: lost; then alternating back to 0 (n - 1 is odd).
    assert_eq!(s.value(n - 1), Value::Loss(0));
    assert_eq!(s.value(n - 2), Value::Win(1));
    assert_eq!(s.value(0), Value::Win(n - 1));
    assert_eq!(s.value(1), Value::Loss(n - 2));
    assert_eq!(s.counts().win, (n / 2) as u64);
}

#[test]
fn values_only_solutions_say_so_and_fail_verification() {
    let mut b = GraphBuilder::new();
    b.add_edge(0, 1);
    b.add_edge(1, 2);
    let g = b.build().unwrap();
    let rules = Rules::default();
    let (values, _) = solve_with_options(
        &g,
        &rules,
        &SolveOptions {
            best_moves: false,
            ..SolveOptions::default()
        },
    );
    let full = solve(&g, &rules);
    assert!(!values.has_best_moves() && full.has_best_moves());
    for v in 0..3 {
        assert_eq!(values.value(v), full.value(v));
        assert_eq!(values.best_move(v), None);
    }
    assert!(verify(&g, &rules, &values).is_err());
    assert_eq!(verify(&g, &rules, &full), Ok(()));
}

#[test]
fn a_win_longer_than_any_line_is_rejected_even_on_a_go_again_loop() {
    // Seen through a go-again move, a win in u32::MAX is a win in u32::MAX again (the
    // remoteness saturates), so a vertex whose only move is a go-again loop to itself would
    // justify such a claim locally: verify must refuse it.
    let mut b = GraphBuilder::new();
    b.add_edge_again(0, 0);
    let g = b.build().unwrap();
    let rules = Rules::default();
    assert_eq!(solve(&g, &rules).value(0), Value::Draw);
    let bad = retrograde_solve::Solution::from_values(&[Value::Win(u32::MAX)], &[Some(0)]).unwrap();
    let v = verify(&g, &rules, &bad).unwrap_err();
    assert!(v.message.contains("longer than any line of play"), "{v}");
}
