//! The man page `ferrio.1` (man(7) macros), from the run-wide flag table and the
//! option table: every flag, every job option with its type, default, allowed values
//! and help, the engines (ioengine's values), exit status and examples.

use crate::cli::{flag_docs, FlagArg};
use crate::table::{self, Category, OptSpec, Support};

/// Text escaped for roff: backslashes, hyphens as minus signs (options are typed with
/// them), anything beyond ASCII as a `\[uXXXX]` glyph, and a break point after a `:`
/// or `,` inside a word so long lists like percentile_list's default can wrap.
fn esc(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str(r"\e"),
            '-' => out.push_str(r"\-"),
            ':' | ',' => {
                out.push(c);
                if chars.peek().is_some_and(|n| !n.is_whitespace()) {
                    out.push_str(r"\:");
                }
            }
            c if c.is_ascii() => out.push(c),
            c => out.push_str(&format!("\\[u{:04X}]", c as u32)),
        }
    }
    out
}

/// Width of the source lines (mandoc's style check wants at most 80 bytes).
const WIDTH: usize = 78;

/// [`esc`] for running text, wrapped (see [`wrap`]).
fn esc_line(s: &str) -> String {
    wrap(&esc(s))
}

/// Escaped text as source lines of at most [`WIDTH`] bytes where words allow (a word
/// longer than that is cut at its `\:` break points, joined again by `\c`), each line
/// starting with `.` or `'` guarded so it is never read as a request.
fn wrap(escaped: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for w in escaped.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + w.len() > WIDTH {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        for (i, piece) in w.split_inclusive(r"\:").enumerate() {
            if i > 0 && line.len() + piece.len() > WIDTH {
                line.push_str(r"\c");
                lines.push(std::mem::take(&mut line));
            }
            line.push_str(piece);
        }
    }
    lines.push(line);
    let guarded: Vec<String> = lines
        .into_iter()
        .map(|l| {
            if l.starts_with('.') || l.starts_with('\'') {
                format!(r"\&{l}")
            } else {
                l
            }
        })
        .collect();
    guarded.join("\n")
}

const HEAD: &str = r#".\" Generated from ferrio's option and flag tables by
.\" ferrio_config::extras::manpage() (crates/config/src/extras/manpage.rs): do not edit.
.TH FERRIO 1 @DATE@ "ferrio @VERSION@" "User Commands"
.\" Option names must not be hyphenated, nor spread out to fill the line.
.nh
.ad l
.SH NAME
ferrio \- fast, fio\-compatible storage I/O benchmark
.SH SYNOPSIS
.B ferrio
[\fIflags\fR]
[\fB\-\-\fIoption\fB=\fIvalue\fR ...]
[\fB\-\-name=\fIjob\fR [\fB\-\-\fIoption\fB=\fIvalue\fR ...] ...]
[\fIjobfile\fR ...]
.SH DESCRIPTION
.B ferrio
runs storage I/O benchmarks described as
.BR fio (1)
describes them: in job files (INI sections, one job per section, a
.B [global]
section for defaults) and/or on the command line.
On the command line,
.BI \-\-name= job
starts a job and the options after it belong to that job; options before the
first
.B \-\-name
(or after
.BR \-\-name=global )
are defaults for the jobs after them and for every job file.
A job option is written
.I option=value
in a job file and
.BI \-\- option = value
(or
.BI \-\- option " value"
when it needs a value) on the command line.
Arguments not starting with
.B \-\-
are job files.
.PP
Sizes take k/m/g/t/p units (kb_base decides 1000 or 1024), times take
us/ms/s/m/h/d, and any number may be an arithmetic expression in parentheses.
fio options and flags ferrio does not implement yet are refused by name, never
silently ignored.
.SH RUN\-WIDE FLAGS
These apply to the whole run and may appear anywhere on the command line.
"#;

const TAIL: &str = r#".SH EXIT STATUS
.TP
.B 0
Every job ran to its end without an error.
.TP
.B 1
Bad input (options, job files, a refused device or resource request: nothing
was touched).
.TP
.B N
N threads failed (1 to 127), as fio counts them: each clone of numjobs that
stopped on an I/O error, a verify failure or a file that could not be laid out.
Their results are still printed. fio's count wraps modulo 256; ferrio's stops
at 127.
.TP
.B 128
Stopped by SIGINT or SIGTERM, as fio 3.33 does (plus the threads that had
failed by then): the results measured until then are printed in full and
standard error says
.IR "ferrio: terminating on signal N" .
.TP
.B 141
Killed by SIGPIPE, as fio is: the reader of standard output went away
(\fBferrio ... | head\fR). Nothing more is printed; with live reports the run
stops first, so unlink=1 still removes its files and --output is written.
.SH EXAMPLES
4 KiB random reads over a 64 MiB temporary file, removed afterwards:
.PP
.RS
.nf
ferrio \-\-name=t \-\-rw=randread \-\-bs=4k \-\-size=64M \e
       \-\-directory=/tmp \-\-unlink=1
.fi
.RE
.PP
Run one section of a job file with O_DIRECT, reporting JSON:
.PP
.RS
.nf
ferrio \-\-direct=1 jobs.fio \-\-section=randread \-\-output\-format=json
.fi
.RE
.PP
A minute on the simulated device in virtual time (no real I/O, no waiting):
.PP
.RS
.nf
ferrio \-\-name=s \-\-ioengine=sim \-\-clocksource=virtual \-\-rw=randwrite \e
       \-\-size=1g \-\-runtime=60 \-\-time_based
.fi
.RE
.PP
Details on one option; the man page and completions installed under
~/.local:
.PP
.RS
.nf
ferrio \-\-cmdhelp=iodepth
ferrio \-\-install\-extras ~/.local
.fi
.RE
.SH SEE ALSO
.BR fio (1)
.PP
The documents in the
.I docs/
directory of the ferrio sources (docs/README.md lists them).
"#;

fn flags_section() -> String {
    let mut s = String::new();
    for f in flag_docs().iter().filter(|f| f.supported) {
        let names: Vec<String> = f
            .names
            .iter()
            .map(|n| {
                let n = esc(n);
                match f.arg {
                    FlagArg::None => format!(r"\fB\-\-{n}\fR"),
                    FlagArg::Value => format!(r"\fB\-\-{n}=\fI{}\fR", esc(f.meta)),
                    FlagArg::Optional => format!(r"\fB\-\-{n}\fR[\fB=\fI{}\fR]", esc(f.meta)),
                }
            })
            .collect();
        s += &format!(".TP\n{}\n{}\n", names.join(", "), esc_line(&f.help));
    }
    let refused: Vec<String> = flag_docs()
        .iter()
        .filter(|f| !f.supported)
        .map(|f| format!(r"\fB\-\-{}\fR", esc(f.names[0])))
        .collect();
    s += ".PP\nfio flags ferrio does not support yet (refused with an error):\n";
    s += &refused.join(",\n");
    s += ".\n";
    s
}

fn option_entry(o: &OptSpec) -> String {
    let note = match o.support {
        Support::Yes => "",
        Support::NoOp => " (accepted, no effect)",
        Support::No => " (not supported by ferrio yet: using it is an error)",
    };
    let help = esc_line(&format!("{}{note}", o.help));
    let mut s = format!(".TP\n\\fB{}\\fR\n{help}\n", esc(o.name));
    let mut facts = Vec::new();
    if !o.aliases.is_empty() {
        let a: Vec<String> = o
            .aliases
            .iter()
            .map(|a| format!(r"\fB{}\fR", esc(a)))
            .collect();
        facts.push(format!("Alias: {}.", a.join(", ")));
    }
    if o.support != Support::No {
        facts.push(format!("Type: {}.", esc(o.kind.describe())));
    }
    if !o.default.is_empty() {
        facts.push(format!(r"Default: \fB{}\fR.", esc(o.default)));
    }
    if o.min.is_some() || o.max.is_some() {
        let lo = o.min.map(|v| v.to_string()).unwrap_or_default();
        let hi = o.max.map(|v| v.to_string()).unwrap_or_default();
        facts.push(format!("Range: {lo}..{hi}."));
    }
    for f in facts {
        s += &format!(".br\n{}\n", wrap(&f));
    }
    if !o.values.is_empty() {
        s += ".br\nValues:\n.RS\n";
        for (v, h) in o.values {
            s += &format!(".TP\n.B {}\n{}\n", quote_arg(&esc(v)), esc_line(h));
        }
        s += ".RE\n";
    }
    s
}

/// A macro argument: quoted when it has spaces.
fn quote_arg(s: &str) -> String {
    if s.contains(' ') {
        format!("\"{s}\"")
    } else {
        s.to_string()
    }
}

fn options_section() -> String {
    let mut s = String::from(
        ".SH JOB OPTIONS\n\
         The same in job files and on the command line; grouped as\n\
         .B \\-\\-cmdhelp\n\
         lists them.\n",
    );
    for cat in Category::ALL {
        s += &format!(".SS {}\n", esc(cat.title()));
        for o in table::all().filter(|o| o.category == cat) {
            s += &option_entry(o);
        }
    }
    s
}

fn engines_section() -> String {
    let mut s = String::from(
        ".SH ENGINES\n\
         The values of\n\
         .BR ioengine ;\n\
         psync is the default.\n",
    );
    if let Some(o) = table::find("ioengine") {
        for (v, h) in o.values {
            s += &format!(".TP\n.B {}\n{}\n", quote_arg(&esc(v)), esc_line(h));
        }
    }
    let not_yet: Vec<String> = table::ENGINES_NOT_YET
        .iter()
        .map(|e| format!(r"\fB{}\fR", esc(e.0)))
        .collect();
    s += ".PP\nfio engines ferrio does not support yet (refused with an error):\n";
    s += &not_yet.join(",\n");
    s += ".\n";
    s
}

/// The page's date: when its layout last changed (the content follows the tables;
/// a date taken from the clock would make the committed page stale every day).
const DATE: &str = "2026-11-22";

/// The content of man/ferrio.1.
pub fn manpage() -> String {
    let head = HEAD
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"))
        .replace("@DATE@", DATE);
    head + &flags_section() + &options_section() + &engines_section() + TAIL
}
