//! The scored engine on random small tier games (loops inside tiers, exits with rewards,
//! go-again moves, holes): against a naive oracle written here (scores first, tier by tier,
//! by attractors for every threshold; then remoteness within each score level, by iteration
//! over the moves that keep the score), and with scores +1/-1/0 and no rewards against the
//! unscored engine.

mod random;

use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use random::*;
use retrograde_graph::Primitive;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::{Scored, Value};
use retrograde_tier::*;
use std::collections::HashMap;

/// A random game with scores: the rules of [`Rules::random`], terminal scores and exit
/// rewards drawn at random (or, with `unit`, the primitive values as +1/-1/0 and no rewards).
#[derive(Debug)]
struct ScoredRandom {
    rules: Rules,
    terminal: HashMap<Pos, i64>,
    rewards: HashMap<(Pos, Pos), i64>,
    bound: i64,
}

impl ScoredRandom {
    fn new(seed: u64, unit: bool) -> ScoredRandom {
        let rules = Rules::random(seed, false, true);
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x5c0e);
        let mut terminal = HashMap::new();
        let mut rewards = HashMap::new();
        for (t, size) in rules.sizes.iter().enumerate() {
            for i in 0..*size {
                let p = (t as u8, i);
                let prim = rules.primitive[t][i as usize].or_else(|| {
                    rules.moves[t][i as usize]
                        .is_empty()
                        .then_some(rules.no_move)
                });
                let unit_score = match prim {
                    Some(Primitive::Win) => 1,
                    Some(Primitive::Loss) => -1,
                    _ => 0,
                };
                terminal.insert(
                    p,
                    if unit {
                        unit_score
                    } else {
                        rng.gen_range(-3..=3)
                    },
                );
                for c in &rules.moves[t][i as usize] {
                    if c.0 != p.0 && !unit {
                        rewards.insert((p, *c), rng.gen_range(-2..=3));
                    }
                }
            }
        }
        let bound = 3 + 3 * rules.sizes.len() as i64;
        ScoredRandom {
            rules,
            terminal,
            rewards,
            bound,
        }
    }

    /// Whether `p`'s tier is the root or below it (the tiers solved).
    fn solved(&self, p: &Pos) -> bool {
        let mut seen = vec![false; self.rules.sizes.len()];
        let mut todo = vec![self.rules.sizes.len() - 1];
        while let Some(t) = todo.pop() {
            if !std::mem::replace(&mut seen[t], true) {
                todo.extend(self.rules.children[t].iter().map(|&c| c as usize));
            }
        }
        seen[p.0 as usize]
    }

    fn is_terminal(&self, p: &Pos) -> bool {
        self.primitive(p).is_some() || self.rules.moves[p.0 as usize][p.1 as usize].is_empty()
    }
}

impl TierGame for ScoredRandom {
    type Position = Pos;
    type Tier = u8;
    type Layout = Dense;
    type Parents = ReverseEdges;
    type Symmetry = NoSymmetry;
    type Turn = GoAgain;
    type Score = Scores;

    fn name(&self) -> String {
        "random scored".into()
    }
    fn start(&self) -> Option<Pos> {
        self.rules.start
    }
    fn root_tiers(&self) -> Vec<u8> {
        vec![self.rules.sizes.len() as u8 - 1]
    }
    fn tier(&self, p: &Pos) -> u8 {
        p.0
    }
    fn child_tiers(&self, t: u8, out: &mut Vec<u8>) {
        out.extend(&self.rules.children[t as usize]);
    }
    fn tier_name(&self, t: u8) -> String {
        format!("t{t}")
    }
    fn primitive(&self, p: &Pos) -> Option<Primitive> {
        self.rules.primitive[p.0 as usize][p.1 as usize]
    }
    fn moves(&self, p: &Pos, out: &mut Vec<Pos>) {
        out.extend(&self.rules.moves[p.0 as usize][p.1 as usize]);
    }
    fn no_move(&self) -> Primitive {
        self.rules.no_move
    }
}

impl DenseIndex for ScoredRandom {
    fn tier_size(&self, t: u8) -> u64 {
        u64::from(self.rules.sizes[t as usize])
    }
    fn rank(&self, p: &Pos) -> u64 {
        u64::from(p.1)
    }
    fn unrank(&self, t: u8, i: u64) -> Option<Pos> {
        self.rules.valid[t as usize][i as usize].then_some((t, i as u16))
    }
}

impl GoAgainGame for ScoredRandom {
    fn keeps_turn(&self, from: &Pos, to: &Pos) -> bool {
        self.rules.again.contains(&(*from, *to))
    }
}

impl ScoredGame for ScoredRandom {
    fn score_range(&self) -> (i64, i64) {
        (-self.bound, self.bound)
    }
    fn terminal_score(&self, p: &Pos) -> i64 {
        self.terminal[p]
    }
    fn reward(&self, from: &Pos, to: &Pos) -> i64 {
        self.rewards.get(&(*from, *to)).copied().unwrap_or(0)
    }
}

/// The oracle. Scores tier by tier (children first), each tier a game with the exits and
/// terminals as payoffs and an endless play worth 0: with the two players named (a position
/// and who moves there), for every threshold `x` among the payoffs and 0, whether the first
/// player can make sure of at least `x` is an attractor (for `x > 0`, the first player's
/// attractor to the payoffs of at least `x`; else the complement of the second player's
/// attractor to those below `x`), and the score is the greatest such `x`. (Iterating
/// `v = max(reward ± v(child))` from 0 is wrong here: with a go-again loop the mover waits
/// for the horizon.) Then remoteness by iterating over the moves that keep the score (a
/// positive score takes the least, a negative one the greatest, none counting as the
/// greatest, 0 the least) from none.
fn oracle(g: &ScoredRandom) -> HashMap<Pos, Scored> {
    let positions: Vec<Pos> = (0..g.rules.sizes.len())
        .flat_map(|t| {
            (0..g.rules.sizes[t])
                .filter(move |&i| g.rules.valid[t][i as usize])
                .map(move |i| (t as u8, i))
        })
        .collect();
    // (child, keeps, reward) of each position.
    let moves: HashMap<Pos, Vec<(Pos, bool, i64)>> = positions
        .iter()
        .map(|p| {
            let ms = if g.is_terminal(p) {
                Vec::new()
            } else {
                g.rules.moves[p.0 as usize][p.1 as usize]
                    .iter()
                    .map(|c| {
                        (
                            *c,
                            g.keeps_turn(p, c),
                            g.rewards.get(&(*p, *c)).copied().unwrap_or(0),
                        )
                    })
                    .collect()
            };
            (*p, ms)
        })
        .collect();
    let through = |s: i64, keeps: bool, reward: i64| if keeps { s } else { -s } + reward;
    let mut score: HashMap<Pos, i64> = HashMap::new();
    for t in 0..g.rules.sizes.len() as u8 {
        let tier: Vec<Pos> = positions.iter().copied().filter(|p| p.0 == t).collect();
        // Nodes (p, side); an edge's end: another node, or a payoff for the mover at p.
        enum End {
            Node(Pos, bool),
            Pay(i64),
        }
        let ends = |p: &Pos, side: bool| -> Vec<End> {
            let sign = if side { -1 } else { 1 };
            if moves[p].is_empty() {
                return vec![End::Pay(sign * g.terminal[p])];
            }
            moves[p]
                .iter()
                .map(|&(c, k, r)| {
                    if c.0 == t {
                        End::Node(c, side ^ !k)
                    } else {
                        End::Pay(sign * through(score[&c], k, r))
                    }
                })
                .collect()
        };
        let mut xs: Vec<i64> = vec![0];
        for p in &tier {
            for side in [false, true] {
                for e in ends(p, side) {
                    if let End::Pay(x) = e {
                        xs.push(x);
                    }
                }
            }
        }
        // Whether the first player makes sure of at least x from each node.
        let at_least = |x: i64| -> HashMap<(Pos, bool), bool> {
            // The attractor of `who` (false: the first player) to payoffs `good`.
            let attract = |who: bool, good: &dyn Fn(i64) -> bool| {
                let mut a: HashMap<(Pos, bool), bool> = HashMap::new();
                loop {
                    let mut changed = false;
                    for p in &tier {
                        for side in [false, true] {
                            if a.get(&(*p, side)) == Some(&true) {
                                continue;
                            }
                            let ok = |e: &End| match e {
                                End::Pay(y) => good(*y),
                                End::Node(c, s) => a.get(&(*c, *s)) == Some(&true),
                            };
                            let es = ends(p, side);
                            let win = if side == who && !moves[p].is_empty() {
                                es.iter().any(ok)
                            } else {
                                es.iter().all(ok)
                            };
                            if win {
                                a.insert((*p, side), true);
                                changed = true;
                            }
                        }
                    }
                    if !changed {
                        return a;
                    }
                }
            };
            let mut out = HashMap::new();
            if x > 0 {
                let a = attract(false, &|y| y >= x);
                for p in &tier {
                    for side in [false, true] {
                        out.insert((*p, side), a.get(&(*p, side)) == Some(&true));
                    }
                }
            } else {
                let b = attract(true, &|y| y < x);
                for p in &tier {
                    for side in [false, true] {
                        out.insert((*p, side), b.get(&(*p, side)) != Some(&true));
                    }
                }
            }
            out
        };
        xs.sort_unstable();
        xs.dedup();
        let mut best: HashMap<Pos, i64> = HashMap::new();
        for &x in &xs {
            let w = at_least(x);
            for p in &tier {
                if w[&(*p, false)] {
                    best.insert(*p, x);
                }
            }
        }
        for p in &tier {
            score.insert(*p, best[p]);
        }
    }
    // Remoteness: None is "never"; u32::MAX stands for it while iterating.
    const NEVER: u32 = u32::MAX;
    let mut rem: HashMap<Pos, u32> = positions
        .iter()
        .map(|p| (*p, if moves[p].is_empty() { 0 } else { NEVER }))
        .collect();
    loop {
        let next: HashMap<Pos, u32> = positions
            .iter()
            .map(|p| {
                let ms = &moves[p];
                if ms.is_empty() {
                    return (*p, 0);
                }
                let s = score[p];
                let keep = ms
                    .iter()
                    .filter(|&&(c, k, r)| through(score[&c], k, r) == s)
                    .map(|&(c, _, _)| rem[&c]);
                let r = if s < 0 { keep.max() } else { keep.min() }.unwrap();
                (*p, if r == NEVER { NEVER } else { r + 1 })
            })
            .collect();
        if next == rem {
            break;
        }
        rem = next;
    }
    positions
        .iter()
        .map(|p| {
            let r = rem[p];
            (*p, Scored::new(score[p], (r != NEVER).then_some(r)))
        })
        .collect()
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn scores_match_the_oracle(seed in any::<u64>(), threads in 1usize..=3) {
        let g = ScoredRandom::new(seed, false);
        let want = oracle(&g);
        let s = in_pool(threads, || solve_scored(&g, &SolveOptions::default()).unwrap());
        for (p, v) in want.iter().filter(|(p, _)| g.solved(p)) {
            prop_assert_eq!(s.value(p).unwrap(), *v, "position {:?}", p);
        }
        // The best move realises the value.
        for (p, v) in want.iter().filter(|(p, _)| g.solved(p)) {
            if let Some((_, best)) = s.moves(p).unwrap().first() {
                prop_assert_eq!(best, v, "best move of {:?}", p);
            }
        }
    }

    #[test]
    fn unit_scores_are_the_unscored_values(seed in any::<u64>()) {
        let g = ScoredRandom::new(seed, true);
        let plain = Again(g.rules.clone());
        let u = solve(&plain, &SolveOptions::default()).unwrap();
        let s = solve_scored(&g, &SolveOptions::default()).unwrap();
        for (t, size) in g.rules.sizes.iter().enumerate() {
            for i in 0..*size {
                if !g.rules.valid[t][i as usize] {
                    continue;
                }
                let p = (t as u8, i);
                if !g.solved(&p) {
                    continue;
                }
                let want: Value = u.value(&p).unwrap().unwrap();
                prop_assert_eq!(s.value(&p).unwrap(), Scored::from(want), "position {:?}", p);
            }
        }
        if g.rules.start.is_some() {
            let (a, b) = (u.stats(), s.stats());
            prop_assert_eq!(
                (a.win, a.loss, a.tie, a.draw, a.positions, a.moves),
                (b.win, b.loss, b.tie, b.draw, b.positions, b.moves)
            );
        }
    }
}

/// A game that never ends after a reward: the rewards collected count, the outcome is their
/// sign, the remoteness none.
#[test]
fn a_game_that_never_ends_keeps_its_rewards() {
    // Tier 1: a position with one exit, worth 2, into tier 0, where two positions move to
    // each other forever.
    let mut rules = Rules::random(1, false, false);
    rules.sizes = vec![2, 1];
    rules.children = vec![vec![], vec![0]];
    rules.valid = vec![vec![true, true], vec![true]];
    rules.moves = vec![vec![vec![(0, 1)], vec![(0, 0)]], vec![vec![(0, 0)]]];
    rules.primitive = vec![vec![None, None], vec![None]];
    rules.again.clear();
    rules.sigma = vec![vec![0, 1], vec![0]];
    rules.start = Some((1, 0));
    let g = ScoredRandom {
        terminal: HashMap::new(),
        rewards: [(((1, 0), (0, 0)), 2)].into_iter().collect(),
        bound: 5,
        rules,
    };
    let s = solve_scored(&g, &SolveOptions::default()).unwrap();
    assert_eq!(s.value(&(0, 0)).unwrap(), Scored::DRAW);
    let v = s.value(&(1, 0)).unwrap();
    assert_eq!(v, Scored::new(2, None));
    assert_eq!(v.to_string(), "win by 2, never ends");
    assert_eq!(s.stats().win, 1);
    assert_eq!(s.stats().draw, 2);
}

/// A score outside the declared range is an error, never a wrong value.
#[test]
fn a_score_past_the_range_is_an_error() {
    let mut g = ScoredRandom::new(7, false);
    g.bound = 0;
    for v in g.terminal.values_mut() {
        *v = 1;
    }
    match solve_scored(&g, &SolveOptions::default()) {
        Err(Error::Game(m)) => assert!(m.contains("outside the declared score range"), "{m}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("solved"),
    }
}

/// Every slot's value with its score (holes and non-canonical slots as `None`), tier by
/// tier.
fn all_scored<G: DenseIndex>(game: &G, s: &TierSolution<'_, G>) -> Vec<Vec<Option<Scored>>> {
    s.tiers()
        .iter()
        .zip(s.tier_sizes())
        .map(|(&t, &n)| {
            (0..n)
                .map(|i| game.unrank(t, i).and_then(|p| s.scored(&p).unwrap()))
                .collect()
        })
        .collect()
}

fn untimed(s: &Stats) -> Stats {
    Stats {
        explore: Default::default(),
        solve: Default::default(),
        ..s.clone()
    }
}

/// Solves on `k` thread ranks: rank 0's values of every tier, and every rank's totals.
fn on_ranks<G: DenseIndex + Sync>(
    g: &G,
    k: usize,
    opts: &SolveOptions,
) -> (Vec<Vec<Option<Scored>>>, Vec<Stats>) {
    let out = retrograde_solve::exchange::run_local(k, |ex| {
        let (s, _) = solve_distributed(g, opts, ex, true).unwrap();
        let values = (ex.rank() == 0).then(|| all_scored(g, &s));
        (values, untimed(s.stats()))
    });
    let stats = out.iter().map(|o| o.1.clone()).collect();
    let values = out.into_iter().next().and_then(|o| o.0).expect("rank 0");
    (values, stats)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Games with scores run the one engine's code on ranks too: 1 to 4 thread ranks give
    /// one process's values and totals, bit for bit.
    #[test]
    fn scored_games_are_solved_alike_on_1_to_4_ranks(seed in any::<u64>()) {
        let g = ScoredRandom::new(seed, false);
        let one = solve(&g, &SolveOptions::default()).unwrap();
        let want = all_scored(&g, &one);
        for k in 1..=4 {
            let (values, stats) = on_ranks(&g, k, &SolveOptions::default());
            prop_assert_eq!(&values, &want, "{} ranks: values", k);
            for st in stats {
                prop_assert_eq!(&st, &untimed(one.stats()), "{} ranks: totals", k);
            }
        }
    }
}

/// A game with scores keeps its database like any other: written as it is solved, opened
/// again with the same values, resumed after a lost and a damaged tier file, and put
/// together by ranks into the same files one process writes.
#[test]
fn a_scored_database_opens_resumes_and_is_the_same_from_ranks() {
    for seed in 0..10 {
        let g = ScoredRandom::new(seed, false);
        let mem = solve(&g, &SolveOptions::default()).unwrap();
        let want = all_scored(&g, &mem);
        let st = MemStorage::new();
        let mut opts = SolveOptions::default();
        opts.storage = Some(std::sync::Arc::new(st.clone()));
        let s = solve(&g, &opts).unwrap();
        assert_eq!(all_scored(&g, &s), want, "seed {seed}: from files");
        assert_eq!(untimed(s.stats()), untimed(mem.stats()));
        let opened = open_scored(&g, std::sync::Arc::new(st.clone()))
            .unwrap()
            .expect("finished");
        assert_eq!(all_scored(&g, opened.solution()), want);
        if let Some(start) = g.rules.start {
            assert_eq!(opened.start_value().unwrap(), mem.scored(&start).unwrap());
        }
        // Every values file holds 4-byte cells.
        let mut names: Vec<String> = st
            .names()
            .into_iter()
            .filter(|n| n.ends_with(".values"))
            .collect();
        names.sort();
        assert!(!names.is_empty());
        // One tier file lost, another damaged: solved again on resume.
        let files: Vec<(String, Vec<u8>)> = names
            .iter()
            .map(|n| (n.clone(), st.get(n).unwrap()))
            .collect();
        st.remove(&names[0]).unwrap();
        if let Some(n) = names.get(1) {
            let mut b = st.get(n).unwrap();
            let at = b.len() - 1;
            b[at] ^= 0x5a;
            st.put(n, b);
        }
        st.remove(META).unwrap();
        opts.resume = true;
        let s = solve(&g, &opts).unwrap();
        assert_eq!(all_scored(&g, &s), want, "seed {seed}: resumed");
        // Ranks put their shares together into the same bytes.
        for k in [2, 3] {
            let st = MemStorage::new();
            let mut opts = SolveOptions::default();
            opts.storage = Some(std::sync::Arc::new(st.clone()));
            let (values, _) = on_ranks(&g, k, &opts);
            assert_eq!(values, want, "seed {seed}, {k} ranks");
            for (n, bytes) in &files {
                let got = st.get(n).map(|b| tierfile::content(&b));
                assert!(
                    got == Some(tierfile::content(bytes)),
                    "seed {seed}, {k} ranks: {n} differs from one process's"
                );
            }
        }
    }
}

/// A declared range past what a cell stores is refused before anything is solved.
#[test]
fn a_range_past_the_cells_is_refused() {
    let mut g = ScoredRandom::new(5, false);
    g.bound = 40_000;
    match solve_scored(&g, &SolveOptions::default()) {
        Err(Error::Unsupported(m)) => assert!(m.contains("32766"), "{m}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("solved"),
    }
}

/// The conformance check of scored games catches a terminal score outside the range, and
/// the solver refuses a range without 0 and a move into a tier that is not a child tier
/// with errors, never a panic.
#[test]
fn broken_scored_games_are_errors() {
    let g = ScoredRandom::new(11, false);
    check_scored(&g, 1000).unwrap();
    let mut bad = ScoredRandom::new(7, false);
    bad.bound = 0;
    for v in bad.terminal.values_mut() {
        *v = 1;
    }
    bad.rewards.clear();
    let e = check_scored(&bad, 1000).unwrap_err();
    assert!(e.contains("outside the range"), "{e}");

    // A range without 0.
    let mut g = ScoredRandom::new(12, false);
    g.bound = -1;
    match solve_scored(&g, &SolveOptions::default()) {
        Err(Error::Game(m)) => assert!(m.contains("does not hold 0"), "{m}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("solved"),
    }
    // The check says so by the same rule, and of a range wider than a cell stores too.
    let e = check_scored(&g, 1000).unwrap_err();
    assert!(e.contains("does not hold 0"), "{e}");
    g.bound = 40_000;
    let e = check_scored(&g, 1000).unwrap_err();
    assert!(e.contains("32766"), "{e}");

    // A move into a tier that is not a child tier.
    let mut g = ScoredRandom::new(13, false);
    let top = g.rules.sizes.len() - 1;
    if top > 0 {
        g.rules.children[0].clear();
        let target = (top as u8, 0u16);
        g.rules.valid[top][0] = true;
        g.rules.valid[0][0] = true;
        g.rules.primitive[0][0] = None;
        g.rules.moves[0][0] = vec![target];
        match solve_scored(&g, &SolveOptions::default()) {
            Err(Error::Game(m)) => assert!(m.contains("not one of its child tiers"), "{m}"),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("solved"),
        }
    }
}

/// [`ScoredRandom`] with the rules' symmetry: scores +1/-1/0 from the primitive values (the
/// same on symmetric positions) and no rewards.
#[derive(Debug)]
struct ScoredSym(ScoredRandom);

impl TierGame for ScoredSym {
    type Position = Pos;
    type Tier = u8;
    type Layout = Dense;
    type Parents = ReverseEdges;
    type Symmetry = Symmetries;
    type Turn = GoAgain;
    type Score = Scores;

    fn name(&self) -> String {
        "random scored symmetric".into()
    }
    fn start(&self) -> Option<Pos> {
        self.0.start()
    }
    fn root_tiers(&self) -> Vec<u8> {
        self.0.root_tiers()
    }
    fn tier(&self, p: &Pos) -> u8 {
        p.0
    }
    fn child_tiers(&self, t: u8, out: &mut Vec<u8>) {
        self.0.child_tiers(t, out)
    }
    fn tier_name(&self, t: u8) -> String {
        self.0.tier_name(t)
    }
    fn primitive(&self, p: &Pos) -> Option<Primitive> {
        self.0.primitive(p)
    }
    fn moves(&self, p: &Pos, out: &mut Vec<Pos>) {
        self.0.moves(p, out)
    }
    fn no_move(&self) -> Primitive {
        self.0.no_move()
    }
}

impl DenseIndex for ScoredSym {
    fn tier_size(&self, t: u8) -> u64 {
        self.0.tier_size(t)
    }
    fn rank(&self, p: &Pos) -> u64 {
        self.0.rank(p)
    }
    fn unrank(&self, t: u8, i: u64) -> Option<Pos> {
        self.0.unrank(t, i)
    }
}

impl GoAgainGame for ScoredSym {
    fn keeps_turn(&self, from: &Pos, to: &Pos) -> bool {
        self.0.keeps_turn(from, to)
    }
}

impl SymmetricGame for ScoredSym {
    fn symmetry_count(&self) -> usize {
        2
    }
    fn apply_symmetry(&self, p: &Pos, g: usize) -> Pos {
        if g == 0 {
            *p
        } else {
            (p.0, self.0.rules.sigma[p.0 as usize][p.1 as usize])
        }
    }
}

impl ScoredGame for ScoredSym {
    fn score_range(&self) -> (i64, i64) {
        self.0.score_range()
    }
    fn terminal_score(&self, p: &Pos) -> i64 {
        self.0.terminal_score(p)
    }
    fn reward(&self, _: &Pos, _: &Pos) -> i64 {
        0
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// With symmetries (one position a class solved), scores +1/-1/0 give the unscored
    /// engine's values on every position and its totals.
    #[test]
    fn symmetric_unit_scores_are_the_unscored_values(seed in any::<u64>()) {
        let rules = Rules::random(seed, true, true);
        let mut base = ScoredRandom::new(seed, true);
        base.rules = rules.clone();
        // Terminal scores from these rules' primitive values.
        for (t, size) in rules.sizes.iter().enumerate() {
            for i in 0..*size {
                let prim = rules.primitive[t][i as usize].or_else(|| {
                    rules.moves[t][i as usize].is_empty().then_some(rules.no_move)
                });
                let v = match prim {
                    Some(Primitive::Win) => 1,
                    Some(Primitive::Loss) => -1,
                    _ => 0,
                };
                base.terminal.insert((t as u8, i), v);
            }
        }
        let g = ScoredSym(base);
        check_scored(&g, 1000).unwrap();
        let plain = SymAgain(rules);
        let u = solve(&plain, &SolveOptions::default()).unwrap();
        let s = solve_scored(&g, &SolveOptions::default()).unwrap();
        for (t, size) in g.0.rules.sizes.iter().enumerate() {
            for i in 0..*size {
                let p = (t as u8, i);
                if !g.0.rules.valid[t][i as usize] || !g.0.solved(&p) {
                    continue;
                }
                let want: Value = u.value(&p).unwrap().unwrap();
                prop_assert_eq!(s.value(&p).unwrap(), Scored::from(want), "position {:?}", p);
            }
        }
        if g.0.rules.start.is_some() {
            let (a, b) = (u.stats(), s.stats());
            prop_assert_eq!(
                (a.win, a.loss, a.tie, a.draw, a.positions, a.classes, a.moves),
                (b.win, b.loss, b.tie, b.draw, b.positions, b.classes, b.moves)
            );
        }
    }
}

/// The values files of a storage, without the database's identity.
fn values_files(st: &MemStorage) -> Vec<(String, Vec<u8>)> {
    (st.names().into_iter())
        .filter(|n| n.ends_with(".values"))
        .map(|n| {
            let b = tierfile::content(&st.get(&n).unwrap());
            (n, b)
        })
        .collect()
}

/// Rank 0's values, every rank's totals, the values files.
type Answer = (Vec<Vec<Option<Scored>>>, Vec<Stats>, Vec<(String, Vec<u8>)>);

/// With or without a storage (then also its values files), in `working` cells: rank 0's
/// values and every rank's totals on `k` thread ranks, or one process's in a pool of
/// `threads` (`k` = 0).
fn solved_in(g: &ScoredRandom, working: Working, k: usize, threads: usize, stored: bool) -> Answer {
    let st = MemStorage::new();
    let mut opts = SolveOptions::default();
    opts.working = working;
    if stored {
        opts.storage = Some(std::sync::Arc::new(st.clone()));
    }
    let (values, stats) = match k {
        0 => in_pool(threads, || {
            let s = solve(g, &opts).unwrap();
            (all_scored(g, &s), vec![untimed(s.stats())])
        }),
        _ => on_ranks(g, k, &opts),
    };
    (values, stats, values_files(&st))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Games with scores solved in class cells (a byte a slot, each stage's levels logged):
    /// the value cells' values, totals and files, byte for byte, with scores +1/-1/0 and
    /// wide, on 1 and 3 threads and 2 to 4 thread ranks, with and without a storage.
    #[test]
    fn class_cells_give_the_scored_value_cells_answer(seed in any::<u64>()) {
        small_rounds_for_tests(true);
        for unit in [false, true] {
            let g = ScoredRandom::new(seed, unit);
            for stored in [false, true] {
                let want = solved_in(&g, Working::Values, 0, 2, stored);
                for threads in [1, 3] {
                    let got = solved_in(&g, Working::Classes, 0, threads, stored);
                    prop_assert_eq!(&got, &want, "{} threads, stored {}", threads, stored);
                }
                for k in 2..=4 {
                    let (values, stats, files) = solved_in(&g, Working::Classes, k, 1, stored);
                    prop_assert_eq!(&values, &want.0, "{} ranks", k);
                    prop_assert_eq!(&stats[0], &want.1[0], "{} ranks", k);
                    prop_assert_eq!(&files, &want.2, "{} ranks", k);
                }
            }
        }
    }
}
