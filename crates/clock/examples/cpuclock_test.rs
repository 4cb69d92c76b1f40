//! `cargo run -p ferrio-clock --example cpuclock_test` — what `ferrio --cpuclock-test` prints.

fn main() {
    let pass = ferrio_clock::cpuclock_test(&mut std::io::stdout());
    std::process::exit(if pass { 0 } else { 1 });
}
