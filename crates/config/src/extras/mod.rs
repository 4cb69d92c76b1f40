//! Files generated from the option table and the run-wide flag table so they can
//! never drift from the code: the man page `ferrio.1` and the bash, zsh and fish
//! completions. Each is committed in the repository (a test fails when one is stale)
//! and written by `ferrio --install-extras DIR` from the same functions.

mod bash;
mod fish;
mod manpage;
mod zsh;

pub use manpage::manpage;

use crate::cli::{flag_docs, flag_values, FlagArg, FlagDoc};
use crate::table::{self, Kind, OptSpec, Support};

/// One generated file: where it is committed, where an install puts it.
pub struct Extra {
    /// Path in the repository, relative to its root.
    pub repo_path: &'static str,
    /// Path under the install prefix (`--install-extras DIR`).
    pub install_path: &'static str,
    pub generate: fn() -> String,
}

/// Every generated file.
pub const EXTRAS: &[Extra] = &[
    Extra {
        repo_path: "man/ferrio.1",
        install_path: "share/man/man1/ferrio.1",
        generate: manpage::manpage,
    },
    Extra {
        repo_path: "completions/ferrio.bash",
        install_path: "share/bash-completion/completions/ferrio",
        generate: bash::bash,
    },
    Extra {
        repo_path: "completions/_ferrio",
        install_path: "share/zsh/site-functions/_ferrio",
        generate: zsh::zsh,
    },
    Extra {
        repo_path: "completions/ferrio.fish",
        install_path: "share/fish/vendor_completions.d/ferrio.fish",
        generate: fish::fish,
    },
];

/// What completes after `--X=` for an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Values {
    /// Nothing (a number, a size, free text).
    Free,
    /// These words.
    Words(Vec<String>),
    /// A file name.
    File,
    /// A directory name.
    Dir,
}

/// An option or flag as completion offers it.
struct Word {
    /// The name and its aliases, without `--`.
    names: Vec<&'static str>,
    help: String,
    /// Takes `=VALUE` (or the next word); `optional` when it may stand bare.
    takes_value: bool,
    optional: bool,
    values: Values,
}

/// Options whose values are paths (the table types them as free text).
const FILE_VALUED: &[&str] = &["filename", "output", "read_iolog", "write_iolog"];
const DIR_VALUED: &[&str] = &["directory", "install-extras"];

/// Whether an allowed value is a literal word to offer (some value lists describe
/// patterns in prose, like `clat_pN / lat_pN`).
fn literal(v: &str) -> bool {
    !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-+.:,%".contains(c))
}

fn values_of(name: &str, listed: Vec<String>) -> Values {
    if FILE_VALUED.contains(&name) {
        Values::File
    } else if DIR_VALUED.contains(&name) {
        Values::Dir
    } else if listed.is_empty() {
        Values::Free
    } else {
        Values::Words(listed)
    }
}

fn option_word(o: &'static OptSpec) -> Word {
    let mut listed: Vec<String> = o
        .values
        .iter()
        .map(|v| v.0)
        .filter(|v| literal(v))
        .map(str::to_string)
        .collect();
    if listed.is_empty() && matches!(o.kind, Kind::Bool | Kind::Flag) {
        listed = vec!["0".into(), "1".into()];
    }
    let mut names = vec![o.name];
    names.extend(o.aliases);
    Word {
        names,
        help: o.help.to_string(),
        takes_value: true,
        optional: o.kind == Kind::Flag,
        values: values_of(o.name, listed),
    }
}

fn flag_word(f: &FlagDoc) -> Word {
    // A flag whose placeholder is FILE or DIR (`--html=FILE`) completes paths.
    let values = match f.meta.split('[').next() {
        Some("FILE") => Values::File,
        Some("DIR") => Values::Dir,
        _ => values_of(f.names[0], flag_values(f.names[0])),
    };
    Word {
        names: f.names.to_vec(),
        help: f.help.clone(),
        takes_value: f.arg != FlagArg::None,
        optional: f.arg == FlagArg::Optional,
        values,
    }
}

/// Everything completion offers after `--`: the supported flags, then the job
/// options ferrio accepts (fio options it refuses are left out), minus options a
/// flag of the same name shadows on the command line.
fn words() -> Vec<Word> {
    let flags: Vec<FlagDoc> = flag_docs().into_iter().filter(|f| f.supported).collect();
    let shadowed = |n: &str| flags.iter().any(|f| f.names.contains(&n));
    let mut out: Vec<Word> = flags.iter().map(flag_word).collect();
    out.extend(
        table::all()
            .filter(|o| o.support != Support::No && !shadowed(o.name))
            .map(option_word),
    );
    out
}

#[cfg(test)]
mod tests;
