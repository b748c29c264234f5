//! Small `Copy` value types: [`Outcome`] and [`Value`] (an outcome with its remoteness).

use std::cmp::Ordering;
use std::fmt;
use std::ops::Neg;
use std::str::FromStr;

/// The result of a position under optimal play, for the player to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Outcome {
    /// The player to move can force a win.
    Win = 0,
    /// The opponent can force a win.
    Loss = 1,
    /// Neither can win, and the game ends level.
    Tie = 2,
    /// Neither can win, and the game never ends.
    Draw = 3,
}

impl Outcome {
    /// `win`, `loss`, `tie` or `draw`, as every output format writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Loss => "loss",
            Outcome::Tie => "tie",
            Outcome::Draw => "draw",
        }
    }

    pub(crate) fn from_code(c: u8) -> Outcome {
        match c {
            0 => Outcome::Win,
            1 => Outcome::Loss,
            2 => Outcome::Tie,
            _ => Outcome::Draw,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Outcome {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "win" => Ok(Outcome::Win),
            "loss" => Ok(Outcome::Loss),
            "tie" => Ok(Outcome::Tie),
            "draw" => Ok(Outcome::Draw),
            _ => Err(format!("expected win, loss, tie or draw, found {s:?}")),
        }
    }
}

/// An outcome with its remoteness: plies to the end under optimal play (the winner hurries,
/// the loser stalls, a tie is reached as fast as possible). Draws have none.
///
/// Values are ordered by preference of the player to move: a greater value is better.
/// `Win(1) > Win(5) > Tie(0) > Tie(4) > Draw > Loss(7) > Loss(0)`.
///
/// ```
/// use retrograde_solve::Value;
/// // A child that is lost in 2 for its mover is won in 3 for us, if the move passes the turn.
/// assert_eq!(Value::Loss(2).parent(), Value::Win(3));
/// // After a go-again move we are still the one to move there.
/// assert_eq!(Value::Loss(2).through(true), Value::Loss(3));
/// assert_eq!(-Value::Win(4), Value::Loss(4));
/// assert!(Value::Win(1) > Value::Win(5) && Value::Tie(9) > Value::Draw && Value::Draw > Value::Loss(9));
/// assert_eq!("win in 3".parse::<Value>().unwrap(), Value::Win(3));
/// assert_eq!(Value::Tie(2).to_string(), "tie in 2");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Won in this many plies.
    Win(u32),
    /// Lost in this many plies.
    Loss(u32),
    /// Tied in this many plies.
    Tie(u32),
    /// Never ends.
    Draw,
}

impl Value {
    /// The outcome without the remoteness.
    #[inline]
    pub fn outcome(self) -> Outcome {
        match self {
            Value::Win(_) => Outcome::Win,
            Value::Loss(_) => Outcome::Loss,
            Value::Tie(_) => Outcome::Tie,
            Value::Draw => Outcome::Draw,
        }
    }

    /// The remoteness, `None` for a draw.
    #[inline]
    pub fn remoteness(self) -> Option<u32> {
        match self {
            Value::Win(r) | Value::Loss(r) | Value::Tie(r) => Some(r),
            Value::Draw => None,
        }
    }

    /// Builds a value from its parts; `remoteness` is ignored for a draw.
    #[inline]
    pub fn new(outcome: Outcome, remoteness: u32) -> Value {
        match outcome {
            Outcome::Win => Value::Win(remoteness),
            Outcome::Loss => Value::Loss(remoteness),
            Outcome::Tie => Value::Tie(remoteness),
            Outcome::Draw => Value::Draw,
        }
    }

    /// This child value as seen from a parent one move earlier, when the move passes the
    /// turn: perspective flipped, one ply more.
    #[inline]
    pub fn parent(self) -> Value {
        self.through(false)
    }

    /// This child value as seen from a parent one move earlier; `keeps_turn` tells whether
    /// the move leaves the same player to move (a go-again move, or same owner in an arena).
    #[inline]
    pub fn through(self, keeps_turn: bool) -> Value {
        let v = if keeps_turn { self } else { -self };
        match v {
            Value::Win(r) => Value::Win(r.saturating_add(1)),
            Value::Loss(r) => Value::Loss(r.saturating_add(1)),
            Value::Tie(r) => Value::Tie(r.saturating_add(1)),
            Value::Draw => Value::Draw,
        }
    }

    /// A number that sorts values by preference, greater is better for the player to move
    /// (a win sooner, then later, a tie sooner, then later, a draw, a loss later, then
    /// sooner): the one home of the order ([`Ord`] compares ranks). For loops that keep the
    /// best of many values; [`Value::from_rank`] gives the value back.
    #[inline]
    pub fn rank(self) -> u64 {
        match self {
            Value::Win(r) => 3 << 32 | u64::from(u32::MAX - r),
            Value::Tie(r) => 2 << 32 | u64::from(u32::MAX - r),
            Value::Draw => 1 << 32,
            Value::Loss(r) => u64::from(r),
        }
    }

    /// The value of a [`rank`](Value::rank).
    ///
    /// # Panics
    /// A number that is no value's rank.
    #[inline]
    pub fn from_rank(rank: u64) -> Value {
        let low = rank as u32;
        match rank >> 32 {
            3 => Value::Win(u32::MAX - low),
            2 => Value::Tie(u32::MAX - low),
            1 if low == 0 => Value::Draw,
            0 => Value::Loss(low),
            _ => panic!("{rank:#x} is not the rank of a value"),
        }
    }
}

impl Neg for Value {
    type Output = Value;
    /// The same position seen by the other player: win and loss swap, remoteness stays.
    #[inline]
    fn neg(self) -> Value {
        match self {
            Value::Win(r) => Value::Loss(r),
            Value::Loss(r) => Value::Win(r),
            v => v,
        }
    }
}

impl Ord for Value {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for Value {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.remoteness() {
            Some(r) => write!(f, "{} in {r}", self.outcome()),
            None => f.write_str("draw"),
        }
    }
}

impl FromStr for Value {
    type Err = String;
    /// Parses what `Display` writes: `win in 3`, `loss in 0`, `tie in 2`, `draw`.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s == "draw" {
            return Ok(Value::Draw);
        }
        let (o, r) = s.split_once(" in ").ok_or_else(|| {
            format!("expected a value like \"win in 3\" or \"draw\", found {s:?}")
        })?;
        let o: Outcome = o.parse()?;
        if o == Outcome::Draw {
            return Err(format!("a draw has no remoteness, found {s:?}"));
        }
        let r: u32 = r
            .parse()
            .map_err(|_| format!("expected a remoteness, found {r:?}"))?;
        Ok(Value::new(o, r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_order_values_by_preference_and_give_them_back() {
        let mut best_first = vec![];
        for r in [0, 1, 2, 7, u32::MAX - 1, u32::MAX] {
            best_first.push(Value::Win(r));
        }
        for r in [0, 1, 2, 7, u32::MAX - 1, u32::MAX] {
            best_first.push(Value::Tie(r));
        }
        best_first.push(Value::Draw);
        for r in [u32::MAX, u32::MAX - 1, 7, 2, 1, 0] {
            best_first.push(Value::Loss(r));
        }
        for (i, a) in best_first.iter().enumerate() {
            assert_eq!(Value::from_rank(a.rank()), *a);
            for (j, b) in best_first.iter().enumerate() {
                assert_eq!(a.cmp(b), j.cmp(&i), "{a:?} against {b:?}");
            }
        }
    }

    #[test]
    #[should_panic(expected = "not the rank of a value")]
    fn a_number_that_is_no_rank_is_refused() {
        Value::from_rank(1 << 32 | 5);
    }
}
