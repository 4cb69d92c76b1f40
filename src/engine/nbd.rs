//! `ioengine=nbd`: an NBD server's export (`uri=`), through libnbd, as fio's nbd engine.
//!
//! The protocol is libnbd's (the C library fio's engine uses; Debian: libnbd0), loaded
//! when a job first names the engine, so ferrio builds and runs without it. Each thread
//! opens its own connection (fio: one per thread, made in its init) and keeps up to
//! iodepth commands in flight with libnbd's asynchronous calls; completions are
//! collected with `nbd_poll` on the calling thread: no helper thread, no runtime.
//!
//! As in fio: reads, writes and trims are NBD_CMD_READ/WRITE/TRIM at the unit's offset,
//! fsync is NBD_CMD_FLUSH, fdatasync and sync_file_range fail with EINVAL. The job's
//! files are names only (the engine is diskless); the first file is sized by the export,
//! which is never extended ([`export_size`], asked when the run is planned).

use super::{IoEngine, IoOp, IoUnit, Queued};
use ferrio_config::JobSpec;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::io;

/// libnbd's soname (its ABI has been stable since 1.0).
const LIBNBD: &str = "libnbd.so.0";

/// libnbd's `nbd_completion_callback`, passed by value; all-null: no callback (the
/// command is retired with `nbd_aio_command_completed` instead).
#[repr(C)]
#[derive(Clone, Copy)]
struct Completion {
    callback: Option<unsafe extern "C" fn(*mut c_void, *mut c_int) -> c_int>,
    user_data: *mut c_void,
    free: Option<unsafe extern "C" fn(*mut c_void)>,
}

const NO_CALLBACK: Completion = Completion {
    callback: None,
    user_data: std::ptr::null_mut(),
    free: None,
};

/// `struct nbd_handle *`.
type Handle = *mut c_void;

/// The libnbd calls the engine makes, resolved from the loaded library (which the
/// struct keeps loaded for as long as the pointers live).
struct Api {
    create: unsafe extern "C" fn() -> Handle,
    close: unsafe extern "C" fn(Handle),
    get_error: unsafe extern "C" fn() -> *const c_char,
    get_errno: unsafe extern "C" fn() -> c_int,
    connect_uri: unsafe extern "C" fn(Handle, *const c_char) -> c_int,
    get_size: unsafe extern "C" fn(Handle) -> i64,
    aio_pread: unsafe extern "C" fn(Handle, *mut c_void, usize, u64, Completion, u32) -> i64,
    aio_pwrite: unsafe extern "C" fn(Handle, *const c_void, usize, u64, Completion, u32) -> i64,
    aio_trim: unsafe extern "C" fn(Handle, u64, u64, Completion, u32) -> i64,
    aio_flush: unsafe extern "C" fn(Handle, Completion, u32) -> i64,
    poll: unsafe extern "C" fn(Handle, c_int) -> c_int,
    peek_completed: unsafe extern "C" fn(Handle) -> i64,
    command_completed: unsafe extern "C" fn(Handle, u64) -> c_int,
    _lib: libloading::Library,
}

impl Api {
    fn load() -> Result<Api, String> {
        // SAFETY: loading libnbd runs only its ELF constructors, which set up its own
        // thread-local error storage and nothing of ours.
        let lib = unsafe { libloading::Library::new(LIBNBD) }.map_err(|e| {
            format!("ioengine=nbd needs libnbd ({LIBNBD}; Debian and Ubuntu: package libnbd0): {e}")
        })?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the symbol is libnbd's function of that name, whose C
                // prototype (libnbd.h, stable ABI) is the field's type.
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                    .map_err(|e| format!("{LIBNBD} lacks {}: {e}", $name))?
            };
        }
        Ok(Api {
            create: sym!("nbd_create"),
            close: sym!("nbd_close"),
            get_error: sym!("nbd_get_error"),
            get_errno: sym!("nbd_get_errno"),
            connect_uri: sym!("nbd_connect_uri"),
            get_size: sym!("nbd_get_size"),
            aio_pread: sym!("nbd_aio_pread"),
            aio_pwrite: sym!("nbd_aio_pwrite"),
            aio_trim: sym!("nbd_aio_trim"),
            aio_flush: sym!("nbd_aio_flush"),
            poll: sym!("nbd_poll"),
            peek_completed: sym!("nbd_aio_peek_command_completed"),
            command_completed: sym!("nbd_aio_command_completed"),
            _lib: lib,
        })
    }

    /// libnbd's message for this thread's last failed call.
    fn error(&self) -> String {
        // SAFETY: nbd_get_error takes nothing and returns NULL or a NUL-terminated
        // string owned by libnbd, valid until the thread's next libnbd call.
        let p = unsafe { (self.get_error)() };
        if p.is_null() {
            "unknown error".into()
        } else {
            // SAFETY: non-null, NUL-terminated (see above); copied at once.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    }

    /// The errno of this thread's last failed call, EIO when libnbd gives none.
    fn errno(&self) -> i32 {
        // SAFETY: takes nothing, reads libnbd's thread-local error.
        match unsafe { (self.get_errno)() } {
            0 => libc::EIO,
            e => e,
        }
    }
}

/// One connected handle (closed on drop).
struct Connection {
    api: Api,
    h: Handle,
}

// SAFETY: a libnbd handle may be used from any thread (libnbd locks each handle
// internally); the engine moves to its worker thread once and is used only there.
unsafe impl Send for Connection {}

impl Connection {
    /// Connect to `uri` (synchronously: the handshake is done on return).
    fn open(uri: &str) -> Result<Connection, String> {
        let api = Api::load()?;
        let c_uri = CString::new(uri).map_err(|_| format!("uri='{uri}' contains a NUL byte"))?;
        // SAFETY: nbd_create takes nothing; NULL means failure.
        let h = unsafe { (api.create)() };
        if h.is_null() {
            return Err(format!("nbd_create: {}", api.error()));
        }
        let conn = Connection { api, h };
        // SAFETY: h is our live handle and c_uri a NUL-terminated string that outlives
        // the call (libnbd copies what it keeps).
        if unsafe { (conn.api.connect_uri)(conn.h, c_uri.as_ptr()) } == -1 {
            return Err(format!(
                "cannot connect to the NBD server at uri='{uri}': {}",
                conn.api.error()
            ));
        }
        Ok(conn)
    }

    fn size(&self) -> Result<u64, String> {
        // SAFETY: h is our live, connected handle.
        let s = unsafe { (self.api.get_size)(self.h) };
        u64::try_from(s).map_err(|_| format!("nbd_get_size: {}", self.api.error()))
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        // SAFETY: h came from nbd_create and is closed once, here; libnbd drops any
        // command still in flight (their buffers are not touched after this).
        unsafe { (self.api.close)(self.h) }
    }
}

/// The size of the export job `spec` names with `uri=`, asked when the run is
/// planned (fio asks in its setup, on a connection it closes again).
pub fn export_size(spec: &JobSpec) -> Result<u64, String> {
    let uri = uri_of(&spec.name, spec.nbd.uri.as_deref())
        .map_err(|e| format!("{e} ({})", spec.origin))?;
    Connection::open(uri)
        .and_then(|c| c.size())
        .map_err(|e| format!("job '{}': ioengine=nbd: {e} ({})", spec.name, spec.origin))
}

fn uri_of<'a>(job: &str, uri: Option<&'a str>) -> Result<&'a str, String> {
    match uri {
        Some(u) if !u.is_empty() => Ok(u),
        _ => Err(format!(
            "job '{job}': ioengine=nbd needs uri= (the NBD server, e.g. nbd://HOST:PORT/EXPORT or nbd+unix:///EXPORT?socket=PATH)"
        )),
    }
}

pub struct NbdEngine {
    job: String,
    uri: Option<String>,
    /// Connected in `setup`, on the worker thread.
    conn: Option<Connection>,
    /// Commands in flight: (libnbd's cookie, unit index).
    in_flight: Vec<(u64, usize)>,
}

impl NbdEngine {
    pub fn new(o: &super::EngineOptions) -> NbdEngine {
        NbdEngine {
            job: o.job.clone(),
            uri: o.nbd_uri.clone(),
            conn: None,
            in_flight: Vec::with_capacity(o.iodepth.max(1) as usize),
        }
    }

    /// Start `u`'s command; its cookie, or -errno when libnbd refused it at once.
    fn start(c: &Connection, u: &IoUnit) -> Result<u64, i64> {
        let (api, h) = (&c.api, c.h);
        // SAFETY: h is our live handle; u.buf holds at least u.len bytes and stays
        // valid and untouched by the runner until the unit is reaped (the queue
        // contract), which is after libnbd has completed the command.
        let cookie = unsafe {
            match u.op {
                IoOp::Read => (api.aio_pread)(h, u.buf.cast(), u.len, u.offset, NO_CALLBACK, 0),
                IoOp::Write => (api.aio_pwrite)(
                    h,
                    u.buf.cast_const().cast(),
                    u.len,
                    u.offset,
                    NO_CALLBACK,
                    0,
                ),
                IoOp::Trim => (api.aio_trim)(h, u.len as u64, u.offset, NO_CALLBACK, 0),
                IoOp::Fsync => (api.aio_flush)(h, NO_CALLBACK, 0),
                // NBD has no data-only flush nor ranged sync (fio: EINVAL).
                IoOp::Fdatasync | IoOp::SyncFileRange { .. } => return Err(-libc::EINVAL as i64),
            }
        };
        u64::try_from(cookie).map_err(|_| -(api.errno() as i64))
    }
}

/// What a completed unit's result is: its length for data and trims, 0 for a flush.
fn done_result(u: &IoUnit) -> i64 {
    match u.op {
        IoOp::Read | IoOp::Write | IoOp::Trim => u.len as i64,
        _ => 0,
    }
}

impl IoEngine for NbdEngine {
    fn setup(
        &mut self,
        _fds: &[std::os::fd::RawFd],
        _buffers: &[(*mut u8, usize)],
    ) -> io::Result<()> {
        let uri = uri_of(&self.job, self.uri.as_deref()).map_err(io::Error::other)?;
        self.conn = Some(Connection::open(uri).map_err(io::Error::other)?);
        Ok(())
    }

    fn queue(&mut self, index: usize, u: &mut IoUnit) -> Queued {
        let Some(c) = self.conn.as_ref() else {
            u.result = -libc::ENOTCONN as i64;
            return Queued::Completed;
        };
        match Self::start(c, u) {
            Ok(cookie) => {
                self.in_flight.push((cookie, index));
                Queued::Queued
            }
            Err(e) => {
                u.result = e;
                Queued::Completed
            }
        }
    }

    fn reap(
        &mut self,
        units: &mut [IoUnit],
        min: usize,
        max: usize,
        done: &mut Vec<usize>,
    ) -> io::Result<()> {
        let Some(c) = self.conn.as_ref() else {
            return Ok(());
        };
        let (mut got, mut polled) = (0, false);
        loop {
            while got < max {
                // SAFETY: h is our live handle.
                let cookie = unsafe { (c.api.peek_completed)(c.h) };
                if cookie <= 0 {
                    break;
                }
                // SAFETY: as above; the cookie is one libnbd just reported complete.
                let r = unsafe { (c.api.command_completed)(c.h, cookie as u64) };
                let Some(at) = self.in_flight.iter().position(|&(k, _)| k == cookie as u64) else {
                    continue;
                };
                let (_, idx) = self.in_flight.swap_remove(at);
                let u = &mut units[idx];
                u.result = if r == 1 {
                    done_result(u)
                } else {
                    -(c.api.errno() as i64)
                };
                done.push(idx);
                got += 1;
            }
            // libnbd reads replies only when polled: a caller that waits for nothing
            // (min 0) still gets one look at the socket, without blocking.
            if self.in_flight.is_empty() || (got >= min && (got > 0 || polled)) {
                return Ok(());
            }
            let timeout = if got >= min { 0 } else { -1 };
            polled = true;
            // SAFETY: h is our live handle; -1: wait until the socket makes progress.
            if unsafe { (c.api.poll)(c.h, timeout) } == -1 && c.api.errno() != libc::EINTR {
                return Err(io::Error::other(format!("nbd_poll: {}", c.api.error())));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_without_uri_is_refused_naming_uri() {
        let e = uri_of("j", None).unwrap_err();
        assert!(e.contains("job 'j'") && e.contains("uri="), "{e}");
        assert!(uri_of("j", Some("")).is_err());
        assert_eq!(uri_of("j", Some("nbd://h/")), Ok("nbd://h/"));
    }

    #[test]
    fn setup_without_uri_fails_and_queue_before_setup_fails_the_unit() {
        let mut e = NbdEngine::new(&Default::default());
        let err = e.setup(&[], &[]).unwrap_err().to_string();
        assert!(err.contains("uri="), "{err}");
        let mut u = IoUnit::for_test(IoOp::Read, -1, 0, 4096);
        assert_eq!(e.queue(0, &mut u), Queued::Completed);
        assert_eq!(u.result, -libc::ENOTCONN as i64);
    }

    #[test]
    fn flush_completes_with_zero_and_data_with_its_length() {
        let u = IoUnit::for_test(IoOp::Fsync, -1, 0, 4096);
        assert_eq!(done_result(&u), 0);
        let u = IoUnit::for_test(IoOp::Trim, -1, 0, 4096);
        assert_eq!(done_result(&u), 4096);
    }
}
