//! Options: merging block traces before a replay (see `ext/blktrace.rs`; the
//! replay options themselves are in `logs.rs`).

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::values::parse_float_list;

/// A merge list: fio reads floats and uses their whole part; each must be at least 1
/// (fio ends its list at a 0, which would silently drop the traces after it).
fn whole_list(v: &str) -> Result<Vec<u64>, String> {
    let vals = parse_float_list(v)?;
    vals.iter()
        .map(|&f| match f >= 1.0 {
            true => Ok(f as u64),
            false => Err(format!("{f} is below 1 (each value must be at least 1)")),
        })
        .collect()
}

pub const BLKTRACE: &[OptSpec] = &[
    opt("merge_blktrace_file", K::Str, C::Stats, "Merge the blktraces named by read_iolog (FILE1:FILE2..., in time order) into this one file, then replay it", |j, _, v| {
        let v = v.trim();
        if v.is_empty() {
            return Err("needs a file name".into());
        }
        j.logs.merge.file = Some(v.to_string());
        Ok(())
    }),
    opt("merge_blktrace_scalars", K::FloatList, C::Stats, "Per merged trace (in read_iolog's order), scale its times to this percentage (50: twice as fast); whole part used, each at least 1", |j, _, v| {
        j.logs.merge.scalars = whole_list(v)?;
        Ok(())
    }),
    opt("merge_blktrace_iters", K::FloatList, C::Stats, "Per merged trace (in read_iolog's order), repeat it this many times, each pass after the last one's end; whole part used, each at least 1", |j, _, v| {
        j.logs.merge.iters = whole_list(v)?;
        Ok(())
    }),
];
