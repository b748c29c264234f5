//! How people write a game's moves and positions: [`Notation`].
//!
//! `play`, `query` and the web explorer work for every game that implements it. A *side* is
//! 0 for the player who moves first and 1 for the other; games whose positions are stored
//! as the mover sees them ([`TierGame::MOVER_VIEW`]) need it to draw the board in its
//! colours, the others may ignore it.

use crate::api::game::TierGame;
use std::fmt;

/// What is wrong with a position or a move someone wrote, as a game's [`Notation`] reads
/// it. Its text (`Display`) is the message for a person.
///
/// ```
/// use retrograde_tier::notation::NotationError;
/// let e = NotationError::NotLegal { text: "a9".into(), hint: None, legal: vec!["b1".into(), "a2".into()] };
/// assert_eq!(e.to_string(), r#""a9" is not a legal move here; legal moves: a2 b1"#);
/// let at = NotationError::AtMove { number: 3, text: "a9".into(), error: Box::new(e) };
/// assert!(at.to_string().starts_with(r#"move 3 ("a9"): "a9" is not"#));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The text is no position in the game's notation: what is wrong, in words.
    Position(String),
    /// Moves were given for a game without a start position.
    NoStart,
    /// The move `text` was asked where the game is over.
    Over(String),
    /// No legal move is named `text`: what a move looks like (`hint`), and the legal
    /// moves' names.
    NotLegal {
        /// The move as written.
        text: String,
        /// What a move of the game looks like (`a drop is an empty cell, e.g. c3`).
        hint: Option<String>,
        /// The names of the legal moves.
        legal: Vec<String>,
    },
    /// The move `text` cannot be played here, for the game's reason (`column 3 is full`).
    Refused {
        /// The move as written.
        text: String,
        /// Why, in words.
        why: String,
    },
    /// A move of a sequence ([`replay`]) played after the game was over.
    Finished,
    /// The move at `number` (from 1) of a sequence, `text`, and what is wrong with it.
    AtMove {
        /// Its place in the sequence, from 1.
        number: usize,
        /// The move as written.
        text: String,
        /// What is wrong with it.
        error: Box<NotationError>,
    },
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Position(why) => f.write_str(why),
            NotationError::NoStart => {
                f.write_str("this game has no start position: give a position instead of moves")
            }
            NotationError::Over(text) => write!(f, "{text:?} is not legal: the game is over"),
            NotationError::NotLegal { text, hint, legal } => {
                write!(f, "{text:?} is not a legal move here")?;
                if let Some(h) = hint {
                    write!(f, " ({h})")?;
                }
                let legal = listed(legal.iter().map(String::as_str), " ");
                write!(f, "; legal moves: {legal}")
            }
            NotationError::Refused { why, .. } => f.write_str(why),
            NotationError::Finished => f.write_str("the game is already over"),
            NotationError::AtMove {
                number,
                text,
                error,
            } => write!(f, "move {number} ({text:?}): {error}"),
        }
    }
}

impl std::error::Error for NotationError {}

impl From<String> for NotationError {
    /// What is wrong with a position, in words ([`NotationError::Position`]).
    fn from(why: String) -> Self {
        NotationError::Position(why)
    }
}

impl From<&str> for NotationError {
    /// What is wrong with a position, in words ([`NotationError::Position`]).
    fn from(why: &str) -> Self {
        NotationError::Position(why.into())
    }
}

/// A game's notation: move names, a picture of a position, and a one-line position string.
pub trait Notation: TierGame {
    /// Appends every legal move from `p` (side `side` to move) as (name, position after it),
    /// in the order of [`TierGame::moves`]. Names are what a person types: `4` (a column),
    /// `c3`, `c3-d4`. Nothing when the game is over at `p`.
    fn named_moves(&self, p: &Self::Position, side: u8, out: &mut Vec<(String, Self::Position)>);

    /// A picture of `p` for a terminal, several lines.
    fn render(&self, p: &Self::Position, side: u8) -> String;

    /// `p` with side `side` to move in the game's own one-line notation, which
    /// [`parse_position`](Notation::parse_position) reads back.
    fn position_string(&self, p: &Self::Position, side: u8) -> String;

    /// Reads a position in the game's own notation: the position and the side to move.
    ///
    /// # Errors
    /// What is wrong with the text ([`NotationError::Position`]).
    fn parse_position(&self, text: &str) -> Result<(Self::Position, u8), NotationError>;

    /// What the notation of positions looks like, for error messages and help.
    fn position_help(&self) -> String;

    /// A few lines naming the game and its rules, shown when play starts. Default: the
    /// game's name.
    fn title(&self) -> String {
        self.name()
    }

    /// The names of the sides, first mover first.
    fn side_names(&self) -> [String; 2] {
        ["first player".into(), "second player".into()]
    }

    /// The cells that decided the game at `p` when it is over with a winner (the line of
    /// k, the square): `(row, column)` pairs of the grid that
    /// [`position_string`](Notation::position_string) writes, row 0 at the top, column 0 at
    /// the left, so that a drawing can mark them. Default: none.
    fn winning_cells(&self, p: &Self::Position, side: u8) -> Vec<(u32, u32)> {
        let _ = (p, side);
        Vec::new()
    }

    /// The move named `text` from `p` (names compared without case and surrounding
    /// spaces).
    ///
    /// # Errors
    /// When no legal move has that name: [`NotationError::Over`] or
    /// [`NotationError::NotLegal`] (with the legal ones).
    fn parse_move(
        &self,
        p: &Self::Position,
        side: u8,
        text: &str,
    ) -> Result<Self::Position, NotationError> {
        let mut moves = Vec::new();
        self.named_moves(p, side, &mut moves);
        let want = text.trim();
        if let Some((_, q)) = moves.iter().find(|(n, _)| n.eq_ignore_ascii_case(want)) {
            return Ok(*q);
        }
        Err(not_legal(want, None, moves.iter().map(|(n, _)| n.clone())))
    }
}

/// Move names for a message, in their natural order (numbers by value, then names by text:
/// `1 2 3 4 5`, `a1 a2 b1`), joined by `sep`: easier to read than the order of the game's
/// move generator.
///
/// ```
/// use retrograde_tier::notation::listed;
/// assert_eq!(listed(["2", "10", "4", "1"], ", "), "1, 2, 4, 10");
/// assert_eq!(listed(["b1", "a2", "a10"], " "), "a2 a10 b1");
/// ```
pub fn listed<'a>(names: impl IntoIterator<Item = &'a str>, sep: &str) -> String {
    let mut v: Vec<&str> = names.into_iter().collect();
    v.sort_by_cached_key(|s| natural(s));
    v.join(sep)
}

/// A sort key that orders the runs of digits in a name by their value.
fn natural(s: &str) -> Vec<(u8, u64, String)> {
    let mut key = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let n = if digits > 0 {
            digits
        } else {
            rest.bytes().take_while(|b| !b.is_ascii_digit()).count()
        };
        let (run, tail) = rest.split_at(n);
        key.push(match run.parse::<u64>() {
            Ok(v) if digits > 0 => (0, v, String::new()),
            _ => (1, 0, run.to_string()),
        });
        rest = tail;
    }
    key
}

/// The error for a move no legal move is named: the game is over when there are none
/// ([`NotationError::Over`]), else [`NotationError::NotLegal`] with `hint` and their names.
pub fn not_legal(
    text: &str,
    hint: Option<&str>,
    legal: impl IntoIterator<Item = String>,
) -> NotationError {
    let legal: Vec<String> = legal.into_iter().collect();
    if legal.is_empty() {
        return NotationError::Over(text.into());
    }
    NotationError::NotLegal {
        text: text.into(),
        hint: hint.map(Into::into),
        legal,
    }
}

/// The position after `moves` (names, from the start) and the side to move there.
///
/// # Errors
/// [`NotationError::NoStart`] for a game without a start, or [`NotationError::AtMove`] for a
/// move that is not legal where it is played (its number, its name, and why).
pub fn replay<G: Notation>(
    game: &G,
    moves: &[impl AsRef<str>],
) -> Result<(G::Position, u8), NotationError> {
    let p = game.start().ok_or(NotationError::NoStart)?;
    play_moves(game, p, 0, moves)
}

/// The position after `moves` (names) played from `p` with `side` to move, and the side
/// to move there.
///
/// # Errors
/// [`NotationError::AtMove`]: a move that is not legal where it is played (its number, its
/// name, and why).
pub fn play_moves<G: Notation>(
    game: &G,
    mut p: G::Position,
    mut side: u8,
    moves: &[impl AsRef<str>],
) -> Result<(G::Position, u8), NotationError> {
    for (i, m) in moves.iter().enumerate() {
        let m = m.as_ref();
        let at = |error| NotationError::AtMove {
            number: i + 1,
            text: m.into(),
            error: Box::new(error),
        };
        if game.primitive(&p).is_some() {
            return Err(at(NotationError::Finished));
        }
        let q = game.parse_move(&p, side, m).map_err(at)?;
        if !crate::api::game::keeps(game, &p, &q) {
            side ^= 1;
        }
        p = q;
    }
    Ok((p, side))
}

/// Every board of `cells` cells (at most 32), each cell empty, x or o: the cells of x and
/// of o as bit sets, `3^cells` of them (for tests that try every position of a small
/// board).
///
/// ```
/// use retrograde_tier::notation::every_board;
/// assert_eq!(every_board(2).count(), 9);
/// assert!(every_board(2).all(|(x, o)| x & o == 0 && (x | o) < 4));
/// ```
pub fn every_board(cells: u32) -> impl Iterator<Item = (u64, u64)> {
    (0..3u64.pow(cells)).map(move |code| {
        let (mut x, mut o, mut c) = (0u64, 0u64, code);
        for cell in 0..cells {
            match c % 3 {
                1 => x |= 1 << cell,
                2 => o |= 1 << cell,
                _ => {}
            }
            c /= 3;
        }
        (x, o)
    })
}

/// The grid notation of the board games (tic-tac-toe, Quixo, Teeko): `rows` rows of `cols`
/// cells from the top, separated by `/`, each `x`, `o` or `.` (also `-` or `_`). Returns the
/// cells of x and of o as bit sets, bit `row × cols + col` (row 0 at the top).
///
/// ```
/// use retrograde_tier::notation::{grid_string, parse_grid};
/// assert_eq!(parse_grid("x../.o./...", 3, 3), Ok((0b1, 0b1_0000)));
/// assert_eq!(grid_string(0b1, 0b1_0000, 3, 3), "x../.o./...");
/// assert!(parse_grid("x../.o.", 3, 3).unwrap_err().to_string().contains("expected 3 rows"));
/// ```
///
/// # Errors
/// A wrong number of rows or cells, or another character, said in words.
pub fn parse_grid(board: &str, rows: u32, cols: u32) -> Result<(u64, u64), NotationError> {
    let lines: Vec<&str> = board.trim().split('/').collect();
    if lines.len() != rows as usize {
        return Err(format!(
            "expected {rows} rows separated by '/', found {}",
            lines.len()
        )
        .into());
    }
    let (mut xs, mut os) = (0u64, 0u64);
    for (r, row) in lines.iter().enumerate() {
        let count = row.chars().count();
        if count != cols as usize {
            return Err(format!("row {} has {count} cells, expected {cols}", r + 1).into());
        }
        for (c, ch) in row.chars().enumerate() {
            let bit = 1u64 << (r as u64 * u64::from(cols) + c as u64);
            match ch.to_ascii_lowercase() {
                'x' => xs |= bit,
                'o' => os |= bit,
                '.' | '-' | '_' => {}
                other => {
                    return Err(
                        format!("row {}: {other:?} is not a cell (x, o or .)", r + 1).into(),
                    )
                }
            }
        }
    }
    Ok((xs, os))
}

/// Writes x's and o's cells in the notation [`parse_grid`] reads.
pub fn grid_string(xs: u64, os: u64, rows: u32, cols: u32) -> String {
    let mut s = String::with_capacity(((cols + 1) * rows) as usize);
    for r in 0..rows {
        if r > 0 {
            s.push('/');
        }
        for c in 0..cols {
            let bit = 1u64 << (r * cols + c);
            s.push(if xs & bit != 0 {
                'x'
            } else if os & bit != 0 {
                'o'
            } else {
                '.'
            });
        }
    }
    s
}

/// Splits `BOARD SIDE`, where the side to move is `x` (0) or `o` (1).
///
/// # Errors
/// A missing or unknown side, or more text after it.
pub fn split_side(text: &str) -> Result<(&str, u8), NotationError> {
    let mut parts = text.split_whitespace();
    let board = parts.next().ok_or("an empty position")?;
    let side = match parts.next().map(str::to_ascii_lowercase).as_deref() {
        Some("x") => 0,
        Some("o") => 1,
        Some(other) => return Err(format!("the side to move is x or o, found {other:?}").into()),
        None => return Err("the side to move (x or o) is missing after the board".into()),
    };
    if let Some(extra) = parts.next() {
        return Err(format!("unexpected {extra:?} after the side to move").into());
    }
    Ok((board, side))
}
