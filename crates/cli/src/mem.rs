//! Memory in the binary: the limit worked out once ([`init`], from `retrograde-mem`'s plan
//! with `--memory`), the one check every command makes before a big allocation, and the
//! allocator that turns a failed allocation into the same kind of error.
//!
//! [`check`] compares an estimate with the limit ("needs about X, limit Y (from ulimit
//! -v)"; the wording and the limits are `retrograde_mem`'s, which the Python package uses
//! too); where no estimate can be made, the global allocator ([`fail`]) ends the process
//! with exit status 2 and the same kind of message when an allocation fails, instead of
//! the standard library's abort (status 134).

pub use retrograde_mem::{give_back, human, open_files_limit, peak_rss_bytes, refusal, Limit};
use std::sync::OnceLock;

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
    let l = *LIMIT.get_or_init(|| retrograde_mem::detect(flag));
    retrograde_games::set_memory_limit(l.map(Limit::room));
    l
}

/// The limit worked out by [`init`] (worked out now without `--memory` if it was not).
pub fn limit() -> Option<Limit> {
    *LIMIT.get_or_init(|| retrograde_mem::detect(None))
}

/// The bytes a plan may use under the limit ([`Limit::room`]: the limit less what the
/// process holds beside the plan), for libraries that take a number.
pub fn limit_bytes() -> Option<u64> {
    limit().map(Limit::room)
}

/// Refuses `need` bytes over the limit: `{what} needs about X, limit Y (from ...)`.
///
/// # Errors
/// The refusal, when `need` is over the limit.
pub fn check(what: &str, need: u64) -> anyhow::Result<()> {
    retrograde_mem::check(what, need, limit()).map_err(anyhow::Error::msg)
}

/// What the global allocator (`retrograde_mem::Guard`, in `main.rs`) does when an
/// allocation fails: end the process with exit status 2 and a message naming the size and
/// the limit, rather than abort. (This also ends `try_reserve` callers; their own messages
/// are only the nicer form of the same error.)
#[cold]
pub fn fail(size: usize) -> ! {
    // `get` neither blocks nor allocates.
    let limit = LIMIT.get().copied().flatten();
    retrograde_mem::AllocationFailure::new(size as u64, limit).write_stderr();
    // SAFETY: ends the process at once (no destructors, nothing that could allocate).
    unsafe { libc::_exit(2) }
}
