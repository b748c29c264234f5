//! The distinct values among the few dozen a position's moves (or un-moves) give, in time
//! linear in their number.
//!
//! The engine counts a position's distinct canonical children and counts a child's
//! distinct canonical parents down once each. Sorting each list and dropping repeats did
//! that in quadratic time (an insertion sort, for lists this short), about a tenth of a
//! Quixo solve; a small open-addressing table does it in one pass. The table is cleared by
//! bumping a generation stamp, so clearing costs nothing, and it grows when a position has
//! more moves than it was sized for.

use std::hash::{Hash, Hasher};

/// A set of a few keys, kept in the order they were first inserted.
pub(crate) struct Distinct<K> {
    /// The distinct keys, in insertion order.
    keys: Vec<K>,
    /// Per slot: the stamp of the round that filled it, and the key's index in `keys`.
    slots: Vec<(u32, u32)>,
    stamp: u32,
}

impl<K: Copy + Eq + Hash> Distinct<K> {
    pub(crate) fn new() -> Distinct<K> {
        Distinct {
            keys: Vec::with_capacity(64),
            slots: vec![(0, 0); 128],
            stamp: 1,
        }
    }

    /// Empties the set.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.keys.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.fill((0, 0));
            self.stamp = 1;
        }
    }

    #[inline]
    fn slot_of(&self, k: &K) -> usize {
        let mut h = rustc_hash::FxHasher::default();
        k.hash(&mut h);
        // Fx hashes a word with one multiplication, which carries a key's bits upwards
        // only, and `finish` rotates the product (rustc-hash 2). Its top bits, taken alone,
        // were bits 31 to 37 of the product: keys that differ only above bit 37, like
        // positions whose kings moved, all met in one slot and were probed one after the
        // other. One more multiplication, after folding the halves, mixes every bit in.
        let x = h.finish();
        let x = (x ^ x >> 32).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let bits = self.slots.len().trailing_zeros();
        (x >> (64 - bits)) as usize
    }

    /// Adds `k`; whether it was new.
    #[inline]
    pub(crate) fn insert(&mut self, k: K) -> bool {
        if 2 * (self.keys.len() + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot_of(&k);
        loop {
            let (stamp, at) = self.slots[i];
            if stamp != self.stamp {
                self.slots[i] = (self.stamp, self.keys.len() as u32);
                self.keys.push(k);
                return true;
            }
            if self.keys[at as usize] == k {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the table (keeping at most half of it full) and inserts the keys again.
    #[cold]
    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        self.slots = vec![(0, 0); n];
        self.stamp = 1;
        let mask = n - 1;
        for (at, k) in self.keys.iter().enumerate() {
            let mut i = self.slot_of(k);
            while self.slots[i].0 == self.stamp {
                i = (i + 1) & mask;
            }
            self.slots[i] = (self.stamp, at as u32);
        }
    }

    /// The distinct keys, in the order they were first inserted.
    #[inline]
    pub(crate) fn keys(&self) -> &[K] {
        &self.keys
    }
}

/// The distinct keys of a position's moves (or parents). Without the game's promise of
/// distinct moves ([`TierGame::DISTINCT_MOVES`](crate::TierGame::DISTINCT_MOVES)), every key
/// goes through a [`Distinct`]. With it, a key whose move reaches a position that is its
/// own canonical form (`sure`) is new for certain, since two such moves reach two positions;
/// only the other keys (`sure` false: usually none or a few) are compared, at
/// [`Keys::keys`], with the keys kept.
pub(crate) struct Keys<K> {
    set: Distinct<K>,
    promised: bool,
    kept: Vec<K>,
    doubt: Vec<K>,
}

impl<K: Copy + Eq + Hash> Keys<K> {
    pub(crate) fn new() -> Keys<K> {
        Keys {
            set: Distinct::new(),
            promised: false,
            kept: Vec::with_capacity(64),
            doubt: Vec::new(),
        }
    }

    /// Empties the keys, for a position whose moves are distinct if `promised`.
    #[inline]
    pub(crate) fn clear(&mut self, promised: bool) {
        self.promised = promised;
        if promised {
            self.kept.clear();
            self.doubt.clear();
        } else {
            self.set.clear();
        }
    }

    /// Adds a key; `sure` when the game promised distinct moves and this move's position is
    /// its own canonical form.
    #[inline]
    pub(crate) fn add(&mut self, k: K, sure: bool) {
        if !self.promised {
            self.set.insert(k);
        } else if sure {
            self.kept.push(k);
        } else {
            self.doubt.push(k);
        }
    }

    /// The distinct keys added since [`Keys::clear`].
    #[inline]
    pub(crate) fn keys(&mut self) -> &[K] {
        if !self.promised {
            return self.set.keys();
        }
        for &k in &self.doubt {
            if !self.kept.contains(&k) {
                self.kept.push(k);
            }
        }
        self.doubt.clear();
        &self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Equal to sorting and dropping repeats, over many rounds of one set (the stamps),
        /// with lists long enough to grow the table.
        #[test]
        fn equals_sort_and_dedup(rounds in prop::collection::vec(
            prop::collection::vec(0u64..40, 0..300), 1..20)) {
            let mut d = Distinct::new();
            for list in rounds {
                d.clear();
                let mut fresh = Vec::new();
                for &k in &list {
                    fresh.push(d.insert(k));
                }
                let mut want = list.clone();
                want.sort_unstable();
                want.dedup();
                let mut got = d.keys().to_vec();
                got.sort_unstable();
                prop_assert_eq!(&got, &want);
                // `insert` says new exactly at a key's first occurrence.
                for (i, &k) in list.iter().enumerate() {
                    prop_assert_eq!(fresh[i], !list[..i].contains(&k));
                }
            }
        }
    }

    #[test]
    fn keys_that_differ_in_high_bits_only_spread_over_the_table() {
        let d = Distinct::<u64>::new();
        let homes: std::collections::HashSet<usize> = (0..32u64)
            .map(|i| d.slot_of(&(i << 56 | 1 << 19)))
            .collect();
        assert!(homes.len() >= 16, "{} home slots for 32 keys", homes.len());
    }

    #[test]
    fn stamps_wrap_around() {
        let mut d = Distinct::new();
        d.stamp = u32::MAX - 1;
        for round in 0..4u64 {
            d.clear();
            assert!(d.insert(round));
            assert!(!d.insert(round));
            assert!(d.insert(round + 100));
            assert_eq!(d.keys().len(), 2);
        }
    }
    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// With the promise, keys that are sure are distinct among themselves (as a game's
        /// distinct moves to canonical positions are); the keys are then those of the hash
        /// set.
        #[test]
        fn keys_with_the_promise_equal_the_hash_set(
            sure in prop::collection::hash_set(0u64..60, 0..30),
            doubt in prop::collection::vec(0u64..60, 0..10),
            order in prop::collection::vec(any::<bool>(), 40),
        ) {
            let mut fast = Keys::new();
            let mut slow = Keys::new();
            fast.clear(true);
            slow.clear(false);
            let (mut a, mut b) = (sure.iter(), doubt.iter());
            for &first in &order {
                let next = if first { a.next().map(|&k| (k, true)) } else { b.next().map(|&k| (k, false)) };
                if let Some((k, s)) = next {
                    fast.add(k, s);
                    slow.add(k, s);
                }
            }
            for &k in a {
                fast.add(k, true);
                slow.add(k, true);
            }
            for &k in b {
                fast.add(k, false);
                slow.add(k, false);
            }
            let mut x = fast.keys().to_vec();
            let mut y = slow.keys().to_vec();
            x.sort_unstable();
            y.sort_unstable();
            prop_assert_eq!(x, y);
        }
    }
}
