//! The run-wide flag table as documentation sees it: the man page and the shell
//! completions (crate::extras) read [`flag_docs`], never [`super::flags::FLAGS`]'s
//! private fields, so the flag table stays the one place a flag is defined.

use super::flags::{Action, Arg, FLAGS};
use super::DebugCategory;
use crate::table;

/// How a flag takes its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagArg {
    /// A bare flag (`--readonly`).
    None,
    /// `--flag=VALUE` or `--flag VALUE`.
    Value,
    /// `--flag` or `--flag=VALUE`.
    Optional,
}

/// One run-wide flag, for documentation and completion.
#[derive(Clone, Debug)]
pub struct FlagDoc {
    /// The name and its aliases, without `--`.
    pub names: &'static [&'static str],
    pub arg: FlagArg,
    /// The value's placeholder (`FMT`), "" for bare flags.
    pub meta: &'static str,
    /// The `--help` text with its line breaks joined into one line.
    pub help: String,
    /// False for fio flags ferrio refuses by name.
    pub supported: bool,
}

/// Every row of the flag table, in `--help` order.
pub fn flag_docs() -> Vec<FlagDoc> {
    FLAGS
        .iter()
        .map(|f| FlagDoc {
            names: f.names,
            arg: match f.arg {
                Arg::None => FlagArg::None,
                Arg::Value => FlagArg::Value,
                Arg::Optional => FlagArg::Optional,
            },
            meta: f.meta,
            help: f.help.replace('\n', " "),
            supported: matches!(f.action, Action::Handle(_)),
        })
        .collect()
}

/// The values a flag accepts, where they form a fixed list (for completion). A test
/// checks each list against the flag's own error message, so it cannot drift.
pub fn flag_values(name: &str) -> Vec<String> {
    let fixed: &[&str] = match name {
        "output-format" => &[
            "normal",
            "terse",
            "json",
            "json+",
            "interval",
            "hosts",
            "hosts-json",
            "hosts-csv",
        ],
        "eta" => &["auto", "always", "never"],
        "terse-version" => &["2", "3", "4", "5"],
        "idle-prof" => &["system", "percpu", "calibrate"],
        "debug" => {
            let mut v: Vec<String> = DebugCategory::all().map(|c| c.name().into()).collect();
            v.extend(["all".into(), "help".into()]);
            return v;
        }
        "cmdhelp" => {
            let mut v = vec!["all".to_string()];
            v.extend(table::all().map(|o| o.name.to_string()));
            return v;
        }
        _ => &[],
    };
    fixed.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::parse_command_line;

    /// The "allowed: ..." list the flag prints for a bad value.
    fn allowed_in_error(flag: &str) -> Vec<String> {
        let e = parse_command_line(&[format!("--{flag}=no-such-value")], false)
            .err()
            .unwrap_or_else(|| panic!("--{flag} accepted a bad value"))
            .0;
        let list = e.split("allowed: ").nth(1).unwrap_or_default();
        let list = list.split(" (").next().unwrap_or_default();
        list.split(", ").map(str::to_string).collect()
    }

    #[test]
    fn value_lists_match_what_the_flags_accept() {
        for flag in [
            "output-format",
            "eta",
            "debug",
            "terse-version",
            "idle-prof",
        ] {
            assert_eq!(flag_values(flag), allowed_in_error(flag), "--{flag}");
        }
        assert!(flag_values("cmdhelp").contains(&"iodepth".to_string()));
        assert!(flag_values("output").is_empty());
    }

    #[test]
    fn every_row_is_documented() {
        let docs = flag_docs();
        assert_eq!(docs.len(), FLAGS.len());
        for d in docs.iter().filter(|d| d.supported) {
            assert!(
                !d.help.is_empty() && !d.help.contains('\n'),
                "{:?}",
                d.names
            );
            assert_eq!(d.meta.is_empty(), d.arg == FlagArg::None, "{:?}", d.names);
        }
    }
}
