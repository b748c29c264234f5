//! Types arbitrary lines into a play session: must never panic (see `fuzz_play`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    retrograde_fuzz::fuzz_play(data);
});
