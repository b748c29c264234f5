//! A game's entry in the registry: what it says of itself ([`About`], beside its rules),
//! how the web page draws it, and how it is built from its parameters' values. One line
//! registers a game: [`Entry::tier`] for a tier game, [`Entry::explored`] for a game
//! explored into a graph, [`Entry::new`] for a game with a [`Built`] of its own.

use crate::explored::{Explore, Explored};
use crate::tier::{Hooks, Standard, TierBuilt};
use crate::{Args, BuildError, Built};
use retrograde_games::about::About;
use retrograde_games::play::Playable;
use retrograde_games::{GameError, GameSolution};
use retrograde_solve::Rules;
use retrograde_tier::Notation;

/// A built-in game: what it says of itself (its [`About`], whose fields read through the
/// entry: `entry.name`, `entry.params`), what it takes beside, how to build it.
pub struct Entry {
    /// What the game says of itself.
    pub described: &'static About,
    /// Whether the game is solved tier by tier, so that `--db`, `--resume` and `query` apply.
    pub tiered: bool,
    /// Whether positions are named by moves from a start (`--query MOVES`); a chess ending
    /// has no start and is asked by position (`query DB --position FEN`).
    pub start: bool,
    /// Whether `--dump` writes every position as CSV ([`Answer::dump`](crate::Answer::dump)).
    pub dump: bool,
    /// How the web explorer draws its positions.
    pub drawing: Drawing,
    compacts: bool,
    build: Builder,
}

/// An entry's way from its parameters' values to its built game.
type Builder = Box<dyn Fn(&Args) -> Result<Box<dyn Built>, BuildError> + Send + Sync>;

impl std::ops::Deref for Entry {
    type Target = About;

    fn deref(&self) -> &About {
        self.described
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// How an entry makes its game from the parameters' values: a parameter missing or
/// refused is the outer error; the game's own refusal of the values (`a 0x4 board has no
/// cells`) the inner one, which the entry names with the game.
pub type Make<G> = fn(&Args) -> Result<Result<G, GameError>, BuildError>;

impl Entry {
    /// A tier game, solved tier by tier: its flags from its types and its entry's
    /// [`Hooks`] (the standard ones here; see [`Entry::tier_with`]).
    ///
    /// ```
    /// use retrograde_games::tictactoe::{self, TicTacToe};
    /// use retrograde_registry::{Drawing, Entry};
    /// let e = Entry::tier(&tictactoe::ABOUT, Drawing::Marks, |a| {
    ///     Ok(TicTacToe::new(a.u32("rows")?, a.u32("cols")?, a.u32("k")?))
    /// });
    /// assert!(e.tiered && e.start && !e.dump);
    /// ```
    pub fn tier<G: Notation + Send + Sync + 'static>(
        about: &'static About,
        drawing: Drawing,
        make: Make<G>,
    ) -> Entry {
        Entry::tier_with(about, drawing, Standard, make)
    }

    /// A tier game whose entry differs from the standard one by `hooks` (a size check of
    /// its own, a report of its own).
    pub fn tier_with<G: Notation + Send + Sync + 'static, H: Hooks<G>>(
        about: &'static About,
        drawing: Drawing,
        hooks: H,
        make: Make<G>,
    ) -> Entry {
        let _ = hooks;
        let build = move |a: &Args| -> Result<Box<dyn Built>, BuildError> {
            let game = make(a)?.map_err(|why| BuildError::Game {
                game: about.name,
                why,
            })?;
            Ok(Box::new(TierBuilt::<G, H>::new(game, about, a.to_json())))
        };
        Entry {
            tiered: true,
            start: H::FROM_START,
            dump: H::DUMPS,
            compacts: H::COMPACTS,
            ..Entry::described(about, drawing, Box::new(build))
        }
    }

    /// A game explored into a graph from its start and solved whole in one process, by the
    /// rules its maker gives with it.
    pub fn explored<G: Explore>(about: &'static About, make: Make<(G, Rules)>) -> Entry
    where
        for<'g> GameSolution<'g, G>: Playable,
    {
        let build = move |a: &Args| -> Result<Box<dyn Built>, BuildError> {
            let (game, rules) = make(a)?.map_err(|why| BuildError::Game {
                game: about.name,
                why,
            })?;
            Ok(Box::new(Explored::new(game, rules, about)))
        };
        Entry::described(about, Drawing::None, Box::new(build))
    }

    /// A game with a [`Built`] of its own, solved in one process.
    pub fn new(
        about: &'static About,
        build: fn(&Args) -> Result<Box<dyn Built>, BuildError>,
    ) -> Entry {
        Entry::described(about, Drawing::None, Box::new(build))
    }

    fn described(about: &'static About, drawing: Drawing, build: Builder) -> Entry {
        Entry {
            described: about,
            tiered: false,
            start: true,
            dump: false,
            drawing,
            compacts: false,
            build,
        }
    }

    /// Whether `--compact` applies: the game's tables hold both sides to move, so that a
    /// finished database may keep one side's values and derive the other's (chess endings;
    /// [`Hooks::COMPACTS`]). Other games do not offer the flag.
    pub fn compacts(&self) -> bool {
        self.compacts
    }

    /// Builds the game from its parameters' values.
    ///
    /// # Errors
    /// A parameter missing or refused, a file that does not parse, values the game
    /// refuses.
    pub fn build(&self, args: &Args) -> Result<Box<dyn Built>, BuildError> {
        (self.build)(args)
    }
}

/// How the web explorer draws a game's positions: the board of a query's answer ([`Grid`])
/// with these pieces, or (`None`) the position with its moves as a list.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Drawing {
    /// No board: the position and its moves (graphs, pebbles, the police map).
    None,
    /// Stones dropped into columns (Connect-4): a move is a column number.
    Holes,
    /// Marks on a grid (tic-tac-toe): `x` and `o`.
    Marks,
    /// Cubes marked `x` or `o` (Quixo).
    Cubes,
    /// Stones on a grid (Teeko, and any other grid).
    Stones,
    /// A chessboard: FEN letters, white's upper case; moves in UCI (`e7e8q`).
    Chess,
}

impl Drawing {
    /// The name the explorer's API gives it (`holes`).
    pub fn as_str(self) -> &'static str {
        match self {
            Drawing::None => "none",
            Drawing::Holes => "holes",
            Drawing::Marks => "marks",
            Drawing::Cubes => "cubes",
            Drawing::Stones => "stones",
            Drawing::Chess => "chess",
        }
    }
}
