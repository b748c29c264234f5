//! `retrograde game NAME`: solve a built-in game given by its rules.

use super::Status;
use crate::cli::{GameArgs, GameCommand, GameOutput, GreatMethod};
use crate::input::{self, located};
use crate::mem;
use anyhow::{anyhow, Result};
use retrograde_games::great_game;
use retrograde_games::pebbles::Pebbles;
use retrograde_games::police::Map;
use retrograde_games::scores::{Instance, ScoresSolution, State};
use retrograde_games::tictactoe::TicTacToe;
use retrograde_games::Stats;
use retrograde_solve::Value;
use std::collections::{HashSet, VecDeque};
use std::io::{BufRead, Read, Write};
use std::path::Path;
use std::time::Instant;

/// Game-specific extras: (JSON field, JSON value, text line).
type Extra = (&'static str, String, String);

pub fn run(args: &GameArgs, started: Instant, out: &mut impl Write) -> Result<Status> {
    match &args.game {
        GameCommand::Octal { .. }
        | GameCommand::Subtraction { .. }
        | GameCommand::GrundyGame { .. } => {
            super::impartial_games::run(&args.game, args.output, started, out)
        }
        GameCommand::Pebbles {
            count,
            take,
            misere,
        } => {
            let game = Pebbles::new(*count, take.clone()).map_err(|e| anyhow!("pebbles: {e}"))?;
            let s = game.solve(*misere)?;
            let pattern = game.pattern(&s);
            let extra = [(
                "pattern",
                serde_json::to_string(&pattern)?,
                format!(
                    "pattern by count 0..{count} (W win, L loss for the player to move): {pattern}"
                ),
            )];
            report(
                "pebbles",
                None,
                s.start_value(),
                s.stats(),
                &extra,
                args.output,
                started,
                out,
            )
        }
        GameCommand::PoliceThief { map } => {
            let (name, text) = read_all(map)?;
            let map = Map::parse(&text).map_err(|e| located(&name, e))?;
            let s = map.solve()?;
            let verdict = s.verdict().to_string();
            let extra = [("verdict", serde_json::to_string(&verdict)?, String::new())];
            let start = s.game().start_value();
            report(
                "police-thief",
                Some(&verdict),
                start,
                s.game().stats(),
                &extra,
                args.output,
                started,
                out,
            )
        }
        GameCommand::Tictactoe { rows, cols, k } => {
            let game = TicTacToe::new(*rows, *cols, *k).map_err(|e| anyhow!("tictactoe: {e}"))?;
            let s = game.solve()?;
            report(
                "tictactoe",
                None,
                s.start_value(),
                s.stats(),
                &[],
                args.output,
                started,
                out,
            )
        }
        GameCommand::GreatGame { file, method } => {
            let path = file.as_deref().unwrap_or(Path::new("-"));
            let (name, text) = read_all(path)?;
            let cases = great_game::parse(&text).map_err(|e| located(&name, e))?;
            let method = match method {
                GreatMethod::Product => great_game::Method::Product,
                GreatMethod::Memo => great_game::Method::Memo,
                GreatMethod::Minimax => great_game::Method::Minimax,
            };
            let winners = cases
                .iter()
                .map(|c| great_game::try_solve(c, method))
                .collect::<Result<Vec<_>, _>>()?;
            match args.output {
                GameOutput::Text => {
                    out.write_all(great_game::format_output(&winners).as_bytes())?
                }
                GameOutput::Json => {
                    let codes: Vec<u8> = winners.iter().map(|w| w.code()).collect();
                    writeln!(
                        out,
                        "{{\"game\":\"great-game\",\"method\":\"{}\",\"cases\":{},\"winners\":{},\"seconds\":{:.6}}}",
                        method.as_str(),
                        winners.len(),
                        serde_json::to_string(&codes)?,
                        started.elapsed().as_secs_f64()
                    )?;
                }
            }
            Ok(Status::Success)
        }
        GameCommand::Scores { file, play } => {
            let (name, text) = read_all(file)?;
            let inst = Instance::parse(&text).map_err(|e| located(&name, e))?;
            let s = inst.solve()?;
            if *play {
                return play_scores(&inst, &s, out);
            }
            let winner = s.winner();
            let mut lines = vec![format!("player {winner} wins")];
            if winner == 1 {
                lines.push(
                    "player 1's winning strategy (token at position, scores so far p1/p2 -> move to):"
                        .into(),
                );
                lines.extend(strategy(&inst, &s).into_iter().map(|(st, to)| {
                    format!(
                        "  at {}, scores {}/{} -> {to}",
                        st.position(),
                        inst.score(&st, 1),
                        inst.score(&st, 2)
                    )
                }));
            } else {
                lines.push(
                    "player 1 has no winning strategy: player 2 wins against every play".into(),
                );
            }
            let extra = [("winner", winner.to_string(), String::new())];
            let first = lines.join("\n");
            report(
                "scores",
                Some(&first),
                s.start_value(),
                s.stats(),
                &extra,
                args.output,
                started,
                out,
            )
        }
    }
}

/// Reads a whole (small) input file or standard input.
fn read_all(path: &Path) -> Result<(String, Vec<u8>)> {
    let name = input::display_name(Some(path));
    let mut text = Vec::new();
    input::open(Some(path))?
        .read_to_end(&mut text)
        .map_err(|e| anyhow!("{name}: cannot read: {e}"))?;
    Ok((name, text))
}

/// Player 1's best move at every state reachable when player 1 follows it and player 2 plays
/// anything, in order of (position, scores).
fn strategy(inst: &Instance, s: &ScoresSolution<'_>) -> Vec<(State, usize)> {
    let mut seen = HashSet::new();
    let mut todo = VecDeque::from([inst.start()]);
    let mut out = Vec::new();
    while let Some(st) = todo.pop_front() {
        if !seen.insert(st) || inst.is_over(&st) {
            continue;
        }
        let next: Vec<usize> = if inst.to_move(&st) == Some(1) {
            let m = s
                .best_move(&st)
                .expect("a position that is not over has a move");
            out.push((st, m));
            vec![m]
        } else {
            inst.legal_moves(&st)
        };
        for m in next {
            todo.push_back(inst.apply(&st, m).expect("a legal move"));
        }
    }
    out.sort_by_key(|(st, _)| (st.position(), inst.score(st, 1), inst.score(st, 2)));
    out
}

/// Plays as player 1 in the IOI protocol: our moves on standard output (one position a
/// line, flushed), the opponent's read from standard input.
fn play_scores(inst: &Instance, s: &ScoresSolution<'_>, out: &mut impl Write) -> Result<Status> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut st = inst.start();
    let mut move_no = 0;
    while !inst.is_over(&st) {
        move_no += 1;
        if inst.to_move(&st) == Some(1) {
            let m = s
                .best_move(&st)
                .expect("a position that is not over has a move");
            writeln!(out, "{m}")?;
            out.flush()?;
            st = inst.apply(&st, m).expect("our own move is legal");
        } else {
            let line = match lines.next() {
                Some(l) => l.map_err(|e| anyhow!("<stdin>: cannot read: {e}"))?,
                None => anyhow::bail!(
                    "<stdin>: the opponent's moves ended before the game did (move {move_no})"
                ),
            };
            let to: usize = line.trim().parse().map_err(|_| {
                anyhow!(
                    "<stdin>: move {move_no}: expected the position the opponent moves to, found {:?}",
                    line.trim()
                )
            })?;
            st = inst
                .apply(&st, to)
                .map_err(|e| anyhow!("<stdin>: move {move_no}: illegal move: {e}"))?;
        }
    }
    Ok(Status::Success)
}

/// Prints the start value (or a game's own first line) and the statistics.
#[allow(clippy::too_many_arguments)]
fn report(
    game: &str,
    first_line: Option<&str>,
    start: Value,
    st: &Stats,
    extra: &[Extra],
    output: GameOutput,
    started: Instant,
    out: &mut impl Write,
) -> Result<Status> {
    let seconds = started.elapsed().as_secs_f64();
    let peak = mem::peak_rss_bytes();
    match output {
        GameOutput::Text => {
            match first_line {
                Some(l) => writeln!(out, "{l}")?,
                None => writeln!(out, "first player: {start}")?,
            }
            if first_line.is_some() {
                writeln!(out, "start position: {start} for the player to move")?;
            }
            for (_, _, line) in extra.iter().filter(|e| !e.2.is_empty()) {
                writeln!(out, "{line}")?;
            }
            writeln!(out, "positions {}, moves {}", st.positions, st.moves)?;
            writeln!(
                out,
                "win {}, loss {}, tie {}, draw {}",
                st.win, st.loss, st.tie, st.draw
            )?;
            let plies = |x: Option<u32>| x.map_or("none".to_string(), |r| format!("{r} plies"));
            writeln!(
                out,
                "longest win {}, longest loss {}",
                plies(st.longest_win),
                plies(st.longest_loss)
            )?;
            write!(
                out,
                "time {seconds:.3} s (explore {:.3} s, solve {:.3} s)",
                st.explore.as_secs_f64(),
                st.solve.as_secs_f64()
            )?;
            match peak {
                Some(p) => writeln!(out, ", peak memory {}", mem::human(p))?,
                None => writeln!(out)?,
            }
        }
        GameOutput::Json => {
            let opt = |x: Option<u32>| x.map_or("null".to_string(), |r| r.to_string());
            let histogram: Vec<[u64; 3]> =
                st.histogram.iter().map(|&(w, l, t)| [w, l, t]).collect();
            write!(
                out,
                "{{\"game\":\"{game}\",\"start\":{{\"outcome\":\"{}\",\"remoteness\":{}}},\"positions\":{},\"moves\":{},\"win\":{},\"loss\":{},\"tie\":{},\"draw\":{},\"longest_win\":{},\"longest_loss\":{},\"histogram\":{}",
                start.outcome(),
                opt(start.remoteness()),
                st.positions,
                st.moves,
                st.win,
                st.loss,
                st.tie,
                st.draw,
                opt(st.longest_win),
                opt(st.longest_loss),
                serde_json::to_string(&histogram)?
            )?;
            for (key, value, _) in extra {
                write!(out, ",\"{key}\":{value}")?;
            }
            writeln!(
                out,
                ",\"seconds\":{seconds:.6},\"peak_rss_bytes\":{}}}",
                peak.map_or("null".to_string(), |p| p.to_string())
            )?;
        }
    }
    Ok(Status::Success)
}
