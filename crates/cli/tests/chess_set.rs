//! Regression tests of issue 27 ("every chess ending up to five pieces"): `game chess
//! --up-to N` solves a set of tables once, reports each ending, keeps the tables in `--db`
//! and takes them up again after an interruption; its arguments are checked.

#[macro_use]
#[allow(dead_code)] // the helpers shared with cli.rs are not all used here
mod util;

use std::collections::BTreeMap;
use std::time::SystemTime;
use util::Output;

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

/// A successful run: exit status 0, its stdout and stderr.
fn ok(o: Output) -> Output {
    assert_eq!(o.code, 0, "{o:?}");
    o
}

/// Each ending's numbers in a set's JSON report, without the times (they differ run to
/// run).
fn endings(j: &serde_json::Value) -> BTreeMap<String, serde_json::Value> {
    j["endings"]
        .as_array()
        .expect("endings")
        .iter()
        .map(|e| {
            let mut e = e.clone();
            e.as_object_mut().unwrap().remove("seconds");
            (e["ending"].as_str().unwrap().to_string(), e)
        })
        .collect()
}

/// When each table file of `db` was last written.
fn written(db: &std::path::Path) -> BTreeMap<String, SystemTime> {
    std::fs::read_dir(db)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".values"))
        .map(|e| {
            let name = e.file_name().into_string().unwrap();
            (name, e.metadata().unwrap().modified().unwrap())
        })
        .collect()
}

rtest!(
    up_to_3_reports_every_ending_and_takes_up_its_tables_again,
    |dir, cmd| {
        let first = ok(cmd
            .args(["game", "chess", "--up-to", "3", "--db", "tb", "-o", "json"])
            .output());
        let j = json(&first.stdout);
        assert_eq!(j["up_to"], 3);
        let set = endings(&j);
        // Every ending of three pieces, both colourings; KvK is part of the total only.
        assert_eq!(
            set.keys().collect::<Vec<_>>(),
            ["KBvK", "KNvK", "KPvK", "KQvK", "KRvK", "KvKB", "KvKN", "KvKP", "KvKQ", "KvKR"]
        );
        // The published longest mates: KQK mate in 10, KRK in 16, KPK in 28 (plies: 2n - 1).
        for (ending, plies) in [("KQvK", 19), ("KRvK", 31), ("KPvK", 55), ("KvKQ", 19)] {
            assert_eq!(set[ending]["longest_win"], plies, "{ending}");
        }
        for ending in ["KNvK", "KBvK"] {
            assert_eq!(
                set[ending]["win"], 0,
                "{ending}: no mate with a minor piece alone"
            );
        }
        // Each ending as the set counts it is the ending solved alone.
        for ending in ["KQvK", "KPvK"] {
            let alone = json(
                &dir.command()
                    .args(["game", "chess", ending, "-o", "json"])
                    .stdout(),
            );
            for k in [
                "positions",
                "win",
                "loss",
                "tie",
                "draw",
                "longest_win",
                "longest_loss",
            ] {
                assert_eq!(set[ending][k], alone[k], "{ending}: {k}");
            }
        }
        let positions: u64 = set.values().map(|e| e["positions"].as_u64().unwrap()).sum();
        // And KvK: the kings apart (3612 placements), either side to move.
        assert_eq!(j["total"]["positions"], positions + 3612 * 2);
        assert_eq!(j["total"]["tables"], 11);
        assert_eq!(
            (&j["tables_solved"], &j["tables_reused"]),
            (&11.into(), &0.into())
        );
        // A line per table on standard error, with the time left.
        assert_eq!(
            first.stderr.matches("retrograde: table ").count(),
            11,
            "{}",
            first.stderr
        );
        assert!(first.stderr.contains("table 11/11 "), "{}", first.stderr);
        assert!(first.stderr.contains(" left"), "{}", first.stderr);

        // Again: every table is taken up, none is written again, the report is the same.
        let db = dir.path().join("tb");
        let before = written(&db);
        assert_eq!(before.len(), 11);
        let again = ok(dir
            .command()
            .args(["game", "chess", "--up-to", "3", "--db", "tb", "-o", "json"])
            .output());
        let j = json(&again.stdout);
        assert_eq!(endings(&j), set);
        assert_eq!(
            (&j["tables_solved"], &j["tables_reused"]),
            (&0.into(), &11.into())
        );
        assert_eq!(written(&db), before);
        assert!(
            !again.stderr.contains("retrograde: table "),
            "{}",
            again.stderr
        );
        let text = ok(dir
            .command()
            .args(["game", "chess", "--up-to", "3", "--db", "tb"])
            .output());
        assert!(
            text.stdout.contains("tables solved 0, reused 11"),
            "{}",
            text.stdout
        );
        assert!(
            text.stdout
                .contains("KQvK: positions 368452, win 144508, loss 200896"),
            "{}",
            text.stdout
        );
        // One table, six tables: each said as it is counted.
        assert!(
            text.stdout.contains("(mate in 10), 1 table, "),
            "{}",
            text.stdout
        );
        assert!(
            text.stdout.contains("(mate in 28), 6 tables, "),
            "{}",
            text.stdout
        );
        assert!(!text.stdout.contains(" 1 tables"), "{}", text.stdout);
        // The last line: the time and, where the system tells it, the peak memory.
        let last = text.stdout.lines().last().unwrap_or_default();
        assert!(last.starts_with("time "), "{}", text.stdout);
        if cfg!(target_os = "linux") {
            assert!(last.contains(", peak memory "), "{}", text.stdout);
        }

        // The totals by tier (totals.json) damaged, then missing: every table is taken up,
        // none solved, their totals counted again (the same report), and written again.
        for damage in ["damaged", "missing"] {
            let path = db.join("totals.json");
            if damage == "damaged" {
                let mut b = std::fs::read(&path).unwrap();
                let at = b.len() / 2;
                b[at] ^= 0x01;
                std::fs::write(&path, b).unwrap();
            } else {
                std::fs::remove_file(&path).unwrap();
            }
            let repaired = ok(dir
                .command()
                .args(["game", "chess", "--up-to", "3", "--db", "tb", "-o", "json"])
                .output());
            let j = json(&repaired.stdout);
            assert_eq!(endings(&j), set, "{damage}");
            assert_eq!(
                (&j["tables_solved"], &j["tables_reused"]),
                (&0.into(), &11.into()),
                "{damage}"
            );
            assert_eq!(written(&db), before, "{damage}: a table written again");
            assert!(path.exists(), "{damage}: totals.json not written again");
        }

        // Interrupted: the description and two tables missing (a run stopped before its end
        // writes no database.json). The rest is taken up, the two are solved, same answer.
        for f in ["database.json", "KRvK.values", "KPvK_4.values"] {
            std::fs::remove_file(db.join(f)).unwrap();
        }
        let resumed = ok(dir
            .command()
            .args(["game", "chess", "--up-to", "3", "--db", "tb", "-o", "json"])
            .output());
        let j = json(&resumed.stdout);
        assert_eq!(endings(&j), set);
        assert_eq!(
            (&j["tables_solved"], &j["tables_reused"]),
            (&2.into(), &9.into())
        );
        assert!(
            resumed.stderr.contains("9 finished tables"),
            "{}",
            resumed.stderr
        );
        assert_eq!(resumed.stderr.matches("retrograde: table ").count(), 2);
        assert!(resumed.stderr.contains(" KRvK "), "{}", resumed.stderr);
        let now = written(&db);
        for (f, t) in &before {
            let rewritten = matches!(f.as_str(), "KRvK.values" | "KPvK_4.values");
            assert_eq!(now[f] != *t, rewritten, "{f}");
        }

        // The set answers queries as a database of its own.
        let q = json(
            &dir.command()
                .args([
                    "query",
                    "tb",
                    "--position",
                    "8/8/8/4k3/8/8/8/4KQ2 w - - 0 1",
                    "-o",
                    "json",
                ])
                .stdout(),
        );
        assert_eq!(
            (&q["outcome"], &q["remoteness"]),
            (&"win".into(), &15.into())
        );
    }
);

rtest!(
    up_to_takes_3_to_5_pieces_and_not_with_an_ending,
    |dir, cmd| {
        for n in ["7", "1", "2", "6", "x", "-3"] {
            let e = dir.command().args(["game", "chess", "--up-to", n]).error();
            assert!(e.contains("--up-to"), "--up-to {n}: {e}");
            if n.parse::<u32>().is_ok() {
                assert!(e.contains("3..=5"), "--up-to {n}: {e}");
            }
        }
        let m = cmd
            .args(["game", "chess", "KQvK", "--up-to", "3"])
            .message();
        assert!(m.contains("not both") && m.contains("--up-to"), "{m}");
        let m = dir.command().args(["game", "chess"]).message();
        assert!(m.contains("MATERIAL") && m.contains("--up-to"), "{m}");
        // The help says what --up-to does.
        let help = dir.command().args(["game", "chess", "--help"]).stdout();
        assert!(help.contains("--up-to <N>"), "{help}");
    }
);

/// The bytes of the values files of `db`.
fn values_bytes(db: &std::path::Path) -> u64 {
    std::fs::read_dir(db)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".values"))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

rtest!(
    compact_keeps_one_side_and_answers_every_query_the_same,
    |dir, cmd| {
        let whole = json(
            &ok(cmd
                .args(["game", "chess", "--up-to", "3", "--db", "tb", "-o", "json"])
                .output())
            .stdout,
        );
        let (tb, tbc) = (dir.path().join("tb"), dir.path().join("tbc"));
        std::fs::create_dir(&tbc).unwrap();
        for f in std::fs::read_dir(&tb).unwrap() {
            let f = f.unwrap();
            std::fs::copy(f.path(), tbc.join(f.file_name())).unwrap();
        }
        // A finished database made compact: nothing solved, the same report, fewer bytes.
        let compact = ok(dir
            .command()
            .args(["game", "chess", "--up-to", "3", "--db", "tbc", "--compact"])
            .args(["-o", "json"])
            .output());
        let c = json(&compact.stdout);
        assert_eq!(
            endings(&c).keys().collect::<Vec<_>>(),
            endings(&whole).keys().collect::<Vec<_>>()
        );
        for (e, v) in endings(&whole) {
            for k in ["positions", "win", "loss", "tie", "longest_win"] {
                assert_eq!(endings(&c)[&e][k], v[k], "{e}: {k}");
            }
        }
        assert_eq!(c["tables_solved"], 0);
        let (b, bc) = (values_bytes(&tb), values_bytes(&tbc));
        assert!(bc * 10 < b * 7, "{bc} bytes compact, {b} whole");
        // The same answer from both databases.
        let same = |fen: &str| {
            let ask = |db: &str| {
                dir.command()
                    .args(["query", db, "--position", fen, "-o", "json"])
                    .stdout()
            };
            assert_eq!(ask("tbc"), ask("tb"), "{fen}");
        };
        // Both sides to move, pawns, promotions, mates and stalemates: the same answers.
        for fen in [
            "8/8/8/4k3/8/8/8/4KQ2 w - - 0 1",
            "8/8/8/4k3/8/8/8/4KQ2 b - - 0 1",
            "8/8/8/4k3/8/8/8/R3K3 b - - 0 1",
            "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
            "8/4P3/8/4k3/8/8/8/4K3 b - - 0 1",
            "8/4P3/8/4k3/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
            "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",
            "7k/8/6QK/8/8/8/8/8 b - - 0 1",
            "8/8/8/8/8/2k5/3p4/1K6 w - - 0 1",
            "8/8/8/8/8/2k5/3p4/1K6 b - - 0 1",
        ] {
            same(fen);
        }
        // --compact needs --db.
        let e = dir
            .command()
            .args(["game", "chess", "--up-to", "3", "--compact"])
            .error();
        assert!(e.contains("--db"), "{e}");
        // A damaged table of a compact database: a query that reads it names the file and
        // the repair; --resume (taken by a set anyway) solves that table again, from its
        // compact children, and the answers are the whole database's again.
        let krk = tbc.join("KRvK.values");
        let mut bytes = std::fs::read(&krk).unwrap();
        bytes[200] ^= 0x40;
        std::fs::write(&krk, bytes).unwrap();
        let m = dir
            .command()
            .args([
                "query",
                "tbc",
                "--position",
                "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
            ])
            .error();
        assert!(m.contains("KRvK.values") && m.contains("--resume"), "{m}");
        let repaired = json(
            &ok(dir
                .command()
                .args(["game", "chess", "--up-to", "3", "--db", "tbc", "-o", "json"])
                .output())
            .stdout,
        );
        assert_eq!(
            (&repaired["tables_solved"], &repaired["tables_reused"]),
            (&1.into(), &10.into())
        );
        for fen in [
            "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
            "8/8/8/4k3/8/8/8/R3K3 b - - 0 1",
        ] {
            same(fen);
        }
    }
);
