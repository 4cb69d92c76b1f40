//! ferrio-config: everything between the user's words and an immutable [`JobSpec`].
//!
//! - `jobfile`: the INI lexer (sections, bare keys, include, ${ENV}, fio keywords). Knows no option meaning.
//! - `values`: value parsers (sizes, times, ranges, bssplit, percentages, booleans, arithmetic).
//! - `table`: the one declarative option table (drives parsing, --cmdhelp, docs, validation).
//! - `builder`: applies a job's option chain through the table onto fio's defaults and validates it.
//! - `session`: inheritance between [global] sections, command line and job files; --showcmd.
//! - `spec`: the typed, validated job description the runner consumes.
//! - `cli`: fio-style command line (ordered `--name=a --rw=read ...`, job files, global flags).

pub mod builder;
pub mod cli;
pub mod error;
pub mod jobfile;
pub mod session;
pub mod spec;
pub mod table;
pub mod values;

pub use cli::*;
pub use spec::*;
