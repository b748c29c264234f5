//! How people write a game's moves and positions: [`Notation`].
//!
//! `play`, `query` and the web explorer work for every game that implements it. A *side* is
//! 0 for the player who moves first and 1 for the other; games whose positions are stored
//! as the mover sees them ([`TierGame::MOVER_VIEW`]) need it to draw the board in its
//! colours, the others may ignore it.

use crate::game::TierGame;

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
    /// What is wrong with the text, in words.
    fn parse_position(&self, text: &str) -> Result<(Self::Position, u8), String>;

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

    /// The move named `text` from `p` (names compared without case and surrounding
    /// spaces).
    ///
    /// # Errors
    /// When no legal move has that name: says why, and lists the legal ones.
    fn parse_move(
        &self,
        p: &Self::Position,
        side: u8,
        text: &str,
    ) -> Result<Self::Position, String> {
        let mut moves = Vec::new();
        self.named_moves(p, side, &mut moves);
        let want = text.trim();
        if let Some((_, q)) = moves.iter().find(|(n, _)| n.eq_ignore_ascii_case(want)) {
            return Ok(*q);
        }
        if moves.is_empty() {
            return Err(format!("{want:?} is not legal: the game is over"));
        }
        let names: Vec<&str> = moves.iter().map(|(n, _)| n.as_str()).collect();
        Err(format!(
            "{want:?} is not a legal move here; legal moves: {}",
            names.join(" ")
        ))
    }
}

/// The position after `moves` (names, from the start) and the side to move there.
///
/// # Errors
/// A game without a start, or a move that is not legal where it is played (its number,
/// its name, why, and the legal moves).
pub fn replay<G: Notation>(
    game: &G,
    moves: &[impl AsRef<str>],
) -> Result<(G::Position, u8), String> {
    let mut p = game
        .start()
        .ok_or("this game has no start position: give a position instead of moves")?;
    let mut side = 0u8;
    for (i, m) in moves.iter().enumerate() {
        let m = m.as_ref();
        if game.primitive(&p).is_some() {
            return Err(format!("move {} ({m:?}): the game is already over", i + 1));
        }
        let q = game
            .parse_move(&p, side, m)
            .map_err(|e| format!("move {} ({m:?}): {e}", i + 1))?;
        if !crate::game::keeps(game, &p, &q) {
            side ^= 1;
        }
        p = q;
    }
    Ok((p, side))
}
