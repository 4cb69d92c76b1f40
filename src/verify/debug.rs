//! `--debug=verify` lines, in fio 3.33's words: `fill random bytes len=N` and
//! `fill KIND io_u 0xADDR, len N` per header when a block is written, `KIND verify
//! io_u 0xADDR, len N` per header when it is checked (after `get_next_verify: ret
//! io_u 0xADDR` in the verify pass), and `starting loop` / `get_next_verify: empty`
//! / `exiting loop` around the pass. The address is the block's buffer (fio's is its
//! io_u); a header covers verify_interval bytes (the block when unset).

use super::block::Layout;
use ferrio_config::ext::verify::VerifyKind;

/// Marks the lines as the verify category's (an argument, as the runner's `say`).
struct Verify;

/// One line in fio's shape (through the sink below both verify and the runner):
/// the category in 8 columns, the thread id, the message.
fn say(_: Verify, msg: std::fmt::Arguments) {
    crate::debug_sink::line("verify", crate::sys::affinity::thread_id(), msg);
}

/// The headers a block of `len` bytes carries: (count, bytes each); none for
/// verify=null and the pattern kinds without a checksum of their own.
fn headers(l: &Layout, len: usize) -> (usize, usize) {
    if matches!(
        l.kind,
        VerifyKind::Null | VerifyKind::None | VerifyKind::PatternNoHdr
    ) {
        return (0, 0);
    }
    let inc = if l.interval > 0 && l.interval <= len {
        l.interval
    } else {
        len
    };
    (len / inc.max(1), inc)
}

/// A block was filled for writing.
pub(super) fn filled(l: &Layout, buf: &[u8]) {
    if l.kind == VerifyKind::Null {
        return;
    }
    if l.pattern.is_empty() {
        say(Verify, format_args!("fill random bytes len={}", buf.len()));
    }
    let (n, inc) = headers(l, buf.len());
    for _ in 0..n {
        say(
            Verify,
            format_args!("fill {} io_u {:p}, len {inc}", l.kind.name(), buf.as_ptr()),
        );
    }
}

/// A block read back is being checked (`pass`: by the verify pass).
pub(super) fn checked(l: &Layout, buf: &[u8], pass: bool) {
    if pass {
        say(
            Verify,
            format_args!("get_next_verify: ret io_u {:p}", buf.as_ptr()),
        );
    }
    let (n, inc) = headers(l, buf.len());
    for _ in 0..n {
        say(
            Verify,
            format_args!(
                "{} verify io_u {:p}, len {inc}",
                l.kind.name(),
                buf.as_ptr()
            ),
        );
    }
}

/// The verify pass starts, or has no block left.
pub(super) fn phase(starts: bool) {
    if starts {
        say(Verify, format_args!("starting loop"));
    } else {
        say(Verify, format_args!("get_next_verify: empty"));
        say(Verify, format_args!("exiting loop"));
    }
}
