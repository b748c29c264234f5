//! The built-in games: one line each, in the order `--help` lists them. A game's rules,
//! words and parameters are in its own module (its `ABOUT`); how an entry builds, solves
//! and reports it is in `entry.rs` and the modules it names.

use crate::chess::Endings;
use crate::heap::{build_grundy_game, build_octal, build_subtraction};
use crate::problems::{build_great_game, build_scores, located};
use crate::tier::Connect4Sizes;
use crate::{Drawing, Entry};
use retrograde_games::connect4::{self, Connect4};
use retrograde_games::dots::{self, DotsAndBoxes};
use retrograde_games::kalah::{self, Kalah};
use retrograde_games::pebbles::{self, Pebbles};
use retrograde_games::police::{self, Map};
use retrograde_games::quixo::{self, Quixo};
use retrograde_games::teeko::{self, Teeko};
use retrograde_games::tictactoe::{self, TicTacToe};
use retrograde_games::{great_game, scores};
use retrograde_graph::Primitive;
use retrograde_impartial::heap;
use retrograde_solve::Rules;
use std::sync::LazyLock;

/// Every built-in game, in the order `--help` lists them.
pub fn entries() -> &'static [Entry] {
    &ENTRIES
}

/// The game called `name`.
pub fn entry(name: &str) -> Option<&'static Entry> {
    ENTRIES.iter().find(|e| e.name == name)
}

/// Every tier game's name, in the registry's order, for messages (`connect4, quixo, ...`).
pub fn tier_games() -> String {
    let names: Vec<&str> = ENTRIES
        .iter()
        .filter(|e| e.tiered)
        .map(|e| e.name)
        .collect();
    names.join(", ")
}

static ENTRIES: LazyLock<Vec<Entry>> = LazyLock::new(|| {
    vec![
        Entry::explored(&pebbles::ABOUT, |a| {
            let take = a.numbers("take")?.into_iter().map(|t| t as u32).collect();
            let no_move = match a.flag("misere") {
                true => Primitive::Win,
                false => Primitive::Loss,
            };
            Ok(Pebbles::new(a.u32("count")?, take).map(|g| (g, Rules { no_move })))
        }),
        Entry::explored(&police::ABOUT, |a| {
            let input = a.input("map")?;
            let map = Map::parse(&input.bytes).map_err(|e| located(input, e))?;
            Ok(Ok((map, Rules::default())))
        }),
        Entry::tier(&tictactoe::ABOUT, Drawing::Marks, |a| {
            Ok(TicTacToe::new(a.u32("rows")?, a.u32("cols")?, a.u32("k")?))
        }),
        Entry::tier_with(&connect4::ABOUT, Drawing::Holes, Connect4Sizes, |a| {
            Ok(Connect4::new(a.u32("width")?, a.u32("height")?))
        }),
        Entry::tier(&quixo::ABOUT, Drawing::Cubes, |a| {
            Ok(Quixo::new(a.u32("size")?))
        }),
        Entry::tier(&teeko::ABOUT, Drawing::Stones, |a| {
            Ok(Teeko::new(a.u32("size")?, a.u32("pieces")?))
        }),
        Entry::tier(&dots::ABOUT, Drawing::None, |a| {
            Ok(DotsAndBoxes::new(a.u32("rows")?, a.u32("cols")?))
        }),
        Entry::tier(&kalah::ABOUT, Drawing::None, |a| {
            Ok(Kalah::new(
                a.u32("pits")?,
                a.u32("seeds")?,
                a.flag("empty-capture"),
            ))
        }),
        Entry::tier_with(
            &retrograde_games::chess::ABOUT,
            Drawing::Chess,
            Endings,
            crate::chess::make,
        ),
        Entry::new(&great_game::ABOUT, build_great_game),
        Entry::new(&scores::ABOUT, build_scores),
        Entry::new(&heap::OCTAL, build_octal),
        Entry::new(&heap::SUBTRACTION, build_subtraction),
        Entry::new(&heap::GRUNDY_GAME, build_grundy_game),
    ]
});
