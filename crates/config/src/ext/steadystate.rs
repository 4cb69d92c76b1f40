//! Steady-state detection (steadystate=, ss_dur=, ss_ramp=, ...).

/// Steady-state detection (steadystate=, ss_dur=, ss_ramp=, ...). Defaults mean "feature off / fio's default".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SteadyStateSpec {}
