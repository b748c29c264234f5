//! Playing a solved graph from its database.

use retrograde_games::play::{Move, Playable};
use retrograde_solve::Value;
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
