//! Run-wide command-line flags, one table row each: names, argument, help and what it
//! sets. `--help`, the refusal of fio flags ferrio lacks, and the parsing itself all
//! read [`FLAGS`]; adding a flag is adding a row.

use super::debug::{self, DebugRequest};
use super::{flag_err, live_flag, parse_formats, Command, ConfigError, EtaMode, OutputFormat, Raw};
use crate::error::Loc;
use crate::jobfile::{RawOpt, Section};
use crate::table;
use std::path::PathBuf;

/// Whether a flag takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Arg {
    /// A bare flag (`--readonly`).
    None,
    /// `--flag=VALUE` or `--flag VALUE`.
    Value,
    /// `--flag` or `--flag=VALUE`; never takes the next argument.
    Optional,
}

/// Stores what the flag says into the run being parsed (or sets the answer to print
/// instead of running). The value is `None` for bare flags.
pub(super) type Handler = fn(&mut Raw, Option<&str>) -> Result<(), ConfigError>;

pub(super) struct Flag {
    /// The name and its aliases, without `--`.
    pub names: &'static [&'static str],
    pub arg: Arg,
    /// The value's placeholder in `--help` (`FMT` gives `--output-format=FMT`).
    pub meta: &'static str,
    /// `--help` text; `\n` continues on the next line.
    pub help: &'static str,
    /// None: a fio flag ferrio does not implement yet (refused by name).
    pub handler: Option<Handler>,
}

const fn flag(
    names: &'static [&'static str],
    arg: Arg,
    meta: &'static str,
    help: &'static str,
    handler: Handler,
) -> Flag {
    Flag {
        names,
        arg,
        meta,
        help,
        handler: Some(handler),
    }
}

const fn not_yet(name: &'static [&'static str]) -> Flag {
    Flag {
        names: name,
        arg: Arg::Optional,
        meta: "",
        help: "",
        handler: None,
    }
}

fn val(v: Option<&str>) -> &str {
    v.unwrap_or("")
}

/// The first answer flag (help, version, ...) wins; parsing goes on to report errors.
fn answer(raw: &mut Raw, c: Command) {
    raw.special.get_or_insert(c);
}

/// Every run-wide flag, in `--help` order; fio flags ferrio lacks at the end.
pub(super) const FLAGS: &[Flag] = &[
    flag(
        &["name"],
        Arg::Value,
        "JOB",
        "start job JOB; the options after it are its own\n(--name=global starts a global group)",
        |r, v| start_job(r, val(v)),
    ),
    flag(
        &["output-format"],
        Arg::Value,
        "FMT",
        "normal, terse, json, json+ (comma list for several);\ninterval: one compact line per interval (docs/live.md)",
        |r, v| {
            r.flags.output_formats = parse_formats(val(v))?;
            Ok(())
        },
    ),
    flag(
        &["output"],
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
    flag(&["minimal"], Arg::None, "", "same as --output-format=terse", |r, _| {
        r.flags.output_formats = vec![OutputFormat::Terse];
        Ok(())
    }),
    flag(
        &["terse-version"],
        Arg::Value,
        "3",
        "terse format version (3)",
        |r, v| {
            if val(v).trim() != "3" {
                return Err(flag_err(
                    "terse-version",
                    val(v),
                    "3 (the only terse version ferrio writes)",
                ));
            }
            r.flags.terse_version = 3;
            Ok(())
        },
    ),
    flag(
        &["eta"],
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
        Arg::Value,
        "T",
        "refresh the progress line every T (ms by default;\nat least 250ms)",
        |r, v| live_flag(&mut r.flags.live, "eta-interval", val(v)),
    ),
    flag(
        &["eta-newline"],
        Arg::Value,
        "T",
        "start a new progress line every T (seconds by default)",
        |r, v| live_flag(&mut r.flags.live, "eta-newline", val(v)),
    ),
    flag(
        &["status-interval"],
        Arg::Value,
        "T",
        "print a full report every T (seconds by default); with\njson/json+ every report is one JSON document per line",
        |r, v| live_flag(&mut r.flags.live, "status-interval", val(v)),
    ),
    flag(
        &["interval-percentiles"],
        Arg::Value,
        "LIST",
        "percentiles of the interval lines\n(default 50:90:99:99.9)",
        |r, v| live_flag(&mut r.flags.live, "interval-percentiles", val(v)),
    ),
    flag(
        &["section"],
        Arg::Value,
        "NAME",
        "run only job section NAME of the job files (repeatable)",
        |r, v| {
            r.only.extend(
                val(v)
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty()),
            );
            Ok(())
        },
    ),
    flag(
        &["readonly"],
        Arg::None,
        "",
        "refuse any job that would write or trim",
        |r, _| {
            r.flags.readonly = true;
            Ok(())
        },
    ),
    flag(&["parse-only"], Arg::None, "", "check the jobs and exit", |r, _| {
        r.parse_only = true;
        Ok(())
    }),
    flag(
        &["showcmd"],
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
        &["debug"],
        Arg::Value,
        "LIST",
        "diagnostic output categories (comma list;\n--debug=help lists them)",
        |r, v| match debug::parse(val(v)) {
            Ok(DebugRequest::Help) => {
                answer(r, Command::Print(debug::help()));
                Ok(())
            }
            Ok(DebugRequest::Categories(cats)) => {
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
                &format!("{} (comma list)", debug::allowed()),
            )),
        },
    ),
    flag(
        &["cpuclock-test"],
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
    flag(&["version"], Arg::None, "", "print the version", |r, _| {
        answer(
            r,
            Command::Print(format!("ferrio-{}\n", env!("CARGO_PKG_VERSION"))),
        );
        Ok(())
    }),
    flag(&["help", "h"], Arg::None, "", "this text", |r, _| {
        answer(r, Command::Print(help()));
        Ok(())
    }),
    not_yet(&["bandwidth-log"]),
    not_yet(&["latency-log"]),
    not_yet(&["max-jobs"]),
    not_yet(&["warnings-fatal"]),
    not_yet(&["alloc-size"]),
    not_yet(&["server"]),
    not_yet(&["client"]),
    not_yet(&["daemonize"]),
    not_yet(&["remote-config"]),
    not_yet(&["crctest"]),
    not_yet(&["idle-prof"]),
    not_yet(&["inflate-log"]),
    not_yet(&["trigger-file"]),
    not_yet(&["trigger-timeout"]),
    not_yet(&["trigger"]),
    not_yet(&["trigger-remote"]),
    not_yet(&["aux-path"]),
    not_yet(&["merge-blktrace-only"]),
    not_yet(&["append-terse"]),
    not_yet(&["enghelp"]),
];

/// The row for `--name` (any of its names).
pub(super) fn find(name: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.names.contains(&name))
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
Usage: ferrio [options] [job files...]

ferrio runs storage I/O benchmarks described like fio's: in job files (INI
sections) and/or on the command line. On the command line, --name=JOB starts a
job and the options after it belong to that job; options before the first --name
(or after --name=global) are global defaults for the jobs after them and for all
job files. Example:

  ferrio --name=t --rw=randread --bs=4k --size=32M --filename=/tmp/x --ioengine=psync
  ferrio --direct=1 jobs.fio --section=randread

Run-wide options:
";

const HELP_TAIL: &str = "
Job options are the same as in job files (--bs=4k is bs=4k); see --cmdhelp.
";

/// Column where a flag's help starts.
const HELP_COLUMN: usize = 24;

/// The `--help` text, from [`FLAGS`].
pub fn help() -> String {
    let mut s = String::from(HELP_HEAD);
    for f in FLAGS.iter().filter(|f| f.handler.is_some()) {
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
    s += "\nfio flags ferrio does not support yet (refused with an error):\n";
    let mut line = String::from(" ");
    for f in FLAGS.iter().filter(|f| f.handler.is_none()) {
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
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_shadow_only_the_job_options_they_mean_to() {
        let mut seen = std::collections::HashSet::new();
        let mut shadowed = Vec::new();
        for f in FLAGS {
            for n in f.names {
                assert!(seen.insert(*n), "--{n} twice");
                if table::find(n).is_some() {
                    shadowed.push(*n);
                }
            }
        }
        // On the command line the flag wins: --name starts a job, --readonly is run-wide.
        assert_eq!(shadowed, ["name", "readonly"]);
    }

    #[test]
    fn help_lists_every_supported_flag_and_every_not_yet_one() {
        let h = help();
        for f in FLAGS {
            let shown = format!("--{}", f.names[0]);
            assert!(h.contains(&shown), "{shown} missing from --help");
            if f.handler.is_some() {
                assert!(!f.help.is_empty(), "{shown} has no help");
                assert!(
                    h.contains(&format!("\n  {shown}")),
                    "{shown} not at a line start"
                );
            }
        }
        for line in h.lines().filter(|l| !l.starts_with("  ferrio ")) {
            assert!(line.len() <= 80, "--help line too long: {line}");
        }
    }

    #[test]
    fn help_aligns_the_descriptions() {
        let h = help();
        assert!(
            h.contains("\n  --output=FILE         write the report to FILE instead of stdout\n")
        );
        assert!(h.contains("\n  --interval-percentiles=LIST\n                        percentiles"));
        assert!(h.contains("\n  --cmdhelp[=OPTION]    list all job options"));
    }
}
