//! Un-moves: the positions one legal move before a position (un-captures and
//! un-promotions are the child tiers' work).

use super::{Bits, Chess, Pos, BLACK, KEEP, MAX_OTHERS};
use cozy_chess::BitBoard;
use retrograde_tier::UnmoveGame;

impl UnmoveGame for Chess {
    /// The positions of the same tier with a move to `p`: a king or piece of the side that
    /// just moved steps back to an empty square, capturing nothing, and the side to move
    /// in `p` is not in check there. (Positions with an en-passant right are reached by
    /// double pushes only, from other tiers.)
    fn unmoves(&self, p: &Pos, out: &mut Vec<Pos>) {
        self.unmoves_into(p, None, out);
    }

    /// The un-moves of a piece other than a king by number when the king pair needs no
    /// symmetry (the parent is then its own canonical form), the others as positions.
    fn unmoves_ranked(&self, p: &Pos, i: u64, ranked: &mut Vec<(u64, bool)>, out: &mut Vec<Pos>) {
        self.unmoves_into(p, Some((i, ranked)), out);
    }
}

impl Chess {
    /// [`UnmoveGame::unmoves`], with `ranked` (`p`'s number and the list) the parents
    /// [`UnmoveGame::unmoves_ranked`] numbers.
    #[inline(always)]
    fn unmoves_into(
        &self,
        p: &Pos,
        mut ranked: Option<(u64, &mut Vec<(u64, bool)>)>,
        out: &mut Vec<Pos>,
    ) {
        if p.ep() != 0 {
            return;
        }
        let b = Bits::of(p);
        let occ = b.occ();
        let mover = 1 - usize::from(p.stm());
        let mover_bit = if mover == 0 { 0 } else { BLACK };
        let victim = p.sq(usize::from(p.stm()));
        let mut base = *p;
        base.set_stm(mover as u8);
        // Whether the side to move in `p` is safe before the piece of `kind` came from `e`
        // to `from` (the general test, one per un-move).
        let safe = |kind: usize, from: u8, e: u8| -> bool {
            let moved = 1u64 << from | 1u64 << e;
            let mut before = b;
            before.col[mover] ^= moved;
            before.kind[kind] ^= moved;
            !before.attacked(victim, mover, before.col[mover], occ ^ moved)
        };
        // The squares a piece of `kind` on `from` can have come from, the side to move in
        // `p` not in check there. Usually one attack test for all of them: when the
        // mover's other pieces do not attack the victim's king with `from` empty, a piece
        // put on `e` only blocks lines, so the king is safe unless the moved piece itself
        // attacks it from `e`; and it does exactly when a piece of its kind on the king's
        // square reaches `e` (the squares between are the same, `e` and the king being
        // the ends). Otherwise (a discovered line, a check that `e` might block) each
        // square is tested.
        let origins = |kind: u8, from: u8| -> (u64, bool) {
            let empty = Bits::reach(kind, from, occ) & !occ;
            let vacated = occ & !(1u64 << from);
            let others = b.col[mover] & !(1u64 << from);
            if b.attacked(victim, mover, others, vacated) {
                (empty, true)
            } else {
                (empty & !Bits::reach(kind, victim, vacated), false)
            }
        };
        let from = p.sq(mover);
        let (empty, test) = origins(6, from);
        for e in BitBoard(empty) {
            let e = e as u8;
            if !test || safe(6, from, e) {
                let mut q = base;
                q.set_sq(mover, e);
                out.push(q);
            }
        }
        // The parent's number when a piece other than the king moved: the king pair is the
        // same, so with a pair that needs no symmetry (and colours kept) the parent is its
        // own canonical form; its number is `p`'s with the side to move (the block) and
        // the squares changed. `shift[k]`: where piece `k`'s digit starts.
        let n = p.mat().len();
        let mut shift = [0u32; MAX_OTHERS];
        let mut bits = 0;
        for k in (0..n).rev() {
            shift[k] = bits;
            bits += if p.mat().code(k) & 7 == 1 { 3 } else { 6 };
        }
        let mut numbered = match ranked.as_mut() {
            Some((i, list))
                if self.colouring(p) == KEEP
                    && self.to_canonical[usize::from(p.pawns())][p.king_pair()] == 1 =>
            {
                let pairs = self.pairs[usize::from(p.pawns())].len() as u64;
                // The block is the side to move: the mover's in the parent.
                let block = (pairs << bits).wrapping_mul(mover as u64);
                let own = (pairs << bits).wrapping_mul(u64::from(p.stm()));
                Some((i.wrapping_sub(own).wrapping_add(block), list))
            }
            _ => None,
        };
        for j in 0..n {
            let code = p.mat().code(j);
            let kind = code & 7;
            if code & BLACK != mover_bit || kind == 1 {
                continue;
            }
            let from = p.sq(2 + j);
            let (empty, test) = origins(kind, from);
            for e in BitBoard(empty) {
                let e = e as u8;
                if !test || safe(usize::from(kind), from, e) {
                    let mut q = base;
                    q.relocate(j, e);
                    match numbered.as_mut() {
                        Some((at, list)) => {
                            let mut r = *at;
                            for (k, &at) in shift.iter().enumerate().take(n) {
                                let d = u64::from(q.sq(2 + k)).wrapping_sub(u64::from(p.sq(2 + k)));
                                r = r.wrapping_add(d << at);
                            }
                            list.push((r, false));
                        }
                        None => out.push(q),
                    }
                }
            }
        }
    }
}
