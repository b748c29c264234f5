//! Generalized Sprague-Grundy values: [`Sg`] (borrowed, `Copy`) and [`SgBuf`] (owned), the
//! disjunctive sum rule [`sum`], and [`mex`].

use retrograde_solve::Outcome;
use std::fmt;
use std::str::FromStr;

/// A generalized Sprague-Grundy value: a finite nim-value `n`, or `∞(K)` with `K` the set of
/// finite values among the position's moves. Borrows `K` (from a [`crate::Grundy`] or an
/// [`SgBuf`]), so it is a small `Copy` type.
///
/// `K` is sorted and without repeats; [`SgBuf::infinite`] builds one from any list.
///
/// What the value says about play (normal play: who cannot move loses), for the player to
/// move:
/// - `0`: a loss; any other finite value: a win.
/// - `∞(K)` with `0 ∈ K`: a win (move to a position of value 0).
/// - any other `∞(K)`: a draw (neither player can force a win; play goes on forever).
///
/// ```
/// use retrograde_impartial::{Sg, SgBuf};
/// use retrograde_solve::Outcome;
/// assert_eq!(Sg::Finite(3).to_string(), "3");
/// assert_eq!(Sg::Infinite(&[0, 2]).to_string(), "inf{0,2}");
/// assert_eq!(Sg::Infinite(&[0, 2]).outcome(), Outcome::Win);
/// assert_eq!(Sg::Infinite(&[1]).outcome(), Outcome::Draw);
/// assert_eq!(Sg::Finite(0).outcome(), Outcome::Loss);
/// let parsed: SgBuf = "inf{2,0}".parse().unwrap();
/// assert_eq!(parsed.as_sg(), Sg::Infinite(&[0, 2]));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sg<'a> {
    /// A finite nim-value: the position plays like a nim heap of this size in any sum.
    Finite(u32),
    /// `∞(K)`: `K` is the sorted set of finite values among the position's moves.
    Infinite(&'a [u32]),
}

impl<'a> Sg<'a> {
    /// The finite value, if it is one.
    pub fn finite(self) -> Option<u32> {
        match self {
            Sg::Finite(n) => Some(n),
            Sg::Infinite(_) => None,
        }
    }

    /// True for a finite value.
    pub fn is_finite(self) -> bool {
        matches!(self, Sg::Finite(_))
    }

    /// The outcome for the player to move in this game alone: `0` loses, other finite values
    /// win, `∞(K)` wins when `0 ∈ K` and is a draw otherwise.
    pub fn outcome(self) -> Outcome {
        match self {
            Sg::Finite(0) => Outcome::Loss,
            Sg::Finite(_) => Outcome::Win,
            Sg::Infinite(k) if k.binary_search(&0).is_ok() => Outcome::Win,
            Sg::Infinite(_) => Outcome::Draw,
        }
    }

    /// An owned copy.
    pub fn to_buf(self) -> SgBuf {
        match self {
            Sg::Finite(n) => SgBuf::Finite(n),
            Sg::Infinite(k) => SgBuf::Infinite(k.to_vec()),
        }
    }
}

impl fmt::Display for Sg<'_> {
    /// `3`, or `inf{0,2}` (`inf{}` when `K` is empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sg::Finite(n) => write!(f, "{n}"),
            Sg::Infinite(k) => {
                f.write_str("inf{")?;
                for (i, x) in k.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// An owned generalized Sprague-Grundy value (see [`Sg`]), for values computed on the fly
/// such as sums.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SgBuf {
    /// A finite nim-value.
    Finite(u32),
    /// `∞(K)`, `K` sorted and without repeats.
    Infinite(Vec<u32>),
}

impl SgBuf {
    /// `∞(K)` from any list of values (sorted and deduplicated here).
    pub fn infinite(k: impl IntoIterator<Item = u32>) -> SgBuf {
        let mut k: Vec<u32> = k.into_iter().collect();
        k.sort_unstable();
        k.dedup();
        SgBuf::Infinite(k)
    }

    /// The borrowed form.
    pub fn as_sg(&self) -> Sg<'_> {
        match self {
            SgBuf::Finite(n) => Sg::Finite(*n),
            SgBuf::Infinite(k) => Sg::Infinite(k),
        }
    }

    /// See [`Sg::outcome`].
    pub fn outcome(&self) -> Outcome {
        self.as_sg().outcome()
    }
}

impl fmt::Display for SgBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_sg().fmt(f)
    }
}

impl FromStr for SgBuf {
    type Err = String;
    /// Parses what `Display` writes: `3`, `inf{0,2}`, `inf{}` (spaces allowed after commas).
    fn from_str(s: &str) -> Result<SgBuf, String> {
        let s = s.trim();
        if let Some(rest) = s.strip_prefix("inf") {
            let inner = rest
                .strip_prefix('{')
                .and_then(|r| r.strip_suffix('}'))
                .ok_or_else(|| format!("expected inf{{...}} with a set of values, found {s:?}"))?;
            let k = if inner.trim().is_empty() {
                Vec::new()
            } else {
                inner
                    .split(',')
                    .map(|x| {
                        x.trim()
                            .parse::<u32>()
                            .map_err(|_| format!("expected a value in {s:?}, found {:?}", x.trim()))
                    })
                    .collect::<Result<Vec<u32>, String>>()?
            };
            return Ok(SgBuf::infinite(k));
        }
        s.parse::<u32>()
            .map(SgBuf::Finite)
            .map_err(|_| format!("expected a Grundy value like 3 or inf{{0,2}}, found {s:?}"))
    }
}

/// The value of a disjunctive sum (each turn, the player to move moves in exactly one
/// component) from its components' values (Smith 1966):
/// - all finite: the XOR (nim-sum) of the values;
/// - exactly one `∞(K)`, the others XOR to `b`: `∞(K ⊕ b)`, that is `{k ^ b : k ∈ K}`; the
///   sum is a win for the player to move exactly when `b ∈ K`;
/// - two or more infinite components: `∞(∅)`, a draw.
///
/// An empty sum is `0` (no move: a loss).
///
/// This is for normal play only: under misère play (who cannot move wins) sums do not follow
/// the XOR rule.
///
/// ```
/// use retrograde_impartial::{sum, Sg, SgBuf};
/// assert_eq!(sum([Sg::Finite(3), Sg::Finite(5)]), SgBuf::Finite(6));
/// // ∞{0,2} + 2 = ∞{2,0}: a win (move the infinite component to 2, leaving 2 + 2 = 0).
/// assert_eq!(sum([Sg::Infinite(&[0, 2]), Sg::Finite(2)]).to_string(), "inf{0,2}");
/// assert_eq!(sum([Sg::Infinite(&[0, 2]), Sg::Finite(1)]).to_string(), "inf{1,3}");
/// assert_eq!(sum([Sg::Infinite(&[0]), Sg::Infinite(&[0])]).to_string(), "inf{}");
/// ```
pub fn sum<'a>(parts: impl IntoIterator<Item = Sg<'a>>) -> SgBuf {
    let mut x = 0u32;
    let mut infinite: Option<&[u32]> = None;
    let mut infinities = 0usize;
    for p in parts {
        match p {
            Sg::Finite(n) => x ^= n,
            Sg::Infinite(k) => {
                infinities += 1;
                infinite = Some(k);
            }
        }
    }
    match (infinities, infinite) {
        (0, _) => SgBuf::Finite(x),
        (1, Some(k)) => SgBuf::infinite(k.iter().map(|&v| v ^ x)),
        _ => SgBuf::Infinite(Vec::new()),
    }
}

/// The minimum excludant: the least non-negative integer not in `values`.
///
/// ```
/// use retrograde_impartial::mex;
/// assert_eq!(mex([0, 1, 3]), 2);
/// assert_eq!(mex([]), 0);
/// ```
///
/// # Complexity
/// O(k) time and memory for `k` values.
pub fn mex(values: impl IntoIterator<Item = u32>) -> u32 {
    let values: Vec<u32> = values.into_iter().collect();
    // The mex of k values is at most k: only values below k matter.
    let mut seen = vec![false; values.len() + 1];
    for v in values {
        if let Some(s) = seen.get_mut(v as usize) {
            *s = true;
        }
    }
    seen.iter().position(|&s| !s).unwrap_or(0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_round_trip() {
        for text in ["0", "7", "inf{}", "inf{0}", "inf{0,2,5}"] {
            let v: SgBuf = text.parse().unwrap();
            assert_eq!(v.to_string(), text);
        }
        assert_eq!(
            "inf{ 5, 0,5 }".parse::<SgBuf>().unwrap(),
            SgBuf::Infinite(vec![0, 5])
        );
        for bad in ["", "x", "inf", "inf{", "inf{a}", "-1", "inf(0)", "3.5"] {
            assert!(bad.parse::<SgBuf>().is_err(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn outcomes() {
        assert_eq!(Sg::Finite(0).outcome(), Outcome::Loss);
        assert_eq!(Sg::Finite(9).outcome(), Outcome::Win);
        assert_eq!(Sg::Infinite(&[]).outcome(), Outcome::Draw);
        assert_eq!(Sg::Infinite(&[0, 1]).outcome(), Outcome::Win);
        assert_eq!(Sg::Infinite(&[1, 2]).outcome(), Outcome::Draw);
    }

    #[test]
    fn sums() {
        assert_eq!(sum([]), SgBuf::Finite(0));
        assert_eq!(
            sum([Sg::Finite(1), Sg::Finite(2), Sg::Finite(3)]),
            SgBuf::Finite(0)
        );
        assert_eq!(
            sum([Sg::Finite(1), Sg::Infinite(&[0, 1, 4]), Sg::Finite(2)]),
            SgBuf::Infinite(vec![2, 3, 7])
        );
        assert_eq!(
            sum([Sg::Infinite(&[1]), Sg::Finite(1), Sg::Infinite(&[])]),
            SgBuf::Infinite(vec![])
        );
        assert_eq!(mex([3, 1, 0, 1]), 2);
        assert_eq!(mex([1]), 0);
    }
}
