//! The bash completion script, from [`super::words`]. Self-contained (it needs no
//! bash-completion helpers) and correct whether or not `=` is in COMP_WORDBREAKS:
//! `--rw=` completes fio's rw values, `--iodep` the `--iodepth…` options (and so does
//! the typo `--iodeng`: the longest prefix that matches wins), and a word not
//! starting with `-` job-file paths.

use super::{words, Values};

/// Single-quoted for the shell.
fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The content of completions/ferrio.bash.
pub fn bash() -> String {
    let ws = words();
    let mut all = Vec::new();
    for w in &ws {
        for n in &w.names {
            if !w.takes_value || w.optional {
                all.push(format!("--{n}"));
            }
            if w.takes_value {
                all.push(format!("--{n}="));
            }
        }
    }
    let mut cases = String::new();
    for w in &ws {
        let action = match &w.values {
            Values::Free => continue,
            Values::Words(v) => format!("_ferrio_reply {}", q(&v.join(" "))),
            Values::File => "_ferrio_paths -f".into(),
            Values::Dir => "_ferrio_paths -d".into(),
        };
        cases += &format!("        {}) {action} ;;\n", w.names.join("|"));
    }
    let next: Vec<&str> = ws
        .iter()
        .filter(|w| w.takes_value && !w.optional)
        .flat_map(|w| w.names.iter().copied())
        .collect();
    let mut next_lines = String::new();
    let mut line = String::from("   ");
    for n in next {
        if line.len() + n.len() > 76 {
            next_lines += &line;
            next_lines += "\n";
            line = String::from("   ");
        }
        line += " ";
        line += n;
    }
    next_lines += &line;
    let mut words_lines = String::new();
    let mut line = String::from("   ");
    for n in &all {
        if line.len() + n.len() > 76 {
            words_lines += &line;
            words_lines += "\n";
            line = String::from("   ");
        }
        line += " ";
        line += n;
    }
    words_lines += &line;
    TEMPLATE
        .replace("@WORDS@", &words_lines)
        .replace("@NEXT@", &next_lines)
        .replace("@CASES@", &cases)
}

const TEMPLATE: &str = r#"# bash completion for ferrio. Generated from ferrio's option and flag tables by
# ferrio_config::extras (crates/config/src/extras/bash.rs): do not edit.
# Installed by `ferrio --install-extras DIR` as
# DIR/share/bash-completion/completions/ferrio; or source it from ~/.bashrc.

_ferrio_words='
@WORDS@
'

# Options and flags whose value may be the next word (`--rw read`).
_ferrio_next='
@NEXT@
'

# Replies: the words in $1 that start with $_ferrio_val (after its last comma,
# for comma lists), each prefixed with $_ferrio_pre.
_ferrio_reply() {
    local head= tail=$_ferrio_val w
    if [[ $tail == *,* ]]; then
        head=${tail%,*},
        tail=${tail##*,}
    fi
    for w in $1; do
        [[ $w == "$tail"* ]] && COMPREPLY+=("$_ferrio_pre$head$w")
    done
}

_ferrio_paths() {
    local p
    while IFS= read -r p; do
        COMPREPLY+=("$_ferrio_pre$p")
    done < <(compgen "$1" -- "$_ferrio_val")
    compopt -o filenames 2>/dev/null
}

_ferrio_values() {
    case $1 in
@CASES@    esac
}

_ferrio() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev= key= w
    local _ferrio_val= _ferrio_pre=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()
    if [[ $cur == = && $prev == --* ]]; then
        key=$prev
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        key=${COMP_WORDS[COMP_CWORD - 2]} _ferrio_val=$cur
    elif [[ $cur == --*=* ]]; then
        key=${cur%%=*} _ferrio_val=${cur#*=} _ferrio_pre=${cur%%=*}=
    elif [[ $prev == --* && $prev != *=* && " "$_ferrio_next" " == *[[:space:]]"${prev#--}"[[:space:]]* ]]; then
        key=$prev _ferrio_val=$cur
    fi
    if [[ -n $key ]]; then
        [[ $key == --* ]] && _ferrio_values "${key#--}"
        return 0
    fi
    if [[ $cur == -* ]]; then
        # A typo (`--iodeng`) falls back to the longest prefix that matches something
        # (`--iode`), down to two letters after the dashes.
        local try=$cur
        while :; do
            for w in $_ferrio_words; do
                [[ $w == "$try"* ]] && COMPREPLY+=("$w")
            done
            ((${#COMPREPLY[@]} > 0 || ${#try} <= 4)) && break
            try=${try%?}
        done
        if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *= ]]; then
            compopt -o nospace 2>/dev/null
        fi
        return 0
    fi
    # Anything else is a job file.
    _ferrio_val=$cur
    _ferrio_paths -f
    return 0
}

complete -F _ferrio ferrio
"#;
