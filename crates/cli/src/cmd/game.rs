//! `retrograde game NAME`: solve a built-in game given by its rules.

use super::Status;
use crate::cli::{GameArgs, GameCommand, GameOutput, GreatMethod, TierArgs};
use crate::input::{self, located};
use crate::mem;
use crate::progress;
use anyhow::{anyhow, Result};
use retrograde_games::connect4::{self, Connect4};
use retrograde_games::great_game;
use retrograde_games::pebbles::Pebbles;
use retrograde_games::police::Map;
use retrograde_games::quixo::{self, Quixo};
use retrograde_games::scores::{Instance, ScoresSolution, State};
use retrograde_games::tictactoe::TicTacToe;
use retrograde_games::{solve_game_lean, Game, Stats};
use retrograde_solve::{Rules, Value};
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
            if game.index_size().is_some() {
                // Small boards: no stored moves, and a count up to symmetry.
                let s = solve_game_lean(&game, &Rules::default())?;
                let reduced = s.symmetry_reduced_positions();
                let extra = [(
                    "symmetry_reduced",
                    reduced.to_string(),
                    format!("positions up to rotation and reflection {reduced}"),
                )];
                return report(
                    "tictactoe",
                    None,
                    s.start_value(),
                    s.stats(),
                    &extra,
                    args.output,
                    started,
                    out,
                );
            }
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
        GameCommand::Connect4 {
            width,
            height,
            tiers,
            query,
        } => {
            let game = Connect4::new(*width, *height).map_err(|e| anyhow!("connect4: {e}"))?;
            let (dir, _tmp) = tier_dir(tiers)?;
            if let (Some(q), Some(db)) = (query, &tiers.db) {
                let opened = game
                    .open(db)
                    .map_err(|e| anyhow!("connect4 {width}x{height}: {e}"))?;
                if let Some(s) = opened {
                    return connect4_query(&game, &s, q, args.output, out);
                }
            }
            let discover = progress::bar(u64::from(game.cells() + 1), "discover");
            let solve = std::sync::OnceLock::new();
            let on_progress = |p: connect4::Progress| match p {
                connect4::Progress::Discover {
                    tier, positions, ..
                } => {
                    discover.set_position(u64::from(tier));
                    discover.set_message(format!("tiers, {positions} positions"));
                }
                connect4::Progress::Solve {
                    tier,
                    positions,
                    total,
                    ..
                } => {
                    discover.finish_and_clear();
                    let bar = solve.get_or_init(|| progress::bar(total, "solve"));
                    bar.set_position(positions);
                    bar.set_message(format!("positions, tier {tier}"));
                }
            };
            let opts = connect4::SolveOptions {
                dir: Some(dir.clone()),
                resume: tiers.resume,
                progress: Some(&on_progress),
                memory_limit: tiers.memory.or_else(mem::available_bytes),
            };
            let s = game.solve(&opts);
            discover.finish_and_clear();
            if let Some(b) = solve.get() {
                b.finish_and_clear();
            }
            let s = s.map_err(|e| anyhow!("connect4 {width}x{height}: {e}"))?;
            if let Some(q) = query {
                return connect4_query(&game, &s, q, args.output, out);
            }
            let reduced = s.symmetry_reduced_positions();
            let mut extra = vec![
                (
                    "symmetry_reduced",
                    reduced.to_string(),
                    format!("positions up to mirror symmetry {reduced}"),
                ),
                (
                    "tier_sizes",
                    serde_json::to_string(s.tier_sizes())?,
                    String::new(),
                ),
            ];
            if tiers.db.is_some() {
                extra.push((
                    "db",
                    serde_json::to_string(&dir.display().to_string())?,
                    format!("tiers written to {}", dir.display()),
                ));
            }
            report(
                "connect4",
                None,
                s.start_value(),
                s.stats(),
                &extra,
                args.output,
                started,
                out,
            )
        }
        GameCommand::Quixo { size, tiers } => {
            let game = Quixo::new(*size).map_err(|e| anyhow!("quixo: {e}"))?;
            let bars = [
                progress::bar(game.states(), "solve"),
                progress::bar(game.states(), "count"),
            ];
            let on_progress = |p: quixo::Progress| {
                let (bar, other) = match p.phase {
                    quixo::Phase::Solve => (&bars[0], &bars[1]),
                    quixo::Phase::Count => (&bars[1], &bars[0]),
                };
                other.finish_and_clear();
                bar.set_position(p.done);
                bar.set_message("states");
            };
            let s = game.solve_with(&quixo::SolveOptions {
                memory_limit: tiers.memory.or_else(mem::available_bytes),
                progress: Some(&on_progress),
                dir: tiers.db.clone(),
                resume: tiers.resume,
            });
            for b in &bars {
                b.finish_and_clear();
            }
            let s = s.map_err(|e| anyhow!("quixo {size}x{size}: {e}"))?;
            let reduced = s.symmetry_reduced_positions();
            let states = s.states_reached();
            let extra = [
                (
                    "symmetry_reduced",
                    reduced.to_string(),
                    format!("positions up to rotation and reflection {reduced}"),
                ),
                (
                    "states",
                    states.to_string(),
                    format!(
                        "distinct boards seen by the player to move {states} (of {} solved)",
                        game.states()
                    ),
                ),
            ];
            report(
                "quixo",
                None,
                s.start_value(),
                s.stats(),
                &extra,
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

/// `connect4 --query`: the position after `moves` (1-based columns), its value, its moves.
fn connect4_query(
    game: &Connect4,
    s: &connect4::Solution,
    moves: &[u32],
    output: GameOutput,
    out: &mut impl Write,
) -> Result<Status> {
    let mut key = game.empty();
    for (i, &c) in moves.iter().enumerate() {
        let at = format!("--query: move {} (column {c})", i + 1);
        if game.terminal(key, game.stones(key)).is_some() {
            anyhow::bail!("{at}: the game is already over");
        }
        if c == 0 || c > game.width() {
            anyhow::bail!("{at}: columns are 1 to {}", game.width());
        }
        key = game
            .play(key, c - 1)
            .ok_or_else(|| anyhow!("{at}: the column is full"))?;
    }
    let value = s
        .try_value(key)
        .map_err(|e| anyhow!("{e}"))?
        .ok_or_else(|| anyhow!("--query: the position is not in the database"))?;
    let ranked = s.ranked_moves(key);
    let side = if game.stones(key) % 2 == 0 {
        "first"
    } else {
        "second"
    };
    match output {
        GameOutput::Text => {
            write!(out, "{}", game.render(key))?;
            writeln!(out, "{side} player to move: {value}")?;
            let list: Vec<String> = ranked
                .iter()
                .map(|(c, v)| format!("{} {v}", c + 1))
                .collect();
            if list.is_empty() {
                writeln!(out, "no moves: the game is over")?;
            } else {
                writeln!(
                    out,
                    "moves (column, value for the mover): {}",
                    list.join(", ")
                )?;
            }
        }
        GameOutput::Json => {
            let ranked: Vec<serde_json::Value> = ranked
                .iter()
                .map(|(c, v)| {
                    serde_json::json!({"column": c + 1, "outcome": v.outcome().to_string(), "remoteness": v.remoteness()})
                })
                .collect();
            let j = serde_json::json!({
                "game": "connect4",
                "moves": moves,
                "to_move": side,
                "value": {"outcome": value.outcome().to_string(), "remoteness": value.remoteness()},
                "ranked": ranked,
            });
            writeln!(out, "{j}")?;
        }
    }
    Ok(Status::Success)
}

/// The directory for a tiered solve's files: `--db`, or a temporary one (removed when the
/// returned guard drops).
fn tier_dir(args: &TierArgs) -> Result<(std::path::PathBuf, Option<tempfile::TempDir>)> {
    match &args.db {
        Some(d) => Ok((d.clone(), None)),
        None => {
            let t = tempfile::Builder::new()
                .prefix("retrograde-tiers-")
                .tempdir()
                .map_err(|e| anyhow!("cannot create a temporary directory for the tiers: {e}"))?;
            Ok((t.path().to_path_buf(), Some(t)))
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

/// `12.3M`: a rate per second in readable units.
fn rate(n: u64, seconds: f64) -> String {
    let r = n as f64 / seconds.max(1e-9);
    if r >= 1e6 {
        format!("{:.1}M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1}k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
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
                "time {seconds:.3} s (explore {:.3} s, solve {:.3} s), {} positions/s",
                st.explore.as_secs_f64(),
                st.solve.as_secs_f64(),
                rate(st.positions, seconds)
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
