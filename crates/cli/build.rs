//! Decides, when the crate is built, whether the browser tests (`tests/serve.rs`) can run.
//! They drive Chromium over WebDriver: without both programs they are built as ignored, so
//! that `cargo test` counts them as ignored, with the reason, instead of as passed without
//! running. Under CI (`CI=true`, which installs both) they are always built to run, and fail
//! when a program is missing.

use std::path::Path;

/// Debian's paths, unless the environment names others (as the tests read them).
const PROGRAMS: [(&str, &str); 2] = [
    ("RETRO_CHROMIUM", "/usr/bin/chromium"),
    ("RETRO_CHROMEDRIVER", "/usr/bin/chromedriver"),
];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_browser)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CI");
    let mut found = true;
    for (var, default) in PROGRAMS {
        println!("cargo::rerun-if-env-changed={var}");
        let path = std::env::var(var).unwrap_or_else(|_| default.to_string());
        let path = Path::new(&path);
        found &= path.is_file();
        // Decided again when the program is installed or removed: its directory changes
        // (watching a file that is not there would run this script at every build).
        if let Some(parent) = path.parent().filter(|p| p.is_dir()) {
            println!("cargo::rerun-if-changed={}", parent.display());
        }
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if !found && !ci {
        println!("cargo::rustc-cfg=no_browser");
    }
}
