//! Buffer contents: compressibility (buffer_compress_percentage=,
//! buffer_compress_chunk=), dedupe (dedupe_percentage=, dedupe_mode=,
//! dedupe_working_set_percentage=, dedupe_global=), and which of the classic buffer
//! options (zero_buffers, refill_buffers, scramble_buffers) were given, since fio's
//! rules between them depend on that (docs/buffers.md).

/// How dedupable buffers are made (dedupe_mode=).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DedupeMode {
    /// Repeat the data of the previous unique buffer.
    #[default]
    Repeat,
    /// Pick a buffer from a working set of dedupe_working_set_percentage of the size.
    WorkingSet,
}

/// The job's buffer-content options beyond the JobSpec's zero/refill/scramble/pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuffersSpec {
    /// buffer_compress_percentage=: share of each chunk that is zeroes (or the pattern).
    pub compress_percentage: u32,
    /// buffer_compress_chunk=: the chunk the percentage applies to (bytes; 0: the
    /// smallest write size).
    pub compress_chunk: u64,
    /// dedupe_percentage=: share of write buffers that repeat earlier data.
    pub dedupe_percentage: u32,
    pub dedupe_mode: DedupeMode,
    /// dedupe_working_set_percentage=: the working set, in percent of size.
    pub dedupe_working_set_percentage: u32,
    /// dedupe_global=: the working set is shared by every job with dedupe_global.
    pub dedupe_global: bool,
    /// buffer_compress_percentage or dedupe_percentage was given (any value): fio then
    /// never scrambles buffers (its TD_F_COMPRESS).
    pub compress_given: bool,
    /// zero_buffers / refill_buffers / scramble_buffers were given explicitly.
    pub zero_set: bool,
    pub refill_set: bool,
    pub scramble_set: bool,
}

impl Default for BuffersSpec {
    fn default() -> Self {
        BuffersSpec {
            compress_percentage: 0,
            compress_chunk: 512,
            dedupe_percentage: 0,
            dedupe_mode: DedupeMode::Repeat,
            dedupe_working_set_percentage: 5,
            dedupe_global: false,
            compress_given: false,
            zero_set: false,
            refill_set: false,
            scramble_set: false,
        }
    }
}

impl BuffersSpec {
    /// fio's cross-option rule for the working-set mode; `files` is the job's file
    /// count, `size_given` whether size= was set, `size_bytes` its value when given in
    /// bytes, `min_write` the smallest write block size.
    pub fn check(
        &self,
        size_given: bool,
        size_bytes: Option<u64>,
        min_write: u64,
        files: usize,
    ) -> Result<(), String> {
        if self.dedupe_percentage == 0 || self.dedupe_mode != DedupeMode::WorkingSet {
            return Ok(());
        }
        if !size_given {
            return Err(
                "dedupe_mode=working_set needs size= (the working set is a share of it)".into(),
            );
        }
        if files != 1 {
            return Err(format!(
                "dedupe_mode=working_set works with one file per job, but the job has {files}"
            ));
        }
        if self.dedupe_working_set_percentage + self.dedupe_percentage > 100 {
            return Err(format!(
                "dedupe_percentage={} cannot be reached: dedupe_working_set_percentage={} of the size is unique data (their sum must be at most 100)",
                self.dedupe_percentage, self.dedupe_working_set_percentage
            ));
        }
        // fio would pick from an empty working set; refuse before anything runs.
        if let Some(size) = size_bytes {
            if size * self.dedupe_working_set_percentage as u64 / 100 < min_write.max(1) {
                return Err(format!(
                    "dedupe working set is empty: dedupe_working_set_percentage={} of size={size} is less than one {}-byte block",
                    self.dedupe_working_set_percentage,
                    min_write.max(1)
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_working_set_must_hold_one_block_of_the_size() {
        let b = |ws: u32| BuffersSpec {
            dedupe_percentage: 50,
            dedupe_mode: DedupeMode::WorkingSet,
            dedupe_working_set_percentage: ws,
            ..Default::default()
        };
        // 2 % of 256 KiB is 5242 bytes: one 4 KiB block; 1 % (2621 bytes) is none.
        assert!(b(2).check(true, Some(256 << 10), 4096, 1).is_ok());
        let e = b(1).check(true, Some(256 << 10), 4096, 1).unwrap_err();
        assert!(e.contains("dedupe working set is empty"), "{e}");
    }
}
