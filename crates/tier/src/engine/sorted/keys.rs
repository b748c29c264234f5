//! Key words (`u32` or `u64`), sorted arrays of them, and their bytes in files and messages.

use crate::error::Error;
use crate::store::meta::header;
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Codec, Kind, Reader};
use std::sync::Arc;

/// A key word: `u32` (when every tier's keys fit in 32 bits) or `u64`.
pub(crate) trait Key:
    Copy + Ord + Send + Sync + std::fmt::Debug + bytemuck::Pod + 'static
{
    const BYTES: u32;
    fn from_u64(k: u64) -> Self;
    fn to_u64(self) -> u64;
    fn wrap(v: Arc<Vec<Self>>) -> Keys;
}

impl Key for u32 {
    const BYTES: u32 = 4;
    #[inline]
    fn from_u64(k: u64) -> u32 {
        k as u32
    }
    #[inline]
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
    fn wrap(v: Arc<Vec<u32>>) -> Keys {
        Keys::U32(v)
    }
}

impl Key for u64 {
    const BYTES: u32 = 8;
    #[inline]
    fn from_u64(k: u64) -> u64 {
        k
    }
    #[inline]
    fn to_u64(self) -> u64 {
        self
    }
    fn wrap(v: Arc<Vec<u64>>) -> Keys {
        Keys::U64(v)
    }
}

/// A tier's sorted keys in memory.
#[derive(Clone, Debug)]
pub(crate) enum Keys {
    U32(Arc<Vec<u32>>),
    U64(Arc<Vec<u64>>),
}

impl Keys {
    /// Where `key` is, if there.
    pub fn find(&self, key: u64) -> Option<usize> {
        match self {
            Keys::U32(v) => v.binary_search(&u32::try_from(key).ok()?).ok(),
            Keys::U64(v) => v.binary_search(&key).ok(),
        }
    }
}

/// The first index `>= from` of a key `>= x` in sorted `keys` (`keys.len()` when none): a
/// few steps one by one (the children of a slot mostly follow each other closely), then by
/// steps that double: `O(log d)` for a distance `d`.
#[inline(always)]
pub(crate) fn seek<K: Key>(keys: &[K], from: usize, x: u64) -> usize {
    let n = keys.len();
    let mut j = from;
    for _ in 0..4 {
        if j >= n || keys[j].to_u64() >= x {
            return j.min(n);
        }
        j += 1;
    }
    // keys[lo] < x throughout.
    let mut lo = j - 1;
    let mut step = 1;
    loop {
        let probe = lo + step;
        if probe >= n {
            return lo + 1 + keys[lo + 1..].partition_point(|k| k.to_u64() < x);
        }
        if keys[probe].to_u64() >= x {
            return lo + 1 + keys[lo + 1..probe].partition_point(|k| k.to_u64() < x);
        }
        lo = probe;
        step *= 2;
    }
}

/// Appends keys as `K::BYTES` little-endian bytes each.
pub(crate) fn put_keys<K: Key>(out: &mut Vec<u8>, keys: &[K]) {
    out.extend_from_slice(&tierfile::le_bytes(keys));
}

/// The keys of little-endian bytes (whole keys; a tail is ignored).
pub(crate) fn get_keys<K: Key>(b: &[u8]) -> impl Iterator<Item = K> + '_ {
    let w = K::BYTES as usize;
    b.chunks_exact(w).map(move |c| {
        let mut x = [0u8; 8];
        x[..w].copy_from_slice(c);
        K::from_u64(u64::from_le_bytes(x))
    })
}

/// Keys from their little-endian bytes (a whole number of keys).
pub(crate) fn decode_keys<K: Key>(b: &[u8]) -> Vec<K> {
    if cfg!(target_endian = "little") {
        let mut v = vec![K::from_u64(0); b.len() / K::BYTES as usize];
        bytemuck::cast_slice_mut::<K, u8>(&mut v).copy_from_slice(b);
        v
    } else {
        get_keys(b).collect()
    }
}

/// The `u64`s of little-endian bytes.
pub(crate) fn u64s(b: &[u8]) -> impl Iterator<Item = u64> + '_ {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
}

/// Writes a tier's keys (this rank's share) to `file`, delta-coded.
pub(crate) fn store_keys<K: Key>(
    st: &dyn Storage,
    game: &str,
    tier: &str,
    file: &str,
    keys: &[K],
) -> Result<(), Error> {
    tierfile::write(
        st,
        file,
        &header(game, tier, Kind::Keys, K::BYTES),
        &tierfile::le_bytes(keys),
        Codec::DeltaZstd(1),
        tierfile::BLOCK_ELEMS,
    )
}

/// Reads sorted keys back from `file`; an error when they are not strictly increasing.
pub(crate) fn load_keys<K: Key>(
    st: &dyn Storage,
    game: &str,
    tier: &str,
    file: &str,
) -> Result<Vec<K>, Error> {
    let r = Reader::open(st, file, &header(game, tier, Kind::Keys, K::BYTES))?;
    let keys = r.read_elems::<K>(st)?;
    if keys.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::damaged(r.name().to_string(), "keys out of order"));
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seek_finds_the_first_key_not_below() {
        let keys: Vec<u32> = (0..100).map(|i| 3 * i).collect();
        for from in [0, 1, 5, 50, 99, 100] {
            for x in 0..310u64 {
                let want = from.max(keys.partition_point(|&k| u64::from(k) < x));
                let want = if from >= keys.len() { keys.len() } else { want };
                assert_eq!(seek(&keys, from, x), want, "from {from}, x {x}");
            }
        }
    }
}
