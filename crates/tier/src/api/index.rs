//! Helpers for dense indices of board games: ranks of sets of cells in colex order, and
//! bit gathering and scattering.
//!
//! A board game's tier often fixes how many cells each player holds; its positions are then
//! numbered by the colex rank of one player's cells among all sets of that size, times the
//! rank of the other's among the cells left ([`pext`] squeezes them together).
//!
//! ```
//! use retrograde_tier::index::{pdep, pext, Colex};
//! let c = Colex::new(9);
//! assert_eq!(c.binom(9, 3), 84);
//! // The sets of 2 cells in colex order: {0,1}, {0,2}, {1,2}, {0,3}, ...
//! assert_eq!(c.rank(0b1010), 4);
//! assert_eq!(c.unrank(4, 2), 0b1010);
//! assert_eq!(pext(0b1101_0000, 0b1111_0000), 0b1101);
//! assert_eq!(pdep(0b1101, 0b1111_0000), 0b1101_0000);
//! ```

/// Binomial coefficients and colex ranks of sets of up to `n` cells (n <= 64).
#[derive(Clone, Debug)]
pub struct Colex {
    n: u32,
    binom: Vec<u64>,
}

impl Colex {
    /// Tables for sets of cells `0..n`.
    ///
    /// # Panics
    /// When `n > 64`.
    pub fn new(n: u32) -> Colex {
        assert!(n <= 64, "at most 64 cells");
        let w = n as usize + 1;
        let mut binom = vec![0u64; w * w];
        for a in 0..w {
            binom[a * w] = 1;
            for k in 1..=a {
                binom[a * w + k] =
                    binom[(a - 1) * w + k - 1].saturating_add(binom[(a - 1) * w + k]);
            }
        }
        Colex { n, binom }
    }

    /// C(a, k), 0 when `k > a` (saturating past `u64::MAX`).
    #[inline]
    pub fn binom(&self, a: u32, k: u32) -> u64 {
        if k > a || a > self.n {
            return 0;
        }
        self.binom[(a * (self.n + 1) + k) as usize]
    }

    /// The colex rank of `set` among the sets of its size: the sum of C(cell, i + 1) over
    /// its cells in increasing order.
    #[inline]
    pub fn rank(&self, mut set: u64) -> u64 {
        let mut r = 0;
        let mut i = 1;
        while set != 0 {
            let c = set.trailing_zeros();
            r += self.binom(c, i);
            i += 1;
            set &= set - 1;
        }
        r
    }

    /// The set of `k` cells with colex rank `r`.
    #[inline]
    pub fn unrank(&self, mut r: u64, k: u32) -> u64 {
        let mut set = 0u64;
        let mut c = self.n;
        for i in (1..=k).rev() {
            // The largest c with C(c, i) <= r.
            c -= 1;
            while self.binom(c, i) > r {
                c -= 1;
            }
            r -= self.binom(c, i);
            set |= 1 << c;
        }
        set
    }
}

/// The bits of `bits` at the set positions of `mask`, packed to the low end.
#[inline]
pub fn pext(bits: u64, mut mask: u64) -> u64 {
    let mut out = 0;
    let mut k = 0;
    while mask != 0 {
        let b = mask & mask.wrapping_neg();
        if bits & b != 0 {
            out |= 1 << k;
        }
        k += 1;
        mask ^= b;
    }
    out
}

/// The low bits of `bits` spread over the set positions of `mask`, in order.
#[inline]
pub fn pdep(mut bits: u64, mut mask: u64) -> u64 {
    let mut out = 0;
    while mask != 0 {
        let b = mask & mask.wrapping_neg();
        if bits & 1 != 0 {
            out |= b;
        }
        bits >>= 1;
        mask ^= b;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_a_bijection() {
        let c = Colex::new(10);
        for k in 0..=10u32 {
            let mut seen = vec![false; c.binom(10, k) as usize];
            for set in 0u64..1 << 10 {
                if set.count_ones() == k {
                    let r = c.rank(set) as usize;
                    assert!(!seen[r]);
                    seen[r] = true;
                    assert_eq!(c.unrank(r as u64, k), set);
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
        for (bits, mask) in [
            (0xdead_beefu64, 0xf0f0_f0f0u64),
            (u64::MAX, 0x8000_0000_0000_0001),
        ] {
            assert_eq!(pdep(pext(bits, mask), mask), bits & mask);
        }
    }
}
