//! The fish completion script, from [`super::words`]: one `complete` line per
//! option, flag and alias, with the allowed values and the help as description.
//! Words not starting with `-` complete to files (fish's default), the job files.

use super::{words, Values};

/// Single-quoted for fish.
fn q(s: &str) -> String {
    format!("'{}'", s.replace('\\', r"\\").replace('\'', r"\'"))
}

/// The content of completions/ferrio.fish.
pub fn fish() -> String {
    let mut s = String::from(
        "# fish completion for ferrio. Generated from ferrio's option and flag tables by\n\
         # ferrio_config::extras (crates/config/src/extras/fish.rs): do not edit.\n\
         # Installed by `ferrio --install-extras DIR` as\n\
         # DIR/share/fish/vendor_completions.d/ferrio.fish.\n\n",
    );
    for w in words() {
        let arg = match (&w.values, w.takes_value && !w.optional) {
            (_, false) => String::new(),
            (Values::Free, true) => " -x".into(),
            (Values::Words(v), true) => format!(" -x -a {}", q(&v.join(" "))),
            // fish completes paths after `--opt=` itself (directories included).
            (Values::File | Values::Dir, true) => " -r -F".into(),
        };
        for n in &w.names {
            s += &format!("complete -c ferrio -l {n}{arg} -d {}\n", q(&w.help));
        }
    }
    s
}
