//! x86_64: the TSC read strategies (one inline-asm sequence each).
//!
//! None of the asm blocks carries `nomem`, so each is also a compiler barrier: the
//! compiler may not move loads or stores across a clock read. The hardware ordering
//! each sequence gives is described in the parent module.

use std::arch::asm;

use super::Platform;
use tsc::TscFeatures;

// The CPU facts the x86 strategies are chosen from (this module's alone).
mod tsc;

/// One way of reading the TSC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Barrier {
    /// `rdtsc` alone.
    None,
    /// `lock or qword ptr [rsp], 0; rdtsc` — GCC ≥ 11's `__sync_synchronize()`.
    LockOr,
    /// `lfence; rdtsc`.
    Lfence,
    /// `mfence; rdtsc`.
    Mfence,
    /// `rdtscp` (discarding TSC_AUX).
    Rdtscp,
}

impl Barrier {
    /// Every strategy, in the order the cross-core table prints them.
    pub(crate) const ALL: &'static [Barrier] = &[
        Barrier::None,
        Barrier::LockOr,
        Barrier::Lfence,
        Barrier::Mfence,
        Barrier::Rdtscp,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Barrier::None => "none",
            Barrier::LockOr => "lock-or",
            Barrier::Lfence => "lfence",
            Barrier::Mfence => "mfence",
            Barrier::Rdtscp => "rdtscp",
        }
    }

    pub(crate) fn sequence(self) -> &'static str {
        match self {
            Barrier::None => "rdtsc",
            Barrier::LockOr => "lock or [rsp],0; rdtsc",
            Barrier::Lfence => "lfence; rdtsc",
            Barrier::Mfence => "mfence; rdtsc",
            Barrier::Rdtscp => "rdtscp",
        }
    }

    /// Read the TSC with this strategy. `Rdtscp` must only be used where CPUID says
    /// the instruction exists ([`Platform::supported`]); elsewhere it raises SIGILL.
    #[inline(always)]
    pub(crate) fn read(self) -> u64 {
        match self {
            Barrier::None => rdtsc(),
            Barrier::LockOr => lock_or_rdtsc(),
            Barrier::Lfence => lfence_rdtsc(),
            Barrier::Mfence => mfence_rdtsc(),
            Barrier::Rdtscp => rdtscp(),
        }
    }

    /// Read the TSC with no barrier at all, whatever this strategy is: for the start
    /// of an interval (see `Clock::start_ns`).
    #[inline(always)]
    pub(crate) fn read_unordered(self) -> u64 {
        rdtsc()
    }
}

#[inline(always)]
fn join(lo: u32, hi: u32) -> u64 {
    ((hi as u64) << 32) | lo as u64
}

#[inline(always)]
fn rdtsc() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: RDTSC exists on every x86_64 CPU and only writes EDX:EAX.
    unsafe { asm!("rdtsc", out("eax") lo, out("edx") hi, options(nostack, preserves_flags)) };
    join(lo, hi)
}

#[inline(always)]
fn lock_or_rdtsc() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: `[rsp]` is the top of our own, allocated stack; OR-ing it with 0 under
    // LOCK rewrites the same value atomically. The asm only clobbers EDX:EAX and the
    // flags (no `preserves_flags`); without `nostack` the compiler keeps the stack valid.
    unsafe {
        asm!(
            "lock or qword ptr [rsp], 0",
            "rdtsc",
            out("eax") lo,
            out("edx") hi,
        )
    };
    join(lo, hi)
}

#[inline(always)]
fn lfence_rdtsc() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: LFENCE (SSE2, baseline on x86_64) and RDTSC only write EDX:EAX.
    unsafe {
        asm!(
            "lfence",
            "rdtsc",
            out("eax") lo,
            out("edx") hi,
            options(nostack, preserves_flags),
        )
    };
    join(lo, hi)
}

#[inline(always)]
fn mfence_rdtsc() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: MFENCE (SSE2, baseline on x86_64) and RDTSC only write EDX:EAX.
    unsafe {
        asm!(
            "mfence",
            "rdtsc",
            out("eax") lo,
            out("edx") hi,
            options(nostack, preserves_flags),
        )
    };
    join(lo, hi)
}

#[inline(always)]
fn rdtscp() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: callers only pick `Rdtscp` when CPUID 0x80000001 EDX[27] is set (see
    // `Platform::supported`); the instruction writes EDX:EAX and ECX (TSC_AUX, discarded).
    unsafe {
        asm!(
            "rdtscp",
            out("eax") lo,
            out("edx") hi,
            out("ecx") _,
            options(nostack, preserves_flags),
        )
    };
    join(lo, hi)
}

/// Detect the running CPU.
pub(super) fn platform() -> Platform {
    let f = TscFeatures::detect();
    let supported = Barrier::ALL
        .iter()
        .copied()
        .filter(|&b| b != Barrier::Rdtscp || f.rdtscp)
        .collect();
    Platform {
        counter: Some("TSC"),
        summary: f.summary(),
        invariant: f.invariance(),
        candidates: f.ordered_reads(),
        supported,
    }
}
