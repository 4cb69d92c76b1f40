//! io_uring's read and write submission entries, built from plain integer fields.
//!
//! Why not the `io-uring` crate's opcode builders: they zero a kernel `io_uring_sqe`
//! (unions and all) on the stack, set its fields, and `push` then copies the 64
//! bytes into the ring. The compiler zeroes the tail with two overlapping stores and
//! copies it with one wide load, which the CPU cannot forward from them: a stall on
//! every I/O (a third of `queue`'s samples in `perf`, batch-32 io_uring reads). Built
//! from scalars, the entry is written straight into the ring.
//!
//! The layout is the kernel's ABI (include/uapi/linux/io_uring.h), and the result is
//! the crate's own `squeue::Entry`: the tests check, byte for byte, that every entry
//! made here equals the one the crate's builder makes.

use io_uring::{opcode, squeue};

/// `struct io_uring_sqe` for the read and write opcodes (READV, WRITEV, READ_FIXED,
/// WRITE_FIXED, READ, WRITE): each union member is the one these opcodes use.
#[repr(C)]
#[derive(Clone, Copy)]
struct RwSqe {
    opcode: u8,
    flags: u8,
    ioprio: u16,
    fd: i32,
    off: u64,
    addr: u64,
    len: u32,
    rw_flags: u32,
    user_data: u64,
    buf_index: u16,
    personality: u16,
    file_index: u32,
    addr3: u64,
    pad2: u64,
}

const _: () = assert!(std::mem::size_of::<RwSqe>() == std::mem::size_of::<squeue::Entry>());

/// How an I/O's buffer is given to the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Buffer {
    /// A registered buffer (READ_FIXED/WRITE_FIXED) of this index.
    Fixed(u16),
    /// A plain pointer and length (READ/WRITE).
    Plain,
    /// One iovec (READV/WRITEV): `addr` points at it (its length is the iovec's).
    Vectored,
}

/// One read or write, as `opcode::{Read,Write}{,Fixed,v}::new(fd, addr, len[, buf])
/// .offset(off).rw_flags(rw_flags).ioprio(ioprio).build()` takes it.
#[derive(Clone, Copy, Debug)]
pub(super) struct ReadWrite {
    pub write: bool,
    pub buffer: Buffer,
    /// A file descriptor, or with `fixed_file` an index into the registered files
    /// (IOSQE_FIXED_FILE).
    pub fd: i32,
    pub fixed_file: bool,
    pub addr: u64,
    pub len: u32,
    pub off: u64,
    pub rw_flags: i32,
    pub ioprio: u16,
}

/// The entry the crate's builder makes for `rw`.
#[inline(always)]
pub(super) fn read_write(rw: ReadWrite) -> squeue::Entry {
    let ReadWrite {
        write,
        buffer,
        fd,
        fixed_file,
        addr,
        len,
        off,
        rw_flags,
        ioprio,
    } = rw;
    // READV/WRITEV's length is the iovec count; the bytes are in the iovec.
    let len = if buffer == Buffer::Vectored { 1 } else { len };
    let (opcode, buf_index) = match (buffer, write) {
        (Buffer::Fixed(i), false) => (opcode::ReadFixed::CODE, i),
        (Buffer::Fixed(i), true) => (opcode::WriteFixed::CODE, i),
        (Buffer::Plain, false) => (opcode::Read::CODE, 0),
        (Buffer::Plain, true) => (opcode::Write::CODE, 0),
        (Buffer::Vectored, false) => (opcode::Readv::CODE, 0),
        (Buffer::Vectored, true) => (opcode::Writev::CODE, 0),
    };
    let sqe = RwSqe {
        opcode,
        flags: if fixed_file {
            squeue::Flags::FIXED_FILE.bits()
        } else {
            0
        },
        ioprio,
        fd,
        off,
        addr,
        len,
        rw_flags: rw_flags as u32,
        user_data: 0, // (the caller's `.user_data()`, as after a builder)
        buf_index,
        personality: 0,
        file_index: 0,
        addr3: 0,
        pad2: 0,
    };
    // SAFETY: `squeue::Entry` is a `#[repr(C)]` wrapper of the kernel's 64-byte
    // `io_uring_sqe`, and `RwSqe` is that struct's layout for these opcodes (same
    // size, checked above; same bytes as the crate's builders, checked by the tests),
    // with no padding and every bit pattern valid.
    unsafe { std::mem::transmute::<RwSqe, squeue::Entry>(sqe) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use io_uring::types;

    fn bytes(e: &squeue::Entry) -> [u8; 64] {
        // SAFETY: Entry is 64 plain bytes (see `read_write`).
        unsafe { std::mem::transmute_copy(e) }
    }

    fn builder(rw: ReadWrite) -> squeue::Entry {
        let (addr, len, off) = (rw.addr, rw.len, rw.off);
        macro_rules! build {
            ($fd:expr) => {
                match (rw.buffer, rw.write) {
                    (Buffer::Fixed(i), false) => {
                        opcode::ReadFixed::new($fd, addr as *mut u8, len, i)
                            .offset(off)
                            .rw_flags(rw.rw_flags)
                            .ioprio(rw.ioprio)
                            .build()
                    }
                    (Buffer::Fixed(i), true) => {
                        opcode::WriteFixed::new($fd, addr as *const u8, len, i)
                            .offset(off)
                            .rw_flags(rw.rw_flags)
                            .ioprio(rw.ioprio)
                            .build()
                    }
                    (Buffer::Plain, false) => opcode::Read::new($fd, addr as *mut u8, len)
                        .offset(off)
                        .rw_flags(rw.rw_flags)
                        .ioprio(rw.ioprio)
                        .build(),
                    (Buffer::Plain, true) => opcode::Write::new($fd, addr as *const u8, len)
                        .offset(off)
                        .rw_flags(rw.rw_flags)
                        .ioprio(rw.ioprio)
                        .build(),
                    (Buffer::Vectored, false) => {
                        opcode::Readv::new($fd, addr as *const libc::iovec, 1)
                            .offset(off)
                            .rw_flags(rw.rw_flags)
                            .ioprio(rw.ioprio)
                            .build()
                    }
                    (Buffer::Vectored, true) => {
                        opcode::Writev::new($fd, addr as *const libc::iovec, 1)
                            .offset(off)
                            .rw_flags(rw.rw_flags)
                            .ioprio(rw.ioprio)
                            .build()
                    }
                }
            };
        }
        if rw.fixed_file {
            build!(types::Fixed(rw.fd as u32))
        } else {
            build!(types::Fd(rw.fd))
        }
    }

    #[test]
    fn every_entry_is_byte_for_byte_the_crates() {
        let buffers = [
            Buffer::Fixed(0),
            Buffer::Fixed(7),
            Buffer::Fixed(u16::MAX),
            Buffer::Plain,
            Buffer::Vectored,
        ];
        let words = [0u64, 1, 0x1234_5678_9abc_def0, u64::MAX];
        let mut checked = 0;
        for write in [false, true] {
            for buffer in buffers {
                for fixed_file in [false, true] {
                    for (i, &w) in words.iter().enumerate() {
                        let fd = [3, 0, 1023, i32::MAX][i];
                        let len = [4096u32, 1, 0, u32::MAX][i];
                        let rw_flags = [0, libc::RWF_NOWAIT, libc::RWF_HIPRI, -1][i];
                        let ioprio = [0u16, 1, 0x6003, u16::MAX][i];
                        let rw = ReadWrite {
                            write,
                            buffer,
                            fd,
                            fixed_file,
                            addr: words[(i + 1) % words.len()],
                            len,
                            off: w,
                            rw_flags,
                            ioprio,
                        };
                        let user_data = words[(i + 2) % words.len()];
                        let ours = read_write(rw).user_data(user_data);
                        let theirs = builder(rw).user_data(user_data);
                        assert_eq!(
                            bytes(&ours),
                            bytes(&theirs),
                            "write={write} {buffer:?} fixed_file={fixed_file} case {i}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 2 * 5 * 2 * 4);
    }
}
