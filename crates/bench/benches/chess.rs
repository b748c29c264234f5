//! `cargo bench -p retrograde-bench --bench chess`: every chess ending of 3 and 4 pieces
//! (see `retrograde_bench::chess`). Prints a table; `harness = false`.

fn main() {
    retrograde_bench::chess::main();
}
