//! `cargo run -p ferrio-clock --example clock_bench` — what `ferrio --clock-bench` prints.

fn main() {
    match ferrio_clock::Clock::for_source(None) {
        Ok((c, why)) => {
            println!(
                "automatic clocksource: {} ({})",
                c.source_name(),
                c.details()
            );
            if let Some(why) = why {
                println!("  {why}");
            }
        }
        Err(e) => println!("automatic clocksource failed: {e}"),
    }
    ferrio_clock::clock_bench(&mut std::io::stdout());
}
