//! Per-command I/O priorities (cmdprio_percentage, cmdprio_class, cmdprio,
//! cmdprio_bssplit: io_uring and libaio) and uncached buffered I/O (uncached=:
//! io_uring and pvsync2), as fio 3.33 defines them (docs/engines.md, "Per-I/O
//! priorities"), with fio 3.4x's priority hints (cmdprio_hint, a 5th bssplit field).
//! Values are per data direction (read, write); trims never carry one.

/// The realtime class: fio's class for cmdprio when cmdprio_class is not given.
pub const CLASS_RT: u32 = 1;
/// The best-effort class: fio's class for an ioprio value built with class 0.
pub const CLASS_BE: u32 = 2;

/// The largest priority hint (10 bits, fio's IOPRIO_MAX_PRIO_HINT).
pub const MAX_HINT: u32 = (1 << 10) - 1;

/// fio's ioprio_value(): the class in bits 13.., the hint in bits 3..13, the level
/// below; class 0 is best effort.
pub fn ioprio_value(class: u32, level: u32, hint: u32) -> u32 {
    let class = if class == 0 { CLASS_BE } else { class };
    (class << 13) | (hint << 3) | level
}

/// One cmdprio_bssplit entry: I/Os of `bs` bytes get priority `prio` (an ioprio
/// value; None: the cmdprio_class/cmdprio one) `perc` percent of the time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrioSplit {
    pub bs: u64,
    pub perc: u32,
    pub prio: Option<u32>,
}

/// The job's cmdprio and uncached options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrioSpec {
    /// cmdprio_percentage=: percent of read, write I/Os sent with the cmdprio priority.
    pub percentage: [u32; 2],
    /// cmdprio_class=: 0 when not given (realtime, as fio).
    pub class: [u32; 2],
    /// cmdprio=: the level (0 highest .. 7).
    pub level: [u32; 2],
    /// cmdprio_hint=: the priority hint (0 none .. 1023; fio 3.4x).
    pub hint: [u32; 2],
    /// cmdprio_bssplit=: per direction, sorted by block size, zero percentages dropped.
    pub bssplit: Option<[Vec<PrioSplit>; 2]>,
    /// uncached=1: RWF_DONTCACHE on buffered reads and writes.
    pub uncached: bool,
}

impl PrioSpec {
    /// Whether any I/O may get a per-command priority (fio's CMDPRIO_MODE_* != NONE).
    pub fn cmdprio_in_use(&self) -> bool {
        self.bssplit.is_some() || self.percentage.iter().any(|&p| p > 0)
    }

    /// The priority a direction's cmdprio I/Os get when no bssplit entry names one.
    pub fn cmdprio_value(&self, d: usize) -> u32 {
        let class = if self.class[d] == 0 {
            CLASS_RT
        } else {
            self.class[d]
        };
        ioprio_value(class, self.level[d], self.hint[d])
    }

    /// fio's cross-option rules (fio_cmdprio_init).
    pub fn check(&self) -> Result<(), String> {
        if self.bssplit.is_some() && self.percentage.iter().any(|&p| p > 0) {
            return Err(
                "cmdprio_percentage and cmdprio_bssplit options are mutually exclusive".into(),
            );
        }
        if let Some(split) = &self.bssplit {
            for dir in split {
                let mut i = 0;
                while i < dir.len() {
                    let bs = dir[i].bs;
                    let total: u32 = dir.iter().filter(|e| e.bs == bs).map(|e| e.perc).sum();
                    if total > 100 {
                        return Err(format!(
                            "cmdprio_bssplit total percentage for bs: {bs} exceeds 100"
                        ));
                    }
                    i += dir[i..].iter().take_while(|e| e.bs == bs).count();
                }
            }
        }
        Ok(())
    }
}

/// One direction's cmdprio_bssplit list: `bs/perc[/class/level[/hint]]` entries
/// separated by ':' (fio's `bs/` alone means 0 %). `size` parses a block size.
pub fn parse_bssplit_dir(
    text: &str,
    size: &dyn Fn(&str) -> Result<u64, String>,
) -> Result<Vec<PrioSplit>, String> {
    let mut out = Vec::new();
    for entry in text.split(':') {
        if entry.is_empty() {
            break; // fio stops at the first empty entry
        }
        let parts: Vec<&str> = entry.split('/').collect();
        let num = |s: &str| -> Result<u32, String> {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("malformed cmdprio_bssplit entry '{entry}' ({ENTRY_FORMS})"))
        };
        let bs = size(parts[0])?;
        let (perc, prio) = match parts.len() {
            1 => (0, None),
            2 if parts[1].trim().is_empty() => (0, None),
            2 => (num(parts[1])?, None),
            4 | 5 => {
                // fio clamps class, level and hint to their maxima.
                let class = num(parts[2])?.min(3);
                let level = num(parts[3])?.min(7);
                let hint = match parts.get(4) {
                    Some(h) => num(h)?.min(MAX_HINT),
                    None => 0,
                };
                (num(parts[1])?, Some(ioprio_value(class, level, hint)))
            }
            _ => {
                return Err(format!(
                    "malformed cmdprio_bssplit entry '{entry}' ({ENTRY_FORMS})"
                ))
            }
        };
        if perc > 0 {
            out.push(PrioSplit {
                bs,
                perc: perc.min(100),
                prio,
            });
        }
    }
    out.sort_by_key(|e| e.bs);
    Ok(out)
}

/// The forms of a cmdprio_bssplit entry, for errors.
const ENTRY_FORMS: &str = "bs/percentage[/class/level[/hint]]";

#[cfg(test)]
mod tests {
    use super::*;

    fn size(s: &str) -> Result<u64, String> {
        crate::values::parse_size(s, 1024)
    }

    #[test]
    fn bssplit_entries_sort_by_size_and_drop_zero_percentages() {
        let v = parse_bssplit_dir("64k/40:4k/10/3/7:8k/0:16k/", &size).unwrap();
        assert_eq!(
            v,
            vec![
                PrioSplit {
                    bs: 4096,
                    perc: 10,
                    prio: Some((3 << 13) | 7)
                },
                PrioSplit {
                    bs: 65536,
                    perc: 40,
                    prio: None
                },
            ]
        );
    }

    #[test]
    fn bssplit_rejects_a_class_without_a_level() {
        let e = parse_bssplit_dir("4k/10/1", &size).unwrap_err();
        assert!(e.contains("4k/10/1"), "{e}");
        assert!(parse_bssplit_dir("4k/x", &size).is_err());
        let e = parse_bssplit_dir("4k/10/1/1/1/1", &size).unwrap_err();
        assert!(e.contains("[/class/level[/hint]]"), "{e}");
    }

    #[test]
    fn bssplit_takes_a_hint_in_a_fifth_field() {
        // fio master's CDL example: class 2, level 0, hint 1 (and a clamped one).
        let v = parse_bssplit_dir("1M/10/2/0/1:2M/90/2/0/4000", &size).unwrap();
        assert_eq!(v[0].prio, Some((2 << 13) | (1 << 3)));
        assert_eq!(v[1].prio, Some((2 << 13) | (MAX_HINT << 3)));
    }

    #[test]
    fn check_refuses_both_modes_and_a_block_size_over_100_percent() {
        let mut p = PrioSpec {
            percentage: [10, 0],
            ..Default::default()
        };
        assert!(p.check().is_ok());
        p.bssplit = Some([vec![], vec![]]);
        assert!(p.check().unwrap_err().contains("mutually exclusive"));
        p.percentage = [0, 0];
        let e = |bs, perc| PrioSplit {
            bs,
            perc,
            prio: None,
        };
        p.bssplit = Some([vec![e(4096, 60), e(4096, 50)], vec![]]);
        assert!(p.check().unwrap_err().contains("bs: 4096 exceeds 100"));
        p.bssplit = Some([vec![e(4096, 60), e(8192, 50)], vec![e(4096, 100)]]);
        assert!(p.check().is_ok());
    }

    #[test]
    fn the_cmdprio_class_defaults_to_realtime() {
        let mut p = PrioSpec::default();
        assert_eq!(p.cmdprio_value(0), 1 << 13);
        p.class = [3, 2];
        p.level = [7, 4];
        assert_eq!(p.cmdprio_value(0), (3 << 13) | 7);
        assert_eq!(p.cmdprio_value(1), (2 << 13) | 4);
        p.hint = [0, 3];
        assert_eq!(p.cmdprio_value(1), (2 << 13) | (3 << 3) | 4);
    }
}
