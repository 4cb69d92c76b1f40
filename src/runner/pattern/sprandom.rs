//! SPRandom SSD preconditioning (fio 3.4x `sprandom=1`, docs/random.md): one
//! random-write pass that leaves a flash drive's regions with the spread of valid
//! data a drive in steady state has, instead of the days of random writes it would
//! take to get there.
//!
//! The model (Desnoyers, "Analytic Models of SSD Write Performance", 2012): in steady
//! state a block's validity times the share of the drive holding blocks that valid is
//! constant. Greedy garbage collection reclaims blocks of validity `1 - 1/WA`, where
//! the write amplification follows from the over-provisioning as `WA ≈ 0.5/OP + 0.7`.
//! Validities spaced evenly from 1 down to that floor, each weighted by the space
//! `1/validity` it takes, are resampled to equally sized regions.
//!
//! The offset sequence writes the drive's physical size (logical size plus OP) region
//! by region: fresh blocks come from the LFSR (each block once); while a region is
//! written, each block is kept with the region's invalid probability, and at the start
//! of the next region the kept blocks are written again (invalidating their copies in
//! the previous region), themselves kept with the new region's probability. With a
//! cache size (`spr_cs`), the rewrites wait until the region after has been written,
//! so that they do not land in the drive's write cache.

use crate::random::{FioRand, Lfsr, SeedSet, Stream};
use crate::runner::region::PlannedFile;
use ferrio_config::JobSpec;
use std::collections::VecDeque;

/// Invalid probabilities are kept in hundredths of a percent, as fio does.
const PCT_PRECISION: u32 = 10_000;

/// Write amplification for an over-provisioning ratio (the usual approximation).
pub fn write_amplification(op: f64) -> f64 {
    0.5 / op + 0.7
}

/// Validity of the block greedy garbage collection picks at that write amplification.
pub fn gc_validity(wa: f64) -> f64 {
    1.0 - 1.0 / wa
}

/// `n` values evenly spaced from `a` to `b` inclusive (just `a` when n is 1).
fn linspace(a: f64, b: f64, n: usize) -> Vec<f64> {
    if n == 1 {
        return vec![a];
    }
    let step = (b - a) / (n as f64 - 1.0);
    (0..n).map(|i| a + i as f64 * step).collect()
}

/// Piecewise-linear y at `x` over increasing `xs`, clamped to the end points.
fn interp(x: f64, xs: &[f64], ys: &[f64]) -> f64 {
    if x <= xs[0] {
        return ys[0];
    }
    if x >= xs[xs.len() - 1] {
        return ys[ys.len() - 1];
    }
    let i = xs
        .windows(2)
        .position(|w| x >= w[0] && x <= w[1])
        .unwrap_or(0);
    let (x1, x2, y1, y2) = (xs[i], xs[i + 1], ys[i], ys[i + 1]);
    if (x2 - x1).abs() < 1e-9 {
        return y1;
    }
    y1 + (y2 - y1) * (x - x1) / (x2 - x1)
}

/// The expected validity of each of `regions` equal regions, in the order they are
/// written: the least valid first, rising to 1 (the last region is never rewritten).
pub fn validity_distribution(regions: usize, op: f64) -> Vec<f64> {
    let floor = gc_validity(write_amplification(op));
    let validity = linspace(1.0, floor, regions);
    // Cumulative space: a region of validity v takes 1/v of the GC block's space.
    let mut acc = 0.0;
    let space: Vec<f64> = validity
        .iter()
        .map(|v| {
            acc += 1.0 / v;
            acc
        })
        .collect();
    let even = linspace(space[0], space[regions - 1], regions);
    let mut out: Vec<f64> = even.iter().map(|&x| interp(x, &space, &validity)).collect();
    out.reverse();
    out
}

/// The drive's physical size: logical plus over-provisioning, aligned down to `bs`.
pub fn physical_size(op: f64, logical: u64, bs: u64) -> u64 {
    let size = logical + (logical as f64 * op).ceil() as u64;
    size - size % bs.max(1)
}

/// The run's plan, from the options and the file: what fio's sprandom_setup computes.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Per region, the chance (in 1/10000) that a block written there is rewritten later.
    pub invalid_pct: Vec<u32>,
    pub logical: u64,
    pub physical: u64,
    pub region_size: u64,
    /// Blocks written per region.
    pub region_blocks: u64,
}

impl Plan {
    /// `logical`: the bytes of the file the job covers; `bs`: the write block size.
    pub fn new(logical: u64, bs: u64, op: f64, regions: u32, cache: u64) -> Result<Plan, String> {
        let physical = physical_size(op, logical, bs);
        let n = regions.max(1) as usize;
        let invalid_pct = validity_distribution(n, op)
            .iter()
            .map(|v| ((1.0 - v) * PCT_PRECISION as f64).round() as u32)
            .collect();
        let region_size = physical / n as u64;
        if cache > 0 && cache > region_size {
            return Err(format!(
                "spr_cs={cache} must be at most a region's size ({region_size} bytes: the {physical}-byte physical size over spr_num_regions={regions}); at most {} regions allow it",
                physical / cache
            ));
        }
        if region_size / bs.max(1) == 0 {
            return Err(format!(
                "spr_num_regions={regions} leaves regions smaller than one block (the physical size is {physical} bytes)"
            ));
        }
        Ok(Plan {
            invalid_pct,
            logical,
            physical,
            region_size,
            region_blocks: region_size / bs.max(1),
        })
    }
}

/// The offset sequence's state (fio's sprandom_info); blocks, not bytes.
#[derive(Clone, Debug)]
pub struct Sprandom {
    plan: Plan,
    cache: bool,
    /// Blocks to rewrite: the first `ready` of them may be taken now, the rest were
    /// kept during the region being written and wait for the next one.
    kept: VecDeque<u64>,
    ready: usize,
    /// Blocks kept for rewriting, per phase (the current region and the one before).
    kept_count: [u64; 2],
    phase: usize,
    region: usize,
    remaining: u64,
    rng: FioRand,
    /// The sequence ended: fio ends the job there (td->done), later loops included.
    done: bool,
}

impl Sprandom {
    /// `seed`: the thread's sprandom stream (a 32-bit generator, as fio's).
    pub fn new(plan: Plan, cache: bool, seed: u64) -> Sprandom {
        let remaining = plan.region_blocks;
        Sprandom {
            plan,
            cache,
            kept: VecDeque::new(),
            ready: 0,
            kept_count: [0; 2],
            phase: 0,
            region: 0,
            remaining,
            rng: FioRand::new(seed, false),
            done: false,
        }
    }

    /// The region being written (0-based; the tests check the region order).
    #[cfg(test)]
    pub fn region(&self) -> usize {
        self.region
    }

    fn take_ready(&mut self) -> Option<u64> {
        if self.ready == 0 {
            return None;
        }
        self.ready -= 1;
        self.kept.pop_front()
    }

    /// Keep `block` for a rewrite with the current region's invalid chance.
    fn maybe_keep(&mut self, block: u64, phase: usize) {
        let v = self.rng.between(0, PCT_PRECISION as u64) as u32;
        // fio reads one past the table after its last region; the last entry stands in.
        let last = self.plan.invalid_pct.len() - 1;
        if v <= self.plan.invalid_pct[self.region.min(last)] {
            self.kept.push_back(block);
            self.kept_count[phase] += 1;
        }
    }

    /// The next block to write, or None when the sequence is done (the LFSR has given
    /// every block, or every region has been written).
    pub fn next_block(&mut self, lfsr: &mut Lfsr) -> Option<u64> {
        if self.done {
            return None;
        }
        let b = self.step(lfsr);
        self.done = b.is_none();
        b
    }

    fn step(&mut self, lfsr: &mut Lfsr) -> Option<u64> {
        let phase = self.phase;
        if !self.cache {
            if let Some(b) = self.take_ready() {
                self.maybe_keep(b, phase ^ 1);
                return Some(b);
            }
        }
        if self.remaining == 0 {
            if self.cache {
                if let Some(b) = self.take_ready() {
                    self.maybe_keep(b, phase ^ 1);
                    return Some(b);
                }
            }
            if self.region >= self.plan.invalid_pct.len() {
                return None;
            }
            self.kept_count[phase] = 0;
            self.region += 1;
            self.phase ^= 1;
            self.remaining = self
                .plan
                .region_blocks
                .saturating_sub(self.kept_count[self.phase]);
            self.ready = self.kept.len();
        }
        let phase = self.phase;
        let Some(b) = lfsr.next_value() else {
            // With a cache the last region's rewrites are still owed.
            return if self.cache { self.take_ready() } else { None };
        };
        self.remaining = self.remaining.saturating_sub(1);
        self.maybe_keep(b, phase ^ 1);
        Some(b)
    }
}

impl super::Pattern {
    /// sprandom=1's sequence has ended: fio ends the job there (td->done), whatever
    /// `loops` says.
    pub fn sprandom_done(&self) -> bool {
        self.files
            .first()
            .and_then(|f| f.spr.as_ref())
            .is_some_and(|s| s.done)
    }
}

/// The plan of a sprandom job over a file region of `logical` bytes.
fn plan_of(spec: &JobSpec, logical: u64) -> Result<Plan, String> {
    let s = &spec.sprandom;
    let logical = spec.io_size.unwrap_or(u64::MAX).min(logical);
    Plan::new(logical, spec.bs[1].min, s.op, s.num_regions, s.cache_size)
}

/// fio's run-time checks (filesetup.c): one file, and a plan that fits it.
pub fn check_plan(spec: &JobSpec, files: &[PlannedFile]) -> Result<(), String> {
    if !spec.sprandom.enabled {
        return Ok(());
    }
    let at = |e: String| format!("job '{}': {e} ({})", spec.name, spec.origin);
    if files.len() != 1 {
        return Err(at(format!(
            "sprandom=1 works on one file; the job has {}",
            files.len()
        )));
    }
    plan_of(spec, files[0].region.len).map(|_| ()).map_err(at)
}

/// The sequence for a job's file, seeded from the thread's sprandom stream; None when
/// sprandom is off (or the plan was refused by [`check_plan`]).
pub fn for_file(spec: &JobSpec, region_len: u64, seeds: &SeedSet) -> Option<Sprandom> {
    if !spec.sprandom.enabled {
        return None;
    }
    let plan = plan_of(spec, region_len).ok()?;
    if spec
        .compat
        .debug
        .has(ferrio_config::DebugCategory::Sprandom)
    {
        debug_summary(spec, &plan);
    }
    Some(Sprandom::new(
        plan,
        spec.sprandom.cache_size > 0,
        seeds.get(Stream::SpRandom),
    ))
}

/// `--debug=sprandom`: the plan, as fio's summary lists it.
fn debug_summary(spec: &JobSpec, plan: &Plan) {
    let s = &spec.sprandom;
    let line = |m: std::fmt::Arguments| {
        crate::runner::debug_line::line("sprandom", crate::sys::affinity::thread_id(), m)
    };
    line(format_args!("Summary:"));
    line(format_args!("  logical_size:      {}", plan.logical));
    line(format_args!("  physical_size:     {}", plan.physical));
    line(format_args!("  op: {:.6}", s.op));
    line(format_args!("  region_size:        {}", plan.region_size));
    line(format_args!("  num_regions:        {}", s.num_regions));
    line(format_args!("  cache_size:         {}", s.cache_size));
    line(format_args!("  region_write_count: {}", plan.region_blocks));
    let pct: Vec<String> = plan
        .invalid_pct
        .iter()
        .map(|p| format!("{:.2}", *p as f64 / 100.0))
        .collect();
    line(format_args!("invalid % per region: [{}]", pct.join(", ")));
}

#[cfg(test)]
#[path = "sprandom_tests.rs"]
mod tests;
