//! Run-wide command-line flags, one table row each: names, fio's one-letter form,
//! argument, help and what it does. `--help`, the refusal of fio flags ferrio lacks,
//! and the parsing itself all read [`FLAGS`]; adding a flag is adding a row.
//!
//! Every flag of fio 3.33's getopt table has a row: implemented, accepted with the
//! same (lack of) effect fio gives it, or refused with the reason.

use super::debug::{self, DebugRequest};
use super::{
    flag_err, live_flag, net, parse_formats, Command, ConfigError, EtaMode, IdleProf, OutputFormat,
    Raw,
};
use crate::error::Loc;
use crate::jobfile::{RawOpt, Section};
use crate::table;
use crate::values::{parse_int, parse_time, TimeUnit};
use std::path::PathBuf;

use super::row::{flag, refused, Flag};
pub(super) use super::row::{Action, Arg};

fn val(v: Option<&str>) -> &str {
    v.unwrap_or("")
}

/// The first answer flag (help, version, ...) wins; parsing goes on to report errors.
fn answer(raw: &mut Raw, c: Command) {
    raw.special.get_or_insert(c);
}

/// A flag fio accepts whose effect cannot apply to ferrio: noted on stderr.
fn note(raw: &mut Raw, text: String) {
    raw.warnings.push(text);
}

/// Every run-wide flag, in `--help` order; refused fio flags at the end.
pub(super) const FLAGS: &[Flag] = &[
    flag(
        &["name"],
        None,
        Arg::Value,
        "JOB",
        "start job JOB; the options after it are its own\n(--name=global starts a global group)",
        |r, v| start_job(r, val(v)),
    ),
    flag(
        &["output-format"],
        Some('F'),
        Arg::Value,
        "FMT",
        "normal, terse, json, json+ (comma list for several;\nminimal and csv mean terse); interval: one compact\nline per interval (docs/live.md)",
        |r, v| {
            r.flags.output_formats = parse_formats(val(v))?;
            Ok(())
        },
    ),
    flag(
        &["output"],
        Some('o'),
        Arg::Value,
        "FILE",
        "write the report to FILE instead of stdout",
        |r, v| {
            let v = val(v);
            if v.is_empty() {
                return Err(flag_err("output", v, "a file name"));
            }
            r.flags.output = Some(PathBuf::from(v));
            Ok(())
        },
    ),
    flag(&["minimal"], Some('m'), Arg::None, "", "same as --output-format=terse", |r, _| {
        r.flags.output_formats = vec![OutputFormat::Terse];
        Ok(())
    }),
    flag(
        &["append-terse"],
        Some('f'),
        Arg::Optional,
        "X",
        "add terse output to the formats chosen so far",
        |r, _| {
            if !r.flags.output_formats.contains(&OutputFormat::Terse) {
                r.flags.output_formats.push(OutputFormat::Terse);
            }
            Ok(())
        },
    ),
    flag(
        &["terse-version"],
        Some('V'),
        Arg::Value,
        "N",
        "terse format version: 2, 3 (default), 4 or 5",
        |r, v| {
            r.flags.terse_version = match val(v).trim() {
                "2" => 2,
                "3" => 3,
                "4" => 4,
                "5" => 5,
                other => return Err(flag_err("terse-version", other, "2, 3, 4, 5")),
            };
            Ok(())
        },
    ),
    flag(
        &["eta"],
        Some('e'),
        Arg::Value,
        "WHEN",
        "progress line: auto, always, never",
        |r, v| {
            r.flags.eta = match val(v) {
                "auto" => EtaMode::Auto,
                "always" => EtaMode::Always,
                "never" => EtaMode::Never,
                other => return Err(flag_err("eta", other, "auto, always, never")),
            };
            Ok(())
        },
    ),
    flag(
        &["eta-interval"],
        Some('O'),
        Arg::Value,
        "T",
        "refresh the progress line every T (seconds by default;\nat least 250ms)",
        |r, v| live_flag(&mut r.flags.live, "eta-interval", val(v)),
    ),
    flag(
        &["eta-newline"],
        Some('E'),
        Arg::Value,
        "T",
        "start a new progress line every T (seconds by default)",
        |r, v| live_flag(&mut r.flags.live, "eta-newline", val(v)),
    ),
    flag(
        &["status-interval"],
        Some('L'),
        Arg::Value,
        "T",
        "print a full report every T (seconds by default)",
        |r, v| live_flag(&mut r.flags.live, "status-interval", val(v)),
    ),
    flag(
        &["json-lines"],
        None,
        Arg::None,
        "",
        "ferrio: with --status-interval, write each json/json+\nreport as one line (JSON Lines) instead of fio's\npretty-printed documents",
        |r, _| {
            r.flags.json_lines = true;
            Ok(())
        },
    ),
    flag(
        &["interval-percentiles"],
        None,
        Arg::Value,
        "LIST",
        "percentiles of the interval lines\n(default 50:90:99:99.9)",
        |r, v| live_flag(&mut r.flags.live, "interval-percentiles", val(v)),
    ),
    super::reports::SWEEP,
    super::reports::REPEAT,
    super::reports::SETTLE,
    super::reports::CV_LIMIT,
    super::reports::HTML,
    super::reports::PROMETHEUS,
    super::reports::PROMETHEUS_LINGER,
    super::reports::COMPARE,
    flag(
        &["section"],
        Some('x'),
        Arg::Value,
        "NAME",
        "run only job section NAME of the job files (repeatable)",
        |r, v| {
            for s in val(v).split(',').map(str::trim).filter(|s| !s.is_empty()) {
                if s == "global" {
                    return Err(flag_err("section", s, "the name of a job section (not global)"));
                }
                r.only.push(s.to_string());
            }
            Ok(())
        },
    ),
    flag(
        &["readonly"],
        Some('r'),
        Arg::None,
        "",
        "refuse any job that would write or trim",
        |r, _| {
            r.flags.readonly = true;
            Ok(())
        },
    ),
    flag(&["parse-only"], Some('P'), Arg::None, "", "check the jobs and exit", |r, _| {
        r.parse_only = true;
        Ok(())
    }),
    flag(
        &["merge-blktrace-only"],
        Some('A'),
        Arg::None,
        "",
        "merge the jobs' blktraces (merge_blktrace_file)\nand exit without running them",
        |r, _| {
            r.parse_only = true;
            Ok(())
        },
    ),
    flag(
        &["showcmd"],
        Some('s'),
        Arg::None,
        "",
        "print each job file as an equivalent command line",
        |r, _| {
            r.showcmd = true;
            Ok(())
        },
    ),
    flag(
        &["cmdhelp"],
        Some('c'),
        Arg::Optional,
        "OPTION",
        "list all job options, or details on one",
        |r, v| {
            let text = match v {
                None | Some("") | Some("all") => table::cmdhelp_all(),
                Some(o) => {
                    table::cmdhelp_one(o).map_err(|e| ConfigError(format!("--cmdhelp: {e}")))?
                }
            };
            answer(r, Command::Print(text));
            Ok(())
        },
    ),
    flag(
        &["enghelp"],
        Some('i'),
        Arg::Optional,
        "ENGINE[,OPT]",
        "list the I/O engines, an engine's own options,\nor details on one of them",
        |r, v| {
            let text = super::enghelp::enghelp(v.unwrap_or(""))?;
            answer(r, Command::Print(text));
            Ok(())
        },
    ),
    flag(
        &["debug"],
        Some('d'),
        Arg::Value,
        "LIST",
        "diagnostic output categories (comma list;\n--debug=help lists them)",
        |r, v| match debug::parse(val(v)) {
            Ok(DebugRequest::Help) => {
                answer(r, Command::Print(debug::help()));
                Ok(())
            }
            Ok(DebugRequest::Categories(cats)) => {
                r.flags.debug_job = debug::job_number(val(v)).or(r.flags.debug_job);
                for c in cats {
                    if !r.flags.debug.contains(&c) {
                        r.flags.debug.push(c);
                    }
                }
                Ok(())
            }
            Err(bad) => Err(flag_err(
                "debug",
                &bad,
                &format!("{} (comma list; job:N for job N only)", debug::allowed()),
            )),
        },
    ),
    flag(
        &["bandwidth-log"],
        Some('b'),
        Arg::None,
        "",
        "create agg-read_bw.log, agg-write_bw.log and\nagg-trim_bw.log in the current directory after the\nrun (empty, as fio 3.33 leaves them)",
        |r, _| {
            r.flags.bandwidth_log = true;
            Ok(())
        },
    ),
    flag(
        &["trigger-file"],
        Some('W'),
        Arg::Value,
        "FILE",
        "when FILE appears: delete it, stop the jobs and run\nthe --trigger command",
        |r, v| {
            if val(v).is_empty() {
                return Err(flag_err("trigger-file", "", "a file name"));
            }
            r.flags.trigger.file = Some(PathBuf::from(val(v)));
            Ok(())
        },
    ),
    flag(
        &["trigger-timeout"],
        Some('B'),
        Arg::Value,
        "T",
        "after T (seconds by default) from the start: stop the\njobs and run the --trigger command",
        |r, v| {
            let us = parse_time(val(v), TimeUnit::S)
                .map_err(|e| flag_err("trigger-timeout", val(v), &format!("a time ({e})")))?;
            r.flags.trigger.timeout_ms = Some(us / 1000);
            Ok(())
        },
    ),
    flag(
        &["trigger"],
        Some('H'),
        Arg::Value,
        "CMD",
        "shell command run when the trigger fires",
        |r, v| {
            r.flags.trigger.cmd = Some(val(v).to_string());
            Ok(())
        },
    ),
    flag(
        &["trigger-remote"],
        Some('J'),
        Arg::Value,
        "CMD",
        "accepted; fio runs it on --client servers only, so it\nhas no effect here (a note on stderr)",
        |r, _| {
            note(r, "--trigger-remote only applies to fio's --client mode; ignored".into());
            Ok(())
        },
    ),
    flag(
        &["idle-prof"],
        Some('I'),
        Arg::Value,
        "WHAT",
        "report how idle the CPUs were during the run: system,\npercpu (also each CPU), or calibrate (only time the\nunit of work and exit)",
        |r, v| {
            match val(v) {
                "system" => r.flags.idle_prof = Some(IdleProf::System),
                "percpu" => r.flags.idle_prof = Some(IdleProf::PerCpu),
                "calibrate" => answer(r, Command::IdleCalibrate),
                other => return Err(flag_err("idle-prof", other, "system, percpu, calibrate")),
            }
            Ok(())
        },
    ),
    flag(
        &["max-jobs"],
        Some('j'),
        Arg::Value,
        "N",
        "accepted, no effect (fio 3.33 ignores it too)",
        |_, v| positive("max-jobs", val(v)),
    ),
    flag(
        &["alloc-size"],
        Some('a'),
        Arg::Value,
        "KB",
        "accepted, no effect: ferrio has no fixed-size shared\nmemory pool for fio's smalloc to size",
        |_, v| positive("alloc-size", val(v)),
    ),
    flag(
        &["warnings-fatal"],
        Some('w'),
        Arg::None,
        "",
        "make the job warnings (e.g. time_based without\nruntime) errors",
        |r, _| {
            r.flags.warnings_fatal = true;
            Ok(())
        },
    ),
    flag(
        &["aux-path"],
        Some('K'),
        Arg::Value,
        "DIR",
        "directory of the verify state files (verify_state_save,\nverify_state_load) and verify_dump files",
        |r, v| {
            if val(v).is_empty() {
                return Err(flag_err("aux-path", "", "a directory"));
            }
            r.flags.aux_path = Some(PathBuf::from(val(v)));
            Ok(())
        },
    ),
    flag(
        &["cpuclock-test"],
        Some('T'),
        Arg::None,
        "",
        "check the CPU clock source and exit",
        |r, _| {
            answer(r, Command::CpuClockTest);
            Ok(())
        },
    ),
    flag(
        &["clock-bench"],
        None,
        Arg::None,
        "",
        "measure clock read costs and exit",
        |r, _| {
            answer(r, Command::ClockBench);
            Ok(())
        },
    ),
    flag(
        &["install-extras"],
        None,
        Arg::Value,
        "DIR[,fio]",
        "install the binary, man page and completions under DIR\n(DIR/bin, DIR/share); DIR,fio also links DIR/bin/fio",
        |r, v| {
            let (dir, fio_link) = match val(v).strip_suffix(",fio") {
                Some(d) => (d, true),
                None => (val(v), false),
            };
            if dir.trim().is_empty() {
                return Err(flag_err("install-extras", val(v), "a directory (DIR or DIR,fio)"));
            }
            let dir = PathBuf::from(dir);
            answer(r, Command::InstallExtras { dir, fio_link });
            Ok(())
        },
    ),
    flag(
        &["memcpytest"],
        Some('M'),
        Arg::Optional,
        "TYPES",
        "measure memory copy speed and exit (TYPES: comma list\nof memcpy, memmove, simple, hybrid; help lists them)",
        |r, v| {
            if matches!(v, Some("help" | "list")) {
                let list: String = super::MEMCPY_TYPES
                    .iter()
                    .map(|(n, h)| format!("{n:<10} {h}\n"))
                    .collect();
                answer(r, Command::Print(list));
                return Ok(());
            }
            let types = super::parse_memcpy_types(v)?;
            answer(r, Command::MemcpyTest(types));
            Ok(())
        },
    ),
    flag(&["version"], Some('v'), Arg::None, "", "print the version", |r, _| {
        let v = super::version_string(r.flags.fio_compat);
        answer(r, Command::Print(format!("{v}\n")));
        Ok(())
    }),
    flag(&["help"], Some('h'), Arg::None, "", "this text", |r, _| {
        answer(r, Command::Print(help()));
        Ok(())
    }),
    flag(&["server"], Some('S'), Arg::Optional, "ADDR",
        "serve runs to --client over TLS: ADDR is [host][,port]\n(default all addresses, port 8765); docs/multihost.md",
        |r, v| { r.flags.net.server = Some(val(v).to_string()); Ok(()) }),
    flag(&["client"], Some('C'), Arg::Value, "HOSTS",
        "run the job files that follow on HOST[:PORT],... or the\nhosts in a file; ssh://[user@]host[:port] uses ssh",
        |r, v| net::add_client(&mut r.flags.net, val(v))),
    flag(&["remote-config"], Some('R'), Arg::Value, "PATH",
        "the last --client's hosts run job file PATH of their\nown (a server allows it with --server-enable)",
        |r, v| net::add_remote(&mut r.flags.net, val(v))),
    flag(&["auth-token-file"], None, Arg::Value, "FILE",
        "the shared secret client and server present (required\nunless client certificates are used)",
        |r, v| { r.flags.net.token_file = Some(net::path("auth-token-file", val(v))?); Ok(()) }),
    flag(&["tls-cert"], None, Arg::Value, "FILE",
        "--server: its certificate chain (PEM)",
        |r, v| { r.flags.net.tls_cert = Some(net::path("tls-cert", val(v))?); Ok(()) }),
    flag(&["tls-key"], None, Arg::Value, "FILE",
        "--server: its private key (PEM)",
        |r, v| { r.flags.net.tls_key = Some(net::path("tls-key", val(v))?); Ok(()) }),
    flag(&["tls-ca"], None, Arg::Value, "FILE",
        "--client: CA certificates (PEM) to verify servers",
        |r, v| { r.flags.net.tls_ca = Some(net::path("tls-ca", val(v))?); Ok(()) }),
    flag(&["tls-client-ca"], None, Arg::Value, "FILE",
        "--server: clients must present a certificate from\nthese CAs (PEM); the token is then optional",
        |r, v| { r.flags.net.tls_client_ca = Some(net::path("tls-client-ca", val(v))?); Ok(()) }),
    flag(&["tls-client-cert"], None, Arg::Value, "FILE",
        "--client: the certificate chain it presents (PEM)",
        |r, v| { r.flags.net.tls_client_cert = Some(net::path("tls-client-cert", val(v))?); Ok(()) }),
    flag(&["tls-client-key"], None, Arg::Value, "FILE",
        "--client: the private key of --tls-client-cert (PEM)",
        |r, v| { r.flags.net.tls_client_key = Some(net::path("tls-client-key", val(v))?); Ok(()) }),
    flag(&["server-allow"], None, Arg::Value, "PATH",
        "--server: a directory or device jobs may use (repeat\nit); anything else is refused",
        |r, v| { r.flags.net.allow.push(net::path("server-allow", val(v))?); Ok(()) }),
    flag(&["server-enable"], None, Arg::Value, "WHAT",
        "--server: allow exec-style engines and options, the\nnetwork engines, or --remote-config (comma list:\nexec,net,remote-config)",
        |r, v| net::enable(&mut r.flags.net, val(v))),
    flag(&["server-max-jobs"], None, Arg::Value, "N",
        "--server: most threads one run may start (default 64)",
        |r, v| { r.flags.net.max_jobs = Some(net::count("server-max-jobs", val(v))?); Ok(()) }),
    flag(&["server-max-job-size"], None, Arg::Value, "SIZE",
        "--server: largest job file text accepted (default 1M)",
        |r, v| { r.flags.net.max_job_bytes = Some(net::count("server-max-job-size", val(v))?); Ok(()) }),
    flag(&["server-once"], None, Arg::None, "",
        "--server: exit after the first run it serves",
        |r, _| { r.flags.net.once = true; Ok(()) }),
    flag(&["server-stdio"], None, Arg::None, "",
        "--server: one session on stdin/stdout (for ssh)",
        |r, _| { r.flags.net.stdio = true; Ok(()) }),
    flag(&["mpi"], None, Arg::None, "",
        "run as one rank under mpirun/srun: every rank runs the
jobs, rank 0 prints each rank and the aggregate (a
build with the cargo feature mpi); docs/multihost.md",
        |r, _| { r.flags.net.mpi = true; Ok(()) }),
    flag(&["client-timeout"], None, Arg::Value, "TIME",
        "--client: give up on a host silent this long (default\n30s; a running server sends a heartbeat every second)",
        |r, v| {
            let us = parse_time(val(v), TimeUnit::S).map_err(|e| flag_err("client-timeout", val(v), &e))?;
            r.flags.net.timeout_ms = Some((us / 1000).max(1));
            Ok(())
        }),
    flag(&["ssh-config"], None, Arg::Value, "FILE",
        "--client: the ssh config file for ssh:// hosts (ssh -F)",
        |r, v| { r.flags.net.ssh_config = Some(net::path("ssh-config", val(v))?); Ok(()) }),
    flag(&["ssh-command"], None, Arg::Value, "CMD",
        "--client: what ssh runs on ssh:// hosts\n(default: ferrio --server-stdio)",
        |r, v| { r.flags.net.ssh_command = Some(net::path("ssh-command", val(v))?.display().to_string()); Ok(()) }),
    refused(&["latency-log"], 'l', Arg::Value,
        "fio refuses it too (deprecated); use write_lat_log in the job"),
    flag(&["inflate-log"], Some('X'), Arg::Value, "FILE",
        "print a compressed log (log_store_compressed=1, fio's\n.log.fz format, from fio or ferrio) as text and exit",
        |r, v| {
            if val(v).is_empty() {
                return Err(flag_err("inflate-log", "", "a .log.fz file name"));
            }
            answer(r, Command::InflateLog(val(v).to_string()));
            Ok(())
        }),
    flag(
        &["crctest"],
        Some('G'),
        Arg::Optional,
        "TYPES",
        "measure the verify checksums' speed and exit (TYPES: a\ncomma list of md5, crc64, crc32, crc32c, crc16, crc7,\nsha1, sha256, sha512, xxhash, sha3-224/256/384/512;\nhelp lists them)",
        |r, v| {
            if matches!(v, Some("help" | "list")) {
                let list: String = super::CRC_TYPES.iter().map(|n| format!("{n}\n")).collect();
                answer(r, Command::Print(list));
                return Ok(());
            }
            let types = super::parse_crc_types(v)?;
            answer(r, Command::CrcTest(types));
            Ok(())
        },
    ),
    flag(&["profile"], Some('p'), Arg::Value, "NAME",
        "run fio's built-in profile NAME (tiobench, act): its\njobs after the command line's; its options (--dir,\n--device-names, ...; --profile=NAME --cmdhelp lists\nthem) anywhere on the line (docs/dropin.md)",
        |r, v| super::profile::flag(r, val(v))),
    flag(&["daemonize"], Some('D'), Arg::Value, "PIDFILE",
        "--server: run in the background, its pid written to\nPIDFILE (removed when it exits)",
        |r, v| { r.flags.net.daemonize = Some(net::path("daemonize", val(v))?); Ok(()) }),
    flag(&["pidfile"], None, Arg::Value, "FILE",
        "--server: write its pid to FILE (removed when it exits)",
        |r, v| { r.flags.net.pidfile = Some(net::path("pidfile", val(v))?); Ok(()) }),
];

/// The row for `--name` (any of its names).
pub(super) fn find(name: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.names.contains(&name))
}

/// Every row.
pub(super) fn all() -> impl Iterator<Item = &'static Flag> {
    FLAGS.iter()
}

/// The row for fio's one-letter form `-c`.
pub(super) fn find_short(c: char) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.short == Some(c))
}

/// A positive integer (`--max-jobs`, `--alloc-size`), checked though unused.
fn positive(flag: &str, v: &str) -> Result<(), ConfigError> {
    match parse_int(v, 1024) {
        Ok(n) if n > 0 => Ok(()),
        _ => Err(flag_err(flag, v, "a positive integer")),
    }
}

/// `--name=JOB`: a new section (a global group for `global`).
fn start_job(raw: &mut Raw, v: &str) -> Result<(), ConfigError> {
    if v.trim().is_empty() {
        return Err(ConfigError(
            "--name needs a job name (at command line)".into(),
        ));
    }
    let mut s = Section {
        name: v.to_string(),
        loc: Loc::CommandLine,
        options: Vec::new(),
    };
    if !s.is_global() {
        s.options.push(RawOpt {
            key: "name".into(),
            value: Some(v.to_string()),
            loc: Loc::CommandLine,
        });
    }
    raw.sections.push(s);
    Ok(())
}

const HELP_HEAD: &str = "\
Usage: ferrio [options] [job options] [job files...]

ferrio runs storage I/O benchmarks described like fio's: in job files (INI
sections) and/or on the command line. On the command line, --name=JOB starts a
job and the options after it belong to that job; options before the first --name
(or after --name=global) are global defaults for the jobs after them and for all
job files. Example:

  ferrio --name=t --rw=randread --bs=4k --size=32M --filename=/tmp/x --ioengine=psync
  ferrio --direct=1 jobs.fio --section=randread

Run-wide options (fio's one-letter forms, e.g. -v, also work):
";

const HELP_TAIL: &str = "
Job options are the same as in job files (--bs=4k is bs=4k); see --cmdhelp.
Invoked as `fio` (a link named fio) or with FERRIO_FIO_COMPAT=1, ferrio runs in
drop-in mode: its version reads fio-3.33-ferrio-X.Y.Z (docs/dropin.md).
";

/// Column where a flag's help starts.
const HELP_COLUMN: usize = 24;

/// The `--help` text, from the flag table.
pub fn help() -> String {
    let mut s = String::from(HELP_HEAD);
    for f in FLAGS
        .iter()
        .filter(|f| matches!(f.action, Action::Handle(_)))
    {
        let mut left = format!("  --{}", f.names[0]);
        match f.arg {
            Arg::None => {}
            Arg::Value => left += &format!("={}", f.meta),
            Arg::Optional => left += &format!("[={}]", f.meta),
        }
        if left.len() + 1 < HELP_COLUMN {
            s += &format!("{left:<HELP_COLUMN$}");
        } else {
            s += &format!("{left}\n{:HELP_COLUMN$}", "");
        }
        s += &f.help.replace('\n', &format!("\n{:HELP_COLUMN$}", ""));
        s.push('\n');
    }
    s += "\nfio flags ferrio refuses (an error saying why):\n";
    let mut line = String::from(" ");
    for f in FLAGS
        .iter()
        .filter(|f| matches!(f.action, Action::Refuse(_)))
    {
        let word = format!(" --{}", f.names[0]);
        if line.len() + word.len() > 80 {
            s += &line;
            s.push('\n');
            line = String::from(" ");
        }
        line += &word;
    }
    s += &line;
    s.push('\n');
    s + HELP_TAIL
}

#[cfg(test)]
#[path = "flags_tests.rs"]
mod tests;
