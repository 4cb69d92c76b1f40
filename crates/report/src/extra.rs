//! ferrio's extra statistics: numbers an engine or a job feature publishes beyond
//! fio's (the simulated device's buffers in flight, the adaptive pacer's period).
//! The runner passes them through without knowing what they are; each printer
//! shows them after fio's fields (JSON: keys after fio's in the job object;
//! normal: a line after fio's lines; the sweep table: columns after its metrics),
//! so fio's tools still read everything else where they expect it.

/// One published statistic.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExtraStat {
    /// The JSON key (and sweep CSV/JSON column), e.g. `sim_buffers_in_flight_mean`.
    pub key: String,
    /// The normal output line it is printed on (`sim`, `pacer`) and its name there.
    pub line: String,
    pub name: String,
    pub value: f64,
    pub unit: ExtraUnit,
    /// How group_reporting (and a sweep's jobs of one name) combine two values.
    pub merge: ExtraMerge,
    /// Values combined so far (the weight of a mean).
    pub n: u32,
}

/// How a value is written in the normal output and the sweep's text table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ExtraUnit {
    /// A count or mean count: one decimal (`95.2`), or none when whole.
    #[default]
    Count,
    /// A time in ns, printed in µs with three decimals (`22.800us`); JSON keeps ns.
    Nanos,
}

/// How values of several jobs combine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ExtraMerge {
    /// Add (each job's own share of something, e.g. its buffers in flight).
    #[default]
    Sum,
    /// Average over the jobs (a per-job setting such as a period).
    Mean,
    /// The largest (a shared resource every job reports whole, e.g. a pool's size).
    Max,
}

impl ExtraStat {
    /// A statistic of one job.
    pub fn new(key: &str, line: &str, name: &str, value: f64) -> ExtraStat {
        ExtraStat {
            key: key.into(),
            line: line.into(),
            name: name.into(),
            value,
            unit: ExtraUnit::Count,
            merge: ExtraMerge::Sum,
            n: 1,
        }
    }

    pub fn nanos(mut self) -> ExtraStat {
        self.unit = ExtraUnit::Nanos;
        self
    }

    pub fn merged_by(mut self, m: ExtraMerge) -> ExtraStat {
        self.merge = m;
        self
    }

    /// The value as the normal output and the sweep text table write it.
    pub fn shown(&self) -> String {
        show(self.value, self.unit)
    }
}

/// `v` in `unit` for text: a count with one decimal unless whole, a time in µs.
pub fn show(v: f64, unit: ExtraUnit) -> String {
    match unit {
        ExtraUnit::Count if v.fract() == 0.0 => format!("{v:.0}"),
        ExtraUnit::Count => format!("{v:.1}"),
        ExtraUnit::Nanos => format!("{:.3}us", v / 1000.0),
    }
}

/// Fold `other` into `into` by key (group_reporting): a key already there combines
/// by its merge rule, a new one is appended.
pub fn merge(into: &mut Vec<ExtraStat>, other: &[ExtraStat]) {
    for o in other {
        match into.iter_mut().find(|s| s.key == o.key) {
            Some(s) => {
                s.value = match s.merge {
                    ExtraMerge::Sum => s.value + o.value,
                    ExtraMerge::Max => s.value.max(o.value),
                    ExtraMerge::Mean => {
                        let (a, b) = (s.n.max(1) as f64, o.n.max(1) as f64);
                        (s.value * a + o.value * b) / (a + b)
                    }
                };
                s.n = s.n.max(1) + o.n.max(1);
            }
            None => into.push(o.clone()),
        }
    }
}

/// The normal output's lines, one per `line` in order of first appearance:
/// `     pacer     : period=22.800us, mean_period=23.412us`.
pub fn normal_lines(stats: &[ExtraStat]) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for s in stats {
        if !lines.contains(&s.line.as_str()) {
            lines.push(&s.line);
        }
    }
    let mut out = String::new();
    for l in lines {
        let parts: Vec<String> = stats
            .iter()
            .filter(|s| s.line == l)
            .map(|s| format!("{}={}", s.name, s.shown()))
            .collect();
        out.push_str(&format!("     {l:<10}: {}\n", parts.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_reporting_combines_each_key_by_its_rule() {
        let a = vec![
            ExtraStat::new("inflight", "sim", "in_flight", 10.0),
            ExtraStat::new("pool", "sim", "buffers", 96.0).merged_by(ExtraMerge::Max),
            ExtraStat::new("period", "pacer", "period", 20_000.0)
                .nanos()
                .merged_by(ExtraMerge::Mean),
        ];
        let mut m = a.clone();
        merge(&mut m, &a);
        let mut b = a.clone();
        b[2].value = 50_000.0;
        merge(&mut m, &b);
        assert_eq!(m[0].value, 30.0);
        assert_eq!(m[1].value, 96.0);
        assert_eq!(m[2].value, 30_000.0);
        let only = vec![ExtraStat::new("new", "x", "y", 1.0)];
        merge(&mut m, &only);
        assert_eq!(m.len(), 4);
        assert_eq!(
            normal_lines(&m),
            "     sim       : in_flight=30, buffers=96\n     pacer     : period=30.000us\n     x         : y=1\n"
        );
        assert_eq!(show(95.24, ExtraUnit::Count), "95.2");
    }
}
