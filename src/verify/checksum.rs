//! The checksums fio 3.33 stores after a block's verify header, byte for byte as
//! fio writes them — including where fio's own implementation differs from the
//! standard algorithm, since interoperating means matching fio, not the standard:
//!
//! - crc32c: fio keeps the register without the final inversion (`!standard`).
//! - crc32: MSB-first, polynomial 0x04C11DB7, initial value 0, no final XOR.
//! - crc64: the reflected "Jones" polynomial (CRC-64/REDIS), init 0.
//! - crc16: CRC-16/ARC; crc7: the 7-bit MMC CRC (poly 0x09), as Linux's old crc7.
//! - sha1: the standard digest, each 32-bit word stored little-endian.
//! - sha256: fio appends the message length little-endian and stores the low byte
//!   of each state word, followed by bytes 8..64 of the last padded block.
//! - sha512: fio never finalises: what it stores is its 128-byte input buffer after
//!   the data went through it (the data's tail over its first 128 bytes).
//! - md5, sha3-*, xxhash (XXH32, seed 1): the standard values.

use ferrio_config::ext::verify::VerifyKind;
use md5::Digest;

/// Bytes of checksum after the 40-byte header (fio's vhdr_* sizes).
pub fn size(kind: VerifyKind) -> usize {
    kind.checksum_len()
}

const CRC32_FIO: crc::Algorithm<u32> = crc::Algorithm {
    width: 32,
    poly: 0x04c1_1db7,
    init: 0,
    refin: false,
    refout: false,
    xorout: 0,
    check: 0x89a1_897f,
    residue: 0,
};
// Slice-by-16 tables: several times the speed of byte-at-a-time (fio's own loop).
type Fast = crc::Table<16>;
const CRC32: crc::Crc<u32, Fast> = crc::Crc::<u32, Fast>::new(&CRC32_FIO);
const CRC64: crc::Crc<u64, Fast> = crc::Crc::<u64, Fast>::new(&crc::CRC_64_REDIS);
const CRC16: crc::Crc<u16, Fast> = crc::Crc::<u16, Fast>::new(&crc::CRC_16_ARC);
const CRC7: crc::Crc<u8, Fast> = crc::Crc::<u8, Fast>::new(&crc::CRC_7_MMC);

/// fio's crc32c (also the header's own checksum): the register without the final
/// inversion.
pub fn crc32c_fio(data: &[u8]) -> u32 {
    !crc32c::crc32c(data)
}

/// The checksum of `data` as fio stores it, written to `out` (`size(kind)` bytes).
/// For sha512, `out` must hold what the header's bytes were before (fio leaves
/// them when the data is shorter than 128 bytes). Kinds without a checksum write
/// nothing.
pub fn compute(kind: VerifyKind, data: &[u8], out: &mut [u8]) {
    match kind {
        VerifyKind::Md5 => out.copy_from_slice(&md5::Md5::digest(data)),
        VerifyKind::Crc64 => out.copy_from_slice(&CRC64.checksum(data).to_le_bytes()),
        VerifyKind::Crc32 => out.copy_from_slice(&CRC32.checksum(data).to_le_bytes()),
        VerifyKind::Crc32c => out.copy_from_slice(&crc32c_fio(data).to_le_bytes()),
        VerifyKind::Crc16 => out.copy_from_slice(&CRC16.checksum(data).to_le_bytes()),
        VerifyKind::Crc7 => out[0] = CRC7.checksum(data),
        VerifyKind::Xxhash => {
            out.copy_from_slice(&xxhash_rust::xxh32::xxh32(data, 1).to_le_bytes())
        }
        VerifyKind::Sha1 => {
            let d = sha1::Sha1::digest(data);
            for (o, w) in out.chunks_exact_mut(4).zip(d.chunks_exact(4)) {
                o.copy_from_slice(&[w[3], w[2], w[1], w[0]]);
            }
        }
        VerifyKind::Sha3_224 => out.copy_from_slice(&sha3::Sha3_224::digest(data)),
        VerifyKind::Sha3_256 => out.copy_from_slice(&sha3::Sha3_256::digest(data)),
        VerifyKind::Sha3_384 => out.copy_from_slice(&sha3::Sha3_384::digest(data)),
        VerifyKind::Sha3_512 => out.copy_from_slice(&sha3::Sha3_512::digest(data)),
        VerifyKind::Sha256 => sha256_fio(data, out),
        VerifyKind::Sha512 => sha512_fio(data, out),
        _ => {}
    }
}

/// How many leading bytes of the stored checksum are determined by the data
/// (all of them but for fio's sha512 over fewer than 128 bytes).
pub fn determined(kind: VerifyKind, data_len: usize) -> usize {
    match kind {
        VerifyKind::Sha512 => data_len.min(128),
        k => size(k),
    }
}

/// fio's sha256: SHA-256 blocks with a little-endian length; the stored 64 bytes are
/// the low byte of each state word, then bytes 8.. of the last padded block.
fn sha256_fio(data: &[u8], out: &mut [u8]) {
    let mut state: [u32; 8] = [
        0x6a09_e667,
        0xbb67_ae85,
        0x3c6e_f372,
        0xa54f_f53a,
        0x510e_527f,
        0x9b05_688c,
        0x1f83_d9ab,
        0x5be0_cd19,
    ];
    let full = data.len() / 64 * 64;
    compress_blocks(&mut state, &data[..full]);
    // The tail, 0x80, zeros to 56 mod 64, then the bit count (32-bit byte count in
    // fio, little-endian).
    let tail = &data[full..];
    let mut last = [0u8; 128];
    last[..tail.len()].copy_from_slice(tail);
    last[tail.len()] = 0x80;
    let n = if tail.len() < 56 { 64 } else { 128 };
    let bits = ((data.len() as u32) as u64) << 3;
    last[n - 8..n].copy_from_slice(&bits.to_le_bytes());
    compress_blocks(&mut state, &last[..n]);
    for (o, s) in out[..8].iter_mut().zip(state) {
        *o = s as u8;
    }
    out[8..64].copy_from_slice(&last[n - 56..n]);
}

/// fio's sha512 without a final step: its buffer after the data went through.
fn sha512_fio(data: &[u8], out: &mut [u8]) {
    let len = data.len();
    if len < 128 {
        out[..len].copy_from_slice(data);
        return;
    }
    let mut i = 128;
    while i + 127 < len {
        i += 128;
    }
    let r = len - i;
    out[r..128].copy_from_slice(&data[r..128]);
    out[..r].copy_from_slice(&data[i..]);
}

/// Run SHA-256's compression over whole 64-byte blocks.
fn compress_blocks(state: &mut [u32; 8], data: &[u8]) {
    use sha2::digest::generic_array::GenericArray;
    for c in data.chunks_exact(64) {
        sha2::compress256(state, std::slice::from_ref(GenericArray::from_slice(c)));
    }
}
