//! A plain mate search on `cozy-chess` boards, sharing nothing with the rules of this
//! module (no tiers, no index, no un-moves, no symmetry): the independent oracle that the
//! tests and the probe bench hold the tables' short depths to mate against. Its depth is a
//! few plies, so its recursion is a few calls deep.

use cozy_chess::{BitBoard, Board, Piece};

/// The positions one legal move from `b`.
pub fn moves(b: &Board) -> Vec<Board> {
    let mut out = Vec::new();
    b.generate_moves(|pm| {
        for mv in pm {
            let mut c = b.clone();
            c.play(mv);
            out.push(c);
        }
        false
    });
    out
}

/// No pawns, rooks or queens, and at most one minor piece or bishops on one colour only:
/// nobody can be mated any more.
pub fn dead(b: &Board) -> bool {
    let heavy = b.pieces(Piece::Pawn) | b.pieces(Piece::Rook) | b.pieces(Piece::Queen);
    if !heavy.is_empty() {
        return false;
    }
    let minors = b.pieces(Piece::Knight) | b.pieces(Piece::Bishop);
    if minors.len() <= 1 {
        return true;
    }
    let light = BitBoard(0x55aa_55aa_55aa_55aa);
    b.pieces(Piece::Knight).is_empty()
        && ((b.pieces(Piece::Bishop) & light).is_empty()
            || (b.pieces(Piece::Bishop) & !light).is_empty())
}

/// Whether the side to move can force mate within `d` plies (odd).
pub fn can_mate(b: &Board, d: u32) -> bool {
    moves(b).iter().any(|c| {
        let replies = moves(c);
        if replies.is_empty() {
            return !c.checkers().is_empty();
        }
        d >= 3 && !dead(c) && replies.iter().all(|r| can_mate(r, d - 2))
    })
}

/// Whether the side to move is mated within `d` plies (even) whatever it does.
pub fn mated_within(b: &Board, d: u32) -> bool {
    let moves = moves(b);
    if moves.is_empty() {
        return !b.checkers().is_empty();
    }
    d >= 2 && !dead(b) && moves.iter().all(|c| can_mate(c, d - 1))
}
