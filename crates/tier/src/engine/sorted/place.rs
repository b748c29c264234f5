//! Who owns which keys of a sorted tier, and the few steps where ranks meet.
//!
//! A placement of a tier's sorted keys: [`WholeRange`] (one process owns them all:
//! [`KeyPlacement::ALONE`], so every test of ownership is a constant and every exchange
//! compiles away) or [`KeyRanges`] (rank `d` owns the keys in `[start_d, start_{d+1})` and
//! keeps them sorted, its *share*). The cuts of a tier are chosen when it is found (see
//! `discover.rs`); afterwards its owners are read off the first and last key of every rank's
//! share (one small all-reduce per tier), so a run that resumes from files finds the same
//! owners without knowing the cuts.

use super::keys::Key;
use crate::engine::dense::{flag, still};
use crate::engine::SolveOptions;
use crate::error::Error;
use retrograde_solve::exchange::Exchange;

/// Who owns which keys of one tier. See the [module docs](self).
pub(crate) trait KeyPlacement: Sized + Send + Sync + std::fmt::Debug {
    /// Whether one rank owns every key (then [`KeyPlacement::owner`] is always 0).
    const ALONE: bool;

    /// The placement of a tier whose share here is `keys` (sorted), agreed by every rank; an
    /// error when the shares are not disjoint ranges in rank order.
    fn agree<K: Key>(ex: &dyn Exchange, keys: &[K]) -> Result<Self, String>;

    /// The rank that owns `key`.
    fn owner(&self, key: u64) -> usize;

    /// The file of rank `me`'s keys of `tier` (all of them, not only the canonical ones)
    /// while the solve runs.
    fn keys_file(tier: &str, me: usize, ranks: usize) -> String;
}

/// One process owns every key of a tier.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct WholeRange;

impl KeyPlacement for WholeRange {
    const ALONE: bool = true;

    fn agree<K: Key>(_: &dyn Exchange, _: &[K]) -> Result<Self, String> {
        Ok(WholeRange)
    }

    #[inline(always)]
    fn owner(&self, _: u64) -> usize {
        0
    }

    /// `TIER.work.keys`: the database keeps the canonical keys only, as `TIER.keys`.
    fn keys_file(tier: &str, _: usize, _: usize) -> String {
        format!("{tier}.work.keys")
    }
}

/// Rank `d` owns the keys of a tier in `[starts[d], starts[d + 1])`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeyRanges {
    /// `starts[0]` is `Some(0)`; `None` is past every key (the ranks from there on own none).
    starts: Vec<Option<u64>>,
}

impl KeyRanges {
    /// The owners from every rank's (length, first key, last key); an error when the shares
    /// are not disjoint ranges in rank order.
    pub(crate) fn from_shares(shares: &[(u64, u64, u64)]) -> Result<KeyRanges, String> {
        let mut starts = vec![None; shares.len()];
        let mut next = None;
        for (d, &(len, first, _)) in shares.iter().enumerate().rev() {
            if len > 0 {
                next = Some(first);
            }
            starts[d] = next;
        }
        if let Some(s) = starts.first_mut() {
            *s = Some(0);
        }
        let mut last: Option<(usize, u64)> = None;
        for (d, &(len, first, end)) in shares.iter().enumerate() {
            if len == 0 {
                continue;
            }
            if first > end {
                return Err(format!("rank {d}'s share ends before it starts"));
            }
            if let Some((p, l)) = last {
                if l >= first {
                    return Err(format!("the shares of ranks {p} and {d} overlap"));
                }
            }
            last = Some((d, end));
        }
        Ok(KeyRanges { starts })
    }
}

impl KeyPlacement for KeyRanges {
    const ALONE: bool = false;

    fn agree<K: Key>(ex: &dyn Exchange, keys: &[K]) -> Result<Self, String> {
        let (me, kk) = (ex.rank(), ex.size());
        let mut v = vec![0u64; 3 * kk];
        if let (Some(f), Some(l)) = (keys.first(), keys.last()) {
            v[3 * me..3 * me + 3].copy_from_slice(&[keys.len() as u64, f.to_u64(), l.to_u64()]);
        }
        ex.sum(&mut v);
        let shares: Vec<(u64, u64, u64)> = v.chunks_exact(3).map(|c| (c[0], c[1], c[2])).collect();
        KeyRanges::from_shares(&shares)
    }

    #[inline]
    fn owner(&self, key: u64) -> usize {
        self.starts
            .partition_point(|s| s.is_some_and(|s| s <= key))
            .saturating_sub(1)
    }

    /// `TIER.keys.part-R-of-K` (see [`keys_share_file`]).
    fn keys_file(tier: &str, me: usize, ranks: usize) -> String {
        keys_share_file(tier, me, ranks)
    }
}

/// The name of rank `r`'s share of a tier's keys among `k`.
pub fn keys_share_file(tier: &str, r: usize, k: usize) -> String {
    format!("{tier}.keys.part-{r}-of-{k}")
}

/// The end of a round: sends `send[d]` to rank `d` and returns what every rank sent here,
/// unless some rank was cancelled; one process only checks for a cancel.
pub(crate) fn trade<P: KeyPlacement>(
    ex: &dyn Exchange,
    send: Vec<Vec<u8>>,
    opts: &SolveOptions,
) -> Result<Vec<Vec<u8>>, Error> {
    if P::ALONE {
        opts.cancelled()?;
        return Ok(Vec::new());
    }
    // The exchange carries whether some rank was cancelled (one collective a round).
    let (got, f) = ex.all_to_all_max(send, flag(false, opts));
    still(f)?;
    Ok(got)
}

/// Stops the solve when some rank was cancelled (every rank calls it at the same points).
pub(crate) fn halt<P: KeyPlacement>(ex: &dyn Exchange, opts: &SolveOptions) -> Result<(), Error> {
    if P::ALONE {
        return opts.cancelled();
    }
    let mut m = [flag(false, opts)];
    ex.max(&mut m);
    still(m[0]).map(|_| ())
}

/// Whether `b` holds on every rank (one process: whether it holds).
pub(crate) fn everywhere<P: KeyPlacement>(ex: &dyn Exchange, b: bool) -> bool {
    if P::ALONE {
        b
    } else {
        ex.all(b)
    }
}

/// A message from another rank that does not have the agreed shape: a bug, or ranks that
/// run different programs.
pub(crate) fn garbled(what: &str) -> Error {
    Error::Exchange(format!(
        "a rank sent a malformed {what} (are all ranks running the same program and game?)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_from_shares() {
        // Ranks 1 and 3 own nothing.
        let o = KeyRanges::from_shares(&[(2, 5, 9), (0, 0, 0), (3, 10, 20), (0, 0, 0)]).unwrap();
        assert_eq!(o.owner(0), 0);
        assert_eq!(o.owner(9), 0);
        assert_eq!(o.owner(10), 2);
        assert_eq!(o.owner(u64::MAX), 2);
        let all_empty = KeyRanges::from_shares(&[(0, 0, 0), (0, 0, 0)]).unwrap();
        assert_eq!(all_empty.owner(7), 0);
        assert!(KeyRanges::from_shares(&[(2, 5, 10), (3, 10, 20)]).is_err());
        assert!(KeyRanges::from_shares(&[(2, 5, 4)]).is_err());
    }
}
