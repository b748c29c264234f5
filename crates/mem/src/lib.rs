//! The memory plan: how much this process may still use, the estimates compared with it
//! before anything big is allocated, and the one wording of a refusal.
//!
//! The command line and the Python package both call it, so that they refuse the same
//! inputs with the same message ("needs about 171.8 GiB of memory, limit 14.4 GiB (from
//! MemAvailable)") instead of one of them aborting or being killed.
//!
//! The limit is the smallest of four, each with its source named in messages:
//! - `ulimit -v`: `RLIMIT_AS` (address space) less what is already mapped (`VmSize`), and
//!   `RLIMIT_DATA` less the data already mapped (`VmData`);
//! - `cgroup`: the memory limit of this process's cgroup and its ancestors (v2
//!   `memory.max` less `memory.current`, v1 `memory.limit_in_bytes` less
//!   `memory.usage_in_bytes`), found through `/proc/self/cgroup`;
//! - `MemAvailable`: what the kernel says it can still give (`/proc/meminfo`);
//! - `--memory` (Python: `memory=`): what the user allows.
//!
//! Under a cgroup limit the kernel kills a process rather than failing an allocation,
//! which is why estimates come first wherever they can.
//!
//! `--memory` is a peak for the whole process: an estimate counts only the structures of
//! a solve, so it is compared with the limit's *room* ([`Limit::room`]), and a refusal shows
//! the whole process's need ([`Limit::need`]: the estimate, an eighth more for the
//! allocator's slack, and the process's own pages).
//!
//! ```
//! use retrograde_mem::{check, graph_bytes, Limit, Source};
//! let limit = Some(Limit::flag(1 << 30));
//! assert!(check("g.txt: 10 vertices", graph_bytes(10, 20), limit).is_ok());
//! let e = check("g.txt: 4000000001 vertices", graph_bytes(4_000_000_001, 1), limit);
//! assert_eq!(
//!     e.unwrap_err(),
//!     "g.txt: 4000000001 vertices needs about 171.8 GiB of memory, limit 1.0 GiB (from --memory)"
//! );
//! ```
#![warn(missing_docs)]

use std::path::Path;

/// Where a memory limit comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `RLIMIT_AS` or `RLIMIT_DATA`.
    Ulimit,
    /// The cgroup's memory limit.
    Cgroup,
    /// `MemAvailable` in `/proc/meminfo`.
    Available,
    /// `--memory SIZE` (Python: `memory=`).
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
    /// Bytes.
    pub bytes: u64,
    /// What sets it.
    pub source: Source,
    /// What the process holds of its own beside a plan's structures, for a limit on the
    /// whole process (`--memory`): [`OWN_PAGES`]; 0 for the system's limits, which are
    /// room left after what is in use already.
    pub own: u64,
}

/// What the binary holds of its own, whatever it solves: its code and libraries, the
/// standard library's and the thread pool's first pages. Measured: its peak resident set on
/// the smallest games was 8.5 to 11.2 MiB (release build, 2 threads).
pub const OWN_PAGES: u64 = 14 << 20;

/// A plan's structures are counted with an eighth more for what the allocator keeps of the
/// memory freed between them (glibc's heap held 10% over the live bytes at Kalah 4x3's
/// peak).
pub const SLACK: u64 = 8;

impl Limit {
    /// A limit on the whole process of `bytes` (`--memory`; Python's `memory=`, where the
    /// interpreter's own pages are the caller's, not counted).
    pub fn flag(bytes: u64) -> Limit {
        Limit {
            bytes,
            source: Source::Flag,
            own: OWN_PAGES,
        }
    }

    /// A limit of the system's: room left after what is in use already.
    pub fn system(bytes: u64, source: Source) -> Limit {
        Limit {
            bytes,
            source,
            own: 0,
        }
    }

    /// The whole need of a plan of `plan` bytes: the plan, an eighth more for the
    /// allocator ([`SLACK`]) and what the process holds of its own ([`Limit::own`]). A
    /// refusal shows this; a run is allowed when it is within the limit.
    pub fn need(self, plan: u64) -> u64 {
        plan.saturating_add(plan / SLACK).saturating_add(self.own)
    }

    /// The bytes a plan may use: the largest plan whose [`Limit::need`] is within the
    /// limit. Every estimate is compared with this, and a solver keeps within it.
    pub fn room(self) -> u64 {
        // `p + p / SLACK` for p = SLACK q + s (s < SLACK) is (SLACK + 1) q + s.
        let free = self.bytes.saturating_sub(self.own);
        SLACK * (free / (SLACK + 1)) + (free % (SLACK + 1)).min(SLACK - 1)
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (from {})", human(self.bytes), self.source.as_str())
    }
}

/// The smallest of every limit that applies now, `flag` (the user's, in bytes) included.
pub fn detect(flag: Option<u64>) -> Option<Limit> {
    smallest(flag, system_limits())
}

/// The smallest of the user's limit (`flag`, in bytes) and the system's.
fn smallest(flag: Option<u64>, system: Vec<Limit>) -> Option<Limit> {
    let user = flag.map(Limit::flag);
    user.into_iter().chain(system).min_by_key(|l| l.bytes)
}

/// Every limit the system sets now: ulimits less what is in use, the cgroup's room, the
/// memory available.
fn system_limits() -> Vec<Limit> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| kb_field(&status, name);
    let mut all = Vec::new();
    for (resource, used) in [
        (libc::RLIMIT_AS, field("VmSize:")),
        (libc::RLIMIT_DATA, field("VmData:")),
    ] {
        if let Some(max) = rlimit(resource) {
            all.push(Limit::system(
                max.saturating_sub(used.unwrap_or(0)),
                Source::Ulimit,
            ));
        }
    }
    if let Some(bytes) = cgroup_room() {
        all.push(Limit::system(bytes, Source::Cgroup));
    }
    if let Some(bytes) = available_bytes() {
        all.push(Limit::system(bytes, Source::Available));
    }
    all
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

/// Gives the pages of the allocator's free memory back to the system (glibc's
/// `malloc_trim`; nothing elsewhere). glibc keeps what is freed between chunks still in use
/// in its heap, where the resident set counts it until something reuses it: a solver that
/// has just dropped tables calls this before it allocates the next one's work, so that the
/// resident set follows what is in use (KRPvKP's chess endings under `--memory 3G`: 50 to
/// 90 MiB less between tables).
pub fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages to the system; it takes the arena's lock
    // like any allocation and leaves every chunk in use where it is.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Memory the system can still give (Linux `MemAvailable`), when it tells.
pub fn available_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    kb_field(&info, "MemAvailable:")
}

/// Bytes needed to lay out and solve a graph of `n` vertices and `m` edges: 16 per edge at
/// the layout's peak (grouping buffer, forward and reverse targets), 41 per vertex
/// (offsets, solver state, counters, queue, best moves). Saturating: a count past what can
/// be counted needs "more than any limit".
pub fn graph_bytes(n: u64, m: u64) -> u64 {
    n.saturating_mul(41).saturating_add(m.saturating_mul(16))
}

/// What sets a graph file's vertex count, for messages: `g.txt: 5000000000 vertices and 1
/// edges (the largest vertex id or `vertices` line sets the vertex count) needs about ...`.
pub const VERTEX_COUNT_OF_A_FILE: &str =
    "the largest vertex id or `vertices` line sets the vertex count";

/// The one message of a refusal of a plan of `need` bytes: `needs about 4.1 GiB of memory,
/// limit 1.9 GiB (from ulimit -v)`, the need shown as the whole process's ([`Limit::need`]).
pub fn refusal(need: u64, limit: Limit) -> String {
    Refusal::of(need, limit).to_string()
}

/// A need over the limit: its message is [`refusal`]'s.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Bytes needed.
    pub need: u64,
    /// The limit they are over.
    pub limit: Limit,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "needs about {} of memory, limit {}",
            human(self.need),
            self.limit
        )
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    /// The refusal of a plan of `need` bytes, shown as the whole process's need
    /// ([`Limit::need`]).
    pub fn of(need: u64, limit: Limit) -> Refusal {
        Refusal {
            need: limit.need(need),
            limit,
        }
    }
}

/// The one rule: a plan of `need` bytes is refused when it is over the limit's room
/// ([`Limit::room`]: when the whole process's need, [`Limit::need`], is over the limit).
///
/// # Errors
/// The refusal.
pub fn within(need: u64, limit: Option<Limit>) -> Result<(), Refusal> {
    match limit {
        Some(l) if need > l.room() => Err(Refusal::of(need, l)),
        _ => Ok(()),
    }
}

/// Refuses `need` bytes over `limit`: `{what} needs about X of memory, limit Y (from ...)`.
///
/// # Errors
/// The refusal, when `need` is over the limit.
pub fn check(what: &str, need: u64, limit: Option<Limit>) -> Result<(), String> {
    within(need, limit).map_err(|r| format!("{what} {r}"))
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

/// A size as people write it: `20G`, `512M`, `64K`, `1000` (bytes); binary units.
///
/// # Errors
/// Anything else, with an example of what is expected.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                'B' => 0,
                _ => {
                    return Err(format!(
                        "expected a size like 20G or 512M (units K, M, G, T), found {s:?}"
                    ))
                }
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("expected a size like 20G or 512M, found {s:?}"))?;
    if !(n.is_finite() && n >= 0.0) {
        return Err(format!("expected a size like 20G or 512M, found {s:?}"));
    }
    Ok((n * (1u64 << shift) as f64) as u64)
}

/// The global allocator of a binary or an extension: the system's, except that when an
/// allocation fails it calls its function with the size asked for, where the standard
/// library would abort (status 134) with a message of its own. The function must not
/// allocate, unwind or return: it ends the process with a message
/// ([`AllocationFailure`]), or (the Python extension) stops the thread that failed.
///
/// ```no_run
/// static GLOBAL: retrograde_mem::Guard = retrograde_mem::Guard(fail);
/// fn fail(size: usize) -> ! {
///     retrograde_mem::AllocationFailure::new(size as u64, None).write_stderr();
///     std::process::abort()
/// }
/// ```
pub struct Guard(pub fn(usize) -> !);

// SAFETY: every call is forwarded to `System` unchanged; only a null result is handed to
// the failure function, which does not return.
unsafe impl std::alloc::GlobalAlloc for Guard {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on.
        let p = unsafe { std::alloc::System.alloc(layout) };
        if p.is_null() {
            (self.0)(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed` is passed on.
        let p = unsafe { std::alloc::System.alloc_zeroed(layout) };
        if p.is_null() {
            (self.0)(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc` is passed on.
        let p = unsafe { std::alloc::System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            (self.0)(new_size);
        }
        p
    }
}

/// The message of a failed allocation, built without allocating (an allocator that failed
/// cannot allocate its message): `out of memory: an allocation of 32 GiB failed, limit 14
/// GiB (from MemAvailable)`, sizes in whole units.
pub struct AllocationFailure {
    bytes: [u8; 256],
    len: usize,
}

impl AllocationFailure {
    /// The message for `size` bytes, naming `limit` when one is known.
    pub fn new(size: u64, limit: Option<Limit>) -> AllocationFailure {
        let mut m = AllocationFailure {
            bytes: [0; 256],
            len: 0,
        };
        m.push(b"out of memory: an allocation of ");
        m.size(size);
        m.push(b" failed");
        if let Some(l) = limit {
            m.push(b", limit ");
            m.size(l.bytes);
            m.push(b" (from ");
            m.push(l.source.as_str().as_bytes());
            m.push(b")");
        }
        m
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever pushed.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("out of memory")
    }

    /// Writes `retrograde: ` and the message, with a newline, to standard error (file
    /// descriptor 2, directly: no buffer, no allocation).
    pub fn write_stderr(&self) {
        for part in [b"retrograde: ".as_slice(), &self.bytes[..self.len], b"\n"] {
            // SAFETY: writes initialized bytes of a live buffer; a short or failed write
            // loses part of a message, nothing else.
            unsafe {
                libc::write(2, part.as_ptr().cast(), part.len());
            }
        }
    }

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
    fn the_allocators_message() {
        let limit = Limit::system(12345, Source::Available);
        assert_eq!(
            AllocationFailure::new(830 << 20, Some(limit)).as_str(),
            "out of memory: an allocation of 830 MiB failed, limit 12 KiB (from MemAvailable)"
        );
        assert_eq!(
            AllocationFailure::new(5, None).as_str(),
            "out of memory: an allocation of 5 bytes failed"
        );
    }

    #[test]
    fn the_room_is_the_largest_plan_within_the_limit() {
        for bytes in (0..2000).chain([u64::MAX, 1 << 40, (1 << 30) + 7]) {
            for source in [Source::Available, Source::Flag] {
                let l = match source {
                    Source::Flag => Limit::flag(bytes),
                    _ => Limit::system(bytes, source),
                };
                let room = l.room();
                if bytes >= l.own {
                    assert!(l.need(room) <= bytes, "{bytes}: {room}");
                    if bytes < u64::MAX {
                        assert!(l.need(room + 1) > bytes, "{bytes}: {room}");
                    }
                }
                assert!(room <= bytes);
            }
        }
        let l = Limit::flag(100 << 20);
        assert!(l.own >= OWN_PAGES);
        assert_eq!(l.need(8 << 20), (9 << 20) + l.own);
        let refused = within(90 << 20, Some(l)).unwrap_err();
        assert!(refused.need >= (90 << 20) + (90 << 20) / 8 + OWN_PAGES);
        assert_eq!(refused.limit, l);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(0), "0 bytes");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(3 << 30), "3.0 GiB");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("20G"), Ok(20 << 30));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1.5K"), Ok(1536));
        assert_eq!(parse_size("100"), Ok(100));
        assert!(parse_size("x").is_err());
        assert!(parse_size("5Q").is_err());
        assert!(parse_size("-1G").is_err());
    }

    #[test]
    fn the_user_limit_is_never_above_the_system_ones() {
        // The rule, on fixed limits (the live ones change between two reads: memory
        // available moves with every other test running beside this one).
        let at = |bytes, source| Some((bytes, source));
        let seen = |l: Option<Limit>| l.map(|l| (l.bytes, l.source));
        let system = vec![
            Limit::system(7000, Source::Cgroup),
            Limit::system(5000, Source::Available),
        ];
        let huge = smallest(Some(u64::MAX), system.clone());
        assert_eq!(seen(huge), at(5000, Source::Available));
        assert_eq!(
            seen(smallest(None, system.clone())),
            at(5000, Source::Available)
        );
        assert_eq!(seen(smallest(Some(1000), system)), at(1000, Source::Flag));
        assert_eq!(seen(smallest(Some(9), vec![])), at(9, Source::Flag));
        assert_eq!(smallest(None, vec![]), None);
        // And live: a limit above every system one is not the one that holds.
        if detect(None).is_some() {
            assert_ne!(detect(Some(u64::MAX)).unwrap().source, Source::Flag);
        }
        let small = detect(Some(1000)).unwrap();
        assert_eq!(small.source, Source::Flag);
        assert_eq!(small.bytes, 1000);
    }
}
