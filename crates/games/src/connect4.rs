//! Connect-4 on a `width × height` board: players drop stones into columns in turn (first
//! player first), a stone falls to the lowest empty cell, four in a row (across, up or
//! diagonally) wins, a full board without one is a tie.
//!
//! # Position keys
//! A position is one `u64` key, column after column from bit 0, `height + 1` bits a column:
//! a column holding `h` stones keeps them in its low `h` bits (1 = the first player's stone)
//! and a 1 just above them (the column's *sentinel*). So `key = first + mask + bottom` in
//! John Tromp's terms, with absolute colours. The number of stones, `mask.count_ones()`, is
//! the position's *tier*; the player to move is the first player when it is even.
//!
//! Dropping a stone of a fixed colour into column `c` adds `2^h (1 + stone)` to that
//! column's field, a strictly increasing map of the field. So the children through column
//! `c` of a sorted list of positions come out sorted. [`Connect4::solve`] builds on this: it
//! holds each tier as a sorted array of keys, makes the next tier by merging `width` sorted
//! streams (no sort, no hash), and solves a tier from the next one by `width` sequential
//! merge-joins (no search). Only two tiers are in memory at a time; finished tiers go to
//! disk (see [`crate::tierfile`]).
//!
//! ```
//! use retrograde_games::connect4::{Connect4, SolveOptions};
//! use retrograde_solve::Value;
//! let game = Connect4::new(4, 4).unwrap();
//! let s = game.solve(&SolveOptions::default()).unwrap();
//! assert_eq!(s.start_value(), Value::Tie(16));
//! assert_eq!(s.value(game.empty()), Some(Value::Tie(16)));
//! ```

use crate::tierfile::{self, Header, Kind, TierFileError, TierWriter};
use crate::{Game, Stats};
use rayon::prelude::*;
use retrograde_graph::Primitive;
use retrograde_solve::{Outcome, Value};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Tiers smaller than this are made by one thread.
const PARALLEL_MIN: usize = if cfg!(test) { 64 } else { 1 << 15 };

/// Connect-4 rules for one board size.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Connect4 {
    width: u32,
    height: u32,
}

/// How many in a row win.
pub const LINE: u32 = 4;

impl Connect4 {
    /// A `width × height` board. Keys take `width × (height + 1)` bits, at most 64.
    ///
    /// # Errors
    /// An empty board, or one too big for a 64-bit key.
    pub fn new(width: u32, height: u32) -> Result<Connect4, String> {
        if width == 0 || height == 0 {
            return Err(format!("a {width}x{height} board has no cells"));
        }
        if u64::from(width) * u64::from(height + 1) > 64 {
            return Err(format!(
                "a {width}x{height} board is not supported: width x (height + 1) must be at most 64"
            ));
        }
        Ok(Connect4 { width, height })
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
        (0..self.width).fold(0, |k, c| k | 1 << (c * self.stride()))
    }

    /// Stones in column `c`.
    pub fn column_height(&self, key: u64, c: u32) -> u32 {
        let f = (key >> (c * self.stride())) & self.field_mask();
        63 - f.leading_zeros()
    }

    /// The occupied cells and the first player's stones, as bitboards in the key's layout
    /// (bit `c × (height + 1) + row`, row 0 at the bottom).
    pub fn decode(&self, key: u64) -> (u64, u64) {
        let s = self.stride();
        let mut mask = 0;
        for c in 0..self.width {
            let h = self.column_height(key, c);
            mask |= ((1u64 << h) - 1) << (c * s);
        }
        (mask, key & mask)
    }

    /// Stones on the board.
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
    pub fn play(&self, key: u64, c: u32) -> Option<u64> {
        if c >= self.width {
            return None;
        }
        let h = self.column_height(key, c);
        (h < self.height).then(|| key + self.drop_delta(key, c, self.stones(key)))
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

    /// The tag that names this game in tier files.
    pub fn tag(&self) -> String {
        format!("connect4 {}x{}", self.width, self.height)
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

/// Connect-4 as a [`Game`] for the generic explorer: the readable reference that the tier
/// solver is tested against (fine for small boards; it stores every move).
impl Game for Connect4 {
    type Position = u64;

    fn start(&self) -> u64 {
        self.empty()
    }

    fn moves(&self, p: &u64, out: &mut Vec<u64>) {
        out.extend((0..self.width).filter_map(|c| self.play(*p, c)));
    }

    fn primitive(&self, p: &u64) -> Option<Primitive> {
        self.terminal(*p, self.stones(*p))
    }

    /// The key itself, for boards whose keys take at most 24 bits (tests of the lean solver).
    fn index_size(&self) -> Option<u64> {
        (self.key_bits() <= 24).then(|| 1u64 << self.key_bits())
    }

    fn index(&self, p: &u64) -> u64 {
        *p
    }

    fn position(&self, index: u64) -> Option<u64> {
        self.is_valid(index).then_some(index)
    }

    fn unmoves(&self, p: &u64, out: &mut Vec<u64>) -> bool {
        // Lift the top stone of a column if it is the colour of the player who just moved.
        let stones = self.stones(*p);
        if stones == 0 {
            return true;
        }
        let last_first = u64::from(stones % 2 == 1);
        for c in 0..self.width {
            let h = self.column_height(*p, c);
            if h == 0 {
                continue;
            }
            let off = c * self.stride();
            let top = (*p >> (off + h - 1)) & 1;
            if top == last_first {
                // Back to height h - 1: the sentinel moves down onto the lifted stone.
                let cleared = *p & !(0b11 << (off + h - 1));
                out.push(cleared | 1 << (off + h - 1));
            }
        }
        true
    }

    fn canonical(&self, p: &u64) -> u64 {
        (*p).min(self.mirror(*p))
    }
}

// ---------------------------------------------------------------------------------------
// Values in one byte: outcome in the top two bits, remoteness (at most 56) below.

const ENC_LOSS: u8 = 0;
const ENC_TIE: u8 = 1 << 6;
const ENC_WIN: u8 = 2 << 6;

fn encode(v: Value) -> u8 {
    match v {
        Value::Loss(r) => ENC_LOSS | r as u8,
        Value::Tie(r) => ENC_TIE | r as u8,
        Value::Win(r) => ENC_WIN | r as u8,
        Value::Draw => unreachable!("connect-4 has no draws"),
    }
}

fn decode_value(b: u8) -> Value {
    let r = u32::from(b & 63);
    match b & 0xc0 {
        ENC_LOSS => Value::Loss(r),
        ENC_TIE => Value::Tie(r),
        _ => Value::Win(r),
    }
}

/// A key stored in a tier array: `u32` when the board's keys fit (5x5, 6x4), else `u64`.
trait Key: Copy + Ord + Send + Sync + 'static {
    fn from_u64(k: u64) -> Self;
    fn to_u64(self) -> u64;
}

impl Key for u32 {
    #[inline]
    fn from_u64(k: u64) -> u32 {
        k as u32
    }
    #[inline]
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
}

impl Key for u64 {
    #[inline]
    fn from_u64(k: u64) -> u64 {
        k
    }
    #[inline]
    fn to_u64(self) -> u64 {
        self
    }
}

// ---------------------------------------------------------------------------------------
// The tier solver.

/// Where the solved tiers go and what to report along the way.
#[derive(Default)]
pub struct SolveOptions<'a> {
    /// A directory for the tier files (keys and values of every tier). `None` keeps every
    /// tier in memory instead (about 9 bytes a position with 64-bit keys, 5 with 32-bit).
    pub dir: Option<PathBuf>,
    /// Reuse the tier files already in `dir` (checked by checksum) instead of computing
    /// them again: resumes an interrupted solve, or answers at once for a finished one.
    pub resume: bool,
    /// Called at the start of each tier of each pass.
    pub progress: Option<&'a (dyn Fn(Progress) + Sync)>,
    /// Stop with [`SolveError::Memory`] rather than hold more than this many bytes of tier
    /// arrays (the solver's own working memory, not counting the program itself).
    pub memory_limit: Option<u64>,
}

/// Where a solve is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Finding the positions of a tier (`tier` stones) from the previous one.
    Discover {
        /// The tier being made.
        tier: u32,
        /// Tiers in all.
        tiers: u32,
        /// Positions found so far.
        positions: u64,
    },
    /// Solving a tier from the next one, last tier first.
    Solve {
        /// The tier being solved.
        tier: u32,
        /// Tiers in all.
        tiers: u32,
        /// Positions solved so far.
        positions: u64,
        /// Positions in all.
        total: u64,
    },
}

/// Why a solve failed.
#[derive(Debug)]
pub enum SolveError {
    /// A tier file could not be written or read.
    File(TierFileError),
    /// The directory could not be made.
    Dir(PathBuf, std::io::Error),
    /// The tiers would need more memory than the limit.
    Memory {
        /// The tier being made or solved.
        tier: u32,
        /// Bytes it needs (at least).
        needed: u64,
        /// The limit.
        limit: u64,
    },
    /// The board has far too many positions to enumerate (an upper bound is given).
    TooBig {
        /// Gravity-consistent boards with balanced colours: an upper bound on the reachable
        /// positions.
        bound: f64,
    },
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::File(e) => e.fmt(f),
            SolveError::Dir(p, e) => write!(f, "{}: cannot create directory: {e}", p.display()),
            SolveError::Memory {
                tier,
                needed,
                limit,
            } => write!(
                f,
                "tier {tier} needs at least {} MiB, over the memory limit of {} MiB (raise --memory, or solve a smaller board)",
                needed >> 20,
                limit >> 20
            ),
            SolveError::TooBig { bound } => write!(
                f,
                "up to {bound:.2e} reachable positions: far too many to enumerate on one machine (7x6 has 4.5e12; try 6x5 or smaller)"
            ),
        }
    }
}

impl std::error::Error for SolveError {}

impl From<TierFileError> for SolveError {
    fn from(e: TierFileError) -> SolveError {
        SolveError::File(e)
    }
}

/// Every reachable position of a board, solved.
pub struct Solution {
    game: Connect4,
    start: Value,
    stats: Stats,
    /// Positions up to left-right mirroring.
    symmetric_classes: u64,
    tier_sizes: Vec<u64>,
    store: Store,
}

impl Solution {
    /// The value of the empty board for the first player.
    pub fn start_value(&self) -> Value {
        self.start
    }

    /// The totals (over reachable positions, terminals included).
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Reachable positions counted once per mirror pair (`(n + symmetric) / 2`).
    pub fn symmetry_reduced_positions(&self) -> u64 {
        self.symmetric_classes
    }

    /// Reachable positions by number of stones.
    pub fn tier_sizes(&self) -> &[u64] {
        &self.tier_sizes
    }

    /// The game.
    pub fn game(&self) -> &Connect4 {
        &self.game
    }

    /// The value of `key` for the player to move, or `None` when it is not reachable from the
    /// empty board. With tiers on disk, each call reads the position's tier files.
    pub fn value(&self, key: u64) -> Option<Value> {
        self.try_value(key).ok().flatten()
    }

    /// Like [`Solution::value`], with the file error when a tier on disk cannot be read.
    ///
    /// # Errors
    /// A tier file that is missing or damaged.
    pub fn try_value(&self, key: u64) -> Result<Option<Value>, SolveError> {
        let g = &self.game;
        if !g.is_valid(key) {
            return Ok(None);
        }
        let tier = g.stones(key);
        if tier as usize >= self.tier_sizes.len() {
            return Ok(None);
        }
        let found = match &self.store {
            Store::Memory(tiers) => {
                let (keys, vals) = &tiers[tier as usize];
                lookup(keys, vals, key)
            }
            Store::Disk(dir) => disk_lookup(dir, g, tier, key)?,
        };
        Ok(found.map(decode_value))
    }

    /// The moves from `key` (columns, 0-based) with what each gives the player to move, best
    /// first (equal values keep column order). Empty at a terminal or unknown position.
    pub fn ranked_moves(&self, key: u64) -> Vec<(u32, Value)> {
        let g = &self.game;
        if !g.is_valid(key) || g.terminal(key, g.stones(key)).is_some() {
            return Vec::new();
        }
        let mut out: Vec<(u32, Value)> = (0..g.width)
            .filter_map(|c| {
                let child = g.play(key, c)?;
                Some((c, self.value(child)?.parent()))
            })
            .collect();
        out.sort_by_key(|m| std::cmp::Reverse(m.1));
        out
    }
}

/// Binary search in a tier's key file (header checked, payload not read), then one read of
/// the value file.
fn disk_lookup(dir: &Path, g: &Connect4, tier: u32, key: u64) -> Result<Option<u8>, SolveError> {
    let open = |kind| -> Result<(PathBuf, std::fs::File, u64), SolveError> {
        let path = tier_path(dir, kind, tier);
        let count = tierfile::check_header(&path, &header(g, kind, tier))?;
        let file = std::fs::File::open(&path).map_err(|e| {
            SolveError::File(TierFileError {
                path: path.clone(),
                message: format!("cannot open: {e}"),
            })
        })?;
        Ok((path, file, count))
    };
    let (kpath, keys, n) = open(Kind::Keys)?;
    let kb = key_bytes(g);
    let (mut lo, mut hi) = (0u64, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let mut buf = [0u8; 8];
        tierfile::read_at(&kpath, &keys, kb, mid, &mut buf)?;
        let k = u64::from_le_bytes(buf);
        match k.cmp(&key) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => {
                let (vpath, vals, m) = open(Kind::Values)?;
                if m != n {
                    return Err(SolveError::File(TierFileError {
                        path: vpath,
                        message: format!("holds {m} values for {n} keys"),
                    }));
                }
                tierfile::read_at(&vpath, &vals, 1, mid, &mut buf)?;
                return Ok(Some(buf[0]));
            }
        }
    }
    Ok(None)
}

fn lookup<K: Key>(keys: &[K], vals: &[u8], key: u64) -> Option<u8> {
    keys.binary_search(&K::from_u64(key)).ok().map(|i| vals[i])
}

enum Store {
    /// Keys (as u64) and values of every tier.
    Memory(Vec<(Vec<u64>, Vec<u8>)>),
    /// The tier files' directory.
    Disk(PathBuf),
}

fn key_bytes(g: &Connect4) -> u32 {
    g.key_bits().div_ceil(8)
}

fn header(g: &Connect4, kind: Kind, tier: u32) -> Header {
    Header {
        tag: g.tag(),
        kind,
        tier,
        elem: match kind {
            Kind::Keys => key_bytes(g),
            Kind::Values => 1,
        },
    }
}

/// The file of one array of one tier.
pub fn tier_path(dir: &Path, kind: Kind, tier: u32) -> PathBuf {
    let name = match kind {
        Kind::Keys => "keys",
        Kind::Values => "values",
    };
    dir.join(format!("{name}-{tier:02}.tier"))
}

fn save_keys<K: Key>(dir: &Path, g: &Connect4, tier: u32, keys: &[K]) -> Result<(), SolveError> {
    let kb = key_bytes(g) as usize;
    let mut w = TierWriter::create(
        &tier_path(dir, Kind::Keys, tier),
        header(g, Kind::Keys, tier),
    )?;
    let mut buf = Vec::with_capacity(kb << 16);
    for chunk in keys.chunks(1 << 16) {
        buf.clear();
        for k in chunk {
            buf.extend_from_slice(&k.to_u64().to_le_bytes()[..kb]);
        }
        w.write(&buf)?;
    }
    Ok(w.finish()?)
}

fn load_keys<K: Key>(dir: &Path, g: &Connect4, tier: u32) -> Result<Vec<K>, SolveError> {
    let kb = key_bytes(g) as usize;
    let mut keys = Vec::new();
    tierfile::read(
        &tier_path(dir, Kind::Keys, tier),
        &header(g, Kind::Keys, tier),
        |chunk| {
            keys.extend(chunk.chunks_exact(kb).map(|b| {
                let mut a = [0u8; 8];
                a[..kb].copy_from_slice(b);
                K::from_u64(u64::from_le_bytes(a))
            }))
        },
    )?;
    Ok(keys)
}

fn save_values(dir: &Path, g: &Connect4, tier: u32, vals: &[u8]) -> Result<(), SolveError> {
    let mut w = TierWriter::create(
        &tier_path(dir, Kind::Values, tier),
        header(g, Kind::Values, tier),
    )?;
    w.write(vals)?;
    Ok(w.finish()?)
}

fn load_values(dir: &Path, g: &Connect4, tier: u32) -> Result<Vec<u8>, SolveError> {
    let mut vals = Vec::new();
    tierfile::read(
        &tier_path(dir, Kind::Values, tier),
        &header(g, Kind::Values, tier),
        |chunk| vals.extend_from_slice(chunk),
    )?;
    Ok(vals)
}

const META: &str = "meta.txt";
const META_HEAD: &str = "retrograde tier database 1";

/// Writes the totals of a finished solve next to its tiers (the mark that it is finished).
fn save_meta(dir: &Path, s: &Solution) -> Result<(), SolveError> {
    let st = &s.stats;
    let list = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(",");
    let text = format!(
        "{META_HEAD}\ngame {}\nstart {}\npositions {}\nmoves {}\nwin {}\nloss {}\ntie {}\nsymmetric_classes {}\ntier_sizes {}\nhistogram {}\n",
        s.game.tag(),
        encode(s.start),
        st.positions,
        st.moves,
        st.win,
        st.loss,
        st.tie,
        s.symmetric_classes,
        list(&mut s.tier_sizes.iter().map(u64::to_string)),
        list(&mut st.histogram.iter().map(|h| format!("{}:{}:{}", h.0, h.1, h.2))),
    );
    let path = dir.join(META);
    let tmp = dir.join("meta.tmp");
    let fail = |p: &Path, e: std::io::Error| {
        SolveError::File(TierFileError {
            path: p.to_path_buf(),
            message: format!("cannot write: {e}"),
        })
    };
    std::fs::write(&tmp, text).map_err(|e| fail(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| fail(&path, e))
}

/// Reads the totals of a finished solve; `Ok(None)` when there are none (not finished).
fn load_meta(dir: &Path, g: &Connect4) -> Result<Option<Solution>, SolveError> {
    let path = dir.join(META);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let bad = |what: &str| {
        SolveError::File(TierFileError {
            path: path.clone(),
            message: format!("not a finished connect4 database: {what}"),
        })
    };
    let mut lines = text.lines();
    if lines.next() != Some(META_HEAD) {
        return Err(bad("unknown first line"));
    }
    let mut fields = std::collections::HashMap::new();
    for l in lines {
        let (k, v) = l.split_once(' ').ok_or_else(|| bad(l))?;
        fields.insert(k, v);
    }
    let field = |k: &str| fields.get(k).copied().ok_or_else(|| bad(k));
    let num = |k: &str| -> Result<u64, SolveError> { field(k)?.parse().map_err(|_| bad(k)) };
    if field("game")? != g.tag() {
        return Err(bad(&format!(
            "it holds {}, not {}",
            field("game")?,
            g.tag()
        )));
    }
    let split = |k: &str| -> Result<Vec<&str>, SolveError> {
        Ok(field(k)?.split(',').filter(|x| !x.is_empty()).collect())
    };
    let tier_sizes = split("tier_sizes")?
        .iter()
        .map(|x| x.parse().map_err(|_| bad("tier_sizes")))
        .collect::<Result<Vec<u64>, _>>()?;
    let histogram = split("histogram")?
        .iter()
        .map(|x| {
            let v: Vec<u64> = x.split(':').filter_map(|n| n.parse().ok()).collect();
            match v[..] {
                [w, l, t] => Ok((w, l, t)),
                _ => Err(bad("histogram")),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let longest = |pick: fn(&(u64, u64, u64)) -> u64| {
        histogram
            .iter()
            .rposition(|h| pick(h) > 0)
            .map(|r| r as u32)
    };
    let start = u8::try_from(num("start")?).map_err(|_| bad("start"))?;
    Ok(Some(Solution {
        game: *g,
        start: decode_value(start),
        stats: Stats {
            positions: num("positions")?,
            moves: num("moves")?,
            win: num("win")?,
            loss: num("loss")?,
            tie: num("tie")?,
            draw: 0,
            longest_win: longest(|h| h.0),
            longest_loss: longest(|h| h.1),
            histogram,
            ..Stats::default()
        },
        symmetric_classes: num("symmetric_classes")?,
        tier_sizes,
        store: Store::Disk(dir.to_path_buf()),
    }))
}

/// Per parent: bit `c` set when the position is not terminal and column `c` has room.
fn move_flags<K: Key>(g: &Connect4, keys: &[K], tier: u32) -> Vec<u8> {
    let mut flags = vec![0u8; keys.len()];
    flags
        .par_chunks_mut(1 << 14)
        .zip(keys.par_chunks(1 << 14))
        .for_each(|(f, k)| {
            for (f, &k) in f.iter_mut().zip(k) {
                *f = flags_of(g, k.to_u64(), tier);
            }
        });
    flags
}

#[inline]
fn flags_of(g: &Connect4, key: u64, tier: u32) -> u8 {
    if g.terminal(key, tier).is_some() {
        return 0;
    }
    (0..g.width).fold(0u8, |f, c| {
        f | u8::from(g.column_height(key, c) < g.height) << c
    })
}

/// The child through column `c` as a lexicographic (higher columns, field, lower columns)
/// number, defined for full columns too (the field may then need one more bit), so that it is
/// strictly increasing over sorted parents: what the range splitting binary-searches.
#[inline]
fn extended_child(g: &Connect4, key: u64, c: u32, first: u64) -> u128 {
    let off = c * g.stride();
    let f = (key >> off) & g.field_mask();
    let h = 63 - f.leading_zeros();
    let grown = u128::from(f + (1u64 << h) * (1 + first));
    extended(g, key, c) - (u128::from(f) << off) + (grown << off)
}

/// `key` in the same (higher columns, field `c`, lower columns) layout, with one spare bit.
#[inline]
fn extended(g: &Connect4, key: u64, c: u32) -> u128 {
    let off = c * g.stride();
    let s = g.stride();
    let high = u128::from(key) >> (off + s);
    let rest = u128::from(key) & ((1u128 << (off + s)) - 1);
    (high << (off + s + 1)) | rest
}

/// The next tier: every child of a non-terminal position of `parents` (tier `tier`), sorted
/// and without duplicates, by merging the `width` sorted streams of children (one a column).
/// Parallel over ranges of child keys.
fn next_tier<K: Key>(
    g: &Connect4,
    parents: &[K],
    flags: &[u8],
    tier: u32,
    budget: Option<u64>,
) -> Option<Vec<K>> {
    let used = AtomicU64::new(0);
    let over = AtomicBool::new(false);
    let first = u64::from(tier % 2 == 0);
    let parts = if parents.len() < PARALLEL_MIN {
        1
    } else {
        rayon::current_num_threads() * 16
    };
    // Range r holds the children in [bound(r), bound(r + 1)); bounds are parent keys at
    // quantiles (None = unbounded).
    let bound = |r: usize| -> Option<u64> {
        (r > 0 && r < parts).then(|| parents[r * parents.len() / parts].to_u64())
    };
    let runs: Vec<Vec<K>> = (0..parts)
        .into_par_iter()
        .map(|r| {
            let (lo, hi) = (bound(r), bound(r + 1));
            let w = g.width as usize;
            let mut idx = [0usize; 8];
            let mut end = [0usize; 8];
            for c in 0..w {
                let at = |b: Option<u64>, default: usize| {
                    b.map_or(default, |b| {
                        let target = extended(g, b, c as u32);
                        parents.partition_point(|p| {
                            extended_child(g, p.to_u64(), c as u32, first) < target
                        })
                    })
                };
                idx[c] = at(lo, 0);
                end[c] = at(hi, parents.len());
            }
            let bit = |c: usize| 1u8 << c;
            // The head of each stream: the next child key, or u64::MAX when done.
            let mut head = [u64::MAX; 8];
            let advance = |c: usize, idx: &mut [usize; 8], head: &mut [u64; 8]| {
                while idx[c] < end[c] && flags[idx[c]] & bit(c) == 0 {
                    idx[c] += 1;
                }
                head[c] = if idx[c] < end[c] {
                    let p = parents[idx[c]].to_u64();
                    idx[c] += 1;
                    p + g.drop_delta(p, c as u32, tier)
                } else {
                    u64::MAX
                };
            };
            for c in 0..w {
                advance(c, &mut idx, &mut head);
            }
            let mut out = Vec::new();
            loop {
                let (mut best, mut at) = (u64::MAX, usize::MAX);
                for (c, &h) in head.iter().enumerate().take(w) {
                    if h < best {
                        (best, at) = (h, c);
                    }
                }
                if at == usize::MAX {
                    break;
                }
                if out.last().map(|l: &K| l.to_u64()) != Some(best) {
                    out.push(K::from_u64(best));
                    if out.len() % (1 << 20) == 0 {
                        let bytes = (1u64 << 20) * std::mem::size_of::<K>() as u64;
                        let total = used.fetch_add(bytes, Ordering::Relaxed) + bytes;
                        if budget.is_some_and(|b| total > b) {
                            over.store(true, Ordering::Relaxed);
                        }
                        if over.load(Ordering::Relaxed) {
                            return Vec::new();
                        }
                    }
                }
                advance(at, &mut idx, &mut head);
            }
            out
        })
        .collect();
    if over.load(Ordering::Relaxed) {
        return None;
    }
    let mut out = Vec::with_capacity(runs.iter().map(Vec::len).sum());
    for run in runs {
        debug_assert!(
            out.last().zip(run.first()).is_none_or(|(a, b)| a < b),
            "ranges overlap"
        );
        out.extend_from_slice(&run);
    }
    Some(out)
}

/// The values of tier `tier` from the next tier's keys and values: one sequential
/// merge-join per column (children through one column come in key order).
fn solve_tier<K: Key>(
    g: &Connect4,
    parents: &[K],
    tier: u32,
    children: &[K],
    child_vals: &[u8],
) -> Vec<u8> {
    let mut vals = vec![0u8; parents.len()];
    vals.par_chunks_mut(1 << 14)
        .zip(parents.par_chunks(1 << 14))
        .for_each(|(vals, parents)| {
            let mut best: Vec<Option<Value>> = vec![None; parents.len()];
            let flags: Vec<u8> = parents
                .iter()
                .map(|p| flags_of(g, p.to_u64(), tier))
                .collect();
            for c in 0..g.width {
                let bit = 1u8 << c;
                let Some(first) = flags.iter().position(|f| f & bit != 0) else {
                    continue;
                };
                let child_of = |i: usize| {
                    let p = parents[i].to_u64();
                    K::from_u64(p + g.drop_delta(p, c, tier))
                };
                let mut j = children.partition_point(|&k| k < child_of(first));
                for i in first..parents.len() {
                    if flags[i] & bit == 0 {
                        continue;
                    }
                    let child = child_of(i);
                    while children[j] < child {
                        j += 1;
                    }
                    debug_assert!(children[j] == child, "a child missing from its tier");
                    let v = decode_value(child_vals[j]).parent();
                    if best[i].is_none_or(|b| v > b) {
                        best[i] = Some(v);
                    }
                }
            }
            for (i, out) in vals.iter_mut().enumerate() {
                let v = match best[i] {
                    Some(v) => v,
                    None => match g.terminal(parents[i].to_u64(), tier) {
                        Some(Primitive::Loss) => Value::Loss(0),
                        Some(Primitive::Tie) | None => Value::Tie(0),
                        Some(Primitive::Win) => Value::Win(0),
                    },
                };
                *out = encode(v);
            }
        });
    vals
}

/// Totals of one solved tier.
#[derive(Default)]
struct TierTotals {
    moves: u64,
    symmetric: u64,
    counts: [u64; 3],
    /// `hist[r]` = (wins, losses, ties).
    hist: Vec<(u64, u64, u64)>,
}

impl TierTotals {
    fn merge(mut self, o: TierTotals) -> TierTotals {
        self.moves += o.moves;
        self.symmetric += o.symmetric;
        for i in 0..3 {
            self.counts[i] += o.counts[i];
        }
        if self.hist.len() < o.hist.len() {
            self.hist.resize(o.hist.len(), (0, 0, 0));
        }
        for (a, b) in self.hist.iter_mut().zip(o.hist) {
            *a = (a.0 + b.0, a.1 + b.1, a.2 + b.2);
        }
        self
    }
}

fn tier_totals<K: Key>(g: &Connect4, keys: &[K], vals: &[u8], tier: u32) -> TierTotals {
    keys.par_chunks(1 << 14)
        .zip(vals.par_chunks(1 << 14))
        .map(|(keys, vals)| {
            let mut t = TierTotals::default();
            for (&k, &v) in keys.iter().zip(vals) {
                let k = k.to_u64();
                t.moves += u64::from(flags_of(g, k, tier).count_ones());
                t.symmetric += u64::from(g.mirror(k) == k);
                let v = decode_value(v);
                let r = v.remoteness().unwrap_or(0) as usize;
                if t.hist.len() <= r {
                    t.hist.resize(r + 1, (0, 0, 0));
                }
                match v.outcome() {
                    Outcome::Win => (t.counts[0] += 1, t.hist[r].0 += 1),
                    Outcome::Loss => (t.counts[1] += 1, t.hist[r].1 += 1),
                    _ => (t.counts[2] += 1, t.hist[r].2 += 1),
                };
            }
            t
        })
        .reduce(TierTotals::default, TierTotals::merge)
}

impl Connect4 {
    /// Opens the database a finished solve with a directory wrote, without solving: values
    /// are then looked up in the tier files (a binary search in a key file, one read of a
    /// value file). `Ok(None)` when the directory holds no finished solve of this board.
    ///
    /// # Errors
    /// A damaged `meta.txt`, or one for another board.
    pub fn open(&self, dir: &Path) -> Result<Option<Solution>, SolveError> {
        load_meta(dir, self)
    }

    /// Solves every position reachable from the empty board, tier by tier (a tier = the
    /// positions with the same number of stones; every move leads to the next tier).
    ///
    /// Pass 1 discovers the tiers from the empty board up, each from the previous one;
    /// pass 2 solves them from the full board down, each from the next one. Memory: two
    /// tiers at a time (about 10 bytes a position of the two biggest neighbouring tiers with
    /// 32-bit keys, 18 with 64-bit ones); with `dir`, finished tiers go to disk (key bytes +
    /// 1 a position), else they stay in memory.
    ///
    /// # Errors
    /// Tier files that cannot be written or read.
    pub fn solve(&self, opts: &SolveOptions<'_>) -> Result<Solution, SolveError> {
        if self.key_bits() <= 32 {
            self.solve_keys::<u32>(opts)
        } else {
            self.solve_keys::<u64>(opts)
        }
    }

    fn solve_keys<K: Key>(&self, opts: &SolveOptions<'_>) -> Result<Solution, SolveError> {
        let g = *self;
        let tiers = g.cells() + 1;
        let report = |p: Progress| {
            if let Some(f) = opts.progress {
                f(p)
            }
        };
        if let Some(dir) = &opts.dir {
            std::fs::create_dir_all(dir).map_err(|e| SolveError::Dir(dir.clone(), e))?;
            if opts.resume {
                if let Some(done) = load_meta(dir, &g)? {
                    // Finished, if every tier file is still there: check them all, checksums
                    // included (a damaged file is an error; a missing one is solved again).
                    let files: Vec<(Kind, u32)> = (0..done.tier_sizes.len() as u32)
                        .flat_map(|t| [(Kind::Keys, t), (Kind::Values, t)])
                        .collect();
                    if files.iter().all(|&(k, t)| tier_path(dir, k, t).exists()) {
                        files.par_iter().try_for_each(|&(k, t)| {
                            tierfile::read(&tier_path(dir, k, t), &header(&g, k, t), |_| {})
                                .map(|_| ())
                        })?;
                        return Ok(done);
                    }
                    let _ = std::fs::remove_file(dir.join(META));
                }
            } else {
                // A new solve: whatever finished database was here is no longer this one.
                let _ = std::fs::remove_file(dir.join(META));
            }
        }
        let bound = position_bound(g.width, g.height);
        if bound > 1e12 {
            return Err(SolveError::TooBig { bound });
        }
        let key_size = std::mem::size_of::<K>() as u64;
        // Bytes of tiers kept in memory (without `dir`).
        let mut kept = 0u64;
        let mut memory: Vec<(Vec<u64>, Vec<u8>)> = Vec::new();
        let mut mem_keys: Vec<Vec<K>> = Vec::new();

        // Pass 1: discover the tiers.
        let started = Instant::now();
        let mut sizes = Vec::new();
        let mut found = 0u64;
        let mut current: Vec<K> = vec![K::from_u64(g.empty())];
        let mut last = 0;
        for tier in 0..tiers {
            report(Progress::Discover {
                tier,
                tiers,
                positions: found,
            });
            found += current.len() as u64;
            sizes.push(current.len() as u64);
            last = tier;
            let next_path = |t| opts.dir.as_ref().map(|d| tier_path(d, Kind::Keys, t));
            let next = if tier + 1 == tiers {
                Vec::new()
            } else if opts.resume && next_path(tier + 1).is_some_and(|p| p.exists()) {
                load_keys::<K>(opts.dir.as_ref().expect("dir"), &g, tier + 1)?
            } else {
                let flags = move_flags(&g, &current, tier);
                // Held meanwhile: this tier's keys and flags, and every tier kept in memory.
                let held = current.len() as u64 * (key_size + 1) + kept;
                let budget = opts.memory_limit.map(|l| l.saturating_sub(held));
                if budget == Some(0) {
                    return Err(SolveError::Memory {
                        tier: tier + 1,
                        needed: held,
                        limit: opts.memory_limit.unwrap_or(0),
                    });
                }
                match next_tier(&g, &current, &flags, tier, budget) {
                    Some(next) => next,
                    None => {
                        return Err(SolveError::Memory {
                            tier: tier + 1,
                            needed: held + budget.unwrap_or(0),
                            limit: opts.memory_limit.unwrap_or(0),
                        })
                    }
                }
            };
            match &opts.dir {
                Some(dir) => {
                    if !(opts.resume && tier_path(dir, Kind::Keys, tier).exists()) {
                        save_keys(dir, &g, tier, &current)?;
                    }
                }
                None => {
                    kept += current.len() as u64 * key_size;
                    mem_keys.push(std::mem::take(&mut current));
                }
            }
            if next.is_empty() {
                break;
            }
            current = next;
        }
        drop(current);
        let explore = started.elapsed();

        // Pass 2: solve from the last tier down.
        let started = Instant::now();
        let mut totals = TierTotals::default();
        let mut children: Vec<K> = Vec::new();
        let mut child_vals: Vec<u8> = Vec::new();
        let mut solved = 0u64;
        for tier in (0..=last).rev() {
            report(Progress::Solve {
                tier,
                tiers,
                positions: solved,
                total: found,
            });
            if let (Some(limit), Some(_)) = (opts.memory_limit, &opts.dir) {
                // This tier's keys and values, the next tier's keys and values.
                let needed = (sizes[tier as usize] + children.len() as u64) * (key_size + 1);
                if needed > limit {
                    return Err(SolveError::Memory {
                        tier,
                        needed,
                        limit,
                    });
                }
            }
            let keys: Vec<K> = match &opts.dir {
                Some(dir) => load_keys(dir, &g, tier)?,
                None => mem_keys.pop().expect("a tier in memory"),
            };
            let vals = match &opts.dir {
                Some(dir) if opts.resume && tier_path(dir, Kind::Values, tier).exists() => {
                    load_values(dir, &g, tier)?
                }
                _ => solve_tier(&g, &keys, tier, &children, &child_vals),
            };
            if let Some(dir) = &opts.dir {
                if !(opts.resume && tier_path(dir, Kind::Values, tier).exists()) {
                    save_values(dir, &g, tier, &vals)?;
                }
            }
            totals = totals.merge(tier_totals(&g, &keys, &vals, tier));
            solved += keys.len() as u64;
            if opts.dir.is_none() {
                memory.push((
                    children.iter().map(|k| k.to_u64()).collect(),
                    std::mem::take(&mut child_vals),
                ));
            }
            children = keys;
            child_vals = vals;
        }
        let start = decode_value(child_vals[0]);
        let store = match &opts.dir {
            Some(dir) => Store::Disk(dir.clone()),
            None => {
                memory.push((children.iter().map(|k| k.to_u64()).collect(), child_vals));
                // memory[0] is the (empty) tier past the last one; reverse to tier order.
                memory.remove(0);
                memory.reverse();
                Store::Memory(memory)
            }
        };
        let longest = |pick: fn(&(u64, u64, u64)) -> u64| {
            totals
                .hist
                .iter()
                .rposition(|h| pick(h) > 0)
                .map(|r| r as u32)
        };
        let stats = Stats {
            positions: found,
            moves: totals.moves,
            win: totals.counts[0],
            loss: totals.counts[1],
            tie: totals.counts[2],
            draw: 0,
            longest_win: longest(|h| h.0),
            longest_loss: longest(|h| h.1),
            histogram: totals.hist.clone(),
            classes: (found + totals.symmetric) / 2,
            states: found,
            explore,
            solve: started.elapsed(),
        };
        let solution = Solution {
            game: g,
            start,
            symmetric_classes: (found + totals.symmetric) / 2,
            stats,
            tier_sizes: sizes,
            store,
        };
        if let Some(dir) = &opts.dir {
            save_meta(dir, &solution)?;
        }
        Ok(solution)
    }
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

/// The solve time of a finished run (for reports that want one figure).
pub fn total_time(s: &Solution) -> Duration {
    s.stats.explore + s.stats.solve
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve_game;
    use retrograde_solve::Rules;

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
        assert!(g.render(k).starts_with(". . . . . . .\n"));
        let mut full = g.empty();
        for _ in 0..6 {
            full = g.play(full, 0).unwrap();
        }
        assert_eq!(g.play(full, 0), None);
        assert!(Connect4::new(8, 8).is_err());
        assert!(Connect4::new(0, 4).is_err());
        assert!(Connect4::new(8, 7).is_ok());
    }

    /// The tier solver against the generic explorer (which stores every move and runs the
    /// engine), position by position.
    fn agrees_with_explorer(w: u32, h: u32) {
        let g = Connect4::new(w, h).unwrap();
        let s = g.solve(&SolveOptions::default()).unwrap();
        let reference = solve_game(&g, &Rules::default()).unwrap();
        let rs = reference.stats();
        let st = s.stats();
        assert_eq!(
            (st.positions, st.moves, st.win, st.loss, st.tie, st.draw),
            (rs.positions, rs.moves, rs.win, rs.loss, rs.tie, rs.draw),
            "{w}x{h}"
        );
        assert_eq!(st.histogram, rs.histogram);
        assert_eq!(s.start_value(), reference.start_value());
        let Store::Memory(tiers) = &s.store else {
            unreachable!()
        };
        let mut n = 0;
        for (keys, vals) in tiers {
            for (&k, &v) in keys.iter().zip(vals) {
                assert_eq!(
                    Some(decode_value(v)),
                    reference.value(&k),
                    "{}",
                    g.render(k)
                );
                n += 1;
            }
        }
        assert_eq!(n, st.positions);
    }

    #[test]
    fn small_boards_agree_with_the_explorer() {
        for (w, h) in [
            (1, 1),
            (1, 4),
            (4, 1),
            (2, 3),
            (3, 3),
            (4, 3),
            (3, 4),
            (5, 2),
        ] {
            agrees_with_explorer(w, h);
        }
    }

    #[test]
    fn limits() {
        let g = Connect4::new(4, 4).unwrap();
        let s = g.solve(&SolveOptions::default()).unwrap();
        let bound = position_bound(4, 4);
        assert!(bound >= s.stats().positions as f64 && bound < 3.0 * s.stats().positions as f64);
        let e = g
            .solve(&SolveOptions {
                memory_limit: Some(100_000),
                ..SolveOptions::default()
            })
            .err()
            .unwrap();
        assert!(matches!(e, SolveError::Memory { .. }), "{e}");
        assert!(e.to_string().contains("memory limit"), "{e}");
        let e = Connect4::new(7, 6)
            .unwrap()
            .solve(&SolveOptions::default())
            .err()
            .unwrap();
        assert!(e.to_string().contains("far too many"), "{e}");
    }

    #[test]
    fn disk_and_resume_agree_with_memory() {
        let g = Connect4::new(4, 3).unwrap();
        let mem = g.solve(&SolveOptions::default()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let opts = SolveOptions {
            dir: Some(dir.path().to_path_buf()),
            ..SolveOptions::default()
        };
        let disk = g.solve(&opts).unwrap();
        assert_eq!(disk.stats().histogram, mem.stats().histogram);
        assert_eq!(disk.start_value(), mem.start_value());
        // Interrupt: remove the values of the low tiers and half the keys; resume.
        for t in 0..5 {
            std::fs::remove_file(tier_path(dir.path(), Kind::Values, t)).unwrap();
        }
        for t in 7..13 {
            std::fs::remove_file(tier_path(dir.path(), Kind::Keys, t)).unwrap();
        }
        let resumed = g
            .solve(&SolveOptions {
                resume: true,
                ..opts
            })
            .unwrap();
        assert_eq!(resumed.stats().positions, mem.stats().positions);
        assert_eq!(resumed.stats().histogram, mem.stats().histogram);
        let Store::Memory(tiers) = &mem.store else {
            unreachable!()
        };
        for (keys, vals) in tiers {
            for (&k, &v) in keys.iter().zip(vals) {
                assert_eq!(resumed.value(k), Some(decode_value(v)));
            }
        }
        assert_eq!(resumed.value(g.empty() | 1 << 40), None);
        // Finished: opening it needs no solve, and every value is found on disk.
        let opened = g.open(dir.path()).unwrap().expect("a finished database");
        assert_eq!(opened.stats().histogram, mem.stats().histogram);
        assert_eq!(opened.stats().longest_win, mem.stats().longest_win);
        assert_eq!(opened.start_value(), mem.start_value());
        assert_eq!(opened.tier_sizes(), mem.tier_sizes());
        for (keys, vals) in tiers {
            for (&k, &v) in keys.iter().zip(vals) {
                assert_eq!(opened.value(k), Some(decode_value(v)));
            }
        }
        assert!(Connect4::new(3, 4).unwrap().open(dir.path()).is_err());
        assert!(g.open(&dir.path().join("nothing")).unwrap().is_none());
    }
}
