//! Playing the pebble game: moves are `take N` (or just `N`).

use super::{Move, Playable};
use crate::pebbles::Pebbles;
use crate::GameSolution;
use retrograde_graph::Primitive;
use retrograde_solve::Value;

/// Counts above this are shown as a number only.
const DRAWN: u32 = 60;

impl Playable for GameSolution<'_, Pebbles> {
    type Position = u32;

    fn start(&self) -> u32 {
        self.game().count()
    }

    fn moves(&self, &p: &u32) -> Result<Vec<Move<u32>>, retrograde_tier::Error> {
        Ok(self
            .game()
            .take()
            .iter()
            .filter(|&&t| t <= p)
            .map(|&t| Move::new(format!("take {t}"), p - t).alias(t.to_string()))
            .collect())
    }

    fn value(&self, p: &u32) -> Result<Value, retrograde_tier::Error> {
        GameSolution::value(self, p).ok_or_else(|| {
            retrograde_tier::Error::Game("every count reached in play was solved".into())
        })
    }

    fn render(&self, &p: &u32) -> String {
        let word = if p == 1 { "pebble" } else { "pebbles" };
        if p == 0 {
            "The bag is empty.".into()
        } else if p <= DRAWN {
            format!("{p} {word} left: {}", "o".repeat(p as usize))
        } else {
            format!("{p} {word} left.")
        }
    }

    fn title(&self) -> String {
        let take = self.game().take();
        let amounts = match take {
            [one] => one.to_string(),
            [init @ .., last] => format!(
                "{} or {last}",
                init.iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            [] => String::new(),
        };
        let end = match self.rules().no_move {
            Primitive::Loss => "loses",
            Primitive::Win => "wins (misère)",
            Primitive::Tie => "ties",
        };
        format!(
            "Pebbles: {} in the bag; a move takes {amounts}; the player who cannot move {end}.",
            self.game().count()
        )
    }
}
