//! The database's description of itself (`database.json`, [`Meta`]) and the names and
//! headers of its files.

use crate::error::Error;
use crate::stats::Stats;
use crate::store::identity::Identity;
use crate::store::storage::Storage;
use crate::store::tierfile::{Header, Kind};
use serde::{Deserialize, Serialize};

/// The database's description of itself, `database.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    /// Always `retrograde tier database`.
    pub format: String,
    /// Format version ([`META_VERSION`]).
    pub version: u32,
    /// The database's identity, in hex: every one of its files carries it
    /// ([`crate::store::identity`]). Empty in databases of version 1, which had none.
    #[serde(default)]
    pub id: String,
    /// The game's [`TierGame::name`](crate::TierGame::name).
    pub game: String,
    /// What the caller recorded to rebuild the game ([`SolveOptions::params`](crate::SolveOptions::params)).
    pub params: serde_json::Value,
    /// `dense` or `sorted`.
    pub layout: String,
    /// Bytes per value cell.
    pub cell_bytes: u32,
    /// The tiers, children first: (name, size).
    pub tiers: Vec<(String, u64)>,
    /// The start's value, as `Display` writes it.
    pub start: Option<String>,
    /// The totals.
    pub stats: Stats,
    /// Per tier totals (games without a start), in the order of `tiers`.
    pub tier_stats: Vec<Option<Stats>>,
    /// CRC-32 of this object written with an empty checksum, in hex.
    pub checksum: String,
}

/// The name of the database's description file.
pub const META: &str = "database.json";
pub(crate) const FORMAT: &str = "retrograde tier database";
/// The version of `database.json` written and read (2: with the database's identity).
pub const META_VERSION: u32 = 2;

/// A JSON record sealed by its own checksum: the CRC-32, in hex, of the record written with
/// an empty checksum.
trait Sealed: Serialize + Sized {
    fn checksum(&mut self) -> &mut String;

    /// The record with its checksum.
    fn sealed(mut self) -> Self {
        *self.checksum() = String::new();
        let text = serde_json::to_vec(&self).expect("serializable");
        *self.checksum() = format!("{:08x}", crc32fast::hash(&text));
        self
    }
}

impl Sealed for Meta {
    fn checksum(&mut self) -> &mut String {
        &mut self.checksum
    }
}

/// Reads a database's description, checking its checksum; `Ok(None)` when there is none.
///
/// # Errors
/// A description that cannot be read, is not one, or whose checksum does not hold.
pub fn read_meta(storage: &dyn Storage) -> Result<Option<Meta>, Error> {
    let name = storage.describe(META);
    let Some(len) = storage
        .size(META)
        .map_err(|e| Error::io(name.clone(), "read", e))?
    else {
        return Ok(None);
    };
    if len > 64 << 20 {
        return Err(Error::damaged(name, "too big for a database description"));
    }
    let mut buf = vec![0u8; len as usize];
    storage
        .read_at(META, 0, &mut buf)
        .map_err(|e| Error::io(name.clone(), "read", e))?;
    let meta: Meta = serde_json::from_slice(&buf)
        .map_err(|e| Error::damaged(name.clone(), format!("not a database description: {e}")))?;
    if meta.format != FORMAT {
        return Err(Error::damaged(
            name,
            format!("format {:?}, expected {FORMAT:?}", meta.format),
        ));
    }
    if meta.version != META_VERSION {
        return Err(Error::damaged(
            name,
            format!(
                "version {} of the format, this build reads version {META_VERSION} (solve again to rewrite the database)",
                meta.version
            ),
        ));
    }
    let stored = meta.checksum.clone();
    if meta.clone().sealed().checksum != stored {
        return Err(Error::damaged(name, "checksum mismatch"));
    }
    if meta.identity().is_none() {
        return Err(Error::damaged(name, "no valid database identity"));
    }
    Ok(Some(meta))
}

impl Meta {
    /// The database's identity (`None` when `id` is not one).
    pub fn identity(&self) -> Option<Identity> {
        Identity::from_hex(&self.id).filter(|&id| id != Identity::NONE)
    }
}

/// Writes `database.json` (sealed with its checksum; the last file a solve writes).
pub(crate) fn write_meta(storage: &dyn Storage, meta: Meta) -> Result<(), Error> {
    let name = storage.describe(META);
    let bytes = serde_json::to_vec_pretty(&meta.sealed()).expect("serializable");
    let io = |e| Error::io(name.clone(), "write", e);
    let mut w = storage.create(META).map_err(io)?;
    std::io::Write::write_all(&mut w, &bytes).map_err(io)?;
    w.commit().map_err(io)
}

/// The file of a tier's values.
pub(crate) fn values_file(name: &str) -> String {
    format!("{name}.values")
}

/// The file of a tier's sorted keys.
pub(crate) fn keys_file(name: &str) -> String {
    format!("{name}.keys")
}

/// The header every file of a tier is written with and checked against.
pub(crate) fn header(game_name: &str, tier: &str, kind: Kind, elem: u32) -> Header {
    Header {
        game: game_name.to_string(),
        tier: tier.to_string(),
        kind,
        elem,
    }
}

/// The file of the totals of a tier's values file `file` (this rank's share, with ranks):
/// written beside it as each tier is solved, so that a resumed solve takes the totals up
/// instead of counting the tier again (a pass over its positions and their moves).
pub(crate) fn stats_file(file: &str) -> String {
    format!("{file}.stats")
}

/// What [`stats_file`] holds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
struct TierTotals {
    /// The database's identity, in hex.
    id: String,
    /// The values file they are the totals of.
    file: String,
    stats: Stats,
    /// CRC-32 of this object written with an empty checksum, in hex.
    checksum: String,
}

impl Sealed for TierTotals {
    fn checksum(&mut self) -> &mut String {
        &mut self.checksum
    }
}

/// Writes the totals of values file `file` beside it (after it: a crash between the two
/// leaves the totals to be counted again).
pub(crate) fn write_tier_stats(
    storage: &dyn Storage,
    file: &str,
    stats: &Stats,
) -> Result<(), Error> {
    let name = stats_file(file);
    let totals = TierTotals {
        id: storage.identity().to_hex(),
        file: file.to_string(),
        stats: stats.clone(),
        checksum: String::new(),
    }
    .sealed();
    let bytes = serde_json::to_vec(&totals).expect("serializable");
    let io = |e| Error::io(storage.describe(&name), "write", e);
    let mut w = storage.create(&name).map_err(io)?;
    std::io::Write::write_all(&mut w, &bytes).map_err(io)?;
    w.commit().map_err(io)
}

/// The totals written beside values file `file`, when they are there, whole, and of this
/// database and file; `None` otherwise (they are counted again, which repairs them).
pub(crate) fn read_tier_stats(storage: &dyn Storage, file: &str) -> Option<Stats> {
    let name = stats_file(file);
    let len = storage.size(&name).ok().flatten()?;
    if len > 16 << 20 {
        return None;
    }
    let mut buf = vec![0u8; len as usize];
    storage.read_at(&name, 0, &mut buf).ok()?;
    let t: TierTotals = serde_json::from_slice(&buf).ok()?;
    let whole = t.clone().sealed().checksum == t.checksum;
    (whole && t.id == storage.identity().to_hex() && t.file == file).then_some(t.stats)
}

/// Removes the totals beside values file `file`, if any.
pub(crate) fn remove_tier_stats(storage: &dyn Storage, file: &str) -> Result<(), Error> {
    let name = stats_file(file);
    match storage.size(&name) {
        Ok(Some(_)) => storage
            .remove(&name)
            .map_err(|e| Error::io(storage.describe(&name), "remove", e)),
        _ => Ok(()),
    }
}
