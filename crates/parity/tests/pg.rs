//! The PGSolver format: what it reads, what it refuses (with the line and what was
//! expected), and that writing and reading again gives the same game.

use proptest::prelude::*;
use retrograde_parity::pg::{parse_game, parse_solution, write_game, write_solution};
use retrograde_parity::{decompress, solve, ParityGame, Player};

fn error(text: &str) -> String {
    parse_game(text.as_bytes()).unwrap_err().to_string()
}

#[test]
fn reads_the_format() {
    let g = parse_game(
        b"parity 3;\nstart 2;\n0 3 1 1,2 \"a b;c\";\n1 0 0 0;\n2 7 1 2 \"x\";\n3 2 0 3,0,1;\n",
    )
    .unwrap();
    assert_eq!(g.vertex_count(), 4);
    assert_eq!(g.edge_count(), 7);
    assert_eq!(g.start(), Some(2));
    assert_eq!(g.priorities(), &[3, 0, 7, 2]);
    assert_eq!(g.owner(0), Player::Odd);
    assert_eq!(g.name(0), Some("a b;c"));
    assert_eq!(g.name(1), None);
    assert_eq!(g.successors(3), &[0, 1, 3]);
    // No header, vertices out of order, one spread over lines, a dead end.
    let g = parse_game(b"2 1 0 0;\n0\n 4 1\n 2 ,\n 1 \"zero\"\n ;\n1 2 1;").unwrap();
    assert_eq!(g.vertex_count(), 3);
    assert_eq!(g.successors(0), &[1, 2]);
    assert_eq!(g.name(0), Some("zero"));
    assert!(g.successors(1).is_empty());
    assert_eq!(g.successors(2), &[0]);
    // The header may give the count (as the SYNTCOMP games do) instead of the largest id.
    assert_eq!(
        parse_game(b"parity 2;\n0 0 0 1;\n1 0 0 0;\n")
            .unwrap()
            .vertex_count(),
        2
    );
    // An empty game; a byte order mark; Windows line ends.
    assert_eq!(parse_game(b"").unwrap().vertex_count(), 0);
    assert_eq!(parse_game(b" \n\t").unwrap().vertex_count(), 0);
    assert_eq!(parse_game(b"parity 0;\n").unwrap().vertex_count(), 0);
    assert_eq!(
        parse_game(b"\xEF\xBB\xBFparity 0;\r\n0 1 1 0;\r\n")
            .unwrap()
            .vertex_count(),
        1
    );
    // The largest priority and id there are.
    let g = parse_game(b"0 4294967295 0 0;\n").unwrap();
    assert_eq!(g.priority(0), u32::MAX);
}

#[test]
fn refuses_bad_input_with_the_line() {
    let cases = [
        ("0 1 0 0;\n0 2 0 0;\n", "2: vertex 0 is given twice (first on line 1)"),
        ("0 1 0 2;\n2 1 0 0;\n", "vertex 1 has no line: every id from 0 to the largest, 2, needs one"),
        ("0 1 0 0;\n\n5 1 0 0;\n", "vertex 1 has no line: every id from 0 to the largest, 5, needs one"),
        ("0 1 0 1;\n", "1: successor 1 of vertex 0 is not a vertex (the largest id is 0)"),
        ("parity 1;\n0 1 0 0;\n1 0 0 2;\n", "3: successor 2 of vertex 1 is not a vertex (the largest id is 1)"),
        ("0 1 0 0;\n1 4294967296 1 0;\n", "2: priority 4294967296 of vertex 1 is too large (priorities are at most 4294967295)"),
        ("0 1 2 0;\n", "1: the owner of vertex 0 must be 0 (Even) or 1 (Odd), found 2"),
        ("0 1 0 0\n", "2: expected a successor, a name in quotes or ';' ending vertex 0, found the end of the file"),
        ("0 1 0 0 1;\n", "1: expected ',' between the successors of vertex 0, or ';', found \"1\""),
        ("0 1 0 0,;\n", "1: expected a successor of vertex 0 after ',', found \";\""),
        ("0 1;\n", "1: expected the owner of vertex 0 (0 or 1), found \";\""),
        ("x 1 0 0;\n", "1: expected a vertex id, found \"x\""),
        ("0 1 0 0 \"ab;\n", "1: the name of vertex 0 has no closing '\"'"),
        ("parity 5;\n0 1 0 0;\n", "1: the header gives 5 as the largest vertex id, but the largest id is 0"),
        ("parity 0;\n0 1 0 0;\n1 1 0 0;\n", "3: vertex id 1 is past the largest id 0 the header gives"),
        ("parity x;\n", "1: expected the largest vertex id after \"parity\", found \"x\""),
        ("parity 3\n0 1 0 0;", "2: expected ';' after the header, found \"0\""),
        ("start 4;\n0 1 0 0;\n", "1: the start 4 is not a vertex (the largest id is 0)"),
        ("4294967295 1 0 0;\n", "1: vertex id 4294967295 is too large (ids are at most 4294967294)"),
        ("0 1 0 99999999999999999999;\n", "1: a successor of vertex 0 \"99999999999999999999\" is too large"),
        ("0 1 0 0;\n1 1 0 0 \"a\" \"b\";\n", "2: expected a successor, a name in quotes or ';' ending vertex 1, found \"\"b\"\""),
    ];
    for (text, expect) in cases {
        assert_eq!(error(text), expect, "{text:?}");
    }
    assert_eq!(
        parse_game(b"0 1 0 0 \"\xff\";").unwrap_err().to_string(),
        "1: the name of vertex 0 is not UTF-8"
    );
}

#[test]
fn solutions_read_and_write() {
    let g = parse_game(b"parity 2;\n0 3 0 1;\n1 1 1 0,2;\n2 4 0 2;\n").unwrap();
    let s = solve(&g);
    let mut out = Vec::new();
    write_solution(&g, &s, &mut out).unwrap();
    let claim = parse_solution(&out, 3).unwrap();
    assert_eq!(
        claim.winner,
        [Some(Player::Odd), Some(Player::Odd), Some(Player::Even)]
    );
    assert_eq!(claim.strategy, [None, Some(0), Some(2)]);
    // Oink's header (the count) and a missing vertex are read; judging is the verifier's.
    let claim = parse_solution(b"paritysol 2;\n0 1;\n", 3).unwrap();
    assert_eq!(claim.winner[1], None);
    // Our CSV.
    let claim = parse_solution(
        b"vertex,priority,owner,winner,strategy\n0,3,0,1,\n1,1,1,1,0\n",
        3,
    )
    .unwrap();
    assert_eq!(claim.strategy[1], Some(0));
    for (text, expect) in [
        (
            "0 2;\n",
            "1: the winner of vertex 0 must be 0 (Even) or 1 (Odd), found 2",
        ),
        (
            "0 1;\n3 0;\n",
            "2: vertex 3 is not a vertex of the game (its vertices are 0 to 2)",
        ),
        (
            "0 1;\n0 1;\n",
            "2: vertex 0 is given twice (first on line 1)",
        ),
        ("0 1 2 3;\n", "1: expected ';' ending vertex 0, found \"3\""),
        (
            "0;\n",
            "1: expected the winner of vertex 0 (0 or 1), found \";\"",
        ),
        (
            "vertex,winner\n0,1\n",
            "1: the CSV header has no column \"strategy\" (it has \"vertex,winner\")",
        ),
        (
            "vertex,winner,strategy\n0,1\n",
            "2: expected 3 fields as in the header, found 2",
        ),
        (
            "vertex,winner,strategy\n0,x,\n",
            "2: expected a winner (0 or 1), found \"x\"",
        ),
    ] {
        assert_eq!(
            parse_solution(text.as_bytes(), 3).unwrap_err().to_string(),
            expect,
            "{text:?}"
        );
    }
}

/// Made by the `gzip` and `bzip2` programs, not by the crates the reader uses:
/// `printf 'parity 1;\n0 2 0 1;\n1 1 1 0;\n' | gzip -9n` (and `| bzip2 -9`).
const GZ: &[u8] = include_bytes!("data/small.pg.gz");
const BZ: &[u8] = include_bytes!("data/small.pg.bz2");

#[test]
fn compressed_files() {
    let text = b"parity 1;\n0 2 0 1;\n1 1 1 0;\n";
    assert_eq!(&*decompress(GZ, None).unwrap(), text);
    assert_eq!(&*decompress(BZ, None).unwrap(), text);
    // Two members one after the other, as `cat a.gz b.gz` makes: both.
    let twice = [GZ, GZ].concat();
    assert_eq!(decompress(&twice, None).unwrap().len(), 2 * text.len());
    assert_eq!(
        decompress(GZ, Some(5)).unwrap_err().to_string(),
        "the gzip file decompresses to more than 5 bytes, the memory limit"
    );
    assert!(decompress(&GZ[..GZ.len() - 6], None)
        .unwrap_err()
        .to_string()
        .starts_with("the gzip data is damaged or cut short"));
    assert!(decompress(&BZ[..BZ.len() - 6], None)
        .unwrap_err()
        .to_string()
        .starts_with("the bzip2 data is damaged or cut short"));
    assert!(decompress(b"BZh9garbage", None).is_err());
}

fn arbitrary_game() -> impl Strategy<Value = ParityGame> {
    (1usize..12).prop_flat_map(|n| {
        (
            prop::collection::vec(0u32..20, n),
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec((0..n as u32, 0..n as u32), 0..3 * n),
            prop::collection::vec("[a-z0-9 ;,]{0,4}", n),
            prop::option::of(0..n as u32),
        )
            .prop_map(move |(prio, owner, moves, names, start)| {
                let owner = owner.into_iter().map(Player::from_bit).collect();
                ParityGame::new(prio, owner, &moves)
                    .unwrap()
                    .with_names(&names)
                    .unwrap()
                    .with_start(start)
                    .unwrap()
            })
    })
}

proptest! {
    /// Writing a game and reading it back gives the same game.
    #[test]
    fn write_then_read_is_the_same_game(g in arbitrary_game()) {
        let mut out = Vec::new();
        write_game(&g, &mut out).unwrap();
        let h = parse_game(&out).unwrap();
        prop_assert_eq!(h.vertex_count(), g.vertex_count());
        prop_assert_eq!(h.priorities(), g.priorities());
        prop_assert_eq!(h.start(), g.start());
        for v in 0..g.vertex_count() as u32 {
            prop_assert_eq!(h.owner(v), g.owner(v));
            prop_assert_eq!(h.successors(v), g.successors(v));
            prop_assert_eq!(h.name(v), g.name(v));
        }
    }

    /// Any bytes: an error or a game, never a panic.
    #[test]
    fn never_panics(bytes in prop::collection::vec(prop::sample::select(b"parity start 0123456789;,\"\n \t x".to_vec()), 0..80)) {
        let _ = parse_game(&bytes);
        let _ = parse_solution(&bytes, 5);
    }
}
