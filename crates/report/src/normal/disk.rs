//! `Disk stats (read/write):` (fio 3.33's `show_disk_util` / `print_disk_util`).

use crate::model::DiskUtil;

/// The section, or "" when no device was watched.
pub fn render(disks: &[DiskUtil]) -> String {
    if disks.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nDisk stats (read/write):\n");
    for d in disks {
        out.push_str(&format!(
            "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:3.2}%\n",
            d.name,
            d.read_ios,
            d.write_ios,
            d.read_merges,
            d.write_merges,
            d.read_ticks,
            d.write_ticks,
            d.in_queue,
            clamp_util(d.util)
        ));
    }
    out
}

/// fio caps utilisation at 100%.
pub fn clamp_util(u: f64) -> f64 {
    if u > 100.0 {
        100.0
    } else {
        u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_fio() {
        let d = DiskUtil {
            name: "vda".into(),
            read_ios: 913,
            write_ios: 457,
            read_merges: 0,
            write_merges: 0,
            read_ticks: 86,
            write_ticks: 237,
            in_queue: 324,
            util: 52.7123,
        };
        assert_eq!(
            render(&[d]),
            "\nDisk stats (read/write):\n  vda: ios=913/457, merge=0/0, ticks=86/237, in_queue=324, util=52.71%\n"
        );
        assert_eq!(render(&[]), "");
        assert_eq!(clamp_util(130.0), 100.0);
    }
}
