//! The on-disk format of a solved tier: a 64-byte header, then the payload.
//!
//! A tier file holds one array of a tier (its sorted position keys, or their values) so that
//! a long solve can be resumed after an interruption and its results queried later without
//! solving again. Header (little-endian):
//!
//! | bytes  | field                                             |
//! |--------|---------------------------------------------------|
//! | 0..8   | magic `RGTIER\0\0`                                |
//! | 8..12  | format version ([`VERSION`])                      |
//! | 12..16 | kind: 0 keys, 1 values                            |
//! | 16..20 | tier number                                       |
//! | 20..24 | bytes per element                                 |
//! | 24..32 | element count                                     |
//! | 32..36 | CRC-32 (IEEE) of the payload                      |
//! | 36..64 | game tag, UTF-8, zero-padded (e.g. `connect4 5x5`) |
//!
//! A file is written under a temporary name and renamed into place once complete, so a file
//! with the final name is never a partial one; the checksum catches later damage.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The format version written and accepted.
pub const VERSION: u32 = 1;
const MAGIC: &[u8; 8] = b"RGTIER\0\0";
const HEADER: usize = 64;
const TAG: usize = 28;

/// What a tier file holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Sorted position keys.
    Keys = 0,
    /// One value per key.
    Values = 1,
}

/// What a tier file must be to be accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The game and its parameters, e.g. `connect4 5x5` (at most 28 bytes).
    pub tag: String,
    /// Keys or values.
    pub kind: Kind,
    /// The tier number.
    pub tier: u32,
    /// Bytes per element.
    pub elem: u32,
}

/// A tier file that cannot be written or read, or is not what was expected.
#[derive(Debug)]
pub struct TierFileError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for TierFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for TierFileError {}

fn err(path: &Path, message: impl Into<String>) -> TierFileError {
    TierFileError {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// Writes a tier file in chunks; [`TierWriter::finish`] seals it under its final name.
pub struct TierWriter {
    path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    header: Header,
    crc: crc32fast::Hasher,
    bytes: u64,
}

impl TierWriter {
    /// Starts `path` (written as `path.tmp` until finished).
    ///
    /// # Errors
    /// When the file cannot be created or the tag is too long.
    pub fn create(path: &Path, header: Header) -> Result<TierWriter, TierFileError> {
        if header.tag.len() > TAG {
            return Err(err(path, format!("tag {:?} is too long", header.tag)));
        }
        let tmp = path.with_extension("tmp");
        let file = File::create(&tmp).map_err(|e| err(&tmp, format!("cannot create: {e}")))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&[0; HEADER])
            .map_err(|e| err(&tmp, format!("cannot write: {e}")))?;
        Ok(TierWriter {
            path: path.to_path_buf(),
            tmp,
            out,
            header,
            crc: crc32fast::Hasher::new(),
            bytes: 0,
        })
    }

    /// Appends payload bytes (whole elements).
    ///
    /// # Errors
    /// When the write fails (a full disk, say).
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), TierFileError> {
        self.crc.update(bytes);
        self.bytes += bytes.len() as u64;
        self.out
            .write_all(bytes)
            .map_err(|e| err(&self.tmp, format!("cannot write: {e}")))
    }

    /// Writes the header with the checksum, syncs, and renames the file into place.
    ///
    /// # Errors
    /// When the payload is not a whole number of elements, or the file system fails.
    pub fn finish(self) -> Result<(), TierFileError> {
        let TierWriter {
            path,
            tmp,
            out,
            header,
            crc,
            bytes,
        } = self;
        let elem = u64::from(header.elem.max(1));
        if bytes % elem != 0 {
            return Err(err(&tmp, "payload is not a whole number of elements"));
        }
        let mut h = [0u8; HEADER];
        h[..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&(header.kind as u32).to_le_bytes());
        h[16..20].copy_from_slice(&header.tier.to_le_bytes());
        h[20..24].copy_from_slice(&header.elem.to_le_bytes());
        h[24..32].copy_from_slice(&(bytes / elem).to_le_bytes());
        h[32..36].copy_from_slice(&crc.finalize().to_le_bytes());
        h[36..36 + header.tag.len()].copy_from_slice(header.tag.as_bytes());
        let io = |e: io::Error| err(&tmp, format!("cannot write: {e}"));
        let mut file = out.into_inner().map_err(|e| io(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(&h).map_err(io)?;
        file.sync_all().map_err(io)?;
        drop(file);
        fs::rename(&tmp, &path).map_err(|e| err(&path, format!("cannot rename into place: {e}")))
    }
}

/// Checks a header against `expect` and the file length; returns (count, stored CRC).
fn parse_header(
    path: &Path,
    h: &[u8; HEADER],
    len: u64,
    expect: &Header,
) -> Result<(u64, u32), TierFileError> {
    if &h[..8] != MAGIC {
        return Err(err(path, "not a retrograde tier file (bad magic)"));
    }
    let u32_at = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().expect("4 bytes"));
    let version = u32_at(8);
    if version != VERSION {
        return Err(err(
            path,
            format!("format version {version}, this build reads version {VERSION}"),
        ));
    }
    let tag_end = h[36..].iter().position(|&b| b == 0).unwrap_or(TAG);
    let tag = String::from_utf8_lossy(&h[36..36 + tag_end]);
    if tag != expect.tag {
        return Err(err(
            path,
            format!("holds {tag:?}, expected {:?}", expect.tag),
        ));
    }
    let (kind, tier, elem) = (u32_at(12), u32_at(16), u32_at(20));
    if kind != expect.kind as u32 || tier != expect.tier || elem != expect.elem {
        return Err(err(
            path,
            format!(
                "holds kind {kind} tier {tier} ({elem}-byte elements), expected kind {} tier {} ({}-byte elements)",
                expect.kind as u32, expect.tier, expect.elem
            ),
        ));
    }
    let count = u64::from_le_bytes(h[24..32].try_into().expect("8 bytes"));
    let payload = count.checked_mul(u64::from(elem.max(1)));
    if payload != Some(len - HEADER as u64) {
        return Err(err(
            path,
            format!(
                "is {len} bytes, the header promises {count} elements of {elem} bytes (truncated?)"
            ),
        ));
    }
    Ok((count, u32_at(32)))
}

/// Reads a whole tier file, checking that its header is `expect` and its checksum holds, and
/// hands the payload to `chunk` in pieces of whole elements. Returns the element count.
///
/// # Errors
/// A missing or short file, a different game, tier, kind or version, or a bad checksum.
pub fn read(
    path: &Path,
    expect: &Header,
    mut chunk: impl FnMut(&[u8]),
) -> Result<u64, TierFileError> {
    let file = File::open(path).map_err(|e| err(path, format!("cannot open: {e}")))?;
    let len = file
        .metadata()
        .map_err(|e| err(path, format!("cannot read: {e}")))?
        .len();
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut h = [0u8; HEADER];
    r.read_exact(&mut h)
        .map_err(|_| err(path, "too short for a tier file header"))?;
    let (count, want) = parse_header(path, &h, len, expect)?;
    let elem = expect.elem;
    let mut crc = crc32fast::Hasher::new();
    let step = (1 << 20) / elem.max(1) as usize * elem.max(1) as usize;
    let mut buf = vec![0u8; step];
    let mut left = len - HEADER as u64;
    while left > 0 {
        let n = (left as usize).min(step);
        r.read_exact(&mut buf[..n])
            .map_err(|e| err(path, format!("cannot read: {e}")))?;
        crc.update(&buf[..n]);
        chunk(&buf[..n]);
        left -= n as u64;
    }
    let got = crc.finalize();
    if got != want {
        return Err(err(
            path,
            format!(
                "checksum mismatch (stored {want:08x}, computed {got:08x}): the file is damaged"
            ),
        ));
    }
    Ok(count)
}

/// Checks a tier file's header and length against `expect` without reading the payload (so
/// without the checksum: for lookups in a finished database), and returns the element count.
///
/// # Errors
/// As [`read`], except a damaged payload goes unnoticed.
pub fn check_header(path: &Path, expect: &Header) -> Result<u64, TierFileError> {
    let mut file = File::open(path).map_err(|e| err(path, format!("cannot open: {e}")))?;
    let len = file
        .metadata()
        .map_err(|e| err(path, format!("cannot read: {e}")))?
        .len();
    let mut h = [0u8; HEADER];
    file.read_exact(&mut h)
        .map_err(|_| err(path, "too short for a tier file header"))?;
    let (count, _) = parse_header(path, &h, len, expect)?;
    Ok(count)
}

/// Reads element `i` (of `expect.elem` bytes) of a tier file whose header was checked.
///
/// # Errors
/// A read that fails.
pub fn read_at(
    path: &Path,
    file: &File,
    elem: u32,
    i: u64,
    buf: &mut [u8],
) -> Result<(), TierFileError> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(
        &mut buf[..elem as usize],
        HEADER as u64 + i * u64::from(elem),
    )
    .map_err(|e| err(path, format!("cannot read: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(tier: u32) -> Header {
        Header {
            tag: "test 1x1".into(),
            kind: Kind::Values,
            tier,
            elem: 2,
        }
    }

    #[test]
    fn round_trip_and_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let mut w = TierWriter::create(&path, header(3)).unwrap();
        w.write(&[1, 2, 3, 4]).unwrap();
        w.write(&[5, 6]).unwrap();
        w.finish().unwrap();
        let mut got = Vec::new();
        let n = read(&path, &header(3), |c| got.extend_from_slice(c)).unwrap();
        assert_eq!((n, got), (3, vec![1, 2, 3, 4, 5, 6]));

        let e = read(&path, &header(4), |_| {}).unwrap_err();
        assert!(e.message.contains("tier 3"), "{e}");
        let mut other = header(3);
        other.tag = "other".into();
        assert!(read(&path, &other, |_| {})
            .unwrap_err()
            .message
            .contains("other"));

        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        fs::write(&path, &bytes).unwrap();
        let e = read(&path, &header(3), |_| {}).unwrap_err();
        assert!(e.message.contains("checksum"), "{e}");

        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let e = read(&path, &header(3), |_| {}).unwrap_err();
        assert!(e.message.contains("truncated"), "{e}");
        fs::write(&path, b"short").unwrap();
        assert!(read(&path, &header(3), |_| {}).is_err());
    }

    #[test]
    fn unfinished_file_is_not_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let mut w = TierWriter::create(&path, header(0)).unwrap();
        w.write(&[1, 2]).unwrap();
        drop(w);
        assert!(!path.exists());
    }
}
