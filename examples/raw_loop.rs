//! The bench's reference loops (issue 21): `cargo run --release --example raw_loop --
//! io_uring|libaio FILE [SECONDS] [DEPTH] [SUBMIT] [COMPLETE_MIN] [COMPLETE_MAX]` reads
//! random 4 KiB blocks of FILE with nothing but the I/O, batched as fio's
//! iodepth_batch_submit, iodepth_batch_complete_min and iodepth_batch_complete_max
//! (defaults: depth 32, submit 32, min = submit, max = min; max 0: every completion
//! there, as fio's t/io_uring); `null [SECONDS] [CLOCKSOURCE]` reads the clock twice
//! per iteration. Prints one JSON line: {"loop", "ios", "secs", "per_sec", "cpu_secs",
//! "per_cpu_sec"} (cpu_secs: the loop thread's user + system time).

use ferrio::engine::raw_loop;
use std::path::Path;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: raw_loop io_uring|libaio FILE [SECONDS] [DEPTH] [SUBMIT] [COMPLETE_MIN] [COMPLETE_MAX] | null [SECONDS] [CLOCKSOURCE]";
    let kind = args
        .first()
        .map(String::as_str)
        .unwrap_or_else(|| fail(usage));
    let num = |i: usize, default: f64| -> f64 {
        args.get(i)
            .map(|v| {
                v.parse()
                    .unwrap_or_else(|_| fail(&format!("not a number: {v}")))
            })
            .unwrap_or(default)
    };
    let result = match kind {
        "io_uring" | "libaio" => {
            let file = args.get(1).unwrap_or_else(|| fail(usage));
            let secs = Duration::from_secs_f64(num(2, 3.0));
            let depth = num(3, 32.0) as u32;
            let submit = num(4, depth as f64) as u32;
            let complete_min = num(5, submit as f64) as u32;
            let batch = raw_loop::Batch {
                submit,
                complete_min,
                complete_max: num(6, complete_min as f64) as u32,
            };
            let run = if kind == "io_uring" {
                raw_loop::uring_randread
            } else {
                raw_loop::aio_randread
            };
            run(Path::new(file), 4096, depth, batch, secs)
                .unwrap_or_else(|e| fail(&format!("{kind}: {e}")))
        }
        "null" => {
            let source = args.get(2).map(String::as_str).unwrap_or("cpu");
            let (clock, _) =
                ferrio_clock::Clock::for_source(Some(source)).unwrap_or_else(|e| fail(&e));
            raw_loop::two_timestamps(&clock, Duration::from_secs_f64(num(1, 3.0)))
        }
        _ => fail(usage),
    };
    println!(
        "{{\"loop\": \"{kind}\", \"ios\": {}, \"secs\": {:.6}, \"per_sec\": {:.1}, \"cpu_secs\": {:.6}, \"per_cpu_sec\": {:.1}}}",
        result.ios,
        result.secs,
        result.per_sec(),
        result.cpu_secs,
        result.per_cpu_sec()
    );
}

fn fail(msg: &str) -> ! {
    eprintln!("raw_loop: {msg}");
    std::process::exit(1)
}
