//! Command-line stream tests.

use super::*;
use crate::jobfile::subst::Keywords;
use std::collections::HashMap;
use std::path::Path;

pub(super) fn env_with(files: &[(&str, &str)]) -> (HashMap<String, String>, Keywords) {
    (
        files
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        Keywords {
            pagesize: 4096,
            ncpus: 4,
            mb_memory: 1024,
        },
    )
}

pub(super) fn run(args: &[&str], files: &[(&str, &str)]) -> Result<Command, ConfigError> {
    let (map, keywords) = env_with(files);
    let read = move |p: &Path| {
        map.get(&p.display().to_string()).cloned().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory")
        })
    };
    let var = |k: &str| (k == "QD").then(|| "8".to_string());
    let env = Env {
        read: &read,
        var: &var,
        keywords,
    };
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    parse_with(&args, &env)
}

pub(super) fn inv(args: &[&str], files: &[(&str, &str)]) -> Invocation {
    match run(args, files) {
        Ok(Command::Run(i)) => i,
        other => panic!("expected a run, got {other:?}"),
    }
}

pub(super) fn err(args: &[&str], files: &[(&str, &str)]) -> String {
    match run(args, files) {
        Err(e) => e.0,
        Ok(c) => panic!("expected an error, got {c:?}"),
    }
}

#[test]
fn simple_job() {
    let i = inv(
        &[
            "--name=t",
            "--rw=randread",
            "--bs=4k",
            "--size=32M",
            "--filename=/tmp/x",
            "--ioengine=psync",
        ],
        &[],
    );
    assert_eq!(i.jobs.len(), 1);
    let j = &i.jobs[0];
    assert_eq!(j.name, "t");
    assert_eq!(j.origin, "command line");
    assert_eq!(j.rw.kind, crate::spec::RwKind::Read);
    assert!(j.rw.random);
    assert_eq!(j.bs[0].min, 4096);
    assert_eq!(
        j.size,
        Some(crate::values::size::SizeOrPercent::Bytes(32 << 20))
    );
    assert_eq!(j.filenames, vec!["/tmp/x"]);
    assert_eq!(j.ioengine, "psync");
    assert_eq!(
        j.job_options,
        [
            ("name", "t"),
            ("rw", "randread"),
            ("bs", "4k"),
            ("size", "32M"),
            ("filename", "/tmp/x"),
            ("ioengine", "psync")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert!(i.global_options.is_empty());
    assert_eq!(i.flags.output_formats, vec![OutputFormat::Normal]);
}

#[test]
fn simple_job_file() {
    let f = "[global]\nsize=1m\nioengine=null\n\n[a]\nrw=write\n\n[b]\nbs=8k\n";
    let i = inv(&["jobs.fio"], &[("jobs.fio", f)]);
    assert_eq!(i.jobs.len(), 2);
    assert_eq!(i.jobs[0].name, "a");
    assert_eq!(i.jobs[0].origin, "jobs.fio:5");
    assert_eq!(i.jobs[0].rw.kind, crate::spec::RwKind::Write);
    assert_eq!(i.jobs[1].bs[1].max, 8192);
    assert_eq!(i.jobs[1].ioengine, "null");
    assert_eq!(
        i.global_options,
        vec![
            ("size".to_string(), "1m".to_string()),
            ("ioengine".to_string(), "null".to_string())
        ]
    );
    assert_eq!(
        i.jobs[1].job_options,
        vec![("bs".to_string(), "8k".to_string())]
    );
}

#[test]
fn bad_rw_names_everything() {
    let e = err(
        &["j.fio"],
        &[("j.fio", "[global]\nsize=1m\n\n[rand]\nbs=4k\n\nrw=rando\n")],
    );
    assert_eq!(
        e,
        "job 'rand': bad value 'rando' for option 'rw' (at j.fio:7); allowed: read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite, randtrimwrite"
    );
}

fn print(args: &[&str], files: &[(&str, &str)]) -> String {
    match run(args, files) {
        Ok(Command::Print(s)) => s,
        other => panic!("expected text, got {other:?}"),
    }
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn globals_before_first_name_apply_to_all_command_line_jobs() {
    let i = inv(
        &[
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--bs=8k",
            "--name=b",
            "--rw=write",
        ],
        &[],
    );
    assert_eq!(i.jobs.len(), 2);
    assert_eq!(
        i.global_options,
        pairs(&[("ioengine", "null"), ("size", "1m")])
    );
    let (a, b) = (&i.jobs[0], &i.jobs[1]);
    assert_eq!((a.name.as_str(), b.name.as_str()), ("a", "b"));
    assert_eq!((a.ioengine.as_str(), b.ioengine.as_str()), ("null", "null"));
    assert_eq!(a.bs[0].min, 8192);
    // Options after --name=a belong to a only.
    assert_eq!(b.bs[0].min, 4096);
    assert_eq!(b.rw.kind, crate::spec::RwKind::Write);
    assert_eq!(a.job_options, pairs(&[("name", "a"), ("bs", "8k")]));
}

#[test]
fn name_global_starts_a_global_group() {
    let i = inv(
        &[
            "--name=global",
            "--rw=randread",
            "--size=128m",
            "--name=job1",
            "--name=job2",
        ],
        &[],
    );
    assert_eq!(i.jobs.len(), 2);
    assert!(i.jobs.iter().all(
        |j| j.rw.random && j.size == Some(crate::values::size::SizeOrPercent::Bytes(128 << 20))
    ));
    // A later global group only affects the jobs after it.
    let i = inv(&["--name=a", "--name=global", "--bs=8k", "--name=b"], &[]);
    assert_eq!((i.jobs[0].bs[0].min, i.jobs[1].bs[0].min), (4096, 8192));
}

#[test]
fn space_separated_values_and_bare_flags() {
    let i = inv(
        &[
            "--name",
            "t",
            "--bs",
            "8k",
            "--time_based",
            "--runtime",
            "5",
            "--output-format",
            "json",
        ],
        &[],
    );
    let j = &i.jobs[0];
    assert_eq!(j.name, "t");
    assert_eq!(j.bs[0].min, 8192);
    assert!(j.time_based);
    assert_eq!(j.runtime_us, Some(5_000_000));
    assert_eq!(i.flags.output_formats, vec![OutputFormat::Json]);
    // A bare flag does not swallow the next argument.
    let i = inv(&["--name=t", "--thread", "j.fio"], &[("j.fio", "[f]\n")]);
    assert!(i.jobs[0].thread);
    assert_eq!(i.jobs[1].name, "f");
}

#[test]
fn keywords_on_the_command_line() {
    let i = inv(&["--name=t", "--numjobs=$ncpus", "--bs=$pagesize"], &[]);
    assert_eq!(i.jobs[0].numjobs, 4);
    assert_eq!(i.jobs[0].bs[0].min, 4096);
}

#[test]
fn job_files_mixed_with_command_line() {
    let a = "[global]\nbs=8k\n[a1]\n[global]\nbs=16k\n[a2]\nrw=write\n";
    let b = "[b1]\niodepth=${QD}\n";
    let i = inv(
        &["a.fio", "--size=1m", "--name=cli", "--rw=randread", "b.fio"],
        &[("a.fio", a), ("b.fio", b)],
    );
    let names: Vec<&str> = i.jobs.iter().map(|j| j.name.as_str()).collect();
    // Command-line jobs first, then job files in the order given (fio's order).
    assert_eq!(names, ["cli", "a1", "a2", "b1"]);
    let by = |n: &str| i.jobs.iter().find(|j| j.name == n).unwrap();
    // Command-line globals reach every job file.
    assert!(i
        .jobs
        .iter()
        .all(|j| j.size == Some(crate::values::size::SizeOrPercent::Bytes(1 << 20))));
    // Several [global]s: each applies to the jobs below it, later ones override.
    assert_eq!(by("a1").bs[0].min, 8192);
    assert_eq!(by("a2").bs[0].min, 16384);
    // A file's globals do not leak into the next file.
    assert_eq!(by("b1").bs[0].min, 4096);
    assert_eq!(by("b1").iodepth, 8);
    // Command-line job options do not leak into files.
    assert!(!by("a1").rw.random);
    assert_eq!(by("a2").origin, "a.fio:6");
    assert_eq!(
        i.global_options,
        pairs(&[("size", "1m"), ("bs", "8k"), ("bs", "16k")])
    );
}

#[test]
fn job_overrides_global_in_file() {
    let i = inv(
        &["j.fio"],
        &[("j.fio", "[global]\nrw=randread\nbs=8k\n[a]\nbs=4k\n")],
    );
    assert_eq!(i.jobs[0].bs[0].min, 4096);
    assert!(i.jobs[0].rw.random);
}

#[test]
fn section_filter() {
    let f = "[global]\nsize=1m\n[a]\n[b]\nrw=write\n[c]\n";
    let i = inv(&["--section=b", "j.fio", "--section", "c"], &[("j.fio", f)]);
    let names: Vec<&str> = i.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["b", "c"]);
    assert!(i.jobs.iter().all(|j| j.size.is_some()));
    assert_eq!(
        err(&["--section=zz", "j.fio"], &[("j.fio", f)]),
        "--section=zz: no such job section in the job files"
    );
}

#[test]
fn run_flags() {
    let i = inv(
        &[
            "--output-format=json,terse,json+",
            "--output=/tmp/out.json",
            "--eta=never",
            "--debug=parse,io",
            "--name=t",
        ],
        &[],
    );
    assert_eq!(
        i.flags.output_formats,
        vec![
            OutputFormat::Json,
            OutputFormat::Terse,
            OutputFormat::JsonPlus
        ]
    );
    assert_eq!(i.flags.output, Some(PathBuf::from("/tmp/out.json")));
    assert_eq!(i.flags.eta, EtaMode::Never);
    assert_eq!(i.flags.debug, vec!["parse", "io"]);
    assert_eq!(i.flags.terse_version, 3);
    let i = inv(
        &["--minimal", "--terse-version=3", "--eta=always", "--name=t"],
        &[],
    );
    assert_eq!(i.flags.output_formats, vec![OutputFormat::Terse]);
    assert_eq!(i.flags.eta, EtaMode::Always);
    assert!(err(&["--output-format=xml", "--name=t"], &[])
        .contains("allowed: normal, terse, json, json+"));
    assert!(err(&["--eta=sometimes", "--name=t"], &[]).contains("allowed: auto, always, never"));
    assert_eq!(
        err(&["--terse-version=6", "--name=t"], &[]),
        "bad value '6' for --terse-version (at command line); allowed: 2, 3, 4, 5"
    );
    for v in [2, 3, 4, 5] {
        let i = inv(&[&format!("--terse-version={v}"), "--name=t"], &[]);
        assert_eq!(i.flags.terse_version, v);
    }
    let i = inv(&["--output-format=json", "--append-terse", "--name=t"], &[]);
    assert_eq!(
        i.flags.output_formats,
        vec![OutputFormat::Json, OutputFormat::Terse]
    );
    let i = inv(&["--output-format=csv", "--name=t"], &[]);
    assert_eq!(i.flags.output_formats, vec![OutputFormat::Terse]);
    assert!(err(&["--output"], &[]).contains("--output needs a value"));
}

#[test]
fn readonly_flag() {
    let e = err(&["--readonly", "--name=w", "--rw=write"], &[]);
    assert_eq!(e, "job 'w': rw=write writes or trims, but read-only mode is on (--readonly or readonly=1) (at command line)");
    let i = inv(&["--readonly", "--name=r"], &[]);
    assert!(i.flags.readonly && i.jobs[0].readonly);
}

#[test]
fn special_commands() {
    assert_eq!(
        print(&["--version"], &[]),
        format!("ferrio-{}\n", env!("CARGO_PKG_VERSION"))
    );
    assert!(print(&["--help"], &[]).contains("Usage: ferrio"));
    assert!(print(&["--cmdhelp"], &[]).contains("iodepth"));
    assert!(print(&["--cmdhelp=bs"], &[]).contains("blocksize"));
    assert!(err(&["--cmdhelp=bz"], &[]).contains("did you mean 'bs'"));
    assert!(matches!(
        run(&["--cpuclock-test"], &[]),
        Ok(Command::CpuClockTest)
    ));
    assert!(matches!(
        run(&["--clock-bench"], &[]),
        Ok(Command::ClockBench)
    ));
    assert!(matches!(
        run(&["--parse-only", "--name=t"], &[]),
        Ok(Command::Check(_))
    ));
    // --parse-only still validates.
    assert!(err(&["--parse-only", "--name=t", "--bs=0"], &[]).contains("bs"));
}

#[test]
fn showcmd_round_trips() {
    let f = "[global]\nbs=8k\ninclude inc.fio\n[a]\ntime_based\nruntime=1\ndescription=hello world\n[global]\nbs=16k\n[b]\nfilename=x\\:y\n";
    let out = print(
        &["--showcmd", "j.fio"],
        &[("j.fio", f), ("inc.fio", "iodepth=${QD}\n")],
    );
    assert_eq!(
        out,
        "ferrio --name=global --bs=8k --iodepth=8 --name=a --time_based --runtime=1 --description='hello world' --name=global --bs=16k --name=b --filename='x\\:y'\n"
    );
    // Feeding the printed line back gives the same jobs.
    let from_file = inv(&["j.fio"], &[("j.fio", f), ("inc.fio", "iodepth=${QD}\n")]);
    let args = [
        "--name=global",
        "--bs=8k",
        "--iodepth=8",
        "--name=a",
        "--time_based",
        "--runtime=1",
        "--description=hello world",
        "--name=global",
        "--bs=16k",
        "--name=b",
        "--filename=x\\:y",
    ];
    let from_cli = inv(&args, &[]);
    for (x, y) in from_file.jobs.iter().zip(&from_cli.jobs) {
        assert_eq!(
            (
                x.name.as_str(),
                x.bs[0].min,
                x.iodepth,
                x.runtime_us,
                &x.filenames
            ),
            (
                y.name.as_str(),
                y.bs[0].min,
                y.iodepth,
                y.runtime_us,
                &y.filenames
            )
        );
    }
    assert!(err(&["--showcmd"], &[]).contains("needs job files"));
}

#[test]
fn command_line_errors() {
    assert_eq!(
        err(&["--name=t", "--iodepht=2"], &[]),
        "job 't': unknown option '--iodepht' (at command line); did you mean '--iodepth'?"
    );
    assert_eq!(err(&["--name=t", "--rw=rando"], &[]), "job 't': bad value 'rando' for option 'rw' (at command line); allowed: read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite, randtrimwrite");
    assert_eq!(err(&["--bs=4q", "--name=t"], &[]), "job 'global': bad value '4q' for option 'bs' (at command line): malformed size '4q' (units: k, m, g, t, p, e with optional i/b, e.g. 4k, 1MiB); allowed: 1 or more");
    assert_eq!(
        err(
            &["--name=t", "--ioengine=io_uring_cmd", "--cmd_type=x"],
            &[]
        ),
        "job 't': bad value 'x' for option 'cmd_type' (at command line); allowed: nvme, bsg"
    );
    assert!(err(&["--name=t", "--bs"], &[]).contains("--bs needs a value"));
    assert!(err(&["--name="], &[]).contains("needs a job name"));
    assert!(err(&["-q"], &[]).contains("unknown flag '-q'"));
    assert!(err(&["-x"], &[]).contains("--section needs a value"));
    assert_eq!(
        err(&[], &[]),
        "no jobs defined: give a job file or --name=JOB options (see --help)"
    );
    assert_eq!(
        err(&["--size=1m"], &[]),
        "no jobs defined: give a job file or --name=JOB options (see --help)"
    );
    assert_eq!(
        err(&["missing.fio"], &[]),
        "cannot read job file 'missing.fio': No such file or directory"
    );
}

#[test]
fn double_dash_ends_options() {
    let i = inv(&["--", "--weird.fio"], &[("--weird.fio", "[w]\n")]);
    assert_eq!(i.jobs[0].name, "w");
}

proptest::proptest! {
    #[test]
    fn arbitrary_arguments_never_panic(args in proptest::collection::vec("(--)?[a-z_=0-9,:.-]{0,12}", 0..8)) {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let _ = run(&refs, &[("a.fio", "[a]\n")]);
    }
}

#[test]
fn wait_for_must_name_an_earlier_job() {
    let i = inv(&["--name=a", "--name=b", "--wait_for=a"], &[]);
    assert_eq!(i.jobs[1].wait_for.as_deref(), Some("a"));
    assert_eq!(
        err(&["--name=b", "--wait_for=c", "--name=c"], &[]),
        "job 'b': bad value 'c' for option 'wait_for' (at command line): no job named 'c' before this one"
    );
}

#[test]
fn live_reporting_flags() {
    let i = inv(
        &[
            "--status-interval=2",
            "--eta-newline=500ms",
            "--eta-interval",
            "250ms",
            "--interval-percentiles=50:99.9",
            "--output-format=interval,json",
            "--name=t",
        ],
        &[],
    );
    let l = &i.flags.live;
    assert_eq!(l.status_interval_ms, Some(2000));
    assert_eq!(l.eta_newline_ms, Some(500));
    assert_eq!(l.eta_interval_ms, Some(250));
    assert_eq!(l.interval_percentiles, Some(vec![50.0, 99.9]));
    assert_eq!(
        i.flags.output_formats,
        vec![OutputFormat::Interval, OutputFormat::Json]
    );
    // A plain number is seconds, as in fio (check_str_time with is_seconds).
    let s = inv(&["--eta-interval=2", "--name=t"], &[]);
    assert_eq!(s.flags.live.eta_interval_ms, Some(2000));
    let d = inv(&["--name=t"], &[]);
    assert_eq!(d.flags.live, Default::default());
    for (bad, flag) in [
        ("--status-interval=0", "status-interval"),
        ("--status-interval=x", "status-interval"),
        ("--eta-interval=100ms", "eta-interval"),
        ("--interval-percentiles=50:101", "interval-percentiles"),
        ("--interval-percentiles=", "interval-percentiles"),
    ] {
        let e = err(&[bad, "--name=t"], &[]);
        assert!(e.contains(&format!("--{flag}")), "{bad}: {e}");
    }
}

mod showcmd_props {
    use super::*;
    use proptest::prelude::*;

    const POOL: &[(&str, &[&str])] = &[
        ("bs", &["4k", "8k", "64k,4k"]),
        ("rw", &["read", "randwrite", "randrw:4"]),
        ("iodepth", &["1", "16"]),
        ("size", &["1m", "50%"]),
        ("time_based", &[]),
        ("runtime", &["5", "100ms"]),
        ("description", &["two words", "it's"]),
        ("filename", &["a\\:b:c"]),
        ("kb_base", &["1000", "1024"]),
    ];

    fn section() -> impl Strategy<Value = (bool, Vec<(usize, usize)>)> {
        (
            proptest::bool::weighted(0.3),
            proptest::collection::vec((0..POOL.len(), 0usize..3), 0..5),
        )
    }

    fn render(secs: &[(bool, Vec<(usize, usize)>)]) -> String {
        let mut text = String::new();
        for (n, (global, opts)) in secs.iter().enumerate() {
            text.push_str(&if *global {
                "[global]\n".to_string()
            } else {
                format!("[job{n}]\n")
            });
            for &(o, v) in opts {
                let (k, vals) = POOL[o];
                if vals.is_empty() {
                    text.push_str(&format!("{k}\n"));
                } else {
                    text.push_str(&format!("{k}={}\n", vals[v % vals.len()]));
                }
            }
        }
        text
    }

    /// Undo the shell quoting showcmd applies, splitting into arguments.
    fn shell_split(line: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut chars = line.chars().peekable();
        let mut any = false;
        while let Some(c) = chars.next() {
            match c {
                ' ' => {
                    if any {
                        out.push(std::mem::take(&mut cur));
                        any = false;
                    }
                }
                '\'' => {
                    any = true;
                    for q in chars.by_ref() {
                        if q == '\'' {
                            break;
                        }
                        cur.push(q);
                    }
                }
                '\\' if chars.peek() == Some(&'\'') => {
                    chars.next();
                    cur.push('\'');
                    any = true;
                }
                _ => {
                    cur.push(c);
                    any = true;
                }
            }
        }
        if any {
            out.push(cur);
        }
        out
    }

    proptest! {
        #[test]
        fn showcmd_line_rebuilds_the_same_jobs(secs in proptest::collection::vec(section(), 1..5)) {
            prop_assume!(secs.iter().any(|s| !s.0));
            let text = render(&secs);
            let files = [("p.fio", text.as_str())];
            let from_file = run(&["p.fio"], &files);
            let line = print(&["--showcmd", "p.fio"], &files);
            let args = shell_split(line.trim_end());
            prop_assert_eq!(&args[0], "ferrio");
            let refs: Vec<&str> = args[1..].iter().map(String::as_str).collect();
            let from_cli = run(&refs, &[]);
            match (from_file, from_cli) {
                (Ok(Command::Run(a)), Ok(Command::Run(b))) => {
                    prop_assert_eq!(a.jobs.len(), b.jobs.len());
                    for (x, y) in a.jobs.iter().zip(&b.jobs) {
                        let mut y = y.clone();
                        y.origin = x.origin.clone();
                        // The command line records the job's --name among its options.
                        y.job_options.retain(|o| o.0 != "name");
                        prop_assert_eq!(format!("{x:?}"), format!("{y:?}"));
                    }
                    prop_assert_eq!(a.global_options, b.global_options);
                }
                (Err(a), Err(b)) => {
                    // Same failure, modulo where it was found.
                    let strip = |s: &str| s.split(" (at ").next().unwrap_or("").to_string();
                    prop_assert_eq!(strip(&a.0), strip(&b.0));
                }
                (a, b) => prop_assert!(false, "file gave {:?}, command line gave {:?}", a.is_ok(), b.is_ok()),
            }
        }
    }
}
