//! Turns sections (from the command line and job files) into the ordered job list,
//! with fio's inheritance:
//! - command-line options before the first `--name` (and in `--name=global` groups)
//!   apply to the command-line jobs after them and to every job-file job;
//! - in a job file, each `[global]` applies to the jobs below it in that file, later
//!   ones adding to and overriding earlier ones; a file's globals do not leak into the
//!   next file;
//! - command-line jobs come first, then job files in the order given (fio parses job
//!   files after the command line);
//! - `--section=NAME` keeps only the named job sections of job files.
//!
//! Divergence from fio 3.33: fio applies command-line global options only to the
//! first job file; ferrio applies them to every job file.

use crate::builder::{build, shown, Applied, Overrides};
use crate::error::ConfigError;
use crate::jobfile::Section;
use crate::spec::JobSpec;

/// The built jobs and the global options as given (JSON "global options").
pub struct Assembled {
    pub jobs: Vec<JobSpec>,
    pub global_options: Vec<(String, String)>,
}

/// Build every job. `only` is the --section filter (empty = all).
pub fn assemble(
    cli: &[Section],
    files: &[Vec<Section>],
    only: &[String],
    ov: &Overrides,
) -> Result<Assembled, ConfigError> {
    let mut jobs = Vec::new();
    let mut global_options = Vec::new();
    let mut cli_chain: Vec<Applied> = Vec::new();
    for s in cli {
        if s.is_global() {
            cli_chain.extend(s.options.iter().map(|o| Applied {
                opt: o,
                section: "global",
            }));
            global_options.extend(shown(&s.options));
        } else {
            jobs.push(build_one(s, &cli_chain, ov)?);
        }
    }
    let mut found = vec![false; only.len()];
    for file in files {
        let mut chain: Vec<Applied> = cli_chain
            .iter()
            .map(|a| Applied {
                opt: a.opt,
                section: a.section,
            })
            .collect();
        for s in file {
            if s.is_global() {
                chain.extend(s.options.iter().map(|o| Applied {
                    opt: o,
                    section: "global",
                }));
                global_options.extend(shown(&s.options));
                continue;
            }
            if !only.is_empty() {
                match only.iter().position(|n| *n == s.name) {
                    Some(i) => found[i] = true,
                    None => continue,
                }
            }
            jobs.push(build_one(s, &chain, ov)?);
        }
    }
    if let Some(i) = found.iter().position(|f| !f) {
        return Err(ConfigError(format!(
            "--section={}: no such job section in the job files",
            only[i]
        )));
    }
    check_wait_for(&jobs)?;
    if jobs.is_empty() {
        return Err(ConfigError(
            "no jobs defined: give a job file or --name=JOB options (see --help)".into(),
        ));
    }
    Ok(Assembled {
        jobs,
        global_options,
    })
}

/// wait_for must name a job before the waiting one (fio: "waitee job X unknown").
fn check_wait_for(jobs: &[JobSpec]) -> Result<(), ConfigError> {
    for (i, j) in jobs.iter().enumerate() {
        if let Some(w) = &j.wait_for {
            if !jobs[..i].iter().any(|p| &p.name == w) {
                return Err(ConfigError(format!(
                    "job '{}': bad value '{w}' for option 'wait_for' (at {}): no job named '{w}' before this one",
                    j.name, j.origin
                )));
            }
        }
    }
    Ok(())
}

fn build_one(s: &Section, inherited: &[Applied], ov: &Overrides) -> Result<JobSpec, ConfigError> {
    let mut chain: Vec<Applied> = inherited
        .iter()
        .map(|a| Applied {
            opt: a.opt,
            section: a.section,
        })
        .collect();
    chain.extend(s.options.iter().map(|o| Applied {
        opt: o,
        section: &s.name,
    }));
    build(&s.name, &s.loc, &chain, &s.options, ov)
}

/// `--showcmd`: a job file as one equivalent ferrio command line. Every section
/// becomes `--name=SECTION` followed by its options (`--name=global` for globals),
/// so the line reproduces the file exactly, includes and substitutions resolved.
pub fn showcmd(sections: &[Section]) -> String {
    let mut out = String::from("ferrio");
    for s in sections {
        out.push_str(&format!(" --name={}", quote(&s.name)));
        for o in &s.options {
            match &o.value {
                Some(v) => out.push_str(&format!(" --{}={}", o.key, quote(v))),
                None => out.push_str(&format!(" --{}", o.key)),
            }
        }
    }
    out
}

fn quote(v: &str) -> String {
    if !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.,:/%+=@^".contains(c))
    {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\'', "'\\''"))
    }
}
