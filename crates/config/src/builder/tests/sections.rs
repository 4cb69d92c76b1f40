//! Engine options checked against the engine of the section that sets them (a file
//! of its own so that tests.rs stays under 800 lines).

use super::*;

/// fio checks an engine's option against the engine of the section that sets it:
/// valid in a `[global]` under that engine, silently unused by a job that switches
/// engine (fio's e4defrag2.fio), refused where no section's engine has it.
#[test]
fn engine_options_are_checked_against_their_sections_engine() {
    let with = |global: &[&str], own_lines: &[&str]| {
        let g: Vec<RawOpt> = global.iter().enumerate().map(|(n, l)| raw(l, n)).collect();
        let own: Vec<RawOpt> = own_lines
            .iter()
            .enumerate()
            .map(|(n, l)| raw(l, n))
            .collect();
        let mut chain: Vec<Applied> = g
            .iter()
            .map(|o| Applied {
                opt: o,
                section: "global",
            })
            .collect();
        chain.extend(own.iter().map(|o| Applied {
            opt: o,
            section: "j",
        }));
        let loc = Loc::File {
            path: "t.fio".into(),
            line: 1,
        };
        build("j", &loc, &chain, &own, &Overrides::default()).map_err(|e| e.0)
    };
    let j = with(&["ioengine=e4defrag", "donorname=d"], &["ioengine=libaio"]).unwrap();
    assert_eq!(j.ioengine, "libaio");
    // The section's own ioengine counts wherever it stands in the section (fio sorts
    // ioengine first).
    assert!(with(&["donorname=d", "ioengine=e4defrag"], &["ioengine=null"]).is_ok());
    let e = with(&["donorname=d"], &["ioengine=e4defrag"]).unwrap_err();
    assert!(
        e.contains("'donorname'") && e.contains("the section's ioengine is psync"),
        "{e}"
    );
    let e = with(&["ioengine=e4defrag"], &["ioengine=null", "donorname=d"]).unwrap_err();
    assert!(e.contains("the job's ioengine is null"), "{e}");
    assert!(with(&["ioengine=e4defrag"], &["donorname=d"]).is_ok());
}
