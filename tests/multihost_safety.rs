//! A server cannot be turned against its host: a missing or wrong token, a path
//! outside `--server-allow` (directly, by `..` or through a symlink), an oversized job,
//! too many threads, an exec-style engine, a log file to read, an include or `--remote-config`
//! are each refused before anything is touched, and the server keeps serving.

mod common;
mod multihost_support;

use ferrio::net::wire::{self, ToClient, ToServer};
use multihost_support::{exists, stderr, Lab, Server};
use std::time::Duration;

/// A good run still works on `s` (the server kept serving).
fn still_serves(lab: &Lab, s: &Server) {
    let job = lab.job(
        "ok.fio",
        &format!(
            "[ok]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\nfilename={}\n",
            lab.p("data/ok.bin")
        ),
    );
    let out = lab.client(&[
        &format!("--client={}", s.addr),
        &job,
        "--output-format=terse",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::metadata(lab.path("data/ok.bin")).unwrap().len(),
        65536
    );
    std::fs::remove_file(lab.path("data/ok.bin")).unwrap();
}

/// Run `job` on `s`; it must be refused with `why` and touch nothing at `untouched`.
fn refused(lab: &Lab, s: &Server, job: &str, why: &str, untouched: &std::path::Path) {
    let path = lab.job("bad.fio", job);
    let out = lab.client(&[&format!("--client={}", s.addr), &path]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("host {}: refused: ", s.addr)),
        "{err}"
    );
    assert!(err.contains(why), "expected '{why}' in:\n{err}");
    assert!(err.contains("no host started"), "{err}");
    assert!(!exists(untouched), "{} was touched", untouched.display());
}

#[test]
fn wrong_or_missing_tokens_are_refused_before_any_job_is_read() {
    let Some(lab) = Lab::new() else { return };
    let s = lab.server(&[]);
    let job = lab.job("t.fio", "[t]\nioengine=null\nsize=1m\n");
    let out = lab.client(&[
        &format!("--client={}", s.addr),
        &job,
        &format!("--auth-token-file={}", lab.p("wrong-token")),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("refused: authentication failed: wrong or missing token"),
        "{err}"
    );
    // The server logs the refusal from its own thread: wait for the line, not race it.
    s.wait_for("authentication failed");
    assert!(!s.log().contains("threads admitted"), "{}", s.log());

    // Raw sessions: an empty token, a wrong protocol, no hello at all.
    let config = ferrio::net::tls::client_config(&lab.path("ca.pem"), None).unwrap();
    let (host, port) = s.addr.rsplit_once(':').unwrap();
    let port: u16 = port.parse().unwrap();
    let connect = || {
        ferrio::net::client::connect_tls(host, port, config.clone(), Duration::from_secs(10))
            .unwrap()
    };
    for (hello, why) in [
        (
            ToServer::Hello {
                protocol: wire::PROTOCOL,
                token: String::new(),
            },
            "wrong or missing token",
        ),
        (
            ToServer::Hello {
                protocol: 999,
                token: "correct-horse-battery-staple".into(),
            },
            "protocol 999",
        ),
        (ToServer::Start { at_unix_ns: 0 }, "no hello"),
    ] {
        let mut c = connect();
        c.send(&hello).unwrap();
        match c.recv::<ToClient>(wire::HELLO_LIMIT).unwrap() {
            ToClient::Refused { reason } => assert!(reason.contains(why), "{reason}"),
            m => panic!("{m:?}"),
        }
    }
    // Jobs sent without a hello are never parsed.
    let mut c = connect();
    c.send(&ToServer::Jobs {
        files: vec![wire::JobText {
            name: "x.fio".into(),
            text: "[x]\nioengine=null\nsize=1m\n".into(),
        }],
        remote: vec![],
    })
    .unwrap();
    assert!(matches!(
        c.recv::<ToClient>(wire::HELLO_LIMIT).unwrap(),
        ToClient::Refused { .. }
    ));
    // Not TLS at all.
    {
        use std::io::Write;
        let mut t = std::net::TcpStream::connect(&s.addr).unwrap();
        let _ = t.write_all(b"GET / HTTP/1.0\r\n\r\n");
    }
    still_serves(&lab, &s);
}

#[test]
fn paths_outside_the_allow_list_are_refused_and_not_touched() {
    let Some(lab) = Lab::new() else { return };
    let s = lab.server(&[]);
    std::fs::create_dir(lab.path("outside")).unwrap();
    let target = lab.path("outside/victim.bin");
    let direct = format!(
        "[t]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\nfilename={}\n",
        target.display()
    );
    refused(
        &lab,
        &s,
        &direct,
        "outside this server's --server-allow list",
        &target,
    );
    let dotdot = format!(
        "[t]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\nfilename={}/../outside/victim.bin\n",
        lab.p("data")
    );
    refused(
        &lab,
        &s,
        &dotdot,
        "'..' is not allowed on a server",
        &target,
    );
    std::os::unix::fs::symlink(lab.path("outside"), lab.path("data/escape")).unwrap();
    let link = format!(
        "[t]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\nfilename={}/escape/victim.bin\n",
        lab.p("data")
    );
    refused(&lab, &s, &link, "resolves to", &target);
    // e4defrag's donor file, named apart from the data file.
    let donor = format!(
        "[t]\nioengine=e4defrag\nrw=write\nbs=4k\nsize=64k\nfilename={}\ndonorname={}\n",
        lab.p("data/d.bin"),
        target.display()
    );
    refused(
        &lab,
        &s,
        &donor,
        "outside this server's --server-allow list",
        &target,
    );
    let dir = format!(
        "[t]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\ndirectory={}\n",
        lab.p("outside")
    );
    refused(
        &lab,
        &s,
        &dir,
        "outside this server's --server-allow list",
        &lab.path("outside/t.0.0"),
    );
    still_serves(&lab, &s);
}

#[test]
fn oversized_jobs_exec_engines_logs_includes_and_remote_configs_are_refused() {
    let Some(lab) = Lab::new() else { return };
    let s = lab.server(&["--server-max-job-size=2k", "--server-max-jobs=4"]);
    let none = lab.path("data/none.bin");
    let big = format!("[t]\nioengine=null\nsize=1m\n{}", "; padding\n".repeat(400));
    refused(
        &lab,
        &s,
        &big,
        "over this server's limit of 2048 (--server-max-job-size)",
        &none,
    );
    refused(
        &lab,
        &s,
        "[t]\nioengine=null\nsize=1m\nnumjobs=5\n",
        "5 threads requested, over this server's limit of 4 (--server-max-jobs)",
        &none,
    );
    refused(
        &lab,
        &s,
        "[t]\nioengine=exec\nsize=1m\n",
        "exec-style engines need --server-enable=exec",
        &none,
    );
    // A network engine would connect from the server's network to any address.
    refused(
        &lab,
        &s,
        "[t]\nioengine=net\nhostname=127.0.0.1\nport=9\nrw=write\nsize=1m\n",
        "ioengine=net refused: network engines need --server-enable=net",
        &none,
    );
    refused(
        &lab,
        &s,
        "[t]\nioengine=null\nsize=1m\nverify=crc32c\nrw=read\nverify_state_load=1\n",
        "option 'verify_state_load' refused by this server",
        &none,
    );
    let marker = lab.path("data/prerun-ran");
    refused(
        &lab,
        &s,
        &format!(
            "[t]\nioengine=null\nsize=1m\nexec_prerun=touch {}\n",
            marker.display()
        ),
        "option 'exec_prerun' refused by this server: it runs a command on the server",
        &marker,
    );
    // Logs the run writes come back to the client (tests/multihost_logs.rs); one to
    // read would be a file of the server's.
    std::fs::write(lab.path("data/io.log"), "fio version 3 iolog\n").unwrap();
    refused(
        &lab,
        &s,
        &format!(
            "[t]\nioengine=null\nsize=1m\nread_iolog={}\n",
            lab.p("data/io.log")
        ),
        "option 'read_iolog' refused by this server: it reads a log file or writes a merged trace on the server",
        &none,
    );
    refused(
        &lab,
        &s,
        "[t]\nioengine=null\nsize=1m\ninclude /etc/passwd\n",
        "a server reads only the job files it was sent",
        &none,
    );
    refused(
        &lab,
        &s,
        "[t]\nioengine=null\nsize=${HOME}\n",
        "HOME",
        &none,
    );
    let out = lab.client(&[
        &format!("--client={}", s.addr),
        &format!("--remote-config={}", lab.p("data/x.fio")),
    ]);
    assert!(
        stderr(&out).contains("not started with --server-enable=remote-config"),
        "{}",
        stderr(&out)
    );
    still_serves(&lab, &s);
}

#[test]
fn remote_config_inside_the_allow_list_when_enabled() {
    let Some(lab) = Lab::new() else { return };
    let s = lab.server(&["--server-enable=remote-config"]);
    std::fs::write(lab.path("data/r.fio"), "[r]\nioengine=null\nsize=1m\n").unwrap();
    let out = lab.client(&[
        &format!("--client={}", s.addr),
        &format!("--remote-config={}", lab.p("data/r.fio")),
        "--output-format=hosts-csv",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(",256,1048576,"));
    let out = lab.client(&[
        &format!("--client={}", s.addr),
        &format!("--remote-config={}", lab.p("token")),
    ]);
    assert!(
        stderr(&out).contains("outside this server's --server-allow list"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn client_certificates_authenticate_and_their_absence_is_refused() {
    let Some(lab) = Lab::new() else { return };
    let ca = format!("--tls-client-ca={}", lab.p("ca.pem"));
    let s = lab.server(&[&ca, "--no-token"]);
    let job = lab.job("t.fio", "[t]\nioengine=null\nsize=1m\n");
    let host = format!("--client={}", s.addr);
    // A token alone does not get past the handshake.
    let out = lab.client(&[&host, &job]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("host {}: ", s.addr)), "{err}");
    assert!(err.contains("no host started"), "{err}");
    assert!(!s.log().contains("threads admitted"), "{}", s.log());
    // The CA's client certificate does.
    let out = lab.client(&[
        &host,
        &job,
        &format!("--tls-client-cert={}", lab.p("client.pem")),
        &format!("--tls-client-key={}", lab.p("client.key")),
        "--output-format=hosts-csv",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(",256,1048576,"));
    // A certificate and key must come together.
    let out = lab.client(&[
        &host,
        &job,
        &format!("--tls-client-cert={}", lab.p("client.pem")),
    ]);
    assert!(stderr(&out).contains("--tls-client-cert and --tls-client-key go together"));
}

/// The race the admission check cannot see: the job's file is made a symlink out of the
/// allowed directory after the server admitted the job and before it runs. The run
/// opens its files beneath the allowed directory (openat2), so it fails with a clear
/// error, the file outside keeps its bytes, and the server keeps serving.
#[test]
fn a_symlink_swapped_in_after_admission_leads_nowhere() {
    let Some(lab) = Lab::new() else { return };
    let s = lab.server(&[]);
    std::fs::create_dir(lab.path("outside")).unwrap();
    let victim = lab.path("outside/victim.bin");
    std::fs::write(&victim, b"precious").unwrap();
    let config = ferrio::net::tls::client_config(&lab.path("ca.pem"), None).unwrap();
    let (host, port) = s.addr.rsplit_once(':').unwrap();
    let mut c = ferrio::net::client::connect_tls(
        host,
        port.parse().unwrap(),
        config,
        Duration::from_secs(30),
    )
    .unwrap();
    c.send(&ToServer::Hello {
        protocol: wire::PROTOCOL,
        token: "correct-horse-battery-staple".into(),
    })
    .unwrap();
    assert!(matches!(
        c.recv::<ToClient>(wire::HELLO_LIMIT).unwrap(),
        ToClient::Welcome { .. }
    ));
    // Two files: one a symlink to a file outside, one in a directory swapped for a
    // symlink to the outside directory.
    std::fs::create_dir(lab.path("data/sub")).unwrap();
    let text = format!(
        "[t]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\nfilename={}\n\
         [u]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\nfilename={}\n",
        lab.p("data/late.bin"),
        lab.p("data/sub/victim.bin")
    );
    c.send(&ToServer::Jobs {
        files: vec![wire::JobText {
            name: "race.fio".into(),
            text,
        }],
        remote: vec![],
    })
    .unwrap();
    match c.recv::<ToClient>(wire::HELLO_LIMIT).unwrap() {
        ToClient::Ready { threads } => assert_eq!(threads, 2),
        m => panic!("the job should have been admitted: {m:?}"),
    }
    std::os::unix::fs::symlink(&victim, lab.path("data/late.bin")).unwrap();
    std::fs::remove_dir(lab.path("data/sub")).unwrap();
    std::os::unix::fs::symlink(lab.path("outside"), lab.path("data/sub")).unwrap();
    c.send(&ToServer::Start { at_unix_ns: 0 }).unwrap();
    let reason = loop {
        match c.recv::<ToClient>(wire::RESULT_LIMIT).unwrap() {
            ToClient::Started { .. } | ToClient::Alive { .. } => {}
            ToClient::Refused { reason } => break reason,
            m => panic!("the run should have failed: {m:?}"),
        }
    };
    assert!(
        reason.contains("outside this server's --server-allow list"),
        "{reason}"
    );
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert_eq!(
        std::fs::read_dir(lab.path("outside")).unwrap().count(),
        1,
        "a file was created outside"
    );
    std::fs::remove_file(lab.path("data/late.bin")).unwrap();
    std::fs::remove_file(lab.path("data/sub")).unwrap();
    still_serves(&lab, &s);
}

/// The metadata engines and e4defrag's donor act on names, not on opened data files:
/// their paths are checked at admission (also the engines that move no data), and at
/// run time every mkdir, rmdir, create and donor open happens beneath the allowed
/// directory, so directories swapped for symlinks to the outside after admission
/// lead nowhere (without the run-time confinement each of these would act outside).
#[test]
fn metadata_engines_and_the_donor_stay_inside_when_directories_are_swapped() {
    let Some(lab) = Lab::new() else { return };
    let s = lab.server(&[]);
    std::fs::create_dir(lab.path("outside")).unwrap();
    let out_file = lab.path("outside/made.bin");
    refused(
        &lab,
        &s,
        &format!(
            "[c]\nioengine=filecreate\nfilesize=4k\nfilename={}\n",
            out_file.display()
        ),
        "outside this server's --server-allow list",
        &out_file,
    );
    let subs = ["c", "d", "r", "e"];
    for d in subs {
        std::fs::create_dir(lab.path(&format!("data/{d}"))).unwrap();
        std::fs::create_dir(lab.path(&format!("outside/{d}"))).unwrap();
    }
    // dirdelete's victim: a directory outside that the swapped name would reach.
    std::fs::create_dir(lab.path("outside/r/gone")).unwrap();
    let config = ferrio::net::tls::client_config(&lab.path("ca.pem"), None).unwrap();
    let (host, port) = s.addr.rsplit_once(':').unwrap();
    let mut c = ferrio::net::client::connect_tls(
        host,
        port.parse().unwrap(),
        config,
        Duration::from_secs(30),
    )
    .unwrap();
    c.send(&ToServer::Hello {
        protocol: wire::PROTOCOL,
        token: "correct-horse-battery-staple".into(),
    })
    .unwrap();
    assert!(matches!(
        c.recv::<ToClient>(wire::HELLO_LIMIT).unwrap(),
        ToClient::Welcome { .. }
    ));
    let data = lab.p("data");
    let text = format!(
        "[c]\nioengine=filecreate\nfilesize=4k\nfilename={data}/c/new.bin\n\
         [d]\nioengine=dircreate\nfilesize=4k\nfilename={data}/d/newdir\n\
         [r]\nioengine=dirdelete\nfilesize=4k\nfilename={data}/r/gone\n\
         [e]\nioengine=e4defrag\nrw=write\nsize=64k\ndirectory={data}\n\
         filename=e.bin\ndonorname=e/donor\n"
    );
    c.send(&ToServer::Jobs {
        files: vec![wire::JobText {
            name: "race.fio".into(),
            text,
        }],
        remote: vec![],
    })
    .unwrap();
    match c.recv::<ToClient>(wire::HELLO_LIMIT).unwrap() {
        ToClient::Ready { threads } => assert_eq!(threads, 4),
        m => panic!("the jobs should have been admitted: {m:?}"),
    }
    for d in subs {
        let inside = lab.path(&format!("data/{d}"));
        std::fs::remove_dir(&inside).unwrap();
        std::os::unix::fs::symlink(lab.path(&format!("outside/{d}")), &inside).unwrap();
    }
    c.send(&ToServer::Start { at_unix_ns: 0 }).unwrap();
    let code = loop {
        match c.recv::<ToClient>(wire::RESULT_LIMIT).unwrap() {
            ToClient::Started { .. } | ToClient::Alive { .. } | ToClient::Log(_) => {}
            ToClient::Done { code, .. } => break code,
            ToClient::Refused { .. } => break 1,
            m => panic!("unexpected {m:?}"),
        }
    };
    for (d, left) in [("c", 0), ("d", 0), ("r", 1), ("e", 0)] {
        let n = std::fs::read_dir(lab.path(&format!("outside/{d}")))
            .unwrap()
            .count();
        assert_eq!(n, left, "outside/{d} was touched");
    }
    assert!(lab.path("outside/r/gone").is_dir());
    assert_ne!(code, 0, "the jobs should have failed");
    for d in subs {
        std::fs::remove_file(lab.path(&format!("data/{d}"))).unwrap();
    }
    let _ = std::fs::remove_file(lab.path("data/e.bin"));
    still_serves(&lab, &s);
}

/// A verifying write job saves its verify state file in the working directory
/// (verify_state_save, on by default as in fio); a server's working directory is
/// outside its --server-allow list, so a server's run saves none. Locally the same
/// job leaves the file (the control: the test would pass vacuously otherwise).
#[test]
fn a_servers_verify_jobs_leave_no_state_file_outside_the_allowed_directory() {
    let Some(lab) = Lab::new() else { return };
    // The server runs in a working directory of its own, outside its allow list.
    let cwd = common::scratch_cwd();
    let mut server = common::ferrio();
    server.current_dir(&cwd);
    let s = lab.server_cmd(server, &[]);
    let job_text = format!(
        "[vstate_probe]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\nverify=crc32c\nfilename={}\n",
        lab.p("data/v.bin")
    );
    let job = lab.job("v.fio", &job_text);
    let state_files = |dir: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("local-vstate_probe") && n.ends_with("verify.state"))
            .collect()
    };
    let out = lab.client(&[&format!("--client={}", s.addr), &job]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written = state_files(&cwd);
    for f in &written {
        let _ = std::fs::remove_file(cwd.join(f)); // leave no litter when it fails
    }
    assert!(
        written.is_empty(),
        "the server wrote {written:?} into {}",
        cwd.display()
    );
    // Control: the same job run locally, from the lab directory, saves its state.
    let local = std::process::Command::new(env!("CARGO_BIN_EXE_ferrio"))
        .arg(&job)
        .current_dir(lab.dir.path())
        .output()
        .unwrap();
    assert!(local.status.success(), "{}", stderr(&local));
    assert_eq!(state_files(lab.dir.path()).len(), 1);
}

/// A server and clients with fio's own command lines (no token, certificate or CA
/// flags), all under a throwaway `$XDG_CONFIG_HOME`: the server makes the user's
/// default credentials there.
struct Defaults {
    dir: tempfile::TempDir,
}

impl Defaults {
    fn new() -> Defaults {
        Defaults {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn cfg(&self) -> std::path::PathBuf {
        self.dir.path().join("xdg").join("ferrio")
    }

    /// ferrio with this HOME and XDG_CONFIG_HOME, and no token file from outside.
    fn cmd(&self) -> std::process::Command {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_ferrio"));
        c.env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("xdg"))
            .env_remove("FERRIO_AUTH_TOKEN_FILE")
            .current_dir(self.dir.path());
        c
    }

    /// `ferrio --server=127.0.0.1,0` (the port from its "listening" line).
    fn server(&self) -> Server {
        Server::start(self.cmd(), &["--server=127.0.0.1,0".to_string()])
    }

    /// `--client=HOST,PORT job`, fio's form, with a tiny null job.
    fn client(&self, s: &Server, env: &[(&str, &std::path::Path)]) -> std::process::Output {
        self.client_with(s, env, &[])
    }

    fn client_with(
        &self,
        s: &Server,
        env: &[(&str, &std::path::Path)],
        extra: &[&str],
    ) -> std::process::Output {
        let job = self.dir.path().join("t.fio");
        std::fs::write(
            &job,
            "[global]\nioengine=null\ntime_based\n[t]\nsize=64k\nruntime=10ms\n",
        )
        .unwrap();
        let fio_form = s.addr.replace(':', ",");
        let mut c = self.cmd();
        for (k, v) in env {
            c.env(k, v);
        }
        c.args([
            &format!("--client={fio_form}"),
            job.to_str().unwrap(),
            "--output-format=json",
        ])
        .args(extra)
        .output()
        .unwrap()
    }
}

fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn without_credential_flags_server_and_client_share_the_users_default_token() {
    let d = Defaults::new();
    let s = d.server();
    s.wait_for("made a new token in");
    let (token, cert) = (d.cfg().join("auth-token"), d.cfg().join("server-cert.pem"));
    assert_eq!(mode(&token), 0o600);
    assert_eq!(mode(&d.cfg().join("server-key.pem")), 0o600);
    assert_eq!(mode(&d.cfg()), 0o700);
    assert!(cert.exists());
    let text = std::fs::read_to_string(&token).unwrap();
    assert!(text.trim().len() >= 32, "{text}");
    let out = d.client(&s, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = multihost_support::json(&out);
    assert_eq!(v["client_stats"][0]["jobname"], "t", "{v}");
    // One host: fio's "global options" object, its bare option with an empty value.
    assert_eq!(v["global options"]["ioengine"], "null", "{v}");
    assert_eq!(v["global options"]["time_based"], "", "{v}");
    // --debug with --output: the client's debug lines, then its report, in the file.
    let file = d.dir.path().join("out.json");
    let out = d.client_with(
        &s,
        &[],
        &["--debug=net", &format!("--output={}", file.display())],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "{out:?}");
    let written = std::fs::read_to_string(&file).unwrap();
    let json_at = written.find("\n{").expect("the JSON report");
    assert!(written[..json_at].contains("client: added <"), "{written}");
    let v: serde_json::Value = serde_json::from_str(&written[json_at..]).unwrap();
    assert_eq!(v["client_stats"][0]["jobname"], "t", "{v}");
    // A second server keeps the token it finds.
    let s2 = d.server();
    assert_eq!(std::fs::read_to_string(&token).unwrap(), text);
    assert!(d.client(&s2, &[]).status.success());
}

#[test]
fn a_wrong_or_unprivate_default_token_is_refused_with_what_to_do() {
    let d = Defaults::new();
    let s = d.server();
    // A token that is not the server's: the server refuses, and says to copy its file.
    let other = d.dir.path().join("other-token");
    std::fs::write(&other, "not-the-servers-token-at-all\n").unwrap();
    std::fs::set_permissions(&other, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let out = d.client(&s, &[("FERRIO_AUTH_TOKEN_FILE", &other)]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("authentication failed: wrong or missing token"),
        "{err}"
    );
    assert!(err.contains("copy the server host's file"), "{err}");
    s.wait_for("authentication failed");
    // Readable by others: refused before connecting, naming the file and the fix.
    std::fs::set_permissions(&other, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let out = d.client(&s, &[("FERRIO_AUTH_TOKEN_FILE", &other)]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("readable by group or others (mode 644)"),
        "{err}"
    );
    assert!(
        err.contains(&format!("chmod 600 {}", other.display())),
        "{err}"
    );
    // A client whose user has no default files at all: told where they belong.
    let fresh = Defaults::new();
    let out = fresh.client(&s, &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no default token file"), "{err}");
    assert!(err.contains("copy"), "{err}");
}
