//! What a game says of itself: its command name, its rules in words, examples, its
//! parameters and how moves are typed. Each game's module declares its [`About`] beside its
//! rules (`tictactoe::ABOUT`); the registry (`retrograde-registry`) makes the game's entry
//! of it, which `retrograde game`, `play`, `--help`, the Python package and the web page
//! read.

/// What a game says of itself.
#[derive(Copy, Clone, Debug)]
pub struct About {
    /// The command name: `connect4`.
    pub name: &'static str,
    /// One line for a list of games.
    pub about: &'static str,
    /// The rules, the notation, and what solving costs, for `--help`.
    pub help: &'static str,
    /// Example command lines (after `retrograde game`).
    pub examples: &'static [&'static str],
    /// The parameters.
    pub params: &'static [Param],
    /// How moves are typed in `play`; `None` when the game cannot be played.
    pub moves: Option<&'static str>,
    /// What a report calls its symmetry classes (`positions up to rotation and reflection`);
    /// empty for none.
    pub symmetry: &'static str,
}

/// What kind of value a parameter takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number in `min..=max`.
    Number {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// Comma-separated whole numbers, each in `min..=max`.
    Numbers {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// On or off (`--misere`).
    Flag,
    /// One of a few words.
    Choice(&'static [&'static str]),
    /// A file (or `-` for standard input) that the caller reads and hands over as bytes.
    Input,
    /// Free text (an octal code).
    Text,
}

/// One parameter of a game.
#[derive(Copy, Clone, Debug)]
pub struct Param {
    /// The name: `--width` on the command line, `width` in a database.
    pub name: &'static str,
    /// One sentence for `--help`.
    pub help: &'static str,
    /// What it takes.
    pub kind: Kind,
    /// The default, as typed (`None`: required, or off for a flag; [`OPTIONAL`]: absent
    /// unless given).
    pub default: Option<&'static str>,
    /// Given without a `--name` (a file, an octal code).
    pub positional: bool,
    /// A word for the value in help: `N`, `FILE`, `SET`.
    pub value_name: &'static str,
}

impl Param {
    /// A number with a default.
    pub const fn number(
        name: &'static str,
        help: &'static str,
        min: u64,
        max: u64,
        default: &'static str,
    ) -> Param {
        Param {
            name,
            help,
            kind: Kind::Number { min, max },
            default: Some(default),
            positional: false,
            value_name: "N",
        }
    }

    /// A flag, off unless given.
    pub const fn flag(name: &'static str, help: &'static str) -> Param {
        Param {
            name,
            help,
            kind: Kind::Flag,
            default: None,
            positional: false,
            value_name: "",
        }
    }
}

/// The default of a parameter that may be left out, and then has no value (chess takes
/// an ending or `--up-to N`).
pub const OPTIONAL: Option<&str> = Some("");
