//! The tier engine against the graph engine, on random small tier games: every position's
//! value must be the one `retrograde_solve::solve` gives on the game's explicit graph; the
//! sequential reference and the parallel engine (in pools of 1 to 4 threads) must agree bit
//! for bit; the totals must match a breadth-first count.

mod random;

use proptest::prelude::*;
use random::*;
use retrograde_solve::{solve as solve_graph, Rules as GraphRules, Value};
use retrograde_tier::*;
use std::collections::{HashMap, HashSet, VecDeque};

/// The totals without the times.
fn sequential() -> SolveOptions {
    let mut o = SolveOptions::default();
    o.engine = Engine::Sequential;
    o
}

fn untimed(s: &Stats) -> Stats {
    Stats {
        explore: Default::default(),
        solve: Default::default(),
        ..s.clone()
    }
}

/// Solves `game` with the given options in a pool of `threads` threads.
fn solve_in<'g, G: TierGame>(
    game: &'g G,
    opts: &SolveOptions,
    threads: usize,
) -> TierSolution<'g, G> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| solve(game, opts).unwrap())
}

/// Every position's value by the tier engine equals the graph engine's on the explicit
/// graph; returns the values, for comparisons between engines.
fn check_against_graph<G: TierGame>(game: &G, s: &TierSolution<'_, G>) -> Vec<Value> {
    let e = explicit_graph(game, 100_000).unwrap();
    let g = solve_graph(
        &e.graph,
        &GraphRules {
            no_move: game.no_move(),
        },
    );
    let mut out = Vec::new();
    for (v, p) in e.positions.iter().enumerate() {
        let want = g.value(v as u32);
        let got = s.value(p).unwrap();
        assert_eq!(got, Some(want), "position {p:?}");
        out.push(want);
        // Ranked moves agree with the children's values.
        if game.primitive(p).is_none() {
            let ranked = s.ranked_moves(p).unwrap();
            if let Some((_, best)) = ranked.first() {
                assert_eq!(*best, want, "best move of {p:?}");
            }
        }
    }
    out
}

/// The totals by brute force: breadth first over (state, side) from the start.
/// With symmetries, from every image of the start: the engine counts whole classes.
fn brute_stats<G: TierGame>(
    game: &G,
    s: &TierSolution<'_, G>,
    images: &dyn Fn(&G::Position) -> Vec<G::Position>,
) -> Option<(u64, u64, u64, u64)> {
    let start = game.start()?;
    let mut seen: HashSet<(G::Position, u8)> = images(&start).into_iter().map(|p| (p, 0)).collect();
    let mut todo: VecDeque<(G::Position, u8)> = seen.iter().copied().collect();
    let (mut moves, mut win, mut loss) = (0, 0, 0);
    let mut buf = Vec::new();
    while let Some((p, side)) = todo.pop_front() {
        match s.value(&p).unwrap().unwrap() {
            Value::Win(_) => win += 1,
            Value::Loss(_) => loss += 1,
            _ => {}
        }
        if game.primitive(&p).is_some() {
            continue;
        }
        buf.clear();
        game.moves(&p, &mut buf);
        moves += buf.len() as u64;
        for c in buf.iter() {
            let keeps = <G::Turn as Turn<G>>::keeps_turn(game, &p, c);
            let next = if !G::MOVER_VIEW || keeps {
                side
            } else {
                1 - side
            };
            if seen.insert((*c, next)) {
                todo.push_back((*c, next));
            }
        }
    }
    Some((seen.len() as u64, moves, win, loss))
}

fn full_check<G: TierGame>(game: &G, images: &dyn Fn(&G::Position) -> Vec<G::Position>) {
    check_game(game, 1000).unwrap();
    let seq = solve(game, &sequential()).unwrap();
    let want = check_against_graph(game, &seq);
    for threads in 1..=4 {
        let par = solve_in(game, &SolveOptions::default(), threads);
        assert_eq!(check_against_graph(game, &par), want, "{threads} threads");
        assert_eq!(par.stats().positions, seq.stats().positions);
        assert_eq!(par.stats().histogram, seq.stats().histogram);
    }
    if let Some((positions, moves, win, loss)) = brute_stats(game, &seq, images) {
        let st = seq.stats();
        assert_eq!(
            (st.positions, st.moves, st.win, st.loss),
            (positions, moves, win, loss)
        );
        assert_eq!(st.positions, st.win + st.loss + st.tie + st.draw);
        assert!(st.classes <= st.positions);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn dense_games_agree_with_the_graph_engine(seed: u64) {
        full_check(&Plain(Rules::random(seed, false, false)), &|p| vec![*p]);
        full_check(&PlainUnmoves(Rules::random(seed, false, false)), &|p| vec![*p]);
    }

    #[test]
    fn go_again_games_agree_with_the_graph_engine(seed: u64) {
        full_check(&Again(Rules::random(seed, false, true)), &|p| vec![*p]);
        full_check(&AgainUnmoves(Rules::random(seed, false, true)), &|p| vec![*p]);
    }

    #[test]
    fn symmetric_games_agree_with_the_graph_engine(seed: u64) {
        let g = Sym(Rules::random(seed, true, false));
        full_check(&g, &|p| vec![*p, g.apply_symmetry(p, 1)]);
        let g = SymEdges(Rules::random(seed, true, false));
        full_check(&g, &|p| vec![*p, g.apply_symmetry(p, 1)]);
        let g = SymAgain(Rules::random(seed, true, true));
        full_check(&g, &|p| vec![*p, g.apply_symmetry(p, 1)]);
    }

    #[test]
    fn sorted_games_agree_with_the_graph_engine(seed: u64) {
        for (wide, again) in [(false, false), (true, true)] {
            let game = Sorted::random(seed, wide, again);
            check_game(&game, 1000).unwrap();
            let seq = solve(&game, &sequential()).unwrap();
            let want = check_against_graph(&game, &seq);
            for threads in [1, 3] {
                let par = solve_in(&game, &SolveOptions::default(), threads);
                prop_assert_eq!(&check_against_graph(&game, &par), &want);
                prop_assert_eq!(untimed(par.stats()), untimed(seq.stats()));
            }
            let (positions, moves, win, loss) = brute_stats(&game, &seq, &|p| vec![*p]).unwrap();
            let st = seq.stats();
            prop_assert_eq!((st.positions, st.moves, st.win, st.loss), (positions, moves, win, loss));
        }
    }
}

/// Symmetric classes are counted: a random symmetric game's classes are the orbits of the
/// reachable positions.
#[test]
fn classes_are_orbits() {
    for seed in 0..200 {
        let game = Sym(Rules::random(seed, true, false));
        let s = solve(&game, &SolveOptions::default()).unwrap();
        let Some(start) = game.start() else { continue };
        let mut seen = HashSet::from([start]);
        let mut todo = vec![start];
        let mut buf = Vec::new();
        while let Some(p) = todo.pop() {
            if game.primitive(&p).is_some() {
                continue;
            }
            buf.clear();
            game.moves(&p, &mut buf);
            for &c in &buf {
                if seen.insert(c) {
                    todo.push(c);
                }
            }
        }
        let orbits: HashSet<_> = seen.iter().map(|p| game.canonical(p)).collect();
        // Reachable sets of symmetric games are closed under the symmetry only when the
        // start is symmetric; count what the engine counts: canonical forms of the reached.
        let closed: HashSet<_> = seen
            .iter()
            .flat_map(|p| [*p, game.apply_symmetry(p, 1)])
            .collect();
        assert_eq!(s.stats().classes, orbits.len() as u64, "seed {seed}");
        assert_eq!(s.stats().positions, closed.len() as u64, "seed {seed}");
    }
}

/// Values are the same whatever the storage: in memory, in files written and read back.
#[test]
fn storage_round_trip() {
    for seed in 0..40 {
        let game = SymAgain(Rules::random(seed, true, true));
        let mem = solve(&game, &SolveOptions::default()).unwrap();
        let st = MemStorage::new();
        let mut opts = SolveOptions::default();
        opts.storage = Some(std::sync::Arc::new(st.clone()));
        let disk = solve(&game, &opts).unwrap();
        let e = explicit_graph(&game, 10_000).unwrap();
        let mut values = HashMap::new();
        for p in &e.positions {
            let v = mem.value(p).unwrap();
            assert_eq!(disk.value(p).unwrap(), v, "seed {seed} {p:?}");
            values.insert(*p, v);
        }
        assert_eq!(untimed(disk.stats()), untimed(mem.stats()));
        let opened = open(&game, std::sync::Arc::new(st.clone()))
            .unwrap()
            .unwrap();
        for p in &e.positions {
            assert_eq!(opened.value(p).unwrap(), values[p]);
        }
    }
}
