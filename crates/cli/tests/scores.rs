//! End-to-end tests of scored graphs (issue 24): `score V S` in `rg` files and `"scores"` in
//! JSON, solved, printed (CSV, JSON, text, `--line`), checked by `verify`, and every new
//! input error (exit status 2, a message naming the file and line).

#[macro_use]
#[allow(dead_code)] // the helpers shared with cli.rs are not all used here
mod util;

use util::{example, json};

/// `examples/scored.rg`, worked out by hand (its comments say why):
/// - 1 and 3 are terminals worth 5 and -2 to their movers, 6 a tie (0), 9 a dead end (a
///   loss, -1), 11 worth -(2^63 - 1).
/// - 2 moves to 3 (worth -2 to the opponent: +2 in 1) or to 0 (worse or slower): win by 2
///   in 1, move 3.
/// - 0 moves to 1 (the opponent gets 5: -5 in 1) or to 2 (the opponent gets 2: -2 in 2):
///   loss by 2 in 2, move 2.
/// - 4 loops on itself (forever: 0) or moves to 3: win by 2 in 1, move 3.
/// - 5 moves to the tie 6 or into the cycle 7 <-> 8 (a draw): tie in 1, move 6; 7 and 8 are
///   draws, with no score, each moving to the other.
/// - 10 moves to 9: win by 1 in 1; 12 moves to 11: win by 2^63 - 1 in 1.
const SCORED_CSV: &str = "vertex,outcome,remoteness,best_move,score\n\
    0,loss,2,2,-2\n1,win,0,,5\n2,win,1,3,2\n3,loss,0,,-2\n4,win,1,3,2\n5,tie,1,6,0\n\
    6,tie,0,,0\n7,draw,,8,\n8,draw,,7,\n9,loss,0,,-1\n10,win,1,9,1\n\
    11,loss,0,,-9223372036854775807\n12,win,1,11,9223372036854775807\n";

rtest!(scored_example_csv, |dir, cmd| {
    let out = cmd
        .args(["solve", &example("scored.rg"), "-o", "csv", "--verify"])
        .stdout();
    assert_eq!(out, SCORED_CSV);
    // Every thread count gives the same answer.
    for threads in ["1", "2", "3"] {
        let out = dir
            .command()
            .args([
                "solve",
                &example("scored.rg"),
                "-o",
                "csv",
                "--threads",
                threads,
            ])
            .stdout();
        assert_eq!(out, SCORED_CSV, "{threads} threads");
    }
});

rtest!(scored_example_text_and_json, |dir, cmd| {
    let out = cmd.args(["solve", &example("scored.rg")]).stdout();
    let rows: Vec<&str> = out.lines().take(13).collect();
    assert_eq!(rows[0], "0: loss by 2 in 2, move to 2");
    assert_eq!(rows[1], "1: win by 5 in 0 (terminal)");
    assert_eq!(rows[5], "5: tie in 1, move to 6");
    assert_eq!(rows[7], "7: draw, move to 8");
    assert_eq!(rows[12], "12: win by 9223372036854775807 in 1, move to 11");
    let j = json(
        &dir.command()
            .args(["solve", &example("scored.rg"), "-o", "json"])
            .stdout(),
    );
    let p = &j["positions"];
    assert_eq!(p[0]["score"], -2);
    assert_eq!(p[0]["outcome"], "loss");
    assert_eq!(p[6]["score"], 0);
    assert!(p[7]["score"].is_null());
    assert_eq!(p[11]["score"].as_i64(), Some(-i64::MAX));
    assert_eq!(p[12]["score"].as_i64(), Some(i64::MAX));
    assert_eq!((j["win"].as_u64(), j["draw"].as_u64()), (Some(5), Some(2)));
});

rtest!(scored_line, |dir, cmd| {
    let out = cmd
        .args(["solve", &example("scored.rg"), "--line", "0"])
        .stdout();
    assert_eq!(
        out,
        "optimal play from 0: loss by 2 in 2\n   0  0: loss by 2 in 2\n   1  2: win by 2 in 1\n   \
         2  3: loss by 2 in 0\ngame over: loss by 2 for the player to move\n"
    );
    let out = dir
        .command()
        .args(["solve", &example("scored.rg"), "--line", "0", "-o", "csv"])
        .stdout();
    assert_eq!(
        out,
        "ply,vertex,outcome,remoteness,score\n0,0,loss,2,-2\n1,2,win,1,2\n2,3,loss,0,-2\n"
    );
});

rtest!(scored_json_graph_gives_the_same_solution, |dir, cmd| {
    dir.create(
        "g.json",
        r#"{"edges": [[0,1],[0,2],[2,3],[2,0],[4,4],[4,3],[5,6],[5,7],[7,8],[8,7],[10,9],[12,11]],
            "terminal": [[6, "tie"]],
            "scores": [[1, 5], [3, -2], [11, -9223372036854775807]]}"#,
    );
    let out = cmd.args(["solve", "g.json", "-o", "csv"]).stdout();
    assert_eq!(out, SCORED_CSV);
});

rtest!(unscored_output_has_no_score, |_dir, cmd| {
    let out = cmd
        .args(["solve", &example("loopy.rg"), "-o", "csv"])
        .stdout();
    assert!(
        out.starts_with("vertex,outcome,remoteness,best_move\n"),
        "{out}"
    );
});

rtest!(verify_checks_scores, |dir, cmd| {
    dir.create("good.csv", SCORED_CSV);
    let out = cmd
        .args(["verify", &example("scored.rg"), "good.csv"])
        .stdout();
    assert_eq!(out, "ok: 13 vertices checked, the solution is exact\n");
    // A wrong score (2 gets 3, not 2): a wrong solution, exit status 1.
    dir.create(
        "bad.csv",
        SCORED_CSV.replace("2,win,1,3,2\n", "2,win,1,3,3\n"),
    );
    let o = dir
        .command()
        .args(["verify", &example("scored.rg"), "bad.csv"])
        .output();
    assert_eq!(o.code, 1, "{o:?}");
    assert!(
        o.stdout.starts_with(
            "wrong: bad.csv: vertex 0: claimed loss by 2 in 2, but its moves give loss by 3 in 2"
        ),
        "{}",
        o.stdout
    );
    // Malformed scores: errors naming the line.
    for (from, to, message) in [
        ("2,win,1,3,2\n", "2,win,1,3,-2\n", "bad.csv:4: a win with the score -2"),
        ("2,win,1,3,2\n", "2,win,1,3,x\n", "bad.csv:4: expected a score from -9223372036854775807 to 9223372036854775807, found \"x\""),
        ("7,draw,,8,\n", "7,draw,,8,0\n", "bad.csv:9: a draw has no score, found \"0\""),
        ("2,win,1,3,2\n", "2,win,1,3\n", "bad.csv:4: expected 5 fields vertex,outcome,remoteness,best_move,score, found \"2,win,1,3\""),
    ] {
        dir.create("bad.csv", SCORED_CSV.replace(from, to));
        let msg = dir
            .command()
            .args(["verify", &example("scored.rg"), "bad.csv"])
            .message();
        assert_eq!(msg, message);
    }
    // The unscored header for a scored graph.
    dir.create("bad.csv", "vertex,outcome,remoteness,best_move\n");
    let msg = dir
        .command()
        .args(["verify", &example("scored.rg"), "bad.csv"])
        .message();
    assert!(
        msg.ends_with("(the graph is scored: its solution has a score column)"),
        "{msg}"
    );
});

/// Writes `text` to `name`, solves it, and returns the error message (exit status 2).
fn solve_error(dir: &util::Dir, name: &str, text: &str) -> String {
    dir.create(name, text);
    dir.command().args(["solve", name]).message()
}

rtest!(score_errors_name_the_file_and_line, |dir, _cmd| {
    let range = "(a score lies in -9223372036854775807..=9223372036854775807)";
    assert_eq!(
        solve_error(&dir, "g.rg", "0 1\nscore 1 -9223372036854775808\n"),
        format!("g.rg:2: score: \"-9223372036854775808\" is out of range {range}")
    );
    assert_eq!(
        solve_error(&dir, "g.rg", "0 1\n\nscore 1 9223372036854775808\n"),
        format!("g.rg:3: score: \"9223372036854775808\" is out of range {range}")
    );
    assert_eq!(
        solve_error(&dir, "g.rg", "0 1\nscore 1 1e9\n"),
        "g.rg:2: score: expected an integer score, found \"1e9\""
    );
    assert_eq!(
        solve_error(&dir, "g.rg", "score 1\n"),
        "g.rg:1: expected \"score V S\", found \"score 1\""
    );
    assert_eq!(
        solve_error(&dir, "g.rg", "0 1\nscore x 3\n"),
        "g.rg:2: score: expected a vertex id, found \"x\""
    );
    assert_eq!(
        solve_error(&dir, "g.rg", "0 1\nscore 1 3\nscore 1 4\n"),
        "g.rg:3: \"score 1 4\" contradicts line 2: \"score 1 3\""
    );
    assert_eq!(
        solve_error(&dir, "g.rg", "0 1\nterminal 1 win\nscore 1 4\n"),
        "g.rg:3: score: vertex 1 already has \"terminal 1 win\" (line 2); a vertex has a terminal value or a score, not both"
    );
    assert_eq!(
        solve_error(&dir, "g.rg", "0 1\nscore 1 4\nterminal 1 win\n"),
        "g.rg:3: terminal: vertex 1 already has \"score 1 4\" (line 2); a vertex has a terminal value or a score, not both"
    );
    let msg = solve_error(&dir, "g.json", r#"{"scores": [[1, 9223372036854775808]]}"#);
    assert!(msg.starts_with("g.json:1: "), "{msg}");
    let msg = solve_error(&dir, "g.json", r#"{"scores": [[1, -9223372036854775808]]}"#);
    assert!(
        msg.starts_with("g.json: scores: entry 0: vertex 1: a score must lie in"),
        "{msg}"
    );
    let msg = solve_error(
        &dir,
        "g.json",
        r#"{"scores": [[1, 2]], "terminal": [[1, "win"]]}"#,
    );
    assert!(msg.contains("both a terminal value and a score"), "{msg}");
});

rtest!(scored_graph_databases_answer_with_scores, |dir, cmd| {
    // The scores the solve prints are the ones the database answers with.
    let csv = cmd
        .args(["solve", &example("scored.rg"), "-o", "csv", "--db", "db"])
        .stdout();
    assert_eq!(csv, SCORED_CSV);
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    for row in &rows {
        let j = json(
            &dir.command()
                .args(["query", "db", "--position", row[0], "-o", "json"])
                .stdout(),
        );
        assert_eq!(j["outcome"], row[1], "vertex {}", row[0]);
        let remoteness = row[2].parse::<u64>().ok();
        assert_eq!(j["remoteness"].as_u64(), remoteness, "vertex {}", row[0]);
        // A draw's score is 0, as the page and tier games have it.
        let score = row[4].parse::<i64>().unwrap_or(0);
        assert_eq!(j["score"].as_i64(), Some(score), "vertex {}", row[0]);
        // The best move listed first realises the value; every move has a score.
        let moves = j["moves"].as_array().unwrap();
        if let Some(best) = moves.first() {
            assert_eq!(best["score"], j["score"], "vertex {}", row[0]);
            assert_eq!(best["move"], row[3], "vertex {}", row[0]);
        }
        assert!(
            moves.iter().all(|m| m["score"].is_i64()),
            "vertex {}",
            row[0]
        );
    }
    // 0's moves: to 2 (loss by 2 in 2) before 1 (loss by 5 in 1), in text too.
    let j = json(
        &dir.command()
            .args(["query", "db", "--position", "0", "-o", "json"])
            .stdout(),
    );
    let scores: Vec<i64> = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["score"].as_i64().unwrap())
        .collect();
    assert_eq!(scores, [-2, -5]);
    let text = dir
        .command()
        .args(["query", "db", "--position", "0"])
        .stdout();
    assert!(
        text.contains("The player to move: loss by 2 in 2"),
        "{text}"
    );
    assert!(text.contains("1  loss by 5 in 1"), "{text}");
});

rtest!(a_damaged_graph_scores_file_is_named, |dir, cmd| {
    cmd.args(["solve", &example("scored.rg"), "--db", "db", "-q"])
        .stdout();
    let f = dir.path().join("db/graph.scores");
    let good = std::fs::read(&f).unwrap();
    let mut bad = good.clone();
    let n = bad.len();
    bad[n / 2] ^= 0x10;
    std::fs::write(&f, &bad).unwrap();
    let msg = dir
        .command()
        .args(["query", "db", "--position", "12"])
        .message();
    assert!(
        msg.contains("graph.scores")
            && msg.contains(&format!(
                "run `retrograde solve {} --db db`",
                example("scored.rg")
            )),
        "{msg}"
    );
    std::fs::remove_file(&f).unwrap();
    let msg = dir
        .command()
        .args(["query", "db", "--position", "12"])
        .message();
    assert!(msg.contains("graph.scores"), "{msg}");
    std::fs::write(&f, &good).unwrap();
    dir.command()
        .args(["query", "db", "--position", "12"])
        .stdout();
});

rtest!(unscored_graph_databases_have_no_scores, |dir, cmd| {
    cmd.args(["solve", &example("loopy.rg"), "--db", "db", "-q"])
        .stdout();
    assert!(!dir.path().join("db/graph.scores").exists());
    let meta = std::fs::read_to_string(dir.path().join("db/database.json")).unwrap();
    assert!(meta.contains("\"layout\": \"graph\""), "{meta}");
    let out = dir
        .command()
        .args(["query", "db", "--position", "0", "-o", "json"])
        .stdout();
    assert!(!out.contains("score"), "{out}");
});

rtest!(
    scored_arena_has_the_score_before_owner_and_winner,
    |dir, cmd| {
        // Player 0 owns 0 and 2, player 1 owns 1. From 0, player 0 moves to 1 (player 1's turn)
        // or to 2 (still player 0's). At 3, worth 4 to its mover, player 1 moves; at 4, worth -3,
        // player 0 moves. 1 (player 1) moves to 3 (+4 for player 1 there, kept: +4 in 1) or 4
        // (player 0 moves there and gets -3: +3 for player 1 in 1): win by 4 in 1, move 3.
        // 2 (player 0) moves to 4 (player 0 moves there: -3 kept, -3 in 1). 0 moves to 1 (player
        // 1 wins by 4: -4 in 2) or to 2 (-3 in 2, kept): loss by 3 in 2, move 2; player 1 wins.
        dir.create(
            "a.rg",
            "0 1\n0 2\n1 3\n1 4\n2 4\nowner 1 1\nowner 3 1\nscore 3 4\nscore 4 -3\n",
        );
        let out = cmd.args(["solve", "a.rg", "-o", "csv"]).stdout();
        assert_eq!(
            out,
            "vertex,outcome,remoteness,best_move,score,owner,winner\n\
         0,loss,2,2,-3,0,1\n1,win,1,3,4,1,1\n2,loss,1,4,-3,0,1\n3,win,0,,4,1,1\n4,loss,0,,-3,0,1\n"
        );
        dir.create("a.csv", &out);
        let ok = dir.command().args(["verify", "a.rg", "a.csv"]).stdout();
        assert_eq!(ok, "ok: 5 vertices checked, the solution is exact\n");
    }
);

/// A graph whose scored vertex 1 has a move of its own: 0 -> 1 -> 2 -> 3, 1 worth 3 to its
/// mover. The rules end the game at 1, so no reader may move on from it.
const THROUGH: &str = "0 1\n1 2\n2 3\nscore 1 3\nstart 0\n";

rtest!(play_ends_the_game_at_a_scored_terminal, |dir, cmd| {
    dir.create("t.rg", THROUGH);
    // Your move to 1 ends the game: the engine does not play on from it.
    let out = cmd
        .args(["play", "graph", "t.rg", "--start", "0"])
        .stdin("1\nquit\n")
        .stdout();
    assert!(
        out.contains(
            "your move> 1\nYou play 1: loss by 3 in 1.\n\
             At vertex 1 (terminal: worth 3 to the player to move).\n\
             Game over: the second player wins by 3. You lose.\n"
        ),
        "{out}"
    );
    assert!(!out.contains("(engine) plays"), "{out}");
    // The engine to move at its own won terminal does not leave it.
    let out = dir
        .command()
        .args(["play", "graph", "t.rg", "--start", "1", "--side", "second"])
        .stdin("quit\n")
        .stdout();
    assert!(
        out.contains(
            "At vertex 1 (terminal: worth 3 to the player to move).\n\
             Game over: the first player wins by 3. You lose.\n"
        ),
        "{out}"
    );
    assert!(!out.contains("(engine) plays"), "{out}");
});

rtest!(
    query_lists_no_moves_at_a_terminal_and_refuses_moves_through_it,
    |dir, cmd| {
        // A scored terminal and a labelled one (`terminal V win`), each with a move of its own.
        dir.create("t.rg", THROUGH);
        dir.create("u.rg", "0 1\n1 2\n2 3\nterminal 1 win\nstart 0\n");
        cmd.args(["solve", "t.rg", "--db", "t", "-q"]).stdout();
        dir.command()
            .args(["solve", "u.rg", "--db", "u", "-q"])
            .stdout();
        for (db, score) in [("t", ",\"score\":3"), ("u", "")] {
            let out = dir
                .command()
                .args(["query", db, "--position", "1", "-o", "json"])
                .stdout();
            assert_eq!(
            out,
            format!("{{\"position\":\"1\",\"to_move\":\"The player\",\"outcome\":\"win\",\"remoteness\":0{score},\"moves\":[]}}\n")
        );
            let text = dir
                .command()
                .args(["query", db, "--position", "1"])
                .stdout();
            assert!(text.ends_with("no moves: the game is over\n"), "{text}");
            let msg = dir
                .command()
                .args(["query", db, "--moves", "1,2"])
                .message();
            assert_eq!(
                msg, "graph: move 2 (\"2\") is not legal here (the game is over)",
                "{db}"
            );
            // Through a vertex that is not terminal, a missing move is named as before.
            let msg = dir.command().args(["query", db, "--moves", "2"]).message();
            assert_eq!(
                msg, "graph: move 1 (\"2\"): vertex 0 has no move to 2",
                "{db}"
            );
        }
    }
);

rtest!(verify_refuses_a_move_out_of_a_terminal, |dir, cmd| {
    dir.create("t.rg", THROUGH);
    let csv = cmd.args(["solve", "t.rg", "-o", "csv"]).stdout();
    assert_eq!(
        csv,
        "vertex,outcome,remoteness,best_move,score\n0,loss,1,1,-3\n1,win,0,,3\n2,win,1,3,1\n3,loss,0,,-1\n"
    );
    dir.create("ok.csv", &csv);
    dir.command().args(["verify", "t.rg", "ok.csv"]).stdout();
    // A solution that plays on from 1 (its move to 2) is wrong: with 1's value kept, or as
    // if 1 were not terminal (then 0 wins by 1 in 3 through it).
    for (rows, why) in [
        (
            "0,loss,1,1,-3\n1,win,0,2,3",
            "vertex 1: a terminal, but it has best move 2",
        ),
        ("0,win,3,1,1\n1,loss,2,2,-1", "vertex 1: "),
    ] {
        dir.create("bad.csv", csv.replace("0,loss,1,1,-3\n1,win,0,,3", rows));
        let o = dir.command().args(["verify", "t.rg", "bad.csv"]).output();
        assert_eq!(o.code, 1, "{rows}: {o:?}");
        assert!(o.stdout.starts_with("wrong: bad.csv: "), "{rows}: {o:?}");
        assert!(o.stdout.contains(why), "{rows}: {o:?}");
    }
});
