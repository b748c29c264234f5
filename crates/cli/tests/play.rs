//! End-to-end tests of `retrograde play`: the real binary, real files, commands scripted on
//! standard input (no terminal, so every command is echoed after the prompt), and one test
//! that converses with the program through pipes, reading each prompt before answering.

#[macro_use]
#[allow(dead_code)] // the helpers shared with cli.rs are not all used here
mod util;

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use util::example;

/// The game-over lines with a move to take back.
const OVER: &str = "Type undo to take back your last move, or quit.\n(game over: undo or quit)> ";

// ---------------------------------------------------------------------------------------------
// Help.

rtest!(play_help_teaches_with_examples, |dir, cmd| {
    let help = cmd.args(["play", "--help"]).stdout();
    for word in [
        "graph",
        "pebbles",
        "tictactoe",
        "police-thief",
        "--side",
        "hint",
        "undo",
        "quit",
        "win in 3",
        "draw",
        "Examples:",
        "retrograde play tictactoe --side O",
        "printf 'b2\\nhint\\nundo\\nquit\\n' | retrograde play tictactoe",
    ] {
        assert!(help.contains(word), "{word:?} in {help}");
    }
    for game in ["graph", "pebbles", "tictactoe", "police-thief"] {
        let help = dir.command().args(["play", game, "--help"]).stdout();
        assert!(
            help.contains("Examples:\n  retrograde play"),
            "{game}: {help}"
        );
        assert!(help.contains("--side"), "{game}: {help}");
    }
    let top = dir.command().arg("--help").stdout();
    assert!(top.contains("play"), "{top}");
});

// ---------------------------------------------------------------------------------------------
// Graph files.

rtest!(graph_go_again_game_exact_transcript, |_dir, cmd| {
    let out = cmd
        .args(["play", "graph", &example("loopy.rg"), "--start", "8"])
        .stdin("9\n2\n")
        .stdout();
    assert_eq!(
        out,
        "A game graph of 10 vertices and 11 moves, from vertex 8: the turn passes on every move except go-again ones.\n\
         You are the first player; the engine is the second player (you move first). Type a move, or help.\n\
         At vertex 8.\n\
         The first player to move (you): win in 2\n\
         Moves, best first (the value for the first player after the move):\n  \
         9  win in 2 (the first player moves again)\n\
         your move> 9\n\
         You play 9: win in 2.\n\
         At vertex 9.\n\
         The first player to move (you): win in 1\n\
         Moves, best first (the value for the first player after the move):\n  \
         2  win in 1\n  \
         0  win in 3\n\
         your move> 2\n\
         You play 2: win in 1.\n\
         At vertex 2 (no move).\n\
         Game over: the first player wins. You win!\n\
         Type undo to take back your last move, or quit.\n\
         (game over: undo or quit)> \n\
         End of input. Bye.\n"
    );
});

rtest!(graph_moves_by_name_and_a_tie, |_dir, cmd| {
    // From 5: into the draw cycle (3) or to 6, "level end", a tie.
    let out = cmd
        .args(["play", "graph", &example("loopy.rg"), "--start", "5"])
        .stdin("LEVEL END\n")
        .stdout();
    assert!(
        out.contains("  6 (level end)  tie in 1\n  3              draw\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "your move> LEVEL END\nYou play 6 (level end): tie in 1.\n\
             At vertex 6 (level end) (terminal: tie for the player to move).\nGame over: a tie.\n"
        ),
        "{out}"
    );
});

rtest!(
    graph_draw_cycle_goes_on_until_the_input_ends,
    |_dir, cmd| {
        let out = cmd
            .args(["play", "graph", &example("loopy.rg"), "--start", "3"])
            .stdin("4\n4\n4\n")
            .stdout();
        // 3 -> 4 -> 3 -> 4 ...: the engine answers 3 each time.
        assert_eq!(
            out.matches("The second player (engine) plays 3: draw.\n")
                .count(),
            3,
            "{out}"
        );
        assert!(
        out.contains("This position has occurred before: with perfect play the game never ends (a draw). Play on, or quit.\n"),
        "{out}"
    );
        assert!(
            out.ends_with("your move> \nEnd of input: the game is left unfinished. Bye.\n"),
            "{out}"
        );
    }
);

rtest!(graph_start_from_the_file_and_names_as_moves, |_dir, cmd| {
    // examples/pebbles.rg: start 10, vertices named "N pebbles".
    let out = cmd
        .args(["play", "graph", &example("pebbles.rg")])
        .stdin("9 pebbles\nhint\n")
        .stdout();
    assert!(
        out.contains("At vertex 10 (10 pebbles).\nThe first player to move (you): win in 7\n"),
        "{out}"
    );
    assert!(
        out.contains("  9 (9 pebbles)  win in 7\n  8 (8 pebbles)  loss in 6\n"),
        "{out}"
    );
    assert!(
        out.contains("You play 9 (9 pebbles): win in 7.\nThe second player (engine) plays 7 (7 pebbles): loss in 6.\n"),
        "{out}"
    );
    assert!(
        out.contains("your move> hint\nHint: play 6 (win in 5).\n"),
        "{out}"
    );
});

rtest!(graph_arena_engine_first_wins_at_once, |_dir, cmd| {
    let out = cmd
        .args(["play", "graph", &example("arena.rg"), "--side", "2"])
        .stdout();
    assert!(
        out.contains(
            "You are player 1; the engine is player 0 (the engine moves first). Type a move, or help.\n\
             Player 0 (engine) plays 1: win in 2.\nPlayer 0 (engine) plays 3: win in 1.\n\
             At vertex 3, owned by player 1 (no move).\nGame over: player 0 wins. You lose.\n\
             Type quit to leave.\n"
        ),
        "{out}"
    );
    // Sides by name: "player 1" is the same side.
    let again = util::Dir::new()
        .command()
        .args(["play", "graph", &example("arena.rg"), "--side", "Player 1"])
        .stdout();
    assert_eq!(again, out);
});

rtest!(graph_arena_engine_alone_in_a_cycle_is_a_draw, |dir, cmd| {
    dir.create("cycle.rg", "owner 1 1\nowner 2 1\n0 1\n1 2\n2 1\n");
    let out = cmd
        .args(["play", "graph", "cycle.rg"])
        .stdin("1\nundo\nquit\nnot read\n")
        .stdout();
    assert!(
        out.contains(
            "Player 1 (engine) plays 2: draw.\nPlayer 1 (engine) plays 1: draw.\n\
             At vertex 1, owned by player 1.\n\
             Game over: a draw. Player 1 (engine) would move forever without your turn coming (this position repeated).\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("undo\nUndone: back 3 plies.\nAt vertex 0, owned by player 0.\n"),
        "{out}"
    );
    assert!(out.ends_with("your move> quit\nBye.\n"), "{out}");
});

rtest!(graph_no_move_rule_and_formats, |_dir, cmd| {
    // goagain.grf (GamesmanClassic format), misère: whoever cannot move wins.
    let out = cmd
        .args(["play", "graph", &example("goagain.grf"), "--no-move", "win"])
        .stdin("moves\n")
        .stdout();
    assert!(out.starts_with("A game graph of 5 vertices"), "{out}");
    assert!(out.contains("your move> moves\nMoves, best first"), "{out}");
});

// ---------------------------------------------------------------------------------------------
// Pebbles.

rtest!(
    pebbles_exact_transcript_with_a_mistake_and_undo,
    |_dir, cmd| {
        let out = cmd
            .args(["play", "pebbles", "--count", "4"])
            .stdin("2\nundo\ntake 1\n1\nquit\n")
            .stdout();
        assert_eq!(
        out,
        "Pebbles: 4 in the bag; a move takes 1 or 2; the player who cannot move loses.\n\
         You are the first player; the engine is the second player (you move first). Type a move, or help.\n\
         4 pebbles left: oooo\n\
         The first player to move (you): win in 3\n\
         Moves, best first (the value for the first player after the move):\n  \
         take 1  win in 3\n  \
         take 2  loss in 2\n\
         your move> 2\n\
         You play take 2: loss in 2 (best was take 1: win in 3).\n\
         The second player (engine) plays take 2: win in 1.\n\
         The bag is empty.\n\
         Game over: the second player wins. You lose.\n\
         Type undo to take back your last move, or quit.\n\
         (game over: undo or quit)> undo\n\
         Undone: back 2 plies.\n\
         4 pebbles left: oooo\n\
         The first player to move (you): win in 3\n\
         Moves, best first (the value for the first player after the move):\n  \
         take 1  win in 3\n  \
         take 2  loss in 2\n\
         your move> take 1\n\
         You play take 1: win in 3.\n\
         The second player (engine) plays take 1: loss in 2.\n\
         2 pebbles left: oo\n\
         The first player to move (you): win in 1\n\
         Moves, best first (the value for the first player after the move):\n  \
         take 2  win in 1\n  \
         take 1  loss in 2\n\
         your move> 1\n\
         You play take 1: loss in 2 (best was take 2: win in 1).\n\
         The second player (engine) plays take 1: win in 1.\n\
         The bag is empty.\n\
         Game over: the second player wins. You lose.\n\
         Type undo to take back your last move, or quit.\n\
         (game over: undo or quit)> quit\n\
         Bye.\n"
    );
    }
);

/// The pebble counts left after each of the engine's moves, in order.
fn engine_leaves(out: &str) -> Vec<u32> {
    let lines: Vec<&str> = out.lines().collect();
    let mut left = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.contains("(engine) plays take") {
            let next = lines[i + 1];
            let n = if next == "The bag is empty." {
                0
            } else {
                next.split(' ').next().unwrap().parse().unwrap()
            };
            left.push(n);
        }
    }
    left
}

rtest!(pebbles_engine_leaves_multiples_of_three, |dir, cmd| {
    // The human always takes 1: from 10 the first player (the engine when the human is
    // second) wins, and after each of the engine's moves a multiple of 3 is left.
    let out = cmd
        .args([
            "play", "pebbles", "--count", "10", "--take", "1,2", "--side", "second",
        ])
        .stdin("1\n".repeat(10))
        .stdout();
    assert_eq!(engine_leaves(&out), [9, 6, 3, 0], "{out}");
    assert!(
        out.contains("Game over: the first player wins. You lose.\n"),
        "{out}"
    );
    // When the human leaves a multiple of 3, the engine is lost and stalls (takes 1).
    let out = dir
        .command()
        .args(["play", "pebbles", "--count", "10"])
        .stdin("1\n2\n2\n")
        .stdout();
    assert_eq!(engine_leaves(&out), [8, 5, 2], "{out}");
    assert!(
        out.ends_with("End of input: the game is left unfinished. Bye.\n"),
        "{out}"
    );
    // Misère, as the second player.
    let out = dir
        .command()
        .args(["play", "--side", "2", "pebbles", "--misere"])
        .stdout();
    assert!(
        out.contains("the player who cannot move wins (misère).\n"),
        "{out}"
    );
    assert!(out.contains("(the engine moves first)"), "{out}");
});

rtest!(
    pebbles_illegal_moves_and_odd_input_never_crash,
    |_dir, cmd| {
        let mut script = b"3\nundo\n\n# a comment\nTAKE   2\r\nfoo\n".to_vec();
        script.extend_from_slice(b"\xff\xfe\n");
        script.extend_from_slice(b"help\nshow\nmoves");
        let o = cmd
            .args(["play", "pebbles", "--count", "5"])
            .stdin(script)
            .output();
        assert_eq!(o.code, 0, "{o:?}");
        assert_eq!(o.stderr, "");
        let out = o.stdout;
        assert!(
        out.contains("your move> 3\n\"3\" is not a legal move here. Legal moves: take 1, take 2. Type help for the commands.\n"),
        "{out}"
    );
        assert!(
            out.contains("your move> undo\nNothing to undo: you have not moved yet.\n"),
            "{out}"
        );
        assert!(out.contains("your move> \nyour move> # a comment\nyour move> TAKE   2\nYou play take 2: win in 3.\n"), "{out}");
        assert!(
            out.contains("your move> foo\n\"foo\" is not a legal move"),
            "{out}"
        );
        assert!(
            out.contains("is not a legal move here. Legal moves: take 1, take 2."),
            "{out}"
        );
        assert!(
            out.contains("your move> help\nType a move as it is listed"),
            "{out}"
        );
        // The last line has no newline: it is still read, then the input ends.
        assert!(
            out.ends_with(
                "your move> moves\nMoves, best first (the value for the first player after the move):\n  take 2  win in 1\n  take 1  loss in 2\nyour move> \nEnd of input: the game is left unfinished. Bye.\n"
            ),
            "{out}"
        );
    }
);

// ---------------------------------------------------------------------------------------------
// Tic-tac-toe.

rtest!(tictactoe_scripted_perfect_game_is_a_tie, |dir, cmd| {
    // The engine is deterministic, so a good line can be scripted in advance. Cells are
    // a file letter and a rank number, a1 bottom left.
    let out = cmd
        .args(["play", "tictactoe"])
        .stdin("a3\nb3\na1\nc2\nc1\n")
        .stdout();
    assert!(
        out.ends_with(&format!(
            "your move> c1\nYou play c1: tie in 1.\n3  X X O\n2  O O X\n1  X O X\n   a b c\nGame over: a tie.\n{OVER}\nEnd of input. Bye.\n"
        )),
        "{out}"
    );
    assert!(!out.contains("best was"), "{out}");
    let out = dir
        .command()
        .args(["play", "tictactoe", "--side", "O"])
        .stdin("b2\nc3\na2\nb1\n")
        .stdout();
    assert!(
        out.contains("You are O; the engine is X (the engine moves first)."),
        "{out}"
    );
    assert!(out.contains("X (engine) plays c1: tie in 1.\n3  X X O\n2  O O X\n1  X O X\n   a b c\nGame over: a tie.\n"), "{out}");
});

rtest!(tictactoe_a_blunder_loses, |_dir, cmd| {
    let out = cmd
        .args(["play", "tictactoe"])
        .stdin("b2\nc1\na2\n")
        .stdout();
    assert!(
        out.contains(
            "your move> a2\nYou play a2: loss in 2 (best was b3: tie in 5).\n\
             O (engine) plays b3: win in 1.\n3  O O O\n2  X X .\n1  . . X\n   a b c\n\
             Game over: O wins. You lose.\n"
        ),
        "{out}"
    );
});

/// A conversation with `retrograde play` through pipes: read up to each prompt, then answer.
struct Conversation {
    child: Child,
    input: ChildStdin,
    output: ChildStdout,
}

impl Conversation {
    fn start(args: &[&str]) -> Conversation {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrograde"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start retrograde");
        let input = child.stdin.take().unwrap();
        let output = child.stdout.take().unwrap();
        Conversation {
            child,
            input,
            output,
        }
    }

    /// Everything up to and including the next prompt (`> ` at the end of the output so far).
    fn until_prompt(&mut self) -> String {
        let mut text = Vec::new();
        let mut byte = [0u8];
        while !text.ends_with(b"> ") {
            let n = self.output.read(&mut byte).expect("read stdout");
            assert!(
                n == 1,
                "the output ended before a prompt: {}",
                String::from_utf8_lossy(&text)
            );
            text.push(byte[0]);
        }
        String::from_utf8(text).unwrap()
    }

    fn say(&mut self, line: &str) -> String {
        writeln!(self.input, "{line}").expect("write stdin");
        self.until_prompt()
    }

    fn finish(mut self) -> (i32, String) {
        drop(self.input);
        let mut rest = String::new();
        self.output.read_to_string(&mut rest).unwrap();
        let status = self.child.wait().unwrap();
        (status.code().unwrap_or(-1), rest)
    }
}

#[test]
fn tictactoe_following_hints_ties_from_either_side() {
    for side in ["X", "O"] {
        let mut c = Conversation::start(&["play", "tictactoe", "--side", side]);
        let mut text = c.until_prompt();
        let mut moves = 0;
        while !text.contains("Game over") {
            let hint = c.say("hint");
            let label = hint
                .strip_prefix("hint\n")
                .unwrap_or(&hint) // echoed without a terminal
                .strip_prefix("Hint: play ")
                .and_then(|h| h.split(' ').next())
                .unwrap_or_else(|| panic!("a hint: {hint:?}"))
                .to_string();
            text = c.say(&label);
            assert!(!text.contains("best was"), "{text}");
            moves += 1;
            assert!(moves <= 5, "{text}");
        }
        assert!(text.contains("Game over: a tie.\n"), "{side}: {text}");
        let (code, rest) = c.finish();
        assert_eq!(
            (code, rest.as_str()),
            (0, "\nEnd of input. Bye.\n"),
            "{side}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The policeman and the thief.

rtest!(police_thief_policeman_catches, |dir, cmd| {
    dir.create("corridor.txt", "1 4\nP..T\n");
    let out = cmd
        .args(["play", "police-thief", "corridor.txt"])
        .stdin("hint\nwest\ne\ne\ne\n")
        .stdout();
    assert!(
        out.contains("P..T\nThe policeman to move (you): win in 5\nMoves, best first (the value for the policeman after the move):\n  e     win in 5\n  stay  win in 7\n"),
        "{out}"
    );
    assert!(
        out.contains("your move> hint\nHint: play e (win in 5).\n"),
        "{out}"
    );
    assert!(
        out.contains("your move> west\n\"west\" is not a legal move here. Legal moves: e, stay."),
        "{out}"
    );
    assert!(
        out.contains("You play e: win in 5.\nThe thief (engine) plays stay: loss in 4.\n.P.T\n"),
        "{out}"
    );
    assert!(
        out.ends_with(
            "You play e: win in 1.\n...@\n(@: the policeman has caught the thief)\n\
             Game over: the policeman wins. You win!\n\
             Type undo to take back your last move, or quit.\n(game over: undo or quit)> \n\
             End of input. Bye.\n"
        ),
        "{out}"
    );
});

rtest!(police_thief_as_the_thief, |dir, cmd| {
    dir.create("exit.txt", "2 4\nP.T.\n*..E\n");
    let out = cmd
        .args(["play", "police-thief", "exit.txt", "--side", "thief"])
        .stdin("moves\ne\ns\n")
        .stdout();
    assert!(
        out.contains("You are the thief; the engine is the policeman (the engine moves first)."),
        "{out}"
    );
    assert!(out.contains("The policeman (engine) plays "), "{out}");
    assert!(out.contains("The thief to move (you): "), "{out}");
    assert!(
        out.contains("Game over: the thief wins. You win!\n"),
        "{out}"
    );
});

// ---------------------------------------------------------------------------------------------
// Errors: exit status 2, a message on stderr, nothing on stdout.

rtest!(play_errors, |dir, cmd| {
    let msg = cmd.args(["play", "graph", "nosuch.rg"]).message();
    assert!(msg.starts_with("nosuch.rg: cannot open"), "{msg}");
    let msg = dir.command().args(["play", "graph", "-"]).message();
    assert_eq!(
        msg,
        "play reads your moves from standard input: give the game as a file, not -"
    );
    let msg = dir.command().args(["play", "police-thief", "-"]).message();
    assert!(msg.starts_with("play reads your moves"), "{msg}");
    dir.create("bad.rg", "0 1\n1 x\n");
    let msg = dir.command().args(["play", "graph", "bad.rg"]).message();
    assert!(msg.starts_with("bad.rg:2: "), "{msg}");
    dir.create("empty.rg", "# nothing\n");
    let msg = dir.command().args(["play", "graph", "empty.rg"]).message();
    assert_eq!(msg, "empty.rg: the graph has no vertices: nothing to play");
    let msg = dir
        .command()
        .args(["play", "graph", &example("loopy.rg"), "--start", "99"])
        .message();
    assert!(
        msg.starts_with("--start: vertex 99 does not exist"),
        "{msg}"
    );
    let msg = dir
        .command()
        .args(["play", "graph", &example("loopy.rg"), "--start", "nowhere"])
        .message();
    assert!(
        msg.starts_with("--start: no vertex is named \"nowhere\""),
        "{msg}"
    );
    let msg = dir
        .command()
        .args(["play", "pebbles", "--side", "third"])
        .message();
    assert_eq!(
        msg,
        "--side: expected first, second, 1, 2, \"first player\" or \"second player\", found \"third\""
    );
    let msg = dir
        .command()
        .args(["play", "tictactoe", "--side", "Z"])
        .message();
    assert!(msg.contains("\"X\" or \"O\""), "{msg}");
    let msg = dir
        .command()
        .args(["play", "pebbles", "--take", "0,1"])
        .message();
    assert!(
        msg.starts_with("pebbles: a move must take at least 1"),
        "{msg}"
    );
    let msg = dir
        .command()
        .args(["play", "tictactoe", "--rows", "9", "--cols", "9"])
        .message();
    assert!(
        msg.starts_with("tictactoe: a 9x9 board is not supported"),
        "{msg}"
    );
    dir.create("nothief.txt", "1 3\nP..\n");
    let msg = dir
        .command()
        .args(["play", "police-thief", "nothief.txt"])
        .message();
    assert_eq!(msg, "nothief.txt:2: the map has no thief (T)");
    // Usage errors come from clap: exit 2, nothing on stdout.
    dir.command().args(["play", "chess"]).error();
    dir.command()
        .args(["play", "pebbles", "--count", "x"])
        .error();
    dir.command().arg("play").error();
});

rtest!(end_of_input_mid_game_and_at_the_start, |dir, cmd| {
    let out = cmd.args(["play", "tictactoe"]).stdin("b2\n").stdout();
    assert!(
        out.ends_with("your move> \nEnd of input: the game is left unfinished. Bye.\n"),
        "{out}"
    );
    let out = dir.command().args(["play", "tictactoe"]).stdout();
    assert!(out.ends_with("your move> \nEnd of input. Bye.\n"), "{out}");
});

rtest!(readme_session_is_what_the_program_prints, |_dir, cmd| {
    // The tour pastes a real session; keep it true.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/tour.md"))
            .expect("docs/tour.md");
    // (.ci/doc-commands checks it too, with every transcript of the docs.)
    let intro =
        "```\n$ printf '1\\nundo\\nhint\\ntake 2\\n2\\n' | retrograde play pebbles --count 5\n";
    let at = readme.find(intro).expect("the session in docs/tour.md") + intro.len();
    let pasted = &readme[at..at + readme[at..].find("```\n").expect("the end of the session")];
    let out = cmd
        .args(["play", "pebbles", "--count", "5"])
        .stdin("1\nundo\nhint\ntake 2\n2\n")
        .stdout();
    assert_eq!(pasted, out);
});

rtest!(connect4_engine_never_loses, |dir, cmd| {
    // The engine playing X against someone cycling through the columns must not lose, and
    // the game must end (illegal moves into a full column are refused, play goes on).
    let script = "1\n2\n3\n4\n".repeat(6);
    let out = cmd
        .args([
            "play", "--side", "O", "connect4", "--width", "4", "--height", "3",
        ])
        .stdin(script)
        .stdout();
    assert!(out.contains("You are O; the engine is X"), "{out}");
    assert!(out.contains("Game over: "), "{out}");
    assert!(!out.contains("You win"), "{out}");
    // From a finished database, without solving again.
    dir.command()
        .args([
            "game", "connect4", "--width", "4", "--height", "3", "--db", "db",
        ])
        .stdout();
    let out = dir
        .command()
        .args([
            "play", "connect4", "--width", "4", "--height", "3", "--db", "db",
        ])
        .stdin("hint\nquit\n")
        .stdout();
    assert!(out.contains("Hint: play "), "{out}");
    let msg = dir
        .command()
        .args(["play", "connect4", "--width", "9", "--height", "9"])
        .message();
    assert!(msg.contains("at most 64"), "{msg}");
});

rtest!(quixo_engine_wins_as_x, |_dir, cmd| {
    let tries = [
        "b1 b3", "a2 c2", "c2 a2", "b3 b1", "a1 c1", "c1 a1", "a3 c3", "c3 a3",
    ];
    let script: String = tries
        .iter()
        .cycle()
        .take(64)
        .map(|m| format!("{m}\n"))
        .collect();
    let out = cmd
        .args(["play", "quixo", "--size", "3", "--side", "O"])
        .stdin(script)
        .stdout();
    assert!(out.contains("X (engine) plays a3 c3: win in 7."), "{out}");
    assert!(out.contains("Game over: X wins. You lose."), "{out}");
    assert!(out.contains("Game over: X wins"), "{out}");
    let msg = _dir
        .command()
        .args(["play", "quixo", "--size", "7"])
        .message();
    assert!(msg.contains("3, 4 or 5"), "{msg}");
});

rtest!(teeko_drops_then_steps, |dir, cmd| {
    // The drop phase: the engine (X) opens, an illegal drop is refused with the legal ones.
    let out = cmd
        .args([
            "play", "teeko", "--size", "4", "--pieces", "3", "--side", "O",
        ])
        .stdin("b2\nb2\nhint\nquit\n")
        .stdout();
    assert!(out.contains("X (engine) plays b3: win in 5."), "{out}");
    assert!(out.contains("You play b2: loss in 4."), "{out}");
    assert!(out.contains("\"b2\" is not a legal move here"), "{out}");
    assert!(out.contains("Hint: play "), "{out}");
    // The move phase, from a position: the engine steps into a line at once.
    let out = dir
        .command()
        .args([
            "play", "teeko", "--size", "3", "--pieces", "3", "--side", "O",
        ])
        .args(["--position", "xox/..o/o.x x"])
        .stdin("")
        .stdout();
    assert!(out.contains("X (engine) plays c3-b2: win in 1."), "{out}");
    assert!(out.contains("Game over: X wins. You lose."), "{out}");
    // Steps are typed as c1-b1, in either case.
    let out = dir
        .command()
        .args([
            "play", "teeko", "--size", "3", "--pieces", "3", "--side", "X",
        ])
        .args(["--position", "xox/..o/o.x x"])
        .stdin("c1-b1\nundo\nC1-B1\nc2-c3\nquit\n")
        .stdout();
    assert_eq!(
        out.matches("You play c1-b1: draw (best was c3-b2: win in 1).")
            .count(),
        2,
        "{out}"
    );
    assert!(out.contains("\"c2-c3\" is not a legal move here"), "{out}");
    let msg = dir
        .command()
        .args(["play", "teeko", "--size", "3", "--pieces", "3"])
        .args(["--position", "xox/..o/o.x o/"])
        .message();
    assert!(msg.contains("side to move"), "{msg}");
});

rtest!(play_from_a_position_in_the_games_notation, |dir, cmd| {
    let out = cmd
        .args(["play", "connect4", "--width", "5", "--height", "4"])
        .args(["--position", "...../...../..o../..x..", "--side", "X"])
        .stdin("hint\nquit\n")
        .stdout();
    assert!(
        out.contains(". . O . .\n. . X . .\n1 2 3 4 5\nX to move (you): tie in 18\n"),
        "{out}"
    );
    assert!(out.contains("Hint: play 3 (tie in 18)."), "{out}");
    let msg = dir
        .command()
        .args(["play", "connect4", "--width", "5", "--height", "4"])
        .args(["--position", "...../...../..x../..o.."])
        .message();
    assert!(msg.contains("cannot be reached from the start"), "{msg}");
    let msg = dir
        .command()
        .args(["play", "tictactoe", "--position", "xx./.../..."])
        .message();
    assert!(msg.contains("X has 2 stones and O 0"), "{msg}");
    // Only tier games take --position and --db (their help shows them; the others' not).
    let msg = dir
        .command()
        .args(["play", "pebbles", "--position", "3"])
        .error();
    assert!(msg.contains("unexpected argument '--position'"), "{msg}");
    // From a position, O to move: the engine plays X first when the human is O.
    let out = dir
        .command()
        .args([
            "play",
            "tictactoe",
            "--position",
            "x../.../...",
            "--side",
            "O",
        ])
        .stdin("quit\n")
        .stdout();
    assert!(out.contains("O to move (you): tie in 8"), "{out}");
});

rtest!(graph_with_scores_hints_by_how_much, |_dir, cmd| {
    // examples/scored.rg from 0: to 2 (loss by 2 in 2) rather than to 1 (loss by 5 in 1).
    let out = cmd
        .args(["play", "graph", &example("scored.rg"), "--start", "0"])
        .stdin("hint\n2\n")
        .stdout();
    assert!(out.contains("Hint: play 2 (loss by 2 in 2)."), "{out}");
    assert!(out.contains("loss by 5 in 1"), "{out}");
    assert!(out.contains("win by 2 in 1"), "{out}");
});
