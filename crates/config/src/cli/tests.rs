//! Command-line stream tests.

use super::*;
use crate::jobfile::subst::Keywords;
use std::collections::HashMap;
use std::path::Path;

fn env_with(files: &[(&str, &str)]) -> (HashMap<String, String>, Keywords) {
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

fn run(args: &[&str], files: &[(&str, &str)]) -> Result<Command, ConfigError> {
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

fn inv(args: &[&str], files: &[(&str, &str)]) -> Invocation {
    match run(args, files) {
        Ok(Command::Run(i)) => i,
        other => panic!("expected a run, got {other:?}"),
    }
}

fn err(args: &[&str], files: &[(&str, &str)]) -> String {
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
    assert_eq!(j.size, Some(crate::spec::SizeOrPercent::Bytes(32 << 20)));
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
        "job 'rand': bad value 'rando' for option 'rw' (at j.fio:7); allowed: read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite"
    );
}
