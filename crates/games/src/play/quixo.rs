//! Playing Quixo: a move is the cube taken and where it is pushed back in, as two cell
//! names, `a1 a4` (columns a, b, … left to right, rows 1, 2, … bottom to top).

use super::{Move, Playable};
use crate::quixo::Solution;
use retrograde_solve::Value;

/// A position: the state seen by the player to move (`x` = their cubes) and who that is
/// (0 = X, the first player; 1 = O).
pub type QuixoPosition = (u32, u32, u8);

impl Playable for Solution<'_> {
    type Position = QuixoPosition;

    fn start(&self) -> QuixoPosition {
        (0, 0, 0)
    }

    fn moves(&self, &(x, o, side): &QuixoPosition) -> Vec<Move<QuixoPosition>> {
        let q = self.game();
        q.moves(x, o)
            .into_iter()
            .map(|(s, e, (cx, co))| {
                let (from, to) = (q.cell_name(s), q.cell_name(e));
                Move::new(format!("{from} {to}"), (cx, co, 1 - side))
                    .alias(format!("{from}{to}"))
                    .alias(format!("{from}-{to}"))
            })
            .collect()
    }

    fn value(&self, &(x, o, _): &QuixoPosition) -> Value {
        Solution::value(self, x, o).expect("every state is solved")
    }

    fn render(&self, &(x, o, side): &QuixoPosition) -> String {
        // X's cubes are the mover's when X is to move.
        let (xs, os) = if side == 0 { (x, o) } else { (o, x) };
        self.game().render(xs, os)
    }

    fn side_names(&self) -> [String; 2] {
        ["X".into(), "O".into()]
    }

    fn title(&self) -> String {
        let n = self.game().size();
        format!(
            "Quixo {n}x{n}: take a blank cube or one of yours from the border and push it back in at an end of its row or column (type the two cells, e.g. a1 a{n}); a line of yours wins, making one of the opponent's loses."
        )
    }
}
