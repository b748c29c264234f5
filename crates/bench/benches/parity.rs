//! `cargo bench -p retrograde-bench --bench parity`: parity games side by side with Oink (see
//! `retrograde_bench::parity` for what is measured and what it needs). Prints a table;
//! `harness = false`.

fn main() {
    retrograde_bench::parity::main();
}
