//! End-to-end tests of `retrograde query DB`: databases written by `game --db` and `solve
//! --db`, answers checked against a plain minimax written here, errors, many queries on
//! standard input, damaged databases.

#[macro_use]
#[allow(dead_code)] // the helpers shared with cli.rs are not all used here
mod util;

use std::collections::HashMap;
use util::{example, json, Rng};

/// Plain minimax over tic-tac-toe boards (cells 0..9, row 0 at the top; 1 = X, 2 = O):
/// (outcome, remoteness) for the player to move, the winner hurrying and the loser
/// stalling; a full board is a tie.
fn minimax(cells: &mut [u8; 9], memo: &mut HashMap<[u8; 9], (i8, u32)>) -> (i8, u32) {
    if let Some(&v) = memo.get(cells) {
        return v;
    }
    let lines = [
        [0, 1, 2],
        [3, 4, 5],
        [6, 7, 8],
        [0, 3, 6],
        [1, 4, 7],
        [2, 5, 8],
        [0, 4, 8],
        [2, 4, 6],
    ];
    let filled = cells.iter().filter(|&&c| c != 0).count();
    let me = if filled % 2 == 0 { 1 } else { 2 };
    let them = 3 - me;
    let v = if lines.iter().any(|l| l.iter().all(|&i| cells[i] == them)) {
        (-1, 0)
    } else if filled == 9 {
        (0, 0)
    } else {
        let mut best: Option<(i8, u32)> = None;
        for i in 0..9 {
            if cells[i] != 0 {
                continue;
            }
            cells[i] = me;
            let (o, r) = minimax(cells, memo);
            cells[i] = 0;
            let mine = (-o, r + 1);
            // Prefer a win (fastest), then a tie (fastest), then a loss (slowest).
            let better = match best {
                None => true,
                Some((bo, br)) => {
                    mine.0 > bo
                        || (mine.0 == bo && mine.0 >= 0 && mine.1 < br)
                        || (mine.0 == bo && mine.0 < 0 && mine.1 > br)
                }
            };
            if better {
                best = Some(mine);
            }
        }
        best.expect("a move")
    };
    memo.insert(*cells, v);
    v
}

fn outcome(o: i8) -> &'static str {
    match o {
        1 => "win",
        -1 => "loss",
        _ => "tie",
    }
}

/// The cell name of index `i` (a1 bottom left).
fn cell(i: usize) -> String {
    format!("{}{}", (b'a' + (i % 3) as u8) as char, 3 - i / 3)
}

rtest!(query_answers_match_minimax, |dir, cmd| {
    cmd.args(["game", "tictactoe", "--db", "t3"]).stdout();
    let mut memo = HashMap::new();
    let mut rng = Rng::new(7);
    for _ in 0..40 {
        let mut cells = [0u8; 9];
        let mut moves = Vec::new();
        let plies = rng.below(6) as usize;
        for ply in 0..plies {
            let (o, _) = minimax(&mut cells, &mut memo);
            let free: Vec<usize> = (0..9).filter(|&i| cells[i] == 0).collect();
            if free.is_empty() || (o == -1 && minimax(&mut cells.clone(), &mut memo).1 == 0) {
                break;
            }
            let i = free[rng.below(free.len() as u64) as usize];
            cells[i] = if ply % 2 == 0 { 1 } else { 2 };
            moves.push(cell(i));
            if minimax(&mut cells, &mut memo) == (-1, 0) {
                break;
            }
        }
        let j = json(
            &dir.command()
                .args(["query", "t3", "--moves", &moves.join(","), "-o", "json"])
                .stdout(),
        );
        let (o, r) = minimax(&mut cells, &mut memo);
        assert_eq!(j["outcome"], outcome(o), "{moves:?}");
        assert_eq!(j["remoteness"], r, "{moves:?}");
        // Every legal move, with its value for the player who makes it.
        let listed = j["moves"].as_array().unwrap();
        let game_over = o == -1 && r == 0;
        assert_eq!(
            listed.len(),
            if game_over {
                0
            } else {
                cells.iter().filter(|&&c| c == 0).count()
            }
        );
        let me = if moves.len() % 2 == 0 { 1 } else { 2 };
        for m in listed {
            let name = m["move"].as_str().unwrap();
            let i = (0..9).find(|&i| cell(i) == name).unwrap();
            let mut after = cells;
            after[i] = me;
            let (co, cr) = minimax(&mut after, &mut memo);
            assert_eq!(m["outcome"], outcome(-co), "{moves:?} then {name}");
            assert_eq!(m["remoteness"], cr + 1, "{moves:?} then {name}");
        }
    }
    // The text form, and a position in the game's notation.
    let out = dir.command().args(["query", "t3"]).stdout();
    assert!(out.contains("X to move: tie in 9"), "{out}");
    let out = dir
        .command()
        .args(["query", "t3", "--position", "x../.o./..."])
        .stdout();
    assert!(out.contains("X to move: tie in 7"), "{out}");
});

rtest!(query_errors_say_which_move_and_why, |dir, cmd| {
    cmd.args([
        "game", "connect4", "--width", "4", "--height", "4", "--db", "c4",
    ])
    .stdout();
    let msg = dir
        .command()
        .args(["query", "c4", "--moves", "1,1,1,1,1"])
        .message();
    assert!(msg.contains("move 5 (\"1\"): column 1 is full"), "{msg}");
    let msg = dir
        .command()
        .args(["query", "c4", "--moves", "9"])
        .message();
    assert!(msg.contains("columns are 1 to 4"), "{msg}");
    let msg = dir
        .command()
        .args(["query", "c4", "--position", "x"])
        .message();
    assert!(msg.contains("expected 4 rows"), "{msg}");
    let msg = dir.command().args(["query", "nothing"]).message();
    assert!(msg.contains("nothing: not a directory"), "{msg}");
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let msg = dir.command().args(["query", "empty"]).message();
    assert!(
        msg.contains("empty: no database here (no database.json)") && !msg.contains("resume"),
        "{msg}"
    );
    // Many queries: the good ones are answered, a bad one is reported, exit 2.
    let out = dir
        .command()
        .args(["query", "c4", "--stdin", "-o", "json"])
        .stdin("moves: 1\n# a comment\n\nmoves: 7\n..../..../..../x...\n")
        .output();
    assert_eq!(out.code, 2, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    assert_eq!(json(lines[0])["outcome"], json(lines[2])["outcome"]);
    assert_eq!(json(lines[1])["line"], 4);
    assert!(json(lines[1])["error"]
        .as_str()
        .unwrap()
        .contains("columns are 1 to 4"));
    // A very long line is refused, not echoed.
    let long = format!("moves: {}\nmoves: 2\n", "1,".repeat(100_000));
    let out = dir
        .command()
        .args(["query", "c4", "--stdin"])
        .stdin(long)
        .output();
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("<stdin>:1: a line longer than"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.len() < 500, "{}", out.stderr);
    assert!(out.stdout.contains("O to move"), "{}", out.stdout);
});

rtest!(query_a_teeko_database, |dir, cmd| {
    // Teeko's rules on a 3x3 board with three pieces each (small enough for a test).
    cmd.args([
        "game", "teeko", "--size", "3", "--pieces", "3", "--db", "t3",
    ])
    .stdout();
    let j = json(
        &dir.command()
            .args(["query", "t3", "--moves", "b2,a1", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["position"], ".../.x./o.. x");
    assert_eq!(j["outcome"], "draw");
    assert_eq!(j["moves"].as_array().unwrap().len(), 7);
    // The move phase, by position: a step that wins at once comes first.
    let j = json(
        &dir.command()
            .args(["query", "t3", "--position", "xox/..o/o.x x", "-o", "json"])
            .stdout(),
    );
    assert_eq!(
        (&j["outcome"], &j["remoteness"]),
        (&"win".into(), &1.into())
    );
    assert_eq!(j["moves"][0]["move"], "c3-b2");
    assert_eq!(j["moves"][0]["outcome"], "win");
    let names: Vec<&str> = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"c1-b1") && names.len() == 5, "{names:?}");
    let msg = dir
        .command()
        .args(["query", "t3", "--moves", "b2,b2"])
        .message();
    assert!(
        msg.contains("move 2 (\"b2\")") && msg.contains("legal moves"),
        "{msg}"
    );
    let msg = dir
        .command()
        .args(["query", "t3", "--position", "xxx/ooo/... o"])
        .message();
    assert!(msg.contains("winning shape"), "{msg}");
});

rtest!(query_a_graph_database, |dir, cmd| {
    let file = example("loopy.rg");
    let csv = cmd
        .args(["solve", &file, "-o", "csv", "--db", "g"])
        .stdout();
    for row in csv.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let j = json(
            &dir.command()
                .args(["query", "g", "--position", f[0], "-o", "json"])
                .stdout(),
        );
        assert_eq!(j["outcome"], f[1], "vertex {}", f[0]);
        let r = if f[2].is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::json!(f[2].parse::<u64>().unwrap())
        };
        assert_eq!(j["remoteness"], r, "vertex {}", f[0]);
        // The best move is among the moves of the best value.
        if !f[3].is_empty() {
            let best = &j["moves"][0];
            assert_eq!(best["outcome"], f[1], "vertex {}", f[0]);
        }
    }
    let msg = dir
        .command()
        .args(["query", "g", "--position", "99"])
        .message();
    assert!(msg.contains("neither a vertex id"), "{msg}");
});

rtest!(query_a_damaged_database_names_the_file, |dir, cmd| {
    cmd.args(["game", "quixo", "--size", "3", "--db", "q"])
        .stdout();
    let f = dir.path().join("q/09.values");
    let mut b = std::fs::read(&f).unwrap();
    let n = b.len();
    b[n / 2] ^= 0x10;
    std::fs::write(&f, &b).unwrap();
    let msg = dir.command().args(["query", "q"]).message();
    assert!(
        msg.contains("09.values") && msg.contains("--resume"),
        "{msg}"
    );
    let meta = dir.path().join("q/database.json");
    let text = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, text.replace("quixo 3x3", "quixo 4x4")).unwrap();
    let msg = dir.command().args(["query", "q"]).message();
    assert!(
        msg.contains("database.json") && msg.contains("checksum"),
        "{msg}"
    );
});

rtest!(query_a_chess_ending, |dir, cmd| {
    // KRvK: 3 pieces, solved in seconds even in a debug build.
    let report = cmd
        .args(["game", "chess", "KRvK", "--db", "krk", "-o", "json"])
        .stdout();
    let j = json(&report);
    assert_eq!(j["material"], "KRvK");
    // The published longest win: mate in 16 (31 plies), white to move.
    assert_eq!(j["white_to_move"]["longest_win"], 31);
    assert_eq!(j["longest_loss"], 32);
    assert_eq!(j["draw"], 0);
    // Both sides to move: kings apart (3612 placements) times 62 rook squares, less
    // black in check with white to move.
    assert_eq!(j["black_to_move"]["positions"], 3612 * 62);
    let fen = "k7/8/1K6/8/8/8/8/7R w - - 0 1";
    let j = json(
        &dir.command()
            .args(["query", "krk", "--position", fen, "-o", "json"])
            .stdout(),
    );
    assert_eq!(
        (&j["outcome"], &j["remoteness"]),
        (&"win".into(), &1.into())
    );
    assert_eq!(j["moves"][0]["move"], "h1h8");
    // Moves played from a position.
    let j = json(
        &dir.command()
            .args([
                "query",
                "krk",
                "--position",
                fen,
                "--moves",
                "h1h8",
                "-o",
                "json",
            ])
            .stdout(),
    );
    assert_eq!(j["position"], "k6R/8/1K6/8/8/8/8/8 b - - 0 1");
    assert_eq!(
        (&j["outcome"], &j["remoteness"]),
        (&"loss".into(), &0.into())
    );
    // The board, for drawings: the FEN's ranks, 8th first, white's pieces upper case.
    assert_eq!(j["board"]["rows"], 8);
    assert_eq!(j["board"]["cells"][0], "k......R");
    assert_eq!(j["board"]["cells"][2], ".K......");
    // An ending has no start: the report names a position to begin with (white's longest
    // win), which the query answers.
    let example = json(&report)["example"].as_str().unwrap().to_string();
    let j = json(
        &dir.command()
            .args(["query", "krk", "--position", &example, "-o", "json"])
            .stdout(),
    );
    assert_eq!(
        (&j["to_move"], &j["outcome"], &j["remoteness"]),
        (&"white".into(), &"win".into(), &31.into())
    );
    // The text says who is to move once (the picture no longer says it too).
    let text = dir
        .command()
        .args(["query", "krk", "--position", fen])
        .stdout();
    assert_eq!(text.matches("to move").count(), 1, "{text}");
    assert!(text.contains("white to move: win in 1\n"), "{text}");
    // `game chess` has no --query (an ending has no start to play moves from): the help
    // does not offer it and the command line refuses it.
    let msg = dir
        .command()
        .args(["game", "chess", "KRvK", "--query"])
        .error();
    assert!(msg.contains("unexpected argument '--query'"), "{msg}");
    // A FEN is read exactly: a board of 7 ranks was read as another position (the ranks
    // shifted, an empty 8th added); now every wrong rank, character or field is named, in
    // `query`, in `play` and (serve.rs) in the API alike.
    for (bad, want) in [
        (
            "k7/1K6/8/8/8/8/7R w - - 0 1",
            "the board \"k7/1K6/8/8/8/8/7R\" has 7 ranks, expected 8 separated by '/' (rank 8 first)",
        ),
        (
            "k7/8/1K6/8/8/8/8/8/7R w - - 0 1",
            "has 9 ranks, expected 8",
        ),
        (
            "k7/8/1K5/8/8/8/8/7R w - - 0 1",
            "rank 6 is \"1K5\": 7 squares, expected 8",
        ),
        (
            "k7/8/1K6/8/8/8/8/7R1 w - - 0 1",
            "rank 1 is \"7R1\": 9 squares, expected 8",
        ),
        (
            "k7/8/1K6/8/8/8/8/7X w - - 0 1",
            "rank 1 is \"7X\": 'X' is neither a piece (KQRBNP white, kqrbnp black) nor a number of empty squares (1 to 8)",
        ),
        ("k7/8/1K6/8/8/8/8/7R x - - 0 1", "the side to move is \"x\", expected w or b"),
        ("k7/8/1K6/8/8/8/8/7R w KQ - 0 1", "the castling rights are \"KQ\""),
        ("k7/8/1K6/8/8/8/8/7R w - e4 0 1", "the en-passant square is \"e4\""),
        ("k7/8/1K6/8/8/8/8/7R w - - x 1", "the halfmove clock is \"x\""),
        ("k7/8/1K6/8/8/8/8/7R w - - 0 0", "the move number is \"0\""),
        ("k7/8/1K6/8/8/8/8/7R w", "4 or 6 fields"),
    ] {
        let msg = dir
            .command()
            .args(["query", "krk", "--position", bad])
            .message();
        assert!(msg.contains(want), "{bad}: {msg}");
        let msg = dir
            .command()
            .args(["play", "chess", "KRvK", "--db", "krk", "--position", bad])
            .message();
        assert!(msg.contains(want), "play {bad}: {msg}");
    }
    for (args, want) in [
        (vec!["--moves", "h1h2"], "no start position"),
        (
            vec!["--position", fen, "--moves", "h1h9"],
            "move 1 (\"h1h9\")",
        ),
        (
            vec!["--position", "k7/8/1K6/8/8/8/8/6Q1 w - - 0 1"],
            "not a position this solution holds",
        ),
    ] {
        let msg = dir.command().args(["query", "krk"]).args(&args).message();
        assert!(msg.contains(want), "{args:?}: {msg}");
    }
});

rtest!(dump_a_chess_ending, |dir, cmd| {
    // KvK: every placement of two kings apart, both sides to move, all ties.
    let out = cmd.args(["game", "chess", "KvK", "--dump"]).stdout();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("fen,outcome,remoteness"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 2 * 3612);
    assert!(
        rows.iter().all(|r| r.ends_with(",tie,0")),
        "{:?}",
        &rows[..3]
    );
    let distinct: std::collections::HashSet<&str> = rows.iter().copied().collect();
    assert_eq!(distinct.len(), rows.len());
    assert!(distinct.contains("8/8/8/8/8/8/8/K1k5 w - - 0 1,tie,0"));
    let msg = dir.command().args(["game", "teeko", "--dump"]).error();
    assert!(msg.contains("unexpected argument '--dump'"), "{msg}");
    let msg = dir.command().args(["game", "chess", "KQvKX"]).message();
    assert!(msg.contains("not a piece"), "{msg}");
    // Material in another case is refused with the spelling to use, not guessed (a small
    // letter is a black piece in a FEN).
    for (text, spelling) in [("kvk", "KvK"), ("KQVK", "KQvK"), ("kqvk", "KQvK")] {
        let msg = dir.command().args(["game", "chess", text]).message();
        assert_eq!(
            msg,
            format!("chess: \"{text}\": write {spelling} (capital letters for the pieces, a small v between the sides; a small letter is a black piece in a FEN)")
        );
        let msg = dir.command().args(["play", "chess", text]).message();
        assert!(msg.contains(&format!("write {spelling}")), "{msg}");
    }
});

// Issue 26's messages: a long list of moves is one a line, in the order of value; a database
// of other parameters is named as such (not "damaged", and `play` has no --resume).
rtest!(query_text_lists_moves_one_a_line, |dir, cmd| {
    cmd.args(["game", "quixo", "--size", "3", "--db", "q3", "-q"])
        .stdout();
    let text = dir.command().args(["query", "q3"]).stdout();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "moves, best first (value for the mover):")
        .unwrap_or_else(|| panic!("{text}"));
    let moves = &lines[at + 1..];
    assert!(
        moves.len() > 10 && moves.iter().all(|l| l.starts_with("  ")),
        "{text}"
    );
    assert!(moves[0].ends_with("win in 7"), "{text}");
    let msg = dir
        .command()
        .args(["play", "quixo", "--size", "4", "--db", "q3"])
        .message();
    assert!(
        msg.contains("a database of \"quixo 3x3\", not of \"quixo 4x4\""),
        "{msg}"
    );
    assert!(
        !msg.contains("damaged") && !msg.contains("--resume"),
        "{msg}"
    );
    // The legal moves of an illegal one, in their natural order.
    let out = dir
        .command()
        .args(["play", "connect4", "--width", "5", "--height", "4"])
        .stdin(b"9\n".to_vec())
        .stdout();
    assert!(out.contains("Legal moves: 1, 2, 3, 4, 5."), "{out}");
});
