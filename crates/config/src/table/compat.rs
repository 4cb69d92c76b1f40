//! Options: fio's log compression (log_compression, log_compression_cpus,
//! log_store_compressed), the mmap engine's thp and gtod_cpu (issue 14). The spec
//! struct is `ext/compat.rs`; docs/dropin.md says what each does.

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::values::list::parse_cpus;

pub const COMPAT: &[OptSpec] = &[
    opt("atomic", K::Bool, C::Io, "Atomic (torn-write protected) writes, as fio 3.4x: every write carries RWF_ATOMIC (io_uring, libaio, pvsync2; other engines are refused), and the files are opened with O_DIRECT (direct=1) as fio 3.33 did. The kernel refuses the writes where the file system or device has no atomic write support, or a write is outside its atomic limits", |j, c, v| {
        j.compat.atomic = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("block_error_percentiles", K::Bool, C::Stats, "Record trim block errors and make a histogram: each trim block's trims are counted, and the report shows the percentiles of trims per block and how many blocks are in each state (one file per job, at most 8192 trim blocks)", |j, c, v| {
        j.compat.block_error_hist = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("log_compression", K::Size, C::Stats, "Log in compressed chunks of this size: samples are zlib-compressed every N bytes (1k to 512M). The log files stay text unless log_store_compressed=1", |j, c, v| {
        j.compat.log_compression = c.size(v)?;
        Ok(())
    })
    .range(1024, 512 << 20),
    opt("log_compression_cpus", K::Special, C::Stats, "Limit log compression to these CPUs (a cpus_allowed list; checked and accepted: ferrio compresses on the job's own thread, which cpus_allowed places)", |j, _, v| {
        j.compat.log_compression_cpus = Some(parse_cpus(v)?);
        Ok(())
    }),
    opt("log_store_compressed", K::Bool, C::Stats, "Store logs in a compressed format: PREFIX_KIND.N.log.fz files of zlib streams of fio's binary samples, which fio --inflate-log and ferrio --inflate-log turn back into text", |j, c, v| {
        j.compat.log_store_compressed = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("thp", K::Int, C::Engine, "mmap: Memory Advise Huge Page: map the file privately (MAP_PRIVATE, as fio: writes stay in memory and never reach the file) and madvise(MADV_HUGEPAGE) the mapping", |j, c, v| {
        j.engine.thp = c.uint(v)? != 0;
        Ok(())
    })
    .def("0")
    .private_to(&["mmap"]),
    opt("gtod_cpu", K::Int, C::Process, "Dedicated time-keeping CPU: the job's threads never run on this CPU (it is taken out of cpus_allowed, or of all CPUs). ferrio's clocks need no offload thread, so none spins there", |j, c, v| {
        j.compat.gtod_cpu = Some(c.uint(v)? as usize);
        Ok(())
    }),
];

#[cfg(test)]
mod tests {
    use crate::cli::{parse_command_line, Command};

    fn job(args: &[&str]) -> Result<crate::JobSpec, String> {
        let mut a: Vec<String> = vec![
            "--name=t".into(),
            "--ioengine=null".into(),
            "--size=1m".into(),
        ];
        a.extend(args.iter().map(|s| s.to_string()));
        match parse_command_line(&a, false)
            .map_err(|e| e.to_string())?
            .command
        {
            Command::Run(inv) => Ok(inv.jobs[0].clone()),
            _ => Err("not a run".into()),
        }
    }

    #[test]
    fn log_compression_values() {
        let j = job(&[
            "--log_compression=4k",
            "--log_store_compressed=1",
            "--write_bw_log=x",
        ])
        .unwrap();
        assert_eq!(j.compat.log_compression, 4096);
        assert!(j.compat.log_store_compressed);
        assert_eq!(j.compat.chunk_bytes(), 4096);
        assert!(job(&["--log_compression=512"])
            .unwrap_err()
            .contains("out of range"));
        assert!(job(&["--log_compression_cpus=0-1"]).is_ok());
        assert!(job(&["--log_compression_cpus=x"]).is_err());
        let e = job(&["--log_store_compressed=1", "--write_hist_log=h"]).unwrap_err();
        assert!(e.contains("write_hist_log"), "{e}");
        let e = job(&[
            "--log_store_compressed=1",
            "--write_lat_log=h",
            "--log_issue_time=1",
        ])
        .unwrap_err();
        assert!(e.contains("log_issue_time"), "{e}");
    }

    #[test]
    fn block_error_percentiles_rules() {
        assert!(
            job(&["--block_error_percentiles=1"])
                .unwrap()
                .compat
                .block_error_hist
        );
        let e = job(&["--block_error_percentiles=1", "--nrfiles=2"]).unwrap_err();
        assert!(e.contains("single file per job, but 2 files"), "{e}");
        let e = job(&["--block_error_percentiles=1", "--size=64m", "--bs=4k"]).unwrap_err();
        assert!(e.contains("16384 trim blocks, maximum 8192"), "{e}");
        assert!(job(&["--block_error_percentiles=1", "--size=64m", "--bs=8k"]).is_ok());
    }

    #[test]
    fn atomic_opens_direct_as_fio_on_linux() {
        let atomic = |e: &str| job(&["--atomic=1", "--direct=0", e]);
        assert!(atomic("--ioengine=pvsync2").unwrap().direct);
        assert!(atomic("--ioengine=io_uring").is_ok() && atomic("--ioengine=libaio").is_ok());
        // fio 3.4x: an engine without RWF_ATOMIC is refused, naming the option.
        let e = atomic("--ioengine=psync").unwrap_err();
        assert!(
            e.contains("atomic=1: ioengine=psync cannot send atomic writes"),
            "{e}"
        );
        assert!(!job(&["--atomic=0"]).unwrap().direct);
    }

    #[test]
    fn thp_is_the_mmap_engines() {
        assert!(job(&["--thp=1"]).unwrap_err().contains("thp"));
        let j = job(&["--ioengine=mmap", "--thp=1"]).unwrap();
        assert!(j.engine.thp);
    }

    #[test]
    fn gtod_cpu_leaves_the_jobs_cpus() {
        let j = job(&["--cpus_allowed=0-1", "--gtod_cpu=1"]).unwrap();
        assert_eq!(j.cpus_allowed, Some(vec![0]));
        let e = job(&["--cpus_allowed=1", "--gtod_cpu=1"]).unwrap_err();
        assert!(e.contains("gtod_cpu"), "{e}");
        let j = job(&["--gtod_cpu=0"]).unwrap();
        let cpus = j.cpus_allowed.unwrap_or_default();
        assert!(!cpus.contains(&0));
    }
}
