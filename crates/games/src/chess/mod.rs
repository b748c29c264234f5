//! Chess endgames: exact depth to mate for every position of an ending, on the tier engine.
//!
//! An ending is named by its material, white first: `KQvK`, `KRPvKR` (at most five pieces,
//! kings included). The rules are standard chess without castling (no castling rights in
//! these endings) and without the 50-move rule or repetitions: en passant where legal,
//! promotion to any piece, checkmate is a loss for the side to move, stalemate and
//! insufficient material (no pawns, rooks or queens, and at most one minor piece, or only
//! bishops all on squares of one colour) are ties. A position is a legal placement: no two
//! pieces on a square, no pawn on the first or last rank, and the side not to move not in
//! check. Move generation and legality come from the `cozy-chess` crate; the un-moves that
//! the engine needs inside a tier are written here and tested against its forward moves.
//!
//! # Tiers and index
//! A tier is a material signature together with the *ranks* of its pawns (and, for the
//! positions just after a double push that the opponent can take en passant, the side that
//! pushed). A pawn move always changes a pawn's rank, a capture or a promotion the
//! material, so every move inside a tier is a king or piece move that captures nothing,
//! and the tiers form a DAG (captures, promotions and pawn moves lead to child tiers).
//! Left-right mirroring keeps a pawn's rank, so it keeps the tier.
//!
//! Inside a tier the index is dense: the side to move (or, in an en-passant tier, the
//! file of the pushed pawn), the two kings as one of the 462 pairs that are canonical
//! under the 8 symmetries of the board (1806 under the mirror alone when there are pawns),
//! then each other piece's square (64), or a pawn's file (8: its rank is the tier's).
//! Numbers that are no legal position (two pieces on a square, identical pieces out of
//! order, the side not to move in check) are holes.
//!
//! # Colours
//! Swapping the colours and turning the board upside down ([`Pos::flipped`]) keeps the
//! value for the side to move, so of the two colourings of an ending the tables keep one,
//! the one where white is the stronger side (`KQvKR`, not `KRvKQ`; `KPvK`, not `KvKP`):
//! a position of the other is answered through its swapped twin. The tier of a position is
//! the kept one ([`TierGame::tier`]) and its canonical form is the kept colouring's
//! ([`SymmetricGame::canonical`]), so the engine solves, stores and probes each table
//! once. An ending with the same pieces on both sides (`KRvKR`, `KPvKP`) is its own swap:
//! of a tier and its swap (`KPvKP` with the pawns on the 2nd and 5th ranks, and on the 4th
//! and 7th) the tables keep the lesser, and where a tier is its own swap (every tier without
//! pawns; of `KPvKP`, white's pawn on the 2nd rank and black's on the 7th, 3rd and 6th, or
//! 4th and 5th) the swap is a symmetry of the tier, like the
//! board's ([`SymmetricGame::apply_symmetry`]'s numbers 8 to 15): one position stands for
//! itself and its swap, the other side to move.
//!
//! ```
//! use retrograde_games::chess::Chess;
//! use retrograde_tier::{solve, SolveOptions, Solved};
//! use retrograde_solve::Value;
//! let krk = Chess::new("KRvK").unwrap();
//! let s = solve(&krk, &SolveOptions::default()).unwrap();
//! // The longest win in KRvK is mate in 16 (31 plies), white to move.
//! assert_eq!(s.stats().longest_win, Some(31));
//! let (p, _) = retrograde_tier::Notation::parse_position(&krk, "k7/8/1K6/8/8/8/8/7R w - - 0 1").unwrap();
//! assert_eq!(s.value(&p).unwrap(), Some(Value::Win(1)));
//! ```

use crate::about::{About, Kind, Param, OPTIONAL};
use crate::GameError;
use cozy_chess::{
    get_bishop_moves, get_bishop_rays, get_king_moves, get_knight_moves, get_pawn_attacks,
    get_rook_moves, get_rook_rays, BitBoard, Board, BoardBuilder, Color, File, Piece, Rank, Square,
};
use retrograde_graph::Primitive;
use retrograde_tier::{
    Alternate, Dense, DenseIndex, SymmetricGame, Symmetries, TierGame, Unmoves, Unscored,
};
use std::cmp::Ordering;
use std::fmt;

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "chess",
    about: "chess endings: exact depth to mate of every position (KQvK, KRPvKR, ...)",
    help: "A chess ending given by its material, white first, capital letters with a \
           small v between the sides: KQvK, KRvK, KPvK, KBNvK, KRvKB, KRPvKR (at most 5 \
           pieces, kings included; kqvk or KQVK is refused, naming the spelling to use). Solves every position of \
           the ending, and of every ending it converts into by a capture or a \
           promotion, by retrograde analysis, and prints the totals by side to move, \
           the longest win and a histogram of the depth to mate. Values are for the \
           side to move: win in N / loss in N count plies to mate (mate in M moves is \
           2M-1 plies for the winner to move); a tie is a stalemate or insufficient \
           material ahead; a draw never ends (no 50-move rule, repetitions are not \
           counted). No castling; en passant and every promotion are played. \
           Positions are FEN (--position '8/8/8/4k3/8/8/8/4KQ2 w - - 0 1'), moves \
           UCI (e2e4, e7e8q); `query DB --position FEN --moves e2e4,...` asks about \
           the position after moves. --dump prints every position as CSV \
           fen,outcome,remoteness. --up-to N solves every ending of up to N pieces \
           instead (a tablebase set, each table once, with a report per ending; \
           with --db it resumes where an interrupted run stopped). Cost: 3 pieces in \
           about a second, 4 pieces in seconds to a minute, KRPvKR about 1.5 GB of \
           values (use --db).",
    examples: &[
        "chess KQvK",
        "chess KRvK --output json",
        "chess KPvK --db kpk",
        "chess KQvK --dump",
        "chess --up-to 4 --db tb4",
    ],
    params: &[
        Param {
            name: "material",
            help: "The ending, white first: KQvK, KRPvKR, ... (at most 5 pieces).",
            kind: Kind::Text,
            default: OPTIONAL,
            positional: true,
            value_name: "MATERIAL",
        },
        Param {
            name: "up-to",
            help: "Instead of one ending, every ending of up to N pieces (3, 4 or 5, kings \
                   included), each table once: a tablebase set. With --db, an interrupted \
                   run resumes where it stopped.",
            kind: Kind::Number {
                min: 3,
                max: MAX_PIECES as u64,
            },
            default: OPTIONAL,
            positional: false,
            value_name: "N",
        },
    ],
    moves: Some("a move in UCI notation, such as e2e4 or e7e8q"),
    symmetry: "",
};

pub use crate::limits::MAX_PIECES;
/// Pieces other than the kings.
const MAX_OTHERS: usize = MAX_PIECES - 2;
/// Black's bit in a piece code (a code is `kind | colour`, kind 1 = pawn .. 5 = queen).
const BLACK: u8 = 8;
/// Marks a king pair that is not in the table.
const NO_PAIR: u16 = u16::MAX;
/// A material whose positions the tables keep as they are ([`colours`]).
const KEEP: u8 = 0;
/// A material whose positions the tables keep with the colours swapped.
const SWAP: u8 = 1;
/// A material with the same pieces on both sides (`KRvKR`, `KPvKP`): its colour swap is
/// itself, so the tables keep, of a tier and its swap, the lesser; and where the swap is
/// the tier itself (every tier without pawns), the swap is one more symmetry inside it.
const MIRROR: u8 = 2;
/// `COLOURS[material]`: how the tables keep the positions of each material (its 12 bits).
static COLOURS: [u8; 1 << 12] = colours();
/// Both colourings kept (the tests' second method).
#[cfg(test)]
static BOTH: [u8; 1 << 12] = [KEEP; 1 << 12];

/// How the tables keep the positions of each material: [`KEEP`] when white has more
/// pieces, or as many and the stronger (by kinds, the strongest first); [`SWAP`] when
/// black is the stronger side; [`MIRROR`] when both have the same (`KRvKR`, `KPvKP`:
/// swapping colours gives a position of the same ending). A table, made when compiling,
/// because the tier and the canonical form of every move ask it.
const fn colours() -> [u8; 1 << 12] {
    let mut out = [KEEP; 1 << 12];
    let mut m = 0;
    while m < 1 << 12 {
        // Codes ascend: white's kinds ascending, then black's.
        let (mut w, mut b) = ([0u8; MAX_OTHERS], [0u8; MAX_OTHERS]);
        let (mut nw, mut nb) = (0, 0);
        let mut i = 0;
        while i < MAX_OTHERS {
            let c = ((m >> (4 * i)) & 0xf) as u8;
            if c == 0 {
                break;
            }
            if c & BLACK == 0 {
                w[nw] = c & 7;
                nw += 1;
            } else {
                b[nb] = c & 7;
                nb += 1;
            }
            i += 1;
        }
        let mut how = if nw < nb { SWAP } else { KEEP };
        if nw == nb {
            how = MIRROR;
            // The strongest first: from the end.
            let mut j = 0;
            while j < nw {
                let (x, y) = (w[nw - 1 - j], b[nb - 1 - j]);
                if x != y {
                    how = if x < y { SWAP } else { KEEP };
                    break;
                }
                j += 1;
            }
        }
        out[m] = how;
        m += 1;
    }
    out
}

/// The pieces of an ending other than the kings, as codes in ascending order (white's
/// pawns, knights, bishops, rooks, queens, then black's), 4 bits each.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Material(u16);

impl Material {
    /// Material from piece codes (any order).
    fn from_codes(codes: &[u8]) -> Material {
        let mut c = [0u8; MAX_OTHERS];
        let n = codes.len().min(MAX_OTHERS);
        c[..n].copy_from_slice(&codes[..n]);
        c[..n].sort_unstable();
        Material(
            c[..n]
                .iter()
                .enumerate()
                .fold(0u16, |m, (i, &x)| m | u16::from(x) << (4 * i)),
        )
    }

    /// The piece codes, in order.
    fn codes(self) -> impl Iterator<Item = u8> {
        (0..MAX_OTHERS)
            .map(move |i| ((self.0 >> (4 * i)) & 0xf) as u8)
            .take_while(|&c| c != 0)
    }

    /// The code of slot `i` (0 past the end).
    #[inline]
    fn code(self, i: usize) -> u8 {
        ((self.0 >> (4 * i)) & 0xf) as u8
    }

    /// Pieces other than the kings.
    #[inline]
    pub fn len(self) -> usize {
        // Codes are never 0 and fill the low nibbles first.
        (16 - self.0.leading_zeros() as usize).div_ceil(4)
    }

    /// Whether only the kings are left.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether there are pawns (then only the mirror is a symmetry).
    #[inline]
    pub fn has_pawns(self) -> bool {
        // A nibble whose kind bits are 1 (a pawn) is a zero nibble of `kinds ^ 0x111`
        // (an empty slot, 0, gives 1): the classic has-a-zero test, on 3-bit values.
        let x = (self.0 & 0x777) ^ 0x111;
        x.wrapping_sub(0x111) & !x & 0x888 != 0
    }

    /// Material without the piece of slot `j`.
    #[inline]
    fn without(self, j: usize) -> Material {
        let low = self.0 & ((1u16 << (4 * j)) - 1);
        let high = ((u32::from(self.0) >> (4 * j + 4)) << (4 * j)) as u16;
        Material(low | high)
    }

    /// Material with `code` inserted at slot `j` (the caller keeps the order).
    #[inline]
    fn with(self, j: usize, code: u8) -> Material {
        let low = self.0 & ((1u16 << (4 * j)) - 1);
        let high = ((u32::from(self.0) >> (4 * j)) << (4 * j + 4)) as u16;
        Material(low | u16::from(code) << (4 * j) | high)
    }

    /// Parses `KQvK`, `KRPvKR`, ... (white first; the order of the pieces after each king
    /// does not matter: `KPRvKR` is `KRPvKR`). The case does: capital letters for the pieces
    /// and a small `v` between the sides, as the tables are named (`kqvk` or `KQVK` is
    /// refused with the spelling to use, since a small letter is a black piece in a FEN).
    ///
    /// # Errors
    /// A missing `v` or king, an unknown letter, more than [`MAX_PIECES`] pieces, or
    /// another case ([`GameError::MaterialCase`], naming the spelling to use).
    pub fn parse(text: &str) -> Result<Material, GameError> {
        let t = text.trim();
        let up = t.to_ascii_uppercase();
        let (w, b) = up
            .split_once('V')
            .ok_or_else(|| GameError::MaterialNoV { text: t.into() })?;
        let mut codes = Vec::new();
        for (side, colour) in [(w, 0u8), (b, BLACK)] {
            let rest = side
                .strip_prefix('K')
                .ok_or_else(|| GameError::MaterialNoKing { text: t.into() })?;
            for ch in rest.chars() {
                let kind = match ch {
                    'P' => 1,
                    'N' => 2,
                    'B' => 3,
                    'R' => 4,
                    'Q' => 5,
                    _ => {
                        return Err(GameError::MaterialLetter {
                            text: t.into(),
                            letter: ch,
                        })
                    }
                };
                codes.push(kind | colour);
            }
        }
        if codes.len() > MAX_OTHERS {
            return Err(GameError::MaterialPieces {
                text: t.into(),
                pieces: codes.len() + 2,
            });
        }
        let material = Material::from_codes(&codes);
        // The letters are right (read in upper case): the case must be too.
        if t.chars().any(|c| c != 'v' && !c.is_ascii_uppercase()) || !t.contains('v') {
            return Err(GameError::MaterialCase {
                text: t.into(),
                spelling: material.to_string(),
            });
        }
        Ok(material)
    }

    /// Every ending of exactly `pieces` pieces, kings included (2 to [`MAX_PIECES`]): every
    /// multiset of `pieces - 2` pieces of either colour, white first (`KQvK` and `KvKQ` both).
    pub fn all(pieces: usize) -> Vec<Material> {
        let kinds: Vec<u8> = (1..=5).chain((1..=5).map(|k| k | BLACK)).collect();
        let mut out = Vec::new();
        fn rec(kinds: &[u8], from: usize, left: usize, acc: &mut Vec<u8>, out: &mut Vec<Material>) {
            if left == 0 {
                out.push(Material::from_codes(acc));
                return;
            }
            for i in from..kinds.len() {
                acc.push(kinds[i]);
                rec(kinds, i, left - 1, acc, out);
                acc.pop();
            }
        }
        if (2..=MAX_PIECES).contains(&pieces) {
            rec(&kinds, 0, pieces - 2, &mut Vec::new(), &mut out);
        }
        out
    }

    /// Whether neither side can ever mate: no pawns, rooks or queens, and at most one minor
    /// piece, or bishops only. (Bishops on one colour of squares are checked by the caller.)
    fn minor_only(self) -> (bool, bool) {
        let mut minors = 0;
        let mut knights = 0;
        for c in self.codes() {
            match c & 7 {
                2 => {
                    minors += 1;
                    knights += 1
                }
                3 => minors += 1,
                _ => return (false, false),
            }
        }
        (minors <= 1, knights == 0)
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for colour in [0, BLACK] {
            if colour == BLACK {
                f.write_str("v")?;
            }
            f.write_str("K")?;
            for kind in (1..=5).rev() {
                let n = self.codes().filter(|&c| c == kind | colour).count();
                f.write_str(&["P", "N", "B", "R", "Q"][kind as usize - 1].repeat(n))?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// A tier: the material, the rank of each pawn (3 bits a slot, 0 for other pieces), and
/// who just made a double push that can be taken en passant (0: nobody, 1: white, 2:
/// black).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Tier {
    /// The material.
    pub mat: Material,
    ranks: u16,
    ep: u8,
}

impl Tier {
    #[inline]
    fn rank_of(self, i: usize) -> u8 {
        ((self.ranks >> (3 * i)) & 7) as u8
    }

    /// The tier of the positions with the colours swapped and the board turned upside
    /// down ([`Pos::flipped`]): each piece changes colour, a pawn's rank `r` becomes
    /// `7 - r`, and the side that pushed for en passant is the other.
    #[inline(never)]
    fn flipped(self) -> Tier {
        let mut slots = [(0u8, 0u8); MAX_OTHERS];
        let n = self.mat.len();
        for (i, c) in self.mat.codes().enumerate() {
            let r = if c & 7 == 1 { 7 - self.rank_of(i) } else { 0 };
            slots[i] = (c ^ BLACK, r);
        }
        let ep = match self.ep {
            0 => 0,
            e => 3 - e,
        };
        tier_of_slots(&mut slots[..n], ep)
    }
}

/// A position: the squares of the kings and of the other pieces (in the order of the
/// material; identical pieces by ascending square), the side to move, and the en-passant
/// file (1 + file, or 0) when the side to move can take a pawn that has just made a
/// double push.
///
/// All packed into one number, most significant first: the five squares (8 bits each,
/// 0 = a1, 7 = h1, 63 = h8: white king, black king, then the others, 0 past the last),
/// the en-passant file (4 bits), the side to move (1 bit: 1 for black), 6 bits of 0,
/// whether the material has pawns (1 bit, a function of the material: asked for every
/// symmetry, index and tier, where [`Material::has_pawns`] cost 4% of a pawn ending) and
/// the material (12 bits). So positions are ordered by their squares first, the white
/// king's most significant, and a position is built, compared and copied in a register.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos(u64);

impl fmt::Debug for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pos")
            .field("sq", &self.squares())
            .field("ep", &self.ep())
            .field("stm", &self.stm())
            .field("mat", &self.mat())
            .finish()
    }
}

impl Pos {
    const EP_SHIFT: u32 = 20;
    const STM_SHIFT: u32 = 19;
    const PAWNS: u64 = 1 << 12;

    /// The material's bits with its pawn bit.
    #[inline]
    fn mat_bits(mat: Material) -> u64 {
        u64::from(mat.0) | if mat.has_pawns() { Pos::PAWNS } else { 0 }
    }

    /// A position from its fields.
    #[inline]
    fn new(sq: [u8; MAX_PIECES], ep: u8, stm: u8, mat: Material) -> Pos {
        let mut k = 0u64;
        for s in sq {
            k = k << 8 | u64::from(s);
        }
        Pos(k << 24
            | u64::from(ep) << Pos::EP_SHIFT
            | u64::from(stm) << Pos::STM_SHIFT
            | Pos::mat_bits(mat))
    }

    /// The square of piece `i` (0 the white king, 1 the black king, then the others).
    #[inline]
    fn sq(self, i: usize) -> u8 {
        (self.0 >> (56 - 8 * i)) as u8
    }

    /// The kings' squares as `white * 64 + black`: the place of the position in the tables
    /// by king pair (each square taken below 64, so that the tables' 4096 entries need no
    /// bounds check).
    #[inline(always)]
    fn king_pair(self) -> usize {
        usize::from(self.sq(0) & 63) << 6 | usize::from(self.sq(1) & 63)
    }

    #[inline]
    fn set_sq(&mut self, i: usize, s: u8) {
        let shift = 56 - 8 * i;
        self.0 = self.0 & !(0xff << shift) | u64::from(s) << shift;
    }

    /// Swaps the squares of pieces `i` and `j`.
    #[inline]
    fn swap_sq(&mut self, i: usize, j: usize) {
        let (a, b) = (self.sq(i), self.sq(j));
        self.set_sq(i, b);
        self.set_sq(j, a);
    }

    /// Every piece's square.
    #[inline]
    fn squares(self) -> [u8; MAX_PIECES] {
        std::array::from_fn(|i| self.sq(i))
    }

    /// 1 + the en-passant file, or 0.
    #[inline]
    fn ep(self) -> u8 {
        (self.0 >> Pos::EP_SHIFT) as u8 & 0xf
    }

    #[inline]
    fn set_ep(&mut self, ep: u8) {
        self.0 = self.0 & !(0xf << Pos::EP_SHIFT) | u64::from(ep) << Pos::EP_SHIFT;
    }

    /// 0: white to move, 1: black.
    #[inline]
    fn stm(self) -> u8 {
        (self.0 >> Pos::STM_SHIFT) as u8 & 1
    }

    #[inline]
    fn set_stm(&mut self, stm: u8) {
        self.0 = self.0 & !(1 << Pos::STM_SHIFT) | u64::from(stm) << Pos::STM_SHIFT;
    }

    #[inline]
    fn mat(self) -> Material {
        Material((self.0 & 0xfff) as u16)
    }

    #[inline]
    fn set_mat(&mut self, m: Material) {
        self.0 = self.0 & !(0xfff | Pos::PAWNS) | Pos::mat_bits(m);
    }

    /// Whether there are pawns (then only the mirror is a symmetry).
    #[inline]
    fn pawns(self) -> bool {
        self.0 & Pos::PAWNS != 0
    }

    /// The side to move: 0 white, 1 black.
    pub fn side_to_move(&self) -> u8 {
        self.stm()
    }

    /// The material.
    pub fn material(&self) -> Material {
        self.mat()
    }

    /// The slot (among the pieces other than the kings) of the piece on square `s`.
    #[inline]
    fn slot_at(&self, s: u8) -> Option<usize> {
        (0..self.mat().len()).find(|&j| self.sq(2 + j) == s)
    }

    /// Takes the piece of slot `j` off the board.
    #[inline]
    fn remove(&mut self, j: usize) {
        let n = self.mat().len();
        for i in j..n - 1 {
            self.set_sq(2 + i, self.sq(3 + i));
        }
        self.set_sq(1 + n, 0);
        self.set_mat(self.mat().without(j));
    }

    /// Puts a piece on square `s`, in order (codes ascending, identical pieces by square).
    #[inline]
    fn insert(&mut self, code: u8, s: u8) {
        let n = self.mat().len();
        let mut j = 0;
        while j < n && (self.mat().code(j), self.sq(2 + j)) < (code, s) {
            j += 1;
        }
        for i in (j..n).rev() {
            self.set_sq(3 + i, self.sq(2 + i));
        }
        self.set_sq(2 + j, s);
        self.set_mat(self.mat().with(j, code));
    }

    /// Moves the piece of slot `j` to square `s`, keeping identical pieces in order.
    #[inline]
    fn relocate(&mut self, j: usize, s: u8) {
        self.set_sq(2 + j, s);
        let code = self.mat().code(j);
        let mut j = j;
        while j > 0 && self.mat().code(j - 1) == code && self.sq(1 + j) > self.sq(2 + j) {
            self.swap_sq(1 + j, 2 + j);
            j -= 1;
        }
        while j + 1 < MAX_OTHERS
            && self.mat().code(j + 1) == code
            && self.sq(3 + j) < self.sq(2 + j)
        {
            self.swap_sq(2 + j, 3 + j);
            j += 1;
        }
    }

    /// The same position with the colours swapped and the board turned upside down (a
    /// square's rank `r` becomes `7 - r`): white's pieces become black's and the other side
    /// is to move, so the value for the side to move is the same. The tables keep one of
    /// the two ([`Chess::kept`]).
    pub fn flipped(&self) -> Pos {
        let n = self.mat().len();
        let mut pieces = [(0u8, 0u8); MAX_OTHERS];
        for (j, piece) in pieces.iter_mut().enumerate().take(n) {
            *piece = (self.mat().code(j) ^ BLACK, self.sq(2 + j) ^ 56);
        }
        pieces[..n].sort_unstable();
        let mut sqs = [0u8; MAX_PIECES];
        let mut codes = [0u8; MAX_OTHERS];
        sqs[0] = self.sq(1) ^ 56;
        sqs[1] = self.sq(0) ^ 56;
        for (j, &(c, s)) in pieces[..n].iter().enumerate() {
            codes[j] = c;
            sqs[2 + j] = s;
        }
        Pos::new(
            sqs,
            self.ep(),
            self.stm() ^ 1,
            Material::from_codes(&codes[..n]),
        )
    }

    /// [`Pos::flipped`] for a material with the same pieces on both sides, whose swap
    /// keeps the material (white's pieces in the first half of the slots, black's of the
    /// same kinds in the second): the halves trade places, no sort of the pieces.
    #[inline]
    fn flipped_same(&self) -> Pos {
        let h = self.mat().len() / 2;
        let mut q = *self;
        q.set_sq(0, self.sq(1) ^ 56);
        q.set_sq(1, self.sq(0) ^ 56);
        for j in 0..h {
            q.set_sq(2 + j, self.sq(2 + h + j) ^ 56);
            q.set_sq(2 + h + j, self.sq(2 + j) ^ 56);
        }
        q.0 ^= 1 << Pos::STM_SHIFT;
        if h > 1 {
            q.sort_identical();
        }
        debug_assert_eq!(q, self.flipped());
        q
    }

    /// Puts identical pieces back in order of square (after a symmetry moved them all).
    #[inline]
    fn sort_identical(&mut self) {
        let n = self.mat().len();
        for i in 1..n {
            let mut j = i;
            while j > 0
                && self.mat().code(j - 1) == self.mat().code(j)
                && self.sq(1 + j) > self.sq(2 + j)
            {
                self.swap_sq(1 + j, 2 + j);
                j -= 1;
            }
        }
    }
}

/// A position's bitboards: by colour, and by kind (1 pawn .. 5 queen, 6 king).
#[derive(Copy, Clone)]
struct Bits {
    col: [u64; 2],
    kind: [u64; 7],
}

impl Bits {
    #[inline]
    fn of(p: &Pos) -> Bits {
        let mut col = [1u64 << p.sq(0), 1u64 << p.sq(1)];
        let mut kind = [0u64; 7];
        kind[6] = col[0] | col[1];
        for i in 0..p.mat().len() {
            let c = p.mat().code(i);
            let b = 1u64 << p.sq(2 + i);
            col[usize::from(c & BLACK != 0)] |= b;
            kind[usize::from(c & 7)] |= b;
        }
        Bits { col, kind }
    }

    #[inline]
    fn occ(&self) -> u64 {
        self.col[0] | self.col[1]
    }

    /// Whether square `target` is attacked by side `by` (0 white, 1 black) with its pieces
    /// `theirs` (a subset of `col[by]`: less a piece just captured), on a board whose
    /// occupied squares are `occ`.
    #[inline]
    fn attacked(&self, target: u8, by: usize, theirs: u64, occ: u64) -> bool {
        let s = sq(target);
        let k = &self.kind;
        if get_king_moves(s).0 & theirs & k[6] != 0 {
            return true;
        }
        let knights = theirs & k[2];
        if knights != 0 && get_knight_moves(s).0 & knights != 0 {
            return true;
        }
        let pawns = theirs & k[1];
        if pawns != 0 {
            let defender = if by == 0 { Color::Black } else { Color::White };
            if get_pawn_attacks(s, defender).0 & pawns != 0 {
                return true;
            }
        }
        let diagonal = theirs & (k[3] | k[5]);
        if diagonal != 0
            && get_bishop_rays(s).0 & diagonal != 0
            && get_bishop_moves(s, BitBoard(occ)).0 & diagonal != 0
        {
            return true;
        }
        let straight = theirs & (k[4] | k[5]);
        straight != 0
            && get_rook_rays(s).0 & straight != 0
            && get_rook_moves(s, BitBoard(occ)).0 & straight != 0
    }

    /// Every square side `by` attacks (or guards) on a board whose occupied squares are
    /// `occ`.
    #[inline]
    fn attacks(&self, by: usize, occ: u64) -> u64 {
        let colour = if by == 0 { Color::White } else { Color::Black };
        let mine = self.col[by];
        let mut a = 0u64;
        for s in BitBoard(mine & self.kind[1]) {
            a |= get_pawn_attacks(s, colour).0;
        }
        for kind in 2..=6u8 {
            for s in BitBoard(mine & self.kind[usize::from(kind)]) {
                a |= Bits::reach(kind, s as u8, occ);
            }
        }
        a
    }

    /// Where a piece of `kind` (2 knight .. 6 king) on `from` goes, on a board `occ`.
    #[inline]
    fn reach(kind: u8, from: u8, occ: u64) -> u64 {
        let s = sq(from);
        let o = BitBoard(occ);
        match kind {
            2 => get_knight_moves(s).0,
            3 => get_bishop_moves(s, o).0,
            4 => get_rook_moves(s, o).0,
            5 => get_bishop_moves(s, o).0 | get_rook_moves(s, o).0,
            _ => get_king_moves(s).0,
        }
    }
}

/// Which squares a symmetry sends where: `g` bit 2 transposes (swaps rank and file), then
/// bit 1 flips the ranks, bit 0 the files.
#[inline]
fn map_square(g: usize, s: u8) -> u8 {
    let (mut r, mut f) = (s >> 3, s & 7);
    if g & 4 != 0 {
        std::mem::swap(&mut r, &mut f);
    }
    if g & 2 != 0 {
        r = 7 - r;
    }
    if g & 1 != 0 {
        f = 7 - f;
    }
    r * 8 + f
}

#[inline]
fn sq(s: u8) -> Square {
    Square::index(s as usize)
}

/// The chess rules for one ending (or several) and the tables of its index.
pub struct Chess {
    /// The game's name (`chess KQvK`, `chess up to 4 pieces`): a database records it.
    name: String,
    root: Material,
    /// Every ending solved, with the tiers they convert into (the first is `root`).
    roots: Vec<Material>,
    /// King pairs canonical under the 8 symmetries, then under the mirror: (white, black).
    pairs: [Vec<(u8, u8)>; 2],
    /// `pair_index[k][white * 64 + black]`: the number of a pair, or `NO_PAIR`.
    pair_index: [Box<[u16; 4096]>; 2],
    /// `to_canonical[k][white * 64 + black]`: the symmetries (bit g) that send the kings
    /// to their canonical pair; the canonical position is the least of those images.
    to_canonical: [Box<[u8; 4096]>; 2],
    /// `squares[g][s]`: where symmetry `g` sends square `s` ([`map_square`]).
    squares: [[u8; 64]; 8],
    /// `fixing[white * 64 + black]`: the symmetries (bit g) that leave both kings where
    /// they are (pawnless; with pawns only the identity does).
    fixing: Box<[u8; 4096]>,
    /// `swapped_pairs[k][white * 64 + black]`: how the least board image of the king pair
    /// compares with the least image of the pair with the colours swapped (black's king
    /// turned over as white's, white's as black's): 0 less, 1 equal, 2 greater.
    swapped_pairs: [Box<[u8; 4096]>; 2],
    /// [`COLOURS`], or all [`KEEP`] when both colourings are solved apart.
    colours: &'static [u8; 1 << 12],
    /// For a tablebase set ([`Chess::up_to`]), its number of pieces.
    set: Option<usize>,
}

impl fmt::Debug for Chess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Chess({})", self.root)
    }
}

impl Chess {
    /// The ending `material` (`KQvK`, ...).
    ///
    /// # Errors
    /// A malformed material (see [`Material::parse`]).
    pub fn new(material: &str) -> Result<Chess, GameError> {
        Ok(Chess::with_material(Material::parse(material)?))
    }

    /// The ending of `root`.
    pub fn with_material(root: Material) -> Chess {
        Chess::endings(&[root])
    }

    /// Several endings solved together (each tier once), such as every ending of 3 and 4
    /// pieces ([`Material::all`]). The first is the one [`material`](Chess::material)
    /// names.
    ///
    /// # Panics
    /// When `roots` is empty.
    pub fn endings(roots: &[Material]) -> Chess {
        let name = match roots.len() {
            1 => format!("chess {}", roots[0]),
            n => format!("chess {} and {} more", roots[0], n - 1),
        };
        Chess::named(roots, name)
    }

    /// Every ending of 2 to `pieces` pieces, kings included (both colourings: `KQvKR` and
    /// `KRvKQ`), solved together so that each tier is solved once: a tablebase set.
    ///
    /// # Errors
    /// `pieces` outside 3 to [`MAX_PIECES`].
    pub fn up_to(pieces: usize) -> Result<Chess, GameError> {
        if !(3..=MAX_PIECES).contains(&pieces) {
            return Err(GameError::UpTo { pieces });
        }
        let roots: Vec<Material> = (2..=pieces).flat_map(Material::all).collect();
        let mut set = Chess::named(&roots, format!("chess up to {pieces} pieces"));
        set.set = Some(pieces);
        Ok(set)
    }

    /// The number of pieces of a tablebase set ([`Chess::up_to`]); `None` for endings
    /// given by their material.
    pub fn set(&self) -> Option<usize> {
        self.set
    }

    /// The endings `roots` under the name `name`.
    fn named(roots: &[Material], name: String) -> Chess {
        let root = roots[0];
        let mut pairs = [Vec::new(), Vec::new()];
        let mut pair_index = [Box::new([NO_PAIR; 4096]), Box::new([NO_PAIR; 4096])];
        let mut to_canonical = [Box::new([1u8; 4096]), Box::new([1u8; 4096])];
        let mut swapped_pairs = [Box::new([0u8; 4096]), Box::new([0u8; 4096])];
        for (k, syms) in [8usize, 2].into_iter().enumerate() {
            let least_of = |w: u8, b: u8| {
                (0..syms)
                    .map(|g| (map_square(g, w), map_square(g, b)))
                    .min()
                    .expect("the identity")
            };
            for w in 0..64u8 {
                for b in 0..64u8 {
                    let least = least_of(w, b);
                    swapped_pairs[k][w as usize * 64 + b as usize] =
                        match least.cmp(&least_of(b ^ 56, w ^ 56)) {
                            Ordering::Less => 0,
                            Ordering::Equal => 1,
                            Ordering::Greater => 2,
                        };
                    to_canonical[k][w as usize * 64 + b as usize] = (0..syms)
                        .filter(|&g| (map_square(g, w), map_square(g, b)) == least)
                        .fold(0u8, |m, g| m | 1 << g);
                    if w == b || get_king_moves(sq(w)).has(sq(b)) {
                        continue;
                    }
                    if least == (w, b) {
                        pair_index[k][w as usize * 64 + b as usize] = pairs[k].len() as u16;
                        pairs[k].push((w, b));
                    }
                }
            }
        }
        let mut squares = [[0u8; 64]; 8];
        for (g, map) in squares.iter_mut().enumerate() {
            for (s, image) in map.iter_mut().enumerate() {
                *image = map_square(g, s as u8);
            }
        }
        let mut fixing = Box::new([0u8; 4096]);
        for (wb, f) in fixing.iter_mut().enumerate() {
            let (w, b) = (wb / 64, wb % 64);
            *f = (0..8).fold(0u8, |m, g| {
                if usize::from(squares[g][w]) == w && usize::from(squares[g][b]) == b {
                    m | 1 << g
                } else {
                    m
                }
            });
        }
        Chess {
            name,
            root,
            roots: roots.to_vec(),
            pairs,
            pair_index,
            to_canonical,
            squares,
            fixing,
            swapped_pairs,
            colours: &COLOURS,
            set: None,
        }
    }

    /// The same game solving both colourings of every ending apart (`KQvKR` and `KRvKQ`),
    /// instead of one and the other by swapping colours: the tests' second method.
    #[cfg(test)]
    pub(crate) fn both_colourings(mut self) -> Chess {
        self.colours = &BOTH;
        self
    }

    /// The tier of `p` as it stands, before any swap of colours.
    #[inline(always)]
    fn own_tier(&self, p: &Pos) -> Tier {
        let mut ranks = 0u16;
        if p.pawns() {
            // Empty slots have code 0: no pawn.
            for i in 0..MAX_OTHERS {
                if p.mat().code(i) & 7 == 1 {
                    ranks |= u16::from(p.sq(2 + i) >> 3) << (3 * i);
                }
            }
        }
        let ep = if p.ep() == 0 { 0 } else { 2 - p.stm() };
        Tier {
            mat: p.mat(),
            ranks,
            ep,
        }
    }

    /// How the tables keep the positions of `p`'s material ([`KEEP`], [`SWAP`] or
    /// [`MIRROR`]).
    #[inline]
    fn colouring(&self, p: &Pos) -> u8 {
        self.colours[usize::from(p.mat().0 & 0xfff)]
    }

    /// The tier that holds tier `t`'s positions: `t`, or the tier of its positions with
    /// the colours swapped ([`Tier::flipped`]); of a material with the same pieces on
    /// both sides, the lesser of the two.
    #[inline]
    fn kept_tier(&self, t: Tier) -> Tier {
        match self.colours[usize::from(t.mat.0 & 0xfff)] {
            KEEP => t,
            SWAP => t.flipped(),
            _ if !t.mat.has_pawns() => t,
            _ => t.min(t.flipped()),
        }
    }

    /// How a position of a material with the same pieces on both sides is kept: `Less`
    /// as it is, `Greater` swapped (its tier's swap is the lesser tier), `Equal` with its
    /// swap as one more symmetry (its tier is its own swap).
    #[inline(never)]
    fn mirrored(&self, p: &Pos) -> Ordering {
        if !p.pawns() {
            return Ordering::Equal;
        }
        let t = self.own_tier(p);
        t.cmp(&t.flipped())
    }

    /// Whether the tables keep `p` in its own colours (else they keep [`Pos::flipped`]).
    #[inline]
    pub fn kept(&self, p: &Pos) -> bool {
        match self.colouring(p) {
            KEEP => true,
            SWAP => false,
            _ => self.mirrored(p).is_le(),
        }
    }

    /// Whether the swap of colours of `p` is a position of `p`'s own tier, which the
    /// tables keep as one with `p` (a tier without pawns of `KRvKR`; of `KPvKP`, the tiers
    /// whose pawn ranks are each other's swap): [`SymmetricGame`]'s symmetries 8 to 15.
    #[inline]
    pub fn swaps_inside(&self, p: &Pos) -> bool {
        self.colouring(p) == MIRROR && self.mirrored(p).is_eq()
    }

    /// The canonical form of a position that the tables keep swapped, or whose swap is a
    /// symmetry (out of line: the common case, a move inside a tier of unequal material,
    /// never comes here).
    #[inline(never)]
    fn canonical_other(&self, p: &Pos) -> Pos {
        if self.colouring(p) == SWAP {
            return self.canonical_board(&p.flipped());
        }
        match self.mirrored(p) {
            Ordering::Less => self.canonical_board(p),
            Ordering::Greater => self.canonical_board(&p.flipped_same()),
            // The least image has the least king pair: the board's images of `p` or of its
            // swap only, unless both reach the same pair.
            Ordering::Equal => match self.swapped_pair(p) {
                Ordering::Less => self.canonical_board(p),
                Ordering::Greater => self.canonical_board(&p.flipped_same()),
                Ordering::Equal => self
                    .canonical_board(p)
                    .min(self.canonical_board(&p.flipped_same())),
            },
        }
    }

    /// [`SymmetricGame::canonical`] past its inlined common case.
    #[inline(never)]
    fn canonical_rest(&self, p: &Pos) -> Pos {
        if self.colouring(p) != KEEP {
            return self.canonical_other(p);
        }
        self.canonical_board(p)
    }

    /// Whether a position of a material with the same pieces on both sides is canonical.
    #[inline(never)]
    fn is_canonical_mirrored(&self, p: &Pos) -> bool {
        if !self.is_canonical_board(p) {
            return false;
        }
        match self.mirrored(p) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => match self.swapped_pair(p) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => *p <= self.canonical_board(&p.flipped_same()),
            },
        }
    }

    /// How the least king pair of the board's images of `p` compares with that of its swap
    /// of colours (from a table by king pair).
    #[inline]
    fn swapped_pair(&self, p: &Pos) -> Ordering {
        let k = usize::from(p.pawns());
        match self.swapped_pairs[k][p.king_pair()] {
            0 => Ordering::Less,
            1 => Ordering::Equal,
            _ => Ordering::Greater,
        }
    }

    /// Whether `p` is its least image under the board's symmetries.
    #[inline]
    fn is_canonical_board(&self, p: &Pos) -> bool {
        let k = usize::from(p.pawns());
        match self.to_canonical[k][p.king_pair()] {
            1 => true,
            m if m & 1 == 0 => false,
            _ => self.canonical_board(p) == *p,
        }
    }

    /// The least image of `p` under the 8 symmetries of the board (the mirror alone with
    /// pawns), found among the images whose kings are the least pair (the position's
    /// order compares the kings first): usually one symmetry, two when both kings are on
    /// a diagonal.
    #[inline]
    fn canonical_board(&self, p: &Pos) -> Pos {
        let k = usize::from(p.pawns());
        let mut mask = self.to_canonical[k][p.king_pair()];
        if mask == 1 {
            return *p;
        }
        let mut best: Option<Pos> = None;
        while mask != 0 {
            let g = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let q = self.apply_board(p, g);
            if best.is_none_or(|b| q < b) {
                best = Some(q);
            }
        }
        best.expect("some symmetry gives the least pair")
    }

    /// The image of `p` under symmetry `g` of the board (`g < 8`; with pawns only its bit
    /// 0 counts: the mirror).
    #[inline]
    fn apply_board(&self, p: &Pos, g: usize) -> Pos {
        let g = if p.pawns() { g & 1 } else { g };
        if g == 0 {
            return *p;
        }
        let map = &self.squares[g];
        let mut q = *p;
        for j in 0..2 + p.mat().len() {
            q.set_sq(j, map[usize::from(p.sq(j))]);
        }
        if p.ep() != 0 {
            q.set_ep(8 - (p.ep() - 1));
        }
        q.sort_identical();
        q
    }

    /// The number of images of `p` under the symmetries of the board: 8 over those that
    /// fix `p`, tried only among those that fix its kings; with pawns 2 (the mirror moves
    /// every king).
    #[inline]
    fn board_class_size(&self, p: &Pos) -> u64 {
        if p.pawns() {
            return 2;
        }
        let mut mask = self.fixing[p.king_pair()] & !1;
        let mut fixed = 1;
        while mask != 0 {
            let g = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if self.apply_board(p, g) == *p {
                fixed += 1;
            }
        }
        8 / fixed
    }

    /// The tier that a kept tier `t` also stands for with the colours swapped, if it is
    /// another one that the tables do not keep (`KRvKQ` for `KQvKR`; none for `KRvKR`,
    /// whose swapped positions are positions of the same tier, see [`Chess::swaps_inside`]):
    /// its positions are the [`Pos::flipped`] of `t`'s.
    pub fn twin_tier(&self, t: Tier) -> Option<Tier> {
        let u = t.flipped();
        (u != t && self.kept_tier(u) == t).then_some(u)
    }

    /// Whose turn it is at number `i` of tier `t` (0: white, 1: black): a tier without en
    /// passant keeps white to move in its first half (where [`DenseIndex::sides`] splits
    /// it), an en-passant tier one side only (the side that can take).
    pub fn side_to_move_at(&self, t: Tier, i: u64) -> u8 {
        match t.ep {
            0 => u8::from(i >= self.tier_size(t) / 2),
            1 => 1,
            _ => 0,
        }
    }

    /// The ending this game solves (with every ending it converts into); the first of
    /// several.
    pub fn material(&self) -> Material {
        self.root
    }

    /// Every ending this game was asked to solve (it solves the endings they convert into
    /// too).
    pub fn roots(&self) -> &[Material] {
        &self.roots
    }

    /// The number of king pairs of the index: 462 without pawns, 1806 with.
    pub fn king_pairs(&self, pawns: bool) -> usize {
        self.pairs[usize::from(pawns)].len()
    }

    /// Every tier of material `mat`: each placement of its pawns on ranks, and the
    /// en-passant tiers where a double push can be taken.
    pub fn tiers_of(&self, mat: Material) -> Vec<Tier> {
        let codes: Vec<u8> = mat.codes().collect();
        let mut out = Vec::new();
        let mut ranks = vec![0u8; codes.len()];
        fn rec(codes: &[u8], i: usize, ranks: &mut Vec<u8>, mat: Material, out: &mut Vec<Tier>) {
            if i == codes.len() {
                let packed = ranks
                    .iter()
                    .enumerate()
                    .fold(0u16, |m, (j, &r)| m | u16::from(r) << (3 * j));
                for ep in 0..3 {
                    let t = Tier {
                        mat,
                        ranks: packed,
                        ep,
                    };
                    if ep == 0 || ep_possible(t) {
                        out.push(t);
                    }
                }
                return;
            }
            if codes[i] & 7 != 1 {
                ranks[i] = 0;
                rec(codes, i + 1, ranks, mat, out);
                return;
            }
            // Identical pawns in slot order have ascending ranks.
            let low = if i > 0 && codes[i - 1] == codes[i] {
                ranks[i - 1]
            } else {
                1
            };
            for r in low..=6 {
                ranks[i] = r;
                rec(codes, i + 1, ranks, mat, out);
            }
        }
        rec(&codes, 0, &mut ranks, mat, &mut out);
        out
    }

    /// The king-pair table of a tier.
    #[inline]
    fn table(&self, t: Tier) -> usize {
        usize::from(t.mat.has_pawns())
    }

    /// The position as a `cozy-chess` board (`None` when the crate refuses it, e.g. an
    /// en-passant square whose checks could not have come from the double push).
    pub fn board(&self, p: &Pos) -> Option<Board> {
        let mut b = BoardBuilder::empty();
        b.board[p.sq(0) as usize] = Some((Piece::King, Color::White));
        b.board[p.sq(1) as usize] = Some((Piece::King, Color::Black));
        for (i, c) in p.mat().codes().enumerate() {
            let colour = if c & BLACK != 0 {
                Color::Black
            } else {
                Color::White
            };
            b.board[p.sq(2 + i) as usize] = Some((Piece::index(usize::from(c & 7) - 1), colour));
        }
        b.side_to_move = if p.stm() == 0 {
            Color::White
        } else {
            Color::Black
        };
        if p.ep() != 0 {
            let rank = if p.stm() == 0 {
                Rank::Sixth
            } else {
                Rank::Third
            };
            b.en_passant = Some(Square::new(File::index(usize::from(p.ep() - 1)), rank));
        }
        b.build().ok()
    }

    /// The position of a board (its en-passant file kept only when the side to move can
    /// take en passant), or why it is none of ours.
    ///
    /// # Errors
    /// Castling rights, or more than [`MAX_PIECES`] pieces.
    pub fn from_board(board: &Board) -> Result<Pos, GameError> {
        if board.castle_rights(Color::White).short.is_some()
            || board.castle_rights(Color::White).long.is_some()
            || board.castle_rights(Color::Black).short.is_some()
            || board.castle_rights(Color::Black).long.is_some()
        {
            return Err(GameError::Castling);
        }
        let n = board.occupied().len() as usize;
        if n > MAX_PIECES {
            return Err(GameError::Pieces { pieces: n });
        }
        let mut sqs = [0u8; MAX_PIECES];
        sqs[0] = board.king(Color::White) as u8;
        sqs[1] = board.king(Color::Black) as u8;
        // The crate's checks leave the kings out (a king never gives check there).
        if get_king_moves(sq(sqs[0])).has(sq(sqs[1])) {
            return Err(GameError::KingsTouch);
        }
        let mut codes = [0u8; MAX_OTHERS];
        let mut k = 0;
        for (colour, bit) in [(Color::White, 0u8), (Color::Black, BLACK)] {
            for piece in [
                Piece::Pawn,
                Piece::Knight,
                Piece::Bishop,
                Piece::Rook,
                Piece::Queen,
            ] {
                for s in board.colored_pieces(colour, piece) {
                    codes[k] = (piece as u8 + 1) | bit;
                    sqs[2 + k] = s as u8;
                    k += 1;
                }
            }
        }
        let stm = u8::from(board.side_to_move() == Color::Black);
        let mut p = Pos::new(sqs, 0, stm, Material::from_codes(&codes[..k]));
        if let Some(f) = board.en_passant() {
            if can_take_en_passant(board) {
                p.set_ep(f as u8 + 1);
            }
        }
        Ok(p)
    }

    /// The legal moves of `p` with the position after each, in `cozy-chess`'s order.
    pub fn legal_moves(&self, p: &Pos) -> Vec<(cozy_chess::Move, Pos)> {
        let mut out = Vec::new();
        let Some(board) = self.board(p) else {
            return out;
        };
        board.generate_moves(|pm| {
            for mv in pm {
                let mut b = board.clone();
                b.play_unchecked(mv);
                out.push((
                    mv,
                    Chess::from_board(&b).expect("a move keeps the ending small"),
                ));
            }
            false
        });
        out
    }

    /// Whether the material can never mate (the position is a tie): no pawns, rooks or
    /// queens, and at most one minor piece, or bishops all on squares of one colour.
    pub fn insufficient(p: &Pos) -> bool {
        let (one_minor, bishops_only) = p.mat().minor_only();
        if one_minor {
            return true;
        }
        if !bishops_only {
            return false;
        }
        let colour = |i: usize| ((p.sq(2 + i) >> 3) + (p.sq(2 + i) & 7)) & 1;
        (1..p.mat().len()).all(|i| colour(i) == colour(0))
    }

    /// The FEN of a position (no castling rights, halfmove clock 0, move 1).
    pub fn fen(&self, p: &Pos) -> String {
        match self.board(p) {
            Some(b) => b.to_string(),
            None => format!("{p:?}"),
        }
    }
}

/// Whether the side to move can take en passant (legally) on `board`.
fn can_take_en_passant(board: &Board) -> bool {
    let Some(f) = board.en_passant() else {
        return false;
    };
    let rank = if board.side_to_move() == Color::White {
        Rank::Sixth
    } else {
        Rank::Third
    };
    let target = Square::new(f, rank);
    let pawns = board.colored_pieces(board.side_to_move(), Piece::Pawn);
    let mut found = false;
    board.generate_moves_for(pawns, |pm| {
        if pm.to.has(target) {
            found = true;
        }
        found
    });
    found
}

/// Whether an en-passant tier can hold positions: the pusher has a pawn on its fourth
/// rank and the other side a pawn on the same rank.
fn ep_possible(t: Tier) -> bool {
    if t.ep == 0 {
        return false;
    }
    let (pusher, rank) = if t.ep == 1 { (0, 3) } else { (BLACK, 4) };
    let mut mine = false;
    let mut theirs = false;
    for (i, c) in t.mat.codes().enumerate() {
        if c & 7 == 1 && t.rank_of(i) == rank {
            if c & BLACK == pusher {
                mine = true;
            } else {
                theirs = true;
            }
        }
    }
    mine && theirs
}

/// A tier from pieces as (code, rank) pairs and an en-passant flag.
fn tier_from(mut slots: Vec<(u8, u8)>, ep: u8) -> Tier {
    tier_of_slots(&mut slots, ep)
}

/// A tier from pieces as (code, rank) pairs (sorted here) and an en-passant flag, without
/// allocating.
#[inline]
fn tier_of_slots(slots: &mut [(u8, u8)], ep: u8) -> Tier {
    slots.sort_unstable();
    let mut codes = [0u8; MAX_OTHERS];
    let mut ranks = 0u16;
    for (j, &(c, r)) in slots.iter().enumerate() {
        codes[j] = c;
        if c & 7 == 1 {
            ranks |= u16::from(r) << (3 * j);
        }
    }
    Tier {
        mat: Material::from_codes(&codes[..slots.len()]),
        ranks,
        ep,
    }
}

impl TierGame for Chess {
    type Position = Pos;
    type Tier = Tier;
    type Layout = Dense;
    type Parents = Unmoves;
    type Symmetry = Symmetries;
    type Turn = Alternate;
    type Score = Unscored;
    /// A move is a piece, its square and (for a promotion) the new piece, so no two moves
    /// reach one position; and no two un-moves (a piece, the square it came from) leave
    /// one.
    const DISTINCT_MOVES: bool = true;

    fn name(&self) -> String {
        self.name.clone()
    }

    fn start(&self) -> Option<Pos> {
        None
    }

    fn root_tiers(&self) -> Vec<Tier> {
        let mut out: Vec<Tier> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for t in self.roots.iter().flat_map(|&m| self.tiers_of(m)) {
            let t = self.kept_tier(t);
            if seen.insert(t) {
                out.push(t);
            }
        }
        out
    }

    /// The tier that holds `p`: its own, or the one of its colour-swapped twin.
    #[inline(always)]
    fn tier(&self, p: &Pos) -> Tier {
        self.kept_tier(self.own_tier(p))
    }

    fn child_tiers(&self, t: Tier, out: &mut Vec<Tier>) {
        let slots: Vec<(u8, u8)> = t
            .mat
            .codes()
            .enumerate()
            .map(|(i, c)| (c, t.rank_of(i)))
            .collect();
        let mut found: Vec<Tier> = Vec::new();
        let mut add = |s: Vec<(u8, u8)>, ep: u8| {
            let own = tier_from(s, ep);
            if !(ep == 0 || ep_possible(own)) {
                return;
            }
            // A move never reaches a tier kept as its own (only a material with the same
            // pieces on both sides is its own colour swap, and it is kept as it is): else
            // its moves would count as moves inside the tier, which no un-move undoes. The
            // tests check it for every tier of five pieces.
            let nt = self.kept_tier(own);
            debug_assert!(nt != t || own == t, "{own:?} is the twin of {t:?}");
            if nt != t && !found.contains(&nt) {
                found.push(nt);
            }
        };
        // Without: the slots with `skip` removed.
        let without = |v: &[(u8, u8)], skip: usize| -> Vec<(u8, u8)> {
            v.iter()
                .enumerate()
                .filter(|&(j, _)| j != skip)
                .map(|(_, &x)| x)
                .collect()
        };
        for colour in [0u8, BLACK] {
            let opponents: Vec<usize> = (0..slots.len())
                .filter(|&j| slots[j].0 & BLACK != colour)
                .collect();
            // A king or a piece captures an opponent's piece.
            for &j in &opponents {
                add(without(&slots, j), 0);
            }
            for (i, &(c, r)) in slots.iter().enumerate() {
                if c & BLACK != colour || c & 7 != 1 {
                    continue;
                }
                let (next, last, start, two) = if colour == 0 {
                    (r + 1, 7, 1, 3)
                } else {
                    (r.wrapping_sub(1), 0, 6, 4)
                };
                // Where the pawn goes by a step, with or without a capture.
                let mut targets = vec![slots.clone()];
                for &j in &opponents {
                    targets.push(without(&slots, j));
                }
                for mut s in targets {
                    let at = s
                        .iter()
                        .position(|&x| x == (c, r))
                        .expect("the pawn is still there");
                    if next == last {
                        for kind in 2..=5 {
                            s[at] = (kind | colour, 0);
                            add(s.clone(), 0);
                        }
                    } else {
                        s[at] = (c, next);
                        add(s, 0);
                    }
                }
                if r == start {
                    let mut s = slots.clone();
                    s[i] = (c, two);
                    add(s.clone(), 0);
                    add(s, if colour == 0 { 1 } else { 2 });
                }
            }
        }
        if t.ep != 0 {
            add(slots.clone(), 0);
        }
        out.extend(found);
    }

    fn tier_named(&self, name: &str) -> Option<Tier> {
        let mut parts = name.split('_');
        let mat = Material::parse(parts.next()?).ok()?;
        let mut ranks = 0u16;
        let mut rest = parts.next();
        if mat.has_pawns() {
            // One digit a pawn, in slot order, as `tier_name` writes them.
            let mut digits = rest?.bytes();
            let mut last = (0u8, 0u8);
            for (i, c) in mat.codes().enumerate() {
                if c & 7 != 1 {
                    continue;
                }
                let r = digits.next()?.checked_sub(b'1')?;
                // On the 2nd to 7th rank; identical pawns in slot order ascending.
                if !(1..=6).contains(&r) || (last.0 == c && r < last.1) {
                    return None;
                }
                last = (c, r);
                ranks |= u16::from(r) << (3 * i);
            }
            if digits.next().is_some() {
                return None;
            }
            rest = parts.next();
        }
        let ep = match rest {
            None => 0,
            Some("epw") => 1,
            Some("epb") => 2,
            Some(_) => return None,
        };
        let t = Tier { mat, ranks, ep };
        let valid = parts.next().is_none() && (ep == 0 || ep_possible(t));
        (valid && self.kept_tier(t) == t).then_some(t)
    }

    fn tier_name(&self, t: Tier) -> String {
        let mut s = t.mat.to_string();
        let pawns: String = t
            .mat
            .codes()
            .enumerate()
            .filter(|&(_, c)| c & 7 == 1)
            .map(|(i, _)| char::from(b'1' + t.rank_of(i)))
            .collect();
        if !pawns.is_empty() {
            s.push('_');
            s.push_str(&pawns);
        }
        match t.ep {
            1 => s.push_str("_epw"),
            2 => s.push_str("_epb"),
            _ => {}
        }
        s
    }

    fn primitive(&self, p: &Pos) -> Option<Primitive> {
        if Chess::insufficient(p) {
            return Some(Primitive::Tie);
        }
        if Chess::king_can_step(p) || self.children(p, |_| true) {
            return None;
        }
        let b = Bits::of(p);
        let us = usize::from(p.stm());
        if b.attacked(p.sq(us), 1 - us, b.col[1 - us], b.occ()) {
            Some(Primitive::Loss)
        } else {
            Some(Primitive::Tie)
        }
    }

    fn moves(&self, p: &Pos, out: &mut Vec<Pos>) {
        self.children(p, |c| {
            out.push(c);
            false
        });
    }

    /// The quiet moves of the king and the pieces are the moves that stay in the tier
    /// (pawn moves, captures and promotions change the material or the pawns' ranks), so
    /// they are counted, not made; in a tier with an en-passant right every move leaves it.
    fn moves_leaving(&self, p: &Pos, out: &mut Vec<Pos>) -> usize {
        if p.ep() != 0 {
            self.moves(p, out);
            return 0;
        }
        Chess::generate::<true>(p, |c| {
            out.push(c);
            false
        })
        .1
    }
}

impl SymmetricGame for Chess {
    /// The 8 symmetries of the board (with pawns only the mirror counts: the other
    /// numbers act as the identity or the mirror, by their bit 0), then the same 8 after
    /// the swap of colours, which acts where [`Chess::swaps_inside`] (elsewhere as the
    /// first 8: the swap of another tier is read through [`TierGame::tier`], not a
    /// symmetry).
    fn symmetry_count(&self) -> usize {
        16
    }

    #[inline]
    fn apply_symmetry(&self, p: &Pos, g: usize) -> Pos {
        if g >= 8 && self.swaps_inside(p) {
            self.apply_board(&p.flipped_same(), g & 7)
        } else {
            self.apply_board(p, g & 7)
        }
    }

    /// The least image among the board's, found from the king pair (see
    /// [`Chess::canonical_board`]); with the swap of colours where the tables keep the
    /// position swapped or the swap is a symmetry.
    ///
    /// The common case, a position of kept colours whose kings are a canonical pair that
    /// no other symmetry keeps (the parents of an un-move of a piece other than a king),
    /// is inlined into the caller: the engine asks it of every parent, and as a call it
    /// was 8% of the 5-piece set's time, most of it the call's own cost.
    #[inline(always)]
    fn canonical(&self, p: &Pos) -> Pos {
        if self.colouring(p) == KEEP
            && self.to_canonical[usize::from(p.pawns())][p.king_pair()] == 1
        {
            return *p;
        }
        self.canonical_rest(p)
    }

    /// The images under the board's symmetries, twice that where the swap of colours is a
    /// symmetry too (a swapped image is never a board image: the other side is to move).
    #[inline]
    fn class_size(&self, p: &Pos) -> u64 {
        let n = self.board_class_size(p);
        if self.swaps_inside(p) {
            2 * n
        } else {
            n
        }
    }

    #[inline]
    fn is_canonical(&self, p: &Pos) -> bool {
        match self.colouring(p) {
            KEEP => self.is_canonical_board(p),
            SWAP => false,
            _ => self.is_canonical_mirrored(p),
        }
    }

    /// Two moves of `p` are made by one side, so their positions have the other side's
    /// king on the same square and the same side to move. A symmetry mapping one onto the
    /// other must then keep that king's square and not swap the colours (which changes the
    /// side to move); of the board's symmetries only the reflections in the long diagonals
    /// keep a square (the mirror alone, with pawns, keeps none).
    #[inline]
    fn children_apart(&self, p: &Pos) -> bool {
        if p.pawns() {
            return true;
        }
        let king = p.sq(1 - usize::from(p.stm()));
        let (file, rank) = (king & 7, king >> 3);
        file != rank && file + rank != 7
    }
}

mod fen;
mod index;
mod movegen;
mod notation;
pub mod plain;
mod unmove;

#[cfg(test)]
mod tests;
