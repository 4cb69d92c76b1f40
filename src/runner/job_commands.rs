//! exec_prerun= / exec_postrun=: a shell command run by the job's thread before its
//! first I/O and after its last, with its output saved in `JOBNAME.prerun.txt` /
//! `JOBNAME.postrun.txt` in the working directory, as fio does.
//!
//! Unlike fio 3.33, the whole command's output goes to the file (fio appends its
//! redirection to the command line, so `a; b` saves only `b`'s output), the notice
//! goes to stderr (fio prints it into stdout, in front of JSON output), and a
//! prerun command that fails is the job's error (fio silently skips the job and
//! exits 0).

use std::fs::File;
use std::process::{Command, Stdio};

/// Which of the two commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    Prerun,
    Postrun,
}

impl When {
    fn name(self) -> &'static str {
        match self {
            When::Prerun => "prerun",
            When::Postrun => "postrun",
        }
    }
}

/// Run `command` through `sh -c` for job `job`, output to `job.<when>.txt`.
/// An error names the command and what went wrong (a spawn failure or the exit status).
pub fn run(job: &str, when: When, command: &str) -> Result<(), String> {
    let path = format!("{job}.{}.txt", when.name());
    eprintln!("{job} : Saving output of {} in {path}", when.name());
    let out = File::create(&path)
        .map_err(|e| format!("exec_{}: cannot create {path}: {e}", when.name()))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("exec_{}: {path}: {e}", when.name()))?;
    let status = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .status()
        .map_err(|e| format!("exec_{} '{command}': cannot run /bin/sh: {e}", when.name()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "exec_{} '{command}' failed ({status}); its output is in {path}",
            when.name()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_of_the_whole_command_is_saved_and_failures_are_errors() {
        let d = tempfile::tempdir().unwrap();
        let job = d.path().join("j");
        let job = job.to_str().unwrap();
        run(job, When::Prerun, "echo one; echo two >&2").unwrap();
        let text = std::fs::read_to_string(format!("{job}.prerun.txt")).unwrap();
        assert_eq!(text, "one\ntwo\n");
        let e = run(job, When::Postrun, "exit 3").unwrap_err();
        assert!(
            e.contains("exec_postrun 'exit 3' failed") && e.contains("3"),
            "{e}"
        );
    }
}
