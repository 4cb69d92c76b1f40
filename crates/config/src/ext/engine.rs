//! Engine-specific tuning (io_uring, libaio, mmap, batching, memory).

/// Engine-specific tuning (io_uring, libaio, mmap, batching, memory). Defaults mean "feature off / fio's default".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineTuning {}
