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

use retrograde_solve::Value;
use std::sync::atomic::{AtomicU16, AtomicU8, Ordering::Relaxed};

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

    /// The cell of `v`; `None` when its remoteness does not fit.
    fn encode(v: Value) -> Option<Self>;
    /// The value in the cell; `None` when undecided or a hole.
    fn decode(self) -> Option<Value>;
    /// Whether the cell holds a loss.
    fn is_loss(self) -> bool;
    /// The cell as a `u16` (for the on-disk format and tests).
    fn to_u16(self) -> u16;
    /// The cell from its `u16` form (the low bits, for `u8` cells).
    fn from_u16(v: u16) -> Self;
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
            fn to_u16(self) -> u16 {
                u16::from(self)
            }

            #[inline]
            fn from_u16(v: u16) -> $t {
                v as $t
            }
        }
    };
}

cell!(u8, AtomicU8, 8, 4);
cell!(u16, AtomicU16, 16, 16);

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(u8::from_u16(u16::from(u8::DRAW)), u8::DRAW);
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
}

impl AnyCells {
    /// The value in cell `i`, if it holds one (`None` past the end too).
    #[inline]
    pub fn value(&self, i: u64) -> Option<Value> {
        let i = usize::try_from(i).ok()?;
        match self {
            AnyCells::U8(v) => v.get(i)?.decode(),
            AnyCells::U16(v) => v.get(i)?.decode(),
        }
    }

    /// Cells in all.
    pub fn len(&self) -> usize {
        match self {
            AnyCells::U8(v) => v.len(),
            AnyCells::U16(v) => v.len(),
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
