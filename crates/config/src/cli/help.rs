//! `--help` (written from the run-wide flag table) and `--enghelp` (written from the
//! `ioengine` option's value list, which a binary test keeps equal to the engine
//! registry, and from the options marked private to an engine).

use super::flags::{Action, Arg, FLAGS};
use super::ConfigError;
use crate::table;

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

/// `--enghelp`: the engines; `--enghelp=ENGINE`: its own options;
/// `--enghelp=ENGINE,OPT`: details on one of them.
pub fn enghelp(arg: &str) -> Result<String, ConfigError> {
    let engines = table::find("ioengine").map_or(&[][..], |o| o.values);
    let (engine, opt) = match arg.split_once(',') {
        Some((e, o)) => (e.trim(), Some(o.trim())),
        None => (arg.trim(), None),
    };
    if engine.is_empty() {
        let mut s = String::from("Available IO engines:\n");
        for (name, help) in engines {
            s += &format!("\t{name:<10} {help}\n");
        }
        return Ok(s);
    }
    if !engines.iter().any(|e| e.0 == engine) {
        let names: Vec<&str> = engines.iter().map(|e| e.0).collect();
        let why = if table::ENGINES_NOT_YET.contains(&engine) {
            "is not supported by ferrio yet"
        } else {
            "not found"
        };
        return Err(ConfigError(format!(
            "--enghelp: IO engine '{engine}' {why}; allowed: {}",
            names.join(", ")
        )));
    }
    let own: Vec<&table::OptSpec> = table::all()
        .filter(|o| o.engines.contains(&engine))
        .collect();
    match opt {
        None if own.is_empty() => Ok(format!("IO engine {engine} has no options\n")),
        None => Ok(own
            .iter()
            .map(|o| format!("{:<24}: {}\n", o.name, o.help))
            .collect()),
        Some(o) => match own.iter().find(|x| x.name == o || x.aliases.contains(&o)) {
            Some(x) => table::cmdhelp_one(x.name).map_err(ConfigError),
            None => {
                let names: Vec<&str> = own.iter().map(|o| o.name).collect();
                Err(ConfigError(format!(
                    "--enghelp: '{o}' is not an option of IO engine {engine}; its options: {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_supported_flag_and_every_refused_one() {
        let h = help();
        for f in FLAGS {
            let shown = format!("--{}", f.names[0]);
            assert!(h.contains(&shown), "{shown} missing from --help");
            if let Action::Handle(_) = f.action {
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

    #[test]
    fn enghelp_lists_engines_their_options_and_one_option() {
        let all = enghelp("").unwrap();
        assert!(all.starts_with("Available IO engines:\n\tpsync "), "{all}");
        assert!(all.contains("\n\tio_uring ") && all.contains("\n\tsim "));
        let uring = enghelp("io_uring").unwrap();
        for o in [
            "hipri",
            "fixedbufs",
            "sqthread_poll",
            "nowait",
            "force_async",
        ] {
            assert!(uring.contains(&format!("{o:<24}: ")), "{o}: {uring}");
        }
        assert!(!uring.contains("userspace_reap"));
        assert!(enghelp("libaio").unwrap().contains("userspace_reap"));
        assert!(enghelp("sim").unwrap().contains("sim_lat"));
        assert_eq!(
            enghelp("psync").unwrap(),
            "IO engine psync has no options\n"
        );
        assert!(enghelp("io_uring,hipri").unwrap().starts_with("hipri: "));
        let e = enghelp("io_uring,userspace_reap").unwrap_err().0;
        assert!(
            e.contains("not an option of IO engine io_uring") && e.contains("fixedbufs"),
            "{e}"
        );
        let e = enghelp("nope").unwrap_err().0;
        assert!(e.contains("'nope' not found; allowed: psync, sync"), "{e}");
        assert!(enghelp("splice")
            .unwrap_err()
            .0
            .contains("not supported by ferrio yet"));
    }

    #[test]
    fn engine_private_options_name_their_engine_in_the_help() {
        // The help of an engine's own option starts with the engines it belongs to
        // ("io_uring: ...", "pvsync2, libaio, io_uring: ..."), except hipri which
        // describes each.
        for o in table::all().filter(|o| !o.engines.is_empty()) {
            for e in o.engines {
                assert!(o.help.contains(e), "{}: help does not name {e}", o.name);
            }
        }
        for o in table::all().filter(|o| o.engines.is_empty()) {
            let prefix = o.help.split(':').next().unwrap_or("");
            assert!(
                !["io_uring", "libaio", "pvsync2", "sim"].contains(&prefix),
                "{} looks engine-private but is not marked",
                o.name
            );
        }
    }
}
