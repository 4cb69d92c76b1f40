//! O_DIRECT preconditions, checked before the first I/O so the error names what to
//! change instead of the kernel answering EINVAL mid-run.

use super::plan::ThreadPlan;
use crate::sys::iomem;
use std::fs::File;

/// direct=1: every block size, block alignment, file offset and the buffer alignment
/// must suit the logical block size of each file, or the kernel fails the I/O with
/// EINVAL. Checked before the run so the error says what to change.
pub fn check_direct_alignment(
    plan: &ThreadPlan,
    files: &[Option<File>],
) -> Result<(), (i32, String)> {
    let spec = &plan.spec;
    for (pf, f) in plan.files.iter().zip(files) {
        let Some(f) = f else { continue };
        let Some((lbs, mem_align)) = iomem::direct_io_alignment(f, pf.block_device) else {
            continue;
        };
        let name = pf.path.display();
        let used = spec.rw.kind.directions();
        for (d, bs) in spec.bs.iter().enumerate() {
            if !used[d] {
                continue;
            }
            let sizes = std::iter::once(bs.min)
                .chain(std::iter::once(bs.max))
                .chain(bs.split.iter().map(|s| s.0));
            for b in sizes {
                if !b.is_multiple_of(lbs) {
                    return Err((
                        libc::EINVAL,
                        format!(
                            "direct=1: block size {b} is not a multiple of the logical block size ({lbs}) of '{name}'; use a bs that is"
                        ),
                    ));
                }
            }
            if spec.bs_unaligned && bs.min != bs.max {
                return Err((
                    libc::EINVAL,
                    format!("direct=1 with bs_unaligned: block sizes must be multiples of the logical block size ({lbs}) of '{name}'"),
                ));
            }
            if !spec.blockalign[d].is_multiple_of(lbs) {
                return Err((
                    libc::EINVAL,
                    format!("direct=1: blockalign={} is not a multiple of the logical block size ({lbs}) of '{name}'", spec.blockalign[d]),
                ));
            }
        }
        if !pf.region.start.is_multiple_of(lbs) {
            return Err((
                libc::EINVAL,
                format!("direct=1: offset {} is not a multiple of the logical block size ({lbs}) of '{name}'", pf.region.start),
            ));
        }
        // The alignment the buffers get (direct=1 always aligns them).
        let align = super::resources::buffer_stride(spec, plan.caps).1 as u64;
        if !align.is_multiple_of(mem_align) {
            return Err((
                libc::EINVAL,
                format!("direct=1: iomem_align={align} is below the memory alignment ({mem_align}) O_DIRECT needs on '{name}'"),
            ));
        }
    }
    Ok(())
}
