//! The Great Game: the public Algolab cases, agreement of the three methods with each other
//! and with a plain minimax written here from the rules, a big input, and parse errors.

use proptest::prelude::*;
use proptest::sample::Index;
use retrograde_games::great_game::{
    format_output, parse, solve, solve_all, GreatGame, Instance, Method, Position, Winner,
};
use retrograde_games::{solve_game, Game};
use retrograde_solve::{Outcome, Rules};
use std::path::Path;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/great-game");

fn read(name: &str) -> Vec<u8> {
    let dir = Path::new(DATA);
    assert!(
        dir.is_dir(),
        "the public Algolab cases of the Great Game are missing: looked in {} \
         (expected sample, test1, test2, test3 .in/.out there)",
        dir.display()
    );
    let path = dir.join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The expected output, one trimmed line per case.
fn expected(name: &str) -> Vec<String> {
    String::from_utf8(read(&format!("{name}.out")))
        .expect("the .out file is text")
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

fn check_public(name: &str, methods: &[Method]) {
    let cases = parse(&read(&format!("{name}.in")))
        .unwrap_or_else(|e| panic!("{name}.in does not parse: {e}"));
    let want = expected(name);
    assert_eq!(
        cases.len(),
        want.len(),
        "{name}: cases in .in vs lines in .out"
    );
    for &method in methods {
        let got = format_output(&solve_all(&cases, method));
        let got: Vec<&str> = got.lines().collect();
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{name}: {method} on test case {}", k + 1);
        }
    }
}

#[test]
fn public_sample() {
    check_public("sample", &Method::ALL);
}

#[test]
fn public_test1() {
    check_public("test1", &Method::ALL);
}

#[test]
fn public_test2() {
    check_public("test2", &Method::ALL);
}

/// Test set 3 (n up to 1824, 40 cases): all three methods; the product method explores up
/// to a few million positions a case, a few seconds in a debug build.
#[test]
fn public_test3() {
    check_public("test3", &Method::ALL);
}

/// The rules, played out literally: counts of moves made by each player, who is to move,
/// which meeple he must move, and the winner when a meeple lands on n. Plain recursion, no
/// memo (fine for the tiny boards here).
fn brute(
    inst: &Instance,
    red: u32,
    black: u32,
    sherlock_moves: u32,
    moriarty_moves: u32,
) -> Winner {
    let n = inst.n();
    let sherlock_to_move = sherlock_moves == moriarty_moves;
    let moves_red = if sherlock_to_move {
        sherlock_moves % 2 == 0
    } else {
        moriarty_moves % 2 == 1
    };
    let me = if sherlock_to_move {
        Winner::Sherlock
    } else {
        Winner::Moriarty
    };
    let from = if moves_red { red } else { black };
    let succ = inst.successors(from);
    assert!(!succ.is_empty(), "a dead end at {from} below n = {n}");
    let (s, m) = if sherlock_to_move {
        (sherlock_moves + 1, moriarty_moves)
    } else {
        (sherlock_moves, moriarty_moves + 1)
    };
    let won = succ.iter().any(|&to| {
        let (r, b) = if moves_red { (to, black) } else { (red, to) };
        let w = if r == n {
            Winner::Sherlock
        } else if b == n {
            Winner::Moriarty
        } else {
            brute(inst, r, b, s, m)
        };
        w == me
    });
    if won {
        me
    } else {
        match me {
            Winner::Sherlock => Winner::Moriarty,
            Winner::Moriarty => Winner::Sherlock,
        }
    }
}

/// A random board of the problem's kind: `n` in 2..=12, every vertex below `n` with an
/// edge to a random larger vertex (so `n` is reachable from everywhere, as the problem
/// guarantees), up to `2n` more random increasing edges (parallel ones possible), in a
/// mixed order, and random starts below `n`.
fn arb_case() -> impl Strategy<Value = (u32, u32, u32, Vec<(u32, u32)>)> {
    (2u32..=12)
        .prop_flat_map(|n| {
            (
                Just(n),
                1..n,
                1..n,
                proptest::collection::vec(any::<Index>(), (n - 1) as usize),
                proptest::collection::vec((any::<Index>(), any::<Index>()), 0..=2 * n as usize),
                any::<Index>(),
            )
        })
        .prop_map(|(n, r, b, needed, extra, split)| {
            let mut edges: Vec<(u32, u32)> = extra
                .iter()
                .map(|(a, c)| {
                    let u = 1 + a.index((n - 1) as usize) as u32;
                    (u, u + 1 + c.index((n - u) as usize) as u32)
                })
                .collect();
            let needed = (1..n)
                .zip(&needed)
                .map(|(u, c)| (u, u + 1 + c.index((n - u) as usize) as u32));
            // Put the required edges somewhere in the middle, so that adjacency orders vary.
            let at = split.index(edges.len() + 1);
            edges.splice(at..at, needed);
            (n, r, b, edges)
        })
}

fn to_text(n: u32, r: u32, b: u32, edges: &[(u32, u32)]) -> String {
    let mut s = format!("1\n{n} {}\n{r} {b}\n", edges.len());
    for (u, v) in edges {
        s.push_str(&format!("{u} {v}\n"));
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Product, memo and minimax agree with each other and with the literal rules; the
    /// product solution agrees with them at every reachable position too, and the text
    /// form parses back to the same board.
    #[test]
    fn methods_agree_with_brute_force((n, r, b, edges) in arb_case()) {
        let inst = Instance::new(n, r, b, &edges).unwrap();
        let parsed = parse(to_text(n, r, b, &edges).as_bytes()).unwrap();
        prop_assert_eq!(&parsed, &vec![inst.clone()]);

        let truth = brute(&inst, r, b, 0, 0);
        for method in Method::ALL {
            prop_assert_eq!(solve(&inst, method), truth, "{}", method);
        }

        let game = GreatGame::new(&inst);
        let solution = solve_game(&game, &Rules::default()).unwrap();
        let mut checked = 0;
        for red in r..=n {
            for black in b..=n {
                for player in [Winner::Sherlock, Winner::Moriarty] {
                    for parity in 0..2u8 {
                        let p = Position { red, black, player, parity };
                        let Some(value) = solution.value(&p) else { continue };
                        checked += 1;
                        let truth = match p.winner(n) {
                            Some(w) => w,
                            None => {
                                // Moves made so far, as the literal rules count them.
                                let t = u32::from(parity);
                                let (s, m) = match player {
                                    Winner::Sherlock => (t, t),
                                    Winner::Moriarty => (t + 1, t),
                                };
                                brute(&inst, red, black, s, m)
                            }
                        };
                        let to_move_wins = value.outcome() == Outcome::Win;
                        prop_assert!(matches!(value.outcome(), Outcome::Win | Outcome::Loss));
                        prop_assert_eq!(to_move_wins, truth == player, "at {:?}", p);
                    }
                }
            }
        }
        prop_assert_eq!(checked, solution.stats().positions);
        prop_assert!(game.index_size().is_some());
    }

    /// Parsing never panics, whatever the bytes.
    #[test]
    fn parse_never_panics(bytes in proptest::collection::vec(
        prop_oneof![
            Just(b' '),
            Just(b'\n'),
            Just(b'1'),
            Just(b'2'),
            Just(b'3'),
            Just(b'0'),
            any::<u8>(),
        ],
        0..64,
    )) {
        let _ = parse(&bytes);
    }

    /// The sample with a few bytes changed: never a panic, and whenever it still parses,
    /// the three methods still agree with the rules.
    #[test]
    fn mutated_sample(edits in proptest::collection::vec(
        (any::<Index>(), prop_oneof![Just(b' '), Just(b'\n'), (b'0'..=b'9'), any::<u8>()]),
        1..4,
    )) {
        let mut text = b"2\n3 2\n1 1\n1 2\n2 3\n7 9\n1 2\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n1 5\n3 5\n4 6\n".to_vec();
        for (at, byte) in edits {
            let i = at.index(text.len());
            text[i] = byte;
        }
        if let Ok(cases) = parse(&text) {
            for inst in &cases {
                let truth = brute(inst, inst.red(), inst.black(), 0, 0);
                for method in Method::ALL {
                    prop_assert_eq!(solve(inst, method), truth, "{}", method);
                }
            }
        }
    }
}

/// A chain 1 → 2 → … → 50 000 plus a parallel edge 1 → 2 (n = m = 50 000): no method may
/// recurse along it. Red needs 49 999 moves, black 49 998: Moriarty.
#[test]
fn long_chain() {
    let n = 50_000u32;
    let mut edges: Vec<(u32, u32)> = (1..n).map(|u| (u, u + 1)).collect();
    edges.push((1, 2));
    let inst = Instance::new(n, 1, 2, &edges).unwrap();
    assert_eq!(inst.edge_count(), n as usize);
    assert_eq!(solve(&inst, Method::Minimax), Winner::Moriarty);
    assert_eq!(solve(&inst, Method::Memo), Winner::Moriarty);
    assert_eq!(solve(&inst, Method::Product), Winner::Moriarty);

    // The same through the parser, in one text of two cases.
    let mut text = format!("2\n{n} {n}\n1 2\n");
    for (u, v) in &edges {
        text.push_str(&format!("{u} {v}\n"));
    }
    text.push_str(&format!("{n} {n}\n2 1\n"));
    for (u, v) in &edges {
        text.push_str(&format!("{u} {v}\n"));
    }
    let cases = parse(text.as_bytes()).unwrap();
    assert_eq!(
        solve_all(&cases, Method::Minimax),
        [Winner::Moriarty, Winner::Sherlock]
    );
}

/// The line and the message of a parse error.
fn error(text: &str) -> (u64, String) {
    let e = parse(text.as_bytes()).expect_err(text);
    (e.line.expect("errors carry a line"), e.message)
}

#[test]
fn parse_errors_missing_tokens() {
    assert_eq!(
        error(""),
        (
            1,
            "expected the number of test cases t, found the end of the input".into()
        )
    );
    assert_eq!(
        error("1\n3 2\n1 1\n1 2\n"),
        (
            4,
            "expected edge 2 of 2: a vertex u from 1 to 3, found the end of the input".into()
        )
    );
    assert_eq!(
        error("1\n3 2\n1 1\n1 2\n2"),
        (
            5,
            "expected edge 2 of 2: a vertex v from 1 to 3, found the end of the input".into()
        )
    );
    assert_eq!(
        error("1\n3\n"),
        (
            2,
            "expected the number of edges m of test case 1, found the end of the input".into()
        )
    );
    // m far beyond the input: an error at the end, not a huge allocation.
    assert_eq!(error("1\n3 18446744073709551615\n1 1\n1 2\n2 3\n").0, 5);
}

#[test]
fn parse_errors_not_numbers() {
    assert_eq!(
        error("x"),
        (1, "expected the number of test cases t, found \"x\"".into())
    );
    assert_eq!(
        error("1\n3 2\n1 1\n1 2\n2 x\n"),
        (
            5,
            "expected edge 2 of 2: a vertex v from 1 to 3, found \"x\"".into()
        )
    );
    assert_eq!(
        error("1\n3 -2\n"),
        (
            2,
            "expected the number of edges m of test case 1, found \"-2\"".into()
        )
    );
    assert_eq!(error("1\n3 2\n1 +1\n").0, 3);
    assert_eq!(error("1\n3 2\n1.0 1\n").0, 3);
    assert_eq!(error("99999999999999999999\n").0, 1);
}

#[test]
fn parse_errors_vertex_ids() {
    assert_eq!(
        error("1\n3 2\n1 1\n1 2\n2 4\n"),
        (
            5,
            "expected edge 2 of 2: a vertex v from 1 to 3, found \"4\"".into()
        )
    );
    assert_eq!(
        error("1\n3 2\n1 1\n0 2\n2 3\n"),
        (
            4,
            "expected edge 1 of 2: a vertex u from 1 to 3, found \"0\"".into()
        )
    );
    assert_eq!(
        error("1\n3 2\n1 1\n1 2\n3 2\n"),
        (
            5,
            "edges must go from a smaller to a larger vertex, found \"3 2\"".into()
        )
    );
    assert_eq!(
        error("1\n3 2\n1 1\n2 2\n1 3\n"),
        (
            4,
            "edges must go from a smaller to a larger vertex, found \"2 2\"".into()
        )
    );
}

#[test]
fn parse_errors_sizes_and_starts() {
    assert_eq!(
        error("1\n1 0\n1 1\n"),
        (
            2,
            "expected the number of vertices n of test case 1, from 2 to 4294967295, found \"1\""
                .into()
        )
    );
    assert_eq!(error("1\n0 0\n").0, 2);
    assert_eq!(error("1\n4294967296 0\n").0, 2);
    assert_eq!(
        error("1\n3 2\n3 1\n1 2\n2 3\n"),
        (3, "expected the red meeple's start r, a vertex from 1 to 2 (below the target 3), found \"3\"".into())
    );
    assert_eq!(error("1\n3 2\n0 1\n1 2\n2 3\n").0, 3);
    assert_eq!(
        error("1\n3 2\n1\n\n3\n1 2\n2 3\n"),
        (5, "expected the black meeple's start b, a vertex from 1 to 2 (below the target 3), found \"3\"".into())
    );
}

#[test]
fn parse_errors_dead_ends() {
    // Vertex 2 of 4 has no edge: n is not reachable from it. Reported on the case's header.
    assert_eq!(
        error("1\n4 2\n1 1\n1 3\n3 4\n"),
        (2, "test case 1: vertex 2 has no outgoing edge, but the target 4 must be reachable from every vertex".into())
    );
    // Enough edges in number, but 3 has none.
    assert_eq!(
        error("2\n3 2\n1 1\n1 2\n2 3\n4 3\n1 1\n1 2\n2 4\n1 4\n"),
        (6, "test case 2: vertex 3 has no outgoing edge, but the target 4 must be reachable from every vertex".into())
    );
    // A huge n with one edge: found without an n-sized array.
    assert_eq!(
        error("1\n4294967295 1\n1 1\n1 2\n"),
        (2, "test case 1: vertex 2 has no outgoing edge, but the target 4294967295 must be reachable from every vertex".into())
    );
}

#[test]
fn parse_errors_case_count() {
    // Fewer cases than announced.
    assert_eq!(
        error("2\n3 2\n1 1\n1 2\n2 3\n"),
        (5, "expected the number of vertices n of test case 2, from 2 to 4294967295, found the end of the input".into())
    );
    // More.
    assert_eq!(
        error("1\n3 2\n1 1\n1 2\n2 3\n3 1\n"),
        (
            6,
            "expected the end of the input after 1 test case, found \"3\"".into()
        )
    );
    assert_eq!(
        error("0\n\n  junk"),
        (
            3,
            "expected the end of the input after 0 test cases, found \"junk\"".into()
        )
    );
    // An announced count far beyond the input.
    assert_eq!(error("18446744073709551615\n3 2\n1 1\n1 2\n2 3\n").0, 5);
}

#[test]
fn parse_accepts_any_whitespace() {
    let sample = read("sample.in");
    let crlf: Vec<u8> = String::from_utf8(sample.clone())
        .unwrap()
        .replace('\n', "\r\n")
        .into_bytes();
    let one_line: Vec<u8> = sample
        .iter()
        .map(|&c| if c == b'\n' { b'\t' } else { c })
        .collect();
    let base = parse(&sample).unwrap();
    assert_eq!(parse(&crlf).unwrap(), base);
    assert_eq!(parse(&one_line).unwrap(), base);
    assert_eq!(parse(b"0").unwrap(), Vec::new());
    // Line numbers still count '\n' when tokens wander across lines.
    assert_eq!(error("1\r\n3\r\n2 1 1 1 2\r\n\r\n2 x").0, 5);
}
