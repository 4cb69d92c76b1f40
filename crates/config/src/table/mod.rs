//! The one declarative option table. Each [`OptSpec`] entry carries everything about
//! an option: name, aliases, type, category, default, allowed values with help, range,
//! help text, support status and the function that stores it into a [`JobSpec`].
//! Parsing, validation, `--cmdhelp` and `docs/options.md` are all driven from here:
//! adding an option is adding one entry.
//!
//! The entries live in one file per category group; [`all`] chains them in
//! documentation order.

mod blktrace;
mod buffers;
mod cgroup;
mod compat;
mod docs;
mod dropin2;
mod engine;
mod errors;
mod files;
mod foreign;
mod io;
mod job;
mod lifecycle;
mod local;
mod logs;
mod nbd;
mod net;
mod pacing;
mod prio;
mod profile;
mod random;
mod sim;
mod sprandom;
mod stats;
mod steadystate;
mod unsupported;
mod verify;
mod zones;

pub use docs::{cmdhelp_all, cmdhelp_one, options_markdown};
pub use dropin2::missing_numa_node;
pub use foreign::{external_engine, shared_with};
pub use io::{engine_not_yet, ENGINES_NOT_YET};
pub use local::{METADATA_ENGINES, NO_EXTEND_ENGINES};

use crate::spec::JobSpec;
use crate::values::{self, TimeUnit};

/// How an option's value is written (drives help text and the bare-key rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Free text.
    Str,
    /// Free text, or the bare key for the job's name (log prefixes, as in fio).
    OptStr,
    /// One of the listed values.
    Choice,
    /// Non-negative integer (size suffixes and arithmetic accepted, as in fio).
    Int,
    /// Signed integer.
    SignedInt,
    /// Bytes with optional unit.
    Size,
    /// Bytes or a percentage (`50%`).
    SizeOrPercent,
    /// Time with optional unit; the given unit applies when none is written.
    Time(TimeUnit),
    /// Time or time range (`1s-5s`).
    TimeRange(TimeUnit),
    /// 0 or 1; a value is required.
    Bool,
    /// Bare key turns it on (`time_based`); `=0`/`=1` also accepted.
    Flag,
    /// Byte range `4k-64k`; single value allowed.
    Range,
    /// Per direction (read,write,trim) sizes.
    PerDirSize,
    /// Per direction (read,write,trim) byte ranges.
    PerDirRange,
    /// Per direction (read,write,trim) integers.
    PerDirInt,
    /// ':'-separated list (`\:` escapes a colon).
    List,
    /// ':'-separated list of floats.
    FloatList,
    /// Format described in the help text.
    Special,
}

impl Kind {
    /// One-line description of the value format, for help and docs.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Str => "string",
            Kind::OptStr => "string, or the bare key for the job's name",
            Kind::Choice => "one of the values below",
            Kind::Int => "integer (opt=100, units and (arithmetic) allowed)",
            Kind::SignedInt => "signed integer (opt=-5)",
            Kind::Size => "size with optional unit (opt=4k)",
            Kind::SizeOrPercent => "size with optional unit, or percentage (opt=1g, opt=50%)",
            Kind::Time(TimeUnit::S) => "time, seconds by default (opt=10s, 500ms)",
            Kind::Time(TimeUnit::Ms) => "time, milliseconds by default (opt=500, 1s)",
            Kind::Time(TimeUnit::Us) => "time, microseconds by default (opt=100, 1ms)",
            Kind::TimeRange(_) => "time or time range, seconds by default (opt=5, opt=1s-10s)",
            Kind::Bool => "boolean (opt=1 or opt=0)",
            Kind::Flag => "flag (bare opt, or opt=1 / opt=0)",
            Kind::Range => "size range (opt=1k-4k; a single size is allowed)",
            Kind::PerDirSize => "size, or read,write,trim sizes (opt=4k or opt=4k,64k)",
            Kind::PerDirRange => "size range, or read,write,trim ranges (opt=1k-4k,8k-32k)",
            Kind::PerDirInt => "integer, or read,write,trim integers (opt=50 or opt=10,90)",
            Kind::List => "':'-separated list ('\\:' for a literal colon)",
            Kind::FloatList => "':'-separated list of numbers (opt=50:99:99.9)",
            Kind::Special => "see the description",
        }
    }
}

/// Option families, in the order `--cmdhelp` and the docs list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Description,
    Files,
    Io,
    BlockSize,
    Engine,
    Jobs,
    Time,
    /// Rate limits and think time.
    Pacing,
    Random,
    Buffers,
    Stats,
    Process,
    Errors,
    /// Data verification.
    Verify,
    /// Options of fio's engines that ferrio cannot run (checked, for --parse-only).
    Foreign,
    /// Accepted, value checked, no effect.
    NoOp,
    Unsupported,
}

impl Category {
    pub const ALL: [Category; 17] = [
        Category::Description,
        Category::Files,
        Category::Io,
        Category::BlockSize,
        Category::Engine,
        Category::Jobs,
        Category::Time,
        Category::Pacing,
        Category::Random,
        Category::Buffers,
        Category::Stats,
        Category::Process,
        Category::Errors,
        Category::Verify,
        Category::Foreign,
        Category::NoOp,
        Category::Unsupported,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Category::Description => "Job description",
            Category::Files => "Target files and file handling",
            Category::Io => "I/O pattern",
            Category::BlockSize => "Block size",
            Category::Engine => "I/O engine",
            Category::Jobs => "Jobs and groups",
            Category::Time => "Time and stopping",
            Category::Pacing => "Rate limits and think time",
            Category::Random => "Randomness",
            Category::Buffers => "Buffers",
            Category::Stats => "Statistics and units",
            Category::Process => "Process placement",
            Category::Errors => "Error handling",
            Category::Verify => "Data verification",
            Category::Foreign => "Options of fio engines ferrio cannot run (checked by --parse-only; a run is refused)",
            Category::NoOp => "fio options accepted without effect",
            Category::Unsupported => "fio options not supported by ferrio yet",
        }
    }
}

/// Whether ferrio implements an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    Yes,
    /// Accepted and ignored: it cannot change what ferrio does or measures.
    NoOp,
    /// A fio option ferrio does not implement: using it is an error.
    No,
}

/// Context an option's store function gets: the entry itself and the job's kb_base.
pub struct Ctx {
    pub spec: &'static OptSpec,
    pub kb_base: u32,
}

/// Stores a parsed value into the job. Errors are short phrases about the value.
pub type Apply = fn(&mut JobSpec, &Ctx, &str) -> Result<(), String>;

/// One option.
pub struct OptSpec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    pub category: Category,
    /// Default as fio prints it ("" = no default / unset).
    pub default: &'static str,
    /// Allowed values with a help line each (Choice options; informative for others).
    pub values: &'static [(&'static str, &'static str)],
    pub min: Option<u64>,
    pub max: Option<u64>,
    pub help: &'static str,
    pub support: Support,
    pub apply: Apply,
    /// The engines this option is private to (fio's per-engine options, listed by
    /// `--enghelp=ENGINE`); empty for options every job has.
    pub engines: &'static [&'static str],
}

fn ignore(_: &mut JobSpec, _: &Ctx, _: &str) -> Result<(), String> {
    Ok(())
}

fn ignore_bool(_: &mut JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    c.bool(v).map(|_| ())
}

/// A deprecated fio option that fio accepts and ignores with a warning: ferrio does
/// the same (the caller checks the value first, as fio parses it).
fn deprecated(j: &mut JobSpec, name: &str) -> Result<(), String> {
    j.warnings
        .push(format!("option {name} is deprecated (fio ignores it too)"));
    Ok(())
}

/// A fio option that fio itself rejects today (its FIO_OPT_DEPRECATED kind: "failed
/// parsing"): the error says so and what replaces it, instead of "unknown option".
fn removed(name: &str, instead: &str) -> String {
    format!("option {name} was removed from fio, which rejects it too: {instead}")
}

/// Start an entry (const builder; chain `.alias()`, `.def()`, ...).
pub const fn opt(
    name: &'static str,
    kind: Kind,
    category: Category,
    help: &'static str,
    apply: Apply,
) -> OptSpec {
    OptSpec {
        name,
        aliases: &[],
        kind,
        category,
        default: "",
        values: &[],
        min: None,
        max: None,
        help,
        support: Support::Yes,
        apply,
        engines: &[],
    }
}

/// A fio option ferrio does not implement yet.
pub const fn unsupported(name: &'static str, help: &'static str) -> OptSpec {
    let mut o = opt(name, Kind::Special, Category::Unsupported, help, ignore);
    o.support = Support::No;
    o
}

impl OptSpec {
    pub const fn alias(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }
    pub const fn def(mut self, d: &'static str) -> Self {
        self.default = d;
        self
    }
    pub const fn vals(mut self, v: &'static [(&'static str, &'static str)]) -> Self {
        self.values = v;
        self
    }
    pub const fn range(mut self, min: u64, max: u64) -> Self {
        self.min = Some(min);
        self.max = Some(max);
        self
    }
    /// An engine's own option (`--enghelp=ENGINE` lists it).
    pub const fn private_to(mut self, engines: &'static [&'static str]) -> Self {
        self.engines = engines;
        self
    }
    pub const fn min(mut self, min: u64) -> Self {
        self.min = Some(min);
        self
    }
    /// A boolean option accepted (value checked) and ignored; the help says why
    /// that is safe.
    pub const fn noop(mut self, default: &'static str) -> Self {
        self.support = Support::NoOp;
        self.category = Category::NoOp;
        self.kind = Kind::Bool;
        self.default = default;
        self.apply = ignore_bool;
        self
    }

    /// Whether the option may be written without a value.
    pub fn bare_ok(&self) -> bool {
        matches!(self.kind, Kind::Flag | Kind::OptStr)
    }

    /// "allowed: a, b, c" or "range: min..max", for error messages; "" if neither.
    pub fn allowed(&self) -> String {
        if !self.values.is_empty() {
            let v: Vec<&str> = self.values.iter().map(|v| v.0).collect();
            return format!("allowed: {}", v.join(", "));
        }
        match (self.min, self.max) {
            (Some(a), Some(b)) => format!("allowed: {a}..{b}"),
            (Some(a), None) => format!("allowed: {a} or more"),
            (None, Some(b)) => format!("allowed: up to {b}"),
            (None, None) => String::new(),
        }
    }
}

impl Ctx {
    /// Integer with the entry's range check.
    pub fn uint(&self, v: &str) -> Result<u64, String> {
        let n = values::parse_int(v, self.kb_base)?;
        self.check_range(n)?;
        Ok(n)
    }
    pub fn u32(&self, v: &str) -> Result<u32, String> {
        let n = self.uint(v)?;
        u32::try_from(n).map_err(|_| format!("{n} is too large"))
    }
    pub fn check_range(&self, n: u64) -> Result<(), String> {
        let lo = self.spec.min.unwrap_or(0);
        let hi = self.spec.max.unwrap_or(u64::MAX);
        if n < lo || n > hi {
            return Err(format!("{n} is out of range"));
        }
        Ok(())
    }
    pub fn bool(&self, v: &str) -> Result<bool, String> {
        values::parse_bool(Some(v), self.spec.kind == Kind::Flag)
    }
    pub fn size(&self, v: &str) -> Result<u64, String> {
        let n = values::parse_size(v, self.kb_base)?;
        self.check_range(n)?;
        Ok(n)
    }
    pub fn time(&self, v: &str) -> Result<u64, String> {
        let unit = match self.spec.kind {
            Kind::Time(u) | Kind::TimeRange(u) => u,
            _ => TimeUnit::S,
        };
        values::parse_time(v, unit)
    }
    /// The value if it is one of the entry's allowed values.
    pub fn choice<'v>(&self, v: &'v str) -> Result<&'v str, String> {
        if self.spec.values.iter().any(|c| c.0 == v) {
            Ok(v)
        } else {
            Err("not an allowed value".into())
        }
    }
}

/// Every option, in documentation order.
pub fn all() -> impl Iterator<Item = &'static OptSpec> {
    job::DESCRIPTION
        .iter()
        .chain(files::FILES)
        .chain(io::IO)
        .chain(io::BLOCK_SIZE)
        .chain(io::ENGINE)
        .chain(sim::SIM)
        .chain(net::NET_OPTIONS)
        .chain(nbd::NBD)
        .chain(zones::ZONES)
        .chain(local::LOCAL)
        .chain(engine::ENGINE_TUNING)
        .chain(prio::PRIO)
        .chain(job::JOBS)
        .chain(job::TIME)
        .chain(steadystate::STEADYSTATE)
        .chain(pacing::PACING)
        .chain(random::RANDOM)
        .chain(sprandom::SPRANDOM)
        .chain(buffers::BUFFERS)
        .chain(stats::STATS)
        .chain(stats::PROCESS)
        .chain(lifecycle::LIFECYCLE)
        .chain(logs::LOGS)
        .chain(blktrace::BLKTRACE)
        .chain(profile::PROFILE)
        .chain(cgroup::CGROUP)
        .chain(errors::ERRORS)
        .chain(verify::VERIFY)
        .chain(dropin2::DROPIN)
        .chain(compat::COMPAT)
        .chain(foreign::FOREIGN)
        .chain(unsupported::UNSUPPORTED)
}

/// Find an option by name or alias.
pub fn find(name: &str) -> Option<&'static OptSpec> {
    all().find(|o| o.name == name || o.aliases.contains(&name))
}

/// The closest option name (edit distance), for "did you mean" hints.
pub fn suggest(name: &str) -> Option<&'static str> {
    let mut best: Option<(usize, &'static str)> = None;
    for o in all() {
        for n in std::iter::once(&o.name).chain(o.aliases.iter()) {
            let d = distance(name, n);
            if best.map_or(true, |b| d < b.0) {
                best = Some((d, n));
            }
        }
    }
    best.filter(|b| b.0 <= name.len().max(3) / 2 + 1)
        .map(|b| b.1)
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_unique() {
        let mut seen = std::collections::HashSet::new();
        for o in all() {
            for n in std::iter::once(&o.name).chain(o.aliases.iter()) {
                assert!(seen.insert(*n), "duplicate option name {n}");
            }
        }
    }

    #[test]
    fn every_entry_documented() {
        for o in all() {
            assert!(!o.help.is_empty(), "{} has no help", o.name);
            if o.kind == Kind::Choice {
                assert!(!o.values.is_empty(), "{} lists no values", o.name);
            }
        }
    }

    #[test]
    fn find_by_alias() {
        assert_eq!(find("readwrite").unwrap().name, "rw");
        assert_eq!(find("blocksize").unwrap().name, "bs");
        assert_eq!(find("io_limit").unwrap().name, "io_size");
        assert!(find("nope").is_none());
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("iodepht"), Some("iodepth"));
        assert_eq!(suggest("blocksiz"), Some("blocksize"));
        assert_eq!(suggest("rww"), Some("rw"));
        assert_eq!(suggest("zzzzzzzzzzzzzz"), None);
    }

    #[test]
    fn clocksource_values_are_exactly_the_clock_source_names() {
        let vals: Vec<&str> = find("clocksource")
            .unwrap()
            .values
            .iter()
            .map(|v| v.0)
            .collect();
        let names: Vec<&str> = crate::spec::ClockSource::ALL.iter().map(|c| c.1).collect();
        assert_eq!(vals, names);
        for (c, n) in crate::spec::ClockSource::ALL {
            assert_eq!(
                (c.name(), crate::spec::ClockSource::from_name(n)),
                (n, Some(c))
            );
        }
    }

    #[test]
    fn distance_basics() {
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("same", "same"), 0);
    }
}

#[cfg(test)]
mod fio_names {
    /// Every option `fio --cmdhelp` lists in fio 3.33 (names only), and the
    /// deprecated ones it still accepts with a warning (verifysort, verifysort_nr).
    const FIO_3_33: &[&str] = &[
        "allow_file_create",
        "allow_mounted_write",
        "allrandrepeat",
        "atomic",
        "ba",
        "block_error_percentiles",
        "bs",
        "bs_unaligned",
        "bsrange",
        "bssplit",
        "buffer_compress_chunk",
        "buffer_compress_percentage",
        "buffer_pattern",
        "buffered",
        "bwavgtime",
        "cgroup",
        "cgroup_nodelete",
        "cgroup_weight",
        "clat_percentiles",
        "clocksource",
        "continue_on_error",
        "cpumask",
        "cpus_allowed",
        "cpus_allowed_policy",
        "create_fsync",
        "create_on_open",
        "create_only",
        "create_serialize",
        "dedupe_global",
        "dedupe_mode",
        "dedupe_percentage",
        "dedupe_working_set_percentage",
        "description",
        "direct",
        "directory",
        "disable_bw_measurement",
        "disable_clat",
        "disable_lat",
        "disable_slat",
        "disk_util",
        "do_verify",
        "end_fsync",
        "error_dump",
        "exec_postrun",
        "exec_prerun",
        "exit_what",
        "exitall",
        "exitall_on_error",
        "experimental_verify",
        "fadvise_hint",
        "fallocate",
        "fdatasync",
        "file_append",
        "file_service_type",
        "filename",
        "filename_format",
        "filesize",
        "fill_device",
        "flow",
        "flow_id",
        "flow_sleep",
        "fsync",
        "fsync_on_close",
        "gid",
        "group_reporting",
        "gtod_cpu",
        "gtod_reduce",
        "ignore_error",
        "ignore_zone_limits",
        "invalidate",
        "io_size",
        "io_submit_mode",
        "hugepage-size",
        "iodepth",
        "iodepth_batch",
        "iodepth_batch_complete_max",
        "iodepth_batch_complete_min",
        "iodepth_low",
        "ioengine",
        "iopsavgtime",
        "ioscheduler",
        "job_max_open_zones",
        "kb_base",
        "lat_percentiles",
        "latency_percentile",
        "latency_run",
        "latency_target",
        "latency_window",
        "lockfile",
        "lockmem",
        "log_alternate_epoch",
        "log_alternate_epoch_clock_id",
        "log_avg_msec",
        "log_compression",
        "log_compression_cpus",
        "log_entries",
        "log_hist_coarseness",
        "log_hist_msec",
        "log_max_value",
        "log_offset",
        "log_prio",
        "log_store_compressed",
        "log_unix_epoch",
        "loops",
        "max_latency",
        "max_open_zones",
        "mem",
        "merge_blktrace_file",
        "merge_blktrace_iters",
        "merge_blktrace_scalars",
        "name",
        "new_group",
        "nice",
        "norandommap",
        "nrfiles",
        "numa_cpu_nodes",
        "numa_mem_policy",
        "number_ios",
        "numjobs",
        "offset",
        "offset_align",
        "offset_increment",
        "opendir",
        "openfiles",
        "overwrite",
        "per_job_logs",
        "percentage_random",
        "percentile_list",
        "pre_read",
        "prio",
        "prioclass",
        "profile",
        "ramp_time",
        "random_distribution",
        "random_generator",
        "randrepeat",
        "randseed",
        "rate",
        "rate_cycle",
        "rate_ignore_thinktime",
        "rate_iops",
        "rate_iops_min",
        "rate_min",
        "rate_process",
        "read_beyond_wp",
        "read_iolog",
        "read_iolog_chunked",
        "refill_buffers",
        "replay_align",
        "replay_no_stall",
        "replay_redirect",
        "replay_scale",
        "replay_skip",
        "replay_time_scale",
        "runtime",
        "rw",
        "rw_sequencer",
        "rwmixread",
        "rwmixwrite",
        "scramble_buffers",
        "serialize_overlap",
        "significant_figures",
        "size",
        "slat_percentiles",
        "startdelay",
        "stats",
        "steadystate",
        "steadystate_duration",
        "steadystate_ramp_time",
        "stonewall",
        "sync",
        "sync_file_range",
        "thinktime",
        "thinktime_blocks",
        "thinktime_blocks_type",
        "thinktime_iotime",
        "thinktime_spin",
        "thread",
        "time_based",
        "trim_backlog",
        "trim_backlog_batch",
        "trim_percentage",
        "trim_verify_zero",
        "uid",
        "unified_rw_reporting",
        "unique_filename",
        "unit_base",
        "unlink",
        "unlink_each_loop",
        "verify",
        "verify_async",
        "verify_backlog",
        "verify_backlog_batch",
        "verify_dump",
        "verify_fatal",
        "verify_interval",
        "verify_offset",
        "verify_only",
        "verify_pattern",
        "verify_state_load",
        "verify_state_save",
        "verifysort",
        "verifysort_nr",
        "wait_for",
        "write_barrier",
        "write_bw_log",
        "write_hint",
        "write_hist_log",
        "write_iolog",
        "write_iops_log",
        "write_lat_log",
        "zero_buffers",
        "zone_reset_frequency",
        "zone_reset_threshold",
        "zonecapacity",
        "zonemode",
        "zonerange",
        "zonesize",
        "zoneskip",
    ];

    #[test]
    fn every_fio_option_is_known() {
        for n in FIO_3_33 {
            assert!(
                super::find(n).is_some(),
                "fio option '{n}' is neither implemented nor listed as unsupported"
            );
        }
    }
}
