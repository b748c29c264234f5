//! Generalized Sprague-Grundy values against independent truth, on many random small graphs
//! (cycles, self-loops, parallel edges, isolated vertices).
//!
//! The truths, none of which shares code with the algorithms:
//! - the win/loss/draw engine (`retrograde_solve::solve`) on the graph itself: the outcome the
//!   value implies must be the engine's, and a value-0 counter the engine's loss remoteness;
//! - the engine on the sum of the graph with a nim heap: by the generalized Sprague-Grundy
//!   theorem, `u + *n` is lost exactly when `γ(u) = n`, and when `γ(u) = ∞(K)` it is won for
//!   `n ∈ K` and drawn otherwise. This pins down every value, `K` included;
//! - the engine on explicit sums (product graphs) of 2 or 3 random loopy graphs: the outcome
//!   the sum rule predicts must be the engine's;
//! - a naive memoized mex recursion on acyclic graphs;
//! - the local checker `verify` (conditions A, B, C with the counters as witnesses).

use proptest::prelude::*;
use retrograde_graph::{Graph, GraphBuilder};
use retrograde_impartial::{grundy, grundy_with, play_sum, sum, verify, Method, Opt, Play, Sg};
use retrograde_solve::{solve, Outcome, Rules, Value};

/// A random graph: `n` vertices, edges drawn from `0..n` squared.
fn graph_spec(max_n: u32, edge_factor: usize) -> impl Strategy<Value = (u32, Vec<(u32, u32)>)> {
    (1u32..=max_n).prop_flat_map(move |n| {
        (
            Just(n),
            prop::collection::vec((0..n, 0..n), 0..(edge_factor * n as usize + 2)),
        )
    })
}

/// Random acyclic graphs: edges go from a larger id to a smaller one.
fn dag_spec() -> impl Strategy<Value = (u32, Vec<(u32, u32)>)> {
    graph_spec(16, 3).prop_map(|(n, edges)| {
        let edges = edges
            .into_iter()
            .filter(|(u, v)| u != v)
            .map(|(u, v)| (u.max(v), u.min(v)))
            .collect();
        (n, edges)
    })
}

fn build(n: u32, edges: &[(u32, u32)]) -> Graph {
    let mut b = GraphBuilder::new();
    for &(u, v) in edges {
        b.add_edge(u, v);
    }
    b.ensure_vertices(n as u64).unwrap();
    b.build().unwrap()
}

/// The disjunctive sum of `graphs` as one explicit graph: a vertex is a tuple of component
/// vertices (mixed radix, the first component least significant), and a move moves exactly
/// one component.
fn product(graphs: &[&Graph]) -> Graph {
    let sizes: Vec<u64> = graphs.iter().map(|g| g.vertex_count() as u64).collect();
    let total: u64 = sizes.iter().product();
    let mut b = GraphBuilder::new();
    for t in 0..total {
        let mut rest = t;
        let mut place = 1u64;
        for (g, &size) in graphs.iter().zip(&sizes) {
            let v = rest % size;
            rest /= size;
            for &w in g.successors(v as u32) {
                let to = t - v * place + w as u64 * place;
                b.add_edge(t as u32, to as u32);
            }
            place *= size;
        }
    }
    b.ensure_vertices(total).unwrap();
    b.build().unwrap()
}

/// A nim heap as a graph: vertex `j` moves to every `i < j`.
fn nim(size: u32) -> Graph {
    let mut b = GraphBuilder::new();
    for j in 0..size {
        for i in 0..j {
            b.add_edge(j, i);
        }
    }
    b.ensure_vertices(size as u64).unwrap();
    b.build().unwrap()
}

fn check_against_engine(g: &Graph) -> Result<(), TestCaseError> {
    let s = grundy(g).unwrap();
    let staged = grundy_with(g, Method::Staged).unwrap();
    prop_assert_eq!(s.len(), g.vertex_count());
    // Both algorithms agree value for value and counter for counter.
    for v in 0..g.vertex_count() as u32 {
        prop_assert_eq!(s.value(v), staged.value(v), "vertex {}", v);
        prop_assert_eq!(s.counter(v), staged.counter(v), "vertex {}", v);
    }
    if let Err(e) = verify(g, &s) {
        return Err(TestCaseError::fail(format!("verify: {e}")));
    }

    // The game alone.
    let e = solve(g, &Rules::default());
    for v in 0..g.vertex_count() as u32 {
        prop_assert_eq!(
            s.outcome(v),
            e.outcome(v),
            "vertex {} value {}",
            v,
            s.value(v)
        );
        if s.value(v) == Sg::Finite(0) {
            prop_assert_eq!(
                Value::Loss(s.counter(v).unwrap()),
                e.value(v),
                "vertex {}",
                v
            );
        }
    }

    // The game plus a nim heap of every size up to one past the largest value.
    let heaps = s.max_finite().map_or(1, |m| m + 2);
    let heap = nim(heaps);
    let p = product(&[g, &heap]);
    let e = solve(&p, &Rules::default());
    let n = g.vertex_count() as u32;
    for v in 0..n {
        for h in 0..heaps {
            let expected = match s.value(v) {
                Sg::Finite(x) if x == h => Outcome::Loss,
                Sg::Finite(_) => Outcome::Win,
                Sg::Infinite(k) if k.contains(&h) => Outcome::Win,
                Sg::Infinite(_) => Outcome::Draw,
            };
            prop_assert_eq!(
                e.outcome(v + h * n),
                expected,
                "vertex {} (value {}) plus a nim heap of {}",
                v,
                s.value(v),
                h
            );
        }
    }
    Ok(())
}

/// The ordinary Sprague-Grundy function by memoized recursion (acyclic graphs only).
fn naive_mex(g: &Graph) -> Vec<u32> {
    fn value(g: &Graph, v: u32, memo: &mut Vec<Option<u32>>) -> u32 {
        if let Some(x) = memo[v as usize] {
            return x;
        }
        let options: Vec<u32> = g.successors(v).iter().map(|&w| value(g, w, memo)).collect();
        let x = (0..).find(|x| !options.contains(x)).unwrap();
        memo[v as usize] = Some(x);
        x
    }
    let mut memo = vec![None; g.vertex_count()];
    (0..g.vertex_count() as u32)
        .map(|v| value(g, v, &mut memo))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn loopy_values_match_the_engine((n, edges) in graph_spec(10, 2)) {
        check_against_engine(&build(n, &edges))?;
    }

    #[test]
    fn dense_loopy_values_match_the_engine((n, edges) in graph_spec(7, 5)) {
        check_against_engine(&build(n, &edges))?;
    }

    #[test]
    fn acyclic_values_are_the_mex((n, edges) in dag_spec()) {
        let g = build(n, &edges);
        let s = grundy(&g).unwrap();
        prop_assert!(s.is_acyclic());
        let naive = naive_mex(&g);
        for v in 0..n {
            prop_assert_eq!(s.value(v), Sg::Finite(naive[v as usize]));
        }
        check_against_engine(&g)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Sums of 2 or 3 random loopy graphs: the sum rule's outcome is the engine's on the
    /// explicit product, for every tuple of vertices.
    #[test]
    fn sums_match_the_product(parts in prop::collection::vec(graph_spec(6, 2), 2..=3)) {
        let graphs: Vec<Graph> = parts.iter().map(|(n, e)| build(*n, e)).collect();
        let values: Vec<_> = graphs.iter().map(|g| grundy(g).unwrap()).collect();
        let refs: Vec<&Graph> = graphs.iter().collect();
        let p = product(&refs);
        let e = solve(&p, &Rules::default());
        for t in 0..p.vertex_count() as u32 {
            let mut rest = t;
            let mut parts = Vec::new();
            for (g, s) in graphs.iter().zip(&values) {
                let size = g.vertex_count() as u32;
                parts.push(s.value(rest % size));
                rest /= size;
            }
            let predicted = sum(parts.iter().copied());
            prop_assert_eq!(
                predicted.outcome(),
                e.outcome(t),
                "tuple {} with values {:?}: sum {}",
                t,
                parts,
                predicted
            );

            // The move play_sum picks leads where it says: to a loss for the opponent when
            // winning, to a draw when drawing.
            let mut coords = Vec::new();
            let mut rest = t;
            for g in &graphs {
                let size = g.vertex_count() as u32;
                coords.push(rest % size);
                rest /= size;
            }
            let options: Vec<Vec<Opt>> = graphs
                .iter()
                .zip(&values)
                .zip(&coords)
                .map(|((g, s), &v)| {
                    g.successors(v)
                        .iter()
                        .map(|&w| Opt { value: s.value(w), counter: s.counter(w) })
                        .collect()
                })
                .collect();
            let (value, play) = play_sum(&parts, &options);
            prop_assert_eq!(&value, &predicted);
            let after = |component: usize, option: usize| {
                let mut to = coords.clone();
                to[component] = graphs[component].successors(coords[component])[option];
                let mut id = 0u32;
                for (g, &c) in graphs.iter().zip(&to).rev() {
                    id = id * g.vertex_count() as u32 + c;
                }
                e.outcome(id)
            };
            match play {
                Play::Win { component, option } => {
                    prop_assert_eq!(e.outcome(t), Outcome::Win);
                    prop_assert_eq!(after(component, option), Outcome::Loss);
                }
                Play::Draw { component, option } => {
                    prop_assert_eq!(e.outcome(t), Outcome::Draw);
                    prop_assert_eq!(after(component, option), Outcome::Draw);
                }
                Play::Loss => prop_assert_eq!(e.outcome(t), Outcome::Loss),
            }
        }
    }
}
