//! Dots and Boxes on a board of `rows x cols` boxes, solved with scores: the value of a
//! position is the net number of boxes the player to move will take from here on.
//!
//! A move draws one line between two adjacent dots. Drawing the fourth side of one or two
//! boxes takes them, and the same player moves again. The game ends when every line is
//! drawn. A position is the set of drawn lines (the boxes taken so far are not part of it:
//! values count the boxes still to take), its tier the number of lines drawn, so every move
//! leaves its tier: its reward is the boxes it completes, and it keeps the turn when that is
//! more than 0. The positions of a tier are numbered by the colex rank of their line set.
//!
//! # Notation
//! Dots are named like the cells of a chess board: files `a`, `b`, … from the left, ranks
//! `1`, `2`, … from the bottom (a board of `rows x cols` boxes has `cols + 1` files and
//! `rows + 1` ranks). A line is its two dots, the lower-left one first: `a1-b1` (across),
//! `a1-a2` (up); either order is read. A position (`--position`) is the drawn lines
//! separated by commas (`.` for none), then the side to move, `x` (the first player) or
//! `o`: `a1-b1,a1-a2 o`.
//!
//! ```
//! use retrograde_games::dots::DotsAndBoxes;
//! use retrograde_tier::{solve_scored, SolveOptions};
//! let g = DotsAndBoxes::new(1, 1).unwrap();
//! let s = solve_scored(&g, &SolveOptions::default()).unwrap();
//! // On one box, whoever draws the third line gives it away: the first player loses it.
//! assert_eq!(s.start_value().unwrap().unwrap().to_string(), "loss by 1 in 4");
//! ```

use crate::about::{About, Param};
use crate::GameError;
use retrograde_graph::Primitive;
use retrograde_tier::index::Colex;
use retrograde_tier::notation::listed;
use retrograde_tier::NotationError;
use retrograde_tier::{
    Dense, DenseIndex, GoAgain, GoAgainGame, Notation, ReverseEdges, ScoredGame, Scores,
    SymmetricGame, Symmetries, TierGame,
};

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "dots-and-boxes",
    about: "Dots and Boxes: who takes more boxes, and by how many",
    help: "Dots and Boxes on a board of R x C boxes: the players draw a line between two \
           adjacent dots in turn; whoever draws the fourth side of a box (or of two) takes \
           it and moves again. The game ends when every line is drawn. Values are scores: \
           the net number of boxes the player to move takes from there on (win by 3 in 11: \
           three boxes more than the opponent, the last line 11 plies away). A line is its \
           two dots, files a.. from the left and ranks 1.. from the bottom: a1-b1 (across), \
           a1-a2 (up). A position (--position) is the drawn lines separated by commas ('.' \
           for none), then the side to move: a1-b1,a1-a2 o. Every set of lines is solved, \
           in memory (4 bytes each), one a symmetry class: 3x3 (24 lines, 16.8M positions) \
           in 2 s and 78 MiB; \
           2x5 (27 lines) 512 MiB; boards of 31 lines or more take gigabytes.",
    examples: &[
        "dots-and-boxes --rows 2 --cols 2",
        "dots-and-boxes --rows 3 --cols 3 --output json",
        "dots-and-boxes --rows 2 --cols 2 --query a1-b1,b1-c1",
    ],
    params: &[
        Param::number("rows", "Rows of boxes.", 1, 64, "2"),
        Param::number("cols", "Columns of boxes.", 1, 64, "2"),
    ],
    moves: Some("a line between two adjacent dots, such as a1-b1"),
    symmetry: "rotation and reflection",
};

pub use crate::limits::MAX_LINES;

/// Dots and Boxes on `rows x cols` boxes.
#[derive(Clone, Debug)]
pub struct DotsAndBoxes {
    rows: u32,
    cols: u32,
    lines: u32,
    colex: Colex,
    /// The four lines of each box.
    boxes: Vec<u64>,
    /// The boxes each line is a side of (one or two).
    sides: Vec<Vec<u64>>,
    /// The board's symmetries (4, or 8 on a square board) as byte tables:
    /// `sym[g][b][x]` is the image of the lines `x << 8b`.
    sym: Vec<Vec<[u64; 256]>>,
}

impl DotsAndBoxes {
    /// A board of `rows x cols` boxes.
    ///
    /// # Errors
    /// No box, or more than [`MAX_LINES`] lines.
    pub fn new(rows: u32, cols: u32) -> Result<DotsAndBoxes, GameError> {
        if rows == 0 || cols == 0 {
            return Err(GameError::DotsNoBox { rows, cols });
        }
        let lines = u64::from(rows + 1) * u64::from(cols) + u64::from(rows) * u64::from(cols + 1);
        if lines > u64::from(MAX_LINES) {
            return Err(GameError::DotsLines { rows, cols, lines });
        }
        let lines = lines as u32;
        let mut g = DotsAndBoxes {
            rows,
            cols,
            lines,
            colex: Colex::new(lines),
            boxes: Vec::new(),
            sides: vec![Vec::new(); lines as usize],
            sym: Vec::new(),
        };
        for r in 0..rows {
            for c in 0..cols {
                let b = 1 << g.across(r, c)
                    | 1 << g.across(r + 1, c)
                    | 1 << g.up(r, c)
                    | 1 << g.up(r, c + 1);
                g.boxes.push(b);
                for l in 0..lines {
                    if b >> l & 1 == 1 {
                        g.sides[l as usize].push(b);
                    }
                }
            }
        }
        g.sym = g.symmetry_tables();
        Ok(g)
    }

    /// The byte tables of the board's symmetries: maps of the dots (rank, file) that keep
    /// the board, each taking a line to the line between its dots' images.
    fn symmetry_tables(&self) -> Vec<Vec<[u64; 256]>> {
        let (rr, cc) = (self.rows, self.cols);
        // (transpose, then flip the ranks, then flip the files): the transpose only on a
        // square board.
        let transposes: &[bool] = if rr == cc { &[false, true] } else { &[false] };
        let maps: Vec<(bool, bool, bool)> = transposes
            .iter()
            .flat_map(|&t| {
                [
                    (t, false, false),
                    (t, true, false),
                    (t, false, true),
                    (t, true, true),
                ]
            })
            .collect();
        let apply = |(t, fr, fc): (bool, bool, bool), (r, c): (u32, u32)| {
            let (r, c) = if t { (c, r) } else { (r, c) };
            (if fr { rr - r } else { r }, if fc { cc - c } else { c })
        };
        let line_of = |a: (u32, u32), b: (u32, u32)| {
            (0..self.lines)
                .find(|&l| {
                    let (x, y) = self.ends(l);
                    (x, y) == (a, b) || (x, y) == (b, a)
                })
                .expect("a symmetry maps a line to a line")
        };
        let bytes = self.lines.div_ceil(8) as usize;
        maps.iter()
            .map(|&m| {
                let perm: Vec<u32> = (0..self.lines)
                    .map(|l| {
                        let (a, b) = self.ends(l);
                        line_of(apply(m, a), apply(m, b))
                    })
                    .collect();
                (0..bytes)
                    .map(|b| {
                        let mut t = [0u64; 256];
                        for (x, image) in t.iter_mut().enumerate() {
                            for bit in 0..8 {
                                let l = 8 * b + bit;
                                if x >> bit & 1 == 1 && l < self.lines as usize {
                                    *image |= 1 << perm[l];
                                }
                            }
                        }
                        t
                    })
                    .collect()
            })
            .collect()
    }

    /// Rows of boxes.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Columns of boxes.
    pub fn cols(&self) -> u32 {
        self.cols
    }

    /// Lines on the board.
    pub fn lines(&self) -> u32 {
        self.lines
    }

    /// The line across from dot (rank `r`, file `c`) to (`r`, `c + 1`), ranks from 0 at the
    /// bottom.
    fn across(&self, r: u32, c: u32) -> u32 {
        r * self.cols + c
    }

    /// The line up from dot (`r`, `c`) to (`r + 1`, `c`).
    fn up(&self, r: u32, c: u32) -> u32 {
        (self.rows + 1) * self.cols + r * (self.cols + 1) + c
    }

    /// The two dots of line `l`: ((rank, file), (rank, file)), the lower-left first.
    fn ends(&self, l: u32) -> ((u32, u32), (u32, u32)) {
        let h = (self.rows + 1) * self.cols;
        if l < h {
            let (r, c) = (l / self.cols, l % self.cols);
            ((r, c), (r, c + 1))
        } else {
            let (r, c) = ((l - h) / (self.cols + 1), (l - h) % (self.cols + 1));
            ((r, c), (r + 1, c))
        }
    }

    fn dot_name((r, c): (u32, u32)) -> String {
        format!("{}{}", (b'a' + c as u8) as char, r + 1)
    }

    /// The name of line `l`: `a1-b1`.
    pub fn line_name(&self, l: u32) -> String {
        let (a, b) = self.ends(l);
        format!("{}-{}", Self::dot_name(a), Self::dot_name(b))
    }

    /// The line named `text` (either dot first).
    fn parse_line(&self, text: &str) -> Option<u32> {
        let t = text.trim().to_ascii_lowercase();
        let (a, b) = t.split_once('-')?;
        (0..self.lines).find(|&l| {
            let (x, y) = self.ends(l);
            let (x, y) = (Self::dot_name(x), Self::dot_name(y));
            (x == a.trim() && y == b.trim()) || (x == b.trim() && y == a.trim())
        })
    }

    /// The boxes drawing line `l` completes on `p` (0, 1 or 2).
    #[inline]
    pub fn completes(&self, p: u64, l: u32) -> u32 {
        let q = p | 1 << l;
        self.sides[l as usize]
            .iter()
            .filter(|&&b| q & b == b)
            .count() as u32
    }

    /// The boxes completed on `p`.
    pub fn boxes_done(&self, p: u64) -> u32 {
        self.boxes.iter().filter(|&&b| p & b == b).count() as u32
    }
}

impl TierGame for DotsAndBoxes {
    type Position = u64;
    type Tier = u32;
    type Layout = Dense;
    type Parents = ReverseEdges;
    type Symmetry = Symmetries;
    type Turn = GoAgain;
    type Score = Scores;

    fn name(&self) -> String {
        format!("dots-and-boxes {}x{}", self.rows, self.cols)
    }
    fn start(&self) -> Option<u64> {
        Some(0)
    }
    fn tier(&self, p: &u64) -> u32 {
        p.count_ones()
    }
    fn child_tiers(&self, t: u32, out: &mut Vec<u32>) {
        if t < self.lines {
            out.push(t + 1);
        }
    }
    fn tier_name(&self, t: u32) -> String {
        format!("{t:02}")
    }
    fn primitive(&self, _: &u64) -> Option<Primitive> {
        None
    }
    fn moves(&self, p: &u64, out: &mut Vec<u64>) {
        let mut free = !*p & ((1u64 << self.lines) - 1);
        while free != 0 {
            let b = free & free.wrapping_neg();
            out.push(p | b);
            free ^= b;
        }
    }
    fn remoteness_bound(&self) -> Option<u32> {
        Some(self.lines)
    }
    /// Every move draws a line: it leaves its tier.
    fn moves_inside_bound(&self) -> Option<u64> {
        Some(0)
    }
}

impl DenseIndex for DotsAndBoxes {
    fn tier_size(&self, t: u32) -> u64 {
        self.colex.binom(self.lines, t)
    }
    fn rank(&self, p: &u64) -> u64 {
        self.colex.rank(*p)
    }
    fn unrank(&self, t: u32, i: u64) -> Option<u64> {
        Some(self.colex.unrank(i, t))
    }
}

impl SymmetricGame for DotsAndBoxes {
    fn symmetry_count(&self) -> usize {
        self.sym.len()
    }
    #[inline]
    fn apply_symmetry(&self, p: &u64, g: usize) -> u64 {
        self.sym[g]
            .iter()
            .enumerate()
            .fold(0, |acc, (b, t)| acc | t[(p >> (8 * b) & 0xFF) as usize])
    }
}

impl GoAgainGame for DotsAndBoxes {
    fn keeps_turn(&self, from: &u64, to: &u64) -> bool {
        self.reward(from, to) > 0
    }
}

impl ScoredGame for DotsAndBoxes {
    fn score_range(&self) -> (i64, i64) {
        let b = i64::from(self.rows * self.cols);
        (-b, b)
    }
    fn terminal_score(&self, _: &u64) -> i64 {
        0
    }
    fn reward(&self, from: &u64, to: &u64) -> i64 {
        let added = to & !from;
        if added.count_ones() != 1 {
            return 0;
        }
        i64::from(self.completes(*from, added.trailing_zeros()))
    }
}

impl Notation for DotsAndBoxes {
    fn named_moves(&self, p: &u64, _side: u8, out: &mut Vec<(String, u64)>) {
        let mut moves = Vec::new();
        self.moves(p, &mut moves);
        out.extend(
            moves
                .into_iter()
                .map(|q| (self.line_name((q & !p).trailing_zeros()), q)),
        );
    }

    fn render(&self, p: &u64, _side: u8) -> String {
        let mut s = String::new();
        for r in (0..=self.rows).rev() {
            s.push_str(&format!("{:>2} ", r + 1));
            for c in 0..=self.cols {
                s.push('+');
                if c < self.cols {
                    s.push_str(if p >> self.across(r, c) & 1 == 1 {
                        "---"
                    } else {
                        "   "
                    });
                }
            }
            s.push('\n');
            if r > 0 {
                s.push_str("   ");
                for c in 0..=self.cols {
                    s.push(if p >> self.up(r - 1, c) & 1 == 1 {
                        '|'
                    } else {
                        ' '
                    });
                    if c < self.cols {
                        s.push_str("   ");
                    }
                }
                s.push('\n');
            }
        }
        s.push_str("   ");
        for c in 0..=self.cols {
            s.push((b'a' + c as u8) as char);
            if c < self.cols {
                s.push_str("   ");
            }
        }
        s.push('\n');
        s
    }

    fn position_string(&self, p: &u64, side: u8) -> String {
        let lines: Vec<String> = (0..self.lines)
            .filter(|&l| p >> l & 1 == 1)
            .map(|l| self.line_name(l))
            .collect();
        let lines = if lines.is_empty() {
            ".".to_string()
        } else {
            lines.join(",")
        };
        format!("{lines} {}", if side == 0 { 'x' } else { 'o' })
    }

    fn parse_position(&self, text: &str) -> Result<(u64, u8), NotationError> {
        let (lines, side) = retrograde_tier::notation::split_side(text)?;
        let mut p = 0u64;
        if lines != "." {
            for name in lines.split(',') {
                let l = self
                    .parse_line(name)
                    .ok_or_else(|| format!("{name:?} is not a line of this board"))?;
                if p >> l & 1 == 1 {
                    return Err(format!("line {} is drawn twice", self.line_name(l)).into());
                }
                p |= 1 << l;
            }
        }
        Ok((p, side))
    }

    fn position_help(&self) -> String {
        "the drawn lines, each two adjacent dots such as a1-b1 (files a.. from the left, \
         ranks 1.. from the bottom), separated by commas ('.' for none), then the side to move, \
         x or o: a1-b1,a1-a2 o"
            .into()
    }

    fn title(&self) -> String {
        format!(
            "Dots and Boxes, {}x{} boxes: draw a line between two adjacent dots; close a box \
             to take it and move again. Values count the boxes still to take.",
            self.rows, self.cols
        )
    }

    fn parse_move(&self, p: &u64, _side: u8, text: &str) -> Result<u64, NotationError> {
        let want = text.trim();
        let mut moves = Vec::new();
        self.named_moves(p, 0, &mut moves);
        if moves.is_empty() {
            return Err(NotationError::Over(want.into()));
        }
        let why = match self.parse_line(want) {
            Some(l) if p >> l & 1 == 0 => return Ok(p | 1 << l),
            Some(l) => format!("line {} is already drawn", self.line_name(l)),
            None => format!(
                "{want:?} is not a line of this board; legal moves: {}",
                listed(moves.iter().map(|(n, _)| n.as_str()), " ")
            ),
        };
        Err(NotationError::Refused {
            text: want.into(),
            why,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_solve::Scored;
    use retrograde_tier::{check_scored, solve_scored, SolveOptions};
    use std::collections::HashMap;

    /// A plain memoised minimax over the explicit game, written without the tier engine:
    /// the net boxes the player to move takes from `p`, and the plies to the end under
    /// `Scored`'s preference (the game always ends: every move draws a line).
    fn minimax(g: &DotsAndBoxes, p: u64, memo: &mut HashMap<u64, Scored>) -> Scored {
        // Lines drawn only grow, so an explicit stack visits children before parents.
        let mut stack = vec![(p, false)];
        while let Some((q, expanded)) = stack.pop() {
            if memo.contains_key(&q) {
                continue;
            }
            let free: Vec<u32> = (0..g.lines).filter(|&l| q >> l & 1 == 0).collect();
            if free.is_empty() {
                memo.insert(q, Scored::new(0, Some(0)));
                continue;
            }
            if !expanded {
                stack.push((q, true));
                stack.extend(free.iter().map(|&l| (q | 1 << l, false)));
                continue;
            }
            let best = free
                .iter()
                .map(|&l| {
                    let took = g.boxes_done(q | 1 << l) - g.boxes_done(q);
                    let child = memo[&(q | 1 << l)];
                    let s = if took > 0 { child.score } else { -child.score };
                    Scored::new(s + i64::from(took), child.remoteness.map(|r| r + 1))
                })
                .max()
                .unwrap();
            memo.insert(q, best);
        }
        memo[&p]
    }

    #[test]
    fn small_boards_match_a_plain_minimax() {
        for (r, c) in [(1, 1), (1, 2), (2, 1), (2, 2)] {
            let g = DotsAndBoxes::new(r, c).unwrap();
            check_scored(&g, 2000).unwrap();
            let s = solve_scored(&g, &SolveOptions::default()).unwrap();
            let mut memo = HashMap::new();
            for p in 0u64..1 << g.lines() {
                assert_eq!(
                    s.value(&p).unwrap(),
                    minimax(&g, p, &mut memo),
                    "{r}x{c} {p:b}"
                );
            }
            assert_eq!(s.stats().positions, 1 << g.lines());
        }
    }

    #[test]
    fn the_one_box_board_is_lost_by_the_first_player() {
        let g = DotsAndBoxes::new(1, 1).unwrap();
        let s = solve_scored(&g, &SolveOptions::default()).unwrap();
        assert_eq!(s.start_value().unwrap(), Some(Scored::new(-1, Some(4))));
    }

    /// Published: on 2x2 boxes the first player wins (Berlekamp, in Winning Ways; worked
    /// out at puzzling.stackexchange.com/q/1728). The margin is the minimax's, checked above.
    #[test]
    fn two_by_two_is_a_first_player_win() {
        let g = DotsAndBoxes::new(2, 2).unwrap();
        let s = solve_scored(&g, &SolveOptions::default()).unwrap();
        assert_eq!(
            s.start_value().unwrap().unwrap().outcome(),
            retrograde_solve::Outcome::Win
        );
    }

    #[test]
    fn notation_reads_back_what_it_writes() {
        let g = DotsAndBoxes::new(2, 3).unwrap();
        for p in [0u64, 1, 0b1011_0110_0001, (1 << g.lines()) - 1] {
            for side in [0, 1] {
                let text = g.position_string(&p, side);
                assert_eq!(g.parse_position(&text), Ok((p, side)), "{text}");
            }
        }
        assert_eq!(g.parse_move(&0, 0, "b1-a1"), g.parse_move(&0, 0, "A1-B1"));
        assert!(g
            .parse_move(&0, 0, "a1-c1")
            .unwrap_err()
            .to_string()
            .contains("not a line"));
        assert!(g
            .parse_move(&1, 0, "a1-b1")
            .unwrap_err()
            .to_string()
            .contains("already drawn"));
        assert!(g
            .parse_position("a1-b1,a1-b1 x")
            .unwrap_err()
            .to_string()
            .contains("twice"));
        assert!(DotsAndBoxes::new(0, 3).is_err());
        let e = DotsAndBoxes::new(5, 5).unwrap_err();
        assert_eq!(
            e,
            GameError::DotsLines {
                rows: 5,
                cols: 5,
                lines: 60
            }
        );
        assert_eq!(
            e.to_string(),
            "a board of 5x5 boxes has 60 lines, at most 40 are supported"
        );
    }
}
