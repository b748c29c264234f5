//! The pebble game of seed 004, with any take-set (a subtraction game).
//!
//! A bag holds `count` pebbles; a move takes `t` pebbles for some `t` in the take-set (when
//! that many are left). Under normal play the player who cannot move loses; under misère
//! play (`--misere`, the engine's no-move rule `win`) that player wins.
//!
//! ```
//! use retrograde_games::pebbles::Pebbles;
//! use retrograde_solve::Value;
//! let game = Pebbles::new(10, vec![1, 2]).unwrap();
//! let s = game.solve(false).unwrap();
//! assert_eq!(s.start_value(), Value::Win(7));
//! assert_eq!(game.pattern(&s), "LWWLWWLWWLW"); // lost exactly at multiples of 3
//! ```

use crate::about::{About, Kind, Param};
use crate::{solve_game, ExploreError, Game, GameError, GameSolution};
use retrograde_graph::Primitive;
use retrograde_solve::{Outcome, Rules};

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "pebbles",
    about: "the pebble game: take pebbles from a bag; who cannot move loses (or wins, misère)",
    help: "The pebble game (a subtraction game): a bag holds pebbles; a move takes a number of \
           them from the take-set; the player who cannot move loses (with --misere, wins). \
           Also prints the W/L pattern by count. In play, type \"take N\" or just N.",
    examples: &[
        "pebbles",
        "pebbles --count 21 --take 1,3,4",
        "pebbles --misere --output json",
    ],
    params: &[
        Param::number(
            "count",
            "Pebbles in the bag at the start.",
            0,
            100_000_000,
            "10",
        ),
        Param {
            name: "take",
            help: "The amounts a move may take, comma-separated.",
            kind: Kind::Numbers {
                min: 0,
                max: u32::MAX as u64,
            },
            default: Some("1,2"),
            positional: false,
            value_name: "SET",
        },
        Param {
            name: "misere",
            help: "Misère play: the player who cannot move wins.",
            kind: Kind::Flag,
            default: None,
            positional: false,
            value_name: "",
        },
    ],
    moves: Some("take N, or N"),
    symmetry: "",
};

/// A subtraction game: `count` pebbles, take any amount in `take`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pebbles {
    count: u32,
    take: Vec<u32>,
}

impl Pebbles {
    /// A game starting from `count` pebbles.
    ///
    /// # Errors
    /// When `take` is empty or holds 0 (a move must take at least one pebble).
    pub fn new(count: u32, mut take: Vec<u32>) -> Result<Pebbles, GameError> {
        if take.is_empty() {
            return Err(GameError::EmptyTakeSet);
        }
        if take.contains(&0) {
            return Err(GameError::TakeZero);
        }
        take.sort_unstable();
        take.dedup();
        Ok(Pebbles { count, take })
    }

    /// The starting count.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The take-set, sorted.
    pub fn take(&self) -> &[u32] {
        &self.take
    }

    /// Solves every count from 0 to the start, under normal or misère play.
    ///
    /// # Errors
    /// As [`solve_game`].
    pub fn solve(&self, misere: bool) -> Result<GameSolution<'_, Pebbles>, ExploreError> {
        let no_move = if misere {
            Primitive::Win
        } else {
            Primitive::Loss
        };
        solve_game(self, &Rules { no_move })
    }

    /// `W`/`L` for each count from 0 up to the start (win or loss for the player to move).
    pub fn pattern(&self, s: &GameSolution<'_, Pebbles>) -> String {
        (0..=self.count)
            .map(|c| match s.value(&c).map(|v| v.outcome()) {
                Some(Outcome::Win) => 'W',
                Some(Outcome::Loss) => 'L',
                // A subtraction game always ends; a count not reachable from the start
                // (e.g. with take-set {2}) is shown as '.'.
                _ => '.',
            })
            .collect()
    }
}

impl Game for Pebbles {
    type Position = u32;

    fn start(&self) -> u32 {
        self.count
    }

    fn moves(&self, p: &u32, out: &mut Vec<u32>) {
        out.extend(self.take.iter().filter(|&&t| t <= *p).map(|&t| p - t));
    }

    fn primitive(&self, _: &u32) -> Option<Primitive> {
        None
    }

    fn index_size(&self) -> Option<u64> {
        Some(self.count as u64 + 1)
    }

    fn index(&self, p: &u32) -> u64 {
        *p as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_solve::Value;

    #[test]
    fn normal_and_misere() {
        let g = Pebbles::new(10, vec![2, 1, 2]).unwrap();
        assert_eq!(g.take(), &[1, 2]);
        let s = g.solve(false).unwrap();
        for c in 0..=10 {
            assert_eq!(
                s.value(&c).unwrap().outcome() == Outcome::Loss,
                c % 3 == 0,
                "count {c}"
            );
        }
        // Misère take 1 or 2: lost exactly when c % 3 == 1.
        let s = g.solve(true).unwrap();
        for c in 0..=10 {
            assert_eq!(
                s.value(&c).unwrap().outcome() == Outcome::Loss,
                c % 3 == 1,
                "count {c}"
            );
        }
        assert_eq!(s.value(&0), Some(Value::Win(0)));
    }

    #[test]
    fn unreachable_counts_and_bad_sets() {
        let g = Pebbles::new(5, vec![2]).unwrap();
        let s = g.solve(false).unwrap();
        assert_eq!(g.pattern(&s), ".L.W.L"); // 1 has no move; 3 -> 1; 5 -> 3
        assert!(Pebbles::new(5, vec![]).is_err());
        assert!(Pebbles::new(5, vec![0, 1]).is_err());
    }
}
