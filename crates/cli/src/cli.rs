//! Command-line arguments (clap derive).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Solve two-player games on directed graphs by retrograde analysis.
///
/// Every position (vertex) gets its outcome for the player to move (win, loss, tie or draw),
/// its remoteness (plies to the end when the winner hurries and the loser stalls) and a best
/// move, in time linear in the size of the graph.
#[derive(Debug, Parser)]
#[command(name = "retrograde", version, propagate_version = true)]
#[command(after_help = "Examples:\n  \
    retrograde solve examples/pebbles.rg\n  \
    retrograde solve graph.txt --output csv > values.csv\n  \
    retrograde solve graph.txt --summary --output json\n  \
    retrograde solve graph.txt --line 0\n  \
    retrograde verify graph.txt values.csv\n\n\
    Exit status: 0 success, 1 a negative answer (verify found a wrong value), 2 an error.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Worker threads for parsing, building, solving and best moves (default: all cores).
    /// The answer is the same for every N.
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// Print phase timings and peak memory to stderr.
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve every vertex of a game graph.
    ///
    /// Reads a graph (a file, or standard input when FILE is `-` or absent), solves it, and
    /// prints every vertex's outcome, remoteness and best move. Memory: at most about 16 bytes
    /// per edge plus 41 per vertex (checked against free memory before the layout); time:
    /// linear in the size of the file.
    #[command(after_help = "Graph formats (--format):\n  \
        edges  one move \"u v\" per line; ids are 0-based; '#' and '%' start comments\n  \
        rg     edges plus annotations: \"u v again\" (same player moves next),\n         \
        \"vertices N\", \"terminal V win|loss|tie\", \"owner V 0|1\", \"name V text\", \"start V\"\n  \
        grf    GamesmanClassic's graph format (N, then \"id u|w|l|t k children\", g = go again)\n  \
        json   {\"edges\": [[0,1],[1,2,\"again\"]], \"terminal\": [[2,\"tie\"]], ...}\n  \
        auto   guess from the extension (.grf, .json, .rg) or the first lines (default)\n\n\
        Values are for the player to move. Remoteness counts plies; a terminal has 0.\n\
        A draw never ends and has no remoteness.")]
    Solve(SolveArgs),
    /// Check a solution (CSV, as written by `solve --output csv`) against its graph.
    ///
    /// The check does not use the solver: every terminal must have the value the rules give
    /// it, and every other vertex exactly the best value its moves give, with a best move that
    /// realizes it. Exit status 1 when the solution is wrong.
    Verify(VerifyArgs),
    /// Solve a built-in game given by its rules (every reachable position).
    ///
    /// Prints the value of the start position for the player to move, then statistics.
    Game(GameArgs),
}

#[derive(Debug, Args)]
pub struct GameArgs {
    #[command(subcommand)]
    pub game: GameCommand,
    /// How to print the results.
    #[arg(long, short, value_enum, default_value_t = GameOutput::Text, global = true)]
    pub output: GameOutput,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum GreatMethod {
    /// Retrograde analysis of the product game (explores every reachable position).
    Product,
    /// The seed's memoized search (iterative).
    Memo,
    /// The seed's O(n + m) method.
    Minimax,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameOutput {
    /// Readable lines.
    Text,
    /// One JSON object: start, positions, win, loss, tie, draw, seconds, ...
    Json,
}

#[derive(Debug, Subcommand)]
pub enum GameCommand {
    /// The pebble game (seed 004): take a number of pebbles from the take-set; who cannot move
    /// loses (or wins, with --misere). Also prints the W/L pattern by count.
    Pebbles {
        /// Pebbles in the bag at the start.
        #[arg(long, default_value_t = 10)]
        count: u32,
        /// The amounts a move may take, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "1,2")]
        take: Vec<u32>,
        /// Misère play: the player who cannot move wins.
        #[arg(long)]
        misere: bool,
    },
    /// The policeman and the thief (seed 000) on a map file: `n m`, then n rows; `*` wall,
    /// `P` (or `C`) policeman, `T` thief, `E` exit. The first line printed is exactly one of
    /// "Police catches the thief", "The thief escapes", "Draw".
    ///
    /// Memory and time grow with the square of the free cells (a 40x40 open map has about
    /// 5 million positions).
    PoliceThief {
        /// The map file (`-` for standard input).
        #[arg(value_name = "MAP")]
        map: PathBuf,
    },
    /// Tic-tac-toe and other m,n,k-games: X and O fill cells in turn, k in a row wins, a full
    /// board is a tie. Positions counted are those reachable from the empty board.
    Tictactoe {
        /// Board rows.
        #[arg(long, default_value_t = 3)]
        rows: u32,
        /// Board columns (rows x cols at most 32).
        #[arg(long, default_value_t = 3)]
        cols: u32,
        /// How many in a row win.
        #[arg(long, default_value_t = 3)]
        k: u32,
    },
    /// The Great Game (seed 001, ETH Algolab): red and black meeples on a topologically sorted
    /// DAG; input t cases of `n m`, `r b`, m edges `u v` (1-based, u < v). Prints one line
    /// per case: 0 when Sherlock wins, 1 when Moriarty wins.
    GreatGame {
        /// The input file (`-` or nothing: standard input).
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
        /// product: retrograde on (red, black, player, parity); memo: the seed's memoized
        /// search; minimax: the seed's O(n + m) min/max distances. All three agree.
        #[arg(long, value_enum, default_value_t = GreatMethod::Minimax)]
        method: GreatMethod,
    },
    /// IOI 2001 "Score": N positions owned by player 1 or 2 with distinct values; the owner of
    /// the token's position raises their score to its value, then moves along an arrow; the
    /// game ends when the token returns to 1; the higher score wins. Input: N, an N x N 0/1
    /// arrow matrix, N owners, N values. Prints the winner and player 1's winning strategy.
    Scores {
        /// The instance file (`-` for standard input).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Play as player 1 over standard input/output (IOI protocol): write each position
        /// player 1 moves to on its own line, read each opponent move as a position number.
        #[arg(long)]
        play: bool,
    },
}

/// How to read a graph and what a dead end means (shared by the subcommands).
#[derive(Debug, Args)]
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

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The graph file; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub graph: GraphArgs,
    /// How to print the results.
    #[arg(long, short, value_enum, default_value_t = OutputArg::Text)]
    pub output: OutputArg,
    /// Print only the totals.
    #[arg(long, conflicts_with_all = ["line", "vertex"])]
    pub summary: bool,
    /// Print only these vertices (an id, or a name from the file); repeatable.
    #[arg(long, value_name = "V")]
    pub vertex: Vec<String>,
    /// Print the optimal line of play from V until it ends (or repeats, for a draw).
    #[arg(long, value_name = "V", conflicts_with = "vertex")]
    pub line: Option<String>,
    /// Check the solution with the independent verifier before printing.
    #[arg(long)]
    pub verify: bool,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The graph file (`-` for standard input).
    #[arg(value_name = "GRAPH")]
    pub file: PathBuf,
    #[command(flatten)]
    pub graph: GraphArgs,
    /// The solution: a CSV file with header vertex,outcome,remoteness,best_move (`-` for
    /// standard input).
    #[arg(value_name = "SOLUTION")]
    pub solution: PathBuf,
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

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputArg {
    /// Readable lines.
    Text,
    /// vertex,outcome,remoteness,best_move (plus owner,winner in an arena).
    Csv,
    /// One JSON object.
    Json,
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn clap_definitions_are_consistent() {
        Cli::command().debug_assert();
    }
}
