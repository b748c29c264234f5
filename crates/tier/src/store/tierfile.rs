//! The on-disk format of one array of one solved tier (its values, or its sorted keys).
//!
//! A file is a header, blocks, and an index of the blocks at the end. Every block is
//! checked against its own CRC-32 when it is read, so a lookup reads and checks one block
//! (random access), and a damaged byte anywhere is an error naming the file, never a wrong
//! value. All integers are little-endian.
//!
//! A keys file holds every key, `per block` of them in each block. A values file covers
//! `count` numbers (the slots of a dense index, or the keys of a sorted tier), `per block`
//! of them in each block, a cell for every number: the holes of a dense index (numbers
//! that are no position, positions that are not canonical) are zero bytes, which the
//! compression makes cheap, so that the value of a number is at its place in its block and
//! a probe decodes one block without asking the game which numbers hold positions. Value
//! cells are one byte when every value of the tier fits, else two (the encoding of
//! [`crate::Cell`]), four with scores.
//!
//! Header (176 bytes):
//!
//! | bytes    | field                                                   |
//! |----------|---------------------------------------------------------|
//! | 0..8     | magic `RGTIER6\0`                                       |
//! | 8..12    | format version ([`VERSION`])                            |
//! | 12..16   | kind: 0 keys, 1 values                                  |
//! | 16..20   | bytes per element (1, 2, 4 or 8)                        |
//! | 20..24   | codec of the blocks: 0 raw, 1 zstd, 2 delta + zstd (keys), 3 dictionary + zstd (values) |
//! | 24..32   | keys, or numbers covered by the values                  |
//! | 32..36   | keys or numbers per block (the last block may hold fewer) |
//! | 36..40   | values: the first *derived* block (see below), else 0  |
//! | 40..80   | the game, UTF-8, zero-padded (e.g. `quixo 4x4`)         |
//! | 80..120  | the tier's name, UTF-8, zero-padded                     |
//! | 120..136 | the database's identity ([`crate::store::identity`])           |
//! | 136..140 | values: how many blocks are derived (0: none)           |
//! | 140..156 | the database's layout, UTF-8, zero-padded ([`Facts`])   |
//! | 156..160 | the database's bytes per value cell ([`Facts`])         |
//! | 160..164 | CRC-32 of the database's parameters ([`Facts::digest`]) |
//! | 164..172 | zero                                                    |
//! | 172..176 | CRC-32 (IEEE) of bytes 0..172                           |
//!
//! The identity is the storage's ([`Storage::identity`]): a reader refuses a file whose
//! identity is not the one its storage expects, so the files of two databases never mix,
//! even when they are of the same game and tier. So are the facts ([`Storage::facts`]):
//! what the database's description (`database.json`) says of it that a reader acts on, so
//! that a file and the description never contradict each other unseen.
//!
//! A block of sorted keys under codec 2 is its first key, then the gap to each next key,
//! every one a LEB128 varint, the whole compressed with zstd: sorted keys of a sparse game
//! take one to two bytes each instead of eight.
//!
//! A block of values under codec 3 is, before zstd, a byte saying how: 0, the cells as
//! they are; 1, a dictionary (a byte `k - 1`, then the block's `k` distinct cells, at most
//! 256, of `elem` bytes each) and a byte a cell, its place in the dictionary. A block of
//! two-byte chess cells holds a few dozen distinct values: as one byte each they compress
//! to about 80% of the two bytes' size (and decompress from half as many bytes).
//!
//! Then the blocks, one after the other; then the index, 32 bytes a block: offset (u64)
//! and length (u32) of the stored block, CRC-32 of the stored bytes (u32), the number of
//! elements in the block (u64), and its first element widened to a u64 (keys: so that a
//! lookup by key finds its block without reading any); then 16 bytes: CRC-32 of the index,
//! 4 zero bytes, magic `RGEND\0\0\0`.
//!
//! A values file may leave a run of blocks out (a *compact* file, [`compact_values`]): their
//! numbers are *derived*, answered from the values of their moves (one ply), which the
//! game promises to find among the numbers that are kept (see
//! [`DenseIndex::sides`](crate::DenseIndex::sides)). Such a block's index entry has length
//! 0 and CRC 0, and reading it is an error; a file written before this (bytes 36..40 and
//! 136..140 zero) derives nothing, and a reader without it refuses a derived block as
//! damaged, never reading a wrong value.
//!
//! # Stability
//! Version 6. Version 5 is read too: its header is the first 140 bytes of this one, then
//! its CRC-32 (144 bytes), with no facts, so a description is trusted for them over its
//! files. Version 4 stored only the cells of positions, so reading one value meant asking
//! the game which numbers of its block were positions; version 3 had no identity, and a
//! 128-byte header. Readers refuse other versions with a message naming both and saying to
//! solve again.

use crate::error::Error;
use crate::store::identity::{Facts, Identity};
use crate::store::meta::META;
use crate::store::storage::Storage;
use rayon::prelude::*;
use std::io::Write;

/// The format version written (version 5 is read too).
pub const VERSION: u32 = 6;
/// The oldest version read.
const OLDEST: u32 = 5;
const END: &[u8; 8] = b"RGEND\0\0\0";
/// The header's bytes, written (version 6).
const HEADER: u64 = 176;
/// The header's bytes in a file of `version` (5 or 6): its CRC is its last 4.
fn header_bytes(version: u32) -> u64 {
    if version == 5 {
        144
    } else {
        HEADER
    }
}
/// Writes the CRC-32 of header `h` (of its version's length) into its last 4 bytes.
fn seal(h: &mut [u8]) {
    let at = h.len() - 4;
    let crc = crc32fast::hash(&h[..at]);
    h[at..].copy_from_slice(&crc.to_le_bytes());
}

/// The magic of a file of `version`.
fn magic(version: u32) -> [u8; 8] {
    *if version == 5 {
        b"RGTIER5\0"
    } else {
        b"RGTIER6\0"
    }
}
const ENTRY: u64 = 32;
const TAIL: u64 = 16;
const NAME: usize = 40;
/// Elements per block unless the writer says otherwise.
pub const BLOCK_ELEMS: u32 = 1 << 16;
/// Numbers per block of a dense tier's values file: a probe reads, checks and decompresses
/// one block, so blocks are small (16 KiB of one-byte cells).
pub const VALUE_BLOCK_ELEMS: u32 = 1 << 14;

/// What a tier file holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Sorted position keys.
    Keys = 0,
    /// The value cells of the numbers that hold one.
    Values = 1,
}

/// How blocks are stored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Codec {
    /// As they are.
    Raw,
    /// Compressed with zstd at this level.
    Zstd(i32),
    /// Sorted keys only: each key as its gap to the one before (varints), then zstd at
    /// this level.
    DeltaZstd(i32),
    /// Zstd with its search set for blocks of value cells (`cells_compressor`):
    /// as small as level 9 on the chess tables and 2.5 times faster to write. Cells of
    /// two or four bytes go through a dictionary first (codec 3 in the file, see the
    /// module's notes); one-byte cells are stored as [`Codec::Zstd`] (the file says zstd).
    Cells,
}

/// The zstd settings of [`Codec::Cells`]. A block of values is at most 32 KiB of one- or
/// two-byte cells with long runs; measured on the 197 MB of cells of every 3- and 4-piece
/// chess ending in blocks of 16,384 cells, recompressed alone: level 9 (whose settings for
/// inputs this small are a binary-tree search) wrote 36.5 MB in 12.9 s of one core, level 6
/// 37.4 MB in 4.0 s, and these settings (a lazy search of depth 2^6 over a 32 KiB window,
/// matches of 6 bytes or more) as much as level 9 within 0.1% in 40% of its time.
fn cells_compressor() -> std::io::Result<zstd::bulk::Compressor<'static>> {
    use zstd::zstd_safe::{CParameter, Strategy};
    let mut c = zstd::bulk::Compressor::new(9)?;
    for p in [
        CParameter::Strategy(Strategy::ZSTD_lazy2),
        CParameter::WindowLog(15),
        CParameter::ChainLog(16),
        CParameter::HashLog(16),
        CParameter::SearchLog(6),
        CParameter::MinMatch(6),
    ] {
        c.set_parameter(p)?;
    }
    Ok(c)
}

/// `raw` compressed as [`Codec::Cells`] says, with a compression context per thread, made
/// once (making one is a good part of the cost of a small block).
fn compress_cells(raw: &[u8]) -> std::io::Result<Vec<u8>> {
    thread_local! {
        static ZSTD: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    ZSTD.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = Some(cells_compressor()?);
        }
        c.as_mut().expect("made above").compress(raw)
    })
}

/// What a tier file says it is; checked against what the reader expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The game (at most 40 bytes).
    pub game: String,
    /// The tier (at most 40 bytes).
    pub tier: String,
    /// Keys or values.
    pub kind: Kind,
    /// Bytes per element (for values: 0 accepts any cell: 1, 2 or 4).
    pub elem: u32,
}

/// Writes `data` (whole elements, every one stored) as a tier file named `file`: keys.
///
/// # Errors
/// A name too long for the header, or a storage that fails.
pub fn write(
    storage: &dyn Storage,
    file: &str,
    header: &Header,
    data: &[u8],
    codec: Codec,
    block_elems: u32,
) -> Result<(), Error> {
    let elem = header.elem as usize;
    assert!(
        matches!(elem, 1 | 2 | 4 | 8) && data.len() % elem == 0,
        "whole elements of 1, 2, 4 or 8 bytes"
    );
    let count = (data.len() / elem) as u64;
    let block_bytes = block_elems as usize * elem;
    write_values(
        storage,
        file,
        header,
        count,
        block_elems,
        codec,
        &|b, out| {
            let start = b * block_bytes;
            let chunk = &data[start..(start + block_bytes).min(data.len())];
            out.extend_from_slice(chunk);
            (chunk.len() / elem) as u64
        },
    )
}

/// Writes a values file covering `count` numbers, `block_elems` of them a block: `fill(b,
/// out)` appends the stored cells of block `b` (of `header.elem` bytes each) and returns how
/// many it appended.
///
/// # Errors
/// A name too long for the header, or a storage that fails.
pub fn write_values(
    storage: &dyn Storage,
    file: &str,
    header: &Header,
    count: u64,
    block_elems: u32,
    codec: Codec,
    fill: &(dyn Fn(usize, &mut Vec<u8>) -> u64 + Sync),
) -> Result<(), Error> {
    write_batches(
        storage,
        file,
        header,
        count,
        block_elems,
        codec,
        &mut |blocks| {
            Ok(blocks
                .into_par_iter()
                .map(|b| {
                    let mut raw = Vec::new();
                    let n = fill(b, &mut raw);
                    (raw, n)
                })
                .collect())
        },
    )
}

/// A block's raw elements and their number, before compression.
pub(crate) type RawBlock = (Vec<u8>, u64);

/// Blocks per batch of [`write_batches`]: filled and compressed together.
pub(crate) const BATCH: usize = 64;

/// The batches of blocks [`write_batches`] asks for, in order, for `count` elements.
pub(crate) fn batches(
    count: u64,
    block_elems: u32,
) -> impl Iterator<Item = std::ops::Range<usize>> {
    let nblocks = count.div_ceil(u64::from(block_elems)) as usize;
    (0..nblocks)
        .step_by(BATCH)
        .map(move |first| first..(first + BATCH).min(nblocks))
}

/// One array whose elements the ranks hold in parts (rank `r`'s after rank `r - 1`'s),
/// written by rank 0 as [`write`] writes it whole: a batch of blocks at a time,
/// each rank sending its elements of the batch.
pub(crate) fn write_spread(
    storage: &dyn Storage,
    file: &str,
    header: &Header,
    mine: &[u8],
    codec: Codec,
    ex: &dyn retrograde_solve::exchange::Exchange,
) -> Result<(), Error> {
    let elem = header.elem as usize;
    let fill = |lo: u64, hi: u64, out: &mut Vec<u8>| {
        out.extend_from_slice(&mine[lo as usize * elem..hi as usize * elem]);
    };
    write_spread_with(
        storage,
        file,
        header,
        (mine.len() / elem) as u64,
        &fill,
        codec,
        ex,
    )
}

/// As [`write_spread`], this rank's `count` elements given by `fill(lo, hi, out)`, which
/// appends its elements `lo..hi` (numbered from 0 here). One process fills its blocks in
/// parallel and writes them as [`write_values`] does.
pub(crate) fn write_spread_with(
    storage: &dyn Storage,
    file: &str,
    header: &Header,
    count: u64,
    fill: &(dyn Fn(u64, u64, &mut Vec<u8>) + Sync),
    codec: Codec,
    ex: &dyn retrograde_solve::exchange::Exchange,
) -> Result<(), Error> {
    let (k, me) = (ex.size(), ex.rank());
    let per = u64::from(BLOCK_ELEMS);
    if k == 1 {
        let each = |b: usize, out: &mut Vec<u8>| {
            let lo = b as u64 * per;
            let hi = (lo + per).min(count);
            fill(lo, hi, out);
            hi - lo
        };
        return write_values(storage, file, header, count, BLOCK_ELEMS, codec, &each);
    }
    let elem = header.elem as u64;
    let mut counts = vec![0u64; k];
    counts[me] = count;
    ex.sum(&mut counts);
    let first: u64 = counts[..me].iter().sum();
    let total: u64 = counts.iter().sum();
    let range = |blocks: &std::ops::Range<usize>| {
        (
            blocks.start as u64 * per,
            (blocks.end as u64 * per).min(total),
        )
    };
    // This rank's bytes of elements `lo..hi`.
    let part = |(lo, hi): (u64, u64)| -> Vec<u8> {
        let a = lo.clamp(first, first + count) - first;
        let b = hi.clamp(first, first + count) - first;
        let mut out = Vec::with_capacity(((b - a) * elem) as usize);
        fill(a, b, &mut out);
        out
    };
    if me != 0 {
        for blocks in batches(total, BLOCK_ELEMS) {
            ex.gather(&part(range(&blocks)));
        }
        return Ok(());
    }
    write_batches(
        storage,
        file,
        header,
        total,
        BLOCK_ELEMS,
        codec,
        &mut |blocks| {
            let (lo, hi) = range(&blocks);
            let all = ex.gather(&part((lo, hi))).expect("rank 0 gathers");
            let joined = all.concat();
            if joined.len() as u64 != (hi - lo) * elem {
                return Err(Error::Exchange(format!(
                    "{}: the ranks sent {} bytes of elements {lo}..{hi}",
                    storage.describe(file),
                    joined.len()
                )));
            }
            Ok(joined
                .chunks((per * elem) as usize)
                .map(|c| (c.to_vec(), c.len() as u64 / elem))
                .collect())
        },
    )
}

/// As [`write_values`], with the blocks given a batch at a time (see [`batches`]): `batch`
/// returns each block's raw elements and their number. For blocks that come from elsewhere
/// in order (a distributed solve gathers each batch from every rank).
pub(crate) fn write_batches(
    storage: &dyn Storage,
    file: &str,
    header: &Header,
    count: u64,
    block_elems: u32,
    codec: Codec,
    batch: &mut dyn FnMut(std::ops::Range<usize>) -> Result<Vec<RawBlock>, Error>,
) -> Result<(), Error> {
    let name = || storage.describe(file);
    let facts = storage.facts();
    if header.game.len() > NAME
        || header.tier.len() > NAME
        || facts.layout.len() > Facts::LAYOUT_BYTES
    {
        return Err(Error::Unsupported(format!(
            "{}: the game or tier name is longer than {NAME} bytes, or the layout's than {}",
            name(),
            Facts::LAYOUT_BYTES
        )));
    }
    let elem = header.elem as usize;
    assert!(
        matches!(elem, 1 | 2 | 4 | 8),
        "elements of 1, 2, 4 or 8 bytes"
    );
    let mut h = [0u8; HEADER as usize];
    h[..8].copy_from_slice(&magic(VERSION));
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(header.kind as u32).to_le_bytes());
    h[16..20].copy_from_slice(&header.elem.to_le_bytes());
    // Wide value cells go through a block dictionary (codec 3).
    let dict = codec == Codec::Cells && header.kind == Kind::Values && elem > 1;
    let codec_id: u32 = match codec {
        Codec::Raw => 0,
        Codec::Cells if dict => 3,
        Codec::Zstd(_) | Codec::Cells => 1,
        Codec::DeltaZstd(_) => 2,
    };
    assert!(
        !matches!(codec, Codec::DeltaZstd(_)) || header.kind == Kind::Keys,
        "delta coding is for sorted keys"
    );
    h[20..24].copy_from_slice(&codec_id.to_le_bytes());
    h[24..32].copy_from_slice(&count.to_le_bytes());
    h[32..36].copy_from_slice(&block_elems.to_le_bytes());
    h[40..40 + header.game.len()].copy_from_slice(header.game.as_bytes());
    h[80..80 + header.tier.len()].copy_from_slice(header.tier.as_bytes());
    h[120..136].copy_from_slice(&storage.identity().0);
    h[140..140 + facts.layout.len()].copy_from_slice(facts.layout.as_bytes());
    h[156..160].copy_from_slice(&facts.cell_bytes.to_le_bytes());
    h[160..164].copy_from_slice(&facts.params.to_le_bytes());
    seal(&mut h);

    let io = |e| Error::io(name(), "write", e);
    let mut out = storage.create(file).map_err(io)?;
    out.write_all(&h).map_err(io)?;
    let mut index: Vec<u8> = Vec::new();
    let mut offset = HEADER;
    // Blocks are filled and compressed in parallel, a batch at a time, so that a big tier
    // is never held twice.
    for range in batches(count, block_elems) {
        let want = range.len();
        let raw = batch(range)?;
        assert_eq!(raw.len(), want, "one raw block per block of the batch");
        let blocks: Vec<(Vec<u8>, u64, u64)> = raw
            .into_par_iter()
            .map(|(raw, n)| {
                debug_assert_eq!(raw.len() as u64, n * elem as u64);
                let mut head = [0u8; 8];
                let k = raw.len().min(elem);
                head[..k].copy_from_slice(&raw[..k]);
                let stored = match codec {
                    Codec::Raw => raw,
                    Codec::Zstd(level) => zstd::bulk::compress(&raw, level)?,
                    Codec::Cells if dict => compress_cells(&dict_encode(&raw, elem))?,
                    Codec::Cells => compress_cells(&raw)?,
                    Codec::DeltaZstd(level) => {
                        zstd::bulk::compress(&delta_encode(&raw, elem), level)?
                    }
                };
                Ok((stored, n, u64::from_le_bytes(head)))
            })
            .collect::<Result<_, std::io::Error>>()
            .map_err(io)?;
        for (stored, n, head) in blocks {
            out.write_all(&stored).map_err(io)?;
            let entry = (
                offset,
                stored.len() as u32,
                crc32fast::hash(&stored),
                n,
                head,
            );
            push_entry(&mut index, entry);
            offset += stored.len() as u64;
        }
    }
    out.write_all(&index).map_err(io)?;
    let mut tail = [0u8; TAIL as usize];
    tail[..4].copy_from_slice(&crc32fast::hash(&index).to_le_bytes());
    tail[8..].copy_from_slice(END);
    out.write_all(&tail).map_err(io)?;
    out.commit().map_err(io)
}

/// A block's index entry: offset (u64) and length (u32) of the stored block, its CRC-32,
/// its elements, and its first element (see the module's notes).
type Entry = (u64, u32, u32, u64, u64);

/// An open tier file: its header and block index, checked; blocks are read on demand.
#[derive(Debug)]
pub struct Reader {
    file: String,
    name: String,
    kind: u32,
    elem: u32,
    codec: u32,
    count: u64,
    block_elems: u32,
    /// Blocks in the file.
    nblocks: usize,
    /// Where the first block begins: the header's length (by the file's version).
    blocks_at: u64,
    /// Where the index begins.
    index_at: u64,
    /// The index, read whole and checked by [`Reader::open`]; `None` after
    /// [`Reader::open_lazy`], whose reads take each block's entry from the file.
    blocks: Option<Vec<Entry>>,
    /// The blocks left out, whose numbers are derived from their moves.
    derived: std::ops::Range<usize>,
}

impl Reader {
    /// Opens `file` and checks that it is what `expect` describes: header, index and
    /// lengths (not yet the blocks' checksums, which every read of a block checks).
    ///
    /// # Errors
    /// [`Error::Missing`], [`Error::Damaged`] (with what is wrong), or [`Error::Io`].
    pub fn open(storage: &dyn Storage, file: &str, expect: &Header) -> Result<Reader, Error> {
        let mut r = Reader::head(storage, file, expect)?;
        r.blocks = Some(r.read_index(storage)?);
        Ok(r)
    }

    /// Opens a values `file` as [`Reader::open`] does, but reads only its header and the
    /// index's tail: each block's entry is read with the block, checked for its place in
    /// the file, and the block against the entry's checksum; a wrong length or count
    /// fails the block's decoding. So a damaged byte that a read comes to is still an
    /// error, never a wrong value, and a probe of a few blocks does not read and check an
    /// index of thousands (the index's own checksum is not read; [`Reader::open`] reads
    /// it). A keys file is opened whole: a lookup by key searches its index.
    ///
    /// # Errors
    /// As [`Reader::open`].
    pub fn open_lazy(storage: &dyn Storage, file: &str, expect: &Header) -> Result<Reader, Error> {
        if expect.kind == Kind::Keys {
            return Reader::open(storage, file, expect);
        }
        let r = Reader::head(storage, file, expect)?;
        let mut tail = [0u8; TAIL as usize];
        storage
            .read_at(file, r.index_at + r.nblocks as u64 * ENTRY, &mut tail)
            .map_err(|e| Error::io(r.name.clone(), "read", e))?;
        r.check_tail(&tail)?;
        Ok(r)
    }

    /// The header's checks, and where the index is; the index not read.
    fn head(storage: &dyn Storage, file: &str, expect: &Header) -> Result<Reader, Error> {
        let name = storage.describe(file);
        let bad = |m: String| Error::damaged(name.clone(), m);
        let len = storage
            .size(file)
            .map_err(|e| Error::io(name.clone(), "read", e))?
            .ok_or_else(|| Error::Missing { file: name.clone() })?;
        if len < 12 {
            return Err(bad(format!(
                "{len} bytes, too short for a tier file (truncated?)"
            )));
        }
        let mut h = [0u8; HEADER as usize];
        // An older version's header may be shorter: its first 12 bytes say which it is.
        let got = len.min(HEADER) as usize;
        storage
            .read_at(file, 0, &mut h[..got])
            .map_err(|e| Error::io(name.clone(), "read", e))?;
        if &h[..6] != b"RGTIER" {
            return Err(bad("not a retrograde tier file (bad magic)".into()));
        }
        let u32_at = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().expect("4 bytes"));
        let version = u32_at(8);
        if !(OLDEST..=VERSION).contains(&version) {
            return Err(bad(format!(
                "format version {version}, this build reads versions {OLDEST} to {VERSION} (solve again to rewrite it)"
            )));
        }
        let header = header_bytes(version);
        if len < header + TAIL {
            return Err(bad(format!(
                "{len} bytes, too short for a tier file (truncated?)"
            )));
        }
        if h[..8] != magic(version) {
            return Err(bad("not a retrograde tier file (bad magic)".into()));
        }
        let crc_at = header as usize - 4;
        if crc32fast::hash(&h[..crc_at]) != u32_at(crc_at) {
            return Err(bad("header checksum mismatch".into()));
        }
        let id = Identity(h[120..136].try_into().expect("16 bytes"));
        if id != storage.identity() {
            return Err(bad(format!(
                "written by another solve (database identity {}, this database's is {})",
                id.short(),
                storage.identity().short()
            )));
        }
        let text = |r: std::ops::Range<usize>| {
            let b = &h[r];
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            String::from_utf8_lossy(&b[..end]).into_owned()
        };
        let (game, tier) = (text(40..80), text(80..120));
        if game != expect.game {
            return Err(bad(format!(
                "holds {game:?}, this database is {:?}",
                expect.game
            )));
        }
        if version >= 6 {
            let facts = Facts {
                layout: text(140..156),
                cell_bytes: u32_at(156),
                params: u32_at(160),
            };
            if let Some(d) = facts.differs(&storage.facts(), &storage.describe(META)) {
                return Err(bad(d));
            }
            if h[164..172] != [0; 8] {
                return Err(bad("the header's reserved bytes are not zero".into()));
            }
        }
        let (kind, elem, codec) = (u32_at(12), u32_at(16), u32_at(20));
        let elem_ok = match expect.elem {
            0 => matches!(elem, 1 | 2 | 4),
            e => elem == e,
        };
        if tier != expect.tier || kind != expect.kind as u32 || !elem_ok {
            return Err(bad(format!(
                "holds tier {tier:?} kind {kind} ({elem}-byte elements), expected tier {:?} kind {} ({}-byte elements)",
                expect.tier, expect.kind as u32, expect.elem
            )));
        }
        if codec > 3
            || (codec == 2 && kind != Kind::Keys as u32)
            || (codec == 3 && (kind != Kind::Values as u32 || elem == 1))
        {
            return Err(bad(format!("unknown codec {codec}")));
        }
        let count = u64::from_le_bytes(h[24..32].try_into().expect("8 bytes"));
        let block_elems = u32_at(32);
        if block_elems == 0 || block_elems > 1 << 24 {
            return Err(bad(format!("{block_elems} elements per block")));
        }
        let nblocks = count.div_ceil(u64::from(block_elems));
        let (d0, dn) = (u64::from(u32_at(36)), u64::from(u32_at(136)));
        if dn > 0 && (kind != Kind::Values as u32 || d0 + dn > nblocks) {
            return Err(bad(format!(
                "derives blocks {d0} to {} of {nblocks} blocks of {}",
                d0 + dn,
                if kind == Kind::Values as u32 {
                    "values"
                } else {
                    "keys"
                }
            )));
        }
        let derived = d0 as usize..(d0 + dn) as usize;
        let index_at = nblocks
            .checked_mul(ENTRY)
            .and_then(|i| len.checked_sub(TAIL + i))
            .filter(|&at| at >= header)
            .ok_or_else(|| {
                bad(format!(
                    "{len} bytes cannot hold the index of {count} elements (truncated?)"
                ))
            })?;
        Ok(Reader {
            file: file.to_string(),
            name,
            kind,
            elem,
            codec,
            count,
            block_elems,
            nblocks: nblocks as usize,
            blocks_at: header,
            index_at,
            blocks: None,
            derived,
        })
    }

    /// An error naming the file: `m` says what is wrong.
    fn bad(&self, m: String) -> Error {
        Error::damaged(self.name.clone(), m)
    }

    /// Checks the 16 bytes after the index (its checksum is the caller's).
    fn check_tail(&self, tail: &[u8]) -> Result<(), Error> {
        if &tail[8..] != END {
            return Err(self.bad("no end marker (truncated?)".into()));
        }
        if tail[4..8] != [0; 4] {
            return Err(self.bad("the index's tail is not as written".into()));
        }
        Ok(())
    }

    /// Block `b`'s entry from its 32 bytes, checked on its own: in the file, its count
    /// possible, a left-out block empty, a raw block as long as its elements.
    fn entry_from(&self, b: usize, e: &[u8]) -> Result<Entry, Error> {
        let off = u64::from_le_bytes(e[..8].try_into().expect("8"));
        let stored = u32::from_le_bytes(e[8..12].try_into().expect("4"));
        let crc = u32::from_le_bytes(e[12..16].try_into().expect("4"));
        let n = u64::from_le_bytes(e[16..24].try_into().expect("8"));
        let first = u64::from_le_bytes(e[24..32].try_into().expect("8"));
        let per = u64::from(self.block_elems);
        let span = (self.count - b as u64 * per).min(per);
        // Keys fill their blocks; values hold at most one cell per number.
        let n_ok = if self.kind == Kind::Keys as u32 {
            n == span
        } else {
            n <= span
        };
        let left_out = self.derived.contains(&b);
        let inside = off >= self.blocks_at
            && off
                .checked_add(u64::from(stored))
                .is_some_and(|end| end <= self.index_at);
        if !inside
            || !n_ok
            || (left_out && (stored != 0 || crc != 0))
            || (!left_out && self.codec == 0 && u64::from(stored) != n * u64::from(self.elem))
        {
            return Err(self.bad(format!("block {b} is out of place")));
        }
        Ok((off, stored, crc, n, first))
    }

    /// Reads the whole index and checks it: its tail, its checksum, and every entry, each
    /// block right after the one before, the last right before the index.
    fn read_index(&self, storage: &dyn Storage) -> Result<Vec<Entry>, Error> {
        let mut index = vec![0u8; (self.nblocks as u64 * ENTRY + TAIL) as usize];
        storage
            .read_at(&self.file, self.index_at, &mut index)
            .map_err(|e| Error::io(self.name.clone(), "read", e))?;
        let (entries, tail) = index.split_at(index.len() - TAIL as usize);
        self.check_tail(tail)?;
        if crc32fast::hash(entries) != u32::from_le_bytes(tail[..4].try_into().expect("4")) {
            return Err(self.bad("index checksum mismatch".into()));
        }
        let mut blocks = Vec::with_capacity(self.nblocks);
        let mut expect_at = self.blocks_at;
        for (b, e) in entries.chunks_exact(ENTRY as usize).enumerate() {
            let entry = self.entry_from(b, e)?;
            if entry.0 != expect_at {
                return Err(self.bad(format!("block {b} is out of place")));
            }
            expect_at += u64::from(entry.1);
            blocks.push(entry);
        }
        if expect_at != self.index_at {
            return Err(self.bad("the blocks do not fill the file".into()));
        }
        Ok(blocks)
    }

    /// Block `b`'s entry: from the index read at open, else read from the file and
    /// checked.
    fn entry(&self, storage: &dyn Storage, b: usize) -> Result<Entry, Error> {
        if b >= self.nblocks {
            return Err(Error::Unsupported(format!(
                "{}: block {b} asked of {} blocks",
                self.name, self.nblocks
            )));
        }
        if let Some(blocks) = &self.blocks {
            return Ok(blocks[b]);
        }
        let mut e = [0u8; ENTRY as usize];
        storage
            .read_at(&self.file, self.index_at + b as u64 * ENTRY, &mut e)
            .map_err(|e| Error::io(self.name.clone(), "read", e))?;
        self.entry_from(b, &e)
    }

    /// Every entry: the index read at open, else read whole now (and checked whole).
    fn whole(&self, storage: &dyn Storage) -> Result<std::borrow::Cow<'_, [Entry]>, Error> {
        Ok(match &self.blocks {
            Some(blocks) => std::borrow::Cow::Borrowed(blocks),
            None => std::borrow::Cow::Owned(self.read_index(storage)?),
        })
    }

    /// The blocks left out of a compact file, whose numbers are derived from their moves
    /// (empty for a file that keeps every block).
    pub fn derived(&self) -> std::ops::Range<usize> {
        self.derived.clone()
    }

    /// Whether number `i` of a values file is derived from its moves (its block is left
    /// out).
    pub fn is_derived(&self, i: u64) -> bool {
        !self.derived.is_empty()
            && self
                .derived
                .contains(&((i / u64::from(self.block_elems)) as usize))
    }

    /// Keys in the file, or numbers its values cover.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Bytes per element.
    pub fn elem(&self) -> u32 {
        self.elem
    }

    /// Elements per block.
    pub fn block_elems(&self) -> u32 {
        self.block_elems
    }

    /// Blocks in the file.
    pub fn blocks(&self) -> usize {
        self.nblocks
    }

    /// The first element of every block (for keys: where to look for a key), of a file
    /// whose index was read at open (a keys file's always is; none of a values file
    /// opened by [`Reader::open_lazy`]).
    pub fn firsts(&self) -> impl Iterator<Item = u64> + '_ {
        self.read_at_open().iter().map(|b| b.4)
    }

    /// The block where `key` would be in a keys file: the last whose first key is at most
    /// `key` (`None` when `key` is below every key).
    pub fn block_of(&self, key: u64) -> Option<usize> {
        let blocks = self.read_at_open();
        blocks.partition_point(|b| b.4 <= key).checked_sub(1)
    }

    /// The index as read at open (none when opened lazily).
    fn read_at_open(&self) -> &[Entry] {
        self.blocks.as_deref().unwrap_or_default()
    }

    /// The file, as the storage names it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's name in its storage.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Reads block `b` into `dst` (its exact size), checking it.
    ///
    /// # Errors
    /// [`Error::Damaged`] when the checksum or the length does not hold.
    fn block_into(
        &self,
        storage: &dyn Storage,
        b: usize,
        (off, stored, crc, _, _): Entry,
        dst: &mut [u8],
    ) -> Result<(), Error> {
        if self.derived.contains(&b) {
            return Err(Error::Unsupported(format!(
                "{} is compact: block {b} is left out, its values are derived from their moves and it cannot be read whole",
                self.name
            )));
        }
        let bad = |m: String| Error::damaged(self.name.clone(), m);
        let io = |e| Error::io(self.name.clone(), "read", e);
        if self.codec == 0 {
            storage.read_at(&self.file, off, dst).map_err(io)?;
            if crc32fast::hash(dst) != crc {
                return Err(bad(format!("block {b} checksum mismatch")));
            }
            return Ok(());
        }
        let mut buf = vec![0u8; stored as usize];
        storage.read_at(&self.file, off, &mut buf).map_err(io)?;
        if crc32fast::hash(&buf) != crc {
            return Err(bad(format!("block {b} checksum mismatch")));
        }
        if self.codec == 2 {
            // A varint is at most 10 bytes.
            let n = dst.len() / self.elem as usize;
            let gaps = zstd::bulk::decompress(&buf, n * 10)
                .map_err(|_| bad(format!("block {b} does not decompress")))?;
            return delta_decode(&gaps, self.elem as usize, dst)
                .map_err(|m| bad(format!("block {b}: {m}")));
        }
        if self.codec == 3 {
            let e = self.elem as usize;
            let n = dst.len() / e;
            // The larger of the two ways a block can be written.
            let mut payload = vec![0u8; (1 + n * e).max(2 + 256 * e + n)];
            let got = unzstd(&buf, &mut payload)
                .map_err(|_| bad(format!("block {b} does not decompress")))?;
            return dict_decode(&payload[..got], e, dst)
                .map_err(|m| bad(format!("block {b}: {m}")));
        }
        match unzstd(&buf, dst) {
            Ok(n) if n == dst.len() => Ok(()),
            _ => Err(bad(format!(
                "block {b} does not decompress to {} bytes",
                dst.len()
            ))),
        }
    }

    /// Checks every stored block's checksum (in parallel), without decoding any: with
    /// [`Reader::open`]'s checks of the header, the index and the lengths, what a file that
    /// is whole takes to be trusted, at the cost of reading it.
    ///
    /// # Errors
    /// [`Error::Damaged`] naming the first block found whose checksum does not hold.
    pub fn check_blocks(&self, storage: &dyn Storage) -> Result<(), Error> {
        let blocks = self.whole(storage)?;
        (0..blocks.len())
            .into_par_iter()
            .filter(|b| !self.derived.contains(b))
            .try_for_each_init(Vec::new, |buf, b| {
                let (off, stored, crc, _, _) = blocks[b];
                buf.resize(stored as usize, 0);
                storage
                    .read_at(&self.file, off, buf)
                    .map_err(|e| Error::io(self.name.clone(), "read", e))?;
                if crc32fast::hash(buf) != crc {
                    return Err(Error::damaged(
                        self.name.clone(),
                        format!("block {b} checksum mismatch"),
                    ));
                }
                Ok(())
            })
    }

    /// Reads block `b`, checks it, and returns its elements' bytes.
    ///
    /// # Errors
    /// [`Error::Damaged`] when the checksum or the length does not hold.
    pub fn block(&self, storage: &dyn Storage, b: usize) -> Result<Vec<u8>, Error> {
        let entry = self.entry(storage, b)?;
        let mut out = vec![0u8; (entry.3 * u64::from(self.elem)) as usize];
        self.block_into(storage, b, entry, &mut out)?;
        Ok(out)
    }

    /// Reads and checks every block (in parallel) into `out` (cleared first): the stored
    /// elements, one block after the other.
    ///
    /// # Errors
    /// As [`Reader::block`].
    pub fn read_all(&self, storage: &dyn Storage, out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        let blocks = self.whole(storage)?;
        let total = stored(&blocks) as usize * self.elem as usize;
        out.try_reserve_exact(total).map_err(|_| Error::Memory {
            what: format!("reading {}", self.name),
            needed: total as u64,
            limit: 0,
        })?;
        out.resize(total, 0);
        self.fill(storage, &blocks, out)
    }

    /// Reads every block of `blocks`, the index, (in parallel) into `dst`, the whole
    /// payload's size.
    fn fill(&self, storage: &dyn Storage, blocks: &[Entry], dst: &mut [u8]) -> Result<(), Error> {
        let e = self.elem as usize;
        let mut parts = Vec::with_capacity(blocks.len());
        let mut rest = dst;
        for blk in blocks {
            let (head, tail) = rest.split_at_mut(blk.3 as usize * e);
            parts.push(head);
            rest = tail;
        }
        parts
            .into_par_iter()
            .enumerate()
            .try_for_each(|(b, d)| self.block_into(storage, b, blocks[b], d))
    }

    /// Reads the whole file as elements of `T` (of the file's element size), checked, with
    /// no copy beyond the one into the result.
    ///
    /// # Errors
    /// As [`Reader::block`]; an element size that is not `T`'s.
    pub fn read_elems<T: bytemuck::Pod>(&self, storage: &dyn Storage) -> Result<Vec<T>, Error> {
        if std::mem::size_of::<T>() != self.elem as usize {
            return Err(Error::damaged(
                self.name.clone(),
                format!(
                    "{}-byte elements, expected {}",
                    self.elem,
                    std::mem::size_of::<T>()
                ),
            ));
        }
        let blocks = self.whole(storage)?;
        let n = stored(&blocks);
        let mut v: Vec<T> = Vec::new();
        v.try_reserve_exact(n as usize).map_err(|_| Error::Memory {
            what: format!("reading {}", self.name),
            needed: n * u64::from(self.elem),
            limit: 0,
        })?;
        v.resize(n as usize, T::zeroed());
        self.fill(storage, &blocks, bytemuck::cast_slice_mut(&mut v))?;
        #[cfg(target_endian = "big")]
        from_le_in_place(bytemuck::cast_slice_mut(&mut v), self.elem as usize);
        Ok(v)
    }
}

/// Elements stored in the blocks of `index`.
fn stored(index: &[Entry]) -> u64 {
    index.iter().map(|b| b.3).sum()
}

/// Appends a block's index entry: offset, stored length, CRC-32, elements, first element.
fn push_entry(index: &mut Vec<u8>, (offset, stored, crc, n, first): (u64, u32, u32, u64, u64)) {
    index.extend_from_slice(&offset.to_le_bytes());
    index.extend_from_slice(&stored.to_le_bytes());
    index.extend_from_slice(&crc.to_le_bytes());
    index.extend_from_slice(&n.to_le_bytes());
    index.extend_from_slice(&first.to_le_bytes());
}

/// What [`compact_values`] did to a values file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Compacted {
    /// The file's bytes before.
    pub before: u64,
    /// Its bytes after.
    pub after: u64,
}

/// Makes a values file of two *sides* (numbers below `split`, and from it) compact: the
/// blocks wholly inside the side whose blocks take more bytes are left out (their numbers
/// derived from their moves, see the module's notes), the others copied as they are (not
/// decompressed). Written to a new file, then renamed over the old one, so an interruption
/// leaves one or the other. `None` when there is nothing to leave out: a file already
/// compact, or sides too small to hold a whole block.
///
/// # Errors
/// As [`Reader::open`] and [`Reader::block`] (every kept block is checked as it is
/// copied), or a storage that fails.
pub fn compact_values(
    storage: &dyn Storage,
    file: &str,
    expect: &Header,
    split: u64,
) -> Result<Option<Compacted>, Error> {
    let r = Reader::open(storage, file, expect)?;
    if !r.derived.is_empty() || expect.kind != Kind::Values || split == 0 || split >= r.count {
        return Ok(None);
    }
    let per = u64::from(r.block_elems);
    let blocks = r.whole(storage)?;
    let nb = blocks.len();
    // Blocks wholly below the split, and wholly from it.
    let low = 0..(split / per) as usize;
    let high = (split.div_ceil(per) as usize).min(nb)..nb;
    let bytes = |b: &std::ops::Range<usize>| -> u64 {
        blocks[b.clone()].iter().map(|e| u64::from(e.1)).sum()
    };
    let drop = if bytes(&high) >= bytes(&low) {
        high
    } else {
        low
    };
    if drop.is_empty() {
        return Ok(None);
    }
    let io_r = |e| Error::io(r.name.clone(), "read", e);
    let io_w = |e| Error::io(r.name.clone(), "write", e);
    let before = storage.size(file).map_err(io_r)?.unwrap_or(0);
    // The header as it is (of the file's version), but for the blocks left out.
    let mut h = vec![0u8; r.blocks_at as usize];
    storage.read_at(file, 0, &mut h).map_err(io_r)?;
    h[36..40].copy_from_slice(&(drop.start as u32).to_le_bytes());
    h[136..140].copy_from_slice(&(drop.len() as u32).to_le_bytes());
    seal(&mut h);
    let mut out = storage.create(file).map_err(io_w)?;
    out.write_all(&h).map_err(io_w)?;
    let mut index: Vec<u8> = Vec::with_capacity(nb * ENTRY as usize);
    let mut offset = r.blocks_at;
    let mut buf = Vec::new();
    for (b, &(off, stored, crc, n, first)) in blocks.iter().enumerate() {
        let keep = !drop.contains(&b);
        let (stored, crc) = if keep { (stored, crc) } else { (0, 0) };
        if keep {
            buf.resize(stored as usize, 0);
            storage.read_at(file, off, &mut buf).map_err(io_r)?;
            if crc32fast::hash(&buf) != crc {
                return Err(Error::damaged(
                    r.name.clone(),
                    format!("block {b} checksum mismatch"),
                ));
            }
            out.write_all(&buf).map_err(io_w)?;
        }
        push_entry(&mut index, (offset, stored, crc, n, first));
        offset += u64::from(stored);
    }
    out.write_all(&index).map_err(io_w)?;
    let mut tail = [0u8; TAIL as usize];
    tail[..4].copy_from_slice(&crc32fast::hash(&index).to_le_bytes());
    tail[8..].copy_from_slice(END);
    out.write_all(&tail).map_err(io_w)?;
    out.commit().map_err(io_w)?;
    Ok(Some(Compacted {
        before,
        after: offset + index.len() as u64 + TAIL,
    }))
}

/// Decompresses `src` into `dst`, returning the bytes written, with a decompression
/// context per thread, made once: making one is a good part of the cost of decompressing a
/// small block.
fn unzstd(src: &[u8], dst: &mut [u8]) -> std::io::Result<usize> {
    thread_local! {
        static UNZSTD: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    UNZSTD.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = Some(zstd::bulk::Decompressor::new()?);
        }
        d.as_mut()
            .expect("made above")
            .decompress_to_buffer(src, dst)
    })
}

/// A block of value cells (`elem` bytes each) through a dictionary of its distinct cells
/// (codec 3, see the module's notes): `1, k - 1, the k cells, a byte a cell`, or `0, the
/// cells` when there are more than 256 distinct ones.
fn dict_encode(raw: &[u8], elem: usize) -> Vec<u8> {
    // Open addressing over the cells seen, codes numbered from 1 (0: an empty slot).
    const SLOTS: usize = 1024;
    let mut keys = [0u32; SLOTS];
    let mut codes = [0u16; SLOTS];
    let mut dict: Vec<u32> = Vec::with_capacity(256);
    let mut out = Vec::with_capacity(2 + 256 * elem + raw.len() / elem);
    out.extend_from_slice(&[1, 0]);
    out.resize(2 + 256 * elem, 0);
    let mut last: Option<(u32, u8)> = None;
    for c in raw.chunks_exact(elem) {
        let mut w = [0u8; 4];
        w[..elem].copy_from_slice(c);
        let v = u32::from_le_bytes(w);
        if let Some((_, lc)) = last.filter(|l| l.0 == v) {
            out.push(lc);
            continue;
        }
        let mut h = (v.wrapping_mul(0x9E37_79B1) >> 22) as usize;
        let code = loop {
            if codes[h] == 0 {
                if dict.len() == 256 {
                    // Too many distinct cells: the block as it is.
                    let mut plain = Vec::with_capacity(1 + raw.len());
                    plain.push(0);
                    plain.extend_from_slice(raw);
                    return plain;
                }
                dict.push(v);
                codes[h] = dict.len() as u16;
                keys[h] = v;
                break (dict.len() - 1) as u8;
            }
            if keys[h] == v {
                break (codes[h] - 1) as u8;
            }
            h = (h + 1) % SLOTS;
        };
        last = Some((v, code));
        out.push(code);
    }
    if dict.is_empty() {
        return vec![0];
    }
    out[1] = (dict.len() - 1) as u8;
    for (i, v) in dict.iter().enumerate() {
        out[2 + i * elem..2 + (i + 1) * elem].copy_from_slice(&v.to_le_bytes()[..elem]);
    }
    // The dictionary's unused places go.
    out.drain(2 + dict.len() * elem..2 + 256 * elem);
    out
}

/// The inverse of [`dict_encode`] into `dst` (exactly its cells): every code must be in
/// the dictionary, and the payload exactly the block.
fn dict_decode(payload: &[u8], elem: usize, dst: &mut [u8]) -> Result<(), String> {
    match payload.split_first() {
        Some((0, cells)) if cells.len() == dst.len() => {
            dst.copy_from_slice(cells);
            Ok(())
        }
        Some((1, rest)) if !rest.is_empty() => {
            let k = usize::from(rest[0]) + 1;
            let (dict, codes) = rest[1..]
                .split_at_checked(k * elem)
                .ok_or("the dictionary is cut short")?;
            if codes.len() * elem != dst.len() {
                return Err(format!(
                    "{} cells, expected {}",
                    codes.len(),
                    dst.len() / elem
                ));
            }
            // Checked first, so that the copy below has no exit (one-byte cells: a load).
            if let Some(&c) = codes.iter().find(|&&c| usize::from(c) >= k) {
                return Err(format!("cell code {c} beyond a dictionary of {k}"));
            }
            match elem {
                1 => spread::<1>(dict, codes, dst),
                2 => spread::<2>(dict, codes, dst),
                4 => spread::<4>(dict, codes, dst),
                _ => return Err(format!("{elem}-byte cells")),
            }
            Ok(())
        }
        _ => Err("not a block of cells".into()),
    }
}

/// Writes the cell of each code of `codes` (each within the dictionary `dict` of cells
/// of `E` bytes) to `dst`: cells of a size the compiler knows are copied as one load and
/// store, not as a call to copy a slice.
fn spread<const E: usize>(dict: &[u8], codes: &[u8], dst: &mut [u8]) {
    let mut cells = [[0u8; E]; 256];
    for (cell, d) in cells.iter_mut().zip(dict.chunks_exact(E)) {
        cell.copy_from_slice(d);
    }
    for (&c, out) in codes.iter().zip(dst.chunks_exact_mut(E)) {
        out.copy_from_slice(&cells[usize::from(c)]);
    }
}

/// Sorted keys (`elem` bytes each, little-endian) as varints: the first key, then the gap
/// to each next one.
fn delta_encode(raw: &[u8], elem: usize) -> Vec<u8> {
    // Most gaps take one byte; a varint takes at most ten.
    let mut out = Vec::with_capacity(raw.len() / elem + 16);
    let mut prev = 0u64;
    let mut put = |k: u64| {
        let mut d = k.wrapping_sub(prev);
        prev = k;
        while d >= 0x80 {
            out.push((d & 0x7f) as u8 | 0x80);
            d >>= 7;
        }
        out.push(d as u8);
    };
    match elem {
        4 => raw
            .chunks_exact(4)
            .for_each(|c| put(u64::from(u32::from_le_bytes(c.try_into().expect("4"))))),
        8 => raw
            .chunks_exact(8)
            .for_each(|c| put(u64::from_le_bytes(c.try_into().expect("8")))),
        _ => raw.chunks_exact(elem).for_each(|c| {
            let mut w = [0u8; 8];
            w[..elem].copy_from_slice(c);
            put(u64::from_le_bytes(w))
        }),
    }
    out
}

/// The inverse of [`delta_encode`] into `dst` (exactly its keys): every key must be
/// greater than the one before and fit in `elem` bytes, and the varints must fill `gaps`.
fn delta_decode(gaps: &[u8], elem: usize, dst: &mut [u8]) -> Result<(), String> {
    let max = if elem == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * elem)) - 1
    };
    let mut at = 0usize;
    let mut prev: Option<u64> = None;
    for out in dst.chunks_exact_mut(elem) {
        let mut d = 0u64;
        let mut shift = 0u32;
        loop {
            let &byte = gaps.get(at).ok_or("fewer keys than its index says")?;
            at += 1;
            if shift > 63 || (shift == 63 && byte & 0x7e != 0) {
                return Err("a gap overflows".into());
            }
            d |= u64::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        let k = match prev {
            None => d,
            Some(p) if d > 0 => p.checked_add(d).ok_or("a key overflows")?,
            Some(_) => return Err("keys out of order".into()),
        };
        if k > max {
            return Err(format!("a key wider than {elem} bytes"));
        }
        prev = Some(k);
        out.copy_from_slice(&k.to_le_bytes()[..elem]);
    }
    if at != gaps.len() {
        return Err("more keys than its index says".into());
    }
    Ok(())
}

/// A tier file's bytes without what names its database (the identity, and the header CRC
/// over it): equal for two files exactly when they hold the same thing, whichever solves
/// wrote them. For comparing databases (a distributed solve's with one process's).
pub fn content(bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let version = b
        .get(8..12)
        .map(|v| u32::from_le_bytes(v.try_into().expect("4")));
    let header = header_bytes(version.unwrap_or(VERSION)) as usize;
    if b.len() >= header {
        b[120..136].fill(0);
        b[header - 4..header].fill(0);
    }
    b
}

/// Elements as little-endian bytes: the memory itself on little-endian machines.
pub fn le_bytes<T: bytemuck::Pod>(v: &[T]) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(target_endian = "little")]
    {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(v))
    }
    #[cfg(target_endian = "big")]
    {
        let mut b = bytemuck::cast_slice(v).to_vec();
        from_le_in_place(&mut b, std::mem::size_of::<T>());
        std::borrow::Cow::Owned(b)
    }
}

#[cfg(target_endian = "big")]
fn from_le_in_place(b: &mut [u8], elem: usize) {
    for c in b.chunks_exact_mut(elem) {
        c.reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::identity::Identified;
    use crate::store::storage::MemStorage;

    fn header() -> Header {
        Header {
            game: "test".into(),
            tier: "07".into(),
            kind: Kind::Values,
            elem: 2,
        }
    }

    /// Flips each byte of file `f` in turn, calling `check(i)` with byte `i` flipped, and
    /// puts the file back.
    fn each_byte_flipped(s: &MemStorage, f: &str, mut check: impl FnMut(usize)) {
        let bytes = s.get(f).unwrap();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x41;
            s.put(f, b);
            check(i);
        }
        s.put(f, bytes);
    }

    #[test]
    fn round_trip_and_every_damage() {
        // Few distinct cells in most blocks, more than 256 in one (block 5).
        let data: Vec<u8> = (0..2000u32)
            .flat_map(|i| (if i < 1500 { i % 7 } else { i } as u16).to_le_bytes())
            .collect();
        for codec in [Codec::Raw, Codec::Zstd(3), Codec::Cells] {
            let s = MemStorage::new();
            write(&s, "f", &header(), &data, codec, 300).unwrap();
            let r = Reader::open(&s, "f", &header()).unwrap();
            assert_eq!((r.count(), r.blocks()), (2000, 7));
            let mut got = Vec::new();
            r.read_all(&s, &mut got).unwrap();
            assert_eq!(got, data);
            assert_eq!(r.block(&s, 6).unwrap().len(), 200 * 2);
            let firsts: Vec<u64> = r.firsts().collect();
            assert_eq!(firsts[1], 300 % 7);

            // Every byte flipped: an error, never a different payload.
            let bytes = s.get("f").unwrap();
            each_byte_flipped(&s, "f", |i| {
                let res = Reader::open(&s, "f", &header()).and_then(|r| {
                    let mut got = Vec::new();
                    r.read_all(&s, &mut got).map(|_| got)
                });
                match res {
                    Ok(got) => assert_eq!(got, data, "byte {i} flipped went unnoticed"),
                    Err(e) => assert!(e.to_string().contains("memory:f"), "{e}"),
                }
            });
            // Opened lazily, block by block: an error, never a different block.
            each_byte_flipped(&s, "f", |i| {
                let Ok(r) = Reader::open_lazy(&s, "f", &header()) else {
                    return;
                };
                for b in 0..r.blocks() {
                    match r.block(&s, b) {
                        Ok(got) => assert_eq!(
                            got,
                            data[b * 600..(b * 600 + 600).min(4000)],
                            "byte {i} flipped, block {b}"
                        ),
                        Err(e) => assert!(e.to_string().contains("memory:f"), "{e}"),
                    }
                }
                if let Ok(got) = r.read_elems::<u16>(&s) {
                    assert_eq!(
                        bytemuck::cast_slice::<u16, u8>(&got),
                        data,
                        "byte {i} flipped"
                    );
                }
            });
            // Every truncation.
            for n in 0..bytes.len() {
                s.put("f", bytes[..n].to_vec());
                assert!(Reader::open(&s, "f", &header()).is_err(), "cut at {n}");
                assert!(Reader::open_lazy(&s, "f", &header()).is_err(), "cut at {n}");
            }
            s.put("f", bytes);
        }
        let s = MemStorage::new();
        assert!(matches!(
            Reader::open(&s, "none", &header()),
            Err(Error::Missing { .. })
        ));
        write(&s, "f", &header(), &data, Codec::Raw, 300).unwrap();
        let mut other = header();
        other.tier = "08".into();
        let e = Reader::open(&s, "f", &other).unwrap_err();
        assert!(e.to_string().contains("\"07\""), "{e}");
        other = header();
        other.game = "other".into();
        assert!(Reader::open(&s, "f", &other).is_err());
    }

    /// A lazy open reads the index entry of each block it reads: a damaged entry of block
    /// 3 is an error when block 3 is read, not before, and not when others are; opened
    /// whole, the file is refused at once. A block past the last is an error.
    #[test]
    fn a_lazy_open_reads_the_entries_of_the_blocks_it_reads() {
        let data: Vec<u8> = (0..2000u32)
            .flat_map(|i| ((i % 5) as u16).to_le_bytes())
            .collect();
        let s = MemStorage::new();
        write(&s, "f", &header(), &data, Codec::Cells, 300).unwrap();
        let mut bytes = s.get("f").unwrap();
        let entry3 = bytes.len() - TAIL as usize - (7 - 3) * ENTRY as usize;
        bytes[entry3 + 12] ^= 1; // block 3's checksum
        s.put("f", bytes);
        let e = Reader::open(&s, "f", &header()).unwrap_err();
        assert!(e.to_string().contains("index checksum"), "{e}");
        let r = Reader::open_lazy(&s, "f", &header()).unwrap();
        assert_eq!((r.count(), r.blocks(), r.firsts().count()), (2000, 7, 0));
        for b in [0, 1, 2, 4, 5, 6] {
            let want = &data[b * 600..(b * 600 + 600).min(4000)];
            assert_eq!(r.block(&s, b).unwrap(), want, "block {b}");
        }
        let e = r.block(&s, 3).unwrap_err();
        assert!(e.to_string().contains("block 3 checksum mismatch"), "{e}");
        // A whole read checks the whole index.
        let e = r.read_elems::<u16>(&s).unwrap_err();
        assert!(e.to_string().contains("index checksum"), "{e}");
        assert!(r.block(&s, 7).is_err());
    }

    /// A compact file leaves out the blocks wholly inside the side that takes more bytes,
    /// reads the others as before, says which numbers are derived, refuses to read a
    /// left-out block, and every damage to it is still an error.
    #[test]
    fn compact_files_leave_out_one_side_and_every_damage_is_seen() {
        // 2000 numbers in blocks of 300: side 0 below 1000 (blocks 0 to 2 wholly), side 1
        // from it (blocks 4 to 6 wholly), block 3 across. Side 1 is the costlier.
        let data: Vec<u8> = (0..2000u32)
            .flat_map(|i| (if i < 1000 { 5 } else { i * 7919 % 4001 } as u16).to_le_bytes())
            .collect();
        for codec in [Codec::Zstd(3), Codec::Cells] {
            let s = MemStorage::new();
            write(&s, "f", &header(), &data, codec, 300).unwrap();
            let before = s.get("f").unwrap().len() as u64;
            let c = compact_values(&s, "f", &header(), 1000).unwrap().unwrap();
            assert_eq!(c.before, before);
            assert_eq!(c.after, s.get("f").unwrap().len() as u64);
            assert!(c.after < before);
            let r = Reader::open(&s, "f", &header()).unwrap();
            assert_eq!((r.count(), r.blocks(), r.derived()), (2000, 7, 4..7));
            assert!(!r.is_derived(1199) && r.is_derived(1200) && r.is_derived(1999));
            for b in 0..4 {
                assert_eq!(r.block(&s, b).unwrap(), data[b * 600..(b + 1) * 600]);
            }
            let e = r.block(&s, 5).unwrap_err();
            assert!(
                matches!(&e, Error::Unsupported(m) if m.contains("compact")),
                "{e}"
            );
            // Compact already: nothing more to leave out.
            assert_eq!(compact_values(&s, "f", &header(), 1000).unwrap(), None);
            // Every byte flipped: an error, or the same kept blocks (opened whole or
            // lazily).
            type Open = fn(&dyn Storage, &str, &Header) -> Result<Reader, Error>;
            for open in [Reader::open as Open, Reader::open_lazy] {
                each_byte_flipped(&s, "f", |i| {
                    let res = open(&s, "f", &header()).and_then(|r| {
                        let kept: Result<Vec<Vec<u8>>, Error> =
                            (0..4).map(|b| r.block(&s, b)).collect();
                        Ok((kept?, r.derived()))
                    });
                    match res {
                        Ok((kept, d)) => {
                            assert_eq!(kept.concat(), data[..2400], "byte {i} flipped");
                            assert_eq!(d, 4..7, "byte {i} flipped");
                        }
                        Err(e) => assert!(e.to_string().contains("memory:f"), "{e}"),
                    }
                });
            }
        }
        // The side below the costlier: it is the one left out.
        let low_costly: Vec<u8> = (0..2000u32)
            .flat_map(|i| (if i >= 1000 { 5 } else { i * 7919 % 4001 } as u16).to_le_bytes())
            .collect();
        let s = MemStorage::new();
        write(&s, "f", &header(), &low_costly, Codec::Cells, 300).unwrap();
        compact_values(&s, "f", &header(), 1000).unwrap().unwrap();
        let r = Reader::open(&s, "f", &header()).unwrap();
        assert_eq!(r.derived(), 0..3);
        assert_eq!(r.block(&s, 3).unwrap(), low_costly[1800..2400]);
        // Sides smaller than a block: nothing to leave out.
        write(&s, "g", &header(), &data, Codec::Cells, 2000).unwrap();
        assert_eq!(compact_values(&s, "g", &header(), 1000).unwrap(), None);
        // A split at either end is no split.
        write(&s, "g", &header(), &data, Codec::Cells, 300).unwrap();
        for split in [0, 2000, 2001] {
            assert_eq!(compact_values(&s, "g", &header(), split).unwrap(), None);
        }
        // A header that derives blocks past the end is damaged (its checksum made right).
        let mut b = s.get("f").unwrap();
        b[136..140].copy_from_slice(&9u32.to_le_bytes());
        seal(&mut b[..HEADER as usize]);
        s.put("f", b);
        let e = Reader::open(&s, "f", &header()).unwrap_err();
        assert!(matches!(e, Error::Damaged { .. }), "{e}");
    }

    #[test]
    fn delta_coded_keys_round_trip_and_every_damage() {
        for elem in [4u32, 8] {
            let keys: Vec<u64> = (0..1500u64)
                .map(|i| i * 37 + (i * i % 11) + if elem == 8 { 1 << 40 } else { 0 })
                .collect();
            let data: Vec<u8> = keys
                .iter()
                .flat_map(|&k| k.to_le_bytes()[..elem as usize].to_vec())
                .collect();
            let h = Header {
                game: "test".into(),
                tier: "07".into(),
                kind: Kind::Keys,
                elem,
            };
            let s = MemStorage::new();
            write(&s, "k", &h, &data, Codec::DeltaZstd(3), 256).unwrap();
            let r = Reader::open(&s, "k", &h).unwrap();
            assert_eq!((r.count(), r.blocks()), (1500, 6));
            let firsts: Vec<u64> = r.firsts().collect();
            assert_eq!(firsts[2], keys[512]);
            let mut got = Vec::new();
            r.read_all(&s, &mut got).unwrap();
            assert_eq!(got, data);
            let bytes = s.get("k").unwrap();
            assert!(bytes.len() < data.len() / 2, "{} bytes", bytes.len());
            for i in 0..bytes.len() {
                let mut b = bytes.clone();
                b[i] ^= 0x41;
                s.put("k", b);
                let res = Reader::open(&s, "k", &h).and_then(|r| {
                    let mut got = Vec::new();
                    r.read_all(&s, &mut got).map(|_| got)
                });
                match res {
                    Ok(got) => assert_eq!(got, data, "byte {i} flipped went unnoticed"),
                    Err(e) => assert!(e.to_string().contains("memory:k"), "{e}"),
                }
            }
        }
        // Gaps that do not make increasing keys, or keys too wide: errors.
        let mut dst = [0u8; 8];
        assert!(delta_decode(&[5, 0], 4, &mut dst).is_err());
        assert!(delta_decode(&[5], 4, &mut dst).is_err());
        assert!(delta_decode(&[5, 1, 1], 4, &mut dst).is_err());
        assert!(delta_decode(&[0xff, 0xff, 0xff, 0xff, 0x7f, 1], 4, &mut dst).is_err());
        assert!(delta_decode(&[0xff; 11], 8, &mut dst[..8]).is_err());
        delta_decode(&[5, 1], 4, &mut dst).unwrap();
        assert_eq!(dst, [5, 0, 0, 0, 6, 0, 0, 0]);
    }

    #[test]
    fn wide_cells_go_through_a_dictionary_when_a_block_has_few() {
        // Two- and four-byte cells; blocks of few distinct cells (a dictionary), of more
        // than 256 (as they are), and of exactly 256.
        for elem in [2u32, 4] {
            let h = Header { elem, ..header() };
            let cells: Vec<u32> = (0..3000u32)
                .map(|i| match i / 1000 {
                    0 => (i % 13) * 0x0101 + u32::from(elem == 4) * 0x7000_0000,
                    1 => i * 7,
                    _ => i % 256,
                })
                .collect();
            let data: Vec<u8> = cells
                .iter()
                .flat_map(|c| c.to_le_bytes()[..elem as usize].to_vec())
                .collect();
            let s = MemStorage::new();
            write(&s, "f", &h, &data, Codec::Cells, 1000).unwrap();
            assert_eq!(
                u32::from_le_bytes(s.get("f").unwrap()[20..24].try_into().unwrap()),
                3
            );
            let r = Reader::open(&s, "f", &h).unwrap();
            let mut got = Vec::new();
            r.read_all(&s, &mut got).unwrap();
            assert_eq!(got, data);
            for b in 0..3 {
                let raw = &data[b * 1000 * elem as usize..(b + 1) * 1000 * elem as usize];
                let enc = dict_encode(raw, elem as usize);
                assert_eq!(enc[0], u8::from(b != 1), "block {b}");
                let mut back = vec![0u8; raw.len()];
                dict_decode(&enc, elem as usize, &mut back).unwrap();
                assert_eq!(back, raw);
            }
        }
        // One-byte cells stay plain zstd.
        let h = Header {
            elem: 1,
            ..header()
        };
        let s = MemStorage::new();
        write(&s, "f", &h, &[3u8; 500], Codec::Cells, 100).unwrap();
        assert_eq!(
            u32::from_le_bytes(s.get("f").unwrap()[20..24].try_into().unwrap()),
            1
        );
        // Payloads that are no block: errors, never a panic.
        let mut dst = [0u8; 4];
        for bad in [
            &[][..],
            &[2, 0, 0][..],
            &[0, 1, 2, 3][..],
            &[1][..],
            &[1, 0, 7][..],
            &[1, 0, 7, 0, 0][..],
            &[1, 0, 7, 0, 0, 1][..],
            &[1, 255, 0, 0][..],
        ] {
            assert!(dict_decode(bad, 2, &mut dst).is_err(), "{bad:?}");
        }
        dict_decode(&[1, 0, 7, 0, 0, 0], 2, &mut dst).unwrap();
        assert_eq!(dst, [7, 0, 7, 0]);
    }

    /// The facts of a database, as a storage of it states them.
    fn facts(layout: &str, cell_bytes: u32, params: serde_json::Value) -> Facts {
        Facts::new(layout, cell_bytes, &params)
    }

    /// A file's header carries the facts of the storage that wrote it, and a reader whose
    /// storage states others refuses it, naming the file, what differs and the description;
    /// parameters are the same however their keys are ordered.
    #[test]
    fn the_facts_are_written_and_every_other_is_refused() {
        let data: Vec<u8> = (0..2000u32)
            .flat_map(|i| ((i % 9) as u16).to_le_bytes())
            .collect();
        let mem = MemStorage::new();
        let id = Identity::random();
        let ours = facts(
            "dense",
            2,
            serde_json::json!({"game": "g", "args": {"n": 3}}),
        );
        let st = Identified::borrowed(&mem as &dyn Storage, id, ours.clone());
        write(&st, "f", &header(), &data, Codec::Cells, 300).unwrap();
        let b = mem.get("f").unwrap();
        assert_eq!(&b[140..145], b"dense");
        assert_eq!(b[156], 2);
        assert_eq!(
            u32::from_le_bytes(b[160..164].try_into().unwrap()),
            ours.params
        );
        let read = |told: Facts| -> Result<Vec<u8>, Error> {
            let st = Identified::borrowed(&mem as &dyn Storage, id, told);
            let r = Reader::open_lazy(&st, "f", &header())?;
            let mut got = Vec::new();
            r.read_all(&st, &mut got).map(|_| got)
        };
        assert_eq!(read(ours.clone()).unwrap(), data);
        let reordered = facts(
            "dense",
            2,
            serde_json::json!({"args": {"n": 3}, "game": "g"}),
        );
        assert_eq!(read(reordered).unwrap(), data);
        for (told, says) in [
            (
                facts(
                    "sorted",
                    2,
                    serde_json::json!({"game": "g", "args": {"n": 3}}),
                ),
                "layout \"dense\", but memory:database.json says \"sorted\"",
            ),
            (
                facts(
                    "dense",
                    1,
                    serde_json::json!({"game": "g", "args": {"n": 3}}),
                ),
                "2-byte value cells, but memory:database.json says 1",
            ),
            (
                facts(
                    "dense",
                    2,
                    serde_json::json!({"game": "g", "args": {"n": 4}}),
                ),
                "other parameters than memory:database.json records",
            ),
            (
                Facts::default(),
                "layout \"dense\", but memory:database.json says \"\"",
            ),
        ] {
            let e = read(told).unwrap_err();
            assert!(matches!(e, Error::Damaged { .. }), "{e}");
            let m = e.to_string();
            assert!(
                m.starts_with("memory:f: written for") && m.contains(says),
                "{m}"
            );
        }
        // The reserved bytes are checked too (the header's checksum made right).
        let mut bad = b.clone();
        bad[165] = 1;
        seal(&mut bad[..HEADER as usize]);
        mem.put("f", bad);
        assert!(read(ours.clone())
            .unwrap_err()
            .to_string()
            .contains("reserved"));
        // A layout too long for the header is not written.
        let long = Identified::borrowed(
            &mem as &dyn Storage,
            id,
            facts(&"x".repeat(17), 1, serde_json::json!({})),
        );
        assert!(write(&long, "g", &header(), &data, Codec::Raw, 300).is_err());
    }

    /// `bytes`, a file of this version, as version 5 wrote it: its header without the facts
    /// (140 bytes and the CRC), every block 32 bytes earlier.
    fn as_version_5(bytes: &[u8]) -> Vec<u8> {
        let count = u64::from_le_bytes(bytes[24..32].try_into().unwrap());
        let per = u64::from(u32::from_le_bytes(bytes[32..36].try_into().unwrap()));
        let nb = count.div_ceil(per) as usize;
        let index_at = bytes.len() - TAIL as usize - nb * ENTRY as usize;
        let mut out = bytes[..140].to_vec();
        out[..8].copy_from_slice(b"RGTIER5\0");
        out[8..12].copy_from_slice(&5u32.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        seal(&mut out);
        out.extend_from_slice(&bytes[HEADER as usize..index_at]);
        let shift = HEADER - 144;
        let mut index = bytes[index_at..index_at + nb * ENTRY as usize].to_vec();
        for e in index.chunks_exact_mut(ENTRY as usize) {
            let off = u64::from_le_bytes(e[..8].try_into().unwrap()) - shift;
            e[..8].copy_from_slice(&off.to_le_bytes());
        }
        out.extend_from_slice(&index);
        out.extend_from_slice(&crc32fast::hash(&index).to_le_bytes());
        out.extend_from_slice(&bytes[bytes.len() - 12..]);
        out
    }

    /// A file of version 5 reads as it did (whatever facts the reader's storage states: it
    /// has none to check), is made compact in its own version, and every damage to it is
    /// still an error; other versions are refused, saying to solve again.
    #[test]
    fn files_of_version_5_are_read_as_before() {
        let data: Vec<u8> = (0..2000u32)
            .flat_map(|i| (if i < 1000 { 5 } else { i * 7919 % 4001 } as u16).to_le_bytes())
            .collect();
        let s = MemStorage::new();
        write(&s, "new", &header(), &data, Codec::Cells, 300).unwrap();
        let old = as_version_5(&s.get("new").unwrap());
        s.put("f", old.clone());
        let told = facts("sorted", 4, serde_json::json!({"any": 1}));
        let id = Identified::borrowed(&s as &dyn Storage, Identity::NONE, told);
        for st in [&s as &dyn Storage, &id] {
            for open in [Reader::open, Reader::open_lazy] {
                let r = open(st, "f", &header()).unwrap();
                let mut got = Vec::new();
                r.read_all(st, &mut got).unwrap();
                assert_eq!(got, data);
            }
        }
        each_byte_flipped(&s, "f", |i| {
            let res = Reader::open(&s, "f", &header()).and_then(|r| {
                let mut got = Vec::new();
                r.read_all(&s, &mut got).map(|_| got)
            });
            match res {
                Ok(got) => assert_eq!(got, data, "byte {i} flipped went unnoticed"),
                Err(e) => assert!(e.to_string().contains("memory:f"), "{e}"),
            }
        });
        compact_values(&s, "f", &header(), 1000).unwrap().unwrap();
        let compact = s.get("f").unwrap();
        assert_eq!(&compact[..8], b"RGTIER5\0");
        let r = Reader::open(&s, "f", &header()).unwrap();
        assert_eq!(r.derived(), 4..7);
        assert_eq!(r.block(&s, 2).unwrap(), data[1200..1800]);
        assert_eq!(content(&compact).len(), compact.len());
        for version in [3u32, 4, 7] {
            let mut b = old.clone();
            b[8..12].copy_from_slice(&version.to_le_bytes());
            s.put("f", b);
            let e = Reader::open(&s, "f", &header()).unwrap_err().to_string();
            assert!(
                e.contains(&format!(
                    "format version {version}, this build reads versions 5 to 6 (solve again"
                )),
                "{e}"
            );
        }
    }

    #[test]
    fn empty_file() {
        let s = MemStorage::new();
        write(&s, "f", &header(), &[], Codec::Zstd(1), 300).unwrap();
        let r = Reader::open(&s, "f", &header()).unwrap();
        assert_eq!((r.count(), r.blocks()), (0, 0));
    }
}
