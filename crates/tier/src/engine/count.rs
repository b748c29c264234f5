//! Counting the positions reachable from the start (dense layout), with their values.
//!
//! Tiers are visited parents first. Each slot has one byte: bit `s` (0 or 1) = reached with
//! side `s` to move (0 is the side that moves first), bit `2 + s` = expanded with that side.
//! Sides are told apart only for games whose positions do not say whose turn it is
//! ([`TierGame::MOVER_VIEW`]); for the others everything is side 0.
//! Inside a tier, reached slots are expanded level by level (moves inside a tier can reach
//! anything in it); a move passes the side to move unless it keeps the turn. A slot is
//! expanded once for both sides when both are pending. Each expansion is tallied: the
//! class size (positions a canonical slot stands for), its value, its moves.

use crate::api::game::{canonical, keeps, Layout, Symmetry, TierGame};
use crate::engine::cell::Cell;
use crate::engine::{Dag, Event, SolveOptions};
use crate::error::Error;
use crate::stats::Stats;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

const CHUNK: usize = 1 << 11;

/// The totals over the positions reachable from `start`; `cells(k)` gives tier `k`'s cells.
pub(crate) fn count<G: TierGame, C: Cell>(
    game: &G,
    dag: &Dag<G::Tier>,
    start: G::Position,
    cells: &mut dyn FnMut(usize) -> Result<Arc<Vec<C>>, Error>,
    opts: &SolveOptions,
) -> Result<Stats, Error> {
    let n = dag.tiers.len();
    let index: std::collections::HashMap<G::Tier, usize> =
        dag.tiers.iter().enumerate().map(|(k, &t)| (t, k)).collect();
    let size = |k: usize| <G::Layout as Layout<G>>::tier_size(game, dag.tiers[k]);
    let total: u64 = (0..n).map(size).sum();
    let mut bits: Vec<Option<Vec<AtomicU8>>> = (0..n).map(|_| None).collect();
    let alloc = |k: usize| -> Vec<AtomicU8> { (0..size(k)).map(|_| AtomicU8::new(0)).collect() };
    let s = canonical(game, &start);
    let Some(&ks) = index.get(&game.tier(&s)) else {
        return Err(Error::Game(
            "the start's tier is not among the tiers".into(),
        ));
    };
    let si = <G::Layout as Layout<G>>::rank(game, &s);
    bits[ks] = Some(alloc(ks));
    bits[ks].as_ref().expect("allocated")[si as usize].store(1, Relaxed);
    let mut stats = Stats::default();
    let mut counted = 0u64;
    for &k in dag.order.iter().rev() {
        opts.cancelled()?;
        opts.emit(&Event::Count {
            done: counted,
            total,
        });
        counted += size(k);
        let Some(mine) = bits[k].take() else {
            continue;
        };
        for &c in &dag.children[k] {
            if bits[c].is_none() {
                bits[c] = Some(alloc(c));
            }
        }
        let values = cells(k)?;
        let t = dag.tiers[k];
        let below: Vec<(G::Tier, &[AtomicU8])> = dag.children[k]
            .iter()
            .map(|&c| (dag.tiers[c], &bits[c].as_ref().expect("allocated")[..]))
            .collect();
        let mut frontier = reached(&mine);
        while !frontier.is_empty() {
            let results: Vec<(Stats, Vec<u32>)> = frontier
                .par_chunks(CHUNK)
                .map_init(
                    || (Vec::new(), Vec::new()),
                    |(moves, targets), chunk| {
                        let mut st = Stats::default();
                        let mut next = Vec::new();
                        for &i in chunk {
                            expand::<G, C>(
                                game, t, i, &mine, &below, &values, moves, targets, &mut st,
                                &mut next,
                            )?;
                        }
                        Ok((st, next))
                    },
                )
                .collect::<Result<_, Error>>()?;
            frontier = Vec::new();
            for (st, next) in results {
                stats.merge(&st);
                frontier.extend(next);
            }
        }
        let _ = index;
    }
    Ok(stats)
}

/// The slots of a tier's bytes reached with some side to move: its first frontier.
pub(crate) fn reached(bits: &[AtomicU8]) -> Vec<u32> {
    bits.par_iter()
        .enumerate()
        .filter(|(_, b)| b.load(Relaxed) & 3 != 0)
        .map(|(i, _)| i as u32)
        .collect()
}

/// Appends each buffer of `from` to the one of `into` with the same index (taking it whole
/// when that one is empty): per-destination buffers of parallel chunks, gathered.
pub(crate) fn append_each<T>(into: &mut [Vec<T>], from: Vec<Vec<T>>) {
    for (d, v) in from.into_iter().enumerate() {
        if into[d].is_empty() {
            into[d] = v;
        } else {
            into[d].extend(v);
        }
    }
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn expand<'a, G: TierGame, C: Cell>(
    game: &G,
    t: G::Tier,
    i: u32,
    mine: &'a [AtomicU8],
    below: &[(G::Tier, &'a [AtomicU8])],
    values: &[C],
    moves: &mut Vec<G::Position>,
    targets: &mut Vec<(&'a [AtomicU8], usize, u8, bool)>,
    st: &mut Stats,
    next: &mut Vec<u32>,
) -> Result<(), Error> {
    let b = &mine[i as usize];
    let word = b.load(Relaxed);
    let pending = word & 3 & !(word >> 2);
    if pending == 0 {
        return Ok(());
    }
    let before = b.fetch_or(pending << 2, Relaxed);
    let fresh = pending & !(before >> 2);
    if fresh == 0 {
        return Ok(());
    }
    let p = <G::Layout as Layout<G>>::unrank(game, t, u64::from(i)).ok_or_else(|| {
        Error::Game(format!(
            "a move reaches slot {i} of tier {t:?}, which is a hole"
        ))
    })?;
    let v = values[i as usize].decode().ok_or_else(|| {
        Error::Game(format!(
            "a move reaches slot {i} of tier {t:?}, which has no value"
        ))
    })?;
    let w = <G::Symmetry as Symmetry<G>>::class_size(game, &p);
    let sides = u64::from(fresh.count_ones());
    st.positions += w * sides;
    st.classes += sides;
    if before >> 2 & 3 == 0 {
        st.states += w;
    }
    st.count_many(v, w * sides);
    // Remoteness 0 is where the game ends (a primitive value, or no move): nothing to
    // expand. Anything else is not primitive.
    if v.remoteness() == Some(0) {
        return Ok(());
    }
    moves.clear();
    game.moves(&p, moves);
    st.moves += w * sides * moves.len() as u64;
    // After a move that passes the turn, the other side is to move (tracked only when the
    // position does not say it).
    let swapped = (fresh & 1) << 1 | fresh >> 1;
    // Locate every child first (prefetching its byte), then mark them: the misses overlap.
    targets.clear();
    for c in moves.iter() {
        let mark = if !G::MOVER_VIEW || keeps(game, &p, c) {
            fresh
        } else {
            swapped
        };
        let tc = game.tier(c);
        let j = <G::Layout as Layout<G>>::rank(game, &canonical(game, c)) as usize;
        let bits: &[AtomicU8] = if tc == t {
            mine
        } else {
            match below.iter().find(|(x, _)| *x == tc) {
                Some((_, b)) => b,
                None => {
                    return Err(Error::Game(format!(
                        "a move from tier {t:?} reaches tier {tc:?}, not one of its child tiers"
                    )))
                }
            }
        };
        if j >= bits.len() {
            return Err(Error::Game(format!(
                "rank {j} past the size of tier {tc:?}"
            )));
        }
        crate::engine::dense::prefetch(bits, j);
        targets.push((bits, j, mark, tc == t));
    }
    for &(bits, j, mark, same) in targets.iter() {
        let cell = &bits[j];
        if cell.load(Relaxed) & mark != mark && cell.fetch_or(mark, Relaxed) & mark != mark && same
        {
            next.push(j as u32);
        }
    }
    Ok(())
}
