//! The error policy (fio's continue_on_error, ignore_error, error_dump,
//! exitall_on_error): which I/O errors a job survives, and how they are told.
//!
//! fio's rule (td_error.c): an error has a type — verify for EILSEQ, read for a
//! read, write for everything else (writes, trims, syncs). It is non-fatal when
//! continue_on_error covers its type *and* its errno is in that type's ignore list;
//! a type without an ignore_error list ignores EIO and EILSEQ only. A non-fatal
//! error is counted and the job goes on; any other error stops the job (and is
//! counted too when continue_on_error covers its type).

/// An error's type, fio's error_type_bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType {
    Read = 0,
    Write = 1,
    Verify = 2,
}

impl ErrorType {
    /// fio's td_error_type: EILSEQ is a verify error, a read's is a read error,
    /// every other direction's (write, trim, sync) a write error.
    pub fn of(is_read: bool, errno: i32) -> ErrorType {
        if errno == EILSEQ {
            ErrorType::Verify
        } else if is_read {
            ErrorType::Read
        } else {
            ErrorType::Write
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The errors fio ignores for a type that has no ignore_error list.
pub const DEFAULT_IGNORED: [i32; 2] = [EIO, EILSEQ];

/// Linux errno values the policy itself names.
pub const EIO: i32 = 5;
pub const EILSEQ: i32 = 84;
pub const ENOSPC: i32 = 28;

/// A job's error policy. The default is fio's: stop at the first error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorPolicy {
    /// The types continue_on_error covers (bit per [`ErrorType`]).
    pub continue_mask: u8,
    /// Per type (read, write, verify): the ignored errnos; None = [`DEFAULT_IGNORED`].
    pub ignore: [Option<Vec<i32>>; 3],
    /// error_dump: print every error, non-fatal ones included.
    pub error_dump: bool,
    /// exitall_on_error: a job that fails stops every other job.
    pub exitall_on_error: bool,
}

/// continue_on_error's values and the types each covers.
pub const CONTINUE_VALUES: [(&str, u8, &str); 8] = [
    ("none", 0, "Exit when an error is encountered"),
    ("read", 1, "Continue on read errors only"),
    ("write", 2, "Continue on write errors only"),
    ("io", 3, "Continue on any I/O errors (read and write)"),
    ("verify", 4, "Continue on verify errors only"),
    ("all", 7, "Continue on all I/O and verify errors"),
    ("0", 0, "Alias for 'none'"),
    ("1", 7, "Alias for 'all'"),
];

impl ErrorPolicy {
    /// Whether continue_on_error covers any type (fio then reports the error count).
    pub fn continues(&self) -> bool {
        self.continue_mask != 0
    }

    /// Whether continue_on_error covers `t`.
    pub fn covers(&self, t: ErrorType) -> bool {
        self.continue_mask & t.bit() != 0
    }

    /// fio's td_non_fatal_error: the job survives `errno` of type `t`.
    pub fn non_fatal(&self, t: ErrorType, errno: i32) -> bool {
        if !self.covers(t) {
            return false;
        }
        match &self.ignore[t as usize] {
            Some(list) => list.contains(&errno),
            None => DEFAULT_IGNORED.contains(&errno),
        }
    }

    /// continue_on_error=VALUE (replaces what ignore_error may have added, as in fio,
    /// where options apply in order).
    pub fn set_continue(&mut self, v: &str) -> Result<(), String> {
        match CONTINUE_VALUES.iter().find(|c| c.0 == v) {
            Some(c) => {
                self.continue_mask = c.1;
                Ok(())
            }
            None => Err("not an allowed value".into()),
        }
    }

    /// ignore_error=READ_LIST,WRITE_LIST,VERIFY_LIST: each a ':'-separated list of
    /// errno names (EIO) or numbers. A non-empty list also makes continue_on_error
    /// cover its type (fio); an empty one leaves the type alone.
    pub fn set_ignore(&mut self, v: &str) -> Result<(), String> {
        let parts: Vec<&str> = v.trim().split(',').collect();
        if parts.len() > 3 {
            return Err(format!(
                "{} lists given; at most 3 (read,write,verify)",
                parts.len()
            ));
        }
        let mut lists: [Option<Vec<i32>>; 3] = Default::default();
        for (t, part) in parts.iter().enumerate() {
            let mut list = Vec::new();
            for name in part.split(':') {
                let name = name.trim();
                // fio stops a list at an empty entry.
                if name.is_empty() {
                    break;
                }
                list.push(parse_errno(name)?);
            }
            if !list.is_empty() {
                lists[t] = Some(list);
            }
        }
        for (t, list) in lists.into_iter().enumerate() {
            if let Some(list) = list {
                self.continue_mask |= 1 << t;
                self.ignore[t] = Some(list);
            }
        }
        Ok(())
    }
}

/// errno names ignore_error accepts (Linux numbers): fio's (EPERM to ERANGE) and a
/// few more a storage job meets.
pub const ERRNO_NAMES: &[(&str, i32)] = &[
    ("EPERM", 1),
    ("ENOENT", 2),
    ("ESRCH", 3),
    ("EINTR", 4),
    ("EIO", 5),
    ("ENXIO", 6),
    ("E2BIG", 7),
    ("ENOEXEC", 8),
    ("EBADF", 9),
    ("ECHILD", 10),
    ("EAGAIN", 11),
    ("ENOMEM", 12),
    ("EACCES", 13),
    ("EFAULT", 14),
    ("ENOTBLK", 15),
    ("EBUSY", 16),
    ("EEXIST", 17),
    ("EXDEV", 18),
    ("ENODEV", 19),
    ("ENOTDIR", 20),
    ("EISDIR", 21),
    ("EINVAL", 22),
    ("ENFILE", 23),
    ("EMFILE", 24),
    ("ENOTTY", 25),
    ("ETXTBSY", 26),
    ("EFBIG", 27),
    ("ENOSPC", 28),
    ("ESPIPE", 29),
    ("EROFS", 30),
    ("EMLINK", 31),
    ("EPIPE", 32),
    ("EDOM", 33),
    ("ERANGE", 34),
    // Beyond fio's list.
    ("EILSEQ", 84),
    ("EDQUOT", 122),
    ("EOPNOTSUPP", 95),
    ("ETIMEDOUT", 110),
    ("ECANCELED", 125),
    ("ENODATA", 61),
    ("EBADMSG", 74),
    ("EREMOTEIO", 121),
    ("ENOLINK", 67),
];

/// One errno: a name from [`ERRNO_NAMES`] or a number (a negative one is taken as
/// its absolute value, as fio does; 0 is refused).
pub fn parse_errno(s: &str) -> Result<i32, String> {
    if s.starts_with('E') {
        return ERRNO_NAMES
            .iter()
            .find(|e| e.0 == s)
            .map(|e| e.1)
            .ok_or_else(|| {
                let names: Vec<&str> = ERRNO_NAMES.iter().map(|e| e.0).collect();
                format!(
                    "unknown error name '{s}' (allowed: {}, or an errno number)",
                    names.join(", ")
                )
            });
    }
    match s.parse::<i64>() {
        Ok(n) if n != 0 && n.unsigned_abs() <= 4095 => Ok(n.unsigned_abs() as i32),
        _ => Err(format!(
            "'{s}' is not an errno (an error name such as EIO, or a number 1..4095)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_policy_is_fatal() {
        let p = ErrorPolicy::default();
        assert!(!p.continues());
        assert!(!p.non_fatal(ErrorType::Read, 5));
    }

    #[test]
    fn continue_values() {
        let mut p = ErrorPolicy::default();
        for (v, mask) in [
            ("all", 7),
            ("io", 3),
            ("read", 1),
            ("write", 2),
            ("verify", 4),
        ] {
            p.set_continue(v).unwrap();
            assert_eq!(p.continue_mask, mask, "{v}");
        }
        p.set_continue("1").unwrap();
        assert_eq!(p.continue_mask, 7);
        p.set_continue("0").unwrap();
        assert_eq!(p.continue_mask, 0);
        assert!(p.set_continue("sometimes").is_err());
    }

    #[test]
    fn only_eio_and_eilseq_by_default() {
        let mut p = ErrorPolicy::default();
        p.set_continue("io").unwrap();
        assert!(p.non_fatal(ErrorType::Read, 5));
        assert!(p.non_fatal(ErrorType::Write, 5));
        assert!(!p.non_fatal(ErrorType::Write, 28));
        // EILSEQ is a verify error, which "io" does not cover.
        assert_eq!(ErrorType::of(true, 84), ErrorType::Verify);
        assert!(!p.non_fatal(ErrorType::Verify, 84));
    }

    #[test]
    fn ignore_lists_per_type() {
        let mut p = ErrorPolicy::default();
        p.set_ignore(",ENOSPC:122,").unwrap();
        assert_eq!(p.continue_mask, 2, "only the write list is non-empty");
        assert!(p.non_fatal(ErrorType::Write, 28));
        assert!(p.non_fatal(ErrorType::Write, 122));
        // The write list replaces the default: EIO on a write is fatal now.
        assert!(!p.non_fatal(ErrorType::Write, 5));
        assert!(!p.non_fatal(ErrorType::Read, 5));
        p.set_ignore("-5").unwrap();
        assert_eq!(p.ignore[0], Some(vec![5]));
        assert_eq!(p.continue_mask, 3);
        // continue_on_error later in the job replaces the mask, lists stay.
        p.set_continue("none").unwrap();
        assert!(!p.non_fatal(ErrorType::Write, 28));
    }

    #[test]
    fn bad_ignore_values() {
        let mut p = ErrorPolicy::default();
        let e = p.set_ignore("EWHAT").unwrap_err();
        assert!(e.contains("EWHAT") && e.contains("EIO"), "{e}");
        assert!(p.set_ignore("0").is_err());
        assert!(p.set_ignore("x5").is_err());
        assert!(p.set_ignore("EIO,EIO,EIO,EIO").is_err());
        assert_eq!(p, ErrorPolicy::default(), "a refused value changes nothing");
    }

    #[test]
    fn errno_names() {
        assert_eq!(parse_errno("EIO"), Ok(5));
        assert_eq!(parse_errno("ENOSPC"), Ok(28));
        assert_eq!(parse_errno("ERANGE"), Ok(34));
        assert_eq!(parse_errno("28"), Ok(28));
    }
}
