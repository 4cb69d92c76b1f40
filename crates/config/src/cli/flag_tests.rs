//! Command-line tests of fio's run-wide flags: every fio 3.33 flag, one-letter and
//! prefix forms, notes, drop-in version, --parse-only with globals alone.

use super::tests::{env_with, err, inv, run};
use super::*;
use std::path::Path;

#[test]
fn every_fio_flag_is_handled_or_refused_with_the_reason() {
    assert!(err(&["--daemonize=/tmp/p"], &[]).contains("--daemonize applies to --server"));
    assert!(err(&["--server-stdio", "--pidfile=/tmp/p"], &[])
        .contains("--pidfile applies to --server (a server on a port) only"));
    assert!(err(&["--server", "-D", "/tmp/p", "--pidfile=/tmp/q"], &[]).contains("not both"));
    assert!(err(&["--client=host", "--name=t"], &[]).starts_with(
        "job options on the command line (--name) are not sent with --server/--client"
    ));
    assert!(err(&["--server", "j.fio"], &[]).contains("--server takes no job file ('j.fio')"));
    assert!(err(&["--client=h"], &[]).contains("--client=h: no job file to send"));
    assert!(err(&["--server-enable=rm"], &[]).contains("allowed: exec, net, remote-config"));
    assert!(
        err(&["--client=h", "--remote-config=/j.fio", "--repeat=2"], &[])
            .contains("cannot change a --remote-config file")
    );
    assert!(err(&["--client=h", "j.fio", "--sweep=bogus=1,2"], &[]).contains("KEY is a job option"));
    assert!(
        err(&["--client=h", "j.fio", "--output-format=interval"], &[])
            .contains("not available with --client")
    );
    assert!(matches!(run(&["--crctest"], &[]), Ok(Command::CrcTest(t)) if t.len() == 14));
    assert!(matches!(
        run(&["--crctest=sha1,md5"], &[]),
        Ok(Command::CrcTest(t)) if t == ["md5", "sha1"]
    ));
    assert!(err(&["--crctest=murmur3"], &[]).contains("allowed: md5, crc64"));
    assert!(err(
        &["--client=h", "j.fio", "--status-interval=1", "--repeat=2"],
        &[]
    )
    .contains("not available with --client and --sweep/--repeat"));
    assert!(run(&["--client=h", "j.fio", "--status-interval=1"], &[]).is_ok());
    assert!(err(&["--latency-log=x", "--name=t"], &[]).contains("use write_lat_log"));
    let i = inv(
        &[
            "--max-jobs=4",
            "--alloc-size=32768",
            "--warnings-fatal",
            "--bandwidth-log",
            "--trigger-file=/tmp/t",
            "--trigger-timeout=2",
            "--trigger=echo hi",
            "--name=t",
        ],
        &[],
    );
    assert!(i.flags.bandwidth_log);
    assert_eq!(
        i.flags.trigger,
        TriggerFlags {
            file: Some(PathBuf::from("/tmp/t")),
            timeout_ms: Some(2000),
            cmd: Some("echo hi".into())
        }
    );
    assert_eq!(
        err(&["--max-jobs=lots", "--name=t"], &[]),
        "bad value 'lots' for --max-jobs (at command line); allowed: a positive integer"
    );
    assert!(err(&["--trigger-timeout=soon", "--name=t"], &[]).contains("allowed: a time"));
    assert!(err(&["--section=global", "x.fio"], &[]).contains("not global"));
    assert!(matches!(
        run(&["--memcpytest=memcpy,simple"], &[]),
        Ok(Command::MemcpyTest(t)) if t == ["memcpy", "simple"]
    ));
    assert!(matches!(run(&["-M"], &[]), Ok(Command::MemcpyTest(t)) if t.len() == 4));
    assert!(
        matches!(run(&["--memcpytest=help"], &[]), Ok(Command::Print(s)) if s.starts_with("memcpy "))
    );
    assert!(err(&["--memcpytest=fast"], &[]).contains("allowed: memcpy, memmove, simple, hybrid"));
    // --merge-blktrace-only plans the jobs (which merges their traces) and runs nothing.
    assert!(matches!(
        run(&["--merge-blktrace-only", "--name=t"], &[]),
        Ok(Command::Check(_))
    ));
}

#[test]
fn fio_one_letter_and_single_dash_forms() {
    let v = format!("ferrio-{}\n", env!("CARGO_PKG_VERSION"));
    assert!(matches!(run(&["-v"], &[]), Ok(Command::Print(s)) if s == v));
    assert!(matches!(run(&["-h"], &[]), Ok(Command::Print(s)) if s.starts_with("Usage:")));
    let i = inv(
        &[
            "-o",
            "/tmp/o",
            "-F",
            "json",
            "-name=t",
            "-rw=randread",
            "-bs=8k",
        ],
        &[],
    );
    assert_eq!(i.flags.output, Some(PathBuf::from("/tmp/o")));
    assert_eq!(i.flags.output_formats, vec![OutputFormat::Json]);
    assert_eq!(i.jobs[0].name, "t");
    assert_eq!(i.jobs[0].bs[0].min, 8192);
    let i = inv(&["-V3", "-m", "--name=t"], &[]);
    assert_eq!(i.flags.output_formats, vec![OutputFormat::Terse]);
}

#[test]
fn warnings_and_drop_in_version() {
    let (map, keywords) = env_with(&[]);
    let read = move |p: &Path| {
        map.get(&p.display().to_string())
            .cloned()
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    };
    let var = |_: &str| None;
    let env = Env {
        read: &read,
        var: &var,
        keywords,
    };
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let p = parse_full(
        &args(&["--aux-path=/tmp", "--trigger-remote=x", "--name=t"]),
        &env,
        false,
    )
    .unwrap();
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    match &p.command {
        Command::Run(inv) => assert_eq!(
            inv.jobs[0].verify.aux_path.as_deref(),
            Some(std::path::Path::new("/tmp"))
        ),
        c => panic!("{c:?}"),
    }
    let p = parse_full(&args(&["--version"]), &env, true).unwrap();
    assert!(
        matches!(p.command, Command::Print(s) if s == format!("fio-3.33-ferrio-{}\n", env!("CARGO_PKG_VERSION")))
    );
    assert_eq!(
        version_string(false),
        format!("ferrio-{}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn parse_only_accepts_global_options_alone_and_checks_them() {
    assert!(
        matches!(run(&["--parse-only", "--ss=iops:10"], &[]), Ok(Command::Print(s)) if s.is_empty())
    );
    assert!(matches!(run(&["--parse-only"], &[]), Ok(Command::Print(_))));
    assert!(err(&["--parse-only", "--ss=nope:10"], &[]).contains("option 'ss'"));
    assert!(matches!(
        run(
            &["--parse-only", "g.fio"],
            &[("g.fio", "[global]\nbs=4k\n")]
        ),
        Ok(Command::Print(_))
    ));
}

#[test]
fn unambiguous_prefixes_of_long_names_work_as_in_fio() {
    let i = inv(&["--name=t", "--runt=7", "--output-f=json"], &[]);
    assert_eq!(i.jobs[0].runtime_us, Some(7_000_000));
    assert_eq!(i.flags.output_formats, vec![OutputFormat::Json]);
    assert!(matches!(run(&["--vers"], &[]), Ok(Command::Print(s)) if s.starts_with("ferrio-")));
    // An exact name wins over longer ones (--name, not --name_...; --rw, not --rwmixread).
    assert_eq!(
        inv(&["--name=t", "--rw=write"], &[]).jobs[0].rw.text,
        "write"
    );
    let e = err(&["--name=t", "--iodepth_b=1"], &[]);
    assert!(
        e.starts_with(
            "option '--iodepth_b' is ambiguous (at command line); possibilities: --iodepth_batch"
        ) && e.contains("--iodepth_batch_complete_max"),
        "{e}"
    );
    // A name that is no prefix keeps its "did you mean".
    assert!(err(&["--name=t", "--iodepht=2"], &[]).contains("did you mean '--iodepth'"));
}

#[test]
fn warnings_fatal_turns_job_warnings_into_errors() {
    let i = inv(&["--name=t", "--time_based"], &[]);
    assert_eq!(i.jobs[0].warnings.len(), 1);
    let e = err(&["--warnings-fatal", "--name=t", "--time_based"], &[]);
    assert!(
        e.starts_with("job 't': time_based needs runtime=")
            && e.ends_with("an error with --warnings-fatal"),
        "{e}"
    );
    assert!(
        !inv(&["-w", "--name=t", "--time_based", "--runtime=1"], &[])
            .jobs
            .is_empty()
    );
}

#[test]
fn client_groups_take_the_job_files_after_them_as_fio() {
    let c = run(
        &[
            "--client=h1,h2",
            "a.fio",
            "--client=h3:9000",
            "b.fio",
            "--output-format=hosts",
        ],
        &[],
    )
    .unwrap();
    let Command::Client(f) = c else {
        panic!("{c:?}")
    };
    assert_eq!(f.output_formats, [OutputFormat::Hosts]);
    assert_eq!(f.net.clients.len(), 2);
    assert_eq!(f.net.clients[0].hosts, ["h1", "h2"]);
    assert_eq!(f.net.clients[0].files, [Path::new("a.fio")]);
    assert_eq!(f.net.clients[1].hosts, ["h3:9000"]);
    assert_eq!(f.net.clients[1].files, [Path::new("b.fio")]);
    let c = run(&["--server=127.0.0.1,9000", "--server-allow=/srv"], &[]).unwrap();
    let Command::Server(f) = c else {
        panic!("{c:?}")
    };
    assert_eq!(f.net.server.as_deref(), Some("127.0.0.1,9000"));
    assert_eq!(f.net.allow, [Path::new("/srv")]);
    // fio's -D/--daemonize=PIDFILE, and --pidfile for a server in the foreground.
    for (args, daemon, pidfile) in [
        (["--server", "-D", "/run/f.pid"], Some("/run/f.pid"), None),
        (
            ["--server", "--daemonize=/run/f.pid", ""],
            Some("/run/f.pid"),
            None,
        ),
        (
            ["--server", "--pidfile=/run/f.pid", ""],
            None,
            Some("/run/f.pid"),
        ),
    ] {
        let args: Vec<&str> = args.into_iter().filter(|a| !a.is_empty()).collect();
        let Command::Server(f) = run(&args, &[]).unwrap() else {
            panic!("{args:?}")
        };
        assert_eq!(f.net.daemonize.as_deref(), daemon.map(Path::new));
        assert_eq!(f.net.pidfile.as_deref(), pidfile.map(Path::new));
    }
}

#[test]
fn mpi_is_a_run_and_excludes_the_other_multi_host_modes() {
    let i = inv(
        &["--mpi", "j.fio"],
        &[("j.fio", "[j]\nioengine=null\nsize=1m\n")],
    );
    assert!(i.flags.net.mpi);
    assert_eq!(i.jobs.len(), 1);
    assert!(
        !inv(&["--name=j", "--ioengine=null", "--size=1m"], &[])
            .flags
            .net
            .mpi
    );
    for (other, why) in [
        ("--client=h", "--mpi cannot be combined with --client"),
        ("--server", "--mpi cannot be combined with --server"),
        (
            "--repeat=2",
            "--mpi cannot be combined with --sweep/--repeat",
        ),
        (
            "--status-interval=1",
            "with --output-format=interval/--status-interval",
        ),
    ] {
        let e = err(&["--mpi", other], &[]);
        assert!(e.contains(why), "{other}: {e}");
    }
}
