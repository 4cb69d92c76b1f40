//! The simulated device (ioengine=sim).

/// The simulated device (ioengine=sim). Defaults mean "feature off / fio's default".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimSpec {}
