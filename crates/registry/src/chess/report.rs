//! The report of a chess ending (its positions by side to move, the longest win, a
//! histogram of the depth to mate: an ending has no start position) and of a set of
//! endings (a line per ending from the engine's totals of its tables), and the CSV dump of
//! every position.

use crate::Report;
use retrograde_games::chess::{Chess, Pos, Tier};
use retrograde_solve::Value;
use retrograde_tier::{DenseIndex, Error, Stats, SymmetricGame, TierGame, TierSolution};
use std::collections::BTreeSet;
use std::io::Write;

/// Calls `f` with every canonical position of the endings asked for and its value: each
/// kept position of the root tiers, and its colour-swapped twin (which the tables keep as
/// it), each when its ending is one of those asked for.
fn for_each_solved(
    solution: &TierSolution<'_, Chess>,
    mut f: impl FnMut(&Pos, Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let game = solution.game();
    for t in game.root_tiers() {
        each_solved_in(solution, t, 0..game.tier_size(t), &mut f)?;
    }
    Ok(())
}

/// [`for_each_solved`] of the slots `slots` of root tier `t`.
fn each_solved_in(
    solution: &TierSolution<'_, Chess>,
    t: Tier,
    slots: std::ops::Range<u64>,
    mut f: impl FnMut(&Pos, Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let game = solution.game();
    let asked = |t: Option<Tier>| t.is_some_and(|t| game.roots().contains(&t.mat));
    let (own, twin) = (asked(Some(t)), asked(game.twin_tier(t)));
    let mut result = Ok(());
    game.for_each_in(t, slots, |_, p| {
        let Some(p) = p.filter(|p| result.is_ok() && game.is_canonical(p)) else {
            return;
        };
        result = match solution.value(&p) {
            Ok(Some(v)) => {
                let first = if own { f(&p, v) } else { Ok(()) };
                first.and_then(|()| if twin { f(&p.flipped(), v) } else { Ok(()) })
            }
            Ok(None) => Ok(()),
            Err(e) => Err(e),
        };
    });
    result
}

/// [`for_each_solved`] in parallel, for totals: each root tier in runs of slots, every run
/// folded into an `A` of its own by `fold`, the runs' `A`s merged in the order of the
/// slots (so a `merge` that keeps the first of equals keeps what one pass would).
fn fold_solved<A: Default + Send>(
    solution: &TierSolution<'_, Chess>,
    fold: impl Fn(&mut A, &Pos, Value) + Sync,
    merge: impl Fn(&mut A, A) + Sync,
) -> Result<A, Error> {
    use rayon::prelude::*;
    const RUN: u64 = 1 << 14;
    let game = solution.game();
    let mut all = A::default();
    for t in game.root_tiers() {
        let size = game.tier_size(t);
        let runs: Vec<A> = (0..size.div_ceil(RUN))
            .into_par_iter()
            .map(|k| {
                let mut acc = A::default();
                let slots = k * RUN..((k + 1) * RUN).min(size);
                each_solved_in(solution, t, slots, |p, v| {
                    fold(&mut acc, p, v);
                    Ok(())
                })
                .map(|()| acc)
            })
            .collect::<Result<_, Error>>()?;
        for a in runs {
            merge(&mut all, a);
        }
    }
    Ok(all)
}

/// The totals of each side to move of an ending, and a position to show first (the
/// ending has no start): white's longest win, else the first position with white to move
/// (as the rank of its win, plus one, and the position).
type Sides = ([Stats; 2], Option<(u32, Pos)>);

/// Counts canonical position `p` of value `v` into `sides`.
fn count_side(game: &Chess, (sides, example): &mut Sides, p: &Pos, v: Value) {
    // A position whose swap of colours is a symmetry (`KRvKR`) stands for as many
    // positions with the other side to move, of the same value.
    let inside = game.swaps_inside(p);
    let w = game.class_size(p) / if inside { 2 } else { 1 };
    let q = p.flipped();
    for (p, first) in std::iter::once((p, true)).chain(inside.then_some((&q, false))) {
        if p.side_to_move() == 0 {
            let rank = match v {
                Value::Win(r) => r + 1,
                _ => 0,
            };
            if example.is_none_or(|(best, _)| rank > best) {
                *example = Some((rank, *p));
            }
        }
        let s = &mut sides[usize::from(p.side_to_move())];
        s.positions += w;
        s.classes += u64::from(first);
        s.count_many(v, w);
    }
}

/// Adds the totals of positions after those of `sides` (the first of equal examples is
/// kept, as one pass keeps it).
fn merge_sides((sides, example): &mut Sides, (more, later): Sides) {
    for (s, m) in sides.iter_mut().zip(&more) {
        s.merge(m);
    }
    if let Some((rank, _)) = later {
        if example.is_none_or(|(best, _)| rank > best) {
            *example = later;
        }
    }
}

/// The depth to mate of a side's longest win, in words.
fn longest(st: &Stats) -> String {
    match st.longest_win {
        Some(r) => format!("{} (mate in {})", crate::plies(r), r.div_ceil(2)),
        None => "none".into(),
    }
}

/// The totals of a side or an ending: the one JSON shape of both.
fn totals_json(st: &Stats) -> serde_json::Map<String, serde_json::Value> {
    [
        ("positions", st.positions.into()),
        ("win", st.win.into()),
        ("loss", st.loss.into()),
        ("tie", st.tie.into()),
        ("draw", st.draw.into()),
        ("longest_win", st.longest_win.into()),
        ("longest_loss", st.longest_loss.into()),
    ]
    .into_iter()
    .map(|(k, v): (&str, serde_json::Value)| (k.to_string(), v))
    .collect()
}

fn side_json(st: &Stats) -> serde_json::Value {
    let histogram: Vec<[u64; 3]> = st.histogram.iter().map(|&(w, l, t)| [w, l, t]).collect();
    let mut m = totals_json(st);
    m.insert("histogram".into(), histogram.into());
    m.into()
}

/// One ending's line of a set's report, and its JSON.
fn ending_line(
    name: &str,
    st: &Stats,
    tables: usize,
    bytes: Option<u64>,
) -> (String, serde_json::Value) {
    let bits = bytes.map(|b| 8.0 * b as f64 / st.positions.max(1) as f64);
    let mut line = format!(
        "{name}: positions {}, win {}, loss {}, tie {}, draw {}, longest win {}, {tables} table{}, {:.1} s",
        st.positions,
        st.win,
        st.loss,
        st.tie,
        st.draw,
        longest(st),
        if tables == 1 { "" } else { "s" },
        st.solve.as_secs_f64()
    );
    if let Some(b) = bits {
        line.push_str(&format!(", {b:.2} bits a position on disk"));
    }
    let mut json = serde_json::Map::new();
    json.insert("ending".into(), name.into());
    json.extend(totals_json(st));
    json.insert("tables".into(), tables.into());
    json.insert("seconds".into(), st.solve.as_secs_f64().into());
    json.insert("bytes".into(), bytes.into());
    json.insert("bits_per_position".into(), bits.into());
    (line, json.into())
}

/// The report of a set (`--up-to N`): a line per ending from the engine's totals of its
/// tables (positions counted with their symmetric twins, both sides to move), then the
/// whole set's, with the bytes on disk when the tables are in files. A table kept for
/// two endings (`KQvKR` stands for `KRvKQ` too, with the colours swapped) counts for
/// both, its positions, tables and bytes; the whole set's bytes count each file once.
pub(super) fn set_report(sol: &TierSolution<'_, Chess>, pieces: usize) -> Result<Report, Error> {
    let game = sol.game();
    let mut by: std::collections::BTreeMap<(usize, String), (Stats, usize, Option<u64>)> =
        Default::default();
    let mut bytes = Some(0u64);
    let mut solve = std::time::Duration::ZERO;
    for &t in sol.tiers() {
        let Some(st) = sol.tier_stats(t)? else {
            continue;
        };
        let stored = sol.stored_bytes(t);
        bytes = bytes.zip(stored).map(|(a, b)| a + b);
        solve += st.solve;
        // A table stands for its tier and its tier's swap of colours: another ending's
        // (`KRvKQ` for `KQvKR`), or another tier of its own (`KPvKP`'s pawns on the
        // 2nd and 3rd ranks for those on the 6th and 7th), whose positions count there
        // too; its file counts once for each ending.
        let twin = game.twin_tier(t).map(|u| u.mat);
        for (i, mat) in std::iter::once(t.mat).chain(twin).enumerate() {
            let key = (mat.len() + 2, mat.to_string());
            let e = by.entry(key).or_insert((Stats::default(), 0, Some(0)));
            if i == 0 || mat != t.mat {
                e.0.merge(st);
                e.1 += 1;
                e.2 = e.2.zip(stored).map(|(a, b)| a + b);
            } else {
                // The same ending again: its positions, not its time.
                e.0.merge(&Stats {
                    solve: std::time::Duration::ZERO,
                    explore: std::time::Duration::ZERO,
                    ..st.clone()
                });
            }
        }
    }
    let mut lines = Vec::new();
    let mut endings = Vec::new();
    let mut all = Stats::default();
    let mut count = 0;
    for ((n, name), (st, tables, b)) in &by {
        if *n < 3 {
            // KvK: one tie table, part of every set.
            all.merge(st);
            continue;
        }
        let (line, json) = ending_line(name, st, *tables, *b);
        lines.push(line);
        endings.push(json);
        all.merge(st);
        count += 1;
    }
    // Each table's time once, though it counts for two endings.
    all.solve = solve;
    let (total, mut json) = ending_line("all", &all, sol.tiers().len(), bytes);
    let sizes = match pieces {
        3 => "3 pieces".to_string(),
        n => format!("3 to {n} pieces"),
    };
    lines.push(format!("{count} endings of {sizes}; {total}"));
    if let serde_json::Value::Object(m) = &mut json {
        m.remove("ending");
    }
    Ok(Report {
        game: "chess".into(),
        first_line: Some(format!("chess, every ending up to {pieces} pieces")),
        lines,
        fields: vec![
            ("up_to".into(), serde_json::json!(pieces)),
            ("start".into(), serde_json::Value::Null),
            ("total".into(), json),
            ("endings".into(), serde_json::Value::Array(endings)),
        ],
        standard: None,
        score: None,
        timed: true,
        // Where the explorer opens: a set holds KQvK.
        example: Some("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1".into()),
        taken: None,
    })
}

pub(super) fn ending_report(solution: &TierSolution<'_, Chess>) -> Result<Report, Error> {
    let game = solution.game();
    let (sides, example) = fold_solved(solution, |a, p, v| count_side(game, a, p, v), merge_sides)?;
    let mut all = Stats::default();
    for s in &sides {
        all.merge(s);
    }
    // Moves are counted by the engine per tier.
    // A table kept for its colour-swapped twin too counts for both when both are asked.
    all.moves = 0;
    for t in game.root_tiers() {
        let twice = game
            .twin_tier(t)
            .is_some_and(|u| game.roots().contains(&t.mat) && game.roots().contains(&u.mat));
        if let Some(s) = solution.tier_stats(t)? {
            all.moves += s.moves * if twice { 2 } else { 1 };
        }
    }
    let endings: BTreeSet<String> = solution.tiers().iter().map(|t| t.mat.to_string()).collect();
    let mut lines = Vec::new();
    for (name, st) in [("white", &sides[0]), ("black", &sides[1])] {
        lines.push(format!(
            "{name} to move: positions {}, win {}, loss {}, tie {}, draw {}, longest win {}",
            st.positions,
            st.win,
            st.loss,
            st.tie,
            st.draw,
            longest(st)
        ));
    }
    lines.push(format!(
        "positions {}, moves {}, up to symmetry {}",
        all.positions, all.moves, all.classes
    ));
    lines.push(format!(
        "win {}, loss {}, tie {}, draw {}",
        all.win, all.loss, all.tie, all.draw
    ));
    lines.push("depth to mate in plies (for the side to move): wins, losses".into());
    for (r, &(w, l, _)) in all.histogram.iter().enumerate() {
        if w + l > 0 {
            lines.push(format!("  {r:3}: {w} {l}"));
        }
    }
    lines.push(format!(
        "endings solved with it: {}",
        endings.into_iter().collect::<Vec<_>>().join(", ")
    ));
    let example = example.map(|(_, p)| game.fen(&p));
    if let Some(fen) = &example {
        lines.push(format!("a position of white's longest win: {fen}"));
    }
    let histogram: Vec<[u64; 3]> = all.histogram.iter().map(|&(w, l, t)| [w, l, t]).collect();
    let fields = vec![
        (
            "material".into(),
            serde_json::json!(game.material().to_string()),
        ),
        ("start".into(), serde_json::Value::Null),
        ("positions".into(), serde_json::json!(all.positions)),
        ("moves".into(), serde_json::json!(all.moves)),
        ("win".into(), serde_json::json!(all.win)),
        ("loss".into(), serde_json::json!(all.loss)),
        ("tie".into(), serde_json::json!(all.tie)),
        ("draw".into(), serde_json::json!(all.draw)),
        ("longest_win".into(), serde_json::json!(all.longest_win)),
        ("longest_loss".into(), serde_json::json!(all.longest_loss)),
        ("histogram".into(), serde_json::json!(histogram)),
        ("symmetry_reduced".into(), serde_json::json!(all.classes)),
        ("example".into(), serde_json::json!(example)),
        ("white_to_move".into(), side_json(&sides[0])),
        ("black_to_move".into(), side_json(&sides[1])),
        (
            "tier_sizes".into(),
            serde_json::json!(solution.tier_sizes()),
        ),
    ];
    Ok(Report {
        game: "chess".into(),
        first_line: Some(format!("chess {}", game.material())),
        lines,
        fields,
        standard: None,
        score: None,
        timed: true,
        example,
        taken: None,
    })
}

pub(super) fn dump(solution: &TierSolution<'_, Chess>, out: &mut dyn Write) -> std::io::Result<()> {
    let game = solution.game();
    writeln!(out, "fen,outcome,remoteness")?;
    let mut images = Vec::with_capacity(8);
    let mut io = Ok(());
    let looked = for_each_solved(solution, |p, v| {
        images.clear();
        for g in 0..game.symmetry_count() {
            images.push(game.apply_symmetry(p, g));
        }
        images.sort_unstable();
        images.dedup();
        let r = v.remoteness().map_or(String::new(), |r| r.to_string());
        for q in &images {
            if let Err(e) = writeln!(out, "{},{},{r}", game.fen(q), v.outcome().as_str()) {
                io = Err(e);
                return Err(Error::Interrupted);
            }
        }
        Ok(())
    });
    io?;
    looked.map_err(|e| std::io::Error::other(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_tier::SolveOptions;

    #[test]
    fn the_report_counted_in_parallel_runs_is_the_one_pass_count() {
        // The one pass (`for_each_solved`) is the oracle: totals by side and the example,
        // the first of white's longest wins, against runs of 16,384 slots on 3 threads,
        // merged in order (a table of 3 pieces has 2 to 4 of them).
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for ending in ["KQvK", "KPvK", "KvKR", "KNvK"] {
            let game = Chess::new(ending).unwrap();
            let solution = retrograde_tier::solve(&game, &SolveOptions::default()).unwrap();
            let mut one: Sides = Default::default();
            for_each_solved(&solution, |p, v| {
                count_side(&game, &mut one, p, v);
                Ok(())
            })
            .unwrap();
            let runs = pool
                .install(|| {
                    fold_solved(&solution, |a, p, v| count_side(&game, a, p, v), merge_sides)
                })
                .unwrap();
            assert_eq!(runs, one, "{ending}");
            assert!(one.0[0].positions > 0 && one.1.is_some(), "{ending}");
        }
    }
}
