//! Placements: who owns which of a set of numbered items (a graph's vertices, a tier's
//! slots), and where its owner keeps each one.
//!
//! The engines are written once, over a [`Placement`]: a rank solves the items it owns, and
//! what crosses to another owner goes through an [`Exchange`](crate::exchange::Exchange).
//! One process is the trivial placement, [`Whole`] ([`Placement::ALONE`]): it owns
//! everything, an item's place is its number, and every test of ownership is a constant, so
//! the code for other owners compiles to nothing. The others:
//! - [`Blocks`]: units of consecutive items dealt in blocks of `k`, rotated by a hash of the
//!   block (a tier's slots: every region of a dense index is spread over every rank);
//! - [`Ranges`]: `k` consecutive id ranges (a graph's vertices: a rank reads its part of the
//!   file, whose ids are mostly its own).
//!
//! Every placement deals each item to exactly one owner (`place` and `global` are inverse;
//! tested below for every placement).

use crate::error::Error;

/// Who owns which of `0..size()` items, and where. See the [module docs](self).
pub trait Placement: Copy + Send + Sync + std::fmt::Debug {
    /// Whether one rank owns everything (then `owner` is always 0 and a place is the item's
    /// number): engines test this constant to leave out the exchange.
    const ALONE: bool;

    /// The number of items.
    fn size(&self) -> u64;

    /// The number of owners.
    fn ranks(&self) -> usize;

    /// Item `i`'s owner and its place in the owner's array.
    fn place(&self, i: u64) -> (usize, u64);

    /// The item at place `l` of rank `r`'s array.
    fn global(&self, r: usize, l: u64) -> u64;

    /// How many items rank `r` owns.
    fn len(&self, r: usize) -> u64;

    /// The owner of item `i`.
    #[inline]
    fn owner(&self, i: u64) -> usize {
        self.place(i).0
    }

    /// Calls `f(first place, items)` for the runs of consecutive items held at rank `r`'s
    /// places `lo..hi`, in order.
    fn runs(&self, r: usize, lo: u64, hi: u64, f: impl FnMut(u64, std::ops::Range<u64>));

    /// Calls `f(owner, first place, count)` for the runs of items `lo..hi` that one owner
    /// holds at consecutive places, in order: the inverse view of [`Placement::runs`].
    fn owners(&self, lo: u64, hi: u64, f: impl FnMut(usize, u64, u64));
}

/// One process owns all `size` items, each at the place of its number.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Whole {
    size: u64,
}

impl Whole {
    /// All of `0..size`.
    pub fn new(size: u64) -> Whole {
        Whole { size }
    }
}

impl Placement for Whole {
    const ALONE: bool = true;

    #[inline(always)]
    fn size(&self) -> u64 {
        self.size
    }
    #[inline(always)]
    fn ranks(&self) -> usize {
        1
    }
    #[inline(always)]
    fn place(&self, i: u64) -> (usize, u64) {
        (0, i)
    }
    #[inline(always)]
    fn global(&self, _: usize, l: u64) -> u64 {
        l
    }
    #[inline(always)]
    fn len(&self, _: usize) -> u64 {
        self.size
    }
    #[inline(always)]
    fn owner(&self, _: u64) -> usize {
        0
    }
    fn runs(&self, _: usize, lo: u64, hi: u64, mut f: impl FnMut(u64, std::ops::Range<u64>)) {
        if lo < hi {
            f(lo, lo..hi);
        }
    }
    fn owners(&self, lo: u64, hi: u64, mut f: impl FnMut(usize, u64, u64)) {
        if lo < hi {
            f(0, lo, hi - lo);
        }
    }
}

/// Items dealt to `k` ranks: units of `unit` consecutive items (a power of two), blocks of
/// `k` consecutive units, each rank owning one unit of every block, the block's units rotated
/// by a hash of the block's number (plain round robin, unit `u` to rank `u mod k`, gave one
/// rank of two 28% more of Quixo 4x4's canonical positions: the density of symmetry classes
/// follows a dense index's low bits). A rank's places are its units in order, one per block,
/// so place and item convert by arithmetic alone (no division).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Blocks {
    size: u64,
    unit: u64,
    /// `unit == 1 << shift`.
    shift: u32,
    k: u64,
    /// `ceil(2^64 / k)`: `n / k` is the high word of `n * magic` for `n < 2^32` (Lemire,
    /// Kaser and Kurz, "Faster remainder by direct computation", 2019). 0 when `k == 1`.
    magic: u64,
    /// `log2 k` when `k` is a power of two (shifts instead of multiplications), else 64.
    lk: u32,
}

impl Blocks {
    /// The dealing of `size` items to `k` ranks, in units of at most `max_unit` items (a
    /// power of two): about 8 units a rank for small sizes.
    pub fn new(size: u64, k: usize, max_unit: u64) -> Blocks {
        let k = k.max(1) as u64;
        let unit = (size / (8 * k))
            .next_power_of_two()
            .clamp(1, max_unit.max(1).next_power_of_two());
        Blocks {
            size,
            unit,
            shift: unit.trailing_zeros(),
            k,
            magic: if k == 1 {
                0
            } else {
                (u64::MAX / k).wrapping_add(1)
            },
            lk: if k.is_power_of_two() {
                k.trailing_zeros()
            } else {
                64
            },
        }
    }

    /// The items of a unit.
    pub fn unit(&self) -> u64 {
        self.unit
    }

    /// `log2` of [`Blocks::unit`].
    pub fn unit_shift(&self) -> u32 {
        self.shift
    }

    /// `(n / k, n % k)`, without a division for `n < 2^32`.
    #[inline]
    fn divmod(&self, n: u64) -> (u64, u64) {
        if self.lk < 64 {
            (n >> self.lk, n & (self.k - 1))
        } else if n >> 32 == 0 {
            let q = ((u128::from(self.magic) * u128::from(n)) >> 64) as u64;
            (q, n - q * self.k)
        } else {
            (n / self.k, n % self.k)
        }
    }

    /// The rotation of block `b`: a hash of `b` in `0..k`.
    #[inline]
    fn turn(&self, b: u64) -> u64 {
        let h = b.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        if self.lk < 64 {
            // The same value: (h * 2^lk) >> 32.
            h >> (32 - self.lk)
        } else {
            (h * self.k) >> 32
        }
    }
}

impl Placement for Blocks {
    const ALONE: bool = false;

    fn size(&self) -> u64 {
        self.size
    }

    fn ranks(&self) -> usize {
        self.k as usize
    }

    #[inline]
    fn place(&self, i: u64) -> (usize, u64) {
        if self.k == 1 {
            return (0, i);
        }
        let (b, j) = self.divmod(i >> self.shift);
        let mut r = j + self.turn(b);
        if r >= self.k {
            r -= self.k;
        }
        (r as usize, b << self.shift | (i & (self.unit - 1)))
    }

    #[inline]
    fn global(&self, r: usize, l: u64) -> u64 {
        if self.k == 1 {
            return l;
        }
        let b = l >> self.shift;
        let (r, t) = (r as u64, self.turn(b));
        let j = if r >= t { r - t } else { r + self.k - t };
        ((b * self.k + j) << self.shift) | (l & (self.unit - 1))
    }

    fn len(&self, r: usize) -> u64 {
        let units = self.size.div_ceil(self.unit);
        if units == 0 {
            return 0;
        }
        let blocks = units.div_ceil(self.k);
        let last = blocks - 1;
        let (r, t) = (r as u64, self.turn(last));
        // Rank `r`'s unit in the last block, if the block reaches it.
        let j = if self.k == 1 {
            0
        } else if r >= t {
            r - t
        } else {
            r + self.k - t
        };
        let u = last * self.k + j;
        let tail = if u >= units {
            0
        } else if u == units - 1 && self.size % self.unit != 0 {
            self.size % self.unit
        } else {
            self.unit
        };
        last * self.unit + tail
    }

    fn runs(&self, r: usize, lo: u64, hi: u64, mut f: impl FnMut(u64, std::ops::Range<u64>)) {
        let mut l = lo;
        while l < hi {
            let end = ((l / self.unit + 1) * self.unit).min(hi);
            let g = self.global(r, l);
            f(l, g..g + (end - l));
            l = end;
        }
    }

    fn owners(&self, lo: u64, hi: u64, mut f: impl FnMut(usize, u64, u64)) {
        let mut i = lo;
        while i < hi {
            let end = (((i >> self.shift) + 1) << self.shift).min(hi);
            let (owner, l) = self.place(i);
            f(owner, l, end - i);
            i = end;
        }
    }
}

/// `0..n` cut into `k` consecutive id ranges, rank `r` owning `n r / k .. n (r + 1) / k`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ranges {
    n: u64,
    k: usize,
}

impl Ranges {
    /// `n` items (at most `u32::MAX`) over `k` ranks.
    pub fn new(n: u64, k: usize) -> Self {
        Ranges {
            n: n.min(u32::MAX as u64),
            k: k.clamp(1, u32::MAX as usize),
        }
    }

    /// The first item of rank `r` (`r == k` gives `n`).
    #[inline]
    pub fn start(&self, r: usize) -> u32 {
        // n < 2^32 and r <= k < 2^32: the product fits a u64 (u128 division is slow, and
        // this runs for every edge).
        (self.n * r as u64 / self.k as u64) as u32
    }

    /// The rank that owns `v`.
    #[inline]
    pub fn owner(&self, v: u32) -> usize {
        // The last rank whose range starts at or before v.
        let mut r = (v as u64 * self.k as u64 / self.n.max(1)) as usize;
        r = r.min(self.k - 1);
        while r + 1 < self.k && self.start(r + 1) <= v {
            r += 1;
        }
        while r > 0 && self.start(r) > v {
            r -= 1;
        }
        r
    }

    /// Whether every rank owns fewer than 2^31 items (places are sent with a spare bit).
    ///
    /// # Errors
    /// [`Error::RankTooLarge`] when a rank would own 2^31 items or more.
    pub fn check(&self) -> Result<(), Error> {
        if (0..self.k).any(|r| self.start(r + 1) - self.start(r) >= 1 << 31) {
            return Err(Error::RankTooLarge {
                vertices: self.n,
                ranks: self.k,
            });
        }
        Ok(())
    }
}

impl Placement for Ranges {
    const ALONE: bool = false;

    fn size(&self) -> u64 {
        self.n
    }

    fn ranks(&self) -> usize {
        self.k
    }

    #[inline]
    fn place(&self, i: u64) -> (usize, u64) {
        let r = Ranges::owner(self, i as u32);
        (r, i - u64::from(self.start(r)))
    }

    #[inline]
    fn global(&self, r: usize, l: u64) -> u64 {
        u64::from(self.start(r)) + l
    }

    fn len(&self, r: usize) -> u64 {
        u64::from(self.start(r + 1) - self.start(r))
    }

    fn runs(&self, r: usize, lo: u64, hi: u64, mut f: impl FnMut(u64, std::ops::Range<u64>)) {
        if lo < hi {
            let g = self.global(r, lo);
            f(lo, g..g + (hi - lo));
        }
    }

    fn owners(&self, lo: u64, hi: u64, mut f: impl FnMut(usize, u64, u64)) {
        let mut i = lo;
        while i < hi {
            let (owner, l) = self.place(i);
            let end = u64::from(self.start(owner + 1)).min(hi);
            f(owner, l, end - i);
            i = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item has exactly one owner and place, `global` inverts `place`, and the runs
    /// list a rank's items in place order.
    fn deals_once<P: Placement>(p: P) {
        let size = p.size();
        let mut seen = vec![false; size as usize];
        for r in 0..p.ranks() {
            let mut listed = Vec::new();
            p.runs(r, 0, p.len(r), |l0, g| {
                assert_eq!(p.global(r, l0), g.start);
                listed.extend(g);
            });
            assert_eq!(listed.len() as u64, p.len(r), "{p:?} r {r}");
            for l in 0..p.len(r) {
                let i = p.global(r, l);
                assert_eq!(listed[l as usize], i);
                assert!(i < size, "{p:?} r {r} l {l}");
                assert!(!seen[i as usize]);
                seen[i as usize] = true;
                assert_eq!(p.place(i), (r, l));
                assert_eq!(p.owner(i), r);
            }
        }
        assert!(seen.iter().all(|&s| s), "{p:?}");
        // The owners' view lists the same places, item by item, from any cut.
        for (lo, hi) in [(0, size), (size / 3, size - size / 5)] {
            let mut i = lo;
            p.owners(lo, hi, |r, l, n| {
                for x in 0..n {
                    assert_eq!(p.place(i + x), (r, l + x), "{p:?}");
                }
                i += n;
            });
            assert_eq!(i, hi.max(lo), "{p:?}");
        }
    }

    #[test]
    fn every_placement_deals_every_item_once() {
        for size in [0u64, 1, 15, 16, 17, 100, 1000, 4097, 70_000] {
            deals_once(Whole::new(size));
            for k in 1..=5 {
                deals_once(Blocks::new(size, k, 1 << 12));
                deals_once(Ranges::new(size, k));
            }
        }
    }

    #[test]
    fn divmod_is_division() {
        for k in 2..=9u64 {
            let p = Blocks::new(1 << 20, k as usize, 1 << 12);
            let mut x = 0x2545_f491_4f6c_dd1du64;
            for n in (0..2000u64).chain([u32::MAX as u64 - 1, u32::MAX as u64, 1 << 32, u64::MAX]) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                for m in [n, x >> 32, x] {
                    assert_eq!(p.divmod(m), (m / k, m % k), "{m} / {k}");
                }
            }
        }
    }

    #[test]
    fn blocks_balance_every_rank() {
        // Each rank owns one unit of every block: lengths differ by at most one unit.
        for size in [1u64 << 20, 3_000_017, 43_046_721] {
            for k in 2..=7 {
                let p = Blocks::new(size, k, 1 << 12);
                let lens: Vec<u64> = (0..k).map(|r| p.len(r)).collect();
                assert_eq!(lens.iter().sum::<u64>(), size);
                let (lo, hi) = (lens.iter().min().unwrap(), lens.iter().max().unwrap());
                assert!(hi - lo <= p.unit, "size {size} k {k}: {lens:?}");
                // Even units do not all go to even ranks (the rotation varies by block).
                let evens = (0..64)
                    .filter(|&b| p.owner(b * k as u64 * p.unit) == 0)
                    .count();
                assert!(evens > 0 && evens < 64, "size {size} k {k}");
            }
        }
    }
}
