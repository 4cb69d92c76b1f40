//! Typed JobSpec builder: applies a job's inherited and own options, in order, through
//! the option table onto fio's defaults, then validates the whole job.
//!
//! Order: global options (command line, then the job file's `[global]` sections
//! above the job), then the job's own options; a later setting overrides an earlier
//! one. `kb_base` is found first, so sizes anywhere in the chain use it (fio gives
//! kb_base parse priority too).

mod defaults;
mod validate;
mod zones;

pub use defaults::DEFAULT_PERCENTILES;

use crate::error::{ConfigError, Loc};
use crate::jobfile::RawOpt;
use crate::spec::JobSpec;
use crate::table::{self, Ctx, Support};

/// One option to apply, with the name of the section it came from (for messages).
pub struct Applied<'a> {
    pub opt: &'a RawOpt,
    pub section: &'a str,
}

/// Look an option up, with a message-quality error for unknown and unsupported ones.
pub fn lookup(opt: &RawOpt, section: &str) -> Result<&'static table::OptSpec, ConfigError> {
    let Some(spec) = table::find(&opt.key) else {
        let hint = table::suggest(&opt.key)
            .map(|s| format!("; did you mean '{s}'?"))
            .unwrap_or_default();
        return Err(ConfigError(format!(
            "job '{section}': unknown option '{}' (at {}){hint}",
            opt.key, opt.loc
        )));
    };
    match spec.support {
        Support::Yes | Support::NoOp => Ok(spec),
        Support::No => Err(ConfigError(format!(
            "job '{section}': option '{}' is not supported by ferrio yet (at {})",
            opt.key, opt.loc
        ))),
    }
}

/// Run-wide settings from command-line flags that override every job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// --readonly: refuse jobs that write or trim.
    pub readonly: bool,
    /// --aux-path: the directory of verify state and dump files.
    pub aux_path: Option<std::path::PathBuf>,
}

/// Build and validate one job from its option chain.
pub fn build(
    name: &str,
    origin: &Loc,
    chain: &[Applied],
    own: &[RawOpt],
    ov: &Overrides,
) -> Result<JobSpec, ConfigError> {
    let mut job = JobSpec::with_defaults(name, &origin.to_string());
    let kb_base = chain
        .iter()
        .rev()
        .find(|a| a.opt.key == "kb_base")
        .and_then(|a| a.opt.value.as_deref())
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|&b| b == 1000 || b == 1024)
        .unwrap_or(1024);
    for a in chain {
        apply(&mut job, a, kb_base)?;
    }
    if ov.readonly {
        job.readonly = true;
    }
    job.verify.aux_path = ov.aux_path.clone();
    job.job_options = shown(own);
    validate::finish(&mut job)?;
    check_engine_options(&job, chain)?;
    Ok(job)
}

/// An engine's own option (hipri, fixedbufs, sim_lat, ...) set for another engine
/// would do nothing; fio refuses it too ("Bad option"). Set to its default it is
/// accepted (it does nothing with any engine). As in fio, an option is checked
/// against the engine of the section that sets it (the section's own `ioengine`,
/// wherever it stands in the section, else the one inherited): a `[global]`
/// `donorname=` under `ioengine=e4defrag` is valid there, and a job of that global
/// that switches to `ioengine=libaio` just does not use it (fio's e4defrag2.fio).
fn check_engine_options(job: &JobSpec, chain: &[Applied]) -> Result<(), ConfigError> {
    let mut inherited = "psync";
    let mut i = 0;
    while i < chain.len() {
        let section = chain[i].section;
        let end = chain[i..]
            .iter()
            .position(|a| a.section != section)
            .map_or(chain.len(), |n| i + n);
        let group = &chain[i..end];
        let engine = group
            .iter()
            .rev()
            .find(|a| a.opt.key == "ioengine")
            .and_then(|a| a.opt.value.as_deref())
            .map_or(inherited, str::trim);
        for a in group {
            check_engine_option(job, a, engine)?;
        }
        inherited = engine;
        i = end;
    }
    Ok(())
}

fn check_engine_option(job: &JobSpec, a: &Applied, engine: &str) -> Result<(), ConfigError> {
    let Some(spec) = table::find(&a.opt.key) else {
        return Ok(());
    };
    // Its default value does nothing anywhere (fio would still refuse it).
    let value = a.opt.value.as_deref().unwrap_or("1").trim();
    if spec.engines.is_empty()
        || spec.engines.contains(&engine)
        || table::shared_with(spec.name, engine)
        || value == spec.default
    {
        return Ok(());
    }
    Err(ConfigError(format!(
        "job '{}': option '{}' (at {}) is an option of the {} engine{}, but the {} ioengine is {}",
        job.name,
        a.opt.key,
        a.opt.loc,
        spec.engines.join(", "),
        if spec.engines.len() > 1 { "s" } else { "" },
        if engine == job.ioengine {
            "job's"
        } else {
            "section's"
        },
        engine
    )))
}

/// Options as JSON shows them: as given, in order; bare keys are left out (fio 3.33
/// prints only options written with a value).
pub fn shown(opts: &[RawOpt]) -> Vec<(String, String)> {
    opts.iter()
        .filter_map(|o| o.value.as_ref().map(|v| (o.key.clone(), v.clone())))
        .collect()
}

fn apply(job: &mut JobSpec, a: &Applied, kb_base: u32) -> Result<(), ConfigError> {
    let spec = lookup(a.opt, a.section)?;
    let job_name = job.name.clone();
    let value = match (&a.opt.value, spec.bare_ok()) {
        (Some(v), _) => v.as_str(),
        (None, true) if spec.kind == table::Kind::OptStr => job_name.as_str(),
        (None, true) => "1",
        (None, false) => {
            return Err(ConfigError(format!(
                "job '{}': option '{}' needs a value (at {}); {}",
                a.section,
                spec.name,
                a.opt.loc,
                describe_allowed(spec)
            )))
        }
    };
    let ctx = Ctx { spec, kb_base };
    (spec.apply)(job, &ctx, value).map_err(|e| {
        let detail = if e == "not an allowed value" {
            String::new()
        } else {
            format!(": {e}")
        };
        let allowed = spec.allowed();
        let allowed = if allowed.is_empty() {
            String::new()
        } else {
            format!("; {allowed}")
        };
        ConfigError(format!(
            "job '{}': bad value '{}' for option '{}' (at {}){detail}{allowed}",
            a.section, value, a.opt.key, a.opt.loc
        ))
    })
}

fn describe_allowed(spec: &table::OptSpec) -> String {
    let a = spec.allowed();
    if a.is_empty() {
        format!("expected {}", spec.kind.describe())
    } else {
        a
    }
}

#[cfg(test)]
mod tests;
