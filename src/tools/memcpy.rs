//! `--memcpytest`: copy throughput of a few copy methods over fio's chunk sizes
//! (8 bytes to 512 KiB), like fio's test of the same name. Each method copies a
//! 32 MiB buffer chunk by chunk, 8 times over, and prints MiB/s per chunk size.

use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

const BUF: usize = 32 << 20;
const PASSES: usize = 8;
const SIZES: &[usize] = &[8, 16, 96, 128, 256, 512, 2048, 8192, 131072, 262144, 524288];

fn simple(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        // black_box keeps the compiler from turning the loop back into memcpy.
        *d = black_box(*s);
    }
}

/// Copies the buffer in `chunk`-sized pieces with method `name`.
fn pass(name: &str, chunk: usize, src: &[u8], dst: &mut [u8]) {
    let mut off = 0;
    while off < src.len() {
        let end = (off + chunk).min(src.len());
        match name {
            "memcpy" => dst[off..end].copy_from_slice(&src[off..end]),
            // Within one buffer, overlapping by half a chunk: what memmove is for.
            "memmove" => dst.copy_within(off..end, off.saturating_sub(chunk / 2)),
            "simple" => simple(&mut dst[off..end], &src[off..end]),
            _ if chunk >= 64 => simple(&mut dst[off..end], &src[off..end]),
            _ => dst[off..end].copy_from_slice(&src[off..end]),
        }
        off = end;
    }
    black_box(&dst[..]);
}

/// Runs the named methods (from `ferrio_config::MEMCPY_TYPES`) and prints the table.
pub fn run(types: &[&str], out: &mut dyn Write) {
    let src: Vec<u8> = (0..BUF)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let mut dst = vec![0u8; BUF];
    for t in types {
        pass(t, 4096, &src, &mut dst); // warm up: touch every page
        let _ = writeln!(out, "{t}");
        for &size in SIZES {
            let start = Instant::now();
            for _ in 0..PASSES {
                pass(t, size, &src, &mut dst);
            }
            let secs = start.elapsed().as_secs_f64();
            let mib = (BUF * PASSES) as f64 / (1 << 20) as f64;
            let _ = writeln!(out, "\t{size} bytes:\t{:8.2} MiB/sec", mib / secs.max(1e-9));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_copies_the_bytes() {
        let src: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        for t in ["memcpy", "simple", "hybrid"] {
            for chunk in [8, 96, 1000] {
                let mut dst = vec![0u8; 1000];
                pass(t, chunk, &src, &mut dst);
                assert_eq!(dst, src, "{t} {chunk}");
            }
        }
    }

    #[test]
    fn the_method_list_is_the_configs() {
        let names: Vec<&str> = ferrio_config::MEMCPY_TYPES.iter().map(|t| t.0).collect();
        assert_eq!(names, ["memcpy", "memmove", "simple", "hybrid"]);
    }
}
