//! Parses arbitrary bytes as a police-thief map: must never panic; a small map is solved
//! (under a memory limit) and its verdict read.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    retrograde_fuzz::fuzz_police(data);
});
