//! `--html=FILE` opened in a real headless browser (Debian's `chromium`): the page
//! renders with no console message and no network request (Chromium's own net log,
//! requests made on behalf of the file:// page), and its screenshot shows the charts
//! (pixels of the series colours, not just a file that exists). A control page with
//! a console error and a remote image proves both detectors see what they look for.

mod common;
use common::skip::tool_or_skip;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What Chromium saw loading `page`.
struct Seen {
    console: Vec<String>,
    requests: Vec<String>,
    /// RGB pixels of the screenshot.
    pixels: Vec<[u8; 3]>,
}

/// One headless Chromium run over `page` (under `timeout`: exit 124 when it hung).
fn browse(
    chromium: &Path,
    dir: &Path,
    tag: &str,
    net: &Path,
    shot: &Path,
    page: &Path,
) -> std::process::Output {
    Command::new("timeout")
        .args(["-k", "10", "240"])
        .arg(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1500,2200",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.join(format!("{tag}.profile")).display()
        ))
        .arg(format!("--log-net-log={}", net.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium")
}

fn open_in_chromium(chromium: &Path, dir: &Path, page: &Path) -> Seen {
    let tag = page.file_stem().unwrap().to_string_lossy().to_string();
    let shot = dir.join(format!("{tag}.png"));
    let net = dir.join(format!("{tag}.net.json"));
    // Bounded: a browser that hangs (it happens to headless Chromium on a starved
    // machine) is killed and started once more, since the hang says nothing about
    // the page; a second hang fails the test with what Chromium said.
    let mut tries = 0;
    let out = loop {
        tries += 1;
        let _ = std::fs::remove_dir_all(dir.join(format!("{tag}.profile")));
        let out = browse(chromium, dir, &tag, &net, &shot, page);
        if out.status.code() != Some(124) || tries == 2 {
            break out;
        }
    };
    assert_ne!(
        out.status.code(),
        Some(124),
        "chromium hung twice: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        shot.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(String::from)
        .collect();
    // Requests made for the page carry its network isolation key (file://); the
    // browser's own background traffic does not.
    let log: Value = serde_json::from_slice(&std::fs::read(&net).unwrap()).unwrap();
    let mut requests: Vec<String> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["params"])
        .filter(|p| {
            p["network_isolation_key"]
                .as_str()
                .is_some_and(|k| k.contains("file://"))
        })
        .filter_map(|p| p["url"].as_str())
        .filter(|u| !u.starts_with("file:") && !u.starts_with("data:"))
        .map(String::from)
        .collect();
    requests.dedup();
    let decoder = png::Decoder::new(std::fs::File::open(&shot).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks(step)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    Seen {
        console,
        requests,
        pixels,
    }
}

/// Pixels within a small distance of `rgb`.
fn count(pixels: &[[u8; 3]], rgb: [u8; 3]) -> usize {
    pixels
        .iter()
        .filter(|p| (0..3).all(|i| (p[i] as i32 - rgb[i] as i32).abs() <= 12))
        .count()
}

const BLUE: [u8; 3] = [0x1f, 0x77, 0xb4];
const RED: [u8; 3] = [0xd6, 0x27, 0x28];
const GREEN: [u8; 3] = [0x2c, 0xa0, 0x2c];

fn chromium() -> Option<PathBuf> {
    tool_or_skip("chromium")
}

#[test]
fn the_detectors_see_a_console_error_and_a_remote_request() {
    let Some(c) = chromium() else { return };
    let d = scratch();
    let page = d.path().join("control.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><p>control</p><script>console.error('control-error')</script>\
         <img src=\"http://127.0.0.1:9/control.png\"></body></html>",
    )
    .unwrap();
    let seen = open_in_chromium(&c, d.path(), &page);
    assert!(
        seen.console.iter().any(|l| l.contains("control-error")),
        "{:?}",
        seen.console
    );
    assert!(
        seen.requests.iter().any(|u| u.contains("127.0.0.1:9")),
        "{:?}",
        seen.requests
    );
    assert_eq!(count(&seen.pixels, BLUE), 0, "no chart on the control page");
}

#[test]
fn a_run_report_renders_offline_with_its_charts() {
    let Some(c) = chromium() else { return };
    let d = scratch();
    let page = d.path().join("run.html");
    let html = format!("--html={}", page.display());
    run_ok(&[
        "--name=ss",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--rw=randrw",
        "--bs=4k",
        "--iodepth=8",
        "--sim_lat=lognormal:80us:20us",
        "--time_based",
        "--runtime=30s",
        "--ss=iops:5%",
        "--ss_dur=5s",
        &html,
        "--output-format=terse",
    ]);
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(text.contains("steady-state window"), "the window is shaded");
    assert_eq!(
        text.matches("<svg").count(),
        10,
        "5 charts per direction, 2 directions"
    );
    let seen = open_in_chromium(&c, d.path(), &page);
    assert!(seen.console.is_empty(), "console: {:?}", seen.console);
    assert!(seen.requests.is_empty(), "network: {:?}", seen.requests);
    // The bandwidth/IOPS lines and the histogram bars are blue; mean latency is blue,
    // p50 red, p99 green: every one of them is drawn.
    let (blue, red, green) = (
        count(&seen.pixels, BLUE),
        count(&seen.pixels, RED),
        count(&seen.pixels, GREEN),
    );
    assert!(
        blue > 5000 && red > 200 && green > 200,
        "blue {blue}, red {red}, green {green}"
    );
    // The steady-state window's shading.
    assert!(count(&seen.pixels, [0xff, 0xf3, 0xc4]) > 10_000);
}

#[test]
fn a_sweep_report_draws_the_curves_against_the_swept_option() {
    let Some(c) = chromium() else { return };
    let d = scratch();
    let page = d.path().join("sweep.html");
    let html = format!("--html={}", page.display());
    let out = run_ok(&[
        "--sweep=iodepth=1..64:x2",
        "--sweep=rw=randread,randwrite",
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--bs=4k",
        "--sim_channels=8",
        // Writes twice as slow: the two curves of each chart are apart.
        "--sim_lat=exponential:100us,exponential:200us",
        "--number_ios=20000",
        &html,
    ]);
    let table = String::from_utf8(out.stdout).unwrap();
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(text.contains("<h2>Against iodepth</h2>"));
    // The table on the page is the one printed.
    let first_row = table.lines().nth(2).unwrap();
    assert!(text.contains(first_row), "{first_row}");
    let seen = open_in_chromium(&c, d.path(), &page);
    assert!(seen.console.is_empty(), "console: {:?}", seen.console);
    assert!(seen.requests.is_empty(), "network: {:?}", seen.requests);
    // Two curves per chart (randread: blue, randwrite: red).
    let (blue, red) = (count(&seen.pixels, BLUE), count(&seen.pixels, RED));
    assert!(blue > 1000 && red > 1000, "blue {blue}, red {red}");
}

/// `--html` to a path that cannot be written is refused before anything runs (a
/// single run and a sweep): exit 1, the path named, no file laid out.
#[test]
fn an_html_path_that_cannot_be_written_is_refused_before_anything_runs() {
    let d = scratch();
    let f = file_in(d.path(), "f");
    let missing = d.path().join("no/such/dir/r.html");
    let name = format!("--filename={f}");
    for (html, sweep, want) in [
        (missing.clone(), None, "no directory"),
        (d.path().to_path_buf(), None, "it is a directory"),
        (missing.clone(), Some("--sweep=iodepth=1,2"), "no directory"),
    ] {
        let out = ferrio()
            .arg(format!("--html={}", html.display()))
            .args(["--name=x", "--rw=write", "--size=1m", &name])
            .args(sweep)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{html:?} {sweep:?}: {err}");
        assert!(
            err.contains("cannot write --html") && err.contains(want),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "{html:?} {sweep:?}: it ran");
        assert!(
            !Path::new(&f).exists(),
            "{html:?} {sweep:?}: a file was laid out"
        );
    }
}

/// With --repeat, the page's run sections say which run they are.
#[test]
fn repeated_runs_are_named_on_the_page() {
    let d = scratch();
    let page = d.path().join("rep.html");
    run_ok(&[
        "--repeat=2",
        &format!("--html={}", page.display()),
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--rw=randread",
        "--bs=4k",
        "--number_ios=5000",
    ]);
    let text = std::fs::read_to_string(&page).unwrap();
    for r in ["run 1/2", "run 2/2"] {
        assert!(
            text.contains(&format!("<summary>run: {r}</summary>")),
            "{r}"
        );
    }
}

/// The extra statistics (the sim's buffers, the adaptive pacer's period) are on the
/// page as the normal output prints them: a run's table has each `line: values` of
/// the normal output, and a sweep page draws one curve per statistic against the
/// swept option, beside the table that lists them as columns.
#[test]
fn extra_statistics_are_on_the_run_and_sweep_pages() {
    let d = scratch();
    let job = [
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_lat=fixed:90us",
        "--sim_channels=16",
        "--bs=128k",
        "--rw=randread",
        "--size=1g",
        "--number_ios=2000",
        "--sim_buffers=24",
        "--pacer_period=20us",
    ];
    let page = d.path().join("run.html");
    let mut args = job.to_vec();
    let html = format!("--html={}", page.display());
    args.extend(["--iodepth=32", &html]);
    let out = run_ok(&args);
    let normal = String::from_utf8(out.stdout).unwrap();
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(text.contains("<h3>job t &middot; ferrio statistics</h3>"));
    let mut lines = 0;
    for l in normal.lines() {
        let Some((name, values)) = l.trim().split_once(" : ") else {
            continue;
        };
        let name = name.trim();
        if name == "sim" || name == "pacer" {
            let row = format!("<tr><td>{name}</td><td>{values}</td>");
            assert!(text.contains(&row), "{row} not in the page");
            lines += 1;
        }
    }
    assert_eq!(lines, 2, "{normal}");

    let page = d.path().join("sweep.html");
    let mut args = job.to_vec();
    let html = format!("--html={}", page.display());
    args.extend(["--sweep=iodepth=8,16,32", &html]);
    let out = run_ok(&args);
    let table = String::from_utf8(out.stdout).unwrap();
    let text = std::fs::read_to_string(&page).unwrap();
    for col in ["sim buffers", "sim in_flight_mean", "pacer period us"] {
        assert!(table.contains(col), "{col} not a column: {table}");
        // A chart of its own: the SVG's title.
        assert!(
            text.contains(&format!(">{col}</text>")),
            "no chart for {col}"
        );
    }
    // 4 charts against iodepth (bandwidth, IOPS, mean and p99 latency), one per extra
    // statistic, and the runs' own charts: 2 each (no per-interval samples).
    let extras = table.lines().next().unwrap().matches("sim ").count()
        + table.lines().next().unwrap().matches("pacer ").count();
    assert!(extras >= 3, "{table}");
    assert_eq!(text.matches("<svg").count(), 4 + extras + 3 * 2, "{table}");
}
