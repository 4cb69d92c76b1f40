//! Is a block device in use by the system? A device is in use when it, or one of its
//! partitions, is mounted (`/proc/self/mountinfo`), held by another block device such as
//! device-mapper or md (`/sys/dev/block/M:N/holders`), or used as swap (`/proc/swaps`).
//! Last, the kernel is asked directly: an exclusive open fails while anything claims the
//! device. Writing to such a device destroys a file system or a volume the user did not name,
//! so the planner refuses it unless `allow_mounted_write=1` (as fio does).

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// A device number as (major, minor).
type DevNo = (u32, u32);

/// Why `path` (a block device) must not be written, or None when nothing uses it (or
/// it is not a block device).
pub fn device_in_use(path: &Path) -> Option<String> {
    let own = block_dev(path)?;
    let system = System {
        sys_dev_block: Path::new("/sys/dev/block"),
        mountinfo: &std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default(),
        swaps: &std::fs::read_to_string("/proc/swaps").unwrap_or_default(),
        dev_of: &|p: &str| block_dev(Path::new(p)),
    };
    in_use(&path.display().to_string(), own, &system).or_else(|| claimed(path))
}

/// The kernel's own answer: a block device opened with O_EXCL fails with EBUSY while
/// anything claims it (a mount, swap, dm, md, but also ZFS or a btrfs device that the
/// files above do not show). Opening read-only changes nothing.
fn claimed(path: &Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(path)
    {
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Some(format!(
            "{} is in use (the kernel refuses to open it exclusively: a file system, swap or volume manager holds it)",
            path.display()
        )),
        _ => None,
    }
}

/// Where the facts come from (the real system, or a fake one in tests).
struct System<'a> {
    /// /sys/dev/block: `M:N` links to each device's sysfs directory.
    sys_dev_block: &'a Path,
    /// The text of /proc/self/mountinfo and /proc/swaps.
    mountinfo: &'a str,
    swaps: &'a str,
    /// The device number of a device node path (mount sources, swap files).
    dev_of: &'a dyn Fn(&str) -> Option<DevNo>,
}

fn in_use(shown: &str, own: DevNo, sys: &System) -> Option<String> {
    let devices = device_and_partitions(sys.sys_dev_block, own);
    for m in parse_mountinfo(sys.mountinfo) {
        // Match by the mount's device number, or by its source when that is a device node
        // (btrfs and others report an anonymous device number).
        let by_source = if m.source.starts_with('/') {
            (sys.dev_of)(&m.source)
        } else {
            None
        };
        let hit = devices
            .iter()
            .position(|(d, _)| *d == m.dev || by_source.is_some_and(|s| s == *d));
        if let Some(i) = hit {
            return Some(format!(
                "{} appears mounted ({} on {})",
                subject(shown, i, &devices[i].1),
                m.fstype,
                m.mount_point
            ));
        }
    }
    for (i, (dev, name)) in devices.iter().enumerate() {
        let holders = holders_of(sys.sys_dev_block, *dev);
        if !holders.is_empty() {
            return Some(format!(
                "{} is held by {}",
                subject(shown, i, name),
                holders.join(", ")
            ));
        }
    }
    for swap in parse_swaps(sys.swaps) {
        if let Some(sdev) = (sys.dev_of)(&swap) {
            if let Some(i) = devices.iter().position(|(d, _)| *d == sdev) {
                return Some(format!(
                    "{} is in use as swap",
                    subject(shown, i, &devices[i].1)
                ));
            }
        }
    }
    None
}

/// `/dev/loop0`, or `/dev/loop0 (its partition loop0p1)` when the partition is the one in use.
fn subject(shown: &str, index: usize, name: &str) -> String {
    if index == 0 {
        shown.to_string()
    } else {
        format!("{shown} (its partition {name})")
    }
}

/// The device number of a block device node (None for anything else).
fn block_dev(path: &Path) -> Option<DevNo> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.file_type().is_block_device() {
        return None;
    }
    let rdev = meta.rdev();
    Some((libc::major(rdev), libc::minor(rdev)))
}

/// The device itself, then its partitions, each with its kernel name.
fn device_and_partitions(root: &Path, dev: DevNo) -> Vec<(DevNo, String)> {
    let sys = sys_dir(root, dev);
    let own_name = sys
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| format!("{}:{}", dev.0, dev.1));
    let mut out = vec![(dev, own_name)];
    let Some(sys) = sys else { return out };
    let Ok(entries) = std::fs::read_dir(&sys) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if !p.join("partition").exists() {
            continue;
        }
        let parsed = std::fs::read_to_string(p.join("dev"))
            .ok()
            .and_then(|s| parse_devno(s.trim()));
        if let Some(d) = parsed {
            out.push((d, e.file_name().to_string_lossy().into_owned()));
        }
    }
    out
}

/// /sys/dev/block/M:N resolved to the device's directory.
fn sys_dir(root: &Path, dev: DevNo) -> Option<PathBuf> {
    std::fs::canonicalize(root.join(format!("{}:{}", dev.0, dev.1))).ok()
}

/// Names of the block devices built on top of `dev` (dm-0, md127, ...).
fn holders_of(root: &Path, dev: DevNo) -> Vec<String> {
    let Some(dir) = sys_dir(root, dev) else {
        return Vec::new();
    };
    let mut names: Vec<String> = std::fs::read_dir(dir.join("holders"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn parse_devno(s: &str) -> Option<DevNo> {
    let (a, b) = s.split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// One line of /proc/self/mountinfo, the fields this module needs.
#[derive(Debug, PartialEq)]
struct Mount {
    dev: DevNo,
    mount_point: String,
    fstype: String,
    source: String,
}

/// mountinfo(5): `id parent M:N root mountpoint options [optional...] - fstype source superopts`.
fn parse_mountinfo(text: &str) -> Vec<Mount> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((head, tail)) = line.split_once(" - ") else {
            continue;
        };
        let f: Vec<&str> = head.split(' ').collect();
        let t: Vec<&str> = tail.split(' ').collect();
        if f.len() < 5 || t.len() < 2 {
            continue;
        }
        let Some(dev) = parse_devno(f[2]) else {
            continue;
        };
        out.push(Mount {
            dev,
            mount_point: unescape(f[4]),
            fstype: t[0].to_string(),
            source: unescape(t[1]),
        });
    }
    out
}

/// The device paths in /proc/swaps (first column after the header).
fn parse_swaps(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(unescape)
        .collect()
}

/// The kernel writes blanks, tabs, newlines and backslashes in paths as `\ooo` octal.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let oct = b
            .get(i + 1..i + 4)
            .filter(|d| b[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match oct {
            Some(d) => {
                let v = d.iter().fold(0u32, |a, c| a * 8 + (c - b'0') as u32);
                out.push(v as u8);
                i += 4;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines() {
        let text = "\
22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
90 22 7:0 / /mnt/my\\040disk rw - ext4 /dev/loop0 rw
91 22 0:45 / /data rw shared:5 master:2 - btrfs /dev/sdb rw
bogus line
";
        let m = parse_mountinfo(text);
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].dev, (259, 2));
        assert_eq!(m[1].mount_point, "/mnt/my disk");
        assert_eq!(m[1].source, "/dev/loop0");
        assert_eq!(m[2].fstype, "btrfs");
        assert_eq!(m[2].dev, (0, 45));
    }

    #[test]
    fn swaps_lines() {
        let text = "Filename\tType\tSize\tUsed\tPriority\n/dev/sda2   partition 100 0 -2\n/swap\\040file file 1 0 -3\n";
        assert_eq!(parse_swaps(text), vec!["/dev/sda2", "/swap file"]);
    }

    #[test]
    fn unescape_octal_only() {
        assert_eq!(unescape("a\\134b\\040"), "a\\b ");
        assert_eq!(unescape("a\\9"), "a\\9");
        assert_eq!(unescape("x\\04"), "x\\04");
    }

    /// A fake /sys/dev/block with loop0 (7:0) and its partitions loop0p1 (259:0) and
    /// loop0p2 (259:1), as the kernel lays them out.
    fn fake_sysfs(d: &Path, holder_of: Option<&str>) -> PathBuf {
        let dev = d.join("devices/virtual/block/loop0");
        for (part, no) in [("loop0p1", "259:0"), ("loop0p2", "259:1")] {
            std::fs::create_dir_all(dev.join(part).join("holders")).unwrap();
            std::fs::write(dev.join(part).join("partition"), "1\n").unwrap();
            std::fs::write(dev.join(part).join("dev"), format!("{no}\n")).unwrap();
        }
        std::fs::create_dir_all(dev.join("holders")).unwrap();
        std::fs::create_dir_all(dev.join("queue")).unwrap();
        if let Some(h) = holder_of {
            let at = if h == "loop0" {
                dev.clone()
            } else {
                dev.join(h)
            };
            std::fs::create_dir_all(at.join("holders/dm-0")).unwrap();
        }
        let links = d.join("dev/block");
        std::fs::create_dir_all(&links).unwrap();
        for (no, target) in [
            ("7:0", dev.clone()),
            ("259:0", dev.join("loop0p1")),
            ("259:1", dev.join("loop0p2")),
        ] {
            std::os::unix::fs::symlink(target, links.join(no)).unwrap();
        }
        links
    }

    fn check(holder_of: Option<&str>, mountinfo: &str, swaps: &str) -> Option<String> {
        let d = tempfile::tempdir().unwrap();
        let links = fake_sysfs(d.path(), holder_of);
        let dev_of = |p: &str| match p {
            "/dev/loop0" => Some((7, 0)),
            "/dev/loop0p2" => Some((259, 1)),
            _ => None,
        };
        let sys = System {
            sys_dev_block: &links,
            mountinfo,
            swaps,
            dev_of: &dev_of,
        };
        in_use("/dev/loop0", (7, 0), &sys)
    }

    const SWAPS_HEADER: &str = "Filename Type Size Used Priority\n";

    #[test]
    fn a_device_nothing_uses_is_free() {
        let mi = "22 1 259:9 / / rw - ext4 /dev/nvme0n1p2 rw\n";
        assert_eq!(check(None, mi, SWAPS_HEADER), None);
    }

    #[test]
    fn the_device_or_a_partition_mounted() {
        let mi = "90 22 7:0 / /mnt/a rw - ext4 /dev/loop0 rw\n";
        let e = check(None, mi, SWAPS_HEADER).unwrap();
        assert_eq!(e, "/dev/loop0 appears mounted (ext4 on /mnt/a)");
        let mi = "90 22 259:0 / /mnt/b rw - xfs /dev/loop0p1 rw\n";
        let e = check(None, mi, SWAPS_HEADER).unwrap();
        assert_eq!(
            e,
            "/dev/loop0 (its partition loop0p1) appears mounted (xfs on /mnt/b)"
        );
        // btrfs: an anonymous device number, the partition named as the source.
        let mi = "91 22 0:45 / /data rw - btrfs /dev/loop0p2 rw\n";
        let e = check(None, mi, SWAPS_HEADER).unwrap();
        assert!(
            e.contains("partition loop0p2") && e.contains("btrfs on /data"),
            "{e}"
        );
    }

    #[test]
    fn held_by_device_mapper_or_md() {
        let e = check(Some("loop0"), "", SWAPS_HEADER).unwrap();
        assert_eq!(e, "/dev/loop0 is held by dm-0");
        let e = check(Some("loop0p2"), "", SWAPS_HEADER).unwrap();
        assert_eq!(e, "/dev/loop0 (its partition loop0p2) is held by dm-0");
    }

    #[test]
    fn swap_on_the_device_or_a_partition() {
        let sw = format!("{SWAPS_HEADER}/dev/loop0p2 partition 1024 0 -2\n");
        let e = check(None, "", &sw).unwrap();
        assert_eq!(e, "/dev/loop0 (its partition loop0p2) is in use as swap");
        let sw = format!("{SWAPS_HEADER}/swapfile file 1024 0 -3\n");
        assert_eq!(check(None, "", &sw), None);
    }

    #[test]
    fn regular_files_and_char_devices_are_never_in_use() {
        assert_eq!(device_in_use(Path::new("/dev/null")), None);
        assert_eq!(device_in_use(Path::new("/proc/self/mountinfo")), None);
        assert_eq!(device_in_use(Path::new("/nonexistent/x")), None);
    }
}
