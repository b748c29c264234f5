//! Every algorithm against the brute-force oracle of `common` (every positional strategy of
//! Even, then Odd's one-player game), and against each other on larger games.

mod common;

use common::{game, oracle, random_game};
use proptest::prelude::*;
use retrograde_parity::{reduce, solve_with, verify, Algorithm, Claim, Options, Player, Solution};

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
