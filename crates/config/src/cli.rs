//! fio-style command line → [`Command`].
//!
//! Arguments are an ordered stream: `--option=value` (or `--option value` for options
//! that need a value, as fio's getopt allows), `--name=JOB` starts a new job (and
//! `--name=global` a global group), options before the first `--name` are global, and
//! arguments not starting with `--` are job files. Run-wide flags (`--output-format`,
//! `--section`, ...) may appear anywhere; they are one table, [`flags::FLAGS`], which
//! also writes `--help` ([`help`]).

use crate::builder::Overrides;
use crate::error::Loc;
use crate::jobfile::{self, subst::replace_keywords, Env, RawOpt, Section};
use crate::session::{assemble, showcmd};
use crate::spec::JobSpec;
use crate::table;
use std::path::PathBuf;

pub use crate::error::ConfigError;
pub use debug::{DebugCategory, DebugSet};
pub use doc::{flag_docs, flag_values, FlagArg, FlagDoc};
pub use flags::help;
pub use net::{ClientGroup, NetFlags, DEFAULT_PORT};

mod argv;
mod debug;
mod doc;
mod enghelp;
mod flags;
mod profile;
mod reports;
mod row;

pub use reports::SweepPoint;
mod net;

/// The fio release whose behaviour and output ferrio follows (drop-in mode claims it).
pub const FIO_VERSION: &str = "3.33";

/// The version string: `ferrio-X.Y.Z`, or in drop-in mode `fio-3.33-ferrio-X.Y.Z`
/// (tools that drive fio check that it starts with `fio-3`; it still says ferrio).
pub fn version_string(fio_compat: bool) -> String {
    let own = format!("ferrio-{}", env!("CARGO_PKG_VERSION"));
    if fio_compat {
        format!("fio-{FIO_VERSION}-{own}")
    } else {
        own
    }
}

/// `--memcpytest`'s copy methods, each with what it measures (the binary runs them).
pub const MEMCPY_TYPES: &[(&str, &str)] = &[
    ("memcpy", "the standard library's copy (copy_from_slice)"),
    (
        "memmove",
        "the standard library's overlapping-safe copy (copy_within)",
    ),
    ("simple", "a byte-by-byte loop"),
    (
        "hybrid",
        "the byte loop for chunks of 64 bytes or more, memcpy below",
    ),
];

/// `--memcpytest[=TYPES]`: every type when none is given.
fn parse_memcpy_types(v: Option<&str>) -> Result<Vec<&'static str>, ConfigError> {
    let all = || MEMCPY_TYPES.iter().map(|t| t.0).collect::<Vec<_>>();
    let Some(v) = v.filter(|v| !v.is_empty()) else {
        return Ok(all());
    };
    let mut out = Vec::new();
    for t in v.split(',').map(str::trim) {
        match MEMCPY_TYPES.iter().find(|m| m.0 == t) {
            Some(m) if !out.contains(&m.0) => out.push(m.0),
            Some(_) => {}
            None => return Err(flag_err("memcpytest", t, &all().join(", "))),
        }
    }
    Ok(out)
}

/// `--crctest`'s checksums, in fio's order (the verify= checksums).
pub const CRC_TYPES: &[&str] = &[
    "md5", "crc64", "crc32", "crc32c", "crc16", "crc7", "sha1", "sha256", "sha512", "xxhash",
    "sha3-224", "sha3-256", "sha3-384", "sha3-512",
];

/// `--crctest[=TYPES]`: every checksum when none is given.
fn parse_crc_types(v: Option<&str>) -> Result<Vec<&'static str>, ConfigError> {
    let Some(v) = v.filter(|v| !v.is_empty()) else {
        return Ok(CRC_TYPES.to_vec());
    };
    let mut out = Vec::new();
    for t in v.split(',').map(str::trim) {
        match CRC_TYPES.iter().find(|m| **m == t) {
            Some(m) if !out.contains(m) => out.push(*m),
            Some(_) => {}
            None => return Err(flag_err("crctest", t, &CRC_TYPES.join(", "))),
        }
    }
    // fio measures them in its table's order whatever order they are asked in.
    out.sort_by_key(|t| CRC_TYPES.iter().position(|c| c == t));
    Ok(out)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Normal,
    Terse,
    Json,
    JsonPlus,
    /// ferrio: one compact line per status interval (docs/live.md).
    Interval,
    /// ferrio, multi-host runs: one row per host and a total (docs/multihost.md), as a
    /// table, JSON or CSV.
    Hosts,
    HostsJson,
    HostsCsv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EtaMode {
    Auto,
    Always,
    Never,
}

/// Flags that apply to the whole run, not to a job.
#[derive(Clone, Debug)]
pub struct GlobalFlags {
    /// --output-format (comma list; default [Normal]). --minimal means [Terse].
    pub output_formats: Vec<OutputFormat>,
    /// --output=FILE
    pub output: Option<PathBuf>,
    /// --terse-version (default 3)
    pub terse_version: u32,
    pub eta: EtaMode,
    /// --debug=... categories, in the order given (`all` expanded).
    pub debug: Vec<DebugCategory>,
    /// --debug=job:N: only job N's threads (from 1, fio's thread numbers) write lines.
    pub debug_job: Option<u32>,
    /// --readonly: every job was checked not to write or trim.
    pub readonly: bool,
    /// --aux-path: where verify state and dump files go (None: the working directory).
    pub aux_path: Option<PathBuf>,
    /// --status-interval, --eta-newline, --eta-interval and friends.
    pub live: crate::ext::LiveFlags,
    /// --json-lines: live json reports one per line instead of pretty-printed.
    pub json_lines: bool,
    /// Drop-in mode (invoked as `fio` or FERRIO_FIO_COMPAT=1): fio's version string.
    pub fio_compat: bool,
    /// --bandwidth-log: fio 3.33's agg-{read,write,trim}_bw.log files.
    pub bandwidth_log: bool,
    /// --trigger-file, --trigger-timeout, --trigger.
    pub trigger: TriggerFlags,
    /// --idle-prof=system|percpu.
    pub idle_prof: Option<IdleProf>,
    /// --warnings-fatal: a job warning is an error.
    pub warnings_fatal: bool,
    /// --sweep, --repeat, --html, --prometheus, --compare (docs/reports.md).
    pub reports: crate::ext::ReportFlags,
    /// --server, --client and their companions (docs/multihost.md).
    pub net: NetFlags,
}

/// What --idle-prof reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleProf {
    /// The idle share of all CPUs.
    System,
    /// Also each CPU's.
    PerCpu,
}

/// fio's trigger: when `file` appears or `timeout_ms` after the start, stop every job
/// and run `cmd` with the shell.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriggerFlags {
    pub file: Option<PathBuf>,
    pub timeout_ms: Option<u64>,
    pub cmd: Option<String>,
}

impl TriggerFlags {
    /// Whether anything can fire.
    pub fn armed(&self) -> bool {
        self.file.is_some() || self.timeout_ms.is_some()
    }
}

impl Default for GlobalFlags {
    fn default() -> Self {
        GlobalFlags {
            output_formats: vec![OutputFormat::Normal],
            output: None,
            terse_version: 3,
            eta: EtaMode::Auto,
            debug: Vec::new(),
            debug_job: None,
            readonly: false,
            aux_path: None,
            live: Default::default(),
            json_lines: false,
            fio_compat: false,
            bandwidth_log: false,
            trigger: TriggerFlags::default(),
            idle_prof: None,
            warnings_fatal: false,
            reports: Default::default(),
            net: NetFlags::default(),
        }
    }
}

/// A validated run: what to run and how to report it.
#[derive(Clone, Debug)]
pub struct Invocation {
    pub flags: GlobalFlags,
    /// Jobs in order (after --section filtering); numjobs not yet expanded.
    pub jobs: Vec<JobSpec>,
    /// Options set in [global] sections / before the first --name, as given (JSON "global options").
    pub global_options: Vec<(String, String)>,
}

/// What main should do.
#[derive(Clone, Debug)]
// One per process, moved once: boxing the run would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    Run(Invocation),
    /// --parse-only: run every check a real run makes before I/O, then exit.
    Check(Invocation),
    /// --help, --version, --cmdhelp, --showcmd: print this text to stdout, exit 0.
    Print(String),
    /// --cpuclock-test
    CpuClockTest,
    /// --idle-prof=calibrate: time the unit of work and exit.
    IdleCalibrate,
    /// --memcpytest: the copy methods to measure (names from [`MEMCPY_TYPES`]).
    MemcpyTest(Vec<&'static str>),
    /// --inflate-log=FILE: print a compressed log as text.
    InflateLog(String),
    /// --crctest: the checksums to measure (names from [`CRC_TYPES`]).
    CrcTest(Vec<&'static str>),
    /// --clock-bench
    ClockBench,
    /// --sweep / --repeat: run every point in order, then print one table.
    Sweep(Vec<SweepPoint>),
    /// --compare: compare two JSON reports.
    /// `json`: print the comparison as JSON (--output-format=json).
    Compare {
        before: PathBuf,
        after: PathBuf,
        json: bool,
    },
    /// --server: serve runs to clients (the flags say where and what is allowed).
    Server(GlobalFlags),
    /// --client: send the job files to the hosts and print their results.
    Client(GlobalFlags),
    /// --install-extras=DIR[,fio]: write the binary, man page and completions under
    /// DIR (and DIR/bin/fio, a link to ferrio, with `,fio`).
    InstallExtras {
        dir: PathBuf,
        fio_link: bool,
    },
}

/// The arguments as lexed, before the jobs are assembled.
struct Raw {
    flags: GlobalFlags,
    sections: Vec<Section>,
    files: Vec<PathBuf>,
    only: Vec<String>,
    parse_only: bool,
    showcmd: bool,
    /// What to print or do instead of running (--help, --version, ...): the first wins.
    special: Option<Command>,
    /// Notes for stderr about flags accepted without effect.
    warnings: Vec<String>,
    /// --profile=NAME and its options: jobs appended after the command line's.
    profile: profile::Profile,
}

/// A parsed command line: what to do, and notes for stderr.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub command: Command,
    pub warnings: Vec<String>,
    /// `--debug=parse` and `--debug=profile`: the lines' categories and messages, in
    /// fio's line shape, for where fio's debug lines go (stdout or the --output file).
    pub debug_lines: Vec<(DebugCategory, String)>,
}

/// Parse the process arguments (without argv[0]); `fio_compat` is drop-in mode.
pub fn parse_command_line(args: &[String], fio_compat: bool) -> Result<Parsed, ConfigError> {
    parse_full(args, &Env::system(), fio_compat)
}

/// [`parse_command_line`] with an explicit environment (file reading, variables,
/// keywords), for tests.
pub fn parse_with(args: &[String], env: &Env) -> Result<Command, ConfigError> {
    parse_full(args, env, false).map(|p| p.command)
}

/// Parse with an explicit environment and mode.
pub fn parse_full(args: &[String], env: &Env, fio_compat: bool) -> Result<Parsed, ConfigError> {
    let (raw, mut warnings) = match lex_args(args, env, fio_compat)? {
        Ok(mut raw) => {
            let w = std::mem::take(&mut raw.warnings);
            (raw, w)
        }
        Err((command, warnings)) => {
            return Ok(Parsed {
                command,
                warnings,
                debug_lines: Vec::new(),
            })
        }
    };
    let mut debug_lines = Vec::new();
    // A job file's warnings come before the error they may explain (an unset
    // `${VAR}` that left an option empty), in the lines stderr shows.
    let command = build_command(raw, env, &mut debug_lines, &mut warnings).map_err(|e| {
        let mut lines: Vec<String> = warnings.iter().map(|w| format!("warning: {w}")).collect();
        lines.push(e.0);
        ConfigError(lines.join("\nferrio: "))
    })?;
    Ok(Parsed {
        command,
        warnings,
        debug_lines,
    })
}

fn build_command(
    mut raw: Raw,
    env: &Env,
    debug_lines: &mut Vec<(DebugCategory, String)>,
    warnings: &mut Vec<String>,
) -> Result<Command, ConfigError> {
    if raw.flags.reports.compare {
        return reports::compare(&raw);
    }
    if let Some(c) = net_command(&mut raw)? {
        return Ok(c);
    }
    let mut file_sections = Vec::new();
    for f in &raw.files {
        file_sections.push(jobfile::parse_file_noting(f, env, warnings)?);
    }
    if raw.flags.debug.contains(&DebugCategory::Parse) {
        let files: Vec<_> = raw
            .files
            .iter()
            .cloned()
            .zip(file_sections.clone())
            .collect();
        let parse = debug::parse_trace(&raw.sections, &files);
        debug_lines.extend(parse.into_iter().map(|l| (DebugCategory::Parse, l)));
    }
    if let Some(p) = raw.profile.def {
        if raw.flags.debug.contains(&DebugCategory::Profile) {
            // fio's load_profile line.
            let line = format!("loading profile '{}'", p.name);
            debug_lines.insert(0, (DebugCategory::Profile, line));
        }
    }
    if raw.showcmd {
        if raw.profile.def.is_some() {
            // The command line's sections and the profile's (a job's name is its own).
            let mut secs = raw.sections.clone();
            secs.iter_mut()
                .for_each(|s| s.options.retain(|o| o.key != "name"));
            return Ok(Command::Print(showcmd(&secs) + "\n"));
        }
        if file_sections.is_empty() {
            return Err(ConfigError("--showcmd needs job files to show".into()));
        }
        let lines: Vec<String> = file_sections.iter().map(|s| showcmd(s)).collect();
        return Ok(Command::Print(lines.join("\n") + "\n"));
    }
    let ov = Overrides {
        readonly: raw.flags.readonly,
        aux_path: raw.flags.aux_path.clone(),
    };
    if raw.parse_only && globals_only(&raw, &file_sections, &ov)? {
        return Ok(Command::Print(String::new()));
    }
    if raw.flags.reports.is_series() {
        let points = reports::sweep(&raw, &file_sections, &ov)?;
        return Ok(match raw.parse_only {
            true => Command::Check(points[0].inv.clone()),
            false => Command::Sweep(points),
        });
    }
    let a = assemble(&raw.sections, &file_sections, &raw.only, &ov)?;
    if raw.flags.warnings_fatal {
        if let Some((j, w)) = a
            .jobs
            .iter()
            .find_map(|j| j.warnings.first().map(|w| (j, w)))
        {
            return Err(ConfigError(format!(
                "job '{}': {w} (at {}); an error with --warnings-fatal",
                j.name, j.origin
            )));
        }
    }
    let mut jobs = a.jobs;
    debug::mark_jobs(&raw.flags, &mut jobs);
    profile::mark_jobs(&raw.profile, &mut jobs);
    let inv = Invocation {
        flags: raw.flags,
        jobs,
        global_options: a.global_options,
    };
    Ok(if raw.parse_only {
        Command::Check(inv)
    } else {
        Command::Run(inv)
    })
}

/// `--server` or `--client`: the job files are not parsed here (a server parses
/// what it is sent, under its own limits).
fn net_command(raw: &mut Raw) -> Result<Option<Command>, ConfigError> {
    let server = raw.flags.net.server.is_some() || raw.flags.net.stdio;
    let client = !raw.flags.net.clients.is_empty();
    // A pid file is a daemon's: for a server on a port, not one session on stdio.
    let pid_flag = [
        ("daemonize", raw.flags.net.daemonize.is_some()),
        ("pidfile", raw.flags.net.pidfile.is_some()),
    ]
    .into_iter()
    .find_map(|(name, set)| set.then_some(name));
    if let Some(name) = pid_flag {
        if raw.flags.net.server.is_none() || raw.flags.net.stdio {
            return Err(ConfigError(format!(
                "--{name} applies to --server (a server on a port) only, not to --server-stdio, --client or a local run"
            )));
        }
        if raw.flags.net.daemonize.is_some() && raw.flags.net.pidfile.is_some() {
            return Err(ConfigError(
                "--daemonize=PIDFILE names the pid file already; give --daemonize or --pidfile, not both".into(),
            ));
        }
    }
    if raw.flags.net.mpi {
        let clash = if server {
            Some("--server")
        } else if client {
            Some("--client")
        } else if raw.flags.reports.is_series() {
            Some("--sweep/--repeat")
        } else if raw.flags.output_formats.contains(&OutputFormat::Interval)
            || raw.flags.live.status_interval_ms.is_some()
        {
            Some("--output-format=interval/--status-interval")
        } else {
            None
        };
        if let Some(other) = clash {
            return Err(ConfigError(format!(
                "--mpi cannot be combined with {other} (every MPI rank runs the jobs; rank 0 prints one report)"
            )));
        }
    }
    if !server && !client {
        return Ok(None);
    }
    if server && client {
        return Err(ConfigError(
            "--server and --client exclude each other".into(),
        ));
    }
    if !raw.sections.is_empty() {
        return Err(ConfigError(format!(
            "job options on the command line (--{}) are not sent with --server/--client; put them in a job file",
            raw.sections[0].options.first().map_or("name", |o| o.key.as_str())
        )));
    }
    if server {
        if let Some(f) = raw.files.first() {
            return Err(ConfigError(format!(
                "--server takes no job file ('{}'); clients send theirs",
                f.display()
            )));
        }
        return Ok(Some(Command::Server(raw.flags.clone())));
    }
    if raw.flags.output_formats.contains(&OutputFormat::Interval) {
        return Err(ConfigError(
            "--output-format=interval is not available with --client (its status line shows the hosts' progress; --status-interval prints their cumulative reports)".into(),
        ));
    }
    if raw.flags.live.status_interval_ms.is_some() && raw.flags.reports.is_series() {
        return Err(ConfigError(
            "--status-interval is not available with --client and --sweep/--repeat (the sweep prints one table at the end)".into(),
        ));
    }
    if raw.flags.reports.is_series() {
        // Each point's options are appended to the job files' sections before they are
        // sent; a --remote-config file is the server's own, out of the client's reach.
        if raw.flags.net.clients.iter().any(|g| !g.remote.is_empty()) {
            return Err(ConfigError(
                "--sweep/--repeat with --client change the job files the client sends; they cannot change a --remote-config file (send it as a job file)".into(),
            ));
        }
        crate::ext::reports::points(&raw.flags.reports.sweeps)
            .map_err(|e| ConfigError(format!("--sweep: {e}")))?;
    }
    net::settle(&mut raw.flags.net, &raw.files)?;
    Ok(Some(Command::Client(raw.flags.clone())))
}

/// `--parse-only` with global options alone (no job): like fio, they are checked (on
/// a job that inherits them) and accepted. False when there are jobs to check.
fn globals_only(raw: &Raw, files: &[Vec<Section>], ov: &Overrides) -> Result<bool, ConfigError> {
    let no_job =
        raw.sections.iter().all(|s| s.is_global()) && files.iter().flatten().all(|s| s.is_global());
    if !no_job {
        return Ok(false);
    }
    let mut sections = raw.sections.clone();
    sections.push(Section {
        name: "parse-only".into(),
        loc: Loc::CommandLine,
        options: vec![RawOpt {
            key: "name".into(),
            value: Some("parse-only".into()),
            loc: Loc::CommandLine,
        }],
    });
    assemble(&sections, files, &raw.only, ov).map(|_| true)
}

fn flag_err(flag: &str, v: &str, allowed: &str) -> ConfigError {
    ConfigError(format!(
        "bad value '{v}' for --{flag} (at command line); allowed: {allowed}"
    ))
}

/// Lex the arguments. Ok(Err(cmd)) short-circuits (help, version, ...).
#[allow(clippy::type_complexity)]
fn lex_args(
    args: &[String],
    env: &Env,
    fio_compat: bool,
) -> Result<Result<Raw, (Command, Vec<String>)>, ConfigError> {
    let mut raw = Raw {
        flags: GlobalFlags {
            fio_compat,
            ..GlobalFlags::default()
        },
        warnings: Vec::new(),
        sections: Vec::new(),
        files: Vec::new(),
        only: Vec::new(),
        parse_only: false,
        showcmd: false,
        special: None,
        profile: profile::scan(args)?,
    };
    let mut i = 0;
    let mut files_only = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if files_only || !arg.starts_with('-') || arg == "-" {
            if !net::attach_file(&mut raw.flags.net, arg) {
                raw.files.push(PathBuf::from(arg));
            }
            continue;
        }
        if arg == "--" {
            files_only = true;
            continue;
        }
        let (key, inline) = match argv::split_arg(arg) {
            Some(k) => k,
            None => {
                return Err(ConfigError(format!(
                    "unknown flag '{arg}' (at command line); options are written --option=value, see --help"
                )))
            }
        };
        if raw.profile.owns(&key) {
            // A profile's own option (`--size` is tiobench's); only `prep` is bare.
            let value = match (inline, key.as_str()) {
                (Some(v), _) => Some(v),
                (None, "prep") => None,
                (None, _) if i < args.len() => {
                    i += 1;
                    Some(args[i - 1].clone())
                }
                (None, _) => None,
            };
            raw.profile.opts.push((key, value));
            continue;
        }
        let key = if arg.starts_with("--") {
            expand_prefix(&key)?
        } else {
            key
        };
        let key = key.as_str();
        // Value for options that need one: inline, or the next argument (getopt style).
        let mut need = |what: &str| -> Result<String, ConfigError> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            if i < args.len() {
                i += 1;
                return Ok(args[i - 1].clone());
            }
            Err(ConfigError(format!(
                "--{what} needs a value (at command line)"
            )))
        };
        if let Some(flag) = flags::find(key) {
            let handler = match flag.action {
                flags::Action::Handle(h) => h,
                flags::Action::Refuse(why) => {
                    return Err(ConfigError(format!(
                        "flag '--{key}' is not supported (at command line): {why}"
                    )))
                }
            };
            let value = match flag.arg {
                flags::Arg::None => None,
                flags::Arg::Optional => inline,
                flags::Arg::Value => Some(need(key)?),
            };
            handler(&mut raw, value.as_deref())?;
            continue;
        }
        // Anything else is a job option (--bs=4k is bs=4k).
        let Some(spec) = table::find(key) else {
            let hint = table::suggest(key)
                .map(|s| format!("; did you mean '--{s}'?"))
                .unwrap_or_default();
            let job = raw.sections.last().map_or("global", |s| s.name.as_str());
            return Err(ConfigError(format!(
                "job '{job}': unknown option '--{key}' (at command line){hint}"
            )));
        };
        let value = match argv::job_value(spec, key, inline.clone())? {
            argv::Value::Bare => None,
            argv::Value::Inline(v) => Some(v),
            argv::Value::Next => Some(need(key)?),
        };
        let value = value.map(|v| replace_keywords(&v, &env.keywords));
        if raw.sections.is_empty() {
            raw.sections.push(Section {
                name: "global".into(),
                loc: Loc::CommandLine,
                options: Vec::new(),
            });
        }
        let opt = RawOpt {
            key: key.to_string(),
            value,
            loc: Loc::CommandLine,
        };
        if let Some(s) = raw.sections.last_mut() {
            s.options.push(opt);
        }
    }
    if raw.profile.def.is_some() {
        if matches!(raw.special, Some(Command::Print(_))) && args.iter().any(|a| a == "--cmdhelp") {
            raw.special = profile::cmdhelp(&raw.profile).map(Command::Print);
        } else {
            let jobs = profile::sections(&raw.profile, &env.keywords)?;
            raw.sections.extend(jobs);
        }
    }
    Ok(match raw.special.take() {
        Some(c) => Err((c, raw.warnings)),
        None => Ok(raw),
    })
}

/// fio's getopt accepts an unambiguous prefix of a long name on the command line
/// (`--runt=10` is `--runtime=10`); an exact name always wins. Unknown names come
/// back unchanged (to be reported as unknown), ambiguous ones are an error.
fn expand_prefix(key: &str) -> Result<String, ConfigError> {
    if key.is_empty() || flags::find(key).is_some() || table::find(key).is_some() {
        return Ok(key.to_string());
    }
    // (name written, canonical target) for every long name with this prefix.
    let mut hits: Vec<(&str, &str)> = Vec::new();
    for f in flags::all() {
        for n in f.names.iter().filter(|n| n.starts_with(key)) {
            hits.push((n, f.names[0]));
        }
    }
    for o in table::all() {
        for n in std::iter::once(&o.name)
            .chain(o.aliases.iter())
            .filter(|n| n.starts_with(key))
        {
            hits.push((n, o.name));
        }
    }
    let mut targets: Vec<&str> = hits.iter().map(|h| h.1).collect();
    targets.sort_unstable();
    targets.dedup();
    match targets.len() {
        0 => Ok(key.to_string()),
        1 => Ok(targets[0].to_string()),
        _ => {
            let names: Vec<String> = hits.iter().map(|h| format!("--{}", h.0)).collect();
            Err(ConfigError(format!(
                "option '--{key}' is ambiguous (at command line); possibilities: {}",
                names.join(", ")
            )))
        }
    }
}

fn parse_formats(v: &str) -> Result<Vec<OutputFormat>, ConfigError> {
    let mut out = Vec::new();
    for f in v.split(',').map(str::trim) {
        let f = match f {
            "normal" => OutputFormat::Normal,
            "terse" | "minimal" | "csv" => OutputFormat::Terse,
            "json" => OutputFormat::Json,
            "json+" => OutputFormat::JsonPlus,
            "interval" => OutputFormat::Interval,
            "hosts" => OutputFormat::Hosts,
            "hosts-json" => OutputFormat::HostsJson,
            "hosts-csv" => OutputFormat::HostsCsv,
            _ => return Err(flag_err(
                "output-format",
                f,
                "normal, terse, json, json+, interval, hosts, hosts-json, hosts-csv (comma list)",
            )),
        };
        if !out.contains(&f) {
            out.push(f);
        }
    }
    Ok(out)
}

/// The live reporting flags (--status-interval, --eta-newline, --eta-interval,
/// --interval-percentiles) into [`crate::ext::LiveFlags`].
fn live_flag(live: &mut crate::ext::LiveFlags, key: &str, v: &str) -> Result<(), ConfigError> {
    use crate::values::{parse_float_list, parse_time, TimeUnit};
    let ms = |unit: TimeUnit, min_ms: u64| -> Result<u64, ConfigError> {
        let us = parse_time(v, unit).map_err(|e| flag_err(key, v, &format!("a time ({e})")))?;
        let ms = us / 1000;
        if ms < min_ms {
            return Err(flag_err(key, v, &format!("a time of at least {min_ms}ms")));
        }
        Ok(ms)
    };
    match key {
        "status-interval" => live.status_interval_ms = Some(ms(TimeUnit::S, 1)?),
        "eta-newline" => live.eta_newline_ms = Some(ms(TimeUnit::S, 1)?),
        // (fio parses it as seconds when no unit is given, as --status-interval)
        "eta-interval" => live.eta_interval_ms = Some(ms(TimeUnit::S, 250)?),
        _ => {
            let l = parse_float_list(v).map_err(|e| flag_err(key, v, &e))?;
            if l.is_empty() || l.iter().any(|p| !(0.0..=100.0).contains(p)) {
                return Err(flag_err(key, v, "percentiles in [0, 100], ':'-separated"));
            }
            live.interval_percentiles = Some(l);
        }
    }
    Ok(())
}

#[cfg(test)]
mod flag_tests;
#[cfg(test)]
mod tests;
