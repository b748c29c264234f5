//! A terminal is terminal everywhere: on random graphs whose `terminal` and `score` vertices
//! have moves of their own (which the rules ignore), a solved graph's database, its answers
//! (`query`, `serve`), its replay of moves and the in-memory play of the graph give such a
//! vertex no moves, and list every other vertex's moves with values that agree with the
//! solver's value of the vertex (the best listed move realises it).

use proptest::prelude::*;
use retrograde_games::play::{PlayGraph, Playable};
use retrograde_graph::{Graph, GraphBuilder, Primitive};
use retrograde_registry::{database, Answer, Database, GraphAnswer, Query, QueryError};
use retrograde_solve::exchange::Solo;
use retrograde_solve::{solve, Rules, Scored, Value};
use retrograde_tier::{graphdb, MemStorage, Stats};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What the rules say of a vertex.
#[derive(Clone, Copy, Debug)]
enum Label {
    None,
    Fixed(Primitive),
    Score(i64),
}

fn label() -> impl Strategy<Value = Label> {
    prop_oneof![
        3 => Just(Label::None),
        1 => prop::sample::select(vec![Primitive::Win, Primitive::Loss, Primitive::Tie]).prop_map(Label::Fixed),
        1 => (-3i64..=3).prop_map(Label::Score),
    ]
}

/// A random graph of 1 to 10 vertices, every vertex labelled or not (terminals keep the
/// moves the file gave them), with a start.
fn graph() -> impl Strategy<Value = Graph> {
    (1u32..=10).prop_flat_map(|n| {
        (
            prop::collection::vec((0..n, 0..n), 0..30),
            prop::collection::vec(label(), n as usize),
            0..n,
        )
            .prop_map(move |(edges, labels, start)| {
                let mut b = GraphBuilder::new();
                for (u, v) in edges {
                    b.add_edge(u, v);
                }
                b.ensure_vertices(u64::from(n)).unwrap();
                for (v, l) in (0..n).zip(labels) {
                    match l {
                        Label::None => {}
                        Label::Fixed(p) => b.set_primitive(v, p),
                        Label::Score(s) => b.set_score(v, s).unwrap(),
                    }
                }
                b.set_start(start);
                b.build().unwrap()
            })
    })
}

/// `g` solved, written as a database in memory and opened as `query` and `serve` open one.
fn answer(g: &Graph) -> Box<GraphAnswer> {
    let s = solve(g, &Rules::default());
    let st = MemStorage::new();
    let params = serde_json::json!({"game": "graph", "start": g.start()});
    graphdb::write(&st, g, &s, &Stats::default(), params, &Solo).unwrap();
    match database(Arc::new(st)).unwrap() {
        Database::Graph(a) => a,
        Database::Game(_) => unreachable!("a graph's database"),
    }
}

/// The game is over at `v`: a label fixes its value, or it has no move.
fn over(g: &Graph, v: u32) -> bool {
    g.is_terminal(v) || g.out_degree(v) == 0
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn terminals_have_no_moves_and_the_moves_listed_give_the_value(g in graph()) {
        let s = solve(&g, &Rules::default());
        let a = answer(&g);
        for v in 0..g.vertex_count() as u32 {
            let successors: BTreeSet<String> =
                g.successors(v).iter().map(|t| t.to_string()).collect();
            let want = if over(&g, v) { BTreeSet::new() } else { successors };
            // The database's moves, as `play --db` reads them.
            let db = a.db();
            let moves: BTreeSet<String> =
                db.moves(v).unwrap().iter().map(|m| m.0.to_string()).collect();
            prop_assert_eq!(&moves, &want, "vertex {}", v);
            prop_assert_eq!(db.move_count(v).unwrap() == 0, want.is_empty());
            for &t in g.successors(v) {
                prop_assert_eq!(db.find_move(v, t).unwrap().is_some(), !over(&g, v));
            }
            // The answer `query` prints and `serve` returns.
            let q = a.query(&Query::Position(v.to_string())).unwrap();
            prop_assert_eq!(q.value, s.value(v));
            let listed: BTreeSet<String> = q.moves.iter().map(|m| m.0.clone()).collect();
            prop_assert_eq!(&listed, &want, "vertex {}", v);
            // The best listed move is worth the vertex's value to its mover (with the score
            // in a scored graph): the moves listed are the moves the solver weighed.
            if let Some((_, best)) = q.moves.first() {
                prop_assert_eq!(*best, q.value, "vertex {}", v);
            }
            if let Some((value, scores)) = &q.scores {
                prop_assert_eq!(*value, s.scored(v));
                if let Some(best) = scores.first() {
                    prop_assert_eq!(best, value, "vertex {}", v);
                }
            }
            // The in-memory play of the graph.
            let play = PlayGraph::new(&g, &s, v).unwrap();
            let played: BTreeSet<String> =
                play.moves(&v).unwrap().iter().map(|m| m.to.to_string()).collect();
            prop_assert_eq!(&played, &want, "vertex {}", v);
        }
        // Replaying moves from the start: a move out of a terminal is refused, naming it.
        let start = g.start().unwrap();
        for t in 0..g.vertex_count() as u32 {
            let r = a.query(&Query::Moves(vec![t.to_string()]));
            let edge = g.successors(start).contains(&t);
            match r {
                Ok(q) => {
                    prop_assert!(edge && !over(&g, start), "{} to {}", start, t);
                    prop_assert_eq!(q.value, s.value(t));
                }
                Err(e) => {
                    prop_assert!(!edge || over(&g, start), "{} to {}: {}", start, t, e);
                    prop_assert!(matches!(e, QueryError::IllegalMove { index: 1, .. }), "{:?}", e);
                    let text = e.to_string();
                    prop_assert!(text.starts_with(&format!("move 1 (\"{t}\")")), "{}", text);
                    if over(&g, start) {
                        prop_assert!(text.ends_with("(the game is over)"), "{}", text);
                    }
                }
            }
        }
    }
}

/// The case of the report: 0 -> 1 -> 2 -> 3 with 1 worth 3 to its mover. Vertex 1 is over,
/// and nothing goes on from it, in every reader.
#[test]
fn the_moves_out_of_a_scored_terminal_are_not_moves() {
    let mut b = GraphBuilder::new();
    for (u, v) in [(0, 1), (1, 2), (2, 3)] {
        b.add_edge(u, v);
    }
    b.set_score(1, 3).unwrap();
    b.set_start(0);
    let g = b.build().unwrap();
    let a = answer(&g);
    let q = a.query(&Query::Position("1".into())).unwrap();
    assert_eq!((q.value, q.moves.len()), (Value::Win(0), 0));
    assert_eq!(q.scores.map(|s| s.0), Some(Scored::new(3, Some(0))));
    let e = a
        .query(&Query::Moves(vec!["1".into(), "2".into()]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "move 2 (\"2\") is not legal here (the game is over)"
    );
    let s = solve(&g, &Rules::default());
    let play = PlayGraph::new(&g, &s, 1).unwrap();
    assert!(play.moves(&1).unwrap().is_empty());
    assert_eq!(
        play.render(&1),
        "At vertex 1 (terminal: worth 3 to the player to move)."
    );
}
