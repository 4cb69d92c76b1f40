//! `--debug=` categories: fio's list, one table row each. fio accepts an unknown
//! category with a warning and runs on; ferrio refuses it and names the allowed ones.
//! Also the `parse` category's lines, made here where the sections are known, and
//! [`DebugSet`], the bits a job's threads test (one test per event, no lookup).

use crate::jobfile::Section;
use std::path::PathBuf;

/// One `--debug` category (fio's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugCategory {
    Process,
    File,
    Io,
    Mem,
    Blktrace,
    Verify,
    Random,
    Parse,
    Diskutil,
    Job,
    Mutex,
    Profile,
    Time,
    Net,
    Rate,
    Compress,
    Steadystate,
    Helperthread,
    Zbd,
}

/// A row: the category, its name, what it covers, and whether ferrio writes anything
/// for it yet (the others are accepted so fio command lines keep working).
struct Row(DebugCategory, &'static str, &'static str, bool);

/// fio 3.33's categories, in fio's order.
const CATEGORIES: &[Row] = &[
    Row(
        DebugCategory::Process,
        "process",
        "job threads and processes starting and ending",
        true,
    ),
    Row(
        DebugCategory::File,
        "file",
        "the files each thread does I/O on",
        true,
    ),
    Row(DebugCategory::Io, "io", "each I/O as it completes", true),
    Row(DebugCategory::Mem, "mem", "I/O buffer allocation", true),
    Row(
        DebugCategory::Blktrace,
        "blktrace",
        "blktrace replay: each trace entry stored (not in ferrio yet)",
        false,
    ),
    Row(
        DebugCategory::Verify,
        "verify",
        "verify headers filled and checked, the verify pass",
        true,
    ),
    Row(
        DebugCategory::Random,
        "random",
        "random offsets and distributions",
        true,
    ),
    Row(
        DebugCategory::Parse,
        "parse",
        "each option handled (handle_option=NAME, ptr=VALUE)",
        true,
    ),
    Row(
        DebugCategory::Diskutil,
        "diskutil",
        "the disks whose utilization is reported, their stat files",
        true,
    ),
    Row(
        DebugCategory::Job,
        "job",
        "job:N: only job N (from 1) writes lines; job alone: all jobs",
        false,
    ),
    Row(
        DebugCategory::Mutex,
        "mutex",
        "the start barrier each job thread waits on",
        true,
    ),
    Row(
        DebugCategory::Profile,
        "profile",
        "built-in job profiles (none yet: prints nothing)",
        false,
    ),
    Row(
        DebugCategory::Time,
        "time",
        "the clock source: its choice, calibration and fallback",
        true,
    ),
    Row(
        DebugCategory::Net,
        "net",
        "client/server connections and commands; net engine setup",
        true,
    ),
    Row(
        DebugCategory::Rate,
        "rate",
        "rate pacing: poisson rates, latency_target depth changes",
        true,
    ),
    Row(
        DebugCategory::Compress,
        "compress",
        "log_compression: chunks deflated and inflated",
        true,
    ),
    Row(
        DebugCategory::Steadystate,
        "steadystate",
        "steady-state checks: each window's values and verdict",
        true,
    ),
    Row(
        DebugCategory::Helperthread,
        "helperthread",
        "the helper thread: its ticks and reports",
        true,
    ),
    Row(
        DebugCategory::Zbd,
        "zbd",
        "zones: device zones, opening, closing and resetting zones",
        true,
    ),
];

impl DebugCategory {
    /// Every category, in fio's order.
    pub fn all() -> impl Iterator<Item = DebugCategory> {
        CATEGORIES.iter().map(|r| r.0)
    }

    /// fio's name for the category.
    pub fn name(self) -> &'static str {
        CATEGORIES.iter().find(|r| r.0 == self).map_or("", |r| r.1)
    }
}

/// Compares with the category's name (`--debug=io` gives a category equal to "io").
impl PartialEq<&str> for DebugCategory {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

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

/// A set of categories as bits: copied into each job's spec, so a thread tests one
/// bit (once, outside its I/O loop, or in a branch that is never taken) per event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DebugSet {
    bits: u32,
    /// job:N: the one thread number (from 1) whose lines are written; 0: all.
    job: u32,
}

impl DebugSet {
    /// The set of `cats`, limited to thread number `job` when given (`job:N`).
    pub fn of(cats: &[DebugCategory], job: Option<u32>) -> DebugSet {
        DebugSet {
            bits: cats.iter().fold(0, |b, &c| b | 1 << c as u32),
            job: job.unwrap_or(0),
        }
    }

    /// What thread number `number` (fio's, from 1) writes: everything, or nothing
    /// when `job:N` names another thread.
    pub fn for_thread(self, number: u64) -> DebugSet {
        match self.job {
            0 => self,
            n if n as u64 == number => self,
            _ => DebugSet::default(),
        }
    }

    /// Whether `c` is in the set.
    #[inline]
    pub fn has(self, c: DebugCategory) -> bool {
        self.bits & (1 << c as u32) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.bits == 0
    }
}

/// Each job carries the run's categories as bits (with job:N, the planner clears
/// them in every other thread's copy: numjobs clones are numbered there).
pub fn mark_jobs(flags: &super::GlobalFlags, jobs: &mut [crate::JobSpec]) {
    let set = DebugSet::of(&flags.debug, flags.debug_job);
    for j in jobs {
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
    s += &format!(
        "Accepted but printing nothing in ferrio yet: {}\n",
        silent.join(", ")
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fio --debug=help` in fio 3.33 lists exactly these, in this order.
    const FIO_3_33: &str = "process,file,io,mem,blktrace,verify,random,parse,diskutil,job,mutex,profile,time,net,rate,compress,steadystate,helperthread,zbd";

    #[test]
    fn the_categories_are_fios() {
        let names: Vec<&str> = DebugCategory::all().map(DebugCategory::name).collect();
        assert_eq!(names.join(","), FIO_3_33);
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
        assert_eq!((all.len(), all[0]), (19, Time));
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
        assert!(
            h.ends_with("\nAccepted but printing nothing in ferrio yet: blktrace, profile\n"),
            "{h}"
        );
        assert!(h.lines().all(|l| l.len() <= 80), "{h}");
        assert!(allowed().ends_with("zbd, all, help"));
    }
}
