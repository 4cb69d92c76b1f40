//! x86_64 CPU facts that decide whether the TSC can be ferrio's clock and which read
//! sequence orders it (see `barrier` for the background).
//!
//! Everything here except [`TscFeatures::detect`] is a pure function of a
//! [`TscFeatures`] value, so tests can feed it a simulated CPU (a non-invariant TSC, an
//! AMD CPU without a serialising LFENCE, an Intel CPU without RDTSCP, …).

use crate::barrier::Barrier;

/// CPU vendor, as far as TSC ordering rules are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vendor {
    Intel,
    /// AMD and Hygon (same rules).
    Amd,
    Other,
}

/// The CPUID bits and kernel flags that matter for using the TSC as a clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TscFeatures {
    pub vendor: Vendor,
    /// Display family / model (CPUID 1 EAX, extended fields folded in).
    pub family: u32,
    pub model: u32,
    /// CPUID 1 EDX\[4\].
    pub tsc: bool,
    /// CPUID 0x80000001 EDX\[27\].
    pub rdtscp: bool,
    /// CPUID 0x80000007 EDX\[8\]: TSC runs at a constant rate in all ACPI P/C/T-states.
    pub invariant_tsc: bool,
    /// CPUID 0x80000021 EAX\[2\] (AMD): LFENCE is always dispatch serialising.
    pub lfence_always_serializing: bool,
    /// CPUID 1 ECX\[31\]: running under a hypervisor.
    pub hypervisor: bool,
    /// `/proc/cpuinfo` flags `constant_tsc` / `nonstop_tsc` (None: not readable).
    pub constant_tsc: Option<bool>,
    pub nonstop_tsc: Option<bool>,
    /// The OS makes LFENCE dispatch serialising on AMD (Linux sets DE_CFG\[1\]).
    pub os_serializes_lfence: bool,
}

impl TscFeatures {
    /// Read CPUID and the kernel's CPU flags.
    pub(crate) fn detect() -> TscFeatures {
        let leaf0 = cpuid(0);
        let mut vendor_bytes = [0u8; 12];
        vendor_bytes[0..4].copy_from_slice(&leaf0.ebx.to_le_bytes());
        vendor_bytes[4..8].copy_from_slice(&leaf0.edx.to_le_bytes());
        vendor_bytes[8..12].copy_from_slice(&leaf0.ecx.to_le_bytes());
        let vendor = match &vendor_bytes {
            b"GenuineIntel" => Vendor::Intel,
            b"AuthenticAMD" | b"HygonGenuine" => Vendor::Amd,
            _ => Vendor::Other,
        };
        let leaf1 = if leaf0.eax >= 1 {
            cpuid(1)
        } else {
            Default::default()
        };
        let base_family = (leaf1.eax >> 8) & 0xf;
        let base_model = (leaf1.eax >> 4) & 0xf;
        let (family, model) = if base_family == 0xf {
            (
                base_family + ((leaf1.eax >> 20) & 0xff),
                base_model | ((leaf1.eax >> 12) & 0xf0),
            )
        } else if base_family == 6 {
            (base_family, base_model | ((leaf1.eax >> 12) & 0xf0))
        } else {
            (base_family, base_model)
        };
        let max_ext = cpuid(0x8000_0000).eax;
        let ext = |leaf: u32| {
            if max_ext >= leaf {
                cpuid(leaf)
            } else {
                Default::default()
            }
        };
        let flags = std::fs::read_to_string("/proc/cpuinfo").ok();
        let has_flag = |name: &str| flags.as_deref().map(|text| cpuinfo_has_flag(text, name));
        TscFeatures {
            vendor,
            family,
            model,
            tsc: leaf1.edx & (1 << 4) != 0,
            rdtscp: ext(0x8000_0001).edx & (1 << 27) != 0,
            invariant_tsc: ext(0x8000_0007).edx & (1 << 8) != 0,
            lfence_always_serializing: vendor == Vendor::Amd
                && ext(0x8000_0021).eax & (1 << 2) != 0,
            hypervisor: leaf1.ecx & (1 << 31) != 0,
            constant_tsc: has_flag("constant_tsc"),
            nonstop_tsc: has_flag("nonstop_tsc"),
            os_serializes_lfence: cfg!(target_os = "linux"),
        }
    }

    /// One line for reports, e.g. "AMD family 0x19 model 0x01, rdtscp, hypervisor".
    pub(crate) fn summary(&self) -> String {
        let mut s = format!(
            "{} family {:#x} model {:#04x}",
            match self.vendor {
                Vendor::Intel => "Intel",
                Vendor::Amd => "AMD",
                Vendor::Other => "x86_64",
            },
            self.family,
            self.model
        );
        for (on, name) in [
            (self.invariant_tsc, "invariant_tsc"),
            (self.constant_tsc == Some(true), "constant_tsc"),
            (self.nonstop_tsc == Some(true), "nonstop_tsc"),
            (self.rdtscp, "rdtscp"),
            (self.lfence_always_serializing, "lfence_always_serializing"),
            (self.hypervisor, "hypervisor"),
        ] {
            if on {
                s.push_str(", ");
                s.push_str(name);
            }
        }
        s
    }

    /// `Ok(basis)` when the TSC ticks at a constant rate through frequency changes and
    /// idle states (fio's "reliable_tsc"), else `Err(reason)`.
    pub(crate) fn invariance(&self) -> Result<String, String> {
        if !self.tsc {
            return Err("the CPU has no time-stamp counter".to_string());
        }
        if self.invariant_tsc {
            return Ok("invariant TSC (CPUID 0x80000007 EDX[8])".to_string());
        }
        if self.constant_tsc == Some(true) && self.nonstop_tsc == Some(true) {
            return Ok("kernel reports constant_tsc and nonstop_tsc".to_string());
        }
        let mut missing = Vec::new();
        for (flag, name) in [
            (self.constant_tsc, "constant_tsc"),
            (self.nonstop_tsc, "nonstop_tsc"),
        ] {
            if flag != Some(true) {
                missing.push(name);
            }
        }
        Err(format!(
            "TSC is not invariant (CPUID 0x80000007 EDX[8] clear, kernel flags lack {})",
            missing.join(" and ")
        ))
    }

    /// Read sequences documented to be ordered after earlier loads on this CPU,
    /// strongest guarantee first, each with the reason.
    pub(crate) fn ordered_reads(&self) -> Vec<(Barrier, &'static str)> {
        let mut v = Vec::new();
        if self.rdtscp {
            v.push((
                Barrier::Rdtscp,
                "RDTSCP waits for all older instructions before reading the TSC (AMD APM, Intel SDM)",
            ));
        }
        match self.vendor {
            Vendor::Intel => v.push((
                Barrier::Lfence,
                "Intel SDM: LFENCE does not execute until all prior instructions have completed",
            )),
            Vendor::Amd if self.lfence_always_serializing => v.push((
                Barrier::Lfence,
                "CPUID 0x80000021 EAX[2]: LFENCE is always dispatch serialising",
            )),
            Vendor::Amd if self.os_serializes_lfence => v.push((
                Barrier::Lfence,
                "Linux sets DE_CFG[1] so LFENCE is dispatch serialising on AMD",
            )),
            _ => {}
        }
        if self.vendor == Vendor::Amd {
            v.push((
                Barrier::Mfence,
                "AMD: MFENCE keeps RDTSC from executing before earlier loads",
            ));
        }
        v
    }
}

/// Whether the first `flags` line of `/proc/cpuinfo` text lists `name`.
pub(crate) fn cpuinfo_has_flag(cpuinfo: &str, name: &str) -> bool {
    cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .is_some_and(|(_, list)| list.split_whitespace().any(|f| f == name))
}

#[derive(Clone, Copy, Debug, Default)]
struct Regs {
    eax: u32,
    ebx: u32,
    ecx: u32,
    edx: u32,
}

fn cpuid(leaf: u32) -> Regs {
    // `__cpuid_count` is a safe fn in recent Rust but `unsafe` in our minimum version 1.80.
    #[allow(unused_unsafe)]
    // SAFETY: CPUID exists on every x86_64 CPU; an unsupported leaf returns data, it
    // does not fault. Callers only ask extended leaves up to the reported maximum.
    let r = unsafe { std::arch::x86_64::__cpuid_count(leaf, 0) };
    Regs {
        eax: r.eax,
        ebx: r.ebx,
        ecx: r.ecx,
        edx: r.edx,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A modern AMD EPYC as seen by a Linux guest.
    fn epyc() -> TscFeatures {
        TscFeatures {
            vendor: Vendor::Amd,
            family: 0x19,
            model: 0x01,
            tsc: true,
            rdtscp: true,
            invariant_tsc: true,
            lfence_always_serializing: false,
            hypervisor: true,
            constant_tsc: Some(true),
            nonstop_tsc: Some(true),
            os_serializes_lfence: true,
        }
    }

    #[test]
    fn invariant_from_cpuid_or_kernel_flags() {
        assert!(epyc().invariance().unwrap().contains("CPUID"));
        let flags_only = TscFeatures {
            invariant_tsc: false,
            ..epyc()
        };
        assert!(flags_only.invariance().unwrap().contains("constant_tsc"));
    }

    #[test]
    fn simulated_non_invariant_cpu_is_rejected_with_reason() {
        let old = TscFeatures {
            invariant_tsc: false,
            nonstop_tsc: Some(false),
            ..epyc()
        };
        let reason = old.invariance().unwrap_err();
        assert!(reason.contains("not invariant"), "{reason}");
        assert!(
            reason.contains("nonstop_tsc") && !reason.contains("constant_tsc"),
            "{reason}"
        );
        let unknown_flags = TscFeatures {
            invariant_tsc: false,
            constant_tsc: None,
            nonstop_tsc: None,
            ..epyc()
        };
        assert!(unknown_flags.invariance().is_err());
        let no_tsc = TscFeatures {
            tsc: false,
            ..epyc()
        };
        assert!(no_tsc
            .invariance()
            .unwrap_err()
            .contains("no time-stamp counter"));
    }

    fn barriers(f: &TscFeatures) -> Vec<Barrier> {
        f.ordered_reads().into_iter().map(|(b, _)| b).collect()
    }

    #[test]
    fn read_ordering_rules_per_vendor() {
        use Barrier::*;
        assert_eq!(barriers(&epyc()), [Rdtscp, Lfence, Mfence]);
        // AMD outside Linux, LFENCE not known to serialise: MFENCE, not LFENCE.
        let amd_other_os = TscFeatures {
            os_serializes_lfence: false,
            rdtscp: false,
            ..epyc()
        };
        assert_eq!(barriers(&amd_other_os), [Mfence]);
        let zen3 = TscFeatures {
            os_serializes_lfence: false,
            lfence_always_serializing: true,
            ..epyc()
        };
        assert_eq!(barriers(&zen3), [Rdtscp, Lfence, Mfence]);
        // Intel: MFENCE alone is not documented to order RDTSC.
        let intel = TscFeatures {
            vendor: Vendor::Intel,
            family: 6,
            ..epyc()
        };
        assert_eq!(barriers(&intel), [Rdtscp, Lfence]);
        let intel_no_rdtscp = TscFeatures {
            rdtscp: false,
            ..intel
        };
        assert_eq!(barriers(&intel_no_rdtscp), [Lfence]);
        // Never the locked instruction nor a bare rdtsc.
        let unknown = TscFeatures {
            vendor: Vendor::Other,
            rdtscp: false,
            ..epyc()
        };
        assert!(barriers(&unknown).is_empty());
    }

    #[test]
    fn cpuinfo_flag_parsing() {
        let text =
            "processor\t: 0\nflags\t\t: fpu tsc constant_tsc rdtscp\nbugs\t\t: nonstop_tsc\n\
                    processor\t: 1\nflags\t\t: fpu nonstop_tsc\n";
        assert!(cpuinfo_has_flag(text, "constant_tsc"));
        assert!(cpuinfo_has_flag(text, "tsc"));
        assert!(!cpuinfo_has_flag(text, "nonstop_tsc"));
        assert!(!cpuinfo_has_flag(text, "constant"));
        assert!(!cpuinfo_has_flag("", "tsc"));
    }

    #[test]
    fn detect_matches_proc_cpuinfo() {
        let f = TscFeatures::detect();
        assert!(f.tsc, "every x86_64 CPU has a TSC");
        if let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") {
            assert_eq!(f.rdtscp, cpuinfo_has_flag(&text, "rdtscp"));
            assert_eq!(f.hypervisor, cpuinfo_has_flag(&text, "hypervisor"));
            assert_eq!(
                f.constant_tsc,
                Some(cpuinfo_has_flag(&text, "constant_tsc"))
            );
        }
    }
}
