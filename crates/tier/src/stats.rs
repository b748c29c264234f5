//! Totals of a solve.

use crate::error::Error;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::{Outcome, Value};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Totals of a solve.
///
/// For a game with a start, over the positions reachable from it: a *position* is a state
/// of the game together with the player to move, so that a state reached with either player
/// to move counts twice (this matters only where a state does not say whose turn it is, as
/// in games that store the board as the mover sees it). Without a start, over every
/// position solved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Positions (terminal ones included).
    pub positions: u64,
    /// Moves from them (a position's moves counted once per position).
    pub moves: u64,
    /// Positions won by the player to move.
    pub win: u64,
    /// Positions lost by the player to move.
    pub loss: u64,
    /// Positions that end level.
    pub tie: u64,
    /// Positions that never end.
    pub draw: u64,
    /// `histogram[r]` = (wins, losses, ties) at remoteness `r`.
    pub histogram: Vec<(u64, u64, u64)>,
    /// The longest win, in plies.
    pub longest_win: Option<u32>,
    /// The longest loss, in plies.
    pub longest_loss: Option<u32>,
    /// Positions up to the game's symmetries (equal to `positions` without symmetries).
    pub classes: u64,
    /// Distinct states among the positions (equal to `positions` when a state says whose
    /// turn it is).
    pub states: u64,
    /// Time to discover the positions (and lay them out), or to count them.
    #[serde(with = "nanos")]
    pub explore: Duration,
    /// Time to solve.
    #[serde(with = "nanos")]
    pub solve: Duration,
}

impl Stats {
    /// Counts one more position of value `value`: outcome totals, histogram, longest lines.
    #[inline]
    pub fn count(&mut self, value: Value) {
        self.count_many(value, 1);
    }

    /// Counts `n` positions of value `value`.
    #[inline]
    pub fn count_many(&mut self, value: Value, n: u64) {
        if n == 0 {
            return;
        }
        if let Some(r) = value.remoteness() {
            let r = r as usize;
            if self.histogram.len() <= r {
                self.histogram.resize(r + 1, (0, 0, 0));
            }
            let slot = &mut self.histogram[r];
            match value.outcome() {
                Outcome::Win => slot.0 += n,
                Outcome::Loss => slot.1 += n,
                _ => slot.2 += n,
            }
        }
        match value {
            Value::Win(r) => {
                self.win += n;
                self.longest_win = self.longest_win.max(Some(r));
            }
            Value::Loss(r) => {
                self.loss += n;
                self.longest_loss = self.longest_loss.max(Some(r));
            }
            Value::Tie(_) => self.tie += n,
            Value::Draw => self.draw += n,
        }
    }

    /// Adds another tally (the times are added too).
    pub fn merge(&mut self, o: &Stats) {
        self.positions += o.positions;
        self.moves += o.moves;
        self.win += o.win;
        self.loss += o.loss;
        self.tie += o.tie;
        self.draw += o.draw;
        self.classes += o.classes;
        self.states += o.states;
        if self.histogram.len() < o.histogram.len() {
            self.histogram.resize(o.histogram.len(), (0, 0, 0));
        }
        for (a, b) in self.histogram.iter_mut().zip(&o.histogram) {
            *a = (a.0 + b.0, a.1 + b.1, a.2 + b.2);
        }
        self.longest_win = self.longest_win.max(o.longest_win);
        self.longest_loss = self.longest_loss.max(o.longest_loss);
        self.explore += o.explore;
        self.solve += o.solve;
    }
}

mod nanos {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_nanos().min(u128::from(u64::MAX)) as u64)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_nanos(u64::deserialize(d)?))
    }
}

/// Every rank's per-tier totals, summed (at every rank; one process's are its own).
///
/// # Errors
/// [`Error::Exchange`] when a rank's totals do not read back.
pub(crate) fn merge_stats(ex: &dyn Exchange, mine: Vec<Stats>) -> Result<Vec<Stats>, Error> {
    if ex.size() == 1 {
        return Ok(mine);
    }
    let bad = |e: serde_json::Error| Error::Exchange(format!("totals that do not read: {e}"));
    let bytes = serde_json::to_vec(&mine).expect("serializable");
    let mut merged = if let Some(all) = ex.gather(&bytes) {
        let mut acc = vec![Stats::default(); mine.len()];
        for b in all {
            let v: Vec<Stats> = serde_json::from_slice(&b).map_err(bad)?;
            for (a, s) in acc.iter_mut().zip(&v) {
                a.merge(s);
            }
        }
        serde_json::to_vec(&acc).expect("serializable")
    } else {
        Vec::new()
    };
    ex.broadcast(&mut merged);
    serde_json::from_slice(&merged).map_err(bad)
}
