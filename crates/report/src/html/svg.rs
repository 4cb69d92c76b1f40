//! Inline SVG charts drawn here: line charts (several series, optional shaded x
//! range, linear or log y axis) and bar charts. No script, no external font or
//! stylesheet: the page renders offline in any browser.

use std::fmt::Write;

/// Series colours (distinct, readable on white).
pub const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

const W: f64 = 660.0;
const H: f64 = 300.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 46.0;

/// One line of a chart.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A line chart.
pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub lines: Vec<Line>,
    /// Shade this x range (e.g. the steady-state window).
    pub shade: Option<(f64, f64, &'a str)>,
    /// Label x ticks with these names at x = 0, 1, 2, ... instead of numbers.
    pub x_names: Option<Vec<String>>,
    pub log_y: bool,
}

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A short number for an axis tick.
fn tick_text(v: f64) -> String {
    let a = v.abs();
    let (x, suffix, decimals) = if a >= 1e9 {
        (v / 1e9, "G", 3)
    } else if a >= 1e6 {
        (v / 1e6, "M", 3)
    } else if a >= 1e4 {
        (v / 1e3, "k", 1)
    } else if a >= 10.0 || a == 0.0 {
        (v, "", 0)
    } else {
        (v, "", 3)
    };
    let mut n = format!("{x:.decimals$}");
    if n.contains('.') {
        n = n.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    n + suffix
}

/// "Nice" tick positions covering [lo, hi].
fn ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let raw = span / n as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= n as f64)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 {
        out.push(t);
        t += step;
    }
    out
}

impl LineChart<'_> {
    pub fn render(&self) -> String {
        let pts = self.lines.iter().flat_map(|l| l.points.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in pts {
            if !x.is_finite() || !y.is_finite() || (self.log_y && y <= 0.0) {
                continue;
            }
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        let mut s = String::new();
        let _ = write!(
            s,
            r#"<svg class="chart" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img"><title>{t}</title><rect x="0" y="0" width="{W}" height="{H}" fill="white"/><text x="{cx}" y="18" text-anchor="middle" class="ct">{t}</text>"#,
            t = escape(self.title),
            cx = W / 2.0
        );
        if x0 > x1 {
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" text-anchor="middle">no data</text></svg>"#,
                W / 2.0,
                H / 2.0
            );
            return s;
        }
        let fy = |y: f64| if self.log_y { y.log10() } else { y };
        let (mut ylo, mut yhi) = if self.log_y {
            (fy(y0).floor(), fy(y1).ceil())
        } else {
            (0f64.min(y0), y1 * 1.08)
        };
        if yhi <= ylo {
            yhi = ylo + 1.0;
        }
        if !self.log_y && y0 < 0.0 {
            ylo = y0 * 1.08;
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
        let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
        let sy = |y: f64| TOP + ph - (fy(y) - ylo) / (yhi - ylo) * ph;
        if let Some((a, b, label)) = self.shade {
            let (a, b) = (sx(a.max(x0)), sx(b.min(x1)));
            if b > a {
                let _ = write!(
                    s,
                    r##"<rect x="{a:.1}" y="{TOP}" width="{:.1}" height="{ph}" fill="#fff3c4"/><text x="{:.1}" y="{:.1}" class="sm">{}</text>"##,
                    b - a,
                    a + 3.0,
                    TOP + 12.0,
                    escape(label)
                );
            }
        }
        // Axes and grid.
        let yt: Vec<f64> = if self.log_y {
            (ylo as i32..=yhi as i32).map(|e| 10f64.powi(e)).collect()
        } else {
            ticks(ylo, yhi, 5)
        };
        for y in yt {
            let py = sy(y);
            let _ = write!(
                s,
                r##"<line x1="{LEFT}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}" stroke="#e5e5e5"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="sm">{}</text>"##,
                W - RIGHT,
                LEFT - 4.0,
                py + 4.0,
                tick_text(y)
            );
        }
        match &self.x_names {
            Some(names) => {
                for (i, n) in names.iter().enumerate() {
                    let px = sx(i as f64);
                    let _ = write!(
                        s,
                        r#"<text x="{px:.1}" y="{:.1}" text-anchor="middle" class="sm">{}</text>"#,
                        TOP + ph + 16.0,
                        escape(n)
                    );
                }
            }
            None => {
                for x in ticks(x0, x1, 8) {
                    let px = sx(x);
                    let _ = write!(
                        s,
                        r#"<text x="{px:.1}" y="{:.1}" text-anchor="middle" class="sm">{}</text>"#,
                        TOP + ph + 16.0,
                        tick_text(x)
                    );
                }
            }
        }
        let _ = write!(
            s,
            r##"<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{:.1}" stroke="#333"/><line x1="{LEFT}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#333"/><text x="{:.1}" y="{:.1}" text-anchor="middle" class="sm">{}</text><text x="14" y="{:.1}" text-anchor="middle" class="sm" transform="rotate(-90 14 {:.1})">{}</text>"##,
            TOP + ph,
            W - RIGHT,
            TOP + ph,
            TOP + ph,
            LEFT + pw / 2.0,
            H - 8.0,
            escape(self.x_label),
            TOP + ph / 2.0,
            TOP + ph / 2.0,
            escape(self.y_label)
        );
        for (i, l) in self.lines.iter().enumerate() {
            let c = COLORS[i % COLORS.len()];
            let path: Vec<String> = l
                .points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite() && !(self.log_y && p.1 <= 0.0))
                .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
                .collect();
            if path.len() == 1 {
                let (x, y) = path[0].split_once(',').unwrap_or(("0", "0"));
                let _ = write!(s, r#"<circle cx="{x}" cy="{y}" r="3" fill="{c}"/>"#);
            } else {
                let _ = write!(
                    s,
                    r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
                    path.join(" ")
                );
            }
            if self.x_names.is_some() {
                for p in &path {
                    let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
                    let _ = write!(s, r#"<circle cx="{x}" cy="{y}" r="3" fill="{c}"/>"#);
                }
            }
            let ly = TOP + 4.0 + 14.0 * i as f64;
            let _ = write!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="10" height="3" fill="{c}"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="sm">{}</text>"#,
                W - RIGHT - 12.0,
                ly + 2.0,
                W - RIGHT - 16.0,
                ly + 6.0,
                escape(&l.name)
            );
        }
        s.push_str("</svg>");
        s
    }
}

/// A bar chart: one bar per (label, value).
pub fn bars(title: &str, y_label: &str, bars: &[(String, f64)]) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img"><title>{t}</title><rect x="0" y="0" width="{W}" height="{H}" fill="white"/><text x="{cx}" y="18" text-anchor="middle" class="ct">{t}</text>"#,
        t = escape(title),
        cx = W / 2.0
    );
    let max = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    if bars.is_empty() || max <= 0.0 {
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">no data</text></svg>"#,
            W / 2.0,
            H / 2.0
        );
        return s;
    }
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let bw = pw / bars.len() as f64;
    let every = (bars.len() / 12).max(1);
    for y in ticks(0.0, max * 1.08, 5) {
        let py = TOP + ph - y / (max * 1.08) * ph;
        let _ = write!(
            s,
            r##"<line x1="{LEFT}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}" stroke="#e5e5e5"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="sm">{}</text>"##,
            W - RIGHT,
            LEFT - 4.0,
            py + 4.0,
            tick_text(y)
        );
    }
    for (i, (label, v)) in bars.iter().enumerate() {
        let h = v / (max * 1.08) * ph;
        let x = LEFT + i as f64 * bw;
        let _ = write!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="{}"><title>{}: {v}</title></rect>"#,
            x + 1.0,
            TOP + ph - h,
            (bw - 2.0).max(1.0),
            COLORS[0],
            escape(label)
        );
        if i % every == 0 {
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" class="sm">{}</text>"#,
                x + bw / 2.0,
                TOP + ph + 16.0,
                escape(label)
            );
        }
    }
    let _ = write!(
        s,
        r##"<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{:.1}" stroke="#333"/><line x1="{LEFT}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#333"/><text x="14" y="{:.1}" text-anchor="middle" class="sm" transform="rotate(-90 14 {:.1})">{}</text></svg>"##,
        TOP + ph,
        W - RIGHT,
        TOP + ph,
        TOP + ph,
        TOP + ph / 2.0,
        TOP + ph / 2.0,
        escape(y_label)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 10.0, 5), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let t = ticks(0.0, 1234.0, 5);
        assert_eq!(t[1] - t[0], 500.0);
        assert_eq!(tick_text(25000.0), "25k");
        assert_eq!(tick_text(1.5e6), "1.5M");
        assert_eq!(tick_text(0.25), "0.25");
    }

    #[test]
    fn a_chart_draws_its_lines_and_escapes_text() {
        let c = LineChart {
            title: "a<b",
            x_label: "s",
            y_label: "MiB/s",
            lines: vec![Line {
                name: "read".into(),
                points: vec![(0.0, 1.0), (1.0, 2.0), (2.0, 1.5)],
            }],
            shade: Some((1.0, 2.0, "steady state")),
            x_names: None,
            log_y: false,
        }
        .render();
        assert!(c.starts_with("<svg") && c.ends_with("</svg>"));
        assert!(c.contains("a&lt;b") && !c.contains("a<b"));
        assert!(c.contains("<polyline") && c.contains("steady state"));
        assert!(!c.contains("http"), "no external reference");
        let empty = LineChart {
            lines: vec![],
            shade: None,
            ..c_empty()
        }
        .render();
        assert!(empty.contains("no data"));
        assert!(bars("h", "n", &[("1us".into(), 3.0)]).contains("<rect x="));
    }

    fn c_empty() -> LineChart<'static> {
        LineChart {
            title: "t",
            x_label: "",
            y_label: "",
            lines: vec![],
            shade: None,
            x_names: None,
            log_y: true,
        }
    }
}
