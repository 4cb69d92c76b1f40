//! ferrio-config: everything between the user's words and an immutable [`JobSpec`].
//!
//! - `jobfile`: the INI lexer (sections, bare keys, include, ${ENV}, fio keywords). Knows no option meaning.
//! - `values`: value parsers (sizes, times, ranges, bssplit, percentages, booleans, arithmetic).
//! - `table`: the one declarative option table (drives parsing, --cmdhelp, docs, validation).
//! - `spec`: the typed, validated job description the runner consumes.
//! - `cli`: fio-style command line (ordered `--name=a --rw=read ...`, job files, global flags).

pub mod cli;
pub mod spec;

pub use cli::*;
pub use spec::*;
