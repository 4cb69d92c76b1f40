//! Entry point: parse, dispatch, exit code. No logic lives here.

use ferrio_config::{parse_command_line, Command};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match parse_command_line(&args) {
        Ok(Command::Run(inv)) => ferrio::app::run(inv),
        Ok(Command::Check(inv)) => ferrio::app::check(inv),
        Ok(Command::Print(text)) => {
            print!("{text}");
            0
        }
        Ok(Command::CpuClockTest) => {
            let ok = ferrio_clock::cpuclock_test(&mut std::io::stdout());
            if ok {
                0
            } else {
                1
            }
        }
        Ok(Command::ClockBench) => {
            ferrio_clock::clock_bench(&mut std::io::stdout());
            0
        }
        Ok(Command::InstallExtras { dir, fio_link }) => {
            ferrio::install::install_extras(&dir, fio_link)
        }
        Err(e) => {
            eprintln!("ferrio: {e}");
            1
        }
    };
    std::process::exit(code);
}
