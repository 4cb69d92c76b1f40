//! `--enghelp`, written from the `ioengine` option's value list (which a binary test
//! keeps equal to the engine registry) and from the options marked private to an
//! engine.

use super::ConfigError;
use crate::table;

/// `--enghelp`: the engines; `--enghelp=ENGINE`: its own options;
/// `--enghelp=ENGINE,OPT`: details on one of them.
pub fn enghelp(arg: &str) -> Result<String, ConfigError> {
    let engines = table::find("ioengine").map_or(&[][..], |o| o.values);
    let (engine, opt) = match arg.split_once(',') {
        Some((e, o)) => (e.trim(), Some(o.trim())),
        None => (arg.trim(), None),
    };
    if engine.is_empty() {
        let mut s = String::from("Available IO engines:\n");
        for (name, help) in engines {
            s += &format!("\t{name:<10} {help}\n");
        }
        return Ok(s);
    }
    // fio's engines that ferrio cannot run: their options, which --parse-only checks,
    // after the reason a run refuses them.
    let foreign = table::engine_not_yet(engine);
    if !engines.iter().any(|e| e.0 == engine) && foreign.is_none() {
        let names: Vec<&str> = engines.iter().map(|e| e.0).collect();
        return Err(ConfigError(format!(
            "--enghelp: IO engine '{engine}' not found; allowed: {}",
            names.join(", ")
        )));
    }
    let own: Vec<&table::OptSpec> = table::all()
        .filter(|o| o.engines.contains(&engine) || table::shared_with(o.name, engine))
        .collect();
    let head = foreign
        .map(|why| format!("{why}; --parse-only checks its options\n"))
        .unwrap_or_default();
    match opt {
        None if own.is_empty() => Ok(format!("{head}IO engine {engine} has no options\n")),
        None => Ok(head
            + &own
                .iter()
                .map(|o| format!("{:<24}: {}\n", o.name, o.help))
                .collect::<String>()),
        Some(o) => match own.iter().find(|x| x.name == o || x.aliases.contains(&o)) {
            Some(x) => table::cmdhelp_one(x.name).map_err(ConfigError),
            None => {
                let names: Vec<&str> = own.iter().map(|o| o.name).collect();
                Err(ConfigError(format!(
                    "--enghelp: '{o}' is not an option of IO engine {engine}; its options: {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enghelp_lists_engines_their_options_and_one_option() {
        let all = enghelp("").unwrap();
        assert!(all.starts_with("Available IO engines:\n\tpsync "), "{all}");
        assert!(all.contains("\n\tio_uring ") && all.contains("\n\tsim "));
        let uring = enghelp("io_uring").unwrap();
        for o in [
            "hipri",
            "fixedbufs",
            "sqthread_poll",
            "nowait",
            "force_async",
        ] {
            assert!(uring.contains(&format!("{o:<24}: ")), "{o}: {uring}");
        }
        assert!(!uring.contains("userspace_reap"));
        assert!(enghelp("libaio").unwrap().contains("userspace_reap"));
        assert!(enghelp("sim").unwrap().contains("sim_lat"));
        assert_eq!(
            enghelp("psync").unwrap(),
            "IO engine psync has no options\n"
        );
        assert!(enghelp("io_uring,hipri").unwrap().starts_with("hipri: "));
        let e = enghelp("io_uring,userspace_reap").unwrap_err().0;
        assert!(
            e.contains("not an option of IO engine io_uring") && e.contains("fixedbufs"),
            "{e}"
        );
        let e = enghelp("nope").unwrap_err().0;
        assert!(e.contains("'nope' not found; allowed: psync, sync"), "{e}");
        let cmd = enghelp("io_uring_cmd").unwrap();
        assert!(
            cmd.starts_with(
                "I/O engine 'io_uring_cmd' is not supported by ferrio yet: it sends NVMe commands"
            ),
            "{cmd}"
        );
        for o in [
            "cmd_type",
            "write_mode",
            "md_per_io_size",
            "fixedbufs",
            "hipri",
        ] {
            assert!(cmd.contains(&format!("\n{o:<24}: ")), "{o}: {cmd}");
        }
        assert!(!cmd.contains("userspace_reap"), "{cmd}");
        assert!(enghelp("io_uring_cmd,cmd_type").unwrap().contains("bsg"));
        assert!(enghelp("ime_psync")
            .unwrap()
            .ends_with("IO engine ime_psync has no options\n"));
    }

    #[test]
    fn engine_private_options_name_their_engine_in_the_help() {
        // The help of an engine's own option starts with the engines it belongs to
        // ("io_uring: ...", "pvsync2, libaio, io_uring: ..."), except hipri which
        // describes each.
        for o in table::all().filter(|o| !o.engines.is_empty()) {
            for e in o.engines {
                assert!(o.help.contains(e), "{}: help does not name {e}", o.name);
            }
        }
        for o in table::all().filter(|o| o.engines.is_empty()) {
            let prefix = o.help.split(':').next().unwrap_or("");
            assert!(
                !["io_uring", "libaio", "pvsync2", "sim"].contains(&prefix),
                "{} looks engine-private but is not marked",
                o.name
            );
        }
    }
}
