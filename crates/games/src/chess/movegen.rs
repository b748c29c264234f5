//! Move generation: the positions after each legal move, from attack tables on the
//! position's bitboards.

use super::{sq, Bits, Chess, Pos, BLACK};
use cozy_chess::{
    get_between_rays, get_bishop_rays, get_king_moves, get_pawn_attacks, get_rook_rays, BitBoard,
    Color,
};

impl Chess {
    /// Calls `f` with the position after each legal move of `p` until it returns true;
    /// returns whether it did (so `children(p, |_| true)` says whether `p` has a move).
    ///
    /// Moves come from the crate's attack tables on the position's bitboards. A move is
    /// legal when the mover's king is not attacked after it; that is tested only where it
    /// can fail: king moves, moves of pinned pieces, every move out of check, and en
    /// passant (which empties two squares of a rank). Tested against the crate's own
    /// legal moves (`Chess::legal_moves`), which `play` and `query` use for the moves'
    /// names.
    pub fn children(&self, p: &Pos, f: impl FnMut(Pos) -> bool) -> bool {
        Chess::generate::<false>(p, f).0
    }

    /// [`Chess::children`], and with `QUIET` the quiet moves of the king and the pieces
    /// (no pawn, no capture: the moves that stay in the tier of a position without an
    /// en-passant right) are only counted, not made: returns whether `f` returned true, and
    /// that count.
    #[inline]
    pub(super) fn generate<const QUIET: bool>(
        p: &Pos,
        mut f: impl FnMut(Pos) -> bool,
    ) -> (bool, usize) {
        let mut quiet = 0;
        let b = Bits::of(p);
        let us = usize::from(p.stm());
        let them = 1 - us;
        let occ = b.occ();
        let ours = b.col[us];
        let theirs = b.col[them];
        let king = p.sq(us);
        let ks = sq(king);
        let n = p.mat().len();
        let our_bit = if us == 0 { 0 } else { BLACK };
        // Every square side `them` attacks with our king off the board: where the king
        // cannot go (a piece it would take does not guard its own square).
        let danger = b.attacks(them, occ & !(1u64 << king));
        let in_check = danger >> king & 1 != 0;
        // Our pieces alone between our king and an enemy slider on its line.
        let mut pinned = 0u64;
        let snipers = (get_rook_rays(ks).0 & theirs & (b.kind[4] | b.kind[5]))
            | (get_bishop_rays(ks).0 & theirs & (b.kind[3] | b.kind[5]));
        for s in BitBoard(snipers) {
            let between = get_between_rays(ks, s).0 & occ;
            if between.count_ones() == 1 {
                pinned |= between & ours;
            }
        }
        // Whether moving our piece `from` -> `to`, capturing `victim` (a bit or 0), leaves
        // our king safe.
        let safe = |from: u8, to: u8, victim: u64, always: bool| -> bool {
            if !always && !in_check && pinned >> from & 1 == 0 {
                return true;
            }
            let o = (occ & !(1u64 << from) & !victim) | 1u64 << to;
            !b.attacked(king, them, theirs & !victim, o)
        };
        let mut base = *p;
        base.set_stm(base.stm() ^ 1);
        base.set_ep(0);
        // King moves.
        let mut steps = get_king_moves(ks).0 & !ours & !b.kind[6] & !danger;
        if QUIET {
            quiet += (steps & !theirs).count_ones() as usize;
            steps &= theirs;
        }
        for t in BitBoard(steps) {
            let t = t as u8;
            let victim = theirs & 1u64 << t;
            let mut q = base;
            q.set_sq(us, t);
            if victim != 0 {
                q.remove(p.slot_at(t).expect("a piece is captured"));
            }
            if f(q) {
                return (true, quiet);
            }
        }
        // Other pieces.
        let last: u8 = if us == 0 { 7 } else { 0 };
        for j in 0..n {
            let code = p.mat().code(j);
            if code & BLACK != our_bit {
                continue;
            }
            let from = p.sq(2 + j);
            let kind = code & 7;
            if kind != 1 {
                let mut targets = Bits::reach(kind, from, occ) & !ours & !b.kind[6];
                if QUIET {
                    let empty = targets & !theirs;
                    if !in_check && pinned >> from & 1 == 0 {
                        quiet += empty.count_ones() as usize;
                    } else {
                        for t in BitBoard(empty) {
                            quiet += usize::from(safe(from, t as u8, 0, false));
                        }
                    }
                    targets &= theirs;
                }
                for t in BitBoard(targets) {
                    let t = t as u8;
                    let victim = theirs & 1u64 << t;
                    if !safe(from, t, victim, false) {
                        continue;
                    }
                    let mut q = base;
                    let mut jj = j;
                    if victim != 0 {
                        let c = p.slot_at(t).expect("a piece is captured");
                        q.remove(c);
                        if c < j {
                            jj -= 1;
                        }
                    }
                    q.relocate(jj, t);
                    if f(q) {
                        return (true, quiet);
                    }
                }
                continue;
            }
            let (targets, count) = Chess::pawn_targets(p, &b, from, occ);
            for &(to, victim, double) in &targets[..count] {
                let vbit = if victim < 64 { 1u64 << victim } else { 0 };
                if !safe(from, to, vbit, victim < 64 && victim != to) {
                    continue;
                }
                let mut q = base;
                let mut jj = j;
                if victim < 64 {
                    let c = p.slot_at(victim).expect("a piece is captured");
                    q.remove(c);
                    if c < j {
                        jj -= 1;
                    }
                }
                if to >> 3 == last {
                    q.remove(jj);
                    for kind in 2..=5 {
                        let mut r = q;
                        r.insert(kind | our_bit, to);
                        if f(r) {
                            return (true, quiet);
                        }
                    }
                    continue;
                }
                q.relocate(jj, to);
                if double && Chess::ep_capture_legal(&q, to & 7) {
                    q.set_ep((to & 7) + 1);
                }
                if f(q) {
                    return (true, quiet);
                }
            }
        }
        (false, quiet)
    }

    /// Where the pawn of the side to move on `from` can go, with `occ` the occupied
    /// squares: (to, victim's square or 64, double push), at most two pushes, two captures
    /// and en passant; and how many.
    #[inline]
    fn pawn_targets(p: &Pos, b: &Bits, from: u8, occ: u64) -> ([(u8, u8, bool); 5], usize) {
        let us = usize::from(p.stm());
        let theirs = b.col[1 - us];
        let (step, start, colour): (i8, u8, Color) = match us {
            0 => (8, 1, Color::White),
            _ => (-8, 6, Color::Black),
        };
        let mut targets = [(0u8, 64u8, false); 5];
        let mut count = 0;
        let one = (from as i8 + step) as u8;
        if occ >> one & 1 == 0 {
            targets[count] = (one, 64, false);
            count += 1;
            let two = (one as i8 + step) as u8;
            if from >> 3 == start && occ >> two & 1 == 0 {
                targets[count] = (two, 64, true);
                count += 1;
            }
        }
        let attacks = get_pawn_attacks(sq(from), colour).0;
        for t in BitBoard(attacks & theirs & !b.kind[6]) {
            targets[count] = (t as u8, t as u8, false);
            count += 1;
        }
        if p.ep() != 0 {
            let file = p.ep() - 1;
            let (to, victim) = if us == 0 {
                (40 + file, 32 + file)
            } else {
                (16 + file, 24 + file)
            };
            if attacks >> to & 1 != 0 {
                targets[count] = (to, victim, false);
                count += 1;
            }
        }
        (targets, count)
    }

    /// Whether the side to move is not in check and its king can step to an empty square
    /// that is not attacked: a legal move found with a few attack tests, where
    /// [`Chess::children`] first maps every square the other side attacks. `false` says
    /// nothing (the position may still have moves).
    #[inline]
    pub(super) fn king_can_step(p: &Pos) -> bool {
        let b = Bits::of(p);
        let us = usize::from(p.stm());
        let them = 1 - us;
        let king = p.sq(us);
        let occ = b.occ();
        let theirs = b.col[them];
        if b.attacked(king, them, theirs, occ) {
            return false;
        }
        // The king's own square is empty once it has stepped (a slider sees through it).
        let without = occ & !(1u64 << king);
        BitBoard(get_king_moves(sq(king)).0 & !occ)
            .into_iter()
            .any(|t| !b.attacked(t as u8, them, theirs, without))
    }

    /// Whether the side to move in `c` can take en passant the pawn that has just made a
    /// double push to file `file`: a pawn of theirs beside it, and their king safe after.
    pub(super) fn ep_capture_legal(c: &Pos, file: u8) -> bool {
        let us = usize::from(c.stm());
        let them = 1 - us;
        let (victim, to) = if us == 0 {
            (32 + file, 40 + file)
        } else {
            (24 + file, 16 + file)
        };
        let b = Bits::of(c);
        // Our pawns that attack `to` are where a pawn of theirs on `to` would attack.
        let pusher = if us == 0 { Color::Black } else { Color::White };
        let takers = get_pawn_attacks(sq(to), pusher).0 & b.col[us] & b.kind[1];
        let occ = b.occ();
        let theirs = b.col[them] & !(1u64 << victim);
        for from in BitBoard(takers) {
            let o = (occ & !(1u64 << from as u8) & !(1u64 << victim)) | 1u64 << to;
            if !b.attacked(c.sq(us), them, theirs, o) {
                return true;
            }
        }
        false
    }
}
