//! Sprague-Grundy values of a game given by its rules (the [`Game`] trait).

use crate::grundy::{grundy, Grundy, GrundyError};
use crate::value::Sg;
use retrograde_games::{solve_game, Game, GameSolution};
use retrograde_solve::Rules;

/// The generalized Sprague-Grundy values of every position reachable in a game.
pub struct GameGrundy<'g, G: Game> {
    game: &'g G,
    solved: GameSolution<'g, G>,
    values: Grundy,
}

impl<G: Game> GameGrundy<'_, G> {
    /// The value of `p`, if it is reachable from the start.
    pub fn value(&self, p: &G::Position) -> Option<Sg<'_>> {
        self.solved.id(p).map(|v| self.values.value(v))
    }

    /// The counter of `p` (see [`Grundy::counter`]), if it is reachable and its value finite.
    pub fn counter(&self, p: &G::Position) -> Option<u32> {
        self.solved.id(p).and_then(|v| self.values.counter(v))
    }

    /// The value of the start position.
    pub fn start_value(&self) -> Sg<'_> {
        self.value(&self.game.start())
            .expect("the start is reachable")
    }

    /// The values over the explored graph ([`GameSolution::graph`]'s vertex ids).
    pub fn values(&self) -> &Grundy {
        &self.values
    }

    /// The engine's exploration and win/loss/draw solution of the same game.
    pub fn solution(&self) -> &GameSolution<'_, G> {
        &self.solved
    }
}

/// Explores every position reachable in `game`, then computes the generalized Sprague-Grundy
/// value of each (see [`grundy`]). The game must be impartial: both players have the same
/// moves, every move passes the turn, and a position without moves loses. The engine's
/// win/loss/draw solution comes along (the exploration produces it).
///
/// # Errors
/// [`GrundyError::Build`] when the game cannot be explored (too many positions), and the
/// errors of [`grundy`] (go-again moves; `win`/`tie` primitives).
///
/// # Complexity
/// The exploration, plus [`grundy`] on the explored graph.
///
/// ```
/// use retrograde_games::pebbles::Pebbles;
/// use retrograde_impartial::{grundy_game, Sg};
/// // The pebble game of seed 004: 10 pebbles, take 1 or 2. G(v) = v mod 3.
/// let game = Pebbles::new(10, vec![1, 2]).unwrap();
/// let s = grundy_game(&game).unwrap();
/// assert_eq!(s.start_value(), Sg::Finite(1));
/// assert_eq!(s.value(&9), Some(Sg::Finite(0)));
/// ```
pub fn grundy_game<G: Game>(game: &G) -> Result<GameGrundy<'_, G>, GrundyError> {
    let solved =
        solve_game(game, &Rules::default()).map_err(|e| GrundyError::Build(e.to_string()))?;
    let values = grundy(solved.graph())?;
    Ok(GameGrundy {
        game,
        solved,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_graph::Primitive;
    use retrograde_solve::Outcome;

    /// A token on a clock of 6 hours: move one or two hours forward, or from hour 0 off the
    /// clock (a position without moves). Loopy: the hours form cycles.
    struct Clock;
    impl Game for Clock {
        type Position = Option<u32>;
        fn start(&self) -> Option<u32> {
            Some(3)
        }
        fn moves(&self, p: &Option<u32>, out: &mut Vec<Option<u32>>) {
            if let Some(h) = *p {
                out.push(Some((h + 1) % 6));
                out.push(Some((h + 2) % 6));
                if h == 0 {
                    out.push(None);
                }
            }
        }
        fn primitive(&self, _: &Option<u32>) -> Option<Primitive> {
            None
        }
    }

    #[test]
    fn loopy_game_by_rules() {
        let s = grundy_game(&Clock).unwrap();
        assert_eq!(s.value(&None), Some(Sg::Finite(0)));
        for h in 0..6 {
            let v = s.value(&Some(h)).unwrap();
            let engine = s.solution().value(&Some(h)).unwrap().outcome();
            assert_eq!(v.outcome(), engine, "hour {h}: {v}");
        }
        assert!(s.value(&Some(7)).is_none());
        assert_eq!(s.start_value(), s.value(&Some(3)).unwrap());
        assert!(!s.values().is_acyclic());
        assert_eq!(
            s.solution().value(&Some(0)).unwrap().outcome(),
            Outcome::Win
        );
    }
}
