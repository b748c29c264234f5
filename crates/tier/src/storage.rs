//! Where solved tiers are kept: the [`Storage`] trait.
//!
//! The engine never opens a file itself: it reads and writes named byte files through a
//! `Storage` (in the spirit of shakmaty-syzygy's `Filesystem`). [`DirStorage`] keeps them in
//! a directory, and is the only code of this crate that touches the file system;
//! [`MemStorage`] keeps them in memory (tests use it to damage files byte by byte).
//!
//! A file is written through a [`StorageWriter`] and appears under its name only when
//! [`StorageWriter::commit`] succeeds, so a file with its final name is always complete.

use crate::identity::Identity;
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
    /// every tier file and expected in every one read ([`crate::identity`]). Default:
    /// [`Identity::NONE`]; an [`Identified`](crate::identity::Identified) storage has one.
    fn identity(&self) -> Identity {
        Identity::NONE
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
#[derive(Debug)]
pub struct DirStorage {
    dir: PathBuf,
    open: Mutex<HashMap<String, Arc<File>>>,
}

impl DirStorage {
    /// The files of `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> DirStorage {
        DirStorage {
            dir: dir.into(),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    fn handle(&self, file: &str) -> io::Result<Arc<File>> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = open.get(file) {
            return Ok(f.clone());
        }
        let f = Arc::new(File::open(self.path(file))?);
        if open.len() > 256 {
            open.clear();
        }
        open.insert(file.to_string(), f.clone());
        Ok(f)
    }

    fn forget(&self, file: &str) {
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(file);
    }
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
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&self.tmp, &self.path)
    }
}

impl Drop for DirWriter {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            // Not committed: leave nothing half-written behind.
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
