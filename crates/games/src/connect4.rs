//! Connect-4 on a `width × height` board: players drop stones into columns in turn (first
//! player first), a stone falls to the lowest empty cell, four in a row (across, up or
//! diagonally) wins, a full board without one is a tie.
//!
//! # Rules for the tier engine
//! A position is one `u64` key, column after column from bit 0, `height + 1` bits a column:
//! a column holding `h` stones keeps them in its low `h` bits (1 = the first player's stone)
//! and a 1 just above them (the column's *sentinel*). So `key = first + mask + bottom` in
//! John Tromp's terms, with absolute colours. The number of stones is the position's *tier*
//! (every move goes to the next tier); the player to move is the first player when it is
//! even.
//!
//! The moves are numbered by column (the engine's *slots*). Dropping a stone of a fixed
//! colour into column `c` adds `2^h (1 + stone)` to that column's field, a strictly
//! increasing map of the field, so the children through column `c` of a sorted tier come out
//! sorted: the game uses the engine's sorted-keys layout (a tier is found by merging, solved
//! by merge-joins). Mirror symmetry counts positions up to symmetry.
//!
//! # Notation
//! A move is a column number, 1 to the width, left to right. A position is written row by
//! row from the top, `/` between rows, `x` (first player), `o` or `.` a cell.
//!
//! ```
//! use retrograde_games::connect4::Connect4;
//! use retrograde_tier::{solve, SolveOptions, Solved};
//! use retrograde_solve::Value;
//! let game = Connect4::new(4, 4).unwrap();
//! let s = solve(&game, &SolveOptions::default()).unwrap();
//! assert_eq!(s.start_value().unwrap(), Some(Value::Tie(16)));
//! assert_eq!(s.stats().positions, 161_029); // John Tromp's count
//! ```

use crate::about::{About, Param};
use crate::GameError;
use retrograde_graph::Primitive;
use retrograde_tier::NotationError;
use retrograde_tier::{
    Alternate, Notation, OrderedMoves, ReverseEdges, SortedKeys, SymmetricGame, Symmetries,
    TierGame, Unscored,
};

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "connect4",
    about: "Connect-4 on small boards",
    help: "Connect-4: drop stones into columns in turn, four in a row (across, up or \
           diagonally) wins, a full board ties. Every position reachable from the empty \
           board is solved, tier by tier (a tier = the positions with the same number of \
           stones), as sorted keys found by merging; tiers are kept in files (a temporary \
           directory, or --db). A move is a column number (1 = left); a position \
           (--position) is rows from the top separated by '/', each cell x (first \
           player), o or . Cost: 5x4 under a second; 5x5 and 6x4 seconds; 6x5 (2.8e9 \
           positions) minutes, about 7 GiB of memory and a 0.4 GB database. 7x6 (4.5e12) is \
           out of reach.",
    examples: &[
        "connect4 --width 5 --height 4",
        "connect4 --width 6 --height 5 --db c4-6x5 --resume",
        "connect4 --width 5 --height 5 --output json",
    ],
    params: &[
        Param::number("width", "Columns.", 1, 64, "5"),
        Param::number("height", "Rows.", 1, 63, "4"),
    ],
    moves: Some("a column number, 1 to the width"),
    symmetry: "mirror symmetry",
};

/// Connect-4 rules for one board size.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Connect4 {
    width: u32,
    height: u32,
    /// Per column field, every bit but the top `k` ones, for k = 1, 2, 4, 8, 16, 32
    /// (smearing a field's top bit down without touching the next field).
    below: [u64; 6],
    /// How many of `below` a field's size needs.
    steps: usize,
    /// The lowest bit of every column field.
    bottom: u64,
    /// The top bit of every column field: a column is full when its sentinel is there.
    top: u64,
}

/// How many in a row win.
pub const LINE: u32 = 4;

/// A position for the tier engine: the key, and its number of stones (the tier), kept so
/// that moves need not count them again.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Board {
    /// The key (see the module docs).
    pub key: u64,
    /// Stones on the board.
    pub stones: u8,
}

impl Connect4 {
    /// A `width × height` board. Keys take `width × (height + 1)` bits, at most 64.
    ///
    /// # Errors
    /// An empty board, or one too big for a 64-bit key.
    pub fn new(width: u32, height: u32) -> Result<Connect4, GameError> {
        if width == 0 || height == 0 {
            return Err(GameError::Connect4NoCells { width, height });
        }
        if u64::from(width) * u64::from(height + 1) > 64 {
            return Err(GameError::Connect4TooBig { width, height });
        }
        let stride = height + 1;
        let field = |keep: u32| -> u64 {
            let f = if keep >= stride {
                0
            } else {
                (1u64 << (stride - keep)) - 1
            };
            (0..width).fold(0, |m, c| m | f << (c * stride))
        };
        let bottom = (0..width).fold(0, |m, c| m | 1u64 << (c * stride));
        Ok(Connect4 {
            width,
            height,
            below: [field(1), field(2), field(4), field(8), field(16), field(32)],
            steps: (1..=6).find(|&k| 1u32 << k >= stride).unwrap_or(6),
            bottom,
            top: bottom << height,
        })
    }

    /// Columns.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Cells on the board (the last tier).
    pub fn cells(&self) -> u32 {
        self.width * self.height
    }

    /// Bits in a key.
    pub fn key_bits(&self) -> u32 {
        self.width * self.stride()
    }

    fn stride(&self) -> u32 {
        self.height + 1
    }

    fn field_mask(&self) -> u64 {
        (1u64 << self.stride()) - 1
    }

    /// The empty board.
    pub fn empty(&self) -> u64 {
        self.bottom
    }

    /// Stones in column `c`.
    #[inline]
    pub fn column_height(&self, key: u64, c: u32) -> u32 {
        let f = (key >> (c * self.stride())) & self.field_mask();
        63 - f.leading_zeros()
    }

    /// The occupied cells and the first player's stones, as bitboards in the key's layout
    /// (bit `c × (height + 1) + row`, row 0 at the bottom).
    #[inline]
    pub fn decode(&self, key: u64) -> (u64, u64) {
        // Smear each field's top bit (the sentinel) down through the field, then drop the
        // sentinel: the cells below it are the occupied ones.
        let mut y = key;
        for k in 0..self.steps {
            y |= (y >> (1 << k)) & self.below[k];
        }
        let mask = (y >> 1) & self.below[0];
        (mask, key & mask)
    }

    /// Stones on the board.
    #[inline]
    pub fn stones(&self, key: u64) -> u32 {
        self.decode(key).0.count_ones()
    }

    /// Whether the key describes a board (every column field has a sentinel, nothing above
    /// the last column). Says nothing of reachability.
    pub fn is_valid(&self, key: u64) -> bool {
        let bits = self.key_bits();
        (bits == 64 || key >> bits == 0)
            && (0..self.width).all(|c| (key >> (c * self.stride())) & self.field_mask() != 0)
    }

    /// The position after the player to move drops a stone into column `c` (0-based, from
    /// the left), or `None` when the column is full or out of range.
    #[inline]
    pub fn play(&self, key: u64, c: u32) -> Option<u64> {
        if c >= self.width {
            return None;
        }
        let h = self.column_height(key, c);
        (h < self.height).then(|| key + self.drop_delta(key, c, self.stones(key)))
    }

    /// The board of a key.
    pub fn board(&self, key: u64) -> Board {
        Board {
            key,
            stones: self.stones(key) as u8,
        }
    }

    /// The columns that are not full, as bits (column by column: the portable form of
    /// [`OrderedMoves::slot_flags`], checked against it in tests).
    #[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
    #[inline]
    fn open_columns(&self, key: u64) -> u16 {
        let (s, h) = (self.stride(), self.height);
        (0..self.width).fold(0u16, |f, c| {
            f | (((key >> (c * s + h)) & 1) as u16 ^ 1) << c
        })
    }

    /// The board after the player to move drops a stone into column `c`, if it has room.
    #[inline]
    pub fn drop_into(&self, b: &Board, c: u32) -> Option<Board> {
        let off = c * self.stride();
        let f = (b.key >> off) & self.field_mask();
        let h = 63 - f.leading_zeros();
        if c >= self.width || h >= self.height {
            return None;
        }
        let first = u64::from(b.stones % 2 == 0);
        Some(Board {
            key: b.key + (((1u64 << h) * (1 + first)) << off),
            stones: b.stones + 1,
        })
    }

    /// What dropping into column `c` (not full) adds to the key, for a position with
    /// `stones` stones.
    #[inline]
    fn drop_delta(&self, key: u64, c: u32, stones: u32) -> u64 {
        let h = self.column_height(key, c);
        let first = u64::from(stones % 2 == 0);
        ((1u64 << h) * (1 + first)) << (c * self.stride())
    }

    /// The value the rules fix at `key` (with `stones` stones) for the player to move: lost
    /// when the player who just moved has four in a row, tied when the board is full.
    #[inline]
    pub fn terminal(&self, key: u64, stones: u32) -> Option<Primitive> {
        if stones == 0 {
            return None;
        }
        let (mask, first) = self.decode(key);
        let last = if stones % 2 == 1 { first } else { mask ^ first };
        if has_four(last, self.stride()) {
            Some(Primitive::Loss)
        } else if stones == self.cells() {
            Some(Primitive::Tie)
        } else {
            None
        }
    }

    /// Refuses a board where play went on after a four: the side to move has four in a
    /// row, or the fours of the side that just moved do not all pass through one stone on
    /// top of its column (its last move). A board that passes may still not arise (the
    /// database holds exactly the positions that do, and says so).
    ///
    /// # Errors
    /// Why the board cannot arise.
    fn after_fours(&self, key: u64) -> Result<(), String> {
        let (mask, first) = self.decode(key);
        let s = self.stride();
        let x_last = mask.count_ones() % 2 == 1;
        let (mover, last) = if x_last {
            (mask ^ first, first)
        } else {
            (first, mask ^ first)
        };
        let (m, l) = if x_last { ("o", "x") } else { ("x", "o") };
        if has_four(mover, s) {
            return Err(format!(
                "{m} has four in a row, yet it is {m}'s turn: the game ended when {m} made it"
            ));
        }
        if has_four(last, s) {
            let tops = (0..self.width).filter_map(|c| {
                let h = self.column_height(key, c);
                (h > 0).then(|| 1u64 << (c * s + h - 1))
            });
            if !tops
                .filter(|t| last & t != 0)
                .any(|t| !has_four(last & !t, s))
            {
                return Err(format!(
                    "{l} has fours that no single last move made: the game ended with the first"
                ));
            }
        }
        Ok(())
    }

    /// The board seen in a mirror (columns in reverse order).
    pub fn mirror(&self, key: u64) -> u64 {
        let s = self.stride();
        (0..self.width).fold(0, |m, c| {
            m | ((key >> (c * s)) & self.field_mask()) << ((self.width - 1 - c) * s)
        })
    }

    /// The board as text, top row first: `X` first player, `O` second, `.` empty, then the
    /// column numbers (1-based).
    pub fn render(&self, key: u64) -> String {
        let (mask, first) = self.decode(key);
        let mut out = String::new();
        for row in (0..self.height).rev() {
            for c in 0..self.width {
                let bit = 1u64 << (c * self.stride() + row);
                out.push(if mask & bit == 0 {
                    '.'
                } else if first & bit != 0 {
                    'X'
                } else {
                    'O'
                });
                out.push(' ');
            }
            out.pop();
            out.push('\n');
        }
        for c in 1..=self.width {
            out.push_str(&format!("{} ", c % 10));
        }
        out.pop();
        out.push('\n');
        out
    }
}

/// Whether a bitboard (stride `s`, an empty row above each column) has four in a row.
#[inline]
fn has_four(b: u64, s: u32) -> bool {
    for d in [1, s, s - 1, s + 1] {
        let m = b & (b >> d);
        if m & (m >> (2 * d)) != 0 {
            return true;
        }
    }
    false
}

impl TierGame for Connect4 {
    type Position = Board;
    type Tier = u8;
    type Layout = SortedKeys;
    type Parents = ReverseEdges;
    type Symmetry = Symmetries;
    type Turn = Alternate;
    type Score = Unscored;

    fn name(&self) -> String {
        format!("connect4 {}x{}", self.width, self.height)
    }

    fn start(&self) -> Option<Board> {
        Some(Board {
            key: self.empty(),
            stones: 0,
        })
    }

    #[inline]
    fn tier(&self, p: &Board) -> u8 {
        p.stones
    }

    fn child_tiers(&self, t: u8, out: &mut Vec<u8>) {
        if u32::from(t) < self.cells() {
            out.push(t + 1);
        }
    }

    fn tier_name(&self, t: u8) -> String {
        format!("{t:02}")
    }

    #[inline]
    fn primitive(&self, p: &Board) -> Option<Primitive> {
        self.terminal(p.key, u32::from(p.stones))
    }

    fn moves(&self, p: &Board, out: &mut Vec<Board>) {
        out.extend((0..self.width).filter_map(|c| self.drop_into(p, c)));
    }

    fn remoteness_bound(&self) -> Option<u32> {
        Some(self.cells())
    }
}

impl OrderedMoves for Connect4 {
    #[inline]
    fn key(&self, p: &Board) -> u64 {
        p.key
    }

    #[inline]
    fn key_position(&self, t: u8, k: u64) -> Board {
        Board { key: k, stones: t }
    }

    fn key_bits(&self, _: u8) -> u32 {
        self.key_bits()
    }

    fn slots(&self) -> usize {
        self.width as usize
    }

    #[inline]
    fn slot_child(&self, p: &Board, s: usize) -> Option<Board> {
        self.drop_into(p, s as u32)
    }

    /// The columns that are not full: a full column's sentinel is its field's top bit.
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    #[inline]
    fn slot_flags(&self, p: &Board) -> u16 {
        // SAFETY: compiled only for CPUs with BMI2 (the target feature is on at compile
        // time, see .cargo/config.toml); PEXT reads and writes registers only.
        unsafe { std::arch::x86_64::_pext_u64(!p.key, self.top) as u16 }
    }

    /// The columns that are not full: a full column's sentinel is its field's top bit.
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    #[inline]
    fn slot_flags(&self, p: &Board) -> u16 {
        self.open_columns(p.key)
    }
}

impl SymmetricGame for Connect4 {
    fn symmetry_count(&self) -> usize {
        2
    }

    fn apply_symmetry(&self, p: &Board, g: usize) -> Board {
        if g == 0 {
            *p
        } else {
            Board {
                key: self.mirror(p.key),
                stones: p.stones,
            }
        }
    }

    #[inline]
    fn canonical(&self, p: &Board) -> Board {
        self.apply_symmetry(p, 1).min(*p)
    }

    /// Whether the key is at most its mirror's: columns compared from the outside in (the
    /// last column is the key's most significant field, and the mirror's last column is
    /// the key's first), so most positions are decided by one pair.
    #[inline]
    fn is_canonical(&self, p: &Board) -> bool {
        let (s, m) = (self.stride(), self.field_mask());
        let (mut lo, mut hi) = (0, self.width - 1);
        while lo < hi {
            let (a, b) = ((p.key >> (hi * s)) & m, (p.key >> (lo * s)) & m);
            if a != b {
                return a < b;
            }
            lo += 1;
            hi -= 1;
        }
        true
    }
}

impl Notation for Connect4 {
    fn title(&self) -> String {
        format!(
            "Connect-4 on {}x{}: drop a stone into a column (type its number); four in a row wins, a full board ties.",
            self.width, self.height
        )
    }

    fn named_moves(&self, p: &Board, _side: u8, out: &mut Vec<(String, Board)>) {
        if self.primitive(p).is_some() {
            return;
        }
        for c in 0..self.width {
            if let Some(q) = self.drop_into(p, c) {
                out.push(((c + 1).to_string(), q));
            }
        }
    }

    fn parse_move(&self, p: &Board, _side: u8, text: &str) -> Result<Board, NotationError> {
        let t = text.trim();
        let refused = |why| NotationError::Refused {
            text: t.into(),
            why,
        };
        let c: u32 = match t.parse() {
            Ok(c) if (1..=self.width).contains(&c) => c,
            _ => {
                let why = format!("{t:?} is not a column: columns are 1 to {}", self.width);
                return Err(refused(why));
            }
        };
        if self.primitive(p).is_some() {
            return Err(NotationError::Over(t.into()));
        }
        self.drop_into(p, c - 1)
            .ok_or_else(|| refused(format!("column {c} is full")))
    }

    fn render(&self, p: &Board, _side: u8) -> String {
        Connect4::render(self, p.key)
    }

    fn position_string(&self, p: &Board, _side: u8) -> String {
        let (mask, first) = self.decode(p.key);
        let mut s = String::new();
        for row in (0..self.height).rev() {
            if row + 1 < self.height {
                s.push('/');
            }
            for c in 0..self.width {
                let bit = 1u64 << (c * self.stride() + row);
                s.push(if mask & bit == 0 {
                    '.'
                } else if first & bit != 0 {
                    'x'
                } else {
                    'o'
                });
            }
        }
        s
    }

    fn parse_position(&self, text: &str) -> Result<(Board, u8), NotationError> {
        let rows: Vec<&str> = text.trim().split('/').collect();
        if rows.len() != self.height as usize {
            return Err(format!(
                "expected {} rows separated by '/' (top row first), found {}",
                self.height,
                rows.len()
            )
            .into());
        }
        let mut key = self.empty();
        // Column by column from the bottom: every stone must rest on another.
        for c in 0..self.width {
            let mut top = 0;
            for (i, row) in rows.iter().rev().enumerate() {
                let Some(ch) = row.chars().nth(c as usize) else {
                    return Err(format!(
                        "row {} has {} cells, expected {}",
                        self.height as usize - i,
                        row.chars().count(),
                        self.width
                    )
                    .into());
                };
                let stone = match ch.to_ascii_lowercase() {
                    'x' => 1,
                    'o' => 0,
                    '.' | '-' => continue,
                    other => return Err(format!("{other:?} is not a cell (x, o or .)").into()),
                };
                if top != i {
                    return Err(format!(
                        "column {} has a stone in the air (row {} is empty below it)",
                        c + 1,
                        top + 1
                    )
                    .into());
                }
                top = i + 1;
                let off = c * self.stride() + i as u32;
                key = key & !(1u64 << off) | stone << off | 1u64 << (off + 1);
            }
        }
        for row in &rows {
            if row.chars().count() != self.width as usize {
                return Err(format!(
                    "a row has {} cells, expected {}",
                    row.chars().count(),
                    self.width
                )
                .into());
            }
        }
        let (mask, first) = self.decode(key);
        let (nx, no) = (first.count_ones(), (mask ^ first).count_ones());
        if nx != no && nx != no + 1 {
            return Err(format!(
                "x has {nx} stones and o {no}: x moves first, so x has as many as o or one more"
            )
            .into());
        }
        self.after_fours(key)?;
        Ok((self.board(key), u8::from(nx != no)))
    }

    fn position_help(&self) -> String {
        format!(
            "{} rows of {} cells from the top, separated by '/', each x (first player), o or . (stones rest on stones)",
            self.height, self.width
        )
    }

    fn side_names(&self) -> [String; 2] {
        ["X".into(), "O".into()]
    }

    /// Every four in a row on the board (only the last mover's can be there).
    fn winning_cells(&self, p: &Board, _side: u8) -> Vec<(u32, u32)> {
        let (mask, first) = self.decode(p.key);
        let s = self.stride();
        let cells = fours(first, s) | fours(mask ^ first, s);
        let mut out = Vec::new();
        for row in (0..self.height).rev() {
            for c in 0..self.width {
                if cells >> (c * s + row) & 1 != 0 {
                    out.push((self.height - 1 - row, c));
                }
            }
        }
        out
    }
}

/// The stones of `b` (stride `s`) that are part of a four in a row.
fn fours(b: u64, s: u32) -> u64 {
    let mut cells = 0;
    for d in [1, s, s - 1, s + 1] {
        let m = b & (b >> d);
        let starts = m & (m >> (2 * d));
        cells |= starts | starts << d | starts << (2 * d) | starts << (3 * d);
    }
    cells
}

/// An upper bound on the reachable positions of a `width × height` board: boards whose
/// column heights sum to `k` with `ceil(k / 2)` first-player stones, summed over `k` (gravity
/// and turn order, ignoring that a line ends the game). About 3.5 times the true count for
/// 6x5, 15 times for 7x6.
pub fn position_bound(width: u32, height: u32) -> f64 {
    // ways[k] = column-height vectors summing to k.
    let cells = (width * height) as usize;
    let mut ways = vec![0f64; cells + 1];
    ways[0] = 1.0;
    for _ in 0..width {
        let mut next = vec![0f64; cells + 1];
        for (k, &w) in ways.iter().enumerate() {
            for h in 0..=height as usize {
                if k + h <= cells {
                    next[k + h] += w;
                }
            }
        }
        ways = next;
    }
    let binom = |n: usize, r: usize| (0..r).fold(1f64, |b, i| b * (n - i) as f64 / (i + 1) as f64);
    ways.iter()
        .enumerate()
        .map(|(k, w)| w * binom(k, k.div_ceil(2)))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_solve::{solve as solve_graph, Rules};
    use retrograde_tier::{check_game, explicit_graph, replay, solve, SolveOptions, Solved};

    #[test]
    fn fast_decode_and_open_columns_are_the_column_by_column_ones() {
        for (w, h) in [(7, 6), (4, 4), (5, 4), (1, 1), (8, 7), (16, 3), (2, 30)] {
            let g = Connect4::new(w, h).unwrap();
            let mut rng = 0x2545_f491_4f6c_dd1du64;
            for _ in 0..2000 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let mut key = 0u64;
                let mut mask = 0u64;
                for c in 0..w {
                    let hc = (rng >> (c % 16 * 4)) as u32 % (h + 1);
                    let stones = (rng >> 20 >> (c % 8)) & ((1u64 << hc) - 1);
                    key |= (stones | 1u64 << hc) << (c * (h + 1));
                    mask |= ((1u64 << hc) - 1) << (c * (h + 1));
                }
                assert_eq!(g.decode(key), (mask, key & mask), "{w}x{h} {key:b}");
                let open =
                    (0..w).fold(0u16, |f, c| f | u16::from(g.column_height(key, c) < h) << c);
                let b = Board {
                    key,
                    stones: mask.count_ones() as u8,
                };
                assert_eq!(g.slot_flags(&b), open, "{w}x{h} {key:b}");
                assert_eq!(g.open_columns(key), open, "{w}x{h} {key:b}");
            }
        }
    }

    #[test]
    fn keys_and_rules() {
        let g = Connect4::new(7, 6).unwrap();
        let e = g.empty();
        assert_eq!(g.stones(e), 0);
        let k = g.play(e, 3).unwrap();
        assert_eq!(g.stones(k), 1);
        assert_eq!(g.decode(k).1, 1 << (3 * 7));
        let k2 = g.play(k, 3).unwrap();
        assert_eq!(g.decode(k2), (0b11 << 21, 1 << 21));
        // Four of the first player's stones across the bottom row.
        let mut k = e;
        for c in [0, 0, 1, 1, 2, 2, 3] {
            assert!(g.terminal(k, g.stones(k)).is_none());
            k = g.play(k, c).unwrap();
        }
        assert_eq!(g.terminal(k, 7), Some(Primitive::Loss));
        assert_eq!(g.mirror(g.mirror(k)), k);
        assert!(Connect4::render(&g, k).starts_with(". . . . . . .\n"));
        let mut full = g.empty();
        for _ in 0..6 {
            full = g.play(full, 0).unwrap();
        }
        assert_eq!(g.play(full, 0), None);
        assert!(Connect4::new(8, 8).is_err());
        assert!(Connect4::new(0, 4).is_err());
        assert!(Connect4::new(8, 7).is_ok());
    }

    /// The tier engine against the graph engine on the explicit graph, position by position.
    fn agrees_with_the_graph_engine(w: u32, h: u32) {
        let g = Connect4::new(w, h).unwrap();
        check_game(&g, 500).unwrap();
        let s = solve(&g, &SolveOptions::default()).unwrap();
        let e = explicit_graph(&g, 2_000_000).unwrap();
        let gs = solve_graph(&e.graph, &Rules::default());
        for (v, p) in e.positions.iter().enumerate() {
            assert_eq!(
                s.value(p).unwrap(),
                Some(gs.value(v as u32)),
                "{w}x{h}\n{}",
                Connect4::render(&g, p.key)
            );
        }
        assert_eq!(s.stats().positions, e.positions.len() as u64);
        assert_eq!(s.stats().moves, e.graph.edge_count() as u64);
    }

    #[test]
    fn small_boards_agree_with_the_graph_engine() {
        for (w, h) in [
            (1, 1),
            (1, 4),
            (4, 1),
            (2, 3),
            (3, 3),
            (4, 3),
            (3, 4),
            (5, 2),
            (4, 4),
        ] {
            agrees_with_the_graph_engine(w, h);
        }
    }

    #[test]
    fn tromps_counts_and_values() {
        let g = Connect4::new(4, 4).unwrap();
        let s = solve(&g, &SolveOptions::default()).unwrap();
        assert_eq!(s.stats().positions, 161_029);
        let bound = position_bound(4, 4);
        assert!((161_029.0..3.0 * 161_029.0).contains(&bound));
    }

    #[test]
    fn notation_round_trips() {
        let g = Connect4::new(5, 4).unwrap();
        let (p, side) = replay(&g, &["3", "3", "4"]).unwrap();
        assert_eq!(side, 1);
        let text = g.position_string(&p, side);
        assert_eq!(text, "...../...../..o../..xx.");
        assert_eq!(g.parse_position(&text).unwrap(), (p, 1));
        assert!(g
            .parse_position("..x../...../...../.....")
            .unwrap_err()
            .to_string()
            .contains("air"));
        assert!(g
            .parse_position("...../...../...../xx...")
            .unwrap_err()
            .to_string()
            .contains("stones"));
        let e = replay(&g, &["6"]).unwrap_err();
        assert!(e.to_string().contains("columns are 1 to 5"), "{e}");
        let full = replay(&g, &["1", "1", "1", "1"]).unwrap().0;
        assert_eq!(full, g.board(full.key));
        assert!(g
            .parse_move(&full, 0, "1")
            .unwrap_err()
            .to_string()
            .contains("full"));
    }

    #[test]
    fn boards_after_a_four_are_refused_and_every_reached_one_is_read() {
        let g = Connect4::new(4, 4).unwrap();
        // Every position play reaches reads back (the rule refuses none of them).
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![g.empty()];
        while let Some(key) = todo.pop() {
            if !seen.insert(key) {
                continue;
            }
            let b = g.board(key);
            let text = g.position_string(&b, 0);
            assert_eq!(g.parse_position(&text).map(|p| p.0), Ok(b), "{text}");
            if g.terminal(key, b.stones.into()).is_none() {
                todo.extend((0..4).filter_map(|c| g.play(key, c)));
            }
        }
        assert_eq!(seen.len(), 161_029);
        let e = g.parse_position("..../o.../ooo./xxxx").unwrap_err();
        assert!(
            e.to_string()
                .contains("x has four in a row, yet it is x's turn"),
            "{e}"
        );
        let e = g.parse_position("x.../xooo/xooo/xxxx").unwrap_err();
        assert!(
            e.to_string()
                .contains("x has fours that no single last move made"),
            "{e}"
        );
    }
}
