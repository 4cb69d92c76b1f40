//! What a job asks for that ferrio cannot provide on any machine it runs on: one of
//! fio's engines ferrio lacks (sg, rdma, http, xnvme, an external engine, ...) or GPU
//! buffers (`mem=cudamalloc`). `--parse-only` accepts such a job, as fio does; a run
//! refuses it with the reason before it touches any file (table/foreign.rs).

/// The foreign parts of a job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ForeignSpec {
    /// Why the job's engine cannot run here (None: an engine ferrio has).
    pub engine: Option<String>,
    /// `mem=cudamalloc`: I/O buffers in GPU memory (fio's GPUDirect RDMA).
    pub cuda_mem: bool,
    /// `fdp=1` or `dataplacement=fdp|streams`: NVMe data placement, which only
    /// fio's io_uring_cmd and xnvme engines do.
    pub placement: bool,
}

impl ForeignSpec {
    /// Why the job cannot run, if it cannot: the engine first.
    pub fn refusal(&self) -> Option<String> {
        if let Some(why) = &self.engine {
            return Some(why.clone());
        }
        if self.placement {
            return Some("NVMe data placement (fdp=1, dataplacement=fdp|streams) is not supported by ferrio: fio does it with its io_uring_cmd and xnvme engines on NVMe devices".into());
        }
        self.cuda_mem.then(|| {
            "mem=cudamalloc is not supported by ferrio: it puts the I/O buffers in the memory of an NVIDIA GPU (CUDA, fio's GPUDirect RDMA)".to_string()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engine_reason_comes_first_and_none_means_runnable() {
        assert_eq!(ForeignSpec::default().refusal(), None);
        let gpu = ForeignSpec {
            cuda_mem: true,
            ..Default::default()
        };
        let fdp = ForeignSpec {
            placement: true,
            ..Default::default()
        };
        assert!(fdp.refusal().unwrap().contains("data placement"));
        assert!(gpu.refusal().unwrap().contains("mem=cudamalloc"));
        let both = ForeignSpec {
            engine: Some("engine why".into()),
            cuda_mem: true,
            placement: true,
        };
        assert_eq!(both.refusal().as_deref(), Some("engine why"));
    }
}
