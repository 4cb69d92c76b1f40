//! Live reports: the JSON Lines framing of `--status-interval` with json/json+, and
//! the compact per-interval line of `--output-format=interval` (docs/live.md).
//!
//! fio prints one pretty JSON document after another, which is not valid JSON as a
//! stream (fio issue #672). ferrio prints every report as ONE line holding one
//! complete JSON document (JSON Lines): `{"ferrio_report" : "periodic", "seq" : 1,
//! ..., "cumulative" : {fio's document}, "interval" : {fio's document of the interval}}`.

use crate::json::value::{fmt_f, Object, Value};
use ferrio_stats::LatencyHistogram;
use std::fmt::Write;

fn escape(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn value(v: &Value, out: &mut String) {
    match v {
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        // JSON has no nan/inf: null keeps the line valid.
        Value::Float(f) if !f.is_finite() => out.push_str("null"),
        Value::Float(f) => out.push_str(&fmt_f(*f)),
        Value::Str(s) => escape(s, out),
        Value::Obj(o) => object(o, out),
        Value::Arr(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                value(e, out);
            }
            out.push(']');
        }
    }
}

fn object(o: &Object, out: &mut String) {
    out.push('{');
    for (i, (k, v)) in o.0.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        escape(k, out);
        out.push(':');
        value(v, out);
    }
    out.push('}');
}

/// The object on one line, no whitespace, no trailing newline.
pub fn compact(o: &Object) -> String {
    let mut out = String::new();
    object(o, &mut out);
    out
}

/// Which report a JSON line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Every --status-interval.
    Periodic,
    /// Asked for with SIGUSR1.
    Signal,
    /// The end of the run (the last line).
    Final,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Periodic => "periodic",
            Kind::Signal => "signal",
            Kind::Final => "final",
        }
    }
}

/// Facts of one live report besides its two documents.
#[derive(Clone, Debug)]
pub struct Frame {
    pub kind: Kind,
    /// 1, 2, ... over the run (signal and final reports included).
    pub seq: u64,
    /// Milliseconds since the run started, and since the previous report.
    pub elapsed_ms: u64,
    pub interval_ms: u64,
    /// Extra top-level keys (e.g. the steady-state criterion), in order.
    pub extra: Vec<(String, Value)>,
}

/// One JSON Lines record: the frame, the cumulative document and the interval
/// document (both in fio's json layout), ending with a newline.
pub fn json_line(frame: &Frame, cumulative: Object, interval: Object) -> String {
    let mut o = Object::new();
    o.str("ferrio_report", frame.kind.name())
        .int("seq", frame.seq)
        .int("elapsed_ms", frame.elapsed_ms)
        .int("interval_ms", frame.interval_ms);
    for (k, v) in &frame.extra {
        o.0.push((k.clone(), v.clone()));
    }
    o.obj("cumulative", cumulative).obj("interval", interval);
    let mut s = compact(&o);
    s.push('\n');
    s
}

/// One direction of one interval for the interval line.
#[derive(Clone, Debug)]
pub struct LineData<'a> {
    /// "read", "write", "trim".
    pub dir: &'a str,
    /// Seconds since the run started at the end of the interval.
    pub elapsed_ms: u64,
    /// Length of the interval the line covers (the whole run for a total line).
    pub span_ms: u64,
    pub ios: u64,
    pub bytes: u64,
    /// Latency of the interval's I/Os (total latency, or completion latency when
    /// total latency is not measured).
    pub lat: &'a LatencyHistogram,
    pub percentiles: &'a [f64],
    /// A whole-run total line rather than an interval.
    pub total: bool,
}

/// A latency in nanoseconds written with a unit that keeps 3-4 significant digits.
pub fn fmt_lat(ns: f64) -> String {
    if ns < 10_000.0 {
        format!("{ns:.0}ns")
    } else if ns < 10_000_000.0 {
        format!("{:.1}us", ns / 1e3)
    } else if ns < 10_000_000_000.0 {
        format!("{:.1}ms", ns / 1e6)
    } else {
        format!("{:.1}s", ns / 1e9)
    }
}

/// A percentile's name: 50 -> "p50", 99.9 -> "p99.9".
pub fn pct_name(p: f64) -> String {
    let s = format!("{p}");
    format!("p{s}")
}

/// The interval line (no trailing newline), in the spirit of SBK's:
///
/// `    2.000s read     12345 ios    6172.5 ios/s    24.11 MiB/s  avg=152.3us max=1.2ms p50=150.0us p99=301.0us`
///
/// A total line starts with `total` instead of the time. Fields are separated by
/// spaces; `name=value` pairs carry the latencies.
pub fn line(d: &LineData) -> String {
    let secs = d.span_ms as f64 / 1000.0;
    let (iops, mibs) = if secs > 0.0 {
        (d.ios as f64 / secs, d.bytes as f64 / secs / 1048576.0)
    } else {
        (0.0, 0.0)
    };
    let when = if d.total {
        "   total".to_string()
    } else {
        format!("{:7.3}s", d.elapsed_ms as f64 / 1000.0)
    };
    let mut s = format!(
        "{when} {:<5} {:>10} ios {:>12.1} ios/s {:>10.2} MiB/s  avg={} max={}",
        d.dir,
        d.ios,
        iops,
        mibs,
        fmt_lat(d.lat.mean()),
        fmt_lat(d.lat.max() as f64)
    );
    let vals = d.lat.percentiles(d.percentiles);
    for (p, v) in d.percentiles.iter().zip(vals) {
        let _ = write!(s, " {}={}", pct_name(*p), fmt_lat(v as f64));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_is_one_line_and_valid() {
        let mut inner = Object::new();
        inner.int("a", 1u64).float("b", 2.5).float("c", f64::NAN);
        let mut root = Object::new();
        root.str("n\"ame", "x\ny")
            .obj("o", inner)
            .arr("l", vec![Value::Int(1), Value::Int(-2)]);
        assert_eq!(
            compact(&root),
            "{\"n\\\"ame\":\"x\\u000ay\",\"o\":{\"a\":1,\"b\":2.500000,\"c\":null},\"l\":[1,-2]}"
        );
    }

    #[test]
    fn json_line_frame() {
        let f = Frame {
            kind: Kind::Periodic,
            seq: 3,
            elapsed_ms: 3000,
            interval_ms: 1000,
            extra: vec![],
        };
        let l = json_line(&f, Object::new(), Object::new());
        assert_eq!(
            l,
            "{\"ferrio_report\":\"periodic\",\"seq\":3,\"elapsed_ms\":3000,\"interval_ms\":1000,\"cumulative\":{},\"interval\":{}}\n"
        );
    }

    #[test]
    fn interval_line_fields() {
        let mut h = LatencyHistogram::new();
        for v in [1000u64, 2000, 3000, 4000] {
            h.record(v);
        }
        let l = line(&LineData {
            dir: "read",
            elapsed_ms: 2000,
            span_ms: 1000,
            ios: 4,
            bytes: 4 * 1048576,
            lat: &h,
            percentiles: &[50.0, 99.9],
            total: false,
        });
        assert_eq!(
            l,
            "  2.000s read           4 ios          4.0 ios/s       4.00 MiB/s  avg=2500ns max=4000ns p50=2008ns p99.9=4016ns"
        );
        assert_eq!(fmt_lat(123_456.0), "123.5us");
        assert_eq!(fmt_lat(12_345_678.0), "12.3ms");
        assert_eq!(pct_name(99.99), "p99.99");
    }
}
