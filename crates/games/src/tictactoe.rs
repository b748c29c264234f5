//! m,n,k-games: tic-tac-toe and its generalisations. X and O take turns to fill an empty
//! cell of a `rows × cols` board (X first); `k` in a row (across, down or diagonally) wins;
//! a full board without a line is a tie. Boards have at most 32 cells.
//!
//! # Rules for the tier engine
//! A position is two bitboards (bit `r × cols + c`, row 0 at the top). The tier is the
//! number of stones, so every move goes to the next tier; in tier `t` X has `ceil(t / 2)`
//! stones and O `floor(t / 2)`, and a position's number is the colex rank of X's cells times
//! the number of ways to place O, plus the rank of O's cells among the cells X left. The
//! board's symmetries (8 for a square, 4 otherwise) reduce what is solved.
//!
//! # Notation
//! Cells are a file letter and a rank number, `a1` bottom left (`b2` is the centre of 3x3;
//! past 26 files, `aa`, `ab`, …). A position is written row by row from the top, `/`
//! between rows, `x`, `o` or `.` a cell: `x.o/.x./..o` (X to move when the counts are
//! equal, else O).
//!
//! ```
//! use retrograde_games::tictactoe::TicTacToe;
//! use retrograde_tier::{solve, SolveOptions, Solved};
//! use retrograde_solve::Value;
//! let game = TicTacToe::new(3, 3, 3).unwrap();
//! let s = solve(&game, &SolveOptions::default()).unwrap();
//! assert_eq!(s.start_value().unwrap(), Some(Value::Tie(9)));
//! assert_eq!(s.stats().positions, 5478); // reachable in legal play, terminals included
//! assert_eq!(s.stats().classes, 765); // up to rotations and reflections
//! ```

use crate::about::{About, Param};
use crate::GameError;
use retrograde_graph::Primitive;
use retrograde_tier::index::{pdep, pext, Colex};
use retrograde_tier::notation::{grid_string, parse_grid};
use retrograde_tier::NotationError;
use retrograde_tier::{
    Alternate, Dense, DenseIndex, Notation, ReverseEdges, SymmetricGame, Symmetries, TierGame,
    Unscored,
};
use std::fmt::Write as _;

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "tictactoe",
    about: "tic-tac-toe and other m,n,k-games",
    help: "Tic-tac-toe and other m,n,k-games: X and O fill cells in turn, X first; k in a \
           row (across, down or diagonally) wins; a full board is a tie. Every position is \
           solved, one per symmetry class; positions counted are those reachable from the \
           empty board. Cells are a file letter and a rank number, a1 bottom left (b2 is \
           the centre of 3x3). Positions (--position) are rows from the top separated by \
           '/', each cell x, o or . (x.o/.x./..o). Boards up to 4x4 solve in seconds.",
    examples: &[
        "tictactoe",
        "tictactoe --rows 3 --cols 4 --k 3",
        "tictactoe --rows 4 --cols 4 --k 4",
    ],
    params: &[
        Param::number("rows", "Board rows.", 1, 32, "3"),
        Param::number(
            "cols",
            "Board columns (rows x cols at most 32).",
            1,
            32,
            "3",
        ),
        Param::number("k", "How many in a row win.", 1, 32, "3"),
    ],
    moves: Some("a cell, such as b2"),
    symmetry: "rotation and reflection",
};

/// An m,n,k-game.
#[derive(Clone, Debug)]
pub struct TicTacToe {
    rows: u32,
    cols: u32,
    k: u32,
    cells: u32,
    /// Every winning line as a bit mask.
    lines: Vec<u32>,
    colex: Colex,
    /// `sym[g][chunk][byte]`: where symmetry `g` sends the cells of that byte.
    sym: Vec<[[u32; 256]; 4]>,
}

/// A position: the cells of X and of O.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Board {
    /// X's cells, bit `r * cols + c` (row 0 at the top).
    pub x: u32,
    /// O's cells.
    pub o: u32,
}

impl TicTacToe {
    /// A `rows × cols` board, `k` in a row wins.
    ///
    /// # Errors
    /// When the board is empty or has more than 32 cells, or `k` is 0 or longer than both
    /// sides.
    pub fn new(rows: u32, cols: u32, k: u32) -> Result<TicTacToe, GameError> {
        let cells = u64::from(rows) * u64::from(cols);
        if rows == 0 || cols == 0 || cells > 32 {
            return Err(GameError::TicTacToeBoard { rows, cols });
        }
        if k == 0 || (k > rows && k > cols) {
            return Err(GameError::TicTacToeLine { k, rows, cols });
        }
        let cells = cells as u32;
        let mut lines = Vec::new();
        let cell = |r: i64, c: i64| (r * i64::from(cols) + c) as u32;
        for r in 0..i64::from(rows) {
            for c in 0..i64::from(cols) {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let (er, ec) = (r + dr * (i64::from(k) - 1), c + dc * (i64::from(k) - 1));
                    if er < 0 || er >= i64::from(rows) || ec < 0 || ec >= i64::from(cols) {
                        continue;
                    }
                    let mask =
                        (0..i64::from(k)).fold(0u32, |m, i| m | 1 << cell(r + dr * i, c + dc * i));
                    lines.push(mask);
                }
            }
        }
        lines.sort_unstable();
        lines.dedup();
        let mut sym = Vec::new();
        for g in 0..8u32 {
            let transpose = g & 4 != 0;
            if transpose && rows != cols {
                continue;
            }
            let to = |cell: u32| {
                let (mut r, mut c) = (cell / cols, cell % cols);
                if transpose {
                    (r, c) = (c, r);
                }
                if g & 1 != 0 {
                    r = rows - 1 - r;
                }
                if g & 2 != 0 {
                    c = cols - 1 - c;
                }
                r * cols + c
            };
            let mut t = [[0u32; 256]; 4];
            for (chunk, table) in t.iter_mut().enumerate() {
                for (byte, out) in table.iter_mut().enumerate() {
                    for bit in 0..8 {
                        let cell = chunk as u32 * 8 + bit;
                        if byte >> bit & 1 == 1 && cell < cells {
                            *out |= 1 << to(cell);
                        }
                    }
                }
            }
            sym.push(t);
        }
        Ok(TicTacToe {
            rows,
            cols,
            k,
            cells,
            lines,
            colex: Colex::new(cells),
            sym,
        })
    }

    /// (rows, cols, k).
    pub fn shape(&self) -> (u32, u32, u32) {
        (self.rows, self.cols, self.k)
    }

    fn full(&self) -> u32 {
        if self.cells == 32 {
            u32::MAX
        } else {
            (1 << self.cells) - 1
        }
    }

    fn has_line(&self, bits: u32) -> bool {
        self.lines.iter().any(|&l| l & !bits == 0)
    }

    /// Whether `b` (with the counts of a legal game, `side` to move) arises in play: the
    /// side to move has no line (the game ended when it was made), and the lines of the
    /// side that just moved all pass through one of its stones (its last move: before it,
    /// no line stood, and stones placed in any order make no line that the whole does not
    /// hold). Exact: every board that keeps these rules is reached by some game.
    ///
    /// # Errors
    /// Why the board cannot arise.
    fn arises(&self, b: &Board, side: u8) -> Result<(), String> {
        let (mover, last, names) = if side == 0 {
            (b.x, b.o, ("X", "O"))
        } else {
            (b.o, b.x, ("O", "X"))
        };
        let k = self.k;
        if self.has_line(mover) {
            return Err(format!(
                "{} has {k} in a row, yet it is {}'s turn: the game ended when {} made that line (or {} has {k} in a row too)",
                names.0, names.0, names.0, names.1
            ));
        }
        let mut made = self.lines.iter().filter(|&&l| l & !last == 0).peekable();
        if made.peek().is_some() && made.fold(u32::MAX, |c, &l| c & l) == 0 {
            return Err(format!(
                "{}'s lines of {k} share no stone: the game ended with the first of them",
                names.1
            ));
        }
        Ok(())
    }

    #[inline]
    fn transform(&self, g: usize, v: u32) -> u32 {
        let t = &self.sym[g];
        t[0][(v & 255) as usize]
            | t[1][(v >> 8 & 255) as usize]
            | t[2][(v >> 16 & 255) as usize]
            | t[3][(v >> 24) as usize]
    }

    /// A cell's name: file letter(s), then rank (`a1` bottom left).
    pub fn cell_name(&self, bit: u32) -> String {
        format!("{}{}", file(bit % self.cols), self.rows - bit / self.cols)
    }
}

/// `a`…`z`, then `aa`, `ab`… (bijective base 26).
fn file(mut c: u32) -> String {
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

impl TierGame for TicTacToe {
    type Position = Board;
    type Tier = u8;
    type Layout = Dense;
    type Parents = ReverseEdges;
    type Symmetry = Symmetries;
    type Turn = Alternate;
    type Score = Unscored;

    fn name(&self) -> String {
        format!("tictactoe {}x{} k{}", self.rows, self.cols, self.k)
    }

    fn start(&self) -> Option<Board> {
        Some(Board { x: 0, o: 0 })
    }

    fn tier(&self, b: &Board) -> u8 {
        (b.x | b.o).count_ones() as u8
    }

    fn child_tiers(&self, t: u8, out: &mut Vec<u8>) {
        if u32::from(t) < self.cells {
            out.push(t + 1);
        }
    }

    fn tier_name(&self, t: u8) -> String {
        format!("{t:02}")
    }

    fn primitive(&self, b: &Board) -> Option<Primitive> {
        // The player who just moved made a line: the player to move has lost.
        let x_to_move = b.x.count_ones() == b.o.count_ones();
        let last = if x_to_move { b.o } else { b.x };
        if self.has_line(last) {
            return Some(Primitive::Loss);
        }
        ((b.x | b.o).count_ones() == self.cells).then_some(Primitive::Tie)
    }

    fn moves(&self, b: &Board, out: &mut Vec<Board>) {
        let x_to_move = b.x.count_ones() == b.o.count_ones();
        let mut empty = self.full() & !(b.x | b.o);
        while empty != 0 {
            let bit = empty & empty.wrapping_neg();
            empty ^= bit;
            out.push(if x_to_move {
                Board {
                    x: b.x | bit,
                    o: b.o,
                }
            } else {
                Board {
                    x: b.x,
                    o: b.o | bit,
                }
            });
        }
    }

    fn remoteness_bound(&self) -> Option<u32> {
        Some(self.cells)
    }
    /// Every move adds a stone: it leaves its tier.
    fn moves_inside_bound(&self) -> Option<u64> {
        Some(0)
    }
}

impl DenseIndex for TicTacToe {
    fn tier_size(&self, t: u8) -> u64 {
        let t = u32::from(t);
        let (nx, no) = (t.div_ceil(2), t / 2);
        self.colex
            .binom(self.cells, nx)
            .saturating_mul(self.colex.binom(self.cells - nx, no))
    }

    fn rank(&self, b: &Board) -> u64 {
        let nx = b.x.count_ones();
        let no = b.o.count_ones();
        let free = u64::from(self.full() & !b.x);
        let o = pext(u64::from(b.o), free);
        self.colex.rank(u64::from(b.x)) * self.colex.binom(self.cells - nx, no) + self.colex.rank(o)
    }

    fn unrank(&self, t: u8, i: u64) -> Option<Board> {
        let t = u32::from(t);
        let (nx, no) = (t.div_ceil(2), t / 2);
        let per = self.colex.binom(self.cells - nx, no);
        let x = self.colex.unrank(i / per, nx) as u32;
        let free = u64::from(self.full() & !x);
        let o = pdep(self.colex.unrank(i % per, no), free) as u32;
        Some(Board { x, o })
    }
}

impl SymmetricGame for TicTacToe {
    fn symmetry_count(&self) -> usize {
        self.sym.len()
    }

    fn apply_symmetry(&self, b: &Board, g: usize) -> Board {
        Board {
            x: self.transform(g, b.x),
            o: self.transform(g, b.o),
        }
    }
}

impl Notation for TicTacToe {
    fn title(&self) -> String {
        let (rows, cols, k) = self.shape();
        let name = if (rows, cols, k) == (3, 3, 3) {
            "Tic-tac-toe".to_string()
        } else {
            format!("The {rows},{cols},{k}-game")
        };
        format!(
            "{name}: X and O take turns to fill a cell of the {rows}x{cols} board, X first;\n\
             {k} in a row (across, down or diagonally) wins; a full board is a tie.\n\
             Cells are named file letter then rank number: a1 is bottom left."
        )
    }

    fn named_moves(&self, b: &Board, _side: u8, out: &mut Vec<(String, Board)>) {
        if self.primitive(b).is_some() {
            return;
        }
        let mut next = Vec::new();
        self.moves(b, &mut next);
        for n in next {
            let bit = ((n.x | n.o) & !(b.x | b.o)).trailing_zeros();
            out.push((self.cell_name(bit), n));
        }
    }

    fn render(&self, b: &Board, _side: u8) -> String {
        let (rows, cols) = (self.rows, self.cols);
        let width = file(cols - 1).len();
        let margin = rows.to_string().len();
        let mut s = String::new();
        for r in 0..rows {
            let _ = write!(s, "{:>margin$} ", rows - r);
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
        let _ = write!(s, "{:margin$} ", "");
        for c in 0..cols {
            let _ = write!(s, " {:>width$}", file(c));
        }
        s.push('\n');
        s
    }

    fn position_string(&self, b: &Board, _side: u8) -> String {
        grid_string(u64::from(b.x), u64::from(b.o), self.rows, self.cols)
    }

    fn parse_position(&self, text: &str) -> Result<(Board, u8), NotationError> {
        let (x, o) = parse_grid(text, self.rows, self.cols)?;
        let b = Board {
            x: x as u32,
            o: o as u32,
        };
        let (nx, no) = (b.x.count_ones(), b.o.count_ones());
        if nx != no && nx != no + 1 {
            return Err(format!(
                "X has {nx} stones and O {no}: X moves first, so X has as many as O or one more"
            )
            .into());
        }
        let side = u8::from(nx != no);
        self.arises(&b, side)?;
        Ok((b, side))
    }

    fn position_help(&self) -> String {
        format!(
            "{} rows of {} cells from the top, separated by '/', each x, o or . (e.g. {})",
            self.rows,
            self.cols,
            self.position_string(&Board { x: 1, o: 0 }, 1)
        )
    }

    fn side_names(&self) -> [String; 2] {
        ["X".into(), "O".into()]
    }

    fn winning_cells(&self, b: &Board, _side: u8) -> Vec<(u32, u32)> {
        let cells = [b.x, b.o].iter().fold(0u32, |acc, &bits| {
            self.lines
                .iter()
                .filter(|&&l| l & !bits == 0)
                .fold(acc, |a, &l| a | l)
        });
        (0..self.cells)
            .filter(|i| cells >> i & 1 != 0)
            .map(|i| (i / self.cols, i % self.cols))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_tier::{check_game, replay};

    #[test]
    fn exactly_the_boards_that_arise_are_positions() {
        // Every board of 3x3 with its counts' side to move: parse_position accepts exactly
        // the 5478 that play from the empty board reaches (568 others keep the counts).
        let g = TicTacToe::new(3, 3, 3).unwrap();
        let mut reached = std::collections::HashSet::new();
        let mut todo = vec![Board { x: 0, o: 0 }];
        let mut moves = Vec::new();
        while let Some(b) = todo.pop() {
            if reached.insert(b) && g.primitive(&b).is_none() {
                moves.clear();
                g.moves(&b, &mut moves);
                todo.extend(moves.iter().copied());
            }
        }
        assert_eq!(reached.len(), 5478);
        let (mut accepted, mut counts_fit) = (0, 0);
        for (x, o) in retrograde_tier::notation::every_board(9) {
            let (x, o) = (x as u32, o as u32);
            let b = Board { x, o };
            let text = g.position_string(&b, 0);
            let (nx, no) = (x.count_ones(), o.count_ones());
            counts_fit += usize::from(nx == no || nx == no + 1);
            match g.parse_position(&text) {
                Ok((p, _)) => {
                    assert!(reached.contains(&p), "{text} accepted");
                    accepted += 1;
                }
                Err(e) => assert!(!reached.contains(&b), "{text} refused: {e}"),
            }
        }
        assert_eq!((accepted, counts_fit - accepted), (5478, 568));
        let e = g.parse_position("xxx/oo./o..").unwrap_err();
        assert!(
            e.to_string()
                .contains("X has 3 in a row, yet it is X's turn"),
            "{e}"
        );
        let e = g.parse_position("xxx/ooo/x..").unwrap_err();
        assert!(e.to_string().contains("O has 3 in a row"), "{e}");
        // Two lines of the last mover without a common stone: on a wider board.
        let wide = TicTacToe::new(2, 7, 3).unwrap();
        let e = wide.parse_position("xxx.xxx/oo.oo.o").unwrap_err();
        assert!(
            e.to_string().contains("X's lines of 3 share no stone"),
            "{e}"
        );
    }

    #[test]
    fn names_and_pictures() {
        assert_eq!(file(0), "a");
        assert_eq!(file(25), "z");
        assert_eq!(file(26), "aa");
        assert_eq!(file(27), "ab");
        let g = TicTacToe::new(3, 3, 3).unwrap();
        assert_eq!(g.cell_name(6), "a1");
        assert_eq!(g.cell_name(4), "b2");
        assert_eq!(g.cell_name(2), "c3");
        let (b, side) = replay(&g, &["b2", "a1", "c3"]).unwrap();
        assert_eq!(side, 1);
        assert_eq!(g.position_string(&b, side), "..x/.x./o..");
        assert_eq!(g.parse_position("..x/.x./o..").unwrap(), (b, 1));
        assert_eq!(g.render(&b, 1), "3  . . X\n2  . X .\n1  O . .\n   a b c\n");
        assert!(g.parse_position("xx./.../...").is_err());
        assert!(g.parse_position("x../...").is_err());
        assert!(g
            .parse_position("x?./.../...")
            .unwrap_err()
            .to_string()
            .contains("'?'"));
        let e = replay(&g, &["b2", "b2"]).unwrap_err();
        assert!(
            e.to_string().contains("move 2") && e.to_string().contains("legal moves"),
            "{e}"
        );
        let wide = TicTacToe::new(1, 28, 3).unwrap();
        let p = wide.render(&Board { x: 1, o: 1 << 27 }, 0);
        assert!(p.starts_with("1   X  .  ."), "{p:?}");
        assert!(p.ends_with(" aa ab\n"), "{p:?}");
    }

    #[test]
    fn keeps_the_api_promises() {
        for (r, c, k) in [(3, 3, 3), (2, 3, 2), (3, 4, 3), (1, 5, 2)] {
            check_game(&TicTacToe::new(r, c, k).unwrap(), 3000).unwrap();
        }
    }

    #[test]
    fn too_big_is_refused() {
        assert!(TicTacToe::new(65536, 65536, 3).is_err());
        assert!(TicTacToe::new(5, 7, 3).is_err());
    }
}
