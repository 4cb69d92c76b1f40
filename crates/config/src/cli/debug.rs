//! `--debug=` values: fio's categories (the table is `ext::debug`'s). fio accepts
//! an unknown category with a warning and runs on; ferrio refuses it and names the
//! allowed ones. Also the `parse` category's lines, made here where the sections
//! are known.

use crate::ext::debug::CATEGORIES;
pub use crate::ext::debug::{DebugCategory, DebugSet};
use crate::jobfile::Section;
use std::path::PathBuf;

/// What a `--debug` value asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum DebugRequest {
    /// These categories (in the order given, without repeats; `all` is every one).
    Categories(Vec<DebugCategory>),
    /// `help` or `?`: list the categories and exit.
    Help,
}

/// Parse a comma list of categories. Empty items are skipped, as fio does.
pub fn parse(list: &str) -> Result<DebugRequest, String> {
    let mut out: Vec<DebugCategory> = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let add: Vec<DebugCategory> = match item {
            "help" | "?" => return Ok(DebugRequest::Help),
            "all" => DebugCategory::all().collect(),
            // job:N limits the lines to one job (see job_number).
            _ if item.starts_with("job:") => match item[4..].trim().parse::<u32>() {
                Ok(n) if n > 0 => vec![DebugCategory::Job],
                _ => return Err(item.to_string()),
            },
            _ => match CATEGORIES.iter().find(|r| r.1 == item) {
                Some(r) => vec![r.0],
                None => return Err(item.to_string()),
            },
        };
        for c in add {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    Ok(DebugRequest::Categories(out))
}

/// `job:N` in a `--debug` list: only job N's threads (numbered from 1 in job order,
/// each numjobs clone its own number, as fio's thread numbers) write their lines.
pub fn job_number(list: &str) -> Option<u32> {
    list.split(',')
        .filter_map(|i| i.trim().strip_prefix("job:"))
        .filter_map(|n| n.trim().parse().ok())
        .next_back()
}

/// Each job carries the run's categories as bits (with job:N, the planner clears
/// them in every other thread's copy: numjobs clones are numbered there).
pub fn mark_jobs(flags: &super::GlobalFlags, jobs: &mut [crate::JobSpec]) {
    let set = DebugSet::of(&flags.debug, flags.debug_job);
    for j in jobs.iter_mut() {
        j.compat.debug = set;
    }
}

/// `--debug=parse`: fio's parse lines for the command line's sections, then each job
/// file's (`Parsing ini file`, `Parsing section [S]`, `dup options` for a job,
/// `handle_option=NAME, ptr=VALUE` per option, `(null)` for a bare one, `free
/// options`). fio's lower-level lines (`__handle_option` with its C option types,
/// `ret=`/`out=` values) and its echo of each raw line are not written.
pub fn parse_trace(cli: &[Section], files: &[(PathBuf, Vec<Section>)]) -> Vec<String> {
    let mut out = Vec::new();
    let options = |out: &mut Vec<String>, s: &Section| {
        for o in &s.options {
            let v = o.value.as_deref().unwrap_or("(null)");
            out.push(format!("handle_option={}, ptr={v}", o.key));
            if matches!(o.key.as_str(), "ss" | "steadystate") {
                out.extend(steadystate_lines(v));
            }
        }
    };
    for s in cli {
        if s.is_global() {
            options(&mut out, s);
            continue;
        }
        // (The section's options start with its --name, as fio's do.)
        out.push("dup options".into());
        options(&mut out, s);
        out.push("free options".into());
    }
    for (path, sections) in files {
        out.push(format!("Parsing ini file {}", path.display()));
        for s in sections {
            out.push(format!("Parsing section [{}]", s.name));
            if !s.is_global() {
                out.push("dup options".into());
            }
            options(&mut out, s);
            if !s.is_global() {
                out.push("free options".into());
            }
        }
    }
    out
}

/// fio's line for a steady-state threshold as its option callback reads it
/// (scripts such as fio's t/steadystate_tests.py grep for them): a percentage, an
/// IOPS value (both `%f`), a bandwidth in bytes or a latency in ns. None for a value
/// that does not parse (its error is reported by the option itself).
fn steadystate_lines(v: &str) -> Vec<String> {
    use crate::ext::steadystate::{parse_criteria, Metric};
    let Ok(criteria) = parse_criteria(v, 1024) else {
        return Vec::new();
    };
    criteria
        .iter()
        .map(|c| match c.metric {
            _ if c.pct => format!("set steady state threshold to {:.6}%", c.limit),
            Metric::Iops => format!("set steady state IOPS threshold to {:.6}", c.limit),
            Metric::Bw => format!("set steady state BW threshold to {}", c.limit as u64),
            _ => format!(
                "set steady state latency threshold to {} nsec",
                c.limit as u64
            ),
        })
        .collect()
}

/// The allowed values, for an error message.
pub fn allowed() -> String {
    let mut names: Vec<&str> = CATEGORIES.iter().map(|r| r.1).collect();
    names.extend(["all", "help"]);
    names.join(", ")
}

/// `--debug=help`: every category with one line on what it covers.
pub fn help() -> String {
    let mut s = String::from("Debug categories for --debug=LIST (comma list; fio's names):\n");
    for r in CATEGORIES {
        s += &format!("  {:<14}{}\n", r.1, r.2);
    }
    s += &format!("  {:<14}every category above\n", "all");
    s += &format!("  {:<14}this list (also ?)\n", "help");
    // job is a filter, not lines of its own.
    let silent: Vec<&str> = CATEGORIES
        .iter()
        .filter(|r| !r.3 && r.0 != DebugCategory::Job)
        .map(|r| r.1)
        .collect();
    if !silent.is_empty() {
        s += &format!(
            "Accepted but printing nothing in ferrio yet: {}\n",
            silent.join(", ")
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fio --debug=help` in fio 3.33 lists exactly these, in this order; fio 3.4x
    /// adds sprandom after them.
    const FIO_3_33: &str = "process,file,io,mem,blktrace,verify,random,parse,diskutil,job,mutex,profile,time,net,rate,compress,steadystate,helperthread,zbd";

    #[test]
    fn the_categories_are_fios() {
        let names: Vec<&str> = DebugCategory::all().map(DebugCategory::name).collect();
        assert_eq!(names.join(","), format!("{FIO_3_33},sprandom"));
    }

    #[test]
    fn lists_all_help_and_unknown_names() {
        use DebugCategory::*;
        assert_eq!(
            parse("parse, io,,parse").unwrap(),
            DebugRequest::Categories(vec![Parse, Io])
        );
        assert_eq!(parse("").unwrap(), DebugRequest::Categories(vec![]));
        let DebugRequest::Categories(all) = parse("time,all").unwrap() else {
            panic!("not categories")
        };
        assert_eq!((all.len(), all[0]), (20, Time));
        assert_eq!(parse("io,help").unwrap(), DebugRequest::Help);
        assert_eq!(parse("?").unwrap(), DebugRequest::Help);
        assert_eq!(parse("io,bogus").unwrap_err(), "bogus");
        assert_eq!(parse("IO").unwrap_err(), "IO");
        assert_eq!(
            parse("io,job:2").unwrap(),
            DebugRequest::Categories(vec![Io, Job])
        );
        assert_eq!(parse("job:x").unwrap_err(), "job:x");
        assert_eq!(parse("job:0").unwrap_err(), "job:0");
        assert_eq!(job_number("io, job:3"), Some(3));
        assert_eq!(job_number("io,job"), None);
    }

    #[test]
    fn a_debug_set_holds_exactly_its_categories() {
        use DebugCategory::*;
        let s = DebugSet::of(&[Verify, Zbd], None);
        for c in DebugCategory::all() {
            assert_eq!(s.has(c), c == Verify || c == Zbd, "{c:?}");
        }
        assert!(DebugSet::of(&[], None).is_empty() && !s.is_empty());
        let only2 = DebugSet::of(&[Verify], Some(2));
        assert!(only2.for_thread(2).has(Verify) && only2.for_thread(1).is_empty());
        assert_eq!(s.for_thread(7), s);
    }

    #[test]
    fn help_describes_every_category() {
        let h = help();
        for c in DebugCategory::all() {
            assert!(h.contains(&format!("\n  {:<14}", c.name())), "{h}");
        }
        // Every category writes lines now.
        assert!(!h.contains("printing nothing"), "{h}");
        assert!(h.lines().all(|l| l.len() <= 80), "{h}");
        assert!(allowed().ends_with("zbd, sprandom, all, help"));
    }

    use crate::jobfile::Env;

    #[test]
    fn steadystate_thresholds_are_traced_as_fio_does() {
        let line = |v: &str| steadystate_lines(v).join("|");
        assert_eq!(
            line("iops:10"),
            "set steady state IOPS threshold to 10.000000"
        );
        assert_eq!(line("iops:10%"), "set steady state threshold to 10.000000%");
        assert_eq!(
            line("bw_slope:.1%"),
            "set steady state threshold to 0.100000%"
        );
        assert_eq!(line("bw:12"), "set steady state BW threshold to 12");
        assert_eq!(line("bw:1k"), "set steady state BW threshold to 1024");
        assert_eq!(line("iops:x"), "");
        let sections =
            crate::jobfile::parse_text("[j]\nss=iops:2%\n", "j.fio".as_ref(), &Env::system())
                .unwrap();
        let trace = parse_trace(&[], &[(PathBuf::from("j.fio"), sections)]);
        let at = trace
            .iter()
            .position(|l| l == "handle_option=ss, ptr=iops:2%");
        assert_eq!(
            trace[at.expect("handle_option line") + 1],
            "set steady state threshold to 2.000000%"
        );
    }
}
