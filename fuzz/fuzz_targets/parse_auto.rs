//! Parses arbitrary bytes with Format::Auto (format detection, then the detected parser):
//! must never panic; small graphs are checked and solved as in the other parse targets.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrograde_graph::format::Format;

fuzz_target!(|data: &[u8]| {
    retrograde_fuzz::fuzz_format(data, Format::Auto);
});
