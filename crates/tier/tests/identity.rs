//! A database is one thing: any file of one database put into another of the same game and
//! size (whose bytes may even be equal) is refused by name, never read as a value; resuming
//! solves its tier again. Dense tiers, sorted keys, and graph databases.

mod random;

use proptest::prelude::*;
use random::*;
use retrograde_graph::GraphBuilder;
use retrograde_solve::exchange::Solo;
use retrograde_solve::Rules as GraphRules;
use retrograde_tier::*;
use std::sync::Arc;

fn stored(st: &MemStorage, resume: bool) -> SolveOptions {
    let mut o = SolveOptions::default();
    o.storage = Some(Arc::new(st.clone()));
    o.resume = resume;
    o
}

/// Two databases of `game` (two solves, same parameters); `pick` chooses a file of the first
/// to replace by the second's file of that name. Checks that opening the first refuses that
/// file by name, and that resuming repairs it.
fn swap_one<G: TierGame>(game: &G, pick: &prop::sample::Index) -> Result<(), TestCaseError> {
    let (a, b) = (MemStorage::new(), MemStorage::new());
    let want = solve(game, &stored(&a, false))
        .unwrap()
        .start_value()
        .unwrap();
    solve(game, &stored(&b, false)).unwrap();
    let names: Vec<String> = a
        .names()
        .into_iter()
        .filter(|n| n != identity::ID_FILE)
        .collect();
    let file = pick.get(&names).clone();
    a.put(&file, b.get(&file).expect("the same files"));
    let e = match open(game, Arc::new(a.clone())) {
        Err(e) => e,
        Ok(_) => {
            return Err(TestCaseError::fail(format!(
                "{file} swapped went unnoticed"
            )))
        }
    };
    // database.json swapped: every tier file is then the foreign one; the first is named.
    if file != META {
        prop_assert!(e.to_string().contains(&file), "{}: {}", file, e);
    }
    prop_assert!(
        e.to_string().contains("another solve") && e.is_damage(),
        "{}: {}",
        file,
        e
    );
    let again = solve(game, &stored(&a, true)).unwrap();
    prop_assert_eq!(again.start_value().unwrap(), want);
    prop_assert!(open(game, Arc::new(a.clone())).unwrap().is_some());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_file_of_another_database_of_the_same_dense_game_is_refused(
        seed in 0u64..1000,
        pick: prop::sample::Index,
    ) {
        swap_one(&SymAgain(Rules::random(seed, true, true)), &pick)?;
    }

    #[test]
    fn a_file_of_another_database_of_the_same_sorted_game_is_refused(
        seed in 0u64..1000,
        pick: prop::sample::Index,
    ) {
        swap_one(&Sorted::random(seed, seed % 2 == 0, seed % 3 == 0), &pick)?;
    }

    #[test]
    fn a_file_of_another_database_of_the_same_graph_is_refused(
        edges in prop::collection::vec((0u32..6, 0u32..6), 1..20),
        pick: prop::sample::Index,
    ) {
        let mut g = GraphBuilder::new();
        for &(u, v) in &edges {
            g.add_edge(u, v);
        }
        let g = g.build().unwrap();
        let s = retrograde_solve::solve(&g, &GraphRules::default());
        let (a, b) = (MemStorage::new(), MemStorage::new());
        let params = serde_json::json!({"game": "graph"});
        graphdb::write(&a, &g, &s, &Stats::default(), params.clone(), &Solo).unwrap();
        graphdb::write(&b, &g, &s, &Stats::default(), params, &Solo).unwrap();
        let names = a.names();
        let file = pick.get(&names).clone();
        a.put(&file, b.get(&file).unwrap());
        let e = GraphDb::open(Arc::new(a.clone())).map(|_| ()).unwrap_err();
        if file != META {
            prop_assert!(e.to_string().contains(&file), "{}: {}", file, e);
        }
        prop_assert!(e.to_string().contains("another solve"), "{}: {}", file, e);
    }
}

#[test]
fn an_older_database_says_to_solve_again() {
    let g = SymAgain(Rules::random(3, true, true));
    let st = MemStorage::new();
    solve(&g, &stored(&st, false)).unwrap();
    // A tier file of format version 3 or 4 (its header says so in its first 12 bytes).
    let file = st
        .names()
        .into_iter()
        .find(|n| n.ends_with(".values"))
        .unwrap();
    // Version 4 stored only the cells of positions: its blocks would be read wrong.
    let new = st.get(&file).unwrap();
    for v in [3u32, 4] {
        let mut b = new.clone();
        b[..8].copy_from_slice(format!("RGTIER{v}\0").as_bytes());
        b[8..12].copy_from_slice(&v.to_le_bytes());
        st.put(&file, b);
        let e = open(&g, Arc::new(st.clone())).map(|_| ()).unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains(&format!("format version {v}")) && m.contains("solve again"),
            "{e}"
        );
    }
    let meta = String::from_utf8(st.get(META).unwrap()).unwrap();
    assert!(meta.contains("\"version\": 3"));
    // A description of a newer version: not damage, and not "solve again".
    st.put(
        META,
        meta.replace("\"version\": 3", "\"version\": 9")
            .into_bytes(),
    );
    let e = open(&g, Arc::new(st.clone())).map(|_| ()).unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("version 9") && m.contains("newer") && !e.is_damage(),
        "{e}"
    );
    // A description of version 1.
    st.put(
        META,
        meta.replace("\"version\": 3", "\"version\": 1")
            .into_bytes(),
    );
    let e = open(&g, Arc::new(st.clone())).map(|_| ()).unwrap_err();
    assert!(
        e.to_string().contains("version 1") && e.to_string().contains("solve again"),
        "{e}"
    );
    // Resuming solves it again.
    let again = solve(&g, &stored(&st, true)).unwrap();
    assert!(again.start_value().is_ok());
    assert!(open(&g, Arc::new(st.clone())).unwrap().is_some());
}

#[test]
fn ranks_agree_on_one_identity_and_their_database_is_one_thing() {
    use retrograde_solve::exchange::run_local;
    for (seed, k) in [(5, 2), (6, 3)] {
        let g = SymAgain(Rules::random(seed, true, true));
        let (one, many) = (MemStorage::new(), MemStorage::new());
        solve(&g, &stored(&one, false)).unwrap();
        run_local(k, |ex| {
            solve_distributed(&g, &stored(&many, false), ex, false)
                .map(|_| ())
                .unwrap()
        });
        // Rank 0 put the shares together under the identity every rank wrote with.
        let want = open(&g, Arc::new(one.clone()))
            .unwrap()
            .unwrap()
            .start_value()
            .unwrap();
        let got = open(&g, Arc::new(many.clone())).unwrap().unwrap();
        assert_eq!(got.start_value().unwrap(), want);
        // One process's file, the same bytes but for the identity, is another database's.
        let file = one
            .names()
            .into_iter()
            .find(|n| n.ends_with(".values"))
            .unwrap();
        assert_eq!(
            tierfile::content(&one.get(&file).unwrap()),
            tierfile::content(&many.get(&file).unwrap())
        );
        many.put(&file, one.get(&file).unwrap());
        let e = open(&g, Arc::new(many.clone())).map(|_| ()).unwrap_err();
        assert!(
            e.to_string().contains(&file) && e.to_string().contains("another solve"),
            "{e}"
        );
    }
}
