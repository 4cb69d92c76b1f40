//! Opening and removing files strictly inside a set of allowed directories (a server's
//! `--server-allow` list), at the moment of the open: openat2(2) with
//! `RESOLVE_BENEATH` relative to a descriptor of the allowed directory taken when the
//! server started. Whatever is swapped in after the jobs were admitted (a symlink, a
//! renamed directory), the kernel refuses to resolve outside the directory, so the
//! check on path strings at admission cannot be raced.

use super::open_flags::OpenFlags;
use std::ffi::{CString, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// openat2's `struct open_how` (linux/openat2.h): extensible, this is version 0.
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// Resolve beneath the directory; a magic link (/proc/self/fd/N) would jump anywhere.
const RESOLVE: u64 = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;

/// openat2(2): `path` relative to `dir`, never resolving outside it.
fn openat2(dir: &OwnedFd, path: &Path, flags: i32, mode: u32, resolve: u64) -> io::Result<OwnedFd> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the path"))?;
    let how = OpenHow {
        flags: (flags | libc::O_CLOEXEC) as u32 as u64,
        // openat2 refuses a mode without O_CREAT (open(2) ignores it).
        mode: if flags & libc::O_CREAT != 0 {
            u64::from(mode)
        } else {
            0
        },
        resolve,
    };
    // SAFETY: `c` is a NUL-terminated path and `how` a live open_how of the size passed;
    // the kernel only reads both. `dir` is a descriptor we own for the call's length.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir.as_raw_fd(),
            c.as_ptr(),
            &how as *const OpenHow,
            std::mem::size_of::<OpenHow>(),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us; nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// One allowed place: a directory (anything beneath it), or a single file or device
/// (that name in its parent directory).
struct Root {
    /// Its canonical path, as `--server-allow` resolved at start.
    path: PathBuf,
    /// The directory itself, or a file's parent directory (O_PATH).
    dir: OwnedFd,
    /// For a file or device: its name in `dir`, the only name allowed.
    only: Option<OsString>,
}

/// The allowed places, their descriptors open for the server's life.
pub struct Confine {
    roots: Vec<Root>,
}

impl std::fmt::Debug for Confine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let roots: Vec<_> = self.roots.iter().map(|r| &r.path).collect();
        f.debug_struct("Confine").field("roots", &roots).finish()
    }
}

/// O_PATH | O_DIRECTORY: a handle on a directory, enough for openat2 and unlinkat.
fn open_dir(p: &Path) -> io::Result<OwnedFd> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
        .open(p)
        .map(OwnedFd::from)
}

impl Confine {
    /// Open every root (canonical paths); a clear error where the kernel lacks
    /// openat2 (Linux 5.6 and later have it).
    pub fn new(roots: &[PathBuf]) -> Result<Confine, String> {
        let mut out = Vec::new();
        for r in roots {
            let (dir, only) = if r.is_dir() {
                (r.as_path(), None)
            } else {
                let parent = r.parent().unwrap_or(Path::new("/"));
                (parent, r.file_name().map(|n| n.to_os_string()))
            };
            let fd = open_dir(dir).map_err(|e| format!("--server-allow '{}': {e}", r.display()))?;
            out.push(Root {
                path: r.clone(),
                dir: fd,
                only,
            });
        }
        // Probe: "." beneath a directory always resolves, so any error is the kernel's.
        let probe = open_dir(Path::new("/")).map_err(|e| format!("cannot open '/': {e}"))?;
        match openat2(&probe, Path::new("."), libc::O_PATH, 0, RESOLVE) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => {
                return Err(
                    "this kernel lacks openat2(2) (Linux 5.6 or later), which a server \
                     needs to keep its jobs' files inside --server-allow; refusing to serve"
                        .into(),
                )
            }
            Err(e) => return Err(format!("openat2(2) does not work here: {e}")),
        }
        Ok(Confine { roots: out })
    }

    /// The root holding `path` and the path relative to its directory. The path is
    /// resolved (symlinks followed) only to pick the root: the open itself is
    /// openat2 beneath that root, so a later swap cannot lead outside.
    fn locate(&self, path: &Path) -> io::Result<(&Root, PathBuf)> {
        let abs = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir()?.join(path)
        };
        let real = resolve(&abs);
        for r in &self.roots {
            let Ok(rel) = real.strip_prefix(&r.path) else {
                continue;
            };
            match &r.only {
                None if rel.as_os_str().is_empty() => return Ok((r, PathBuf::from("."))),
                None => return Ok((r, rel.to_path_buf())),
                Some(name) if rel.as_os_str().is_empty() => return Ok((r, PathBuf::from(name))),
                Some(_) => {}
            }
        }
        Err(outside(path))
    }

    /// Open `path` as [`super::file::open`] does, confined to the roots.
    pub fn open(&self, path: &Path, f: OpenFlags) -> io::Result<File> {
        let (root, rel) = self.locate(path)?;
        let fd = openat2(&root.dir, &rel, f.open_flags(), f.create_mode(), RESOLVE)
            .map_err(|e| escaped(e, path))?;
        Ok(File::from(fd))
    }

    /// Open `path` with raw open(2) `flags` and `mode` (the metadata engines' own:
    /// filecreate's 0600, O_PATH handles to stat), confined to the roots.
    pub fn open_raw(&self, path: &Path, flags: i32, mode: u32) -> io::Result<OwnedFd> {
        let (root, rel) = self.locate(path)?;
        openat2(&root.dir, &rel, flags, mode, RESOLVE).map_err(|e| escaped(e, path))
    }

    /// The directory holding `path`, opened beneath its root, and the last name in it
    /// (for the *at calls that act on a name without following it: unlinkat, mkdirat).
    fn parent_of(&self, path: &Path, what: &str) -> io::Result<(OwnedFd, CString)> {
        let (root, rel) = self.locate(path)?;
        let name = rel.file_name().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, format!("cannot {what} a root"))
        })?;
        if root.only.is_some() {
            // A device or file allowed by name: never removed or replaced.
            return Err(io::Error::from_raw_os_error(libc::EPERM));
        }
        let parent = rel.parent().filter(|p| !p.as_os_str().is_empty());
        let parent = openat2(
            &root.dir,
            parent.unwrap_or(Path::new(".")),
            libc::O_PATH | libc::O_DIRECTORY,
            0,
            RESOLVE,
        )
        .map_err(|e| escaped(e, path))?;
        let c = CString::new(name.as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the path"))?;
        Ok((parent, c))
    }

    /// Remove the file (or, with `dir`, the empty directory) `path`, confined: its
    /// parent is opened beneath a root and the name unlinked there.
    pub fn remove(&self, path: &Path, dir: bool) -> io::Result<()> {
        let (parent, c) = self.parent_of(path, "remove")?;
        let flags = if dir { libc::AT_REMOVEDIR } else { 0 };
        // SAFETY: a descriptor we own and a NUL-terminated name with no '/'.
        let r = unsafe { libc::unlinkat(parent.as_raw_fd(), c.as_ptr(), flags) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Make the directory `path` (mode `mode`), confined: mkdirat in its parent opened
    /// beneath a root (mkdirat never follows a symlink in the name's place).
    pub fn mkdir(&self, path: &Path, mode: u32) -> io::Result<()> {
        let (parent, c) = self.parent_of(path, "create")?;
        // SAFETY: a descriptor we own and a NUL-terminated name with no '/'.
        let r = unsafe { libc::mkdirat(parent.as_raw_fd(), c.as_ptr(), mode as libc::mode_t) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

fn outside(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "'{}' is outside this server's --server-allow list",
            path.display()
        ),
    )
}

/// EXDEV and ELOOP from openat2 mean the path led out of its root (a symlink or a
/// magic link swapped in): said plainly.
fn escaped(e: io::Error, path: &Path) -> io::Error {
    match e.raw_os_error() {
        Some(libc::EXDEV) | Some(libc::ELOOP) => io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "'{}' now leads outside this server's --server-allow list (a symlink changed \
                 since the job was admitted?); not opened",
                path.display()
            ),
        ),
        _ => e,
    }
}

/// The real path of `abs`: its longest existing prefix canonicalised (symlinks
/// resolved), the rest appended as written.
pub fn resolve(abs: &Path) -> PathBuf {
    let mut existing = abs.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return abs.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw() -> OpenFlags {
        OpenFlags {
            read: true,
            write: true,
            create: true,
            ..Default::default()
        }
    }

    #[test]
    fn opens_stay_beneath_the_root_whatever_is_swapped_in() {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("root");
        let out = base.path().join("out");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("victim"), b"precious").unwrap();
        let c = Confine::new(&[root.canonicalize().unwrap()]).unwrap();
        // Inside: created, written, removed.
        let f = c.open(&root.join("sub/a"), rw()).unwrap();
        drop(f);
        assert!(root.join("sub/a").exists());
        c.remove(&root.join("sub/a"), false).unwrap();
        assert!(!root.join("sub/a").exists());
        // A relative symlink that stays inside is followed.
        std::os::unix::fs::symlink("sub", root.join("inner")).unwrap();
        c.open(&root.join("inner/b"), rw()).unwrap();
        assert!(root.join("sub/b").exists());
        // Outside by name: refused.
        let e = c.open(&out.join("victim"), rw()).unwrap_err();
        assert!(
            e.to_string()
                .contains("outside this server's --server-allow"),
            "{e}"
        );
        // The race: resolved while harmless, swapped before the open.
        let (r, rel) = c.locate(&root.join("late")).unwrap();
        std::os::unix::fs::symlink(out.join("victim"), root.join("late")).unwrap();
        let e = openat2(
            &r.dir,
            &rel,
            rw().open_flags() | libc::O_TRUNC,
            0o644,
            RESOLVE,
        )
        .unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EXDEV), "{e}");
        let e = escaped(e, &root.join("late"));
        assert!(e.to_string().contains("now leads outside"), "{e}");
        // A directory swapped for a symlink: neither open nor unlink reach through it.
        std::fs::remove_dir_all(root.join("sub")).unwrap();
        std::os::unix::fs::symlink(&out, root.join("sub")).unwrap();
        let (r, rel) = (&c.roots[0], PathBuf::from("sub/victim"));
        assert!(openat2(&r.dir, &rel, libc::O_RDWR, 0, RESOLVE).is_err());
        assert!(c.remove(&root.join("sub/victim"), false).is_err());
        assert_eq!(std::fs::read(out.join("victim")).unwrap(), b"precious");
    }

    #[test]
    fn a_device_root_allows_that_name_only() {
        let base = tempfile::tempdir().unwrap();
        let dev = base.path().join("disk");
        std::fs::write(&dev, b"x").unwrap();
        std::fs::write(base.path().join("other"), b"y").unwrap();
        let c = Confine::new(&[dev.canonicalize().unwrap()]).unwrap();
        c.open(&dev, OpenFlags::default()).unwrap();
        assert!(c
            .open(&base.path().join("other"), OpenFlags::default())
            .is_err());
        assert!(c.remove(&dev, false).is_err());
        assert!(dev.exists());
    }
}
