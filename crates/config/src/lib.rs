//! ferrio-config: everything between the user's words and an immutable [`JobSpec`].
//!
//! - `jobfile`: the INI lexer (sections, bare keys, include, ${ENV}, fio keywords). Knows no option meaning.
//! - `values`: value parsers (sizes, times, ranges, bssplit, percentages, booleans, arithmetic).
//! - `table`: the one declarative option table (drives parsing, --cmdhelp, docs, validation).
//! - `builder`: applies a job's option chain through the table onto fio's defaults and validates it.
//! - `session`: inheritance between [global] sections, command line and job files; --showcmd.
//! - `spec`: the typed, validated job description the runner consumes.
//! - `cli`: fio-style command line (ordered `--name=a --rw=read ...`, job files, global flags).

//!
//! Behaviour follows fio 3.33 as observed (`fio --debug=parse --parse-only`,
//! `--showcmd`, tiny `--ioengine=null` runs). Deliberate differences, each stricter or
//! more predictable than fio, none changing the meaning of a job file fio runs
//! correctly:
//! - values fio silently mangles are errors: trailing junk (`4k4`, `10x`), fractions
//!   (`1.5m`, `1.5s`, which fio truncates to 1), negative sizes, `bs = 8k` with a blank
//!   after `=` is 8k (fio reads 8 bytes);
//! - bssplit percentages that do not add up to 100 with no blank entry are an error;
//! - numjobs 0, nrfiles 0, bwavgtime/iopsavgtime 0, wait_for naming no earlier job are
//!   errors at parse time (fio accepts them, then fails, does nothing, or samples
//!   meaninglessly at run time);
//! - command-line global options apply to every job file, not only the first;
//! - `$pagesize`/`$ncpus`/`$mb_memory` also work on the command line (fio 3.33's
//!   command line does not substitute them);
//! - `readonly=1` is also a job option (fio only has the `--readonly` flag);
//! - an unset `${VAR}` in a job file is replaced by nothing as in fio, with a warning
//!   naming it, the file and the line (fio says nothing);
//! - bytes that are not UTF-8 are accepted in comments only; elsewhere they are an
//!   error naming the line.

pub mod builder;
pub mod cli;
pub mod error;
pub mod ext;
pub mod extras;
pub mod jobfile;
pub mod session;
pub mod spec;
pub mod table;
pub mod values;

pub use cli::*;
pub use spec::*;
