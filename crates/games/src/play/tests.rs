//! Sessions driven command by command, on the built-in playable games.

use super::*;
use crate::pebbles::Pebbles;
use crate::police::Map;
use crate::tictactoe::TicTacToe;
use crate::GameSolution;
use retrograde_graph::format::{parse, Format, ParseOptions};
use retrograde_graph::Graph;
use retrograde_solve::{solve, Rules, Solution};
use retrograde_tier::Notation;

fn rg(text: &str) -> (Graph, Solution) {
    let g = parse(text.as_bytes(), Format::Rg, &ParseOptions::default()).unwrap();
    let s = solve(&g, &Rules::default());
    (g, s)
}

/// A small deterministic generator (xorshift64), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn pebbles_opening_text_lists_ranked_moves() {
    let game = Pebbles::new(10, vec![1, 2]).unwrap();
    let s = game.solve(false).unwrap();
    let (session, intro) = Session::new(&s, 0).unwrap();
    assert_eq!(
        intro,
        "Pebbles: 10 in the bag; a move takes 1 or 2; the player who cannot move loses.\n\
         You are the first player; the engine is the second player (you move first). Type a move, or help.\n\
         10 pebbles left: oooooooooo\n\
         The first player to move (you): win in 7\n\
         Moves, best first (the value for the first player after the move):\n  \
         take 1  win in 7\n  \
         take 2  loss in 6\n"
    );
    assert_eq!(session.prompt(), "your move> ");
    assert_eq!((session.plies(), session.side_to_move()), (0, 0));
}

#[test]
fn pebbles_engine_always_leaves_a_multiple_of_three() {
    let game = Pebbles::new(40, vec![1, 2]).unwrap();
    let s = game.solve(false).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..50 {
        let human = round % 2;
        let (mut session, _) = Session::new(&s, human).unwrap();
        if human == 1 {
            // The engine opened from 40: it took 1.
            assert_eq!(*session.position(), 39);
        }
        while !session.is_over() {
            let here = *session.position();
            let take = 1 + rng.below(2.min(here as usize));
            let reply = session.command(&take.to_string()).unwrap();
            let left = here - take as u32;
            assert!(reply.text.starts_with("You play take"), "{}", reply.text);
            if left != 0 {
                // The engine answers, leaving a multiple of 3 whenever it can (the human just
                // left something else) and taking one pebble (stalling) when it cannot.
                let after = *session.position();
                if left % 3 != 0 {
                    assert_eq!(after % 3, 0, "{left} -> {after}");
                } else {
                    assert_eq!(after, left - 1, "stalling from {left}");
                }
            }
        }
        // The engine never loses from a won position: the second player wins from 40?
        // 40 % 3 != 0, so the first player wins with perfect play.
        let text = session.command("show").unwrap().text;
        if human == 0 {
            // The human started from a win but moved at random: whoever won, the text says so.
            assert!(text.contains("Game over:"), "{text}");
        } else {
            assert!(text.contains("You lose."), "{text}");
        }
    }
}

#[test]
fn following_hints_wins_from_a_won_start() {
    let game = Pebbles::new(10, vec![1, 2]).unwrap();
    let s = game.solve(false).unwrap();
    let (mut session, _) = Session::new(&s, 0).unwrap();
    let mut last = String::new();
    for _ in 0..10 {
        let hint = session.command("hint").unwrap().text;
        let Some(label) = hint
            .strip_prefix("Hint: play ")
            .and_then(|h| h.split(" (").next())
        else {
            break;
        };
        last = session.command(label).unwrap().text;
        assert!(!last.contains("best was"), "{last}");
    }
    assert!(session.is_over());
    assert!(
        last.ends_with(
            "The bag is empty.\nGame over: the first player wins. You win!\n\
             Type undo to take back your last move, or quit.\n"
        ),
        "{last}"
    );
    assert_eq!(session.prompt(), "(game over: undo or quit)> ");
    assert_eq!(
        session.command("hint").unwrap().text,
        "The game is over: no hint (undo or quit).\n"
    );
    assert!(session
        .command("take 1")
        .unwrap()
        .text
        .starts_with("The game is over"));
    // Undo after the end: back to the human's last turn.
    let text = session.command("undo").unwrap().text;
    assert!(text.starts_with("Undone: back 1 ply.\n"), "{text}");
    assert!(!session.is_over());
    assert!(matches!(*session.position(), 1 | 2));
}

#[test]
fn undo_illegal_moves_and_commands() {
    let game = Pebbles::new(4, vec![1, 2]).unwrap();
    let s = game.solve(false).unwrap();
    let (mut session, _) = Session::new(&s, 0).unwrap();
    assert_eq!(
        session.command("undo").unwrap().text,
        "Nothing to undo: you have not moved yet.\n"
    );
    let text = session.command("take 3").unwrap().text;
    assert_eq!(
        text,
        "\"take 3\" is not a legal move here. Legal moves: take 1, take 2. Type help for the commands.\n"
    );
    assert!(session
        .command("  xyzzy ")
        .unwrap()
        .text
        .starts_with("\"xyzzy\" is not"));
    assert_eq!(*session.position(), 4);
    assert_eq!(session.command("").unwrap().text, "");
    assert_eq!(session.command("# a comment").unwrap().text, "");
    assert!(session.command("help").unwrap().text.contains("undo"));
    assert!(session
        .command("MOVES")
        .unwrap()
        .text
        .contains("take 1  win in 3"));
    // An alias, in any case and spacing: take 2 from 4 is a mistake.
    let text = session.command("  TAKE   2 ").unwrap().text;
    assert!(
        text.starts_with(
            "You play take 2: loss in 2 (best was take 1: win in 3).\n\
             The second player (engine) plays take 2: win in 1.\n\
             The bag is empty.\nGame over: the second player wins. You lose.\n"
        ),
        "{text}"
    );
    let text = session.command("undo").unwrap().text;
    assert!(
        text.starts_with("Undone: back 2 plies.\n4 pebbles left"),
        "{text}"
    );
    assert_eq!(*session.position(), 4);
    session.command("1").unwrap();
    assert_eq!(*session.position(), 2);
    assert_eq!(session.plies(), 2);
    assert_eq!(
        session.end_of_input(),
        "End of input: the game is left unfinished. Bye.\n"
    );
    let quit = session.command("quit").unwrap();
    assert!(quit.done && quit.text == "Bye.\n");
}

#[test]
fn end_of_input_at_the_start_and_after_the_end() {
    let game = Pebbles::new(1, vec![1]).unwrap();
    let s = game.solve(false).unwrap();
    let (mut session, _) = Session::new(&s, 0).unwrap();
    assert_eq!(session.end_of_input(), "End of input. Bye.\n");
    session.command("1").unwrap();
    assert!(session.is_over());
    assert_eq!(session.end_of_input(), "End of input. Bye.\n");
}

#[test]
fn misere_title_and_engine_first() {
    let game = Pebbles::new(10, vec![1, 2]).unwrap();
    let s = game.solve(true).unwrap();
    let (session, intro) = Session::new(&s, 1).unwrap();
    assert!(intro.contains("cannot move wins (misère)"), "{intro}");
    assert!(intro.contains("(the engine moves first)"), "{intro}");
    // Misère take 1 or 2: lost exactly at 1 mod 3. 10 is 1 mod 3: the engine is lost and
    // stalls as long as it can.
    assert_eq!(
        s.value(&10).map(Value::outcome),
        Some(retrograde_solve::Outcome::Loss)
    );
    assert!(matches!(*session.position(), 8 | 9));
    assert_eq!(session.side_to_move(), 1);
}

#[test]
fn sides_by_name_and_number() {
    let game = TicTacToe::new(3, 3, 3).unwrap();
    let solved = retrograde_tier::solve(&game, &retrograde_tier::SolveOptions::default()).unwrap();
    let s = TierPlay::new(&solved, game.title(), None).unwrap();
    assert_eq!(parse_side(&s, "first"), Ok(0));
    assert_eq!(parse_side(&s, "2"), Ok(1));
    assert_eq!(parse_side(&s, "o"), Ok(1));
    assert_eq!(parse_side(&s, "X"), Ok(0));
    let map = Map::parse(b"1 2\nPT\n").unwrap();
    let police = map.solve().unwrap();
    assert_eq!(parse_side(police.game(), "Thief"), Ok(1));
    assert_eq!(parse_side(police.game(), "the policeman"), Ok(0));
    let e = parse_side(&s, "z").unwrap_err();
    assert_eq!(
        e,
        SideError {
            found: "z".into(),
            names: ["X".into(), "O".into()]
        }
    );
    assert_eq!(
        e.to_string(),
        "expected first, second, 1, 2, \"X\" or \"O\", found \"z\""
    );
    // In an arena whose start belongs to player 1, "first" is player 1.
    let (g, sol) = rg("owner 0 1\n0 1\n");
    let game = PlayGraph::new(&g, &sol, 0).unwrap();
    assert_eq!(parse_side(&game, "first"), Ok(1));
    assert_eq!(parse_side(&game, "player 0"), Ok(0));
    assert_eq!(parse_side(&game, "PLAYER  1"), Ok(1));
}

/// Plays tic-tac-toe with the human at `human`, choosing each move with `pick` from the
/// ranked list; returns the last reply.
fn play_tictactoe(
    human: usize,
    mut pick: impl FnMut(&[(Move<(crate::tictactoe::Board, u8)>, Value)]) -> usize,
) -> String {
    let game = TicTacToe::new(3, 3, 3).unwrap();
    let solved = retrograde_tier::solve(&game, &retrograde_tier::SolveOptions::default()).unwrap();
    let s = TierPlay::new(&solved, game.title(), None).unwrap();
    let (mut session, mut last) = Session::new(&s, human).unwrap();
    while !session.is_over() {
        let ranked = ranked_moves(&s, session.position()).unwrap();
        let label = ranked[pick(&ranked)].0.label.clone();
        last = session.command(&label).unwrap().text;
    }
    last
}

#[test]
fn tictactoe_perfect_play_ties_and_a_blunder_loses() {
    for human in 0..2 {
        let last = play_tictactoe(human, |_| 0);
        assert!(last.contains("Game over: a tie."), "{last}");
        // Always the worst move: the engine wins.
        let last = play_tictactoe(human, |r| r.len() - 1);
        assert!(last.contains("You lose."), "{last}");
    }
}

#[test]
fn tictactoe_board_and_labels() {
    let game = TicTacToe::new(3, 3, 3).unwrap();
    let solved = retrograde_tier::solve(&game, &retrograde_tier::SolveOptions::default()).unwrap();
    let s = TierPlay::new(&solved, game.title(), None).unwrap();
    let (mut session, intro) = Session::new(&s, 0).unwrap();
    assert!(
        intro.contains("3  . . .\n2  . . .\n1  . . .\n   a b c\nX to move (you): tie in 9\n"),
        "{intro}"
    );
    let labels: Vec<String> = Playable::moves(&s, session.position())
        .unwrap()
        .into_iter()
        .map(|m| m.label)
        .collect();
    assert_eq!(
        labels,
        ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]
    );
    let text = session.command("B2").unwrap().text;
    assert!(
        text.starts_with("You play b2: tie in 9.\nO (engine) plays a3: tie in 8.\n"),
        "{text}"
    );
    assert!(
        text.contains("3  O . .\n2  . X .\n1  . . .\n   a b c\nX to move (you): tie in 7\n"),
        "{text}"
    );
}

#[test]
fn police_moves_are_directions() {
    let map = Map::parse(b"3 3\nP..\n.*.\n..T\n").unwrap();
    let s = map.solve().unwrap();
    let sol = s.game();
    let labels = |session: &Session<&GameSolution<'_, Map>>| -> Vec<String> {
        Playable::moves(sol, session.position())
            .unwrap()
            .into_iter()
            .map(|m| m.label)
            .collect()
    };
    let (mut session, intro) = Session::new(sol, 0).unwrap();
    assert!(
        intro.contains("P..\n.*.\n..T\nThe policeman to move (you): "),
        "{intro}"
    );
    assert_eq!(labels(&session), ["stay", "e", "s"]);
    let text = session.command("east").unwrap().text;
    assert!(text.starts_with("You play e: "), "{text}");
    assert!(text.contains("The thief (engine) plays "), "{text}");
    // As the thief: the policeman (engine) opens.
    let (session, intro) = Session::new(sol, 1).unwrap();
    assert!(intro.contains("The policeman (engine) plays "), "{intro}");
    assert_eq!(session.side_to_move(), 1);
    assert!(labels(&session).contains(&"stay".to_string()));
}

#[test]
fn police_catch_is_shown() {
    let map = Map::parse(b"1 2\nPT\n").unwrap();
    let s = map.solve().unwrap();
    let (mut session, _) = Session::new(s.game(), 0).unwrap();
    let text = session.command("e").unwrap().text;
    assert_eq!(
        text,
        "You play e: win in 1.\n.@\n(@: the policeman has caught the thief)\n\
         Game over: the policeman wins. You win!\nType undo to take back your last move, or quit.\n"
    );
}

#[test]
fn graph_names_go_again_and_turns() {
    // 0 -> 1 passes the turn; 1 -> 2 keeps it (and 1 -> 2 also passes it, a parallel edge).
    let (g, s) = rg("0 1\n1 2 again\n1 2\n1 2\n2 3\nname 2 middle\nname 3 end\n");
    let game = PlayGraph::new(&g, &s, 0).unwrap();
    let (mut session, intro) = Session::new(&game, 1).unwrap();
    assert!(intro.starts_with(
        "A game graph of 4 vertices and 5 moves, from vertex 0: the turn passes on every move except go-again ones.\n"
    ), "{intro}");
    assert!(
        intro.contains("The first player (engine) plays 1: "),
        "{intro}"
    );
    assert_eq!(session.side_to_move(), 1);
    let moves = Playable::moves(&game, &1).unwrap();
    let labels: Vec<&str> = moves.iter().map(|m| m.label.as_str()).collect();
    assert_eq!(labels, ["2", "2 again"]);
    assert_eq!(moves[1].aliases, ["middle again"]);
    // 3 has no move: whoever moves there wins. From 1, "2 again" keeps the turn: the human
    // then moves to 3 and wins.
    assert!(
        intro.contains("  2 again (middle)  win in 2 (the second player moves again)\n"),
        "{intro}"
    );
    let text = session.command("middle again").unwrap().text;
    assert!(text.starts_with("You play 2 again (middle): win in 2.\nAt vertex 2 (middle).\nThe second player to move (you): win in 1\n"), "{text}");
    let text = session.command("end").unwrap().text;
    assert!(
        text.contains(
            "At vertex 3 (end) (no move).\nGame over: the second player wins. You win!\n"
        ),
        "{text}"
    );
}

#[test]
fn graph_terminal_labels_end_the_game() {
    let (g, s) = rg("0 1\n1 0\nterminal 1 tie\n");
    let game = PlayGraph::new(&g, &s, 0).unwrap();
    let (mut session, _) = Session::new(&game, 0).unwrap();
    let text = session.command("1").unwrap().text;
    assert!(
        text.contains("At vertex 1 (terminal: tie for the player to move).\nGame over: a tie.\n"),
        "{text}"
    );
    assert_eq!(
        PlayGraph::new(&g, &s, 2).err(),
        Some(PlayGraphError::NoVertex {
            start: 2,
            vertices: 2
        })
    );
    let (bigger, _) = rg("0 1\n1 2\n");
    assert_eq!(
        PlayGraph::new(&bigger, &s, 0).err(),
        Some(PlayGraphError::Mismatch {
            values: 2,
            vertices: 3
        })
    );
}

#[test]
fn a_repeated_draw_is_pointed_out_and_play_goes_on() {
    let (g, s) = rg("0 1\n1 0\n");
    let game = PlayGraph::new(&g, &s, 0).unwrap();
    let (mut session, intro) = Session::new(&game, 0).unwrap();
    assert!(
        intro.contains("The first player to move (you): draw\n"),
        "{intro}"
    );
    let text = session.command("1").unwrap().text;
    assert!(text.contains(
        "The second player (engine) plays 0: draw.\nThis position has occurred before: with perfect play the game never ends (a draw). Play on, or quit.\n"
    ), "{text}");
    assert!(!session.is_over());
    session.command("1").unwrap();
    assert_eq!(session.plies(), 4);
}

#[test]
fn an_engine_moving_forever_alone_is_a_draw() {
    // An arena: player 1 owns 1 and 2 and can circle there forever, or move to 3 (player 0's,
    // no move: a loss for player 0). Player 1 wins by going to 3: no loop. With 3 a tie, the
    // engine prefers the tie; with no exit at all it circles: a draw.
    let (g, s) = rg("owner 1 1\nowner 2 1\n0 1\n1 2\n2 1\n");
    let game = PlayGraph::new(&g, &s, 0).unwrap();
    let (mut session, _) = Session::new(&game, 0).unwrap();
    let text = session.command("1").unwrap().text;
    assert_eq!(
        text,
        "You play 1: draw.\nPlayer 1 (engine) plays 2: draw.\nPlayer 1 (engine) plays 1: draw.\n\
         At vertex 1, owned by player 1.\n\
         Game over: a draw. Player 1 (engine) would move forever without your turn coming (this position repeated).\n\
         Type undo to take back your last move, or quit.\n"
    );
    assert!(session.is_over());
    assert!(session
        .command("undo")
        .unwrap()
        .text
        .starts_with("Undone: back 3 plies.\n"));
    assert_eq!(*session.position(), 0);
    // As player 1, the human moves once player 0 (the engine) has moved to 1.
    let (session, intro) = Session::new(&game, 1).unwrap();
    assert!(
        intro.contains("Player 0 (engine) plays 1: draw.\n"),
        "{intro}"
    );
    assert_eq!((session.side_to_move(), session.is_over()), (1, false));
}
