//! Streaming text parser: feeding the input in two or three pieces must give the same result
//! as feeding it at once.
//!
//! Input layout: byte 0 picks the mode (bit 0: `rg` or plain `edges`; bit 1: three pieces
//! instead of two), bytes 1-2 and 3-4 are little-endian cut positions (taken modulo the text
//! length + 1, so empty pieces happen too); the rest is the text.
//!
//! Asserts: both runs fail with the same line and message, or both succeed; then, when the
//! builders are small enough to lay out (see `retrograde_fuzz::small`), `build()` gives the same error or
//! graphs with identical successor lists (in order, with go-again flags), labels, names,
//! owners and start, and the graph passes the same checks as the parse targets.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrograde_fuzz::{check_graph, small, solve_and_verify, Shape};
use retrograde_graph::format::{Format, ParseError, ParseOptions, TextParser};
use retrograde_graph::GraphBuilder;

fn run(format: Format, pieces: &[&[u8]]) -> Result<GraphBuilder, ParseError> {
    let mut p = TextParser::new(format);
    for piece in pieces {
        p.feed(piece)?;
    }
    p.finish(&ParseOptions::default())
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 5 {
        return;
    }
    let mode = data[0];
    let format = if mode & 1 == 0 { Format::Rg } else { Format::Edges };
    let three = mode & 2 != 0;
    let text = &data[5..];
    let cut = |lo: u8, hi: u8| u16::from_le_bytes([lo, hi]) as usize % (text.len() + 1);
    let (mut a, mut b) = (cut(data[1], data[2]), cut(data[3], data[4]));
    if a > b {
        std::mem::swap(&mut a, &mut b);
    }
    let pieces: Vec<&[u8]> = if three {
        vec![&text[..a], &text[a..b], &text[b..]]
    } else {
        vec![&text[..a], &text[a..]]
    };

    let whole = run(format, &[text]);
    let split = run(format, &pieces);
    match (whole, split) {
        (Err(x), Err(y)) => {
            assert_eq!(x.line, y.line, "error lines differ: {x} vs {y}");
            assert_eq!(x.message, y.message, "error messages differ");
        }
        (Ok(x), Ok(y)) => {
            assert_eq!(x.edge_count(), y.edge_count());
            assert_eq!(x.vertex_count(), y.vertex_count());
            if !small(&x) {
                return;
            }
            let (x, y) = (x.build(), y.build());
            match (x, y) {
                (Err(x), Err(y)) => assert_eq!(x, y),
                (Ok(x), Ok(y)) => {
                    assert_eq!(x.vertex_count(), y.vertex_count());
                    assert_eq!(Shape::of(&x), Shape::of(&y));
                    check_graph(&y);
                    solve_and_verify(&y);
                }
                (x, y) => panic!("build differs: whole {:?}, split {:?}", x.err(), y.err()),
            }
        }
        (x, y) => panic!(
            "whole input gives {:?}, pieces at {a}/{b} give {:?}",
            x.err(),
            y.err()
        ),
    }
});
