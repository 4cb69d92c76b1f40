//! One row of the run-wide flag table ([`super::flags::FLAGS`]): its shape and the
//! constructors the table's rows are written with. Separate from the table so that
//! feature modules (e.g. [`super::reports`]) can define rows the table lists.

use super::{ConfigError, Raw};

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

/// What ferrio does with a flag.
pub(super) enum Action {
    Handle(Handler),
    /// A fio flag ferrio refuses; the text says why (and what to use instead).
    Refuse(&'static str),
}

pub(super) struct Flag {
    /// The name and its aliases, without `--`.
    pub names: &'static [&'static str],
    /// fio's one-letter form (`-v`), if fio has one.
    pub short: Option<char>,
    pub arg: Arg,
    /// The value's placeholder in `--help` (`FMT` gives `--output-format=FMT`).
    pub meta: &'static str,
    /// `--help` text; `\n` continues on the next line.
    pub help: &'static str,
    pub action: Action,
}

pub(super) const fn flag(
    names: &'static [&'static str],
    short: Option<char>,
    arg: Arg,
    meta: &'static str,
    help: &'static str,
    handler: Handler,
) -> Flag {
    Flag {
        names,
        short,
        arg,
        meta,
        help,
        action: Action::Handle(handler),
    }
}

pub(super) const fn refused(
    names: &'static [&'static str],
    short: char,
    arg: Arg,
    why: &'static str,
) -> Flag {
    Flag {
        names,
        short: Some(short),
        arg,
        meta: "",
        help: "",
        action: Action::Refuse(why),
    }
}
