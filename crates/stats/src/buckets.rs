//! Fixed-edge counters fio prints as "lat (usec): 4=39.45%, ..." and "IO depths".
//!
//! CONTRACT (implemented by the stats owner).

/// fio's latency distribution buckets (`latency_ns`, `latency_us`, `latency_ms`):
/// ns: 2,4,10,20,50,100,250,500,750,1000; us: same edges; ms: 2,4,10,20,50,100,250,500,750,1000,2000,>=2000.
/// A value goes to the first bucket whose edge is >= the value in that unit, exactly as fio's
/// `io_u_mark_lat_nsec/usec/msec` do.
#[derive(Clone, Debug, Default)]
pub struct LatencyBuckets {
    pub ns: [u64; 10],
    pub us: [u64; 10],
    pub ms: [u64; 12],
}

impl LatencyBuckets {
    /// Count one completion latency in nanoseconds.
    #[inline]
    pub fn record(&mut self, _ns: u64) {
        todo!()
    }
    pub fn merge(&mut self, _other: &LatencyBuckets) {
        todo!()
    }
    pub fn total(&self) -> u64 {
        todo!()
    }
}

/// fio's I/O depth maps (`io_u_map`: 1,2,4,8,16,32,>=64 and the submit/complete maps
/// 0,4,8,16,32,64,>=64).
#[derive(Clone, Debug, Default)]
pub struct DepthHistogram {
    pub level: [u64; 7],
    pub submit: [u64; 7],
    pub complete: [u64; 7],
}

impl DepthHistogram {
    /// One I/O issued while `depth` I/Os were in flight (including this one): fio's io_u_mark_depth.
    #[inline]
    pub fn record_depth(&mut self, _depth: u32, _nr: u64) {
        todo!()
    }
    /// One submit call that submitted `nr` I/Os: fio's io_u_mark_submit.
    #[inline]
    pub fn record_submit(&mut self, _nr: u32) {
        todo!()
    }
    /// One reap that completed `nr` I/Os: fio's io_u_mark_complete.
    #[inline]
    pub fn record_complete(&mut self, _nr: u32) {
        todo!()
    }
    pub fn merge(&mut self, _other: &DepthHistogram) {
        todo!()
    }
}
