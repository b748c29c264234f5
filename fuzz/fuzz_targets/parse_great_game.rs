//! Parses arbitrary bytes as Great Game cases: must never panic; small cases are solved by all
//! three methods, which must agree.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    retrograde_fuzz::fuzz_great_game(data);
});
