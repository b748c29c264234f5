//! What makes the files of one database one thing: its [`Identity`].
//!
//! A solve with a storage makes a random 128-bit identity when it starts (or, resuming,
//! takes the one its interrupted run made), and every file it writes carries it in its
//! header ([`crate::store::tierfile`]); `database.json`, written last, records it too. A reader
//! takes the identity from `database.json` and refuses any file whose header holds
//! another, naming the file: files of two databases, even of the same game and size (whose
//! bytes can be the same), never mix into one answer. Resuming, a file of another identity
//! is a tier to solve again, as a damaged one is.
//!
//! The identity travels with the storage: [`Identified`] is a storage that knows which
//! database its files belong to, so the engine's code that reads and writes tier files
//! never passes it around. A storage that is not [`Identified`] writes and expects
//! [`Identity::NONE`] (tests of the file format use that).
//!
//! Until `database.json` exists, the identity of a solve under way is in `database.id`
//! (with the game's name, so that resuming another game starts afresh); across ranks, rank
//! 0 reads or makes it and broadcasts it.
//!
//! What `database.json` says that a reader acts on travels the same way: the game's name is
//! in every file's header, and the [`Facts`] (the layout, whose `graph-scored` says a graph
//! has scores, the bytes of a value cell, and the parameters the game is rebuilt from) are
//! too, from format version 6 on. A reader wraps its storage with the facts of
//! `database.json`, and a file that says otherwise is an error naming both, so a description
//! edited to say something else (its checksum made right again) is refused, never read as
//! another game or without its scores. Files of version 5 carry no facts: over them a
//! description is trusted for its layout, cell width and parameters, as it was.

use crate::error::Error;
use crate::store::meta::{read_meta, Meta, META};
use crate::store::storage::{Storage, StorageWriter};
use std::fmt;
use std::io;
use std::sync::Arc;

/// The name of the file that holds the identity of a solve under way.
pub const ID_FILE: &str = "database.id";

/// The identity of one database: 16 random bytes made when its solve started.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Identity(pub [u8; 16]);

impl Identity {
    /// No identity: what a storage that is not [`Identified`] writes and expects.
    pub const NONE: Identity = Identity([0; 16]);

    /// A new random identity (never [`Identity::NONE`]).
    pub fn random() -> Identity {
        loop {
            let id = Identity(rand::random());
            if id != Identity::NONE {
                return id;
            }
        }
    }

    /// As 32 lowercase hex digits.
    pub fn to_hex(self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Reads 32 hex digits.
    pub fn from_hex(text: &str) -> Option<Identity> {
        if text.len() != 32 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let mut id = [0u8; 16];
        for (i, b) in id.iter_mut().enumerate() {
            *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Identity(id))
    }

    /// The first 8 bytes in hex: enough to tell two databases apart in a message.
    pub fn short(self) -> String {
        self.to_hex()[..16].to_string()
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Identity({})", self.short())
    }
}

/// What `database.json` says of a database that a reader acts on, beyond its game and
/// identity: written into the header of every tier file (format version 6 on) and
/// expected in every one read, as the identity is.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Facts {
    /// The layout (`dense`, `sorted`, `graph`, `graph-scored`), at most
    /// [`Facts::LAYOUT_BYTES`] bytes.
    pub layout: String,
    /// Bytes per value cell of the database (its `cell_bytes`: 4 with scores).
    pub cell_bytes: u32,
    /// The CRC-32 of the parameters the game is rebuilt from ([`Facts::digest`]).
    pub params: u32,
}

impl Facts {
    /// The most bytes of a layout's name a header holds.
    pub const LAYOUT_BYTES: usize = 16;

    /// The facts of a database of `layout`, `cell_bytes` and parameters `params`.
    pub fn new(layout: &str, cell_bytes: u32, params: &serde_json::Value) -> Facts {
        Facts {
            layout: layout.to_string(),
            cell_bytes,
            params: Facts::digest(params),
        }
    }

    /// The facts `meta` states.
    pub fn of(meta: &Meta) -> Facts {
        Facts::new(&meta.layout, meta.cell_bytes, &meta.params)
    }

    /// The CRC-32 of `params` written as compact JSON with every object's keys sorted: the
    /// same for the same parameters however their keys are ordered.
    pub fn digest(params: &serde_json::Value) -> u32 {
        fn sorted(v: &serde_json::Value) -> serde_json::Value {
            match v {
                serde_json::Value::Object(m) => {
                    let mut keys: Vec<&String> = m.keys().collect();
                    keys.sort();
                    let m = keys.into_iter().map(|k| (k.clone(), sorted(&m[k])));
                    serde_json::Value::Object(m.collect())
                }
                serde_json::Value::Array(a) => a.iter().map(sorted).collect(),
                other => other.clone(),
            }
        }
        crc32fast::hash(&serde_json::to_vec(&sorted(params)).expect("serializable"))
    }

    /// What differs between these facts, a file's, and `told`, those of the description
    /// `described` (a file name), for a message naming both; `None` when they agree.
    pub(crate) fn differs(&self, told: &Facts, described: &str) -> Option<String> {
        if self.layout != told.layout {
            Some(format!(
                "written for layout {:?}, but {described} says {:?}",
                self.layout, told.layout
            ))
        } else if self.cell_bytes != told.cell_bytes {
            Some(format!(
                "written for {}-byte value cells, but {described} says {}",
                self.cell_bytes, told.cell_bytes
            ))
        } else if self.params != told.params {
            Some(format!(
                "written for other parameters than {described} records (their CRC-32 {:08x}, not {:08x})",
                self.params, told.params
            ))
        } else {
            None
        }
    }
}

/// The files of one database: a storage whose files carry `id` and `facts` (every call goes
/// to the storage it wraps, `S`: an `Arc<dyn Storage>` or a `&dyn Storage`).
#[derive(Debug)]
pub struct Identified<S> {
    inner: S,
    id: Identity,
    facts: Facts,
}

impl Identified<Arc<dyn Storage>> {
    /// `inner`'s files, as the files of the database `id` whose description states `facts`.
    pub fn wrap(inner: Arc<dyn Storage>, id: Identity, facts: Facts) -> Arc<dyn Storage> {
        Arc::new(Identified { inner, id, facts })
    }
}

impl<'a> Identified<&'a dyn Storage> {
    /// [`Identified::wrap`] for a borrowed storage.
    pub fn borrowed(inner: &'a dyn Storage, id: Identity, facts: Facts) -> Self {
        Identified { inner, id, facts }
    }
}

impl<'b, S> Storage for Identified<S>
where
    S: std::ops::Deref<Target = dyn Storage + 'b> + Send + Sync + fmt::Debug,
{
    fn describe(&self, file: &str) -> String {
        self.inner.describe(file)
    }
    fn size(&self, file: &str) -> io::Result<Option<u64>> {
        self.inner.size(file)
    }
    fn read_at(&self, file: &str, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_at(file, offset, buf)
    }
    fn create(&self, file: &str) -> io::Result<Box<dyn StorageWriter>> {
        self.inner.create(file)
    }
    fn remove(&self, file: &str) -> io::Result<()> {
        self.inner.remove(file)
    }
    fn identity(&self) -> Identity {
        self.id
    }
    fn facts(&self) -> Facts {
        self.facts.clone()
    }
}

/// What `database.id` holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct Record {
    id: String,
    game: String,
}

/// The identity of the solve of `game` about to start in `st`: with `resume`, the finished
/// database's or the interrupted solve's when they are of this game; else a new one, recorded
/// in `database.id` when `record` (a solve whose files serve it alone, writing no database,
/// leaves no file behind: its identity is not kept), and the directory then holds no
/// finished database until the solve writes `database.json` again.
///
/// # Errors
/// A directory holding a finished database of another game (never overwritten: another
/// directory is needed), or a storage that fails.
pub(crate) fn for_solve(
    st: &dyn Storage,
    game: &str,
    resume: bool,
    record: bool,
) -> Result<Identity, Error> {
    let meta = read_meta(st);
    if let Ok(Some(m)) = &meta {
        if m.game != game {
            return Err(Error::Foreign {
                file: st.describe(META),
                holds: m.game.clone(),
                wanted: game.to_string(),
            });
        }
        if resume {
            if let Some(id) = Identity::from_hex(&m.id) {
                return Ok(id);
            }
        }
    }
    if resume {
        if let Some(r) = read_record(st) {
            if r.game == game {
                if let Some(id) = Identity::from_hex(&r.id) {
                    return Ok(id);
                }
            }
        }
    }
    let id = Identity::random();
    // From here on the directory holds no finished database: its files are being replaced.
    st.remove(META)
        .map_err(|e| Error::io(st.describe(META), "remove", e))?;
    if !record {
        return Ok(id);
    }
    let text = serde_json::to_vec(&Record {
        id: id.to_hex(),
        game: game.to_string(),
    })
    .expect("serializable");
    let io = |e| Error::io(st.describe(ID_FILE), "write", e);
    let mut w = st.create(ID_FILE).map_err(io)?;
    io::Write::write_all(&mut w, &text).map_err(io)?;
    w.commit().map_err(io)?;
    Ok(id)
}

fn read_record(st: &dyn Storage) -> Option<Record> {
    let len = st.size(ID_FILE).ok()??;
    if len > 4096 {
        return None;
    }
    let mut buf = vec![0u8; len as usize];
    st.read_at(ID_FILE, 0, &mut buf).ok()?;
    serde_json::from_slice(&buf).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::storage::MemStorage;

    #[test]
    fn identities_read_back_and_differ() {
        let a = Identity::random();
        assert_eq!(Identity::from_hex(&a.to_hex()), Some(a));
        assert_ne!(a, Identity::random());
        assert_ne!(a, Identity::NONE);
        assert_eq!(Identity::from_hex("xyz"), None);
        assert_eq!(Identity::from_hex(&"g".repeat(32)), None);
        assert_eq!(a.short().len(), 16);
    }

    #[test]
    fn a_resumed_solve_keeps_its_identity_and_a_new_one_makes_another() {
        let st = MemStorage::new();
        let a = for_solve(&st, "g 1", false, true).unwrap();
        assert_eq!(for_solve(&st, "g 1", true, true).unwrap(), a);
        // Another game (or size) resumed in the same place starts afresh.
        let b = for_solve(&st, "g 2", true, true).unwrap();
        assert_ne!(a, b);
        let c = for_solve(&st, "g 2", false, true).unwrap();
        assert_ne!(b, c);
        // Not recorded: nothing to resume from.
        let st = MemStorage::new();
        let d = for_solve(&st, "g 1", false, false).unwrap();
        assert!(st.names().is_empty());
        assert_ne!(for_solve(&st, "g 1", true, false).unwrap(), d);
    }
}
