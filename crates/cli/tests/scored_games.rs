//! End-to-end tests of the games with scores (Dots and Boxes, Kalah): the report and the
//! query answers carry the score, each move's value agrees with the position it leads to,
//! bad parameters are errors with exit 2, and unscored games print no score.

#[allow(dead_code, unused_macros)] // the helpers shared with cli.rs are not all used here
mod util;

use util::{json, Dir};

fn query(dir: &Dir, game: &[&str], moves: &str) -> serde_json::Value {
    let mut args: Vec<String> = vec!["game".into()];
    args.extend(game.iter().map(|s| s.to_string()));
    args.extend([
        "--query".into(),
        moves.into(),
        "--output".into(),
        "json".into(),
    ]);
    json(&dir.command().args(&args).stdout())
}

#[test]
fn one_box_is_lost_by_the_first_player() {
    let dir = Dir::new();
    let out = dir
        .command()
        .args(["game", "dots-and-boxes", "--rows", "1", "--cols", "1"])
        .stdout();
    assert!(out.starts_with("first player: loss by 1 in 4\n"), "{out}");
    // The symmetry classes are named (the report said `positions up to  N`).
    let out = dir
        .command()
        .args(["game", "dots-and-boxes", "--rows", "2", "--cols", "2"])
        .stdout();
    assert!(
        out.contains("\npositions up to rotation and reflection 570\n"),
        "{out}"
    );
    assert!(!out.contains("  "), "{out}");
    let j = json(
        &dir.command()
            .args([
                "game",
                "dots-and-boxes",
                "--rows",
                "1",
                "--cols",
                "1",
                "--output",
                "json",
            ])
            .stdout(),
    );
    assert_eq!(
        j["start"],
        serde_json::json!({"outcome": "loss", "remoteness": 4, "score": -1})
    );
    assert_eq!(j["positions"], 16);
}

/// Every move's value (for its mover) is what the position after it is worth to the player
/// to move there, through the move: the same player after a box (plus the boxes taken), the
/// other one otherwise (negated); and the position's value is its best move's.
#[test]
fn query_answers_agree_with_the_positions_they_lead_to() {
    let dir = Dir::new();
    let game = ["dots-and-boxes", "--rows", "1", "--cols", "2"];
    // A line of play where boxes are taken: a1-b1 a2-b2 a1-a2 b1-b2 (the second player
    // closes box a1 and moves again).
    let mut played: Vec<&str> = Vec::new();
    for next in ["a1-b1", "a2-b2", "a1-a2", "b1-b2", "c1-c2", ""] {
        let here = query(&dir, &game, &played.join(","));
        let moves = here["moves"].as_array().unwrap();
        if moves.is_empty() {
            assert_eq!(here["remoteness"], 0);
            break;
        }
        assert_eq!(here["score"], moves[0]["score"], "{here}");
        assert_eq!(here["outcome"], moves[0]["outcome"], "{here}");
        for m in moves {
            let name = m["move"].as_str().unwrap();
            let mut line = played.clone();
            line.push(name);
            let after = query(&dir, &game, &line.join(","));
            let took_turn = after["to_move"] == here["to_move"];
            let child = after["score"].as_i64().unwrap();
            let mine = m["score"].as_i64().unwrap();
            if took_turn {
                assert!(mine > child, "a box taken: {m} then {after}");
            } else {
                assert_eq!(mine, -child, "{m} then {after}");
            }
            assert_eq!(
                m["remoteness"].as_u64().unwrap(),
                after["remoteness"].as_u64().unwrap() + 1
            );
        }
        if next.is_empty() {
            break;
        }
        played.push(next);
    }
}

#[test]
fn kalah_reports_and_answers_with_scores() {
    let dir = Dir::new();
    let j = json(
        &dir.command()
            .args([
                "game", "kalah", "--pits", "2", "--seeds", "2", "--output", "json",
            ])
            .stdout(),
    );
    let s = &j["start"];
    let score = s["score"].as_i64().unwrap();
    let outcome = match score.signum() {
        1 => "win",
        -1 => "loss",
        _ => "tie",
    };
    assert_eq!(s["outcome"], outcome, "{j}");
    assert!(score.abs() <= 8);
    let here = query(&dir, &["kalah", "--pits", "2", "--seeds", "2"], "");
    assert_eq!(here["score"], s["score"]);
    assert_eq!(here["position"], "2,2/2,2 x");
    // Pit 1 ends in the store: the first player moves again, one seed stored.
    let after = query(&dir, &["kalah", "--pits", "2", "--seeds", "2"], "1");
    assert_eq!(after["position"], "0,3/2,2 x");
    let m2 = here["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "1")
        .unwrap();
    assert_eq!(
        m2["score"].as_i64().unwrap(),
        after["score"].as_i64().unwrap() + 1
    );
    let text = dir
        .command()
        .args([
            "game", "kalah", "--pits", "2", "--seeds", "2", "--query", "2",
        ])
        .stdout();
    // Pit 2 passes the turn; the text shows the margin ("win by 3 in 4").
    let j = query(&dir, &["kalah", "--pits", "2", "--seeds", "2"], "2");
    let want = format!(
        "second player to move: {} by {} in {}\n",
        j["outcome"].as_str().unwrap(),
        j["score"].as_i64().unwrap().abs(),
        j["remoteness"]
    );
    assert!(text.contains(&want), "{text}");
}

#[test]
fn bad_parameters_are_errors() {
    let dir = Dir::new();
    let e = dir
        .command()
        .args(["game", "dots-and-boxes", "--rows", "0", "--cols", "2"])
        .error();
    assert!(e.contains("--rows"), "{e}");
    let e = dir
        .command()
        .args(["game", "dots-and-boxes", "--rows", "5", "--cols", "5"])
        .message();
    assert!(e.contains("60 lines"), "{e}");
    let e = dir
        .command()
        .args(["game", "dots-and-boxes", "--rows", "x"])
        .error();
    assert!(e.contains("--rows"), "{e}");
    // The help states the range of --pits that the game takes, and the command line holds
    // to it (9 was offered, then refused later).
    let help = dir.command().args(["game", "kalah", "--help"]).stdout();
    assert!(help.contains("Pits a side, 1 to 8."), "{help}");
    let e = dir.command().args(["game", "kalah", "--pits", "9"]).error();
    assert!(e.contains("'9' for '--pits <N>': 9 is not in 1..=8"), "{e}");
    let e = dir
        .command()
        .args(["game", "kalah", "--pits", "1", "--seeds", "32"])
        .error();
    assert!(
        e.contains("'32' for '--seeds <N>': 32 is not in 1..=31"),
        "{e}"
    );
    // A one-pit board of 31 seeds is the largest that fits the index.
    dir.command()
        .args([
            "game", "kalah", "--pits", "1", "--seeds", "31", "-o", "json",
        ])
        .stdout();
    let e = dir
        .command()
        .args(["game", "kalah", "--pits", "6", "--seeds", "6"])
        .message();
    assert!(e.contains("index"), "{e}");
    let e = dir
        .command()
        .args(["game", "dots-and-boxes", "--rows", "1", "--cols", "1"])
        .args(["--query", "a1-b1,a1-b1"])
        .message();
    assert!(e.contains("already drawn"), "{e}");
}

#[test]
fn unscored_games_print_no_score() {
    let dir = Dir::new();
    let j = dir
        .command()
        .args(["game", "tictactoe", "--output", "json"])
        .stdout();
    assert!(!j.contains("score"), "{j}");
    let q = dir
        .command()
        .args(["game", "tictactoe", "--query", "b2", "--output", "json"])
        .stdout();
    assert!(!q.contains("score"), "{q}");
}

/// `play` shows margins: the hint, the moves, and at the end the winner by the points
/// collected on the way plus the end's (Kalah 2x2 played to its end by the engine's best
/// moves, through hints).
#[test]
fn play_shows_margins_and_the_final_count() {
    let dir = Dir::new();
    let start = query(&dir, &["kalah", "--pits", "2", "--seeds", "2"], "");
    let out = dir
        .command()
        .args(["play", "kalah", "--pits", "2", "--seeds", "2"])
        .stdin("hint\n")
        .stdout();
    let want = format!(
        "First player to move (you): {} by {} in {}",
        start["outcome"].as_str().unwrap(),
        start["score"].as_i64().unwrap().abs(),
        start["remoteness"]
    );
    assert!(out.contains(&want), "{out}");
    assert!(out.contains("Hint: play "), "{out}");
    // Play the best move each time: the game ends with the start's margin.
    let mut moves = String::new();
    for _ in 0..20 {
        moves.push_str(&format!(
            "{}\n",
            start_best(&dir, &moves.lines().collect::<Vec<_>>().join(","))
        ));
        let out = dir
            .command()
            .args(["play", "kalah", "--pits", "2", "--seeds", "2"])
            .stdin(moves.clone())
            .stdout();
        if out.contains("Game over") {
            let score = start["score"].as_i64().unwrap();
            let verdict = match score.signum() {
                0 => "Game over: a tie.".to_string(),
                1 => format!("Game over: first player wins by {score}."),
                _ => format!("Game over: second player wins by {}.", -score),
            };
            assert!(out.contains(&verdict), "{out}");
            return;
        }
    }
    panic!("the game did not end");
}

/// The best move at the position after `moves` where the human (first player) is to move:
/// the engine's replies are found by replaying through `query`.
fn start_best(dir: &Dir, moves: &str) -> String {
    // The session answers for the engine; the human's position is the one after the
    // engine's replies, which `play` prints. Ask `play` for a hint there.
    let mut input: String = moves
        .split(',')
        .filter(|m| !m.is_empty())
        .map(|m| format!("{m}\n"))
        .collect();
    input.push_str("hint\n");
    let out = dir
        .command()
        .args(["play", "kalah", "--pits", "2", "--seeds", "2"])
        .stdin(input)
        .stdout();
    let hint = out.rsplit("Hint: play ").next().unwrap();
    hint.split_whitespace().next().unwrap().to_string()
}

/// A database of a game with scores answers `query` as the solve in memory does, is
/// reused by `--resume`, and a damaged byte in a tier file is an error, never a value.
#[test]
fn databases_keep_scores_checked() {
    let dir = Dir::new();
    let game = ["dots-and-boxes", "--rows", "1", "--cols", "2"];
    let mut args = vec!["game"];
    args.extend(game);
    args.extend(["--db", "d", "-q"]);
    dir.command().args(&args).stdout();
    for moves in ["", "a1-b1", "a1-b1,a2-b2,a1-a2"] {
        let stored = json(
            &dir.command()
                .args(["query", "d", "--moves", moves, "--output", "json"])
                .stdout(),
        );
        assert_eq!(stored, query(&dir, &game, moves), "after {moves:?}");
    }
    // --resume takes the finished database up: the same report.
    let again = dir.command().args(&args).arg("--resume").stdout();
    assert!(again.starts_with("first player: "), "{again}");
    // Damage one byte of a block of the tier the query reads (after a1-b1, the moves reach
    // positions of two lines: tier 02).
    let file = dir.path().join("d").join("02.values");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[180] ^= 0x40;
    std::fs::write(&file, bytes).unwrap();
    let e = dir
        .command()
        .args(["query", "d", "--moves", "a1-b1"])
        .message();
    assert!(e.contains("02.values"), "{e}");
    // Another game in its directory is refused.
    let e = dir
        .command()
        .args(["game", "kalah", "--pits", "1", "--seeds", "1", "--db", "d"])
        .message();
    assert!(e.contains("not of \"kalah 1x1\""), "{e}");
}
