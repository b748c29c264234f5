//! Connect-4 databases (the sorted-keys layout with a symmetry): the files keep one position
//! per mirror pair, and every position's value still comes out right: read back, resumed
//! after an interruption, or damaged (then an error naming the file, never a wrong value).

use retrograde_games::connect4::Connect4;
use retrograde_solve::Value;
use retrograde_tier::{
    explicit_graph, open, solve, Event, MemStorage, SolveOptions, Solved, Storage, TierGame, META,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

type Board = <Connect4 as TierGame>::Position;

fn values(game: &Connect4, s: &retrograde_tier::TierSolution<'_, Connect4>) -> Vec<(Board, Value)> {
    let e = explicit_graph(game, 1_000_000).unwrap();
    e.positions
        .iter()
        .map(|p| (*p, s.value(p).unwrap().expect("every position has a value")))
        .collect()
}

fn stored(st: &MemStorage) -> SolveOptions {
    let mut o = SolveOptions::default();
    o.storage = Some(Arc::new(st.clone()));
    o
}

#[test]
fn a_database_keeps_one_position_per_mirror_pair_and_answers_for_all() {
    let g = Connect4::new(4, 4).unwrap();
    let memory = solve(&g, &SolveOptions::default()).unwrap();
    let want = values(&g, &memory);
    assert_eq!(want.len(), 161_029);
    let st = MemStorage::new();
    let solved = solve(&g, &stored(&st)).unwrap();
    assert_eq!(values(&g, &solved), want);
    // No work file is left, and the tiers hold the classes: 80,541 up to mirror symmetry.
    let names = st.names();
    assert!(names.iter().all(|n| !n.contains("work")), "{names:?}");
    let held: u64 = solved.tier_sizes().iter().sum();
    assert_eq!(held, 80_541);
    assert_eq!(
        memory.tier_sizes(),
        solved.tier_sizes(),
        "with or without a database"
    );
    assert_eq!(solved.stats().classes, 80_541);
    assert_eq!(solved.stats().positions, 161_029);
    // Opened afresh.
    let reopened = open(&g, Arc::new(st.clone())).unwrap().unwrap();
    assert_eq!(values(&g, &reopened), want);
    let moves_here = reopened.ranked_moves(&g.start().unwrap()).unwrap();
    let moves_mem = memory.ranked_moves(&g.start().unwrap()).unwrap();
    assert_eq!(moves_here, moves_mem);
}

#[test]
fn a_solve_for_the_totals_writes_no_database_and_refuses_lookups() {
    let g = Connect4::new(4, 4).unwrap();
    let full = solve(&g, &SolveOptions::default()).unwrap();
    for st in [None, Some(MemStorage::new())] {
        let mut o = match &st {
            Some(st) => stored(st),
            None => SolveOptions::default(),
        };
        o.keep_values = false;
        let s = solve(&g, &o).unwrap();
        assert_eq!(s.stats().positions, full.stats().positions);
        assert_eq!(s.stats().classes, full.stats().classes);
        assert_eq!(s.stats().moves, full.stats().moves);
        assert_eq!(s.stats().histogram, full.stats().histogram);
        assert_eq!(s.start_value().unwrap(), full.start_value().unwrap());
        assert_eq!(s.tier_sizes().iter().sum::<u64>(), 80_541);
        // Any other position: an error, never a wrong value.
        let p = g.drop_into(&g.start().unwrap(), 1).unwrap();
        assert!(matches!(
            s.value(&p),
            Err(retrograde_tier::Error::Unsupported(_))
        ));
        if let Some(st) = st {
            assert_eq!(st.names(), Vec::<String>::new(), "no file is left");
        }
    }
}

#[test]
fn resume_after_an_interruption_gives_the_same_values() {
    let g = Connect4::new(4, 3).unwrap();
    let want = values(&g, &solve(&g, &SolveOptions::default()).unwrap());
    // Interrupted at every point of the solve: the description gone, with the last k
    // tiers' database files missing (those solved last are the shallow ones).
    for missing in 0..=13 {
        let st = MemStorage::new();
        solve(&g, &stored(&st)).unwrap();
        st.remove(META).unwrap();
        for t in 0..missing {
            for f in [format!("{t:02}.keys"), format!("{t:02}.values")] {
                let _ = st.remove(&f);
            }
        }
        // The discovery's work files are gone too once a database is complete: resuming
        // finds the positions again and reuses the solved tiers.
        let reused = Arc::new(Mutex::new(0usize));
        let r = reused.clone();
        let mut opts = stored(&st);
        opts.resume = true;
        opts.progress = Some(Arc::new(move |ev: &Event<'_>| {
            if let Event::Tier { reused: true, .. } = ev {
                *r.lock().unwrap() += 1;
            }
        }));
        let resumed = solve(&g, &opts).unwrap();
        assert_eq!(values(&g, &resumed), want, "{missing} tiers missing");
        assert_eq!(*reused.lock().unwrap(), 13 - missing.min(13), "{missing}");
    }
}

#[test]
fn every_byte_flipped_is_an_error_or_the_right_value() {
    let g = Connect4::new(3, 3).unwrap();
    let st = MemStorage::new();
    let want: HashMap<Board, Value> = values(&g, &solve(&g, &stored(&st)).unwrap())
        .into_iter()
        .collect();
    for file in st.names() {
        let bytes = st.get(&file).unwrap();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            st.put(&file, b);
            match open(&g, Arc::new(st.clone())) {
                Err(e) => assert!(e.to_string().contains(&file), "{file} byte {i}: {e}"),
                Ok(None) => assert_eq!(file, META),
                Ok(Some(s)) => {
                    for (p, v) in &want {
                        match s.value(p) {
                            Ok(got) => assert_eq!(got, Some(*v), "{file} byte {i} {p:?}"),
                            Err(e) => {
                                assert!(e.to_string().contains(&file), "{file} byte {i}: {e}")
                            }
                        }
                    }
                }
            }
        }
        st.put(&file, bytes);
    }
}
