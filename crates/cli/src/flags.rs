//! Groups of flags several commands share: how a graph file is read, where a tier game's
//! tiers go, `--query` and `--dump`, and the flags of `play` (clap derive).

use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// How to read a graph and what a dead end means (shared by the subcommands).
#[derive(Clone, Debug, Args)]
pub struct GraphArgs {
    /// The file format.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,
    /// At least this many vertices (ids 0..N-1), even if fewer appear in the file.
    #[arg(long, value_name = "N")]
    pub vertices: Option<u64>,
    /// The value of a position with no move, for the player to move there.
    #[arg(long, value_enum, default_value_t = NoMove::Loss)]
    pub no_move: NoMove,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Auto,
    Edges,
    Rg,
    Grf,
    Json,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum NoMove {
    /// Normal play: the player who cannot move loses.
    Loss,
    /// Misère play: the player who cannot move wins.
    Win,
    /// The game ends level.
    Tie,
}

/// Where a tier game keeps its tiers (the flags of `game NAME` for tier games).
#[derive(Clone, Debug, Default, Args)]
pub struct TierArgs {
    /// Keep the solved tiers (checksummed files) in this directory, to resume an
    /// interrupted solve or query the results later (`query`, `play --db`, `serve`).
    /// Default: in memory, or a temporary directory removed at the end.
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Reuse the finished tiers already in --db instead of solving them again (damaged
    /// ones are solved again).
    #[arg(long, requires = "db")]
    pub resume: bool,
    /// How a tier's positions are held while it is solved (the tier games whose every
    /// position has a slot; Connect-4's sorted keys take no notice): `values`, a value cell
    /// each (1, 2 or 4 bytes); `classes`, a byte each (won, lost, tied, or a counter), each
    /// level's positions logged and the values made from the log when the tier is
    /// finished (with --db, about three quarters of the peak where tiers are big, at some
    /// 5% more time); `auto`, the engine's choice (values). The values, the answer and the
    /// files are the same either way.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = CellsArg::Auto)]
    pub cells: CellsArg,
    /// `--compact`, for the games that offer it ([`CompactFlag`]).
    #[arg(skip)]
    pub compact: bool,
}

/// `--cells`: how a tier's positions are held while it is solved.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum CellsArg {
    /// The engine's choice.
    #[default]
    Auto,
    /// A value cell a position.
    Values,
    /// A byte a position, the levels logged.
    Classes,
}

impl From<CellsArg> for retrograde_tier::Working {
    fn from(c: CellsArg) -> Self {
        match c {
            CellsArg::Auto => retrograde_tier::Working::Auto,
            CellsArg::Values => retrograde_tier::Working::Values,
            CellsArg::Classes => retrograde_tier::Working::Classes,
        }
    }
}

/// `--compact` (games whose tables hold both sides to move: chess endings).
#[derive(Clone, Debug, Default, Args)]
pub struct CompactFlag {
    /// Once solved, keep of each table that has two sides to move only the side whose
    /// values take fewer bytes, about half the disk; a lookup of the other side reads the
    /// values of its moves (one ply). Also makes a finished --db compact. A compact
    /// database answers every query; repairing a damaged table derives what its children
    /// leave out (slower than from whole files).
    #[arg(long, requires = "db")]
    pub compact: bool,
}

/// `--query` (tier games with a start).
#[derive(Clone, Debug, Default, Args)]
pub struct QueryFlag {
    /// Instead of the totals, answer for the position after these moves (comma-separated,
    /// in the notation of `play`; `--query` alone asks about the start): its value and
    /// every move ranked. With a finished --db, answers without solving.
    #[arg(long, value_name = "MOVES", value_delimiter = ',', num_args = 0..)]
    pub query: Option<Vec<String>>,
}

/// `--dump` (games that can list every position).
#[derive(Clone, Debug, Default, Args)]
pub struct DumpFlag {
    /// Instead of the totals, print every position with its value as CSV, header first
    /// (chess: `fen,outcome,remoteness`, one row per legal position, both sides to move).
    #[arg(long)]
    pub dump: bool,
}

/// The flags of `play NAME` for tier games.
#[derive(Clone, Debug, Default, Args)]
pub struct PlayTierArgs {
    /// Play from a finished database (`retrograde game NAME ... --db DIR`, the same
    /// parameters) instead of solving first. A database of another game or size is
    /// refused.
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Start from this position, in the game's notation (see `retrograde game NAME
    /// --help`), instead of the start.
    #[arg(long, value_name = "POSITION")]
    pub position: Option<String>,
}

/// The long help of `play graph`.
pub const GRAPH_ABOUT: &str = "Any game graph file (the formats of `retrograde solve`).\n\n\
Moves are labelled by the successor's id, and by its name when the file gives one. The turn \
passes on every move except go-again ones; in an arena the owner of a vertex moves there (the \
sides are player 0 and player 1).";

/// The examples of `play graph`.
pub const GRAPH_EXAMPLES: &str = "Examples:\n  \
    retrograde play graph examples/pebbles.rg            # starts at the file's start\n  \
    retrograde play graph examples/arena.rg --side 2\n  \
    retrograde play graph game.txt --start 5 --no-move win";

/// `play graph FILE`.
#[derive(Clone, Debug, Args)]
pub struct GraphPlay {
    /// The graph file (not standard input, which carries your moves).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[command(flatten)]
    pub graph: GraphArgs,
    /// Where to start: a vertex id or a name from the file (default: the file's start,
    /// else vertex 0).
    #[arg(long, value_name = "V")]
    pub start: Option<String>,
}
