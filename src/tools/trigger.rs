//! fio's trigger: when `--trigger-file` appears (it is deleted) or `--trigger-timeout`
//! has passed since the start, every job is stopped and the `--trigger` command runs
//! with the shell. The jobs' results up to then are reported as usual.

use ferrio_config::TriggerFlags;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the trigger file is looked for (fio checks from its 100 ms main loop).
const POLL: Duration = Duration::from_millis(50);

/// A running watcher; [`Watch::finish`] ends it.
pub struct Watch {
    done: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// Starts watching when a trigger is armed. `stop` is the run's stop flag.
pub fn watch(t: &TriggerFlags, stop: Arc<AtomicBool>) -> Option<Watch> {
    if !t.armed() {
        return None;
    }
    let t = t.clone();
    let done = Arc::new(AtomicBool::new(false));
    let d = done.clone();
    let start = Instant::now();
    let thread = std::thread::Builder::new()
        .name("ferrio-trigger".into())
        .spawn(move || {
            while !d.load(Ordering::Relaxed) {
                if fired(&t, start) {
                    stop.store(true, Ordering::Relaxed);
                    if let Some(cmd) = t.cmd.as_deref().filter(|c| !c.is_empty()) {
                        run(cmd);
                    }
                    return;
                }
                std::thread::sleep(POLL);
            }
        })
        .ok()?;
    Some(Watch { done, thread })
}

impl Watch {
    pub fn finish(self) {
        self.done.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }
}

fn fired(t: &TriggerFlags, start: Instant) -> bool {
    if let Some(f) = &t.file {
        if f.exists() {
            if let Err(e) = std::fs::remove_file(f) {
                eprintln!("ferrio: cannot delete trigger file '{}': {e}", f.display());
            }
            return true;
        }
    }
    t.timeout_ms
        .is_some_and(|ms| start.elapsed() >= Duration::from_millis(ms))
}

fn run(cmd: &str) {
    match std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(cmd)
        .status()
    {
        Ok(_) => {}
        Err(e) => eprintln!("ferrio: cannot run trigger command '{cmd}': {e}"),
    }
}

/// `--bandwidth-log`: fio 3.33 creates these three files in the current directory
/// and never writes a sample into them; ferrio does the same.
pub fn write_bandwidth_logs() -> Result<(), String> {
    for name in ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"] {
        std::fs::File::create(name).map_err(|e| format!("cannot create {name}: {e}"))?;
    }
    Ok(())
}
