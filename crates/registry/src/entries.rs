//! The built-in games.

use crate::params::{Args, Input, Kind, Param, OPTIONAL};
use crate::{
    Answer, BuildError, Built, Drawing, Entry, Protocol, Query, QueryAnswer, QueryError, Report,
    Solved, TierBuilt, TooBig,
};
use retrograde_games::connect4::{position_bound, Connect4};
use retrograde_games::dots::DotsAndBoxes;
use retrograde_games::great_game;
use retrograde_games::kalah::Kalah;
use retrograde_games::pebbles::Pebbles;
use retrograde_games::play::{ranked_moves, start_session, DynSession, Playable};
use retrograde_games::police::Map;
use retrograde_games::quixo::Quixo;
use retrograde_games::scores::{Instance, IoiPlayer, OpponentError, ScoresSolution};
use retrograde_games::teeko::Teeko;
use retrograde_games::tictactoe::TicTacToe;
use retrograde_games::{GameError, GameSolution};
use retrograde_graph::format::ParseError;
use retrograde_impartial::HeapGame;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::Value;
use retrograde_tier::{Error, SolveOptions, Stats};

/// Every built-in game, in the order `--help` lists them.
pub fn entries() -> &'static [Entry] {
    ENTRIES
}

/// The game called `name`.
pub fn entry(name: &str) -> Option<&'static Entry> {
    ENTRIES.iter().find(|e| e.name == name)
}

fn located(input: &Input, error: ParseError) -> BuildError {
    BuildError::Input {
        name: input.name.clone(),
        error,
    }
}

/// `game`'s refusal of its parameters.
fn refused(game: &'static str) -> impl FnOnce(GameError) -> BuildError {
    move |why| BuildError::Game { game, why }
}

fn explore_error(e: retrograde_games::ExploreError) -> Error {
    match e {
        retrograde_games::ExploreError::Memory { needed, limit } => Error::Memory {
            what: "exploring the positions".into(),
            needed,
            limit,
        },
        e => Error::Unsupported(e.to_string()),
    }
}

static ENTRIES: &[Entry] = &[
    Entry {
        name: "pebbles",
        about: "the pebble game: take pebbles from a bag; who cannot move loses (or wins, misère)",
        help:
            "The pebble game (a subtraction game): a bag holds pebbles; a move takes a number of \
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
        play: Some("take N, or N"),
        tiered: false,
        start: true,
        dump: false,
        drawing: Drawing::None,
        build: build_pebbles,
    },
    Entry {
        name: "police-thief",
        about: "the policeman and the thief on a map",
        help: "The policeman and the thief on a map file: `n m`, then n rows; `*` wall, `P` (or \
               `C`) policeman, `T` thief, `E` exit. The policeman moves first, to one of 8 \
               neighbours; the thief to one of 4; either may stay. The first line printed is \
               exactly one of \"Police catches the thief\", \"The thief escapes\", \"Draw\". \
               Memory and time grow with the square of the free cells (a 40x40 open map has \
               about 5 million positions). In play, moves are n ne e se s sw w nw and stay.",
        examples: &["police-thief map.txt", "police-thief map.txt --output json"],
        params: &[Param {
            name: "map",
            help: "The map file (`-` for standard input).",
            kind: Kind::Input,
            default: None,
            positional: true,
            value_name: "MAP",
        }],
        play: Some("n ne e se s sw w nw, or stay"),
        tiered: false,
        start: true,
        dump: false,
        drawing: Drawing::None,
        build: build_police,
    },
    Entry {
        name: "tictactoe",
        about: "tic-tac-toe and other m,n,k-games",
        help: "Tic-tac-toe and other m,n,k-games: X and O fill cells in turn, X first; k in a \
               row (across, down or diagonally) wins; a full board is a tie. Every position is \
               solved, one per symmetry class; positions counted are those reachable from the \
               empty board. Cells are a file letter and a rank number, a1 bottom left (b2 is \
               the centre of 3x3). Positions (--position) are rows from the top separated by \
               '/', each cell x, o or . (x.o/.x./..o). Boards up to 4x4 solve in seconds.",
        examples: &[
            "tictactoe",
            "tictactoe --rows 3 --cols 4 --k 3",
            "tictactoe --rows 4 --cols 4 --k 4",
        ],
        params: &[
            Param::number("rows", "Board rows.", 1, 32, "3"),
            Param::number(
                "cols",
                "Board columns (rows x cols at most 32).",
                1,
                32,
                "3",
            ),
            Param::number("k", "How many in a row win.", 1, 32, "3"),
        ],
        play: Some("a cell, such as b2"),
        tiered: true,
        start: true,
        dump: false,
        drawing: Drawing::Marks,
        build: build_tictactoe,
    },
    Entry {
        name: "connect4",
        about: "Connect-4 on small boards",
        help: "Connect-4: drop stones into columns in turn, four in a row (across, up or \
               diagonally) wins, a full board ties. Every position reachable from the empty \
               board is solved, tier by tier (a tier = the positions with the same number of \
               stones), as sorted keys found by merging; tiers are kept in files (a temporary \
               directory, or --db). A move is a column number (1 = left); a position \
               (--position) is rows from the top separated by '/', each cell x (first \
               player), o or . Cost: 5x4 under a second; 5x5 and 6x4 seconds; 6x5 (2.8e9 \
               positions) minutes, about 7 GiB of memory and a 0.4 GB database. 7x6 (4.5e12) is \
               out of reach.",
        examples: &[
            "connect4 --width 5 --height 4",
            "connect4 --width 6 --height 5 --db c4-6x5 --resume",
            "connect4 --width 5 --height 5 --output json",
        ],
        params: &[
            Param::number("width", "Columns.", 1, 64, "5"),
            Param::number("height", "Rows.", 1, 63, "4"),
        ],
        play: Some("a column number, 1 to the width"),
        tiered: true,
        start: true,
        dump: false,
        drawing: Drawing::Holes,
        build: build_connect4,
    },
    Entry {
        name: "quixo",
        about: "Quixo (official rules) on 3x3 or 4x4",
        help: "Quixo (official rules): take a blank cube or one of yours from the border, turn \
               it to your symbol, push it back in at an end of its row or column; a line of \
               your symbol wins, making a line of the opponent's loses (even with one of \
               yours). Every state is solved (boards seen by the player to move, one per \
               symmetry class), then the positions reachable from the empty board are counted \
               (a board with X to move and with O to move count apart). A move is the cube \
               taken and where it goes back in: a1 a4 (or a1a4). A position (--position) is \
               rows from the top separated by '/', cubes x, o or ., then the side to move: \
               x..o/..../..../.... o. 4x4: 43M states, about 130 MB and 10 s. 5x5 (8.5e11 \
               states) is refused with its estimate.",
        examples: &[
            "quixo --size 3",
            "quixo --size 4 --output json",
            "quixo --size 4 --db q4 --resume",
        ],
        params: &[Param::number(
            "size",
            "The side of the board: 3, 4 or 5.",
            1,
            64,
            "4",
        )],
        play: Some("the cube taken and where it goes in, such as a1 a4"),
        tiered: true,
        start: true,
        dump: false,
        drawing: Drawing::Cubes,
        build: build_quixo,
    },
    Entry {
        name: "teeko",
        about:
            "Teeko (John Scarne): drop four pieces, then step them; four in a line or a square wins",
        help: "Teeko on a 5x5 board, four pieces each; the first player (x) starts. First \
               the players drop their pieces in turn on empty cells; once all eight are on \
               the board, a move steps one of your pieces to an empty cell next to it (8 \
               directions). Four of yours in a row, column or diagonal, or on the four cells \
               of a 2x2 square, win at once. Perfect play never ends: the start is a draw \
               (Steele, 1998). A drop is a cell, c3 (files a-e from the left, ranks 1-5 from \
               the bottom); a step is c3-d4. A position (--position) is rows from the top \
               separated by '/', cells x, o or ., then the side to move: \
               x...o/...../..x../...../..... o. Every state (the board seen by the player to \
               move, one per symmetry class) is solved: 9 tiers, the last (the move phase, \
               75,710,250 boards) loopy; about 300 MiB and 46 s on 2 shared cores. --size and \
               --pieces play the same rules on a smaller board or with three pieces (k in a \
               line; the square only with four).",
        examples: &[
            "teeko",
            "teeko --db teeko --resume",
            "teeko --size 4 --pieces 3 --output json",
        ],
        params: &[
            Param::number("size", "The side of the board: 3, 4 or 5.", 1, 64, "5"),
            Param::number(
                "pieces",
                "Pieces each: 3 or 4 (at most the size).",
                1,
                64,
                "4",
            ),
        ],
        play: Some("a cell to drop on, such as c3, then a step such as c3-d4"),
        tiered: true,
        start: true,
        dump: false,
        drawing: Drawing::Stones,
        build: build_teeko,
    },
    Entry {
        name: "dots-and-boxes",
        about: "Dots and Boxes: who takes more boxes, and by how many",
        help: "Dots and Boxes on a board of R x C boxes: the players draw a line between two \
               adjacent dots in turn; whoever draws the fourth side of a box (or of two) takes \
               it and moves again. The game ends when every line is drawn. Values are scores: \
               the net number of boxes the player to move takes from there on (win by 3 in 11: \
               three boxes more than the opponent, the last line 11 plies away). A line is its \
               two dots, files a.. from the left and ranks 1.. from the bottom: a1-b1 (across), \
               a1-a2 (up). A position (--position) is the drawn lines separated by commas ('.' \
               for none), then the side to move: a1-b1,a1-a2 o. Every set of lines is solved, \
               in memory (4 bytes each), one a symmetry class: 3x3 (24 lines, 16.8M positions) \
               in 2 s and 78 MiB; \
               2x5 (27 lines) 512 MiB; boards of 31 lines or more take gigabytes.",
        examples: &[
            "dots-and-boxes --rows 2 --cols 2",
            "dots-and-boxes --rows 3 --cols 3 --output json",
            "dots-and-boxes --rows 2 --cols 2 --query a1-b1,b1-c1",
        ],
        params: &[
            Param::number("rows", "Rows of boxes.", 1, 64, "2"),
            Param::number("cols", "Columns of boxes.", 1, 64, "2"),
        ],
        play: Some("a line between two adjacent dots, such as a1-b1"),
        tiered: true,
        start: true,
        dump: false,
        drawing: Drawing::None,
        build: build_dots,
    },
    Entry {
        name: "kalah",
        about: "Kalah (mancala): who stores more seeds, and by how many",
        help: "Kalah with P pits a side and S seeds in each: take every seed of one of your \
               pits and sow them counter-clockwise, one a pit, into your own store but not the \
               opponent's; a last seed in your store moves again; a last seed in an empty pit \
               of yours captures it with the opposite pit's seeds, when there are some (with \
               --empty-capture also when there are none, the variant Irving, Donkers and \
               Uiterwijk solved in 2000). When either side is empty, the game ends and each \
               player stores the seeds on their side. Values are scores: the net number of \
               seeds the player to move stores from there on. A move is a pit number, 1 (the \
               farthest from your store) to P. A position (--position) is the first player's \
               pits in sowing order, '/', the second player's, then the side to move: \
               3,3,3/3,3,3 x. Every board of the game's seeds is solved, in memory (4 bytes a \
               board, C(2PS + 2P, 2P) boards): 3x3 and 4x2 in a second, 4x3 (10.5M boards) \
               in seconds, 4x4 (77M) about a GiB.",
        examples: &[
            "kalah --pits 3 --seeds 3",
            "kalah --pits 4 --seeds 3 --output json",
            "kalah --pits 3 --seeds 3 --query 1",
        ],
        params: &[
            Param::number("pits", "Pits a side.", 1, 64, "3"),
            Param::number("seeds", "Seeds in each pit at the start.", 1, 1000, "3"),
            Param {
                name: "empty-capture",
                help: "A last seed in an empty pit of yours captures even when the opposite \
                       pit is empty.",
                kind: Kind::Flag,
                default: None,
                positional: false,
                value_name: "",
            },
        ],
        play: Some("a pit number, 1 (farthest from your store) to the number of pits"),
        tiered: true,
        start: true,
        dump: false,
        drawing: Drawing::None,
        build: build_kalah,
    },
    Entry {
        name: "chess",
        about: "chess endings: exact depth to mate of every position (KQvK, KRPvKR, ...)",
        help: "A chess ending given by its material, white first: KQvK, KRvK, KPvK, KBNvK, \
               KRvKB, KRPvKR (at most 5 pieces, kings included). Solves every position of \
               the ending, and of every ending it converts into by a capture or a \
               promotion, by retrograde analysis, and prints the totals by side to move, \
               the longest win and a histogram of the depth to mate. Values are for the \
               side to move: win in N / loss in N count plies to mate (mate in M moves is \
               2M-1 plies for the winner to move); a tie is a stalemate or insufficient \
               material ahead; a draw never ends (no 50-move rule, repetitions are not \
               counted). No castling; en passant and every promotion are played. \
               Positions are FEN (--position '8/8/8/4k3/8/8/8/4KQ2 w - - 0 1'), moves \
               UCI (e2e4, e7e8q); `query DB --position FEN --moves e2e4,...` asks about \
               the position after moves. --dump prints every position as CSV \
               fen,outcome,remoteness. --up-to N solves every ending of up to N pieces \
               instead (a tablebase set, each table once, with a report per ending; \
               with --db it resumes where an interrupted run stopped). Cost: 3 pieces in \
               about a second, 4 pieces in seconds to a minute, KRPvKR about 1.5 GB of \
               values (use --db).",
        examples: &[
            "chess KQvK",
            "chess KRvK --output json",
            "chess KPvK --db kpk",
            "chess KQvK --dump",
            "chess --up-to 4 --db tb4",
        ],
        params: &[
            Param {
                name: "material",
                help: "The ending, white first: KQvK, KRPvKR, ... (at most 5 pieces).",
                kind: Kind::Text,
                default: OPTIONAL,
                positional: true,
                value_name: "MATERIAL",
            },
            Param {
                name: "up-to",
                help: "Instead of one ending, every ending of up to N pieces (3, 4 or 5, kings \
                       included), each table once: a tablebase set. With --db, an interrupted \
                       run resumes where it stopped.",
                kind: Kind::Number {
                    min: 3,
                    max: retrograde_games::chess::MAX_PIECES as u64,
                },
                default: OPTIONAL,
                positional: false,
                value_name: "N",
            },
        ],
        play: Some("a move in UCI notation, such as e2e4 or e7e8q"),
        tiered: true,
        start: false,
        dump: true,
        drawing: Drawing::Chess,
        build: |a| Ok(Box::new(crate::chess::built(a)?)),
    },
    Entry {
        name: "great-game",
        about: "the Great Game (ETH Algolab): red and black meeples on a DAG",
        help: "The Great Game (ETH Algolab): red and black meeples on a topologically sorted \
               DAG; input t cases of `n m`, `r b`, m edges `u v` (1-based, u < v). Prints one \
               line per case: 0 when Sherlock wins, 1 when Moriarty wins. --method product: \
               retrograde analysis of the product game (memory quadratic in n); memo: a \
               memoized search; minimax: O(n + m) min/max distances. All three agree.",
        examples: &[
            "great-game < cases.in",
            "great-game cases.in --method product",
        ],
        params: &[
            Param {
                name: "file",
                help: "The input file (`-` or nothing: standard input).",
                kind: Kind::Input,
                default: Some("-"),
                positional: true,
                value_name: "FILE",
            },
            Param {
                name: "method",
                help: "How to solve each case.",
                kind: Kind::Choice(&["product", "memo", "minimax"]),
                default: Some("minimax"),
                positional: false,
                value_name: "METHOD",
            },
        ],
        play: None,
        tiered: false,
        start: true,
        dump: false,
        drawing: Drawing::None,
        build: build_great_game,
    },
    Entry {
        name: "scores",
        about: "IOI 2001 \"Score\": a token, two players, the higher score wins",
        help: "IOI 2001 \"Score\": N positions owned by player 1 or 2 with distinct values; the \
               owner of the token's position raises their score to its value, then moves along \
               an arrow; the game ends when the token returns to 1; the higher score wins. \
               Input: N, an N x N 0/1 arrow matrix, N owners, N values. Prints the winner and \
               player 1's winning strategy; --play plays as player 1 over standard \
               input/output (IOI protocol).",
        examples: &["scores score.txt", "scores score.txt --play"],
        params: &[
            Param {
                name: "file",
                help: "The instance file (`-` for standard input).",
                kind: Kind::Input,
                default: None,
                positional: true,
                value_name: "FILE",
            },
            Param {
                name: "play",
                help: "Play as player 1 over standard input/output (IOI protocol): write each \
                       position player 1 moves to on its own line, read each opponent move as \
                       a position number.",
                kind: Kind::Flag,
                default: None,
                positional: false,
                value_name: "",
            },
        ],
        play: None,
        tiered: false,
        start: true,
        dump: false,
        drawing: Drawing::None,
        build: build_scores,
    },
    Entry {
        name: "octal",
        about: "an octal game on one heap (Kayles is 0.77): its nim-sequence",
        help: "An octal game on one heap: print its nim-sequence, the Grundy values of heaps 0 \
               to N-1. A move takes k tokens from a heap; the code's k-th digit after the point \
               says what may remain, as a sum of bits: 1 nothing (the heap had exactly k), 2 \
               one heap, 4 two non-empty heaps (the rest split in two). The digit before the \
               point is 0, or 4 for splitting without taking. A row of heaps is worth the XOR \
               of their values, so the sequence decides every position. Time: quadratic in N \
               when heaps split (Kayles, 100000 terms: about 1.5 s), else linear. --period \
               reports the least pre-period and period that the computed terms prove by the \
               Guy-Smith periodicity theorem.",
        examples: &[
            "octal 0.77 --count 300 --period    Kayles: period 12 from heap 71",
            "octal 0.07 --count 300 --period    Dawson's Kayles",
            "octal 0.137 --count 100            Dawson's chess",
        ],
        params: &[
            Param {
                name: "code",
                help: "The octal code, like 0.77 (digits 0-7; up to 1000 of them).",
                kind: Kind::Text,
                default: None,
                positional: true,
                value_name: "CODE",
            },
            COUNT,
            PERIOD,
        ],
        play: None,
        tiered: false,
        start: true,
        dump: false,
        drawing: Drawing::None,
        build: build_octal,
    },
    Entry {
        name: "subtraction",
        about: "a subtraction game on one heap: its nim-sequence",
        help: "A subtraction game on one heap: take t tokens for some t in the take-set. Prints \
               its nim-sequence (the Grundy values of heaps 0 to N-1); --period as for `game \
               octal`.",
        examples: &[
            "subtraction --take 1,2 --count 12      the pebble game: n mod 3",
            "subtraction --take 1,3,4 --count 50 --period",
        ],
        params: &[
            Param {
                name: "take",
                help: "The amounts a move may take, comma-separated.",
                kind: Kind::Numbers {
                    min: 0,
                    max: u32::MAX as u64,
                },
                default: None,
                positional: false,
                value_name: "SET",
            },
            COUNT,
            PERIOD,
        ],
        play: None,
        tiered: false,
        start: true,
        dump: false,
        drawing: Drawing::None,
        build: build_subtraction,
    },
    Entry {
        name: "grundy-game",
        about: "Grundy's game: split a heap in two unequal heaps",
        help: "Grundy's game: split one heap into two non-empty heaps of different sizes; who \
               cannot move loses. Prints its nim-sequence (heaps 0 to N-1). Time: quadratic in \
               N (100000 terms: about 3 s). No periodicity theorem covers it (it is believed \
               never to become periodic), so --period proves nothing.",
        examples: &["grundy-game --count 100"],
        params: &[COUNT, PERIOD],
        play: None,
        tiered: false,
        start: true,
        dump: false,
        drawing: Drawing::None,
        build: build_grundy_game,
    },
];

const COUNT: Param = Param {
    name: "count",
    help: "Compute heaps 0 to N-1.",
    kind: Kind::Number {
        min: 1,
        max: 100_000_000,
    },
    default: Some("100"),
    positional: false,
    value_name: "N",
};

const PERIOD: Param = Param {
    name: "period",
    help: "Report the pre-period and period, if the computed terms prove them.",
    kind: Kind::Flag,
    default: None,
    positional: false,
    value_name: "",
};

fn standard(game: &str, start: Value, stats: &Stats) -> Report {
    Report {
        game: game.into(),
        standard: Some((start, stats.clone())),
        timed: true,
        ..Report::default()
    }
}

// ------------------------------------------------------------------------------------------
// Pebbles.

struct PebblesBuilt {
    game: Pebbles,
    misere: bool,
}

fn build_pebbles(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let take = a.numbers("take")?.into_iter().map(|t| t as u32).collect();
    let game = Pebbles::new(a.u32("count")?, take).map_err(refused("pebbles"))?;
    Ok(Box::new(PebblesBuilt {
        game,
        misere: a.flag("misere"),
    }))
}

impl Built for PebblesBuilt {
    fn name(&self) -> String {
        format!("pebbles {}", self.game.count())
    }
    fn title(&self) -> String {
        String::new()
    }
    fn solve_over(&self, _: &SolveOptions, _: &dyn Exchange) -> Result<Solved<'_>, Error> {
        let s = self.game.solve(self.misere).map_err(explore_error)?;
        Ok(Solved::alone(Box::new(PebblesAnswer { built: self, s })))
    }
}

struct PebblesAnswer<'a> {
    built: &'a PebblesBuilt,
    s: GameSolution<'a, Pebbles>,
}

impl Answer for PebblesAnswer<'_> {
    fn report(&self) -> Result<Report, Error> {
        let pattern = self.built.game.pattern(&self.s);
        let mut r = standard("pebbles", self.s.start_value(), self.s.stats());
        r.lines.push(format!(
            "pattern by count 0..{} (W win, L loss for the player to move): {pattern}",
            self.built.game.count()
        ));
        r.fields
            .push(("pattern".into(), serde_json::json!(pattern)));
        Ok(r)
    }
    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        playable_query(&self.s, q)
    }
    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), QueryError> {
        no_position(from)?;
        Ok(start_session(&self.s, side)?)
    }
}

/// A query to a game played from its start only (the explored games: pebbles,
/// police-thief): the moves are replayed by their `play` labels (or aliases), the values
/// and ranked moves come from the solution, as `play` shows them. Such games have no
/// position notation: the position is named by its moves, comma-separated.
fn playable_query<P: Playable>(g: &P, q: &Query) -> Result<QueryAnswer, QueryError> {
    let Query::Moves(moves) = q else {
        return Err(QueryError::Unanswered(crate::Unanswered::NoNotation));
    };
    let mut p = g.start();
    let mut side = g.first_side() & 1;
    for (i, m) in moves.iter().enumerate() {
        let legal = g.moves(&p)?;
        let Some(mv) = legal
            .iter()
            .find(|mv| mv.label == *m || mv.aliases.iter().any(|a| a == m))
        else {
            return Err(QueryError::IllegalMove {
                index: i + 1,
                asked: m.clone(),
                legal: crate::Legal::Moves(legal.iter().map(|mv| mv.label.clone()).collect()),
            });
        };
        if !mv.keeps_turn {
            side ^= 1;
        }
        p = mv.to.clone();
    }
    let value = g.value(&p)?;
    let moves = ranked_moves(g, &p)?
        .into_iter()
        .map(|(mv, v)| (mv.label, v))
        .collect();
    let mut answer = QueryAnswer {
        position: moves_name(q),
        picture: g.render(&p),
        side: g.side_names()[side].clone(),
        value,
        moves,
        more: 0,
        board: None,
        scores: None,
    };
    answer.cut();
    Ok(answer)
}

fn moves_name(q: &Query) -> String {
    match q {
        Query::Moves(m) => m.join(","),
        Query::Position(p) => p.clone(),
        Query::After(p, m) => format!("{p} then {}", m.join(",")),
    }
}

fn no_position(from: Option<&str>) -> Result<(), QueryError> {
    match from {
        Some(_) => Err(QueryError::Unanswered(crate::Unanswered::FromStartOnly)),
        None => Ok(()),
    }
}

// ------------------------------------------------------------------------------------------
// The policeman and the thief.

struct PoliceBuilt {
    map: Map,
}

fn build_police(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let input = a.input("map")?;
    let map = Map::parse(&input.bytes).map_err(|e| located(input, e))?;
    Ok(Box::new(PoliceBuilt { map }))
}

impl Built for PoliceBuilt {
    fn name(&self) -> String {
        "police-thief".into()
    }
    fn title(&self) -> String {
        String::new()
    }
    fn solve_over(&self, _: &SolveOptions, _: &dyn Exchange) -> Result<Solved<'_>, Error> {
        let s = self.map.solve().map_err(explore_error)?;
        Ok(Solved::alone(Box::new(PoliceAnswer { s })))
    }
}

struct PoliceAnswer<'a> {
    s: retrograde_games::police::PoliceSolution<'a>,
}

impl Answer for PoliceAnswer<'_> {
    fn report(&self) -> Result<Report, Error> {
        let verdict = self.s.verdict().to_string();
        let g = self.s.game();
        let mut r = standard("police-thief", g.start_value(), g.stats());
        r.first_line = Some(verdict.clone());
        r.fields
            .push(("verdict".into(), serde_json::json!(verdict)));
        Ok(r)
    }
    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        playable_query(self.s.game(), q)
    }
    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), QueryError> {
        no_position(from)?;
        Ok(start_session(self.s.game(), side)?)
    }
}

// ------------------------------------------------------------------------------------------
// Tier games.

fn build_tictactoe(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let game = TicTacToe::new(a.u32("rows")?, a.u32("cols")?, a.u32("k")?)
        .map_err(refused("tictactoe"))?;
    Ok(Box::new(TierBuilt {
        game,
        command: "tictactoe",
        symmetry: "rotation and reflection",
        states: false,
        stored: false,
        check: None,
        params: a.to_json(),
    }))
}

fn build_connect4(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let (w, h) = (a.u32("width")?, a.u32("height")?);
    let game = Connect4::new(w, h).map_err(refused("connect4"))?;
    Ok(Box::new(TierBuilt {
        game,
        command: "connect4",
        symmetry: "mirror symmetry",
        states: false,
        stored: true,
        check: Some(check_connect4),
        params: a.to_json(),
    }))
}

fn check_connect4(g: &Connect4, _limit: Option<u64>, _stored: bool) -> Result<(), TooBig> {
    let bound = position_bound(g.width(), g.height());
    if bound > 1e12 {
        return Err(TooBig::Positions {
            bound,
            largest: "the largest board solved here is 6x5, 2.8e9",
        });
    }
    if g.width() > 16 {
        return Err(TooBig::Columns {
            width: g.width(),
            max: 16,
        });
    }
    Ok(())
}

fn build_quixo(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let game = Quixo::new(a.u32("size")?).map_err(refused("quixo"))?;
    Ok(Box::new(TierBuilt {
        game,
        command: "quixo",
        symmetry: "rotation and reflection",
        states: true,
        stored: false,
        check: None,
        params: a.to_json(),
    }))
}

fn build_dots(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let game =
        DotsAndBoxes::new(a.u32("rows")?, a.u32("cols")?).map_err(refused("dots-and-boxes"))?;
    Ok(Box::new(TierBuilt {
        game,
        command: "dots-and-boxes",
        symmetry: "",
        states: false,
        stored: false,
        check: None,
        params: a.to_json(),
    }))
}

fn build_kalah(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let game = Kalah::new(a.u32("pits")?, a.u32("seeds")?, a.flag("empty-capture"))
        .map_err(refused("kalah"))?;
    Ok(Box::new(TierBuilt {
        game,
        command: "kalah",
        symmetry: "",
        states: false,
        stored: false,
        check: None,
        params: a.to_json(),
    }))
}

fn build_teeko(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let game = Teeko::new(a.u32("size")?, a.u32("pieces")?).map_err(refused("teeko"))?;
    Ok(Box::new(TierBuilt {
        game,
        command: "teeko",
        symmetry: "rotation and reflection",
        states: true,
        stored: false,
        check: None,
        params: a.to_json(),
    }))
}

// ------------------------------------------------------------------------------------------
// The Great Game.

struct GreatBuilt {
    cases: Vec<great_game::Instance>,
    method: great_game::Method,
}

fn build_great_game(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let input = a.input("file")?;
    let cases = great_game::parse(&input.bytes).map_err(|e| located(input, e))?;
    let method = a.text("method")?.parse().map_err(refused("great-game"))?;
    Ok(Box::new(GreatBuilt { cases, method }))
}

impl Built for GreatBuilt {
    fn name(&self) -> String {
        "great-game".into()
    }
    fn title(&self) -> String {
        String::new()
    }
    fn solve_over(&self, _: &SolveOptions, _: &dyn Exchange) -> Result<Solved<'_>, Error> {
        let winners = self
            .cases
            .iter()
            .map(|c| great_game::try_solve(c, self.method))
            .collect::<Result<Vec<_>, _>>()
            .map_err(explore_error)?;
        Ok(Solved::alone(Box::new(GreatAnswer {
            method: self.method,
            winners,
        })))
    }
}

struct GreatAnswer {
    method: great_game::Method,
    winners: Vec<great_game::Winner>,
}

impl Answer for GreatAnswer {
    fn report(&self) -> Result<Report, Error> {
        let codes: Vec<u8> = self.winners.iter().map(|w| w.code()).collect();
        Ok(Report {
            game: "great-game".into(),
            lines: great_game::format_output(&self.winners)
                .lines()
                .map(str::to_string)
                .collect(),
            fields: vec![
                ("method".into(), serde_json::json!(self.method.as_str())),
                ("cases".into(), serde_json::json!(self.winners.len())),
                ("winners".into(), serde_json::json!(codes)),
            ],
            ..Report::default()
        })
    }
}

// ------------------------------------------------------------------------------------------
// IOI 2001 Score.

struct ScoresBuilt {
    inst: Instance,
    play: bool,
}

fn build_scores(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let input = a.input("file")?;
    let inst = Instance::parse(&input.bytes).map_err(|e| located(input, e))?;
    Ok(Box::new(ScoresBuilt {
        inst,
        play: a.flag("play"),
    }))
}

impl Built for ScoresBuilt {
    fn name(&self) -> String {
        "scores".into()
    }
    fn title(&self) -> String {
        String::new()
    }
    fn solve_over(&self, _: &SolveOptions, _: &dyn Exchange) -> Result<Solved<'_>, Error> {
        let s = self.inst.solve().map_err(explore_error)?;
        Ok(Solved::alone(Box::new(ScoresAnswer { s, play: self.play })))
    }
}

struct ScoresAnswer<'a> {
    s: ScoresSolution<'a>,
    play: bool,
}

impl Answer for ScoresAnswer<'_> {
    fn report(&self) -> Result<Report, Error> {
        let winner = self.s.winner();
        let inst = self.s.instance();
        let mut lines = vec![format!("player {winner} wins")];
        if winner == 1 {
            lines.push(
                "player 1's winning strategy (token at position, scores so far p1/p2 -> move to):"
                    .into(),
            );
            lines.extend(self.s.strategy().into_iter().map(|(st, to)| {
                format!(
                    "  at {}, scores {}/{} -> {to}",
                    st.position(),
                    inst.score(&st, 1),
                    inst.score(&st, 2)
                )
            }));
        } else {
            lines.push("player 1 has no winning strategy: player 2 wins against every play".into());
        }
        let first = lines.join("\n");
        let mut r = standard("scores", self.s.start_value(), self.s.stats());
        r.first_line = Some(first);
        r.fields.push(("winner".into(), serde_json::json!(winner)));
        Ok(r)
    }

    fn protocol(&self) -> Option<Box<dyn Protocol + '_>> {
        self.play
            .then(|| Box::new(IoiPlayer::new(&self.s)) as Box<dyn Protocol + '_>)
    }
}

impl Protocol for IoiPlayer<'_, '_> {
    fn output(&mut self) -> Vec<String> {
        self.our_moves()
            .into_iter()
            .map(|m| m.to_string())
            .collect()
    }
    fn done(&self) -> bool {
        self.is_over()
    }
    fn input(&mut self, line: &str) -> Result<(), OpponentError> {
        self.opponent(line)
    }
    fn ended_early(&self) -> String {
        format!(
            "the opponent's moves ended before the game did (move {})",
            self.next_move_number()
        )
    }
}

// ------------------------------------------------------------------------------------------
// Heap games.

struct HeapBuilt {
    game: HeapGame,
    id: &'static str,
    count: u64,
    period: bool,
    take: Option<Vec<u32>>,
}

fn build_octal(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let game = HeapGame::octal(a.text("code")?)
        .map_err(|e| BuildError::Invalid(format!("game octal: {e}")))?;
    heap(game, "octal", a, None)
}

fn build_subtraction(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let take: Vec<u32> = a
        .numbers("take")
        .map_err(|_| {
            BuildError::Invalid("game subtraction: --take is required (e.g. --take 1,2)".into())
        })?
        .into_iter()
        .map(|t| t as u32)
        .collect();
    let game = HeapGame::subtraction(&take)
        .map_err(|e| BuildError::Invalid(format!("game subtraction: {e}")))?;
    let mut set = take;
    set.sort_unstable();
    set.dedup();
    heap(game, "subtraction", a, Some(set))
}

fn build_grundy_game(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    heap(HeapGame::grundy_game(), "grundy-game", a, None)
}

fn heap(
    game: HeapGame,
    id: &'static str,
    a: &Args,
    take: Option<Vec<u32>>,
) -> Result<Box<dyn Built>, BuildError> {
    let count = a.number("count")?;
    // Moves that split a heap make the sequence quadratic: 10^6 heaps take about a minute,
    // 10^7 hours, 10^8 (the parameter's limit for the others) days.
    if game.splits() && count > MAX_SPLIT_COUNT {
        return Err(BuildError::Invalid(format!(
            "game {id}: --count {count} is too many for a game whose moves split heaps (time grows with the square of the count: at most {MAX_SPLIT_COUNT})"
        )));
    }
    Ok(Box::new(HeapBuilt {
        game,
        id,
        count,
        period: a.flag("period"),
        take,
    }))
}

/// The most heaps of a splitting game's sequence (see [`heap`]).
const MAX_SPLIT_COUNT: u64 = 1_000_000;

impl Built for HeapBuilt {
    fn name(&self) -> String {
        self.id.into()
    }
    fn memory_needed(&self, _stored: bool) -> Result<Option<u64>, Error> {
        // The values (4 bytes a heap) and the report that lists them all (measured: about
        // 110 bytes a heap at 10^8 heaps, for the lines and the JSON values).
        Ok(Some(self.count.saturating_mul(128)))
    }
    fn title(&self) -> String {
        String::new()
    }
    fn solve_over(&self, _: &SolveOptions, _: &dyn Exchange) -> Result<Solved<'_>, Error> {
        let values = self.game.nim_sequence(self.count as usize);
        Ok(Solved::alone(Box::new(HeapAnswer {
            built: self,
            values,
        })))
    }
}

struct HeapAnswer<'a> {
    built: &'a HeapBuilt,
    values: Vec<u32>,
}

/// Heaps of value 0 listed by the text output.
const LISTED_ZEROS: usize = 40;

impl Answer for HeapAnswer<'_> {
    fn report(&self) -> Result<Report, Error> {
        let b = self.built;
        let values = &self.values;
        let count = b.count;
        let period = if b.period {
            b.game.period(values)
        } else {
            None
        };
        let zeros: Vec<usize> = (0..values.len()).filter(|&n| values[n] == 0).collect();
        let mut lines = vec![
            format!(
                "{}: Grundy values of heaps 0 to {}",
                b.game.name(),
                count - 1
            ),
            values
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        ];
        let listed: Vec<String> = zeros
            .iter()
            .take(LISTED_ZEROS)
            .map(|z| z.to_string())
            .collect();
        let mut z = format!(
            "heaps of value 0 (lost for the player to move): {}",
            listed.join(" ")
        );
        if zeros.len() > LISTED_ZEROS {
            z.push_str(&format!(" ... ({} of {count})", zeros.len()));
        }
        lines.push(z);
        if b.period {
            lines.push(match (period, b.id) {
                (Some(p), _) => format!(
                    "pre-period {}, period {}: G(n + {}) = G(n) for every n >= {} (proved by the Guy-Smith periodicity theorem from these {count} terms)",
                    p.preperiod, p.period, p.period, p.preperiod
                ),
                (None, "grundy-game") => format!(
                    "no period found up to {count} (no periodicity theorem covers Grundy's game, so none can be proved)"
                ),
                (None, _) => format!(
                    "no period found up to {count} (none that these terms prove; a larger --count may)"
                ),
            });
        }
        let mut fields = vec![("name".into(), serde_json::json!(b.game.name()))];
        if let Some(code) = b.game.code() {
            fields.push(("code".into(), serde_json::json!(code)));
        }
        if let Some(take) = &b.take {
            fields.push(("take".into(), serde_json::json!(take)));
        }
        // The largest heap computed stands for the start; a nim-sequence gives values, not
        // game lengths, so there is no remoteness.
        let last = values.len() - 1;
        fields.extend([
            ("count".to_string(), serde_json::json!(count)),
            ("values".to_string(), serde_json::json!(values)),
            (
                "start".to_string(),
                serde_json::json!({"heap": last, "outcome": if values[last] == 0 { "loss" } else { "win" }, "remoteness": null}),
            ),
            ("positions".to_string(), serde_json::json!(count)),
            ("win".to_string(), serde_json::json!(values.len() - zeros.len())),
            ("loss".to_string(), serde_json::json!(zeros.len())),
            ("tie".to_string(), serde_json::json!(0)),
            ("draw".to_string(), serde_json::json!(0)),
        ]);
        if b.period {
            fields.push((
                "period".into(),
                match period {
                    Some(p) => serde_json::json!({"preperiod": p.preperiod, "period": p.period}),
                    None => serde_json::Value::Null,
                },
            ));
        }
        Ok(Report {
            game: b.id.into(),
            first_line: None,
            lines,
            fields,
            standard: None,
            score: None,
            timed: true,
            example: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pebbles() -> Box<dyn Built> {
        let e = crate::entry("pebbles").unwrap();
        (e.build)(&Args::with_defaults(e.params).unwrap()).unwrap()
    }

    #[test]
    fn explored_games_answer_queries_by_moves() {
        let built = pebbles();
        let answer = built
            .solve(&SolveOptions::default(), &retrograde_solve::exchange::Solo)
            .unwrap()
            .answer;
        let start = answer.query(&Query::Moves(vec![])).unwrap();
        assert_eq!(start.value, Value::Win(7));
        let labels: Vec<&str> = start.moves.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(labels, ["take 1", "take 2"]);
        assert_eq!(start.moves[0].1, Value::Win(7));
        assert_eq!(start.moves[1].1, Value::Loss(6));
        // Aliases as in play; the side to move alternates.
        let after = answer
            .query(&Query::Moves(vec!["2".into(), "take 1".into()]))
            .unwrap();
        assert_eq!(after.value, Value::Win(5));
        assert_eq!(after.position, "2,take 1");
        assert_eq!(after.side, start.side);
        let bad = answer.query(&Query::Moves(vec!["take 3".into()]));
        assert!(
            matches!(&bad, Err(e @ QueryError::IllegalMove { index: 1, asked, .. })
                if asked == "take 3" && e.to_string().contains("take 1, take 2"))
        );
        assert!(answer.query(&Query::Position("7".into())).is_err());
    }
}
