//! The generated files against the committed ones, the man page against the tables
//! and against mandoc/groff, and the completions in real shells.

use super::*;
use std::path::PathBuf;
use std::process::Command;

fn repo(p: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(p)
}

/// A checker tool is missing: skip visibly, except in CI where it must be there.
fn missing(tool: &str, apt: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{tool} is required in CI (apt-get install -y {apt})"
        );
        eprintln!("SKIP: {tool} not installed (apt-get install -y {apt})");
    }
    !found
}

/// The content written to a fresh temporary file (removed on drop).
struct Temp(PathBuf);
impl Temp {
    fn new(tag: &str, content: &str) -> Temp {
        let p = std::env::temp_dir().join(format!("ferrio-extras-{}-{tag}", std::process::id()));
        std::fs::write(&p, content).unwrap();
        Temp(p)
    }
}
impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn committed_files_are_up_to_date() {
    let mut stale = Vec::new();
    for e in EXTRAS {
        let path = repo(e.repo_path);
        let want = (e.generate)();
        if std::fs::read_to_string(&path).unwrap_or_default() != want {
            if std::env::var_os("FERRIO_UPDATE_DOCS").is_some() {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, want).unwrap();
            } else {
                stale.push(e.repo_path);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "{stale:?} stale: run `FERRIO_UPDATE_DOCS=1 cargo test -p ferrio-config committed_files_are_up_to_date`"
    );
}

#[test]
fn manpage_has_every_option_flag_and_engine() {
    let m = manpage();
    let entries = m.matches(".TP\n\\fB").count();
    let options = table::all().count();
    let flags = flag_docs().iter().filter(|f| f.supported).count();
    let values: usize = table::all().map(|o| o.values.len()).sum();
    let engines = table::find("ioengine").unwrap().values.len();
    assert_eq!(
        entries,
        options + flags,
        "one .TP entry per option and flag"
    );
    // Each allowed value, each engine and the five exit codes are tagged with .B.
    assert_eq!(m.matches(".TP\n.B ").count(), values + engines + 5);
    for o in table::all() {
        let entry = format!(".TP\n\\fB{}\\fR\n", o.name.replace('-', "\\-"));
        assert!(m.contains(&entry), "{} missing", o.name);
    }
    for f in flag_docs() {
        assert!(m.contains(&format!("\\-\\-{}", f.names[0].replace('-', "\\-"))));
    }
    for s in ["NAME", "SYNOPSIS", "DESCRIPTION", "ENGINES", "EXIT STATUS"] {
        assert!(m.contains(&format!("\n.SH {s}\n")), "{s}");
    }
    assert!(m.contains("\n.B 128\n") && m.contains(".BR fio (1)"));
    assert!(m.contains(".B io_uring\n"), "engines listed");
    assert!(m.is_ascii() && !m.contains("\n\n") && !m.contains(" \n"));
}

#[test]
fn manpage_renders_without_warnings() {
    let page = Temp::new("ferrio.1", &manpage());
    let path = page.0.to_str().unwrap();
    if !missing("mandoc", "mandoc") {
        let o = Command::new("mandoc")
            .args(["-Tlint", path])
            .output()
            .unwrap();
        let text =
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success() && text.trim().is_empty(),
            "mandoc -Tlint:\n{text}"
        );
    }
    if !missing("groff", "groff-base") {
        let o = Command::new("groff")
            .args(["-ww", "-z", "-man", "-Tutf8", path])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success() && err.trim().is_empty(),
            "groff -ww:\n{err}"
        );
    }
}

/// COMPREPLY of `_ferrio` in a real bash for these words, the last being completed.
fn bash_complete(script: &Temp, words: &[&str], wordbreaks_eq: bool) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let setup = if wordbreaks_eq {
        ""
    } else {
        "COMP_WORDBREAKS=${COMP_WORDBREAKS//=}; "
    };
    let cmd = format!(
        "{setup}source '{}' && COMP_WORDS=({}) && COMP_CWORD={} && _ferrio && for r in \"${{COMPREPLY[@]}}\"; do echo \"$r\"; done",
        script.0.display(),
        quoted.join(" "),
        words.len() - 1
    );
    let o = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &cmd])
        .output()
        .expect("run bash");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_values_options_and_files() {
    let script = Temp::new("bash", &bash::bash());
    let rw = [
        "read",
        "write",
        "randread",
        "randwrite",
        "rw",
        "readwrite",
        "randrw",
        "trim",
    ];
    // `ferrio --rw=` as bash splits it by default (`=` a word of its own) ...
    let got = bash_complete(&script, &["ferrio", "--rw", "="], true);
    for v in rw {
        assert!(got.contains(&v.to_string()), "{v} not offered: {got:?}");
    }
    // ... every value of the option table's rw, no more.
    let table_rw: Vec<String> = table::find("rw")
        .unwrap()
        .values
        .iter()
        .map(|v| v.0.to_string())
        .collect();
    let mut sorted = got.clone();
    sorted.sort();
    let mut want = table_rw.clone();
    want.sort();
    assert_eq!(sorted, want, "--rw= offers the table's values");
    assert!(!got.contains(&"psync".to_string()));
    // ... and as one word.
    let got = bash_complete(&script, &["ferrio", "--rw="], false);
    for v in rw {
        assert!(
            got.contains(&format!("--rw={v}")),
            "--rw={v} not offered: {got:?}"
        );
    }
    let got = bash_complete(&script, &["ferrio", "--rw", "=", "rand"], true);
    assert!(
        got.iter().all(|v| v.starts_with("rand")) && got.contains(&"randrw".into()),
        "{got:?}"
    );
    // Option names.
    let got = bash_complete(&script, &["ferrio", "--iodep"], true);
    assert!(got.contains(&"--iodepth=".into()), "{got:?}");
    assert!(got.contains(&"--iodepth_batch=".into()), "{got:?}");
    assert!(got.iter().all(|w| w.starts_with("--iodepth")), "{got:?}");
    let typo = bash_complete(&script, &["ferrio", "--iodeng"], true);
    assert_eq!(typo, got, "a typo completes as its longest matching prefix");
    assert!(bash_complete(&script, &["ferrio", "--zzzz"], true).is_empty());
    let got = bash_complete(&script, &["ferrio", "--na"], true);
    assert_eq!(got, ["--name=", "--namenode="]);
    // Flag values, comma lists, the next-word form.
    let got = bash_complete(&script, &["ferrio", "--output-format=json,te"], false);
    assert_eq!(got, ["--output-format=json,terse"]);
    let got = bash_complete(&script, &["ferrio", "--ioengine", "io_"], true);
    assert_eq!(got, ["io_uring"]);
    // Job files for the positional argument.
    let dir = repo("tests/jobs");
    let prefix = format!("{}/", dir.display());
    let got = bash_complete(&script, &["ferrio", &prefix], true);
    assert!(
        !got.is_empty() && got.iter().all(|f| f.starts_with(&prefix)),
        "{got:?}"
    );
}

#[test]
fn zsh_and_fish_scripts_parse() {
    for (tool, tag, text) in [("zsh", "zsh", zsh::zsh()), ("fish", "fish", fish::fish())] {
        if missing(tool, tool) {
            continue;
        }
        let f = Temp::new(tag, &text);
        let o = Command::new(tool).arg("-n").arg(&f.0).output().unwrap();
        assert!(
            o.status.success(),
            "{tool} -n: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn completion_words_cover_every_accepted_option() {
    let ws = words();
    let names: Vec<&str> = ws.iter().flat_map(|w| w.names.iter().copied()).collect();
    for o in table::all().filter(|o| o.support != Support::No) {
        assert!(names.contains(&o.name), "{}", o.name);
    }
    for o in table::all().filter(|o| o.support == Support::No) {
        assert!(
            !names.contains(&o.name),
            "refused option {} is offered",
            o.name
        );
    }
    for n in FILE_VALUED.iter().chain(DIR_VALUED) {
        assert!(names.contains(n), "{n} is neither an option nor a flag");
    }
    for f in ["html", "trigger-file", "tls-cert", "output", "read_iolog"] {
        let w = ws.iter().find(|w| w.names.contains(&f)).unwrap();
        assert_eq!(w.values, Values::File, "{f} completes file names");
    }
    for f in ["install-extras", "aux-path", "directory"] {
        let w = ws.iter().find(|w| w.names.contains(&f)).unwrap();
        assert_eq!(w.values, Values::Dir, "{f} completes directories");
    }
    let rw = ws.iter().find(|w| w.names.contains(&"rw")).unwrap();
    assert!(matches!(&rw.values, Values::Words(v) if v.contains(&"randtrim".to_string())));
}

#[test]
fn fish_completes_rw_values_and_option_names() {
    if missing("fish", "fish") {
        return;
    }
    let f = Temp::new("fish-c", &fish::fish());
    let complete = |line: &str| -> String {
        let cmd = format!("source {}; complete -C '{line}'", f.0.display());
        let o = Command::new("fish").args(["-c", &cmd]).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let got = complete("ferrio --rw=");
    for v in ["read", "randwrite", "trimwrite"] {
        assert!(got.contains(&format!("--rw={v}\t")), "{v}: {got}");
    }
    let got = complete("ferrio --iodep");
    assert!(
        got.lines().all(|l| l.starts_with("--iodepth")) && got.contains("--iodepth_low"),
        "{got}"
    );
}

/// Drives an interactive zsh in a pseudo-terminal: types `ferrio WORDS<Tab>` with
/// `_ferrio` in $fpath and prints every candidate the completion adds as `CAND:x`,
/// then `SEEN-END` once the shell has answered.
const ZSH_DRIVER: &str = r#"
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z 'PROMPT= ; fpath=($FERRIO_FPATH $fpath); autoload -U compinit; compinit -u -D'
zpty -w z 'compprefuncs=(cap); cap() { compadd() { local -a h; builtin compadd -O h "$@"; print -l -- "CA""ND:"${^h}; builtin compadd "$@" } }'
zpty -w z 'bindkey "^I" complete-word'
zpty -n -w z "ferrio $1"$'\t'
zpty -n -w z $'\n'
zpty -w z 'print EN""D'
out=
for i in {1..600}; do
  if zpty -r -t z chunk; then out+=$chunk; [[ $out == *END* ]] && break; else sleep 0.05; fi
done
print -r -- $out | tr -d '\r' | grep -a -o 'CAND:.*'
[[ $out == *END* ]] && print SEEN-END
zpty -d z
"#;

#[test]
fn zsh_completes_rw_values_and_option_names() {
    if missing("zsh", "zsh") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ferrio-extras-{}-fpath", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("_ferrio"), zsh::zsh()).unwrap();
    let driver = Temp::new("zsh-driver", ZSH_DRIVER);
    let complete = |words: &str| -> Vec<String> {
        let o = Command::new("zsh")
            .arg("-f")
            .arg(&driver.0)
            .arg(words)
            .env("FERRIO_FPATH", &dir)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(out.contains("SEEN-END"), "zsh did not answer: {out}");
        out.lines()
            .filter_map(|l| l.strip_prefix("CAND:"))
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect()
    };
    let rw = complete("--rw=");
    let iodep = complete("--iodep");
    let _ = std::fs::remove_dir_all(&dir);
    for v in ["read", "write", "randread", "randwrite", "trimwrite"] {
        assert!(rw.contains(&v.to_string()), "{v}: {rw:?}");
    }
    assert!(iodep.contains(&"--iodepth".to_string()), "{iodep:?}");
    assert!(
        iodep.iter().all(|c| c.starts_with("--iodepth")),
        "{iodep:?}"
    );
}

#[test]
fn manpage_job_examples_parse() {
    let m = manpage();
    let examples = m.split("\n.SH EXAMPLES\n").nth(1).unwrap();
    let text = examples.replace(" \\e\n", " ").replace("\\-", "-");
    let mut checked = 0;
    for line in text.lines().filter(|l| l.starts_with("ferrio --name=")) {
        let args: Vec<String> = line
            .split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect();
        match crate::cli::parse_command_line(&args, false).map(|p| p.command) {
            Ok(crate::cli::Command::Run(_)) => checked += 1,
            other => panic!("{line}: {:?}", other.err()),
        }
    }
    assert_eq!(checked, 2);
}
