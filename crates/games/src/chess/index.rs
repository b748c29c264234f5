//! The dense index of a tier's positions: from a position to its number and back, and
//! the positions of a range of numbers in order.

use super::{sq, Bits, Chess, Pos, Tier, BLACK, MAX_OTHERS, MAX_PIECES, MIRROR, NO_PAIR};
use cozy_chess::{get_pawn_attacks, Color};
use retrograde_tier::DenseIndex;

impl Chess {
    /// The kings' squares and the block (the side to move, or the en-passant file) of the
    /// index's top part `top` (`block * pairs + pair`) in tier `t`.
    #[inline]
    fn kings_and_block(&self, t: Tier, top: u64) -> (u8, u8, u8) {
        let pairs = &self.pairs[self.table(t)];
        // At most 8 blocks of 1806 pairs: a 32-bit division.
        let (top, len) = (top as u32, pairs.len() as u32);
        let (w, b) = pairs[(top % len) as usize];
        (w, b, (top / len) as u8)
    }

    /// Radix of each slot other than the kings in tier `t`: 8 for a pawn (its file), 64.
    #[inline]
    fn radix(t: Tier, i: usize) -> u64 {
        if t.mat.code(i) & 7 == 1 {
            8
        } else {
            64
        }
    }

    /// The position of tier `t` with king pair and block number `top` (`block * pairs +
    /// pair`) and the squares `sqs[2..]` of the other pieces, if it is one (see
    /// [`DenseIndex::unrank`]).
    #[inline]
    fn assemble(&self, t: Tier, top: u64, mut sqs: [u8; MAX_PIECES]) -> Option<Pos> {
        let (w, b, block) = self.kings_and_block(t, top);
        sqs[0] = w;
        sqs[1] = b;
        // Distinct squares; identical pieces in ascending order.
        let n = t.mat.len();
        let mut occ = 1u64 << w | 1u64 << b;
        for j in 0..n {
            let s = sqs[2 + j];
            if occ >> s & 1 != 0 {
                return None;
            }
            occ |= 1 << s;
            if j > 0 && t.mat.code(j) == t.mat.code(j - 1) && sqs[1 + j] > s {
                return None;
            }
        }
        let (stm, ep) = match t.ep {
            0 => (block, 0),
            1 => (1, block + 1),
            _ => (0, block + 1),
        };
        let p = Pos::new(sqs, ep, stm, t.mat);
        if ep != 0 {
            // The pawn that was pushed is there and the squares it crossed are empty.
            let (pawn_rank, crossed) = if stm == 1 {
                (3u8, [1u8, 2])
            } else {
                (4, [6, 5])
            };
            let f = ep - 1;
            let pusher = usize::from(1 - stm);
            let pawn = pawn_rank * 8 + f;
            let pusher_bit = if pusher == 0 { 0 } else { BLACK };
            let there = (0..n).any(|j| sqs[2 + j] == pawn && t.mat.code(j) == 1 | pusher_bit);
            if !there || crossed.iter().any(|&r| occ >> (r * 8 + f) & 1 != 0) {
                return None;
            }
        }
        let bits = Bits::of(&p);
        // The side not to move is not in check.
        let other = 1 - usize::from(stm);
        if bits.attacked(
            sqs[other],
            usize::from(stm),
            bits.col[usize::from(stm)],
            occ,
        ) {
            return None;
        }
        // The side to move can take en passant.
        if ep != 0 && !Chess::ep_capture_legal(&p, ep - 1) {
            return None;
        }
        Some(p)
    }
}

impl Chess {
    /// `f(k, position or none)` for `k` in `0..len`: the positions of tier `t` (not an
    /// en-passant one) with king pair and block `top` and the squares `sqs` of the pieces
    /// but the last, whose square is `sqs`'s last one plus `k` (its digit counted up), as
    /// [`Chess::assemble`] gives them. The other pieces are checked once: placed apart and
    /// in order, and whether they attack the king of the side not to move. When they do not
    /// (almost always), a square of the last piece holds a position unless it is taken, out
    /// of order, or one from which that piece attacks that king; when they do, the last
    /// piece might block the line, and each square is assembled in full.
    #[inline]
    fn run_of_last(
        &self,
        t: Tier,
        top: u64,
        mut sqs: [u8; MAX_PIECES],
        len: u64,
        mut f: impl FnMut(u64, Option<Pos>),
    ) {
        let last = t.mat.len() - 1;
        let (w, b, stm) = self.kings_and_block(t, top);
        sqs[0] = w;
        sqs[1] = b;
        let mut occ = 1u64 << w | 1u64 << b;
        let mut apart = true;
        for j in 0..last {
            let s = sqs[2 + j];
            apart &= occ >> s & 1 == 0
                && !(j > 0 && t.mat.code(j) == t.mat.code(j - 1) && sqs[1 + j] > s);
            occ |= 1 << s;
        }
        let first = sqs[2 + last];
        if !apart {
            for k in 0..len {
                f(k, None);
            }
            return;
        }
        // The board without the last piece.
        let mut bits = Bits {
            col: [1u64 << w, 1u64 << b],
            kind: [0; 7],
        };
        bits.kind[6] = 1u64 << w | 1u64 << b;
        for j in 0..last {
            let (c, at) = (t.mat.code(j), 1u64 << sqs[2 + j]);
            bits.col[usize::from(c & BLACK != 0)] |= at;
            bits.kind[usize::from(c & 7)] |= at;
        }
        let (us, other) = (usize::from(stm), 1 - usize::from(stm));
        let king = sqs[other];
        if bits.attacked(king, us, bits.col[us], occ) {
            for k in 0..len {
                sqs[2 + last] = first + k as u8;
                f(k, self.assemble(t, top, sqs));
            }
            return;
        }
        let code = t.mat.code(last);
        let checks = if usize::from(code & BLACK != 0) != us {
            0
        } else if code & 7 == 1 {
            let defender = if us == 0 { Color::Black } else { Color::White };
            get_pawn_attacks(sq(king), defender).0
        } else {
            Bits::reach(code & 7, king, occ)
        };
        let after = if last > 0 && code == t.mat.code(last - 1) {
            sqs[1 + last]
        } else {
            0
        };
        let bad = occ | checks;
        let mut p = Pos::new(sqs, 0, stm, t.mat);
        for k in 0..len {
            let s = first + k as u8;
            if bad >> s & 1 != 0 || s < after {
                f(k, None);
            } else {
                p.set_sq(2 + last, s);
                f(k, Some(p));
            }
        }
    }
}

impl DenseIndex for Chess {
    fn tier_size(&self, t: Tier) -> u64 {
        let blocks = if t.ep == 0 { 2 } else { 8 };
        let mut n = blocks * self.pairs[self.table(t)].len() as u64;
        for i in 0..t.mat.len() {
            n *= Chess::radix(t, i);
        }
        n
    }

    /// The two sides to move, where the side to move is the index's first digit (not in an
    /// en-passant tier, whose first digit is the pushed pawn's file) and no symmetry swaps
    /// it (not in a tier that is its own swap of colours, see [`Chess::swaps_inside`]).
    fn sides(&self, t: Tier) -> Option<u64> {
        let own_swap = self.colours[usize::from(t.mat.0 & 0xfff)] == MIRROR && t.flipped() == t;
        (t.ep == 0 && !own_swap).then(|| self.tier_size(t) / 2)
    }

    #[inline]
    fn rank(&self, p: &Pos) -> u64 {
        let table = usize::from(p.pawns());
        let block = if p.ep() == 0 {
            u64::from(p.stm())
        } else {
            u64::from(p.ep() - 1)
        };
        // A position whose kings are not a canonical pair is outside the index (the engine
        // ranks canonical positions only): its number is another position's.
        let pair = match self.pair_index[table][p.king_pair()] {
            NO_PAIR => 0,
            k => k,
        };
        let mut i = block * self.pairs[table].len() as u64 + u64::from(pair);
        for j in 0..p.mat().len() {
            let s = p.sq(2 + j);
            i = if p.mat().code(j) & 7 == 1 {
                i << 3 | u64::from(s & 7)
            } else {
                i << 6 | u64::from(s)
            };
        }
        i
    }

    /// The digits and the king pair only: no test of the squares, the checks or en passant.
    #[inline]
    fn unrank_solved(&self, t: Tier, i: u64) -> Option<Pos> {
        let (mut sqs, top) = digits(t, i);
        let block;
        (sqs[0], sqs[1], block) = self.kings_and_block(t, top);
        let (stm, ep) = match t.ep {
            0 => (block, 0),
            1 => (1, block + 1),
            _ => (0, block + 1),
        };
        Some(Pos::new(sqs, ep, stm, t.mat))
    }

    fn unrank(&self, t: Tier, i: u64) -> Option<Pos> {
        let (sqs, i) = digits(t, i);
        self.assemble(t, i, sqs)
    }

    /// The numbers of a range in order, the digits counted up one at a time instead of
    /// divided out of each number. Outside en-passant tiers the last piece's digit runs
    /// through its squares with everything else fixed ([`Chess::run_of_last`]): what the
    /// other pieces allow is found once for the run, and each square is a few bit tests.
    fn for_each_in(
        &self,
        t: Tier,
        range: std::ops::Range<u64>,
        mut f: impl FnMut(u64, Option<Pos>),
    ) {
        if range.is_empty() {
            return;
        }
        let n = t.mat.len();
        if t.ep == 0 && n > 0 {
            let last = n - 1;
            let radix = Chess::radix(t, last);
            let (mut sqs, mut top) = digits(t, range.start);
            let mut i = range.start;
            while i < range.end {
                let d = u64::from(sqs[2 + last]) % radix;
                let len = (radix - d).min(range.end - i);
                self.run_of_last(t, top, sqs, len, |k, p| f(i + k, p));
                i += len;
                if i == range.end {
                    break;
                }
                // The run ended at its last square: count the other digits up.
                (sqs, top) = digits(t, i);
            }
            return;
        }
        let mut radix = [0u8; MAX_OTHERS];
        let mut base = [0u8; MAX_OTHERS];
        for j in 0..n {
            radix[j] = Chess::radix(t, j) as u8;
            base[j] = if radix[j] == 8 { t.rank_of(j) * 8 } else { 0 };
        }
        let mut digits = [0u8; MAX_OTHERS];
        let mut top = range.start;
        for j in (0..n).rev() {
            let r = u64::from(radix[j]);
            digits[j] = (top % r) as u8;
            top /= r;
        }
        let mut sqs = [0u8; MAX_PIECES];
        for i in range {
            for j in 0..n {
                sqs[2 + j] = base[j] + digits[j];
            }
            f(i, self.assemble(t, top, sqs));
            // Count up: the last piece's digit first.
            let mut j = n;
            loop {
                if j == 0 {
                    top += 1;
                    break;
                }
                j -= 1;
                digits[j] += 1;
                if digits[j] < radix[j] {
                    break;
                }
                digits[j] = 0;
            }
        }
    }
}

/// The squares of the pieces other than the kings from an index of tier `t` (a pawn's file
/// on its tier's rank, another piece's square), and what is left of the index above them:
/// the side-to-move block and the king pair.
#[inline]
fn digits(t: Tier, mut i: u64) -> ([u8; MAX_PIECES], u64) {
    let n = t.mat.len();
    let mut sqs = [0u8; MAX_PIECES];
    for j in (0..n).rev() {
        if t.mat.code(j) & 7 == 1 {
            sqs[2 + j] = t.rank_of(j) * 8 + (i & 7) as u8;
            i >>= 3;
        } else {
            sqs[2 + j] = (i & 63) as u8;
            i >>= 6;
        }
    }
    (sqs, i)
}
