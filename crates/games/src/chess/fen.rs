//! Reading a FEN exactly: every field checked before the board is built, and an error that
//! says which rank, character or field is wrong.
//!
//! A FEN here has 4 or 6 fields separated by spaces: the board (8 ranks separated by `/`,
//! rank 8 first, each of exactly 8 squares: a piece letter, `KQRBNP` white and `kqrbnp`
//! black, or a digit 1 to 8 for that many empty squares), the side to move (`w` or `b`),
//! the castling rights (`-`: these endings have no castling), the en-passant square (`-` or
//! a square on rank 6 with white to move, on rank 3 with black to move), and optionally the
//! halfmove clock (a count) and the move number (from 1), which the position ignores (no
//! 50-move rule). One king a side, no pawn on the first or last rank and at most
//! [`MAX_PIECES`](super::MAX_PIECES) pieces are checked here too, so that each gets its own
//! message; what needs the rules (the side not to move in
//! check, an en-passant square with no pawn that could have just moved two squares) is
//! left to the board `cozy-chess` builds from the checked fields.

/// The fields of a FEN, each checked: the text `cozy-chess` reads (six fields, the move
/// counters as `0 1`).
///
/// # Errors
/// The first wrong field, rank or character, said in words.
pub(super) fn checked(text: &str) -> Result<String, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != 4 && fields.len() != 6 {
        return Err(format!(
            "a FEN has 4 or 6 fields separated by spaces (board, side to move, castling, en passant, then optionally the halfmove clock and the move number), found {}",
            fields.len()
        ));
    }
    let board = fields[0];
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(format!(
            "the board {board:?} has {} ranks, expected 8 separated by '/' (rank 8 first)",
            ranks.len()
        ));
    }
    let mut kings = [0usize; 2];
    for (i, rank) in ranks.iter().enumerate() {
        let number = 8 - i;
        let mut squares = 0usize;
        for c in rank.chars() {
            squares += match c {
                '1'..='8' => c as usize - '0' as usize,
                'K' | 'Q' | 'R' | 'B' | 'N' | 'P' | 'k' | 'q' | 'r' | 'b' | 'n' | 'p' => {
                    if c == 'K' || c == 'k' {
                        kings[usize::from(c == 'k')] += 1;
                    }
                    if (c == 'P' || c == 'p') && (number == 1 || number == 8) && squares < 8 {
                        let square = format!("{}{number}", (b'a' + squares as u8) as char);
                        return Err(format!(
                            "a pawn on {square}: pawns never stand on the first or last rank"
                        ));
                    }
                    1
                }
                _ => {
                    return Err(format!(
                        "rank {number} is {rank:?}: {c:?} is neither a piece (KQRBNP white, kqrbnp black) nor a number of empty squares (1 to 8)"
                    ))
                }
            };
        }
        if squares != 8 {
            return Err(if rank.is_empty() {
                format!("rank {number} is empty, expected 8 squares (8 for a rank with no piece)")
            } else {
                format!("rank {number} is {rank:?}: {squares} squares, expected 8")
            });
        }
    }
    for (side, n) in ["white", "black"].into_iter().zip(kings) {
        if n != 1 {
            return Err(format!("{side} has {n} kings, expected one"));
        }
    }
    let pieces = board.chars().filter(char::is_ascii_alphabetic).count();
    if pieces > super::MAX_PIECES {
        return Err(crate::GameError::Pieces { pieces }.to_string());
    }
    let side = fields[1];
    if side != "w" && side != "b" {
        return Err(format!("the side to move is {side:?}, expected w or b"));
    }
    if fields[2] != "-" {
        return Err(format!(
            "the castling rights are {:?}, expected - (these endings have no castling)",
            fields[2]
        ));
    }
    let ep = fields[3];
    let rank = if side == "w" { '6' } else { '3' };
    let mut square = ep.chars();
    let fits = |f: Option<char>, r: Option<char>| {
        f.is_some_and(|f| ('a'..='h').contains(&f)) && r == Some(rank)
    };
    if ep != "-" && !(ep.len() == 2 && fits(square.next(), square.next())) {
        let mover = if side == "w" { "white" } else { "black" };
        return Err(format!(
            "the en-passant square is {ep:?}, expected - or a square of rank {rank} with {mover} to move (the square a pawn has just passed over, such as e{rank})"
        ));
    }
    if let [_, _, _, _, clock, number] = fields[..] {
        let count = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !count(clock) {
            return Err(format!(
                "the halfmove clock is {clock:?}, expected a count of plies (0, 1, 2, ...)"
            ));
        }
        if !count(number) || number.bytes().all(|b| b == b'0') {
            return Err(format!(
                "the move number is {number:?}, expected a number from 1"
            ));
        }
    }
    Ok(format!("{board} {side} - {ep} 0 1"))
}

#[cfg(test)]
mod tests {
    use super::checked;

    #[test]
    fn a_good_fen_is_kept_with_its_counters_reset() {
        let fen = "8/8/8/4k3/8/8/8/4KQ2 w - - 0 1";
        assert_eq!(checked(fen).unwrap(), fen);
        assert_eq!(
            checked("  8/8/8/4k3/8/8/8/4KQ2   b - -  ").unwrap(),
            "8/8/8/4k3/8/8/8/4KQ2 b - - 0 1"
        );
        assert_eq!(
            checked("7k/8/8/8/3pP3/8/8/K7 b - e3 12 40").unwrap(),
            "7k/8/8/8/3pP3/8/8/K7 b - e3 0 1"
        );
        // Runs of empty squares may be split.
        assert!(checked("44/8/8/4k3/8/8/8/4KQ11 w - -").is_ok());
    }

    /// Each wrong field, rank or character gets its own message.
    #[test]
    fn every_field_is_checked_and_named() {
        for (fen, want) in [
            ("", "4 or 6 fields"),
            ("8/8/8/4k3/8/8/8/4KQ2 w -", "4 or 6 fields separated by spaces (board, side to move, castling, en passant, then optionally the halfmove clock and the move number), found 3"),
            ("8/8/8/4k3/8/8/8/4KQ2 w - - 0", "found 5"),
            ("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1 x", "found 7"),
            ("4k3/8/8/8/8/8/4KQ2 w - - 0 1", "has 7 ranks, expected 8 separated by '/' (rank 8 first)"),
            ("8/4k3/8/8/8/8/8/8/4KQ2 w - - 0 1", "has 9 ranks"),
            ("8/8/8/4k2/8/8/8/4KQ2 w - - 0 1", "rank 5 is \"4k2\": 7 squares, expected 8"),
            ("8/8/8/4k4/8/8/8/4KQ2 w - - 0 1", "rank 5 is \"4k4\": 9 squares, expected 8"),
            ("8/8/8/4k3/8/8/8/4KQ3 w - - 0 1", "rank 1 is \"4KQ3\": 9 squares, expected 8"),
            ("8/8/8/4k3/8//8/4KQ2 w - - 0 1", "rank 3 is empty, expected 8 squares"),
            ("8/8/8/4k3/8/8/8/4KX2 w - - 0 1", "rank 1 is \"4KX2\": 'X' is neither a piece (KQRBNP white, kqrbnp black) nor a number of empty squares (1 to 8)"),
            ("8/8/8/4k3/8/9/8/4KQ2 w - - 0 1", "rank 3 is \"9\": '9' is neither"),
            ("8/8/8/4k3/8/0/8/4KQ2 w - - 0 1", "'0' is neither"),
            ("8/8/8/4k3/8/8/8/4KQé1 w - - 0 1", "'é' is neither"),
            ("8/8/8/4k3/8/8/8/4QQ2 w - - 0 1", "white has 0 kings, expected one"),
            ("8/8/8/4k3/8/8/8/4KK2 w - - 0 1", "white has 2 kings, expected one"),
            ("8/8/8/8/8/8/8/4KQ2 w - - 0 1", "black has 0 kings"),
            ("QQQQ4/8/8/4k3/8/8/8/4KQ2 w - - 0 1", "7 pieces; endings of at most 5 pieces are supported"),
            ("P7/8/8/4k3/8/8/8/4K3 w - - 0 1", "a pawn on a8: pawns never stand on the first or last rank"),
            ("8/8/8/4k3/8/8/8/4K2p w - - 0 1", "a pawn on h1"),
            ("8/8/8/4k3/8/8/8/4KQ2 W - - 0 1", "the side to move is \"W\", expected w or b"),
            ("8/8/8/4k3/8/8/8/4KQ2 white - - 0 1", "the side to move is \"white\""),
            ("8/8/8/4k3/8/8/8/4KQ2 w KQ - 0 1", "the castling rights are \"KQ\", expected - (these endings have no castling)"),
            ("8/8/8/4k3/8/8/8/4KQ2 w - e3 0 1", "the en-passant square is \"e3\", expected - or a square of rank 6 with white to move"),
            ("8/8/8/4k3/8/8/8/4KQ2 b - e6 0 1", "a square of rank 3 with black to move"),
            ("8/8/8/4k3/8/8/8/4KQ2 w - i6 0 1", "the en-passant square is \"i6\""),
            ("8/8/8/4k3/8/8/8/4KQ2 w - e66 0 1", "the en-passant square is \"e66\""),
            ("8/8/8/4k3/8/8/8/4KQ2 w - x 0 1", "the en-passant square is \"x\""),
            ("8/8/8/4k3/8/8/8/4KQ2 w - - -1 1", "the halfmove clock is \"-1\", expected a count of plies"),
            ("8/8/8/4k3/8/8/8/4KQ2 w - - x 1", "the halfmove clock is \"x\""),
            ("8/8/8/4k3/8/8/8/4KQ2 w - - 0 0", "the move number is \"0\", expected a number from 1"),
            ("8/8/8/4k3/8/8/8/4KQ2 w - - 0 +1", "the move number is \"+1\""),
        ] {
            let e = checked(fen).unwrap_err();
            assert!(e.contains(want), "{fen:?}: {e}");
        }
    }
}
