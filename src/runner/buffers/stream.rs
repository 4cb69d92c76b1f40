//! fio's buffer-content streams for one thread: the buffer stream every random fill
//! draws its seed from, its "previous" copy, and, with dedupe_percentage, the dedupe
//! decision stream and the working set (fio's get_buf_state / save_buf_state and
//! init_dedupe_working_set_seeds).
//!
//! A dedupable buffer replays a saved copy of the buffer stream, so it gets exactly the
//! seeds, hence the bytes, of another buffer: in repeat mode the copy taken after the
//! last unique buffer (so it equals the unique buffer that comes next), in working-set
//! mode one of the copies taken at the start of each of the working set's buffers.

use crate::random::FioRand;
use ferrio_config::ext::DedupeMode;

/// Where one buffer's seeds come from.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    /// The buffer stream itself (unique data).
    Main,
    /// A copy of a saved state (dedupable data).
    Copy(FioRand),
}

#[derive(Clone, Debug)]
struct Dedupe {
    percentage: u32,
    /// rand_between(1, 100) per buffer: below the percentage means "dedupe it".
    decide: FioRand,
    mode: DedupeMode,
    /// Working set: which saved state to replay.
    index: FioRand,
    working_set: Vec<FioRand>,
}

/// The dedupe settings one thread needs.
#[derive(Clone, Copy, Debug)]
pub struct DedupeSetup {
    pub percentage: u32,
    pub mode: DedupeMode,
    /// Seed of the dedupe decision stream (always 32-bit, as fio).
    pub decide_seed: u64,
    /// Seed of the working-set index stream.
    pub index_seed: u64,
    /// Buffers in the working set (size × working set % / 100 / smallest write).
    pub unique_pages: u64,
    /// Seed advances per buffer (smallest write / compress chunk).
    pub advances: u64,
}

#[derive(Clone, Debug)]
pub struct BufStream {
    state: FioRand,
    prev: FioRand,
    dedupe: Option<Dedupe>,
    /// The streams as seeded: (buffer, dedupe decision, working-set index).
    seeded: (FioRand, Option<(FioRand, FioRand)>),
}

impl BufStream {
    pub fn new(state: FioRand) -> BufStream {
        BufStream {
            state,
            prev: state,
            dedupe: None,
            seeded: (state, None),
        }
    }

    /// Every stream back to its seed (fio's td_fill_rand_seeds at a new loop); the
    /// working set stays as it was made.
    pub fn reseed(&mut self) {
        self.state = self.seeded.0;
        self.prev = self.state;
        if let (Some(d), Some((decide, index))) = (&mut self.dedupe, self.seeded.1) {
            d.decide = decide;
            d.index = index;
        }
    }

    /// With dedupe: `peers` are every thread's initial buffer streams in fio's thread
    /// order (`Some((peers, me))` for dedupe_global, whose working set takes its seeds
    /// from every sharing thread in turn).
    pub fn with_dedupe(
        state: FioRand,
        use64: bool,
        d: DedupeSetup,
        global: Option<(&[FioRand], usize)>,
    ) -> BufStream {
        let mut working_set = Vec::new();
        if d.mode == DedupeMode::WorkingSet {
            working_set.reserve(d.unique_pages as usize);
            let threads = global.map_or(1, |(p, _)| p.len() as u64).max(1);
            let per_seed = (d.unique_pages / threads).max(1);
            let mut s = state;
            let mut at = global.map_or(0, |(_, me)| me);
            for i in 0..d.unique_pages {
                if i > 0 {
                    for _ in 0..d.advances {
                        s.next_seed();
                    }
                    if let Some((peers, _)) = global {
                        if i % per_seed == 0 {
                            at = (at + 1) % peers.len();
                            s = peers[at];
                        }
                    }
                }
                working_set.push(s);
            }
        }
        let (decide, index) = (
            FioRand::new(d.decide_seed, false),
            FioRand::new(d.index_seed, use64),
        );
        BufStream {
            state,
            prev: state,
            dedupe: Some(Dedupe {
                percentage: d.percentage,
                decide,
                mode: d.mode,
                index,
                working_set,
            }),
            seeded: (state, Some((decide, index))),
        }
    }

    /// The seed source of the next buffer (fio's get_buf_state).
    pub fn pick(&mut self) -> Source {
        let Some(d) = &mut self.dedupe else {
            return Source::Main;
        };
        if d.percentage == 0 {
            return Source::Main;
        }
        if d.percentage >= 100 {
            self.prev = self.state;
            return Source::Main;
        }
        if d.decide.between(1, 100) > d.percentage as u64 {
            return Source::Main;
        }
        match d.mode {
            DedupeMode::Repeat => Source::Copy(self.prev),
            DedupeMode::WorkingSet => {
                let last = d.working_set.len() as u64 - 1;
                let i = d.index.between(0, last) as usize;
                Source::Copy(d.working_set[i])
            }
        }
    }

    /// The next fill seed from `src`.
    pub fn seed(&mut self, src: &mut Source) -> u64 {
        match src {
            Source::Main => self.state.next_seed(),
            Source::Copy(r) => r.next_seed(),
        }
    }

    /// After each chunk (fio's save_buf_state): 100 % dedupe rewinds the stream, so
    /// every chunk repeats; unique data moves "previous" along.
    pub fn save(&mut self, src: &Source) {
        if self.dedupe.as_ref().is_some_and(|d| d.percentage >= 100) {
            self.state = self.prev;
        } else if let Source::Main = src {
            self.prev = self.state;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(percentage: u32, mode: DedupeMode, pages: u64) -> DedupeSetup {
        DedupeSetup {
            percentage,
            mode,
            decide_seed: 11,
            index_seed: 12,
            unique_pages: pages,
            advances: 1,
        }
    }

    /// One seed per buffer, as a fill without compression chunks draws.
    fn seeds(s: &mut BufStream, n: usize) -> Vec<u64> {
        (0..n)
            .map(|_| {
                let mut src = s.pick();
                let v = s.seed(&mut src);
                s.save(&src);
                v
            })
            .collect()
    }

    #[test]
    fn no_dedupe_draws_the_stream() {
        let r = FioRand::new(5, false);
        let mut s = BufStream::new(r);
        let mut plain = r;
        let want: Vec<u64> = (0..5).map(|_| plain.next_seed()).collect();
        assert_eq!(seeds(&mut s, 5), want);
    }

    #[test]
    fn full_dedupe_repeats_one_seed() {
        let mut s = BufStream::with_dedupe(
            FioRand::new(5, false),
            false,
            setup(100, DedupeMode::Repeat, 0),
            None,
        );
        let v = seeds(&mut s, 20);
        assert!(v.iter().all(|&x| x == v[0]));
    }

    #[test]
    fn repeat_mode_duplicates_the_next_unique_buffer() {
        let mut s = BufStream::with_dedupe(
            FioRand::new(5, false),
            false,
            setup(50, DedupeMode::Repeat, 0),
            None,
        );
        let v = seeds(&mut s, 2000);
        let unique: std::collections::HashSet<u64> = v.iter().copied().collect();
        let dups = v.len() - unique.len();
        // About half the buffers repeat another one.
        assert!((900..=1100).contains(&dups), "{dups}");
    }

    #[test]
    fn working_set_replays_its_pages() {
        let r = FioRand::new(5, true);
        let mut s = BufStream::with_dedupe(r, true, setup(60, DedupeMode::WorkingSet, 10), None);
        let mut plain = r;
        let set: Vec<u64> = (0..10).map(|_| plain.next_seed()).collect();
        let v = seeds(&mut s, 1000);
        let from_set = v.iter().filter(|x| set.contains(x)).count();
        // 60 % replay a working-set page (plus the first 10 unique ones, which are the set).
        assert!((560..=660).contains(&from_set), "{from_set}");
    }

    #[test]
    fn global_working_set_takes_peers_seeds() {
        let peers = [FioRand::new(1, false), FioRand::new(2, false)];
        let s = BufStream::with_dedupe(
            peers[0],
            false,
            setup(50, DedupeMode::WorkingSet, 4),
            Some((&peers, 0)),
        );
        let ws = &s.dedupe.as_ref().unwrap().working_set;
        // Two pages per thread: own start, advanced once, then the peer's start.
        let mut a = peers[0];
        a.next_seed();
        assert_eq!(
            ws,
            &vec![peers[0], a, peers[1], {
                let mut b = peers[1];
                b.next_seed();
                b
            }]
        );
    }
}
