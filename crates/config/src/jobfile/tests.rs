//! Job-file lexer tests.

use super::*;
use std::collections::HashMap;

fn env_files(files: &[(&str, &str)]) -> impl Fn(&Path) -> std::io::Result<String> {
    let map: HashMap<String, String> = files
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |p: &Path| {
        map.get(&p.display().to_string()).cloned().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory")
        })
    }
}

fn lex_with(text: &str, files: &[(&str, &str)]) -> Result<Vec<Section>, ConfigError> {
    lex_noting(text, files, &mut Vec::new())
}

fn lex_noting(
    text: &str,
    files: &[(&str, &str)],
    notes: &mut Vec<String>,
) -> Result<Vec<Section>, ConfigError> {
    let read = env_files(files);
    let var = |k: &str| match k {
        "SIZE" => Some("64m".to_string()),
        "NUMJOBS" => Some("4".to_string()),
        "EMPTY" => Some(String::new()),
        _ => None,
    };
    let env = Env {
        read: &read,
        var: &var,
        keywords: Keywords {
            pagesize: 4096,
            ncpus: 8,
            mb_memory: 1000,
        },
    };
    parse_text_noting(text, Path::new("dir/job.fio"), &env, notes)
}

fn lex(text: &str) -> Vec<Section> {
    lex_with(text, &[]).unwrap()
}

fn opts(s: &Section) -> Vec<(String, Option<String>)> {
    s.options
        .iter()
        .map(|o| (o.key.clone(), o.value.clone()))
        .collect()
}

fn kv(k: &str, v: &str) -> (String, Option<String>) {
    (k.to_string(), Some(v.to_string()))
}

#[test]
fn sections_keys_and_lines() {
    let s = lex("[global]\nrw=randread\nsize=128m\n\n[job1]\n\n[job2]\nbs=4k\n");
    assert_eq!(s.len(), 3);
    assert!(s[0].is_global());
    assert_eq!(opts(&s[0]), vec![kv("rw", "randread"), kv("size", "128m")]);
    assert_eq!(s[1].name, "job1");
    assert!(s[1].options.is_empty());
    assert_eq!(
        s[1].loc,
        Loc::File {
            path: "dir/job.fio".into(),
            line: 5
        }
    );
    assert_eq!(s[2].options[0].loc.to_string(), "dir/job.fio:8");
}

#[test]
fn comments_and_blanks() {
    let s = lex("; leading\n# hash\n  ; indented comment\n[a]\nbs = 8k   ; trailing\nsize=1m # hash trailing\ndescription=hello world ; x\nrw=randread#x\n\t\n");
    assert_eq!(s.len(), 1);
    assert_eq!(
        opts(&s[0]),
        vec![
            kv("bs", "8k"),
            kv("size", "1m"),
            kv("description", "hello world"),
            kv("rw", "randread")
        ]
    );
}

#[test]
fn bare_keys() {
    let s = lex("[a]\ntime_based\n  thread  \nstonewall=1\n");
    assert_eq!(
        opts(&s[0]),
        vec![
            ("time_based".into(), None),
            ("thread".into(), None),
            kv("stonewall", "1")
        ]
    );
}

#[test]
fn empty_value_is_kept_as_empty() {
    let s = lex("[a]\ndescription=\n");
    assert_eq!(opts(&s[0]), vec![kv("description", "")]);
}

#[test]
fn env_and_keywords() {
    let s = lex("[a]\nsize=${SIZE}\nnumjobs=${NUMJOBS}\niodepth=${EMPTY}\nnrfiles=$ncpus\nbs=$pagesize\nio_size=8*$mb_memory\n");
    assert_eq!(
        opts(&s[0]),
        vec![
            kv("size", "64m"),
            kv("numjobs", "4"),
            kv("iodepth", ""),
            kv("nrfiles", "8"),
            kv("bs", "4096"),
            kv("io_size", "8000")
        ]
    );
}

#[test]
fn latin1_in_comments_is_accepted_but_not_in_values() {
    let text = decode(b"; caf\xe9 job\n[a]\nsize=1m ; \xe9t\xe9\n# \xff\n").unwrap();
    let s = lex(&text);
    assert_eq!(opts(&s[0]), vec![kv("size", "1m")]);
    let e = decode(b"[a]\nsize=1m\nfilename=/tmp/caf\xe9\n").unwrap_err();
    assert!(
        e.contains("line 3") && e.contains("0xe9") && e.contains("column 18"),
        "{e}"
    );
    assert_eq!(decode("[é]\n".as_bytes()).unwrap(), "[é]\n");
}

#[test]
fn an_unset_variable_is_replaced_by_nothing_with_a_warning_naming_it_and_its_line() {
    // fio substitutes nothing for an unset variable (fio_option_dup_subs); ferrio
    // does the same and says so.
    let mut notes = Vec::new();
    let s = lex_noting(
        "[a]\nsize=1m\niodepth=${UNSET}\nfilename=/x/${NOPE}y${SIZE}\n",
        &[],
        &mut notes,
    )
    .unwrap();
    assert_eq!(
        opts(&s[0]),
        vec![
            kv("size", "1m"),
            kv("iodepth", ""),
            kv("filename", "/x/y64m")
        ]
    );
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].contains("'UNSET' is not set") && notes[0].contains("dir/job.fio:3"),
        "{notes:?}"
    );
    assert!(
        notes[1].contains("'NOPE'") && notes[1].contains("dir/job.fio:4"),
        "{notes:?}"
    );
    let mut notes = Vec::new();
    let e = lex_noting("[a]\ninclude ${NOPE}.fio\n", &[], &mut notes)
        .unwrap_err()
        .0;
    assert!(e.contains("'.fio'"), "{e}");
    assert!(
        notes.len() == 1 && notes[0].contains("'NOPE'") && notes[0].contains("dir/job.fio:2"),
        "{notes:?}"
    );
}

#[test]
fn include_relative_to_including_file() {
    let files = [
        ("dir/inc.fio", "thread=1\ngroup_reporting=1\n"),
        ("dir/sub/t.fio", "ioengine=null\ninclude deeper.fio\n"),
        ("dir/sub/deeper.fio", "iodepth=4\n"),
    ];
    let s = lex_with("[global]\nfilename=/tmp/test\ninclude inc.fio\n\n[test]\nrw=randread\ninclude sub/t.fio\nbs=4k\n", &files).unwrap();
    assert_eq!(
        opts(&s[0]),
        vec![
            kv("filename", "/tmp/test"),
            kv("thread", "1"),
            kv("group_reporting", "1")
        ]
    );
    assert_eq!(
        opts(&s[1]),
        vec![
            kv("rw", "randread"),
            kv("ioengine", "null"),
            kv("iodepth", "4"),
            kv("bs", "4k")
        ]
    );
    assert_eq!(s[0].options[1].loc.to_string(), "dir/inc.fio:1");
    assert_eq!(s[1].options[2].loc.to_string(), "dir/sub/deeper.fio:1");
}

#[test]
fn include_prefers_working_directory_like_fio() {
    let files = [("inc.fio", "bs=16k\n"), ("dir/inc.fio", "bs=8k\n")];
    let s = lex_with("[a]\ninclude inc.fio\n", &files).unwrap();
    assert_eq!(opts(&s[0]), vec![kv("bs", "16k")]);
    let s = lex_with("[a]\ninclude inc.fio\n", &files[1..]).unwrap();
    assert_eq!(opts(&s[0]), vec![kv("bs", "8k")]);
}

#[test]
fn include_absolute_path() {
    let s = lex_with("[a]\ninclude /etc/x.fio\n", &[("/etc/x.fio", "bs=8k")]).unwrap();
    assert_eq!(opts(&s[0]), vec![kv("bs", "8k")]);
}

#[test]
fn include_errors() {
    let e = lex_with("[a]\ninclude missing.fio\n", &[]).unwrap_err().0;
    assert_eq!(
        e,
        "cannot read include file 'missing.fio': No such file or directory, 'dir/missing.fio': No such file or directory (at dir/job.fio:2)"
    );
    let e = lex_with("include inc.fio\n[a]\n", &[("dir/inc.fio", "")])
        .unwrap_err()
        .0;
    assert!(
        e.starts_with("include outside of any [section] (at dir/job.fio:1)"),
        "{e}"
    );
    let e = lex_with("[a]\ninclude s.fio\n", &[("dir/s.fio", "[b]\n")])
        .unwrap_err()
        .0;
    assert!(
        e.contains("may not contain sections") && e.contains("dir/s.fio:1"),
        "{e}"
    );
    let e = lex_with(
        "[a]\ninclude loop.fio\n",
        &[("dir/loop.fio", "include loop.fio\n")],
    )
    .unwrap_err()
    .0;
    assert!(e.contains("include loop"), "{e}");
}

#[test]
fn include_word_alone_is_a_key() {
    // "include" without a file is a (bad) bare option, left to the option table.
    let s = lex("[a]\ninclude\n");
    assert_eq!(opts(&s[0]), vec![("include".into(), None)]);
}

#[test]
fn lexer_errors() {
    let e = lex_with("bs=4k\n[a]\n", &[]).unwrap_err().0;
    assert_eq!(e, "option 'bs' outside of any [section] (at dir/job.fio:1); put it under [global] or a job section");
    let e = lex_with("[a\n", &[]).unwrap_err().0;
    assert!(
        e.starts_with("malformed section header '[a' (at dir/job.fio:1)"),
        "{e}"
    );
    let e = lex_with("[]\n", &[]).unwrap_err().0;
    assert!(e.contains("malformed section header"), "{e}");
    let e = lex_with("[a]\n=5\n", &[]).unwrap_err().0;
    assert!(e.contains("malformed line '=5' (at dir/job.fio:2)"), "{e}");
    let e = lex_with("[a]\nbad key=5\n", &[]).unwrap_err().0;
    assert!(e.contains("malformed line"), "{e}");
}

#[test]
fn unreadable_job_file() {
    let read = env_files(&[]);
    let var = |_: &str| None;
    let env = Env {
        read: &read,
        var: &var,
        keywords: Keywords {
            pagesize: 4096,
            ncpus: 1,
            mb_memory: 1,
        },
    };
    let e = parse_file(Path::new("nope.fio"), &env).unwrap_err().0;
    assert_eq!(
        e,
        "cannot read job file 'nope.fio': No such file or directory"
    );
}

#[test]
fn crlf_lines() {
    let s = lex("[a]\r\nbs=4k\r\n");
    assert_eq!(opts(&s[0]), vec![kv("bs", "4k")]);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn ident() -> impl Strategy<Value = String> {
        "[a-z][a-z0-9_]{0,10}"
    }

    fn value() -> impl Strategy<Value = Option<String>> {
        proptest::option::of("[a-zA-Z0-9_:,./%-]{0,12}")
    }

    proptest! {
        #[test]
        fn sections_round_trip(secs in proptest::collection::vec((ident(), proptest::collection::vec((ident(), value()), 0..6)), 1..6)) {
            let mut text = String::new();
            for (name, kvs) in &secs {
                text.push_str(&format!("[{name}]\n"));
                for (k, v) in kvs {
                    match v {
                        Some(v) => text.push_str(&format!("{k} = {v}\n")),
                        None => text.push_str(&format!("{k}\n")),
                    }
                }
                text.push_str("; comment\n\n");
            }
            // "include x" lines would be directives; avoid generating the key alone with a value.
            prop_assume!(secs.iter().all(|(_, kvs)| kvs.iter().all(|(k, _)| k != "include")));
            let parsed = lex(&text);
            prop_assert_eq!(parsed.len(), secs.len());
            for (p, (name, kvs)) in parsed.iter().zip(&secs) {
                prop_assert_eq!(&p.name, name);
                let got = opts(p);
                let want: Vec<(String, Option<String>)> = kvs.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                prop_assert_eq!(got, want);
            }
        }

        #[test]
        fn garbage_never_panics(text in "\\PC{0,200}") {
            let _ = lex_with(&text, &[("dir/x", "a=1\n")]);
        }

        #[test]
        fn line_noise_never_panics(lines in proptest::collection::vec("[\\[\\]=;#a-z0-9 ${}()*.]{0,20}", 0..20)) {
            let _ = lex_with(&lines.join("\n"), &[]);
        }
    }
}
