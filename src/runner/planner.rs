//! Jobs → threads: expands numjobs clones, assigns reporting groups, names files and
//! sizes the I/O region of each, all before anything touches the disk.

use super::device_guard;
use super::laid_out::{self, LaidOut};
use super::plan::{NotLaidOut, ThreadPlan};
use super::region::{PlannedFile, Region};
use super::replay::IoLog;
use super::replay_plan;
use super::resources::human;
use crate::engine::{self, Accounting, Capabilities};
use crate::random::SeedSet;
use crate::sys::{affinity, file};
use ferrio_config::ext::zones::ZoneMode;
use ferrio_config::values::size::SizeOrPercent;
use ferrio_config::{FioSeeds, JobSpec};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Expand every job of the run into thread plans, in start order.
pub fn plan(jobs: &[JobSpec]) -> Result<Vec<ThreadPlan>, String> {
    plan_confined(jobs, None)
}

/// [`plan`], every file access confined (a server's run).
pub fn plan_confined(
    jobs: &[JobSpec],
    confine: Option<Arc<crate::sys::confine::Confine>>,
) -> Result<Vec<ThreadPlan>, String> {
    plan_with(jobs, confine, false)
}

/// [`plan`] for `--parse-only`: as fio's parse-only never looks at the target files,
/// a job whose size would come from files that do not exist (`/dev/sdX` on another
/// machine) is accepted unsized instead of refused, and no remote target (nbd) is asked
/// its size (fio's connects to no server); every other check still applies.
pub fn plan_check(jobs: &[JobSpec]) -> Result<Vec<ThreadPlan>, String> {
    plan_with(jobs, None, true)
}

fn plan_with(
    jobs: &[JobSpec],
    confine: Option<Arc<crate::sys::confine::Confine>>,
    check: bool,
) -> Result<Vec<ThreadPlan>, String> {
    let mut out = Vec::new();
    let mut groupid: u32 = 0;
    let mut jobs_in_group = 0u32;
    let mut checked = std::collections::HashSet::new();
    // flow=: one group per flow_id among the jobs that run together (a stonewall
    // starts a new set). fio pools a flow_id across the whole run, so a job waits
    // forever for the weight of one that can only start after it has finished.
    let mut flows: std::collections::HashMap<(u32, u32), Arc<super::flow::FlowGroup>> =
        Default::default();
    let mut phase = 0u32;
    // Each file's size once the threads planned so far have laid it out: fio sets up
    // their files one after another before any starts (create_serialize), so a later
    // thread's filesize= range sees the file an earlier one made.
    let mut laid_out = LaidOut::default();
    for (job_index, spec) in jobs.iter().enumerate() {
        // fio: stonewall or new_group starts a new reporting group (if the current one has jobs).
        if spec.stonewall && !out.is_empty() {
            phase += 1;
        }
        if (spec.stonewall || spec.new_group) && jobs_in_group > 0 {
            groupid += 1;
            jobs_in_group = 0;
        }
        jobs_in_group += 1;
        // An engine ferrio cannot run (sg, rdma, http, ...), GPU buffers or NVMe
        // data placement: a run is refused before anything is touched; --parse-only
        // plans nothing for the foreign engine's job (its files are not ferrio's to size).
        if let Some(why) = spec.foreign.refusal() {
            if !check {
                return Err(format!("job '{}': {why} ({})", spec.name, spec.origin));
            }
            if spec.foreign.engine.is_some() {
                continue;
            }
        }
        check_cpus(spec)?;
        if !check {
            check_numa(spec)?;
            check_directories(spec)?;
        }
        // An engine whose target sizes itself (nbd: the export) is asked once per job.
        let target = match check {
            false => engine::registry::target_size(spec).transpose()?,
            true => None,
        };
        check_cpus(spec)?;
        // read_iolog: the job as each of its logs makes it (a clone replays the name
        // its fio subjob number picks from the list, wrapping); else the job as given.
        // A log an earlier job writes is read when this one starts (replay_plan.rs).
        let replay_at_start = replay_plan::at_start(jobs, job_index, spec, check);
        let logs = match replay_at_start {
            true => Vec::new(),
            false => replay_plan::replay_logs(spec)?,
        };
        let variants: Vec<(Arc<JobSpec>, Option<Arc<IoLog>>)> = match logs {
            logs if logs.is_empty() => vec![(Arc::new(spec.clone()), None)],
            logs => logs
                .into_iter()
                .map(|log| (Arc::new(replay_plan::with_log(spec, &log)), Some(log)))
                .collect(),
        };
        for clone in 0..spec.numjobs.max(1) {
            // fio numbers the job 0 and its clones, as it makes them, numjobs-1 down
            // to 1.
            let subjob = super::plan::fio_subjob(spec.numjobs, clone);
            let (spec, replay) = variants[subjob as usize % variants.len()].clone();
            // (After the replay's log: a blktrace may set the depth.)
            let caps = engine::capabilities_for_job(&spec)?;
            // A file an earlier job creates may get its size only when this job starts.
            let mut sized_at_start = false;
            // fio numbers threads from 1 in creation order, clones right after their job.
            let seeds = fio_seeds(&spec, out.len() as u64 + 1, subjob > 0);
            let files = match &replay {
                Some(log) => log.planned_files(),
                None if replay_at_start => Vec::new(),
                // (Files, directories and offset_increment follow fio's subjob number.)
                None => match plan_files(
                    &spec,
                    subjob,
                    caps,
                    confine.as_deref(),
                    target,
                    &seeds,
                    &laid_out,
                ) {
                    Err(_)
                        if (check && sized_by_missing_files(&spec, subjob, caps))
                            || sized_later(jobs, job_index, &spec, subjob, caps, &laid_out) =>
                    {
                        sized_at_start = true;
                        placeholders(&spec, subjob)
                    }
                    r => r?,
                },
            };
            device_guard::check_devices_free(&spec, &files, &mut checked)?;
            if !sized_at_start && replay.is_none() && !replay_at_start {
                laid_out::note(&mut laid_out, &spec, caps, &files, confine.as_deref());
            }
            let pass_bytes = match &replay {
                Some(log) => log.bytes(),
                None => super::work_size::pass_bytes(&spec, &files),
            };
            // file_append with size= on files already within filesize=: as fio, the
            // thread runs with nothing to do (append.rs).
            let nothing_to_append = pass_bytes == 0
                && spec.dropin.file_append
                && spec.size.is_some()
                && spec.filesize.is_some()
                && replay.is_none();
            if !sized_at_start && !nothing_to_append && !replay_at_start {
                check_work(&spec, pass_bytes)?;
                if !check {
                    crate::runner::pattern::sprandom::check_plan(&spec, &files)?;
                }
            }
            let seed = thread_seed(&spec, job_index, clone);
            out.push(ThreadPlan {
                spec: super::debug_hooks::for_thread(&spec, out.len() as u64 + 1),
                job_index,
                clone,
                groupid,
                caps,
                files,
                pass_bytes,
                seed,
                seeds,
                replay,
                flow: (spec.pacing.flow > 0).then(|| {
                    let g = flows.entry((spec.pacing.flow_id, phase)).or_default();
                    g.enlist(spec.pacing.flow as u64);
                    // Those that start with the run start their clocks together.
                    if super::flow::starts_at_once(&spec) {
                        g.expect_start();
                    }
                    g.clone()
                }),
                buffers: Default::default(),
                sized_at_start,
                replay_at_start,
                confine: confine.clone(),
                file_locks: Default::default(),
                targets: Default::default(),
                ramp_bytes: None,
                not_laid_out: nothing_to_append.then_some(NotLaidOut::NothingToAppend),
            });
        }
    }
    let peers: Arc<[crate::random::FioRand]> = out
        .iter()
        .map(|t| {
            let use64 = t.spec.random_generator == ferrio_config::RandomGenerator::Tausworthe64;
            crate::random::FioRand::new(t.seeds.get(crate::random::Stream::Buf), use64)
        })
        .collect();
    for t in &mut out {
        t.buffers.peers = peers.clone();
    }
    // lockfile=: each thread's files' locks, shared as fio shares them.
    let mut locks = super::filelock::Registry::default();
    for t in &mut out {
        let paths = t.files.iter().map(|f| f.path.as_path());
        t.file_locks = locks.for_thread(t.spec.dropin.lockfile, t.job_index, paths);
    }
    share_ramp_counters(&mut out)?;
    super::resources::check(&out, &super::resources::Limits::of_system())?;
    super::zones::zbd::prepare_plans(&mut out)?;
    Ok(out)
}

/// Whether a thread whose files could not be sized at plan time may be sized at its
/// start instead: its size comes from its files (no size=N, no filesize=), one of them
/// is missing, and an earlier job names that file (so it may exist by then).
fn sized_later(
    jobs: &[JobSpec],
    job_index: usize,
    spec: &JobSpec,
    subjob: u32,
    caps: Capabilities,
    laid_out: &laid_out::LaidOut,
) -> bool {
    // (A file an earlier setup makes is sized from that setup, empty included, as fio.)
    spec.zones.mode == ZoneMode::None
        && sized_by_missing_files(spec, subjob, caps)
        && file_names(spec, subjob).iter().any(|path| {
            !path.exists()
                && !laid_out.contains_key(path)
                && jobs[..job_index].iter().any(|earlier| {
                    (0..earlier.numjobs.max(1)).any(|c| file_names(earlier, c).contains(path))
                })
        })
}

/// Whether the job's size comes from its files (no size=N, no filesize=) and one of
/// them does not exist, so that its size is not known before it is created.
fn sized_by_missing_files(spec: &JobSpec, subjob: u32, caps: Capabilities) -> bool {
    spec.filesize.is_none()
        && !matches!(spec.size, Some(SizeOrPercent::Bytes(_)))
        && !caps.diskless
        && file_names(spec, subjob).iter().any(|path| !path.exists())
}

/// The deferred thread's files until it starts: named, with empty regions.
fn placeholders(spec: &JobSpec, subjob: u32) -> Vec<PlannedFile> {
    file_names(spec, subjob)
        .into_iter()
        .map(|path| PlannedFile {
            path,
            region: Region { start: 0, len: 0 },
            tail: 0,
            beyond: 0,
            block_device: false,
            device: false,
        })
        .collect()
}

/// A job that would move no bytes and has no other end is refused.
pub(super) fn check_work(spec: &JobSpec, pass_bytes: u64) -> Result<(), String> {
    if pass_bytes == 0 && !spec.time_based && spec.number_ios.is_none() {
        return Err(format!(
            "job '{}': nothing to do: size is 0 ({}); set size= or filename= of an existing file",
            spec.name, spec.origin
        ));
    }
    Ok(())
}

/// directory= must name existing directories, as fio checks it when it parses the
/// option (its "is not a directory"): the directories a file name needs are made
/// (work_dirs.rs), those directory= names are not.
fn check_directories(spec: &JobSpec) -> Result<(), String> {
    let dirs = spec.directories.iter().chain(spec.directory.iter());
    for d in dirs {
        let why = match std::fs::metadata(d) {
            Ok(m) if m.is_dir() => continue,
            Ok(_) => "is not a directory".to_string(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => "does not exist".to_string(),
            Err(e) => format!("cannot be used: {e}"),
        };
        return Err(format!(
            "job '{}': directory={} {why} ({})",
            spec.name,
            d.display(),
            spec.origin
        ));
    }
    Ok(())
}

/// cpus_allowed must name CPUs that exist (fio: "CPU N too large") and include at least
/// one this process may run on; otherwise pinning fails only once threads start.
fn check_cpus(spec: &JobSpec) -> Result<(), String> {
    let Some(cpus) = &spec.cpus_allowed else {
        return Ok(());
    };
    let have = affinity::configured_cpus();
    if let Some(&c) = cpus.iter().find(|&&c| c >= have) {
        return Err(format!(
            "job '{}': cpus_allowed names CPU {c}, but this machine has CPUs 0-{} ({})",
            spec.name,
            have - 1,
            spec.origin
        ));
    }
    if let Some(allowed) = affinity::allowed_cpus() {
        if !cpus.iter().any(|c| allowed.contains(c)) {
            return Err(format!(
                "job '{}': none of the CPUs in cpus_allowed ({}) is available to this process (allowed: {}) ({})",
                spec.name,
                list(cpus),
                list(&allowed),
                spec.origin
            ));
        }
    }
    Ok(())
}

/// numa_cpu_nodes= and numa_mem_policy= must name nodes this machine has (checked
/// for a run only: fio's --parse-only accepts a job written for a larger machine).
fn check_numa(spec: &JobSpec) -> Result<(), String> {
    use ferrio_config::ext::dropin::NumaMem;
    let mem: &[usize] = match &spec.dropin.numa_mem {
        Some(NumaMem::Prefer(n)) => std::slice::from_ref(n),
        Some(NumaMem::Bind(n) | NumaMem::Interleave(n)) => n,
        _ => &[],
    };
    let cpu = spec.dropin.numa_cpu_nodes.as_deref().unwrap_or_default();
    for (option, nodes) in [("numa_cpu_nodes", cpu), ("numa_mem_policy", mem)] {
        if let Some(why) = ferrio_config::table::missing_numa_node(nodes) {
            return Err(format!(
                "job '{}': {option}: {why} ({})",
                spec.name, spec.origin
            ));
        }
    }
    Ok(())
}

fn list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// randrepeat=1 makes every run issue the same sequence (seeded from randseed and the
/// thread's position); randrepeat=0 seeds from the time unless randseed is given, as
/// fio seeds from it then (the same rule as `fio_seeds`).
fn thread_seed(spec: &JobSpec, job_index: usize, clone: u32) -> u64 {
    let base = if spec.randrepeat || spec.randseed_set {
        spec.randseed
    } else {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
    };
    base ^ ((job_index as u64) << 32 | clone as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// fio's seeds: predictable from randseed when randrepeat is set or randseed is
/// given, otherwise different every run. `clone`: a numjobs clone (subjob > 0).
fn fio_seeds(spec: &JobSpec, thread_number: u64, clone: bool) -> SeedSet {
    let repeatable = spec.randrepeat || spec.randseed_set;
    let seeds = if repeatable {
        SeedSet::from_seed(spec.randseed, thread_number)
    } else {
        SeedSet::from_entropy(thread_number)
    };
    // fio 3.33 turns randrepeat off when randseed is given (fixup_options), but only
    // after it has seeded the job's thread: the offset stream keeps its constant
    // there, and the distributions' file seeds (set up later) take that stream's
    // seed, not the name's hash. Its clones are copied from the job after that, so
    // they are seeded as with randrepeat=0.
    let when_seeded = spec.randrepeat && !(spec.randseed_set && clone);
    let at_setup = spec.randrepeat && !spec.randseed_set;
    let seeds = match spec.fio_seeds {
        FioSeeds::Fio333 if spec.allrandrepeat => {
            SeedSet::fio333_all_repeatable(thread_number).as_fio333(when_seeded, at_setup)
        }
        FioSeeds::Fio333 => seeds.as_fio333(when_seeded, at_setup),
        FioSeeds::Latest => seeds,
    };
    if super::debug_hooks::on(spec, ferrio_config::DebugCategory::Random) {
        super::debug_hooks::seeds(&seeds, !repeatable);
    }
    seeds
}

/// fio's filename_format expansion: $jobname, $jobnum, $filenum, $clientuid.
pub fn expand_filename_format(format: &str, jobname: &str, jobnum: u32, filenum: u32) -> String {
    format
        .replace("$jobname", jobname)
        .replace("$jobnum", &jobnum.to_string())
        .replace("$filenum", &filenum.to_string())
        .replace("$clientuid", "0")
}

/// The paths of a thread's files. A diskless engine (null, sim) touches no file, but
/// its files are named and counted as fio names them (`$jobname.$jobnum.$filenum`,
/// nrfiles), so its iolog, file choices and per-file sizes are fio's.
pub(super) fn file_names(spec: &JobSpec, subjob: u32) -> Vec<PathBuf> {
    if !spec.filenames.is_empty() {
        spec.filenames
            .iter()
            .map(|n| join_dir(spec.directory.as_deref(), n))
            .collect()
    } else {
        // directory=a:b: subjob N's generated names go in entry N mod the number.
        let dir = match spec.directories.len() {
            0 => spec.directory.as_deref(),
            n => Some(spec.directories[subjob as usize % n].as_path()),
        };
        (0..spec.nrfiles.max(1))
            .map(|i| {
                let n = expand_filename_format(&spec.filename_format, &spec.name, subjob, i);
                join_dir(dir, &n)
            })
            .collect()
    }
}

/// `target`: the size an engine's target gave (see [`engine::registry::target_size`]).
pub(super) fn plan_files(
    spec: &JobSpec,
    subjob: u32,
    caps: Capabilities,
    confine: Option<&crate::sys::confine::Confine>,
    target: Option<u64>,
    seeds: &SeedSet,
    laid_out: &LaidOut,
) -> Result<Vec<PlannedFile>, String> {
    // Engines that operate on the files' names (the metadata engines) need them even
    // when no file is laid out or opened.
    let named = caps.accounting == Accounting::FileOps;
    let names = file_names(spec, subjob);
    let nfiles = names.len() as u64;
    // An engine whose target sizes itself (nbd: the export) gives its first file that
    // size, as fio's does; no job region passes it (fio: FIO_NOEXTEND).
    // Existing sizes are needed for size=N% and for jobs without size=.
    let existing: Vec<Option<u64>> = names
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if caps.diskless {
                target.filter(|_| i == 0)
            } else {
                file::existing_size(confine, p)
            }
        })
        .collect();
    let mut files = Vec::with_capacity(names.len());
    let mut drawn_sizes = super::filesize_range::FileSizes::new(spec, seeds);
    for (i, path) in names.into_iter().enumerate() {
        let kind = match caps.diskless {
            true => file::TargetKind::default(),
            false => file::target_kind(&path),
        };
        let (block_device, device) = (kind.block_device, kind.device);
        // fio fails such a job ("failed to get file size"); a FIFO's open would block.
        // So does fio 3.33 a job on "-" (its HOWTO: stdin or stdout), which ferrio
        // would otherwise take as a file named "-".
        if let Some(kind) = kind.unusable.filter(|_| !named) {
            let (job, p, at) = (&spec.name, path.display(), &spec.origin);
            return Err(format!(
                "job '{job}': '{p}' is {kind}; jobs do I/O on regular files and block or \
                 character devices ({at})"
            ));
        }
        if device && !block_device && spec.size.is_none() && spec.filesize.is_none() {
            return Err(format!(
                "job '{}': '{}' is a character device, whose size is unknown; set size= ({})",
                spec.name,
                path.display(),
                spec.origin
            ));
        }
        // An existing file as the earlier threads' layout will leave it (fio sizes each
        // thread after laying out the ones before). A missing file stays missing here:
        // a job that needs its size is then sized at its start (late_sizes.rs).
        let laid = laid_out.get(&path).copied();
        let real = laid_out::seen(existing[i], laid);
        let per_file = match (spec.filesize, spec.size) {
            (Some((min, _)), _) => match drawn_sizes.as_mut() {
                Some(sizes) => sizes.next(real),
                None => min,
            },
            (None, Some(SizeOrPercent::Bytes(total))) => total / nfiles,
            (None, Some(SizeOrPercent::Percent(p))) => match real {
                Some(r) => (r as f64 * p / 100.0) as u64 / nfiles.max(1),
                None => {
                    return Err(format!(
                        "job '{}': size={p}% needs an existing file or device, but '{}' does not exist ({})",
                        spec.name,
                        path.display(),
                        spec.origin
                    ))
                }
            },
            (None, None) => match real {
                // fio: "you need to specify size=" for an empty file (one an earlier
                // setup leaves empty included), whatever else the job sets.
                Some(0) if !caps.diskless => {
                    return Err(format!(
                        "job '{}': size= is not set and '{}' is empty{}, so there is nothing to size the job by ({})",
                        spec.name,
                        path.display(),
                        if laid == Some(0) { " once the jobs before it are set up" } else { "" },
                        spec.origin
                    ))
                }
                Some(r) => r,
                // Unbounded: a quarter of the offset space, shared so the sum cannot overflow.
                // fio's metadata engines give every file one smallest block.
                None if caps.diskless && named => spec.bs.iter().map(|b| b.min).min().unwrap_or(4096),
                None if target.is_some() => {
                    return Err(format!(
                        "job '{}': size= is not set and '{}' is not the first file, the only one ioengine={} sizes from its target ({})",
                        spec.name,
                        path.display(),
                        spec.ioengine,
                        spec.origin
                    ))
                }
                None if caps.diskless || spec.fill_device => u64::MAX / 4 / nfiles.max(1),
                None => {
                    return Err(format!(
                        "job '{}': size= is not set and '{}' does not exist, so its size is unknown ({})",
                        spec.name,
                        path.display(),
                        spec.origin
                    ))
                }
            },
        };
        let increment = spec.offset_increment.saturating_mul(subjob as u64);
        let offset = match spec.offset {
            SizeOrPercent::Bytes(b) => b.saturating_add(increment),
            SizeOrPercent::Percent(p) => {
                // fio rounds a percentage offset up to offset_align, or to the smallest
                // block size when that is not given (get_start_offset).
                let raw = ((real.unwrap_or(per_file) as f64 * p / 100.0) as u64)
                    .saturating_add(increment);
                let align = match spec.offset_align {
                    0 => spec
                        .bs
                        .iter()
                        .map(|b| b.min)
                        .filter(|&b| b > 0)
                        .min()
                        .unwrap_or(1),
                    a => a,
                };
                raw.div_ceil(align).saturating_mul(align)
            }
        };
        // file_append: a regular file's region starts at its current end (fio's
        // get_start_offset), as the threads set up before this one leave it; a
        // missing one is created empty.
        let append = spec.dropin.file_append && !device;
        let offset = if append { real.unwrap_or(0) } else { offset };
        // A job without size= on an existing file covers the file from offset to its end.
        let len = if append {
            super::append::append_len(
                spec,
                &path,
                offset,
                (laid.is_some(), caps.diskless),
                per_file,
            )?
        } else if spec.size.is_none() && spec.filesize.is_none() && real.is_some() {
            per_file.saturating_sub(offset)
        } else if spec.filesize.is_some() {
            // filesize= is the file's size: the region is offset..filesize, as fio's
            // (fio's t/strided.py runs offset=32k with filesize=64k).
            if offset >= per_file {
                return Err(format!(
                    "job '{}': offset={} is at or past filesize={}, so there is nothing to do; give a smaller offset= or a larger filesize= ({})",
                    spec.name,
                    human(offset),
                    human(per_file),
                    spec.origin
                ));
            }
            per_file - offset
        } else {
            per_file
        };
        // A target that sizes itself is never extended: the region ends at its end.
        let len = match real.filter(|_| target.is_some()) {
            Some(r) => len.min(r.saturating_sub(offset)),
            None => len,
        };
        let min_bs = spec
            .bs
            .iter()
            .map(|b| b.min)
            .filter(|&b| b > 0)
            .min()
            .unwrap_or(1);
        if let Some(r) = real.filter(|_| !append && spec.size.is_none() && spec.filesize.is_none())
        {
            if offset > 0 && offset >= r {
                return Err(format!(
                    "job '{}': offset={} is at or past the end of '{}' ({}), so there is nothing to do; give a smaller offset= or a size= ({})",
                    spec.name,
                    human(offset),
                    path.display(),
                    human(r),
                    spec.origin
                ));
            }
        }
        if len > 0 && len < min_bs {
            let per_file = if nfiles > 1 { " per file" } else { "" };
            return Err(format!(
                "job '{}': size={}{per_file} is smaller than the minimum block size bs={}; raise size= or lower bs= ({})",
                spec.name,
                human(len),
                human(min_bs),
                spec.origin
            ));
        }
        // A size that is not a multiple of the block size: no I/O starts in the last
        // partial block, but the file is laid out whole and, where fio never runs out of
        // blocks (see pass_bytes), the pass still moves all of it, as fio does.
        // (fio rounds a size=N% below 100 down to the block size: no partial block.)
        let rounded = matches!(spec.size, Some(SizeOrPercent::Percent(p)) if p < 100.0);
        let tail = if rounded && spec.filesize.is_none() {
            0
        } else {
            len % min_bs
        };
        let len = len - len % min_bs;
        let end = offset.checked_add(len);
        if end.is_none() || end > Some(u64::MAX / 2) {
            return Err(format!(
                "job '{}': offset {} + size {} of '{}' is beyond the largest file offset ({})",
                spec.name,
                offset,
                len,
                path.display(),
                spec.origin
            ));
        }
        let beyond = real.map_or(0, |r| r.saturating_sub(offset + len + tail));
        files.push(PlannedFile {
            path,
            region: Region { start: offset, len },
            tail,
            beyond,
            block_device,
            device,
        });
    }
    Ok(files)
}

fn join_dir(dir: Option<&Path>, name: &str) -> PathBuf {
    match dir {
        Some(d) if !name.starts_with('/') => d.join(name),
        _ => PathBuf::from(name),
    }
}

/// Give each ramp_size thread its counter, and refuse a reporting group whose
/// jobs give different ramp sizes (fio: "inconsistent ramp_size within reporting
/// group"; fio asks it of every job with a ramp).
fn share_ramp_counters(threads: &mut [ThreadPlan]) -> Result<(), String> {
    // As fio: a job with a ramp is compared with every job of its group before it.
    for (i, t) in threads.iter().enumerate().filter(|(_, t)| t.spec.ramps()) {
        let earlier = threads[..i]
            .iter()
            .find(|o| o.groupid == t.groupid && o.spec.ramp_size != t.spec.ramp_size);
        if let Some(o) = earlier {
            return Err(format!(
                "job '{}': ramp_size={} but job '{}' of the same reporting group has \
                 ramp_size={}: a group ramps together, so its jobs must give the same \
                 ramp_size ({})",
                t.spec.name, t.spec.ramp_size, o.spec.name, o.spec.ramp_size, t.spec.origin
            ));
        }
    }
    let mut groups: std::collections::HashMap<u32, Arc<super::ramp::RampBytes>> =
        Default::default();
    for t in threads.iter_mut().filter(|t| t.spec.ramp_size > 0) {
        t.ramp_bytes = Some(match t.spec.group_reporting {
            true => groups.entry(t.groupid).or_default().clone(),
            false => Default::default(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filename_format_expands_fio_keywords() {
        assert_eq!(
            expand_filename_format("$jobname.$jobnum.$filenum", "t", 2, 0),
            "t.2.0"
        );
        assert_eq!(expand_filename_format("data-$filenum", "t", 0, 3), "data-3");
    }
}
