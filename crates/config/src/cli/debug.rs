//! `--debug=` categories: fio's list, one table row each. fio accepts an unknown
//! category with a warning and runs on; ferrio refuses it and names the allowed ones.

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
        "block trace replay",
        false,
    ),
    Row(DebugCategory::Verify, "verify", "data verification", false),
    Row(
        DebugCategory::Random,
        "random",
        "random offsets and distributions",
        true,
    ),
    Row(
        DebugCategory::Parse,
        "parse",
        "job file and option parsing",
        false,
    ),
    Row(
        DebugCategory::Diskutil,
        "diskutil",
        "disk utilization statistics",
        false,
    ),
    Row(DebugCategory::Job, "job", "job setup and teardown", false),
    Row(DebugCategory::Mutex, "mutex", "internal locks", false),
    Row(
        DebugCategory::Profile,
        "profile",
        "built-in job profiles",
        false,
    ),
    Row(
        DebugCategory::Time,
        "time",
        "the clock source: its choice, calibration and fallback",
        true,
    ),
    Row(DebugCategory::Net, "net", "the network engine", false),
    Row(DebugCategory::Rate, "rate", "rate limiting", false),
    Row(
        DebugCategory::Compress,
        "compress",
        "buffer compressibility",
        false,
    ),
    Row(
        DebugCategory::Steadystate,
        "steadystate",
        "steady-state detection",
        false,
    ),
    Row(
        DebugCategory::Helperthread,
        "helperthread",
        "the helper thread (ETA and status reports)",
        false,
    ),
    Row(DebugCategory::Zbd, "zbd", "zoned block devices", false),
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
    let emitted: Vec<&str> = CATEGORIES.iter().filter(|r| r.3).map(|r| r.1).collect();
    s += &format!(
        "Of these, ferrio writes diagnostics for:\n  {} (the rest print nothing yet)\n",
        emitted.join(", ")
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
    }

    #[test]
    fn help_describes_every_category() {
        let h = help();
        for c in DebugCategory::all() {
            assert!(h.contains(&format!("\n  {:<14}", c.name())), "{h}");
        }
        assert!(
            h.contains("ferrio writes diagnostics for:\n  process, file, io, mem, random, time ("),
            "{h}"
        );
        assert!(h.lines().all(|l| l.len() <= 80), "{h}");
        assert!(allowed().ends_with("zbd, all, help"));
    }
}
