//! A run of a built game ([`Run`]): a finished database answers without a solve, a damaged
//! one is an error or is solved again as the run says, a second writer is refused while the
//! first holds the database, the tables of a set are counted in its summary, and a game
//! that runs in one process only is refused on ranks.

use retrograde_registry::{entry, Answer, Args, Built, Query, Reuse, Run, RunError};
use retrograde_solve::exchange::{run_local, Exchange, Solo};
use retrograde_tier::{Error, Event, ProgressFn};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn built(game: &str, args: serde_json::Value) -> Box<dyn Built> {
    let e = entry(game).expect("a built-in game");
    e.build(&Args::from_json(e.params, &args).expect("parameters"))
        .expect("a game")
}

/// A progress function that counts the tiers the engine starts, and the count.
fn counting() -> (ProgressFn, Arc<AtomicUsize>) {
    let tiers = Arc::new(AtomicUsize::new(0));
    let t = tiers.clone();
    let f: ProgressFn = Arc::new(move |e: &Event<'_>| {
        if let Event::Tier { .. } = e {
            t.fetch_add(1, Ordering::Relaxed);
        }
    });
    (f, tiers)
}

fn tictactoe_into(db: &Path, reuse: Reuse) -> (Result<retrograde_registry::Ran, RunError>, usize) {
    let (progress, tiers) = counting();
    let ran = Run::new(built("tictactoe", serde_json::json!({})))
        .db(Some(db.to_path_buf()))
        .resume(true)
        .reuse(reuse)
        .progress(progress)
        .start(&Solo);
    (ran, tiers.load(Ordering::Relaxed))
}

fn start_value(ran: &dyn Answer) -> String {
    ran.query(&Query::Moves(vec![])).unwrap().value.to_string()
}

#[test]
fn a_finished_database_answers_without_a_solve_and_a_damaged_one_as_the_run_says() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t3");
    let (first, solved) = tictactoe_into(&db, Reuse::Finished);
    let first = first.expect("solved into the database");
    assert!(solved > 0, "the first run solves its tiers");
    assert_eq!(start_value(&first), "tie in 9");
    drop(first);
    // Finished: answered from the files, no tier solved.
    let (again, solved) = tictactoe_into(&db, Reuse::Finished);
    assert_eq!(start_value(&again.expect("opened")), "tie in 9");
    assert_eq!(solved, 0, "a finished database is not solved again");
    // A damaged description: an error for a run that reads finished databases only, a
    // solve again (resuming) for one that repairs.
    let meta = db.join(retrograde_tier::META);
    let mut bytes = std::fs::read(&meta).unwrap();
    let last = bytes.len() - 2;
    bytes[last] ^= 1;
    std::fs::write(&meta, &bytes).unwrap();
    match tictactoe_into(&db, Reuse::Finished).0 {
        Err(RunError::Open(e)) => assert!(e.is_damage(), "{e}"),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a damaged database was read"),
    }
    let (repaired, _) = tictactoe_into(&db, Reuse::OrRepair);
    assert_eq!(start_value(&repaired.expect("solved again")), "tie in 9");
    let (read, solved) = tictactoe_into(&db, Reuse::Finished);
    assert_eq!(
        (start_value(&read.expect("repaired")), solved),
        ("tie in 9".into(), 0)
    );
}

#[test]
fn a_second_writer_is_refused_while_the_first_holds_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t3");
    let (first, _) = tictactoe_into(&db, Reuse::Never);
    let first = first.expect("solved");
    match tictactoe_into(&db, Reuse::Never).0 {
        Err(RunError::Lock(e)) => assert!(matches!(e, Error::Busy { .. }), "{e}"),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("two writers of one database"),
    }
    // A reader of the finished database takes no lock.
    let (read, solved) = tictactoe_into(&db, Reuse::Finished);
    assert_eq!(
        (start_value(&read.expect("read")), solved),
        ("tie in 9".into(), 0)
    );
    drop(first);
    assert!(tictactoe_into(&db, Reuse::Never).0.is_ok());
}

#[test]
fn a_set_of_tables_is_counted_in_its_summary_solved_then_taken_up() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tb3");
    let run = || {
        Run::new(built("chess", serde_json::json!({ "up-to": 3 })))
            .db(Some(db.clone()))
            .start(&Solo)
            .expect("solved")
            .summary()
            .expect("a report")
    };
    let field = |r: &retrograde_registry::Report, k: &str| {
        r.fields.iter().find(|f| f.0 == k).map(|f| f.1.clone())
    };
    let first = run();
    let tables = field(&first, "tables_solved").and_then(|v| v.as_u64());
    assert!(tables.is_some_and(|n| n > 0), "{:?}", first.fields);
    assert_eq!(field(&first, "tables_reused"), Some(serde_json::json!(0)));
    // A set always resumes into its database: every table is taken up.
    let second = run();
    assert_eq!(field(&second, "tables_solved"), Some(serde_json::json!(0)));
    assert_eq!(
        field(&second, "tables_reused").and_then(|v| v.as_u64()),
        tables
    );
    let written = format!("tiers written to {}", db.display());
    assert!(first.lines.contains(&written), "{:?}", first.lines);
    // Every table was finished before: the database is taken up whole, nothing written.
    let taken = format!(
        "every tier taken up from {} (finished before): no tier solved or written",
        db.display()
    );
    assert!(second.lines.contains(&taken), "{:?}", second.lines);
    assert_eq!(second.taken, Some(retrograde_registry::Taken::All));
}

#[test]
fn a_game_of_one_process_is_refused_on_ranks_and_a_tier_game_runs_there() {
    let refusals = run_local(2, |ex| {
        match Run::new(built("pebbles", serde_json::json!({}))).start(ex) {
            Err(RunError::Solve(Error::Unsupported(m))) => m,
            Err(e) => panic!("another error: {e}"),
            Ok(_) => panic!("pebbles ran on 2 ranks"),
        }
    });
    for m in refusals {
        assert!(m.contains("pebbles 10 is not solved across ranks"), "{m}");
    }
    let values = run_local(2, |ex| {
        let ran = Run::new(built("tictactoe", serde_json::json!({})))
            .keep_values(false)
            .start(ex)
            .expect("solved on 2 ranks");
        // Only rank 0 holds what the report reads.
        (ex.rank() == 0).then(|| {
            ran.summary()
                .unwrap()
                .standard
                .map(|(v, st)| (v, st.positions))
        })
    });
    let one = Run::new(built("tictactoe", serde_json::json!({})))
        .keep_values(false)
        .start(&Solo)
        .unwrap()
        .summary()
        .unwrap()
        .standard
        .map(|(v, st)| (v, st.positions));
    assert_eq!(values[0], Some(one), "rank 0 reports as one process");
}
