//! Parses arbitrary bytes as an IOI Score instance: must never panic; a small one is solved
//! and has a winner, 1 or 2.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    retrograde_fuzz::fuzz_scores(data);
});
