//! Architectures without a supported user-space cycle counter: no strategy exists, so
//! the `cpu` clock source is unavailable and the automatic choice is clock_gettime.

use super::Platform;

/// Uninhabited: there is no way to read a CPU counter here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Barrier {}

impl Barrier {
    pub(crate) const ALL: &'static [Barrier] = &[];

    pub(crate) fn name(self) -> &'static str {
        match self {}
    }

    pub(crate) fn sequence(self) -> &'static str {
        match self {}
    }

    #[inline(always)]
    pub(crate) fn read(self) -> u64 {
        match self {}
    }

    #[inline(always)]
    pub(crate) fn read_unordered(self) -> u64 {
        match self {}
    }
}

pub(super) fn platform() -> Platform {
    Platform {
        counter: None,
        summary: format!("{} (no CPU clock support)", std::env::consts::ARCH),
        invariant: Err(format!(
            "no CPU cycle counter support on {}",
            std::env::consts::ARCH
        )),
        candidates: Vec::new(),
        supported: Barrier::ALL.to_vec(),
    }
}
