//! Where solved tiers are kept: the [`Storage`] trait.
//!
//! The engine never opens a file itself: it reads and writes named byte files through a
//! `Storage` (in the spirit of shakmaty-syzygy's `Filesystem`). [`DirStorage`] keeps them in
//! a directory, and is the only code of this crate that touches the file system;
//! [`MemStorage`] keeps them in memory (tests use it to damage files byte by byte).
//!
//! A file is written through a [`StorageWriter`] and appears under its name only when
//! [`StorageWriter::commit`] succeeds, so a file with its final name is always complete.

use crate::error::Error;
use crate::store::identity::{Facts, Identity};
use std::collections::HashMap;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Named byte files: the engine's only way to the disk.
pub trait Storage: Send + Sync + fmt::Debug {
    /// How to name `file` to a person: a path, for a directory.
    fn describe(&self, file: &str) -> String;
    /// The size of `file`, or `None` when there is no such file.
    ///
    /// # Errors
    /// When the storage cannot tell.
    fn size(&self, file: &str) -> io::Result<Option<u64>>;
    /// Fills `buf` from `file` at `offset`.
    ///
    /// # Errors
    /// A missing file, or fewer bytes than asked for.
    fn read_at(&self, file: &str, offset: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Starts writing `file`; it replaces any file of that name when committed.
    ///
    /// # Errors
    /// When the file cannot be created.
    fn create(&self, file: &str) -> io::Result<Box<dyn StorageWriter>>;
    /// Removes `file` if it exists.
    ///
    /// # Errors
    /// When it exists and cannot be removed.
    fn remove(&self, file: &str) -> io::Result<()>;
    /// The identity of the database these files belong to: written into the header of
    /// every tier file and expected in every one read ([`crate::store::identity`]). Default:
    /// [`Identity::NONE`]; an [`Identified`](crate::store::identity::Identified) storage has one.
    fn identity(&self) -> Identity {
        Identity::NONE
    }
    /// What the description of the database these files belong to says of it: written into
    /// the header of every tier file and expected in every one read (format version 6 on).
    /// Default: no facts (an empty layout, 0, 0); an
    /// [`Identified`](crate::store::identity::Identified) storage has those of its
    /// description.
    fn facts(&self) -> Facts {
        Facts::default()
    }
}

/// A file being written. Dropped without [`commit`](StorageWriter::commit), it leaves
/// nothing behind.
pub trait StorageWriter: Write + Send {
    /// Makes the file durable and puts it in place under its name.
    ///
    /// # Errors
    /// When the data cannot be flushed, synced or renamed.
    fn commit(self: Box<Self>) -> io::Result<()>;
}

/// Files in a directory (created when the first file is written).
///
/// A writer calls [`DirStorage::lock`] first: one writer at a time, by an OS file lock on
/// `database.lock` that dies with its process. A file read once is read from the same
/// file (inode) for the life of the storage: one replaced since (by a writer elsewhere) is
/// an error, never a mix of two databases. A reader that lives on (a server) asks
/// [`DirStorage::changed`] when a read fails, and opens the database again on a new storage
/// when the files are no longer those it read.
#[derive(Debug)]
pub struct DirStorage {
    dir: PathBuf,
    open: Arc<Mutex<Handles>>,
    lock: std::sync::OnceLock<File>,
}

/// Open files by name, and the file each name was first read from.
#[derive(Debug, Default)]
struct Handles {
    files: HashMap<String, Arc<File>>,
    seen: HashMap<String, Stamp>,
}

/// Which file a name was read from, and as it was then: its device and inode (the file),
/// and its size and modification time (its contents, as far as the system tells).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    file: (u64, u64),
    len: u64,
    modified: (i64, i64),
}

impl Stamp {
    fn of(m: &fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            file: (m.dev(), m.ino()),
            len: m.len(),
            modified: (m.mtime(), m.mtime_nsec()),
        }
    }
}

impl Handles {
    fn forget(&mut self, file: &str) {
        self.files.remove(file);
        self.seen.remove(file);
    }
}

/// The name of the file a writer locks.
pub const LOCK_FILE: &str = "database.lock";

impl DirStorage {
    /// The files of `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> DirStorage {
        DirStorage {
            dir: dir.into(),
            open: Arc::default(),
            lock: std::sync::OnceLock::new(),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    fn handles(&self) -> std::sync::MutexGuard<'_, Handles> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn handle(&self, file: &str) -> io::Result<Arc<File>> {
        let mut open = self.handles();
        if let Some(f) = open.files.get(file) {
            return Ok(f.clone());
        }
        let f = File::open(self.path(file))?;
        let here = Stamp::of(&f.metadata()?);
        match open.seen.get(file) {
            Some(was) if was.file != here.file => {
                return Err(io::Error::other(
                    "replaced since it was first read (another process wrote this directory): open the database again",
                ))
            }
            Some(_) => {}
            None => {
                open.seen.insert(file.to_string(), here);
            }
        }
        if open.files.len() > 256 {
            open.files.clear();
        }
        let f = Arc::new(f);
        open.files.insert(file.to_string(), f.clone());
        Ok(f)
    }

    /// Whether a file this storage has read is no longer, on disk, the file it read: replaced
    /// by another (a repair writes a file anew and renames it into place), written over in
    /// place (another size or modification time), or removed. A reader that lives on asks
    /// this when a read fails: if so, the database opened again on a new storage reads the
    /// files there now, and a failure of the old files is not kept. A stat of each file
    /// read (files this storage wrote are not counted).
    pub fn changed(&self) -> bool {
        let seen: Vec<(String, Stamp)> = (self.handles().seen.iter())
            .map(|(name, &stamp)| (name.clone(), stamp))
            .collect();
        seen.into_iter()
            .any(|(name, was)| match fs::metadata(self.path(&name)) {
                Ok(m) => Stamp::of(&m) != was,
                Err(_) => true,
            })
    }

    /// Whether `file`, which this storage has read, is now on disk another file or other
    /// contents (a size or modification time of its own); not when it is missing (a
    /// writer removes a database's description while it works) or was never read. One
    /// stat: cheap enough to ask before every request.
    pub fn replaced(&self, file: &str) -> bool {
        let Some(was) = self.handles().seen.get(file).copied() else {
            return false;
        };
        fs::metadata(self.path(file)).is_ok_and(|m| Stamp::of(&m) != was)
    }

    fn forget(&self, file: &str) {
        self.handles().forget(file);
    }

    /// Makes this storage the one writer of its directory (created if need be) until it is
    /// dropped or the process ends (even by `kill -9`: the lock is the kernel's, on
    /// `database.lock`, and a dead process holds none). Locking again is a no-op.
    ///
    /// # Errors
    /// [`Error::Busy`] naming the process that holds the lock; [`Error::Io`] when the lock
    /// file cannot be made.
    pub fn lock(&self) -> Result<(), Error> {
        if self.lock.get().is_some() {
            return Ok(());
        }
        let shown = self.dir.display().to_string();
        fs::create_dir_all(&self.dir).map_err(|e| Error::io(shown.clone(), "create", e))?;
        let path = self.path(LOCK_FILE);
        let io = |e| Error::io(path.display().to_string(), "lock", e);
        let mut f = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        if !try_flock(&f, libc::LOCK_EX).map_err(io)? {
            return Err(Error::Busy {
                dir: shown,
                holder: holder(&path),
            });
        }
        // Who holds it, for the next writer's message.
        let me = format!("process {} ({})", std::process::id(), command_line());
        f.set_len(0).map_err(io)?;
        f.write_all(me.as_bytes()).map_err(io)?;
        let _ = self.lock.set(f);
        Ok(())
    }

    /// The process writing `dir` now (its lock's holder), if any: for a reader that finds
    /// no finished database there.
    pub fn writer(dir: &Path) -> Option<String> {
        let path = dir.join(LOCK_FILE);
        let f = File::open(&path).ok()?;
        match try_flock(&f, libc::LOCK_SH) {
            // Free: nobody writes (closing `f` lets go of the shared lock).
            Ok(true) => None,
            Ok(false) => Some(holder(&path)),
            Err(_) => None,
        }
    }
}

/// Takes `flock(op)` on `f` without waiting: `Ok(false)` when another holds it.
fn try_flock(f: &File, op: libc::c_int) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: `f` is an open file for the whole call, so its descriptor is valid; flock
        // reads nothing from our memory.
        let r = unsafe { libc::flock(f.as_raw_fd(), op | libc::LOCK_NB) };
        if r == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EWOULDBLOCK) => return Ok(false),
            Some(libc::EINTR) => continue,
            _ => return Err(e),
        }
    }
}

/// What the lock file says of the process holding it (it writes that at once after
/// locking: a holder caught in between is waited for a moment).
fn holder(path: &Path) -> String {
    for _ in 0..20 {
        if let Ok(text) = fs::read_to_string(path) {
            let text = text.trim();
            if !text.is_empty() {
                return text.chars().take(300).collect();
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    "another process".into()
}

/// This process's command line, for the lock file.
fn command_line() -> String {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut line = args.join(" ");
    if line.chars().count() > 200 {
        line = line.chars().take(200).collect::<String>() + "…";
    }
    line.replace(['\n', '\r'], " ")
}

impl Storage for DirStorage {
    fn describe(&self, file: &str) -> String {
        self.path(file).display().to_string()
    }

    fn size(&self, file: &str) -> io::Result<Option<u64>> {
        match fs::metadata(self.path(file)) {
            Ok(m) if m.is_file() => Ok(Some(m.len())),
            Ok(_) => Err(io::Error::other("not a regular file")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn read_at(&self, file: &str, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        self.handle(file)?.read_exact_at(buf, offset)
    }

    fn create(&self, file: &str) -> io::Result<Box<dyn StorageWriter>> {
        fs::create_dir_all(&self.dir)?;
        let path = self.path(file);
        let tmp = self.path(&format!("{file}.tmp"));
        let out = File::create(&tmp)?;
        self.forget(file);
        Ok(Box::new(DirWriter {
            out: Some(io::BufWriter::with_capacity(1 << 20, out)),
            tmp,
            path,
            name: file.to_string(),
            handles: self.open.clone(),
        }))
    }

    fn remove(&self, file: &str) -> io::Result<()> {
        self.forget(file);
        match fs::remove_file(self.path(file)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

struct DirWriter {
    out: Option<io::BufWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
    /// The file's name, and the storage's open files (forgotten when it is replaced).
    name: String,
    handles: Arc<Mutex<Handles>>,
}

impl Write for DirWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.as_mut().expect("open until committed").write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out
            .as_mut()
            .expect("open until committed")
            .write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.as_mut().expect("open until committed").flush()
    }
}

impl StorageWriter for DirWriter {
    fn commit(mut self: Box<Self>) -> io::Result<()> {
        let out = self.out.take().expect("committed once");
        let done = out
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .and_then(|()| fs::rename(&self.tmp, &self.path));
        if done.is_err() {
            // A full disk, say: leave nothing half-written behind.
            let _ = fs::remove_file(&self.tmp);
        }
        self.handles
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .forget(&self.name);
        done
    }
}

impl Drop for DirWriter {
    fn drop(&mut self) {
        if let Some(out) = self.out.take() {
            // Not committed: leave nothing half-written behind (without writing out what
            // is buffered first).
            drop(out.into_parts());
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Files in memory: for tests, and for solves that keep nothing.
#[derive(Debug, Default, Clone)]
pub struct MemStorage {
    files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
}

impl MemStorage {
    /// No files.
    pub fn new() -> MemStorage {
        MemStorage::default()
    }

    /// The names of the files, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.lock().keys().cloned().collect();
        v.sort();
        v
    }

    /// A copy of a file's bytes.
    pub fn get(&self, file: &str) -> Option<Vec<u8>> {
        self.lock().get(file).cloned()
    }

    /// Puts bytes under a name (to damage a file in a test, say).
    pub fn put(&self, file: &str, bytes: Vec<u8>) {
        self.lock().insert(file.to_string(), bytes);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<u8>>> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Storage for MemStorage {
    fn describe(&self, file: &str) -> String {
        format!("memory:{file}")
    }

    fn size(&self, file: &str) -> io::Result<Option<u64>> {
        Ok(self.lock().get(file).map(|b| b.len() as u64))
    }

    fn read_at(&self, file: &str, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let files = self.lock();
        let bytes = files
            .get(file)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))?;
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let end = start.saturating_add(buf.len());
        if end > bytes.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "read past the end of the file",
            ));
        }
        buf.copy_from_slice(&bytes[start..end]);
        Ok(())
    }

    fn create(&self, file: &str) -> io::Result<Box<dyn StorageWriter>> {
        Ok(Box::new(MemWriter {
            files: self.files.clone(),
            name: file.to_string(),
            bytes: Vec::new(),
        }))
    }

    fn remove(&self, file: &str) -> io::Result<()> {
        self.lock().remove(file);
        Ok(())
    }
}

struct MemWriter {
    files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    name: String,
    bytes: Vec<u8>,
}

impl Write for MemWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl StorageWriter for MemWriter {
    fn commit(self: Box<Self>) -> io::Result<()> {
        let MemWriter { files, name, bytes } = *self;
        files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name, bytes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(s: &dyn Storage) {
        assert_eq!(s.size("a").unwrap(), None);
        let mut w = s.create("a").unwrap();
        w.write_all(b"hello").unwrap();
        assert_eq!(s.size("a").unwrap(), None, "not in place before commit");
        w.commit().unwrap();
        assert_eq!(s.size("a").unwrap(), Some(5));
        let mut buf = [0u8; 3];
        s.read_at("a", 2, &mut buf).unwrap();
        assert_eq!(&buf, b"llo");
        assert!(s.read_at("a", 3, &mut buf).is_err());
        let mut w = s.create("b").unwrap();
        w.write_all(b"x").unwrap();
        drop(w);
        assert_eq!(s.size("b").unwrap(), None, "dropped without commit");
        s.remove("a").unwrap();
        s.remove("a").unwrap();
        assert_eq!(s.size("a").unwrap(), None);
    }

    #[test]
    fn a_dir_storage_tells_when_the_files_it_read_change() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let w = DirStorage::new(dir.path());
            let mut f = w.create(name).unwrap();
            f.write_all(bytes).unwrap();
            f.commit().unwrap();
        };
        for f in ["a", "b", "c"] {
            write(f, b"hello");
        }
        let r = DirStorage::new(dir.path());
        let mut buf = [0u8; 5];
        assert!(!r.changed(), "nothing read yet");
        r.read_at("a", 0, &mut buf).unwrap();
        r.read_at("b", 0, &mut buf).unwrap();
        assert!(!r.changed() && !r.replaced("a") && !r.replaced("c"));
        // Another file renamed into place (a repair): a read keeps the first file's
        // handle, a reopened handle is refused, and the storage says so.
        write("a", b"HELLO");
        assert!(r.changed() && r.replaced("a") && !r.replaced("b"));
        r.read_at("a", 0, &mut buf).unwrap();
        assert_eq!(&buf, b"hello", "the file first read, never a mix");
        // Written over in place: its modification time.
        let again = DirStorage::new(dir.path());
        again.read_at("b", 0, &mut buf).unwrap();
        assert!(!again.changed());
        let f = fs::OpenOptions::new()
            .write(true)
            .open(dir.path().join("b"))
            .unwrap();
        use std::os::unix::fs::FileExt;
        f.write_all_at(b"J", 0).unwrap();
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(2);
        f.set_modified(later).unwrap();
        assert!(again.changed() && again.replaced("b"));
        // Removed: changed, but not `replaced` (a writer at work removes the description).
        let gone = DirStorage::new(dir.path());
        gone.read_at("c", 0, &mut buf).unwrap();
        fs::remove_file(dir.path().join("c")).unwrap();
        assert!(gone.changed() && !gone.replaced("c"));
    }

    #[test]
    fn mem_and_dir() {
        round_trip(&MemStorage::new());
        let dir = tempfile::tempdir().unwrap();
        let d = DirStorage::new(dir.path().join("db"));
        round_trip(&d);
        // Nothing half-written is left behind.
        let left: Vec<_> = fs::read_dir(dir.path().join("db")).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
