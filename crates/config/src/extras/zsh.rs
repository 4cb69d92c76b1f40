//! The zsh completion function `_ferrio`, from [`super::words`]: one `_arguments`
//! spec per option, flag and alias (repeatable, as every job repeats options), with
//! the allowed values, and job files for the other words.

use super::{words, Values};

/// Text for inside `[...]` of a spec: brackets and backslashes escaped.
fn desc(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if matches!(c, '\\' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Single-quoted for the shell.
fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The content of completions/_ferrio.
pub fn zsh() -> String {
    let mut s = String::from(
        "#compdef ferrio\n\
         # zsh completion for ferrio. Generated from ferrio's option and flag tables by\n\
         # ferrio_config::extras (crates/config/src/extras/zsh.rs): do not edit.\n\
         # Installed by `ferrio --install-extras DIR` as DIR/share/zsh/site-functions/_ferrio\n\
         # (that directory must be in $fpath).\n\
         \n\
         _arguments -S \\\n",
    );
    for w in words() {
        let action = match &w.values {
            Values::Free => String::new(),
            Values::Words(v) => {
                let v: Vec<String> = v.iter().map(|x| x.replace(':', r"\:")).collect();
                format!("({})", v.join(" "))
            }
            Values::File => "_files".into(),
            Values::Dir => "_files -/".into(),
        };
        for n in &w.names {
            let spec = match (w.takes_value, w.optional) {
                (false, _) => format!("*--{n}[{}]", desc(&w.help)),
                (true, true) => format!("*--{n}=-[{}]::{n}:{action}", desc(&w.help)),
                (true, false) => format!("*--{n}=[{}]:{n}:{action}", desc(&w.help)),
            };
            s += &format!("  {} \\\n", q(&spec));
        }
    }
    s += "  '*:job file:_files'\n";
    s
}
