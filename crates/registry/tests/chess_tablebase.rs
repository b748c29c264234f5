//! The chess tablebase API (`retrograde_registry::chess`): a set of every ending of up to
//! three pieces, solved once into a temporary directory, probed by FEN and by cozy-chess
//! board, and checked against each ending solved alone (the registry's query, as `retrograde
//! game chess KQvK --query` answers it) and against the published depths to mate.

use retrograde_registry::chess::{dtm, ProbeError, Tablebase, Wdl};
use retrograde_registry::{entry, Args, Built, Query, QueryError};
use retrograde_solve::exchange::Solo;
use retrograde_solve::Value;
use retrograde_tier::{DirStorage, Error, SolveOptions};
use std::sync::{Arc, OnceLock};

/// The registry's game of `args` (the parameters as `database.json` records them).
fn built(game: &str, args: serde_json::Value) -> Box<dyn Built> {
    let e = entry(game).expect("a built-in game");
    e.build(&Args::from_json(e.params, &args).expect("parameters"))
        .expect("a game")
}

/// Solves `game` into `dir`, as `retrograde game ... --db DIR` does.
fn solve_into(game: &str, args: serde_json::Value, dir: &std::path::Path) {
    let built = built(game, args);
    let mut opts = SolveOptions::default();
    opts.storage = Some(Arc::new(DirStorage::new(dir.to_path_buf())));
    built.solve(&opts, &Solo).expect("solved");
}

/// The report of `ending` solved alone (in memory), as `retrograde game chess ENDING`
/// prints it.
fn report_alone(ending: &str) -> retrograde_registry::Report {
    let alone = built("chess", serde_json::json!({ "material": ending }));
    let answer = alone.solve(&SolveOptions::default(), &Solo).unwrap().answer;
    answer.report().unwrap()
}

/// Every ending of up to three pieces, solved once for all the tests.
fn set3() -> &'static Tablebase {
    static TB: OnceLock<(tempfile::TempDir, Tablebase)> = OnceLock::new();
    &TB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        solve_into("chess", serde_json::json!({ "up-to": 3 }), dir.path());
        let tb = Tablebase::open(dir.path()).expect("a tablebase");
        (dir, tb)
    })
    .1
}

/// Positions of `ending` (white's pieces after its king, then black's king and the rest)
/// from a fixed pseudo-random sequence of squares; those that are no legal position are
/// skipped.
fn sample(ending: &str, count: usize) -> Vec<String> {
    let (white, black) = ending.split_once('v').unwrap();
    let pieces: Vec<char> = white
        .chars()
        .chain(black.chars().map(|c| c.to_ascii_lowercase()))
        .collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64 ^ ending.len() as u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize
    };
    let mut out = Vec::new();
    while out.len() < count {
        let mut board = [None; 64];
        for &p in &pieces {
            let mut s = next() % 64;
            while board[s].is_some() {
                s = next() % 64;
            }
            board[s] = Some(p);
        }
        let rows: Vec<String> = (0..8)
            .rev()
            .map(|rank| {
                let mut row = String::new();
                let mut empty = 0;
                for file in 0..8 {
                    match board[rank * 8 + file] {
                        Some(p) => {
                            if empty > 0 {
                                row.push_str(&empty.to_string());
                            }
                            empty = 0;
                            row.push(p);
                        }
                        None => empty += 1,
                    }
                }
                if empty > 0 {
                    row.push_str(&empty.to_string());
                }
                row
            })
            .collect();
        let side = if next() % 2 == 0 { "w" } else { "b" };
        let fen = format!("{} {side} - - 0 1", rows.join("/"));
        if fen.parse::<cozy_chess::Board>().is_ok() {
            out.push(fen);
        }
    }
    out
}

#[test]
fn probes_agree_with_each_ending_solved_alone() {
    let tb = set3();
    assert_eq!(tb.name(), "chess up to 3 pieces");
    let probe = tb.probe().unwrap();
    for ending in ["KQvK", "KRvK", "KPvK", "KvKR", "KNvK"] {
        let alone = built("chess", serde_json::json!({ "material": ending }));
        let answer = alone.solve(&SolveOptions::default(), &Solo).unwrap().answer;
        for fen in sample(ending, 150) {
            // Both refuse what is no position (kings side by side, the side not to move
            // in check), or both answer.
            let q = match answer.query(&Query::Position(fen.clone())) {
                Ok(q) => q,
                Err(e) => {
                    assert!(matches!(e, QueryError::Position { .. }), "{fen}: {e}");
                    assert!(
                        matches!(probe.fen(&fen), Err(ProbeError::Position(_))),
                        "{fen}"
                    );
                    continue;
                }
            };
            let p = probe.fen(&fen).unwrap();
            assert_eq!(p.value, q.value, "{fen}");
            assert_eq!(p.moves, q.moves, "{fen}");
            assert_eq!(p.wdl, Wdl::from(q.value), "{fen}");
            assert_eq!(p.dtm, dtm(q.value), "{fen}");
            assert_eq!(probe.value(&fen).unwrap(), p.value, "{fen}");
            let board: cozy_chess::Board = fen.parse().unwrap();
            assert_eq!(probe.board(&board).unwrap(), p, "{fen}");
            // The best moves keep the value; every other move is worse for the mover.
            for (m, v) in &p.moves {
                assert_eq!(p.best.contains(m), *v == p.value, "{fen}: {m}");
            }
        }
    }
}

#[test]
fn the_longest_mates_are_the_published_ones() {
    // KQK: mate in 10 (19 plies), KRK: mate in 16 (31 plies) at the longest, as every
    // depth-to-mate tablebase gives them. The longest win of the ending solved alone (its
    // report's example position) probes as that depth, for either colour.
    let tb = set3();
    let probe = tb.probe().unwrap();
    for (ending, plies) in [("KQvK", 19), ("KRvK", 31)] {
        let report = report_alone(ending);
        let longest = report.fields.iter().find(|f| f.0 == "longest_win").unwrap();
        assert_eq!(longest.1, serde_json::json!(plies), "{ending}");
        let fen = report.example.expect("a position of white's longest win");
        let p = probe.fen(&fen).unwrap();
        assert_eq!((p.wdl, p.dtm), (Wdl::Win, Some(plies)), "{fen}");
        // The same position with the colours swapped (KvKQ, black to move) is as long.
        let board: cozy_chess::Board = fen.parse().unwrap();
        let swapped = mirror(&board);
        assert_eq!(probe.fen(&swapped).unwrap().dtm, Some(plies), "{swapped}");
    }
}

#[test]
fn the_longest_mates_by_side_are_each_ending_reports() {
    // Read block by block and split by the side to move, against each ending solved alone
    // and counted position by position (its report's white to move).
    let tb = set3();
    let mates = tb.probe().unwrap().longest_mates().unwrap();
    let all: Vec<&str> = vec![
        "KvK", "KQvK", "KvKQ", "KRvK", "KvKR", "KPvK", "KvKP", "KBvK", "KvKB", "KNvK", "KvKN",
    ];
    assert_eq!(
        mates
            .keys()
            .map(String::as_str)
            .collect::<std::collections::BTreeSet<_>>(),
        all.iter().copied().collect()
    );
    for ending in all {
        if ending == "KvK" {
            assert_eq!(mates[ending], None);
            continue;
        }
        let report = report_alone(ending);
        let white = &report
            .fields
            .iter()
            .find(|f| f.0 == "white_to_move")
            .unwrap()
            .1;
        let plies = white["longest_win"].as_u64().map(|r| r as u32);
        assert_eq!(mates[ending], plies, "{ending}");
    }
    // KPvK: mate in 28 (OEIS A274458, the longest of 3 pieces); a lone king never mates.
    assert_eq!(mates["KPvK"], Some(55));
    assert_eq!(mates["KvKP"], None);
    // A compact tablebase keeps one side to move only: an error, not half an answer.
    let dir = tempfile::tempdir().unwrap();
    let built = built("chess", serde_json::json!({ "material": "KQvK" }));
    let mut opts = SolveOptions::default();
    opts.storage = Some(Arc::new(DirStorage::new(dir.path().to_path_buf())));
    opts.compact = true;
    built.solve(&opts, &Solo).unwrap();
    let compact = Tablebase::open(dir.path()).unwrap();
    let err = compact.probe().unwrap().longest_mates().unwrap_err();
    assert!(err.to_string().contains("compact"), "{err}");
}

/// `fen` with the board turned upside down and the colours swapped.
fn mirror(board: &cozy_chess::Board) -> String {
    let fen = board.to_string();
    let mut f = fen.split(' ');
    let rows: Vec<String> = f
        .next()
        .unwrap()
        .split('/')
        .rev()
        .map(|r| {
            r.chars()
                .map(|c| match c.is_ascii_uppercase() {
                    true => c.to_ascii_lowercase(),
                    false => c.to_ascii_uppercase(),
                })
                .collect()
        })
        .collect();
    let side = if f.next() == Some("w") { "b" } else { "w" };
    format!("{} {side} - - 0 1", rows.join("/"))
}

#[test]
fn checkmate_mate_in_one_and_a_draw() {
    let probe = set3().probe().unwrap();
    // Black is mated: depth 0, a loss, no moves.
    let p = probe.fen("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1").unwrap();
    assert_eq!(
        (p.value, p.wdl, p.dtm),
        (Value::Loss(0), Wdl::Loss, Some(0))
    );
    assert!(p.best.is_empty() && p.moves.is_empty());
    // White mates in one, by Qh8# only (Qc7 would stalemate).
    let p = probe.fen("k7/8/1K6/8/8/8/7Q/8 w - - 0 1").unwrap();
    assert_eq!((p.wdl, p.dtm), (Wdl::Win, Some(1)));
    assert_eq!(p.best, ["h2h8"]);
    let c7 = p.moves.iter().find(|m| m.0 == "h2c7").unwrap();
    assert_eq!(c7.1, Value::Tie(1));
    // Black to move takes the rook: a draw by insufficient material.
    let p = probe.fen("8/8/8/8/8/8/1k6/1R1K4 b - -").unwrap();
    assert_eq!((p.value, p.wdl, p.dtm), (Value::Tie(1), Wdl::Draw, None));
    assert_eq!(p.best, ["b2b1"]);
    assert_eq!(p.fen, "8/8/8/8/8/8/1k6/1R1K4 b - - 0 1");
    // Two kings: a draw.
    assert_eq!(
        probe.fen("8/8/8/4k3/8/8/8/4K3 w - - 0 1").unwrap().wdl,
        Wdl::Draw
    );
}

#[test]
fn a_bad_fen_or_another_ending_is_a_typed_error() {
    let probe = set3().probe().unwrap();
    for bad in [
        "",
        "nonsense",
        "8/8/8/4k3/8/8/8/4KQ2 w KQ - 0 1",   // castling rights
        "8/8/8/4k3/8/8/8/4KP2 w - - 0 1",    // a pawn on the first rank
        "8/8/8/4k3/8/8/8/3QKQ2 x - - 0 1",   // no side to move
        "8/8/8/4k3/8/8/8/4Q1K1 w - - 0 1",   // black in check, white to move
        "8/8/8/8/8/8/8/4K3 w - - 0 1",       // one king
        "8/8/8/4k3/8/8/QQ6/4KQQ2 w - - 0 1", // seven pieces
    ] {
        match probe.fen(bad) {
            Err(ProbeError::Position(m)) => assert!(!m.is_empty()),
            other => panic!("{bad:?}: {other:?}"),
        }
        assert!(matches!(probe.value(bad), Err(ProbeError::Position(_))));
    }
    // Four pieces, in a set of three.
    let fen = "8/8/8/4k3/8/8/8/r3KQ2 w - - 0 1";
    match probe.fen(fen) {
        Err(e @ ProbeError::NotHeld { .. }) => {
            let ProbeError::NotHeld { ending, .. } = &e else {
                unreachable!()
            };
            assert_eq!(ending, "KQvKR");
            assert!(e.to_string().contains("KQvKR"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn opening_what_is_no_chess_tablebase_is_a_typed_error() {
    let empty = tempfile::tempdir().unwrap();
    match Tablebase::open(empty.path()) {
        Err(ProbeError::Database(Error::Missing { .. })) => {}
        other => panic!("{:?}", other.err()),
    }
    match Tablebase::open(empty.path().join("nowhere")) {
        Err(ProbeError::Database(Error::Missing { .. })) => {}
        other => panic!("{:?}", other.err()),
    }
    let other = tempfile::tempdir().unwrap();
    solve_into("tictactoe", serde_json::json!({}), other.path());
    match Tablebase::open(other.path()) {
        Err(e @ ProbeError::Database(Error::Unsupported(_))) => {
            assert!(e.to_string().contains("not a chess tablebase"), "{e}")
        }
        other => panic!("{:?}", other.err()),
    }
    // One ending with what it converts into is a tablebase too.
    let one = tempfile::tempdir().unwrap();
    solve_into(
        "chess",
        serde_json::json!({ "material": "KRvK" }),
        one.path(),
    );
    let tb = Tablebase::open(one.path()).unwrap();
    let probe = tb.probe().unwrap();
    assert_eq!(
        probe.fen("k7/8/1K6/8/8/8/8/7R w - - 0 1").unwrap().dtm,
        Some(1)
    );
    let queen = probe.fen("k7/8/1K6/8/8/8/7Q/8 w - - 0 1");
    assert!(
        matches!(queen, Err(ProbeError::NotHeld { .. })),
        "{queen:?}"
    );
}
