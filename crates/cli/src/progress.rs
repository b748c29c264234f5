//! Progress bars for long phases, on standard error, only when it is a terminal and
//! `--quiet` was not given (so scripts and tests never see them).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Turns the bars off for the whole run (`--quiet`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `--quiet` was given (or this is not the printing rank).
pub fn is_quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// A bar of `len` steps labelled `prefix`, with a rate and an ETA; hidden when quiet or when
/// standard error is not a terminal.
pub fn bar(len: u64, prefix: &str) -> ProgressBar {
    if QUIET.load(Ordering::Relaxed) {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template(
            "{prefix:>10} [{elapsed_precise}] [{wide_bar}] {human_pos}/{human_len} {msg} (ETA {eta})",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    b.set_prefix(prefix.to_string());
    b
}
