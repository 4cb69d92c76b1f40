//! The shape of a `--debug=` line (fio's dprint): the category padded to 8 columns,
//! the thread's id, the message, where fio's go (stdout or the `--output` file:
//! [`crate::debug_sink`]). Below every runner module, so the generators (pattern)
//! and the observers (debug_trace) both write through it.

use crate::sys::affinity::thread_id;

/// Write one line as fio does: category, thread id, message.
pub fn line(category: &str, tid: u32, msg: std::fmt::Arguments) {
    crate::debug_sink::line(category, tid, msg);
}

/// A `--debug=random` line from the offset generator, on the calling thread.
pub fn random_line(msg: std::fmt::Arguments) {
    line("random", thread_id(), msg);
}

/// `--debug=file`: a file opened or closed during the run (fio's `fd open` and
/// `fd close` lines), on the calling thread.
pub fn file_event(plan: &super::plan::ThreadPlan, f: usize, open: bool) {
    if plan
        .spec
        .compat
        .debug
        .has(ferrio_config::DebugCategory::File)
    {
        let what = if open { "open" } else { "close" };
        let path = plan.files[f].path.display();
        line("file", thread_id(), format_args!("fd {what} {path}"));
    }
}

/// `--debug=io`: the job's region of file `f` dropped from the page cache (fio's
/// `declare unneeded cache` line), on the calling thread.
pub fn invalidate_event(plan: &super::plan::ThreadPlan, f: usize) {
    if plan.spec.compat.debug.has(ferrio_config::DebugCategory::Io) {
        let file = &plan.files[f];
        line(
            "io",
            thread_id(),
            format_args!(
                "declare unneeded cache {}: {}/{}",
                file.path.display(),
                file.region.start,
                file.region.len
            ),
        );
    }
}
