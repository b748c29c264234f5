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

/// A value with a score: how much the player to move gets, and when the game ends.
///
/// The score is for the player to move, a signed integer; the outcome is its sign: a win if
/// it is positive, a loss if negative, a tie if 0 and the game ends, a draw if 0 and it never
/// ends. `remoteness` is the plies to the end (the player with a positive score hurries, the
/// one with a negative score stalls, at 0 both hurry), `None` when the game never ends. A
/// score other than 0 without remoteness is a game that never ends after points were
/// collected on the way (a tier game's rewards): the points collected count, and the
/// outcome is still their sign.
///
/// Ordered by the mover's preference, greater is better: the higher score first; at an equal
/// score, when it is positive or 0 the sooner end (and an end before none), when it is
/// negative the later end (and none before any end). With scores +1, -1 and 0 only, it is
/// [`Value`]'s order, and [`Scored::from`] a [`Value`] keeps it (the one home of both
/// orders is here).
///
/// ```
/// use retrograde_solve::{Outcome, Scored, Value};
/// let v = Scored::new(3, Some(11));
/// assert_eq!(v.outcome(), Outcome::Win);
/// assert_eq!(v.to_string(), "win by 3 in 11");
/// // A child worth -3 in 10 to its mover is worth 3 in 11 to us, if the move passes the turn.
/// assert_eq!(Scored::new(-3, Some(10)).through(false), v);
/// // A move that collects 2 points into a child worth 1 in 4 to the same player (go-again).
/// assert_eq!(Scored::new(1, Some(4)).through_with(true, 2), Scored::new(3, Some(5)));
/// assert!(Scored::new(2, Some(9)) > Scored::new(1, Some(1)));
/// assert!(Scored::new(-1, Some(9)) > Scored::new(-1, Some(1)));
/// assert!(Scored::TIE > Scored::DRAW);
/// assert_eq!(Scored::from(Value::Loss(4)), Scored::new(-1, Some(4)));
/// assert_eq!("loss by 2 in 4".parse::<Scored>().unwrap(), Scored::new(-2, Some(4)));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scored {
    /// The points for the player to move, from here to the end.
    pub score: i64,
    /// Plies to the end under the play described above; `None` when the game never ends.
    pub remoteness: Option<u32>,
}

impl Scored {
    /// A game that ends now, level.
    pub const TIE: Scored = Scored {
        score: 0,
        remoteness: Some(0),
    };
    /// A game that never ends and collects nothing: a draw.
    pub const DRAW: Scored = Scored {
        score: 0,
        remoteness: None,
    };
    /// The largest score (and the smallest is its negation), so that every score can be
    /// negated: `2^63 - 1`.
    pub const MAX_SCORE: i64 = i64::MAX;

    /// A value from its parts.
    #[inline]
    pub fn new(score: i64, remoteness: Option<u32>) -> Scored {
        Scored { score, remoteness }
    }

    /// The outcome: the sign of the score, or a tie or draw at 0.
    #[inline]
    pub fn outcome(self) -> Outcome {
        match (self.score.signum(), self.remoteness) {
            (1, _) => Outcome::Win,
            (-1, _) => Outcome::Loss,
            (_, Some(_)) => Outcome::Tie,
            (_, None) => Outcome::Draw,
        }
    }

    /// This child value as seen from a parent one move earlier: perspective flipped unless
    /// `keeps_turn`, one ply more.
    #[inline]
    pub fn through(self, keeps_turn: bool) -> Scored {
        self.through_with(keeps_turn, 0)
    }

    /// [`Scored::through`] for a move that collects `reward` points for its mover. The sum
    /// saturates at `±MAX_SCORE` (a game declares a range that keeps it far from there).
    #[inline]
    pub fn through_with(self, keeps_turn: bool, reward: i64) -> Scored {
        // -i64::MAX is the smallest score, so the negation cannot overflow.
        let child = if keeps_turn {
            self.score
        } else {
            -self.score.max(-Scored::MAX_SCORE)
        };
        let score = child.saturating_add(reward).max(-Scored::MAX_SCORE);
        Scored {
            score,
            remoteness: self.remoteness.map(|r| r.saturating_add(1)),
        }
    }

    /// The order at an equal score, greater is better (see the type's docs).
    #[inline]
    fn tiebreak(self) -> u64 {
        match (self.score < 0, self.remoteness) {
            (false, Some(r)) => 1 << 32 | u64::from(u32::MAX - r),
            (false, None) => 0,
            (true, None) => 1 << 33,
            (true, Some(r)) => u64::from(r),
        }
    }

    /// The value without its margin, where there is one: `None` for a game that never ends
    /// with points collected (which [`Value`] cannot say).
    #[inline]
    pub fn value(self) -> Option<Value> {
        match (self.outcome(), self.remoteness) {
            (Outcome::Draw, _) => Some(Value::Draw),
            (o, Some(r)) => Some(Value::new(o, r)),
            (_, None) => None,
        }
    }
}

impl From<Value> for Scored {
    /// A win, loss or tie as the scores +1, -1 and 0.
    #[inline]
    fn from(v: Value) -> Scored {
        let score = match v.outcome() {
            Outcome::Win => 1,
            Outcome::Loss => -1,
            Outcome::Tie | Outcome::Draw => 0,
        };
        Scored::new(score, v.remoteness())
    }
}

impl Neg for Scored {
    type Output = Scored;
    /// The same position seen by the other player: the score negated, remoteness kept.
    #[inline]
    fn neg(self) -> Scored {
        Scored::new(-self.score.max(-Scored::MAX_SCORE), self.remoteness)
    }
}

impl Ord for Scored {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        (self.score, self.tiebreak()).cmp(&(other.score, other.tiebreak()))
    }
}

impl PartialOrd for Scored {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Scored {
    /// `win by 3 in 11`, `loss by 2 in 4`, `tie in 0`, `draw`, and for a game that never ends
    /// after points were collected `win by 3, never ends`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = self.outcome();
        match (o, self.remoteness) {
            (Outcome::Draw, _) => f.write_str("draw"),
            (Outcome::Tie, Some(r)) => write!(f, "tie in {r}"),
            (_, Some(r)) => write!(f, "{o} by {} in {r}", self.score.unsigned_abs()),
            (_, None) => write!(f, "{o} by {}, never ends", self.score.unsigned_abs()),
        }
    }
}

impl FromStr for Scored {
    type Err = String;
    /// Parses what `Display` writes.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let bad = || {
            format!(
                "expected a value like \"win by 3 in 11\", \"tie in 2\" or \"draw\", found {s:?}"
            )
        };
        if s == "draw" {
            return Ok(Scored::DRAW);
        }
        if let Some(r) = s.strip_prefix("tie in ") {
            return Ok(Scored::new(0, Some(r.parse().map_err(|_| bad())?)));
        }
        let (o, rest) = s.split_once(" by ").ok_or_else(bad)?;
        let sign = match o {
            "win" => 1,
            "loss" => -1,
            _ => return Err(bad()),
        };
        let (margin, remoteness) = match rest.split_once(" in ") {
            Some((m, r)) => (m, Some(r.parse::<u32>().map_err(|_| bad())?)),
            None => (rest.strip_suffix(", never ends").ok_or_else(bad)?, None),
        };
        let margin: i64 = margin.parse().map_err(|_| bad())?;
        if margin <= 0 {
            return Err(bad());
        }
        Ok(Scored::new(sign * margin, remoteness))
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

    fn scored() -> impl proptest::strategy::Strategy<Value = Scored> {
        use proptest::prelude::*;
        (
            prop_oneof![-3i64..=3, Just(i64::MAX), Just(-i64::MAX), any::<i64>()],
            proptest::option::of(prop_oneof![0u32..5, Just(u32::MAX)]),
        )
            .prop_map(|(s, r)| Scored::new(s.max(-Scored::MAX_SCORE), r))
    }

    fn value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        (0u8..4, 0u32..6).prop_map(|(o, r)| Value::new(Outcome::from_code(o), r))
    }

    proptest::proptest! {
        #[test]
        fn scores_one_and_zero_are_the_unscored_values(a in value(), b in value(), keeps: bool) {
            let (sa, sb) = (Scored::from(a), Scored::from(b));
            proptest::prop_assert_eq!(sa.cmp(&sb), a.cmp(&b));
            proptest::prop_assert_eq!(sa.through(keeps), Scored::from(a.through(keeps)));
            proptest::prop_assert_eq!(-sa, Scored::from(-a));
            proptest::prop_assert_eq!(sa.outcome(), a.outcome());
            proptest::prop_assert_eq!(sa.value(), Some(a));
        }

        #[test]
        fn scored_values_print_and_parse_back(a in scored()) {
            proptest::prop_assert_eq!(a.to_string().parse::<Scored>(), Ok(a));
        }

        #[test]
        fn the_order_is_by_score_then_as_the_sign_says(a in scored(), b in scored()) {
            if a.score != b.score {
                proptest::prop_assert_eq!(a.cmp(&b), a.score.cmp(&b.score));
            } else if a.score >= 0 {
                // Sooner is better, and an end is better than none.
                let key = |v: Scored| v.remoteness.map_or(u64::MAX, u64::from);
                proptest::prop_assert_eq!(a.cmp(&b), key(b).cmp(&key(a)));
            } else {
                let key = |v: Scored| v.remoteness.map_or(u64::MAX, u64::from);
                proptest::prop_assert_eq!(a.cmp(&b), key(a).cmp(&key(b)));
            }
            proptest::prop_assert_eq!(-(-a), a);
        }
    }
}
