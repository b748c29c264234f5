//! End-to-end tests of the `retrograde` binary: real files in a temporary directory, the real
//! executable, and exact checks of stdout, stderr and the exit status (see
//! docs/format.md for the promises these check).

#[macro_use]
mod util;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use util::{example, json, parse_csv, shorts, Game, Rng};

/// A test that runs `retrograde verify`. (These were once ignored in debug builds, where clap's
/// debug assertions rejected an optional graph FILE before the required SOLUTION; the graph is
/// now required, and `clap_definitions_are_consistent` in the binary pins that down.)
macro_rules! vtest {
    ($(#[$meta:meta])* $name:ident, |$dir:ident, $cmd:ident| $body:block) => {
        rtest!($(#[$meta])* $name, |$dir, $cmd| $body);
    };
}

// ---------------------------------------------------------------------------------------------
// Graphs used by several tests.

/// GamesmanClassic's meta/default.grf.
const DEFAULT_GRF: &str = "7\n0 u 2\n1 2\n1 u 2\n3 4\n2 u 2\n5 6\n3 w 0\n4 l 0\n5 t 0\n6 w 0\n";
const DEFAULT_CSV: &str = "vertex,outcome,remoteness,best_move\n\
    0,tie,2,2\n1,win,1,4\n2,tie,1,5\n3,win,0,\n4,loss,0,\n5,tie,0,\n6,win,0,\n";

/// GamesmanClassic's meta/loopyWin.grf.
const LOOPY_WIN_GRF: &str = "3\n0 u 2\n1 2\n1 u 1\n0\n2 l 0\n";
/// GamesmanClassic's meta/loopyTie.grf.
const LOOPY_TIE_GRF: &str = "3\n0 u 2\n1 2\n1 u 1\n0\n2 w 0\n";
/// GamesmanClassic's meta/loopySelf.grf.
const LOOPY_SELF_GRF: &str = "3\n0 u 1\n1\n1 u 2\n1 2\n2 w 0\n";

/// GamesmanClassic's meta/1210.grf (with `last` as the value of position 10).
fn text_1210(last: char) -> String {
    let mut s = String::from("11\n");
    for n in 0..=8 {
        s.push_str(&format!("{n} u 2\n{} {}\n", n + 1, n + 2));
    }
    s.push_str(&format!("9 u 1\n10\n10 {last} 0\n"));
    s
}

const PEBBLES_CSV: &str = "vertex,outcome,remoteness,best_move\n\
    0,loss,0,\n1,win,1,0\n2,win,1,0\n3,loss,2,1\n4,win,3,3\n5,win,3,3\n\
    6,loss,4,4\n7,win,5,6\n8,win,5,6\n9,loss,6,7\n10,win,7,9\n";

const LOOPY_CSV: &str = "vertex,outcome,remoteness,best_move\n\
    0,loss,2,1\n1,win,1,2\n2,loss,0,\n3,draw,,4\n4,draw,,3\n5,tie,1,6\n6,tie,0,\n\
    7,win,1,2\n8,win,2,9\n9,win,1,2\n";

const ARENA_CSV: &str = "vertex,outcome,remoteness,best_move,owner,winner\n\
    0,win,2,1,0,0\n1,win,1,3,0,0\n2,loss,3,0,1,0\n3,loss,0,,1,0\n";

const GOAGAIN_EXAMPLE_CSV: &str = "vertex,outcome,remoteness,best_move\n\
    0,loss,2,1\n1,win,1,3\n2,loss,1,3\n3,loss,0,\n4,win,0,\n";

/// A small JSON graph: 0 -> 1 -> 2 (again), 2 a tie, 3 isolated.
const SMALL_JSON: &str = r#"{
  "vertices": 4,
  "edges": [[0, 1], [1, 2, "again"]],
  "terminal": [[2, "tie"]],
  "names": ["start", null, "end"]
}
"#;
const SMALL_JSON_CSV: &str = "vertex,outcome,remoteness,best_move\n\
    0,tie,2,1\n1,tie,1,2\n2,tie,0,\n3,loss,0,\n";

/// A plain edge list: a chain 0 -> 1 -> 2 -> 3 and a cycle 4 <-> 5.
const SMALL_EDGES: &str = "# a chain and a cycle\n0 1\n1 2\n2\t3\n\n% another comment\n4 5\n5 4\n";
const SMALL_EDGES_CSV: &str = "vertex,outcome,remoteness,best_move\n\
    0,win,3,1\n1,loss,2,2\n2,win,1,3\n3,loss,0,\n4,draw,,5\n5,draw,,4\n";

/// Deterministic random edge list text with `m` edges over `n` vertices.
fn random_edges(seed: u64, n: u64, m: usize) -> String {
    let mut rng = Rng::new(seed);
    let mut s = String::with_capacity(m * 14);
    for _ in 0..m {
        let u = rng.below(n);
        let v = if rng.chance(60) {
            (u + 1 + rng.below(4)) % n
        } else {
            rng.below(n)
        };
        s.push_str(&format!("{u} {v}\n"));
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Help and version.

rtest!(help_and_version, |dir, cmd| {
    let help = cmd.arg("--help").stdout();
    assert!(help.contains("solve") && help.contains("verify"), "{help}");
    let help = dir.command().args(["solve", "--help"]).stdout();
    for word in [
        "--format",
        "--output",
        "--summary",
        "--vertex",
        "--line",
        "--no-move",
    ] {
        assert!(help.contains(word), "{word} in {help}");
    }
    let version = dir.command().arg("--version").stdout();
    assert!(version.starts_with("retrograde "), "{version}");
    // No subcommand: a usage error.
    dir.command().error();
});

// ---------------------------------------------------------------------------------------------
// 1. The bundled examples.

rtest!(example_pebbles_csv_is_exact, |_dir, cmd| {
    let out = cmd
        .args(["solve", &example("pebbles.rg"), "--output", "csv"])
        .stdout();
    assert_eq!(out, PEBBLES_CSV);
    for (v, s) in shorts(&out).iter().enumerate() {
        assert_eq!(s.starts_with('L'), v % 3 == 0, "vertex {v}: {s}");
    }
});

rtest!(example_pebbles_text, |dir, cmd| {
    let out = cmd.args(["solve", &example("pebbles.rg")]).stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "0 (0 pebbles): loss in 0 (terminal)");
    assert_eq!(lines[1], "1 (1 pebble): win in 1, move to 0 (0 pebbles)");
    assert_eq!(lines[9], "9 (9 pebbles): loss in 6, move to 7 (7 pebbles)");
    assert_eq!(
        lines[10],
        "10 (10 pebbles): win in 7, move to 9 (9 pebbles)"
    );
    // The totals follow the rows.
    assert_eq!(lines[11], "11 vertices, 19 edges");
    assert!(
        out.contains("\nwin   7\nloss  4\ntie   0\ndraw  0\n"),
        "{out}"
    );
    assert!(out.contains("longest game: 7 plies"), "{out}");
    // One ply is "1 ply" (issue 26: "longest game: 1 plies").
    dir.create("one.txt", "0 1\n");
    let out = dir.command().args(["solve", "one.txt"]).stdout();
    assert!(out.contains("longest game: 1 ply\n"), "{out}");
    let out = dir
        .command()
        .args(["game", "pebbles", "--count", "1"])
        .stdout();
    assert!(
        out.contains("longest win 1 ply, longest loss 0 plies"),
        "{out}"
    );
});

rtest!(example_loopy_csv_is_exact, |_dir, cmd| {
    let out = cmd
        .args(["solve", &example("loopy.rg"), "--output", "csv"])
        .stdout();
    assert_eq!(out, LOOPY_CSV);
});

rtest!(example_loopy_text_names_and_draws, |_dir, cmd| {
    let out = cmd.args(["solve", &example("loopy.rg")]).stdout();
    assert!(out.contains("\n3: draw, move to 4\n"), "{out}");
    assert!(
        out.contains("\n5: tie in 1, move to 6 (level end)\n"),
        "{out}"
    );
    assert!(
        out.contains("\n6 (level end): tie in 0 (terminal)\n"),
        "{out}"
    );
    assert!(out.contains("\n8: win in 2, move to 9\n"), "{out}");
    assert!(out.contains("10 vertices, 11 edges"), "{out}");
    assert!(out.contains("draw  2"), "{out}");
});

rtest!(example_arena_csv_has_owner_and_winner, |_dir, cmd| {
    let out = cmd
        .args(["solve", &example("arena.rg"), "--output", "csv"])
        .stdout();
    assert_eq!(out, ARENA_CSV);
});

rtest!(example_arena_text_and_json, |dir, cmd| {
    let text = cmd.args(["solve", &example("arena.rg")]).stdout();
    assert!(
        text.contains("2: loss in 3, move to 0; player 1 moves, player 0 wins"),
        "{text}"
    );
    let j = json(
        &dir.command()
            .args(["solve", &example("arena.rg"), "-o", "json"])
            .stdout(),
    );
    let p = &j["positions"][2];
    assert_eq!(p["owner"], 1);
    assert_eq!(p["winner"], 0);
    assert_eq!(p["outcome"], "loss");
    assert_eq!(p["remoteness"], 3);
    assert_eq!(p["best_move"], 0);
});

rtest!(example_goagain_grf, |_dir, cmd| {
    let out = cmd
        .args(["solve", &example("goagain.grf"), "--output", "csv"])
        .stdout();
    assert_eq!(out, GOAGAIN_EXAMPLE_CSV);
});

rtest!(solve_verify_flag_on_every_example, |dir, _cmd| {
    for name in [
        "pebbles.rg",
        "loopy.rg",
        "arena.rg",
        "goagain.grf",
        "scored.rg",
    ] {
        let plain = dir
            .command()
            .args(["solve", &example(name), "-o", "csv"])
            .stdout();
        let checked = dir
            .command()
            .args(["solve", &example(name), "-o", "csv", "--verify"])
            .stdout();
        assert_eq!(plain, checked, "{name}");
    }
});

vtest!(examples_pass_the_verifier, |dir, _cmd| {
    for name in [
        "pebbles.rg",
        "loopy.rg",
        "arena.rg",
        "goagain.grf",
        "scored.rg",
    ] {
        let csv = dir
            .command()
            .args(["solve", &example(name), "-o", "csv", "--verify"])
            .stdout();
        let sol = dir.create(&format!("{name}.csv"), &csv);
        let out = dir
            .command()
            .arg("verify")
            .arg(example(name))
            .arg(&sol)
            .stdout();
        assert!(out.starts_with("ok"), "{name}: {out}");
    }
});

// ---------------------------------------------------------------------------------------------
// 2. GamesmanClassic's meta/*.grf, with values computed by hand.

/// Solves `text` written to `name` and returns the short values (`W7`, `D`, …) by vertex.
fn solve_shorts(dir: &util::Dir, name: &str, text: &str) -> Vec<String> {
    dir.create(name, text);
    let out = dir.command().args(["solve", name, "-o", "csv"]).stdout();
    shorts(&out)
}

rtest!(grf_default, |dir, _cmd| {
    assert_eq!(
        solve_shorts(&dir, "default.grf", DEFAULT_GRF),
        ["T2", "W1", "T1", "W0", "L0", "T0", "W0"]
    );
    let csv = dir
        .command()
        .args(["solve", "default.grf", "-o", "csv"])
        .stdout();
    assert_eq!(csv, DEFAULT_CSV);
});

rtest!(grf_1210, |dir, _cmd| {
    assert_eq!(
        solve_shorts(&dir, "1210.grf", &text_1210('l')),
        ["W7", "L6", "W5", "W5", "L4", "W3", "W3", "L2", "W1", "W1", "L0"]
    );
});

rtest!(grf_1210_tie, |dir, _cmd| {
    let got = solve_shorts(&dir, "1210tie.grf", &text_1210('t'));
    let want: Vec<String> = (0..=10).map(|n| format!("T{}", (10 - n + 1) / 2)).collect();
    assert_eq!(got, want);
    assert_eq!(got[0], "T5");
    assert_eq!(got[9], "T1");
});

rtest!(grf_loopy_win, |dir, _cmd| {
    assert_eq!(
        solve_shorts(&dir, "loopyWin.grf", LOOPY_WIN_GRF),
        ["W1", "L2", "L0"]
    );
});

rtest!(grf_loopy_tie, |dir, _cmd| {
    assert_eq!(
        solve_shorts(&dir, "loopyTie.grf", LOOPY_TIE_GRF),
        ["D", "D", "W0"]
    );
});

rtest!(grf_loopy_self, |dir, _cmd| {
    assert_eq!(
        solve_shorts(&dir, "loopySelf.grf", LOOPY_SELF_GRF),
        ["D", "D", "W0"]
    );
});

/// GamesmanClassic's goagain module graph: position 0 moves to 1..=36; position k plays one
/// of two children from [37, 38, 39, 37g, 38g, 39g]; 37 is won, 38 tied, 39 lost.
fn goagain_module_grf() -> String {
    let list = ["37", "38", "39", "37g", "38g", "39g"];
    let mut s = String::from("40\n0 u 36\n");
    let kids: Vec<String> = (1..=36).map(|k| k.to_string()).collect();
    s.push_str(&kids.join(" "));
    s.push('\n');
    for k in 1..=36usize {
        let (ai, bi) = ((k - 1) % 6, (k - 1) / 6);
        s.push_str(&format!("{k} u 2\n{} {}\n", list[ai], list[bi]));
    }
    s.push_str("37 w 0\n38 t 0\n39 l 0\n");
    s
}

rtest!(grf_goagain_module, |dir, _cmd| {
    dir.create("goagain.grf", goagain_module_grf());
    let out = dir
        .command()
        .args(["solve", "goagain.grf", "-o", "csv"])
        .stdout();
    let rows = parse_csv(&out);
    assert_eq!(rows.len(), 40);

    // Each entry of the list as the player at k sees it, with its target id: a normal move
    // flips the perspective, a go-again move (g) keeps it; one ply more either way.
    let ids = [37u32, 38, 39, 37, 38, 39];
    let seen = ["L1", "T1", "W1", "W1", "T1", "L1"];
    let rank = |s: &str| match &s[..1] {
        "W" => 2,
        "T" => 1,
        _ => 0,
    };
    let mut losses = BTreeSet::new();
    for (k, row) in rows.iter().enumerate().take(37).skip(1) {
        let (ai, bi) = ((k - 1) % 6, (k - 1) / 6);
        let want = if rank(seen[ai]) >= rank(seen[bi]) {
            seen[ai]
        } else {
            seen[bi]
        };
        let best = [ai, bi]
            .iter()
            .filter(|&&i| seen[i] == want)
            .map(|&i| ids[i])
            .min();
        assert_eq!(row.short(), want, "position {k}");
        assert_eq!(row.best, best, "best move of {k}");
        if want.starts_with('L') {
            losses.insert(k);
        }
    }
    // A position is lost exactly when both its children are 37 or 39g.
    assert_eq!(losses, BTreeSet::from([1, 6, 31, 36]));
    assert_eq!(rows[0].short(), "W2");
    assert_eq!(rows[0].best, Some(1));
    assert_eq!(rows[37].short(), "W0");
    assert_eq!(rows[38].short(), "T0");
    assert_eq!(rows[39].short(), "L0");
    for r in &rows[37..] {
        assert_eq!(r.best, None);
    }
});

// ---------------------------------------------------------------------------------------------
// 3. Output modes and options.

rtest!(csv_header_draws_and_terminals, |_dir, cmd| {
    let out = cmd
        .args(["solve", &example("loopy.rg"), "-o", "csv"])
        .stdout();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("vertex,outcome,remoteness,best_move"));
    let rows = parse_csv(&out);
    // A draw has no remoteness but does have a move; a terminal has no move.
    assert_eq!((rows[3].remoteness, rows[3].best), (None, Some(4)));
    assert_eq!((rows[2].remoteness, rows[2].best), (Some(0), None));
    assert_eq!((rows[6].remoteness, rows[6].best), (Some(0), None));
    assert!(out.ends_with('\n'));
});

rtest!(json_positions, |_dir, cmd| {
    let j = json(
        &cmd.args(["solve", &example("pebbles.rg"), "--output", "json"])
            .stdout(),
    );
    assert_eq!(j["vertices"], 11);
    assert_eq!(j["edges"], 19);
    assert_eq!(j["win"], 7);
    assert_eq!(j["loss"], 4);
    assert_eq!(j["tie"], 0);
    assert_eq!(j["draw"], 0);
    assert_eq!(j["max_remoteness"], 7);
    assert!(j["seconds"].as_f64().is_some_and(|s| s >= 0.0), "{j}");
    let p = j["positions"].as_array().expect("positions");
    assert_eq!(p.len(), 11);
    for (v, pos) in p.iter().enumerate() {
        assert_eq!(pos["vertex"], v);
        let want = if v % 3 == 0 { "loss" } else { "win" };
        assert_eq!(pos["outcome"], want, "{pos}");
    }
    assert_eq!(p[10]["remoteness"], 7);
    assert_eq!(p[10]["best_move"], 9);
    assert_eq!(p[10]["name"], "10 pebbles");
    assert_eq!(p[0]["best_move"], serde_json::Value::Null);
    assert_eq!(p[0]["remoteness"], 0);
});

rtest!(json_draws_have_null_remoteness, |_dir, cmd| {
    let j = json(
        &cmd.args(["solve", &example("loopy.rg"), "-o", "json"])
            .stdout(),
    );
    let p = &j["positions"];
    assert_eq!(p[3]["outcome"], "draw");
    assert_eq!(p[3]["remoteness"], serde_json::Value::Null);
    assert_eq!(p[3]["best_move"], 4);
    assert_eq!(p[6]["name"], "level end");
    assert_eq!(j["win"], 4);
    assert_eq!(j["loss"], 2);
    assert_eq!(j["tie"], 2);
    assert_eq!(j["draw"], 2);
});

rtest!(json_escapes_names, |dir, cmd| {
    dir.create(
        "names.rg",
        "0 1\r\nname 0 say \"hi\" \\ back # not a comment\r\n",
    );
    let j = json(&cmd.args(["solve", "names.rg", "-o", "json"]).stdout());
    assert_eq!(
        j["positions"][0]["name"],
        "say \"hi\" \\ back # not a comment"
    );
    let t = dir
        .command()
        .args([
            "solve",
            "names.rg",
            "--vertex",
            "say \"hi\" \\ back # not a comment",
        ])
        .stdout();
    assert_eq!(
        t,
        "0 (say \"hi\" \\ back # not a comment): win in 1, move to 1\n"
    );
});

rtest!(summary_text, |_dir, cmd| {
    let out = cmd
        .args(["solve", &example("pebbles.rg"), "--summary"])
        .stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..6],
        [
            "11 vertices, 19 edges",
            "win   7",
            "loss  4",
            "tie   0",
            "draw  0",
            "longest game: 7 plies"
        ]
    );
    assert!(lines[6].starts_with("time "), "{out}");
    assert_eq!(lines.len(), 7);
});

rtest!(summary_csv, |_dir, cmd| {
    let out = cmd
        .args(["solve", &example("loopy.rg"), "--summary", "-o", "csv"])
        .stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0],
        "vertices,edges,win,loss,tie,draw,max_remoteness,seconds"
    );
    let (fixed, secs) = lines[1].rsplit_once(',').unwrap();
    assert_eq!(fixed, "10,11,4,2,2,2,2");
    assert!(secs.parse::<f64>().is_ok(), "{out}");
});

rtest!(summary_json, |_dir, cmd| {
    let j = json(
        &cmd.args([
            "solve",
            &example("loopy.rg"),
            "--summary",
            "--output",
            "json",
        ])
        .stdout(),
    );
    for (k, v) in [
        ("vertices", 10),
        ("edges", 11),
        ("win", 4),
        ("loss", 2),
        ("tie", 2),
        ("draw", 2),
        ("max_remoteness", 2),
    ] {
        assert_eq!(j[k], v, "{k} in {j}");
    }
    assert!(j["seconds"].is_number(), "{j}");
    assert!(
        j.get("positions").is_none(),
        "a summary has no positions: {j}"
    );
});

rtest!(summary_counts_parallel_edges_and_self_loops, |dir, cmd| {
    // Every position loops forever: no remoteness anywhere.
    dir.create("loops.txt", "0 1\n0 1\n1 1\n2 2\n");
    let j = json(
        &cmd.args(["solve", "loops.txt", "--summary", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["vertices"], 3);
    assert_eq!(j["edges"], 4);
    assert_eq!(j["draw"], 3);
    assert!(
        j["max_remoteness"].is_null() || j["max_remoteness"] == 0,
        "{j}"
    );
    let csv = dir
        .command()
        .args(["solve", "loops.txt", "--summary", "-o", "csv"])
        .stdout();
    assert!(
        csv.lines().nth(1).unwrap().starts_with("3,4,0,0,0,3,,"),
        "{csv}"
    );
    let text = dir
        .command()
        .args(["solve", "loops.txt", "--summary"])
        .stdout();
    assert!(text.contains("longest game: none"), "{text}");
});

rtest!(vertex_by_id_repeatable, |dir, cmd| {
    let p = example("pebbles.rg");
    let text = cmd
        .args(["solve", &p, "--vertex", "10", "--vertex", "3"])
        .stdout();
    assert_eq!(
        text,
        "10 (10 pebbles): win in 7, move to 9 (9 pebbles)\n\
         3 (3 pebbles): loss in 2, move to 1 (1 pebble)\n"
    );
    let csv = dir
        .command()
        .args(["solve", &p, "--vertex", "10", "--vertex", "3", "-o", "csv"])
        .stdout();
    assert_eq!(
        csv,
        "vertex,outcome,remoteness,best_move\n10,win,7,9\n3,loss,2,1\n"
    );
    let j = json(
        &dir.command()
            .args(["solve", &p, "--vertex", "0", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["positions"].as_array().unwrap().len(), 1);
    assert_eq!(j["positions"][0]["vertex"], 0);
    assert_eq!(j["vertices"], 11, "totals still cover the whole graph");
});

rtest!(vertex_by_name, |dir, cmd| {
    let csv = cmd
        .args([
            "solve",
            &example("pebbles.rg"),
            "--vertex",
            "10 pebbles",
            "--vertex",
            "1 pebble",
            "-o",
            "csv",
        ])
        .stdout();
    assert_eq!(
        csv,
        "vertex,outcome,remoteness,best_move\n10,win,7,9\n1,win,1,0\n"
    );
    let text = dir
        .command()
        .args(["solve", &example("loopy.rg"), "--vertex", "level end"])
        .stdout();
    assert_eq!(text, "6 (level end): tie in 0 (terminal)\n");
});

rtest!(line_text, |_dir, cmd| {
    let out = cmd
        .args(["solve", &example("pebbles.rg"), "--line", "10"])
        .stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "optimal play from 10 (10 pebbles): win in 7");
    let plies: Vec<&str> = lines[1..9].iter().map(|l| l.trim_start()).collect();
    assert_eq!(
        plies,
        [
            "0  10 (10 pebbles): win in 7",
            "1  9 (9 pebbles): loss in 6",
            "2  7 (7 pebbles): win in 5",
            "3  6 (6 pebbles): loss in 4",
            "4  4 (4 pebbles): win in 3",
            "5  3 (3 pebbles): loss in 2",
            "6  1 (1 pebble): win in 1",
            "7  0 (0 pebbles): loss in 0",
        ]
    );
    assert_eq!(lines[9], "game over: loss for the player to move");
    assert_eq!(lines.len(), 10);
});

rtest!(line_csv_and_json, |dir, cmd| {
    let p = example("pebbles.rg");
    let csv = cmd
        .args(["solve", &p, "--line", "10", "-o", "csv"])
        .stdout();
    assert_eq!(
        csv,
        "ply,vertex,outcome,remoteness\n0,10,win,7\n1,9,loss,6\n2,7,win,5\n3,6,loss,4\n\
         4,4,win,3\n5,3,loss,2\n6,1,win,1\n7,0,loss,0\n"
    );
    let j = json(
        &dir.command()
            .args(["solve", &p, "--line", "10 pebbles", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["start"], 10);
    assert_eq!(j["repeats"], false);
    let line: Vec<u64> = j["line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["vertex"].as_u64().unwrap())
        .collect();
    assert_eq!(line, [10, 9, 7, 6, 4, 3, 1, 0]);
    assert_eq!(j["line"][7]["best_move"], serde_json::Value::Null);
});

rtest!(line_of_a_draw_repeats, |dir, cmd| {
    let l = example("loopy.rg");
    let text = cmd.args(["solve", &l, "--line", "3"]).stdout();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "optimal play from 3: draw");
    assert_eq!(lines[1].trim_start(), "0  3: draw");
    assert_eq!(lines[2].trim_start(), "1  4: draw");
    assert_eq!(lines[3], "then 3 again: the game never ends");
    assert_eq!(lines.len(), 4);
    let csv = dir
        .command()
        .args(["solve", &l, "--line", "3", "-o", "csv"])
        .stdout();
    assert_eq!(csv, "ply,vertex,outcome,remoteness\n0,3,draw,\n1,4,draw,\n");
    let j = json(
        &dir.command()
            .args(["solve", &l, "--line", "3", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["repeats"], true);
    assert_eq!(j["line"].as_array().unwrap().len(), 2);
    assert_eq!(j["line"][1]["best_move"], 3);
});

rtest!(line_of_a_tie_and_of_a_terminal, |dir, cmd| {
    let l = example("loopy.rg");
    let csv = cmd.args(["solve", &l, "--line", "5", "-o", "csv"]).stdout();
    assert_eq!(csv, "ply,vertex,outcome,remoteness\n0,5,tie,1\n1,6,tie,0\n");
    let text = dir
        .command()
        .args(["solve", &l, "--line", "level end"])
        .stdout();
    assert!(
        text.starts_with("optimal play from 6 (level end): tie in 0\n"),
        "{text}"
    );
    assert!(
        text.ends_with("game over: tie for the player to move\n"),
        "{text}"
    );
});

rtest!(no_move_win_is_misere, |_dir, cmd| {
    let out = cmd
        .args([
            "solve",
            &example("pebbles.rg"),
            "--no-move",
            "win",
            "-o",
            "csv",
        ])
        .stdout();
    let rows = parse_csv(&out);
    for r in &rows {
        assert_eq!(r.outcome == "loss", r.vertex % 3 == 1, "{r:?}");
    }
    assert_eq!(rows[0].short(), "W0");
    assert_eq!(rows[0].best, None);
    assert_eq!(rows[1].short(), "L1");
    assert_eq!(
        (rows[10].short(), rows[10].best),
        ("L7".to_string(), Some(8))
    );
});

rtest!(no_move_tie, |_dir, cmd| {
    let out = cmd
        .args([
            "solve",
            &example("pebbles.rg"),
            "--no-move",
            "tie",
            "-o",
            "csv",
        ])
        .stdout();
    let rows = parse_csv(&out);
    for r in &rows {
        let v = r.vertex;
        assert_eq!(r.short(), format!("T{}", v.div_ceil(2)), "{r:?}");
        let best = match v {
            0 => None,
            1 => Some(0),
            _ => Some(v - 2),
        };
        assert_eq!(r.best, best, "{r:?}");
    }
});

rtest!(vertices_adds_isolated_vertices, |dir, cmd| {
    dir.create("one.txt", "0 1\n");
    let out = cmd
        .args(["solve", "one.txt", "--vertices", "4", "-o", "csv"])
        .stdout();
    assert_eq!(
        out,
        "vertex,outcome,remoteness,best_move\n0,win,1,1\n1,loss,0,\n2,loss,0,\n3,loss,0,\n"
    );
    // Fewer than the file mentions: no effect.
    dir.create("far.txt", "0 5\n");
    let j = json(
        &dir.command()
            .args([
                "solve",
                "far.txt",
                "--vertices",
                "2",
                "--summary",
                "-o",
                "json",
            ])
            .stdout(),
    );
    assert_eq!(j["vertices"], 6);
    // An empty file with --vertices: that many dead ends.
    dir.create("empty.txt", "");
    let out = dir
        .command()
        .args(["solve", "empty.txt", "--vertices", "3", "-o", "csv"])
        .stdout();
    assert_eq!(shorts(&out), ["L0", "L0", "L0"]);
    let out = dir
        .command()
        .args([
            "solve",
            "--vertices",
            "3",
            "--no-move",
            "win",
            "-o",
            "csv",
            "-",
        ])
        .stdin("0 1\n")
        .stdout();
    assert_eq!(shorts(&out), ["L1", "W0", "W0"]);
});

rtest!(terminal_labels_win_over_moves, |dir, cmd| {
    dir.create("t.rg", "0 1\n1 2\nterminal 0 tie\nterminal 1 lose\n");
    let out = cmd.args(["solve", "t.rg", "-o", "csv"]).stdout();
    assert_eq!(
        out,
        "vertex,outcome,remoteness,best_move\n0,tie,0,\n1,loss,0,\n2,loss,0,\n"
    );
});

rtest!(crlf_tabs_and_trailing_comments, |dir, cmd| {
    dir.create(
        "crlf.txt",
        "# header\r\n0\t1\r\n  1 2 # trailing\r\n\r\n% percent\r\n2 3\r\n",
    );
    let out = cmd.args(["solve", "crlf.txt", "-o", "csv"]).stdout();
    assert_eq!(shorts(&out), ["W3", "L2", "W1", "L0"]);
});

rtest!(format_explicit_for_each_format, |dir, _cmd| {
    // Neutral names, so that only --format decides.
    dir.create("edges.dat", SMALL_EDGES);
    dir.create("rg.dat", "vertices 3\n0 1\n1 2 again\nterminal 2 win\n");
    dir.create("grf.dat", DEFAULT_GRF);
    dir.create("json.dat", SMALL_JSON);
    let run = |file: &str, format: &str| {
        dir.command()
            .args(["solve", file, "--format", format, "-o", "csv"])
            .stdout()
    };
    assert_eq!(run("edges.dat", "edges"), SMALL_EDGES_CSV);
    assert_eq!(run("edges.dat", "rg"), SMALL_EDGES_CSV);
    // 1 -> 2 again: the mover at 1 is the one who has won at 2.
    assert_eq!(shorts(&run("rg.dat", "rg")), ["L2", "W1", "W0"]);
    assert_eq!(run("grf.dat", "grf"), DEFAULT_CSV);
    assert_eq!(run("json.dat", "json"), SMALL_JSON_CSV);
    // Names from JSON work with --vertex.
    let text = dir
        .command()
        .args(["solve", "json.dat", "--format", "json", "--vertex", "end"])
        .stdout();
    assert_eq!(text, "2 (end): tie in 0 (terminal)\n");
    // --format overrides the extension.
    dir.create("really-edges.json", SMALL_EDGES);
    assert_eq!(run("really-edges.json", "edges"), SMALL_EDGES_CSV);
});

rtest!(format_edges_rejects_rg_directives, |_dir, cmd| {
    let p = example("pebbles.rg");
    let msg = cmd.args(["solve", &p, "--format", "edges"]).message();
    assert_eq!(
        msg,
        format!("{p}:5: expected two vertex ids, found \"vertices 11\"")
    );
});

rtest!(format_mismatch_is_an_error, |dir, _cmd| {
    dir.create("edges.dat", SMALL_EDGES);
    let msg = dir
        .command()
        .args(["solve", "edges.dat", "--format", "grf"])
        .message();
    assert!(
        msg.starts_with("edges.dat:1: expected the number of positions"),
        "{msg}"
    );
    let msg = dir
        .command()
        .args(["solve", "edges.dat", "--format", "json"])
        .message();
    assert!(msg.starts_with("edges.dat:1: "), "{msg}");
});

rtest!(auto_detects_each_format_from_the_content, |dir, _cmd| {
    for (name, text, want) in [
        ("edges", SMALL_EDGES, SMALL_EDGES_CSV),
        ("grf", DEFAULT_GRF, DEFAULT_CSV),
        ("json", SMALL_JSON, SMALL_JSON_CSV),
    ] {
        let file = format!("graph-{name}.txt");
        dir.create(&file, text);
        let out = dir.command().args(["solve", &file, "-o", "csv"]).stdout();
        assert_eq!(out, want, "{name} in a .txt file");
        let bare = format!("graph-{name}");
        dir.create(&bare, text);
        let out = dir.command().args(["solve", &bare, "-o", "csv"]).stdout();
        assert_eq!(out, want, "{name} without an extension");
    }
    // rg directives without the .rg extension.
    let pebbles = std::fs::read_to_string(example("pebbles.rg")).unwrap();
    dir.create("pebbles", &pebbles);
    let out = dir
        .command()
        .args(["solve", "pebbles", "-o", "csv"])
        .stdout();
    assert_eq!(out, PEBBLES_CSV);
    // By extension.
    dir.create("g.grf", DEFAULT_GRF);
    dir.create("g.json", SMALL_JSON);
    let out = dir.command().args(["solve", "g.grf", "-o", "csv"]).stdout();
    assert_eq!(out, DEFAULT_CSV);
    let out = dir
        .command()
        .args(["solve", "g.json", "-o", "csv"])
        .stdout();
    assert_eq!(out, SMALL_JSON_CSV);
});

rtest!(auto_detects_each_format_on_stdin, |dir, _cmd| {
    let pebbles = std::fs::read_to_string(example("pebbles.rg")).unwrap();
    for (name, text, want) in [
        ("edges", SMALL_EDGES, SMALL_EDGES_CSV),
        ("rg", pebbles.as_str(), PEBBLES_CSV),
        ("grf", DEFAULT_GRF, DEFAULT_CSV),
        ("json", SMALL_JSON, SMALL_JSON_CSV),
    ] {
        let out = dir
            .command()
            .args(["solve", "-", "-o", "csv"])
            .stdin(text)
            .stdout();
        assert_eq!(out, want, "{name} on stdin with -");
        let out = dir
            .command()
            .args(["solve", "-o", "csv"])
            .stdin(text)
            .stdout();
        assert_eq!(out, want, "{name} on stdin without a file argument");
        let out = dir
            .command()
            .args(["solve", "-", "-o", "csv", "--format", name])
            .stdin(text)
            .stdout();
        assert_eq!(out, want, "{name} on stdin with --format");
    }
    // Errors on stdin are located as <stdin>.
    let msg = dir
        .command()
        .args(["solve", "--format", "edges"])
        .stdin("0 1\nx y\n")
        .message();
    assert_eq!(msg, "<stdin>:2: expected two vertex ids, found \"x y\"");
    // An empty standard input is an empty graph.
    let out = dir.command().args(["solve", "-o", "csv"]).stdout();
    assert_eq!(out, "vertex,outcome,remoteness,best_move\n");
});

rtest!(verify_flag_prints_the_same, |dir, cmd| {
    let p = example("loopy.rg");
    let plain = cmd.args(["solve", &p, "-o", "csv"]).stdout();
    let checked = dir
        .command()
        .args(["solve", &p, "-o", "csv", "--verify"])
        .stdout();
    assert_eq!(plain, checked);
    assert_eq!(checked, LOOPY_CSV);
});

rtest!(verbose_goes_to_stderr, |_dir, cmd| {
    let o = cmd
        .args([
            "-v",
            "solve",
            &example("pebbles.rg"),
            "-o",
            "csv",
            "--verify",
        ])
        .output();
    assert_eq!(o.code, 0);
    assert_eq!(o.stdout, PEBBLES_CSV);
    assert!(o.stderr.contains("solve"), "{}", o.stderr);
});

rtest!(threads_do_not_change_the_answer, |dir, _cmd| {
    dir.create("random.txt", random_edges(7, 12_000, 50_000));
    let run = |threads: &str| {
        dir.command()
            .args(["solve", "random.txt", "-o", "csv", "--threads", threads])
            .stdout()
    };
    let one = run("1");
    let two = run("2");
    assert_eq!(one.lines().count(), 12_001);
    assert!(one == two, "--threads 1 and --threads 2 differ");
    assert!(run("3") == one, "--threads 1 and --threads 3 differ");
    let rows = parse_csv(&one);
    let outcomes: BTreeSet<&str> = rows.iter().map(|r| r.outcome.as_str()).collect();
    assert!(outcomes.len() >= 3, "a varied graph: {outcomes:?}");
    // --threads before the subcommand works too.
    let before = dir
        .command()
        .args(["--threads", "2", "solve", "random.txt", "-o", "csv"])
        .stdout();
    assert!(before == one);
});

vtest!(verify_accepts_a_big_random_solution, |dir, _cmd| {
    dir.create("random.txt", random_edges(7, 12_000, 50_000));
    let csv = dir
        .command()
        .args(["solve", "random.txt", "-o", "csv"])
        .stdout();
    dir.create("random.csv", &csv);
    let ok = dir
        .command()
        .args(["verify", "random.txt", "random.csv"])
        .stdout();
    assert_eq!(ok, "ok: 12000 vertices checked, the solution is exact\n");
});

// ---------------------------------------------------------------------------------------------
// The solver against a naive reference, through every format.

/// Solves `game` written in every format that can express it and compares with the reference.
fn check_against_reference(dir: &util::Dir, game: &Game, tag: &str) {
    let mut files = vec![
        (format!("{tag}.rg"), game.to_rg()),
        (format!("{tag}.json"), game.to_json()),
    ];
    if game.owners.is_none() {
        files.push((format!("{tag}.grf"), game.to_grf()));
    }
    for no_move in ['l', 'w', 't'] {
        let flag = match no_move {
            'l' => "loss",
            'w' => "win",
            _ => "tie",
        };
        let want = game.expected_csv(no_move);
        for (file, text) in &files {
            dir.create(file, text);
            let got = dir
                .command()
                .args(["solve", file, "-o", "csv", "--no-move", flag])
                .stdout();
            if got != want {
                let diff: Vec<String> = got
                    .lines()
                    .zip(want.lines())
                    .filter(|(g, w)| g != w)
                    .take(5)
                    .map(|(g, w)| format!("got {g:?}, want {w:?}"))
                    .collect();
                panic!("{file} --no-move {flag}: {diff:?}\n{text}");
            }
        }
    }
}

rtest!(random_games_match_the_reference, |dir, _cmd| {
    for seed in 1..=6u64 {
        let mut rng = Rng::new(seed);
        let n = 20 + rng.below(60) as u32;
        let m = (n as usize) * (1 + rng.below(3) as usize);
        let game = Game::random(&mut rng, n, m, 15, false);
        check_against_reference(&dir, &game, &format!("game{seed}"));
    }
});

rtest!(random_arenas_match_the_reference, |dir, _cmd| {
    for seed in 11..=15u64 {
        let mut rng = Rng::new(seed);
        let n = 20 + rng.below(60) as u32;
        let m = (n as usize) * (1 + rng.below(3) as usize);
        let game = Game::random(&mut rng, n, m, 0, true);
        check_against_reference(&dir, &game, &format!("arena{seed}"));
    }
});

// ---------------------------------------------------------------------------------------------
// 4. The verify subcommand.

/// Writes the pebbles solution with one line replaced (`None` drops it).
fn pebbles_with(dir: &util::Dir, name: &str, old: &str, new: Option<&str>) {
    assert!(PEBBLES_CSV.contains(old), "{old}");
    let text = match new {
        Some(n) => PEBBLES_CSV.replacen(old, n, 1),
        None => PEBBLES_CSV.replacen(&format!("{old}\n"), "", 1),
    };
    dir.create(name, text);
}

/// Runs verify on pebbles against `sol`; expects exit 1 and returns stdout.
fn verify_wrong(dir: &util::Dir, sol: &str) -> String {
    let o = dir
        .command()
        .args(["verify", &example("pebbles.rg"), sol])
        .output();
    assert_eq!(o.code, 1, "{sol}: expected exit 1: {o:?}");
    assert_eq!(o.stderr, "", "{sol}");
    assert!(o.stdout.starts_with(&format!("wrong: {sol}: ")), "{o:?}");
    o.stdout
}

/// Runs verify on pebbles against `sol`; expects an error and returns the message.
fn verify_malformed(dir: &util::Dir, sol: &str) -> String {
    dir.command()
        .args(["verify", &example("pebbles.rg"), sol])
        .message()
}

vtest!(verify_accepts_solve_output, |dir, cmd| {
    let csv = cmd
        .args(["solve", &example("pebbles.rg"), "--output", "csv"])
        .stdout();
    dir.create("sol.csv", &csv);
    let out = dir
        .command()
        .args(["verify", &example("pebbles.rg"), "sol.csv"])
        .stdout();
    assert_eq!(out, "ok: 11 vertices checked, the solution is exact\n");
    // Rows in any order, with CRLF line ends.
    let mut lines: Vec<&str> = csv.lines().collect();
    lines[1..].reverse();
    dir.create("shuffled.csv", lines.join("\r\n") + "\r\n");
    let out = dir
        .command()
        .args(["verify", &example("pebbles.rg"), "shuffled.csv"])
        .stdout();
    assert!(out.starts_with("ok"), "{out}");
});

vtest!(verify_reads_either_side_from_stdin, |dir, cmd| {
    dir.create("sol.csv", PEBBLES_CSV);
    let out = cmd
        .args(["verify", &example("pebbles.rg"), "-"])
        .stdin(PEBBLES_CSV)
        .stdout();
    assert!(out.starts_with("ok"), "{out}");
    let pebbles = std::fs::read_to_string(example("pebbles.rg")).unwrap();
    let out = dir
        .command()
        .args(["verify", "-", "sol.csv"])
        .stdin(pebbles)
        .stdout();
    assert!(out.starts_with("ok"), "{out}");
    let msg = dir.command().args(["verify", "-", "-"]).message();
    assert!(msg.contains("standard input"), "{msg}");
});

rtest!(verify_needs_both_the_graph_and_the_solution, |dir, cmd| {
    // The graph is required (`-` for standard input): one argument is a usage error.
    dir.create("sol.csv", PEBBLES_CSV);
    let err = cmd.args(["verify", "sol.csv"]).error();
    assert!(err.contains("SOLUTION"), "{err}");
    let pebbles = std::fs::read_to_string(example("pebbles.rg")).unwrap();
    let out = dir
        .command()
        .args(["verify", "-", "sol.csv"])
        .stdin(pebbles)
        .stdout();
    assert!(out.starts_with("ok"), "{out}");
});

vtest!(verify_rejects_a_wrong_remoteness, |dir, _cmd| {
    pebbles_with(&dir, "s.csv", "10,win,7,9", Some("10,win,5,9"));
    let out = verify_wrong(&dir, "s.csv");
    assert_eq!(
        out,
        "wrong: s.csv: vertex 10: claimed win in 5, but its moves give win in 7 (move to 9)\n"
    );
    pebbles_with(&dir, "s2.csv", "9,loss,6,7", Some("9,loss,5,7"));
    assert!(verify_wrong(&dir, "s2.csv").contains("vertex 9"));
});

vtest!(verify_rejects_a_wrong_outcome, |dir, _cmd| {
    pebbles_with(&dir, "s.csv", "3,loss,2,1", Some("3,win,2,1"));
    assert!(verify_wrong(&dir, "s.csv").contains("vertex 3: claimed win in 2"));
    pebbles_with(&dir, "d.csv", "3,loss,2,1", Some("3,draw,,1"));
    assert!(verify_wrong(&dir, "d.csv").contains("vertex 3"));
});

vtest!(verify_rejects_a_wrong_best_move, |dir, _cmd| {
    pebbles_with(&dir, "s.csv", "10,win,7,9", Some("10,win,7,8"));
    assert_eq!(
        verify_wrong(&dir, "s.csv"),
        "wrong: s.csv: vertex 10: best move 8 does not realize win in 7\n"
    );
    // A best move that is not a move at all.
    pebbles_with(&dir, "t.csv", "10,win,7,9", Some("10,win,7,2"));
    assert!(verify_wrong(&dir, "t.csv").contains("vertex 10"));
    // A terminal with a best move, and a non-terminal without one.
    pebbles_with(&dir, "u.csv", "0,loss,0,", Some("0,loss,0,1"));
    assert!(verify_wrong(&dir, "u.csv").contains("vertex 0: a terminal"));
    pebbles_with(&dir, "v.csv", "4,win,3,3", Some("4,win,3,"));
    assert!(verify_wrong(&dir, "v.csv").contains("vertex 4"));
    // Issue 25: a best move that realizes the value but is not the smallest successor
    // that does (3 pebbles: taking one or two both lose in 2) breaks the documented rule.
    pebbles_with(&dir, "w.csv", "3,loss,2,1", Some("3,loss,2,2"));
    assert_eq!(
        verify_wrong(&dir, "w.csv"),
        "wrong: w.csv: vertex 3: best move 2 realizes loss in 2, but so does 1, a smaller successor: the best move is the smallest that realizes the value\n"
    );
});

vtest!(verify_rejects_a_false_draw_or_tie, |dir, cmd| {
    let l = example("loopy.rg");
    dir.create("tie.csv", LOOPY_CSV.replace("3,draw,,4", "3,tie,1,4"));
    let o = cmd.args(["verify", &l, "tie.csv"]).output();
    assert_eq!(o.code, 1, "{o:?}");
    assert!(o.stdout.starts_with("wrong: tie.csv: vertex 3"), "{o:?}");
    dir.create("draw.csv", LOOPY_CSV.replace("5,tie,1,6", "5,draw,,3"));
    let o = dir.command().args(["verify", &l, "draw.csv"]).output();
    assert_eq!(o.code, 1, "{o:?}");
    assert!(o.stdout.starts_with("wrong: draw.csv: vertex 5"), "{o:?}");
});

vtest!(verify_uses_the_no_move_rule, |dir, cmd| {
    let p = example("pebbles.rg");
    let csv = cmd
        .args(["solve", &p, "--no-move", "win", "-o", "csv"])
        .stdout();
    dir.create("misere.csv", csv);
    let out = dir
        .command()
        .args(["verify", &p, "misere.csv", "--no-move", "win"])
        .stdout();
    assert!(out.starts_with("ok"), "{out}");
    let o = dir.command().args(["verify", &p, "misere.csv"]).output();
    assert_eq!(o.code, 1, "{o:?}");
    assert!(
        o.stdout
            .starts_with("wrong: misere.csv: vertex 0: a terminal"),
        "{o:?}"
    );
});

vtest!(verify_accepts_arena_columns, |dir, cmd| {
    dir.create("arena.csv", ARENA_CSV);
    let out = cmd
        .args(["verify", &example("arena.rg"), "arena.csv"])
        .stdout();
    assert!(out.starts_with("ok: 4 vertices"), "{out}");
});

vtest!(verify_missing_or_duplicate_rows, |dir, _cmd| {
    // A solution that lacks a vertex, or lists one twice, is not a solution file: an error
    // (exit 2), located at the duplicate line when there is one.
    pebbles_with(&dir, "drop.csv", "5,win,3,3", None);
    assert_eq!(
        verify_malformed(&dir, "drop.csv"),
        "drop.csv: vertex 5 is missing (the graph has 11 vertices)"
    );
    pebbles_with(&dir, "dup.csv", "5,win,3,3", Some("5,win,3,3\n5,win,3,3"));
    assert_eq!(
        verify_malformed(&dir, "dup.csv"),
        "dup.csv:8: vertex 5 appears twice"
    );
});

vtest!(verify_malformed_csv_names_file_and_line, |dir, _cmd| {
    let cases: [(&str, &str, Option<&str>, &str); 8] = [
        (
            "outcome.csv",
            "10,win,7,9",
            Some("10,wim,7,9"),
            "outcome.csv:12: expected win, loss, tie or draw, found \"wim\"",
        ),
        (
            "remoteness.csv",
            "10,win,7,9",
            Some("10,win,x,9"),
            "remoteness.csv:12: expected a remoteness, found \"x\"",
        ),
        (
            "missing-remoteness.csv",
            "10,win,7,9",
            Some("10,win,,9"),
            "missing-remoteness.csv:12: expected a remoteness, found \"\"",
        ),
        (
            "fields.csv",
            "10,win,7,9",
            Some("10,win"),
            "fields.csv:12: expected 4 fields vertex,outcome,remoteness,best_move, found \"10,win\"",
        ),
        (
            "header.csv",
            "vertex,outcome,remoteness,best_move",
            Some("v,o,r,b"),
            "header.csv:1: expected the header vertex,outcome,remoteness,best_move, found \"v,o,r,b\"",
        ),
        (
            "draw.csv",
            "3,loss,2,1",
            Some("3,draw,2,1"),
            "draw.csv:5: a draw has no remoteness, found \"2\"",
        ),
        (
            "range.csv",
            "10,win,7,9",
            Some("11,win,7,9"),
            "range.csv:12: expected a vertex id below 11, found \"11\"",
        ),
        (
            "move.csv",
            "10,win,7,9",
            Some("10,win,7,99"),
            "move.csv:12: expected a best move below 11 or nothing, found \"99\"",
        ),
    ];
    for (name, old, new, want) in cases {
        pebbles_with(&dir, name, old, new);
        assert_eq!(verify_malformed(&dir, name), want);
    }
    dir.create("empty.csv", "");
    assert_eq!(
        verify_malformed(&dir, "empty.csv"),
        "empty.csv:1: expected the header vertex,outcome,remoteness,best_move, found an empty file"
    );
    dir.create(
        "binary.csv",
        b"vertex,outcome,remoteness,best_move\n\xff\xfe,\x00\n".as_slice(),
    );
    assert!(verify_malformed(&dir, "binary.csv").starts_with("binary.csv:2: "));
    let msg = verify_malformed(&dir, "nosuch.csv");
    assert!(msg.starts_with("nosuch.csv: cannot open"), "{msg}");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let msg = verify_malformed(&dir, "sub");
    assert!(msg.starts_with("sub: is a directory"), "{msg}");
});

vtest!(verify_graph_errors_are_errors, |dir, cmd| {
    dir.create("sol.csv", PEBBLES_CSV);
    dir.create("bad.txt", "0 1\nx y\n");
    let msg = cmd
        .args(["verify", "bad.txt", "sol.csv", "--format", "edges"])
        .message();
    assert_eq!(msg, "bad.txt:2: expected two vertex ids, found \"x y\"");
});

// ---------------------------------------------------------------------------------------------
// 5. Errors: exit status 2, a located message on stderr, nothing on stdout, never a panic.

/// Writes `text` to `name` and returns the error message of `solve name ARGS`.
fn solve_error(dir: &util::Dir, name: &str, text: impl AsRef<[u8]>, args: &[&str]) -> String {
    dir.create(name, text);
    dir.command().arg("solve").arg(name).args(args).message()
}

rtest!(error_message_format_matches_the_contract, |dir, _cmd| {
    // The contract's own example, word for word.
    let msg = solve_error(&dir, "graph.txt", "0 1\n1 2\nx y\n", &["--format", "edges"]);
    assert_eq!(msg, "graph.txt:3: expected two vertex ids, found \"x y\"");
    // The full stderr, with the program name.
    let err = dir
        .command()
        .args(["solve", "graph.txt", "--format", "edges"])
        .error();
    assert_eq!(
        err,
        "retrograde: graph.txt:3: expected two vertex ids, found \"x y\"\n"
    );
    // The same file under auto-detection (rg accepts directives too) is still located on line
    // 3 and says the same thing.
    let msg = dir.command().args(["solve", "graph.txt"]).message();
    assert!(
        msg.starts_with("graph.txt:3: expected two vertex ids"),
        "{msg}"
    );
    assert!(msg.ends_with("found \"x y\""), "{msg}");
});

rtest!(error_missing_file, |_dir, cmd| {
    let msg = cmd.args(["solve", "nosuch.txt"]).message();
    assert!(msg.starts_with("nosuch.txt: cannot open"), "{msg}");
});

rtest!(error_directory, |dir, cmd| {
    std::fs::create_dir(dir.path().join("graphs")).unwrap();
    let msg = cmd.args(["solve", "graphs"]).message();
    assert_eq!(msg, "graphs: is a directory, expected a graph file");
});

rtest!(error_non_numeric_ids, |dir, _cmd| {
    let msg = solve_error(&dir, "xy.txt", "x y\n", &["--format", "edges"]);
    assert_eq!(msg, "xy.txt:1: expected two vertex ids, found \"x y\"");
    let msg = solve_error(&dir, "half.txt", "0 1\n1 x\n", &[]);
    assert!(msg.starts_with("half.txt:2: expected "), "{msg}");
});

rtest!(error_negative_id, |dir, _cmd| {
    for (name, text) in [("neg1.txt", "0 -1\n"), ("neg2.txt", "0 1\n-1 2\n")] {
        let msg = solve_error(&dir, name, text, &[]);
        let line = if name == "neg1.txt" { 1 } else { 2 };
        assert!(
            msg.starts_with(&format!("{name}:{line}: expected")),
            "{msg}"
        );
        assert!(msg.contains("non-negative"), "{msg}");
    }
});

rtest!(error_id_too_large, |dir, _cmd| {
    let msg = solve_error(&dir, "big.txt", "0 1\n0 4294967295\n", &[]);
    assert_eq!(
        msg,
        "big.txt:2: vertex id 4294967295 is too large (ids must be at most 4294967294)"
    );
    let digits = "123456789012345678901234567890";
    let msg = solve_error(
        &dir,
        "huge.txt",
        format!("{digits} 1\n"),
        &["--format", "edges"],
    );
    assert!(msg.starts_with("huge.txt:1: vertex id "), "{msg}");
    assert!(msg.contains(digits) && msg.contains("too large"), "{msg}");
});

rtest!(error_truncated_line, |dir, _cmd| {
    let msg = solve_error(&dir, "one.txt", "0 1\n\n5\n", &[]);
    assert_eq!(msg, "one.txt:3: expected two vertex ids, found \"5\"");
    // The last line, without its newline.
    let msg = solve_error(&dir, "last.txt", "0 1\n5", &["--format", "edges"]);
    assert_eq!(msg, "last.txt:2: expected two vertex ids, found \"5\"");
});

rtest!(error_three_numbers_in_edges_format, |dir, _cmd| {
    let msg = solve_error(&dir, "three.txt", "0 1\n0 1 2\n", &["--format", "edges"]);
    assert_eq!(msg, "three.txt:2: expected two vertex ids, found \"0 1 2\"");
    // Glued digits are not two ids either.
    let msg = solve_error(&dir, "glued.txt", "01\n", &["--format", "edges"]);
    assert_eq!(msg, "glued.txt:1: expected two vertex ids, found \"01\"");
});

rtest!(error_binary_garbage, |dir, _cmd| {
    let mut rng = Rng::new(99);
    let mut bytes = vec![0u8, 1, 2, 0xff, 0];
    bytes.extend((0..4096).map(|_| rng.below(256) as u8));
    for (name, args) in [
        ("garbage.bin", &[][..]),
        ("garbage2.bin", &["--format", "edges"][..]),
    ] {
        let msg = solve_error(&dir, name, &bytes, args);
        assert!(msg.starts_with(&format!("{name}:1: ")), "{msg}");
        assert!(msg.contains("binary"), "{msg}");
    }
    // Garbage under the other formats: still a clean error.
    for (name, format) in [("garbage.grf", "grf"), ("garbage.json", "json")] {
        let msg = solve_error(&dir, name, &bytes, &["--format", format]);
        assert!(msg.starts_with(&format!("{name}:")), "{msg}");
    }
});

rtest!(empty_file_is_an_empty_graph, |dir, _cmd| {
    dir.create("empty.txt", "");
    dir.create("comments.txt", "# nothing\n% here\n\n");
    for name in ["empty.txt", "comments.txt"] {
        let csv = dir.command().args(["solve", name, "-o", "csv"]).stdout();
        assert_eq!(csv, "vertex,outcome,remoteness,best_move\n");
        let text = dir.command().args(["solve", name]).stdout();
        assert!(text.starts_with("0 vertices, 0 edges\n"), "{text}");
        let j = json(&dir.command().args(["solve", name, "-o", "json"]).stdout());
        assert_eq!(j["vertices"], 0);
        assert_eq!(j["edges"], 0);
        assert_eq!(j["positions"].as_array().unwrap().len(), 0);
        assert!(j["max_remoteness"].is_null() || j["max_remoteness"] == 0);
        let j = json(
            &dir.command()
                .args([
                    "solve",
                    name,
                    "--summary",
                    "-o",
                    "json",
                    "--format",
                    "edges",
                ])
                .stdout(),
        );
        assert_eq!(j["vertices"], 0);
    }
});

vtest!(verify_an_empty_graph, |dir, cmd| {
    dir.create("empty.txt", "");
    dir.create("empty.csv", "vertex,outcome,remoteness,best_move\n");
    let out = cmd.args(["verify", "empty.txt", "empty.csv"]).stdout();
    assert_eq!(out, "ok: 0 vertices checked, the solution is exact\n");
});

rtest!(error_unknown_format_option, |_dir, cmd| {
    let err = cmd
        .args(["solve", &example("pebbles.rg"), "--format", "xyz"])
        .error();
    assert!(err.contains("xyz"), "{err}");
    assert!(
        err.contains("edges"),
        "the possible values are listed: {err}"
    );
});

rtest!(error_conflicting_options, |dir, cmd| {
    let p = example("pebbles.rg");
    let err = cmd.args(["solve", &p, "--summary", "--line", "3"]).error();
    assert!(err.contains("--summary"), "{err}");
    let err = dir
        .command()
        .args(["solve", &p, "--vertex", "1", "--line", "3"])
        .error();
    assert!(err.contains("--line"), "{err}");
    dir.command().args(["solve", &p, "--output", "xml"]).error();
    dir.command()
        .args(["solve", &p, "--no-move", "draw"])
        .error();
    // The words of `--no-move` are those of Python's `no_move`: `lose` is none of them.
    let err = dir
        .command()
        .args(["solve", &p, "--no-move", "lose"])
        .error();
    assert!(err.contains("[possible values: loss, win, tie]"), "{err}");
    dir.command()
        .args(["solve", &p, "--vertices", "-1"])
        .error();
    dir.command().args(["frobnicate"]).error();
    let err = dir
        .command()
        .args(["solve", &p, "--summary", "--vertex", "3"])
        .error();
    assert!(err.contains("--summary"), "{err}");
});

rtest!(error_rg_unknown_directive, |dir, _cmd| {
    let msg = solve_error(&dir, "a.rg", "0 1\nbogus 3\n", &[]);
    assert_eq!(
        msg,
        "a.rg:2: expected two vertex ids or a directive (vertices, terminal, score, owner, name, start), \
         found \"bogus 3\""
    );
});

rtest!(error_rg_bad_terminal_value, |dir, _cmd| {
    let msg = solve_error(&dir, "b.rg", "0 1\nterminal 1 maybe\n", &[]);
    assert_eq!(
        msg,
        "b.rg:2: terminal: expected win, loss or tie, found \"maybe\""
    );
    let msg = solve_error(&dir, "b2.rg", "0 1\n\nterminal 1\n", &[]);
    assert!(
        msg.starts_with("b2.rg:3: expected \"terminal V win|loss|tie\""),
        "{msg}"
    );
});

rtest!(error_rg_owner_two, |dir, _cmd| {
    let msg = solve_error(&dir, "c.rg", "0 1\nowner 1 2\n", &[]);
    assert!(msg.starts_with("c.rg:2: "), "{msg}");
    assert!(msg.contains("owner must be 0 or 1"), "{msg}");
});

rtest!(error_rg_go_again_in_an_arena, |dir, _cmd| {
    let msg = solve_error(&dir, "d.rg", "0 1 again\nowner 1 1\n", &[]);
    assert!(msg.starts_with("d.rg: "), "{msg}");
    assert!(msg.contains("go-again"), "{msg}");
    dir.create(
        "d.json",
        r#"{"edges": [[0, 1, "again"]], "owners": [0, 1]}"#,
    );
    let msg = dir.command().args(["solve", "d.json"]).message();
    assert!(
        msg.starts_with("d.json: ") && msg.contains("go-again"),
        "{msg}"
    );
});

rtest!(error_rg_other_directives, |dir, _cmd| {
    let msg = solve_error(&dir, "e.rg", "0 1 twice\n", &[]);
    assert!(msg.starts_with("e.rg:1: expected an edge"), "{msg}");
    let msg = solve_error(&dir, "f.rg", "name 3\n", &[]);
    assert_eq!(msg, "f.rg:1: expected \"name V TEXT\", found \"name 3\"");
    let msg = solve_error(&dir, "g.rg", "start 4294967295\n", &[]);
    assert!(
        msg.starts_with("g.rg:1: ") && msg.contains("too large"),
        "{msg}"
    );
    let msg = solve_error(&dir, "h.rg", "vertices 4294967296\n", &[]);
    assert!(
        msg.starts_with("h.rg:1: ") && msg.contains("too many"),
        "{msg}"
    );
    let msg = solve_error(&dir, "i.rg", "terminal x win\n", &[]);
    assert!(
        msg.starts_with("i.rg:1: terminal: expected a vertex id"),
        "{msg}"
    );
});

rtest!(error_grf_malformed, |dir, _cmd| {
    let cases = [
        (
            "eof.grf",
            "2\n0 u 1\n1\n",
            "eof.grf:3: expected a position id, found the end of the file",
        ),
        (
            "children.grf",
            "3\n0 u 3\n1 2\n",
            "children.grf:3: expected a child id, found the end of the file",
        ),
        (
            "count.grf",
            "1\n0 u\n",
            "count.grf:2: expected the number of children, found the end of the file",
        ),
        (
            "letter.grf",
            "1\n0 x 0\n",
            "letter.grf:2: expected a value letter u, w, l or t, found \"x\"",
        ),
        (
            "twice.grf",
            "2\n0 u 0\n0 w 0\n",
            "twice.grf:3: position 0 is listed twice (first on line 2)",
        ),
        (
            "child.grf",
            "1\n0 u 1\n1h\n",
            "child.grf:3: expected a child id (digits, with g for go-again), found \"1h\"",
        ),
        (
            "header.grf",
            "x\n",
            "header.grf:1: expected the number of positions, found \"x\"",
        ),
        (
            "empty.grf",
            "",
            "empty.grf:1: expected the number of positions, found the end of the file",
        ),
    ];
    for (name, text, want) in cases {
        assert_eq!(solve_error(&dir, name, text, &[]), want);
    }
    let msg = solve_error(&dir, "big.grf", "1\n0 u 1\n4294967295g\n", &[]);
    assert!(
        msg.starts_with("big.grf:3: ") && msg.contains("too large"),
        "{msg}"
    );
    let msg = solve_error(&dir, "neg.grf", "1\n-1 u 0\n", &[]);
    assert!(
        msg.starts_with("neg.grf:2: expected a position id"),
        "{msg}"
    );
});

rtest!(grf_children_without_records_and_notes, |dir, cmd| {
    // Child 5 is past the 2 positions announced: an error (issue 14), not a silent vertex.
    dir.create("sparse.grf", "2\n0 u 1\n5\n1 W 0\nthese are notes 1 2 3\n");
    let msg = cmd.args(["solve", "sparse.grf", "-o", "csv"]).message();
    assert!(
        msg.starts_with("sparse.grf:3: child 5 is past the 2 positions"),
        "{msg}"
    );
    // Every position has its record; notes after the records are ignored.
    dir.create(
        "full.grf",
        "6\n0 u 1\n5\n1 W 0\n2 u 0\n3 u 0\n4 u 0\n5 u 0\nthese are notes 1 2 3\n",
    );
    let out = dir
        .command()
        .args(["solve", "full.grf", "-o", "csv"])
        .stdout();
    assert_eq!(shorts(&out), ["W1", "W0", "L0", "L0", "L0", "L0"]);
});

rtest!(error_json_malformed, |dir, _cmd| {
    let msg = solve_error(
        &dir,
        "syntax.json",
        "{\n\"edges\": [[0, 1],\n [2, ]]}\n",
        &[],
    );
    assert!(msg.starts_with("syntax.json:3: "), "{msg}");
    let msg = solve_error(&dir, "field.json", r#"{"edgez": []}"#, &[]);
    assert!(
        msg.starts_with("field.json:1: unknown field `edgez`"),
        "{msg}"
    );
    let msg = solve_error(&dir, "neg.json", "{\"edges\": [[0, 1],\n[0, -1]]}", &[]);
    assert!(
        msg.starts_with("neg.json:2: vertex id -1 is negative"),
        "{msg}"
    );
    let msg = solve_error(&dir, "big.json", r#"{"edges": [[0, 4294967295]]}"#, &[]);
    assert!(
        msg.starts_with("big.json:1: ") && msg.contains("too large"),
        "{msg}"
    );
    let msg = solve_error(&dir, "str.json", r#"{"edges": [[0, "a"]]}"#, &[]);
    assert!(
        msg.starts_with("str.json:1: ") && msg.contains("vertex id"),
        "{msg}"
    );
    let msg = solve_error(&dir, "short.json", r#"{"edges": [[0]]}"#, &[]);
    assert!(
        msg.starts_with("short.json:1: ") && msg.contains("[u, v]"),
        "{msg}"
    );
    let msg = solve_error(&dir, "label.json", r#"{"terminal": [[0, "maybe"]]}"#, &[]);
    assert!(
        msg.starts_with("label.json:1: ") && msg.contains("win, loss or tie"),
        "{msg}"
    );
    let msg = solve_error(&dir, "owner.json", r#"{"owners": [3]}"#, &[]);
    assert!(
        msg.starts_with("owner.json") && msg.contains("0 or 1"),
        "{msg}"
    );
    let msg = solve_error(&dir, "array.json", "[1, 2]", &[]);
    assert!(msg.starts_with("array.json:1: "), "{msg}");
    let msg = solve_error(&dir, "empty.json", "", &[]);
    assert!(msg.starts_with("empty.json: "), "{msg}");
});

rtest!(error_vertex_out_of_range_or_unknown, |dir, cmd| {
    let p = example("pebbles.rg");
    let msg = cmd.args(["solve", &p, "--vertex", "99"]).message();
    assert_eq!(
        msg,
        "vertex 99 does not exist (the graph has 11 vertices, ids 0 to 10)"
    );
    let msg = dir
        .command()
        .args(["solve", &p, "--vertex", "nosuchname"])
        .message();
    assert_eq!(
        msg,
        "no vertex is named \"nosuchname\" (expected a vertex id or a name from the file)"
    );
    let msg = dir.command().args(["solve", &p, "--line", "11"]).message();
    assert!(msg.starts_with("vertex 11 does not exist"), "{msg}");
    // A graph without names.
    dir.create("plain.txt", SMALL_EDGES);
    let msg = dir
        .command()
        .args(["solve", "plain.txt", "--vertex", "nosuchname"])
        .message();
    assert_eq!(msg, "expected a vertex id, found \"nosuchname\"");
    let msg = dir
        .command()
        .args(["solve", "plain.txt", "--vertex", "-1"])
        .error();
    assert!(!msg.is_empty());
});

rtest!(error_vertex_in_an_empty_graph, |dir, cmd| {
    dir.create("empty.txt", "");
    let msg = cmd.args(["solve", "empty.txt", "--vertex", "0"]).message();
    assert_eq!(msg, "vertex 0 does not exist (the graph has no vertices)");
});

rtest!(error_threads_zero, |_dir, cmd| {
    let msg = cmd
        .args(["solve", &example("pebbles.rg"), "--threads", "0"])
        .message();
    assert_eq!(msg, "--threads must be at least 1");
});

/// A big edge list: `m` edges over `m / 2` vertices.
fn big_edge_list(m: usize) -> String {
    random_edges(3, (m / 2) as u64, m)
}

rtest!(error_line_numbers_across_parse_chunks, |dir, _cmd| {
    // More than 2 MiB: the parser splits it into chunks, and must still count lines exactly.
    let mut text = big_edge_list(200_000);
    assert!(text.len() > 2 << 20);
    text.push_str("1 x\n");
    let msg = solve_error(&dir, "big.txt", &text, &["--format", "edges"]);
    assert_eq!(
        msg,
        "big.txt:200001: expected two vertex ids, found \"1 x\""
    );
    // And an error early in a big file.
    let text = big_edge_list(200_000).replacen('\n', "\n-3 4\n", 1);
    let msg = solve_error(&dir, "early.txt", &text, &["--threads", "2"]);
    assert!(msg.starts_with("early.txt:2: "), "{msg}");
});

rtest!(
    #[cfg(target_os = "linux")]
    error_out_of_memory_is_an_error,
    |dir, _cmd| {
        // `vertices 4294967295` is a valid count, but needs far more memory than any test
        // machine has; the address space is capped at 2 GB so that a missing check cannot
        // exhaust the machine (it would abort on allocation failure instead).
        dir.create("huge.rg", "vertices 4294967295\n");
        // One edge to the largest id means as many vertices.
        dir.create("far.txt", "0 4294967294\n");
        for file in ["huge.rg", "far.txt"] {
            let o = Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "ulimit -v 2000000; exec '{}' solve {file} --summary",
                    env!("CARGO_BIN_EXE_retrograde")
                ))
                .current_dir(dir.path())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{file}: {stderr}");
            assert!(
                stderr.starts_with(&format!("retrograde: {file}: ")),
                "{stderr}"
            );
            assert!(stderr.contains("memory"), "{stderr}");
            assert!(!stderr.contains("panicked"), "{stderr}");
            assert!(o.stdout.is_empty(), "{file}");
        }
    }
);

/// The reader's block size (crates/cli/src/input.rs): files are streamed in blocks this big.
const BLOCK: usize = 16 << 20;

/// An edge list a little over one block, with a line that straddles the block boundary; with
/// `bad`, that straddling line is `7 x 9`. Returns the text, its edge count, its largest id
/// and the line number of the straddling line.
fn two_block_edge_list(bad: bool) -> (String, usize, u64, usize) {
    let mut rng = Rng::new(17);
    let n = 1_000_000u64;
    let mut text = String::with_capacity(BLOCK + (1 << 20));
    let (mut edges, mut lines, mut max) = (0usize, 0usize, 0u64);
    while text.len() < BLOCK - 40 {
        let (u, v) = (rng.below(n), rng.below(n));
        text.push_str(&format!("{u} {v}\n"));
        (edges, lines, max) = (edges + 1, lines + 1, max.max(u).max(v));
    }
    // A comment pads up to two bytes before the boundary.
    let pad = BLOCK - 2 - text.len() - 2;
    text.push('#');
    text.push_str(&"-".repeat(pad));
    text.push('\n');
    lines += 1;
    assert_eq!(text.len(), BLOCK - 2);
    let straddling = lines + 1;
    if bad {
        text.push_str("7 x 9\n");
    } else {
        text.push_str("123456 654321\n");
        (edges, max) = (edges + 1, max.max(654_321));
    }
    for _ in 0..20_000 {
        let (u, v) = (rng.below(n), rng.below(n));
        text.push_str(&format!("{u}\t{v}\r\n"));
        (edges, max) = (edges + 1, max.max(u).max(v));
    }
    (text, edges, max, straddling)
}

rtest!(files_bigger_than_one_read_block, |dir, _cmd| {
    let (text, edges, max, _) = two_block_edge_list(false);
    dir.create("two.txt", &text);
    for stdin in [false, true] {
        let mut cmd = dir.command();
        cmd.args(["solve", "--summary", "-o", "json"]);
        if stdin {
            cmd.arg("-").stdin(text.clone());
        } else {
            cmd.arg("two.txt");
        }
        let j = json(&cmd.stdout());
        assert_eq!(j["edges"], edges, "stdin: {stdin}");
        assert_eq!(j["vertices"], max + 1, "stdin: {stdin}");
    }
    let (text, _, _, line) = two_block_edge_list(true);
    dir.create("bad.txt", &text);
    let want = "expected two vertex ids, found \"7 x 9\"";
    let msg = dir
        .command()
        .args(["solve", "bad.txt", "--format", "edges"])
        .message();
    assert_eq!(msg, format!("bad.txt:{line}: {want}"));
    let msg = dir
        .command()
        .args(["solve", "--format", "edges"])
        .stdin(text)
        .message();
    assert_eq!(msg, format!("<stdin>:{line}: {want}"));
});

// ---------------------------------------------------------------------------------------------
// 6. A closed stdout pipe is not an error.

rtest!(closed_stdout_is_not_an_error, |dir, _cmd| {
    dir.create("big.txt", big_edge_list(200_000));
    for output in ["text", "csv", "json"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrograde"))
            .args(["solve", "big.txt", "--output", output])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "{output}: some output first");
        drop(reader);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{output}: {stderr}");
        assert!(!stderr.contains("panicked"), "{output}: {stderr}");
        assert_eq!(stderr, "", "{output}: a closed pipe is silent");
    }
});

rtest!(
    an_error_in_an_early_block_of_a_big_file_ends_the_reader_too,
    |dir, _cmd| {
        // Regression: the file is read on a second thread while the parser works; an error in an
        // early block must stop both (it once could leave the reader waiting forever).
        let mut text = String::with_capacity(48 << 20);
        for i in 0..1_500_000u32 {
            text.push_str(&format!("{i} {}\n", i + 1));
        }
        text.push_str("oops\n");
        for i in 0..1_500_000u32 {
            text.push_str(&format!("{i} {}\n", i + 1));
        }
        assert!(text.len() > 32 << 20, "spans several 16 MiB blocks");
        let msg = solve_error(&dir, "big.txt", &text, &["--summary"]);
        assert!(
            msg.starts_with("big.txt:1500001: expected two vertex ids"),
            "{msg}"
        );
    }
);

// ---------------------------------------------------------------------------------------------
// `retrograde game`

rtest!(game_pebbles_text_and_json, |dir, cmd| {
    let out = cmd.args(["game", "pebbles"]).stdout();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("first player: win in 7"));
    assert!(out.contains("LWWLWWLWWLW"), "{out}");
    assert!(out.contains("positions 11, moves 19"), "{out}");
    let j = json(
        &dir.command()
            .args([
                "game", "pebbles", "--count", "9", "--take", "1,2", "--output", "json",
            ])
            .stdout(),
    );
    assert_eq!(j["start"]["outcome"], "loss");
    assert_eq!(j["start"]["remoteness"], 6);
    for key in ["positions", "win", "loss", "tie", "draw", "seconds"] {
        assert!(j.get(key).is_some(), "missing {key}: {j}");
    }
    assert_eq!(
        (j["positions"].as_u64(), j["loss"].as_u64()),
        (Some(10), Some(4))
    );
    // Misère, take 1 or 2: lost exactly at counts 1, 4, 7, ...
    let j = json(
        &dir.command()
            .args(["game", "-o", "json", "pebbles", "--count", "7", "--misere"])
            .stdout(),
    );
    assert_eq!(j["pattern"], "WLWWLWWL");
});

rtest!(game_pebbles_errors, |_dir, cmd| {
    let msg = cmd.args(["game", "pebbles", "--take", "0,1"]).message();
    assert!(msg.contains("at least 1 pebble"), "{msg}");
    let _dir2 = util::Dir::new();
    let err = _dir2
        .command()
        .args(["game", "pebbles", "--take", "x"])
        .error();
    assert!(err.contains("--take"), "{err}");
});

rtest!(game_police_thief_verdicts_and_errors, |dir, cmd| {
    dir.create("caught.txt", "2 3\nP..\n..T\n");
    dir.create("escape.txt", "1 5\nP..TE\n");
    dir.create("draw.txt", "1 3\nP*T\n");
    let first = |out: String| out.lines().next().unwrap().to_string();
    assert_eq!(
        first(cmd.args(["game", "police-thief", "caught.txt"]).stdout()),
        "Police catches the thief"
    );
    assert_eq!(
        first(
            dir.command()
                .args(["game", "police-thief", "escape.txt"])
                .stdout()
        ),
        "The thief escapes"
    );
    assert_eq!(
        first(
            dir.command()
                .args(["game", "police-thief", "draw.txt"])
                .stdout()
        ),
        "Draw"
    );
    let j = json(
        &dir.command()
            .args(["game", "police-thief", "draw.txt", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["verdict"], "Draw");
    assert_eq!(j["start"]["outcome"], "draw");
    assert!(j["start"]["remoteness"].is_null());
    // From standard input too.
    let out = dir
        .command()
        .args(["game", "police-thief", "-"])
        .stdin("1 3\nC.T\n")
        .stdout();
    assert!(out.starts_with("Police catches the thief\n"), "{out}");
    // Errors name the file and line.
    dir.create("short.txt", "2 3\nP.T\n..\n");
    let msg = dir
        .command()
        .args(["game", "police-thief", "short.txt"])
        .message();
    assert_eq!(
        msg,
        "short.txt:3: expected a row of 3 cells, found 2 (\"..\")"
    );
    let msg = dir
        .command()
        .args(["game", "police-thief", "nosuch.txt"])
        .message();
    assert!(msg.starts_with("nosuch.txt: cannot open"), "{msg}");
    dir.create("nothief.txt", "1 2\nP.\n");
    let msg = dir
        .command()
        .args(["game", "police-thief", "nothief.txt"])
        .message();
    assert!(msg.contains("no thief"), "{msg}");
});

/// A small Score instance: 1 (player 1, value 1) -> 3 (player 1, value 3) -> 2 or 4;
/// 4 (player 2, value 4) -> 2; 2 (player 2, value 2) -> 1.
const SCORES: &str = "4\n0 0 1 0\n1 0 0 0\n0 1 0 1\n0 1 0 0\n1 2 1 2\n1 2 3 4\n";

rtest!(game_scores_winner_strategy_and_json, |dir, cmd| {
    dir.create("s.txt", SCORES);
    let out = cmd.args(["game", "scores", "s.txt"]).stdout();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("player 1 wins"));
    assert!(out.contains("at 1, scores 0/0 -> 3"), "{out}");
    // At 3 player 1 must go to 2 (going to 4 lets player 2 pick 4 > 3).
    assert!(out.contains("at 3, scores 1/0 -> 2"), "{out}");
    let j = json(
        &dir.command()
            .args(["game", "scores", "s.txt", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["winner"], 1);
    assert_eq!(j["start"]["outcome"], "win");
});

rtest!(game_scores_play_protocol, |dir, cmd| {
    dir.create("s.txt", SCORES);
    // We move 3 then 2 (player 1 owns 3 too); the opponent at 2 can only go back to 1.
    let out = cmd
        .args(["game", "scores", "s.txt", "--play"])
        .stdin("1\n")
        .stdout();
    assert_eq!(out, "3\n2\n");
    let o = dir
        .command()
        .args(["game", "scores", "s.txt", "--play"])
        .stdin("2\n")
        .output();
    assert_eq!(o.code, 2);
    assert_eq!(
        o.stdout, "3\n2\n",
        "moves made before the bad reply stay printed"
    );
    assert!(o.stderr.contains("move 3: illegal move"), "{}", o.stderr);
    let o = dir
        .command()
        .args(["game", "scores", "s.txt", "--play"])
        .output();
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("ended before the game did"),
        "{}",
        o.stderr
    );
    let o = dir
        .command()
        .args(["game", "scores", "s.txt", "--play"])
        .stdin("x\n")
        .output();
    assert!(
        o.stderr
            .contains("expected the position the opponent moves to, found \"x\""),
        "{}",
        o.stderr
    );
});

rtest!(game_scores_bad_input, |dir, cmd| {
    dir.create("bad.txt", "2\n0 1\n1 0\n1 2\n5 5\n");
    let msg = cmd.args(["game", "scores", "bad.txt"]).message();
    assert!(msg.starts_with("bad.txt:5: "), "{msg}");
    let msg = dir
        .command()
        .args(["game", "scores", "missing.txt"])
        .message();
    assert!(msg.starts_with("missing.txt: cannot open"), "{msg}");
});

rtest!(game_great_game_public_cases_and_errors, |dir, cmd| {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/great-game");
    let read = |f: &str| {
        std::fs::read_to_string(format!("{data}/{f}"))
            .unwrap_or_else(|e| panic!("the public Great Game data must be at {data}: {e}"))
    };
    // The sample from standard input, every method.
    for method in ["product", "memo", "minimax"] {
        let out = dir
            .command()
            .args(["game", "great-game", "--method", method])
            .stdin(read("sample.in"))
            .stdout();
        assert_eq!(out, read("sample.out"), "{method}");
    }
    // A whole public test file, by path.
    let out = cmd
        .args(["game", "great-game", &format!("{data}/test2.in")])
        .stdout();
    assert_eq!(out, read("test2.out"));
    let j = json(
        &dir.command()
            .args(["game", "great-game", "-o", "json"])
            .stdin(read("sample.in"))
            .stdout(),
    );
    assert_eq!(j["cases"], 2);
    // Errors name the line.
    dir.create("bad.in", "1\n3 2\n1 2\n1 2\n2 1\n");
    let msg = dir
        .command()
        .args(["game", "great-game", "bad.in"])
        .message();
    assert!(msg.starts_with("bad.in:5: "), "{msg}");
});

rtest!(game_tictactoe, |dir, cmd| {
    let out = cmd.args(["game", "tictactoe"]).stdout();
    assert!(out.starts_with("first player: tie in 9\n"), "{out}");
    assert!(out.contains("positions 5478,"), "{out}");
    assert!(
        out.contains("positions up to rotation and reflection 765"),
        "{out}"
    );
    let j = json(
        &dir.command()
            .args([
                "game",
                "tictactoe",
                "--rows",
                "2",
                "--cols",
                "2",
                "--k",
                "2",
                "-o",
                "json",
            ])
            .stdout(),
    );
    assert_eq!(j["start"]["outcome"], "win");
    let msg = dir
        .command()
        .args(["game", "tictactoe", "--k", "4"])
        .message();
    assert!(msg.contains("cannot fit"), "{msg}");
});

rtest!(game_connect4, |dir, cmd| {
    // 161029 positions for 4x4 is John Tromp's count; the tie is known too.
    let out = cmd
        .args(["game", "connect4", "--width", "4", "--height", "4"])
        .stdout();
    assert!(out.starts_with("first player: tie in 16\n"), "{out}");
    assert!(out.contains("positions 161029,"), "{out}");
    assert!(
        out.contains("positions up to mirror symmetry 80541"),
        "{out}"
    );
    let j = json(
        &dir.command()
            .args([
                "game", "connect4", "--width", "4", "--height", "3", "-o", "json",
            ])
            .stdout(),
    );
    assert_eq!(j["game"], "connect4");
    // Each tier's files keep one position per mirror pair.
    let held: u64 = j["tier_sizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(j["symmetry_reduced"].as_u64(), Some(held));
    let sum = ["win", "loss", "tie", "draw"]
        .iter()
        .map(|k| j[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(j["positions"].as_u64(), Some(sum));
    assert!(held < sum && held * 2 >= sum, "{held} of {sum}");
});

rtest!(game_connect4_db_resume_and_errors, |dir, cmd| {
    let first = cmd
        .args([
            "game", "connect4", "--width", "4", "--height", "3", "--db", "db",
        ])
        .stdout();
    assert!(dir.path().join("db/00.values").exists());
    assert!(dir.path().join("db/00.keys").exists());
    assert!(dir.path().join("db/database.json").exists());
    assert!(first.contains("tiers written to db"), "{first}");
    std::fs::remove_file(dir.path().join("db/03.values")).unwrap();
    let again = dir
        .command()
        .args(["game", "connect4", "--width", "4", "--height", "3"])
        .args(["--db", "db", "--resume"])
        .stdout();
    let lines = |s: &str| s.lines().take(3).collect::<Vec<_>>().join("\n");
    assert_eq!(lines(&first), lines(&again));
    // A damaged tier of a finished database is an error naming the file for a query, and
    // is solved again on resume (with a warning), giving the same answer.
    let f = dir.path().join("db/02.values");
    let mut bytes = std::fs::read(&f).unwrap();
    bytes[140] ^= 0x40;
    std::fs::write(&f, bytes).unwrap();
    let msg = dir
        .command()
        .args(["game", "connect4", "--width", "4", "--height", "3"])
        .args(["--db", "db", "--query", "1,1"])
        .message();
    assert!(
        msg.contains("02.values") && msg.contains("checksum") && msg.contains("--resume"),
        "{msg}"
    );
    let out = dir
        .command()
        .args(["game", "connect4", "--width", "4", "--height", "3"])
        .args(["--db", "db", "--resume"])
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(lines(&first), lines(&out.stdout));
    assert!(
        out.stderr.contains("02.values") && out.stderr.contains("solving it again"),
        "{}",
        out.stderr
    );
    // Another board's database is not taken for this one's.
    let msg = dir
        .command()
        .args(["game", "connect4", "--width", "3", "--height", "4"])
        .args(["--db", "db", "--resume"])
        .message();
    assert!(msg.contains("connect4 4x3"), "{msg}");
    let msg = dir
        .command()
        .args(["game", "connect4", "--width", "7", "--height", "6"])
        .message();
    assert!(msg.contains("far too many"), "{msg}");
    let msg = dir
        .command()
        .args(["game", "connect4", "--width", "9", "--height", "7"])
        .message();
    assert!(msg.contains("at most 64"), "{msg}");
    let msg = dir
        .command()
        .args([
            "game", "connect4", "--width", "5", "--height", "4", "--memory", "1M",
        ])
        .message();
    assert!(msg.contains("limit 1.0 MiB (from --memory)"), "{msg}");
    let msg = dir
        .command()
        .args(["game", "connect4", "--memory", "lots"])
        .error();
    assert!(msg.contains("20G"), "{msg}");
    let msg = dir.command().args(["game", "connect4", "--resume"]).error();
    assert!(msg.contains("--db"), "{msg}");
    let msg = dir.command().args(["game", "pebbles", "--db", "x"]).error();
    assert!(msg.contains("unexpected argument '--db'"), "{msg}");
});

// Every game in `game --help` and `play --help` is described by its own words (the flags a
// game takes once put their struct's doc comment, "`--query` (tier games with a start)",
// in place of the game's), and so is each game's own help.
rtest!(
    game_lists_describe_each_game_by_its_own_words,
    |dir, cmd| {
        let help = |args: &[&str]| dir.command().args(args).arg("--help").stdout();
        for verb in ["game", "play"] {
            let list = help(&[verb]);
            for about in [
                "Connect-4 on small boards",
                "Quixo (official rules)",
                "chess endings: exact depth to mate",
                "tic-tac-toe and other m,n,k-games",
            ] {
                assert!(
                    list.contains(about),
                    "{verb} --help lacks {about:?}:\n{list}"
                );
            }
            for flags_doc in [
                "tier games with a start",
                "The flags of",
                "`play graph FILE`",
            ] {
                assert!(
                    !list.contains(flags_doc),
                    "{verb} --help: {flags_doc:?}:\n{list}"
                );
            }
            let own = help(&[verb, "connect4"]);
            assert!(
                own.starts_with("Connect-4"),
                "{verb} connect4 --help:\n{own}"
            );
        }
        assert!(help(&["play", "graph"]).starts_with("Any game graph file"));
        let _ = cmd;
    }
);

// A game's help lists the flags that game takes, and no other (issue 26: every game's help
// listed --dump, which only chess takes, and --db's help named the tier games but chess).
rtest!(game_help_shows_only_the_flags_a_game_takes, |dir, cmd| {
    let help = |args: &[&str]| dir.command().args(args).arg("--help").stdout();
    // The option lines' flags among these (an option line starts with the flag).
    let flags = |text: &str| {
        let options: Vec<&str> = text
            .lines()
            .map(|l| l.trim_start())
            .map(|l| {
                l.split_once(", ")
                    .filter(|(s, _)| s.len() == 2)
                    .map_or(l, |(_, f)| f)
            })
            .filter_map(|l| l.split([' ', '\n']).next())
            .collect();
        [
            "--db",
            "--resume",
            "--compact",
            "--query",
            "--dump",
            "--position",
        ]
        .into_iter()
        .filter(|f| options.contains(f))
        .collect::<Vec<_>>()
    };
    assert_eq!(
        flags(&help(&["game", "connect4"])),
        ["--db", "--resume", "--query"]
    );
    assert_eq!(
        flags(&help(&["game", "chess"])),
        ["--db", "--resume", "--compact", "--dump"]
    );
    // `--compact` keeps one side to move of a table that holds both: chess endings' only.
    // Connect-4's help spoke of chess; it does not offer the flag, which it has no use for.
    for game in [
        "connect4",
        "quixo",
        "tictactoe",
        "teeko",
        "dots-and-boxes",
        "kalah",
    ] {
        let text = help(&["game", game]);
        assert!(
            !text.contains("--compact") && !text.contains("chess"),
            "{game}: {text}"
        );
    }
    let e = dir
        .command()
        .args(["game", "connect4", "--db", "c4", "--compact"])
        .error();
    assert!(e.contains("unexpected argument '--compact'"), "{e}");
    assert_eq!(flags(&help(&["game", "pebbles"])), Vec::<&str>::new());
    assert_eq!(flags(&help(&["play", "teeko"])), ["--db", "--position"]);
    assert_eq!(flags(&help(&["play", "pebbles"])), Vec::<&str>::new());
    // No hand-written list of games in the help: every tier game is one the registry marks.
    assert!(!help(&["game", "chess"]).contains("connect4, quixo"));
    // `query --help` describes query's JSON, not `game`'s.
    let q = cmd.args(["query", "--help"]).stdout();
    assert!(q.contains("position, to_move, outcome"), "{q}");
    assert!(!q.contains("start, positions, win"), "{q}");
});

rtest!(the_tour_s_line_is_a_real_game, |dir, cmd| {
    // The tour shows an optimal line on the pebble game's graph: from a vertex with a game
    // to play (vertex 0, the empty bag, was a game of no move).
    let readme = std::fs::read_to_string(util::examples().join("../docs/tour.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with("retrograde solve graph.txt --line "))
        .expect("the tour's --line command");
    let v = line.split_whitespace().nth(4).unwrap();
    let graph = util::examples().join("../testdata/docs/graph.txt");
    std::fs::copy(graph, dir.path().join("graph.txt")).unwrap();
    let out = cmd.args(["solve", "graph.txt", "--line", v]).stdout();
    assert!(
        out.starts_with(&format!("optimal play from {v}: win in 7\n")),
        "{out}"
    );
    assert_eq!(out.lines().count(), 10, "{out}");
});

rtest!(game_quixo, |dir, cmd| {
    let out = cmd.args(["game", "quixo", "--size", "3"]).stdout();
    assert!(out.starts_with("first player: win in 7\n"), "{out}");
    assert!(out.contains("positions 32027,"), "{out}");
    assert!(out.contains("up to rotation and reflection 4433"), "{out}");
    let j = json(
        &dir.command()
            .args(["game", "quixo", "--size", "3", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["start"]["outcome"], "win");
    assert_eq!(j["start"]["remoteness"], 7);
    assert_eq!(j["states"], 16021);
    let msg = dir
        .command()
        .args(["game", "quixo", "--size", "5"])
        .message();
    assert!(
        msg.starts_with("quixo 5x5: needs about") && msg.contains("TiB"),
        "{msg}"
    );
    let msg = dir
        .command()
        .args(["game", "quixo", "--size", "4", "--memory", "10M"])
        .message();
    assert!(msg.contains("limit 10.0 MiB (from --memory)"), "{msg}");
    let msg = dir
        .command()
        .args(["game", "quixo", "--size", "6"])
        .message();
    assert!(msg.contains("3, 4 or 5"), "{msg}");
});

rtest!(game_connect4_query, |dir, cmd| {
    let out = cmd
        .args(["game", "connect4", "--width", "4", "--height", "4"])
        .args(["--query", "1,2,2"])
        .stdout();
    assert!(out.contains("O to move: win in 13\n"), "{out}");
    assert!(
        out.contains("moves, best first (value for the mover):\n  2  win in 13\n  1  tie in 13\n"),
        "{out}"
    );
    // A finished database answers without solving, the same way.
    dir.command()
        .args([
            "game", "connect4", "--width", "4", "--height", "4", "--db", "db",
        ])
        .stdout();
    let j = json(
        &dir.command()
            .args([
                "game", "connect4", "--width", "4", "--height", "4", "--db", "db",
            ])
            .args(["--query", "1,2,2", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["outcome"], "win");
    assert_eq!(j["remoteness"], 13);
    assert_eq!(j["moves"][0]["move"], "2");
    assert_eq!(j["moves"][0]["outcome"], "win");
    let msg = dir
        .command()
        .args([
            "game", "connect4", "--width", "4", "--height", "4", "--db", "db",
        ])
        .args(["--query", "1,1,1,1,1"])
        .message();
    assert!(msg.contains("move 5 (\"1\"): column 1 is full"), "{msg}");
    let msg = dir
        .command()
        .args([
            "game", "connect4", "--width", "4", "--height", "4", "--db", "db",
        ])
        .args(["--query", "5"])
        .message();
    assert!(msg.contains("columns are 1 to 4"), "{msg}");
    let msg = dir
        .command()
        .args([
            "game", "connect4", "--width", "4", "--height", "4", "--db", "db",
        ])
        .args(["--query", "1,2,1,2,1,2,1,3"])
        .message();
    assert!(
        msg.contains("move 8 (\"3\"): the game is already over"),
        "{msg}"
    );
});

rtest!(game_teeko, |dir, cmd| {
    // A small variant (4x4, three pieces each; its counts are checked against a plain
    // search in the library's tests).
    let out = cmd
        .args(["game", "teeko", "--size", "4", "--pieces", "3"])
        .stdout();
    assert!(out.starts_with("first player: win in 5\n"), "{out}");
    assert!(out.contains("positions 363129,"), "{out}");
    assert!(out.contains("up to rotation and reflection 45689"), "{out}");
    let j = json(
        &dir.command()
            .args([
                "game", "teeko", "--size", "3", "--pieces", "3", "-o", "json",
            ])
            .stdout(),
    );
    assert_eq!(j["start"]["outcome"], "draw");
    assert_eq!(j["start"]["remoteness"], serde_json::Value::Null);
    for (args, want) in [
        (vec!["--size", "6"], "3, 4 or 5"),
        (vec!["--pieces", "5"], "3 or 4"),
        (vec!["--size", "3", "--pieces", "4"], "at most 3"),
        (vec!["--memory", "10M"], "limit 10.0 MiB (from --memory)"),
    ] {
        let msg = dir.command().args(["game", "teeko"]).args(&args).message();
        assert!(msg.contains(want), "{args:?}: {msg}");
    }
});

rtest!(game_quixo_db_resume, |dir, cmd| {
    let first = cmd
        .args(["game", "quixo", "--size", "3", "--db", "q3", "-o", "json"])
        .stdout();
    assert!(dir.path().join("q3/09.values").exists());
    std::fs::remove_file(dir.path().join("q3/07.values")).unwrap();
    let again = dir
        .command()
        .args([
            "game", "quixo", "--size", "3", "--db", "q3", "--resume", "-o", "json",
        ])
        .stdout();
    let (a, b) = (json(&first), json(&again));
    for k in [
        "start",
        "positions",
        "win",
        "loss",
        "draw",
        "histogram",
        "symmetry_reduced",
    ] {
        assert_eq!(a[k], b[k], "{k}");
    }
    let msg = dir
        .command()
        .args(["game", "quixo", "--size", "4", "--db", "q3", "--resume"])
        .message();
    assert!(
        msg.contains("quixo 3x3") && msg.contains("another directory"),
        "{msg}"
    );
});

rtest!(
    game_killed_mid_solve_resumes_to_the_same_answer,
    |dir, cmd| {
        let fresh = cmd
            .args([
                "game", "connect4", "--width", "5", "--height", "4", "-o", "json",
            ])
            .stdout();
        // Start a solve into a database and kill it (SIGKILL) once some tiers are written.
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retrograde"))
            .current_dir(dir.path())
            .args([
                "game", "connect4", "--width", "5", "--height", "4", "--db", "db",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let marker = dir.path().join("db/15.values");
        let started = std::time::Instant::now();
        while !marker.exists() && started.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(marker.exists(), "the solve did not get far enough");
        let killed_early = !dir.path().join("db/database.json").exists();
        let resumed = dir
            .command()
            .args([
                "game", "connect4", "--width", "5", "--height", "4", "-o", "json",
            ])
            .args(["--db", "db", "--resume"])
            .stdout();
        let (a, b) = (json(&fresh), json(&resumed));
        for k in [
            "start",
            "positions",
            "moves",
            "win",
            "loss",
            "tie",
            "histogram",
            "symmetry_reduced",
        ] {
            assert_eq!(a[k], b[k], "{k}");
        }
        // No half-written file is left behind, whatever was killed.
        let tmp: Vec<_> = std::fs::read_dir(dir.path().join("db"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(tmp.is_empty() || killed_early, "{tmp:?}");
    }
);

rtest!(
    play_from_a_damaged_database_is_an_error_naming_the_file,
    |dir, cmd| {
        cmd.args([
            "game", "connect4", "--width", "5", "--height", "4", "--db", "db",
        ])
        .stdout();
        // A table's file is opened when play first reaches it: exit 2 then, after what
        // was already played, with the error on stderr.
        let play = |dir: &util::Dir| {
            let out = dir
                .command()
                .args([
                    "play", "connect4", "--width", "5", "--height", "4", "--db", "db",
                ])
                .stdin("3\n3\n3\nhint\nquit\n")
                .output();
            assert_eq!(out.code, 2, "{}", out.stderr);
            out.stderr
        };
        // Truncated.
        let f = dir.path().join("db/04.values");
        let bytes = std::fs::read(&f).unwrap();
        std::fs::write(&f, &bytes[..bytes.len() / 2]).unwrap();
        let msg = play(&dir);
        assert!(
            msg.contains("db/04.values") && msg.contains("--resume"),
            "{msg}"
        );
        // Missing.
        std::fs::remove_file(&f).unwrap();
        let msg = play(&dir);
        assert!(
            msg.contains("db/04.values") && msg.contains("missing"),
            "{msg}"
        );
        // A flipped byte in a block: found when play reaches it (exit 2 then, after what was
        // already played).
        std::fs::write(&f, &bytes).unwrap();
        let keys = dir.path().join("db/03.keys");
        let mut k = std::fs::read(&keys).unwrap();
        k[130] ^= 1;
        std::fs::write(&keys, &k).unwrap();
        let out = dir
            .command()
            .args([
                "play", "connect4", "--width", "5", "--height", "4", "--db", "db",
            ])
            .stdin("3\n3\n3\nhint\nquit\n")
            .output();
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(
            out.stderr.contains("db/03.keys")
                && out.stderr.contains("checksum")
                && out.stderr.contains("--resume"),
            "{}",
            out.stderr
        );
        // --resume repairs the database; play works again.
        dir.command()
            .args([
                "game", "connect4", "--width", "5", "--height", "4", "--db", "db", "--resume",
            ])
            .output();
        let out = dir
            .command()
            .args([
                "play", "connect4", "--width", "5", "--height", "4", "--db", "db",
            ])
            .stdin("hint\nquit\n")
            .stdout();
        assert!(out.contains("Hint: play "), "{out}");
    }
);

rtest!(game_db_of_mpi_shares_is_named_not_ignored, |dir, cmd| {
    // Shares an MPI run on 2 ranks left behind: one process does not read them, and says so.
    std::fs::create_dir(dir.path().join("db")).unwrap();
    std::fs::write(dir.path().join("db/4.values.part-1-of-2"), b"x").unwrap();
    let out = cmd
        .args(["game", "tictactoe", "--db", "db", "--resume"])
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let err = &out.stderr;
    assert!(
        err.contains("shares of a run on 2 MPI ranks")
            && err.contains("4.values.part-1-of-2")
            && err.contains("mpirun -n 2"),
        "{err}"
    );
    // A directory of one process's files gets no such note.
    let out = dir
        .command()
        .args(["game", "tictactoe", "--db", "db1"])
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("MPI ranks"), "{}", out.stderr);
    // Nor do shares beside the whole file rank 0 put together (a dense run's): one process
    // reads that file.
    let whole = std::fs::read_dir(dir.path().join("db1"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with(".values"))
        .expect("a values file");
    std::fs::write(dir.path().join(format!("db1/{whole}.part-1-of-2")), b"x").unwrap();
    let out = dir
        .command()
        .args(["game", "tictactoe", "--db", "db1", "--resume"])
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("MPI ranks"), "{}", out.stderr);
});
