//! Playing tic-tac-toe (m,n,k-games): cells are named like a spreadsheet, columns `a`, `b`,
//! `c`… left to right and rows `1`, `2`, `3`… top to bottom, so `b2` is the centre of 3x3.

use super::{Move, Playable};
use crate::tictactoe::{Board, TicTacToe};
use crate::{Game, GameSolution};
use retrograde_solve::Value;
use std::fmt::Write as _;

/// `a`…`z`, then `aa`, `ab`… (bijective base 26).
fn column(mut c: u32) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (c % 26) as u8);
        if c < 26 {
            break;
        }
        c = c / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).expect("ASCII letters")
}

fn cell(cols: u32, bit: u32) -> String {
    format!("{}{}", column(bit % cols), bit / cols + 1)
}

/// The board with column letters on top and row numbers on the left.
fn picture(rows: u32, cols: u32, b: &Board) -> String {
    let width = column(cols - 1).len();
    let margin = rows.to_string().len();
    let mut s = format!("{:margin$} ", "");
    for c in 0..cols {
        let _ = write!(s, " {:>width$}", column(c));
    }
    s.push('\n');
    for r in 0..rows {
        let _ = write!(s, "{:>margin$} ", r + 1);
        for c in 0..cols {
            let bit = 1u32 << (r * cols + c);
            let mark = if b.x & bit != 0 {
                'X'
            } else if b.o & bit != 0 {
                'O'
            } else {
                '.'
            };
            let _ = write!(s, " {mark:>width$}");
        }
        s.push('\n');
    }
    s
}

impl Playable for GameSolution<'_, TicTacToe> {
    type Position = Board;

    fn start(&self) -> Board {
        Game::start(self.game())
    }

    fn moves(&self, b: &Board) -> Vec<Move<Board>> {
        let game = self.game();
        if game.primitive(b).is_some() {
            return Vec::new();
        }
        let (_, cols, _) = game.shape();
        let mut next = Vec::new();
        game.moves(b, &mut next);
        next.into_iter()
            .map(|n| {
                let bit = ((n.x | n.o) & !(b.x | b.o)).trailing_zeros();
                Move::new(cell(cols, bit), n)
            })
            .collect()
    }

    fn value(&self, b: &Board) -> Value {
        GameSolution::value(self, b).expect("every board reached in play was solved")
    }

    fn render(&self, b: &Board) -> String {
        let (rows, cols, _) = self.game().shape();
        picture(rows, cols, b)
    }

    fn side_names(&self) -> [String; 2] {
        ["X".into(), "O".into()]
    }

    fn title(&self) -> String {
        let (rows, cols, k) = self.game().shape();
        let name = if (rows, cols, k) == (3, 3, 3) {
            "Tic-tac-toe".to_string()
        } else {
            format!("The {rows},{cols},{k}-game")
        };
        format!(
            "{name}: X and O take turns to fill a cell of the {rows}x{cols} board, X first;\n\
             {k} in a row (across, down or diagonally) wins; a full board is a tie.\n\
             Cells are named column letter then row number: a1 is top left."
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_names() {
        assert_eq!(column(0), "a");
        assert_eq!(column(25), "z");
        assert_eq!(column(26), "aa");
        assert_eq!(column(27), "ab");
        assert_eq!(cell(3, 4), "b2");
        assert_eq!(cell(3, 8), "c3");
    }

    #[test]
    fn wide_boards_stay_aligned() {
        let p = picture(1, 28, &Board { x: 1, o: 1 << 27 });
        assert!(p.starts_with("    a  b"), "{p:?}");
        assert!(p.ends_with(" aa ab\n1   X  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  O\n"), "{p:?}");
        let p = picture(10, 3, &Board { x: 0, o: 0 });
        assert!(p.starts_with("    a b c\n 1  . . .\n"), "{p:?}");
        assert!(p.ends_with("10  . . .\n"), "{p:?}");
    }
}
