//! Drop-in mode: ferrio invoked as `fio` (a link or copy named fio) or with
//! `FERRIO_FIO_COMPAT=1` reports fio's version (`fio-3.33-ferrio-X.Y.Z`), so tools that
//! check for fio 3 accept it. `FERRIO_FIO_COMPAT=0` turns it off even when named fio.

/// The environment variable that forces drop-in mode on (1) or off (0).
pub const ENV: &str = "FERRIO_FIO_COMPAT";

/// Whether drop-in mode is on, from argv[0] and the environment.
pub fn requested(argv0: Option<&str>) -> bool {
    decide(argv0, std::env::var(ENV).ok().as_deref())
}

fn decide(argv0: Option<&str>, env: Option<&str>) -> bool {
    match env.map(str::trim) {
        Some("1") => true,
        Some("0") => false,
        _ => argv0
            .and_then(|a| std::path::Path::new(a).file_name())
            .is_some_and(|n| n == "fio"),
    }
}

#[cfg(test)]
mod tests {
    use super::decide;

    #[test]
    fn named_fio_or_forced_by_the_environment() {
        assert!(decide(Some("/usr/local/bin/fio"), None));
        assert!(decide(Some("fio"), None));
        assert!(!decide(Some("/usr/bin/ferrio"), None));
        assert!(!decide(Some("/usr/bin/fio3"), None));
        assert!(decide(Some("ferrio"), Some("1")));
        assert!(!decide(Some("fio"), Some("0")));
        assert!(decide(Some("fio"), Some("yes")));
        assert!(!decide(None, None));
    }
}
