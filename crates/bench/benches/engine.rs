//! `cargo bench -p retrograde-bench`: the engine benchmark (see the `retrograde_bench` crate
//! docs for what is measured). Prints a table; `harness = false`.

fn main() {
    retrograde_bench::main();
}
