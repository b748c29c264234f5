//! Playing a solved graph from its database.

use retrograde_games::play::{Move, Playable};
use retrograde_solve::{Scored, Value};
use retrograde_tier::{Error, GraphDb};

/// A graph database, playable: moves are labelled by the target's id (and its name).
pub struct PlayGraphDb<'a> {
    db: &'a GraphDb,
    start: u32,
}

impl<'a> PlayGraphDb<'a> {
    /// Play from `start`.
    pub fn new(db: &'a GraphDb, start: u32) -> Self {
        PlayGraphDb { db, start }
    }

    fn label(&self, v: u32) -> String {
        match self.db.name(v) {
            Some(n) => format!("{v} ({n})"),
            None => v.to_string(),
        }
    }
}

impl Playable for PlayGraphDb<'_> {
    type Position = u32;

    fn start(&self) -> u32 {
        self.start
    }

    fn moves(&self, &v: &u32) -> Result<Vec<Move<u32>>, Error> {
        let mut edges = self.db.moves(v)?;
        // Parallel moves with the same turn rule are one move.
        edges.sort_unstable();
        edges.dedup();
        let both = |t: u32| edges.iter().filter(|e| e.0 == t).count() > 1;
        Ok(edges
            .iter()
            .map(|&(t, keeps)| {
                let suffix = if keeps && both(t) { " again" } else { "" };
                let mut m = Move::new(format!("{t}{suffix}"), t).keeps_turn(keeps);
                if let Some(name) = self.db.name(t) {
                    m = m.note(name).alias(format!("{name}{suffix}"));
                }
                m
            })
            .collect())
    }

    fn value(&self, &v: &u32) -> Result<Value, Error> {
        self.db.value(v)
    }

    /// A scored graph's values say by how much (its moves collect nothing on the way).
    fn scored(&self, &v: &u32) -> Result<Option<Scored>, Error> {
        if self.db.is_scored() {
            self.db.scored(v).map(Some)
        } else {
            Ok(None)
        }
    }

    fn render(&self, &v: &u32) -> String {
        format!("At vertex {}.", self.label(v))
    }

    fn title(&self) -> String {
        format!(
            "A solved graph of {} vertices, from vertex {}.",
            self.db.vertices(),
            self.label(self.start)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_games::play::start_session;
    use retrograde_graph::GraphBuilder;
    use retrograde_solve::exchange::Solo;
    use retrograde_solve::{solve, Rules};
    use retrograde_tier::{graphdb, MemStorage, Stats};
    use std::sync::Arc;

    /// A graph database, written and opened in memory.
    fn db(scored: bool) -> GraphDb {
        // 0 chooses between 1 and 2, which moves to 3.
        let mut b = GraphBuilder::new();
        for (u, v) in [(0, 1), (0, 2), (2, 3)] {
            b.add_edge(u, v);
        }
        if scored {
            b.set_score(1, 5).unwrap();
            b.set_score(3, -2).unwrap();
        }
        let g = b.build().unwrap();
        let s = solve(&g, &Rules::default());
        let st = MemStorage::new();
        graphdb::write(&st, &g, &s, &Stats::default(), serde_json::json!({}), &Solo).unwrap();
        GraphDb::open(Arc::new(st)).unwrap().unwrap()
    }

    #[test]
    fn hints_from_a_scored_database_say_by_how_much() {
        for scored in [true, false] {
            let db = db(scored);
            let (mut session, intro) = start_session(PlayGraphDb::new(&db, 2), "1").unwrap();
            let hint = session.command("hint").unwrap().text;
            let text = format!("{intro}{hint}");
            // From 2 the only move reaches 3, worth -2 (or a dead end: a loss) to its mover.
            let want = if scored { "win by 2 in 1" } else { "win in 1" };
            assert!(text.contains(want), "{text}");
            assert_eq!(text.contains(" by "), scored, "{text}");
        }
    }
}
