//! fio's verify state file (verify_state_save / verify_state_load): what a write
//! job had done when it ended — how many writes it issued and, per file, the
//! offsets of its last `iodepth` completed writes — so that a later verify pass
//! (verify_only=1, of ferrio or fio) checks only what was written before an
//! interruption. The layout is fio 3.33's (verify-state.h, version 3), so either
//! tool reads the other's file:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8, 8..16, 16..24 | header: version 3, size of the rest, its crc32c (fio's, not inverted) |
//! | +0..8 | completions listed (no_comps) |
//! | +8..12, +12..16 | iodepth, number of files |
//! | +16..24 | writes issued (numberio) |
//! | +24..32 | the thread's index in the run |
//! | +32..88 | fio's random state (ferrio writes zeros: fio never reads it back) |
//! | +88..152 | the job's name, NUL-terminated |
//! | +152.. | iodepth × files (file number, offset) pairs, the first no_comps used |
//!
//! All little-endian. The file is `local-<job name, '/' as '.'>-<index>-verify.state`
//! in the working directory, or in the --aux-path directory.

use super::checksum::crc32c_fio;
use std::collections::VecDeque;

const VERSION: u64 = 3;
const HDR: usize = 24;
const FIXED: usize = 152;
const NAME_AT: usize = 88;
const NAME_LEN: usize = 64;

/// A job's write state, as saved or loaded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub depth: u32,
    pub nofiles: u32,
    /// Writes issued.
    pub numberio: u64,
    pub index: u64,
    pub name: String,
    /// (file number, offset) of the last completed writes, newest first per file.
    pub comps: Vec<(u64, u64)>,
}

/// fio's state file name for job `name`, thread `index` (0-based in the run).
pub fn file_name(name: &str, index: u64) -> String {
    format!("local-{}-{index}-verify.state", name.replace('/', "."))
}

/// A verify file's name in the --aux-path directory (fio's `<aux>/<name>`), or
/// as it is (the working directory) without one.
pub fn in_aux(aux: Option<&std::path::Path>, name: String) -> String {
    match aux {
        Some(dir) => dir.join(name).to_string_lossy().into_owned(),
        None => name,
    }
}

impl State {
    /// The file's bytes: header and thread list.
    pub fn encode(&self) -> Vec<u8> {
        let slots = self.depth as usize * self.nofiles as usize;
        let mut s = vec![0u8; FIXED + 16 * slots.max(self.comps.len())];
        s[0..8].copy_from_slice(&(self.comps.len() as u64).to_le_bytes());
        s[8..12].copy_from_slice(&self.depth.to_le_bytes());
        s[12..16].copy_from_slice(&self.nofiles.to_le_bytes());
        s[16..24].copy_from_slice(&self.numberio.to_le_bytes());
        s[24..32].copy_from_slice(&self.index.to_le_bytes());
        // As fio's snprintf into 64 bytes: at most 63 and a NUL.
        let name = self.name.as_bytes();
        let n = name.len().min(NAME_LEN - 1);
        s[NAME_AT..NAME_AT + n].copy_from_slice(&name[..n]);
        for (i, (f, o)) in self.comps.iter().enumerate() {
            let at = FIXED + 16 * i;
            s[at..at + 8].copy_from_slice(&f.to_le_bytes());
            s[at + 8..at + 16].copy_from_slice(&o.to_le_bytes());
        }
        let mut out = Vec::with_capacity(HDR + s.len());
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(&(crc32c_fio(&s) as u64).to_le_bytes());
        out.extend_from_slice(&s);
        out
    }

    /// Read a state file's bytes; Err says what is wrong with them.
    pub fn decode(b: &[u8]) -> Result<State, String> {
        let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let u32_at = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        if b.len() < HDR {
            return Err(format!("{} bytes, shorter than its header", b.len()));
        }
        let version = u64_at(b, 0);
        if version != VERSION {
            return Err(format!("unsupported version {version} (fio 3.33 writes 3)"));
        }
        let size = u64_at(b, 8) as usize;
        let s = &b[HDR..];
        if size < FIXED || s.len() < size {
            return Err(format!(
                "size {size} does not match the file's {} bytes",
                b.len()
            ));
        }
        let s = &s[..size];
        if crc32c_fio(s) as u64 != u64_at(b, 16) {
            return Err("its checksum does not match: the state is corrupt".into());
        }
        let no_comps = u64_at(s, 0) as usize;
        if FIXED + 16 * no_comps > size {
            return Err(format!("{no_comps} completions do not fit in {size} bytes"));
        }
        let name = &s[NAME_AT..NAME_AT + NAME_LEN];
        let end = name.iter().position(|&c| c == 0).unwrap_or(NAME_LEN);
        Ok(State {
            depth: u32_at(s, 8),
            nofiles: u32_at(s, 12),
            numberio: u64_at(s, 16),
            index: u64_at(s, 24),
            name: String::from_utf8_lossy(&name[..end]).into_owned(),
            comps: (0..no_comps)
                .map(|i| (u64_at(s, FIXED + 16 * i), u64_at(s, FIXED + 16 * i + 8)))
                .collect(),
        })
    }

    /// fio's verify_state_should_stop: whether the verify pass stops before its
    /// `done`-th block (0-based), at (`file`, `offset`). Blocks well before the last
    /// `depth` writes are checked; from there on only those listed as completed.
    /// (fio's unsigned arithmetic is kept: past `numberio` it checks again.)
    pub fn stops_at(&self, done: u64, file: u64, offset: u64) -> bool {
        let depth = self.depth as u64;
        if (done < depth || self.numberio.wrapping_sub(done) > depth) && self.numberio > depth {
            return false;
        }
        !self.comps.contains(&(file, offset))
    }
}

/// Writes issued and, per file, (write number, offset) of the last `depth` writes.
type Snapshot = (u64, Vec<VecDeque<(u64, u64)>>);

/// What a write job has done, for its state file.
#[derive(Debug, Default)]
pub struct Tracker {
    pub depth: usize,
    pub writes: u64,
    /// Per file: (write number, offset) of its last `depth` writes, newest last.
    last: Vec<VecDeque<(u64, u64)>>,
    /// verify_policy=fsynced: the state is the one at the submission of the last
    /// fsync that completed (`safe`: its writes and list; None: no fsync has).
    pub fsynced: bool,
    safe: Option<Snapshot>,
    /// The state at the submission of each fsync in flight, by unit.
    syncs: Vec<(usize, Snapshot)>,
}

impl Tracker {
    pub fn new(depth: usize) -> Tracker {
        Tracker {
            depth: depth.max(1),
            ..Default::default()
        }
    }

    /// One write to `file` at `offset`.
    pub fn wrote(&mut self, file: usize, offset: u64) {
        self.writes += 1;
        if self.last.len() <= file {
            self.last.resize_with(file + 1, VecDeque::new);
        }
        let q = &mut self.last[file];
        if q.len() == self.depth {
            q.pop_front();
        }
        q.push_back((self.writes - 1, offset));
    }

    /// With verify_policy=fsynced (`on`) or not.
    pub fn fsynced(mut self, on: bool) -> Tracker {
        self.fsynced = on;
        self
    }

    /// An fsync (or fdatasync) is submitted from unit `unit`: it covers the writes
    /// issued so far (fio takes the mark at submission, not completion).
    pub fn sync_started(&mut self, unit: usize) {
        self.syncs.retain(|s| s.0 != unit);
        self.syncs.push((unit, (self.writes, self.last.clone())));
    }

    /// The fsync of unit `unit` completed (`ok`: without an error).
    pub fn sync_done(&mut self, unit: usize, ok: bool) {
        if let Some(i) = self.syncs.iter().position(|s| s.0 == unit) {
            let (_, snap) = self.syncs.swap_remove(i);
            if ok && self.safe.as_ref().is_none_or(|s| snap.0 > s.0) {
                self.safe = Some(snap);
            }
        }
    }

    /// The state of job `name`, thread `index`, over `nofiles` files.
    pub fn state(&self, name: &str, index: u64, nofiles: usize) -> State {
        // fsynced: as if the job had ended at the safe mark (0 writes: none).
        let none = (0, Vec::new());
        let (upto, last) = match self.fsynced {
            true => self.safe.as_ref().unwrap_or(&none),
            false => &(self.writes, self.last.clone()),
        };
        let upto = *upto;
        let comps = last
            .iter()
            .enumerate()
            .flat_map(|(f, q)| q.iter().rev().map(move |&(_, o)| (f as u64, o)))
            .collect();
        State {
            depth: self.depth as u32,
            nofiles: nofiles.max(self.last.len()) as u32,
            numberio: upto,
            index,
            name: name.to_string(),
            comps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file fio 3.33 wrote for `--name=w --rw=randwrite --bs=4k --verify=crc32c`
    /// stopped after 640 writes (its random state zeroed here: not read back).
    fn fio_file() -> Vec<u8> {
        let mut b = vec![0u8; 24 + 168];
        b[0] = 3;
        b[8] = 0xa8;
        let s = &mut b[24..];
        s[0] = 1; // no_comps
        s[8] = 1; // depth
        s[12] = 1; // nofiles
        s[16..18].copy_from_slice(&640u16.to_le_bytes());
        s[88] = b'w';
        s[152 + 8..152 + 16].copy_from_slice(&0x022b_c000u64.to_le_bytes());
        let crc = crc32c_fio(s) as u64;
        b[16..24].copy_from_slice(&crc.to_le_bytes());
        b
    }

    #[test]
    fn reads_fios_layout_and_writes_it_back_byte_for_byte() {
        let b = fio_file();
        let s = State::decode(&b).unwrap();
        assert_eq!(
            s,
            State {
                depth: 1,
                nofiles: 1,
                numberio: 640,
                index: 0,
                name: "w".into(),
                comps: vec![(0, 0x022b_c000)],
            }
        );
        assert_eq!(s.encode(), b);
    }

    #[test]
    fn a_damaged_file_is_refused_with_the_reason() {
        let mut b = fio_file();
        b[24 + 20] ^= 1;
        assert!(State::decode(&b).unwrap_err().contains("corrupt"));
        let mut b = fio_file();
        b[0] = 2;
        assert!(State::decode(&b).unwrap_err().contains("version 2"));
        assert!(State::decode(&fio_file()[..30]).is_err());
    }

    #[test]
    fn the_verify_pass_stops_at_the_first_block_not_known_written() {
        let mut t = Tracker::new(2);
        for o in 0..10u64 {
            t.wrote(0, o * 4096);
        }
        let s = t.state("j", 0, 1);
        assert_eq!(s.comps, vec![(0, 9 * 4096), (0, 8 * 4096)]);
        // Blocks 0..8 are before the window; 8 and 9 are listed; 10 is not.
        let stop: Vec<bool> = (0..11).map(|k| s.stops_at(k, 0, k * 4096)).collect();
        assert_eq!(stop.iter().position(|&x| x), Some(10), "{stop:?}");
    }

    #[test]
    fn fsynced_covers_the_writes_before_the_last_completed_fsync() {
        let mut t = Tracker {
            fsynced: true,
            ..Tracker::new(4)
        };
        let write = |t: &mut Tracker, n: u64| {
            for _ in 0..n {
                t.wrote(0, t.writes * 4096);
            }
        };
        write(&mut t, 3);
        // No fsync has completed: nothing is safe, the pass stops at once.
        let s = t.state("j", 0, 1);
        assert_eq!((s.numberio, s.comps.len()), (0, 0));
        assert!(s.stops_at(0, 0, 0));
        t.sync_started(7); // covers writes 0..3
        write(&mut t, 2);
        t.sync_started(8); // covers 0..5, fails
        write(&mut t, 1);
        t.sync_done(7, true);
        t.sync_done(8, false);
        let s = t.state("j", 0, 1);
        assert_eq!(s.numberio, 3);
        assert_eq!(s.comps, vec![(0, 2 * 4096), (0, 4096), (0, 0)]);
        let stop: Vec<bool> = (0..6).map(|k| s.stops_at(k, 0, k * 4096)).collect();
        assert_eq!(stop.iter().position(|&x| x), Some(3), "{stop:?}");
        // Past the depth: the blocks before the mark, and none after.
        t.sync_started(9);
        write(&mut t, 9);
        t.sync_done(9, true);
        let s = t.state("j", 0, 1);
        let stop: Vec<bool> = (0..20).map(|k| s.stops_at(k, 0, k * 4096)).collect();
        assert_eq!(stop.iter().position(|&x| x), Some(6), "{stop:?}");
        // completed (the default) covers every write issued.
        t.fsynced = false;
        assert_eq!(t.state("j", 0, 1).numberio, 15);
    }

    #[test]
    fn names_escape_slashes_as_fio() {
        assert_eq!(file_name("a/b", 3), "local-a.b-3-verify.state");
        assert_eq!(in_aux(None, "x".into()), "x");
        let aux = std::path::Path::new("/d/e");
        assert_eq!(
            in_aux(Some(aux), file_name("j", 0)),
            "/d/e/local-j-0-verify.state"
        );
    }
}
