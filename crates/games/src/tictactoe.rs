//! m,n,k-games: tic-tac-toe and its generalisations. X and O take turns to fill an empty
//! cell of an `rows × cols` board (X first); `k` in a row (horizontally, vertically or
//! diagonally) wins; a full board without a line is a tie.
//!
//! Positions are two bitboards (no heap allocation per position); boards of up to 12 cells
//! use the dense base-3 index (3^cells entries), bigger ones a hash map of reached positions
//! (the explorer sizes its graph by the index space, which outgrows the reachable positions
//! fast: 3^16 = 43M indices for 4x4).
//! Boards have at most 32 cells.
//!
//! ```
//! use retrograde_games::tictactoe::TicTacToe;
//! use retrograde_solve::Value;
//! let game = TicTacToe::new(3, 3, 3).unwrap();
//! let s = game.solve().unwrap();
//! assert_eq!(s.start_value(), Value::Tie(9));
//! assert_eq!(s.stats().positions, 5478); // reachable in legal play, terminals included
//! ```

use crate::{solve_game, ExploreError, Game, GameSolution};
use retrograde_graph::Primitive;
use retrograde_solve::Rules;

/// An m,n,k-game.
#[derive(Clone, Debug)]
pub struct TicTacToe {
    rows: u32,
    cols: u32,
    k: u32,
    /// Every winning line as a bit mask.
    lines: Vec<u32>,
}

/// A position: the cells of X and of O.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    /// X's cells, bit `r * cols + c`.
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
    pub fn new(rows: u32, cols: u32, k: u32) -> Result<TicTacToe, String> {
        if rows == 0 || cols == 0 || rows * cols > 32 {
            return Err(format!(
                "a {rows}x{cols} board is not supported (1 to 32 cells)"
            ));
        }
        if k == 0 || (k > rows && k > cols) {
            return Err(format!("k = {k} cannot fit a {rows}x{cols} board"));
        }
        let mut lines = Vec::new();
        let cell = |r: i64, c: i64| (r * cols as i64 + c) as u32;
        for r in 0..rows as i64 {
            for c in 0..cols as i64 {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let (er, ec) = (r + dr * (k as i64 - 1), c + dc * (k as i64 - 1));
                    if er < 0 || er >= rows as i64 || ec < 0 || ec >= cols as i64 {
                        continue;
                    }
                    let mask =
                        (0..k as i64).fold(0u32, |m, i| m | 1 << cell(r + dr * i, c + dc * i));
                    lines.push(mask);
                }
            }
        }
        lines.sort_unstable();
        lines.dedup();
        Ok(TicTacToe {
            rows,
            cols,
            k,
            lines,
        })
    }

    /// (rows, cols, k).
    pub fn shape(&self) -> (u32, u32, u32) {
        (self.rows, self.cols, self.k)
    }

    fn cells(&self) -> u32 {
        self.rows * self.cols
    }

    /// The board's symmetries as cell permutations: 8 for a square board, 4 otherwise.
    fn symmetries(&self) -> Vec<Vec<u32>> {
        let (rows, cols) = (self.rows, self.cols);
        let mut out = Vec::new();
        for g in 0..8u32 {
            let transpose = g & 4 != 0;
            if transpose && rows != cols {
                continue;
            }
            out.push(
                (0..self.cells())
                    .map(|cell| {
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
                    })
                    .collect(),
            );
        }
        out
    }

    fn has_line(&self, bits: u32) -> bool {
        // A line is made when none of its cells is missing from `bits`.
        self.lines.iter().any(|&l| l & !bits == 0)
    }

    /// Solves every reachable position.
    ///
    /// # Errors
    /// As [`solve_game`].
    pub fn solve(&self) -> Result<GameSolution<'_, TicTacToe>, ExploreError> {
        solve_game(self, &Rules::default())
    }
}

impl Game for TicTacToe {
    type Position = Board;

    fn start(&self) -> Board {
        Board { x: 0, o: 0 }
    }

    fn moves(&self, b: &Board, out: &mut Vec<Board>) {
        let x_to_move = b.x.count_ones() == b.o.count_ones();
        let full = if self.cells() == 32 {
            u32::MAX
        } else {
            (1u32 << self.cells()) - 1
        };
        let mut empty = full & !(b.x | b.o);
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

    fn primitive(&self, b: &Board) -> Option<Primitive> {
        // The player who just moved made a line: the player to move has lost.
        let x_to_move = b.x.count_ones() == b.o.count_ones();
        let last = if x_to_move { b.o } else { b.x };
        if self.has_line(last) {
            return Some(Primitive::Loss);
        }
        ((b.x | b.o).count_ones() == self.cells()).then_some(Primitive::Tie)
    }

    fn index_size(&self) -> Option<u64> {
        (self.cells() <= 12).then(|| 3u64.pow(self.cells()))
    }

    fn index(&self, b: &Board) -> u64 {
        (0..self.cells()).rev().fold(0u64, |i, c| {
            i * 3 + ((b.x >> c) & 1) as u64 + 2 * ((b.o >> c) & 1) as u64
        })
    }

    fn position(&self, mut index: u64) -> Option<Board> {
        if index >= self.index_size()? {
            return None;
        }
        let mut b = Board { x: 0, o: 0 };
        for c in 0..self.cells() {
            match index % 3 {
                1 => b.x |= 1 << c,
                2 => b.o |= 1 << c,
                _ => {}
            }
            index /= 3;
        }
        let (nx, no) = (b.x.count_ones(), b.o.count_ones());
        (nx == no || nx == no + 1).then_some(b)
    }

    fn unmoves(&self, b: &Board, out: &mut Vec<Board>) -> bool {
        // Take back a stone of the player who just moved.
        let o_moved_last = b.x.count_ones() == b.o.count_ones();
        let mut last = if o_moved_last { b.o } else { b.x };
        while last != 0 {
            let bit = last & last.wrapping_neg();
            last ^= bit;
            out.push(if o_moved_last {
                Board {
                    x: b.x,
                    o: b.o ^ bit,
                }
            } else {
                Board {
                    x: b.x ^ bit,
                    o: b.o,
                }
            });
        }
        true
    }

    fn canonical(&self, b: &Board) -> Board {
        self.symmetries()
            .iter()
            .map(|perm| {
                let map = |bits: u32| {
                    (0..self.cells()).fold(0u32, |m, c| m | ((bits >> c) & 1) << perm[c as usize])
                };
                Board {
                    x: map(b.x),
                    o: map(b.o),
                }
            })
            .min_by_key(|t| (t.x, t.o))
            .expect("the identity is a symmetry")
    }
}
