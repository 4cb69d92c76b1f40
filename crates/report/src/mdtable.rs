//! Beyond fio: the metadata engines' rates in a table like mdtest's SUMMARY, so a
//! metadata study needs no second tool. One row per kind of operation (directory and
//! file creation, stat, removal), over every job thread that did it: the highest,
//! lowest and mean per-thread rate and their standard deviation, then the aggregate
//! rate (all operations over the longest of those threads' runtimes) and the count.

/// One kind of operation, as the runner measured it.
#[derive(Clone, Debug, PartialEq)]
pub struct MetaOps {
    /// "File creation", "Directory stat", ...
    pub operation: String,
    /// Each thread's operations per second.
    pub rates: Vec<f64>,
    /// Operations over all those threads.
    pub ops: u64,
    /// The longest of their runtimes, seconds.
    pub seconds: f64,
}

/// The table (with the empty line before it), or "" when no row has operations.
pub fn render(rows: &[MetaOps]) -> String {
    let rows: Vec<&MetaOps> = rows.iter().filter(|r| !r.rates.is_empty()).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut s =
        String::from("\nSUMMARY rate (operations/s per job thread; ferrio, mdtest-style):\n");
    s += &format!(
        "   {:<22} {:>14} {:>14} {:>14} {:>14} {:>14} {:>10}\n",
        "Operation", "Max", "Min", "Mean", "Std Dev", "Total", "Ops"
    );
    s += &format!(
        "   {:<22} {:>14} {:>14} {:>14} {:>14} {:>14} {:>10}\n",
        "---------", "---", "---", "----", "-------", "-----", "---"
    );
    for r in rows {
        let n = r.rates.len() as f64;
        let max = r.rates.iter().cloned().fold(f64::MIN, f64::max);
        let min = r.rates.iter().cloned().fold(f64::MAX, f64::min);
        let mean = r.rates.iter().sum::<f64>() / n;
        // Population deviation, as mdtest's.
        let sd = (r.rates.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        let total = if r.seconds > 0.0 {
            r.ops as f64 / r.seconds
        } else {
            0.0
        };
        s += &format!(
            "   {:<20} : {:>14.3} {:>14.3} {:>14.3} {:>14.3} {:>14.3} {:>10}\n",
            r.operation, max, min, mean, sd, total, r.ops
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_show_per_thread_spread_and_the_aggregate_rate() {
        let t = render(&[
            MetaOps {
                operation: "File creation".into(),
                rates: vec![1000.0, 3000.0],
                ops: 400,
                seconds: 0.2,
            },
            MetaOps {
                operation: "File stat".into(),
                rates: vec![],
                ops: 0,
                seconds: 0.0,
            },
        ]);
        let line = t.lines().find(|l| l.contains("File creation")).unwrap();
        let cols: Vec<&str> = line.split(':').nth(1).unwrap().split_whitespace().collect();
        assert_eq!(
            cols,
            ["3000.000", "1000.000", "2000.000", "1000.000", "2000.000", "400"]
        );
        assert!(!t.contains("File stat"), "kinds nobody did are left out");
        assert!(t.starts_with("\nSUMMARY rate"));
        assert_eq!(render(&[]), "");
    }
}
