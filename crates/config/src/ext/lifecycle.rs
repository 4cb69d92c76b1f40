//! Job lifecycle options: commands run around the job (exec_prerun=, exec_postrun=),
//! the thread's I/O priority (prio=, prioclass=) and what is done to each file when
//! it is opened (fadvise_hint=, write_hint=, pre_read=).

/// fadvise_hint=: the posix_fadvise(2) advice given for each file when it is opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FadviseHint {
    /// 0: none.
    None,
    /// 1 (fio's default): random for random I/O, sequential otherwise.
    #[default]
    ByPattern,
    Sequential,
    Random,
}

/// write_hint=: the write lifetime hint set on each file (fcntl F_SET_RW_HINT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteHint {
    None,
    Short,
    Medium,
    Long,
    Extreme,
}

impl WriteHint {
    /// The kernel's RWH_WRITE_LIFE_* value.
    pub fn kernel_value(self) -> u64 {
        match self {
            WriteHint::None => 1,
            WriteHint::Short => 2,
            WriteHint::Medium => 3,
            WriteHint::Long => 4,
            WriteHint::Extreme => 5,
        }
    }
}

/// The job's lifecycle options (all off by default but fadvise_hint=1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LifecycleSpec {
    /// exec_prerun=: a shell command run before the job's I/O starts.
    pub exec_prerun: Option<String>,
    /// exec_postrun=: a shell command run after the job's I/O ends.
    pub exec_postrun: Option<String>,
    pub fadvise_hint: FadviseHint,
    pub write_hint: Option<WriteHint>,
    /// pre_read=1: read each file's region once before the I/O (implies invalidate=0).
    pub pre_read: bool,
    /// prio=: I/O priority level 0 (highest) to 7.
    pub prio: Option<u32>,
    /// prioclass=: I/O priority class (1 realtime, 2 best effort, 3 idle).
    pub prioclass: Option<u32>,
    /// priohint=: the priority hint (fio 3.4x; e.g. a CDL descriptor), 0 to 1023.
    pub priohint: Option<u32>,
}

impl LifecycleSpec {
    /// The ioprio_set(2) value when prio=, prioclass= or priohint= was given: the
    /// class in the top bits (best effort when none was), the hint in bits 3..13, the
    /// level below, as fio.
    pub fn ioprio_value(&self) -> Option<u32> {
        if self.prio.is_none() && self.prioclass.is_none() && self.priohint.is_none() {
            return None;
        }
        let class = match self.prioclass.unwrap_or(0) {
            0 => 2,
            c => c,
        };
        Some((class << 13) | (self.priohint.unwrap_or(0) << 3) | self.prio.unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioprio_value_defaults_the_class_to_best_effort() {
        let mut l = LifecycleSpec::default();
        assert_eq!(l.ioprio_value(), None);
        l.prio = Some(3);
        assert_eq!(l.ioprio_value(), Some((2 << 13) | 3));
        l.prioclass = Some(3);
        assert_eq!(l.ioprio_value(), Some((3 << 13) | 3));
        l.prio = None;
        l.prioclass = Some(1);
        assert_eq!(l.ioprio_value(), Some(1 << 13));
        // fio 3.4x's priohint alone sets a best-effort priority carrying the hint.
        let l = LifecycleSpec {
            priohint: Some(5),
            ..Default::default()
        };
        assert_eq!(l.ioprio_value(), Some((2 << 13) | (5 << 3)));
    }
}
