//! How positions and moves are named and drawn: FENs, UCI moves, the board's picture.

use super::{fen, Chess, Pos, BLACK};
use cozy_chess::{Board, Piece};
use retrograde_tier::{Notation, NotationError, TierGame};

impl Notation for Chess {
    fn title(&self) -> String {
        let what = match self.roots.len() {
            1 => format!("the ending {}", self.root),
            _ => format!("{} (every ending)", self.name.trim_start_matches("chess ")),
        };
        format!(
            "Chess, {what}: moves in UCI notation (e2e4, e7e8q); no castling, no 50-move rule; mate loses, stalemate and insufficient material tie."
        )
    }

    fn named_moves(&self, p: &Pos, _side: u8, out: &mut Vec<(String, Pos)>) {
        if self.primitive(p).is_some() {
            return;
        }
        for (mv, q) in self.legal_moves(p) {
            out.push((mv.to_string(), q));
        }
    }

    fn render(&self, p: &Pos, _side: u8) -> String {
        let mut grid = [['.'; 8]; 8];
        let letter = |kind: u8, black: bool| {
            let c = b" pnbrqk"[usize::from(kind)] as char;
            if black {
                c
            } else {
                c.to_ascii_uppercase()
            }
        };
        grid[usize::from(p.sq(0) >> 3)][usize::from(p.sq(0) & 7)] = 'K';
        grid[usize::from(p.sq(1) >> 3)][usize::from(p.sq(1) & 7)] = 'k';
        for (i, c) in p.mat().codes().enumerate() {
            let s = p.sq(2 + i);
            grid[usize::from(s >> 3)][usize::from(s & 7)] = letter(c & 7, c & BLACK != 0);
        }
        let mut out = String::new();
        for r in (0..8).rev() {
            out.push_str(&format!("{} ", r + 1));
            let row: Vec<String> = grid[r].iter().map(char::to_string).collect();
            out.push_str(&row.join(" "));
            out.push('\n');
        }
        out.push_str("  a b c d e f g h\n");
        out
    }

    fn position_string(&self, p: &Pos, _side: u8) -> String {
        self.fen(p)
    }

    /// A FEN read exactly ([`fen`]: every field checked, the first wrong one named), then
    /// the board the rules build from it.
    fn parse_position(&self, text: &str) -> Result<(Pos, u8), NotationError> {
        let full = fen::checked(text)?;
        let board = Board::from_fen(&full, false).map_err(|e| {
            use cozy_chess::FenParseError as F;
            // Every field reads: what is left is what needs the rules.
            match e {
                F::InvalidEnPassant => "the en-passant square is not behind a pawn that has just moved two squares (or that pawn's move could not have been played)",
                F::InvalidBoard => "the side not to move is in check (or three pieces give check at once), which no game reaches",
                _ => "the fields do not make a legal position",
            }
        })?;
        // A double check is one piece moving and another uncovered: the uncovered one
        // checks along a line, so two checkers that are pawns or knights never arise.
        let checkers = board.checkers();
        let leapers = board.pieces(Piece::Pawn) | board.pieces(Piece::Knight);
        if checkers.len() == 2 && (checkers & leapers).len() == 2 {
            return Err(
                "the side to move is in check by two pawns or knights at once, which no move makes (a double check needs a bishop, rook or queen)"
                    .into(),
            );
        }
        let p = Chess::from_board(&board)?;
        Ok((p, p.stm()))
    }

    fn position_help(&self) -> String {
        "a FEN without castling rights, like 8/8/8/4k3/8/8/8/4KQ2 w - - 0 1".into()
    }

    fn side_names(&self) -> [String; 2] {
        ["white".into(), "black".into()]
    }
}
