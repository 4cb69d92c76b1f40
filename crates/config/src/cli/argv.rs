//! How a job option written on the command line gets its value, as fio's getopt_long
//! does.
//!
//! fio builds its getopt table from its option table: an option of its "set" type
//! (ferrio's [`Kind::Flag`]: `time_based`, `thread`, `verify_only`, ...) takes a value
//! only inline (`--time_based=0`), so `--verify_only --rw=write` is two options. Every
//! other job option requires a value, inline or as the next argument whatever it looks
//! like (`--bs 4k`; `--direct --rw=write` is direct=`--rw=write`, which fio refuses),
//! and an empty inline value (`--bs=`) is refused before the option is parsed.
//! [`split_arg`] first splits one argument into the name and an inline value.

use super::flags;
use crate::error::ConfigError;
use crate::table::{self, Kind, OptSpec};

/// Where a command-line job option's value comes from.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Value {
    /// None: the bare option (a flag).
    Bare,
    /// Written after `=`.
    Inline(String),
    /// The next argument, whatever it is.
    Next,
}

/// The value source for `--key[=inline]`, or the error fio gives.
pub(super) fn job_value(
    spec: &OptSpec,
    key: &str,
    inline: Option<String>,
) -> Result<Value, ConfigError> {
    let optional = spec.kind == Kind::Flag;
    match inline {
        Some(v) if v.is_empty() && !optional => Err(ConfigError(format!(
            "option '--{key}' requires an argument (at command line)"
        ))),
        Some(v) => Ok(Value::Inline(v)),
        None if optional => Ok(Value::Bare),
        None => Ok(Value::Next),
    }
}

/// `--key[=value]`, fio's one-letter `-k [value]` / `-kvalue`, or a long name with one
/// dash (`-name=x`, as fio's getopt_long_only allows) → (long name, inline value).
/// None when the argument is none of these.
pub(super) fn split_arg(arg: &str) -> Option<(String, Option<String>)> {
    let split = |body: &str| match body.split_once('=') {
        Some((k, v)) => (k.to_string(), Some(v.to_string())),
        None => (body.to_string(), None),
    };
    if let Some(body) = arg.strip_prefix("--") {
        return Some(split(body));
    }
    let body = arg.strip_prefix('-')?;
    let (k, v) = split(body);
    if flags::find(&k).is_some() || table::find(&k).is_some() {
        return Some((k, v));
    }
    let mut chars = body.chars();
    let c = chars.next()?;
    let f = flags::find_short(c)?;
    let rest = chars.as_str();
    let rest = rest.strip_prefix('=').unwrap_or(rest);
    Some((
        f.names[0].to_string(),
        (!rest.is_empty()).then(|| rest.to_string()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table;

    fn value(key: &str, inline: Option<&str>) -> Result<Value, ConfigError> {
        let spec = table::find(key).expect(key);
        job_value(spec, key, inline.map(str::to_string))
    }

    #[test]
    fn set_options_take_a_value_only_inline() {
        for key in [
            "verify_only",
            "time_based",
            "thread",
            "norandommap",
            "group_reporting",
        ] {
            assert_eq!(value(key, None).unwrap(), Value::Bare, "{key}");
            assert_eq!(
                value(key, Some("0")).unwrap(),
                Value::Inline("0".into()),
                "{key}"
            );
        }
    }

    #[test]
    fn other_options_require_one_inline_or_next() {
        // Booleans and log prefixes too, as fio's getopt table says.
        for key in ["direct", "bs", "verify", "write_bw_log", "verify_pattern"] {
            assert_eq!(value(key, None).unwrap(), Value::Next, "{key}");
            let e = value(key, Some("")).unwrap_err().to_string();
            assert!(e.contains("requires an argument") && e.contains(key), "{e}");
        }
        assert_eq!(value("bs", Some("4k")).unwrap(), Value::Inline("4k".into()));
    }
}
