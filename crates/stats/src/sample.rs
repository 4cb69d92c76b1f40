//! Running statistics of periodic samples (bw and IOPS samples): fio's `io_stat`.
//!
//! CONTRACT (implemented by the stats owner).

/// min/max/mean/stddev/samples of a series, computed like fio's `add_stat_sample`
/// (Welford's running mean and variance in f64). Mergeable like fio's `sum_stat`.
#[derive(Clone, Debug, Default)]
pub struct SampleStats {
    _todo: (),
}

impl SampleStats {
    pub fn add(&mut self, _value: f64) {
        todo!()
    }
    pub fn merge(&mut self, _other: &SampleStats) {
        todo!()
    }
    pub fn samples(&self) -> u64 {
        todo!()
    }
    pub fn min(&self) -> f64 {
        todo!()
    }
    pub fn max(&self) -> f64 {
        todo!()
    }
    pub fn mean(&self) -> f64 {
        todo!()
    }
    pub fn stddev(&self) -> f64 {
        todo!()
    }
}
