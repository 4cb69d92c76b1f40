//! file_append's region (fio's setup_files with get_start_offset): it starts at the
//! file's end as the setups before the thread leave it, and it is `size=`'s share
//! long, or reaches `filesize=`, which is the size the file ends at (so only what
//! is missing up to it is appended). fio fails a thread with nothing to append
//! (unless size= is set: then it runs with no I/O, as here); ferrio refuses the run
//! before touching anything, naming the job and the file.

use super::resources::human;
use ferrio_config::JobSpec;
use std::path::Path;

/// How many bytes a file_append thread appends to `path`, which is `at` bytes long
/// (`laid`: as the setups before the thread leave it; `diskless`: the engine keeps
/// no file) and whose size= share or filesize= draw is `per_file`.
pub(super) fn append_len(
    spec: &JobSpec,
    path: &Path,
    at: u64,
    (laid, diskless): (bool, bool),
    per_file: u64,
) -> Result<u64, String> {
    if diskless && spec.filesize.is_some() {
        // fio sizes a diskless engine's file as endless (-1): its end is past any
        // filesize=, so setup_files fails the thread ("you need to specify valid
        // offset="). size= alone runs there, as here.
        return Err(format!(
            "job '{}': ioengine={} keeps no file, so file_append=1 has no end to append from and cannot reach filesize=; use size= for the bytes to write (fio: \"you need to specify valid offset=\") ({})",
            spec.name, spec.ioengine, spec.origin
        ));
    }
    let nothing = |why: String| {
        Err(format!(
            "job '{}': {why}, so file_append=1 has nothing to append to '{}' (fio: \"blocksize is larger than data set range\") ({})",
            spec.name,
            path.display(),
            spec.origin
        ))
    };
    let long = |at: u64| {
        let then = if laid {
            " once the jobs before it are set up"
        } else {
            ""
        };
        format!("'{}' is {} long{then}", path.display(), human(at))
    };
    match (spec.filesize, spec.size.is_some()) {
        // With size= set, fio runs such a thread with nothing to do: no I/O, no
        // error (its check of the data set is of size=); the planner marks it so.
        (Some((low, high)), true) if (low..=high).contains(&at) => Ok(0),
        (Some((low, high)), _) => {
            if (low..=high).contains(&at) {
                let allowed = if low == high {
                    format!("filesize={}", human(low))
                } else {
                    format!("filesize={}-{}", human(low), human(high))
                };
                return nothing(format!("{}, within {allowed}", long(at)));
            }
            if at > low {
                // (fio: "you need to specify valid offset=")
                return Err(format!(
                    "job '{}': {}, past filesize={}, so file_append=1 cannot append up to that size; raise filesize= or use size= for the bytes to append ({})",
                    spec.name,
                    long(at),
                    human(low),
                    spec.origin
                ));
            }
            Ok(per_file.saturating_sub(at))
        }
        (None, true) => Ok(per_file),
        (None, false) => nothing("size= and filesize= are not set".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(opts: &[(&str, &str)]) -> JobSpec {
        let mut s = JobSpec::with_defaults("j", "");
        for &(k, v) in opts {
            match k {
                "filesize" => {
                    let (lo, hi) = v.split_once('-').unwrap_or((v, v));
                    s.filesize = Some((lo.parse().unwrap(), hi.parse().unwrap()));
                }
                "size" => {
                    s.size = Some(ferrio_config::values::size::SizeOrPercent::Bytes(
                        v.parse().unwrap(),
                    ))
                }
                _ => unreachable!(),
            }
        }
        s
    }

    #[test]
    fn filesize_is_the_size_the_file_ends_at() {
        let s = spec(&[("filesize", "131072")]);
        let p = Path::new("f");
        assert_eq!(append_len(&s, p, 0, (false, false), 131072), Ok(131072));
        assert_eq!(append_len(&s, p, 65536, (false, false), 131072), Ok(65536));
        let e = append_len(&s, p, 131072, (true, false), 131072).unwrap_err();
        assert!(
            e.contains(
                "'f' is 128KiB long once the jobs before it are set up, within filesize=128KiB"
            ),
            "{e}"
        );
        let e = append_len(&s, p, 200_000, (false, false), 131072).unwrap_err();
        assert!(e.contains("past filesize=128KiB"), "{e}");
        // A range: a size already in it stays (the draw is that size: nothing to do).
        let s = spec(&[("filesize", "65536-262144")]);
        assert!(append_len(&s, p, 65536, (false, false), 65536).is_err());
        assert_eq!(append_len(&s, p, 4096, (false, false), 131072), Ok(126976));
    }

    #[test]
    fn size_appends_its_share_and_neither_is_refused() {
        let p = Path::new("f");
        assert_eq!(
            append_len(
                &spec(&[("size", "1048576")]),
                p,
                65536,
                (false, false),
                1 << 20
            ),
            Ok(1 << 20)
        );
        let e = append_len(&spec(&[]), p, 65536, (false, false), 65536).unwrap_err();
        assert!(e.contains("size= and filesize= are not set"), "{e}");
    }

    #[test]
    fn a_diskless_engine_cannot_append_up_to_filesize_but_appends_size() {
        let p = Path::new("f");
        let mut s = spec(&[("filesize", "131072")]);
        s.ioengine = "null".into();
        let e = append_len(&s, p, 0, (false, true), 131072).unwrap_err();
        assert!(e.contains("ioengine=null keeps no file"), "{e}");
        let s = spec(&[("size", "131072")]);
        assert_eq!(append_len(&s, p, 0, (false, true), 131072), Ok(131072));
    }
}
