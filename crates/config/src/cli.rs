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
pub use debug::DebugCategory;
pub use doc::{flag_docs, flag_values, FlagArg, FlagDoc};
pub use flags::help;

mod debug;
mod doc;
mod flags;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Normal,
    Terse,
    Json,
    JsonPlus,
    /// ferrio: one compact line per status interval (docs/live.md).
    Interval,
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
    /// --readonly: every job was checked not to write or trim.
    pub readonly: bool,
    /// --status-interval, --eta-newline, --eta-interval and friends.
    pub live: crate::ext::LiveFlags,
}

impl Default for GlobalFlags {
    fn default() -> Self {
        GlobalFlags {
            output_formats: vec![OutputFormat::Normal],
            output: None,
            terse_version: 3,
            eta: EtaMode::Auto,
            debug: Vec::new(),
            readonly: false,
            live: Default::default(),
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
pub enum Command {
    Run(Invocation),
    /// --parse-only: run every check a real run makes before I/O, then exit.
    Check(Invocation),
    /// --help, --version, --cmdhelp, --showcmd: print this text to stdout, exit 0.
    Print(String),
    /// --cpuclock-test
    CpuClockTest,
    /// --clock-bench
    ClockBench,
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
}

/// Parse the process arguments (without argv[0]).
pub fn parse_command_line(args: &[String]) -> Result<Command, ConfigError> {
    parse_with(args, &Env::system())
}

/// [`parse_command_line`] with an explicit environment (file reading, variables,
/// keywords), for tests.
pub fn parse_with(args: &[String], env: &Env) -> Result<Command, ConfigError> {
    let raw = match lex_args(args, env)? {
        Ok(raw) => raw,
        Err(cmd) => return Ok(cmd),
    };
    let mut file_sections = Vec::new();
    for f in &raw.files {
        file_sections.push(jobfile::parse_file(f, env)?);
    }
    if raw.showcmd {
        if file_sections.is_empty() {
            return Err(ConfigError("--showcmd needs job files to show".into()));
        }
        let lines: Vec<String> = file_sections.iter().map(|s| showcmd(s)).collect();
        return Ok(Command::Print(lines.join("\n") + "\n"));
    }
    let ov = Overrides {
        readonly: raw.flags.readonly,
    };
    let a = assemble(&raw.sections, &file_sections, &raw.only, &ov)?;
    let inv = Invocation {
        flags: raw.flags,
        jobs: a.jobs,
        global_options: a.global_options,
    };
    Ok(if raw.parse_only {
        Command::Check(inv)
    } else {
        Command::Run(inv)
    })
}

fn flag_err(flag: &str, v: &str, allowed: &str) -> ConfigError {
    ConfigError(format!(
        "bad value '{v}' for --{flag} (at command line); allowed: {allowed}"
    ))
}

/// Lex the arguments. Ok(Err(cmd)) short-circuits (help, version, ...).
fn lex_args(args: &[String], env: &Env) -> Result<Result<Raw, Command>, ConfigError> {
    let mut raw = Raw {
        flags: GlobalFlags::default(),
        sections: Vec::new(),
        files: Vec::new(),
        only: Vec::new(),
        parse_only: false,
        showcmd: false,
        special: None,
    };
    let mut i = 0;
    let mut files_only = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if files_only || !arg.starts_with('-') || arg == "-" {
            raw.files.push(PathBuf::from(arg));
            continue;
        }
        if arg == "--" {
            files_only = true;
            continue;
        }
        let Some(body) = arg.strip_prefix("--") else {
            return Err(ConfigError(format!("unknown flag '{arg}' (at command line); options are written --option=value, see --help")));
        };
        let (key, inline) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (body, None),
        };
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
            let Some(handler) = flag.handler else {
                return Err(ConfigError(format!(
                    "flag '--{key}' is not supported by ferrio yet (at command line)"
                )));
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
        let value = match inline {
            Some(v) => Some(v),
            None if spec.bare_ok() => None,
            None => Some(need(key)?),
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
    Ok(match raw.special.take() {
        Some(c) => Err(c),
        None => Ok(raw),
    })
}

fn parse_formats(v: &str) -> Result<Vec<OutputFormat>, ConfigError> {
    let mut out = Vec::new();
    for f in v.split(',').map(str::trim) {
        let f = match f {
            "normal" => OutputFormat::Normal,
            "terse" => OutputFormat::Terse,
            "json" => OutputFormat::Json,
            "json+" => OutputFormat::JsonPlus,
            "interval" => OutputFormat::Interval,
            _ => {
                return Err(flag_err(
                    "output-format",
                    f,
                    "normal, terse, json, json+, interval (comma list)",
                ))
            }
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
        "eta-interval" => live.eta_interval_ms = Some(ms(TimeUnit::Ms, 250)?),
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
mod tests;
