//! `ioengine=exec`: runs `program` with `arguments` in the background for the job's
//! runtime (fio's exec engine), e.g. a monitoring tool beside I/O jobs. The first
//! "I/O" starts it; the job's think time (50 ms, set when the job is built) spaces
//! the rest, which only keep the job alive. When the job ends the program gets
//! SIGTERM, then SIGKILL after grace_time seconds if it is still running. With
//! std_redirect=1 its stdout and stderr go to JOBNAME.stdout and JOBNAME.stderr.

use super::{EngineOptions, IoEngine, IoUnit, Queued};
use ferrio_config::ext::local::expand_arguments;
use std::fs::File;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct ExecEngine {
    job: String,
    program: Option<String>,
    args: Vec<String>,
    grace: Duration,
    redirect: bool,
    child: Option<Child>,
    /// The program could not be started (the error is the job's; not retried).
    failed: bool,
}

impl ExecEngine {
    pub fn new(o: &EngineOptions) -> Self {
        let runtime_s = o.runtime_us.unwrap_or(0) / 1_000_000;
        ExecEngine {
            job: o.job.clone(),
            program: o.local.program.clone(),
            args: o
                .local
                .arguments
                .as_deref()
                .map(|a| expand_arguments(a, runtime_s, &o.job))
                .unwrap_or_default(),
            grace: Duration::from_secs(o.local.grace_time_s),
            redirect: o.local.std_redirect,
            child: None,
            failed: false,
        }
    }

    fn start(&mut self) -> std::io::Result<()> {
        let program = self.program.as_deref().unwrap_or_default();
        let mut cmd = Command::new(program);
        cmd.args(&self.args).stdin(Stdio::null());
        if self.redirect {
            let out = format!("{}.stdout", self.job);
            let err = format!("{}.stderr", self.job);
            eprintln!(
                "{} : Saving output of {program} {} : stdout={out} stderr={err}",
                self.job,
                self.args.join(" ")
            );
            cmd.stdout(File::create(&out)?).stderr(File::create(&err)?);
        } else {
            eprintln!("{} : Running {program} {}", self.job, self.args.join(" "));
        }
        self.child =
            Some(cmd.spawn().map_err(|e| {
                std::io::Error::new(e.kind(), format!("cannot run '{program}': {e}"))
            })?);
        Ok(())
    }
}

impl IoEngine for ExecEngine {
    fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
        u.result = u.len as i64;
        if self.child.is_none() && !self.failed {
            if let Err(e) = self.start() {
                self.failed = true;
                eprintln!("ferrio: job '{}': {e}", self.job);
                u.result = -(e.raw_os_error().unwrap_or(libc::ENOENT) as i64);
            }
        }
        Queued::Completed
    }
}

impl Drop for ExecEngine {
    /// The job is over: SIGTERM, grace_time, then SIGKILL; always reaped.
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        let pid = child.id() as libc::pid_t;
        // SAFETY: `pid` is our own child, not yet reaped, so the id is still ours.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let end = Instant::now() + self.grace;
        while Instant::now() < end {
            if matches!(child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::IoOp;
    use ferrio_config::ext::LocalSpec;

    fn unit() -> IoUnit {
        IoUnit::for_test(IoOp::Read, -1, 0, 4096)
    }

    #[test]
    fn the_program_runs_once_and_is_stopped_when_the_job_ends() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("ran");
        let o = EngineOptions {
            job: "j".into(),
            local: LocalSpec {
                program: Some("/bin/sh".into()),
                arguments: Some(format!(
                    "-c echo>>{};exec${{IFS}}sleep${{IFS}}30",
                    marker.display()
                )),
                std_redirect: false,
                grace_time_s: 0,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut e = ExecEngine::new(&o);
        for _ in 0..3 {
            let mut u = unit();
            e.queue(0, &mut u);
            assert_eq!(u.result, 4096);
        }
        // Wait for the line, not the file: `>>` creates the file before echo writes.
        let started = Instant::now();
        let written = || std::fs::read_to_string(&marker).is_ok_and(|s| s.ends_with('\n'));
        while !written() && started.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let pid = e.child.as_ref().unwrap().id();
        drop(e);
        assert_eq!(std::fs::read_to_string(&marker).unwrap().lines().count(), 1);
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "reaped"
        );
    }

    #[test]
    fn a_missing_program_is_the_first_ios_error() {
        let o = EngineOptions {
            local: LocalSpec {
                program: Some("/nonexistent/ferrio-test-program".into()),
                std_redirect: false,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut e = ExecEngine::new(&o);
        let mut u = unit();
        e.queue(0, &mut u);
        assert_eq!(u.result, -(libc::ENOENT as i64));
    }
}
