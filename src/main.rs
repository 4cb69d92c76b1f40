//! Entry point: parse, dispatch, exit code. No logic lives here.

use ferrio_config::{parse_command_line, Command};

fn main() {
    let mut argv = std::env::args();
    let fio_compat = ferrio::tools::dropin::requested(argv.next().as_deref());
    let args: Vec<String> = argv.collect();
    let code = match parse_command_line(&args, fio_compat) {
        Ok(parsed) => {
            for w in &parsed.warnings {
                eprintln!("ferrio: warning: {w}");
            }
            // fio opens --output while parsing, so its debug lines land there.
            if let Some(flags) = run_flags(&parsed.command) {
                if let (false, Some(out)) = (flags.debug.is_empty(), &flags.output) {
                    if let Err(e) = ferrio::debug_sink::to_output_file(out) {
                        eprintln!("ferrio: {e}");
                        std::process::exit(1);
                    }
                }
            }
            ferrio::runner::debug_hooks::parse_lines(&parsed.debug_lines);
            dispatch(parsed.command)
        }
        Err(e) => {
            eprintln!("ferrio: {e}");
            1
        }
    };
    std::process::exit(code);
}

/// The run-wide flags of a command that runs jobs here or on servers.
fn run_flags(command: &Command) -> Option<&ferrio_config::GlobalFlags> {
    match command {
        Command::Run(inv) | Command::Check(inv) => Some(&inv.flags),
        Command::Client(flags) => Some(flags),
        _ => None,
    }
}

fn dispatch(command: Command) -> i32 {
    match command {
        Command::Run(inv) if inv.flags.net.mpi => ferrio::net::mpi::run(inv),
        Command::Run(inv) => ferrio::app::run(inv),
        Command::Check(inv) => ferrio::app::check(inv),
        Command::Sweep(points) => ferrio::sweep::run(points),
        Command::Compare {
            before,
            after,
            json,
        } => ferrio::tools::compare::main(&before, &after, json),
        Command::InstallExtras { dir, fio_link } => ferrio::install::install_extras(&dir, fio_link),
        Command::Print(text) => {
            use std::io::Write;
            match std::io::stdout().write_all(text.as_bytes()) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("ferrio: {}", ferrio::app::report_write_error(e));
                    1
                }
            }
        }
        Command::CpuClockTest => i32::from(!ferrio_clock::cpuclock_test(&mut std::io::stdout())),
        Command::ClockBench => {
            ferrio_clock::clock_bench(&mut std::io::stdout());
            0
        }
        Command::IdleCalibrate => {
            ferrio::tools::idle::print_calibration(&mut std::io::stdout());
            0
        }
        Command::CrcTest(types) => {
            ferrio::verify::crctest::run(&types, &mut std::io::stdout());
            0
        }
        Command::Server(flags) => ferrio::net::server::serve(&flags),
        Command::Client(flags) if flags.reports.is_series() => ferrio::net::series::run(&flags),
        Command::Client(flags) => ferrio::net::client::run(&flags),
        Command::InflateLog(path) => ferrio::runner::logs::fz::inflate_file(&path),
        Command::MemcpyTest(types) => {
            ferrio::tools::memcpy::run(&types, &mut std::io::stdout());
            0
        }
    }
}
