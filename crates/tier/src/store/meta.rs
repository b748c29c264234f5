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
    /// Format version (2 or 3; 3 is written).
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
    /// Per tier totals (games without a start), in the order of `tiers`, in databases of
    /// version 2; empty from version 3, which keeps them in [`TOTALS`] (read with
    /// [`read_tier_totals`]) so that opening a database of many tiers reads a short
    /// description (912 chess tables' totals and histograms made it 5.5 MB).
    pub tier_stats: Vec<Option<Stats>>,
    /// CRC-32 of this object written with an empty checksum, in hex.
    pub checksum: String,
}

/// The name of the database's description file.
pub const META: &str = "database.json";
pub(crate) const FORMAT: &str = "retrograde tier database";
/// The version of `database.json` written (2: with the database's identity; 3: the totals
/// by tier in [`TOTALS`]). Versions 2 and 3 are read.
pub const META_VERSION: u32 = 3;
/// The file of a tier database's totals by tier (version 3 on), written before
/// `database.json`.
pub const TOTALS: &str = "totals.json";

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

/// Reads JSON record `file` of at most `max` bytes, `what` it should be; `Ok(None)` when
/// there is none.
fn read_json<T: serde::de::DeserializeOwned>(
    storage: &dyn Storage,
    file: &str,
    max: u64,
    what: &str,
) -> Result<Option<T>, Error> {
    let name = storage.describe(file);
    let Some(len) = storage
        .size(file)
        .map_err(|e| Error::io(name.clone(), "read", e))?
    else {
        return Ok(None);
    };
    if len > max {
        return Err(Error::damaged(name, format!("too big for {what}")));
    }
    let mut buf = vec![0u8; len as usize];
    storage
        .read_at(file, 0, &mut buf)
        .map_err(|e| Error::io(name.clone(), "read", e))?;
    serde_json::from_slice(&buf)
        .map(Some)
        .map_err(|e| Error::damaged(name, format!("not {what}: {e}")))
}

/// Reads a database's description, checking its checksum; `Ok(None)` when there is none.
///
/// # Errors
/// A description that cannot be read, is not one, or whose checksum does not hold.
pub fn read_meta(storage: &dyn Storage) -> Result<Option<Meta>, Error> {
    let name = storage.describe(META);
    let Some(meta) = read_json::<Meta>(storage, META, 64 << 20, "a database description")? else {
        return Ok(None);
    };
    if meta.format != FORMAT {
        return Err(Error::damaged(
            name,
            format!("format {:?}, expected {FORMAT:?}", meta.format),
        ));
    }
    if meta.version > META_VERSION {
        // Not damage: a newer build wrote it.
        return Err(Error::Unsupported(format!(
            "{name}: version {} of the format, newer than this build reads (2 to {META_VERSION}): open it with a newer retrograde",
            meta.version
        )));
    }
    if meta.version < 2 {
        return Err(Error::damaged(
            name,
            format!(
                "version {} of the format, this build reads versions 2 to {META_VERSION} (solve again to rewrite the database)",
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

/// What [`TOTALS`] holds: every tier's totals, by name, in the order of `database.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
struct Totals {
    /// Always `retrograde tier totals`.
    format: String,
    /// The database's identity, in hex.
    id: String,
    tiers: Vec<(String, Option<Stats>)>,
    /// CRC-32 of this object written with an empty checksum, in hex.
    checksum: String,
}

impl Sealed for Totals {
    fn checksum(&mut self) -> &mut String {
        &mut self.checksum
    }
}

const TOTALS_FORMAT: &str = "retrograde tier totals";

/// Writes [`TOTALS`]: tier `names[k]`'s totals `stats[k]` (before `database.json`).
pub(crate) fn write_tier_totals(
    storage: &dyn Storage,
    names: &[String],
    stats: &[Option<Stats>],
) -> Result<(), Error> {
    let totals = Totals {
        format: TOTALS_FORMAT.into(),
        id: storage.identity().to_hex(),
        tiers: names.iter().cloned().zip(stats.iter().cloned()).collect(),
        checksum: String::new(),
    }
    .sealed();
    let bytes = serde_json::to_vec(&totals).expect("serializable");
    let io = |e| Error::io(storage.describe(TOTALS), "write", e);
    let mut w = storage.create(TOTALS).map_err(io)?;
    std::io::Write::write_all(&mut w, &bytes).map_err(io)?;
    w.commit().map_err(io)
}

/// The totals by tier of the finished database `meta` describes, in the order of its
/// `tiers`: from `database.json` (version 2) or [`TOTALS`] (version 3).
///
/// # Errors
/// [`TOTALS`] missing, damaged, of another database, or not of the tiers `meta` lists.
pub fn read_tier_totals(storage: &dyn Storage, meta: &Meta) -> Result<Vec<Option<Stats>>, Error> {
    if meta.version < 3 {
        return Ok(meta.tier_stats.clone());
    }
    let name = storage.describe(TOTALS);
    let t = read_json::<Totals>(storage, TOTALS, 1 << 30, "the totals of a database")?
        .ok_or_else(|| Error::Missing { file: name.clone() })?;
    if t.format != TOTALS_FORMAT {
        return Err(Error::damaged(
            name,
            format!("format {:?}, expected {TOTALS_FORMAT:?}", t.format),
        ));
    }
    if t.clone().sealed().checksum != t.checksum {
        return Err(Error::damaged(name, "checksum mismatch"));
    }
    if t.id != meta.id {
        return Err(Error::damaged(
            name,
            format!(
                "written by another solve (database identity {}, this database's is {})",
                t.id, meta.id
            ),
        ));
    }
    let listed = meta.tiers.iter().map(|(n, _)| n);
    if t.tiers.len() != meta.tiers.len() || !t.tiers.iter().map(|(n, _)| n).eq(listed) {
        return Err(Error::damaged(name, "not the tiers database.json lists"));
    }
    Ok(t.tiers.into_iter().map(|(_, s)| s).collect())
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
