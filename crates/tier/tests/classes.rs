//! The class cells' solve (`Working::Classes`: a byte a slot, each level's positions
//! logged, the values made at the end) against the value cells' (`Working::Values`): on
//! random tier games every value, the totals and every values file must be the same, byte
//! for byte (but for the database's identity), in pools of 1 to 3 threads, on 1 to 4 thread
//! ranks, with and without a storage, and through a resume; on games whose tiers hold
//! positions with hundreds of moves inside them (counters past the byte) and remoteness
//! past 255, against the graph engine too.

mod random;

use proptest::prelude::*;
use random::*;
use retrograde_graph::Primitive;
use retrograde_solve::exchange::{run_local, Exchange};
use retrograde_solve::{solve as solve_graph, Rules as GraphRules, Value};
use retrograde_tier::*;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

fn untimed(s: &Stats) -> Stats {
    Stats {
        explore: Default::default(),
        solve: Default::default(),
        ..s.clone()
    }
}

/// Every slot's value (holes and non-canonical slots as `None`), tier by tier, by name.
fn all_values<G: DenseIndex>(
    game: &G,
    s: &TierSolution<'_, G>,
) -> BTreeMap<String, Vec<Option<Value>>> {
    s.tiers()
        .iter()
        .zip(s.tier_sizes())
        .map(|(&t, &n)| {
            let values = (0..n)
                .map(|i| game.unrank(t, i).and_then(|p| s.value(&p).unwrap()))
                .collect();
            (game.tier_name(t), values)
        })
        .collect()
}

/// What a solve gave: the values, the totals and the start's value, and the values files
/// (their content, without the database's identity).
#[derive(Debug, PartialEq)]
struct Outcome {
    values: BTreeMap<String, Vec<Option<Value>>>,
    stats: Stats,
    start: Option<Value>,
    files: BTreeMap<String, Vec<u8>>,
}

fn options(working: Working, storage: Option<&MemStorage>) -> SolveOptions {
    let mut o = SolveOptions::default();
    o.working = working;
    o.storage = storage.map(|s| Arc::new(s.clone()) as Arc<dyn Storage>);
    o
}

fn values_files(st: Option<&MemStorage>) -> BTreeMap<String, Vec<u8>> {
    let Some(st) = st else {
        return BTreeMap::new();
    };
    (st.names().into_iter())
        .filter(|n| n.ends_with(".values"))
        .map(|n| {
            let b = tierfile::content(&st.get(&n).unwrap());
            (n, b)
        })
        .collect()
}

/// One process in a pool of `threads`.
fn alone<G: DenseIndex + Sync>(
    game: &G,
    working: Working,
    threads: usize,
    stored: bool,
) -> Outcome {
    let st = stored.then(MemStorage::new);
    let opts = options(working, st.as_ref());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let (values, stats, start) = pool.install(|| {
        let s = solve(game, &opts).unwrap();
        (
            all_values(game, &s),
            untimed(s.stats()),
            s.start_value().unwrap(),
        )
    });
    Outcome {
        values,
        stats,
        start,
        files: values_files(st.as_ref()),
    }
}

/// `k` thread ranks; rank 0's answer with every tier.
fn ranks<G: DenseIndex + Sync>(game: &G, working: Working, k: usize, stored: bool) -> Outcome {
    let st = stored.then(MemStorage::new);
    let opts = options(working, st.as_ref());
    let mut out = run_local(k, |ex| {
        let (s, _) = solve_distributed(game, &opts, ex, true).unwrap();
        let values = (ex.rank() == 0).then(|| all_values(game, &s));
        let start = (ex.rank() == 0).then(|| s.start_value().unwrap()).flatten();
        (values, untimed(s.stats()), start)
    });
    let (values, stats, start) = out.swap_remove(0);
    Outcome {
        values: values.unwrap(),
        stats,
        start,
        files: values_files(st.as_ref()),
    }
}

/// The class cells' solve gives the value cells' answer and files: one process in pools of
/// 1 and 3 threads, and (`ranked`) 2 to 4 thread ranks, with and without a storage.
fn same<G: DenseIndex + Sync>(game: &G, ranked: bool) -> Outcome {
    let mut want = alone(game, Working::Values, 2, true);
    assert!(!want.files.is_empty());
    for stored in [false, true] {
        let values = alone(game, Working::Values, 2, stored);
        for threads in [1, 3] {
            let got = alone(game, Working::Classes, threads, stored);
            assert_eq!(got, values, "{threads} threads, stored {stored}");
        }
        if ranked {
            for k in 2..=4 {
                let got = ranks(game, Working::Classes, k, stored);
                let with = ranks(game, Working::Values, k, stored);
                assert_eq!(got, with, "{k} ranks, stored {stored}");
                assert_eq!(got.values, values.values, "{k} ranks");
            }
        }
    }
    // The engine's own choice with a storage writes the same files.
    assert_eq!(alone(game, Working::Auto, 2, true), want);
    want.files.clear();
    want
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn class_cells_give_the_value_cells_answer_and_files(seed: u64) {
        small_rounds_for_tests(true);
        same(&Plain(Rules::random(seed, false, false)), true);
        same(&PlainUnmoves(Rules::random(seed, false, false)), true);
        same(&Again(Rules::random(seed, false, true)), true);
        same(&AgainUnmoves(Rules::random(seed, false, true)), false);
        same(&Sym(Rules::random(seed, true, false)), true);
        same(&SymEdges(Rules::random(seed, true, false)), false);
        same(&SymAgain(Rules::random(seed, true, true)), true);
    }
}

/// A game with crowded tiers: tier 1 has a chain longer than 255 moves (remoteness past the
/// byte, two-byte stored cells) and hubs with 250 to 350 distinct moves inside the tier
/// (counters past the byte), some of them all to positions that win (counted down to a
/// loss), some with a loop (draws), some with a winning way out; tier 0 below it is random.
fn crowded(seed: u64, go_again: bool) -> Rules {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let low = 40u16;
    let chain = rng.gen_range(270..400u16);
    let hubs = 6u16;
    // Positions won at once by the player to move there, then random ones.
    let (won, rest) = (300u16, rng.gen_range(20..80u16));
    let first_won = chain + 1 + hubs;
    let first_rest = first_won + won;
    let size = first_rest + rest;
    let prims = [Primitive::Win, Primitive::Loss, Primitive::Tie];
    let mut moves = vec![
        vec![Vec::new(); low as usize],
        vec![Vec::new(); size as usize],
    ];
    let mut primitive = vec![vec![None; low as usize], vec![None; size as usize]];
    for i in 0..low {
        if rng.gen_bool(0.2) {
            primitive[0][i as usize] = Some(prims[rng.gen_range(0..3)]);
            continue;
        }
        for _ in 0..rng.gen_range(0..4) {
            moves[0][i as usize].push((0u8, rng.gen_range(0..low)));
        }
    }
    // The chain: `i -> i + 1`, ending in a position of the no-move rule (or a primitive);
    // past its 260th position some positions have a way out too.
    for i in 0..chain {
        moves[1][i as usize].push((1u8, i + 1));
        if i > 260 && rng.gen_bool(0.05) {
            moves[1][i as usize].push((0u8, rng.gen_range(0..low)));
        }
    }
    if rng.gen_bool(0.5) {
        primitive[1][chain as usize] = Some(prims[rng.gen_range(0..3)]);
    }
    for w in first_won..first_rest {
        primitive[1][w as usize] = Some(Primitive::Win);
    }
    for r in first_rest..size {
        let p = &mut primitive[1][r as usize];
        match rng.gen_range(0..4) {
            0 => *p = Some(Primitive::Loss),
            1 => *p = Some(Primitive::Win),
            _ => {
                for _ in 0..rng.gen_range(1..4) {
                    let to = match rng.gen_bool(0.5) {
                        true => (1u8, rng.gen_range(0..size)),
                        false => (0u8, rng.gen_range(0..low)),
                    };
                    moves[1][r as usize].push(to);
                }
            }
        }
    }
    for h in 0..hubs {
        let at = (chain + 1 + h) as usize;
        let n = rng.gen_range(250..350usize);
        let mut all: Vec<u16> = (0..size).collect();
        for k in (1..all.len()).rev() {
            all.swap(k, rng.gen_range(0..=k));
        }
        let mut to: Vec<(u8, u16)> = all.iter().take(n).map(|&x| (1u8, x)).collect();
        match h % 3 {
            // Every move to a position that wins, some twice: lost once all 300 distinct
            // ones are counted down.
            0 => {
                to = (first_won..first_rest).map(|w| (1u8, w)).collect();
                to.extend((0..20).map(|k| (1u8, first_won + k)));
            }
            // Moves anywhere, one back to itself (a loop).
            1 => to.push((1, at as u16)),
            // Moves anywhere and out.
            _ => to.push((0, rng.gen_range(0..low))),
        }
        moves[1][at] = to;
    }
    let mut again = HashSet::new();
    if go_again {
        for (t, tier) in moves.iter().enumerate() {
            for (i, ms) in tier.iter().enumerate() {
                for &c in ms {
                    if rng.gen_bool(0.2) {
                        again.insert(((t as u8, i as u16), c));
                    }
                }
            }
        }
    }
    Rules {
        sizes: vec![low, size],
        children: vec![vec![], vec![0]],
        valid: vec![vec![true; low as usize], vec![true; size as usize]],
        moves,
        primitive,
        again,
        sigma: vec![(0..low).collect(), (0..size).collect()],
        no_move: Primitive::Loss,
        start: Some((1, 0)),
    }
}

/// Every position's value equals the graph engine's on the explicit graph.
fn against_graph<G: TierGame<Position = Pos, Tier = u8>>(game: &G, values: &Outcome) {
    let e = explicit_graph(game, 100_000).unwrap();
    let g = solve_graph(
        &e.graph,
        &GraphRules {
            no_move: game.no_move(),
        },
    );
    for (v, p) in e.positions.iter().enumerate() {
        let (t, i) = *p;
        assert_eq!(
            values.values[&game.tier_name(t)][i as usize],
            Some(g.value(v as u32)),
            "{p:?}"
        );
    }
}

#[test]
fn counters_past_the_byte_and_remoteness_past_255() {
    small_rounds_for_tests(true);
    let (mut long, mut escaped) = (false, false);
    for seed in 0..6 {
        for again in [false, true] {
            let rules = crowded(seed, again);
            let hubs = (rules.moves[1].iter()).filter(|m| m.len() > 249).count();
            escaped |= hubs > 0;
            let got = match again {
                false => same(&Plain(rules.clone()), true),
                true => same(&Again(rules.clone()), true),
            };
            same(&PlainUnmoves(rules.clone()), false);
            same(&Sym(rules.clone()), false);
            match again {
                false => against_graph(&Plain(rules.clone()), &got),
                true => against_graph(&Again(rules.clone()), &got),
            }
            long |= got.values.values().flatten().flatten().any(|v| match *v {
                Value::Win(r) | Value::Loss(r) | Value::Tie(r) => r > 255,
                Value::Draw => false,
            });
        }
    }
    assert!(long && escaped, "the games reach what they test");
}

#[test]
fn a_resumed_solve_in_class_cells_writes_the_same_files() {
    for seed in 0..10 {
        let g = SymAgain(Rules::random(seed, true, true));
        let want = alone(&g, Working::Values, 2, true);
        let st = MemStorage::new();
        solve(&g, &options(Working::Classes, Some(&st))).unwrap();
        // Lose a tier's file and damage another's: the resume solves them again.
        let names: Vec<String> = (st.names().into_iter())
            .filter(|n| n.ends_with(".values"))
            .collect();
        st.remove(&names[seed as usize % names.len()]).unwrap();
        if names.len() > 1 {
            let f = &names[(seed as usize + 1) % names.len()];
            let mut b = st.get(f).unwrap();
            let last = b.len() - 1;
            b[last] ^= 0x40;
            st.put(f, b);
        }
        let mut opts = options(Working::Classes, Some(&st));
        opts.resume = true;
        let s = solve(&g, &opts).unwrap();
        assert_eq!(all_values(&g, &s), want.values, "seed {seed}");
        assert_eq!(values_files(Some(&st)), want.files, "seed {seed}");
    }
}

/// A remoteness past the value cells is the same error whichever cells solve.
#[test]
fn a_remoteness_past_the_cells_is_the_same_error() {
    // One-byte value cells (a bound of 63) and a chain of 300 moves.
    #[derive(Debug)]
    struct Bounded(Rules);
    impl TierGame for Bounded {
        type Position = Pos;
        type Tier = u8;
        type Layout = Dense;
        type Parents = ReverseEdges;
        type Symmetry = NoSymmetry;
        type Turn = Alternate;
        type Score = Unscored;
        fn name(&self) -> String {
            "bounded".into()
        }
        fn start(&self) -> Option<Pos> {
            self.0.start
        }
        fn tier(&self, p: &Pos) -> u8 {
            p.0
        }
        fn child_tiers(&self, t: u8, out: &mut Vec<u8>) {
            out.extend(&self.0.children[t as usize]);
        }
        fn tier_name(&self, t: u8) -> String {
            format!("t{t}")
        }
        fn primitive(&self, p: &Pos) -> Option<Primitive> {
            self.0.primitive[p.0 as usize][p.1 as usize]
        }
        fn moves(&self, p: &Pos, out: &mut Vec<Pos>) {
            out.extend(&self.0.moves[p.0 as usize][p.1 as usize]);
        }
        fn remoteness_bound(&self) -> Option<u32> {
            Some(63)
        }
    }
    impl DenseIndex for Bounded {
        fn tier_size(&self, t: u8) -> u64 {
            u64::from(self.0.sizes[t as usize])
        }
        fn rank(&self, p: &Pos) -> u64 {
            u64::from(p.1)
        }
        fn unrank(&self, t: u8, i: u64) -> Option<Pos> {
            self.0.valid[t as usize][i as usize].then_some((t, i as u16))
        }
    }
    let mut rules = crowded(1, false);
    // No hubs: one-byte value cells count at most 59 moves.
    for m in rules.moves[1].iter_mut().filter(|m| m.len() > 50) {
        m.truncate(3);
    }
    let g = Bounded(rules);
    for working in [Working::Values, Working::Classes] {
        let Err(e) = solve(&g, &options(working, None)) else {
            panic!("{working:?}: solved a chain past the cells");
        };
        assert!(
            matches!(e, Error::Remoteness { max: 63, .. }),
            "{working:?}: {e}"
        );
    }
}
