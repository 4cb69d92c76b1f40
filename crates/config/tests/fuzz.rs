//! Fuzzing the parsers: job files, command lines and every value parser get generated
//! and mutated input; any panic is a bug (bad input must come back as an error).
//!
//! Three generators: job files and command lines built from the option table (real
//! option names, values of every shape the table's kinds take, plus hostile ones), so
//! the input reaches the builder and the cross-option checks; byte-level mutations of
//! the repository's own job files (tests/jobs); and raw strings for each value parser.
//!
//! The normal test run does a short bounded run. FERRIO_FUZZ_CASES raises the number
//! of cases per generator (scripts/fuzz runs a long one; see docs/testing.md). A
//! failure is shrunk by proptest and saved under proptest-regressions/ to replay.

use ferrio_config::jobfile::{self, subst::Keywords, Env};
use ferrio_config::table::{self, Kind};
use ferrio_config::values::{self, TimeUnit};
use ferrio_config::{parse_with, Command};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use std::path::Path;

/// Cases per generator: FERRIO_FUZZ_CASES, or a small number for the normal test run.
fn cases(default: u32) -> u32 {
    std::env::var("FERRIO_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn config(default: u32) -> Config {
    Config {
        cases: cases(default),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..Config::default()
    }
}

/// Every supported option name (and alias) in the table (unsupported ones fail at once).
fn names() -> Vec<&'static str> {
    table::all()
        .filter(|o| o.support != table::Support::No)
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
        .collect()
}

/// Values shaped like what each kind of option takes, and a few that no option takes.
fn value_for(kind: Kind, allowed: Vec<&'static str>) -> BoxedStrategy<String> {
    let num = prop_oneof![
        Just("0".to_string()),
        Just("1".to_string()),
        (0u64..5000).prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        Just("18446744073709551615".to_string()),
        Just("18446744073709551616".to_string()),
        Just("-1".to_string()),
    ];
    let unit = prop_oneof![
        Just(""),
        Just("k"),
        Just("m"),
        Just("g"),
        Just("t"),
        Just("p"),
        Just("KiB"),
        Just("%"),
        Just("s"),
        Just("ms"),
        Just("us"),
        Just("h"),
        Just("d")
    ];
    let sized = (num.clone(), unit).prop_map(|(n, u)| format!("{n}{u}"));
    let hostile = prop_oneof![
        Just(String::new()),
        Just(",,,".to_string()),
        Just(":".to_string()),
        Just("-".to_string()),
        Just("(".to_string()),
        Just("(1/0)".to_string()),
        Just("(2^64)".to_string()),
        Just("((((((((1))))))))".to_string()),
        Just("$ncpus*$mb_memory*$pagesize".to_string()),
        Just("0x".to_string()),
        Just("0xffffffffffffffffff".to_string()),
        Just("1e400".to_string()),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("/".to_string()),
        Just("a/b:c\\:d".to_string()),
        "\\PC{0,16}",
    ];
    let listy = proptest::collection::vec(sized.clone(), 1..5).prop_flat_map(|parts| {
        prop_oneof![Just(","), Just(":"), Just("-"), Just("/")].prop_map(move |sep| parts.join(sep))
    });
    let choice = if allowed.is_empty() {
        Just("x".to_string()).boxed()
    } else {
        proptest::sample::select(allowed)
            .prop_flat_map(|a| {
                prop_oneof![
                    Just(a.to_string()),
                    (0u32..100000).prop_map(move |n| format!("{a}:{n}")),
                    "[a-z0-9:/%,.-]{0,8}".prop_map(move |s| format!("{a}{s}")),
                ]
            })
            .boxed()
    };
    match kind {
        Kind::Choice | Kind::Special => prop_oneof![4 => choice, 2 => listy, 1 => hostile].boxed(),
        Kind::Bool | Kind::Flag => prop_oneof![num, hostile].boxed(),
        _ => prop_oneof![4 => sized, 2 => listy, 1 => hostile].boxed(),
    }
}

/// A value the option plausibly accepts: one of its allowed values, its default, or a
/// small number of the right shape (so generated jobs get past the first option and
/// reach the builder's cross-option checks).
fn plausible(spec: &'static table::OptSpec) -> BoxedStrategy<String> {
    let mut pool: Vec<String> = spec.values.iter().map(|v| v.0.to_string()).collect();
    if !spec.default.is_empty() {
        pool.push(spec.default.to_string());
    }
    let shaped = match spec.kind {
        Kind::Bool | Kind::Flag => {
            prop_oneof![Just("0".to_string()), Just("1".to_string())].boxed()
        }
        Kind::Size | Kind::Range | Kind::PerDirSize | Kind::PerDirRange => {
            (1u64..64, prop_oneof![Just("k"), Just("m")])
                .prop_map(|(n, u)| format!("{n}{u}"))
                .boxed()
        }
        Kind::SizeOrPercent => prop_oneof![
            (1u64..64).prop_map(|n| format!("{n}m")),
            (1u64..100).prop_map(|n| format!("{n}%"))
        ]
        .boxed(),
        Kind::Time(_) | Kind::TimeRange(_) => (1u64..5).prop_map(|n| format!("{n}s")).boxed(),
        Kind::Int | Kind::PerDirInt | Kind::SignedInt => {
            (1u64..16).prop_map(|n| n.to_string()).boxed()
        }
        _ => "[a-z]{1,6}".boxed(),
    };
    if pool.is_empty() {
        shaped
    } else {
        prop_oneof![proptest::sample::select(pool), shaped].boxed()
    }
}

/// One `key=value` (or bare key) from the table.
fn option_line() -> impl Strategy<Value = String> {
    line(4)
}

/// An option line; `hostile` weighs values of any shape against plausible ones (8).
fn line(hostile: u32) -> impl Strategy<Value = String> {
    proptest::sample::select(names()).prop_flat_map(move |name| {
        let spec = table::find(name).expect("listed name");
        let allowed: Vec<&'static str> = spec.values.iter().map(|v| v.0).collect();
        // A bare key is how flags are written; for other options it is an error case.
        let bare = if spec.kind == Kind::Flag {
            2
        } else {
            hostile.min(1)
        };
        prop_oneof![
            8 => plausible(spec).prop_map(move |v| format!("{name}={v}")),
            hostile => value_for(spec.kind, allowed).prop_map(move |v| format!("{name}={v}")),
            bare => Just(name.to_string()),
        ]
    })
}

/// An environment with the job files given (by path) and no other file.
fn with_env<T>(files: &[(&str, &str)], f: impl FnOnce(&Env) -> T) -> T {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    let read = move |p: &Path| -> std::io::Result<String> {
        files
            .iter()
            .find(|(name, _)| Path::new(name) == p)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    };
    let var = |k: &str| (k == "SET").then(|| "4k".to_string());
    let env = Env {
        read: &read,
        var: &var,
        keywords: Keywords {
            pagesize: 4096,
            ncpus: 2,
            mb_memory: 1024,
        },
    };
    f(&env)
}

/// Parse a whole command line; an Ok result must be usable (jobs present for a run).
fn parse(args: &[String], files: &[(&str, &str)]) {
    let r = with_env(files, |env| parse_with(args, env));
    if let Ok(Command::Run(inv) | Command::Check(inv)) = r {
        for j in &inv.jobs {
            assert!(j.bs.iter().all(|b| b.min > 0 && b.min <= b.max), "{j:?}");
            assert!(j.numjobs >= 1);
        }
    }
}

/// The repository's job files, the seeds of the mutation fuzzer.
fn seeds() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/jobs");
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .expect("tests/jobs")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "fio"))
        .map(|e| std::fs::read(e.path()).unwrap())
        .collect();
    out.sort();
    assert!(
        out.len() >= 10,
        "seed job files missing in {}",
        dir.display()
    );
    out
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    DupLine(usize),
    Splice(usize, String),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..6))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::DupLine),
        (any::<usize>(), option_line()).prop_map(|(i, l)| Mutation::Splice(i, l)),
    ]
}

fn apply(mut text: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let len = text.len().max(1);
        match m {
            Mutation::Flip(i, b) => {
                if !text.is_empty() {
                    let i = i % text.len();
                    text[i] ^= b | 1;
                }
            }
            Mutation::Insert(i, b) => {
                let i = i % (text.len() + 1);
                text.splice(i..i, b.iter().copied());
            }
            Mutation::Delete(i, n) => {
                let i = i % len;
                let end = (i + n).min(text.len());
                if i < end {
                    text.drain(i..end);
                }
            }
            Mutation::DupLine(i) => {
                let lines: Vec<&[u8]> = text.split(|&c| c == b'\n').collect();
                let l = lines[i % lines.len()].to_vec();
                text.extend_from_slice(b"\n");
                text.extend_from_slice(&l);
            }
            Mutation::Splice(i, line) => {
                let starts: Vec<usize> = std::iter::once(0)
                    .chain(
                        text.iter()
                            .enumerate()
                            .filter(|(_, &c)| c == b'\n')
                            .map(|(i, _)| i + 1),
                    )
                    .collect();
                let at = starts[i % starts.len()];
                let ins = format!("{line}\n");
                text.splice(at..at, ins.bytes());
            }
        }
    }
    text
}

proptest! {
    #![proptest_config(config(192))]

    /// Job files from the table: sections of real options with generated values.
    #[test]
    fn generated_job_files(
        sections in proptest::collection::vec(
            (prop_oneof![1 => Just("global".to_string()), 3 => "[a-z]{1,6}"],
             prop_oneof![
                 proptest::collection::vec(line(0), 0..8),
                 proptest::collection::vec(option_line(), 0..10),
             ]),
            1..4),
        parse_only in any::<bool>(),
    ) {
        let mut text = String::new();
        // A last job section, so files of [global] sections alone still define a job.
        let last = (String::from("last"), Vec::new());
        for (name, lines) in sections.iter().chain([&last]) {
            text.push_str(&format!("[{name}]\n"));
            for l in lines {
                text.push_str(l);
                text.push('\n');
            }
        }
        let mut args = vec!["job.fio".to_string()];
        if parse_only {
            args.push("--parse-only".into());
        }
        parse(&args, &[("job.fio", &text)]);
    }

    /// Command lines from the table: --name groups of --option=value.
    #[test]
    fn generated_command_lines(
        jobs in proptest::collection::vec(proptest::collection::vec(option_line(), 0..8), 0..4),
        flags in proptest::collection::vec(
            prop_oneof![
                Just("--parse-only"), Just("--showcmd"), Just("--readonly"),
                Just("--output-format=json"), Just("--output-format=normal,terse"),
                Just("--section=a"), Just("--eta=never"), Just("--status-interval=1"),
                Just("--"), Just("-"), Just("--cmdhelp"), Just("--debug=all"),
            ], 0..3),
    ) {
        let mut args: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        for (i, opts) in jobs.iter().enumerate() {
            args.push(format!("--name=j{i}"));
            args.extend(opts.iter().map(|o| format!("--{o}")));
        }
        parse(&args, &[]);
    }

    /// Byte-level mutations of the repository's job files (tests/jobs).
    #[test]
    fn mutated_job_files(seed in any::<proptest::sample::Index>(),
                         muts in proptest::collection::vec(mutation(), 1..8)) {
        let seeds = seeds();
        let bytes = apply(seeds[seed.index(seeds.len())].clone(), &muts);
        match jobfile::decode(&bytes) {
            Ok(text) => parse(&["job.fio".to_string(), "--parse-only".into()], &[("job.fio", &text)]),
            Err(e) => prop_assert!(e.contains("line"), "{}", e),
        }
    }

    /// Every value parser on arbitrary text.
    #[test]
    fn value_parsers(s in prop_oneof!["\\PC{0,24}", "[0-9kmgtp%:,/()*+^ .-]{0,24}"],
                     base in proptest::sample::select(vec![1000u32, 1024])) {
        let _ = values::parse_size(&s, base);
        let _ = values::parse_size_or_percent(&s, base);
        let _ = values::parse_int(&s, base);
        let _ = values::parse_range(&s, base);
        let _ = values::parse_size_or_range(&s, base);
        let _ = values::list::per_direction_ranges(&s, base);
        let _ = values::parse_bssplit(&s, base);
        let _ = values::parse_distribution(&s, base);
        let _ = values::parse_pattern(&s);
        let _ = values::parse_cpus(&s);
        let _ = values::parse_float_list(&s);
        let _ = values::parse_list(&s);
        let _ = values::per_direction(&s);
        let _ = values::parse_bool(Some(&s), false);
        for u in [TimeUnit::S, TimeUnit::Ms, TimeUnit::Us] {
            let _ = values::parse_time(&s, u);
            let _ = values::parse_time_range(&s, u);
        }
        let _ = values::eval(&s, values::Unit::Plain);
        let _ = values::arith::eval_f64(&s, values::Unit::Plain);
    }

    /// Raw bytes through the job-file decoder and lexer.
    #[test]
    fn raw_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        if let Ok(text) = jobfile::decode(&bytes) {
            let _ = with_env(&[], |env| jobfile::parse_text(&text, Path::new("raw.fio"), env));
        }
    }
}
