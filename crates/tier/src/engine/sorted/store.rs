//! Where a sorted tier is kept while the solve runs, and the database it ends as.
//!
//! Discovery writes each tier's keys (this rank's share, all of them) as
//! [`KeyPlacement::keys_file`], delta-coded. The database keeps a solved tier as the keys
//! of its canonical positions (`TIER.keys`, delta-coded) and their values (`TIER.values`),
//! since a lookup goes through the canonical position anyway: [`write_canonical`] writes
//! them from every rank's share (one process: from its own, as soon as the tier is solved).
//! Where a solved tier is kept until then is the placement's ([`kept_files`], [`reread`]):
//! - one process writes the database's files at once, and reads a solved tier back from
//!   them (each position's value is its canonical one's);
//! - a rank writes its values, one per key of its share (`TIER.values.part-R-of-K`; the
//!   canonical partner of a key may be another rank's), and at the end the shares are put
//!   together at rank 0 ([`assemble`]).

use super::keys::{load_keys, Key};
use super::place::KeyPlacement;
use crate::api::game::{canonical, OrderedMoves, Symmetry};
use crate::engine::driver::share_file;
use crate::engine::{Dag, Event, SolveOptions};
use crate::error::Error;
use crate::store::cell::CellArray;
use crate::store::cells::{load_whole_cells, store_cells, stored_width};
use crate::store::meta::{header, keys_file, values_file, META};
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Codec, Kind};
use rayon::prelude::*;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::Value;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// The codecs of a database's keys and values files for `codec`. Sorted tiers are big
/// (Connect-4 6x5: 1.4e9 canonical positions): zstd's level 3 writes them about three times
/// faster than level 9, in about 30% more bytes.
pub(crate) fn db_codecs(codec: Codec) -> (Codec, Codec) {
    match codec {
        Codec::Raw => (Codec::Raw, Codec::Raw),
        Codec::Zstd(l) | Codec::DeltaZstd(l) => (Codec::DeltaZstd(l.min(3)), Codec::Zstd(l.min(3))),
        Codec::Cells => (Codec::DeltaZstd(3), Codec::Zstd(3)),
    }
}

/// The files a solved tier's share is kept in until the end (see the [module docs](self)).
pub(crate) fn kept_files<P: KeyPlacement>(tier: &str, me: usize, ranks: usize) -> Vec<String> {
    match P::ALONE {
        true => vec![keys_file(tier), values_file(tier)],
        false => vec![share_file(tier, me, ranks)],
    }
}

/// This rank's share of a solved tier: its sorted keys, their values, and a bit per key
/// set for the canonical ones.
pub(crate) struct Share<'a, K, C> {
    pub name: &'a str,
    pub keys: &'a [K],
    pub vals: &'a [C],
    pub bits: &'a [u64],
}

/// Writes this rank's values of a solved tier (ranks: one process writes the database's
/// files at once, with [`write_canonical`]).
pub(crate) fn store_share<G: OrderedMoves, C: CellArray<V = Value>>(
    st: &dyn Storage,
    game: &G,
    name: &str,
    vals: &[C],
    codec: Codec,
    ex: &dyn Exchange,
) -> Result<(), Error> {
    let file = share_file(name, ex.rank(), ex.size());
    let h = header(&game.name(), name, Kind::Values, 0);
    store_cells(st, &file, &h, vals, db_codecs(codec).1)
}

/// Reads this rank's share of a solved tier back: a value for each of its `keys`.
pub(crate) fn reread<G: OrderedMoves, C: CellArray<V = Value>, K: Key, P: KeyPlacement>(
    st: &dyn Storage,
    game: &G,
    t: G::Tier,
    name: &str,
    keys: &[K],
    ex: &dyn Exchange,
) -> Result<Vec<C>, Error> {
    if P::ALONE {
        return restore_vals(st, game, t, name, keys);
    }
    let file = share_file(name, ex.rank(), ex.size());
    let h = header(&game.name(), name, Kind::Values, 0);
    let n = keys.len() as u64;
    load_whole_cells::<C>(st, &file, &h, n)
}

/// The values of every position of a solved tier (its sorted `keys`), from the database's
/// files of its canonical positions.
fn restore_vals<G: OrderedMoves, C: CellArray<V = Value>, K: Key>(
    st: &dyn Storage,
    game: &G,
    t: G::Tier,
    name: &str,
    keys: &[K],
) -> Result<Vec<C>, Error> {
    let gname = game.name();
    let canon = load_keys::<K>(st, &gname, name, &keys_file(name))?;
    let cvals = load_whole_cells::<C>(
        st,
        &values_file(name),
        &header(&gname, name, Kind::Values, 0),
        canon.len() as u64,
    )?;
    let missing = AtomicBool::new(false);
    let out: Vec<C> = keys
        .par_iter()
        .map(|k| {
            let p = game.key_position(t, k.to_u64());
            let ck = K::from_u64(game.key(&canonical(game, &p)));
            match canon.binary_search(&ck) {
                Ok(j) => cvals[j],
                Err(_) => {
                    missing.store(true, Relaxed);
                    C::UNDECIDED
                }
            }
        })
        .collect();
    if missing.load(Relaxed) {
        return Err(Error::damaged(
            st.describe(&keys_file(name)),
            "a canonical position of the tier is missing",
        ));
    }
    Ok(out)
}

/// Writes a solved tier as the database keeps it (`NAME.keys` and `NAME.values`: the keys
/// of its canonical positions, delta-coded, and their values) at rank 0, from every rank's
/// share: the shares are key ranges in rank order, so each file is the ranks' canonical
/// parts one after another, streamed a batch of blocks at a time (one process: a block at
/// a time, in parallel).
pub(crate) fn write_canonical<G: OrderedMoves, C: CellArray<V = Value>, K: Key>(
    st: &dyn Storage,
    game: &G,
    share: &Share<'_, K, C>,
    codec: Codec,
    ex: &dyn Exchange,
) -> Result<(), Error> {
    let Share {
        name,
        keys,
        vals,
        bits,
    } = *share;
    let gname = game.name();
    // How many canonical keys come before each run of `RUN` keys.
    const RUN: usize = 1 << 16;
    debug_assert_eq!(bits.len(), keys.len().div_ceil(64));
    let mut before: Vec<u64> = bits
        .chunks(RUN / 64)
        .map(|w| w.iter().map(|x| u64::from(x.count_ones())).sum())
        .collect();
    let mut total = 0u64;
    for b in &mut before {
        let n = *b;
        *b = total;
        total += n;
    }
    // Calls `f` with the index (into `keys`) of canonical keys number `lo..hi`.
    let each = |lo: u64, hi: u64, f: &mut dyn FnMut(usize)| {
        if lo >= hi {
            return;
        }
        // The last run that starts at or before canonical key `lo`.
        let run = before.partition_point(|&b| b <= lo) - 1;
        let mut seen = before[run];
        let mut i = run * RUN;
        while seen < hi && i < keys.len() {
            if bits[i / 64] >> (i % 64) & 1 == 1 {
                if seen >= lo {
                    f(i);
                }
                seen += 1;
            }
            i += 1;
        }
    };
    let (key_codec, val_codec) = db_codecs(codec);
    // Whether every value fits a byte: decided over every key, canonical or not.
    let mut width = [u64::from(stored_width(vals))];
    ex.max(&mut width);
    let width = width[0] as u32;
    let w = K::BYTES as usize;
    tierfile::write_spread_with(
        st,
        &keys_file(name),
        &header(&gname, name, Kind::Keys, K::BYTES),
        total,
        &|lo, hi, out| {
            each(lo, hi, &mut |i| {
                out.extend_from_slice(&keys[i].to_u64().to_le_bytes()[..w])
            })
        },
        key_codec,
        ex,
    )?;
    tierfile::write_spread_with(
        st,
        &values_file(name),
        &header(&gname, name, Kind::Values, width),
        total,
        &|lo, hi, out| {
            each(lo, hi, &mut |i| {
                vals[i].push_stored(out, width);
            })
        },
        val_codec,
        ex,
    )
}

/// A bit per key of a tier, set for the canonical positions.
fn canonical_bits<G: OrderedMoves, K: Key>(game: &G, t: G::Tier, keys: &[K]) -> Vec<u64> {
    keys.par_chunks(64)
        .map(|c| {
            c.iter().enumerate().fold(0u64, |w, (i, k)| {
                let p = game.key_position(t, k.to_u64());
                let canon = <G::Symmetry as Symmetry<G>>::is_canonical(game, &p);
                w | u64::from(canon) << i
            })
        })
        .collect()
}

/// Writes the database one process writes (`NAME.keys` and `NAME.values` of every tier) at
/// rank 0 from the ranks' shares, read back one tier at a time ([`write_canonical`]; memory:
/// a rank's share of one tier, and at rank 0 a batch). With `database.json`, written last by
/// the caller, the directory is a database like any other, that `query`, `play` and `serve`
/// open and that one process resumes from.
pub(crate) fn assemble<G: OrderedMoves, C: CellArray<V = Value>, K: Key, P: KeyPlacement>(
    game: &G,
    dag: &Dag<G::Tier>,
    key_files: &[String],
    ex: &dyn Exchange,
    st: &dyn Storage,
    opts: &SolveOptions,
) -> Result<(), Error> {
    let gname = game.name();
    let me = ex.rank();
    if me == 0 {
        // Until it is written again, the directory holds no finished database.
        remove(st, META)?;
    }
    let total = dag.names.len() as u64;
    for (k, name) in dag.names.iter().enumerate() {
        let keys = load_keys::<K>(st, &gname, name, &key_files[k])?;
        opts.check_memory(
            || format!("putting tier {name} together (rank {me})"),
            (keys.len() as u64).saturating_mul(u64::from(K::BYTES) + C::BYTES as u64 + 1),
        )?;
        let t = dag.tiers[k];
        let vals = reread::<G, C, K, P>(st, game, t, name, &keys, ex)?;
        let bits = canonical_bits(game, t, &keys);
        let share = Share {
            name,
            keys: &keys,
            vals: &vals,
            bits: &bits,
        };
        write_canonical(st, game, &share, opts.codec, ex)?;
        opts.emit(&Event::Assemble {
            done: k as u64 + 1,
            total,
        });
    }
    Ok(())
}

/// Removes a file (none is no error).
pub(crate) fn remove(st: &dyn Storage, file: &str) -> Result<(), Error> {
    st.remove(file)
        .map_err(|e| Error::io(st.describe(file), "remove", e))
}
