//! Reads arbitrary bytes as a solution CSV for `verify`: must never panic (see
//! `fuzz_verify_csv`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    retrograde_fuzz::fuzz_verify_csv(data);
});
