//! Discovery: the keys of a tier, from its parent tiers' sorted keys, for this rank's key
//! ranges (every range, for one process).
//!
//! The children of a sorted tier through one slot come out sorted, so a tier is the merge
//! of one sorted stream per (parent tier, slot), duplicates dropped: no sort, no hash. Every
//! rank flags the slots of the parents it owns (a byte a parent when there are at most 8
//! slots, else two) and counts them; the total fixes the number of *rounds* `R` (about
//! [`ROUND_KEYS`] children a rank each) and `Q` ranges a rank and round (about four tasks a
//! thread in a round), so `K R Q` ranges of the child key space in all, cut at quantiles of
//! a sample of children (gathered and sorted by rank 0). Rank `d` owns the ranges
//! `d R Q .. (d + 1) R Q`; in round `j` it receives the `Q` ranges `(d R + j) Q ..`, so what
//! it receives is sorted across rounds. In a round every rank merges, for every destination
//! and each of its `Q` ranges, its streams in the range (found in each by a binary search
//! over the parents having the slot), in parallel; one all-to-all delivers them (`K::BYTES`
//! a key, and 8 bytes of length a range); the owner merges the `K` sorted lists of each
//! range (one process: the one), again without repeats, and appends.
//!
//! Memory: the parents' keys and flags; the tier is reserved at the most its moves can
//! give here (pages never written are never the process's), and a round's runs are appended
//! and freed before the next round: the tier is held about once. (Merging every range into a
//! vector of its own, then copying them into one, held it twice when the runs' blocks stayed
//! in the allocator; merging into parts of one buffer left the parts' pages behind.)

use super::keys::{decode_keys, put_keys, u64s, Key};
use super::place::{garbled, trade, KeyPlacement};
use super::{round_keys, slots_of};
use crate::api::game::OrderedMoves;
use crate::engine::SolveOptions;
use crate::error::Error;
use rayon::prelude::*;
use retrograde_solve::exchange::Exchange;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Children a rank receives per round, about: a round's messages.
pub(crate) const ROUND_KEYS: u64 = 1 << 20;
/// Children one process merges per round, about: runs held before they are appended (a
/// round's cuts cost a binary search in every stream, and 2^20 spent 3% of Connect-4 5x5's
/// time on them).
pub(crate) const ALONE_ROUND_KEYS: u64 = 1 << 22;

/// Slot flags of one parent: a byte when there are at most 8 slots.
pub(crate) trait Flags: Copy + Default + Send + Sync {
    fn from_u16(f: u16) -> Self;
    fn has(self, s: usize) -> bool;
    fn ones(self) -> u32;
}

macro_rules! flags {
    ($($t:ty),*) => {$(
        impl Flags for $t {
            #[inline]
            fn from_u16(f: u16) -> $t {
                f as $t
            }
            #[inline]
            fn has(self, s: usize) -> bool {
                self >> s & 1 == 1
            }
            #[inline]
            fn ones(self) -> u32 {
                self.count_ones()
            }
        }
    )*};
}

flags!(u8, u16);

/// This rank's share of the keys of tier `t` (all of them, for one process): the children
/// of every rank's shares of its parent tiers (`parents`, this rank's) in its key ranges,
/// sorted, without repeats. `budget`: the bytes the new keys may take.
pub(crate) fn discover<G: OrderedMoves, K: Key, F: Flags, P: KeyPlacement>(
    game: &G,
    t: G::Tier,
    parents: &[(G::Tier, Arc<Vec<K>>)],
    budget: Option<u64>,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<Vec<K>, Error> {
    let (me, kk) = (ex.rank(), ex.size());
    let s = Streams::<G, K, F>::new(game, t, parents);
    let ns = s.list.len();
    let threads = rayon::current_num_threads().max(1);
    // The rounds and ranges per rank and round, agreed (the largest any rank asks for).
    let mut total = [s.edges()];
    let mut agreed = [0, (4 * threads).div_ceil(kk) as u64];
    if !P::ALONE {
        ex.sum(&mut total);
    }
    // At least four rounds: a round's runs are held beside the tier until appended.
    agreed[0] = total[0].div_ceil(kk as u64 * round_keys::<P>()).max(4);
    if !P::ALONE {
        ex.max(&mut agreed);
    }
    let (rounds, q) = (agreed[0] as usize, agreed[1] as usize);
    let ranges = kk * rounds * q;
    // The sample: about 16 children a range, from at most 2^16 parents of a tier a rank, and
    // at most about 2^22 children at rank 0 in all.
    let per = (16 * rounds * q)
        .clamp(256, 1 << 16)
        .min(((1usize << 22) / (kk * game.slots().max(1))).max(16));
    let cuts = cuts::<P>(ex, s.sample(per)?, ranges)?;
    // Range r is [lo(r), hi(r)); the last is unbounded.
    let lo = |r: usize| if r == 0 { 0 } else { cuts[r - 1] };
    let hi = |r: usize| cuts.get(r).copied();
    // Where every stream starts in every range (`at[r * ns + x]`; the end of range r is the
    // start of range r + 1), and the most children each range can give here.
    let at: Vec<usize> = (0..=ranges)
        .into_par_iter()
        .map(|r| -> Result<Vec<usize>, Error> {
            (0..ns)
                .map(|x| match r {
                    0 => Ok(0),
                    r if r == ranges => Ok(s.parents[s.list[x].0].1.len()),
                    r => s.find(x, cuts[r - 1]),
                })
                .collect()
        })
        .collect::<Result<Vec<_>, _>>()?
        .concat();
    let most: Vec<usize> = (0..ranges)
        .into_par_iter()
        .map(|r| {
            (0..ns)
                .map(|x| s.most(x, at[r * ns + x], at[(r + 1) * ns + x]))
                .sum()
        })
        .collect();
    let mut out = reserve::<K, P>(ex, &most, rounds * q, budget)?;
    let spent = Budget {
        limit: budget,
        used: AtomicU64::new(0),
        over: AtomicBool::new(false),
    };
    for j in 0..rounds {
        // For every destination, its Q ranges of this round.
        let range = |x: usize| ((x / q) * rounds + j) * q + x % q;
        let pieces: Vec<Vec<K>> = (0..kk * q)
            .into_par_iter()
            .map(|x| {
                let r = range(x);
                let (from, to) = (&at[r * ns..(r + 1) * ns], &at[(r + 1) * ns..(r + 2) * ns]);
                s.merge(from, to, lo(r), hi(r), most[r], &spent)
            })
            .collect::<Result<_, _>>()?;
        if spent.over.load(Relaxed) {
            return Err(Error::Memory {
                what: String::new(),
                needed: spent.used.load(Relaxed),
                limit: 0,
            });
        }
        let lists = deliver::<K, P>(ex, pieces, me, q, opts)?;
        let merged: Vec<Vec<K>> = lists
            .into_par_iter()
            .map(|ls| {
                ls.into_iter()
                    .filter(|l| !l.is_empty())
                    .reduce(|a, b| union(&a, &b))
                    .unwrap_or_default()
            })
            .collect();
        for m in merged {
            if let (Some(a), Some(b)) = (out.last(), m.first()) {
                if a >= b {
                    return Err(unordered(&t));
                }
            }
            out.extend_from_slice(&m);
        }
    }
    out.shrink_to_fit();
    Ok(out)
}

/// The error of a game whose slots' children are not increasing in the key.
fn unordered(t: &dyn std::fmt::Debug) -> Error {
    Error::Game(format!(
        "the moves of some slot are not increasing in the key (tier {t:?})"
    ))
}

/// The bytes merged so far, against a limit.
struct Budget {
    limit: Option<u64>,
    used: AtomicU64,
    over: AtomicBool,
}

/// The tier's share here, reserved at the most its ranges can give (`most`, every rank's
/// by range; this rank's ranges are the `per` from `me * per`).
fn reserve<K: Key, P: KeyPlacement>(
    ex: &dyn Exchange,
    most: &[usize],
    per: usize,
    budget: Option<u64>,
) -> Result<Vec<K>, Error> {
    let mut cap: Vec<u64> = most
        .chunks(per.max(1))
        .map(|m| m.iter().map(|&x| x as u64).sum())
        .collect();
    cap.resize(ex.size(), 0);
    if !P::ALONE {
        ex.sum(&mut cap);
    }
    let cap = cap[ex.rank()];
    // Checked before it is taken: a tier that cannot fit stops the solve within the limit
    // (the keys a tier can have at most, before its rounds find the distinct ones).
    let needed = cap.saturating_mul(u64::from(K::BYTES));
    if budget.is_some_and(|b| needed > b) {
        return Err(Error::Memory {
            what: String::new(),
            needed,
            limit: 0,
        });
    }
    let mut out: Vec<K> = Vec::new();
    out.try_reserve_exact(cap as usize)
        .map_err(|_| Error::Memory {
            what: String::new(),
            needed: cap * u64::from(K::BYTES),
            limit: 0,
        })?;
    Ok(out)
}

/// The cuts between `ranges` ranges of child keys: quantiles of every rank's `sample`,
/// chosen by rank 0 and sent to every rank.
fn cuts<P: KeyPlacement>(
    ex: &dyn Exchange,
    sample: Vec<u64>,
    ranges: usize,
) -> Result<Vec<u64>, Error> {
    let pick = |mut all: Vec<u64>| -> Vec<u64> {
        all.sort_unstable();
        (1..ranges)
            .map(|r| all.get(r * all.len() / ranges).copied().unwrap_or(u64::MAX))
            .collect()
    };
    if P::ALONE {
        return Ok(pick(sample));
    }
    let bytes: Vec<u8> = sample.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut out: Vec<u8> = match ex.gather(&bytes) {
        Some(all) => pick(all.iter().flat_map(|b| u64s(b)).collect())
            .iter()
            .flat_map(|c| c.to_le_bytes())
            .collect(),
        None => Vec::new(),
    };
    ex.broadcast(&mut out);
    if out.len() != 8 * (ranges - 1) {
        return Err(garbled("list of cuts"));
    }
    Ok(u64s(&out).collect())
}

/// Sends every destination its ranges of a round (`pieces`, `q` a destination) and returns,
/// for each of this rank's, the sorted lists of every rank (one process: its own).
fn deliver<K: Key, P: KeyPlacement>(
    ex: &dyn Exchange,
    mut pieces: Vec<Vec<K>>,
    me: usize,
    q: usize,
    opts: &SolveOptions,
) -> Result<Vec<Vec<Vec<K>>>, Error> {
    // This rank's own ranges stay here; the others go out, each with its Q lengths.
    let mut lists: Vec<Vec<Vec<K>>> = pieces[me * q..(me + 1) * q]
        .iter_mut()
        .map(|p| vec![std::mem::take(p)])
        .collect();
    if P::ALONE {
        trade::<P>(ex, Vec::new(), opts)?;
        return Ok(lists);
    }
    let send: Vec<Vec<u8>> = pieces
        .chunks(q)
        .enumerate()
        .map(|(d, ps)| {
            if d == me {
                return Vec::new();
            }
            let keys: usize = ps.iter().map(Vec::len).sum();
            let mut b = Vec::with_capacity(8 * q + keys * K::BYTES as usize);
            for p in ps {
                b.extend_from_slice(&(p.len() as u64).to_le_bytes());
            }
            for p in ps {
                put_keys(&mut b, p);
            }
            b
        })
        .collect();
    drop(pieces);
    let got = trade::<P>(ex, send, opts)?;
    for (from, b) in got.iter().enumerate() {
        if from == me {
            continue;
        }
        if b.len() < 8 * q {
            return Err(garbled("list of keys"));
        }
        let mut at = 8 * q;
        for (x, len) in u64s(&b[..8 * q]).enumerate() {
            let bytes = usize::try_from(len)
                .ok()
                .and_then(|l| l.checked_mul(K::BYTES as usize))
                .filter(|&l| at + l <= b.len())
                .ok_or_else(|| garbled("list of keys"))?;
            lists[x].push(decode_keys(&b[at..at + bytes]));
            at += bytes;
        }
        if at != b.len() {
            return Err(garbled("list of keys"));
        }
    }
    Ok(lists)
}

/// The union of two sorted lists without repeats, sorted, without repeats.
fn union<K: Key>(a: &[K], b: &[K]) -> Vec<K> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The stream whose head is least among the live ones, and that head; `None` when none
/// is live. A dead stream's head must be `u64::MAX`: the scan is then a branch-free
/// minimum (which stream is least is unpredictable), and a live head of `u64::MAX` itself
/// is told apart by `live`.
#[inline]
fn least_live(head: &[u64], live: &[bool]) -> Option<(usize, u64)> {
    let (mut at, mut k) = (0, *head.first()?);
    for (x, &h) in head.iter().enumerate().skip(1) {
        let less = h < k;
        k = if less { h } else { k };
        at = if less { x } else { at };
    }
    if live[at] {
        Some((at, k))
    } else {
        live.iter().position(|&l| l).map(|x| (x, head[x]))
    }
}

/// A tier's parents, flagged: one sorted stream of children per (parent tier, slot).
struct Streams<'a, G: OrderedMoves, K, F> {
    game: &'a G,
    t: G::Tier,
    /// The tier's keys are below `2^bits` (no bound at 64).
    bits: u32,
    /// Each parent tier, its keys here and their slots.
    parents: Vec<(G::Tier, &'a [K], Vec<F>)>,
    /// (parent tier, slot) of each stream.
    list: Vec<(usize, usize)>,
}

impl<'a, G: OrderedMoves, K: Key, F: Flags> Streams<'a, G, K, F> {
    /// The streams of `parents`, their slots flagged in parallel.
    fn new(game: &'a G, t: G::Tier, parents: &'a [(G::Tier, Arc<Vec<K>>)]) -> Self {
        let parents: Vec<(G::Tier, &[K], Vec<F>)> = parents
            .iter()
            .map(|(pt, pk)| {
                let mut flags = vec![F::default(); pk.len()];
                flags
                    .par_chunks_mut(1 << 14)
                    .zip(pk.par_chunks(1 << 14))
                    .for_each(|(f, c)| {
                        for (f, &key) in f.iter_mut().zip(c) {
                            let p = game.key_position(*pt, key.to_u64());
                            *f = F::from_u16(slots_of(game, &p));
                        }
                    });
                (*pt, &pk[..], flags)
            })
            .collect();
        let list = (0..parents.len())
            .flat_map(|pi| (0..game.slots()).map(move |s| (pi, s)))
            .collect();
        Streams {
            game,
            t,
            bits: game.key_bits(t),
            parents,
            list,
        }
    }

    /// The moves of every parent here.
    fn edges(&self) -> u64 {
        self.parents
            .iter()
            .map(|(_, _, f)| f.par_iter().map(|&x| u64::from(x.ones())).sum::<u64>())
            .sum()
    }

    /// The key of the child through slot `s` of parent `i` of parent tier `pi`.
    #[inline(always)]
    fn child(&self, pi: usize, i: usize, s: usize) -> Result<u64, Error> {
        let (pt, pk, _) = &self.parents[pi];
        let t = self.t;
        let p = self.game.key_position(*pt, pk[i].to_u64());
        let c = self
            .game
            .slot_child(&p, s)
            .ok_or_else(|| Error::Game(format!("slot {s} of {p:?} has no move though flagged")))?;
        if self.game.tier(&c) != t {
            return Err(Error::Game(format!(
                "slot {s} of {p:?} leads out of tier {t:?}, the one child tier"
            )));
        }
        let key = self.game.key(&c);
        if self.bits < 64 && key >> self.bits != 0 {
            return Err(Error::Game(format!(
                "the key {key} of {c:?} is past the {} key bits of tier {t:?}",
                self.bits
            )));
        }
        Ok(key)
    }

    /// The children of parents at about `per` quantiles of every parent tier.
    fn sample(&self, per: usize) -> Result<Vec<u64>, Error> {
        let mut out = Vec::new();
        for (pi, (_, pk, flags)) in self.parents.iter().enumerate() {
            let m = pk.len().min(per);
            for j in 0..m {
                let i = j * pk.len() / m;
                for s in (0..self.game.slots()).filter(|&s| flags[i].has(s)) {
                    out.push(self.child(pi, i, s)?);
                }
            }
        }
        Ok(out)
    }

    /// How many parents of stream `x` among `i..e` have its slot.
    fn most(&self, x: usize, i: usize, e: usize) -> usize {
        let (pi, s) = self.list[x];
        let flags = &self.parents[pi].2;
        flags[i.min(e)..e].iter().filter(|f| f.has(s)).count()
    }

    /// The first parent of stream `x` whose child is `>= b`: a binary search over the
    /// parents that have the slot. Invariant: those in [0, lo) have children < b, those in
    /// [hi, len) children >= b. A probe looks for the parent with the slot nearest to the
    /// middle, both ways; what it scans past has no slot and is dropped with it.
    fn find(&self, x: usize, b: u64) -> Result<usize, Error> {
        let (pi, s) = self.list[x];
        let flags = &self.parents[pi].2;
        let (mut lo, mut hi) = (0usize, flags.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let mut d = 0;
            let probe = loop {
                if mid + d < hi && flags[mid + d].has(s) {
                    // (mid - d, mid + d) has no parent with the slot.
                    break Some((mid + d, (mid + 1).saturating_sub(d).max(lo)));
                }
                if d > 0 && d <= mid - lo && flags[mid - d].has(s) {
                    // (mid - d, mid + d] has none.
                    break Some((mid - d, mid - d));
                }
                if mid + d >= hi && (d >= mid - lo) {
                    break None;
                }
                d += 1;
            };
            match probe {
                // No parent with the slot in [lo, hi): the boundary is anywhere in it.
                None => return Ok(lo),
                Some((j, clear_from)) => {
                    if self.child(pi, j, s)? < b {
                        lo = if j >= mid {
                            j + 1
                        } else {
                            (mid + d + 1).min(hi)
                        };
                    } else {
                        hi = if j >= mid { clear_from.min(j) } else { j };
                    }
                }
            }
        }
        Ok(lo)
    }

    /// Moves stream `x` to its next parent with the slot before `end`, from `idx[x]`.
    #[inline(always)]
    fn advance(
        &self,
        x: usize,
        end: usize,
        idx: &mut [usize],
        head: &mut [u64],
        live: &mut [bool],
    ) -> Result<(), Error> {
        let (pi, s) = self.list[x];
        let flags = &self.parents[pi].2;
        let i = idx[x].min(end);
        // The next parent with the slot (a scan of its flags, without bounds checks).
        match flags[i..end].iter().position(|f| f.has(s)) {
            Some(d) => {
                head[x] = self.child(pi, i + d, s)?;
                live[x] = true;
                idx[x] = i + d + 1;
            }
            None => {
                head[x] = u64::MAX;
                live[x] = false;
                idx[x] = end;
            }
        }
        Ok(())
    }

    /// The children in `[lo, hi)` of the streams from `from` to `to`, sorted, without
    /// repeats (`most` at most); empty once the budget is spent.
    fn merge(
        &self,
        from: &[usize],
        to: &[usize],
        lo: u64,
        hi: Option<u64>,
        most: usize,
        spent: &Budget,
    ) -> Result<Vec<K>, Error> {
        let n = self.list.len();
        let mut idx = from.to_vec();
        let mut head = vec![u64::MAX; n];
        let mut live = vec![false; n];
        for (x, &end) in to.iter().enumerate() {
            self.advance(x, end, &mut idx, &mut head, &mut live)?;
        }
        let mut run: Vec<K> = Vec::with_capacity(most);
        while let Some((at, k)) = least_live(&head, &live) {
            if k < lo || hi.is_some_and(|b| k >= b) {
                return Err(unordered(&self.t));
            }
            match run.last().map(|l| l.to_u64()) {
                Some(l) if l == k => {}
                Some(l) if l > k => return Err(unordered(&self.t)),
                _ => {
                    run.push(K::from_u64(k));
                    if run.len() % (1 << 20) == 0 {
                        let bytes = (1u64 << 20) * u64::from(K::BYTES);
                        let total = spent.used.fetch_add(bytes, Relaxed) + bytes;
                        if spent.limit.is_some_and(|b| total > b) {
                            spent.over.store(true, Relaxed);
                        }
                        if spent.over.load(Relaxed) {
                            return Ok(Vec::new());
                        }
                    }
                }
            }
            self.advance(at, to[at], &mut idx, &mut head, &mut live)?;
        }
        Ok(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sorted::KeyRanges;

    /// Rank 0 of 2, whose peer sends `from_1`.
    struct Peer {
        from_1: Vec<u8>,
    }

    impl Exchange for Peer {
        fn rank(&self) -> usize {
            0
        }
        fn size(&self) -> usize {
            2
        }
        fn all_to_all(&self, _: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
            vec![Vec::new(), self.from_1.clone()]
        }
        fn sum(&self, _: &mut [u64]) {}
        fn max(&self, _: &mut [u64]) {}
        fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
            Some(vec![bytes.to_vec(), self.from_1.clone()])
        }
        fn broadcast(&self, bytes: &mut Vec<u8>) {
            *bytes = self.from_1.clone();
        }
        fn bytes_sent(&self) -> u64 {
            0
        }
    }

    #[test]
    fn a_malformed_message_is_an_exchange_error() {
        let opts = SolveOptions::default();
        let mut good = 2u64.to_le_bytes().to_vec();
        good.extend_from_slice(&[7, 0, 0, 0, 9, 0, 0, 0]);
        let got =
            deliver::<u32, KeyRanges>(&Peer { from_1: good }, vec![vec![1], vec![]], 0, 1, &opts);
        assert_eq!(got.unwrap(), vec![vec![vec![1], vec![7, 9]]]);
        // Too short for its lengths, a length past the message, keys beyond them, a cut
        // list of the wrong length.
        let mut long = 3u64.to_le_bytes().to_vec();
        long.extend_from_slice(&[7, 0, 0, 0]);
        let mut extra = 1u64.to_le_bytes().to_vec();
        extra.extend_from_slice(&[7, 0, 0, 0, 9]);
        for from_1 in [vec![1, 2, 3], long, extra, u64::MAX.to_le_bytes().to_vec()] {
            let got =
                deliver::<u32, KeyRanges>(&Peer { from_1 }, vec![vec![1], vec![]], 0, 1, &opts);
            assert!(matches!(got, Err(Error::Exchange(_))), "{got:?}");
        }
        let got = cuts::<KeyRanges>(
            &Peer {
                from_1: vec![0; 12],
            },
            vec![1, 2, 3],
            3,
        );
        assert!(matches!(got, Err(Error::Exchange(_))), "{got:?}");
    }

    #[test]
    fn union_drops_repeats() {
        assert_eq!(
            union::<u32>(&[1, 3, 5], &[2, 3, 6, 7]),
            vec![1, 2, 3, 5, 6, 7]
        );
        assert_eq!(union::<u32>(&[], &[4]), vec![4]);
    }

    #[test]
    fn least_live_skips_dead_streams() {
        assert_eq!(
            least_live(&[5, u64::MAX, 3], &[true, false, true]),
            Some((2, 3))
        );
        assert_eq!(
            least_live(&[u64::MAX, u64::MAX], &[false, true]),
            Some((1, u64::MAX))
        );
        assert_eq!(least_live(&[u64::MAX], &[false]), None);
    }
}
