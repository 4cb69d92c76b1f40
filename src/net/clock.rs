//! Each server's clock offset from the client's, estimated NTP-style when the client
//! connects: a few request/response exchanges, each giving the server's wall clock
//! between the client's send and receive times. With the server's reading taken
//! somewhere inside that round trip, its offset is within half the round trip of the
//! midpoint estimate, so the exchange with the shortest round trip is kept and half its
//! round trip is the uncertainty. The client converts the common start to each host's
//! clock with it and removes it from the start times it reports.

use std::io;

/// Exchanges per host at connect (on a LAN each takes well under a millisecond).
pub const ROUNDS: usize = 8;

/// The most exchanges a server answers in one session (a client sends [`ROUNDS`]).
pub const MAX_ROUNDS: usize = 64;

/// A host's clock minus this machine's, and the round trip it was measured over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offset {
    pub offset_ns: i128,
    pub rtt_ns: u64,
}

impl Offset {
    /// One exchange: sent at `t0`, the server read `server`, received at `t1` (ns).
    pub fn from_sample(t0: i128, server: i128, t1: i128) -> Offset {
        let rtt = (t1 - t0).max(0);
        Offset {
            offset_ns: server - t0 - rtt / 2,
            rtt_ns: rtt as u64,
        }
    }

    /// How far the true offset may be from `offset_ns`: half the round trip.
    pub fn uncertainty_ns(&self) -> u64 {
        self.rtt_ns.div_ceil(2)
    }

    /// A time on this machine's clock as the host's clock reads it, and back.
    pub fn to_host(&self, local_ns: i128) -> i128 {
        local_ns + self.offset_ns
    }
    pub fn to_local(&self, host_ns: i128) -> i128 {
        host_ns - self.offset_ns
    }
}

/// The sample with the shortest round trip (the tightest bound).
pub fn best(samples: impl IntoIterator<Item = Offset>) -> Option<Offset> {
    samples.into_iter().min_by_key(|o| o.rtt_ns)
}

/// `rounds` exchanges: `now` reads this machine's clock, `exchange` asks the server for
/// its clock and returns its reading. The best of them (and of `first`, the hello's
/// own round trip, when given).
pub fn estimate(
    rounds: usize,
    first: Option<Offset>,
    now: &mut dyn FnMut() -> i128,
    exchange: &mut dyn FnMut() -> io::Result<i128>,
) -> io::Result<Offset> {
    let mut samples: Vec<Offset> = first.into_iter().collect();
    for _ in 0..rounds {
        let t0 = now();
        let server = exchange()?;
        let t1 = now();
        samples.push(Offset::from_sample(t0, server, t1));
    }
    best(samples).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no exchange"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A server 5 s ahead, reached over links whose delays differ each way and each
    /// time: the estimate is within its uncertainty of the truth, and the uncertainty
    /// is half the shortest round trip.
    #[test]
    fn the_shortest_round_trip_bounds_a_known_offset() {
        const TRUE_OFFSET: i128 = 5_000_000_000;
        let clock = Cell::new(1_000_000_000i128);
        // (delay there, delay back), ns: asymmetric, the third the shortest.
        let delays = [
            (900_000, 100_000),
            (50_000, 700_000),
            (30_000, 90_000),
            (400_000, 400_000),
        ];
        let i = Cell::new(0usize);
        let mut now = || clock.get();
        let mut exchange = || {
            let (there, back) = delays[i.get()];
            i.set(i.get() + 1);
            clock.set(clock.get() + there);
            let server = clock.get() + TRUE_OFFSET;
            clock.set(clock.get() + back);
            Ok(server)
        };
        let o = estimate(delays.len(), None, &mut now, &mut exchange).unwrap();
        assert_eq!(o.rtt_ns, 120_000);
        assert_eq!(o.uncertainty_ns(), 60_000);
        // The third exchange: the server read its clock 30 µs into a 120 µs round trip.
        assert_eq!(o.offset_ns, TRUE_OFFSET - 30_000);
        assert!((o.offset_ns - TRUE_OFFSET).unsigned_abs() <= u128::from(o.uncertainty_ns()));
        assert_eq!(o.to_local(o.to_host(42)), 42);
        // A better first sample (the hello's) wins; an error ends the estimate.
        let hello = Offset::from_sample(0, TRUE_OFFSET + 5, 10);
        i.set(0);
        let o = estimate(2, Some(hello), &mut now, &mut exchange).unwrap();
        assert_eq!(o, hello);
        let mut broken = || Err(io::Error::other("lost"));
        assert!(estimate(3, Some(hello), &mut now, &mut broken).is_err());
    }
}
