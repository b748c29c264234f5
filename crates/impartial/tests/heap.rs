//! Nim-sequences of heap games against independent computations written here:
//! - a naive mex over every move of every heap, enumerating all ordered splits (no halving,
//!   no bit tricks), straight from the definition of the octal code;
//! - the win/loss engine on explicit rows of heaps (positions are multisets of heaps, explored
//!   with the `Game` trait): a row is lost exactly when the XOR of its heaps' values is 0,
//!   which checks the values and the sum theorem together, without assuming either;
//! - periods: a proved period must hold on a sequence four times longer, and no smaller
//!   period or pre-period may.

use proptest::prelude::*;
use retrograde_games::{solve_game, Game};
use retrograde_graph::Primitive;
use retrograde_impartial::{HeapError, HeapGame, Leaves};
use retrograde_solve::{Outcome, Rules};
use std::collections::BTreeSet;

/// Rules as plain data: `digits[k]` for removing `k` tokens; `unequal` for Grundy's game.
#[derive(Clone, Debug)]
struct Rule {
    digits: Vec<u8>,
    unequal: bool,
}

impl Rule {
    fn octal(code: &str) -> Rule {
        let (whole, frac) = code.split_once('.').unwrap();
        let mut digits = vec![if whole == "4" { 4 } else { 0 }];
        digits.extend(frac.bytes().map(|b| b - b'0'));
        Rule {
            digits,
            unequal: false,
        }
    }

    fn subtraction(set: &[u32]) -> Rule {
        let top = *set.iter().max().unwrap() as usize;
        let mut digits = vec![0; top + 1];
        for &t in set {
            digits[t as usize] = 3;
        }
        Rule {
            digits,
            unequal: false,
        }
    }

    fn grundy() -> Rule {
        Rule {
            digits: vec![4],
            unequal: true,
        }
    }

    /// Every row of heaps one move from a single heap of `n`, each as a list of heap sizes.
    fn options(&self, n: u32) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        for (k, &d) in self.digits.iter().enumerate() {
            let k = k as u32;
            if k > n {
                break;
            }
            let rest = n - k;
            if d & 1 != 0 && rest == 0 {
                out.push(vec![]);
            }
            if d & 2 != 0 && rest > 0 {
                out.push(vec![rest]);
            }
            if d & 4 != 0 {
                for a in 1..rest {
                    let b = rest - a;
                    if !(self.unequal && a == b) {
                        out.push(vec![a, b]);
                    }
                }
            }
        }
        out
    }

    fn naive_sequence(&self, count: usize) -> Vec<u32> {
        let mut g: Vec<u32> = Vec::new();
        for n in 0..count as u32 {
            let reached: BTreeSet<u32> = self
                .options(n)
                .iter()
                .map(|row| row.iter().fold(0, |x, &h| x ^ g[h as usize]))
                .collect();
            g.push((0..).find(|x| !reached.contains(x)).unwrap());
        }
        g
    }
}

/// A row of heaps as a game for the engine. Positions are sorted heap lists.
struct Row<'a>(&'a Rule, Vec<u32>);

impl Game for Row<'_> {
    type Position = Vec<u32>;
    fn start(&self) -> Vec<u32> {
        self.1.clone()
    }
    fn moves(&self, p: &Vec<u32>, out: &mut Vec<Vec<u32>>) {
        for (i, &h) in p.iter().enumerate() {
            for replacement in self.0.options(h) {
                let mut q: Vec<u32> = p[..i].iter().chain(&p[i + 1..]).copied().collect();
                q.extend(replacement);
                q.sort_unstable();
                out.push(q);
            }
        }
    }
    fn primitive(&self, _: &Vec<u32>) -> Option<Primitive> {
        None
    }
}

fn code() -> impl Strategy<Value = String> {
    (
        prop::bool::weighted(0.15),
        prop::collection::vec(0u8..8, 1..=4),
    )
        .prop_map(|(split0, digits)| {
            let d: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
            format!("{}.{d}", if split0 { 4 } else { 0 })
        })
}

#[test]
fn named_games_match_the_naive_sequence() {
    for code in [
        "0.77", "0.07", "0.137", "0.007", "4.7", "0.4", "0.6", "0.0", "0.1",
    ] {
        let game = HeapGame::octal(code).unwrap();
        assert_eq!(
            game.nim_sequence(400),
            Rule::octal(code).naive_sequence(400),
            "{code}"
        );
    }
    assert_eq!(
        HeapGame::grundy_game().nim_sequence(400),
        Rule::grundy().naive_sequence(400)
    );
    assert_eq!(
        HeapGame::subtraction(&[1, 3, 4]).unwrap().nim_sequence(400),
        Rule::subtraction(&[1, 3, 4]).naive_sequence(400)
    );
    assert_eq!(
        HeapGame::nim().nim_sequence(50),
        (0..50).collect::<Vec<u32>>()
    );
}

#[test]
fn values_past_32_take_the_general_path() {
    // Grundy's game passes 32 near heap 1000 (checked, not assumed): the two loops meet.
    let g = HeapGame::grundy_game().nim_sequence(1500);
    assert!(g.iter().any(|&x| x >= 32));
    assert_eq!(g, Rule::grundy().naive_sequence(1500));
}

#[test]
fn rows_of_heaps_match_the_engine() {
    let games: Vec<(HeapGame, Rule)> = vec![
        (HeapGame::octal("0.77").unwrap(), Rule::octal("0.77")),
        (HeapGame::octal("0.137").unwrap(), Rule::octal("0.137")),
        (HeapGame::octal("4.07").unwrap(), Rule::octal("4.07")),
        (HeapGame::grundy_game(), Rule::grundy()),
        (
            HeapGame::subtraction(&[2, 5]).unwrap(),
            Rule::subtraction(&[2, 5]),
        ),
    ];
    for (game, rule) in &games {
        let g = game.nim_sequence(16);
        for start in [vec![13], vec![6, 9], vec![3, 4, 7]] {
            let row = Row(rule, start.clone());
            let s = solve_game(&row, &Rules::default()).unwrap();
            let mut checked = 0;
            // Every position reachable from the start, by its own moves.
            let mut todo = vec![start.clone()];
            let mut seen = BTreeSet::new();
            while let Some(p) = todo.pop() {
                if !seen.insert(p.clone()) {
                    continue;
                }
                let xor = p.iter().fold(0, |x, &h| x ^ g[h as usize]);
                let outcome = s.value(&p).unwrap().outcome();
                assert_eq!(
                    outcome == Outcome::Loss,
                    xor == 0,
                    "{}: row {p:?} (XOR {xor}) is a {outcome}",
                    game.name()
                );
                checked += 1;
                let mut next = Vec::new();
                row.moves(&p, &mut next);
                todo.extend(next);
            }
            assert!(checked > 10, "{} from {start:?}", game.name());
        }
    }
}

#[test]
fn known_periods_are_proved() {
    let check = |code: &str, count: usize, pre: u32, per: u32| {
        let game = HeapGame::octal(code).unwrap();
        let p = game.period(&game.nim_sequence(count)).unwrap();
        assert_eq!((p.preperiod, p.period), (pre, per), "{code}");
    };
    // The classical results (Guy and Smith 1956; Winning Ways), found here from scratch.
    check("0.77", 300, 71, 12);
    check("0.07", 300, 53, 34);
    check("0.137", 300, 52, 34);
    // Subtraction {1,2}: period 3 from the start.
    let pebbles = HeapGame::subtraction(&[1, 2]).unwrap();
    let p = pebbles.period(&pebbles.nim_sequence(10)).unwrap();
    assert_eq!((p.preperiod, p.period), (0, 3));
    // Too few terms: no proof yet.
    let kayles = HeapGame::octal("0.77").unwrap();
    assert_eq!(kayles.period(&kayles.nim_sequence(150)), None);
    // Grundy's game and nim: the theorem does not apply.
    let g = HeapGame::grundy_game();
    assert_eq!(g.period(&g.nim_sequence(500)), None);
    assert_eq!(HeapGame::nim().period(&[0, 1, 2, 3]), None);
}

#[test]
fn moves_are_the_rules() {
    let games = [
        (HeapGame::octal("0.77").unwrap(), Rule::octal("0.77")),
        (HeapGame::octal("4.37").unwrap(), Rule::octal("4.37")),
        (HeapGame::grundy_game(), Rule::grundy()),
        (
            HeapGame::subtraction(&[1, 3, 4]).unwrap(),
            Rule::subtraction(&[1, 3, 4]),
        ),
    ];
    for (game, rule) in &games {
        for n in 0..30 {
            let mut ours: Vec<Vec<u32>> = game
                .moves(n)
                .map(|m| match m.leaves {
                    Leaves::Nothing => vec![],
                    Leaves::One(a) => vec![a],
                    Leaves::Two(a, b) => {
                        assert!(a <= b && a + b + m.take == n);
                        vec![a, b]
                    }
                })
                .collect();
            let mut naive: Vec<Vec<u32>> = rule
                .options(n)
                .into_iter()
                .map(|mut r| {
                    r.sort_unstable();
                    r
                })
                .collect();
            ours.sort();
            ours.dedup();
            naive.sort();
            naive.dedup();
            assert_eq!(ours, naive, "{} heap {n}", game.name());
        }
    }
    let nim: Vec<String> = HeapGame::nim().moves(3).map(|m| m.to_string()).collect();
    assert_eq!(
        nim,
        [
            "take 1, leaving 2",
            "take 2, leaving 1",
            "take 3, leaving nothing"
        ]
    );
}

#[test]
fn bad_codes_and_sets_are_errors() {
    let kind = |code: &str| match HeapGame::octal(code) {
        Err(HeapError::NoPoint(_)) => "no point",
        Err(HeapError::FirstDigit { .. }) => "first digit",
        Err(HeapError::NoDigits(_)) => "no digits",
        Err(HeapError::TooManyDigits(_)) => "too many",
        Err(HeapError::NotOctal { digit: 8, .. }) => "8",
        Err(HeapError::NotADigit { found, .. }) => match found {
            'a' => "a",
            '.' => "point",
            _ => "another character",
        },
        other => panic!("{code:?}: {other:?}"),
    };
    for (bad, why) in [
        ("", "no point"),
        ("77", "no point"),
        ("0.", "no digits"),
        ("1.7", "first digit"),
        ("x.7", "first digit"),
        ("0.8", "8"),
        ("0.7a", "a"),
        ("0.77.7", "point"),
    ] {
        assert_eq!(kind(bad), why, "{bad:?}");
    }
    assert_eq!(kind(&format!("0.{}", "7".repeat(1001))), "too many");
    assert_eq!(
        HeapGame::octal("0.8").unwrap_err().to_string(),
        "octal code \"0.8\": digit 8 is not octal (0 to 7); hexadecimal games are not supported"
    );
    assert_eq!(
        HeapGame::subtraction(&[]).unwrap_err(),
        HeapError::EmptyTakeSet
    );
    assert_eq!(
        HeapGame::subtraction(&[0, 2]).unwrap_err(),
        HeapError::TakesZero
    );
    assert_eq!(HeapGame::octal(".770").unwrap().code(), Some("0.77"));
    assert_eq!(HeapGame::octal("0.000").unwrap().code(), Some("0.0"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_octal_codes_match_the_naive_sequence(code in code(), count in 0usize..120) {
        let game = HeapGame::octal(&code).unwrap();
        prop_assert_eq!(game.nim_sequence(count), Rule::octal(&code).naive_sequence(count));
    }

    #[test]
    fn random_subtraction_games_match(set in prop::collection::vec(1u32..12, 1..5), count in 0usize..150) {
        let game = HeapGame::subtraction(&set).unwrap();
        prop_assert_eq!(game.nim_sequence(count), Rule::subtraction(&set).naive_sequence(count));
    }

    /// A proved period holds far beyond the terms that proved it, and is the least one.
    #[test]
    fn proved_periods_hold(code in code(), count in 20usize..200) {
        let game = HeapGame::octal(&code).unwrap();
        let g = game.nim_sequence(count);
        if let Some(p) = game.period(&g) {
            let (e, per) = (p.preperiod as usize, p.period as usize);
            let long = game.nim_sequence(4 * count);
            for m in e..long.len() - per {
                prop_assert_eq!(long[m], long[m + per], "{}: G({}) vs G({})", code, m, m + per);
            }
            if e > 0 {
                prop_assert_ne!(long[e - 1], long[e - 1 + per]);
            }
            for smaller in 1..per {
                prop_assert!(
                    (e..long.len() - smaller).any(|m| long[m] != long[m + smaller]),
                    "{}: period {} claimed, but {} works from {}", code, per, smaller, e
                );
            }
        }
    }
}
