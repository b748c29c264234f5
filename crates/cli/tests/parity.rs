//! End-to-end tests of `retrograde parity` and `retrograde verify-parity`: the real binary
//! on real files, games of the SYNTCOMP competition that Oink ships among them (with Oink's
//! own solutions, `testdata/parity/`), and every error path.

#[macro_use]
#[allow(dead_code)]
mod util;

use std::path::PathBuf;
use util::json;

/// A file of `testdata/parity/`.
fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/parity")
        .join(name)
        .display()
        .to_string()
}

/// The compressed copies of a small game made by the gzip and bzip2 programs (the parity
/// crate's test data).
fn compressed(ext: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../parity/tests/data/small.pg")
        .with_extension(format!("pg.{ext}"))
        .display()
        .to_string()
}

/// The games of `testdata/parity/` (each has Oink's solution beside it).
const GAMES: [&str; 6] = [
    "starve",
    "ltl2dba_E",
    "robot_grid",
    "ltl2dpa22",
    "full_arbiter_unreal1",
    "KitchenTimerV4",
];

/// Even 0 -> Odd 1 -> {0, 2}; 2 loops with priority 4 (the crate's example).
const SMALL: &str = "parity 2;\n0 3 0 1 \"a\";\n1 1 1 0,2;\n2 4 0 2;\n";

/// The winners (0 or 1) of a PGSolver solution, by vertex.
fn winners(sol: &str) -> Vec<u8> {
    let mut w = Vec::new();
    for line in sol.lines().skip(1) {
        let mut it = line.trim_end_matches(';').split(' ');
        let v: usize = it.next().unwrap().parse().unwrap();
        let x: u8 = it.next().unwrap().parse().unwrap();
        if w.len() <= v {
            w.resize(v + 1, 9);
        }
        w[v] = x;
    }
    w
}

rtest!(parity_prints_every_format, |dir, cmd| {
    dir.create("g.pg", SMALL);
    let text = cmd.args(["parity", "g.pg"]).stdout();
    let (body, last) = text.trim_end().rsplit_once('\n').unwrap();
    assert_eq!(
        body,
        "0 (a): Odd wins (priority 3, Even moves)\n\
         1: Odd wins, move to 0 (a) (priority 1, Odd moves)\n\
         2: Even wins, move to 2 (priority 4, Even moves)\n\
         3 vertices, 4 edges, priorities up to 4\n\
         Even wins 1\n\
         Odd wins  2\n\
         algorithm zielonka, after preprocessing solved 3 of 3 vertices"
    );
    // The time at the end: "time  0.001 s".
    let time = last
        .strip_prefix("time  ")
        .and_then(|t| t.strip_suffix(" s"))
        .unwrap_or_else(|| panic!("{last}"));
    assert!(time.parse::<f64>().is_ok(), "{last}");
    let csv = dir.command().args(["parity", "g.pg", "-o", "csv"]).stdout();
    assert_eq!(
        csv,
        "vertex,priority,owner,winner,strategy\n0,3,0,1,\n1,1,1,1,0\n2,4,0,0,2\n"
    );
    let sol = dir
        .command()
        .args(["parity", "g.pg", "-o", "pgsolver"])
        .stdout();
    assert_eq!(sol, "paritysol 2;\n0 1;\n1 1 0;\n2 0 2;\n");
    let j = json(
        &dir.command()
            .args(["parity", "g.pg", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["vertices"], 3);
    assert_eq!(j["edges"], 4);
    assert_eq!(j["even"], 1);
    assert_eq!(j["odd"], 2);
    assert_eq!(j["algorithm"], "zielonka");
    assert_eq!(j["positions"][0]["name"], "a");
    assert_eq!(j["positions"][0]["strategy"], serde_json::Value::Null);
    assert_eq!(j["positions"][1]["strategy"], 0);
    assert_eq!(j["positions"][2]["winner"], 0);
    assert!(j["seconds"].as_f64().is_some());
});

rtest!(parity_summary_and_vertices, |dir, cmd| {
    dir.create("g.pg", SMALL);
    let out = cmd.args(["parity", "g.pg", "--summary"]).stdout();
    assert!(out.starts_with("3 vertices, 4 edges, priorities up to 4\nEven wins 1\nOdd wins  2\n"));
    let csv = dir
        .command()
        .args(["parity", "g.pg", "--summary", "-o", "csv"])
        .stdout();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("vertices,edges,max_priority,even,odd,seconds")
    );
    assert!(lines.next().unwrap().starts_with("3,4,4,1,2,"));
    let j = json(
        &dir.command()
            .args(["parity", "g.pg", "--summary", "-o", "json"])
            .stdout(),
    );
    assert_eq!(j["odd"], 2);
    assert!(j.get("positions").is_none());
    // Vertices by id and by name, in the order given; no totals then.
    let out = dir
        .command()
        .args(["parity", "g.pg", "--vertex", "2", "--vertex", "a"])
        .stdout();
    assert_eq!(
        out,
        "2: Even wins, move to 2 (priority 4, Even moves)\n0 (a): Odd wins (priority 3, Even moves)\n"
    );
    let out = dir
        .command()
        .args(["parity", "g.pg", "--vertex", "1", "-o", "pgsolver"])
        .stdout();
    assert_eq!(out, "paritysol 2;\n1 1 0;\n");
    assert_eq!(
        dir.command()
            .args(["parity", "g.pg", "--vertex", "7"])
            .message(),
        "vertex 7 does not exist (the game has 3 vertices, ids 0 to 2)"
    );
    assert_eq!(
        dir.command()
            .args(["parity", "g.pg", "--vertex", "b"])
            .message(),
        "no vertex is named \"b\" (expected a vertex id or a name from the file)"
    );
    assert_eq!(
        dir.command()
            .args(["parity", "g.pg", "--summary", "-o", "pgsolver"])
            .message(),
        "--summary has no pgsolver form: choose --output text, csv or json"
    );
});

rtest!(parity_start_vertex_and_stdin, |dir, cmd| {
    let text = SMALL.replace("parity 2;\n", "parity 2;\nstart 1;\n");
    let out = cmd
        .args(["parity", "--summary"])
        .stdin(text.clone())
        .stdout();
    assert!(out.contains("\nstart 1: Odd wins\n"), "{out}");
    let j = json(
        &dir.command()
            .args(["parity", "-", "-o", "json", "--summary"])
            .stdin(text)
            .stdout(),
    );
    assert_eq!(j["start"]["vertex"], 1);
    assert_eq!(j["start"]["winner"], 1);
});

rtest!(parity_matches_oink_on_syntcomp_games, |dir, cmd| {
    let _ = &mut cmd;
    for name in GAMES {
        let game = data(&format!("{name}.pg"));
        let oink = std::fs::read_to_string(data(&format!("{name}.oink.sol"))).unwrap();
        for algorithm in ["zielonka", "pp", "qpz"] {
            for extra in [&[][..], &["--scc"][..], &["--no-preprocess"][..]] {
                let sol = dir
                    .command()
                    .args([
                        "parity",
                        &game,
                        "-o",
                        "pgsolver",
                        "--verify",
                        "--algorithm",
                        algorithm,
                    ])
                    .args(extra)
                    .stdout();
                assert_eq!(
                    winners(&sol),
                    winners(&oink),
                    "{name} {algorithm} {extra:?}"
                );
                dir.create("ours.sol", &sol);
                let ok = dir
                    .command()
                    .args(["verify-parity", &game, "ours.sol"])
                    .stdout();
                assert!(ok.starts_with("ok: "), "{ok}");
            }
        }
        // Oink's solution passes our verifier too.
        let ok = dir
            .command()
            .args(["verify-parity", &game, &data(&format!("{name}.oink.sol"))])
            .stdout();
        assert!(ok.starts_with("ok: "), "{ok}");
    }
});

rtest!(parity_reads_gzip_and_bzip2, |dir, cmd| {
    let plain = cmd
        .args(["parity", &compressed("gz"), "-o", "csv"])
        .stdout();
    assert_eq!(
        plain,
        "vertex,priority,owner,winner,strategy\n0,2,0,0,1\n1,1,1,0,\n"
    );
    let bz = dir
        .command()
        .args(["parity", &compressed("bz2"), "-o", "csv"])
        .stdout();
    assert_eq!(bz, plain);
    // By their bytes, whatever their names; and the solution may be compressed as well.
    let gz = std::fs::read(compressed("gz")).unwrap();
    dir.create("game.txt", &gz);
    assert_eq!(
        dir.command()
            .args(["parity", "game.txt", "-o", "csv"])
            .stdout(),
        plain
    );
    dir.create("cut.pg.gz", &gz[..gz.len() - 5]);
    let e = dir.command().args(["parity", "cut.pg.gz"]).message();
    assert!(
        e.starts_with("cut.pg.gz: the gzip data is damaged or cut short"),
        "{e}"
    );
});

rtest!(parity_refuses_bad_input_with_file_and_line, |dir, cmd| {
    dir.create("dup.pg", "parity 1;\n0 1 0 1;\n0 2 1 0;\n");
    assert_eq!(
        cmd.args(["parity", "dup.pg"]).message(),
        "dup.pg:3: vertex 0 is given twice (first on line 2)"
    );
    for (text, expect) in [
        ("0 1 0 3;\n", "bad.pg:1: successor 3 of vertex 0 is not a vertex (the largest id is 0)"),
        ("0 1 0 0;\n2 1 0 0;\n", "bad.pg: vertex 1 has no line: every id from 0 to the largest, 2, needs one"),
        ("0 5000000000 0 0;\n", "bad.pg:1: priority 5000000000 of vertex 0 is too large (priorities are at most 4294967295)"),
        ("0 1 3 0;\n", "bad.pg:1: the owner of vertex 0 must be 0 (Even) or 1 (Odd), found 3"),
        ("0 1 0 0\n1 1 0 0;\n", "bad.pg:2: expected ',' between the successors of vertex 0, or ';', found \"1\""),
        ("4294967295 1 0 0;\n", "bad.pg:1: vertex id 4294967295 is too large (ids are at most 4294967294)"),
        ("parity 5;\n0 1 0 0;\n", "bad.pg:1: the header gives 5 as the largest vertex id, but the largest id is 0"),
        ("0 1 0 0 \"ab;\n", "bad.pg:1: the name of vertex 0 has no closing '\"'"),
    ] {
        dir.create("bad.pg", text);
        assert_eq!(dir.command().args(["parity", "bad.pg"]).message(), expect, "{text:?}");
    }
    let e = dir.command().args(["parity", "missing.pg"]).message();
    assert!(e.starts_with("missing.pg: cannot open"), "{e}");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert_eq!(
        dir.command().args(["parity", "sub"]).message(),
        "sub: is a directory, expected a graph file"
    );
    assert_eq!(
        dir.command().args(["parity", "--algorithm", "tl", "x.pg"]).error().lines().next().unwrap(),
        "error: invalid value 'tl' for '--algorithm <NAME>': unknown algorithm \"tl\" (expected zielonka, pp or qpz)"
    );
});

rtest!(parity_dead_ends_are_lost_by_their_owner, |dir, cmd| {
    // 0 (Even) and 1 (Odd) are dead ends; 2 (Even) may move to either.
    dir.create("d.pg", "0 2 0;\n1 2 1;\n2 0 0 0,1;\n");
    assert_eq!(
        cmd.args(["parity", "d.pg", "-o", "pgsolver"]).stdout(),
        "paritysol 2;\n0 1;\n1 0;\n2 0 1;\n"
    );
});

rtest!(parity_same_answer_for_every_thread_count, |dir, cmd| {
    let game = data("KitchenTimerV4.pg");
    let one = cmd
        .args(["--threads", "1", "parity", &game, "-o", "pgsolver"])
        .stdout();
    for t in ["2", "3"] {
        let more = dir
            .command()
            .args(["--threads", t, "parity", &game, "-o", "pgsolver"])
            .stdout();
        assert_eq!(more, one);
    }
});

rtest!(parity_verbose_prints_phases, |dir, cmd| {
    dir.create("g.pg", SMALL);
    let o = cmd.args(["parity", "g.pg", "-v", "--summary"]).output();
    assert_eq!(o.code, 0);
    for phase in [
        "read ",
        "parse ",
        "prep ",
        "solve ",
        "print ",
        "peak memory ",
    ] {
        assert!(
            o.stderr.lines().any(|l| l.starts_with(phase)),
            "{phase}: {}",
            o.stderr
        );
    }
    assert!(o.stderr.contains("parse    ") && o.stderr.contains(" 3 vertices, 4 edges"));
});

rtest!(verify_parity_judges_and_names_the_fault, |dir, cmd| {
    dir.create("g.pg", SMALL);
    dir.create("right.sol", "paritysol 2;\n0 1;\n1 1 0;\n2 0 2;\n");
    assert_eq!(
        cmd.args(["verify-parity", "g.pg", "right.sol"]).stdout(),
        "ok: 3 vertices checked, the solution is right (Even wins 1, Odd wins 2)\n"
    );
    for (sol, expect) in [
        ("0 1;\n1 1 2;\n2 0 2;\n", "wrong: bad.sol: vertex 1 is won by Odd with the move to 2, but 2 is won by Even"),
        ("0 1;\n1 1 0;\n", "wrong: bad.sol: vertex 2 has no winner"),
        ("0 1;\n1 0;\n2 0 2;\n", "wrong: bad.sol: vertex 0 is won by Odd, but Even moves there and can go to 1, which Even wins"),
        ("0 1;\n1 1;\n2 0 2;\n", "wrong: bad.sol: vertex 1 is won by Odd, who moves there, but has no move"),
        ("0 1;\n1 1 7;\n2 0 2;\n", "wrong: bad.sol: vertex 1 is won by Odd with the move to 7, which is not one of its moves"),
    ] {
        dir.create("bad.sol", sol);
        let o = dir.command().args(["verify-parity", "g.pg", "bad.sol"]).output();
        assert_eq!((o.code, o.stdout.trim_end()), (1, expect), "{sol:?}");
        assert_eq!(o.stderr, "");
    }
    // A losing cycle: Even claims everything, Odd can loop 0 -> 1 -> 0 on priority 3.
    dir.create("cycle.sol", "0 0 1;\n1 0;\n2 0 2;\n");
    dir.create("h.pg", "0 3 0 1;\n1 1 1 0;\n2 4 0 2;\n");
    let o = dir
        .command()
        .args(["verify-parity", "h.pg", "cycle.sol"])
        .output();
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stdout,
        "wrong: cycle.sol: Even's moves let the play go round the cycle 0 -> 1 -> 0 forever, whose largest priority 3 is Odd's\n"
    );
    // Our CSV is read too.
    let csv = dir.command().args(["parity", "g.pg", "-o", "csv"]).stdout();
    dir.create("sol.csv", csv);
    assert!(dir
        .command()
        .args(["verify-parity", "g.pg", "sol.csv"])
        .stdout()
        .starts_with("ok: "));
});

rtest!(verify_parity_errors, |dir, cmd| {
    dir.create("g.pg", SMALL);
    dir.create("bad.sol", "paritysol 2;\n0 1;\n1 3 0;\n");
    assert_eq!(
        cmd.args(["verify-parity", "g.pg", "bad.sol"]).message(),
        "bad.sol:3: the winner of vertex 1 must be 0 (Even) or 1 (Odd), found 3"
    );
    dir.create("far.sol", "0 1;\n5 1;\n");
    assert_eq!(
        dir.command()
            .args(["verify-parity", "g.pg", "far.sol"])
            .message(),
        "far.sol:2: vertex 5 is not a vertex of the game (its vertices are 0 to 2)"
    );
    assert_eq!(
        dir.command().args(["verify-parity", "-", "-"]).message(),
        "the game and the solution cannot both come from standard input"
    );
    dir.create("broken.pg", "0 1 0 0;\n0 1 0 0;\n");
    assert_eq!(
        dir.command()
            .args(["verify-parity", "broken.pg", "far.sol"])
            .message(),
        "broken.pg:2: vertex 0 is given twice (first on line 1)"
    );
    let e = dir
        .command()
        .args(["verify-parity", "g.pg", "nope.sol"])
        .message();
    assert!(e.starts_with("nope.sol: cannot open"), "{e}");
    // The solution on standard input.
    let o = dir
        .command()
        .args(["verify-parity", "g.pg", "-"])
        .stdin("0 1;\n1 1 0;\n2 0 2;\n")
        .stdout();
    assert!(o.starts_with("ok: "));
});
