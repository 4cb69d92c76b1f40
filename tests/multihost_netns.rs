//! Multi-host runs across network namespaces: each server in its own namespace, joined
//! to this one by a veth pair the test makes (root only), on a /30 of 10.213.N.0/24
//! that exists only inside this test. The route to each server is checked to be the
//! test's own veth before anything is sent.

mod common;
mod multihost_support;

use common::skip;
use multihost_support::{json, netns_subnet, stderr, Lab};
use std::process::Command;

/// The namespaces and veth pairs of one test, removed when dropped.
struct Net {
    names: Vec<String>,
}

impl Drop for Net {
    fn drop(&mut self) {
        for n in &self.names {
            // Deleting the namespace deletes the veth pair with it.
            let _ = Command::new("ip").args(["netns", "del", n]).status();
        }
    }
}

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "ip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `count` namespaces; host i at 10.213.N.(4i+2), reached through veth fmhPPPPPi.
fn namespaces(count: u32) -> Option<(Net, Vec<String>)> {
    skip::tool_or_skip("ip")?;
    let probe = format!("fmhprobe{}", std::process::id());
    if !Command::new("ip")
        .args(["netns", "add", &probe])
        .status()
        .unwrap()
        .success()
    {
        skip::skip("cannot make network namespaces (needs root)");
        return None;
    }
    ip(&["netns", "del", &probe]);
    let pid = std::process::id() % 100_000;
    let n = netns_subnet();
    let mut net = Net { names: Vec::new() };
    let mut addrs = Vec::new();
    for i in 0..count {
        let ns = format!("fmh{pid}-{i}");
        let veth = format!("fmh{pid}v{i}");
        ip(&["netns", "add", &ns]);
        net.names.push(ns.clone());
        ip(&[
            "link", "add", &veth, "type", "veth", "peer", "name", "eth0", "netns", &ns,
        ]);
        let (near, far) = (
            format!("10.213.{n}.{}", 4 * i + 1),
            format!("10.213.{n}.{}", 4 * i + 2),
        );
        ip(&["addr", "add", &format!("{near}/30"), "dev", &veth]);
        ip(&["link", "set", &veth, "up"]);
        ip(&[
            "-n",
            &ns,
            "addr",
            "add",
            &format!("{far}/30"),
            "dev",
            "eth0",
        ]);
        ip(&["-n", &ns, "link", "set", "eth0", "up"]);
        ip(&["-n", &ns, "link", "set", "lo", "up"]);
        // Traffic to the host must stay on the test's veth.
        let route = Command::new("ip")
            .args(["route", "get", &far])
            .output()
            .unwrap();
        let route = String::from_utf8_lossy(&route.stdout);
        assert!(
            route.contains(&format!("dev {veth}")),
            "route to {far}: {route}"
        );
        addrs.push(far);
    }
    Some((net, addrs))
}

#[test]
fn servers_in_their_own_network_namespaces() {
    let Some(lab) = Lab::new() else { return };
    let Some((net, addrs)) = namespaces(3) else {
        return;
    };
    let servers: Vec<_> = net
        .names
        .iter()
        .zip(&addrs)
        .map(|(ns, a)| lab.server_in(&["ip", "netns", "exec", ns], a, &[]))
        .collect();
    for (s, a) in servers.iter().zip(&addrs) {
        assert!(s.addr.starts_with(&format!("{a}:")), "{}", s.addr);
    }
    let job = lab.job("t.fio", "[t]\nioengine=null\nrw=randrw\nbs=4k\nsize=2m\n");
    let list: Vec<&str> = servers.iter().map(|s| s.addr.as_str()).collect();
    let out = lab.client(&[
        &format!("--client={}", list.join(",")),
        &job,
        "--output-format=json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let stats = v["client_stats"].as_array().unwrap();
    assert_eq!(stats.len(), 4, "{v}");
    for (s, a) in stats[..3].iter().zip(&addrs) {
        assert_eq!(s["hostname"], a.as_str());
    }
    let all = &stats[3];
    for dir in ["read", "write"] {
        let sum: u64 = stats[..3]
            .iter()
            .map(|s| s[dir]["total_ios"].as_u64().unwrap())
            .sum();
        assert_eq!(all[dir]["total_ios"].as_u64().unwrap(), sum);
    }
    let ios =
        all["read"]["total_ios"].as_u64().unwrap() + all["write"]["total_ios"].as_u64().unwrap();
    assert_eq!(ios, 3 * 512);
    drop(servers);
}
