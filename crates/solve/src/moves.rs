//! Passes over every held vertex's moves with their targets' values: the best-move pass of
//! the solver and the independent check (`verify.rs`), in one process or across ranks.
//!
//! In one process every target is held, and a pass is one parallel scan in place order
//! (pieces of [`PIECE`] vertices on the pool's threads, the targets' values fetched a few
//! vertices ahead). Across ranks the held vertices go in steps of consecutive ones whose
//! remote targets number at most about [`BATCH`] (which bounds the memory of the requests
//! and answers): per step, every rank asks the holders for the values of its step's distinct
//! remote targets in one exchange (4 bytes each: the place) and gets them in a second (5
//! bytes each: the outcome with the owner bit of an arena's vertex, and the remoteness; 8
//! more for the score in a scored graph), then
//! scans the step as one process scans the whole. Every rank takes part in every step.
//!
//! A best move is the smallest target whose value, seen through the move, is the vertex's
//! (score and remoteness, [`Scored`]; in an unscored graph the scores are +1, -1 and 0):
//! the choice depends on the values alone, never on the order of moves, the threads or the
//! ranks.
//!
//! In a scored graph the best-move pass first packs each held vertex's value into one word
//! ([`Keys`]: outcome, a number standing for the `|score|`, remoteness), and compares a held
//! target's word with the one the vertex needs through the move: one random read per target
//! where the outcome, remoteness and score arrays would be three (on a 10M-vertex random DAG,
//! where every vertex is decided, the pass took 1.7x the unscored one's time reading the
//! scores, and is now faster than it). Remote targets are compared through their answers.

use crate::error::Error;
use crate::exchange::Exchange;
use crate::hint::prefetch;
use crate::place::Placement;
use crate::share::{ask_holders, terminal, Share};
use crate::solution::{Solution, NONE};
use crate::value::{Outcome, Scored, Value};
use crate::Rules;
use rayon::prelude::*;
use retrograde_graph::TurnRule;

/// Vertices per task of a pass.
const PIECE: usize = 4096;

/// Remote targets a rank asks about per step, at most (about).
const BATCH: usize = if cfg!(test) { 7 } else { 1 << 21 };

/// The targets' values during a step: held ones from the solution, the others from their
/// holders' answers.
pub(crate) struct Look<'a, G: ?Sized> {
    g: &'a G,
    s: &'a Solution,
    /// Per rank, the places asked of it (sorted, distinct), and its answers (5 bytes each,
    /// in the same order).
    asks: Vec<Vec<u32>>,
    got: Vec<Vec<u8>>,
}

impl<G: Share + ?Sized> Look<'_, G> {
    /// The value of `v`, the target of forward entry `e` of held place `u`, seen through the
    /// move (for the player to move at `u`), with its score (+1, -1 or 0 by the outcome in an
    /// unscored graph, which keeps [`Value`]'s order).
    #[inline]
    pub(crate) fn seen(&self, e: usize, u: u32, v: u32) -> Scored {
        let (value, keeps) = self.seen_parts(e, u, v);
        // A tie or draw is worth 0: only a win or loss has a score to read.
        let child = match value.outcome() {
            Outcome::Win | Outcome::Loss if self.g.is_scored() => {
                Scored::new(self.target_score(v), value.remoteness())
            }
            _ => Scored::from(value),
        };
        child.through(keeps)
    }

    /// [`Look::seen`] without the score: the outcome and remoteness through the move. Reads
    /// less (no score), so the best-move pass looks at the score only where these agree.
    #[inline]
    pub(crate) fn seen_value(&self, e: usize, u: u32, v: u32) -> Value {
        let (value, keeps) = self.seen_parts(e, u, v);
        value.through(keeps)
    }

    /// The value of target `v` (not through the move), and whether the move keeps the turn.
    #[inline]
    fn seen_parts(&self, e: usize, u: u32, v: u32) -> (Value, bool) {
        match self.g.turn_rule() {
            TurnRule::Alternate => (self.target(v).0, false),
            TurnRule::GoAgain { forward, .. } => (self.target(v).0, forward.get(e)),
            TurnRule::Arena { owner } => {
                let (value, theirs) = self.target(v);
                (value, u8::from(owner.get(u as usize)) == theirs)
            }
        }
    }

    /// The answer about remote target `v` (`None` for a held one).
    #[inline]
    fn answer(&self, v: u32) -> Option<&[u8]> {
        if self.g.held(v).is_some() {
            return None;
        }
        let (o, l) = self.g.placement().place(u64::from(v));
        let size = answer_size(self.g);
        // Every remote target of the step was asked, and the answers' length checked.
        const NONE_ANSWER: [u8; 13] = [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        Some(
            self.asks[o]
                .binary_search(&(l as u32))
                .ok()
                .and_then(|i| self.got[o].get(size * i..size * i + size))
                .unwrap_or(&NONE_ANSWER[..size]),
        )
    }

    /// The value and the owner (the player who moves there) of target `v`.
    #[inline]
    fn target(&self, v: u32) -> (Value, u8) {
        if let Some(l) = self.g.held(v) {
            return (self.s.value(l), self.g.owner_at(l));
        }
        let a = self.answer(v).expect("a remote target");
        let r = u32::from_le_bytes([a[1], a[2], a[3], a[4]]);
        (Value::new(Outcome::from_code(a[0] & 3), r), a[0] >> 7)
    }

    /// The score of target `v` in a scored graph.
    #[inline]
    fn target_score(&self, v: u32) -> i64 {
        if let Some(l) = self.g.held(v) {
            return self.s.scored(l).score;
        }
        let a = self.answer(v).expect("a remote target");
        a.get(5..13)
            .map_or(0, |b| i64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    /// Whether move `e` from place `u` to held place `l` keeps the turn.
    #[inline(always)]
    fn keeps(&self, e: usize, u: u32, l: u32) -> bool {
        match self.g.turn_rule() {
            TurnRule::Alternate => false,
            TurnRule::GoAgain { forward, .. } => forward.get(e),
            TurnRule::Arena { owner } => u8::from(owner.get(u as usize)) == self.g.owner_at(l),
        }
    }

    /// A hint to fetch the value of the first target of place `u` (one process only).
    #[inline(always)]
    fn prefetch(&self, u: usize) {
        if G::Place::ALONE {
            if let Some(&e) = self.g.forward_offsets().get(u) {
                if let Some(&v) = self.g.forward_targets().get(e as usize) {
                    prefetch(&self.s.outcome, v as usize);
                    prefetch(&self.s.remoteness, v as usize);
                }
            }
        }
    }
}

/// Calls `visit(first place, piece of outs, look)` over the places `g` holds, in order, a
/// piece of [`PIECE`] places at a time on the pool's threads (`outs` has one element per
/// held place), and returns the first `Some` a visit gives, by place (after it, no more
/// pieces are visited). Across ranks the places go in steps (module docs): a collective.
///
/// # Errors
/// A malformed message from another rank.
pub(crate) fn over_moves<G, T, V>(
    g: &G,
    rules: &Rules,
    s: &Solution,
    ex: &dyn Exchange,
    outs: &mut [T],
    visit: impl Fn(u32, &mut [T], &Look<'_, G>) -> Option<V> + Sync,
) -> Result<Option<V>, Error>
where
    G: Share + ?Sized,
    T: Send,
    V: Send,
{
    let n = g.len();
    let mut first = None;
    let mut from = 0;
    loop {
        let (to, asks) = if G::Place::ALONE {
            (n, Vec::new())
        } else {
            step(g, rules, from, ex.size())
        };
        let got = if G::Place::ALONE {
            Vec::new()
        } else {
            answers(g, s, &asks, ex)?
        };
        let look = Look { g, s, asks, got };
        if first.is_none() {
            first = outs[from..to]
                .par_chunks_mut(PIECE)
                .enumerate()
                .find_map_first(|(i, out)| visit((from + i * PIECE) as u32, out, &look));
        }
        from = to;
        if G::Place::ALONE || !ex.any(from < n) {
            return Ok(first);
        }
    }
}

/// The step from place `from`: where it ends, and the distinct remote targets of its vertices
/// that are not terminals, by holder, as places at the holder, sorted.
fn step<G: Share + ?Sized>(g: &G, rules: &Rules, from: usize, k: usize) -> (usize, Vec<Vec<u32>>) {
    let (off, targets, place) = (g.forward_offsets(), g.forward_targets(), g.placement());
    let mut asks: Vec<Vec<u32>> = vec![Vec::new(); k];
    let (mut to, mut asked) = (from, 0);
    while to < g.len() && asked < BATCH {
        let u = to;
        to += 1;
        if terminal(g, rules, u as u32).is_some() {
            continue;
        }
        for &v in &targets[off[u] as usize..off[u + 1] as usize] {
            if g.held(v).is_none() {
                let (o, l) = place.place(u64::from(v));
                asks[o].push(l as u32);
                asked += 1;
            }
        }
    }
    for a in &mut asks {
        a.sort_unstable();
        a.dedup();
    }
    (to, asks)
}

/// The bytes of an answer about a target's value: the outcome with the owner bit, the
/// remoteness, and in a scored graph the score.
fn answer_size<G: Share + ?Sized>(g: &G) -> usize {
    if g.is_scored() {
        13
    } else {
        5
    }
}

/// The answers of every holder to this rank's `asks` (a collective: this rank answers the
/// others' in the same exchange), checked to hold one answer per question.
fn answers<G: Share + ?Sized>(
    g: &G,
    s: &Solution,
    asks: &[Vec<u32>],
    ex: &dyn Exchange,
) -> Result<Vec<Vec<u8>>, Error> {
    let step = "values of targets";
    ask_holders(g, ex, step, asks, Some(answer_size(g)), |l, reply| {
        let x = s.value(l);
        reply.push(x.outcome() as u8 | g.owner_at(l) << 7);
        reply.extend_from_slice(&x.remoteness().unwrap_or(NONE).to_le_bytes());
        if g.is_scored() {
            reply.extend_from_slice(&s.scored(l).score.to_le_bytes());
        }
    })
}

/// The best move of every vertex `g` holds, by place (`NONE` at terminals): the smallest
/// target whose value, seen through the move, is the vertex's (module docs). A collective
/// across ranks.
///
/// # Errors
/// A malformed message from another rank.
pub(crate) fn best_moves<G: Share + ?Sized>(
    g: &G,
    rules: &Rules,
    s: &Solution,
    ex: &dyn Exchange,
) -> Result<Vec<u32>, Error> {
    let mut best = vec![NONE; g.len()];
    retrograde_graph::huge::advise(&best);
    let (off, targets) = (g.forward_offsets(), g.forward_targets());
    if let Some(keys) = g.is_scored().then(|| Keys::new(s)).flatten() {
        over_moves(g, rules, s, ex, &mut best, |first, out, look| {
            for (i, slot) in out.iter_mut().enumerate() {
                let u = first + i as u32;
                keys.prefetch(g, u as usize + 16);
                if terminal(g, rules, u).is_some() {
                    continue;
                }
                // What a held target's key must be for the move to realize `u`'s value.
                let (pass, keep) = keys.wanted(u);
                let from = off[u as usize] as usize;
                for (e, &v) in (from..).zip(&targets[from..off[u as usize + 1] as usize]) {
                    if v < *slot
                        && match g.held(v) {
                            Some(l) => keys.get(l) == if look.keeps(e, u, l) { keep } else { pass },
                            None => look.seen(e, u, v) == s.scored(u),
                        }
                    {
                        *slot = v;
                    }
                }
                debug_assert!(*slot != NONE, "vertex {u} has no move realizing its value");
            }
            None::<()>
        })?;
        return Ok(best);
    }
    let scored = g.is_scored();
    over_moves(g, rules, s, ex, &mut best, |first, out, look| {
        for (i, slot) in out.iter_mut().enumerate() {
            let u = first + i as u32;
            // Targets are read in order: fetch the values of those a few vertices ahead.
            look.prefetch(u as usize + 16);
            if terminal(g, rules, u).is_some() {
                continue;
            }
            // Outcome and remoteness first, the score (another array) only where they agree
            // on a win or loss (a tie's and a draw's are 0).
            let (want, value) = (s.scored(u), s.value(u));
            let by_score = scored && matches!(value, Value::Win(_) | Value::Loss(_));
            let from = off[u as usize] as usize;
            for (e, &v) in (from..).zip(&targets[from..off[u as usize + 1] as usize]) {
                if v < *slot
                    && look.seen_value(e, u, v) == value
                    && (!by_score || look.seen(e, u, v) == want)
                {
                    *slot = v;
                }
            }
            debug_assert!(*slot != NONE, "vertex {u} has no move realizing {want}");
        }
        None::<()>
    })?;
    Ok(best)
}

/// The most distinct `|score|` values [`Keys`] numbers (tests use a tiny bound, so that
/// their graphs take both ways of the best-move pass).
const MAX_LEVELS: usize = if cfg!(test) { 2 } else { 1 << 28 };

/// A scored graph's values as the best-move pass compares them: one word per held vertex,
/// `outcome code << 62 | level << 32 | remoteness` (`NONE` for a draw), the level being a
/// number for the vertex's `|score|` (0 for a score of 0, else a number of its own for each
/// distinct `|score|` held here). The word of a held target is one read (the outcome,
/// remoteness and 8-byte score are three arrays), and the numbers keep what the pass needs
/// of scores: equality. A win's score is positive and a loss's negative, so with the outcome
/// equal, equal scores are equal `|score|`.
struct Keys(Vec<u64>);

impl Keys {
    /// The words of the places of `s`, or `None` when the held vertices have more than
    /// [`MAX_LEVELS`] distinct `|score|` (the pass then reads the scores).
    fn new(s: &Solution) -> Option<Keys> {
        let levels = s
            .score
            .par_chunks(1 << 16)
            .fold(AbsSet::default, |mut set, part| {
                for &x in part {
                    if x != 0 && set.len() <= MAX_LEVELS {
                        set.insert(x.unsigned_abs());
                    }
                }
                set
            })
            .reduce(AbsSet::default, AbsSet::union);
        if levels.len() > MAX_LEVELS {
            return None;
        }
        let mut keys: Vec<u64> = retrograde_graph::huge::zeroed(s.len());
        keys.par_iter_mut()
            .zip(s.outcome.par_iter().zip(&s.remoteness).zip(&s.score))
            .with_min_len(1 << 14)
            .for_each(|(k, ((&o, &r), &x))| {
                let level = if x == 0 {
                    0
                } else {
                    levels.number(x.unsigned_abs())
                };
                *k = u64::from(o) << 62 | level << 32 | u64::from(r);
            });
        Some(Keys(keys))
    }

    /// The word of place `l`.
    #[inline(always)]
    fn get(&self, l: u32) -> u64 {
        self.0[l as usize]
    }

    /// The words a target must have for a move to realize the value of non-terminal place
    /// `u`, when the move passes the turn and when it keeps it: the same level, one ply less
    /// (a draw's children are draws), the outcome flipped across a pass.
    #[inline(always)]
    fn wanted(&self, u: u32) -> (u64, u64) {
        let k = self.get(u);
        let code = (k >> 62) as u8;
        let keep = if code == Outcome::Draw as u8 {
            k
        } else {
            k - 1
        };
        let pass = if code <= Outcome::Loss as u8 {
            keep ^ 1 << 62
        } else {
            keep
        };
        (pass, keep)
    }

    /// A hint to fetch the word of the first target of place `u` (one process only).
    #[inline(always)]
    fn prefetch<G: Share + ?Sized>(&self, g: &G, u: usize) {
        if G::Place::ALONE {
            if let Some(&e) = g.forward_offsets().get(u) {
                if let Some(&v) = g.forward_targets().get(e as usize) {
                    prefetch(&self.0, v as usize);
                }
            }
        }
    }
}

/// A set of `u64` other than 0 (open addressing, linear probing, at most half full): the
/// distinct `|score|` values of a solution, each numbered by its slot (1 + the slot index).
#[derive(Default)]
struct AbsSet {
    slots: Vec<u64>,
    len: usize,
}

impl AbsSet {
    fn len(&self) -> usize {
        self.len
    }

    /// The slot of `x` (not 0), or the empty slot where it would go.
    #[inline(always)]
    fn slot(&self, x: u64) -> usize {
        let mask = self.slots.len() - 1;
        // Fibonacci hashing: the high bits of the product.
        let mut i = (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask;
        while self.slots[i] != 0 && self.slots[i] != x {
            i = (i + 1) & mask;
        }
        i
    }

    fn insert(&mut self, x: u64) {
        if 2 * (self.len + 1) > self.slots.len() {
            let grown = vec![0; (2 * self.slots.len()).max(64)];
            let old = std::mem::replace(&mut self.slots, grown);
            for y in old.into_iter().filter(|&y| y != 0) {
                let i = self.slot(y);
                self.slots[i] = y;
            }
        }
        let i = self.slot(x);
        if self.slots[i] == 0 {
            self.slots[i] = x;
            self.len += 1;
        }
    }

    /// The union of two sets, given up (some set of more than [`MAX_LEVELS`]) as soon as it
    /// holds more than [`MAX_LEVELS`]: its numbers would not fit, and the pass reads scores.
    fn union(mut self, other: AbsSet) -> AbsSet {
        if self.slots.len() < other.slots.len() {
            return other.union(self);
        }
        for y in other.slots.into_iter().filter(|&y| y != 0) {
            if self.len > MAX_LEVELS {
                break;
            }
            self.insert(y);
        }
        self
    }

    /// The number of `x`, an element: 1 + its slot, below 2^30 (the set holds at most
    /// [`MAX_LEVELS`] elements in at most `2 MAX_LEVELS` slots).
    #[inline(always)]
    fn number(&self, x: u64) -> u64 {
        debug_assert!(self.slots[self.slot(x)] == x);
        1 + self.slot(x) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set numbers each distinct value once, with numbers that fit a word's 30 bits, and
    /// a union (the pass's parallel fold joins sets) keeps every value up to the bound.
    #[test]
    fn abs_set_numbers_distinct_values() {
        let values: Vec<u64> = (1..=5000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 1 | 1)
            .chain([1, 2, i64::MAX as u64, 1 << 63])
            .collect();
        let mut whole = AbsSet::default();
        for &x in values.iter().chain(&values) {
            whole.insert(x);
        }
        let distinct: std::collections::HashSet<u64> = values.iter().copied().collect();
        assert_eq!(whole.len(), distinct.len());
        let numbers: std::collections::HashSet<u64> =
            distinct.iter().map(|&x| whole.number(x)).collect();
        assert_eq!(numbers.len(), distinct.len());
        assert!(numbers.iter().all(|k| (1..1 << 30).contains(k)));
        // Unions (tests number at most MAX_LEVELS = 2 values): within the bound, and past it
        // (more than MAX_LEVELS: the pass then reads the scores).
        let set = |xs: &[u64]| {
            let mut s = AbsSet::default();
            xs.iter().for_each(|&x| s.insert(x));
            s
        };
        let joined = set(&[i64::MAX as u64]).union(set(&[i64::MAX as u64, 3]));
        assert_eq!(joined.len(), MAX_LEVELS);
        assert!([3, i64::MAX as u64]
            .iter()
            .all(|&x| joined.slots[joined.slot(x)] == x));
        assert!(set(&[1, 2]).union(set(&[3, 4, 5])).len() > MAX_LEVELS);
    }
}
