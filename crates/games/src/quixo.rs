//! Quixo on an `n × n` board (official rules, n = 3, 4 or 5).
//!
//! Every cell holds a cube: blank, X or O. On a turn the player to move takes a cube from the
//! border that is blank or shows their own symbol, turns it to their symbol, and pushes it
//! back in at an end of the row or column it was taken from (not where it was taken), shifting
//! the cubes between one step. A line (row, column or diagonal) of one's own symbol wins;
//! making a line of the opponent's symbol loses, even together with one's own.
//!
//! # Rules for the tier engine
//! A state is the board seen by the player to move: `x` = the mover's cubes, `o` = the
//! opponent's (bit `row × n + col`, row 0 at the top). The colours swap after each move, so
//! the value of a state is the value for whichever player is to move
//! ([`TierGame::MOVER_VIEW`]). Taking a blank cube removes a blank; taking one's own keeps
//! the count. So the states with `b` blanks form tier `b`, and every move stays in its tier
//! (a loopy tier) or goes to tier `b - 1`. A tier is indexed densely: the blank cells by
//! their colex rank among the `C(n², b)` subsets, times `2^(n² - b)` for which filled cells
//! are the mover's. Un-moves (taking back a push of one's own cube) give the parents inside a
//! tier, and the 8 symmetries of the square reduce what is solved.
//!
//! # Notation
//! A move is the cube taken and where it is pushed back in, `a1 a4` (files a, b, … left to
//! right, ranks 1, 2, … bottom to top; also `a1a4` or `a1-a4`). A position is written row by
//! row from the top, `/` between rows, `x`, `o` or `.` a cube, then the side to move:
//! `x..o/..../..../.... o`.
//!
//! ```
//! use retrograde_games::quixo::Quixo;
//! use retrograde_tier::{solve, SolveOptions, Solved};
//! use retrograde_solve::Outcome;
//! let q = Quixo::new(3).unwrap();
//! let s = solve(&q, &SolveOptions::default()).unwrap();
//! assert_eq!(s.start_value().unwrap().unwrap().outcome(), Outcome::Win);
//! ```

use crate::about::{About, Param};
use crate::GameError;
use retrograde_graph::Primitive;
use retrograde_tier::notation::{grid_string, not_legal, parse_grid, split_side};
use retrograde_tier::NotationError;
use retrograde_tier::{
    Alternate, Dense, DenseIndex, Notation, SymmetricGame, Symmetries, TierGame, UnmoveGame,
    Unmoves, Unscored,
};
use std::fmt;

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "quixo",
    about: "Quixo (official rules) on 3x3 or 4x4",
    help: "Quixo (official rules): take a blank cube or one of yours from the border, turn \
           it to your symbol, push it back in at an end of its row or column; a line of \
           your symbol wins, making a line of the opponent's loses (even with one of \
           yours). Every state is solved (boards seen by the player to move, one per \
           symmetry class), then the positions reachable from the empty board are counted \
           (a board with X to move and with O to move count apart). A move is the cube \
           taken and where it goes back in: a1 a4 (or a1a4). A position (--position) is \
           rows from the top separated by '/', cubes x, o or ., then the side to move: \
           x..o/..../..../.... o. 4x4: 43M states, about 130 MB and 10 s. 5x5 (8.5e11 \
           states) is refused with its estimate.",
    examples: &[
        "quixo --size 3",
        "quixo --size 4 --output json",
        "quixo --size 4 --db q4 --resume",
    ],
    params: &[Param::number(
        "size",
        "The side of the board: 3, 4 or 5.",
        1,
        64,
        "4",
    )],
    moves: Some("the cube taken and where it goes in, such as a1 a4"),
    symmetry: "rotation and reflection",
};

/// One move: take the cube at `s`, push it in at `e`; the cubes from `e` to `s` shift one
/// step away from `e`.
#[derive(Copy, Clone, Debug)]
struct Move {
    s: u8,
    e: u8,
    /// The cells from `e` to `s`, inclusive.
    mask: u32,
    /// The step from `e` towards `s` in bit positions (±1 along a row, ±n along a column).
    step: i8,
}

/// The most states [`Quixo::arises`] visits for a position read in notation. Every
/// unreachable state of 3x3 and 4x4 is refuted within 20,000 (checked against the states
/// play reaches, all 86 million of 4x4); on 5x5 a search this long accepts the position.
const ARISES_BUDGET: usize = 200_000;

/// Quixo rules for one board size, with the tables its index and symmetries use.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
pub struct Quixo {
    n: u32,
    cells: u32,
    full: u32,
    moves: Vec<Move>,
    lines: Vec<u32>,
    /// `binom[a][k]` = C(a, k).
    binom: Vec<Vec<u64>>,
    /// `colex[chunk][byte][before]`: the colex-rank contribution of the set bits of `byte` at
    /// cells `8 chunk ..`, when `before` set bits come earlier.
    colex: Vec<u32>,
    /// `pext8[mask << 8 | bits]`: the bits of `bits` at the set positions of `mask`, packed.
    pext8: Vec<u8>,
    /// `pdep8[mask << 8 | bits]`: the low bits of `bits` spread over the set positions of
    /// `mask`.
    pdep8: Vec<u8>,
    /// `sym[g][chunk][byte]`: where symmetry `g` (of the 8 of the square) sends those cells.
    sym: Vec<u32>,
}

/// A state: the board seen by the player to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct State {
    /// The mover's cubes.
    pub x: u32,
    /// The opponent's cubes.
    pub o: u32,
}

impl fmt::Debug for Quixo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Quixo({}x{})", self.n, self.n)
    }
}

impl Quixo {
    /// An `n × n` board, n from 3 to 5.
    ///
    /// # Errors
    /// Another size.
    pub fn new(n: u32) -> Result<Quixo, GameError> {
        if !(3..=5).contains(&n) {
            return Err(GameError::SquareBoard { n });
        }
        let cells = n * n;
        let full = ((1u64 << cells) - 1) as u32;
        let cell = |r: u32, c: u32| (r * n + c) as u8;
        let border = |r: u32, c: u32| r == 0 || c == 0 || r == n - 1 || c == n - 1;
        let mut moves = Vec::new();
        for r in 0..n {
            for c in 0..n {
                if !border(r, c) {
                    continue;
                }
                let s = cell(r, c);
                // Ends of the row, then of the column.
                for (er, ec) in [(r, 0), (r, n - 1), (0, c), (n - 1, c)] {
                    let e = cell(er, ec);
                    if e == s {
                        continue;
                    }
                    let (dr, dc) = (
                        (r as i32 - er as i32).signum(),
                        (c as i32 - ec as i32).signum(),
                    );
                    let step = (dr * n as i32 + dc) as i8;
                    let mut mask = 0u32;
                    let (mut rr, mut cc) = (er as i32, ec as i32);
                    loop {
                        mask |= 1 << (rr as u32 * n + cc as u32);
                        if (rr as u32, cc as u32) == (r, c) {
                            break;
                        }
                        rr += dr;
                        cc += dc;
                    }
                    moves.push(Move { s, e, mask, step });
                }
            }
        }
        let mut lines = Vec::new();
        for i in 0..n {
            lines.push((0..n).fold(0u32, |m, j| m | 1 << cell(i, j)));
            lines.push((0..n).fold(0u32, |m, j| m | 1 << cell(j, i)));
        }
        lines.push((0..n).fold(0u32, |m, j| m | 1 << cell(j, j)));
        lines.push((0..n).fold(0u32, |m, j| m | 1 << cell(j, n - 1 - j)));

        let mut binom = vec![vec![0u64; 27]; 27];
        for a in 0..27 {
            binom[a][0] = 1;
            for k in 1..=a {
                binom[a][k] = binom[a - 1][k - 1] + binom[a - 1][k];
            }
        }
        let mut colex = vec![0u32; 4 * 256 * 26];
        for chunk in 0..4usize {
            for byte in 0..256usize {
                for before in 0..26usize {
                    let mut sum = 0u64;
                    let mut i = before;
                    for bit in 0..8 {
                        if byte >> bit & 1 == 1 {
                            let p = chunk * 8 + bit;
                            i += 1;
                            sum += if p < 27 && i < 27 { binom[p][i] } else { 0 };
                        }
                    }
                    colex[(chunk * 256 + byte) * 26 + before] = sum as u32;
                }
            }
        }
        let mut pext8 = vec![0u8; 1 << 16];
        for mask in 0..256usize {
            for bits in 0..256usize {
                let (mut out, mut k) = (0u8, 0);
                for b in 0..8 {
                    if mask >> b & 1 == 1 {
                        out |= ((bits >> b & 1) as u8) << k;
                        k += 1;
                    }
                }
                pext8[mask << 8 | bits] = out;
            }
        }
        let mut pdep8 = vec![0u8; 1 << 16];
        for mask in 0..256usize {
            for bits in 0..256usize {
                let (mut out, mut k) = (0u8, 0);
                for b in 0..8 {
                    if mask >> b & 1 == 1 {
                        out |= ((bits >> k & 1) as u8) << b;
                        k += 1;
                    }
                }
                pdep8[mask << 8 | bits] = out;
            }
        }
        let transform = |g: u32, r: u32, c: u32| -> (u32, u32) {
            let (r, c) = if g & 4 != 0 { (c, r) } else { (r, c) };
            let r = if g & 1 != 0 { n - 1 - r } else { r };
            let c = if g & 2 != 0 { n - 1 - c } else { c };
            (r, c)
        };
        let mut sym = vec![0u32; 8 * 4 * 256];
        for g in 0..8u32 {
            for chunk in 0..4u32 {
                for byte in 0..256u32 {
                    let mut out = 0u32;
                    for bit in 0..8 {
                        let p = chunk * 8 + bit;
                        if byte >> bit & 1 == 1 && p < cells {
                            let (r, c) = transform(g, p / n, p % n);
                            out |= 1 << (r * n + c);
                        }
                    }
                    sym[((g * 4 + chunk) * 256 + byte) as usize] = out;
                }
            }
        }
        Ok(Quixo {
            n,
            cells,
            full,
            moves,
            lines,
            binom,
            colex,
            pext8,
            pdep8,
            sym,
        })
    }

    /// The side of the board.
    pub fn size(&self) -> u32 {
        self.n
    }

    /// States (boards seen by the player to move) in all: 3^(n²).
    pub fn states(&self) -> u64 {
        3u64.pow(self.cells)
    }

    /// States with `b` blanks.
    pub fn tier_size(&self, b: u32) -> u64 {
        self.binom[self.cells as usize][b as usize] << (self.cells - b)
    }

    /// The value the rules fix at a state, for the player to move: a line of the mover's
    /// cubes (made by the opponent) wins, else a line of the opponent's loses.
    #[inline]
    pub fn terminal(&self, x: u32, o: u32) -> Option<Primitive> {
        if self.has_line(x) {
            Some(Primitive::Win)
        } else if self.has_line(o) {
            Some(Primitive::Loss)
        } else {
            None
        }
    }

    #[inline]
    fn has_line(&self, cubes: u32) -> bool {
        for &l in &self.lines {
            if cubes & l == l {
                return true;
            }
        }
        false
    }

    #[inline]
    fn shift(v: u32, step: i8) -> u32 {
        if step > 0 {
            v << step
        } else {
            v >> -step
        }
    }

    /// The state after move `m` from `(x, o)` (already swapped for the next player), or
    /// `None` when the cube at the move's source is the opponent's.
    #[inline]
    fn apply(&self, x: u32, o: u32, m: &Move) -> Option<(u32, u32)> {
        if o >> m.s & 1 != 0 {
            return None;
        }
        let eb = 1u32 << m.e;
        let keep = !m.mask;
        let nx = (x & keep) | (Self::shift(x, m.step) & m.mask & !eb) | eb;
        let no = (o & keep) | (Self::shift(o, m.step) & m.mask & !eb);
        Some((no, nx))
    }

    /// The state before move `m` led to `(x, o)`, in the previous mover's view; the cube taken
    /// was blank when `from_blank`, else the previous mover's. `None` when the cube at the
    /// move's end is not the previous mover's.
    #[inline]
    fn unapply(&self, x: u32, o: u32, m: &Move, from_blank: bool) -> Option<(u32, u32)> {
        // In the previous mover's view, before the swap.
        let (nx, no) = (o, x);
        if nx >> m.e & 1 == 0 {
            return None;
        }
        let sb = 1u32 << m.s;
        let inner = m.mask & !sb;
        let keep = !m.mask;
        let px = (nx & keep) | (Self::shift(nx, -m.step) & inner) | if from_blank { 0 } else { sb };
        let po = (no & keep) | (Self::shift(no, -m.step) & inner);
        Some((px, po))
    }

    /// Whether the cubes of a state (`x` the mover's, side `side` to move) can be counted
    /// in play: a cube once placed stays its owner's, and each player's first move places
    /// one. With the first player to move, both have cubes or neither (the start); with the
    /// second, the first player has some, and one if the second has none.
    fn counts_fit(x: u32, o: u32, side: u8) -> bool {
        let (nx, no) = if side == 0 {
            (x.count_ones(), o.count_ones())
        } else {
            (o.count_ones(), x.count_ones())
        };
        if side == 0 {
            (nx == 0) == (no == 0)
        } else {
            nx >= 1 && (no >= 1 || nx == 1)
        }
    }

    /// Whether `p` (side `side` to move, 0 the first player) arises in play from the start:
    /// a search backwards through the states that lead to it by a legal move and where the
    /// game was not over (a state with a line ends it), fewest cubes first, until the start
    /// (empty, the first player to move). `None` when `budget` states did not settle it.
    pub fn arises(&self, p: &State, side: u8, budget: usize) -> Option<bool> {
        use std::cmp::Reverse;
        use std::collections::{BinaryHeap, HashSet};
        let start = (0u32, 0u32, 0u8);
        let key = (p.x, p.o, side & 1);
        if key == start {
            return Some(true);
        }
        if !Self::counts_fit(p.x, p.o, side & 1) {
            return Some(false);
        }
        let mut seen: HashSet<(u32, u32, u8)> = HashSet::new();
        let mut todo = BinaryHeap::new();
        seen.insert(key);
        // Fewest cubes first, then the deepest (the latest found): a path back to the start
        // takes cubes away one by one, and is followed before its siblings.
        let mut order = 0u64;
        todo.push((Reverse((p.x | p.o).count_ones()), order, key));
        while let Some((_, _, (x, o, s))) = todo.pop() {
            for m in &self.moves {
                for from_blank in [true, false] {
                    let Some((px, po)) = self.unapply(x, o, m, from_blank) else {
                        continue;
                    };
                    if self.apply(px, po, m) != Some((x, o)) || self.terminal(px, po).is_some() {
                        continue;
                    }
                    let parent = (px, po, s ^ 1);
                    if parent == start {
                        return Some(true);
                    }
                    if !Self::counts_fit(px, po, s ^ 1) {
                        continue;
                    }
                    if seen.insert(parent) {
                        if seen.len() > budget {
                            return None;
                        }
                        order += 1;
                        todo.push((Reverse((px | po).count_ones()), order, parent));
                    }
                }
            }
        }
        Some(false)
    }

    /// The legal moves from `(x, o)` as (source cell, end cell, next state), in a fixed order;
    /// none at a terminal state.
    pub fn legal_moves(&self, x: u32, o: u32) -> Vec<(u32, u32, (u32, u32))> {
        if self.terminal(x, o).is_some() {
            return Vec::new();
        }
        self.moves
            .iter()
            .filter_map(|m| Some((u32::from(m.s), u32::from(m.e), self.apply(x, o, m)?)))
            .collect()
    }

    /// The bits of `bits` at the set positions of `mask`, packed (PEXT).
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    #[inline]
    fn pext(&self, bits: u32, mask: u32) -> u32 {
        // SAFETY: compiled only for CPUs with BMI2 (the target feature is on at compile
        // time, see .cargo/config.toml); PEXT reads and writes registers only.
        unsafe { std::arch::x86_64::_pext_u32(bits, mask) }
    }

    /// The bits of `bits` at the set positions of `mask`, packed (PEXT).
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    #[inline]
    fn pext(&self, bits: u32, mask: u32) -> u32 {
        self.pext_table(bits, mask)
    }

    /// [`Quixo::pext`] by byte tables: the portable twin, checked against it in tests.
    #[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
    #[inline]
    fn pext_table(&self, bits: u32, mask: u32) -> u32 {
        let mut out = 0u32;
        let mut k = 0;
        for chunk in 0..self.cells.div_ceil(8) {
            let m = (mask >> (8 * chunk)) & 255;
            let b = (bits >> (8 * chunk)) & 255;
            out |= u32::from(self.pext8[(m << 8 | b) as usize]) << k;
            k += m.count_ones();
        }
        out
    }

    /// The tier (blanks) and index in it of a state.
    #[inline]
    pub fn rank_xo(&self, x: u32, o: u32) -> (u32, u64) {
        let filled = x | o;
        let blank = self.full & !filled;

        let mut before = 0usize;
        let mut comb = 0u64;
        for chunk in 0..self.cells.div_ceil(8) as usize {
            let byte = ((blank >> (8 * chunk)) & 255) as usize;
            comb += u64::from(self.colex[(chunk * 256 + byte) * 26 + before]);
            before += byte.count_ones() as usize;
        }
        let f = self.cells - before as u32;
        (before as u32, comb << f | u64::from(self.pext(x, filled)))
    }

    /// The blank cells of the `c`-th subset of `b` cells in colex order.
    #[inline]
    fn unrank_blanks(&self, mut c: u64, b: u32) -> u32 {
        let mut mask = 0u32;
        // The largest p with C(p, k) <= c, for k = b down to 1; p only decreases.
        let mut p = self.cells as usize;
        for k in (1..=b as usize).rev() {
            p -= 1;
            while self.binom[p][k] > c {
                p -= 1;
            }
            c -= self.binom[p][k];
            mask |= 1 << p;
        }
        mask
    }

    /// Spreads the low bits of `bits` over the set positions of `mask`, in order (PDEP).
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    #[inline]
    fn pdep(&self, bits: u32, mask: u32) -> u32 {
        // SAFETY: as for `pext`.
        unsafe { std::arch::x86_64::_pdep_u32(bits, mask) }
    }

    /// Spreads the low bits of `bits` over the set positions of `mask`, in order (PDEP).
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    #[inline]
    fn pdep(&self, bits: u32, mask: u32) -> u32 {
        self.pdep_table(bits, mask)
    }

    /// [`Quixo::pdep`] by byte tables: the portable twin, checked against it in tests.
    #[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
    #[inline]
    fn pdep_table(&self, mut bits: u32, mask: u32) -> u32 {
        let mut out = 0u32;
        for chunk in 0..self.cells.div_ceil(8) {
            let m = (mask >> (8 * chunk)) & 255;
            out |= u32::from(self.pdep8[(m << 8 | (bits & 255)) as usize]) << (8 * chunk);
            bits >>= m.count_ones();
        }
        out
    }

    /// The state at `index` of tier `b`.
    #[inline]
    pub fn unrank_xo(&self, b: u32, index: u64) -> (u32, u32) {
        let f = self.cells - b;
        let blank = self.unrank_blanks(index >> f, b);
        let filled = self.full & !blank;
        let x = self.pdep((index & ((1u64 << f) - 1)) as u32, filled);
        (x, filled & !x)
    }

    /// The canonical form by the symmetry tables (boards other than 4x4; kept out of line so
    /// that the 4x4 bit tricks inline into the engine's loops).
    #[inline(never)]
    fn canonical_by_tables(&self, p: &State) -> State {
        let mut best = *p;
        for g in 1..8 {
            let q = self.apply_symmetry(p, g);
            if q < best {
                best = q;
            }
        }
        best
    }

    #[inline]
    fn transform(&self, g: usize, v: u32) -> u32 {
        let t = &self.sym[g * 1024..g * 1024 + 1024];
        let mut out = t[(v & 255) as usize] | t[256 + (v >> 8 & 255) as usize];
        if self.cells > 16 {
            out |= t[512 + (v >> 16 & 255) as usize] | t[768 + (v >> 24 & 255) as usize];
        }
        out
    }

    /// The board as text: `X` the player to move, `O` the other, `.` blank; rows top first,
    /// columns lettered and rows numbered as in `a1` (bottom left).
    pub fn render(&self, x: u32, o: u32) -> String {
        let mut out = String::new();
        for r in 0..self.n {
            out.push_str(&format!("{} ", self.n - r));
            for c in 0..self.n {
                let b = 1 << (r * self.n + c);
                out.push(if x & b != 0 {
                    'X'
                } else if o & b != 0 {
                    'O'
                } else {
                    '.'
                });
                out.push(' ');
            }
            out.pop();
            out.push('\n');
        }
        out.push_str("  ");
        for c in 0..self.n {
            out.push((b'a' + c as u8) as char);
            out.push(' ');
        }
        out.pop();
        out.push('\n');
        out
    }

    /// A cell's name, `a1` = bottom left.
    pub fn cell_name(&self, cell: u32) -> String {
        let (r, c) = (cell / self.n, cell % self.n);
        format!("{}{}", (b'a' + c as u8) as char, self.n - r)
    }
}

impl TierGame for Quixo {
    type Position = State;
    type Tier = u8;
    type Layout = Dense;
    type Parents = Unmoves;
    type Symmetry = Symmetries;
    type Turn = Alternate;
    type Score = Unscored;
    const MOVER_VIEW: bool = true;

    fn name(&self) -> String {
        format!("quixo {}x{}", self.n, self.n)
    }

    fn start(&self) -> Option<State> {
        Some(State { x: 0, o: 0 })
    }

    #[inline]
    fn tier(&self, p: &State) -> u8 {
        (self.cells - (p.x | p.o).count_ones()) as u8
    }

    fn child_tiers(&self, t: u8, out: &mut Vec<u8>) {
        if t > 0 {
            out.push(t - 1);
        }
    }

    fn tier_name(&self, t: u8) -> String {
        format!("{t:02}")
    }

    #[inline]
    fn primitive(&self, p: &State) -> Option<Primitive> {
        self.terminal(p.x, p.o)
    }

    #[inline]
    fn moves(&self, p: &State, out: &mut Vec<State>) {
        for m in &self.moves {
            if let Some((x, o)) = self.apply(p.x, p.o, m) {
                out.push(State { x, o });
            }
        }
    }
}

impl DenseIndex for Quixo {
    fn tier_size(&self, t: u8) -> u64 {
        Quixo::tier_size(self, u32::from(t))
    }

    #[inline]
    fn rank(&self, p: &State) -> u64 {
        self.rank_xo(p.x, p.o).1
    }

    #[inline]
    fn unrank(&self, t: u8, i: u64) -> Option<State> {
        let (x, o) = self.unrank_xo(u32::from(t), i);
        Some(State { x, o })
    }

    fn for_each_in(
        &self,
        t: u8,
        range: std::ops::Range<u64>,
        mut f: impl FnMut(u64, Option<State>),
    ) {
        // Runs of states share their blank cells; inside a run the mover's cubes count up
        // through the subsets of the filled cells.
        let b = u32::from(t);
        let fbits = self.cells - b;
        let run = 1u64 << fbits;
        let mut i = range.start;
        while i < range.end {
            let blank = self.unrank_blanks(i >> fbits, b);
            let filled = self.full & !blank;
            let mut x = self.pdep((i & (run - 1)) as u32, filled);
            let end = ((i | (run - 1)) + 1).min(range.end);
            while i < end {
                f(i, Some(State { x, o: filled & !x }));
                x = x.wrapping_sub(filled) & filled;
                i += 1;
            }
        }
    }
}

impl UnmoveGame for Quixo {
    #[inline]
    fn unmoves(&self, p: &State, out: &mut Vec<State>) {
        // Take back a push of the previous mover's own cube (the moves inside the tier).
        for m in &self.moves {
            if let Some((x, o)) = self.unapply(p.x, p.o, m, false) {
                out.push(State { x, o });
            }
        }
    }
}

impl SymmetricGame for Quixo {
    fn symmetry_count(&self) -> usize {
        8
    }

    #[inline]
    fn apply_symmetry(&self, p: &State, g: usize) -> State {
        State {
            x: self.transform(g, p.x),
            o: self.transform(g, p.o),
        }
    }

    #[inline(always)]
    fn canonical(&self, p: &State) -> State {
        if self.n == 4 {
            // Both boards at once, 16 bits each: the image with the least packed value.
            let m = images4(p.x | p.o << 16).into_iter().min().unwrap_or(0);
            return State {
                x: m & 0xffff,
                o: m >> 16,
            };
        }
        self.canonical_by_tables(p)
    }

    #[inline(always)]
    fn is_canonical(&self, p: &State) -> bool {
        if self.n == 4 {
            return is_canonical4(p.x | p.o << 16);
        }
        (1..8).all(|g| self.apply_symmetry(p, g) >= *p)
    }

    #[inline]
    fn class_size(&self, p: &State) -> u64 {
        let fixed = if self.n == 4 {
            let v = p.x | p.o << 16;
            images4(v).into_iter().filter(|&w| w == v).count()
        } else {
            (0..8).filter(|&g| self.apply_symmetry(p, g) == *p).count()
        };
        (8 / fixed) as u64
    }
}

/// Whether no image of `v` (see [`images4`]) is smaller, stopping at the first one that is.
#[inline]
fn is_canonical4(v: u32) -> bool {
    let b = cols4(v);
    if b < v {
        return false;
    }
    let c = rows4(v);
    if c < v {
        return false;
    }
    let d = rows4(b);
    if d < v {
        return false;
    }
    // The transposed images as the mirrors of one transpose (see `images4`).
    let e = transpose4(v);
    if e < v {
        return false;
    }
    let f = cols4(e);
    f >= v && rows4(e) >= v && rows4(f) >= v
}

#[inline]
fn cols4(v: u32) -> u32 {
    let v = ((v & 0x5555_5555) << 1) | ((v >> 1) & 0x5555_5555);
    ((v & 0x3333_3333) << 2) | ((v >> 2) & 0x3333_3333)
}

#[inline]
fn rows4(v: u32) -> u32 {
    // The bytes of each half swapped (a byte swap reverses all four, the rotation puts the
    // halves back), then the nibbles of each byte.
    let v = v.swap_bytes().rotate_left(16);
    ((v & 0x0f0f_0f0f) << 4) | ((v >> 4) & 0x0f0f_0f0f)
}

#[inline]
fn transpose4(mut v: u32) -> u32 {
    let d = (v ^ (v >> 3)) & 0x0a0a_0a0a;
    v ^= d ^ (d << 3);
    let d = (v ^ (v >> 6)) & 0x00cc_00cc;
    v ^ d ^ (d << 6)
}

/// The 8 images of two 4x4 boards packed in the halves of a `u32` (bit `row × 4 + col` of
/// each half) under the symmetries of the square, by bit tricks on both halves at once:
/// mirror the columns (reverse each row's nibble), mirror the rows (reverse the nibbles),
/// and transpose (two delta swaps). One transpose is enough: transposing a column mirror is
/// mirroring the rows of the transpose (and the other way round), so the four transposed
/// images are the mirrors of one.
#[inline]
fn images4(v: u32) -> [u32; 8] {
    let t = transpose4(v);
    let (a, b) = (v, cols4(v));
    let (e, f) = (t, cols4(t));
    [a, b, rows4(a), rows4(b), e, f, rows4(e), rows4(f)]
}

impl Notation for Quixo {
    fn title(&self) -> String {
        let n = self.n;
        format!(
            "Quixo {n}x{n}: take a blank cube or one of yours from the border and push it back in at an end of its row or column (type the two cells, e.g. a1 a{n}); a line of yours wins, making one of the opponent's loses."
        )
    }

    fn named_moves(&self, p: &State, _side: u8, out: &mut Vec<(String, State)>) {
        if self.terminal(p.x, p.o).is_some() {
            return;
        }
        for m in &self.moves {
            if let Some((x, o)) = self.apply(p.x, p.o, m) {
                let name = format!(
                    "{} {}",
                    self.cell_name(u32::from(m.s)),
                    self.cell_name(u32::from(m.e))
                );
                out.push((name, State { x, o }));
            }
        }
    }

    fn parse_move(&self, p: &State, side: u8, text: &str) -> Result<State, NotationError> {
        // `a1 a4`, `a1a4` and `a1-a4` are the same move.
        let t: String = text
            .trim()
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .collect::<String>()
            .to_ascii_lowercase();
        let mut moves = Vec::new();
        self.named_moves(p, side, &mut moves);
        if let Some((_, q)) = moves.iter().find(|(n, _)| n.replace(' ', "") == t) {
            return Ok(*q);
        }
        let hint = "a move is the cube taken and where it goes in, e.g. a1a4";
        Err(not_legal(
            text.trim(),
            Some(hint),
            moves.iter().map(|(n, _)| n.replace(' ', "")),
        ))
    }

    fn render(&self, p: &State, side: u8) -> String {
        // X's cubes are the mover's when X is to move.
        let (xs, os) = if side == 0 { (p.x, p.o) } else { (p.o, p.x) };
        Quixo::render(self, xs, os)
    }

    fn position_string(&self, p: &State, side: u8) -> String {
        let (xs, os) = if side == 0 { (p.x, p.o) } else { (p.o, p.x) };
        let grid = grid_string(u64::from(xs), u64::from(os), self.n, self.n);
        format!("{grid} {}", if side == 0 { 'x' } else { 'o' })
    }

    fn parse_position(&self, text: &str) -> Result<(State, u8), NotationError> {
        let (board, side) = split_side(text)?;
        let (xs, os) = parse_grid(board, self.n, self.n)?;
        let (xs, os) = (xs as u32, os as u32);
        let state = if side == 0 {
            State { x: xs, o: os }
        } else {
            State { x: os, o: xs }
        };
        let to_move = if side == 0 { 'x' } else { 'o' };
        if !Self::counts_fit(state.x, state.o, side) {
            return Err(format!(
                "{} x and {} o cubes with {to_move} to move cannot happen: x moves first, each player's first move places a cube of theirs, and a cube stays its owner's",
                xs.count_ones(),
                os.count_ones()
            ).into());
        }
        if self.arises(&state, side, ARISES_BUDGET) == Some(false) {
            return Err(format!(
                "no game reaches this board with {to_move} to move (every position that leads to it was traced back, none to the empty board)"
            ).into());
        }
        Ok((state, side))
    }

    fn position_help(&self) -> String {
        let n = self.n as usize;
        let row = ".".repeat(n);
        format!(
            "{n} rows of {n} cubes from the top, separated by '/', each x, o or ., then the side to move (e.g. {} o)",
            vec![row; n].join("/").replacen('.', "x", 1)
        )
    }

    fn side_names(&self) -> [String; 2] {
        ["X".into(), "O".into()]
    }

    /// The winner's lines: the mover's (made by the opponent) win, else the opponent's.
    fn winning_cells(&self, p: &State, _side: u8) -> Vec<(u32, u32)> {
        let lines = |cubes: u32| {
            self.lines
                .iter()
                .filter(|&&l| cubes & l == l)
                .fold(0, |a, &l| a | l)
        };
        let mut cells = lines(p.x);
        if cells == 0 {
            cells = lines(p.o);
        }
        let n = self.n;
        (0..n * n)
            .filter(|i| cells >> i & 1 != 0)
            .map(|i| (i / n, i % n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_solve::Value;
    use retrograde_tier::{check_game, solve, SolveOptions, Solved};

    #[test]
    fn rank_round_trips() {
        for n in [3, 4] {
            let q = Quixo::new(n).unwrap();
            let mut total = 0;
            for b in 0..=q.cells {
                let size = q.tier_size(b);
                total += size;
                let step = (size / 500).max(1);
                for i in (0..size).step_by(step as usize) {
                    let (x, o) = q.unrank_xo(b, i);
                    assert_eq!(x & o, 0);
                    assert_eq!((q.cells - (x | o).count_ones(), i), (b, q.rank_xo(x, o).1));
                    assert_eq!(q.rank_xo(x, o), (b, i));
                }
            }
            assert_eq!(total, q.states());
        }
    }

    #[test]
    fn for_each_in_visits_in_index_order() {
        let q = Quixo::new(3).unwrap();
        for b in 0..=9u8 {
            let size = q.tier_size(u32::from(b));
            for (lo, hi) in [(0, size), (size / 3, size / 3 + 5), (size - 1, size)] {
                let mut seen = Vec::new();
                q.for_each_in(b, lo..hi, |i, p| {
                    assert_eq!(q.unrank(b, i), p);
                    seen.push(i);
                });
                assert_eq!(seen, (lo..hi).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn pext_and_pdep_match_their_table_twins() {
        let q = Quixo::new(5).unwrap();
        let mut rng = 0x0123_4567_89ab_cdefu64;
        for _ in 0..100_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let (bits, mask) = (rng as u32 & q.full, (rng >> 32) as u32 & q.full);
            assert_eq!(q.pext(bits, mask), q.pext_table(bits, mask));
            assert_eq!(q.pdep(bits, mask), q.pdep_table(bits, mask));
        }
    }

    #[test]
    fn bit_trick_images_are_the_symmetries() {
        let q = Quixo::new(4).unwrap();
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..5000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let (x, o) = (
                (rng & 0xffff) as u32,
                (rng >> 16 & 0xffff) as u32 & !(rng as u32 & 0xffff),
            );
            let mut want: Vec<u32> = (0..8)
                .map(|g| q.transform(g, x) | q.transform(g, o) << 16)
                .collect();
            let mut got = images4(x | o << 16).to_vec();
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn keeps_the_api_promises() {
        check_game(&Quixo::new(3).unwrap(), 20_000).unwrap();
        check_game(&Quixo::new(4).unwrap(), 300).unwrap();
    }

    #[test]
    fn notation_round_trips() {
        let q = Quixo::new(4).unwrap();
        let (p, side) = retrograde_tier::replay(&q, &["a4 d4", "a1-a4"]).unwrap();
        assert_eq!(side, 0);
        let text = q.position_string(&p, side);
        assert_eq!(text, "o..x/..../..../.... x");
        assert_eq!(q.parse_position(&text).unwrap(), (p, side));
        assert!(q
            .parse_position("o..x/..../..../....")
            .unwrap_err()
            .to_string()
            .contains("side"));
        assert!(q
            .parse_position("o..x/..../.... x")
            .unwrap_err()
            .to_string()
            .contains("rows"));
        let e = retrograde_tier::replay(&q, &["b2 b1"]).unwrap_err();
        assert!(
            e.to_string().contains("move 1") && e.to_string().contains("a1a4"),
            "{e}"
        );
    }

    #[test]
    fn exactly_the_states_play_reaches_are_read_as_positions() {
        // 3x3, every board with each side to move, against the states play reaches from
        // the empty board (4x4 was checked the same way, all 86 million: too slow here).
        let q = Quixo::new(3).unwrap();
        let mut reached = std::collections::HashSet::new();
        let mut todo = vec![(State { x: 0, o: 0 }, 0u8)];
        reached.insert(todo[0]);
        let mut out = Vec::new();
        while let Some((p, side)) = todo.pop() {
            out.clear();
            q.named_moves(&p, side, &mut out);
            for &(_, c) in &out {
                if reached.insert((c, side ^ 1)) {
                    todo.push((c, side ^ 1));
                }
            }
        }
        assert_eq!(reached.len(), 32_027);
        let mut accepted = 0;
        for (x, o) in retrograde_tier::notation::every_board(9) {
            for side in ["x", "o"] {
                let text = format!("{} {side}", grid_string(x, o, 3, 3));
                match q.parse_position(&text) {
                    Ok(p) => {
                        assert!(reached.contains(&p), "{text} accepted");
                        accepted += 1;
                    }
                    Err(e) => {
                        assert!(
                            e.to_string().contains("cannot happen")
                                || e.to_string().contains("no game reaches")
                        );
                    }
                }
            }
        }
        assert_eq!(accepted, 32_027);
        let e = q.parse_position("xxx/.../... x").unwrap_err();
        assert!(e.to_string().contains("cannot happen"), "{e}");
        let e = q.parse_position("x../.o./... x").unwrap_err();
        assert!(e.to_string().contains("no game reaches"), "{e}");
    }

    #[test]
    fn moves_and_unmoves_are_inverse() {
        let q = Quixo::new(4).unwrap();
        // 4x4: 4 corners with 2 ends each, 8 edge cells with 3.
        assert_eq!(q.moves.len(), 4 * 2 + 8 * 3);
        let mut rng = 0x1234_5678_9abc_def0u64;
        for _ in 0..2000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let b = (rng % 17) as u32;
            let (x, o) = q.unrank_xo(b, (rng >> 20) % q.tier_size(b));
            for m in &q.moves {
                if let Some((cx, co)) = q.apply(x, o, m) {
                    let from_blank = (x | o) >> m.s & 1 == 0;
                    assert_eq!(q.unapply(cx, co, m, from_blank), Some((x, o)));
                    assert_eq!(q.rank_xo(cx, co).0, if from_blank { b - 1 } else { b });
                }
            }
        }
        // One move by hand: X takes the blank a4 (top left) and pushes it in at d4.
        let (cx, co) = q.apply(0, 0, &q.moves[0]).unwrap();
        assert_eq!((cx, co), (0, 1 << 3));
        assert_eq!(q.cell_name(3), "d4");
    }

    /// The rules written plainly on a grid of chars, for comparison with the bit tricks.
    #[allow(clippy::needless_range_loop)]
    fn naive_moves(n: usize, x: u32, o: u32) -> Vec<(u32, u32)> {
        let get = |g: &Vec<Vec<char>>| {
            let mut out = (0u32, 0u32);
            for r in 0..n {
                for c in 0..n {
                    match g[r][c] {
                        // After the move the opponent is to move: swap.
                        'X' => out.1 |= 1 << (r * n + c),
                        'O' => out.0 |= 1 << (r * n + c),
                        _ => {}
                    }
                }
            }
            out
        };
        let mut grid = vec![vec!['.'; n]; n];
        for r in 0..n {
            for c in 0..n {
                let b = 1 << (r * n + c);
                grid[r][c] = if x & b != 0 {
                    'X'
                } else if o & b != 0 {
                    'O'
                } else {
                    '.'
                };
            }
        }
        let mut out = Vec::new();
        for r in 0..n {
            for c in 0..n {
                let border = r == 0 || c == 0 || r == n - 1 || c == n - 1;
                if !border || grid[r][c] == 'O' {
                    continue;
                }
                // Push in from the left or right end of the row, the top or bottom of the
                // column, never back where it came from.
                if c != 0 {
                    let mut g = grid.clone();
                    for k in (1..=c).rev() {
                        g[r][k] = g[r][k - 1];
                    }
                    g[r][0] = 'X';
                    out.push(get(&g));
                }
                if c != n - 1 {
                    let mut g = grid.clone();
                    for k in c..n - 1 {
                        g[r][k] = g[r][k + 1];
                    }
                    g[r][n - 1] = 'X';
                    out.push(get(&g));
                }
                if r != 0 {
                    let mut g = grid.clone();
                    for k in (1..=r).rev() {
                        g[k][c] = g[k - 1][c];
                    }
                    g[0][c] = 'X';
                    out.push(get(&g));
                }
                if r != n - 1 {
                    let mut g = grid.clone();
                    for k in r..n - 1 {
                        g[k][c] = g[k + 1][c];
                    }
                    g[n - 1][c] = 'X';
                    out.push(get(&g));
                }
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn moves_follow_the_rules() {
        for n in [3u32, 4] {
            let q = Quixo::new(n).unwrap();
            let step = if n == 3 { 1 } else { 997 };
            for b in 0..=q.cells {
                for i in (0..q.tier_size(b)).step_by(step) {
                    let (x, o) = q.unrank_xo(b, i);
                    let mut got: Vec<(u32, u32)> =
                        q.moves.iter().filter_map(|m| q.apply(x, o, m)).collect();
                    got.sort_unstable();
                    assert_eq!(got, naive_moves(n as usize, x, o), "\n{}", q.render(x, o));
                }
            }
        }
    }

    /// A naive solver over every state of the 3x3 board: repeat "a state is won if a move
    /// reaches a lost state, lost if every move reaches a won one" to a fixpoint, counting
    /// rounds as remoteness.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn three_by_three_agrees_with_value_iteration() {
        let q = Quixo::new(3).unwrap();
        let s = solve(&q, &SolveOptions::default()).unwrap();
        let value = |x: u32, o: u32| s.value(&State { x, o }).unwrap();
        let n = 3usize.pow(9);
        let board = |i: usize| {
            let (mut x, mut o, mut k) = (0u32, 0u32, i);
            for c in 0..9 {
                match k % 3 {
                    1 => x |= 1 << c,
                    2 => o |= 1 << c,
                    _ => {}
                }
                k /= 3;
            }
            (x, o)
        };
        let index = |x: u32, o: u32| {
            (0..9).rev().fold(0usize, |a, c| {
                a * 3 + (x >> c & 1) as usize + 2 * (o >> c & 1) as usize
            })
        };
        let mut val: Vec<Option<Value>> = (0..n)
            .map(|i| {
                let (x, o) = board(i);
                q.terminal(x, o).map(|t| match t {
                    Primitive::Win => Value::Win(0),
                    _ => Value::Loss(0),
                })
            })
            .collect();
        let children: Vec<Vec<usize>> = (0..n)
            .map(|i| {
                let (x, o) = board(i);
                q.legal_moves(x, o)
                    .iter()
                    .map(|&(_, _, (a, b))| index(a, b))
                    .collect()
            })
            .collect();
        for round in 1.. {
            let mut next = val.clone();
            for i in 0..n {
                if val[i].is_some() || children[i].is_empty() {
                    continue;
                }
                let cv: Vec<Option<Value>> = children[i].iter().map(|&c| val[c]).collect();
                if cv.iter().any(|v| matches!(v, Some(Value::Loss(_)))) {
                    next[i] = Some(Value::Win(round));
                } else if cv.iter().all(|v| matches!(v, Some(Value::Win(_)))) {
                    next[i] = Some(Value::Loss(round));
                }
            }
            if next == val {
                break;
            }
            val = next;
        }
        for i in 0..n {
            let (x, o) = board(i);
            let want = val[i].unwrap_or(Value::Draw);
            assert_eq!(value(x, o), Some(want), "\n{}", q.render(x, o));
        }
        // Reachable positions by a plain breadth-first search over (state, parity).
        let mut seen = std::collections::HashSet::from([(0u32, 0u32, 0u8)]);
        let mut todo = vec![(0u32, 0u32, 0u8)];
        let (mut moves, mut win, mut loss) = (0u64, 0u64, 0u64);
        while let Some((x, o, p)) = todo.pop() {
            match value(x, o).unwrap() {
                Value::Win(_) => win += 1,
                Value::Loss(_) => loss += 1,
                _ => {}
            }
            for (_, _, (cx, co)) in q.legal_moves(x, o) {
                moves += 1;
                if seen.insert((cx, co, 1 - p)) {
                    todo.push((cx, co, 1 - p));
                }
            }
        }
        let st = s.stats();
        assert_eq!(
            (st.positions, st.moves, st.win, st.loss),
            (seen.len() as u64, moves, win, loss)
        );
        let states: std::collections::HashSet<_> = seen.iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(st.states, states.len() as u64);
        // Up to symmetry: count orbits directly.
        let canon = |x: u32, o: u32, p: u8| {
            (0..8)
                .map(|g| (q.transform(g, x), q.transform(g, o), p))
                .min()
                .unwrap()
        };
        let orbits: std::collections::HashSet<_> =
            seen.iter().map(|&(x, o, p)| canon(x, o, p)).collect();
        assert_eq!(st.classes, orbits.len() as u64);
        assert_eq!(st.win + st.loss + st.draw, st.positions);
        assert!(st.classes * 8 >= st.positions);
        assert!(st.states <= st.positions);
    }
}
