//! The protocol: serde messages encoded by postcard, one COBS frame each (a zero byte
//! ends a frame, so a reader needs no length field it would have to trust). Every
//! read is bounded: a frame over its limit is an error, never an allocation.

use ferrio_report::RunReport;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::fd::RawFd;

/// Bumped whenever a message changes; both sides must agree.
pub const PROTOCOL: u32 = 4;

/// The most a message before authentication may be (a token and a version).
pub const HELLO_LIMIT: usize = 4096;

/// A result can be large (histograms of many jobs); it is still bounded.
pub const RESULT_LIMIT: usize = 256 << 20;

/// The most one log file may be to be sent back to the client (larger ones are
/// reported, not sent).
pub const LOG_LIMIT: u64 = 64 << 20;

/// One log file coming back: the job's own name for it, split into the prefix the
/// job gave and the suffix the run added (`_bw.1.log`; empty for write_iolog).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct LogBack {
    pub prefix: String,
    pub suffix: String,
    /// Wall-clock times (log_unix_epoch): the client shifts them by the clock offset.
    pub epoch: bool,
    pub data: Vec<u8>,
    /// Why the data is missing (over [`LOG_LIMIT`], unreadable).
    pub note: Option<String>,
}

/// A job file sent by the client: its name (for messages) and text.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct JobText {
    pub name: String,
    pub text: String,
}

/// Client to server, in this order: Hello, Clock (a few), Jobs, Start.
#[derive(Serialize, Deserialize, Debug)]
pub enum ToServer {
    Hello {
        protocol: u32,
        token: String,
    },
    /// What time is it on your clock? (the clock-offset exchange, super::clock)
    Clock,
    Jobs {
        files: Vec<JobText>,
        remote: Vec<String>,
    },
    /// Start at this time of the server's wall clock (the client removed the offset it
    /// measured), so every host starts together however the messages were delayed.
    Start {
        at_unix_ns: u64,
    },
    /// Stop the run now (the client got SIGINT/SIGTERM, or its stdout went away), as
    /// fio's client sends QUIT: the jobs end as after a signal, and the report of what
    /// they measured comes back as usual.
    Stop,
}

/// Server to client.
#[derive(Serialize, Deserialize, Debug)]
pub enum ToClient {
    /// Authenticated; the server's host name and wall clock (for the clock offset).
    Welcome { host: String, unix_ns: u64 },
    /// The answer to Clock: the server's wall clock when it answered.
    Clock { unix_ns: u64 },
    /// The jobs passed every check; this many threads will run.
    Ready { threads: u32 },
    /// The jobs started at this server wall-clock time.
    Started { unix_ns: u64 },
    /// Still running (once a second), so a silent host can be told from a slow one;
    /// with the cumulative results so far when there are new ones.
    Alive {
        unix_ns: u64,
        progress: Option<Box<RunReport>>,
    },
    /// One log file the run wrote (sent before Done, each within [`LOG_LIMIT`]);
    /// the client writes it as `<name>.<host>`.
    Log(Box<LogBack>),
    /// Finished: the report and the exit code a local run would have had.
    Done { report: Box<RunReport>, code: i32 },
    /// Refused or failed, with the reason; the server closes the session.
    Refused { reason: String },
}

/// Both directions of a connection (a TLS stream, or a pair of pipes).
pub trait Duplex: Read + Write + Send {}
impl<T: Read + Write + Send> Duplex for T {}

/// Two halves as one stream: stdin/stdout of `--server-stdio`, or an ssh child's pipes.
pub struct Pipes<R, W> {
    pub read: R,
    pub write: W,
}

impl<R: Read, W> Read for Pipes<R, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read.read(buf)
    }
}

impl<R, W: Write> Write for Pipes<R, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.write.flush()
    }
}

/// A framed connection.
pub struct Conn {
    inner: BufReader<Box<dyn Duplex>>,
    /// The descriptor the stream reads from, where known: [`Conn::has_input`] polls it.
    read_fd: Option<RawFd>,
}

impl Conn {
    pub fn new(stream: Box<dyn Duplex>) -> Conn {
        Conn {
            inner: BufReader::new(stream),
            read_fd: None,
        }
    }

    /// A connection whose stream reads from `fd` (a socket, stdin), so that a side
    /// that mostly writes can see whether a message (or the end) is waiting.
    pub fn with_read_fd(stream: Box<dyn Duplex>, fd: RawFd) -> Conn {
        Conn {
            inner: BufReader::new(stream),
            read_fd: Some(fd),
        }
    }

    /// Whether a `recv` would find something now: buffered bytes, or input (or the
    /// end of the stream) at the descriptor. Always false without a known descriptor.
    /// (Over TLS, readable bytes are a record on its way: the peer sends a message
    /// in one write, so the rest follows at once.)
    pub fn has_input(&self) -> bool {
        !self.inner.buffer().is_empty() || self.read_fd.is_some_and(crate::sys::net::readable_now)
    }

    pub fn send<T: Serialize>(&mut self, msg: &T) -> io::Result<()> {
        let buf = postcard::to_stdvec_cobs(msg).map_err(invalid)?;
        let w = self.inner.get_mut();
        w.write_all(&buf)?;
        w.flush()
    }

    /// The next message, at most `limit` bytes encoded.
    pub fn recv<T: DeserializeOwned>(&mut self, limit: usize) -> io::Result<T> {
        let mut buf = Vec::new();
        let n = (&mut self.inner)
            .take(limit as u64 + 1)
            .read_until(0, &mut buf)?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the connection was closed",
            ));
        }
        if buf.last() != Some(&0) {
            if n > limit {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a message over the {limit}-byte limit"),
                ));
            }
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the connection was closed mid-message",
            ));
        }
        postcard::from_bytes_cobs(&mut buf).map_err(invalid)
    }

    /// The stream under the framing (to shut it down).
    pub fn get_mut(&mut self) -> &mut Box<dyn Duplex> {
        self.inner.get_mut()
    }
}

fn invalid(e: postcard::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("bad message: {e}"))
}

/// Wall-clock nanoseconds since the Unix epoch.
pub fn unix_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(bytes: Vec<u8>) -> Conn {
        Conn::new(Box::new(Pipes {
            read: io::Cursor::new(bytes),
            write: Vec::new(),
        }))
    }

    #[test]
    fn messages_round_trip_and_frames_are_bounded() {
        let mut bytes = postcard::to_stdvec_cobs(&ToServer::Hello {
            protocol: PROTOCOL,
            token: "s3cret".into(),
        })
        .unwrap();
        bytes.extend(postcard::to_stdvec_cobs(&ToServer::Start { at_unix_ns: 5 }).unwrap());
        let mut c = pair(bytes);
        match c.recv::<ToServer>(HELLO_LIMIT).unwrap() {
            ToServer::Hello { protocol, token } => {
                assert_eq!((protocol, token.as_str()), (PROTOCOL, "s3cret"))
            }
            m => panic!("{m:?}"),
        }
        assert!(matches!(
            c.recv::<ToServer>(16).unwrap(),
            ToServer::Start { at_unix_ns: 5 }
        ));
        let e = c.recv::<ToServer>(16).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);

        let mut c = pair(vec![7u8; 10_000]);
        let e = c.recv::<ToServer>(HELLO_LIMIT).unwrap_err();
        assert!(e.to_string().contains("over the 4096-byte limit"), "{e}");
    }

    #[test]
    fn a_report_survives_the_wire_exactly() {
        let mut r = RunReport::default();
        let mut j = ferrio_report::JobReport::default();
        for ns in [1_000u64, 20_000, 3_000_000] {
            j.dir[0].clat.record(ns);
        }
        j.dir[0].io_bytes = 12288;
        j.usr_cpu = f64::NAN;
        r.jobs.push(j);
        let bytes = postcard::to_stdvec_cobs(&ToClient::Done {
            report: Box::new(r.clone()),
            code: 0,
        })
        .unwrap();
        match pair(bytes).recv::<ToClient>(RESULT_LIMIT).unwrap() {
            ToClient::Done { report, .. } => {
                assert_eq!(report.jobs[0].dir[0].clat, r.jobs[0].dir[0].clat);
                assert_eq!(report.jobs[0].dir[0].io_bytes, 12288);
                assert!(report.jobs[0].usr_cpu.is_nan());
            }
            m => panic!("{m:?}"),
        }
    }
}
