//! The readable reference: one dense tier solved on one thread, from the game's forward
//! moves only (it never asks for un-moves: it builds each position's parent list itself).
//!
//! Same semantics as [`crate::engine::dense`] (see its notes), written as plainly as possible:
//! values are `Option<Value>`, counters `u32`, and events wait in lists by level. The
//! parallel engine must give the same cells bit for bit (tested).

use crate::api::game::{canonical, keeps, DenseIndex, Symmetry};
use crate::engine::cell::Cell;
use crate::engine::dense::Below;
use crate::error::Error;
use retrograde_graph::Primitive;
use retrograde_solve::Value;
use std::collections::BTreeMap;

/// The tier's cells (holes 0) and the number of positions solved.
pub(crate) fn solve_tier<G: DenseIndex, C: Cell, P: retrograde_solve::place::Placement>(
    game: &G,
    t: G::Tier,
    below: &Below<'_, G, C, P>,
) -> Result<(Vec<C>, u64), Error> {
    let size = game.tier_size(t);
    if size > u64::from(u32::MAX) {
        return Err(Error::Unsupported(format!("tier {t:?} has {size} slots")));
    }
    let n = size as usize;
    let mut solved = vec![false; n];
    let mut value: Vec<Option<Value>> = vec![None; n];
    let mut counter = vec![0u32; n];
    // parents[c] = the distinct (parent, keeps-turn) with a move to canonical child c.
    let mut parents: Vec<Vec<(u32, bool)>> = vec![Vec::new(); n];
    // Events by level: a win/loss decided, a winning exit, a losing exit counted down, a
    // tie decided, a tying exit.
    let mut decided: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut seeds: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut phantoms: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut ties: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut tie_seeds: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let at = |m: &mut BTreeMap<u32, Vec<u32>>, r: u32, i: u32| m.entry(r).or_default().push(i);

    let mut moves = Vec::new();
    for i in 0..n {
        let Some(p) = game.unrank(t, i as u64) else {
            continue;
        };
        if !<G::Symmetry as Symmetry<G>>::is_canonical(game, &p) {
            continue;
        }
        solved[i] = true;
        let i32 = i as u32;
        moves.clear();
        let fixed = match game.primitive(&p) {
            Some(v) => Some(v),
            None => {
                game.moves(&p, &mut moves);
                moves.is_empty().then(|| game.no_move())
            }
        };
        if let Some(f) = fixed {
            match f {
                Primitive::Win => value[i] = Some(Value::Win(0)),
                Primitive::Loss => value[i] = Some(Value::Loss(0)),
                Primitive::Tie => value[i] = Some(Value::Tie(0)),
            }
            if f == Primitive::Tie {
                at(&mut ties, 0, i32);
            } else {
                at(&mut decided, 0, i32);
            }
            continue;
        }
        let mut inside: Vec<(u32, bool)> = Vec::new();
        let mut best: Option<Value> = None;
        for c in &moves {
            let k = keeps(game, &p, c);
            if game.tier(c) == t {
                let j = game.rank(&canonical(game, c));
                if j >= size {
                    return Err(Error::Game(format!("rank {j} past tier {t:?}'s size")));
                }
                inside.push((j as u32, k));
            } else {
                let v = below.value(game, t, c)?.through(k);
                best = best.max(Some(v));
            }
        }
        inside.sort_unstable();
        inside.dedup();
        for &(j, k) in &inside {
            parents[j as usize].push((i32, k));
        }
        counter[i] = inside.len() as u32;
        if inside.is_empty() {
            let v = best.expect("moves, none inside: an exit");
            value[i] = Some(v);
            match v {
                Value::Win(r) | Value::Loss(r) => at(&mut decided, r, i32),
                Value::Tie(r) => at(&mut ties, r, i32),
                Value::Draw => {}
            }
            continue;
        }
        match best {
            Some(Value::Win(r)) => {
                counter[i] += 1;
                at(&mut seeds, r, i32);
            }
            Some(Value::Tie(r)) => {
                counter[i] += 1;
                at(&mut tie_seeds, r, i32);
            }
            Some(Value::Draw) => counter[i] += 1,
            Some(Value::Loss(r)) => {
                counter[i] += 1;
                at(&mut phantoms, r - 1, i32);
            }
            None => {}
        }
    }

    // Wins and losses, level by level.
    let mut r = 0;
    loop {
        let last = [&decided, &seeds, &phantoms]
            .iter()
            .filter_map(|m| m.keys().next_back().copied())
            .max();
        if last.is_none_or(|l| r > l) {
            break;
        }
        let mut frontier = decided.remove(&r).unwrap_or_default();
        for i in seeds.remove(&r).unwrap_or_default() {
            if value[i as usize].is_none() {
                value[i as usize] = Some(Value::Win(r));
                frontier.push(i);
            }
        }
        for i in phantoms.remove(&r).unwrap_or_default() {
            if value[i as usize].is_none() {
                counter[i as usize] -= 1;
                if counter[i as usize] == 0 {
                    value[i as usize] = Some(Value::Loss(r + 1));
                    at(&mut decided, r + 1, i);
                }
            }
        }
        for c in frontier {
            let v = value[c as usize].expect("decided");
            for &(q, k) in &parents[c as usize] {
                let q = q as usize;
                if value[q].is_some() {
                    continue;
                }
                match v.through(k) {
                    Value::Win(w) => {
                        value[q] = Some(Value::Win(w));
                        at(&mut decided, w, q as u32);
                    }
                    Value::Loss(l) => {
                        counter[q] -= 1;
                        if counter[q] == 0 {
                            value[q] = Some(Value::Loss(l));
                            at(&mut decided, l, q as u32);
                        }
                    }
                    _ => unreachable!("wins and losses only"),
                }
            }
        }
        r += 1;
    }

    // Ties, level by level, through what is still undecided.
    let mut r = 0;
    loop {
        let last = [&ties, &tie_seeds]
            .iter()
            .filter_map(|m| m.keys().next_back().copied())
            .max();
        if last.is_none_or(|l| r > l) {
            break;
        }
        let mut frontier = ties.remove(&r).unwrap_or_default();
        for i in tie_seeds.remove(&r).unwrap_or_default() {
            if value[i as usize].is_none() {
                value[i as usize] = Some(Value::Tie(r));
                frontier.push(i);
            }
        }
        for c in frontier {
            for &(q, _) in &parents[c as usize] {
                if value[q as usize].is_none() {
                    value[q as usize] = Some(Value::Tie(r + 1));
                    at(&mut ties, r + 1, q);
                }
            }
        }
        r += 1;
    }

    let mut cells = vec![C::UNDECIDED; n];
    let mut count = 0;
    for i in 0..n {
        if solved[i] {
            count += 1;
            cells[i] =
                C::encode(value[i].unwrap_or(Value::Draw)).ok_or_else(|| Error::Remoteness {
                    tier: format!("{t:?}"),
                    max: C::MAX_REMOTENESS,
                })?;
        }
    }
    Ok((cells, count))
}
