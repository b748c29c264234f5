//! End-to-end tests of the impartial-game commands (`grundy`, `sum`, `game octal`,
//! `game subtraction`, `game grundy-game`): the real binary on real files, checked against
//! the `solve` command (the win/loss/draw engine) and against naive computations written here.

#[macro_use]
#[allow(dead_code)]
mod util;

use std::collections::BTreeSet;
use util::{example, json, parse_csv, Rng};

/// `vertex,grundy` rows as (vertex, value text).
fn grundy_csv(text: &str) -> Vec<(u32, String)> {
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("vertex,grundy"));
    lines
        .enumerate()
        .map(|(i, l)| {
            let (v, rest) = l.split_once(',').unwrap();
            let value = if let Some(q) = rest.strip_prefix('"') {
                q[..q.find('"').unwrap()].to_string()
            } else {
                rest.split(',').next().unwrap().to_string()
            };
            assert_eq!(v.parse::<usize>().unwrap(), i, "rows in id order");
            (i as u32, value)
        })
        .collect()
}

/// The outcome a value implies, for the player to move.
fn implied(value: &str) -> &'static str {
    match value.strip_prefix("inf{") {
        Some(k) => {
            let k = k.strip_suffix('}').unwrap();
            if k.split(',').any(|x| x == "0") {
                "win"
            } else {
                "draw"
            }
        }
        None if value == "0" => "loss",
        None => "win",
    }
}

/// A random loopy edge list.
fn random_graph(rng: &mut Rng, n: u64, m: usize) -> String {
    let mut s = String::new();
    for _ in 0..m {
        s.push_str(&format!("{} {}\n", rng.below(n), rng.below(n)));
    }
    s
}

// ---------------------------------------------------------------------------------------------
// grundy

rtest!(grundy_pebbles_csv, |_dir, cmd| {
    let out = cmd
        .args(["grundy", &example("pebbles.rg"), "--output", "csv"])
        .stdout();
    let mut expected = String::from("vertex,grundy\n");
    for v in 0..=10 {
        expected.push_str(&format!("{v},{}\n", v % 3));
    }
    assert_eq!(out, expected);
});

rtest!(grundy_pebbles_text, |_dir, cmd| {
    let out = cmd.args(["grundy", &example("pebbles.rg")]).stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "0 (0 pebbles): 0 (loss, counter 0)");
    assert_eq!(lines[9], "9 (9 pebbles): 0 (loss, counter 6)");
    assert_eq!(lines[10], "10 (10 pebbles): 1 (win, counter 6)");
    assert_eq!(
        lines[11],
        "11 vertices, 19 edges, no cycle: every value is the mex of the moves' values"
    );
    assert_eq!(
        lines[12],
        "finite values (value: vertices): 0: 4, 1: 4, 2: 3"
    );
    assert_eq!(lines[14], "win 7, loss 4, draw 0");
});

rtest!(grundy_loopy_example, |_dir, cmd| {
    let out = cmd
        .args([
            "grundy",
            &example("loopy-impartial.rg"),
            "-o",
            "csv",
            "--counters",
        ])
        .stdout();
    assert_eq!(
        out,
        "vertex,grundy,counter\n0,0,0\n1,1,0\n2,0,2\n3,1,0\n4,inf{0},\n5,inf{1},\n6,inf{1},\n\
         7,inf{},\n8,1,2\n"
    );
});

rtest!(grundy_quotes_sets_with_commas, |dir, cmd| {
    // 0 has a self-loop and moves to 1 (value 0) and 2 (value 1): inf{0,1}.
    dir.create("g.txt", "0 0\n0 1\n0 2\n2 1\n");
    let out = cmd.args(["grundy", "g.txt", "-o", "csv"]).stdout();
    assert_eq!(out, "vertex,grundy\n0,\"inf{0,1}\"\n1,0\n2,1\n");
    let j = json(
        &dir.command()
            .args(["grundy", "g.txt", "-o", "json"])
            .stdout(),
    );
    let p = &j["positions"][0];
    assert_eq!(p["grundy"], "inf{0,1}");
    assert_eq!(p["k"], serde_json::json!([0, 1]));
    assert_eq!(p["counter"], serde_json::Value::Null);
    assert_eq!(p["outcome"], "win");
    assert_eq!(j["positions"][2]["grundy"], 1);
    assert_eq!(j["infinite"], 1);
    assert_eq!(j["acyclic"], false);
    assert_eq!(j["by_value"], serde_json::json!([1, 1]));
});

rtest!(grundy_json_summary_and_vertices, |dir, cmd| {
    let j = json(
        &cmd.args([
            "grundy",
            &example("loopy-impartial.rg"),
            "--summary",
            "-o",
            "json",
        ])
        .stdout(),
    );
    assert_eq!(j["vertices"], 9);
    assert_eq!(j["win"], 4);
    assert_eq!(j["loss"], 2);
    assert_eq!(j["draw"], 3);
    assert_eq!(j["max_value"], 1);
    assert!(j.get("positions").is_none());
    let csv = dir
        .command()
        .args([
            "grundy",
            &example("loopy-impartial.rg"),
            "--summary",
            "-o",
            "csv",
        ])
        .stdout();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("vertices,edges,acyclic,win,loss,draw,infinite,max_value,seconds")
    );
    assert!(lines.next().unwrap().starts_with("9,14,false,4,2,3,4,1,"));
    let out = dir
        .command()
        .args([
            "grundy",
            &example("loopy-impartial.rg"),
            "--vertex",
            "8",
            "--vertex",
            "5",
        ])
        .stdout();
    assert_eq!(out, "8: 1 (win, counter 2)\n5: inf{1} (draw)\n");
});

rtest!(grundy_reads_stdin_and_every_format, |dir, cmd| {
    let out = cmd
        .args(["grundy", "-", "-o", "csv"])
        .stdin("0 1\n1 0\n1 2\n")
        .stdout();
    assert_eq!(out, "vertex,grundy\n0,0\n1,1\n2,0\n");
    dir.create("g.json", r#"{"edges": [[0,1],[1,0],[1,2]]}"#);
    dir.create("g.grf", "3\n0 u 1\n1\n1 u 2\n0 2\n2 l 0\n");
    for f in ["g.json", "g.grf"] {
        let out = dir.command().args(["grundy", f, "-o", "csv"]).stdout();
        assert_eq!(out, "vertex,grundy\n0,0\n1,1\n2,0\n", "{f}");
    }
    // An empty graph is fine.
    let out = dir
        .command()
        .args(["grundy", "-", "-o", "csv"])
        .stdin("# nothing\n")
        .stdout();
    assert_eq!(out, "vertex,grundy\n");
});

rtest!(grundy_misere_is_the_engines, |dir, cmd| {
    let out = cmd
        .args([
            "grundy",
            &example("loopy-impartial.rg"),
            "--misere",
            "-o",
            "csv",
        ])
        .stdout();
    let engine = dir
        .command()
        .args([
            "solve",
            &example("loopy-impartial.rg"),
            "--no-move",
            "win",
            "-o",
            "csv",
        ])
        .stdout();
    let rows = parse_csv(&engine);
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("vertex,grundy,misere_outcome,misere_remoteness")
    );
    for (line, row) in lines.zip(&rows) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f[2], row.outcome, "{line}");
        assert_eq!(
            f[3],
            row.remoteness.map_or(String::new(), |r| r.to_string())
        );
    }
    let text = dir
        .command()
        .args([
            "grundy",
            &example("pebbles.rg"),
            "--misere",
            "--vertex",
            "1",
        ])
        .stdout();
    assert_eq!(
        text,
        "1 (1 pebble): 1 (win, counter 0); misère: loss in 1\n"
    );
});

// On random loopy graphs the outcome each value implies is the engine's, a value-0 counter
// is the engine's loss remoteness, and the independent checker agrees.
rtest!(grundy_outcomes_match_solve_on_random_graphs, |dir, _cmd| {
    let mut rng = Rng::new(4);
    for round in 0..25 {
        let n = 2 + rng.below(30);
        let m = rng.below(3 * n) as usize;
        dir.create("g.txt", random_graph(&mut rng, n, m));
        let g = dir
            .command()
            .args([
                "grundy",
                "g.txt",
                "--vertices",
                &n.to_string(),
                "-o",
                "csv",
                "--counters",
                "--verify",
            ])
            .stdout();
        let s = dir
            .command()
            .args(["solve", "g.txt", "--vertices", &n.to_string(), "-o", "csv"])
            .stdout();
        let rows = parse_csv(&s);
        let values = grundy_csv(&g);
        assert_eq!(values.len(), rows.len());
        for ((v, value), row) in values.iter().zip(&rows) {
            assert_eq!(
                implied(value),
                row.outcome,
                "round {round} vertex {v}: {value}"
            );
        }
        for (line, row) in g.lines().skip(1).zip(&rows) {
            if line.split(',').nth(1) == Some("0") {
                let counter: u32 = line.split(',').nth(2).unwrap().parse().unwrap();
                assert_eq!(Some(counter), row.remoteness, "round {round}: {line}");
            }
        }
    }
});

rtest!(grundy_errors, |dir, cmd| {
    dir.create("again.rg", "0 1 again\n");
    dir.create("arena.rg", "owner 1 1\n0 1\n");
    dir.create("tie.rg", "0 1\nterminal 1 tie\n");
    dir.create("bad.txt", "0 1\n1\n");
    dir.create("ok.txt", "0 1\n");
    let e = cmd.args(["grundy", "again.rg"]).message();
    assert_eq!(
        e,
        "again.rg: the graph has go-again moves; Sprague-Grundy values need every move to pass the turn"
    );
    let e = dir.command().args(["grundy", "arena.rg"]).message();
    assert!(e.starts_with("arena.rg: the graph is an arena"), "{e}");
    let e = dir.command().args(["grundy", "tie.rg"]).message();
    assert!(
        e.starts_with("tie.rg: vertex 1 is labeled terminal tie;"),
        "{e}"
    );
    let e = dir.command().args(["grundy", "bad.txt"]).message();
    assert!(e.starts_with("bad.txt:2: "), "{e}");
    let e = dir.command().args(["grundy", "missing.txt"]).message();
    assert!(e.starts_with("missing.txt: cannot open"), "{e}");
    let e = dir.command().args(["grundy", "."]).message();
    assert!(e.contains("is a directory"), "{e}");
    let e = dir
        .command()
        .args(["grundy", "ok.txt", "--vertex", "7"])
        .message();
    assert!(e.contains("vertex 7 does not exist"), "{e}");
    // `terminal V loss` is normal play: accepted, its moves ignored.
    dir.create("loss.rg", "0 1\n1 0\nterminal 1 loss\n");
    let out = dir
        .command()
        .args(["grundy", "loss.rg", "-o", "csv"])
        .stdout();
    assert_eq!(out, "vertex,grundy\n0,1\n1,0\n");
});

rtest!(grundy_and_sum_refuse_scored_graphs, |dir, cmd| {
    // Vertex 2 is scored and has a move of its own, which `solve` ignores: impartial values
    // have no scores, so the graph is refused at its first `score` line, not solved with 2's
    // move kept.
    dir.create("g.rg", "0 2\n# a comment\n2 3\nscore 2 -1\nscore 0 4\n");
    dir.create(
        "g.json",
        r#"{"edges": [[0, 2], [2, 3]], "scores": [[2, -1]]}"#,
    );
    let why = "a score line, but Sprague-Grundy values have no scores: an impartial game ends when the player to move has no move, and that player loses (`retrograde solve` reads scored graphs)";
    assert_eq!(
        cmd.args(["grundy", "g.rg"]).message(),
        format!("g.rg:4: {why}")
    );
    assert_eq!(
        dir.command()
            .args(["grundy", "-"])
            .stdin(std::fs::read(dir.path().join("g.rg")).unwrap())
            .message(),
        format!("<stdin>:4: {why}")
    );
    let e = dir.command().args(["grundy", "g.json"]).message();
    assert!(
        e.starts_with("g.json: \"scores\" are given, but Sprague-Grundy values have no scores"),
        "{e}"
    );
    for args in [["sum", "g.rg:0", "nim:3"], ["sum", "nim:3", "g.rg:2"]] {
        assert_eq!(
            dir.command().args(args).message(),
            format!("g.rg:4: {why}"),
            "{args:?}"
        );
    }
    // `{"scores": []}` scores nothing: the graph is impartial.
    dir.create("none.json", r#"{"edges": [[0, 1]], "scores": []}"#);
    let out = dir
        .command()
        .args(["grundy", "none.json", "-o", "csv"])
        .stdout();
    assert_eq!(out, "vertex,grundy\n0,1\n1,0\n");
});

// ---------------------------------------------------------------------------------------------
// sum

/// The fields of `sum --output json`.
fn sum_json(dir: &util::Dir, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["sum"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "json"]);
    json(&dir.command().args(all).stdout())
}

rtest!(sum_of_nim_heaps, |dir, cmd| {
    let out = cmd.args(["sum", "nim:3", "nim:5", "nim:6"]).stdout();
    assert!(
        out.contains("sum: 0, a loss for the player to move\n"),
        "{out}"
    );
    assert!(out.contains("every move loses"), "{out}");
    let j = sum_json(&dir, &["nim:3", "nim:5", "nim:7"]);
    assert_eq!(j["value"], "1");
    assert_eq!(j["outcome"], "win");
    // 3^5^7 = 1: move the 3 to 2, the 5 to 4 or the 7 to 6; the first component first.
    assert_eq!(j["move"]["component"], 1);
    assert_eq!(j["move"]["take"], 1);
    assert_eq!(j["move"]["leaves"], serde_json::json!([2]));
    assert_eq!(j["move"]["value_after"], "0");
    let j = sum_json(&dir, &["nim:0"]);
    assert_eq!(j["outcome"], "loss");
    assert_eq!(j["move"], serde_json::Value::Null);
});

rtest!(sum_of_heap_games, |dir, cmd| {
    // Kayles 10 = 2, subtraction {1,3,4} of 17 = 1, nim 7: 2^1^7 = 4.
    let out = cmd
        .args(["sum", "octal:0.77:10", "take:1,3,4:17", "nim:7"])
        .stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("value 2") && lines[0].contains("(Kayles), heap of 10"));
    assert!(lines[1].contains("value 1"));
    assert!(lines[2].contains("value 7"));
    assert_eq!(lines[3], "sum: 4, a win for the player to move");
    // Kayles cannot go from 2 to 2^4 = 6, nor {1,3,4} from 1 to 5; nim 7 goes to 3.
    assert_eq!(
        lines[4],
        "winning move: in component 3 (nim:7), take 4, leaving 3; the sum becomes 0, a loss for the opponent"
    );
    let j = sum_json(&dir, &["grundy-game:7", "take:1,2:10"]);
    // Grundy's game: G(7) = 0; take {1,2}: 10 mod 3 = 1. A value-0 component can still be
    // the one to move: 7 = 1 + 6 is worth G(1)^G(6) = 0^1 = 1.
    assert_eq!(j["components"][0]["value"], "0");
    assert_eq!(j["value"], "1");
    assert_eq!(j["move"]["component"], 1);
    assert_eq!(j["move"]["take"], 0);
    assert_eq!(j["move"]["leaves"], serde_json::json!([1, 6]));
    assert_eq!(j["move"]["description"], "split into 1 and 6");
});

rtest!(sum_with_loopy_graphs, |dir, cmd| {
    let f = example("loopy-impartial.rg");
    // 5 is inf{1}: beside a nim heap of 1 the player to move wins by 5 -> 1.
    let out = cmd.args(["sum", &format!("{f}:5"), "nim:1"]).stdout();
    assert!(
        out.contains("sum: inf{0}, a win for the player to move"),
        "{out}"
    );
    assert!(out.contains("winning move: in component 1 ("), "{out}");
    assert!(
        out.contains("move from vertex 5 to vertex 1; the sum becomes 0"),
        "{out}"
    );
    // 4 is inf{0}: beside nim 1, K xor 1 = {1}: a draw; the self-loop keeps it.
    let j = sum_json(&dir, &[&format!("{f}:4"), "nim:1"]);
    assert_eq!(j["value"], "inf{1}");
    assert_eq!(j["outcome"], "draw");
    assert_eq!(j["move"]["kind"], "draw");
    // Two infinite components: a draw.
    let j = sum_json(&dir, &[&format!("{f}:4"), &format!("{f}:4")]);
    assert_eq!(j["value"], "inf{}");
    // The file's start line (8, value 1) when no vertex is named.
    let j = sum_json(&dir, &[&f, "nim:1"]);
    assert_eq!(j["components"][0]["value"], "1");
    assert_eq!(j["outcome"], "loss");
    // Names work as vertices.
    let j = sum_json(
        &dir,
        &[&format!("{}:9 pebbles", example("pebbles.rg")), "nim:2"],
    );
    assert_eq!(j["value"], "2");
});

// The sum's outcome against `solve` on the explicit product graph written here, for every
// pair of start vertices of two random loopy graphs.
rtest!(sum_matches_solve_on_the_product, |dir, _cmd| {
    let mut rng = Rng::new(11);
    for round in 0..6 {
        let (na, nb) = (2 + rng.below(5), 2 + rng.below(5));
        let a = random_graph(&mut rng, na, (2 * na) as usize);
        let b = random_graph(&mut rng, nb, (2 * nb) as usize);
        dir.create("a.txt", format!("vertices {na}\n{a}"));
        dir.create("b.txt", format!("vertices {nb}\n{b}"));
        let edges = |text: &str| -> Vec<(u64, u64)> {
            text.lines()
                .map(|l| {
                    let (u, v) = l.split_once(' ').unwrap();
                    (u.parse().unwrap(), v.parse().unwrap())
                })
                .collect()
        };
        let mut product = format!("vertices {}\n", na * nb);
        for (u, v) in edges(&a) {
            for y in 0..nb {
                product.push_str(&format!("{} {}\n", u * nb + y, v * nb + y));
            }
        }
        for (u, v) in edges(&b) {
            for x in 0..na {
                product.push_str(&format!("{} {}\n", x * nb + u, x * nb + v));
            }
        }
        dir.create("p.rg", product);
        let rows = parse_csv(&dir.command().args(["solve", "p.rg", "-o", "csv"]).stdout());
        for x in 0..na {
            for y in 0..nb {
                let j = sum_json(&dir, &[&format!("a.txt:{x}"), &format!("b.txt:{y}")]);
                let row = &rows[(x * nb + y) as usize];
                assert_eq!(
                    j["outcome"],
                    row.outcome.as_str(),
                    "round {round} ({x}, {y})"
                );
                // The move lands where it says.
                if j["move"].is_object() {
                    let (mut to_x, mut to_y) = (x, y);
                    let to = j["move"]["to"].as_u64().unwrap();
                    if j["move"]["component"] == 1 {
                        to_x = to;
                    } else {
                        to_y = to;
                    }
                    let after = &rows[(to_x * nb + to_y) as usize].outcome;
                    let want = if j["outcome"] == "win" {
                        "loss"
                    } else {
                        "draw"
                    };
                    assert_eq!(after, want, "round {round} ({x}, {y}) -> ({to_x}, {to_y})");
                }
            }
        }
    }
});

rtest!(sum_errors, |dir, cmd| {
    dir.create("again.rg", "0 1 again\n");
    dir.create("plain.txt", "0 1\n");
    let cases: &[(&[&str], &str)] = &[
        (&["nim:x"], "component \"nim:x\": expected a heap size (a number of tokens), found \"x\""),
        (&["nim"], "component \"nim\": expected nim:N, like nim:7"),
        (&["nim:2000000"], "component \"nim:2000000\": a heap of 2000000 is too large (at most 1000000)"),
        (&["take:1,3"], "component \"take:1,3\": expected take:S:N, like take:1,3,4:17"),
        (&["take:a:3"], "component \"take:a:3\": expected amounts to take, like 1,3,4, found \"a\""),
        (&["take:0:3"], "component \"take:0:3\": a move must take at least 1 token (0 is in the take-set)"),
        (&["octal:0.8:3"], "component \"octal:0.8:3\": octal code \"0.8\": digit 8 is not octal (0 to 7); hexadecimal games are not supported"),
        (&["octal:3"], "component \"octal:3\": expected octal:CODE:N, like octal:0.77:10"),
        (&["grundy-game:-2"], "component \"grundy-game:-2\": expected a heap size (a number of tokens), found \"-2\""),
        (&["plain.txt"], "component \"plain.txt\": plain.txt has no start line; name the start vertex as plain.txt:V"),
        (&["plain.txt:5"], "component \"plain.txt:5\": plain.txt: vertex 5 does not exist (the graph has 2 vertices, ids 0 to 1)"),
        (&["again.rg:0"], "again.rg: the graph has go-again moves; Sprague-Grundy values need every move to pass the turn"),
    ];
    for (args, want) in cases {
        let mut all = vec!["sum"];
        all.extend_from_slice(args);
        assert_eq!(&dir.command().args(all).message(), want);
    }
    let e = cmd.args(["sum", "missing.rg:3"]).message();
    assert!(e.starts_with("missing.rg: cannot open"), "{e}");
    // No component at all: clap's usage error.
    dir.command().args(["sum"]).error();
});

// ---------------------------------------------------------------------------------------------
// game octal | subtraction | grundy-game

/// The nim-sequence by the definition: every ordered split of every heap, digit by digit.
fn naive(digits: &[u8], unequal: bool, count: usize) -> Vec<u64> {
    let mut g: Vec<u64> = Vec::new();
    for n in 0..count {
        let mut reached = BTreeSet::new();
        for (k, &d) in digits.iter().enumerate() {
            if k > n {
                break;
            }
            let rest = n - k;
            if d & 1 != 0 && rest == 0 {
                reached.insert(0);
            }
            if d & 2 != 0 && rest > 0 {
                reached.insert(g[rest]);
            }
            if d & 4 != 0 {
                for a in 1..rest {
                    if !(unequal && 2 * a == rest) {
                        reached.insert(g[a] ^ g[rest - a]);
                    }
                }
            }
        }
        g.push((0..).find(|x| !reached.contains(x)).unwrap());
    }
    g
}

fn values(j: &serde_json::Value) -> Vec<u64> {
    j["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

rtest!(octal_kayles_sequence_and_period, |dir, cmd| {
    let out = cmd
        .args(["game", "octal", "0.77", "--count", "300", "--period"])
        .stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "octal game 0.77 (Kayles): Grundy values of heaps 0 to 299"
    );
    let seq: Vec<u64> = lines[1].split(' ').map(|x| x.parse().unwrap()).collect();
    assert_eq!(seq, naive(&[0, 7, 7], false, 300));
    assert_eq!(
        lines[2],
        "heaps of value 0 (lost for the player to move): 0"
    );
    assert!(
        lines[3].starts_with("pre-period 71, period 12: G(n + 12) = G(n) for every n >= 71"),
        "{}",
        lines[3]
    );
    let j = json(
        &dir.command()
            .args([
                "game", "octal", "0.137", "--count", "200", "--period", "-o", "json",
            ])
            .stdout(),
    );
    assert_eq!(values(&j), naive(&[0, 1, 3, 7], false, 200));
    assert_eq!(j["game"], "octal");
    assert_eq!(j["code"], "0.137");
    assert_eq!(j["name"], "octal game 0.137 (Dawson's chess)");
    assert_eq!(
        j["period"],
        serde_json::json!({"preperiod": 52, "period": 34})
    );
    assert_eq!(j["positions"], 200);
    assert_eq!(j["start"]["heap"], 199);
    let zeros = values(&j).iter().filter(|&&v| v == 0).count();
    assert_eq!(j["loss"], zeros);
    assert_eq!(j["win"], 200 - zeros);
    // Not enough terms to prove a period.
    let out = dir
        .command()
        .args(["game", "octal", "0.77", "--count", "100", "--period"])
        .stdout();
    assert!(out.contains("no period found up to 100"), "{out}");
    let j = json(
        &dir.command()
            .args(["game", "octal", "4.07", "--count", "60", "-o", "json"])
            .stdout(),
    );
    assert_eq!(values(&j), naive(&[4, 0, 7], false, 60));
    assert!(j.get("period").is_none());
});

rtest!(subtraction_matches_the_pebble_game, |dir, cmd| {
    let j = json(
        &cmd.args([
            "game",
            "subtraction",
            "--take",
            "1,3,4",
            "--count",
            "31",
            "-o",
            "json",
        ])
        .stdout(),
    );
    assert_eq!(values(&j), naive(&[0, 3, 0, 3, 3], false, 31));
    assert_eq!(j["take"], serde_json::json!([1, 3, 4]));
    // The engine's W/L pattern of the same game: L exactly where the value is 0.
    let p = json(
        &dir.command()
            .args([
                "game", "pebbles", "--count", "30", "--take", "1,3,4", "-o", "json",
            ])
            .stdout(),
    );
    let pattern = p["pattern"].as_str().unwrap();
    for (n, c) in pattern.chars().enumerate() {
        assert_eq!(c == 'L', values(&j)[n] == 0, "heap {n}");
    }
    let out = dir
        .command()
        .args([
            "game",
            "subtraction",
            "--take",
            "1,2",
            "--count",
            "12",
            "--period",
        ])
        .stdout();
    assert!(out.contains("\n0 1 2 0 1 2 0 1 2 0 1 2\n"), "{out}");
    assert!(out.contains("heaps of value 0 (lost for the player to move): 0 3 6 9\n"));
    assert!(out.contains("pre-period 0, period 3"));
});

rtest!(grundy_game_sequence, |dir, cmd| {
    let j = json(
        &cmd.args([
            "game",
            "grundy-game",
            "--count",
            "150",
            "-o",
            "json",
            "--period",
        ])
        .stdout(),
    );
    assert_eq!(values(&j), naive(&[4], true, 150));
    assert_eq!(j["game"], "grundy-game");
    assert_eq!(j["period"], serde_json::Value::Null);
    let out = dir
        .command()
        .args(["game", "grundy-game", "--count", "20", "--period"])
        .stdout();
    assert!(out.contains(
        "no period found up to 20 (no periodicity theorem covers Grundy's game, so none can be proved)"
    ));
});

rtest!(heap_game_errors, |dir, cmd| {
    let cases: &[(&[&str], &str)] = &[
        (&["octal", "0.8"], "game octal: octal code \"0.8\": digit 8 is not octal (0 to 7); hexadecimal games are not supported"),
        (&["octal", "77"], "game octal: expected an octal code like 0.77 (digits after a point), found \"77\""),
        (&["octal", "2.7"], "game octal: octal code \"2.7\": the digit before the point must be 0 or 4 (4: a move may split a heap without taking from it), found \"2\""),
        (&["subtraction", "--take", "0,1"], "game subtraction: a move must take at least 1 token (0 is in the take-set)"),
    ];
    for (args, want) in cases {
        let mut all = vec!["game"];
        all.extend_from_slice(args);
        assert_eq!(&dir.command().args(all).message(), want);
    }
    // clap rejects counts out of range, what is not a number, and a missing take-set.
    for n in ["0", "100000001"] {
        let e = dir
            .command()
            .args(["game", "octal", "0.77", "--count", n])
            .error();
        assert!(e.contains("1..=100000000"), "{e}");
    }
    cmd.args(["game", "subtraction", "--take", "x"]).error();
    dir.command().args(["game", "subtraction"]).error();
    dir.command()
        .args(["game", "octal", "0.77", "--count", "-1"])
        .error();
});
