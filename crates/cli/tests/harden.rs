//! Regression tests of issue 14 (hardening): every input path, tried as an attacker would,
//! ends in exit status 0 with the right answer or exit status 2 with a clear message; never
//! an abort (status 134), a panic, or a wrong answer.

#[macro_use]
#[allow(dead_code)] // the helpers shared with cli.rs are not all used here
mod util;

use std::process::Command;
use util::{Dir, Output};

/// Runs `retrograde ARGS` with its address space capped at `kb` KiB (`ulimit -v` in a child
/// shell), standard input empty.
fn limited(dir: &Dir, kb: u64, args: &[&str]) -> Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {kb} && exec '{}' {} </dev/null",
            env!("CARGO_BIN_EXE_retrograde"),
            quoted.join(" ")
        ))
        .current_dir(dir.path())
        .output()
        .expect("run sh");
    Output {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Asserts a clean refusal: exit 2, one line on stderr with `want` in it, nothing on stdout.
#[track_caller]
fn refused(o: &Output, want: &str) {
    assert_eq!(o.code, 2, "expected exit 2, got {}: {}", o.code, o.stderr);
    assert!(o.stderr.starts_with("retrograde: "), "{}", o.stderr);
    assert!(o.stderr.contains(want), "{:?} lacks {want:?}", o.stderr);
    assert!(!o.stderr.contains("panicked"), "{}", o.stderr);
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
    assert!(o.stdout.is_empty(), "stdout: {}", o.stdout);
}

// ---------------------------------------------------------------------------------------------
// 1. One memory check, honouring ulimit -v, cgroups, MemAvailable and --memory.

rtest!(
    #[cfg(target_os = "linux")]
    ulimit_v_is_honoured_by_every_graph_command,
    |dir, _cmd| {
        dir.create("v.rg", "vertices 100000000\n0 1\n");
        dir.create("v.json", r#"{"vertices": 100000000, "edges": [[0, 1]]}"#);
        dir.create("e.txt", "0 1\n1 0\n");
        dir.create(
            "e.csv",
            "vertex,outcome,remoteness,best_move\n0,draw,,1\n1,draw,,0\n",
        );
        let runs: &[&[&str]] = &[
            &["solve", "v.rg"],
            &["solve", "v.json"],
            &["solve", "e.txt", "--vertices", "100000000"],
            &["grundy", "v.rg"],
            &["verify", "v.rg", "e.csv"],
            &["play", "graph", "v.rg"],
            &["sum", "v.rg:0"],
        ];
        for args in runs {
            let o = limited(&dir, 2_000_000, args);
            refused(&o, "of memory, limit ");
            assert!(
                o.stderr.contains("(from ulimit -v)"),
                "{args:?}: {}",
                o.stderr
            );
        }
    }
);

rtest!(memory_flag_is_a_limit_of_every_command, |dir, cmd| {
    dir.create("v.rg", "vertices 1000000\n0 1\n");
    let msg = cmd.args(["solve", "v.rg", "--memory", "1M"]).message();
    assert!(msg.contains("limit 1.0 MiB (from --memory)"), "{msg}");
    let msg = dir
        .command()
        .args([
            "--memory", "0", "game", "connect4", "--width", "4", "--height", "4",
        ])
        .message();
    assert!(msg.contains("limit 0 bytes (from --memory)"), "{msg}");
    // Within the limit, nothing changes.
    let out = dir
        .command()
        .args(["solve", "v.rg", "--memory", "1G", "--summary"])
        .stdout();
    assert!(out.contains("1000000"), "{out}");
});

rtest!(
    #[cfg(target_os = "linux")]
    a_failed_allocation_is_exit_2_not_an_abort,
    |dir, _cmd| {
        // GRF and JSON files are read whole, with no estimate possible: an endless one
        // fills the address space, and the allocator's failure is the same refusal.
        let o = limited(&dir, 300_000, &["solve", "--format", "json", "/dev/zero"]);
        refused(&o, "out of memory: an allocation of ");
        refused(&o, "(from ulimit -v)");
    }
);

// ---------------------------------------------------------------------------------------------
// 2. Built-in games check their size before allocating (and as they explore).

/// A Great Game case on `n` vertices: `i -> i+1` and `i -> i+2`, meeples on 1 and 2.
fn great_game_chain(n: u32) -> String {
    let mut edges = Vec::new();
    for i in 1..n {
        edges.push(format!("{i} {}", i + 1));
        if i + 2 <= n {
            edges.push(format!("{i} {}", i + 2));
        }
    }
    format!("1\n{n} {}\n1 2\n{}\n", edges.len(), edges.join("\n"))
}

/// A dense IOI Score instance: every arrow `i -> j` for `j > i`, and every position back to 1.
fn scores_dense(n: usize) -> String {
    let mut s = format!("{n}\n");
    for i in 0..n {
        let row: Vec<&str> = (0..n)
            .map(|j| {
                if j != i && (j > i || j == 0) {
                    "1"
                } else {
                    "0"
                }
            })
            .collect();
        s.push_str(&row.join(" "));
        s.push('\n');
    }
    let owners: Vec<String> = (0..n).map(|i| (1 + i % 2).to_string()).collect();
    let values: Vec<String> = (0..n).map(|i| (i + 1).to_string()).collect();
    format!("{s}{}\n{}\n", owners.join(" "), values.join(" "))
}

rtest!(
    #[cfg(target_os = "linux")]
    games_too_big_for_ulimit_are_refused_before_allocating,
    |dir, _cmd| {
        let mut map = String::from("100 100\nP");
        map.push_str(&".".repeat(98));
        map.push_str("T\n");
        for _ in 0..98 {
            map.push_str(&".".repeat(100));
            map.push('\n');
        }
        map.push_str(&".".repeat(99));
        map.push_str("E\n");
        dir.create("map.txt", map);
        let runs: &[&[&str]] = &[
            &["game", "police-thief", "map.txt"],
            &["play", "police-thief", "map.txt"],
            &["game", "pebbles", "--count", "100000000"],
            &["play", "pebbles", "--count", "100000000"],
            &[
                "game",
                "tictactoe",
                "--rows",
                "1",
                "--cols",
                "32",
                "--k",
                "3",
            ],
            &[
                "play",
                "tictactoe",
                "--rows",
                "1",
                "--cols",
                "32",
                "--k",
                "3",
            ],
        ];
        for args in runs {
            let o = limited(&dir, 2_000_000, args);
            refused(&o, "of memory");
            assert!(
                o.stderr.contains("(from ulimit -v)"),
                "{args:?}: {}",
                o.stderr
            );
        }
    }
);

rtest!(
    games_that_outgrow_the_limit_while_exploring_stop,
    |dir, _cmd| {
        dir.create("chain.txt", great_game_chain(30_000));
        dir.create("dense.txt", scores_dense(300));
        let runs: &[&[&str]] = &[
            &["game", "great-game", "chain.txt", "--method", "memo"],
            &["game", "great-game", "chain.txt", "--method", "product"],
            &["game", "scores", "dense.txt"],
        ];
        for args in runs {
            let o = dir.command().args(*args).args(["--memory", "20M"]).output();
            refused(&o, "exploring the positions needs about ");
            assert!(
                o.stderr.contains("limit 20.0 MiB (from --memory)"),
                "{}",
                o.stderr
            );
        }
        // The fast method needs no table.
        let out = dir
            .command()
            .args(["game", "great-game", "chain.txt", "--method", "minimax"])
            .args(["--memory", "20M"])
            .stdout();
        assert!(out == "0\n" || out == "1\n", "{out}");
    }
);

rtest!(tictactoe_sizes_past_u32_are_refused, |dir, _cmd| {
    for verb in ["game", "play"] {
        let e = dir
            .command()
            .args([verb, "tictactoe", "--rows", "65536", "--cols", "65536"])
            .error();
        assert!(e.contains("65536"), "{e}");
    }
    // The library's own check multiplies in u64.
    let e = retrograde_games::tictactoe::TicTacToe::new(65536, 65536, 3).unwrap_err();
    assert_eq!(
        e,
        retrograde_games::GameError::TicTacToeBoard {
            rows: 65536,
            cols: 65536
        }
    );
    assert!(e.to_string().contains("1 to 32 cells"), "{e}");
});

// ---------------------------------------------------------------------------------------------
// 3. Lines read from standard input are capped.

rtest!(play_refuses_a_huge_line_without_echoing_it, |dir, cmd| {
    let long = format!("b2\n{}\nhint\n", "x".repeat(1 << 20));
    let o = cmd.args(["play", "tictactoe"]).stdin(long).output();
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .starts_with("retrograde: <stdin>:2: a line longer than 64 KiB"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.len() < 300, "{}", o.stderr);
    assert!(
        o.stdout.len() < 10_000,
        "the line was echoed: {} bytes",
        o.stdout.len()
    );
    assert!(o.stdout.contains("b2"), "{}", o.stdout);
    // The IOI protocol too.
    dir.create(
        "s.txt",
        "4\n0 0 1 0\n1 0 0 0\n0 1 0 1\n0 1 0 0\n1 2 1 2\n1 2 3 4\n",
    );
    let o = dir
        .command()
        .args(["game", "scores", "s.txt", "--play"])
        .stdin("9".repeat(1 << 20))
        .output();
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("a line longer than 64 KiB"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.len() < 300, "{}", o.stderr);
});

// ---------------------------------------------------------------------------------------------
// 4. A damaged database is an error naming the file and the repair, never a wrong answer.

/// Damages the database `db` (in `dir`) one byte at a time (`per_file` bytes of each file
/// chosen by `files`: the first 4, the last 2 and random ones; each flipped, run, restored)
/// and deletes each chosen file in turn. Each `run` must give exit 0 with exactly the
/// undamaged output, or exit 2 naming the file and the repair: `--resume` for a game, and
/// solving again (`retrograde solve FILE --db DB`, the file it was solved from) for a
/// graph, whose solve does not resume.
fn damage(
    dir: &Dir,
    db: &str,
    files: &dyn Fn(&str) -> bool,
    per_file: u64,
    run: &dyn Fn() -> Output,
) {
    let repair = if db.starts_with('g') {
        "retrograde solve "
    } else {
        "--resume"
    };
    let good = run();
    assert_eq!(good.code, 0, "{}", good.stderr);
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join(db))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| files(n))
        .collect();
    names.sort();
    assert!(!names.is_empty());
    let mut rng = util::Rng::new(14);
    let check = |what: &str, o: &Output, file: &str| match o.code {
        0 => assert!(
            o.stdout == good.stdout,
            "{what}: a wrong answer with exit 0"
        ),
        2 => assert!(
            o.stderr.contains(file) && o.stderr.contains(repair),
            "{what}: {}",
            o.stderr
        ),
        c => panic!("{what}: exit {c}: {}", o.stderr),
    };
    for name in &names {
        let path = dir.path().join(db).join(name);
        let bytes = std::fs::read(&path).unwrap();
        let n = bytes.len() as u64;
        let mut at: Vec<u64> = (0..n.min(4)).chain(n.saturating_sub(2)..n).collect();
        at.extend((0..per_file).map(|_| rng.below(n)));
        at.sort_unstable();
        at.dedup();
        for i in at {
            let mut bad = bytes.clone();
            bad[i as usize] ^= 0x55;
            std::fs::write(&path, &bad).unwrap();
            check(&format!("{db}/{name} byte {i}"), &run(), name);
        }
        std::fs::remove_file(&path).unwrap();
        check(&format!("{db}/{name} deleted"), &run(), name);
        std::fs::write(&path, &bytes).unwrap();
    }
    assert!(run().stdout == good.stdout, "{db} restored");
}

rtest!(damaged_databases_never_give_a_wrong_answer, |dir, cmd| {
    // A tier game with dense tiers and symmetries, a sorted-keys one, a graph.
    cmd.args(["game", "quixo", "--size", "3", "--db", "qx", "-q"])
        .stdout();
    dir.command()
        .args([
            "game", "connect4", "--width", "4", "--height", "4", "--db", "c4", "-q",
        ])
        .stdout();
    dir.command()
        .args(["solve", &util::example("loopy.rg"), "--db", "g", "-q"])
        .stdout();
    // A scored graph: its graph.scores too.
    dir.command()
        .args(["solve", &util::example("scored.rg"), "--db", "gs", "-q"])
        .stdout();
    let d = &dir;
    let query = move |db: &'static str, lines: &'static str| {
        move || {
            d.command()
                .args(["query", db, "--stdin"])
                .stdin(lines)
                .output()
        }
    };
    damage(
        &dir,
        "qx",
        &|_| true,
        3,
        &query(
            "qx",
            "moves: \nmoves: a3c3\nmoves: a3c3,b3a3\nmoves: a3c3,b3a3,c3a3\n",
        ),
    );
    damage(
        &dir,
        "g",
        &|_| true,
        16,
        &query("g", "0\n1\n2\n5\n6\n8\n9\n"),
    );
    damage(
        &dir,
        "gs",
        &|_| true,
        8,
        &query("gs", "0\n1\n2\n4\n5\n7\n10\n12\n"),
    );
    // Connect-4's files are many and big: some of them, played (`play --db`) and resumed.
    let some = |n: &str| n == "database.json" || n.starts_with("02.") || n.starts_with("12.");
    damage(&dir, "c4", &some, 3, &|| {
        dir.command()
            .args([
                "play", "connect4", "--width", "4", "--height", "4", "--db", "c4",
            ])
            .stdin("1\n2\nhint\n3\nundo\n4\n1\n2\n3\n4\n")
            .output()
    });
    damage(&dir, "c4", &|n| n.starts_with("13."), 1, &|| {
        let o = dir
            .command()
            .args([
                "game", "connect4", "--width", "4", "--height", "4", "--db", "c4",
            ])
            .args(["--resume", "-q", "--query", "1,2,3,4,1,2,3,4,1,2,3"])
            .output();
        // --resume repairs the damage: the answer is always the right one.
        assert_eq!(o.code, 0, "{}", o.stderr);
        o
    });
});

// ---------------------------------------------------------------------------------------------
// 5. verify checks every column, owners and winners included, and knows no others.

/// `csv` with field `col` of data row `row` (0-based, after the header) replaced.
fn edit_field(csv: &str, row: usize, col: usize, to: &str) -> String {
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    let mut f: Vec<&str> = lines[row + 1].split(',').collect();
    f[col] = to;
    lines[row + 1] = f.join(",");
    lines.join("\n") + "\n"
}

/// `csv` with `f` applied to every line (header included).
fn edit_lines(csv: &str, f: impl Fn(&str) -> String) -> String {
    csv.lines().map(|l| f(l) + "\n").collect()
}

rtest!(verify_checks_arena_owner_and_winner_columns, |dir, cmd| {
    let arena = util::example("arena.rg");
    let good = cmd.args(["solve", &arena, "-o", "csv"]).stdout();
    assert!(good.starts_with("vertex,outcome,remoteness,best_move,owner,winner\n"));
    let verify = |csv: &str| {
        dir.create("s.csv", csv);
        dir.command().args(["verify", &arena, "s.csv"]).output()
    };
    assert_eq!(verify(&good).code, 0);
    let rows: Vec<Vec<String>> = good
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    // A winner and an owner changed: wrong solutions (exit 1).
    let won = rows.iter().position(|r| !r[5].is_empty()).unwrap();
    let other = if rows[won][5] == "0" { "1" } else { "0" };
    for (col, to) in [
        (5, other),
        (4, if rows[won][4] == "0" { "1" } else { "0" }),
        (5, ""),
    ] {
        let o = verify(&edit_field(&good, won, col, to));
        assert_eq!(o.code, 1, "column {col} = {to:?}: {}", o.stdout);
        assert!(o.stdout.starts_with("wrong: s.csv:"), "{}", o.stdout);
    }
    let drawn = rows.iter().position(|r| r[5].is_empty());
    if let Some(d) = drawn {
        assert_eq!(verify(&edit_field(&good, d, 5, "0")).code, 1);
    }
    // Malformed: errors (exit 2) with file:line.
    let msg = verify(&edit_field(&good, won, 5, "x")).stderr;
    assert!(
        msg.contains(&format!("s.csv:{}: expected the winner 0 or 1", won + 2)),
        "{msg}"
    );
    let dropped = edit_lines(&good, |l| l.rsplitn(3, ',').nth(2).unwrap().to_string());
    let o = verify(&dropped);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains(
            "s.csv:1: expected the header vertex,outcome,remoteness,best_move,owner,winner"
        ),
        "{}",
        o.stderr
    );
    let extra = edit_lines(&good, |l| format!("{l},0"));
    let o = verify(&extra);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("s.csv:1: expected the header"),
        "{}",
        o.stderr
    );
});

rtest!(verify_rejects_unknown_columns_and_fields, |dir, cmd| {
    dir.create("g.txt", "0 1\n1 2\n");
    let good = cmd.args(["solve", "g.txt", "-o", "csv"]).stdout();
    let verify = |csv: &str| {
        dir.create("s.csv", csv);
        dir.command().args(["verify", "g.txt", "s.csv"]).output()
    };
    assert_eq!(verify(&good).code, 0);
    let o = verify(&edit_lines(&good, |l| format!("{l},note")));
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("s.csv:1: expected the header vertex,outcome,remoteness,best_move, found"),
        "{}",
        o.stderr
    );
    // An extra field on one row only.
    let o = verify(&edit_field(&good, 1, 3, "2,7"));
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("s.csv:3: expected 4 fields"),
        "{}",
        o.stderr
    );
    // Arena columns on a graph without owners.
    let o = verify(&edit_lines(&good, |l| {
        if l.starts_with("vertex") {
            format!("{l},owner,winner")
        } else {
            format!("{l},0,")
        }
    }));
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("arenas only"), "{}", o.stderr);
    // A huge field is quoted short.
    for col in 0..4 {
        let o = verify(&edit_field(&good, 0, col, &"7".repeat(100_000)));
        assert_eq!(o.code, 2);
        assert!(o.stderr.len() < 300, "{}", &o.stderr[..300]);
    }
});

// ---------------------------------------------------------------------------------------------
// 6. The GRF parser takes exactly the N positions it announces.

rtest!(grf_rejects_positions_and_children_past_n, |dir, cmd| {
    dir.create("extra.grf", "2\n0 u 1 1\n1 l 0\n2 l 0\n");
    let msg = cmd.args(["solve", "extra.grf"]).message();
    assert!(
        msg.starts_with("extra.grf:4: expected the end of the 2 positions"),
        "{msg}"
    );
    dir.create("child.grf", "2\n0 u 1 5\n1 l 0\n");
    let msg = dir.command().args(["solve", "child.grf"]).message();
    assert_eq!(
        msg,
        "child.grf:2: child 5 is past the 2 positions the first line announces (ids 0 to 1)"
    );
    dir.create("x.grf", "0 1\n1 2\n2 0\n");
    let msg = dir.command().args(["solve", "x.grf"]).message();
    assert!(
        msg.starts_with("x.grf:1: expected the end of the 0 positions"),
        "{msg}"
    );
    assert!(msg.contains("--format edges"), "{msg}");
    // Notes after the last record stay allowed (the bundled example has some).
    let out = dir
        .command()
        .args(["solve", &util::example("goagain.grf"), "--summary"])
        .stdout();
    assert!(out.contains('5'), "{out}");
});

// ---------------------------------------------------------------------------------------------
// 7. Contradictions in rg and JSON files are errors naming both places.

rtest!(rg_and_json_refuse_contradictions, |dir, _cmd| {
    let cases = [
        (
            "t.rg",
            "0 1\nterminal 1 win\n# ok\nterminal 1 loss\n",
            "t.rg:4: \"terminal 1 loss\" contradicts line 2: \"terminal 1 win\"",
        ),
        (
            "o.rg",
            "0 1\nowner 1 1\nowner 1 0\n",
            "o.rg:3: \"owner 1 0\" contradicts line 2: \"owner 1 1\"",
        ),
        (
            "s.rg",
            "0 1\nstart 0\nstart 1\n",
            "s.rg:3: \"start 1\" contradicts line 2: \"start 0\"",
        ),
        (
            "n.rg",
            "0 1\nname 0 home\nname 1 home\n",
            "n.rg:3: name \"home\" is already vertex 0's (line 2); names must be unique",
        ),
        (
            "n2.rg",
            "0 1\nname 0 home\nname 0 away\n",
            "n2.rg:3: \"name 0 away\" contradicts line 2: \"name 0 home\"",
        ),
    ];
    for (file, text, want) in cases {
        dir.create(file, text);
        let msg = dir.command().args(["solve", file]).message();
        assert_eq!(msg, want);
    }
    // Saying the same thing twice is no contradiction.
    dir.create(
        "same.rg",
        "0 1\nterminal 1 win\nterminal 1 win\nstart 0\nstart 0\n",
    );
    dir.command().args(["solve", "same.rg"]).stdout();
    // JSON: the line of the second entry, and both entries.
    dir.create(
        "t.json",
        "{\"edges\": [[0, 1]],\n\"terminal\": [[1, \"win\"],\n[1, \"loss\"]]}\n",
    );
    let msg = dir.command().args(["solve", "t.json"]).message();
    assert!(
        msg.starts_with("t.json:3: terminal: vertex 1 is loss here (entry 1) but win in entry 0"),
        "{msg}"
    );
    dir.create(
        "n.json",
        "{\"edges\": [[0, 1]],\n\"names\": [\"a\",\n\"a\"]}\n",
    );
    let msg = dir.command().args(["solve", "n.json"]).message();
    assert!(
        msg.starts_with("n.json:3: names: \"a\" is the name of vertex 0 and of vertex 1"),
        "{msg}"
    );
    dir.create("s.json", "{\"start\": 0,\n\"start\": 1}\n");
    let msg = dir.command().args(["solve", "s.json"]).message();
    assert!(
        msg.starts_with("s.json:2: duplicate field `start`"),
        "{msg}"
    );
    // A huge token is quoted short.
    dir.create(
        "big.rg",
        format!("0 1\nterminal 1 {}\n", "w".repeat(1 << 20)),
    );
    let msg = dir.command().args(["solve", "big.rg"]).message();
    assert!(msg.len() < 200, "{}", &msg[..200]);
});

// ---------------------------------------------------------------------------------------------
// 8. Smaller: a byte order mark, a failing standard output, absurd thread counts.

rtest!(a_utf8_bom_is_skipped_in_every_format, |dir, _cmd| {
    for (file, text) in [
        ("b.txt", "0 1\n1 2\n"),
        ("b.rg", "vertices 3\n0 1\n1 2\n"),
        ("b.json", r#"{"edges": [[0, 1], [1, 2]]}"#),
        ("b.grf", "3\n0 u 1 1\n1 u 1 2\n2 u 0\n"),
    ] {
        let plain = dir.create(file, text);
        let want = dir
            .command()
            .arg("solve")
            .arg(&plain)
            .arg("-o")
            .arg("csv")
            .stdout();
        dir.create(file, format!("\u{feff}{text}"));
        let got = dir.command().args(["solve", file, "-o", "csv"]).stdout();
        assert_eq!(got, want, "{file}");
    }
});

rtest!(
    #[cfg(target_os = "linux")]
    a_full_standard_output_is_exit_2_saying_so,
    |dir, _cmd| {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "exec '{}' solve '{}' > /dev/full",
                env!("CARGO_BIN_EXE_retrograde"),
                util::example("pebbles.rg")
            ))
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.starts_with("retrograde: cannot write to standard output: "),
            "{stderr}"
        );
    }
);

rtest!(absurd_thread_counts_are_refused_at_once, |dir, cmd| {
    let msg = cmd
        .args(["--threads", "100000", "solve", &util::example("pebbles.rg")])
        .message();
    assert!(
        msg.starts_with("--threads 100000 is more than 256"),
        "{msg}"
    );
    let _ = dir;
});

rtest!(heap_games_refuse_absurd_counts, |dir, cmd| {
    // Splitting games are quadratic: 10^8 heaps would take days.
    let msg = cmd
        .args(["game", "octal", "0.77", "--count", "100000000"])
        .message();
    assert!(
        msg.contains("too many for a game whose moves split heaps"),
        "{msg}"
    );
    let msg = dir
        .command()
        .args(["game", "grundy-game", "--count", "2000000"])
        .message();
    assert!(msg.contains("at most 1000000"), "{msg}");
    // The others are linear, but their report still needs memory.
    let msg = dir
        .command()
        .args([
            "game",
            "subtraction",
            "--take",
            "1,2",
            "--count",
            "100000000",
        ])
        .args(["--memory", "1G"])
        .message();
    assert!(msg.contains("limit 1.0 GiB (from --memory)"), "{msg}");
});
