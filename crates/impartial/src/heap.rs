//! Heap games: octal games (Kayles, Dawson's Kayles, Dawson's chess, …), subtraction games,
//! Grundy's game and nim, with their nim-sequences and a proof of periodicity.
//!
//! A position is a row of heaps; a move changes one heap. Since every move acts on one heap,
//! a position is the disjunctive sum of its heaps and its value is the XOR of their values:
//! the nim-sequence `G(0), G(1), …` (the value of a single heap of each size) says everything,
//! and it is computed from the values of smaller heaps, never from a graph of positions.
//!
//! # Octal codes
//! An octal game is written `d0.d1d2d3…`: digit `dk` (0 to 7) says what may remain after
//! removing `k` tokens from a heap, as a sum of bits: 1 nothing (the heap had exactly `k`),
//! 2 one heap, 4 two non-empty heaps (the rest split in two). `d0` is 0, or 4 for a move that
//! removes nothing and splits a heap. Kayles (knock down one pin or two adjacent ones) is
//! `0.77`, Dawson's Kayles `0.07`, Dawson's chess `0.137`, Treblecross `0.007`. A subtraction
//! game with take-set `S` is the octal game with digit 3 at each `k ∈ S`; Grundy's game
//! (split a heap into two unequal heaps) is not octal (the "unequal" rule).
//!
//! # Complexity
//! `G(n)` is the mex over the moves from a heap of `n`: for each digit with bit 4, the
//! `⌊(n - k)/2⌋` splits, each valued by one XOR. Computing `N` terms of a game with `s`
//! splitting digits costs about `s·N²/4` XORs (quadratic); games without splits cost
//! O(N × digits). Memory: 4 bytes per term.
//!
//! # Periodicity
//! [`HeapGame::period`] looks for the least period `p` and pre-period `e` that the computed
//! terms *prove*. For a game with finitely many digits, the last non-zero one at `t`, the
//! Guy-Smith periodicity theorem says: if `G(n + p) = G(n)` for all `n` with `e ≤ n < B`,
//! then for all `n ≥ e`. Here (the proof is written out in the source of `period`) `B` is
//! `max(t + 1, e + t)` for games without splitting digits and
//! `max(t + 1, e + t, 2·max(e, 1) + p + t)` with them (the classical `2e + p + t`, made safe
//! for `e = 0`). Grundy's game is not covered by the theorem (its values are believed never to
//! become periodic), and nim is never periodic.

use retrograde_games::about::{self, About, Param};
use std::fmt;

/// What `game octal` says of itself: its rules, parameters and examples.
pub const OCTAL: About = About {
    name: "octal",
    about: "an octal game on one heap (Kayles is 0.77): its nim-sequence",
    help: "An octal game on one heap: print its nim-sequence, the Grundy values of heaps 0 \
           to N-1. A move takes k tokens from a heap; the code's k-th digit after the point \
           says what may remain, as a sum of bits: 1 nothing (the heap had exactly k), 2 \
           one heap, 4 two non-empty heaps (the rest split in two). The digit before the \
           point is 0, or 4 for splitting without taking. A row of heaps is worth the XOR \
           of their values, so the sequence decides every position. Time: quadratic in N \
           when heaps split (Kayles, 100000 terms: about 1.5 s), else linear. --period \
           reports the least pre-period and period that the computed terms prove by the \
           Guy-Smith periodicity theorem.",
    examples: &[
        "octal 0.77 --count 300 --period    Kayles: period 12 from heap 71",
        "octal 0.07 --count 300 --period    Dawson's Kayles",
        "octal 0.137 --count 100            Dawson's chess",
    ],
    params: &[
        Param {
            name: "code",
            help: "The octal code, like 0.77 (digits 0-7; up to 1000 of them).",
            kind: about::Kind::Text,
            default: None,
            positional: true,
            value_name: "CODE",
        },
        COUNT,
        PERIOD,
    ],
    moves: None,
    symmetry: "",
};

/// What `game subtraction` says of itself: its rules, parameters and examples.
pub const SUBTRACTION: About = About {
    name: "subtraction",
    about: "a subtraction game on one heap: its nim-sequence",
    help: "A subtraction game on one heap: take t tokens for some t in the take-set. Prints \
           its nim-sequence (the Grundy values of heaps 0 to N-1); --period as for `game \
           octal`.",
    examples: &[
        "subtraction --take 1,2 --count 12      the pebble game: n mod 3",
        "subtraction --take 1,3,4 --count 50 --period",
    ],
    params: &[
        Param {
            name: "take",
            help: "The amounts a move may take, comma-separated.",
            kind: about::Kind::Numbers {
                min: 0,
                max: u32::MAX as u64,
            },
            default: None,
            positional: false,
            value_name: "SET",
        },
        COUNT,
        PERIOD,
    ],
    moves: None,
    symmetry: "",
};

/// What `game grundy-game` says of itself: its rules, parameters and examples.
pub const GRUNDY_GAME: About = About {
    name: "grundy-game",
    about: "Grundy's game: split a heap in two unequal heaps",
    help: "Grundy's game: split one heap into two non-empty heaps of different sizes; who \
           cannot move loses. Prints its nim-sequence (heaps 0 to N-1). Time: quadratic in \
           N (100000 terms: about 3 s). No periodicity theorem covers it (it is believed \
           never to become periodic), so --period proves nothing.",
    examples: &["grundy-game --count 100"],
    params: &[COUNT, PERIOD],
    moves: None,
    symmetry: "",
};

/// How many heaps a sequence computes.
const COUNT: Param = Param {
    name: "count",
    help: "Compute heaps 0 to N-1.",
    kind: about::Kind::Number {
        min: 1,
        max: 100_000_000,
    },
    default: Some("100"),
    positional: false,
    value_name: "N",
};

/// Whether to report the period the terms prove.
const PERIOD: Param = Param {
    name: "period",
    help: "Report the pre-period and period, if the computed terms prove them.",
    kind: about::Kind::Flag,
    default: None,
    positional: false,
    value_name: "",
};

/// What a heap becomes after a move: nothing, one heap, or two heaps.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Leaves {
    /// The heap is gone.
    Nothing,
    /// One heap of this size.
    One(u32),
    /// Two heaps (the smaller first).
    Two(u32, u32),
}

impl Leaves {
    /// The sizes of the heaps left, smaller first (none, one or two).
    pub fn heaps(self) -> Vec<u32> {
        match self {
            Leaves::Nothing => vec![],
            Leaves::One(a) => vec![a],
            Leaves::Two(a, b) => vec![a, b],
        }
    }
}

/// A move on one heap: take `take` tokens, leaving `leaves`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct HeapMove {
    /// Tokens removed (0 for a pure split, as in Grundy's game).
    pub take: u32,
    /// What remains of the heap.
    pub leaves: Leaves,
}

impl HeapMove {
    /// The value of what remains, from the nim-sequence `g` (which must cover the sizes).
    pub fn value(&self, g: &[u32]) -> u32 {
        match self.leaves {
            Leaves::Nothing => 0,
            Leaves::One(a) => g[a as usize],
            Leaves::Two(a, b) => g[a as usize] ^ g[b as usize],
        }
    }
}

impl fmt::Display for HeapMove {
    /// `take 2, leaving 3 and 5`, `take 1, leaving 7`, `take 3, leaving nothing`, `split
    /// into 3 and 4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.take, self.leaves) {
            (0, Leaves::Two(a, b)) => write!(f, "split into {a} and {b}"),
            (t, Leaves::Nothing) => write!(f, "take {t}, leaving nothing"),
            (t, Leaves::One(a)) => write!(f, "take {t}, leaving {a}"),
            (t, Leaves::Two(a, b)) => write!(f, "take {t}, leaving {a} and {b}"),
        }
    }
}

/// Which family a game belongs to (for its name and its code).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Octal(String),
    Subtraction(Vec<u32>),
    Grundy,
    Nim,
}

/// A heap game given by its rules. See the module docs.
///
/// ```
/// use retrograde_impartial::HeapGame;
/// let kayles = HeapGame::octal("0.77").unwrap();
/// assert_eq!(kayles.name(), "octal game 0.77 (Kayles)");
/// let g = kayles.nim_sequence(12);
/// assert_eq!(g, [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]);
/// let pebbles = HeapGame::subtraction(&[1, 2]).unwrap();
/// assert_eq!(pebbles.nim_sequence(7), [0, 1, 2, 0, 1, 2, 0]);
/// let grundy = HeapGame::grundy_game();
/// assert_eq!(grundy.nim_sequence(8), [0, 0, 0, 1, 0, 2, 1, 0]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapGame {
    kind: Kind,
    /// `(k, digit)` for every non-zero digit, by increasing `k`.
    rules: Vec<(u32, u8)>,
    /// Splits must leave two different sizes (Grundy's game).
    unequal: bool,
}

/// The most digits an octal code may have after the point.
pub const MAX_OCTAL_DIGITS: usize = 1000;

/// Why [`HeapGame::octal`] or [`HeapGame::subtraction`] refused its rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeapError {
    /// The octal code has no point.
    NoPoint(String),
    /// The digit before the point is not 0 or 4.
    FirstDigit {
        /// The code.
        code: String,
        /// What stands before the point.
        whole: String,
    },
    /// Nothing after the point.
    NoDigits(String),
    /// More than [`MAX_OCTAL_DIGITS`] digits after the point.
    TooManyDigits(String),
    /// A decimal digit that is not octal (8 or 9).
    NotOctal {
        /// The code.
        code: String,
        /// The digit.
        digit: u32,
    },
    /// A character that is no digit.
    NotADigit {
        /// The code.
        code: String,
        /// The character.
        found: char,
    },
    /// An empty take-set.
    EmptyTakeSet,
    /// A take-set holding 0.
    TakesZero,
}

impl fmt::Display for HeapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeapError::NoPoint(code) => write!(
                f,
                "expected an octal code like 0.77 (digits after a point), found {code:?}"
            ),
            HeapError::FirstDigit { code, whole } => write!(
                f,
                "octal code {code:?}: the digit before the point must be 0 or 4 (4: a move may split a heap without taking from it), found {whole:?}"
            ),
            HeapError::NoDigits(code) => write!(
                f,
                "octal code {code:?}: expected digits after the point, like 0.77"
            ),
            HeapError::TooManyDigits(code) => write!(
                f,
                "octal code {code:?}: more than {MAX_OCTAL_DIGITS} digits"
            ),
            HeapError::NotOctal { code, digit } => write!(
                f,
                "octal code {code:?}: digit {digit} is not octal (0 to 7); hexadecimal games are not supported"
            ),
            HeapError::NotADigit { code, found } => write!(
                f,
                "octal code {code:?}: expected a digit 0 to 7, found {found:?}"
            ),
            HeapError::EmptyTakeSet => {
                f.write_str("the take-set is empty: give at least one amount, e.g. 1,3,4")
            }
            HeapError::TakesZero => {
                f.write_str("a move must take at least 1 token (0 is in the take-set)")
            }
        }
    }
}

impl std::error::Error for HeapError {}

impl HeapGame {
    /// The octal game with this code, like `0.77` (Kayles) or `4.07`.
    ///
    /// # Errors
    /// [`HeapError`] when the code is not `d0.d1d2…` with `d0` 0 or 4 and octal digits
    /// after the point (at most [`MAX_OCTAL_DIGITS`]).
    pub fn octal(code: &str) -> Result<HeapGame, HeapError> {
        let (whole, frac) = code
            .split_once('.')
            .ok_or_else(|| HeapError::NoPoint(code.into()))?;
        let d0 = match whole {
            "" | "0" => 0u8,
            "4" => 4,
            _ => {
                return Err(HeapError::FirstDigit {
                    code: code.into(),
                    whole: whole.into(),
                })
            }
        };
        if frac.is_empty() {
            return Err(HeapError::NoDigits(code.into()));
        }
        if frac.len() > MAX_OCTAL_DIGITS {
            return Err(HeapError::TooManyDigits(code.into()));
        }
        let mut rules = Vec::new();
        if d0 != 0 {
            rules.push((0, d0));
        }
        for (i, c) in frac.chars().enumerate() {
            let d = match c.to_digit(10) {
                Some(d) if d < 8 => d as u8,
                Some(digit) => {
                    return Err(HeapError::NotOctal {
                        code: code.into(),
                        digit,
                    })
                }
                None => {
                    return Err(HeapError::NotADigit {
                        code: code.into(),
                        found: c,
                    })
                }
            };
            if d != 0 {
                rules.push((i as u32 + 1, d));
            }
        }
        let canonical = format!("{d0}.{}", frac.trim_end_matches('0'));
        let canonical = if canonical.ends_with('.') {
            format!("{canonical}0")
        } else {
            canonical
        };
        Ok(HeapGame {
            kind: Kind::Octal(canonical),
            rules,
            unequal: false,
        })
    }

    /// The subtraction game with this take-set: take `t` tokens for some `t` in the set (the
    /// pebble game of seed 004 is `{1, 2}`).
    ///
    /// # Errors
    /// [`HeapError::EmptyTakeSet`] or [`HeapError::TakesZero`].
    pub fn subtraction(take: &[u32]) -> Result<HeapGame, HeapError> {
        let mut set = take.to_vec();
        set.sort_unstable();
        set.dedup();
        if set.is_empty() {
            return Err(HeapError::EmptyTakeSet);
        }
        if set[0] == 0 {
            return Err(HeapError::TakesZero);
        }
        Ok(HeapGame {
            rules: set.iter().map(|&t| (t, 3)).collect(),
            kind: Kind::Subtraction(set),
            unequal: false,
        })
    }

    /// Grundy's game: split a heap into two non-empty heaps of different sizes.
    pub fn grundy_game() -> HeapGame {
        HeapGame {
            kind: Kind::Grundy,
            rules: vec![(0, 4)],
            unequal: true,
        }
    }

    /// Nim: take any number of tokens from a heap. `G(n) = n`.
    pub fn nim() -> HeapGame {
        HeapGame {
            kind: Kind::Nim,
            rules: Vec::new(),
            unequal: false,
        }
    }

    /// A readable name: `octal game 0.77 (Kayles)`, `subtraction game {1,3,4}`, `Grundy's
    /// game`, `nim`.
    pub fn name(&self) -> String {
        match &self.kind {
            Kind::Octal(code) => match known_octal(code) {
                Some(name) => format!("octal game {code} ({name})"),
                None => format!("octal game {code}"),
            },
            Kind::Subtraction(set) => {
                let s: Vec<String> = set.iter().map(|t| t.to_string()).collect();
                format!("subtraction game {{{}}}", s.join(","))
            }
            Kind::Grundy => "Grundy's game".into(),
            Kind::Nim => "nim".into(),
        }
    }

    /// The octal code, for an octal game.
    pub fn code(&self) -> Option<&str> {
        match &self.kind {
            Kind::Octal(c) => Some(c),
            _ => None,
        }
    }

    /// True when some move splits a heap in two.
    pub fn splits(&self) -> bool {
        self.rules.iter().any(|&(_, d)| d & 4 != 0)
    }

    /// The largest number of tokens a move takes (the index `t` of the last non-zero digit),
    /// or `None` for nim (no bound).
    pub fn max_take(&self) -> Option<u32> {
        match self.kind {
            Kind::Nim => None,
            _ => Some(self.rules.last().map_or(0, |r| r.0)),
        }
    }

    /// The values `G(0), …, G(count - 1)` of single heaps.
    ///
    /// # Complexity
    /// See the module docs: about `s·count²/4` XORs for `s` splitting digits.
    pub fn nim_sequence(&self, count: usize) -> Vec<u32> {
        if self.kind == Kind::Nim {
            return (0..count as u32).collect();
        }
        let mut g: Vec<u32> = Vec::with_capacity(count);
        // While every value is below 32, so is every XOR of two: the values reached from a
        // heap fit in the bits of a `u32`, and the split loop (an OR of `1 << x`) vectorizes.
        // Past that, `seen[x] == stamp` marks the values reached, for `x` below `cap`, a power
        // of two above every value so far.
        let mut max = 0u32;
        let mut cap = 64usize;
        let mut seen = vec![0u32; cap];
        for n in 0..count {
            let value = if max < 32 {
                let mut reached = 0u32;
                for &(k, d) in &self.rules {
                    let k = k as usize;
                    if k > n {
                        break;
                    }
                    if d & 1 != 0 && k == n {
                        reached |= 1;
                    }
                    if d & 2 != 0 && k < n {
                        reached |= 1 << g[n - k];
                    }
                    if d & 4 != 0 && k + 2 <= n {
                        reached |= split_bits(&g[..n - k], self.half(n - k));
                    }
                }
                (!reached).trailing_zeros()
            } else {
                let stamp = n as u32 + 1;
                for &(k, d) in &self.rules {
                    let k = k as usize;
                    if k > n {
                        break;
                    }
                    if d & 1 != 0 && k == n {
                        seen[0] = stamp;
                    }
                    if d & 2 != 0 && k < n {
                        seen[g[n - k] as usize] = stamp;
                    }
                    if d & 4 != 0 && k + 2 <= n {
                        mark_splits(&g[..n - k], self.half(n - k), &mut seen, stamp);
                    }
                }
                seen.iter().position(|&s| s != stamp).unwrap_or(cap) as u32
            };
            g.push(value);
            max = max.max(value);
            if max as usize >= cap {
                cap = (max as usize + 1).next_power_of_two();
                seen.resize(cap, 0);
            }
        }
        g
    }

    /// How many splits of `m` tokens into two non-empty heaps there are (smaller part first).
    fn half(&self, m: usize) -> usize {
        if self.unequal {
            (m - 1) / 2
        } else {
            m / 2
        }
    }

    /// Every move from a heap of `heap` tokens: by increasing take, then nothing left, one
    /// heap, two heaps (smaller part first, by increasing smaller part). For nim, by
    /// increasing take.
    pub fn moves(&self, heap: u32) -> impl Iterator<Item = HeapMove> + '_ {
        let nim = (self.kind == Kind::Nim).then(|| {
            (1..=heap).map(move |take| HeapMove {
                take,
                leaves: if take == heap {
                    Leaves::Nothing
                } else {
                    Leaves::One(heap - take)
                },
            })
        });
        let rules = self
            .rules
            .iter()
            .take_while(move |r| r.0 <= heap)
            .flat_map(move |&(k, d)| {
                let m = heap - k;
                let nothing = (d & 1 != 0 && m == 0).then_some(Leaves::Nothing);
                let one = (d & 2 != 0 && m > 0).then_some(Leaves::One(m));
                let half = if d & 4 != 0 && m >= 2 {
                    self.half(m as usize) as u32
                } else {
                    0
                };
                let two = (1..=half).map(move |a| Leaves::Two(a, m - a));
                nothing
                    .into_iter()
                    .chain(one)
                    .chain(two)
                    .map(move |leaves| HeapMove { take: k, leaves })
            });
        nim.into_iter().flatten().chain(rules)
    }

    /// The least period and pre-period that the terms `g` (a prefix of this game's
    /// nim-sequence) prove, by the periodicity theorem (see the module docs); `None` when
    /// they prove none (too few terms, or a game the theorem does not cover).
    ///
    /// ```
    /// use retrograde_impartial::{HeapGame, Period};
    /// let kayles = HeapGame::octal("0.77").unwrap();
    /// let g = kayles.nim_sequence(300);
    /// assert_eq!(kayles.period(&g), Some(Period { preperiod: 71, period: 12 }));
    /// assert_eq!(kayles.period(&g[..100]), None); // not enough terms for a proof yet
    /// ```
    ///
    /// # Complexity
    /// O(N) per candidate period in the worst case; a wrong candidate usually fails within a
    /// few terms.
    pub fn period(&self, g: &[u32]) -> Option<Period> {
        if matches!(self.kind, Kind::Grundy | Kind::Nim) {
            return None;
        }
        let t = self.max_take().unwrap_or(0) as usize;
        let splits = self.splits();
        let n = g.len();
        // Why `bound` suffices. Suppose G(m + p) = G(m) for e <= m < B; take m >= B and
        // assume it for every m' in [e, m). Compare the moves from m + p with those from m,
        // removal k <= t by removal k:
        // - "leave nothing" needs a heap of exactly k: neither m nor m + p is one (B > t);
        // - "leave one heap" gives m - k and m + p - k: m - k >= B - t >= e, so they have
        //   equal values by the hypothesis;
        // - a split a + b = m - k (a <= b) maps to a + (b + p), a split of m + p - k, with
        //   b >= (B - t) / 2 >= e; a split a + b = m + p - k (a <= b) maps back to
        //   a + (b - p), with b - p >= (B + p - t) / 2 - p >= max(e, 1): both heaps
        //   non-empty and G(b - p) = G(b).
        // So both heaps reach the same set of values and G(m + p) = G(m). (Unequal splits,
        // as in Grundy's game, break the last step: a and b - p may be equal.)
        // The terms must reach `bound(e, p) + p - 1`, with `bound` growing with e and p.
        let bound = |e: usize, p: usize| -> usize {
            let mut b = (t + 1).max(e + t);
            if splits {
                b = b.max(2 * e.max(1) + p + t);
            }
            b
        };
        for p in 1..n {
            if bound(0, p) + p > n {
                break; // no pre-period can be proved for this or any larger period
            }
            // The least e with G(m + p) == G(m) for every m in [e, n - p): scan down from
            // the end to the first mismatch (usually within a few terms for a wrong p).
            let mut e = n - p;
            while e > 0 && g[e - 1] == g[e - 1 + p] {
                e -= 1;
            }
            if bound(e, p) + p <= n {
                return Some(Period {
                    preperiod: e as u32,
                    period: p as u32,
                });
            }
        }
        None
    }
}

/// A proved ultimate period: `G(n + period) = G(n)` for every `n ≥ preperiod`, and neither can
/// be smaller.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Period {
    /// The first heap size from which the values repeat.
    pub preperiod: u32,
    /// The length of the repeating block.
    pub period: u32,
}

/// The bits `1 << (g[a] ^ g[m - a])` for `a` in `1..=half`, where `m = g.len()` and every
/// value is below 32.
#[inline]
fn split_bits(g: &[u32], half: usize) -> u32 {
    let m = g.len();
    let low = &g[1..=half];
    let high = &g[m - half..];
    let mut bits = 0u32;
    for (x, y) in low.iter().zip(high.iter().rev()) {
        bits |= 1 << ((x ^ y) & 31);
    }
    bits
}

/// Marks `g[a] ^ g[m - a]` for `a` in `1..=half`, where `m = g.len()`.
#[inline]
fn mark_splits(g: &[u32], half: usize, seen: &mut [u32], stamp: u32) {
    let m = g.len();
    let low = &g[1..=half];
    let high = &g[m - half..];
    for (x, y) in low.iter().zip(high.iter().rev()) {
        seen[(x ^ y) as usize] = stamp;
    }
}

/// Names of well-known octal games.
fn known_octal(code: &str) -> Option<&'static str> {
    Some(match code {
        "0.77" => "Kayles",
        "0.07" => "Dawson's Kayles",
        "0.137" => "Dawson's chess",
        "0.007" => "Treblecross",
        _ => return None,
    })
}
