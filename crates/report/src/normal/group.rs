//! `Run status group N (all jobs):` and its `   READ: bw=..` lines (fio's `show_group_stats`).

use crate::model::GroupReport;
use crate::model::Unified;
use crate::unified;
use crate::units::{is_pow2_base, num2str, sig_figs, N2sUnit};

const NAMES: [&str; 3] = ["   READ", "  WRITE", "   TRIM"];

/// The group's block, starting with its empty line; directions that never ran are left out.
pub fn render(g: &GroupReport) -> String {
    let mut out = format!("\nRun status group {} (all jobs):\n", g.groupid);
    let i2p = is_pow2_base(g.kb_base);
    let rate = N2sUnit::rate_for_unit_base(g.unit_base);
    let sf = sig_figs(g.sig_figs);
    let mixed = unified::merged_group(&g.dir);
    let both = (g.unified == Unified::Both).then_some((&mixed, "  MIXED"));
    for (d, name) in g.dir.iter().zip(NAMES).chain(both) {
        if d.max_run_ms == 0 {
            continue;
        }
        let name = if g.unified == Unified::Mixed {
            "  MIXED"
        } else {
            name
        };
        let n = |v: u64, pow2: bool, u: N2sUnit| num2str(v, sf, 1, pow2, u);
        out.push_str(&format!(
            "{}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec\n",
            name,
            n(d.agg_bw, i2p, rate),
            n(d.agg_bw, !i2p, rate),
            n(d.min_bw, i2p, rate),
            n(d.max_bw, i2p, rate),
            n(d.min_bw, !i2p, rate),
            n(d.max_bw, !i2p, rate),
            n(d.io_bytes, i2p, N2sUnit::Byte),
            n(d.io_bytes, !i2p, N2sUnit::Byte),
            d.min_run_ms,
            d.max_run_ms
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GroupDir;

    fn dir(io: u64, run: u64) -> GroupDir {
        let bw = io * 1000 / run;
        GroupDir {
            io_bytes: io,
            agg_bw: bw,
            min_bw: bw,
            max_bw: bw,
            min_run_ms: run,
            max_run_ms: run,
        }
    }

    #[test]
    fn randrw_like_fio() {
        // fio --name=t --ioengine=psync --rw=randrw --bs=4k --size=1M (fio 3.33)
        let g = GroupReport {
            groupid: 0,
            kb_base: 1024,
            unit_base: 0,
            sig_figs: 0,
            dir: [dir(528 * 1024, 9), dir(496 * 1024, 9), GroupDir::default()],
            unified: Unified::None,
        };
        assert_eq!(
            render(&g),
            "\nRun status group 0 (all jobs):
   READ: bw=57.3MiB/s (60.1MB/s), 57.3MiB/s-57.3MiB/s (60.1MB/s-60.1MB/s), io=528KiB (541kB), run=9-9msec
  WRITE: bw=53.8MiB/s (56.4MB/s), 53.8MiB/s-53.8MiB/s (56.4MB/s-56.4MB/s), io=496KiB (508kB), run=9-9msec
"
        );
    }

    #[test]
    fn unified_mixed_labels_the_one_direction_and_both_adds_a_mixed_line() {
        let mut g = GroupReport {
            dir: [dir(1 << 20, 2), dir(1 << 20, 4), GroupDir::default()],
            kb_base: 1024,
            unified: Unified::Both,
            ..Default::default()
        };
        let out = render(&g);
        let labels: Vec<&str> = out.lines().skip(2).map(|l| &l[..7]).collect();
        assert_eq!(labels, ["   READ", "  WRITE", "  MIXED"]);
        // fio: io adds up, run spans both directions.
        assert!(
            out.contains("  MIXED: bw=") && out.contains("io=2048KiB (2097kB), run=2-4msec"),
            "{out}"
        );
        g.unified = Unified::Mixed;
        g.dir = [dir(2 << 20, 4), GroupDir::default(), GroupDir::default()];
        assert!(render(&g)
            .lines()
            .nth(2)
            .unwrap()
            .starts_with("  MIXED: bw="));
    }

    #[test]
    fn kb_base_1000_and_bits() {
        // --kb_base=1000: SI first
        let mut g = GroupReport {
            groupid: 0,
            kb_base: 1000,
            unit_base: 0,
            sig_figs: 0,
            dir: [dir(1 << 20, 3), GroupDir::default(), GroupDir::default()],
            unified: Unified::None,
        };
        assert_eq!(
            render(&g).lines().nth(2).unwrap(),
            "   READ: bw=350MB/s (333MiB/s), 350MB/s-350MB/s (333MiB/s-333MiB/s), io=1049kB (1024KiB), run=3-3msec"
        );
        // --unit_base=1: bits
        g.kb_base = 1024;
        g.unit_base = 1;
        g.dir[0] = dir(1 << 20, 2);
        assert_eq!(
            render(&g).lines().nth(2).unwrap(),
            "   READ: bw=4000Mibit/s (4194Mbit/s), 4000Mibit/s-4000Mibit/s (4194Mbit/s-4194Mbit/s), io=1024KiB (1049kB), run=2-2msec"
        );
        // significant_figures=6
        g.unit_base = 0;
        g.sig_figs = 6;
        assert_eq!(
            render(&g).lines().nth(2).unwrap(),
            "   READ: bw=512000KiB/s (524288kB/s), 512000KiB/s-512000KiB/s (524288kB/s-524288kB/s), io=1024.0KiB (1048.6kB), run=2-2msec"
        );
    }

    #[test]
    fn empty_group_prints_only_its_title() {
        let g = GroupReport {
            groupid: 3,
            kb_base: 1024,
            ..Default::default()
        };
        assert_eq!(render(&g), "\nRun status group 3 (all jobs):\n");
    }
}
