//! Every algorithm against a brute-force oracle written here, sharing nothing with the
//! solvers: for a small game, try every positional strategy of Even; Odd, left alone to move
//! in the one-player game that remains, wins from a vertex when it can reach a cycle whose
//! largest priority is odd, or a dead end of Even's. Even wins a vertex when some strategy
//! keeps Odd from winning there (parity games are positionally determined).

use proptest::prelude::*;
use retrograde_parity::{
    reduce, solve_with, verify, Algorithm, Claim, Options, ParityGame, Player, Solution,
};

/// A small random game: `n` vertices, moves as given (modulo n), owners and priorities from
/// the lists; `shape` makes one-player games, games of one priority, or plain ones.
fn game(
    n: usize,
    moves: &[(usize, usize)],
    owners: &[bool],
    prios: &[u32],
    shape: u8,
) -> ParityGame {
    let owner = (0..n)
        .map(|v| match shape {
            1 => Player::Even,
            2 => Player::Odd,
            _ => Player::from_bit(owners[v]),
        })
        .collect();
    let priority = (0..n)
        .map(|v| if shape == 3 { 5 } else { prios[v] })
        .collect();
    let moves: Vec<(u32, u32)> = moves
        .iter()
        .map(|&(u, v)| ((u % n) as u32, (v % n) as u32))
        .collect();
    ParityGame::new(priority, owner, &moves).unwrap()
}

/// The vertices from which Odd wins the one-player game where Even's vertices move by
/// `sigma` (`None`: a dead end).
fn odd_wins(g: &ParityGame, sigma: &[Option<u32>]) -> Vec<bool> {
    let n = g.vertex_count();
    let moves = |v: usize| -> Vec<usize> {
        if g.owner(v as u32) == Player::Even {
            sigma[v].map(|s| vec![s as usize]).unwrap_or_default()
        } else {
            g.successors(v as u32).iter().map(|&w| w as usize).collect()
        }
    };
    // Good for Odd: an Even dead end, or a vertex of odd priority p on a cycle of vertices
    // of priority at most p.
    let mut good = vec![false; n];
    for u in 0..n {
        if g.owner(u as u32) == Player::Even && sigma[u].is_none() {
            good[u] = true;
            continue;
        }
        let p = g.priority(u as u32);
        if p % 2 == 1 {
            let mut seen = vec![false; n];
            let mut stack: Vec<usize> = moves(u)
                .into_iter()
                .filter(|&w| g.priority(w as u32) <= p)
                .collect();
            while let Some(x) = stack.pop() {
                if seen[x] {
                    continue;
                }
                seen[x] = true;
                for w in moves(x) {
                    if g.priority(w as u32) <= p {
                        stack.push(w);
                    }
                }
            }
            good[u] = seen[u];
        }
    }
    // Odd wins where it can reach a good vertex.
    (0..n)
        .map(|v| {
            let mut seen = vec![false; n];
            let mut stack = vec![v];
            while let Some(x) = stack.pop() {
                if seen[x] {
                    continue;
                }
                seen[x] = true;
                if good[x] {
                    return true;
                }
                stack.extend(moves(x));
            }
            false
        })
        .collect()
}

/// Even's winning region, by trying all of Even's positional strategies.
fn oracle(g: &ParityGame) -> Vec<bool> {
    let n = g.vertex_count();
    let even: Vec<usize> = (0..n)
        .filter(|&v| g.owner(v as u32) == Player::Even && !g.successors(v as u32).is_empty())
        .collect();
    let mut choice = vec![0usize; even.len()];
    let mut sigma: Vec<Option<u32>> = vec![None; n];
    let mut w0 = vec![false; n];
    loop {
        for (k, &v) in even.iter().enumerate() {
            sigma[v] = Some(g.successors(v as u32)[choice[k]]);
        }
        for (v, odd) in odd_wins(g, &sigma).into_iter().enumerate() {
            w0[v] |= !odd;
        }
        // The next strategy, as a counter.
        let mut k = 0;
        loop {
            if k == even.len() {
                return w0;
            }
            choice[k] += 1;
            if choice[k] < g.successors(even[k] as u32).len() {
                break;
            }
            choice[k] = 0;
            k += 1;
        }
    }
}

fn even_region(s: &Solution) -> Vec<bool> {
    s.winners().iter().map(|&w| w == Player::Even).collect()
}

fn all_options() -> Vec<Options> {
    let mut out = Vec::new();
    for algorithm in Algorithm::ALL {
        for preprocess in [true, false] {
            for scc in [false, true] {
                out.push(Options {
                    algorithm,
                    preprocess,
                    scc,
                });
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// Every algorithm, with and without preprocessing and components, finds the oracle's
    /// winners on small games of every shape (self-loops, dead ends, one player, one
    /// priority), with strategies the verifier accepts.
    #[test]
    fn algorithms_match_the_oracle(
        n in 1usize..9,
        moves in prop::collection::vec((0usize..9, 0usize..9), 0..22),
        owners in prop::collection::vec(any::<bool>(), 9),
        prios in prop::collection::vec(0u32..6, 9),
        shape in 0u8..6,
    ) {
        let g = game(n, &moves, &owners, &prios, shape);
        let expect = oracle(&g);
        for opts in all_options() {
            let (s, _) = solve_with(&g, &opts);
            prop_assert_eq!(&even_region(&s), &expect, "{:?}", opts);
            prop_assert_eq!(verify(&g, &Claim::from(&s)), Ok(()), "{:?}", opts);
        }
    }
}

/// A random game of `n` vertices with out-degrees 1 to `deg` (dead ends sometimes), and
/// priorities below `d`.
fn random_game(seed: u64, n: usize, deg: usize, d: u32) -> ParityGame {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut moves = Vec::new();
    for u in 0..n {
        let k = if rng.gen_bool(0.02) {
            0
        } else {
            rng.gen_range(1..=deg)
        };
        for _ in 0..k {
            moves.push((u as u32, rng.gen_range(0..n) as u32));
        }
    }
    let owner = (0..n)
        .map(|_| Player::from_bit(rng.gen_bool(0.5)))
        .collect();
    let priority = (0..n).map(|_| rng.gen_range(0..d)).collect();
    ParityGame::new(priority, owner, &moves).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// On larger random games, every algorithm and option finds the same winners, each
    /// verified; and the reductions (compressed, inflated priorities) keep them.
    #[test]
    fn algorithms_agree(seed in any::<u64>(), n in 1usize..120, deg in 1usize..4, d in 1u32..12) {
        let g = random_game(seed, n, deg, d);
        let reference = even_region(&solve_with(&g, &Options::default()).0);
        for opts in all_options() {
            let (s, _) = solve_with(&g, &opts);
            prop_assert_eq!(&even_region(&s), &reference, "{:?}", opts);
            prop_assert_eq!(verify(&g, &Claim::from(&s)), Ok(()), "{:?}", opts);
        }
        for h in [reduce::compress(&g), reduce::inflate(&g)] {
            let (s, _) = solve_with(&h, &Options::default());
            prop_assert_eq!(&even_region(&s), &reference);
            prop_assert_eq!(verify(&h, &Claim::from(&s)), Ok(()));
        }
    }
}
