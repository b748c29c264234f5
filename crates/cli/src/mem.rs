//! Memory: how much this process may still use, the one check every command makes before a
//! big allocation, and the allocator that turns a failed allocation into the same error.
//!
//! The limit is the smallest of four, each with its source named in messages:
//! - `ulimit -v`: `RLIMIT_AS` (address space) less what is already mapped (`VmSize`), and
//!   `RLIMIT_DATA` less the data already mapped (`VmData`);
//! - `cgroup`: the memory limit of this process's cgroup and its ancestors (v2
//!   `memory.max` less `memory.current`, v1 `memory.limit_in_bytes` less
//!   `memory.usage_in_bytes`), found through `/proc/self/cgroup`;
//! - `MemAvailable`: what the kernel says it can still give (`/proc/meminfo`);
//! - `--memory`: what the user allows.
//!
//! [`check`] compares an estimate with it ("needs about X, limit Y (from ulimit -v)"); where
//! no estimate can be made, [`Guard`], the global allocator, ends the process with exit
//! status 2 and the same kind of message when an allocation fails, instead of the
//! standard library's abort (status 134). Under a cgroup limit the kernel kills the process
//! rather than failing an allocation, which is why estimates come first wherever they can.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::OnceLock;

/// Where a memory limit comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `RLIMIT_AS` or `RLIMIT_DATA`.
    Ulimit,
    /// The cgroup's memory limit.
    Cgroup,
    /// `MemAvailable` in `/proc/meminfo`.
    Available,
    /// `--memory SIZE`.
    Flag,
}

impl Source {
    /// How messages name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Ulimit => "ulimit -v",
            Source::Cgroup => "cgroup",
            Source::Available => "MemAvailable",
            Source::Flag => "--memory",
        }
    }
}

/// The memory this process may still use, and what says so.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    pub source: Source,
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (from {})", human(self.bytes), self.source.as_str())
    }
}

static LIMIT: OnceLock<Option<Limit>> = OnceLock::new();

/// Asks glibc's allocator for one arena shared by every thread, before any thread starts.
///
/// By default each thread that allocates gets an arena of its own, and what a worker frees
/// (a sorted tier's merge runs, a chunk's scratch vectors) stays in its arena: with 2
/// threads, Connect-4 5x5 peaked at 162 MiB instead of 133 MiB, 6x4 at 221 MiB instead of
/// 185 MiB, for no measurable speed (the solvers allocate per chunk, not per position).
/// (Mapping every block of a megabyte or more on its own, `M_MMAP_THRESHOLD`, would give
/// freed blocks back at once, 5x5's peak 106 MiB, but the fresh pages cost 10% more time.)
pub fn one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it is called before any other
    // thread exists, and a failure (return 0) leaves the default, which is also correct.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Works out the limit once, with `--memory` if given; later calls of [`limit`] return it.
/// Called by `main` before any command runs.
pub fn init(flag: Option<u64>) -> Option<Limit> {
    let l = *LIMIT.get_or_init(|| detect(flag));
    retrograde_games::set_memory_limit(l.map(|l| l.bytes));
    if let Some(l) = l {
        GUARD_BYTES.store(l.bytes, Relaxed);
        GUARD_SOURCE.store(l.source as u8 + 1, Relaxed);
    }
    l
}

/// The limit worked out by [`init`] (worked out now without `--memory` if it was not).
pub fn limit() -> Option<Limit> {
    *LIMIT.get_or_init(|| detect(None))
}

/// The limit in bytes, for libraries that take a number.
pub fn limit_bytes() -> Option<u64> {
    limit().map(|l| l.bytes)
}

/// The smallest of every limit that applies.
fn detect(flag: Option<u64>) -> Option<Limit> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| kb_field(&status, name);
    let mut all = Vec::new();
    if let Some(f) = flag {
        all.push(Limit {
            bytes: f,
            source: Source::Flag,
        });
    }
    for (resource, used) in [
        (libc::RLIMIT_AS, field("VmSize:")),
        (libc::RLIMIT_DATA, field("VmData:")),
    ] {
        if let Some(max) = rlimit(resource) {
            all.push(Limit {
                bytes: max.saturating_sub(used.unwrap_or(0)),
                source: Source::Ulimit,
            });
        }
    }
    if let Some(bytes) = cgroup_room() {
        all.push(Limit {
            bytes,
            source: Source::Cgroup,
        });
    }
    if let Some(bytes) = available_bytes() {
        all.push(Limit {
            bytes,
            source: Source::Available,
        });
    }
    all.into_iter().min_by_key(|l| l.bytes)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

/// The most files this process may have open (`ulimit -n`), when limited.
pub fn open_files_limit() -> Option<u64> {
    rlimit(libc::RLIMIT_NOFILE as Resource)
}

/// A soft resource limit, when there is one.
fn rlimit(resource: Resource) -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes one `rlimit` through a pointer to a live, aligned one.
    let ok = unsafe { libc::getrlimit(resource, &mut r) } == 0;
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur)
}

/// `VmSize:    1234 kB` as bytes.
fn kb_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// The room left under the cgroup memory limits of this process (its cgroup and every
/// ancestor, v2 or v1), when one is set.
fn cgroup_room() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    cgroup_room_in(&text, Path::new("/sys/fs/cgroup"))
}

/// [`cgroup_room`] for the `/proc/self/cgroup` text `cgroups`, the hierarchy mounted at
/// `mount` (v2 there, v1 under `mount/memory`).
fn cgroup_room_in(cgroups: &str, mount: &Path) -> Option<u64> {
    let mut best: Option<u64> = None;
    let mut consider = |dir: &Path, max: &str, used: &str| {
        let read = |f: &str| -> Option<u64> {
            std::fs::read_to_string(dir.join(f))
                .ok()?
                .trim()
                .parse()
                .ok()
        };
        // `max` (v2) fails to parse, and v1's "no limit" is a number near 2^63.
        if let Some(limit) = read(max).filter(|&l| l < 1 << 62) {
            let room = limit.saturating_sub(read(used).unwrap_or(0));
            best = Some(best.map_or(room, |b| b.min(room)));
        }
    };
    for line in cgroups.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (root, max, used) = if controllers.is_empty() {
            (mount.to_path_buf(), "memory.max", "memory.current")
        } else if controllers.split(',').any(|c| c == "memory") {
            (
                mount.join("memory"),
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            )
        } else {
            continue;
        };
        // The cgroup and its ancestors up to the root of the mount (inside a container
        // whose cgroup namespace hides the path, the root is the container's cgroup).
        let mut dir = root.join(path.trim_start_matches('/'));
        loop {
            consider(&dir, max, used);
            if dir == root || !dir.pop() {
                break;
            }
        }
    }
    best
}

/// The peak resident set size in bytes (Linux `VmHWM`), when the system tells it.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    kb_field(&status, "VmHWM:")
}

/// Memory the system can still give (Linux `MemAvailable`), when it tells.
pub fn available_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    kb_field(&info, "MemAvailable:")
}

/// Bytes needed to lay out and solve a graph of `n` vertices and `m` edges: 16 per edge at the
/// layout's peak (grouping buffer, forward and reverse targets), 41 per vertex (offsets,
/// solver state, counters, queue, best moves).
pub fn solve_estimate(n: u64, m: u64) -> u64 {
    n.saturating_mul(41).saturating_add(m.saturating_mul(16))
}

/// The one message of a refusal: `needs about 4.1 GiB of memory, limit 1.9 GiB (from ulimit -v)`.
pub fn refusal(need: u64, limit: Limit) -> String {
    format!("needs about {} of memory, limit {limit}", human(need))
}

/// Refuses `need` bytes over the limit: `{what} needs about X, limit Y (from ...)`.
///
/// # Errors
/// The refusal, when `need` is over the limit.
pub fn check(what: &str, need: u64) -> anyhow::Result<()> {
    match limit() {
        Some(l) if need > l.bytes => anyhow::bail!("{what} {}", refusal(need, l)),
        _ => Ok(()),
    }
}

/// `12.3 GiB`, `4.0 MiB`, `512 bytes`.
pub fn human(bytes: u64) -> String {
    let f = bytes as f64;
    if bytes >= 1 << 40 {
        format!("{:.1} TiB", f / (1u64 << 40) as f64)
    } else if bytes >= 1 << 30 {
        format!("{:.1} GiB", f / (1u64 << 30) as f64)
    } else if bytes >= 1 << 20 {
        format!("{:.1} MiB", f / (1u64 << 20) as f64)
    } else if bytes >= 1 << 10 {
        format!("{:.1} KiB", f / (1u64 << 10) as f64)
    } else {
        format!("{bytes} bytes")
    }
}

static GUARD_BYTES: AtomicU64 = AtomicU64::new(0);
/// 0: no limit known; else `Source as u8 + 1`.
static GUARD_SOURCE: AtomicU8 = AtomicU8::new(0);

/// The global allocator: the system's, except that a failed allocation ends the process
/// with exit status 2 and a message naming the size and the limit, rather than aborting.
/// (This also ends `try_reserve` callers; their own messages are only the nicer form of the
/// same error.)
pub struct Guard;

impl Guard {
    #[cold]
    fn fail(size: usize) -> ! {
        let mut buf = Msg::default();
        buf.push(b"retrograde: out of memory: an allocation of ");
        buf.size(size as u64);
        buf.push(b" failed");
        let source = match GUARD_SOURCE.load(Relaxed) {
            1 => Some(Source::Ulimit),
            2 => Some(Source::Cgroup),
            3 => Some(Source::Available),
            4 => Some(Source::Flag),
            _ => None,
        };
        if let Some(s) = source {
            buf.push(b", limit ");
            buf.size(GUARD_BYTES.load(Relaxed));
            buf.push(b" (from ");
            buf.push(s.as_str().as_bytes());
            buf.push(b")");
        }
        buf.push(b"\n");
        // SAFETY: writes initialized bytes of a live buffer to standard error, then ends the
        // process at once (no allocation, no destructors, nothing that could allocate).
        unsafe {
            libc::write(2, buf.bytes.as_ptr().cast(), buf.len);
            libc::_exit(2)
        }
    }
}

/// A message built without allocating.
struct Msg {
    bytes: [u8; 256],
    len: usize,
}

impl Default for Msg {
    fn default() -> Self {
        Msg {
            bytes: [0; 256],
            len: 0,
        }
    }
}

impl Msg {
    fn push(&mut self, s: &[u8]) {
        let n = s.len().min(self.bytes.len() - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&s[..n]);
        self.len += n;
    }

    /// `1234 MiB` (whole units, no floating point).
    fn size(&mut self, b: u64) {
        let (v, unit): (u64, &[u8]) = if b >= 10 << 30 {
            (b >> 30, b" GiB")
        } else if b >= 10 << 20 {
            (b >> 20, b" MiB")
        } else if b >= 10 << 10 {
            (b >> 10, b" KiB")
        } else {
            (b, b" bytes")
        };
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut v = v;
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.push(&digits[i..]);
        self.push(unit);
    }
}

// SAFETY: every call is forwarded to `System` unchanged; only a null result is turned into
// the end of the process.
unsafe impl GlobalAlloc for Guard {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            Guard::fail(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed` is passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            Guard::fail(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc` is passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            Guard::fail(new_size);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, file: &str, text: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
    }

    #[test]
    fn cgroup_limits_v2_and_v1_with_ancestors() {
        let t = tempfile::tempdir().unwrap();
        let m = t.path();
        // v2: the process's cgroup has no limit, its parent one of 1 GiB with 256 MiB used.
        write(&m.join("a/b"), "memory.max", "max\n");
        write(&m.join("a/b"), "memory.current", "1000\n");
        write(&m.join("a"), "memory.max", "1073741824\n");
        write(&m.join("a"), "memory.current", "268435456\n");
        assert_eq!(cgroup_room_in("0::/a/b\n", m), Some(805306368));
        // v1, beside it: the smaller room wins; "no limit" is a huge number.
        write(&m.join("memory/x"), "memory.limit_in_bytes", "536870912\n");
        write(&m.join("memory/x"), "memory.usage_in_bytes", "36870912\n");
        write(
            &m.join("memory"),
            "memory.limit_in_bytes",
            "9223372036854771712\n",
        );
        let both = "4:memory:/x\n1:cpu:/\n0::/a/b\n";
        assert_eq!(cgroup_room_in(both, m), Some(500000000));
        // No limit anywhere, or no files: none.
        assert_eq!(cgroup_room_in("0::/\n", &m.join("none")), None);
        assert_eq!(cgroup_room_in("3:cpu:/a\n", m), None);
    }

    #[test]
    fn human_sizes_and_the_allocators_message() {
        assert_eq!(human(0), "0 bytes");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(3 << 30), "3.0 GiB");
        let mut m = Msg::default();
        m.size(830 << 20);
        m.push(b" ");
        m.size(12345);
        assert_eq!(&m.bytes[..m.len], b"830 MiB 12 KiB");
    }
}
