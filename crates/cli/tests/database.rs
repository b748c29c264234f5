//! Regression tests of issue 25 ("a database is one thing"): files of two databases never
//! mix into an answer, one writer at a time, readers open only a finished database, a
//! failed write says why and leaves nothing behind, positions that no game reaches are
//! refused, standard input is read in bounded pieces, names read back exactly.

#[macro_use]
#[allow(dead_code)] // the helpers shared with cli.rs are not all used here
mod util;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use util::{Dir, Output};

/// The names of the files of database `db`, sorted.
fn files(dir: &Dir, db: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join(db))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// Runs `sh -c SCRIPT` in `dir` (`$R` is the retrograde binary).
fn sh(dir: &Dir, script: &str) -> Output {
    let o = Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("R", env!("CARGO_BIN_EXE_retrograde"))
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("run sh");
    let o = Output {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    assert!(!o.stderr.contains("panicked"), "{}", o.stderr);
    o
}

/// For every file of database `a` that database `b` has too, puts `b`'s in its place and
/// runs `check(file)`; then puts `a`'s back.
fn swap_each(dir: &Dir, a: &str, b: &str, check: &dyn Fn(&str)) {
    for name in files(dir, a) {
        let (pa, pb) = (
            dir.path().join(a).join(&name),
            dir.path().join(b).join(&name),
        );
        let Ok(theirs) = std::fs::read(&pb) else {
            continue;
        };
        let ours = std::fs::read(&pa).unwrap();
        std::fs::write(&pa, theirs).unwrap();
        check(&name);
        std::fs::write(&pa, ours).unwrap();
    }
}

/// A file of another database in `a` (which only says who locks or what a solve under
/// way is, or holds the totals by tier, which a query does not read): no effect on the
/// answers of a finished database; any other is an error naming it, after the answers to
/// the queries before the one that read it.
fn refused(a: &str, name: &str, o: &Output, good: &str) {
    if matches!(name, "database.lock" | "database.id" | "totals.json") {
        assert_eq!(
            (o.code, o.stdout.as_str()),
            (0, good),
            "{name}: {}",
            o.stderr
        );
        return;
    }
    assert_eq!(o.code, 2, "{a}/{name} of another database: {o:?}");
    // The answers before the query that read it (tier files are opened when first read).
    assert!(good.starts_with(&o.stdout), "{a}/{name}: {}", o.stdout);
    // database.json of the other: every file is then the foreign one.
    if name != "database.json" {
        assert!(o.stderr.contains(name), "{a}/{name}: {}", o.stderr);
    }
    assert!(
        o.stderr.contains("written by another solve"),
        "{a}/{name}: {}",
        o.stderr
    );
}

rtest!(files_of_two_graph_databases_do_not_mix, |dir, cmd| {
    // The issue's graphs: the same shape, other moves.
    dir.create("a.rg", "vertices 3\nstart 0\n0 1\n1 2\n");
    dir.create("b.rg", "vertices 3\nstart 0\n0 2\n2 1\n");
    cmd.args(["solve", "a.rg", "--db", "A", "-q", "--summary"])
        .stdout();
    dir.command()
        .args(["solve", "b.rg", "--db", "B", "-q", "--summary"])
        .stdout();
    let ask = || {
        dir.command()
            .args(["query", "A", "--stdin", "--output", "json"])
            .stdin("0\n1\n2\nmoves: 1,2\n")
            .output()
    };
    let good = ask();
    assert_eq!(good.code, 0, "{}", good.stderr);
    swap_each(&dir, "A", "B", &|name| {
        let o = ask();
        refused("A", name, &o, &good.stdout);
        if o.code == 2 {
            // The repair: solving the graph the description names again.
            assert!(
                o.stderr.contains("run `retrograde solve ") && o.stderr.contains(".rg --db A`"),
                "{name}: {}",
                o.stderr
            );
        }
    });
    assert_eq!(ask().stdout, good.stdout);
});

rtest!(files_of_two_tier_databases_do_not_mix, |dir, cmd| {
    // Dense tiers (tic-tac-toe, Quixo), sorted keys (Connect-4), a chess ending: two solves
    // of the same game and size each, every file of the second put into the first in turn.
    let _ = cmd;
    let games: [(&str, &[&str], &str); 4] = [
        ("t", &["tictactoe"], "moves: b2\nx../.o./... \n"),
        (
            "q",
            &["quixo", "--size", "3"],
            "moves: a1 a3\nmoves: a1 a3,c1 a1\n",
        ),
        (
            "c",
            &["connect4", "--width", "4", "--height", "4"],
            "moves: 1,2,3\n..../..../..../xo..\n",
        ),
        (
            "k",
            &["chess", "KRvK"],
            "8/8/8/4k3/8/8/8/KR6 w - - 0 1\n8/8/8/4k3/8/8/8/KR6 b - - 0 1\n",
        ),
    ];
    for (db, args, lines) in games {
        for copy in ["1", "2"] {
            dir.command()
                .arg("game")
                .args(args)
                .args(["--db", &format!("{db}{copy}"), "-q"])
                .stdout();
        }
        let a = format!("{db}1");
        let ask = || {
            dir.command()
                .args(["query", &a, "--stdin", "--output", "json"])
                .stdin(lines)
                .output()
        };
        let good = ask();
        assert_eq!(good.code, 0, "{}", good.stderr);
        // A tier's files are opened when a query first reads them: a foreign one is
        // refused then, and has no effect on queries that do not read it.
        let (refusals, unread) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        swap_each(&dir, &a, &format!("{db}2"), &|name| {
            let o = ask();
            let tier_file = name.ends_with(".values") || name.ends_with(".keys");
            if tier_file && o.code == 0 {
                assert_eq!(o.stdout, good.stdout, "{a}/{name}: {}", o.stderr);
                unread.set(unread.get() + 1);
                return;
            }
            refused(&a, name, &o, &good.stdout);
            if o.code == 2 {
                assert!(o.stderr.contains("--resume"), "{name}: {}", o.stderr);
                refusals.set(refusals.get() + usize::from(tier_file));
            }
        });
        assert!(
            refusals.get() > 0,
            "{a}: no tier file refused ({} not read)",
            unread.get()
        );
        // Resuming solves a swapped tier again: the answers are the first database's.
        let tier = files(&dir, &a)
            .into_iter()
            .find(|n| n.ends_with(".values"))
            .unwrap();
        std::fs::copy(
            dir.path().join(format!("{db}2")).join(&tier),
            dir.path().join(&a).join(&tier),
        )
        .unwrap();
        std::fs::remove_file(dir.path().join(&a).join("database.json")).unwrap();
        let o = dir
            .command()
            .arg("game")
            .args(args)
            .args(["--db", &a, "--resume", "-q"])
            .output();
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert!(
            o.stderr
                .contains(&format!("{a}/{tier}: written by another solve"))
                && o.stderr.contains("solving it again"),
            "{}",
            o.stderr
        );
        assert_eq!(ask().stdout, good.stdout, "{db}");
    }
});

/// `retrograde play tictactoe --db D`, solved and waiting for moves (so holding the lock);
/// killed when dropped. Its output stays open (closed, play would end at its next write).
struct Holder {
    child: std::process::Child,
    _out: BufReader<std::process::ChildStdout>,
}

impl Holder {
    fn start(dir: &Dir, db: &str) -> Holder {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrograde"))
            .current_dir(dir.path())
            .args(["play", "tictactoe", "--db", db])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start play");
        // The opening text comes once the game is solved into the database.
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "play ended before its opening text");
        Holder { child, _out: out }
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

rtest!(
    a_second_writer_stops_at_once_naming_the_holder,
    |dir, cmd| {
        // Issue 25: two writers into one --db interleaved their files.
        dir.create("g.rg", "vertices 3\n0 1\n1 2\n");
        // `play --db` on a directory without a database solves into it, and holds it while
        // the game goes on.
        let holder = Holder::start(&dir, "D");
        let pid = holder.child.id();
        for args in [
            &["solve", "g.rg", "--db", "D"][..],
            &[
                "game", "connect4", "--width", "4", "--height", "4", "--db", "D",
            ],
            &["game", "tictactoe", "--db", "D", "--resume"],
        ] {
            let t = Instant::now();
            let msg = dir.command().args(args).message();
            assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
            assert!(
                msg.starts_with("D: process ") && msg.contains(&pid.to_string()),
                "{msg}"
            );
            assert!(msg.contains("play tictactoe --db D"), "{msg}");
            assert!(msg.contains("is writing this database"), "{msg}");
        }
        // Readers read the finished database beside its writer.
        let out = dir.command().args(["query", "D", "--moves", "b2"]).stdout();
        assert!(out.contains("tie in 8"), "{out}");
        let out = dir
            .command()
            .args(["game", "tictactoe", "--db", "D", "--query", "b2"])
            .stdout();
        assert!(out.contains("tie in 8"), "{out}");
        // kill -9 leaves no lock behind: the next writer goes on at once.
        drop(holder);
        cmd.args(["game", "tictactoe", "--db", "D", "--resume", "-q"])
            .stdout();
        dir.command()
            .args(["solve", "g.rg", "--db", "D", "-q", "--summary"])
            .stdout();
    }
);

rtest!(two_writers_racing_leave_one_database, |dir, cmd| {
    // Both start at once: one writes, the other stops; the database answers as the
    // winner's game, never a mix.
    let _ = cmd;
    let spawn = |w: &str| {
        Command::new(env!("CARGO_BIN_EXE_retrograde"))
            .current_dir(dir.path())
            .args([
                "game", "connect4", "--width", w, "--height", "4", "--db", "D", "-q",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn("4"), spawn("5"));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let codes = (a.status.code(), b.status.code());
    assert!(
        codes == (Some(0), Some(2)) || codes == (Some(2), Some(0)),
        "{codes:?}: {} {}",
        String::from_utf8_lossy(&a.stderr),
        String::from_utf8_lossy(&b.stderr)
    );
    let loser = if codes.0 == Some(2) { &a } else { &b };
    let msg = String::from_utf8_lossy(&loser.stderr);
    assert!(
        msg.contains("D: process") && msg.contains("is writing"),
        "{msg}"
    );
    let width = if codes.0 == Some(0) { "4" } else { "5" };
    dir.command()
        .args([
            "game", "connect4", "--width", width, "--height", "4", "--db", "W", "-q",
        ])
        .stdout();
    let ask = |db: &str| {
        dir.command()
            .args(["query", db, "--stdin", "--output", "json"])
            .stdin("moves: \nmoves: 1,2,1\nmoves: 2,2,3,3\n")
            .stdout()
    };
    assert_eq!(ask("D"), ask("W"));
});

rtest!(readers_say_why_a_directory_holds_no_database, |dir, cmd| {
    // Issue 25: `serve /` advised solving again with --db and --resume.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    for args in [&["query", "empty"][..], &["serve", "empty", "--port", "0"]] {
        let msg = dir.command().args(args).message();
        assert!(
            msg.contains("empty: no database here (no database.json)"),
            "{msg}"
        );
        assert!(!msg.contains("resume"), "{msg}");
    }
    let msg = dir.command().args(["serve", "/", "--port", "0"]).message();
    assert!(msg.starts_with("/: no database here"), "{msg}");
    // An interrupted tier solve (its description is written last).
    cmd.args(["game", "tictactoe", "--db", "t", "-q"]).stdout();
    std::fs::remove_file(dir.path().join("t/database.json")).unwrap();
    let msg = dir.command().args(["query", "t"]).message();
    assert!(
        msg.contains("unfinished database") && msg.contains("--resume"),
        "{msg}"
    );
    // A writer at work.
    let _holder = Holder::start(&dir, "p");
    std::fs::remove_file(dir.path().join("p/database.json")).unwrap();
    let msg = dir.command().args(["query", "p"]).message();
    assert!(
        msg.contains("is writing this database and has not finished it"),
        "{msg}"
    );
});

rtest!(a_database_of_other_parameters_says_so, |dir, cmd| {
    // Issue 25: play said "damaged; run the same command with --resume", and --resume then
    // refused.
    cmd.args([
        "game", "connect4", "--width", "4", "--height", "4", "--db", "c4", "-q",
    ])
    .stdout();
    for args in [
        &[
            "play", "connect4", "--width", "5", "--height", "4", "--db", "c4",
        ][..],
        &[
            "game", "connect4", "--width", "5", "--height", "4", "--db", "c4", "--resume",
        ],
        &[
            "game", "connect4", "--width", "5", "--height", "4", "--db", "c4",
        ],
    ] {
        let msg = dir.command().args(args).message();
        assert!(
            msg.contains("holds a database of \"connect4 4x4\", not of \"connect4 5x4\"")
                && msg.contains("use another directory"),
            "{msg}"
        );
        assert!(!msg.contains("resume") && !msg.contains("damaged"), "{msg}");
    }
});

/// CRC-32 (IEEE), as database.json's checksum.
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

rtest!(a_start_vertex_past_the_graph_is_an_error, |dir, cmd| {
    // Issue 25: a start of 2^32 + 3 (the checksum made again) was read as vertex 3.
    dir.create("g.rg", "vertices 5\nstart 0\n0 1\n1 2\n3 4\n");
    cmd.args(["solve", "g.rg", "--db", "g", "-q", "--summary"])
        .stdout();
    let path = dir.path().join("g/database.json");
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    meta["params"]["start"] = serde_json::json!(4_294_967_299u64);
    meta["checksum"] = serde_json::json!("");
    let crc = crc32(&serde_json::to_vec(&meta).unwrap());
    meta["checksum"] = serde_json::json!(format!("{crc:08x}"));
    std::fs::write(&path, serde_json::to_vec_pretty(&meta).unwrap()).unwrap();
    let msg = dir.command().args(["query", "g"]).message();
    assert!(
        msg.contains("database.json: start vertex 4294967299, but the graph has 5 vertices"),
        "{msg}"
    );
});

rtest!(names_with_line_breaks_read_back, |dir, cmd| {
    // Issue 25: a name with a newline made `query` fail with "graph.names: a bad line".
    dir.create(
        "g.json",
        r#"{"edges": [[0, 1], [1, 2]], "names": ["the\nstart", "back\\slash\\n", "end\r"], "start": 0}"#,
    );
    cmd.args(["solve", "g.json", "--db", "g", "-q", "--summary"])
        .stdout();
    let out = dir
        .command()
        .args([
            "query",
            "g",
            "--position",
            "back\\slash\\n",
            "--output",
            "json",
        ])
        .stdout();
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["position"], "1");
    let out = dir
        .command()
        .args(["query", "g", "--position", "the\nstart"])
        .stdout();
    assert!(out.starts_with("vertex 0 (the\nstart)"), "{out:?}");
});

rtest!(
    a_full_disk_says_why_and_leaves_no_temporary_file,
    |dir, cmd| {
        // Issue 25: a full disk left *.tmp files behind and said "cannot write" without the
        // cause. A file size limit (ulimit -f, its signal ignored) fails the write alike.
        let _ = cmd;
        let mut g = String::from("vertices 60000\n");
        let mut rng = util::Rng::new(25);
        for v in 0..60_000u64 {
            g.push_str(&format!("{v} {}\n", rng.below(60_000)));
        }
        dir.create("g.rg", g);
        let o = sh(
            &dir,
            "trap '' XFSZ; ulimit -f 64 && exec \"$R\" solve g.rg --db D -q --summary",
        );
        assert_eq!(o.code, 2, "{o:?}");
        assert!(
            o.stderr.contains("D/graph.") && o.stderr.contains("cannot write: File too large"),
            "{}",
            o.stderr
        );
        let left: Vec<String> = files(&dir, "D")
            .into_iter()
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        let o = sh(
            &dir,
            "trap '' XFSZ; ulimit -f 2 && exec \"$R\" game connect4 --width 4 --height 4 --db C -q",
        );
        assert_eq!(o.code, 2, "{o:?}");
        assert!(
            o.stderr.contains("cannot write: File too large"),
            "{}",
            o.stderr
        );
        assert!(files(&dir, "C").iter().all(|n| !n.ends_with(".tmp")));
    }
);

rtest!(
    an_over_long_line_on_stdin_is_skipped_in_bounded_memory,
    |dir, cmd| {
        // Issue 25: a 2 GB line without a line break took 1.96 GB of memory. Here a 600 MB
        // line, generated as it is read, under a 400 MB address space.
        cmd.args(["game", "tictactoe", "--db", "t", "-q"]).stdout();
        let o = sh(
        &dir,
        "{ head -c 600000000 /dev/zero | tr '\\0' x; printf '\\nmoves: b2\\n'; } | (ulimit -v 400000 && exec \"$R\" query t --stdin)",
    );
        assert_eq!(o.code, 2, "{o:?}");
        assert!(
            o.stderr
                .contains("<stdin>:1: a line longer than 64 KiB (600000000 bytes), skipped"),
            "{}",
            o.stderr
        );
        assert!(o.stdout.contains("tie in 8"), "{}", o.stdout);
        // The other commands that read standard input: a solution to verify (rows are
        // short), a game's input file (read whole, but not past the memory limit).
        let pebbles = util::example("pebbles.rg");
        let o = sh(
            &dir,
            &format!(
                "head -c 300000000 /dev/zero | tr '\\0' 1 | (ulimit -v 400000 && exec \"$R\" verify '{pebbles}' -)"
            ),
        );
        assert_eq!(o.code, 2, "{o:?}");
        let want =
            "<stdin>:1: expected a CSV row of at most 64 KiB, found a line of 300000000 bytes";
        assert!(o.stderr.contains(want), "{}", o.stderr);
        let o = sh(
            &dir,
            "head -c 300000000 /dev/zero | tr '\\0' 1 | \"$R\" game great-game --memory 100M",
        );
        assert_eq!(o.code, 2, "{o:?}");
        // (What the input may take is the limit's room: the limit less the binary's own
        // pages and the allocator's eighth.)
        let want = "MiB of input, over the memory limit";
        assert!(
            o.stderr.starts_with("retrograde: <stdin>: more than ") && o.stderr.contains(want),
            "{}",
            o.stderr
        );
    }
);

rtest!(positions_no_game_reaches_are_refused, |dir, cmd| {
    // Issue 25: tic-tac-toe answered xxx/oo./o.. with X to move ("win in 1").
    cmd.args(["game", "tictactoe", "--db", "t", "-q"]).stdout();
    let db = |args: &[&str], name: &str| {
        dir.command()
            .arg("game")
            .args(args)
            .args(["--db", name, "-q"])
            .stdout();
    };
    db(&["connect4", "--width", "4", "--height", "4"], "c");
    db(&["quixo", "--size", "3"], "q");
    db(&["teeko", "--size", "3", "--pieces", "3"], "k");
    db(&["chess", "KNNvK"], "n");
    let cases: [(&str, &str, &str); 7] = [
        ("t", "xxx/oo./o..", "X has 3 in a row, yet it is X's turn"),
        ("t", "xxx/ooo/x..", "O has 3 in a row"),
        (
            "c",
            "..../o.../ooo./xxxx",
            "x has four in a row, yet it is x's turn",
        ),
        ("q", "x../.o./... x", "no game reaches this board"),
        ("q", "xx./.../... x", "cannot happen"),
        ("k", "xxx/oo./o.. x", "the side to move has a winning shape"),
        (
            "n",
            "k7/2N5/1N6/8/8/8/8/K7 b - - 0 1",
            "two pawns or knights",
        ),
    ];
    for (db, position, why) in cases {
        let msg = dir
            .command()
            .args(["query", db, "--position", position])
            .message();
        assert!(msg.contains(why), "{db} {position}: {msg}");
    }
    // play and the page refuse them too.
    let msg = dir
        .command()
        .args([
            "play",
            "tictactoe",
            "--db",
            "t",
            "--position",
            "xxx/oo./o..",
        ])
        .message();
    assert!(msg.contains("X has 3 in a row"), "{msg}");
    let msg = dir
        .command()
        .args(["play", "tictactoe", "--position", "xxx/oo./o.."])
        .message();
    assert!(msg.contains("X has 3 in a row"), "{msg}");
    let mut server = Command::new(env!("CARGO_BIN_EXE_retrograde"))
        .current_dir(dir.path())
        .args(["serve", "t", "--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|u| u.strip_suffix('/'))
        .unwrap()
        .to_string();
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "GET /api/query?position=xxx%2Foo.%2Fo.. HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    std::io::Read::read_to_string(&mut s, &mut reply).unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    assert!(reply.contains("X has 3 in a row"), "{reply}");
});

rtest!(a_run_that_takes_every_tier_up_says_so, |dir, cmd| {
    // A resumed run of a finished database said "tiers written to c4-6x5" and
    // "time 3.994 s (explore 544.369 s, solve 211.375 s), 705.9M positions/s": the first
    // solve's phases, and its positions over this run's time.
    let _ = cmd;
    for (game, db) in [
        (&["tictactoe"][..], "t3"),
        (&["connect4", "--width", "4", "--height", "4"], "c4"),
        (&["dots-and-boxes", "--rows", "1", "--cols", "2"], "dots"),
    ] {
        let run = |extra: &[&str]| {
            dir.command()
                .arg("game")
                .args(game)
                .args(["--db", db, "-q"])
                .args(extra)
                .stdout()
        };
        let first = run(&[]);
        assert!(
            first.contains(&format!("tiers written to {db}\n")),
            "{first}"
        );
        let time = |out: &str| {
            let line = out.lines().find(|l| l.starts_with("time ")).unwrap();
            line.split(", peak memory").next().unwrap().to_string()
        };
        assert!(
            time(&first).contains("(explore ") && time(&first).ends_with(" positions/s"),
            "{first}"
        );
        // Each file of the database as it is (the lock's holder is written by every run).
        let files = || {
            use std::os::unix::fs::MetadataExt;
            let mut v: Vec<(String, u64, u64, i64, i64)> = std::fs::read_dir(dir.path().join(db))
                .unwrap()
                .flatten()
                .filter(|e| e.file_name() != "database.lock")
                .map(|e| {
                    let m = e.metadata().unwrap();
                    let name = e.file_name().to_string_lossy().into_owned();
                    (name, m.ino(), m.len(), m.mtime(), m.mtime_nsec())
                })
                .collect();
            v.sort();
            v
        };
        let before = files();
        let again = run(&["--resume"]);
        assert!(
            again.contains(&format!(
                "every tier taken up from {db} (finished before): no tier solved or written\n"
            )),
            "{again}"
        );
        assert_eq!(files(), before, "{db}: nothing was written");
        assert!(!again.contains("tiers written"), "{again}");
        let t = time(&again);
        assert!(
            t.ends_with(" s (every tier taken up from the database)"),
            "{game:?}: {t}"
        );
        // The rest of the report is the finished database's, as the first run printed it.
        let rest = |out: &str| -> Vec<String> {
            (out.lines())
                .filter(|l| !l.starts_with("time ") && !l.contains(db))
                .map(String::from)
                .collect()
        };
        assert_eq!(rest(&again), rest(&first), "{game:?}");
    }
    // A run that solves some tiers again: what it solved is timed, what it took up said.
    let values: Vec<String> = std::fs::read_dir(dir.path().join("t3"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".values"))
        .collect();
    let n = values.len();
    std::fs::remove_file(dir.path().join("t3").join(&values[0])).unwrap();
    let out = dir
        .command()
        .args(["game", "tictactoe", "--db", "t3", "--resume", "-q"])
        .stdout();
    let taken = n - 1;
    assert!(
        out.contains(&format!(
            "tiers written to t3 ({taken} finished before, taken up)"
        )),
        "{out}"
    );
    assert!(out.contains(&format!("; {taken} tiers taken up)")), "{out}");
    assert!(!out.contains("positions/s"), "{out}");
});

/// `DB/database.json` in `dir` changed by `edit`, its checksum made right again.
fn forge(dir: &Dir, db: &str, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.path().join(db).join("database.json");
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut meta);
    meta["checksum"] = serde_json::json!("");
    let crc = crc32(&serde_json::to_vec(&meta).unwrap());
    meta["checksum"] = serde_json::json!(format!("{crc:08x}"));
    std::fs::write(&path, serde_json::to_vec_pretty(&meta).unwrap()).unwrap();
}

/// A copy of database `db` of the repository's `testdata/format5` (written by the build
/// before tier files carried the facts of their description) into `dir`, as `to`.
fn old_database(dir: &Dir, db: &str, to: &str) {
    let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/format5")
        .join(db);
    std::fs::create_dir_all(dir.path().join(to)).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.path().join(to).join(e.file_name())).unwrap();
    }
}

rtest!(
    a_description_that_contradicts_its_files_is_refused,
    |dir, cmd| {
        // Changing a scored graph's layout to `graph` (the checksum made again) dropped every
        // score and answered, exit 0. Every file now says what its description said when it was
        // written: another layout, cell width or parameters is an error naming both.
        let _ = cmd;
        let scored = util::example("scored.rg");
        dir.command()
            .args(["solve", &scored, "--db", "g", "-q", "--summary"])
            .stdout();
        dir.command()
            .args(["game", "tictactoe", "--db", "t", "-q"])
            .stdout();
        let good: Vec<(&str, Vec<u8>)> = ["g", "t"]
            .into_iter()
            .map(|db| {
                (
                    db,
                    std::fs::read(dir.path().join(db).join("database.json")).unwrap(),
                )
            })
            .collect();
        let restore = || {
            for (db, bytes) in &good {
                std::fs::write(dir.path().join(db).join("database.json"), bytes).unwrap();
            }
        };
        type Edit = fn(&mut serde_json::Value);
        let cases: [(&str, Edit, &str, &str); 7] = [
        ("g", |m| m["layout"] = "graph".into(), "graph.values: written for layout \"graph-scored\", but ", " says \"graph\""),
        ("g", |m| m["cell_bytes"] = 8.into(), "graph.values: written for 4-byte value cells, but ", " says 8"),
        ("g", |m| m["params"]["start"] = 4.into(), "graph.values: written for other parameters than ", " records"),
        ("t", |m| m["layout"] = "sorted".into(), ".values: written for layout \"dense\", but ", " says \"sorted\""),
        ("t", |m| m["cell_bytes"] = 2.into(), ".values: written for 1-byte value cells, but ", " says 2"),
        ("t", |m| m["params"]["args"]["k"] = 2.into(), "database.json: its parameters make \"tictactoe 3x3 k2\", it says \"tictactoe 3x3 k3\"", ""),
        ("t", |m| {
            m["params"]["args"]["k"] = 2.into();
            m["game"] = "tictactoe 3x3 k2".into();
        }, ".values: holds \"tictactoe 3x3 k3\", this database is \"tictactoe 3x3 k2\"", ""),
    ];
        for (db, edit, before, after) in cases {
            restore();
            forge(&dir, db, edit);
            let meta = format!("{db}/database.json");
            let asked = if db == "g" {
                ["--position", "0"]
            } else {
                ["--moves", "b2"]
            };
            for args in [vec!["query", db], [&["query", db][..], &asked].concat()] {
                let o = dir.command().args(&args).output();
                assert_eq!((o.code, o.stdout.as_str()), (2, ""), "{args:?}: {o:?}");
                let msg = o.stderr;
                assert!(
                    msg.contains(before) && msg.contains(after),
                    "{args:?}: {msg}"
                );
                if !after.is_empty() {
                    assert!(msg.contains(&format!("{before}{meta}{after}")), "{msg}");
                }
            }
        }
        // The same parameters with their keys in another order are no contradiction.
        restore();
        forge(&dir, "g", |m| {
            let p = m["params"].as_object().unwrap();
            let mut keys: Vec<&String> = p.keys().collect();
            keys.reverse();
            let reordered: serde_json::Map<String, serde_json::Value> = keys
                .into_iter()
                .map(|k| (k.clone(), p[k].clone()))
                .collect();
            m["params"] = serde_json::Value::Object(reordered);
        });
        let out = dir
            .command()
            .args(["query", "g", "--position", "0"])
            .stdout();
        assert!(out.contains("loss by 2 in 2"), "{out}");
    }
);

rtest!(
    databases_of_the_format_before_read_as_they_did,
    |dir, cmd| {
        // Tier files of version 5 carry no facts of their description: they are read as
        // before, and answer as a database solved now does.
        let _ = cmd;
        old_database(&dir, "ttt", "old-t");
        old_database(&dir, "kalah", "old-k");
        old_database(&dir, "scored", "old-g");
        dir.command()
            .args(["game", "tictactoe", "--db", "new-t", "-q"])
            .stdout();
        dir.command()
            .args([
                "game", "kalah", "--pits", "2", "--seeds", "2", "--db", "new-k", "-q",
            ])
            .stdout();
        let scored = util::example("scored.rg");
        dir.command()
            .args(["solve", &scored, "--db", "new-g", "-q", "--summary"])
            .stdout();
        let same = |old: &str, new: &str, asked: &[&str]| {
            let run = |db: &str| {
                let mut args = vec!["query", db, "--output", "json"];
                args.extend_from_slice(asked);
                dir.command().args(&args).stdout()
            };
            assert_eq!(run(old), run(new), "{old} {asked:?}");
        };
        for moves in ["", "b2", "a1", "c3", "b2,a1", "a1,b2,c3", "a1,a2,b1,b2"] {
            same("old-t", "new-t", &["--moves", moves]);
        }
        for moves in ["", "1", "2"] {
            same("old-k", "new-k", &["--moves", moves]);
        }
        for v in 0..13 {
            same("old-g", "new-g", &["--position", &v.to_string()]);
        }
        for db in ["old-t", "old-k"] {
            dir.command().args(["query", db]).stdout();
        }
        // Their files do not say their layout, but a graph's scores left out of its
        // description are found all the same.
        forge(&dir, "old-g", |m| m["layout"] = "graph".into());
        let msg = dir
            .command()
            .args(["query", "old-g", "--position", "0"])
            .message();
        let meta = "old-g/database.json";
        assert!(
            msg.contains("graph.scores: the scores of this database, but ")
                && msg.contains(&format!("{meta} says layout \"graph\", without scores")),
            "{msg}"
        );
    }
);

/// A tier file's bytes but for what names its database (its identity, header bytes 120..136,
/// and the header's CRC, 172..176).
fn without_identity(mut bytes: Vec<u8>) -> Vec<u8> {
    assert!(bytes.len() >= 176, "a tier file of {} bytes", bytes.len());
    bytes[172..176].fill(0);
    bytes[120..136].fill(0);
    bytes
}

/// A report or a database's description without what differs between runs: times, rates,
/// peak memory, the database's path, identity and the description's own checksum.
fn timeless(mut v: serde_json::Value) -> serde_json::Value {
    let mut stack = vec![&mut v];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(o) => {
                o.retain(|f, _| {
                    let timed = ["time", "second", "rss"].iter().any(|t| f.contains(t));
                    let named = ["explore", "solve", "db", "id", "checksum"].contains(&f.as_str());
                    !timed && !named
                });
                stack.extend(o.values_mut());
            }
            serde_json::Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
    v
}

rtest!(
    cells_values_and_classes_make_the_same_database,
    |dir, cmd| {
        // A byte a slot while a tier is solved, the levels logged, makes the very files of value
        // cells: games with loops, scores, and both sides to move.
        let games: &[&[&str]] = &[
            &["tictactoe"],
            &["quixo", "--size", "3"],
            &["kalah", "--pits", "2", "--seeds", "3"],
            &["dots-and-boxes", "--rows", "2", "--cols", "2"],
            &["chess", "KRvK"],
        ];
        for (i, args) in games.iter().enumerate() {
            let mut reports = Vec::new();
            for cells in ["values", "classes", "auto"] {
                let o = dir
                    .command()
                    .arg("game")
                    .args(*args)
                    .args(["--db", &format!("{i}{cells}"), "--cells", cells])
                    .args(["-q", "--output", "json"])
                    .output();
                assert_eq!(o.code, 0, "{args:?} --cells {cells}: {}", o.stderr);
                reports.push(timeless(util::json(&o.stdout)));
            }
            assert_eq!(reports[0], reports[1], "{args:?}");
            assert_eq!(reports[0], reports[2], "{args:?}");
            let names = files(&dir, &format!("{i}values"));
            for other in ["classes", "auto"] {
                assert_eq!(names, files(&dir, &format!("{i}{other}")), "{args:?}");
            }
            let mut tier_files = 0;
            for name in &names {
                let read = |db: &str| std::fs::read(dir.path().join(format!("{i}{db}")).join(name));
                let (a, b) = (read("values").unwrap(), read("classes").unwrap());
                if name.ends_with(".values") || name.ends_with(".keys") {
                    assert_eq!(without_identity(a), without_identity(b), "{args:?}: {name}");
                    tier_files += 1;
                } else if name.ends_with(".json") {
                    let json = |b: Vec<u8>| timeless(util::json(&String::from_utf8(b).unwrap()));
                    let (a, b) = (json(a), json(b));
                    assert_eq!(a, b, "{args:?}: {name}");
                }
            }
            assert!(tier_files > 0, "{args:?}: no tier file");
        }
        // A way to hold them that is not one of the three is refused, naming them.
        let e = cmd.args(["game", "tictactoe", "--cells", "bytes"]).error();
        assert!(e.contains("--cells") && e.contains("classes"), "{e}");
    }
);
