//! `cargo run --release -p ferrio-clock --example clock_bench` — what
//! `ferrio --clock-bench` prints, preceded by the automatic choice and its cost.

fn main() {
    let t = std::time::Instant::now();
    match ferrio_clock::Clock::for_source(None) {
        Ok((c, why)) => {
            println!(
                "automatic clocksource: {} ({}), chosen in {:.1} ms",
                c.source_name(),
                c.details(),
                t.elapsed().as_secs_f64() * 1e3
            );
            if let Some(why) = why {
                println!("  {why}");
            }
        }
        Err(e) => println!("automatic clocksource failed: {e}"),
    }
    ferrio_clock::clock_bench(&mut std::io::stdout());
    std::hint::black_box(ferrio_clock_now_ns(&ferrio_clock::Clock::virtual_clock().0));
}

/// Kept out of line so the hot path can be inspected with
/// `objdump -d target/release/examples/clock_bench | grep -A60 '<ferrio_clock_now_ns>:'`.
#[inline(never)]
#[no_mangle]
pub fn ferrio_clock_now_ns(c: &ferrio_clock::Clock) -> u64 {
    c.now_ns()
}
