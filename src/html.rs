//! `--html=FILE`: checked before anything runs, written after a single run (a sweep
//! writes its own page, src/sweep). Shared by the run and the sweep, below both.

use ferrio_report::RunReport;

/// `--html=FILE` can be written: its directory exists and it is not a directory
/// itself. Checked before anything runs, so a typo does not cost the run.
pub fn check_html_path(flags: &ferrio_config::GlobalFlags) -> Result<(), String> {
    let Some(path) = &flags.reports.html else {
        return Ok(());
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!(
            "cannot write --html '{}': no directory '{}'",
            path.display(),
            dir.display()
        ));
    }
    if path.is_dir() {
        return Err(format!(
            "cannot write --html '{}': it is a directory",
            path.display()
        ));
    }
    Ok(())
}

/// `--html=FILE` for a single run.
pub fn write_run_html(
    flags: &ferrio_config::GlobalFlags,
    report: &RunReport,
) -> Result<(), String> {
    match &flags.reports.html {
        Some(path) => std::fs::write(path, ferrio_report::html::run_page(report))
            .map_err(|e| format!("cannot write --html '{}': {e}", path.display())),
        None => Ok(()),
    }
}
