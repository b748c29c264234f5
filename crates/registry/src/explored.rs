//! One [`Built`] and one [`Answer`] for every game explored into a graph and solved whole
//! (the pebble game, the policeman and the thief): solved in one process, reported with
//! the start's value and the totals and the game's own lines ([`Explore::report`]), asked
//! and played by moves from the start (they have no position notation).

use crate::{Answer, Built, Legal, Query, QueryAnswer, QueryError, Report, Solved, Unanswered};
use retrograde_games::about::About;
use retrograde_games::pebbles::Pebbles;
use retrograde_games::play::{ranked_moves, start_session, DynSession, Playable};
use retrograde_games::police::{Map, Verdict};
use retrograde_games::{solve_game, ExploreError, Game, GameSolution};
use retrograde_solve::exchange::Exchange;
use retrograde_solve::Rules;
use retrograde_tier::{Error, SolveOptions};

/// What an explored game's entry adds to its rules: its name and its report's own part.
pub trait Explore: Game<Position: Send + Sync> + Send + Sync + Sized + 'static {
    /// The game and its parameters (`pebbles 10`).
    fn name(&self) -> String;

    /// Adds the game's own lines and fields to the standard report of `solution`.
    fn report(&self, solution: &GameSolution<'_, Self>, report: &mut Report);
}

impl Explore for Pebbles {
    fn name(&self) -> String {
        format!("pebbles {}", self.count())
    }

    fn report(&self, s: &GameSolution<'_, Pebbles>, r: &mut Report) {
        let pattern = self.pattern(s);
        r.lines.push(format!(
            "pattern by count 0..{} (W win, L loss for the player to move): {pattern}",
            self.count()
        ));
        r.fields
            .push(("pattern".into(), serde_json::json!(pattern)));
    }
}

impl Explore for Map {
    fn name(&self) -> String {
        "police-thief".into()
    }

    fn report(&self, s: &GameSolution<'_, Map>, r: &mut Report) {
        let verdict = Verdict::of(s.start_value()).to_string();
        r.first_line = Some(verdict.clone());
        r.fields
            .push(("verdict".into(), serde_json::json!(verdict)));
    }
}

/// An explored game built from its parameters, with the rules it is solved by.
pub struct Explored<G> {
    game: G,
    rules: Rules,
    about: &'static About,
}

impl<G> Explored<G> {
    /// `game` described by `about`, solved by `rules`.
    pub fn new(game: G, rules: Rules, about: &'static About) -> Self {
        Explored { game, rules, about }
    }
}

/// An exploration's error as the engine's: running out of memory is [`Error::Memory`].
pub(crate) fn explore_error(e: ExploreError) -> Error {
    match e {
        ExploreError::Memory { needed, limit } => Error::Memory {
            what: "exploring the positions".into(),
            needed,
            limit,
        },
        e => Error::Unsupported(e.to_string()),
    }
}

impl<G: Explore> Built for Explored<G>
where
    for<'g> GameSolution<'g, G>: Playable,
{
    fn name(&self) -> String {
        self.game.name()
    }

    fn solve_over(&self, _: &SolveOptions, _: &dyn Exchange) -> Result<Solved<'_>, Error> {
        let solution = solve_game(&self.game, &self.rules).map_err(explore_error)?;
        Ok(Solved::alone(Box::new(ExploredAnswer {
            built: self,
            solution,
        })))
    }
}

struct ExploredAnswer<'a, G: Game> {
    built: &'a Explored<G>,
    solution: GameSolution<'a, G>,
}

impl<G: Explore> Answer for ExploredAnswer<'_, G>
where
    for<'g> GameSolution<'g, G>: Playable,
{
    fn report(&self) -> Result<Report, Error> {
        let s = &self.solution;
        let mut r = Report::standard(self.built.about.name, s.start_value(), s.stats());
        self.built.game.report(s, &mut r);
        Ok(r)
    }

    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        playable_query(&self.solution, q)
    }

    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), QueryError> {
        if from.is_some() {
            return Err(QueryError::Unanswered(Unanswered::FromStartOnly));
        }
        Ok(start_session(&self.solution, side)?)
    }
}

/// A query to a game played from its start only: the moves are replayed by their `play`
/// labels (or aliases), the values and ranked moves come from the solution, as `play`
/// shows them. Such games have no position notation: the position is named by its moves,
/// comma-separated.
fn playable_query<P: Playable>(g: &P, q: &Query) -> Result<QueryAnswer, QueryError> {
    let Query::Moves(line) = q else {
        return Err(QueryError::Unanswered(Unanswered::NoNotation));
    };
    let mut p = g.start();
    let mut side = g.first_side() & 1;
    for (i, m) in line.iter().enumerate() {
        let legal = g.moves(&p)?;
        let Some(mv) = legal
            .iter()
            .find(|mv| mv.label == *m || mv.aliases.iter().any(|a| a == m))
        else {
            return Err(QueryError::IllegalMove {
                index: i + 1,
                asked: m.clone(),
                legal: Legal::Moves(legal.iter().map(|mv| mv.label.clone()).collect()),
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
        position: line.join(","),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Args;
    use retrograde_solve::Value;

    fn pebbles() -> Box<dyn Built> {
        let e = crate::entry("pebbles").unwrap();
        e.build(&Args::with_defaults(e.params).unwrap()).unwrap()
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
