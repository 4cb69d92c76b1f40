//! `--prometheus=ADDR`: live metrics for Prometheus at `http://ADDR/metrics` while
//! the jobs run (docs/reports.md). A small blocking HTTP server (tiny_http) answers
//! on its own thread; each scrape reads the live [`Hub`] the status line reads
//! (per-thread byte and I/O counters, and a statistics snapshot the threads hand
//! over at their next publishing point) and encodes it with prometheus-client. The
//! I/O threads never see a scrape beyond that snapshot request.
//!
//! Metrics, labelled `jobname`, `jobnum` (the job's index) and `rw`:
//! `ferrio_io_bytes_total`, `ferrio_ios_total` (counters, since the end of ramp_time,
//! numjobs clones summed), `ferrio_iops` and `ferrio_bandwidth_bytes_per_second`
//! (gauges: the rate since the previous scrape), `ferrio_latency_seconds` (histogram
//! of total latency, or completion latency when lat is not recorded), and per job
//! `ferrio_job_state` (0 waiting, 1 ramp, 2 running, 3 done, 4 failed) and, with
//! ss=, `ferrio_steadystate_attained` and `ferrio_steadystate_intervals_filled`.

use super::hub::Hub;
use crate::runner::plan::ThreadPlan;
use crate::runner::steadystate::report::window_report;
use crate::runner::steadystate::SteadyStateFactory;
use ferrio_stats::histogram::PLAT_NR;
use ferrio_stats::{plat_idx_to_val, LatencyHistogram};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;
use std::collections::HashMap;
use std::fmt::Error;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const DIRS: [&str; 3] = ["read", "write", "trim"];

/// The histogram's bucket bounds: 1 µs × 2^k up to ~34 s.
fn bounds() -> Vec<f64> {
    (0..26).map(|k| 1e-6 * f64::from(1u32 << k)).collect()
}

/// A bound socket, before the run (a bad or busy address is refused before any file
/// is touched). A sweep binds it once and hands it from point to point
/// ([`Serving::finish`] gives it back): a socket closed and bound again at once can
/// still be held by the old listener's thread.
pub struct Endpoint {
    server: Arc<tiny_http::Server>,
    linger: Duration,
}

impl Endpoint {
    /// Bind `--prometheus=ADDR`, if given.
    pub fn bind(flags: &ferrio_config::ext::ReportFlags) -> Result<Option<Endpoint>, String> {
        let Some(addr) = &flags.prometheus else {
            return Ok(None);
        };
        let server = tiny_http::Server::http(addr.as_str())
            .map_err(|e| format!("--prometheus: cannot listen on {addr}: {e}"))?;
        Ok(Some(Endpoint {
            server: Arc::new(server),
            linger: Duration::from_millis(flags.prometheus_linger_ms),
        }))
    }

    /// Serve scrapes from `hub` on a new thread until [`Serving::finish`].
    pub fn serve(
        self,
        hub: Arc<Hub>,
        threads: &[ThreadPlan],
        steadystate: Arc<SteadyStateFactory>,
    ) -> Serving {
        let collector = RunCollector {
            state: Arc::new(State {
                hub,
                threads: threads
                    .iter()
                    .map(|t| (t.job_index, t.spec.name.clone()))
                    .collect(),
                plans: threads.to_vec(),
                steadystate,
                last: Mutex::new(HashMap::new()),
                created: Instant::now(),
            }),
        };
        let mut registry = Registry::default();
        registry.register_collector(Box::new(collector));
        let stop = Arc::new(AtomicBool::new(false));
        let finished_at: Arc<Mutex<Option<Instant>>> = Arc::default();
        let scraped_after = Arc::new(AtomicBool::new(false));
        let thread = {
            let (stop, fin, after) = (stop.clone(), finished_at.clone(), scraped_after.clone());
            let server = self.server.clone();
            std::thread::Builder::new()
                .name("ferrio-prometheus".into())
                .spawn(move || serve_loop(server, registry, stop, fin, after))
                .expect("spawn the prometheus endpoint")
        };
        Serving {
            stop,
            finished_at,
            scraped_after,
            linger: self.linger,
            thread: Some(thread),
            server: self.server,
        }
    }
}

/// The running endpoint.
pub struct Serving {
    stop: Arc<AtomicBool>,
    finished_at: Arc<Mutex<Option<Instant>>>,
    scraped_after: Arc<AtomicBool>,
    linger: Duration,
    thread: Option<JoinHandle<()>>,
    server: Arc<tiny_http::Server>,
}

impl Serving {
    /// The run is over: with --prometheus-linger, serve until a scrape has read the
    /// final values (or the linger time passed, or `interrupted`), then stop; the
    /// socket stays bound in the returned endpoint (dropping it closes it).
    pub fn finish(mut self, interrupted: &AtomicBool) -> Endpoint {
        if let Ok(mut f) = self.finished_at.lock() {
            *f = Some(Instant::now());
        }
        let end = Instant::now() + self.linger;
        while Instant::now() < end
            && !self.scraped_after.load(Ordering::Acquire)
            && !interrupted.load(Ordering::Relaxed)
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        Endpoint {
            server: self.server,
            linger: self.linger,
        }
    }
}

fn serve_loop(
    server: Arc<tiny_http::Server>,
    registry: Registry,
    stop: Arc<AtomicBool>,
    finished_at: Arc<Mutex<Option<Instant>>>,
    scraped_after: Arc<AtomicBool>,
) {
    while !stop.load(Ordering::Acquire) {
        let req = match server.recv_timeout(Duration::from_millis(50)) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(_) => break,
        };
        let started = Instant::now();
        let ok = req.url() == "/metrics" || req.url().starts_with("/metrics?");
        if !ok {
            let _ = req
                .respond(tiny_http::Response::from_string("see /metrics\n").with_status_code(404));
            continue;
        }
        let mut body = String::new();
        if prometheus_client::encoding::text::encode(&mut body, &registry).is_err() {
            let _ = req.respond(tiny_http::Response::from_string("").with_status_code(500));
            continue;
        }
        let header = tiny_http::Header::from_bytes(
            &b"Content-Type"[..],
            &b"application/openmetrics-text; version=1.0.0; charset=utf-8"[..],
        )
        .expect("a valid header");
        let sent = req
            .respond(tiny_http::Response::from_string(body).with_header(header))
            .is_ok();
        // A scrape that began after the run ended has read the final values.
        let after = finished_at
            .lock()
            .ok()
            .and_then(|f| *f)
            .is_some_and(|t| started >= t);
        if sent && after {
            scraped_after.store(true, Ordering::Release);
        }
    }
}

/// (when, ios, bytes) of one job and direction at the previous scrape.
type Seen = (Instant, u64, u64);

/// What a scrape reads.
struct State {
    hub: Arc<Hub>,
    /// Per hub slot: (job index, job name).
    threads: Vec<(usize, String)>,
    plans: Vec<ThreadPlan>,
    steadystate: Arc<SteadyStateFactory>,
    /// (job, dir) → (when, ios, bytes) at the previous scrape, for the rate gauges.
    last: Mutex<HashMap<(usize, usize), Seen>>,
    /// The first scrape's rates are since the endpoint started serving.
    created: Instant,
}

#[derive(Clone)]
struct RunCollector {
    state: Arc<State>,
}

impl std::fmt::Debug for RunCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RunCollector")
    }
}

/// One job's (numjobs clones summed) direction.
#[derive(Default)]
struct JobDir {
    bytes: u64,
    ios: u64,
    lat: LatencyHistogram,
}

impl State {
    /// Fresh snapshots (waiting at most 250 ms for the threads to answer), summed per
    /// job and direction, in job order.
    fn gather(&self) -> Vec<(usize, String, [JobDir; 3])> {
        let gen = self.hub.request_snapshots();
        let deadline = Instant::now() + Duration::from_millis(250);
        while Instant::now() < deadline
            && !(0..self.threads.len()).all(|i| self.hub.answered(i, gen))
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut jobs: Vec<(usize, String, [JobDir; 3])> = Vec::new();
        for (i, (job, name)) in self.threads.iter().enumerate() {
            let pos = match jobs.iter().position(|j| j.0 == *job) {
                Some(p) => p,
                None => {
                    jobs.push((*job, name.clone(), Default::default()));
                    jobs.len() - 1
                }
            };
            let slot = &self.hub.slots[i];
            let snap = self.hub.snapshot(i);
            for (d, acc) in jobs[pos].2.iter_mut().enumerate() {
                acc.bytes += slot.bytes[d].load(Ordering::Relaxed);
                acc.ios += slot.ios[d].load(Ordering::Relaxed);
                if let Some(s) = &snap {
                    let st = &s.stats.dir[d];
                    acc.lat.merge(if st.lat.count() > 0 {
                        &st.lat
                    } else {
                        &st.clat
                    });
                }
            }
        }
        jobs
    }
}

fn labels(job: usize, name: &str, dir: Option<usize>) -> Vec<(String, String)> {
    let mut l = vec![
        ("jobname".to_string(), name.to_string()),
        ("jobnum".to_string(), job.to_string()),
    ];
    if let Some(d) = dir {
        l.push(("rw".into(), DIRS[d].into()));
    }
    l
}

/// Histogram buckets (upper bound in seconds, samples in the bucket: the encoder
/// accumulates them) from fio's log-linear buckets, each counted at its value.
fn buckets(h: &LatencyHistogram) -> Vec<(f64, u64)> {
    let mut out: Vec<(f64, u64)> = bounds().iter().map(|&b| (b, 0)).collect();
    out.push((f64::INFINITY, 0));
    if h.count() > 0 {
        for idx in 0..PLAT_NR {
            let c = h.bucket(idx);
            if c == 0 {
                continue;
            }
            let v = plat_idx_to_val(idx) as f64 / 1e9;
            if let Some(o) = out.iter_mut().find(|o| v <= o.0) {
                o.1 += c;
            }
        }
    }
    out
}

impl Collector for RunCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), Error> {
        let st = &self.state;
        let jobs = st.gather();
        let now = Instant::now();
        let mut rates = HashMap::new();
        if let Ok(mut last) = st.last.lock() {
            for (job, _, dirs) in &jobs {
                for (d, x) in dirs.iter().enumerate() {
                    let (t, ios, bytes) =
                        last.get(&(*job, d)).copied().unwrap_or((st.created, 0, 0));
                    let dt = now.duration_since(t).as_secs_f64();
                    let r = if dt > 0.0 {
                        (
                            x.ios.saturating_sub(ios) as f64 / dt,
                            x.bytes.saturating_sub(bytes) as f64 / dt,
                        )
                    } else {
                        (0.0, 0.0)
                    };
                    rates.insert((*job, d), r);
                    last.insert((*job, d), (now, x.ios, x.bytes));
                }
            }
        }
        let moved = |dirs: &[JobDir; 3]| -> Vec<usize> {
            (0..3)
                .filter(|&d| dirs[d].ios > 0 || dirs[d].bytes > 0)
                .collect()
        };
        {
            let mut m = enc.encode_descriptor(
                "ferrio_io_bytes",
                "Bytes transferred since the end of ramp_time",
                None,
                MetricType::Counter,
            )?;
            for (job, name, dirs) in &jobs {
                for d in moved(dirs) {
                    m.encode_family(&labels(*job, name, Some(d)))?
                        .encode_counter::<Vec<(String, String)>, _, u64>(&dirs[d].bytes, None)?;
                }
            }
        }
        {
            let mut m = enc.encode_descriptor(
                "ferrio_ios",
                "I/Os completed since the end of ramp_time",
                None,
                MetricType::Counter,
            )?;
            for (job, name, dirs) in &jobs {
                for d in moved(dirs) {
                    m.encode_family(&labels(*job, name, Some(d)))?
                        .encode_counter::<Vec<(String, String)>, _, u64>(&dirs[d].ios, None)?;
                }
            }
        }
        for (metric, help, pick) in [
            (
                "ferrio_iops",
                "I/Os per second since the previous scrape",
                0usize,
            ),
            (
                "ferrio_bandwidth_bytes_per_second",
                "Bytes per second since the previous scrape",
                1,
            ),
        ] {
            let mut m = enc.encode_descriptor(metric, help, None, MetricType::Gauge)?;
            for (job, name, dirs) in &jobs {
                for d in moved(dirs) {
                    let r = rates.get(&(*job, d)).copied().unwrap_or_default();
                    let v = if pick == 0 { r.0 } else { r.1 };
                    m.encode_family(&labels(*job, name, Some(d)))?
                        .encode_gauge(&v)?;
                }
            }
        }
        {
            let mut m = enc.encode_descriptor(
                "ferrio_latency_seconds",
                "I/O latency (total; completion latency when total is not recorded)",
                None,
                MetricType::Histogram,
            )?;
            for (job, name, dirs) in &jobs {
                for d in moved(dirs) {
                    let h = &dirs[d].lat;
                    let sum = h.mean() * h.count() as f64 / 1e9;
                    m.encode_family(&labels(*job, name, Some(d)))?
                        .encode_histogram::<Vec<(String, String)>>(
                            sum,
                            h.count(),
                            &buckets(h),
                            None,
                        )?;
                }
            }
        }
        self.encode_job_state(&mut enc, &jobs)
    }
}

impl RunCollector {
    fn encode_job_state(
        &self,
        enc: &mut DescriptorEncoder,
        jobs: &[(usize, String, [JobDir; 3])],
    ) -> Result<(), Error> {
        let st = &self.state;
        {
            let mut m = enc.encode_descriptor(
                "ferrio_job_state",
                "0 waiting, 1 ramp, 2 running, 3 done, 4 failed (the least advanced clone)",
                None,
                MetricType::Gauge,
            )?;
            for (job, name, _) in jobs {
                let state = (0..st.threads.len())
                    .filter(|&i| st.threads[i].0 == *job)
                    .map(|i| st.hub.slots[i].state.load(Ordering::Relaxed))
                    .min()
                    .unwrap_or(0);
                m.encode_family(&labels(*job, name, None))?
                    .encode_gauge(&i64::from(state))?;
            }
        }
        if st.steadystate.is_empty() {
            return Ok(());
        }
        let windows: Vec<(usize, &String, ferrio_report::SteadyStateReport)> = jobs
            .iter()
            .filter_map(|(job, name, _)| {
                let plan = st.plans.iter().find(|p| p.job_index == *job)?;
                let w = st.steadystate.window(plan)?;
                Some((*job, name, window_report(w)))
            })
            .collect();
        for (metric, help, attained) in [
            (
                "ferrio_steadystate_attained",
                "1 once the job's ss= criteria are met",
                true,
            ),
            (
                "ferrio_steadystate_intervals_filled",
                "Steady-state window intervals measured so far",
                false,
            ),
        ] {
            let mut m = enc.encode_descriptor(metric, help, None, MetricType::Gauge)?;
            for (job, name, r) in &windows {
                let v = if attained {
                    i64::from(r.attained)
                } else {
                    r.filled as i64
                };
                m.encode_family(&labels(*job, name, None))?
                    .encode_gauge(&v)?;
            }
        }
        Ok(())
    }
}
