//! Playing Connect-4: a move is a column number, 1 to the width, left to right.

use super::{Move, Playable};
use crate::connect4::Solution;
use retrograde_solve::Value;

impl Playable for Solution {
    type Position = u64;

    fn start(&self) -> u64 {
        self.game().empty()
    }

    fn moves(&self, &key: &u64) -> Vec<Move<u64>> {
        let g = self.game();
        if g.terminal(key, g.stones(key)).is_some() {
            return Vec::new();
        }
        (0..g.width())
            .filter_map(|c| Some(Move::new((c + 1).to_string(), g.play(key, c)?)))
            .collect()
    }

    fn value(&self, &key: &u64) -> Value {
        Solution::value(self, key).expect("every position reached in play is in the database")
    }

    fn render(&self, &key: &u64) -> String {
        self.game().render(key)
    }

    fn side_names(&self) -> [String; 2] {
        ["X".into(), "O".into()]
    }

    fn title(&self) -> String {
        let g = self.game();
        format!(
            "Connect-4 on {}x{}: drop a stone into a column (type its number); four in a row wins, a full board ties.",
            g.width(),
            g.height()
        )
    }
}
