//! Options: the error policy (continue_on_error, ignore_error, error_dump,
//! exitall_on_error). The rules live in [`crate::ext::errors`].

use super::{opt, Category as C, Kind as K, OptSpec};

pub const ERRORS: &[OptSpec] = &[
    opt(
        "continue_on_error",
        K::Choice,
        C::Errors,
        "Continue the job after a non-fatal error (EIO or EILSEQ, or what ignore_error lists) of the \
         given types: it is counted (the 'errors' line, JSON total_err/first_error) and its I/O is \
         not; any other error still stops the job. See docs/errors.md",
        |j, c, v| {
            c.choice(v)?;
            j.errors.set_continue(v)
        },
    )
    .def("none")
    .vals(&[
        ("none", "Exit when an error is encountered"),
        ("read", "Continue on read errors only"),
        ("write", "Continue on write errors only (writes, trims, syncs)"),
        ("io", "Continue on any I/O errors (read and write)"),
        ("verify", "Continue on verify errors only"),
        ("all", "Continue on all I/O and verify errors"),
        ("0", "Alias for 'none'"),
        ("1", "Alias for 'all'"),
    ]),
    opt(
        "ignore_error",
        K::Special,
        C::Errors,
        "Errors to continue on, per type: READ_LIST,WRITE_LIST,VERIFY_LIST, each a ':'-separated \
         list of errno names (EIO, ENOSPC, ...) or numbers. A non-empty list replaces the type's \
         default (EIO:EILSEQ) and turns continue_on_error on for that type (ignore_error=,ENOSPC)",
        |j, _, v| j.errors.set_ignore(v),
    ),
    opt(
        "error_dump",
        K::Bool,
        C::Errors,
        "Print every I/O error on stderr, non-fatal ones included",
        |j, c, v| {
            j.errors.error_dump = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "exitall_on_error",
        K::Flag,
        C::Errors,
        "When one job stops on an error, stop all others",
        |j, c, v| {
            j.errors.exitall_on_error = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
];
