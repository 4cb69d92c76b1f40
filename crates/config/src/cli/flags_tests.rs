//! Tests of the run-wide flag table: fio's letters, --help.

use super::*;

#[test]
fn names_are_unique_and_shadow_only_the_job_options_they_mean_to() {
    let mut seen = std::collections::HashSet::new();
    let mut shadowed = Vec::new();
    for f in FLAGS {
        for n in f.names {
            assert!(seen.insert(*n), "--{n} twice");
            assert!(n.len() > 1, "--{n}: one-letter forms go in `short`");
            if table::find(n).is_some() {
                shadowed.push(*n);
            }
        }
    }
    // On the command line the flag wins: --name starts a job, --readonly is run-wide,
    // --profile is fio's command-line flag (its job option of the same name is
    // only reachable from job files, where ferrio refuses it too).
    assert_eq!(shadowed, ["name", "readonly", "profile"]);
    let mut shorts = std::collections::HashSet::new();
    for c in FLAGS.iter().filter_map(|f| f.short) {
        assert!(shorts.insert(c), "-{c} twice");
    }
}

#[test]
fn every_fio_3_33_flag_has_a_row_with_fios_letter() {
    // fio 3.33's getopt table (init.c l_opts), name and letter.
    const FIO: &[(&str, char)] = &[
        ("output", 'o'),
        ("latency-log", 'l'),
        ("bandwidth-log", 'b'),
        ("minimal", 'm'),
        ("output-format", 'F'),
        ("append-terse", 'f'),
        ("version", 'v'),
        ("help", 'h'),
        ("cmdhelp", 'c'),
        ("enghelp", 'i'),
        ("showcmd", 's'),
        ("readonly", 'r'),
        ("eta", 'e'),
        ("eta-interval", 'O'),
        ("eta-newline", 'E'),
        ("debug", 'd'),
        ("parse-only", 'P'),
        ("section", 'x'),
        ("inflate-log", 'X'),
        ("alloc-size", 'a'),
        ("profile", 'p'),
        ("warnings-fatal", 'w'),
        ("max-jobs", 'j'),
        ("terse-version", 'V'),
        ("server", 'S'),
        ("daemonize", 'D'),
        ("client", 'C'),
        ("remote-config", 'R'),
        ("cpuclock-test", 'T'),
        ("crctest", 'G'),
        ("memcpytest", 'M'),
        ("idle-prof", 'I'),
        ("status-interval", 'L'),
        ("trigger-file", 'W'),
        ("trigger-timeout", 'B'),
        ("trigger", 'H'),
        ("trigger-remote", 'J'),
        ("aux-path", 'K'),
        ("merge-blktrace-only", 'A'),
    ];
    for (name, c) in FIO {
        let f = find(name).unwrap_or_else(|| panic!("fio's --{name} has no row"));
        assert_eq!(f.short, Some(*c), "--{name}");
    }
}

#[test]
fn help_lists_every_supported_flag_and_every_refused_one() {
    let h = help();
    for f in FLAGS {
        let shown = format!("--{}", f.names[0]);
        assert!(h.contains(&shown), "{shown} missing from --help");
        if let Action::Handle(_) = f.action {
            assert!(!f.help.is_empty(), "{shown} has no help");
            assert!(
                h.contains(&format!("\n  {shown}")),
                "{shown} not at a line start"
            );
        }
    }
    for line in h.lines().filter(|l| !l.starts_with("  ferrio ")) {
        assert!(line.len() <= 80, "--help line too long: {line}");
    }
}

#[test]
fn help_aligns_the_descriptions() {
    let h = help();
    assert!(h.contains("\n  --output=FILE         write the report to FILE instead of stdout\n"));
    assert!(h.contains("\n  --interval-percentiles=LIST\n                        percentiles"));
    assert!(h.contains("\n  --cmdhelp[=OPTION]    list all job options"));
}
