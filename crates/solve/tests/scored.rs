//! Scored graphs (issue 24): the solver against a naive oracle on random small graphs with
//! cycles, go-again moves, arenas, ties, draws and scores up to ±(2^63 - 1); and with scores
//! +1, -1 and 0 only, the unscored solver's answers bit for bit.
//!
//! The oracle shares no code with the solver (only the [`Scored`] type, to compare). It
//! computes in two stages, as the issue asks (iterating on (score, remoteness) pairs never
//! settles where a player can delay a tie against the horizon):
//! 1. **Scores**, by min-max value iteration from 0: `S(u) = max over moves of ±S(child)`
//!    (the child's score, negated unless the move keeps the turn), terminals fixed. After `t`
//!    rounds `S` is the value of the game cut after `t` plies with an unfinished game worth
//!    0; both players have positional optimal strategies in these games (Washburn's
//!    deterministic graphical games), and a positional strategy that forces a score other
//!    than 0 ends the game within `n` plies (else the other player could make it cycle, worth
//!    0), so after `n` rounds `S` is exact and stays. The test runs `2n + 2` rounds and checks
//!    that the last changed nothing.
//! 2. **Remoteness** within each score: a move *realises* `S(u)` when the child seen through
//!    it is worth `S(u)`. From "unknown" everywhere but terminals (0), each round sets
//!    `R(u) = 1 + min` over realising moves to known children when `S(u) >= 0` (a winner and
//!    both players at a tie hurry), and `1 + max` once every realising move is known when
//!    `S(u) < 0` (a loser stalls). After round `t` exactly the remoteness up to `t` is known.
//!    A vertex of score 0 left unknown is a draw.
//!
//! Best moves: the smallest successor whose value through the move is the vertex's.

use proptest::prelude::*;
use retrograde_graph::{Graph, GraphBuilder, Primitive};
use retrograde_solve::{
    solve_with_options, verify, Engine, Outcome, Rules, Scored, Solution, SolveOptions,
};

#[derive(Clone, Debug)]
struct Spec {
    n: u32,
    edges: Vec<(u32, u32, bool)>,
    terminal: Vec<(u32, u8)>,
    scores: Vec<(u32, i64)>,
    owners: Option<Vec<bool>>,
    no_move: u8,
}

fn primitive(c: u8) -> Primitive {
    [Primitive::Win, Primitive::Loss, Primitive::Tie][c as usize % 3]
}

/// The score of a label: +1, -1 or 0.
fn label_score(p: Primitive) -> i64 {
    match p {
        Primitive::Win => 1,
        Primitive::Loss => -1,
        Primitive::Tie => 0,
    }
}

/// The graph of `s`; with `as_labels`, its scores (+1, -1 or 0) as terminal labels instead.
fn build(s: &Spec, as_labels: bool) -> Graph {
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
    for &(v, x) in &s.scores {
        if as_labels {
            let p = [Primitive::Loss, Primitive::Tie, Primitive::Win][(x + 1) as usize];
            b.set_primitive(v, p);
        } else {
            b.set_score(v, x).unwrap();
        }
    }
    if let Some(o) = &s.owners {
        for (v, &x) in o.iter().enumerate() {
            b.set_owner(v as u32, x as u64).unwrap();
        }
    }
    b.ensure_vertices(s.n as u64).unwrap();
    b.build().unwrap()
}

/// Scores: small ones (many equal, so levels hold several terminals), the extremes, any.
fn score() -> impl Strategy<Value = i64> + Clone {
    prop_oneof![
        6 => -3i64..=3,
        1 => Just(i64::MAX),
        1 => Just(-i64::MAX),
        2 => -i64::MAX..=i64::MAX,
    ]
}

/// Random graphs with cycles, self-loops, parallel edges, isolated vertices, terminal labels,
/// at least one score (on vertices without a label), go-again edges or owners, and every
/// no-move rule. `scores` draws the scores.
fn spec(scores: impl Strategy<Value = i64> + Clone + 'static) -> impl Strategy<Value = Spec> {
    (1u32..12).prop_flat_map(move |n| {
        let edge = (0..n, 0..n, prop::bool::weighted(0.25));
        (
            Just(n),
            prop::collection::vec(edge, 0..(3 * n as usize + 2)),
            prop::collection::vec((0..n, 0u8..3), 0..3),
            prop::collection::vec((0..n, scores.clone()), 1..5),
            prop::option::weighted(0.3, prop::collection::vec(any::<bool>(), n as usize)),
            0u8..3,
        )
            .prop_map(|(n, edges, terminal, mut scores, owners, no_move)| {
                // A vertex has a label or a score, and one score (the first given).
                scores.retain(|&(v, _)| terminal.iter().all(|&(w, _)| w != v));
                let mut seen = std::collections::HashSet::new();
                scores.retain(|&(v, _)| seen.insert(v));
                Spec {
                    n,
                    edges,
                    terminal,
                    scores,
                    owners,
                    no_move,
                }
            })
            .prop_filter("scored", |s| !s.scores.is_empty())
    })
}

/// Who keeps the move along u -> v, straight from the spec.
fn keeps(s: &Spec, u: u32, v: u32, again: bool) -> bool {
    match &s.owners {
        Some(o) => o[u as usize] == o[v as usize],
        None => again,
    }
}

/// The oracle's values and best moves (module docs).
fn oracle(s: &Spec) -> (Vec<Scored>, Vec<Option<u32>>) {
    let n = s.n as usize;
    let mut fixed: Vec<Option<i64>> = vec![None; n];
    for &(v, p) in &s.terminal {
        fixed[v as usize] = Some(label_score(primitive(p)));
    }
    for &(v, x) in &s.scores {
        fixed[v as usize] = Some(x);
    }
    let mut moves: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
    for &(u, v, again) in &s.edges {
        moves[u as usize].push((v as usize, keeps(s, u, v, again)));
    }
    for v in 0..n {
        if fixed[v].is_none() && moves[v].is_empty() {
            fixed[v] = Some(label_score(primitive(s.no_move)));
        }
    }
    let through = |x: i64, keep: bool| if keep { x } else { -x };

    // 1. Scores.
    let mut score: Vec<i64> = (0..n).map(|v| fixed[v].unwrap_or(0)).collect();
    let mut changed = false;
    for _ in 0..2 * n + 2 {
        let prev = score.clone();
        for u in 0..n {
            if fixed[u].is_none() {
                score[u] = moves[u]
                    .iter()
                    .map(|&(c, k)| through(prev[c], k))
                    .max()
                    .expect("a vertex with no move is terminal");
            }
        }
        changed = prev != score;
    }
    assert!(!changed, "value iteration did not settle: {score:?}");

    // 2. Remoteness within each score.
    let mut rem: Vec<Option<u32>> = (0..n).map(|v| fixed[v].map(|_| 0)).collect();
    for _ in 0..2 * n + 2 {
        let prev = rem.clone();
        for u in 0..n {
            if fixed[u].is_some() {
                continue;
            }
            let realising = moves[u]
                .iter()
                .filter(|&&(c, k)| through(score[c], k) == score[u])
                .map(|&(c, _)| prev[c]);
            rem[u] = if score[u] >= 0 {
                realising.flatten().min().map(|r| r + 1)
            } else {
                realising
                    .collect::<Option<Vec<u32>>>()
                    .and_then(|rs| rs.into_iter().max())
                    .map(|r| r + 1)
            };
        }
    }
    let values: Vec<Scored> = (0..n).map(|v| Scored::new(score[v], rem[v])).collect();
    for v in &values {
        assert!(v.remoteness.is_some() || v.score == 0, "{v:?}");
    }
    let best = (0..n)
        .map(|u| {
            if fixed[u].is_some() {
                return None;
            }
            let seen = |c: usize, k: bool| {
                let child = values[c];
                Scored::new(through(child.score, k), child.remoteness.map(|r| r + 1))
            };
            moves[u]
                .iter()
                .filter(|&&(c, k)| seen(c, k) == values[u])
                .map(|&(c, _)| c as u32)
                .min()
        })
        .collect();
    (values, best)
}

fn solve_with(g: &Graph, rules: &Rules, engine: Engine) -> Solution {
    let opts = SolveOptions {
        engine,
        ..SolveOptions::default()
    };
    solve_with_options(g, rules, &opts).0
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Both engines (the parallel one on the default pool's threads) give the oracle's
    /// scores, remoteness and best moves, and the check accepts them.
    #[test]
    fn solver_matches_value_iteration_on_scored_graphs(s in spec(score())) {
        let g = build(&s, false);
        prop_assert!(g.is_scored());
        let rules = Rules { no_move: primitive(s.no_move) };
        let (want, best) = oracle(&s);
        for engine in [Engine::Sequential, Engine::Parallel] {
            let sol = solve_with(&g, &rules, engine);
            prop_assert!(sol.is_scored());
            for v in 0..s.n {
                let got = sol.scored(v);
                prop_assert_eq!(got, want[v as usize], "{:?}, vertex {}", engine, v);
                prop_assert_eq!(sol.outcome(v), got.outcome());
                prop_assert_eq!(sol.best_move(v), best[v as usize], "{:?}, vertex {}", engine, v);
            }
            prop_assert_eq!(verify(&g, &rules, &sol), Ok(()));
        }
    }

    /// With scores +1, -1 and 0 only, every value, remoteness and best move is the unscored
    /// solver's on the same graph with those scores as labels; the scores are the outcomes'.
    #[test]
    fn unit_scores_are_the_unscored_solution(s in spec(-1i64..=1)) {
        let rules = Rules { no_move: primitive(s.no_move) };
        let plain = solve_with(&build(&s, true), &rules, Engine::Sequential);
        for engine in [Engine::Sequential, Engine::Parallel] {
            let scored = solve_with(&build(&s, false), &rules, engine);
            for v in 0..s.n {
                prop_assert_eq!(scored.value(v), plain.value(v), "{:?}, vertex {}", engine, v);
                prop_assert_eq!(scored.best_move(v), plain.best_move(v));
                prop_assert_eq!(scored.scored(v), Scored::from(plain.value(v)));
            }
        }
    }

    /// The check refuses a changed score (or a changed value with a score).
    #[test]
    fn verify_rejects_a_changed_score(
        s in spec(score()),
        pick in any::<prop::sample::Index>(),
        to in score(),
        r in prop::option::of(0u32..4),
    ) {
        let g = build(&s, false);
        let rules = Rules { no_move: primitive(s.no_move) };
        let sol = solve_with(&g, &rules, Engine::Sequential);
        let v = pick.index(s.n as usize) as u32;
        let new = Scored::new(to, r);
        prop_assume!(new != sol.scored(v));
        let mut values: Vec<Scored> = (0..s.n).map(|x| sol.scored(x)).collect();
        let best: Vec<Option<u32>> = (0..s.n).map(|x| sol.best_move(x)).collect();
        values[v as usize] = new;
        let bad = Solution::from_scored(&values, &best).unwrap();
        prop_assert!(verify(&g, &rules, &bad).is_err());
    }
}

/// A small scored graph worked out by hand (the doc example of `scored.rs` in numbers).
///
/// ```text
/// 0 -> 1, 0 -> 2     1: score 5 (terminal)     2 -> 3, 2 -> 0
/// 3: score -2        4 -> 4 (a self-loop: a draw), 4 -> 3
/// ```
/// At 3 the mover gets -2, so moving 2 -> 3 gets +2 in 1; from 2 the other choice, back to 0,
/// can be no better than what 0 is worth negated. At 0 the mover chooses 1 (the opponent
/// gets 5: -5 in 1) or 2 (the opponent gets +2 in 1: -2 in 2): -2 in 2, best move 2. Then 2
/// has 3 (+2 in 1) or 0 (+2 in 3): +2 in 1, best move 3. At 4 the self-loop keeps it level
/// forever (0, a draw) and 3 gives +2 in 1: win by 2 in 1, best move 3.
#[test]
fn a_small_graph_by_hand() {
    let mut b = GraphBuilder::new();
    for (u, v) in [(0, 1), (0, 2), (2, 3), (2, 0), (4, 4), (4, 3)] {
        b.add_edge(u, v);
    }
    b.set_score(1, 5).unwrap();
    b.set_score(3, -2).unwrap();
    let g = b.build().unwrap();
    for engine in [Engine::Sequential, Engine::Parallel] {
        let s = solve_with(&g, &Rules::default(), engine);
        let got: Vec<String> = (0..5).map(|v| s.scored(v).to_string()).collect();
        assert_eq!(
            got,
            [
                "loss by 2 in 2",
                "win by 5 in 0",
                "win by 2 in 1",
                "loss by 2 in 0",
                "win by 2 in 1"
            ]
        );
        let best: Vec<Option<u32>> = (0..5).map(|v| s.best_move(v)).collect();
        assert_eq!(best, [Some(2), None, Some(3), None, Some(3)]);
        assert_eq!(s.outcome(0), Outcome::Loss);
        verify(&g, &Rules::default(), &s).unwrap();
    }
}
