//! aarch64: the generic timer's virtual counter `CNTVCT_EL0`.
//!
//! The architecture guarantees a constant-frequency, system-wide counter, and Linux
//! lets user space read it (the vDSO does). An `isb` in front keeps the read from
//! being performed before earlier instructions, as Linux's vDSO does.

use std::arch::asm;

use super::Platform;

/// One way of reading `CNTVCT_EL0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Barrier {
    /// `mrs cntvct_el0` alone.
    None,
    /// `isb; mrs cntvct_el0`.
    Isb,
}

impl Barrier {
    pub(crate) const ALL: &'static [Barrier] = &[Barrier::None, Barrier::Isb];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Barrier::None => "none",
            Barrier::Isb => "isb",
        }
    }

    pub(crate) fn sequence(self) -> &'static str {
        match self {
            Barrier::None => "mrs cntvct_el0",
            Barrier::Isb => "isb; mrs cntvct_el0",
        }
    }

    #[inline(always)]
    pub(crate) fn read(self) -> u64 {
        let v: u64;
        match self {
            // SAFETY: Linux enables EL0 reads of CNTVCT_EL0 (CNTKCTL_EL1.EL0VCTEN);
            // the instruction only writes the output register.
            Barrier::None => unsafe {
                asm!("mrs {v}, cntvct_el0", v = out(reg) v, options(nostack, preserves_flags))
            },
            // SAFETY: as above; ISB has no operands and no memory effects.
            Barrier::Isb => unsafe {
                asm!("isb", "mrs {v}, cntvct_el0", v = out(reg) v, options(nostack, preserves_flags))
            },
        }
        v
    }

    /// Read the counter with no barrier at all, whatever this strategy is: for the
    /// start of an interval (see `Clock::start_ns`).
    #[inline(always)]
    pub(crate) fn read_unordered(self) -> u64 {
        Barrier::None.read()
    }
}

pub(super) fn platform() -> Platform {
    Platform {
        counter: Some("CNTVCT_EL0"),
        summary: "aarch64 generic timer".to_string(),
        invariant: Ok(
            "the aarch64 generic timer runs at a fixed system-wide frequency".to_string(),
        ),
        candidates: vec![(
            Barrier::Isb,
            "isb makes the counter read wait for earlier instructions (as Linux's vDSO reads it)",
        )],
        supported: Barrier::ALL.to_vec(),
    }
}
