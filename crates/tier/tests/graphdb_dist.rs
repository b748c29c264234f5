//! A graph database written by ranks (`graphdb::write`, every rank holding its share of the
//! graph and of the solution) is one process's (the same call over the whole graph), byte
//! for byte, on random graphs with cycles, duplicate moves, go-again moves, arenas, names,
//! scores and ranks with no vertices; and it reads back the values, best moves and moves (with
//! their turns) it was written with.

use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use retrograde_graph::{Graph, GraphBuilder, Primitive};
use retrograde_solve::exchange::{run_local, Exchange, Solo};
use retrograde_solve::{solve, solve_distributed, DistGraph, Rules};
use retrograde_tier::{graphdb, tierfile, GraphDb, MemStorage, Stats, Storage};
use std::sync::Arc;

fn random(seed: u64) -> Graph {
    let mut rng = SmallRng::seed_from_u64(seed);
    let n = rng.gen_range(1..40u32);
    let mut b = GraphBuilder::new();
    let kind = rng.gen_range(0..3);
    let scored = rng.gen_bool(0.4);
    for v in 0..n {
        for _ in 0..rng.gen_range(0..4) {
            // Few targets: duplicate moves, with and without go-again, are common.
            let w = rng.gen_range(0..n.min(6));
            if kind == 1 && rng.gen_bool(0.4) {
                b.add_edge_again(v, w);
            } else {
                b.add_edge(v, w);
            }
        }
        if scored && rng.gen_bool(0.2) {
            // Large and negative scores, and 0 (a tie).
            let s = [0, 1, -1, 7, -40, i64::MAX, -i64::MAX][rng.gen_range(0..7)];
            b.set_score(v, s).unwrap();
        } else if rng.gen_bool(0.1) {
            let p = [Primitive::Win, Primitive::Loss, Primitive::Tie][rng.gen_range(0..3)];
            b.set_primitive(v, p);
        }
        if kind == 2 {
            b.set_owner(v, rng.gen_range(0..2)).unwrap();
        }
        if rng.gen_bool(0.2) {
            // Names with line breaks and backslashes read back too.
            b.set_name(
                v,
                format!("v{v}{}", ["", "\n", "\\n", "\r\n\\"][rng.gen_range(0..4)]),
            );
        }
    }
    b.build().unwrap()
}

fn files(st: &MemStorage) -> Vec<(String, Vec<u8>)> {
    let mut names = st.names();
    names.retain(|n| n.starts_with("graph."));
    names.sort();
    names
        .into_iter()
        .map(|n| (n.clone(), tierfile::content(&st.get(&n).unwrap())))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn ranks_write_one_process_database(seed: u64) {
        let g = random(seed);
        let rules = Rules { no_move: Primitive::Loss };
        let s = solve(&g, &rules);
        let params = serde_json::json!({"game": "graph"});
        let one = MemStorage::new();
        graphdb::write(&one, &g, &s, &Stats::default(), params.clone(), &Solo).unwrap();
        let db = GraphDb::open(Arc::new(one.clone())).unwrap().unwrap();
        prop_assert_eq!(db.is_scored(), g.is_scored());
        prop_assert_eq!(one.get("graph.scores").is_some(), g.is_scored());
        let mut read = db.scored_reader();
        for v in 0..g.vertex_count() as u32 {
            prop_assert_eq!(db.scored(v).unwrap(), s.scored(v));
            prop_assert_eq!(read(v).unwrap(), s.scored(v));
            prop_assert_eq!(db.value(v).unwrap(), s.value(v));
            prop_assert_eq!(db.best_move(v).unwrap(), s.best_move(v));
            // The moves, with whether each keeps the turn, as the graph itself says; none at
            // a terminal, whose moves the rules ignore.
            let mut moves: Vec<(u32, bool)> = g
                .successor_range(v)
                .zip(g.successors(v))
                .map(|(e, &w)| (w, g.forward_keeps_turn(e, v, w)))
                .filter(|_| !g.is_terminal(v))
                .collect();
            moves.sort_unstable();
            prop_assert_eq!(db.move_count(v).unwrap(), moves.len() as u64);
            prop_assert_eq!(db.moves(v).unwrap(), moves);
        }
        for k in 1..=4 {
            let many = MemStorage::new();
            run_local(k, |ex| {
                let share = DistGraph::from_graph(&g, ex).unwrap();
                let part = solve_distributed(&share, &rules, true, ex).unwrap();
                let st: &dyn Storage = &many;
                graphdb::write(st, &share, &part.into_part(), &Stats::default(), params.clone(), ex)
                    .unwrap();
                ex.rank()
            });
            prop_assert_eq!(files(&one), files(&many), "{} ranks", k);
        }
    }
}

/// A solution that is not one value per vertex of the share is an error, not a panic, and
/// nothing is written.
#[test]
fn a_solution_of_another_graph_is_an_error() {
    let g = random(3);
    let other = random(4);
    let s = solve(&other, &Rules::default());
    assert_ne!(
        s.len(),
        g.vertex_count(),
        "seeds of graphs of different sizes"
    );
    let st = MemStorage::new();
    let e =
        graphdb::write(&st, &g, &s, &Stats::default(), serde_json::json!({}), &Solo).unwrap_err();
    assert!(e.to_string().contains("a part of"), "{e}");
    assert!(st.names().is_empty(), "{:?}", st.names());
}
