//! The metadata engines' operations per second, per kind of operation, for the
//! mdtest-style table after the normal output (ferrio_report::mdtable). Which engine
//! does which operation is the engine registry's (`registry::OPERATIONS`).

use super::RunResults;
use crate::engine::registry::OPERATIONS;
use ferrio_report::mdtable::MetaOps;

/// One row per kind, in mdtest's order; a kind no thread did has no rates.
pub fn summary(results: &RunResults) -> Vec<MetaOps> {
    OPERATIONS
        .iter()
        .map(|(engine, operation)| {
            let mut row = MetaOps {
                operation: operation.to_string(),
                rates: Vec::new(),
                ops: 0,
                seconds: 0.0,
            };
            for (plan, r) in &results.threads {
                if plan.spec.ioengine != *engine || r.stats.runtime_us == 0 {
                    continue;
                }
                // One clat sample per operation (Accounting::FileOps).
                let ops: u64 = r.stats.dir.iter().map(|d| d.clat.count()).sum();
                let secs = r.stats.runtime_us as f64 / 1e6;
                row.rates.push(ops as f64 / secs);
                row.ops += ops;
                row.seconds = row.seconds.max(secs);
            }
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::recorder::ThreadResult;
    use crate::runner::worker::tests::plan_of;

    fn ran(runtime_us: u64, ops: u64) -> ThreadResult {
        let mut r = ThreadResult::default();
        r.stats.runtime_us = runtime_us;
        r.stats.dir[0].clat.record_n(1000, ops);
        r
    }

    #[test]
    fn each_kind_sums_its_own_engines_threads_that_ran() {
        let results = RunResults {
            threads: vec![
                (plan_of("ioengine=filecreate", true), ran(2_000_000, 10)),
                (plan_of("ioengine=filecreate", true), ran(4_000_000, 4)),
                // A thread that never ran has no rate (it would divide by zero).
                (plan_of("ioengine=filecreate", true), ran(0, 0)),
                (plan_of("ioengine=null", true), ran(1_000_000, 7)),
            ],
            wall_ms: 0,
        };
        let rows = summary(&results);
        assert_eq!(rows.len(), OPERATIONS.len());
        for row in &rows {
            if row.operation == "File creation" {
                assert_eq!(
                    (&row.rates[..], row.ops, row.seconds),
                    (&[5.0, 1.0][..], 14, 4.0)
                );
            } else {
                assert!(row.rates.is_empty() && row.ops == 0, "{row:?}");
            }
        }
    }
}
