//! `ferrio --install-extras DIR[,fio]`: puts the running binary in DIR/bin, the man
//! page and the bash, zsh and fish completions under DIR/share (generated from the
//! tables compiled into this binary, so they match it), and with `,fio` a `fio`
//! link to ferrio in DIR/bin for tools that look for that name.

use ferrio_config::extras::EXTRAS;
use std::io;
use std::path::{Path, PathBuf};

/// Install; print what was written; 0, or 1 with an error naming the path.
pub fn install_extras(dir: &Path, fio_link: bool) -> i32 {
    match install(dir, fio_link) {
        Ok(written) => {
            for p in written {
                println!("installed {}", p.display());
            }
            0
        }
        Err(e) => {
            eprintln!("ferrio: --install-extras: {e}");
            1
        }
    }
}

fn err(path: &Path, what: &str, e: io::Error) -> String {
    format!("cannot {what} {}: {e}", path.display())
}

fn install(dir: &Path, fio_link: bool) -> Result<Vec<PathBuf>, String> {
    let bin = dir.join("bin");
    let fio = bin.join("fio");
    // Refuse before writing anything: never replace a real fio.
    if fio_link {
        if let Ok(m) = std::fs::symlink_metadata(&fio) {
            let ours = m.file_type().is_symlink()
                && std::fs::read_link(&fio).is_ok_and(|t| t == Path::new("ferrio"));
            if !ours {
                return Err(format!(
                    "{} exists and is not a link to ferrio; remove it or leave out ',fio'",
                    fio.display()
                ));
            }
        }
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the running binary: {e}"))?;
    let mut written = Vec::new();
    std::fs::create_dir_all(&bin).map_err(|e| err(&bin, "create", e))?;
    let target = bin.join("ferrio");
    let same = match (exe.canonicalize(), target.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same {
        // Copy beside the target and rename over it: a running ferrio there stays intact.
        let tmp = bin.join(format!(".ferrio.{}", std::process::id()));
        std::fs::copy(&exe, &tmp).map_err(|e| err(&tmp, "write", e))?;
        std::fs::rename(&tmp, &target).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            err(&target, "write", e)
        })?;
    }
    written.push(target);
    for x in EXTRAS {
        let path = dir.join(x.install_path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| err(parent, "create", e))?;
        }
        std::fs::write(&path, (x.generate)()).map_err(|e| err(&path, "write", e))?;
        written.push(path);
    }
    if fio_link && std::fs::symlink_metadata(&fio).is_err() {
        std::os::unix::fs::symlink("ferrio", &fio).map_err(|e| err(&fio, "link", e))?;
    }
    if fio_link {
        written.push(fio);
    }
    Ok(written)
}
