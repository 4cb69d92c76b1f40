//! fio's defaults for every [`JobSpec`] field (fio 3.33 HOWTO and `--cmdhelp`).

use crate::spec::*;
use crate::values::dist::RandomDistribution;
use crate::values::size::SizeOrPercent;

/// fio's default completion-latency percentiles.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

impl JobSpec {
    /// A job with every field at fio's default.
    pub fn with_defaults(name: &str, origin: &str) -> JobSpec {
        let bs = BlockSize {
            min: 4096,
            max: 4096,
            split: Vec::new(),
        };
        JobSpec {
            name: name.to_string(),
            description: None,
            origin: origin.to_string(),
            ioengine: "psync".into(),
            iodepth: 1,
            iodepth_set: false,
            hipri: false,
            filenames: Vec::new(),
            directory: None,
            directories: Vec::new(),
            filename_format: "$jobname.$jobnum.$filenum".into(),
            nrfiles: 1,
            size: None,
            filesize: None,
            io_size: None,
            offset: SizeOrPercent::Bytes(0),
            offset_increment: 0,
            offset_align: 0,
            number_ios: None,
            fill_device: false,
            rw: RwMode {
                kind: RwKind::Read,
                random: false,
                nr: 1,
                text: "read".into(),
            },
            rw_sequencer: RwSequencer::Sequential,
            rwmixread: 50,
            percentage_random: [100; 3],
            bs: [bs.clone(), bs.clone(), bs],
            blockalign: [0; 3],
            bs_ranged: [false; 3],
            bs_unaligned: false,
            bs_is_seq_rand: false,
            direct: false,
            sync: false,
            fsync: 0,
            sync_file_range: None,
            serialize_overlap: false,
            fdatasync: 0,
            end_fsync: false,
            end_syncfs: false,
            fsync_on_close: false,
            create_on_open: false,
            create_only: false,
            dsync: false,
            allow_file_create: true,
            allow_mounted_write: false,
            overwrite: false,
            unlink: false,
            fallocate: Fallocate::Native,
            invalidate: true,
            readonly: false,
            numjobs: 1,
            thread: false,
            group_reporting: false,
            unified_rw_reporting: Default::default(),
            stonewall: false,
            new_group: false,
            wait_for: None,
            exitall: false,
            time_based: false,
            runtime_us: None,
            ramp_time_us: 0,
            ramp_size: 0,
            startdelay_us: (0, 0),
            loops: 1,
            randrepeat: true,
            allrandrepeat: false,
            randseed: 0x89,
            randseed_set: false,
            fio_seeds: FioSeeds::Latest,
            file_service: FileService::RoundRobin(1),
            norandommap: false,
            random_generator: RandomGenerator::Tausworthe,
            random_distribution: RandomDistribution::Random,
            random_sequence_stride: false,
            zero_buffers: false,
            refill_buffers: false,
            scramble_buffers: true,
            buffer_pattern: None,
            percentile_list: DEFAULT_PERCENTILES.to_vec(),
            clat_percentiles: true,
            lat_percentiles: false,
            slat_percentiles: false,
            disable_lat: false,
            disable_clat: false,
            disable_slat: false,
            gtod_reduce: false,
            bw_avg_time_ms: 500,
            iops_avg_time_ms: 500,
            kb_base: 1024,
            unit_base: 0,
            sig_figs: 4,
            disk_util: true,
            clocksource: None,
            cpus_allowed: None,
            nice: 0,
            comm: None,
            warnings: Vec::new(),
            job_options: Vec::new(),
            engine: Default::default(),
            sim: Default::default(),
            steadystate: Default::default(),
            logs: Default::default(),
            pacing: Default::default(),
            lifecycle: Default::default(),
            zones: Default::default(),
            errors: Default::default(),
            buffers: Default::default(),
            verify: Default::default(),
            local: Default::default(),
            dropin: Default::default(),
            compat: Default::default(),
            prio: Default::default(),
            sprandom: Default::default(),
            net: Default::default(),
            nbd: Default::default(),
            cgroup: Default::default(),
            foreign: Default::default(),
        }
    }

    /// Whether the job issues writes or trims (what --readonly refuses).
    pub fn writes(&self) -> bool {
        !matches!(self.rw.kind, RwKind::Read)
    }

    /// Whether the job starts with a ramp period (ramp_time or ramp_size) whose
    /// I/O is not in its statistics.
    pub fn ramps(&self) -> bool {
        self.ramp_time_us > 0 || self.ramp_size > 0
    }
}
