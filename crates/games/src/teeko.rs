//! Teeko (John Scarne, 1937) on a 5x5 board with four pieces each, and its smaller variants.
//!
//! The first player starts. In the *drop phase* the players alternately place a piece on any
//! empty cell until both have placed all four; then, in the *move phase*, a player moves one
//! of their pieces to an adjacent empty cell in any of the 8 directions. Four of one's pieces
//! in a row, column or diagonal, or on the four cells of a 2x2 square, win at once. The game
//! from the start is a draw (Guy Steele, 1998): perfect play goes on for ever.
//!
//! The library also plays the same rules on an `n × n` board (n = 3 to 5) with `k` pieces
//! each (k = 3 or 4, k ≤ n): `k` in a line wins, and the 2x2 square too when `k` = 4. The
//! small variants are there to be checked against independent solvers; the command line
//! offers them as `--size` and `--pieces`.
//!
//! # Rules for the tier engine
//! A state is the board seen by the player to move: `x` = the mover's pieces, `o` = the
//! opponent's (bit `row × n + col`, row 0 at the top). The colours swap after every move, so
//! a state's value is the value for whichever player is to move there
//! ([`TierGame::MOVER_VIEW`]). Tier `t` holds the states with `t` pieces on the board: the
//! drop tiers `0..2k` lead each to the next, and the move phase (tier `2k`) is one loopy
//! tier. In tier `t` the mover has `t / 2` pieces and the opponent the rest, so a tier is
//! indexed densely and exactly: the colex rank of the mover's cells among the `C(n², a)`
//! sets, times the colex rank of the opponent's among the cells left. The moves of the move
//! phase are undone by un-moves (step a piece of the previous mover back), and the 8
//! symmetries of the square reduce what is solved.
//!
//! # Notation
//! Cells are named `a1` .. `e5`: files a to e from left to right, ranks 1 to 5 from the bottom
//! up. A drop is the cell, `c3`; a step is two cells, `c3-d4` (also `c3d4` or `c3 d4`). A
//! position is written row by row from the top, `/` between rows, `x` (the first player's
//! pieces), `o` or `.` a cell, then the side to move: `x...o/...../..x../...../..... o`.
//!
//! ```
//! use retrograde_games::teeko::Teeko;
//! use retrograde_tier::{solve, SolveOptions, Solved};
//! use retrograde_solve::Outcome;
//! // Three pieces each on a 3x3 board: neither player can force a line.
//! let t = Teeko::new(3, 3).unwrap();
//! let s = solve(&t, &SolveOptions::default()).unwrap();
//! assert_eq!(s.start_value().unwrap().unwrap().outcome(), Outcome::Draw);
//! ```

use crate::about::{About, Param};
use crate::GameError;
use retrograde_graph::Primitive;
use retrograde_tier::index::Colex;
use retrograde_tier::notation::{grid_string, not_legal, parse_grid, split_side};
use retrograde_tier::NotationError;
use retrograde_tier::{
    Alternate, Dense, DenseIndex, Notation, SymmetricGame, Symmetries, TierGame, UnmoveGame,
    Unmoves, Unscored,
};
use std::fmt;

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "teeko",
    about: "Teeko (John Scarne): drop four pieces, then step them; four in a line or a square wins",
    help: "Teeko on a 5x5 board, four pieces each; the first player (x) starts. First \
           the players drop their pieces in turn on empty cells; once all eight are on \
           the board, a move steps one of your pieces to an empty cell next to it (8 \
           directions). Four of yours in a row, column or diagonal, or on the four cells \
           of a 2x2 square, win at once. Perfect play never ends: the start is a draw \
           (Steele, 1998). A drop is a cell, c3 (files a-e from the left, ranks 1-5 from \
           the bottom); a step is c3-d4. A position (--position) is rows from the top \
           separated by '/', cells x, o or ., then the side to move: \
           x...o/...../..x../...../..... o. Every state (the board seen by the player to \
           move, one per symmetry class) is solved: 9 tiers, the last (the move phase, \
           75,710,250 boards) loopy; about 300 MiB and 46 s on 2 shared cores. --size and \
           --pieces play the same rules on a smaller board or with three pieces (k in a \
           line; the square only with four).",
    examples: &[
        "teeko",
        "teeko --db teeko --resume",
        "teeko --size 4 --pieces 3 --output json",
    ],
    params: &[
        Param::number("size", "The side of the board: 3, 4 or 5.", 1, 64, "5"),
        Param::number(
            "pieces",
            "Pieces each: 3 or 4 (at most the size).",
            1,
            64,
            "4",
        ),
    ],
    moves: Some("a cell to drop on, such as c3, then a step such as c3-d4"),
    symmetry: "rotation and reflection",
};

/// A state: the board seen by the player to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct State {
    /// The mover's pieces.
    pub x: u32,
    /// The opponent's pieces.
    pub o: u32,
}

/// A winning shape, found by shifting: the cells `c` of `start` such that `c + s` holds a
/// piece too for every shift `s`.
#[derive(Clone, Debug)]
struct Shape {
    start: u32,
    shifts: Vec<u32>,
}

/// Teeko rules for one board and number of pieces, with the tables its index and symmetries
/// use.
pub struct Teeko {
    n: u32,
    k: u32,
    cells: u32,
    full: u32,
    /// `adj[c]`: the cells next to `c` (8 directions).
    adj: Vec<u32>,
    shapes: Vec<Shape>,
    colex: Colex,
    /// `sym[(g × n + row) × 32 + bits]`: where symmetry `g` (of the 8 of the square) sends
    /// the cells `bits` of row `row`.
    sym: Vec<u32>,
}

impl fmt::Debug for Teeko {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Teeko({}x{}, {} pieces)", self.n, self.n, self.k)
    }
}

impl Teeko {
    /// Standard Teeko: 5x5, four pieces each.
    pub fn standard() -> Teeko {
        Teeko::new(5, 4).expect("the standard game is supported")
    }

    /// An `n × n` board with `k` pieces each.
    ///
    /// # Errors
    /// A size other than 3 to 5, or a number of pieces other than 3 or 4 (or more than `n`).
    pub fn new(n: u32, k: u32) -> Result<Teeko, GameError> {
        if !(3..=5).contains(&n) {
            return Err(GameError::SquareBoard { n });
        }
        if !(3..=4).contains(&k) || k > n {
            return Err(GameError::TeekoPieces { n, k });
        }
        let cells = n * n;
        let full = (1u32 << cells) - 1;
        let at = |r: u32, c: u32| 1u32 << (r * n + c);
        let mut adj = vec![0u32; cells as usize];
        for r in 0..n as i32 {
            for c in 0..n as i32 {
                for dr in -1..=1 {
                    for dc in -1..=1 {
                        let (rr, cc) = (r + dr, c + dc);
                        if (dr, dc) != (0, 0)
                            && (0..n as i32).contains(&rr)
                            && (0..n as i32).contains(&cc)
                        {
                            adj[(r * n as i32 + c) as usize] |= at(rr as u32, cc as u32);
                        }
                    }
                }
            }
        }
        // Start cells of the lines of k and of the 2x2 square, and the steps along them.
        let starts = |rows: std::ops::Range<u32>, cols: std::ops::Range<u32>| {
            let mut m = 0u32;
            for r in rows {
                for c in cols.clone() {
                    m |= at(r, c);
                }
            }
            m
        };
        let line = |step: u32| (1..k).map(|i| i * step).collect::<Vec<u32>>();
        let mut shapes = vec![
            Shape {
                start: starts(0..n, 0..n - k + 1),
                shifts: line(1),
            },
            Shape {
                start: starts(0..n - k + 1, 0..n),
                shifts: line(n),
            },
            Shape {
                start: starts(0..n - k + 1, 0..n - k + 1),
                shifts: line(n + 1),
            },
            Shape {
                start: starts(0..n - k + 1, k - 1..n),
                shifts: line(n - 1),
            },
        ];
        if k == 4 {
            shapes.push(Shape {
                start: starts(0..n - 1, 0..n - 1),
                shifts: vec![1, n, n + 1],
            });
        }
        let transform = |g: u32, r: u32, c: u32| -> (u32, u32) {
            let (r, c) = if g & 4 != 0 { (c, r) } else { (r, c) };
            let r = if g & 1 != 0 { n - 1 - r } else { r };
            let c = if g & 2 != 0 { n - 1 - c } else { c };
            (r, c)
        };
        let mut sym = vec![0u32; (8 * n * 32) as usize];
        for g in 0..8 {
            for r in 0..n {
                for bits in 0..1u32 << n {
                    let mut out = 0;
                    for c in 0..n {
                        if bits >> c & 1 == 1 {
                            let (tr, tc) = transform(g, r, c);
                            out |= at(tr, tc);
                        }
                    }
                    sym[((g * n + r) * 32 + bits) as usize] = out;
                }
            }
        }
        Ok(Teeko {
            n,
            k,
            cells,
            full,
            adj,
            shapes,
            colex: Colex::new(cells),
            sym,
        })
    }

    /// The side of the board.
    pub fn size(&self) -> u32 {
        self.n
    }

    /// Pieces each.
    pub fn pieces(&self) -> u32 {
        self.k
    }

    /// The tier of the move phase (all pieces on the board).
    fn move_tier(&self) -> u8 {
        (2 * self.k) as u8
    }

    /// Pieces of the mover and of the opponent in tier `t`.
    #[inline]
    fn counts(t: u8) -> (u32, u32) {
        let t = u32::from(t);
        (t / 2, t - t / 2)
    }

    /// Whether `pieces` form a winning shape.
    #[inline]
    pub fn wins(&self, pieces: u32) -> bool {
        if pieces.count_ones() < self.k {
            return false;
        }
        self.shapes.iter().any(|s| {
            s.shifts
                .iter()
                .fold(pieces & s.start, |t, &d| t & (pieces >> d))
                != 0
        })
    }

    /// The state after a move of the mover from `from` to `to` (a drop when `from` is
    /// `None`), in the next player's view.
    #[inline]
    fn play(p: &State, from: Option<u32>, to: u32) -> State {
        let x = match from {
            Some(f) => p.x ^ (1 << f) ^ (1 << to),
            None => p.x | 1 << to,
        };
        State { x: p.o, o: x }
    }

    /// The legal moves from `p` as (from, to): `from` is `None` for a drop; none when the
    /// game is over. In the order of [`TierGame::moves`].
    pub fn legal_moves(&self, p: &State) -> Vec<(Option<u32>, u32)> {
        let mut out = Vec::new();
        if self.wins(p.o) {
            return out;
        }
        let empty = self.full & !(p.x | p.o);
        if self.tier(p) < self.move_tier() {
            out.extend(bits(empty).map(|c| (None, c)));
        } else {
            for s in bits(p.x) {
                out.extend(bits(self.adj[s as usize] & empty).map(|t| (Some(s), t)));
            }
        }
        out
    }

    #[inline]
    fn transform(&self, g: usize, v: u32) -> u32 {
        let n = self.n as usize;
        let t = &self.sym[g * n * 32..(g + 1) * n * 32];
        let mask = (1u32 << n) - 1;
        let mut out = 0;
        for r in 0..n {
            out |= t[r * 32 + ((v >> (r * n)) & mask) as usize];
        }
        out
    }

    /// Spreads the low bits of `bits` over the set positions of `mask`, in order (PDEP).
    #[inline]
    fn pdep(bits: u32, mask: u32) -> u32 {
        #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
        {
            // SAFETY: compiled only for CPUs with BMI2 (the target feature is on at compile
            // time, see .cargo/config.toml); PDEP reads and writes registers only.
            unsafe { std::arch::x86_64::_pdep_u32(bits, mask) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
        {
            retrograde_tier::index::pdep(u64::from(bits), u64::from(mask)) as u32
        }
    }

    /// A cell's name, `a1` = bottom left.
    pub fn cell_name(&self, cell: u32) -> String {
        let (r, c) = (cell / self.n, cell % self.n);
        format!("{}{}", (b'a' + c as u8) as char, self.n - r)
    }

    /// The board as text from the first player's side: `X` the first player's pieces, `O`
    /// the second's, `.` empty; rows top first, with file letters and rank numbers.
    fn picture(&self, xs: u32, os: u32) -> String {
        let mut out = String::new();
        for r in 0..self.n {
            out.push_str(&format!("{} ", self.n - r));
            let row: Vec<&str> = (0..self.n)
                .map(|c| {
                    let b = 1 << (r * self.n + c);
                    if xs & b != 0 {
                        "X"
                    } else if os & b != 0 {
                        "O"
                    } else {
                        "."
                    }
                })
                .collect();
            out.push_str(&row.join(" "));
            out.push('\n');
        }
        out.push_str("  ");
        let files: Vec<String> = (0..self.n)
            .map(|c| ((b'a' + c as u8) as char).to_string())
            .collect();
        out.push_str(&files.join(" "));
        out.push('\n');
        out
    }
}

/// The set bits of `v`, lowest first.
#[inline]
fn bits(mut v: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (v != 0).then(|| {
            let c = v.trailing_zeros();
            v &= v - 1;
            c
        })
    })
}

/// The next larger number with as many set bits (Gosper's hack): the next set in colex
/// order. `v` must not be 0.
#[inline]
fn next_set(v: u32) -> u32 {
    let c = v & v.wrapping_neg();
    let r = v.wrapping_add(c);
    (((r ^ v) >> 2) / c) | r
}

impl TierGame for Teeko {
    type Position = State;
    type Tier = u8;
    type Layout = Dense;
    type Parents = Unmoves;
    type Symmetry = Symmetries;
    type Turn = Alternate;
    type Score = Unscored;
    const MOVER_VIEW: bool = true;

    fn name(&self) -> String {
        if (self.n, self.k) == (5, 4) {
            "teeko".into()
        } else {
            format!("teeko {}x{} {} pieces", self.n, self.n, self.k)
        }
    }

    fn start(&self) -> Option<State> {
        Some(State { x: 0, o: 0 })
    }

    #[inline]
    fn tier(&self, p: &State) -> u8 {
        (p.x | p.o).count_ones() as u8
    }

    fn child_tiers(&self, t: u8, out: &mut Vec<u8>) {
        if t < self.move_tier() {
            out.push(t + 1);
        }
    }

    fn tier_name(&self, t: u8) -> String {
        if t < self.move_tier() {
            format!("drop{t}")
        } else {
            "move".into()
        }
    }

    /// A shape of the opponent's (made by their last move) loses; the mover cannot have
    /// one (they would have won before).
    #[inline]
    fn primitive(&self, p: &State) -> Option<Primitive> {
        self.wins(p.o).then_some(Primitive::Loss)
    }

    #[inline]
    fn moves(&self, p: &State, out: &mut Vec<State>) {
        let empty = self.full & !(p.x | p.o);
        if self.tier(p) < self.move_tier() {
            out.extend(bits(empty).map(|c| Teeko::play(p, None, c)));
        } else {
            for s in bits(p.x) {
                out.extend(bits(self.adj[s as usize] & empty).map(|t| Teeko::play(p, Some(s), t)));
            }
        }
    }
}

impl DenseIndex for Teeko {
    fn tier_size(&self, t: u8) -> u64 {
        let (a, b) = Teeko::counts(t);
        self.colex.binom(self.cells, a) * self.colex.binom(self.cells - a, b)
    }

    #[inline]
    fn rank(&self, p: &State) -> u64 {
        let (a, b) = (p.x.count_ones(), p.o.count_ones());
        // The opponent's cells numbered among the cells the mover leaves free.
        let mut ro = 0;
        for (j, t) in bits(p.o).enumerate() {
            let below = (p.x & ((1u32 << t) - 1)).count_ones();
            ro += self.colex.binom(t - below, j as u32 + 1);
        }
        self.colex.rank(u64::from(p.x)) * self.colex.binom(self.cells - a, b) + ro
    }

    #[inline]
    fn unrank(&self, t: u8, i: u64) -> Option<State> {
        let (a, b) = Teeko::counts(t);
        let m = self.colex.binom(self.cells - a, b);
        let x = self.colex.unrank(i / m, a) as u32;
        let free = self.full & !x;
        // Sets of b among the first cells - a numbers: the colex unrank over n² cells gives
        // the same set for ranks below C(cells - a, b).
        let oc = self.colex.unrank(i % m, b) as u32;
        Some(State {
            x,
            o: Teeko::pdep(oc, free),
        })
    }

    fn for_each_in(
        &self,
        t: u8,
        range: std::ops::Range<u64>,
        mut f: impl FnMut(u64, Option<State>),
    ) {
        // Runs of states share the mover's cells; inside a run the opponent's count up in
        // colex order among the free cells.
        let (a, b) = Teeko::counts(t);
        let m = self.colex.binom(self.cells - a, b);
        let mut i = range.start;
        while i < range.end {
            let x = self.colex.unrank(i / m, a) as u32;
            let free = self.full & !x;
            let mut oc = self.colex.unrank(i % m, b) as u32;
            let end = ((i / m + 1) * m).min(range.end);
            while i < end {
                f(
                    i,
                    Some(State {
                        x,
                        o: Teeko::pdep(oc, free),
                    }),
                );
                if oc != 0 {
                    oc = next_set(oc);
                }
                i += 1;
            }
        }
    }
}

impl UnmoveGame for Teeko {
    #[inline]
    fn unmoves(&self, p: &State, out: &mut Vec<State>) {
        // Only the move phase has moves inside its tier: step a piece of the previous mover
        // (the opponent now) back to an empty neighbour.
        if self.tier(p) < self.move_tier() {
            return;
        }
        let empty = self.full & !(p.x | p.o);
        for t in bits(p.o) {
            for s in bits(self.adj[t as usize] & empty) {
                out.push(State {
                    x: p.o ^ (1 << t) ^ (1 << s),
                    o: p.x,
                });
            }
        }
    }
}

impl SymmetricGame for Teeko {
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

    #[inline]
    fn canonical(&self, p: &State) -> State {
        let mut best = *p;
        for g in 1..8 {
            let x = self.transform(g, p.x);
            if x > best.x {
                continue;
            }
            let q = State {
                x,
                o: self.transform(g, p.o),
            };
            if q < best {
                best = q;
            }
        }
        best
    }

    #[inline]
    fn is_canonical(&self, p: &State) -> bool {
        (1..8).all(|g| {
            let x = self.transform(g, p.x);
            x > p.x || (x == p.x && self.transform(g, p.o) >= p.o)
        })
    }
}

impl Notation for Teeko {
    fn title(&self) -> String {
        let (n, k) = (self.n, self.k);
        let shapes = if k == 4 { " or a 2x2 square" } else { "" };
        format!(
            "Teeko {n}x{n}: place your {k} pieces one at a time on empty cells (type the cell, e.g. c3), then move one piece a step in any direction to an empty cell (e.g. c3-d4); {k} of yours in a line{shapes} wins."
        )
    }

    fn named_moves(&self, p: &State, _side: u8, out: &mut Vec<(String, State)>) {
        for (from, to) in self.legal_moves(p) {
            let name = match from {
                Some(f) => format!("{}-{}", self.cell_name(f), self.cell_name(to)),
                None => self.cell_name(to),
            };
            out.push((name, Teeko::play(p, from, to)));
        }
    }

    fn parse_move(&self, p: &State, side: u8, text: &str) -> Result<State, NotationError> {
        // `c3-d4`, `c3d4` and `c3 d4` are the same step.
        let want: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .collect::<String>()
            .to_ascii_lowercase();
        let mut moves = Vec::new();
        self.named_moves(p, side, &mut moves);
        if let Some((_, q)) = moves.iter().find(|(n, _)| n.replace('-', "") == want) {
            return Ok(*q);
        }
        let what = if self.tier(p) < self.move_tier() {
            "a drop is an empty cell, e.g. c3"
        } else {
            "a step is a piece of yours and an empty cell next to it, e.g. c3-d4"
        };
        Err(not_legal(
            text.trim(),
            Some(what),
            moves.into_iter().map(|(n, _)| n),
        ))
    }

    fn render(&self, p: &State, side: u8) -> String {
        let (xs, os) = if side == 0 { (p.x, p.o) } else { (p.o, p.x) };
        self.picture(xs, os)
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
        let (nx, no, k) = (xs.count_ones(), os.count_ones(), self.k);
        let counts_fit = if side == 0 {
            nx == no && nx <= k
        } else {
            (nx == no + 1 && nx <= k) || (nx == k && no == k)
        };
        if !counts_fit {
            return Err(format!(
                "{nx} x and {no} o pieces with {} to move cannot happen: x starts, the players drop in turn up to {k} pieces each",
                if side == 0 { 'x' } else { 'o' }
            ).into());
        }
        let state = if side == 0 {
            State { x: xs, o: os }
        } else {
            State { x: os, o: xs }
        };
        if self.wins(state.x) {
            return Err("the side to move has a winning shape: the game ended before".into());
        }
        Ok((state, side))
    }

    fn position_help(&self) -> String {
        let n = self.n as usize;
        let row = ".".repeat(n);
        format!(
            "{n} rows of {n} cells from the top, separated by '/', each x (the first player), o or ., then the side to move (e.g. {} o)",
            vec![row; n].join("/").replacen('.', "x", 1)
        )
    }

    fn side_names(&self) -> [String; 2] {
        ["X".into(), "O".into()]
    }

    /// A winner has exactly `k` pieces on the board, and all of them make the shape.
    fn winning_cells(&self, p: &State, _side: u8) -> Vec<(u32, u32)> {
        if !self.wins(p.o) {
            return Vec::new();
        }
        let n = self.n;
        (0..n * n)
            .filter(|i| p.o >> i & 1 != 0)
            .map(|i| (i / n, i % n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_solve::{Outcome, Value};
    use retrograde_tier::{check_game, explicit_graph, solve, SolveOptions, Solved};

    /// The rules on a grid of characters, written without bit tricks: the moves of the
    /// mover `'x'` on `board` (row-major, top row first), as boards seen by the next player.
    fn naive_moves(n: usize, k: usize, board: &[u8]) -> Vec<Vec<u8>> {
        let swap = |b: &[u8]| -> Vec<u8> {
            b.iter()
                .map(|&c| match c {
                    b'x' => b'o',
                    b'o' => b'x',
                    c => c,
                })
                .collect()
        };
        if naive_wins(n, k, board, b'o') {
            return Vec::new();
        }
        let mine = board.iter().filter(|&&c| c == b'x').count();
        let theirs = board.iter().filter(|&&c| c == b'o').count();
        let mut out = Vec::new();
        if mine + theirs < 2 * k {
            for i in 0..n * n {
                if board[i] == b'.' {
                    let mut b = board.to_vec();
                    b[i] = b'x';
                    out.push(swap(&b));
                }
            }
        } else {
            for i in 0..n * n {
                if board[i] != b'x' {
                    continue;
                }
                let (r, c) = ((i / n) as i64, (i % n) as i64);
                for dr in -1..=1i64 {
                    for dc in -1..=1i64 {
                        let (rr, cc) = (r + dr, c + dc);
                        if (dr, dc) == (0, 0)
                            || rr < 0
                            || cc < 0
                            || rr >= n as i64
                            || cc >= n as i64
                        {
                            continue;
                        }
                        let j = (rr * n as i64 + cc) as usize;
                        if board[j] == b'.' {
                            let mut b = board.to_vec();
                            b[i] = b'.';
                            b[j] = b'x';
                            out.push(swap(&b));
                        }
                    }
                }
            }
        }
        out
    }

    /// Whether `who` has k in a line (or, with 4 pieces, a 2x2 square) on a character grid.
    fn naive_wins(n: usize, k: usize, board: &[u8], who: u8) -> bool {
        let at = |r: i64, c: i64| {
            r >= 0
                && c >= 0
                && r < n as i64
                && c < n as i64
                && board[(r * n as i64 + c) as usize] == who
        };
        for r in 0..n as i64 {
            for c in 0..n as i64 {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    if (0..k as i64).all(|i| at(r + i * dr, c + i * dc)) {
                        return true;
                    }
                }
                if k == 4 && at(r, c) && at(r, c + 1) && at(r + 1, c) && at(r + 1, c + 1) {
                    return true;
                }
            }
        }
        false
    }

    fn grid(t: &Teeko, p: &State) -> Vec<u8> {
        (0..t.cells)
            .map(|c| {
                if p.x >> c & 1 == 1 {
                    b'x'
                } else if p.o >> c & 1 == 1 {
                    b'o'
                } else {
                    b'.'
                }
            })
            .collect()
    }

    #[test]
    fn keeps_the_api_promises() {
        for (n, k) in [(3, 3), (4, 3), (4, 4), (5, 3), (5, 4)] {
            check_game(&Teeko::new(n, k).unwrap(), 3000).unwrap();
        }
    }

    #[test]
    fn moves_follow_the_rules() {
        for (n, k) in [(3, 3), (4, 4), (5, 4)] {
            let t = Teeko::new(n, k).unwrap();
            for tier in 0..=t.move_tier() {
                let size = t.tier_size(tier);
                let step = (size / 2000).max(1);
                for i in (0..size).step_by(step as usize) {
                    let p = t.unrank(tier, i).unwrap();
                    assert_eq!(t.rank(&p), i);
                    let mut got: Vec<Vec<u8>> = {
                        let mut v = Vec::new();
                        if t.primitive(&p).is_none() {
                            t.moves(&p, &mut v);
                        }
                        v.iter().map(|q| grid(&t, q)).collect()
                    };
                    got.sort();
                    let mut want = naive_moves(n as usize, k as usize, &grid(&t, &p));
                    want.sort();
                    assert_eq!(got, want, "\n{}", t.picture(p.x, p.o));
                    assert_eq!(
                        t.wins(p.o),
                        naive_wins(n as usize, k as usize, &grid(&t, &p), b'o')
                    );
                }
            }
        }
    }

    #[test]
    fn for_each_in_visits_in_index_order() {
        let t = Teeko::new(4, 4).unwrap();
        for tier in 0..=8u8 {
            let size = t.tier_size(tier);
            let (lo, hi) = (size / 3, (size / 3 + 2000).min(size));
            let mut next = lo;
            t.for_each_in(tier, lo..hi, |i, p| {
                assert_eq!(i, next);
                assert_eq!(p, t.unrank(tier, i));
                next += 1;
            });
            assert_eq!(next, hi);
        }
    }

    #[test]
    fn pdep_matches_the_portable_one() {
        // The BMI2 instruction (when compiled in) against the plain loop of the tier crate.
        let mut v = 0x9e37_79b9u32;
        for _ in 0..10_000 {
            v ^= v << 13;
            v ^= v >> 17;
            v ^= v << 5;
            let (bits, mask) = (v & 0xf, v.rotate_left(11) & 0x1ff_ffff);
            let want = retrograde_tier::index::pdep(u64::from(bits), u64::from(mask)) as u32;
            assert_eq!(Teeko::pdep(bits, mask), want, "{bits:#x} {mask:#x}");
        }
    }

    #[test]
    fn the_tiers_hold_every_board() {
        // Standard Teeko: 12,650 x 5,985 boards in the move phase.
        let t = Teeko::standard();
        assert_eq!(t.tier_size(8), 75_710_250);
        assert_eq!(t.tier_size(0), 1);
        assert_eq!(t.tier_size(1), 25);
        assert_eq!(t.tier_size(7), 2300 * 7315);
    }

    /// Every position of a small variant against the graph engine on its explicit graph,
    /// and the positions reachable from the start counted by a plain search.
    #[test]
    fn small_variants_agree_with_the_graph_engine() {
        for (n, k) in [(3, 3), (4, 3)] {
            let t = Teeko::new(n, k).unwrap();
            let s = solve(&t, &SolveOptions::default()).unwrap();
            let e = explicit_graph(&t, 1 << 22).unwrap();
            let g = retrograde_solve::solve(&e.graph, &retrograde_solve::Rules::default());
            for (v, p) in e.positions.iter().enumerate() {
                assert_eq!(
                    s.value(p).unwrap(),
                    Some(g.value(v as u32)),
                    "{n}x{n}/{k}: {p:?}"
                );
            }
            // Reachable (board, side to move) pairs by a breadth-first search on grids.
            let start = vec![b'.'; (n * n) as usize];
            let mut seen = std::collections::HashSet::from([(start.clone(), 0u8)]);
            let mut todo = vec![(start, 0u8)];
            let mut draws = 0u64;
            while let Some((b, side)) = todo.pop() {
                let x = b
                    .iter()
                    .enumerate()
                    .filter(|c| *c.1 == b'x')
                    .fold(0u32, |m, (i, _)| m | 1 << i);
                let o = b
                    .iter()
                    .enumerate()
                    .filter(|c| *c.1 == b'o')
                    .fold(0u32, |m, (i, _)| m | 1 << i);
                if s.value(&State { x, o }).unwrap() == Some(Value::Draw) {
                    draws += 1;
                }
                for c in naive_moves(n as usize, k as usize, &b) {
                    if seen.insert((c.clone(), 1 - side)) {
                        todo.push((c, 1 - side));
                    }
                }
            }
            let st = s.stats();
            assert_eq!(st.positions, seen.len() as u64, "{n}x{n}/{k}");
            assert_eq!(st.draw, draws, "{n}x{n}/{k}");
        }
    }

    #[test]
    fn three_by_three_is_a_draw() {
        // A regression check of the answer the graph engine confirms above: with three
        // pieces on a 3x3 board neither player can force a line.
        let t = Teeko::new(3, 3).unwrap();
        let s = solve(&t, &SolveOptions::default()).unwrap();
        assert_eq!(s.start_value().unwrap().unwrap().outcome(), Outcome::Draw);
    }

    #[test]
    fn notation_round_trips() {
        let t = Teeko::standard();
        let (p, side) = t.parse_position("x...o/...../..x../...../..... o").unwrap();
        assert_eq!(side, 1);
        assert_eq!(
            t.position_string(&p, side),
            "x...o/...../..x../...../..... o"
        );
        assert_eq!(p.x.count_ones(), 1);
        assert_eq!(p.o.count_ones(), 2);
        let q = t.parse_move(&p, side, "a1").unwrap();
        assert_eq!(t.position_string(&q, 0), "x...o/...../..x../...../o.... x");
        for bad in [
            "",
            "x...o/...../..x../...../.....",
            "x...o/...../..x../...../..... x",
            "xxx../oooo./x..../...../..... o",
            "x...o/...../..x../..... o",
            "x...o/...../..z../...../..... o",
        ] {
            assert!(t.parse_position(bad).is_err(), "{bad:?}");
        }
        // The move phase: steps, in any of their spellings.
        let (p, side) = t.parse_position("xx.oo/...../xx.oo/...../..... x").unwrap();
        assert_eq!(t.tier(&p), 8);
        let a = t.parse_move(&p, side, "a5-b4").unwrap();
        assert_eq!(t.parse_move(&p, side, "A5 B4").unwrap(), a);
        assert_eq!(t.parse_move(&p, side, "a5b4").unwrap(), a);
        assert!(t
            .parse_move(&p, side, "a5-c3")
            .unwrap_err()
            .to_string()
            .contains("legal moves"));
        assert!(t.parse_move(&p, side, "c3").is_err());
    }

    #[test]
    fn symmetric_positions_have_one_canonical_form() {
        let t = Teeko::standard();
        let (p, _) = t.parse_position("xx.oo/...../xx.oo/...../..... x").unwrap();
        let c = t.canonical(&p);
        for g in 0..8 {
            let q = t.apply_symmetry(&p, g);
            assert_eq!(t.canonical(&q), c);
            assert_eq!(t.wins(q.x), t.wins(p.x));
        }
        assert!(t.is_canonical(&c));
    }
}
