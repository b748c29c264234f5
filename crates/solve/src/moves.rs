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

use crate::error::{places, Error};
use crate::exchange::Exchange;
use crate::place::Placement;
use crate::retro::prefetch;
use crate::share::{terminal, Share};
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
    let send = asks
        .iter()
        .map(|a| a.iter().flat_map(|x| x.to_le_bytes()).collect())
        .collect();
    let mut replies = Vec::with_capacity(asks.len());
    for (from, b) in ex.all_to_all(send).iter().enumerate() {
        let mut reply = Vec::with_capacity(b.len() / 4 * 5);
        places(b, from, "values of targets: a question", g.len(), |l, _| {
            let x = s.value(l);
            reply.push(x.outcome() as u8 | g.owner_at(l) << 7);
            reply.extend_from_slice(&x.remoteness().unwrap_or(NONE).to_le_bytes());
            if g.is_scored() {
                reply.extend_from_slice(&s.scored(l).score.to_le_bytes());
            }
        })?;
        replies.push(reply);
    }
    let got = ex.all_to_all(replies);
    let size = answer_size(g);
    for (from, (b, a)) in got.iter().zip(asks).enumerate() {
        if b.len() != size * a.len() {
            return Err(Error::Message {
                step: "values of targets: an answer",
                from,
                problem: format!("{} bytes for {} values of {size} bytes", b.len(), a.len()),
            });
        }
    }
    Ok(got)
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
