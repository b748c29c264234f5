//! Playing any tier game with scores and a notation: moves are named by the game's
//! [`Notation`], values and margins come from its [`ScoredSolution`].

use super::{Move, Playable};
use retrograde_solve::{Scored, Value};
use retrograde_tier::{DenseIndex, Error, Notation, ScoredGame, ScoredSolution, Turn};

/// A solved tier game with scores, ready to play. A position is the game's position and the
/// side to move there (0 = the side that moves first).
pub struct ScoredPlay<'s, 'g, G: ScoredGame + DenseIndex> {
    solution: &'s ScoredSolution<'g, G>,
    title: String,
    start: (G::Position, u8),
}

impl<'s, 'g, G: ScoredGame + DenseIndex + Notation> ScoredPlay<'s, 'g, G> {
    /// Play from `start` (the game's start when `None`, side 0 to move), with `title` shown
    /// first.
    ///
    /// # Errors
    /// No start given for a game without one.
    pub fn new(
        solution: &'s ScoredSolution<'g, G>,
        title: impl Into<String>,
        start: Option<(G::Position, u8)>,
    ) -> Result<Self, Error> {
        let start = match start {
            Some(s) => s,
            None => (
                solution.game().start().ok_or_else(|| {
                    Error::Unsupported(
                        "this game has no start: give a position to play from".into(),
                    )
                })?,
                0,
            ),
        };
        Ok(ScoredPlay {
            solution,
            title: title.into(),
            start,
        })
    }
}

impl<G: ScoredGame + DenseIndex + Notation> Playable for ScoredPlay<'_, '_, G> {
    type Position = (G::Position, u8);

    fn start(&self) -> (G::Position, u8) {
        self.start
    }

    fn moves(&self, &(p, side): &(G::Position, u8)) -> Result<Vec<Move<(G::Position, u8)>>, Error> {
        let game = self.solution.game();
        let mut named = Vec::new();
        if game.primitive(&p).is_none() {
            game.named_moves(&p, side, &mut named);
        }
        Ok(named
            .into_iter()
            .map(|(name, q)| {
                let keeps = <G::Turn as Turn<G>>::keeps_turn(game, &p, &q);
                let reward = if game.tier(&q) == game.tier(&p) {
                    0
                } else {
                    game.reward(&p, &q)
                };
                Move::new(name, (q, if keeps { side } else { side ^ 1 }))
                    .keeps_turn(keeps)
                    .reward(reward)
            })
            .collect())
    }

    /// The value without its margin (a game that never ends after points were collected
    /// reads as a draw here; [`Playable::scored`] has it whole).
    fn value(&self, (p, _): &(G::Position, u8)) -> Result<Value, Error> {
        Ok(self.solution.value(p)?.value().unwrap_or(Value::Draw))
    }

    fn scored(&self, (p, _): &(G::Position, u8)) -> Result<Option<Scored>, Error> {
        self.solution.value(p).map(Some)
    }

    fn render(&self, (p, side): &(G::Position, u8)) -> String {
        self.solution.game().render(p, *side)
    }

    fn side_names(&self) -> [String; 2] {
        self.solution.game().side_names()
    }

    fn first_side(&self) -> usize {
        usize::from(self.start.1)
    }

    fn title(&self) -> String {
        self.title.clone()
    }
}
