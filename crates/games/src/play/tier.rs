//! Playing any tier game with a notation: moves are named by the game's [`Notation`], values
//! come from its [`TierSolution`] (in memory or in a database's files). A game with scores
//! (`type Score = Scores`) is played by its margins: each move carries its reward, and
//! [`Playable::scored`] gives the values with their scores.

use super::{Move, Playable};
use retrograde_solve::{Scored, Value};
use retrograde_tier::{Error, Notation, Scoring, TierGame, TierSolution, Turn};

const _: fn() = || {
    fn is_tier<G: TierGame>() {}
    let _ = is_tier::<crate::tictactoe::TicTacToe>;
};

/// A solved tier game, ready to play. A position is the game's position and the side to move
/// there (0 = the side that moves first).
pub struct TierPlay<'s, 'g, G: Notation> {
    solution: &'s TierSolution<'g, G>,
    title: String,
    start: (G::Position, u8),
}

impl<'s, 'g, G: Notation> TierPlay<'s, 'g, G> {
    /// Play from `start` (the game's start when `None`, side 0 to move), with `title` shown
    /// first.
    ///
    /// # Errors
    /// No start given for a game without one.
    pub fn new(
        solution: &'s TierSolution<'g, G>,
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
        Ok(TierPlay {
            solution,
            title: title.into(),
            start,
        })
    }
}

impl<G: Notation> Playable for TierPlay<'_, '_, G> {
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
                let reward = match game.tier(&q) == game.tier(&p) {
                    true => 0,
                    false => <G::Score as Scoring<G>>::reward(game, &p, &q),
                };
                let mut m = Move::new(name.clone(), (q, if keeps { side } else { side ^ 1 }))
                    .keeps_turn(keeps)
                    .reward(reward);
                // Names with spaces are also accepted without them, or with a dash.
                if name.contains(' ') {
                    m = m.alias(name.replace(' ', "")).alias(name.replace(' ', "-"));
                }
                m
            })
            .collect())
    }

    /// The value without its margin (a game with scores that never ends after points were
    /// collected reads as a draw here; [`Playable::scored`] has it whole).
    fn value(&self, (p, _): &(G::Position, u8)) -> Result<Value, Error> {
        Ok(self.held(p)?.value().unwrap_or(Value::Draw))
    }

    /// The value with its score, for a game with scores.
    fn scored(&self, (p, _): &(G::Position, u8)) -> Result<Option<Scored>, Error> {
        match <G::Score as Scoring<G>>::SCORED {
            true => self.held(p).map(Some),
            false => Ok(None),
        }
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

impl<'s, 'g, G: Notation> TierPlay<'s, 'g, G> {
    /// The game.
    pub fn game(&self) -> &'g G {
        self.solution.game()
    }

    /// The solution played from.
    pub fn solution(&self) -> &'s TierSolution<'g, G> {
        self.solution
    }

    /// The value of `p` with its score (`+1`, `-1` or `0` without scores).
    fn held(&self, p: &G::Position) -> Result<Scored, Error> {
        self.solution
            .scored(p)?
            .ok_or_else(|| Error::Game(format!("{p:?} is not a position of this solution")))
    }
}
