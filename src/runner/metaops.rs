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
