//! What fio prints before a run: one line per job and the "Starting ..." line.

use crate::model::JobHeader;
use crate::units::{num2str, sig_figs, N2sUnit};

/// `t: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1`
///
/// Block sizes use fio's byte formatting with IEC prefixes (kb_base=1024): 4096B, 64.0KiB, 1024KiB.
pub fn job_header(h: &JobHeader) -> String {
    let bs = |v: u64| num2str(v, sig_figs(h.sig_figs), 1, true, N2sUnit::Byte);
    let [r, w, t] = h.bs;
    format!(
        "{}: (g={}): rw={}, bs=(R) {}-{}, (W) {}-{}, (T) {}-{}, ioengine={}, iodepth={}",
        h.name,
        h.groupid,
        h.rw,
        bs(r.0),
        bs(r.1),
        bs(w.0),
        bs(w.1),
        bs(t.0),
        bs(t.1),
        h.ioengine,
        h.iodepth
    )
}

/// "Starting 1 process", "Starting 3 processes", "Starting 1 thread", "Starting 2 threads".
pub fn starting_line(nr: usize, threads: bool) -> String {
    let (one, many) = if threads {
        ("thread", "threads")
    } else {
        ("process", "processes")
    };
    format!("Starting {} {}", nr, if nr == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(rw: &str, bs: [(u64, u64); 3], engine: &str) -> JobHeader {
        JobHeader {
            name: "t".into(),
            groupid: 0,
            rw: rw.into(),
            bs,
            ioengine: engine.into(),
            iodepth: 1,
            sig_figs: 0,
        }
    }

    #[test]
    fn like_fio_3_33() {
        // fio --name=t --ioengine=psync --rw=randrw --bs=4k
        let h = header("randrw", [(4096, 4096); 3], "psync");
        assert_eq!(
            job_header(&h),
            "t: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1"
        );
        // fio --name=t --ioengine=null --rw=read --bs=64k
        let h = header("read", [(65536, 65536); 3], "null");
        assert_eq!(
            job_header(&h),
            "t: (g=0): rw=read, bs=(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB, ioengine=null, iodepth=1"
        );
        // fio --bs=1m,2k,1536
        let h = header(
            "read",
            [(1 << 20, 1 << 20), (2048, 2048), (1536, 1536)],
            "null",
        );
        assert_eq!(
            job_header(&h),
            "t: (g=0): rw=read, bs=(R) 1024KiB-1024KiB, (W) 2048B-2048B, (T) 1536B-1536B, ioengine=null, iodepth=1"
        );
        let mut h = header("write", [(4096, 65536); 3], "libaio");
        h.name = "b".into();
        h.groupid = 1;
        h.iodepth = 32;
        assert_eq!(
            job_header(&h),
            "b: (g=1): rw=write, bs=(R) 4096B-64.0KiB, (W) 4096B-64.0KiB, (T) 4096B-64.0KiB, ioengine=libaio, iodepth=32"
        );
    }

    #[test]
    fn starting() {
        assert_eq!(starting_line(1, false), "Starting 1 process");
        assert_eq!(starting_line(3, false), "Starting 3 processes");
        assert_eq!(starting_line(1, true), "Starting 1 thread");
        assert_eq!(starting_line(2, true), "Starting 2 threads");
    }
}
