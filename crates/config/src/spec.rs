//! The typed job description. CONTRACT shared with the runner: fields may be added,
//! not renamed or removed without updating the runner.
//!
//! All sizes are bytes, all times are microseconds unless the name says otherwise.

// The value types their parsers produce live beside them (values/), below the spec,
// and are named from there.
use crate::values::dist::RandomDistribution;
use crate::values::size::SizeOrPercent;
use std::path::PathBuf;

/// Data direction, in fio's order (read, write, trim).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ddir {
    Read = 0,
    Write = 1,
    Trim = 2,
}

/// `clocksource=`: which clock times a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    /// The CPU's time stamp counter.
    Cpu,
    ClockGettime,
    Gettimeofday,
    /// ferrio: the thread's own clock, advanced by a simulated engine (ioengine=sim).
    Virtual,
}

impl ClockSource {
    /// Every source with its `clocksource=` spelling (fio's, plus `virtual`).
    pub const ALL: [(ClockSource, &'static str); 4] = [
        (ClockSource::Cpu, "cpu"),
        (ClockSource::ClockGettime, "clock_gettime"),
        (ClockSource::Gettimeofday, "gettimeofday"),
        (ClockSource::Virtual, "virtual"),
    ];

    /// The `clocksource=` spelling.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("", |(_, n)| n)
    }

    pub fn from_name(name: &str) -> Option<ClockSource> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
    }
}

/// Which directions an rw= mode issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwKind {
    Read,
    Write,
    Trim,
    /// rw / readwrite / randrw: mixed read and write (rwmixread decides).
    ReadWrite,
    /// trimwrite: trim a block, then write it.
    TrimWrite,
}

impl RwKind {
    /// Which of read, write, trim the mode issues.
    pub fn directions(self) -> [bool; 3] {
        match self {
            RwKind::Read => [true, false, false],
            RwKind::Write => [false, true, false],
            RwKind::Trim => [false, false, true],
            RwKind::ReadWrite => [true, true, false],
            RwKind::TrimWrite => [false, true, true],
        }
    }
}

/// The parsed `rw=` option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RwMode {
    pub kind: RwKind,
    pub random: bool,
    /// The `:N` suffix (1 = none; fio treats `:0` as none too). With random I/O: a new
    /// random offset every N I/Os, the ones between following rw_sequencer (sequential:
    /// the next block; identical: the same offset). With sequential I/O fio reads N as a
    /// size (`rw=write:4k`) and skips that many bytes after each I/O; ferrio parses it
    /// the same way, so `nr` is then in bytes — and may be negative (`rw=read:-8k`
    /// reads backwards, as in fio's backwards-read example).
    pub nr: i64,
    /// The value exactly as given, for printing (e.g. "randrw").
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwSequencer {
    Sequential,
    Identical,
}

/// Block size selection for one direction.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockSize {
    /// Smallest and largest block size (equal for a fixed bs).
    pub min: u64,
    pub max: u64,
    /// bssplit entries (bs, percent); empty when not given. Entries without a percent
    /// share the remainder by fio's integer division, fractions are cut (fio's atoi),
    /// so the sum can fall short of 100 (a draw past it takes the last entry walked).
    pub split: Vec<(u64, u32)>,
}

/// unified_rw_reporting: how a job's directions are reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnifiedRw {
    #[default]
    None,
    Mixed,
    Both,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RandomGenerator {
    Tausworthe,
    Lfsr,
    Tausworthe64,
}

/// `file_service_type`: how the next file is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FileService {
    /// Round robin, N I/Os per file before moving on (fio's default, N = 1).
    RoundRobin(u32),
    /// Each file until it is done, then the next.
    Sequential,
    /// A uniformly random file, N I/Os per pick.
    Random(u32),
    Zipf(f64),
    Pareto(f64),
    /// normal / gauss: deviation in percent.
    Gauss(f64),
}

/// Which fio's seeding to follow where fio versions differ (ferrio's `fio_seeds=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FioSeeds {
    /// fio 3.35 and later (the default).
    Latest,
    /// fio 3.33 (Debian 12's fio): with randrepeat=1 offsets and zipf/pareto/normal
    /// ignore randseed.
    Fio333,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallocate {
    None,
    Posix,
    Keep,
    Native,
    Truncate,
}

/// One job as the runner sees it: immutable, fully defaulted and validated.
/// `numjobs` clones share one JobSpec.
#[derive(Clone, Debug)]
pub struct JobSpec {
    pub name: String,
    pub description: Option<String>,
    /// Where the job came from, for error messages: "file.fio:12" or "command line".
    pub origin: String,

    // --- engine
    pub ioengine: String,
    pub iodepth: u32,
    /// Whether iodepth was given (a blktrace replay otherwise takes the trace's).
    pub iodepth_set: bool,
    /// serialize_overlap: hold back an I/O that overlaps one in flight.
    pub serialize_overlap: bool,
    /// pvsync2 hipri flag (accepted; ignored where unsupported).
    pub hipri: bool,

    // --- files
    /// Explicit `filename=` list (colon-separated in the option, '\:' escapes a colon).
    pub filenames: Vec<String>,
    /// directory= (its first entry when it lists several).
    pub directory: Option<PathBuf>,
    /// directory=a:b:...: every entry, in order, when there are several (else empty).
    /// Generated file names of clone N go to entry N mod their number; explicit
    /// filenames to the first (fio's rule, so clones sharing a filename share it).
    pub directories: Vec<PathBuf>,
    /// fio's filename_format (default "$jobname.$jobnum.$filenum").
    pub filename_format: String,
    pub nrfiles: u32,
    /// size= : total I/O region size across files (None when not given).
    pub size: Option<SizeOrPercent>,
    /// filesize= range (min, max) per file; overrides size / nrfiles split.
    pub filesize: Option<(u64, u64)>,
    /// io_size / io_limit.
    pub io_size: Option<u64>,
    pub offset: SizeOrPercent,
    pub offset_increment: u64,
    /// offset_align: what a percentage offset is rounded up to (0: the smallest block
    /// size).
    pub offset_align: u64,
    pub number_ios: Option<u64>,
    pub fill_device: bool,

    // --- pattern
    pub rw: RwMode,
    pub rw_sequencer: RwSequencer,
    /// Percent of mixed I/O that is reads (rwmixread; rwmixwrite = 100 - this).
    pub rwmixread: u32,
    /// percentage_random per direction (100 = fully random for rand* modes).
    pub percentage_random: [u32; 3],
    pub bs: [BlockSize; 3],
    /// Per direction: bsrange or bssplit set the range. fio's bs only fills a range
    /// left unset, so a bs given before or after them (or in the global section)
    /// does not replace it.
    pub bs_ranged: [bool; 3],
    /// blockalign per direction (0 = use the minimum block size).
    pub blockalign: [u64; 3],
    pub bs_unaligned: bool,
    /// bs_is_seq_rand: the read/write block-size slots mean sequential/random.
    pub bs_is_seq_rand: bool,

    // --- file handling
    pub direct: bool,
    /// O_SYNC on open (sync=1).
    pub sync: bool,
    /// sync=dsync: with `sync`, O_DSYNC instead of O_SYNC.
    pub dsync: bool,
    /// fsync every N writes (0 = never).
    pub fsync: u32,
    pub fdatasync: u32,
    /// sync_file_range=FLAGS:N: sync_file_range(2) with these SYNC_FILE_RANGE_* flags
    /// every N writes (None = never).
    pub sync_file_range: Option<(u32, u32)>,
    pub end_fsync: bool,
    /// end_syncfs=1 (fio 3.42): a loop of a job that writes ends with one syncfs(2)
    /// per file system holding its files, instead of end_fsync's fsync of each file.
    pub end_syncfs: bool,
    pub fsync_on_close: bool,
    pub create_on_open: bool,
    pub create_only: bool,
    pub allow_file_create: bool,
    /// Allow writes and trims to a block device that is mounted or held (fio's
    /// allow_mounted_write; refused by default).
    pub allow_mounted_write: bool,
    pub overwrite: bool,
    pub unlink: bool,
    pub fallocate: Fallocate,
    pub invalidate: bool,
    pub readonly: bool,

    // --- jobs and groups
    pub numjobs: u32,
    pub thread: bool,
    pub group_reporting: bool,
    pub unified_rw_reporting: UnifiedRw,
    pub stonewall: bool,
    pub new_group: bool,
    pub wait_for: Option<String>,
    pub exitall: bool,

    // --- time and stopping
    pub time_based: bool,
    /// runtime in microseconds (None = unlimited).
    pub runtime_us: Option<u64>,
    pub ramp_time_us: u64,
    /// ramp_size (fio 3.42): bytes the job (or its group, with group_reporting)
    /// completes before statistics start; 0 = none.
    pub ramp_size: u64,
    /// startdelay range in microseconds (min, max).
    pub startdelay_us: (u64, u64),
    pub loops: u32,

    // --- randomness
    pub randrepeat: bool,
    /// allrandrepeat= as given: an alias of randrepeat in fio >= 3.35; fio 3.33 seeded
    /// every stream from a constant with it (`fio_seeds=3.33` does the same).
    pub allrandrepeat: bool,
    pub randseed: u64,
    /// Whether randseed was given (fio seeds predictably then, even with randrepeat=0).
    pub randseed_set: bool,
    pub fio_seeds: FioSeeds,
    pub file_service: FileService,
    pub norandommap: bool,
    pub random_generator: RandomGenerator,
    pub random_distribution: RandomDistribution,
    /// random_sequence_stride: `sequence:` indices are relative to a group that moves
    /// on by the list's length after each round (fio 3.42).
    pub random_sequence_stride: bool,

    // --- buffers
    pub zero_buffers: bool,
    pub refill_buffers: bool,
    pub scramble_buffers: bool,
    /// buffer_pattern bytes (None = random data).
    pub buffer_pattern: Option<Vec<u8>>,

    // --- statistics
    /// In percent, sorted as given (fio sorts them before use).
    pub percentile_list: Vec<f64>,
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub slat_percentiles: bool,
    pub disable_lat: bool,
    pub disable_clat: bool,
    pub disable_slat: bool,
    pub gtod_reduce: bool,
    /// bw/iops sampling period in ms (bwavgtime / iopsavgtime, default 500).
    pub bw_avg_time_ms: u64,
    pub iops_avg_time_ms: u64,
    pub kb_base: u32,
    pub unit_base: u32,
    /// significant_figures: width of the normal report's shortened numbers (1-10, default 4).
    pub sig_figs: u32,
    /// disk_util: report disk utilization (fio's "Disk stats" section). Default on.
    pub disk_util: bool,
    /// clocksource= as given (None = automatic choice).
    pub clocksource: Option<ClockSource>,

    // --- placement
    /// CPUs the job may run on (None = any).
    pub cpus_allowed: Option<Vec<usize>>,
    pub nice: i32,
    /// comm=: the name of the job's threads (None: JOB.CLONE).
    pub comm: Option<String>,

    /// Warnings found while building the job, without the job's name or origin (printed
    /// with them before the run, as fio does).
    pub warnings: Vec<String>,

    /// The job's own options (not inherited from [global]) as given: JSON "job options".
    pub job_options: Vec<(String, String)>,

    // --- feature option groups (one file each under ext/)
    pub engine: crate::ext::EngineTuning,
    pub sim: crate::ext::SimSpec,
    pub steadystate: crate::ext::SteadyStateSpec,
    pub logs: crate::ext::LogSpec,
    pub pacing: crate::ext::PacingSpec,
    /// exec_prerun/postrun, prio/prioclass, fadvise_hint, write_hint, pre_read.
    pub lifecycle: crate::ext::LifecycleSpec,
    pub errors: crate::ext::ErrorPolicy,
    pub net: crate::ext::net::NetSpec,
    /// uri= of ioengine=nbd.
    pub nbd: crate::ext::nbd::NbdSpec,
    pub zones: crate::ext::ZoneSpec,
    pub buffers: crate::ext::BuffersSpec,
    pub verify: crate::ext::VerifySpec,
    pub local: crate::ext::LocalSpec,
    /// file_append, unlink_each_loop, stats, lockmem, uid/gid, ... (issue 14).
    pub dropin: crate::ext::DropinSpec,
    /// log_compression, log_store_compressed, thp, gtod_cpu (issue 14).
    pub compat: crate::ext::CompatSpec,
    /// cgroup, cgroup_weight, cgroup_nodelete.
    pub cgroup: crate::ext::cgroup::CgroupSpec,
    /// cmdprio_* and uncached (issue 14).
    pub prio: crate::ext::PrioSpec,
    /// sprandom, spr_op, spr_num_regions, spr_cs (fio 3.4x SSD preconditioning).
    pub sprandom: crate::ext::sprandom::SprandomSpec,
    /// An engine or buffer memory ferrio cannot provide (accepted by --parse-only).
    pub foreign: crate::ext::foreign::ForeignSpec,
}
