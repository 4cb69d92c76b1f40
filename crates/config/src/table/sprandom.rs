//! Options: SPRandom SSD preconditioning (fio 3.4x, docs/random.md). They fill
//! [`crate::ext::sprandom::SprandomSpec`]; fio's cross-option rules are in
//! builder/validate.rs.

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::ext::sprandom::parse_op;

pub const SPRANDOM: &[OptSpec] = &[
    opt("sprandom", K::Bool, C::Random, "SPRandom SSD preconditioning: random writes that leave the drive's regions with a steady-state validity spread (needs rw=randwrite, one file; sets random_generator=lfsr and norandommap=1)", |j, c, v| {
        j.sprandom.enabled = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("spr_op", K::FloatList, C::Random, "sprandom: the drive's over-provisioning ratio, 0 <= spr_op < 5/3 (0.15 is 15%)", |j, _c, v| {
        j.sprandom.op = parse_op(v)?;
        Ok(())
    })
    .def("0.15"),
    opt("spr_num_regions", K::Int, C::Random, "sprandom: number of equal regions the validity model splits the drive into", |j, c, v| {
        j.sprandom.num_regions = c.u32(v)?;
        Ok(())
    })
    .def("100")
    .range(1, u32::MAX as u64),
    opt("spr_cs", K::Size, C::Random, "sprandom: the drive's write cache size in bytes (0: none); must be smaller than a region", |j, c, v| {
        j.sprandom.cache_size = c.size(v)?;
        Ok(())
    })
    .def("0"),
];
