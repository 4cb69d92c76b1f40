//! Substitutions in option values: `${VAR}` (environment; job files only) and fio's
//! reserved keywords `$pagesize`, `$ncpus`, `$mb_memory`. As in fio, a value that had
//! a keyword replaced and then reads as arithmetic (`8*$mb_memory`) is evaluated.
//! An empty or unset environment variable becomes the empty string (fio's rule); the
//! lexer warns about each unset one, naming it, the file and the line (fio says
//! nothing, and then often fails with "failed parsing" without saying why).

use crate::values::arith::{eval, Unit};

/// System values for the reserved keywords.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keywords {
    pub pagesize: u64,
    pub ncpus: u64,
    pub mb_memory: u64,
}

impl Keywords {
    /// Values of the running system (reads /proc; touches nothing).
    pub fn system() -> Self {
        let ncpus = std::thread::available_parallelism()
            .map(|n| n.get() as u64)
            .unwrap_or(1);
        let mb_memory = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                m.lines()
                    .find(|l| l.starts_with("MemTotal:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|kb| kb.parse::<u64>().ok())
            })
            .map(|kb| kb / 1024)
            .unwrap_or(0);
        Keywords {
            pagesize: page_size(),
            ncpus,
            mb_memory,
        }
    }
}

/// The page size from the ELF auxiliary vector (AT_PAGESZ), 4096 if unavailable.
pub(crate) fn page_size() -> u64 {
    const AT_PAGESZ: u64 = 6;
    if let Ok(auxv) = std::fs::read("/proc/self/auxv") {
        for pair in auxv.chunks_exact(16) {
            let key = u64::from_ne_bytes(pair[..8].try_into().unwrap_or_default());
            let val = u64::from_ne_bytes(pair[8..].try_into().unwrap_or_default());
            if key == AT_PAGESZ && val > 0 {
                return val;
            }
        }
    }
    4096
}

/// Replace `${VAR}` using `env` (None or empty → "").
pub fn expand_env(value: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find("${") {
        match rest[i + 2..].find('}') {
            Some(j) if j > 0 => {
                out.push_str(&rest[..i]);
                out.push_str(&env(&rest[i + 2..i + 2 + j]).unwrap_or_default());
                rest = &rest[i + 3 + j..];
            }
            _ => break,
        }
    }
    out.push_str(rest);
    out
}

/// The variables `${VAR}` in `value` that `env` does not define, in order.
pub fn unset_vars(value: &str, env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(i) = rest.find("${") {
        match rest[i + 2..].find('}') {
            Some(j) if j > 0 => {
                let name = &rest[i + 2..i + 2 + j];
                if env(name).is_none() {
                    out.push(name.to_string());
                }
                rest = &rest[i + 3 + j..];
            }
            _ => break,
        }
    }
    out
}

/// Replace reserved keywords; evaluate the result if it then reads as arithmetic.
pub fn replace_keywords(value: &str, kw: &Keywords) -> String {
    let mut out = value.to_string();
    let mut replaced = false;
    for (word, v) in [
        ("$pagesize", kw.pagesize),
        ("$ncpus", kw.ncpus),
        ("$mb_memory", kw.mb_memory),
    ] {
        if out.contains(word) {
            out = out.replace(word, &v.to_string());
            replaced = true;
        }
    }
    if replaced && !out.starts_with('(') && out.contains(['*', '/', '+', '%', '^']) {
        if let Ok(v) = eval(&out, Unit::Plain) {
            return v.to_string();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(k: &str) -> Option<String> {
        match k {
            "SIZE" => Some("64m".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn env_expansion() {
        assert_eq!(expand_env("${SIZE}", &env), "64m");
        assert_eq!(expand_env("a${SIZE}b${SIZE}", &env), "a64mb64m");
        assert_eq!(expand_env("${NOPE}x", &env), "x");
        assert_eq!(expand_env("${EMPTY}", &env), "");
        assert_eq!(expand_env("${}", &env), "${}");
        assert_eq!(expand_env("${OPEN", &env), "${OPEN");
        assert_eq!(expand_env("$SIZE", &env), "$SIZE");
    }

    #[test]
    fn unset_variables_are_found() {
        assert!(unset_vars("${SIZE}${EMPTY}", &env).is_empty());
        assert_eq!(unset_vars("a${SIZE}b${NOPE}c${X}", &env), ["NOPE", "X"]);
        assert!(unset_vars("${}${OPEN", &env).is_empty());
    }

    #[test]
    fn keywords() {
        let kw = Keywords {
            pagesize: 4096,
            ncpus: 8,
            mb_memory: 2048,
        };
        assert_eq!(replace_keywords("$pagesize", &kw), "4096");
        assert_eq!(replace_keywords("$ncpus", &kw), "8");
        assert_eq!(replace_keywords("8*$mb_memory", &kw), "16384");
        assert_eq!(replace_keywords("$mb_memory/2", &kw), "1024");
        assert_eq!(replace_keywords("${x}", &kw), "${x}");
        assert_eq!(replace_keywords("1k-$pagesize", &kw), "1k-4096");
        assert_eq!(replace_keywords("($pagesize*2)", &kw), "(4096*2)");
        assert_eq!(replace_keywords("plain", &kw), "plain");
    }

    #[test]
    fn system_values_are_sane() {
        let kw = Keywords::system();
        assert!(kw.pagesize >= 4096 && kw.pagesize.is_power_of_two());
        assert!(kw.ncpus >= 1);
        assert!(kw.mb_memory >= 1);
    }
}
