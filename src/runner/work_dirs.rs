//! fio's create_work_dirs: before a thread's files are set up, the directories its
//! first file name with a '/' needs are made (mode 0700), so `filename=/mnt/new/f`
//! or `directory=/mnt/new` works on a directory that does not exist yet. As in fio,
//! only that first name per thread gets its directories (fio then marks the thread
//! done with them); a later file in another missing directory fails to open.

use super::plan::ThreadPlan;
use crate::sys::confine::Confine;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

/// Make the missing directories of each thread's first file name with a '/'.
pub fn make(threads: &[ThreadPlan]) -> Result<(), String> {
    for t in threads.iter().filter(|t| !t.caps.diskless) {
        let Some(f) = t
            .files
            .iter()
            .find(|f| f.path.to_string_lossy().contains('/'))
        else {
            continue;
        };
        make_parents(&f.path, t.confine.as_deref()).map_err(|(dir, e)| {
            format!(
                "job '{}': failed to create directory '{}' for '{}': {e}",
                t.spec.name,
                dir.display(),
                f.path.display()
            )
        })?;
    }
    Ok(())
}

/// Make each missing directory above `path`, outermost first.
fn make_parents(
    path: &Path,
    confine: Option<&Confine>,
) -> Result<(), (std::path::PathBuf, std::io::Error)> {
    let mut missing: Vec<&Path> = path
        .ancestors()
        .skip(1)
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .collect();
    missing.reverse();
    for dir in missing {
        let made = match confine {
            Some(c) => c.mkdir(dir, 0o700),
            None => std::fs::DirBuilder::new().mode(0o700).create(dir),
        };
        match made {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                return Err((dir.to_path_buf(), e))
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn missing_directories_are_made_outermost_first_with_mode_0700() {
        let root = tempfile::tempdir().unwrap();
        let f = root.path().join("a/b/c/file");
        make_parents(&f, None).unwrap();
        for d in ["a", "a/b", "a/b/c"] {
            let m = std::fs::metadata(root.path().join(d)).unwrap();
            assert!(m.is_dir(), "{d}");
            assert_eq!(m.permissions().mode() & 0o777, 0o700, "{d}");
        }
        assert!(!f.exists(), "the file itself is not made");
        // Again: nothing to do.
        make_parents(&f, None).unwrap();
    }

    #[test]
    fn a_file_in_the_way_is_an_error_naming_the_directory() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("a"), b"x").unwrap();
        let (dir, _) = make_parents(&root.path().join("a/b/file"), None).unwrap_err();
        assert_eq!(dir, root.path().join("a/b"));
    }
}
