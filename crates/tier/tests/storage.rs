//! Databases: resumed after an interruption, damaged byte by byte, truncated, missing or
//! foreign files, memory limits. A lookup gives the right value or an error naming the file,
//! never a wrong value and never a panic.

mod random;

use random::*;
use retrograde_solve::Value;
use retrograde_tier::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

fn values<G: TierGame>(game: &G, s: &TierSolution<'_, G>) -> HashMap<G::Position, Value> {
    let e = explicit_graph(game, 100_000).unwrap();
    e.positions
        .iter()
        .map(|p| (*p, s.value(p).unwrap().expect("every position has a value")))
        .collect()
}

/// Totals without the times.
fn timeless(s: &Stats) -> Stats {
    Stats {
        solve: Default::default(),
        explore: Default::default(),
        ..s.clone()
    }
}

fn stored(st: &MemStorage) -> SolveOptions {
    let mut o = SolveOptions::default();
    o.storage = Some(Arc::new(st.clone()));
    o
}

fn limited(bytes: u64) -> SolveOptions {
    let mut o = SolveOptions::default();
    o.memory_limit = Some(bytes);
    o
}

/// A game with a few tiers, loops, exits and symmetry.
fn game(seed: u64) -> SymAgain {
    SymAgain(Rules::random(seed, true, true))
}

#[test]
fn resume_after_an_interruption_gives_the_same_values() {
    for seed in 0..30 {
        let g = game(seed);
        let want = values(&g, &solve(&g, &SolveOptions::default()).unwrap());
        let st = MemStorage::new();
        solve(&g, &stored(&st)).unwrap();
        // Interrupted before the end: no description, and the last tiers missing.
        st.remove(META).unwrap();
        let mut names = st.names();
        names.retain(|n| n != identity::ID_FILE);
        for f in names.iter().rev().take(names.len() / 2) {
            st.remove(f).unwrap();
        }
        let events = Arc::new(Mutex::new(Vec::new()));
        let e = events.clone();
        let mut opts = stored(&st);
        opts.resume = true;
        opts.progress = Some(Arc::new(move |ev: &Event<'_>| {
            if let Event::Tier { tier, reused, .. } = ev {
                e.lock().unwrap().push((tier.to_string(), *reused));
            }
        }));
        let resumed = solve(&g, &opts).unwrap();
        assert_eq!(values(&g, &resumed), want, "seed {seed}");
        let reused = events.lock().unwrap().iter().any(|(_, r)| *r);
        assert!(reused || names.len() < 2, "seed {seed}: nothing reused");
        // Finished: resuming again opens it without solving a tier.
        events.lock().unwrap().clear();
        let again = solve(&g, &opts).unwrap();
        assert_eq!(values(&g, &again), want);
        assert!(
            events.lock().unwrap().is_empty(),
            "a finished database is solved again"
        );
    }
}

#[test]
fn every_byte_flipped_is_an_error_or_the_right_value() {
    let g = game(7);
    let st = MemStorage::new();
    let want = values(&g, &solve(&g, &stored(&st)).unwrap());
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

/// A resume checks the files it takes up (their checksums, not their values): any byte of
/// a finished tier's file flipped, it solves that tier again and gives every value right,
/// with a start (nothing counted from the files) and without (the totals taken up).
#[test]
fn a_resume_solves_again_a_tier_whose_file_has_any_byte_flipped() {
    for with_start in [true, false] {
        let mut g = game(7);
        if !with_start {
            g.0.start = None;
        }
        let full = solve(&g, &SolveOptions::default()).unwrap();
        let want = values(&g, &full);
        let st = MemStorage::new();
        solve(&g, &stored(&st)).unwrap();
        let mut files: Vec<String> = st
            .names()
            .into_iter()
            .filter(|n| n.ends_with(".values"))
            .collect();
        files.sort();
        let file = &files[files.len() / 2];
        let bytes = st.get(file).unwrap();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            st.put(file, b);
            let damaged = Arc::new(Mutex::new(0));
            let d = damaged.clone();
            let mut opts = stored(&st);
            opts.resume = true;
            opts.progress = Some(Arc::new(move |ev: &Event<'_>| {
                if matches!(ev, Event::Damaged { .. }) {
                    *d.lock().unwrap() += 1;
                }
            }));
            let resumed = solve(&g, &opts).unwrap();
            assert_eq!(values(&g, &resumed), want, "{file} byte {i}");
            assert_eq!(*damaged.lock().unwrap(), 1, "{file} byte {i}");
            assert_eq!(
                st.get(file).unwrap(),
                bytes,
                "{file} byte {i}: not solved again"
            );
            if !with_start {
                for &t in resumed.tiers() {
                    let (got, want) = (
                        resumed.tier_stats(t).unwrap().unwrap(),
                        full.tier_stats(t).unwrap().unwrap(),
                    );
                    assert_eq!(timeless(got), timeless(want), "{file} byte {i}");
                }
            }
        }
    }
}

#[test]
fn truncated_missing_and_foreign_files() {
    let g = game(11);
    let st = MemStorage::new();
    let want = values(&g, &solve(&g, &stored(&st)).unwrap());
    let tiers: Vec<String> = st
        .names()
        .into_iter()
        .filter(|n| n != META && n != identity::ID_FILE)
        .collect();
    assert!(!tiers.is_empty());
    for file in &tiers {
        let bytes = st.get(file).unwrap();
        for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            st.put(file, bytes[..cut].to_vec());
            let e = open(&g, Arc::new(st.clone())).unwrap_err();
            assert!(e.is_damage() && e.to_string().contains(file), "{e}");
        }
        st.remove(file).unwrap();
        let e = open(&g, Arc::new(st.clone())).unwrap_err();
        assert!(
            matches!(e, Error::Missing { .. }) && e.to_string().contains(file),
            "{e}"
        );
        // Another tier's file under this name.
        let other = tiers.iter().find(|o| *o != file).unwrap_or(file);
        st.put(file, st.get(other).unwrap_or_else(|| bytes.clone()));
        if other != file {
            let e = open(&g, Arc::new(st.clone())).unwrap_err();
            assert!(e.is_damage(), "{e}");
        }
        // Resume repairs it.
        let resumed = solve(&g, &{
            let mut o = stored(&st);
            o.resume = true;
            o
        });
        match resumed {
            // A finished database whose files check out except this one: solved again.
            Ok(s) => assert_eq!(values(&g, &s), want),
            Err(e) => panic!("resume failed: {e}"),
        }
        st.put(file, bytes);
    }
    // A database of another game is refused, on open and on solve.
    let other = game(12);
    assert!(open(&other, Arc::new(st.clone())).is_err() || other.name() == g.name());
}

/// `database.json` of `st` changed by `edit`, its checksum made right again.
fn forge(st: &MemStorage, edit: impl FnOnce(&mut Meta)) {
    let mut meta = read_meta(st).unwrap().unwrap();
    edit(&mut meta);
    meta.checksum = String::new();
    let crc = crc32fast::hash(&serde_json::to_vec(&meta).unwrap());
    meta.checksum = format!("{crc:08x}");
    st.put(META, serde_json::to_vec_pretty(&meta).unwrap());
}

/// A description that says another layout, cell width or parameters than its files were
/// written for (its checksum made right) is an error naming a file and the description, on
/// an open and on a lazy open's first lookup, never a value read as something else; the
/// same parameters with their keys in another order are no contradiction, and a resume
/// solves the contradicted tiers again.
#[test]
fn a_description_that_contradicts_its_files_is_refused_naming_both() {
    fn check<G: TierGame>(g: &G) {
        let st = MemStorage::new();
        let mut opts = stored(&st);
        opts.params = serde_json::json!({"game": "g", "args": {"a": 1, "b": 2}});
        let want = values(g, &solve(g, &opts).unwrap());
        let good = st.get(META).unwrap();
        let meta = read_meta(&st).unwrap().unwrap();
        let (layout, cell) = (meta.layout, meta.cell_bytes);
        let other = if layout == "dense" { "sorted" } else { "dense" };
        type Edit = Box<dyn Fn(&mut Meta)>;
        let forgeries: [(&str, Edit); 4] = [
            (
                "layout",
                Box::new(move |m: &mut Meta| m.layout = other.into()),
            ),
            (
                "cells",
                Box::new(move |m: &mut Meta| m.cell_bytes = 3 - cell),
            ),
            (
                "parameters",
                Box::new(|m: &mut Meta| m.params["args"]["a"] = 7.into()),
            ),
            (
                "no parameters",
                Box::new(|m: &mut Meta| m.params = serde_json::Value::Null),
            ),
        ];
        for (what, edit) in forgeries {
            st.put(META, good.clone());
            forge(&st, edit);
            let named = |e: &Error| {
                let m = e.to_string();
                assert!(e.is_damage(), "{what}: {m}");
                assert!(
                    m.contains("written for") && m.contains("memory:database.json"),
                    "{what}: {m}"
                );
                assert!(m.contains(".values") || m.contains(".keys"), "{what}: {m}");
            };
            named(&open(g, Arc::new(st.clone())).map(|_| ()).unwrap_err());
            let lazy = open_lazy(g, Arc::new(st.clone())).unwrap().unwrap();
            let mut refused = 0;
            for p in want.keys() {
                match lazy.value(p) {
                    Ok(v) => panic!("{what}: {p:?} read as {v:?}"),
                    Err(e) => {
                        named(&e);
                        refused += 1;
                    }
                }
            }
            assert!(refused > 0, "{what}");
        }
        // The same parameters, their keys in another order: the same database.
        st.put(META, good.clone());
        forge(&st, |m| {
            m.params = serde_json::json!({"args": {"b": 2, "a": 1}, "game": "g"})
        });
        assert_eq!(
            values(g, &open(g, Arc::new(st.clone())).unwrap().unwrap()),
            want
        );
        // An interrupted solve resumed with other parameters takes up none of the tiers
        // written for the first ones: each is solved again.
        st.remove(META).unwrap();
        let mut again = stored(&st);
        again.resume = true;
        again.params = serde_json::json!({"game": "g", "args": {"a": 9}});
        let tiers = Arc::new(Mutex::new((0, 0)));
        let t = tiers.clone();
        again.progress = Some(Arc::new(move |ev: &Event<'_>| {
            if let Event::Tier { reused, .. } = ev {
                let mut t = t.lock().unwrap();
                *if *reused { &mut t.0 } else { &mut t.1 } += 1;
            }
        }));
        assert_eq!(values(g, &solve(g, &again).unwrap()), want);
        let (reused, solved) = *tiers.lock().unwrap();
        assert!(
            reused == 0 && solved > 0,
            "{reused} reused, {solved} solved"
        );
        let meta = read_meta(&st).unwrap().unwrap();
        assert_eq!(meta.params, again.params);
        assert_eq!(
            values(g, &open(g, Arc::new(st.clone())).unwrap().unwrap()),
            want
        );
    }
    for seed in 0..4 {
        check(&game(seed));
        check(&Sorted::random(seed, false, false));
    }
}

#[test]
fn another_games_database_is_refused() {
    let st = MemStorage::new();
    let a = retrograde_tier::explicit_graph(&game(1), 10).ok();
    let _ = a;
    let g1 = Sorted::random(5, false, false);
    solve(&g1, &stored(&st)).unwrap();
    let g2 = game(5);
    let e = solve(&g2, &stored(&st)).unwrap_err();
    assert!(e.to_string().contains("another directory"), "{e}");
    let e = open(&g2, Arc::new(st.clone())).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("random sorted"), "{e}");
}

#[test]
fn a_memory_limit_too_small_is_an_error_before_solving() {
    let g = game(3);
    let e = solve(&g, &limited(1)).unwrap_err();
    assert!(matches!(e, Error::Memory { .. }), "{e}");
    assert!(e.to_string().contains("over the limit"), "{e}");
    let s = Sorted::random(9, false, false);
    let e = solve(&s, &limited(1)).unwrap_err();
    assert!(matches!(e, Error::Memory { .. }), "{e}");
}

/// The times `SolveOptions::give_back` was called (only the test below sets it).
static GIVEN_BACK: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn count_give_back() {
    GIVEN_BACK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// With a storage, a limit that holds no more than the largest tier's children and working
/// memory still solves: the tiers a tier does not read are dropped and read again from
/// their files when a parent needs them (and the caller's `give_back` is called after each
/// eviction). The values are those of the solve in memory.
#[test]
fn a_stored_solve_drops_tiers_to_stay_within_the_limit() {
    let mut tighter = 0;
    for seed in 0..30 {
        let g = game(seed);
        let want = values(&g, &solve(&g, &SolveOptions::default()).unwrap());
        let all = memory_plan(&g, false).unwrap().unwrap();
        let least = memory_plan(&g, true).unwrap().unwrap();
        assert!(least <= all, "seed {seed}: {least} > {all}");
        tighter += usize::from(least < all);
        let st = MemStorage::new();
        let mut opts = stored(&st);
        opts.memory_limit = Some(least);
        opts.give_back = Some(count_give_back);
        let before = GIVEN_BACK.load(std::sync::atomic::Ordering::Relaxed);
        let s = solve(&g, &opts).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(values(&g, &s), want, "seed {seed}");
        // Before every batch of tiers, with a storage and a limit.
        assert!(
            GIVEN_BACK.load(std::sync::atomic::Ordering::Relaxed) > before,
            "seed {seed}: give_back was not called"
        );
        // One byte less does not fit.
        opts.memory_limit = Some(least - 1);
        let e = solve(&g, &opts).unwrap_err();
        assert!(matches!(e, Error::Memory { .. }), "seed {seed}: {e}");
    }
    assert!(
        tighter >= 3,
        "{tighter} games whose stored solve needs less"
    );
}

#[test]
fn an_interrupted_solve_takes_up_the_recorded_totals_of_its_finished_tiers() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    let mut interrupted = 0;
    for seed in 0..30 {
        // Without a start, so that each tier's totals are counted (and recorded).
        let mut g = game(seed);
        g.0.start = None;
        let full = solve(&g, &SolveOptions::default()).unwrap();
        let st = MemStorage::new();
        let cancel = Arc::new(AtomicBool::new(false));
        let (c, seen) = (cancel.clone(), Arc::new(AtomicUsize::new(0)));
        let mut opts = stored(&st);
        opts.cancel = Some(cancel);
        opts.progress = Some(Arc::new(move |ev: &Event<'_>| {
            // Stopped as the second tier is solved (small tiers are solved several at a
            // time, so others may be under way).
            if matches!(ev, Event::Solved { .. }) && seen.fetch_add(1, Relaxed) == 1 {
                c.store(true, Relaxed);
            }
        }));
        match solve(&g, &opts) {
            Err(Error::Interrupted) => interrupted += 1,
            Ok(_) => continue,
            Err(e) => panic!("seed {seed}: {e}"),
        }
        let recorded: Vec<String> = st
            .names()
            .into_iter()
            .filter(|n| n.ends_with(".stats"))
            .collect();
        // The tiers finished before the stop (at least two: the flag is read between levels
        // and tiers).
        assert!(
            (2..full.tiers().len()).contains(&recorded.len()),
            "seed {seed}: {recorded:?}"
        );
        // One record damaged: counted again, never wrong.
        let damaged = &recorded[0];
        let mut bytes = st.get(damaged).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x01;
        st.put(damaged, bytes);
        opts.cancel = None;
        opts.progress = None;
        opts.resume = true;
        let resumed = solve(&g, &opts).unwrap();
        assert_eq!(values(&g, &resumed), values(&g, &full), "seed {seed}");
        for &t in resumed.tiers() {
            let (got, want) = (
                resumed.tier_stats(t).unwrap().unwrap(),
                full.tier_stats(t).unwrap().unwrap(),
            );
            assert_eq!(timeless(got), timeless(want), "seed {seed} tier {t:?}");
            // A record taken up keeps the time the tier took; a count has none.
            let file = format!("{}.values.stats", g.tier_name(t));
            if recorded.contains(&file) && &file != damaged {
                assert!(got.solve > std::time::Duration::ZERO, "seed {seed} {file}");
            }
            if &file == damaged {
                assert_eq!(got.solve, std::time::Duration::ZERO, "seed {seed} {file}");
            }
        }
        // Finished: the description holds the totals, and the records are gone.
        assert!(
            st.names().iter().all(|n| !n.ends_with(".stats")),
            "seed {seed}"
        );
    }
    assert!(
        interrupted >= 10,
        "only {interrupted} solves were interrupted"
    );
}

#[test]
fn a_lazy_open_reads_a_tier_when_first_asked_and_finds_its_damage_then() {
    let g = game(11);
    let st = MemStorage::new();
    let want = values(&g, &solve(&g, &stored(&st)).unwrap());
    let tiers: Vec<String> = st
        .names()
        .into_iter()
        .filter(|n| n.ends_with(".values") || n.ends_with(".keys"))
        .collect();
    assert!(tiers.len() > 1);
    for file in &tiers {
        let bytes = st.get(file).unwrap();
        let mut flipped = bytes.clone();
        flipped[20] ^= 0x10;
        for (what, damaged) in [
            ("truncated", Some(bytes[..bytes.len() / 2].to_vec())),
            ("missing", None),
            ("a header byte flipped", Some(flipped)),
        ] {
            match damaged {
                Some(b) => st.put(file, b),
                None => st.remove(file).unwrap(),
            }
            // Opening reads no tier file: a lookup of the damaged tier is the error.
            let s = open_lazy(&g, Arc::new(st.clone())).unwrap().unwrap();
            let mut refused = 0;
            for (p, v) in &want {
                match s.value(p) {
                    Ok(got) => assert_eq!(got, Some(*v), "{file} {what} {p:?}"),
                    Err(e) => {
                        assert!(e.to_string().contains(file), "{file} {what}: {e}");
                        refused += 1;
                    }
                }
            }
            assert!(refused > 0, "{file} {what}: never found");
            // The eager open finds it at once.
            let e = open(&g, Arc::new(st.clone())).unwrap_err();
            assert!(e.to_string().contains(file), "{file} {what}: {e}");
            st.put(file, bytes.clone());
        }
    }
}

#[test]
fn a_description_of_version_2_is_read_and_a_resume_writes_it_again() {
    for seed in 0..10 {
        // Without a start, so that each tier has its totals.
        let mut g = game(seed);
        g.0.start = None;
        let st = MemStorage::new();
        let full = solve(&g, &stored(&st)).unwrap();
        let meta = read_meta(&st).unwrap().unwrap();
        assert_eq!(meta.version, 3);
        assert!(meta.tier_stats.is_empty(), "seed {seed}: the totals inside");
        let totals = read_tier_totals(&st, &meta).unwrap();
        // Written as version 2 wrote it: the totals inside, no totals file.
        let mut old = meta.clone();
        old.version = 2;
        old.tier_stats = totals;
        old.checksum = String::new();
        let crc = crc32fast::hash(&serde_json::to_vec(&old).unwrap());
        old.checksum = format!("{crc:08x}");
        st.put(META, serde_json::to_vec_pretty(&old).unwrap());
        st.remove(TOTALS).unwrap();
        let same = |s: &TierSolution<'_, SymAgain>| {
            for &t in full.tiers() {
                let want = full.tier_stats(t).unwrap();
                assert!(want.is_some(), "seed {seed}");
                assert_eq!(s.tier_stats(t).unwrap(), want, "seed {seed} {t:?}");
            }
        };
        same(&open(&g, Arc::new(st.clone())).unwrap().unwrap());
        same(&open_lazy(&g, Arc::new(st.clone())).unwrap().unwrap());
        // Resuming takes every tier up, solves none, and writes it again as version 3.
        let solved = Arc::new(Mutex::new(0));
        let s = solved.clone();
        let mut opts = stored(&st);
        opts.resume = true;
        opts.progress = Some(Arc::new(move |ev: &Event<'_>| {
            if let Event::Tier { reused: false, .. } = ev {
                *s.lock().unwrap() += 1;
            }
        }));
        same(&solve(&g, &opts).unwrap());
        assert_eq!(
            *solved.lock().unwrap(),
            0,
            "seed {seed}: a tier solved again"
        );
        assert_eq!(read_meta(&st).unwrap().unwrap().version, 3);
        assert!(st.get(TOTALS).is_some(), "seed {seed}");
        same(&open(&g, Arc::new(st.clone())).unwrap().unwrap());
    }
}

/// Small tiers are solved side by side (one process, more than one thread): the values and
/// every tier's totals are those of one tier at a time, the log of a tier's start and end
/// shows tiers under way together, and a stored solve within the least memory of one tier
/// at a time still fits.
#[test]
fn tiers_solved_side_by_side_agree_with_one_at_a_time() {
    let pool = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    };
    let mut together = 0;
    for seed in 0..120 {
        let mut g = game(seed);
        g.0.start = None;
        let one = pool(1).install(|| solve(&g, &SolveOptions::default()).unwrap());
        let log: Arc<Mutex<Vec<(bool, String)>>> = Arc::default();
        let mut opts = SolveOptions::default();
        let l = log.clone();
        opts.progress = Some(Arc::new(move |ev: &Event<'_>| {
            let mut l = l.lock().unwrap();
            match ev {
                Event::Tier { tier, .. } => l.push((true, tier.to_string())),
                Event::Solved { tier, .. } => l.push((false, tier.to_string())),
                _ => {}
            }
        }));
        let three = pool(3).install(|| solve(&g, &opts).unwrap());
        assert_eq!(values(&g, &three), values(&g, &one), "seed {seed}");
        for &t in one.tiers() {
            let (a, b) = (three.tier_stats(t).unwrap(), one.tier_stats(t).unwrap());
            assert_eq!(a.map(timeless), b.map(timeless), "seed {seed} tier {t:?}");
        }
        // Each tier starts once and ends once, after its start; count the starts while
        // another tier is under way.
        let log = log.lock().unwrap();
        let mut under_way: Vec<&str> = Vec::new();
        for (start, tier) in log.iter() {
            if *start {
                together += usize::from(!under_way.is_empty());
                under_way.push(tier);
            } else {
                let at = under_way.iter().position(|t| t == tier);
                under_way.remove(at.unwrap_or_else(|| panic!("seed {seed}: {tier} ended")));
            }
        }
        assert!(under_way.is_empty(), "seed {seed}: {under_way:?}");
        assert_eq!(log.len(), 2 * one.tiers().len(), "seed {seed}: {log:?}");
        // Within the least memory of one tier at a time, with a storage.
        let least = memory_plan(&g, true).unwrap().unwrap();
        let st = MemStorage::new();
        let mut opts = stored(&st);
        opts.memory_limit = Some(least);
        let s = pool(3).install(|| solve(&g, &opts).unwrap_or_else(|e| panic!("seed {seed}: {e}")));
        assert_eq!(values(&g, &s), values(&g, &one), "seed {seed}");
    }
    assert!(together >= 10, "{together} tiers started beside another");
}

/// Pebbles from a pile of `pile` (take 1 or 2; a tier a pile) whose tiers are named back
/// as `naming` says.
struct Named {
    pile: u32,
    naming: Naming,
}

#[derive(Clone, Copy, Debug)]
enum Naming {
    /// `tier_named` left out.
    Not,
    /// `tier_named` is `tier_name` backwards.
    Right,
    /// `tier_named` gives the next pile: a game that breaks the promise.
    Wrong,
}

const PILE: u32 = 12;

impl TierGame for Named {
    type Position = u32;
    type Tier = u32;
    type Layout = Dense;
    type Parents = ReverseEdges;
    type Symmetry = NoSymmetry;
    type Turn = Alternate;
    type Score = Unscored;

    fn name(&self) -> String {
        "named pebbles".into()
    }
    fn start(&self) -> Option<u32> {
        Some(self.pile)
    }
    fn tier(&self, p: &u32) -> u32 {
        *p
    }
    fn child_tiers(&self, t: u32, out: &mut Vec<u32>) {
        out.extend((1..=2).filter(|&k| k <= t).map(|k| t - k));
    }
    fn tier_name(&self, t: u32) -> String {
        format!("p{t}")
    }
    fn tier_named(&self, name: &str) -> Option<u32> {
        let t: u32 = name.strip_prefix('p')?.parse().ok()?;
        match self.naming {
            Naming::Not => None,
            Naming::Right => Some(t),
            Naming::Wrong => Some((t + 1) % (self.pile + 1)),
        }
    }
    fn primitive(&self, _: &u32) -> Option<retrograde_graph::Primitive> {
        None
    }
    fn moves(&self, p: &u32, out: &mut Vec<u32>) {
        out.extend((1..=2).filter(|&k| k <= *p).map(|k| p - k));
    }
}

/// Pile `t` at number 0 of a tier of `t + 1` numbers (the rest holes): tiers of different
/// sizes, so that a tier taken for another is found out.
impl DenseIndex for Named {
    fn tier_size(&self, t: u32) -> u64 {
        u64::from(t) + 1
    }
    fn rank(&self, _: &u32) -> u64 {
        0
    }
    fn unrank(&self, t: u32, i: u64) -> Option<u32> {
        (i == 0).then_some(t)
    }
}

/// A lazy open takes the tiers from the description when the game names them back, and
/// walks the game's tiers when it names one otherwise: right either way, and the
/// conformance check names the game that breaks the promise.
#[test]
fn a_lazy_open_takes_the_described_tiers_only_as_the_game_names_them() {
    let st = MemStorage::new();
    let right = Named {
        pile: PILE,
        naming: Naming::Right,
    };
    solve(&right, &stored(&st)).unwrap();
    let fresh = solve(&right, &SolveOptions::default()).unwrap();
    let want: Vec<_> = (0..=PILE).map(|p| (p, fresh.value(&p).unwrap())).collect();
    // Taking 1 or 2: a multiple of 3 is lost.
    assert_eq!(want[9].1, Some(Value::Loss(6)));
    for naming in [Naming::Not, Naming::Right, Naming::Wrong] {
        let g = Named { pile: PILE, naming };
        let s = open_lazy(&g, Arc::new(st.clone())).unwrap().unwrap();
        let got: Vec<_> = (0..=PILE).map(|p| (p, s.value(&p).unwrap())).collect();
        assert_eq!(got, want, "{naming:?}");
        for t in 0..=PILE {
            let totals = |s: &TierSolution<'_, Named>| s.tier_stats(t).unwrap().map(timeless);
            assert_eq!(totals(&s), totals(&fresh), "{naming:?} {t}");
        }
        let mut tiers = s.tiers().to_vec();
        tiers.sort_unstable();
        assert_eq!(tiers, (0..=PILE).collect::<Vec<_>>(), "{naming:?}");
        let checked = check_game(&g, 10);
        match naming {
            Naming::Wrong => assert!(
                checked
                    .as_ref()
                    .is_err_and(|e| e.contains("tier_named(\"p12\") is 0, not 12")),
                "{checked:?}"
            ),
            _ => checked.unwrap(),
        }
    }
    // A game with one more tier than the database holds (another build's rules under the
    // same name): the walk refuses it at once; the described tiers open, and the lookup
    // of the missing tier is the error, the others' answers still right.
    let missing = "tier p13 of the game is not in the database";
    let walked = Named {
        pile: PILE + 1,
        naming: Naming::Not,
    };
    let refused = open_lazy(&walked, Arc::new(st.clone())).map(|_| ());
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.to_string().contains(missing)),
        "{refused:?}"
    );
    let named = Named {
        pile: PILE + 1,
        naming: Naming::Right,
    };
    let s = open_lazy(&named, Arc::new(st.clone())).unwrap().unwrap();
    assert_eq!(s.value(&9).unwrap(), Some(Value::Loss(6)));
    let asked = s.value(&(PILE + 1));
    assert!(
        asked
            .as_ref()
            .is_err_and(|e| e.to_string().contains(missing)),
        "{asked:?}"
    );
    let totals = s.tier_stats(PILE + 1).map(|_| ());
    assert!(
        totals
            .as_ref()
            .is_err_and(|e| e.to_string().contains(missing)),
        "{totals:?}"
    );
    // A tier of no game is still no tier.
    assert_eq!(s.tier_stats(PILE + 5).unwrap(), None);
}
