//! The readable reference: one dense tier solved on one thread, from the game's forward
//! moves only (it never asks for un-moves: it builds each position's parent list itself).
//!
//! Same semantics as [`crate::engine::dense`] (see its notes), written as plainly as possible:
//! values are `Option<Value>`, counters `u32`, and events wait in lists by level. The
//! parallel engine must give the same cells bit for bit (tested).

use crate::api::game::{canonical, keeps, DenseIndex, Symmetry};
use crate::engine::dense::Below;
use crate::error::Error;
use crate::store::cell::Cell;
use retrograde_graph::Primitive;
use retrograde_solve::Value;
use std::collections::BTreeMap;

/// The tier's cells (holes 0) and the number of positions solved.
pub(crate) fn solve_tier<
    G: DenseIndex,
    C: Cell<V = Value>,
    P: retrograde_solve::place::Placement,
>(
    game: &G,
    t: G::Tier,
    below: &Below<'_, G, C, P>,
) -> Result<(Vec<C>, u64), Error> {
    let size = game.tier_size(t);
    if size > u64::from(u32::MAX) {
        return Err(Error::Unsupported(format!("tier {t:?} has {size} slots")));
    }
    let mut tier = Tier::new(size as usize);
    tier.init(game, t, below)?;
    tier.wins_and_losses();
    tier.ties();
    tier.cells(&t)
}

/// Events by level: (level, slots).
type Events = BTreeMap<u32, Vec<u32>>;

fn at(m: &mut Events, r: u32, i: u32) {
    m.entry(r).or_default().push(i);
}

/// The state of a tier being solved, in plain vectors.
struct Tier {
    solved: Vec<bool>,
    value: Vec<Option<Value>>,
    counter: Vec<u32>,
    /// `parents[c]`: the distinct (parent, keeps-turn) with a move to canonical child `c`.
    parents: Vec<Vec<(u32, bool)>>,
    /// A win or a loss decided.
    decided: Events,
    /// A winning exit.
    seeds: Events,
    /// A losing exit, counted down.
    phantoms: Events,
    /// A tie decided.
    ties: Events,
    /// A tying exit.
    tie_seeds: Events,
}

impl Tier {
    fn new(n: usize) -> Tier {
        Tier {
            solved: vec![false; n],
            value: vec![None; n],
            counter: vec![0; n],
            parents: vec![Vec::new(); n],
            decided: Events::new(),
            seeds: Events::new(),
            phantoms: Events::new(),
            ties: Events::new(),
            tie_seeds: Events::new(),
        }
    }

    /// Every position's moves: terminals decided, moves inside counted (once per distinct
    /// canonical child and keeps-turn), the best exit seeding or deciding.
    fn init<G: DenseIndex, C: Cell<V = Value>, P: retrograde_solve::place::Placement>(
        &mut self,
        game: &G,
        t: G::Tier,
        below: &Below<'_, G, C, P>,
    ) -> Result<(), Error> {
        let size = self.value.len() as u64;
        let mut moves = Vec::new();
        for i in 0..self.value.len() {
            let Some(p) = game.unrank(t, i as u64) else {
                continue;
            };
            if !<G::Symmetry as Symmetry<G>>::is_canonical(game, &p) {
                continue;
            }
            self.solved[i] = true;
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
                self.value[i] = Some(match f {
                    Primitive::Win => Value::Win(0),
                    Primitive::Loss => Value::Loss(0),
                    Primitive::Tie => Value::Tie(0),
                });
                match f {
                    Primitive::Tie => at(&mut self.ties, 0, i32),
                    _ => at(&mut self.decided, 0, i32),
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
                self.parents[j as usize].push((i32, k));
            }
            self.counter[i] = inside.len() as u32;
            self.settle(i32, inside.is_empty(), best);
        }
        Ok(())
    }

    /// A position with moves: decided by its best exit when no move stays in the tier;
    /// else its best exit seeds it, or stands as a phantom move, or as a move for good.
    fn settle(&mut self, i: u32, no_inside: bool, best: Option<Value>) {
        let iu = i as usize;
        if no_inside {
            let v = best.expect("moves, none inside: an exit");
            self.value[iu] = Some(v);
            match v {
                Value::Win(r) | Value::Loss(r) => at(&mut self.decided, r, i),
                Value::Tie(r) => at(&mut self.ties, r, i),
                Value::Draw => {}
            }
            return;
        }
        if best.is_some() {
            self.counter[iu] += 1;
        }
        match best {
            Some(Value::Win(r)) => at(&mut self.seeds, r, i),
            Some(Value::Tie(r)) => at(&mut self.tie_seeds, r, i),
            Some(Value::Loss(r)) => at(&mut self.phantoms, r - 1, i),
            Some(Value::Draw) | None => {}
        }
    }

    /// Wins and losses, level by level.
    fn wins_and_losses(&mut self) {
        let mut r = 0;
        loop {
            let last = [&self.decided, &self.seeds, &self.phantoms]
                .iter()
                .filter_map(|m| m.keys().next_back().copied())
                .max();
            if last.is_none_or(|l| r > l) {
                break;
            }
            let mut frontier = self.decided.remove(&r).unwrap_or_default();
            for i in self.seeds.remove(&r).unwrap_or_default() {
                if self.value[i as usize].is_none() {
                    self.value[i as usize] = Some(Value::Win(r));
                    frontier.push(i);
                }
            }
            for i in self.phantoms.remove(&r).unwrap_or_default() {
                self.count_down(i, Value::Loss(r + 1));
            }
            for c in frontier {
                let v = self.value[c as usize].expect("decided");
                for (q, k) in self.parents[c as usize].clone() {
                    if self.value[q as usize].is_some() {
                        continue;
                    }
                    match v.through(k) {
                        Value::Win(w) => {
                            self.value[q as usize] = Some(Value::Win(w));
                            at(&mut self.decided, w, q);
                        }
                        lost => self.count_down(q, lost),
                    }
                }
            }
            r += 1;
        }
    }

    /// One move of an undecided position lost: the position is lost (`lost`) at its last.
    fn count_down(&mut self, i: u32, lost: Value) {
        let iu = i as usize;
        if self.value[iu].is_some() {
            return;
        }
        self.counter[iu] -= 1;
        if self.counter[iu] == 0 {
            self.value[iu] = Some(lost);
            at(&mut self.decided, lost.remoteness().expect("a loss"), i);
        }
    }

    /// Ties, level by level, through what is still undecided.
    fn ties(&mut self) {
        let mut r = 0;
        loop {
            let last = [&self.ties, &self.tie_seeds]
                .iter()
                .filter_map(|m| m.keys().next_back().copied())
                .max();
            if last.is_none_or(|l| r > l) {
                break;
            }
            let mut frontier = self.ties.remove(&r).unwrap_or_default();
            for i in self.tie_seeds.remove(&r).unwrap_or_default() {
                if self.value[i as usize].is_none() {
                    self.value[i as usize] = Some(Value::Tie(r));
                    frontier.push(i);
                }
            }
            for c in frontier {
                for (q, _) in self.parents[c as usize].clone() {
                    if self.value[q as usize].is_none() {
                        self.value[q as usize] = Some(Value::Tie(r + 1));
                        at(&mut self.ties, r + 1, q);
                    }
                }
            }
            r += 1;
        }
    }

    /// The cells (holes 0, what is left a draw) and the positions solved.
    fn cells<C: Cell<V = Value>>(&self, t: &dyn std::fmt::Debug) -> Result<(Vec<C>, u64), Error> {
        let mut cells = vec![C::UNDECIDED; self.value.len()];
        let mut count = 0;
        for (i, cell) in cells.iter_mut().enumerate() {
            if self.solved[i] {
                count += 1;
                let v = self.value[i].unwrap_or(Value::Draw);
                *cell = C::encode(v).ok_or_else(|| Error::Remoteness {
                    tier: format!("{t:?}"),
                    max: C::MAX_REMOTENESS,
                })?;
            }
        }
        Ok((cells, count))
    }
}
