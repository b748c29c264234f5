//! Command-line arguments (clap derive).

use crate::flags::{FormatArg, GraphArgs};
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
    retrograde grundy examples/pebbles.rg             (Sprague-Grundy values)\n  \
    retrograde sum octal:0.77:10 nim:7                (several games at once)\n  \
    retrograde solve graph.txt --output csv > values.csv\n  \
    retrograde solve graph.txt --summary --output json\n  \
    retrograde solve graph.txt --line 0\n  \
    retrograde verify graph.txt values.csv\n  \
    retrograde play tictactoe\n\n\
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
    /// No progress bars (they are drawn on standard error, and only when it is a terminal).
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Stop with an error rather than use more than this much memory, e.g. `20G`, `512M`
    /// (default and upper bound: the smallest of the memory the system reports available,
    /// `ulimit -v` and the cgroup's limit).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, global = true)]
    pub memory: Option<u64>,
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
        \"vertices N\", \"terminal V win|loss|tie\", \"score V S\", \"owner V 0|1\",\n         \
        \"name V text\", \"start V\"\n  \
        grf    GamesmanClassic's graph format (N, then \"id u|w|l|t k children\", g = go again)\n  \
        json   {\"edges\": [[0,1],[1,2,\"again\"]], \"terminal\": [[2,\"tie\"]], ...}\n  \
        auto   guess from the extension (.grf, .json, .rg) or the first lines (default)\n\n\
        Values are for the player to move. Remoteness counts plies; a terminal has 0.\n\
        A draw never ends and has no remoteness. A graph with a score (\"score V S\": V is\n\
        terminal, worth S to the player to move there) is scored: each value says by how\n\
        much (\"win by 2 in 1\"; CSV and JSON gain a score).")]
    Solve(SolveArgs),
    /// Check a solution (CSV, as written by `solve --output csv`) against its graph.
    ///
    /// The check does not use the solver: every terminal must have the value the rules give
    /// it, and every other vertex exactly the best value its moves give, with a best move that
    /// realizes it. Exit status 1 when the solution is wrong.
    Verify(VerifyArgs),
    /// Sprague-Grundy values of an impartial game graph, loopy graphs included.
    ///
    /// In an impartial game both players have the same moves (every plain graph is one). A
    /// position's Grundy value says how it behaves beside other games, when each turn the
    /// player to move moves in exactly one of them: a position of value n plays like a nim heap
    /// of n tokens, and several games together are worth the XOR of their values (0: the
    /// player to move loses). On an acyclic graph the value is the mex (least non-negative
    /// integer not among) of the moves' values. With cycles, some positions have an infinite
    /// value inf{K}, K the finite values among their moves (Smith 1966; Fraenkel and Yesha
    /// 1986). Time: linear without cycles; with cycles, one linear pass per distinct finite
    /// value. Normal play only: a position without moves loses.
    #[command(after_help = "What the values mean, for the player to move:\n  \
        0                   a loss\n  \
        1, 2, 3, ...        a win (move to a position of value 0)\n  \
        inf{K}, 0 in K      a win\n  \
        inf{K}, 0 not in K  a draw: nobody can force a win, play goes on forever\n\n\
        In a sum of games (a move in exactly one component per turn): finite values add by\n\
        XOR; with exactly one infinite component inf{K}, the player to move wins iff the XOR\n\
        of the others lies in K, else it is a draw; two or more infinite components: a draw.\n\
        Each finite value has a counter: when the opponent moves a component from value n to\n\
        a larger or infinite value, answer back to value n at a smaller counter, and the play\n\
        cannot cycle forever (for value 0 the counter is the engine's loss remoteness).\n\n\
        Misère play (--misere shows it) follows no XOR rule: misère values do not add.\n\n\
        Examples:\n  \
        retrograde grundy examples/pebbles.rg\n  \
        retrograde grundy examples/loopy-impartial.rg --output csv\n  \
        retrograde grundy graph.txt --vertex 0 --misere\n  \
        retrograde sum examples/loopy-impartial.rg:2 nim:3   (play several games at once)")]
    Grundy(GrundyArgs),
    /// The outcome of several impartial games played together, and a winning move.
    ///
    /// Each turn the player to move moves in exactly one component (a disjunctive sum); who
    /// cannot move loses. The sum's value comes from the components' Grundy values: finite
    /// values add by XOR (0 loses); one infinite component inf{K} wins iff the XOR of the
    /// others lies in K (else a draw); two or more infinite components draw. Prints each
    /// component's value, the sum's value and outcome, and a move: a winning one (to a sum of
    /// value 0), or one that keeps a draw. Heap games take time quadratic in the heap for
    /// games that split heaps (Kayles: about 1.5 s for a heap of 100000).
    #[command(after_help = "Components:\n  \
        FILE:V           a graph file (any format `solve` reads), the game starting at vertex V\n                   \
        (an id or a name from the file)\n  \
        FILE             a graph file with a `start V` line\n  \
        nim:N            a nim heap of N tokens (take any number)\n  \
        take:S:N         a subtraction game: take t tokens for some t in the set S (comma-\n                   \
        separated), from a heap of N; take:1,2:10 is the pebble game (take 1 or 2)\n  \
        octal:CODE:N     the octal game CODE on a heap of N (0.77 Kayles, 0.07 Dawson's\n                   \
        Kayles, 0.137 Dawson's chess; see `retrograde game octal --help`)\n  \
        grundy-game:N    Grundy's game: split a heap of N into two unequal heaps\n\n\
        A file whose name starts like a built-in needs a path: ./nim:7.\n\n\
        Normal play only: misère sums do not follow the XOR rule.\n\n\
        Examples:\n  \
        retrograde sum nim:3 nim:5 nim:6                   (3 xor 5 xor 6 = 0: a loss)\n  \
        retrograde sum octal:0.77:10 take:1,3,4:17 nim:7\n  \
        retrograde sum examples/loopy-impartial.rg:2 nim:3 --output json")]
    Sum(SumArgs),
    /// Solve a built-in game given by its rules (every reachable position).
    ///
    /// Prints the value of the start position for the player to move, then statistics.
    /// `retrograde game NAME --help` tells a game's rules, parameters and cost.
    Game(GameArgs),
    /// Play a game or a graph file against perfect play, reading moves from standard input.
    ///
    /// Shows each position with its value and every move ranked by value; you pick a side,
    /// the engine plays the other perfectly. Commands: a move, moves, show, hint, undo,
    /// help, quit. Works without a terminal, so scripts can play.
    Play(PlayArgs),
    /// Ask a finished database about positions: their value and every move's, without solving.
    ///
    /// The database is the directory `retrograde game NAME --db DIR` or `retrograde solve
    /// FILE --db DIR` wrote; it says which game it holds. A position is given by the moves
    /// from the start (`--moves`, in the notation of `play`), in the game's own notation
    /// (`--position`; for a graph, a vertex id or name), or one per line on standard input
    /// (`--stdin`). Each move's value is for the player who makes it, best first.
    #[command(after_help = "Examples:\n  \
        retrograde game connect4 --width 5 --height 4 --db c4 && retrograde query c4 --moves 3,3,4\n  \
        retrograde query c4 --position \"...../...../...../..x..\" --output json\n  \
        retrograde query q4 --moves \"a1 a4,b4 b1\"\n  \
        retrograde solve game.rg --db g && retrograde query g --position 7\n  \
        printf 'moves: 3\\nmoves: 3,3\\n' | retrograde query c4 --stdin --output json\n\n\
        JSON (one object a position): {\"outcome\", \"remoteness\" (null for a draw), \"moves\": [{\"move\",\n\
        \"outcome\", \"remoteness\"}, ...] best first, \"position\", \"to_move\", \"board\" (grid games)}. On --stdin, a line is a\n\
        position in the game's notation or `moves: M1,M2`; a bad line prints {\"line\", \"error\"}\n\
        (JSON) or an error on stderr, the others go on, and the exit status is 2.")]
    Query(QueryArgs),
    /// Explore finished databases in a web browser: a page and an HTTP API on this machine.
    ///
    /// Prints the URL it listens on, then serves until stopped (Ctrl-C). The page draws the
    /// position, colours every move by its value for the player who makes it, plays moves
    /// on a click and charts the value history. `GET /api/query?moves=M1,M2` (or
    /// `position=P`; `db=ID` when several databases are served) returns the JSON of `query
    /// --output json`; a bad request is HTTP 400 with {"error"}; a damaged file is HTTP 500
    /// with {"error"} naming it and the command that repairs the database. The server
    /// follows the files: after a repair (or a solve again), the next request is answered
    /// from the new files.
    #[command(after_help = "Examples:\n  \
        retrograde game connect4 --width 5 --height 4 --db c4 && retrograde serve c4\n  \
        retrograde serve c4 t3 --port 0\n  \
        curl 'http://127.0.0.1:8080/api/query?db=c4&moves=3,3'")]
    #[command(after_long_help = LIMITS)]
    Serve(ServeArgs),
    /// Solve a parity game (PGSolver's format): who wins every vertex, and how.
    ///
    /// Even wins a play when the largest priority seen infinitely often is even, Odd when it
    /// is odd. Prints every vertex's winner and, where the winner moves, a winning move (a
    /// positional strategy). Preprocessing, then Zielonka's algorithm (or --algorithm pp or
    /// qpz); see docs/parity.md.
    Parity(crate::cmd::parity::ParityArgs),
    /// Check a solution of a parity game, without the solvers.
    ///
    /// Exit status 1 when the solution is wrong (the first fault is named).
    VerifyParity(crate::cmd::verify_parity::VerifyParityArgs),
}

/// How to play, for `play --help`.
const PLAY_HELP: &str = "\
How to play:
  The position is shown with its value for the side to move, then every legal move, best
  first, with what it is worth to the side that plays it. Type a move as listed (b2,
  take 2, 7, ne, ...) or a command: moves, show, hint, undo, help, quit. The engine
  answers at once with a best move (the first of the best-valued ones as listed).
  Commands are read line by line from standard input, so a script can play; without a
  terminal each command is echoed after the prompt. An illegal move is reported with the
  legal ones and play goes on. The end of the input ends the session (exit status 0).

Values, for the player to move, with perfect play from both sides (plies = single moves):
  win in 3    that player wins in 3 plies     loss in 8   loses in 8 at the latest
  tie in 2    the game ends level in 2        draw        the game never ends
  A drawn game goes on until you quit (a repeated position is pointed out); if the engine
  would move forever without your turn coming (a cycle of its own), the game ends there
  as a draw.

Examples:
  retrograde play tictactoe                          # you are X and move first
  retrograde play tictactoe --side O                 # the engine opens
  retrograde play pebbles --count 10 --take 1,2      # type \"take 1\" or just \"1\"
  retrograde play graph examples/loopy.rg --start 8  # moves are vertex ids or names
  retrograde play police-thief map.txt --side thief  # moves are n ne e se s sw w nw stay
  printf 'b2\\nhint\\nundo\\nquit\\n' | retrograde play tictactoe";

#[derive(Debug, Args)]
#[command(after_help = PLAY_HELP)]
pub struct PlayArgs {
    #[command(subcommand)]
    pub game: crate::games::PlayCommand,
    /// Your side: `first` or `1` (the side that moves first), `second` or `2`, or a side's
    /// name (X, O, policeman, thief, "player 1" in an arena). The engine plays the other.
    #[arg(long, global = true, value_name = "SIDE", default_value = "first")]
    pub side: String,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The database directories (`game NAME --db DIR` or `solve FILE --db DIR` wrote them).
    #[arg(value_name = "DB", required = true)]
    pub dbs: Vec<PathBuf>,
    /// The port to listen on; 0 picks a free one (the URL printed says which).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on. The server has no access control: keep it on the loopback
    /// address unless everyone who can reach it may read the databases.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
}

/// The server's limits, for `serve --help` (the numbers are `retrograde_serve`'s).
pub const LIMITS: &str = "\
Examples:
  retrograde game connect4 --width 5 --height 4 --db c4 && retrograde serve c4
  retrograde serve c4 t3 --port 0
  curl 'http://127.0.0.1:8080/api/query?db=c4&moves=3,3'

Limits (so that no client can stop the server answering others):
  An answer lists at most 1000 moves, the best first, and \"more\": N counts the others
  (the page shows \"and N more\"). A query replays at most 1000 moves. A lookup is given
  up after 5 s, and at most 32 run at once: past either, HTTP 503 with {\"error\"} and
  Retry-After. A connection with no request in flight for 10 s is closed (one that sends
  nothing, or half a request); at most 512 are open (half of `ulimit -n` when lower), and
  a new one closes the one idle the longest. The Host header must name the address the
  server listens on (on loopback: a loopback address or localhost; with --host 0.0.0.0:
  an address or localhost), else HTTP 403: a page of another site that points a name of
  its own at this machine (DNS rebinding) cannot read the databases. A parameter given
  twice (db=a&db=b) is HTTP 400.";

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The database directory.
    #[arg(value_name = "DB")]
    pub db: PathBuf,
    /// The position after these moves from the start, comma-separated, in the notation of
    /// `play` (an empty string: the start); with --position, the moves are played from
    /// that position (games without a start, such as chess endings).
    #[arg(long, value_name = "MOVES")]
    pub moves: Option<String>,
    /// A position in the game's own notation (see `retrograde game NAME --help`), or a
    /// vertex id or name for a graph.
    #[arg(long, value_name = "POSITION")]
    pub position: Option<String>,
    /// Read positions from standard input, one a line (or `moves: M1,M2,...`).
    #[arg(long, conflicts_with_all = ["moves", "position"])]
    pub stdin: bool,
    /// How to print the answers.
    #[arg(long, short, value_enum, default_value_t = QueryOutput::Text)]
    pub output: QueryOutput,
}

#[derive(Debug, Args)]
pub struct GameArgs {
    /// The game, its parameters, and the flags that game takes (`--db`, `--query`,
    /// `--dump`: each game's help lists its own).
    #[command(subcommand)]
    pub game: crate::games::GameCommand,
    /// How to print the results.
    #[arg(long, short, value_enum, default_value_t = GameOutput::Text, global = true)]
    pub output: GameOutput,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameOutput {
    /// Readable lines.
    Text,
    /// One JSON object: start, positions, win, loss, tie, draw, seconds, ...
    Json,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum QueryOutput {
    /// The position's picture, its value for the side to move, and the moves, best first,
    /// one a line.
    Text,
    /// One JSON object a position: position, to_move, outcome, remoteness, moves, board.
    Json,
}

/// `20G`, `512M`, `64K`, `1000` (bytes); binary units (`retrograde_mem::parse_size`, which
/// Python's `memory=` reads too).
pub fn parse_size(s: &str) -> Result<u64, String> {
    retrograde_mem::parse_size(s)
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
    /// Also keep the solved graph (values, best moves, the moves themselves, names) as a
    /// database in this directory, for `retrograde query DIR` and `retrograde serve DIR`
    /// later without the file and without solving.
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The graph file (`-` for standard input).
    #[arg(value_name = "GRAPH")]
    pub file: PathBuf,
    #[command(flatten)]
    pub graph: GraphArgs,
    /// The solution: a CSV file with header vertex,outcome,remoteness,best_move (then score
    /// for a scored graph, owner,winner for an arena; `-` for standard input).
    #[arg(value_name = "SOLUTION")]
    pub solution: PathBuf,
}

#[derive(Debug, Args)]
pub struct GrundyArgs {
    /// The graph file; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The file format (as for `solve`).
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,
    /// At least this many vertices (ids 0..N-1), even if fewer appear in the file.
    #[arg(long, value_name = "N")]
    pub vertices: Option<u64>,
    /// How to print the results.
    #[arg(long, short, value_enum, default_value_t = GrundyOutput::Text)]
    pub output: GrundyOutput,
    /// Print only the totals (in CSV: vertices,edges,acyclic,win,loss,draw,infinite,
    /// max_value,seconds).
    #[arg(long, conflicts_with = "vertex")]
    pub summary: bool,
    /// Print only these vertices (an id, or a name from the file); repeatable.
    #[arg(long, value_name = "V")]
    pub vertex: Vec<String>,
    /// Add each finite value's counter (a `counter` column in CSV; always shown in text and
    /// JSON).
    #[arg(long)]
    pub counters: bool,
    /// Also show the misère outcome of each vertex played alone (who cannot move wins), from
    /// the win/loss/draw engine (`solve --no-move win`). Misère values do not add by XOR.
    #[arg(long)]
    pub misere: bool,
    /// Check the values with the independent checker before printing.
    #[arg(long)]
    pub verify: bool,
}

#[derive(Debug, Args)]
pub struct SumArgs {
    /// The games played together (see the list below), at least one.
    #[arg(value_name = "COMPONENT", required = true)]
    pub components: Vec<String>,
    /// How to print the results.
    #[arg(long, short, value_enum, default_value_t = SumOutput::Text)]
    pub output: SumOutput,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum GrundyOutput {
    /// One line per vertex (value, outcome, counter), then totals.
    Text,
    /// vertex,grundy (plus counter with --counters; misere_outcome,misere_remoteness with
    /// --misere); an infinite value with a comma is quoted: "inf{0,2}".
    Csv,
    /// One JSON object: totals, then positions (grundy is a number, or a string "inf{...}"
    /// with the set in k).
    Json,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum SumOutput {
    /// One line per component, the sum's value and outcome, and the move.
    Text,
    /// One JSON object: components, value, outcome, move (null when every move loses).
    Json,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputArg {
    /// Readable lines.
    Text,
    /// vertex,outcome,remoteness,best_move (plus score in a scored graph, then owner,winner in
    /// an arena).
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

    /// `--no-move` takes the words Python's `no_move` takes (`Primitive::from_word`): those
    /// of `Primitive::ALL`, in its order, and nothing else.
    #[test]
    fn no_move_words_are_the_graph_crate_s() {
        use clap::ValueEnum;
        let words: Vec<String> = crate::flags::NoMove::value_variants()
            .iter()
            .map(|v| v.to_possible_value().unwrap().get_name().to_string())
            .collect();
        let all = retrograde_graph::Primitive::ALL.map(|p| p.as_str());
        assert_eq!(words, all);
        assert!(words
            .iter()
            .all(|w| retrograde_graph::Primitive::from_word(w).is_some()));
        assert_eq!(retrograde_graph::Primitive::from_word("lose"), None);
        for v in crate::flags::NoMove::value_variants() {
            let word = v.to_possible_value().unwrap().get_name().to_string();
            assert_eq!(crate::input::rules(*v).no_move.as_str(), word);
        }
    }
}
