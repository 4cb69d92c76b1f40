//! fio's 40-byte verify header (verify.h, struct verify_header), little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..2 | magic 0xacca |
//! | 2..4 | verify_type (fio's VERIFY_* number) |
//! | 4..8 | len: the bytes this header covers (the verify interval) |
//! | 8..16 | rand_seed: the seed the block's data was generated from |
//! | 16..24 | offset: the file offset of the interval |
//! | 24..28, 28..32 | time_sec, time_nsec of the write's start |
//! | 32..34 | thread: the job's thread number (1-based) |
//! | 34..36 | numberio: the job's write counter (16 bits) |
//! | 36..40 | crc32: fio's crc32c of bytes 0..36 |
//!
//! The checksum (crate::verify::checksum) follows it directly.

use super::checksum::crc32c_fio;

pub const HDR_LEN: usize = 40;
pub const MAGIC: u16 = 0xacca;
/// The header's checksum covers the bytes before it.
const CRC_AT: usize = 36;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub magic: u16,
    pub verify_type: u16,
    pub len: u32,
    pub rand_seed: u64,
    pub offset: u64,
    pub time_sec: u32,
    pub time_nsec: u32,
    pub thread: u16,
    pub numberio: u16,
    pub crc32: u32,
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}
fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"))
}
fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

impl Header {
    /// Decode the first 40 bytes of `b`.
    pub fn read(b: &[u8]) -> Header {
        Header {
            magic: u16_at(b, 0),
            verify_type: u16_at(b, 2),
            len: u32_at(b, 4),
            rand_seed: u64_at(b, 8),
            offset: u64_at(b, 16),
            time_sec: u32_at(b, 24),
            time_nsec: u32_at(b, 28),
            thread: u16_at(b, 32),
            numberio: u16_at(b, 34),
            crc32: u32_at(b, 36),
        }
    }

    /// Encode into the first 40 bytes of `b`, with the header checksum computed.
    pub fn write(&self, b: &mut [u8]) {
        b[0..2].copy_from_slice(&self.magic.to_le_bytes());
        b[2..4].copy_from_slice(&self.verify_type.to_le_bytes());
        b[4..8].copy_from_slice(&self.len.to_le_bytes());
        b[8..16].copy_from_slice(&self.rand_seed.to_le_bytes());
        b[16..24].copy_from_slice(&self.offset.to_le_bytes());
        b[24..28].copy_from_slice(&self.time_sec.to_le_bytes());
        b[28..32].copy_from_slice(&self.time_nsec.to_le_bytes());
        b[32..34].copy_from_slice(&self.thread.to_le_bytes());
        b[34..36].copy_from_slice(&self.numberio.to_le_bytes());
        let crc = crc32c_fio(&b[..CRC_AT]);
        b[36..40].copy_from_slice(&crc.to_le_bytes());
    }

    /// The checksum the header's first 36 bytes should carry.
    pub fn expected_crc(b: &[u8]) -> u32 {
        crc32c_fio(&b[..CRC_AT])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_checks_itself() {
        let h = Header {
            magic: MAGIC,
            verify_type: 5,
            len: 4096,
            rand_seed: 0x00a4_cc01_c509_543c,
            offset: 8192,
            time_sec: 1,
            time_nsec: 2,
            thread: 1,
            numberio: 7,
            crc32: 0,
        };
        let mut b = [0u8; 40];
        h.write(&mut b);
        let back = Header::read(&b);
        assert_eq!(back.crc32, Header::expected_crc(&b));
        assert_eq!(Header { crc32: 0, ..back }, h);
        assert_eq!(&b[0..4], &[0xca, 0xac, 5, 0]);
    }

    /// A header fio 3.33 wrote (verify=crc32c, bs=4k, first block): its crc checks.
    #[test]
    fn fio_header_crc_matches() {
        let b: [u8; 40] = [
            0xca, 0xac, 0x05, 0x00, 0x00, 0x10, 0x00, 0x00, 0x3c, 0x54, 0x09, 0xc5, 0x01, 0xcc,
            0xa4, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x9d, 0x3f, 0x7f, 0x06, 0x01, 0x00,
            0x00, 0x00, 0xce, 0x6e, 0xe6, 0x6f,
        ];
        let h = Header::read(&b);
        assert_eq!(h.magic, MAGIC);
        assert_eq!(h.len, 4096);
        assert_eq!(h.crc32, Header::expected_crc(&b));
    }
}
