//! `--crctest[=TYPES]`: each verify checksum's throughput over 256 MiB of random
//! data in 128 KiB chunks, printed as fio prints it (`name:\t\t  123.45 MiB/sec`).
//! fio's list also has murmur3, jhash and fnv, which no verify= uses; ferrio
//! measures the verify checksums only.

use ferrio_config::ext::verify::{VerifyKind, VERIFY_KINDS};
use std::io::Write;
use std::time::Instant;

const CHUNK: usize = 128 * 1024;
const CHUNKS: usize = 2048;

/// Measure `types` (names from ferrio_config::cli::CRC_TYPES) and print each.
pub fn run(types: &[&str], out: &mut dyn Write) {
    let mut buf = vec![0u8; CHUNK];
    crate::random::fill::fill_from_seed(&mut buf, 0x8989);
    let mut first = true;
    for &name in types {
        let Some(kind) = VERIFY_KINDS.iter().find(|k| k.0 == name).map(|k| k.1) else {
            continue;
        };
        if first {
            // Touch the data and let the CPU clock up, as fio does.
            once(kind, &buf);
            first = false;
        }
        let t = Instant::now();
        for _ in 0..CHUNKS {
            once(kind, &buf);
        }
        let _ = writeln!(out, "{}", line(name, t.elapsed().as_micros() as u64));
    }
}

fn once(kind: VerifyKind, buf: &[u8]) {
    let mut sum = [0u8; 128];
    super::checksum::compute(kind, buf, &mut sum[..super::checksum::size(kind)]);
    std::hint::black_box(&sum);
}

/// fio's line: MiB/s from bytes per µs (fio divides by 1.024², from 10^6 B/s).
fn line(name: &str, usec: u64) -> String {
    if usec == 0 {
        return format!("{name}:inf MiB/sec");
    }
    let mb = (CHUNK * CHUNKS) as f64 / usec as f64 / (1.024 * 1.024);
    let pre = if name.len() >= 7 { "\t" } else { "\t\t" };
    format!("{name}:{pre}{mb:8.2} MiB/sec")
}

#[cfg(test)]
mod tests {
    #[test]
    fn lines_look_like_fio() {
        assert_eq!(super::line("md5", 524288), "md5:\t\t  488.28 MiB/sec");
        assert_eq!(super::line("sha3-224", 0), "sha3-224:inf MiB/sec");
        assert!(super::line("sha3-224", 1).starts_with("sha3-224:\t"));
    }
}
