//! Why a built-in game cannot be built: [`GameError`], one enum for every game's
//! constructor, each variant holding the numbers or text that were wrong.

use std::fmt;

/// Why parameters give no game this crate supports (a board size, a take-set, a chess
/// ending, a chess position outside the endings). `Display` gives the message `retrograde
/// game` prints after the game's name (`connect4: a 0x4 board has no cells`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GameError {
    /// Tic-tac-toe: a board with no cell or more than 32.
    TicTacToeBoard {
        /// Rows asked for.
        rows: u32,
        /// Columns asked for.
        cols: u32,
    },
    /// Tic-tac-toe: `k` is 0 or longer than both sides of the board.
    TicTacToeLine {
        /// The length of a winning line.
        k: u32,
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
    },
    /// Quixo, Teeko: a square board of a size other than 3, 4 or 5.
    SquareBoard {
        /// The side of the board.
        n: u32,
    },
    /// Teeko: a number of pieces other than 3 or 4, or more than the board's side.
    TeekoPieces {
        /// The side of the board.
        n: u32,
        /// Pieces each.
        k: u32,
    },
    /// Pebbles: no amount to take.
    EmptyTakeSet,
    /// Pebbles: 0 is in the take-set.
    TakeZero,
    /// Dots and boxes: a board without a box.
    DotsNoBox {
        /// Rows of boxes.
        rows: u32,
        /// Columns of boxes.
        cols: u32,
    },
    /// Dots and boxes: more lines than [`crate::dots::MAX_LINES`].
    DotsLines {
        /// Rows of boxes.
        rows: u32,
        /// Columns of boxes.
        cols: u32,
        /// The lines such a board has.
        lines: u64,
    },
    /// Connect-4: a board without a cell.
    Connect4NoCells {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
    },
    /// Connect-4: `width x (height + 1)` past the 64 bits of a key.
    Connect4TooBig {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
    },
    /// Kalah: no pit or no seed.
    KalahEmpty,
    /// Kalah: more than [`crate::kalah::MAX_PITS`] pits a side.
    KalahPits {
        /// Pits a side asked for.
        pits: u32,
    },
    /// Kalah: a board whose index does not fit 64 cells.
    KalahIndex {
        /// Pits a side.
        pits: u32,
        /// Seeds a pit.
        seeds: u32,
        /// The cells the index would need (`2 x pits x (seeds + 1) - 1`).
        cells: u64,
    },
    /// The Great Game: a method other than `product`, `memo` or `minimax`.
    Method {
        /// The text given.
        found: String,
    },
    /// Chess: an ending without `v` between the sides.
    MaterialNoV {
        /// The ending as given (trimmed).
        text: String,
    },
    /// Chess: a side of an ending that does not start with its king.
    MaterialNoKing {
        /// The ending as given (trimmed).
        text: String,
    },
    /// Chess: a letter that is no piece.
    MaterialLetter {
        /// The ending as given (trimmed).
        text: String,
        /// The letter (upper case).
        letter: char,
    },
    /// Chess: an ending in another case than the tables' names (`kqvk`, `KQVK`).
    MaterialCase {
        /// The ending as given (trimmed).
        text: String,
        /// The spelling to use (`KQvK`).
        spelling: String,
    },
    /// Chess: an ending of more than [`crate::chess::MAX_PIECES`] pieces.
    MaterialPieces {
        /// The ending as given (trimmed).
        text: String,
        /// Its pieces, kings included.
        pieces: usize,
    },
    /// Chess: a tablebase set of other than 3 to [`crate::chess::MAX_PIECES`] pieces.
    UpTo {
        /// Pieces asked for.
        pieces: usize,
    },
    /// Chess: a position with castling rights.
    Castling,
    /// Chess: a position of more than [`crate::chess::MAX_PIECES`] pieces.
    Pieces {
        /// Its pieces, kings included.
        pieces: usize,
    },
    /// Chess: the kings stand next to each other.
    KingsTouch,
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::limits::{MAX_LINES, MAX_PIECES, MAX_PITS};
        use GameError as E;
        match self {
            E::TicTacToeBoard { rows, cols } => write!(
                f,
                "a {rows}x{cols} board is not supported (1 to 32 cells)"
            ),
            E::TicTacToeLine { k, rows, cols } => {
                write!(f, "k = {k} cannot fit a {rows}x{cols} board")
            }
            E::SquareBoard { n } => write!(f, "a {n}x{n} board is not supported (3, 4 or 5)"),
            E::TeekoPieces { n, k } => write!(
                f,
                "{k} pieces each is not supported on a {n}x{n} board (3 or 4, at most {n})"
            ),
            E::EmptyTakeSet => f.write_str(
                "the take-set is empty: give at least one amount, e.g. --take 1,2",
            ),
            E::TakeZero => {
                f.write_str("a move must take at least 1 pebble (0 is in the take-set)")
            }
            E::DotsNoBox { rows, cols } => write!(f, "a board of {rows}x{cols} boxes has no box"),
            E::DotsLines { rows, cols, lines } => write!(
                f,
                "a board of {rows}x{cols} boxes has {lines} lines, at most {} are supported",
                MAX_LINES
            ),
            E::Connect4NoCells { width, height } => {
                write!(f, "a {width}x{height} board has no cells")
            }
            E::Connect4TooBig { width, height } => write!(
                f,
                "a {width}x{height} board is not supported: width x (height + 1) must be at most 64"
            ),
            E::KalahEmpty => f.write_str("at least one pit a side and one seed a pit"),
            E::KalahPits { pits } => write!(
                f,
                "at most {} pits a side, not {pits}",
                MAX_PITS
            ),
            E::KalahIndex { pits, seeds, cells } => write!(
                f,
                "{pits} pits of {seeds} seeds are too many for the index (2 x pits x (seeds + 1) - 1 = {cells}, at most 64)"
            ),
            E::Method { found } => {
                write!(f, "expected product, memo or minimax, found {found:?}")
            }
            E::MaterialNoV { text } => write!(
                f,
                "{text:?}: expected white's pieces, v, black's, like KRvK"
            ),
            E::MaterialNoKing { text } => write!(
                f,
                "{text:?}: each side starts with its king K, like KRvK"
            ),
            E::MaterialLetter { text, letter } => write!(
                f,
                "{text:?}: {letter:?} is not a piece (P, N, B, R, Q after the K)"
            ),
            E::MaterialCase { text, spelling } => write!(
                f,
                "{text:?}: write {spelling} (capital letters for the pieces, a small v between the sides; a small letter is a black piece in a FEN)"
            ),
            E::MaterialPieces { text, pieces } => write!(
                f,
                "{text:?}: {pieces} pieces; endings of at most {MAX_PIECES} pieces are supported"
            ),
            E::UpTo { pieces } => write!(
                f,
                "up to {pieces} pieces: give 3 to {MAX_PIECES} (kings included)"
            ),
            E::Castling => {
                f.write_str("castling rights are not part of these endings (write - )")
            }
            E::Pieces { pieces } => write!(
                f,
                "{pieces} pieces; endings of at most {MAX_PIECES} pieces are supported"
            ),
            E::KingsTouch => f.write_str("the kings stand next to each other"),
        }
    }
}

impl std::error::Error for GameError {}

impl From<GameError> for retrograde_tier::NotationError {
    /// A position outside the game ([`retrograde_tier::NotationError::Position`]).
    fn from(e: GameError) -> Self {
        retrograde_tier::NotationError::Position(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::GameError as E;
    use crate::chess::{Chess, Material};
    use crate::{connect4, dots, kalah, pebbles, quixo, teeko, tictactoe};

    /// Each constructor's refusal is its variant, with the message it has always printed.
    #[test]
    fn constructors_refuse_with_their_variant_and_message() {
        let cases: Vec<(Result<(), E>, E, &str)> = vec![
            (
                tictactoe::TicTacToe::new(0, 3, 3).map(drop),
                E::TicTacToeBoard { rows: 0, cols: 3 },
                "a 0x3 board is not supported (1 to 32 cells)",
            ),
            (
                tictactoe::TicTacToe::new(3, 3, 4).map(drop),
                E::TicTacToeLine {
                    k: 4,
                    rows: 3,
                    cols: 3,
                },
                "k = 4 cannot fit a 3x3 board",
            ),
            (
                quixo::Quixo::new(6).map(drop),
                E::SquareBoard { n: 6 },
                "a 6x6 board is not supported (3, 4 or 5)",
            ),
            (
                teeko::Teeko::new(3, 4).map(drop),
                E::TeekoPieces { n: 3, k: 4 },
                "4 pieces each is not supported on a 3x3 board (3 or 4, at most 3)",
            ),
            (
                pebbles::Pebbles::new(5, vec![]).map(drop),
                E::EmptyTakeSet,
                "the take-set is empty: give at least one amount, e.g. --take 1,2",
            ),
            (
                pebbles::Pebbles::new(5, vec![0, 1]).map(drop),
                E::TakeZero,
                "a move must take at least 1 pebble (0 is in the take-set)",
            ),
            (
                dots::DotsAndBoxes::new(0, 3).map(drop),
                E::DotsNoBox { rows: 0, cols: 3 },
                "a board of 0x3 boxes has no box",
            ),
            (
                connect4::Connect4::new(0, 4).map(drop),
                E::Connect4NoCells {
                    width: 0,
                    height: 4,
                },
                "a 0x4 board has no cells",
            ),
            (
                connect4::Connect4::new(8, 8).map(drop),
                E::Connect4TooBig {
                    width: 8,
                    height: 8,
                },
                "a 8x8 board is not supported: width x (height + 1) must be at most 64",
            ),
            (
                kalah::Kalah::new(0, 3, false).map(drop),
                E::KalahEmpty,
                "at least one pit a side and one seed a pit",
            ),
            (
                "fast".parse::<crate::great_game::Method>().map(drop),
                E::Method {
                    found: "fast".into(),
                },
                "expected product, memo or minimax, found \"fast\"",
            ),
            (
                Chess::up_to(6).map(drop),
                E::UpTo { pieces: 6 },
                "up to 6 pieces: give 3 to 5 (kings included)",
            ),
        ];
        for (got, variant, message) in cases {
            let e = got.unwrap_err();
            assert_eq!(e, variant);
            assert_eq!(e.to_string(), message);
        }
    }

    #[test]
    fn a_bad_ending_names_what_is_wrong() {
        let e = Material::parse(" KXvK ").unwrap_err();
        assert_eq!(
            e,
            E::MaterialLetter {
                text: "KXvK".into(),
                letter: 'X'
            }
        );
        assert_eq!(
            e.to_string(),
            "\"KXvK\": 'X' is not a piece (P, N, B, R, Q after the K)"
        );
        assert!(matches!(Material::parse("KQ"), Err(E::MaterialNoV { .. })));
        // Another case is refused with the spelling to use, not guessed.
        for (text, spelling) in [("kvk", "KvK"), ("KQVK", "KQvK"), ("kpRvk", "KRPvK")] {
            let e = Material::parse(text).unwrap_err();
            let want = E::MaterialCase {
                text: text.into(),
                spelling: spelling.into(),
            };
            assert_eq!(e, want);
            assert_eq!(
                e.to_string(),
                format!("\"{text}\": write {spelling} (capital letters for the pieces, a small v between the sides; a small letter is a black piece in a FEN)")
            );
        }
        assert!(matches!(
            Material::parse("QvK"),
            Err(E::MaterialNoKing { .. })
        ));
        assert_eq!(
            Chess::new("KQRRNvK").unwrap_err(),
            E::MaterialPieces {
                text: "KQRRNvK".into(),
                pieces: 6
            }
        );
        let kings = cozy_chess::Board::from_fen("8/8/8/8/8/8/8/Kk6 w - - 0 1", false).unwrap();
        assert_eq!(Chess::from_board(&kings).unwrap_err(), E::KingsTouch);
        let castling = cozy_chess::Board::default();
        assert_eq!(Chess::from_board(&castling).unwrap_err(), E::Castling);
    }
}
