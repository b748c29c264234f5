//! The one encoding of a value in memory and on disk: a cell of one or two bytes.
//!
//! The top two bits are a tag, the rest the remoteness:
//!
//! | tag | meaning |
//! |-----|---------|
//! | 0   | special: 0 = undecided (while solving) or nothing stored, 1 = draw, 2 = hole |
//! | 1   | loss in `r` |
//! | 2   | win in `r` |
//! | 3   | tie in `r` |
//!
//! While a tier is solved, a position not yet decided holds its counter (of moves not yet
//! known to lose) in a special code: `OPEN_BASE + counter`, so that one compare-exchange
//! counts a position down or decides it. A `u8` cell keeps remoteness up to 63 and counters
//! up to 59, a `u16` one remoteness up to 16383 and counters up to 16367. Holes mark the numbers
//! of a dense index that are not solved (not positions, or not canonical) while a tier is
//! being solved; in a finished tier they are 0, like any number without a value.

use crate::api::game::{Scoring, TierGame};
use crate::stats::Stats;
use retrograde_graph::Primitive;
use retrograde_solve::{Outcome, Scored, Value};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};

/// What a decided cell holds: a [`Value`] (win, loss, tie or draw) in the one- and two-byte
/// cells, a [`Scored`] (by how much) in the four-byte cells of games with scores
/// ([`ScoreCell`]). The engine's rule is written once over it: a value is settled in a
/// *stage* (one without scores; with scores, one per `|score|`, the largest first), and in
/// its stage like a win, a loss, a tie or a draw.
pub trait Worth: Copy + Ord + std::fmt::Debug + Send + Sync + 'static {
    /// The stage a win or a loss is settled in: `()` without scores, `|score|` with them.
    type Stage: Copy + Ord + std::hash::Hash + std::fmt::Debug + Send + Sync + 'static;
    /// Whether values have scores (then a win or a loss may have no remoteness: a game that
    /// never ends after points were collected).
    const SCORED: bool;
    /// The value of `p`, where the game is over (`prim`: its primitive value; `None`: it
    /// has no moves).
    fn over<G: TierGame>(g: &G, p: &G::Position, prim: Option<Primitive>) -> Self;
    /// A child's value seen by the player who moves there: through the turn rule and the
    /// move's reward (0 without scores).
    fn through(self, keeps_turn: bool, reward: i64) -> Self;
    /// What the value is in its stage.
    fn class(self) -> Class<Self::Stage>;
    /// The value with scores (`+1`/`-1`/`0` without).
    fn scored(self) -> Scored;
    /// The value of a [`Scored`] (`None` for a game without scores when it has no outcome
    /// and remoteness: never for a value this type wrote).
    fn from_scored(s: Scored) -> Option<Self>;
    /// Counts `n` positions of this value.
    fn count(self, n: u64, st: &mut Stats);
    /// Whether the score is within `range` (always without scores).
    fn within(self, range: (i64, i64)) -> bool;
    /// A stage as a number (for messages between ranks), and back.
    fn stage_bits(s: Self::Stage) -> u64;
    /// The stage of [`Worth::stage_bits`].
    fn stage_of(bits: u64) -> Self::Stage;
}

/// A value as its stage sees it: won or lost (in the stage, at a remoteness or, with
/// scores, never ending), tied, or a draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Class<S> {
    /// Won, in stage `S`.
    Win(S, Option<u32>),
    /// Lost, in stage `S`.
    Loss(S, Option<u32>),
    /// Tied at a remoteness (score 0, the game ends).
    Tie(u32),
    /// Never ends, worth 0.
    Draw,
}

impl Worth for Value {
    type Stage = ();
    const SCORED: bool = false;
    #[inline]
    fn over<G: TierGame>(g: &G, _: &G::Position, prim: Option<Primitive>) -> Value {
        match prim.unwrap_or_else(|| g.no_move()) {
            Primitive::Win => Value::Win(0),
            Primitive::Loss => Value::Loss(0),
            Primitive::Tie => Value::Tie(0),
        }
    }
    #[inline]
    fn through(self, keeps_turn: bool, _: i64) -> Value {
        Value::through(self, keeps_turn)
    }
    #[inline]
    fn class(self) -> Class<()> {
        match self {
            Value::Win(r) => Class::Win((), Some(r)),
            Value::Loss(r) => Class::Loss((), Some(r)),
            Value::Tie(r) => Class::Tie(r),
            Value::Draw => Class::Draw,
        }
    }
    #[inline]
    fn scored(self) -> Scored {
        Scored::from(self)
    }
    #[inline]
    fn from_scored(s: Scored) -> Option<Value> {
        s.value()
    }
    #[inline]
    fn count(self, n: u64, st: &mut Stats) {
        st.count_many(self, n)
    }
    #[inline]
    fn within(self, _: (i64, i64)) -> bool {
        true
    }
    fn stage_bits(_: ()) -> u64 {
        0
    }
    fn stage_of(_: u64) {}
}

impl Worth for Scored {
    type Stage = u64;
    const SCORED: bool = true;
    #[inline]
    fn over<G: TierGame>(g: &G, p: &G::Position, _: Option<Primitive>) -> Scored {
        Scored::new(<G::Score as Scoring<G>>::terminal_score(g, p), Some(0))
    }
    #[inline]
    fn through(self, keeps_turn: bool, reward: i64) -> Scored {
        self.through_with(keeps_turn, reward)
    }
    #[inline]
    fn class(self) -> Class<u64> {
        let s = self.score.unsigned_abs();
        match (self.score.signum(), self.remoteness) {
            (1, r) => Class::Win(s, r),
            (-1, r) => Class::Loss(s, r),
            (_, Some(r)) => Class::Tie(r),
            (_, None) => Class::Draw,
        }
    }
    #[inline]
    fn scored(self) -> Scored {
        self
    }
    #[inline]
    fn from_scored(s: Scored) -> Option<Scored> {
        Some(s)
    }
    /// A game that never ends after points were collected counts as a win or a loss by
    /// their sign.
    fn count(self, n: u64, st: &mut Stats) {
        match self.value() {
            Some(v) => st.count_many(v, n),
            None if self.outcome() == Outcome::Win => st.win += n,
            None => st.loss += n,
        }
    }
    #[inline]
    fn within(self, (lo, hi): (i64, i64)) -> bool {
        (lo..=hi).contains(&self.score)
    }
    fn stage_bits(s: u64) -> u64 {
        s
    }
    fn stage_of(bits: u64) -> u64 {
        bits
    }
}

/// What the level propagation needs of a cell (`dense.rs`): an atomic twin, and open codes
/// that hold a position's counter while it is undecided. Value cells ([`Cell`]) and the
/// 4-byte cells of games with scores (`ScoreCell`) are both.
pub trait Open: Copy + Eq + Send + Sync + std::fmt::Debug + 'static {
    /// The atomic twin used by the parallel engine.
    type Atomic: Send + Sync;
    /// The largest counter an open cell holds.
    const MAX_COUNTER: u32;
    /// An open cell (undecided while solving) with this counter; `None` when it does not fit.
    fn open(counter: u32) -> Option<Self>;
    /// The counter of an open cell, `None` for any other.
    fn counter(self) -> Option<u32>;
    /// A new atomic cell.
    fn atomic(self) -> Self::Atomic;
    /// Relaxed load.
    fn load(a: &Self::Atomic) -> Self;
    /// Relaxed store.
    fn store(a: &Self::Atomic, v: Self);
    /// Relaxed compare-exchange; whether it took place.
    fn exchange(a: &Self::Atomic, current: Self, new: Self) -> bool;
    /// The plain value of an atomic cell.
    fn into_inner(a: Self::Atomic) -> Self;
}

/// A value cell: `u8` or `u16`.
pub trait Cell: Open + Ord + Default {
    /// What a decided cell holds.
    type V: Worth;
    /// Bytes a cell takes.
    const BYTES: usize;
    /// The largest remoteness a cell holds.
    const MAX_REMOTENESS: u32;
    /// Undecided, or no value stored.
    const UNDECIDED: Self;
    /// A draw.
    const DRAW: Self;
    /// Not solved here (a hole of the index, or a position that is not canonical).
    const HOLE: Self;

    /// The cell of `v`; `None` when its remoteness (or score) does not fit.
    fn encode(v: Self::V) -> Option<Self>;
    /// The value in the cell; `None` when undecided or a hole.
    fn decode(self) -> Option<Self::V>;
    /// Whether the cell holds a loss.
    fn is_loss(self) -> bool;
    /// The cell's bits (for messages between ranks and tests).
    fn to_bits(self) -> u32;
    /// The cell from its bits (the low ones, for narrower cells).
    fn from_bits(v: u32) -> Self;
    /// The bytes of the narrowest stored cell that holds this cell's value (files store a
    /// value cell in one byte when every value of the tier fits, else two; a cell with
    /// scores in four).
    fn stored_width(self) -> u32;
    /// Appends the cell as a stored one `width` bytes wide (at least
    /// [`Cell::stored_width`]): its value, or zero bytes for a cell without one (a hole;
    /// all ones with four-byte cells).
    fn push_stored(self, out: &mut Vec<u8>, width: u32);
    /// The cell of a stored one (`raw`: its bytes): a value, or [`Cell::UNDECIDED`] for a
    /// hole; `None` when they are neither.
    fn from_stored(raw: &[u8]) -> Option<Self>;
}

macro_rules! cell {
    ($t:ty, $atomic:ty, $bits:expr, $open:expr) => {
        impl Open for $t {
            type Atomic = $atomic;
            const MAX_COUNTER: u32 = (1 << ($bits - 2)) - 1 - $open;

            #[inline]
            fn open(counter: u32) -> Option<$t> {
                (counter <= Self::MAX_COUNTER).then(|| ($open + counter) as $t)
            }

            #[inline]
            fn counter(self) -> Option<u32> {
                (self >= $open && self >> ($bits - 2) == 0).then(|| u32::from(self - $open))
            }

            #[inline]
            fn atomic(self) -> $atomic {
                <$atomic>::new(self)
            }

            #[inline]
            fn load(a: &$atomic) -> $t {
                a.load(Relaxed)
            }

            #[inline]
            fn store(a: &$atomic, v: $t) {
                a.store(v, Relaxed)
            }

            #[inline]
            fn exchange(a: &$atomic, current: $t, new: $t) -> bool {
                a.compare_exchange(current, new, Relaxed, Relaxed).is_ok()
            }

            #[inline]
            fn into_inner(a: $atomic) -> $t {
                a.into_inner()
            }
        }

        impl Cell for $t {
            type V = Value;
            const BYTES: usize = std::mem::size_of::<$t>();
            const MAX_REMOTENESS: u32 = (1 << ($bits - 2)) - 1;
            const UNDECIDED: $t = 0;
            const DRAW: $t = 1;
            const HOLE: $t = 2;

            #[inline]
            fn encode(v: Value) -> Option<$t> {
                let (tag, r): ($t, u32) = match v {
                    Value::Draw => return Some(1),
                    Value::Loss(r) => (1, r),
                    Value::Win(r) => (2, r),
                    Value::Tie(r) => (3, r),
                };
                (r <= Self::MAX_REMOTENESS).then(|| tag << ($bits - 2) | r as $t)
            }

            #[inline]
            fn decode(self) -> Option<Value> {
                let r = u32::from(self & ((1 << ($bits - 2)) - 1));
                match self >> ($bits - 2) {
                    1 => Some(Value::Loss(r)),
                    2 => Some(Value::Win(r)),
                    3 => Some(Value::Tie(r)),
                    _ => (self == 1).then_some(Value::Draw),
                }
            }

            #[inline]
            fn is_loss(self) -> bool {
                self >> ($bits - 2) == 1
            }

            #[inline]
            fn to_bits(self) -> u32 {
                u32::from(self)
            }

            #[inline]
            fn from_bits(v: u32) -> $t {
                v as $t
            }

            #[inline]
            fn stored_width(self) -> u32 {
                match self.decode() {
                    Some(v) if u8::encode(v).is_none() => 2,
                    _ => 1,
                }
            }

            #[inline]
            fn push_stored(self, out: &mut Vec<u8>, width: u32) {
                match (self.decode(), width) {
                    (None, 1) => out.push(u8::UNDECIDED),
                    (None, _) => out.extend_from_slice(&u16::UNDECIDED.to_le_bytes()),
                    (Some(v), 1) => out.push(u8::encode(v).expect("checked: fits")),
                    (Some(v), _) => out
                        .extend_from_slice(&u16::encode(v).expect("a cell's value").to_le_bytes()),
                }
            }

            #[inline]
            fn from_stored(raw: &[u8]) -> Option<$t> {
                let (v, hole) = match *raw {
                    [c] => (c.decode(), c == u8::UNDECIDED),
                    [a, b] => {
                        let c = u16::from_le_bytes([a, b]);
                        (c.decode(), c == u16::UNDECIDED)
                    }
                    _ => return None,
                };
                match v {
                    Some(v) => <$t>::encode(v),
                    None => hole.then_some(<$t>::UNDECIDED),
                }
            }
        }
    };
}

cell!(u8, AtomicU8, 8, 4);
cell!(u16, AtomicU16, 16, 16);

/// A value with scores in 4 bytes: the score plus [`ScoreCell::BIAS`] in the high 16 bits,
/// the remoteness in the low 16 (`0xFFFF`: none). `u32::MAX` is a hole (and what a finished
/// tier holds where no position is); while a tier is solved, an open cell holds `0xFFFF`
/// in the high bits (no score) and its counter in the low ones.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct ScoreCell(pub u32);

// SAFETY: a transparent `u32`: every bit pattern is a cell, and zero is one.
unsafe impl bytemuck::Zeroable for ScoreCell {}
// SAFETY: as above; no padding.
unsafe impl bytemuck::Pod for ScoreCell {}

impl ScoreCell {
    /// Added to a score in the high bits.
    pub const BIAS: i64 = 0x7FFF;
    /// The largest score a cell holds (and the least is its negation).
    pub const MAX_SCORE: i64 = crate::api::game::MAX_SCORE;
}

impl Open for ScoreCell {
    type Atomic = AtomicU32;
    const MAX_COUNTER: u32 = 0xFFFE;

    #[inline]
    fn open(counter: u32) -> Option<ScoreCell> {
        (counter <= Self::MAX_COUNTER).then_some(ScoreCell(0xFFFF_0000 | counter))
    }
    #[inline]
    fn counter(self) -> Option<u32> {
        (self.0 >> 16 == 0xFFFF && self != Self::HOLE).then_some(self.0 & 0xFFFF)
    }
    #[inline]
    fn atomic(self) -> AtomicU32 {
        AtomicU32::new(self.0)
    }
    #[inline]
    fn load(a: &AtomicU32) -> ScoreCell {
        ScoreCell(a.load(Relaxed))
    }
    #[inline]
    fn store(a: &AtomicU32, v: ScoreCell) {
        a.store(v.0, Relaxed)
    }
    #[inline]
    fn exchange(a: &AtomicU32, current: ScoreCell, new: ScoreCell) -> bool {
        a.compare_exchange(current.0, new.0, Relaxed, Relaxed)
            .is_ok()
    }
    #[inline]
    fn into_inner(a: AtomicU32) -> ScoreCell {
        ScoreCell(a.into_inner())
    }
}

impl Cell for ScoreCell {
    type V = Scored;
    const BYTES: usize = 4;
    const MAX_REMOTENESS: u32 = 0xFFFE;
    const UNDECIDED: ScoreCell = ScoreCell(u32::MAX);
    const DRAW: ScoreCell = ScoreCell((ScoreCell::BIAS as u32) << 16 | 0xFFFF);
    const HOLE: ScoreCell = ScoreCell(u32::MAX);

    #[inline]
    fn encode(v: Scored) -> Option<ScoreCell> {
        if v.score.unsigned_abs() > Self::MAX_SCORE as u64 {
            return None;
        }
        let r = match v.remoteness {
            Some(r) if r <= Self::MAX_REMOTENESS => r,
            Some(_) => return None,
            None => 0xFFFF,
        };
        Some(ScoreCell(((v.score + Self::BIAS) as u32) << 16 | r))
    }
    #[inline]
    fn decode(self) -> Option<Scored> {
        if self.0 >> 16 == 0xFFFF {
            return None;
        }
        let r = self.0 & 0xFFFF;
        Some(Scored::new(
            i64::from(self.0 >> 16) - Self::BIAS,
            (r != 0xFFFF).then_some(r),
        ))
    }
    #[inline]
    fn is_loss(self) -> bool {
        i64::from(self.0 >> 16) < Self::BIAS
    }
    #[inline]
    fn to_bits(self) -> u32 {
        self.0
    }
    #[inline]
    fn from_bits(v: u32) -> ScoreCell {
        ScoreCell(v)
    }
    #[inline]
    fn stored_width(self) -> u32 {
        4
    }
    #[inline]
    fn push_stored(self, out: &mut Vec<u8>, _: u32) {
        let c = if self.decode().is_some() {
            self
        } else {
            ScoreCell::UNDECIDED
        };
        out.extend_from_slice(&c.0.to_le_bytes())
    }
    #[inline]
    fn from_stored(raw: &[u8]) -> Option<ScoreCell> {
        let c = ScoreCell(u32::from_le_bytes(raw.try_into().ok()?));
        (c == ScoreCell::UNDECIDED || c.decode().is_some()).then_some(c)
    }
}

/// A position's cell while its tier is solved with one byte a slot (the engine's class
/// cells, `engine/classes.rs`): its class once decided, else its counter. The remoteness
/// (and with scores the score) is not in the cell: the levels log each level's positions,
/// and the values are made from the log and the classes when the tier is finished.
///
/// | code | meaning |
/// |------|---------|
/// | 0    | a hole (not solved here), or not yet set |
/// | 1    | won |
/// | 2    | lost |
/// | 3    | tied |
/// | 4    | a draw, found at init (a position whose moves all leave the tier, the best a draw) |
/// | 5    | open, its counter too big for the byte: kept in a side table ([`ClassCell::ESCAPE`]) |
/// | 6 + n | open, with counter `n` (at most [`ClassCell::MAX_COUNTER`]) |
///
/// What is still open at the end is a draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct ClassCell(pub(crate) u8);

impl ClassCell {
    /// A hole, or not yet set.
    pub(crate) const HOLE: ClassCell = ClassCell(0);
    /// Won.
    pub(crate) const WIN: ClassCell = ClassCell(1);
    /// Lost.
    pub(crate) const LOSS: ClassCell = ClassCell(2);
    /// Tied.
    pub(crate) const TIE: ClassCell = ClassCell(3);
    /// A draw decided at init.
    pub(crate) const DRAW: ClassCell = ClassCell(4);
    /// Open, with a counter past [`ClassCell::MAX_COUNTER`]: the counter is elsewhere.
    pub(crate) const ESCAPE: ClassCell = ClassCell(5);
    /// The code of an open cell with counter 0.
    const OPEN: u8 = 6;
    /// The largest counter the byte holds.
    pub(crate) const MAX_COUNTER: u32 = (u8::MAX - Self::OPEN) as u32;

    /// An open cell with this counter; `None` when it does not fit (then the cell is
    /// [`ClassCell::ESCAPE`] and the counter goes to a side table).
    #[inline]
    pub(crate) fn open(counter: u32) -> Option<ClassCell> {
        (counter <= Self::MAX_COUNTER).then(|| ClassCell(Self::OPEN + counter as u8))
    }

    /// The counter of an open cell that holds it; `None` for any other (an escaped one
    /// too).
    #[inline]
    pub(crate) fn counter(self) -> Option<u32> {
        (self.0 >= Self::OPEN).then(|| u32::from(self.0 - Self::OPEN))
    }

    /// Whether the position is undecided (its counter in the byte, or escaped).
    #[inline]
    pub(crate) fn is_open(self) -> bool {
        self.0 >= Self::ESCAPE.0
    }

    /// The cell of a position decided as `v` (its class; a draw's own code).
    #[inline]
    pub(crate) fn of<V: Worth>(v: V) -> ClassCell {
        match v.class() {
            Class::Win(..) => Self::WIN,
            Class::Loss(..) => Self::LOSS,
            Class::Tie(_) => Self::TIE,
            Class::Draw => Self::DRAW,
        }
    }

    /// Which of a level's three values (won, lost, tied) a decided cell takes; `None` for
    /// a cell that is not won, lost or tied.
    #[inline]
    pub(crate) fn which(self) -> Option<usize> {
        matches!(self, Self::WIN | Self::LOSS | Self::TIE).then(|| usize::from(self.0 - 1))
    }

    /// The value cell of a cell no level logged: a hole's is [`Cell::UNDECIDED`], a draw's
    /// or an open one's [`Cell::DRAW`]; `None` for a won, lost or tied one (its value is in
    /// the log).
    #[inline]
    pub(crate) fn unlogged<C: Cell>(self) -> Option<C> {
        match self {
            Self::HOLE => Some(C::UNDECIDED),
            c if c.which().is_some() => None,
            _ => Some(C::DRAW),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_cells_round_trip_values_and_holes() {
        fn check<C: Cell + std::fmt::Debug>(cells: &[C], width: u32) {
            for &c in cells {
                let mut raw = Vec::new();
                c.push_stored(&mut raw, width);
                assert_eq!(raw.len(), width as usize);
                let back = C::from_stored(&raw).expect("a stored cell reads back");
                assert_eq!(back.decode(), c.decode(), "{c:?} at width {width}");
                if c.decode().is_none() {
                    assert_eq!(back, C::UNDECIDED);
                    assert!(
                        raw.iter().all(|&b| b == raw[0]),
                        "a hole is all zeros (or ones)"
                    );
                }
            }
        }
        let vals = [Value::Win(1), Value::Loss(0), Value::Tie(7), Value::Draw];
        let small: Vec<u16> = vals.iter().map(|&v| u16::encode(v).unwrap()).collect();
        for width in [1, 2] {
            check(&small, width);
            check(&[u16::UNDECIDED, u16::HOLE, u16::open(3).unwrap()], width);
            check(
                &[u8::UNDECIDED, u8::HOLE, u8::encode(Value::Win(5)).unwrap()],
                width,
            );
        }
        check(&[u16::encode(Value::Loss(300)).unwrap()], 2);
        let scored = [
            ScoreCell::encode(Scored::from(Value::Win(3))).unwrap(),
            ScoreCell::UNDECIDED,
        ];
        check(&scored, 4);
        // Stored bytes that are neither a value nor a hole are refused.
        assert_eq!(u8::from_stored(&[u8::HOLE]), None);
        assert_eq!(u8::from_stored(&[1, 2, 3]), None);
    }

    #[test]
    fn class_cells_hold_classes_and_counters_apart() {
        let special = [
            ClassCell::HOLE,
            ClassCell::WIN,
            ClassCell::LOSS,
            ClassCell::TIE,
            ClassCell::DRAW,
        ];
        for c in special {
            assert_eq!((c.counter(), c.is_open()), (None, false), "{c:?}");
        }
        assert_eq!(ClassCell::ESCAPE.counter(), None);
        assert!(ClassCell::ESCAPE.is_open());
        for n in [0, 1, 100, ClassCell::MAX_COUNTER] {
            let c = ClassCell::open(n).unwrap();
            assert_eq!(c.counter(), Some(n));
            assert!(c.is_open() && c.which().is_none());
            assert!(!special.contains(&c) && c != ClassCell::ESCAPE);
        }
        assert_eq!(ClassCell::MAX_COUNTER, 249);
        assert_eq!(ClassCell::open(ClassCell::MAX_COUNTER + 1), None);
        // Every byte is one thing: a special code, the escape, or one counter.
        let mut counters: Vec<u32> = (0..=255u8).filter_map(|b| ClassCell(b).counter()).collect();
        counters.dedup();
        assert_eq!(counters.len(), 250);
        // Classes of values, and which of a level's values each takes.
        assert_eq!(ClassCell::of(Value::Win(7)), ClassCell::WIN);
        assert_eq!(ClassCell::of(Value::Loss(0)), ClassCell::LOSS);
        assert_eq!(ClassCell::of(Value::Tie(3)), ClassCell::TIE);
        assert_eq!(ClassCell::of(Value::Draw), ClassCell::DRAW);
        assert_eq!(ClassCell::of(Scored::new(-4, None)), ClassCell::LOSS);
        assert_eq!(ClassCell::of(Scored::new(0, None)), ClassCell::DRAW);
        assert_eq!(ClassCell::of(Scored::new(0, Some(2))), ClassCell::TIE);
        let which: Vec<Option<usize>> = special.iter().map(|c| c.which()).collect();
        assert_eq!(which, [None, Some(0), Some(1), Some(2), None]);
        // What a cell that no level logged becomes.
        assert_eq!(ClassCell::HOLE.unlogged::<u16>(), Some(u16::UNDECIDED));
        assert_eq!(ClassCell::DRAW.unlogged::<u16>(), Some(u16::DRAW));
        assert_eq!(ClassCell::ESCAPE.unlogged::<u8>(), Some(u8::DRAW));
        let open = ClassCell::open(3).unwrap();
        assert_eq!(open.unlogged::<ScoreCell>(), Some(ScoreCell::DRAW));
        assert_eq!(ClassCell::WIN.unlogged::<u16>(), None);
    }

    #[test]
    fn round_trips() {
        for v in [
            Value::Win(0),
            Value::Win(63),
            Value::Loss(5),
            Value::Tie(0),
            Value::Tie(63),
            Value::Draw,
        ] {
            assert_eq!(u8::encode(v).and_then(Cell::decode), Some(v));
            assert_eq!(u16::encode(v).and_then(Cell::decode), Some(v));
        }
        assert_eq!(u8::encode(Value::Win(64)), None);
        assert_eq!(
            u16::encode(Value::Loss(16383)).and_then(Cell::decode),
            Some(Value::Loss(16383))
        );
        assert_eq!(u16::encode(Value::Loss(16384)), None);
        for c in [u16::UNDECIDED, u16::HOLE] {
            assert_eq!(c.decode(), None);
        }
        assert!(u16::encode(Value::Loss(3)).unwrap().is_loss());
        assert!(!u16::encode(Value::Win(3)).unwrap().is_loss());
        assert_eq!(u8::from_bits(u8::DRAW.to_bits()), u8::DRAW);
        // Open cells hold counters, and are neither values nor the special codes.
        for c in [0, 1, 59] {
            let o = u8::open(c).unwrap();
            assert_eq!((o.counter(), o.decode()), (Some(c), None));
        }
        assert_eq!(u8::open(60), None);
        assert_eq!(u16::open(16367).unwrap().counter(), Some(16367));
        assert_eq!(u16::open(16368), None);
        for c in [
            u16::UNDECIDED,
            u16::DRAW,
            u16::HOLE,
            u16::encode(Value::Win(3)).unwrap(),
        ] {
            assert_eq!(c.counter(), None);
        }
    }
}

/// Cells of either width, for code that does not know the width at compile time.
#[derive(Clone, Debug)]
pub enum AnyCells {
    /// One-byte cells.
    U8(std::sync::Arc<Vec<u8>>),
    /// Two-byte cells.
    U16(std::sync::Arc<Vec<u16>>),
    /// Four-byte cells with scores.
    U32(std::sync::Arc<Vec<ScoreCell>>),
}

impl AnyCells {
    /// The value in cell `i` with its score (`+1`/`-1`/`0` without scores), if it holds
    /// one (`None` past the end too).
    #[inline]
    pub fn value(&self, i: u64) -> Option<Scored> {
        let i = usize::try_from(i).ok()?;
        match self {
            AnyCells::U8(v) => v.get(i)?.decode().map(Scored::from),
            AnyCells::U16(v) => v.get(i)?.decode().map(Scored::from),
            AnyCells::U32(v) => v.get(i)?.decode(),
        }
    }

    /// Cells in all.
    pub fn len(&self) -> usize {
        match self {
            AnyCells::U8(v) => v.len(),
            AnyCells::U16(v) => v.len(),
            AnyCells::U32(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of memory.
    pub fn bytes(&self) -> u64 {
        match self {
            AnyCells::U8(v) => v.len() as u64,
            AnyCells::U16(v) => 2 * v.len() as u64,
            AnyCells::U32(v) => 4 * v.len() as u64,
        }
    }
}

/// Conversions between a width and [`AnyCells`]; plain old data for files.
pub trait CellArray: Cell + bytemuck::Pod {
    /// Wraps cells of this width.
    fn wrap(v: std::sync::Arc<Vec<Self>>) -> AnyCells;
}

impl CellArray for u8 {
    fn wrap(v: std::sync::Arc<Vec<u8>>) -> AnyCells {
        AnyCells::U8(v)
    }
}

impl CellArray for u16 {
    fn wrap(v: std::sync::Arc<Vec<u16>>) -> AnyCells {
        AnyCells::U16(v)
    }
}

impl CellArray for ScoreCell {
    fn wrap(v: std::sync::Arc<Vec<ScoreCell>>) -> AnyCells {
        AnyCells::U32(v)
    }
}
