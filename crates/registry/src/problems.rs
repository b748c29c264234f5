//! The seeds' contest problems, each solved in one process with a report of its own: the
//! Great Game (ETH Algolab: one verdict per case) and IOI 2001's Score (the winner,
//! player 1's strategy, and the IOI protocol to play it).

use crate::explored::explore_error;
use crate::{Answer, Args, BuildError, Built, Input, Protocol, Report, Solved};
use retrograde_games::great_game;
use retrograde_games::scores::{self, Instance, IoiPlayer, OpponentError, ScoresSolution};
use retrograde_graph::format::ParseError;
use retrograde_solve::exchange::Exchange;
use retrograde_tier::{Error, SolveOptions};

/// `input` did not parse: its name and where.
pub(crate) fn located(input: &Input, error: ParseError) -> BuildError {
    BuildError::Input {
        name: input.name.clone(),
        error,
    }
}

// ------------------------------------------------------------------------------------------
// The Great Game.

struct GreatBuilt {
    cases: Vec<great_game::Instance>,
    method: great_game::Method,
}

pub(crate) fn build_great_game(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let input = a.input("file")?;
    let cases = great_game::parse(&input.bytes).map_err(|e| located(input, e))?;
    let method = a.text("method")?.parse().map_err(|why| BuildError::Game {
        game: great_game::ABOUT.name,
        why,
    })?;
    Ok(Box::new(GreatBuilt { cases, method }))
}

impl Built for GreatBuilt {
    fn name(&self) -> String {
        great_game::ABOUT.name.into()
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
            game: great_game::ABOUT.name.into(),
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

pub(crate) fn build_scores(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let input = a.input("file")?;
    let inst = Instance::parse(&input.bytes).map_err(|e| located(input, e))?;
    Ok(Box::new(ScoresBuilt {
        inst,
        play: a.flag("play"),
    }))
}

impl Built for ScoresBuilt {
    fn name(&self) -> String {
        scores::ABOUT.name.into()
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
        let mut r = Report::standard(scores::ABOUT.name, self.s.start_value(), self.s.stats());
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
