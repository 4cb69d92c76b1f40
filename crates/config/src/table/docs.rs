//! Help text generated from the table: `--cmdhelp`, `--cmdhelp=OPT` and
//! `docs/options.md` (a test keeps the committed file equal to [`options_markdown`]).

use super::{all, find, suggest, Category, OptSpec, Support};

fn support_note(o: &OptSpec) -> &'static str {
    match o.support {
        Support::Yes => "",
        Support::NoOp => " (accepted, no effect)",
        Support::No => " (not supported by ferrio yet)",
    }
}

/// `--cmdhelp`: every option with one line of help, grouped by category.
pub fn cmdhelp_all() -> String {
    let mut s = String::new();
    for cat in Category::ALL {
        s.push_str(&format!("{}:\n", cat.title()));
        for o in all().filter(|o| o.category == cat) {
            s.push_str(&format!("  {:<26} {}\n", o.name, o.help));
        }
        s.push('\n');
    }
    s.push_str("Use --cmdhelp=OPTION for details on one option.\n");
    s
}

/// `--cmdhelp=OPT`: everything the table knows about one option.
pub fn cmdhelp_one(name: &str) -> Result<String, String> {
    let o = find(name).ok_or_else(|| {
        let hint = suggest(name)
            .map(|s| format!("; did you mean '{s}'?"))
            .unwrap_or_default();
        format!("unknown option '{name}'{hint}")
    })?;
    let mut s = format!("{}: {}\n", o.name, o.help);
    if !o.aliases.is_empty() {
        s.push_str(&format!("{:>12}: {}\n", "alias", o.aliases.join(", ")));
    }
    s.push_str(&format!("{:>12}: {}\n", "type", o.kind.describe()));
    s.push_str(&format!("{:>12}: {}\n", "category", o.category.title()));
    s.push_str(&format!(
        "{:>12}: {}\n",
        "default",
        if o.default.is_empty() {
            "no default"
        } else {
            o.default
        }
    ));
    if o.min.is_some() || o.max.is_some() {
        let lo = o.min.map(|v| v.to_string()).unwrap_or_default();
        let hi = o.max.map(|v| v.to_string()).unwrap_or_default();
        s.push_str(&format!("{:>12}: {lo}..{hi}\n", "range"));
    }
    for (i, (v, h)) in o.values.iter().enumerate() {
        let label = if i == 0 { "values" } else { "" };
        s.push_str(&format!("{label:>12}: {v:<14} {h}\n"));
    }
    match o.support {
        Support::Yes => {}
        Support::NoOp => s.push_str(&format!("{:>12}: accepted and ignored\n", "ferrio")),
        Support::No => s.push_str(&format!(
            "{:>12}: not supported yet (using it is an error)\n",
            "ferrio"
        )),
    }
    Ok(s)
}

/// The content of docs/options.md.
pub fn options_markdown() -> String {
    let mut s = String::from(
        "# ferrio job options\n\n\
         Generated from the option table in `crates/config/src/table/` by\n\
         `ferrio_config::table::options_markdown()`; do not edit by hand\n\
         (a test checks this file is up to date).\n\n\
         Sizes take k/m/g/t/p units (kb_base decides 1000 or 1024), times take\n\
         us/ms/s/m/h/d, and any number may be an arithmetic expression in parentheses.\n",
    );
    for cat in Category::ALL {
        s.push_str(&format!("\n## {}\n\n", cat.title()));
        s.push_str("| Option | Aliases | Type | Default | Allowed | Description |\n");
        s.push_str("|---|---|---|---|---|---|\n");
        for o in all().filter(|o| o.category == cat) {
            let allowed = {
                let mut a: Vec<String> = o
                    .values
                    .iter()
                    .map(|(v, h)| format!("`{v}`: {h}"))
                    .collect();
                if o.min.is_some() || o.max.is_some() {
                    let lo = o.min.map(|v| v.to_string()).unwrap_or_default();
                    let hi = o.max.map(|v| v.to_string()).unwrap_or_default();
                    a.push(format!("{lo}..{hi}"));
                }
                a.join("<br>")
            };
            let aliases: Vec<String> = o.aliases.iter().map(|a| format!("`{a}`")).collect();
            let row = [
                format!("`{}`", o.name),
                aliases.join(", "),
                o.kind.describe().to_string(),
                if o.default.is_empty() {
                    String::new()
                } else {
                    format!("`{}`", o.default)
                },
                allowed,
                format!("{}{}", o.help, support_note(o)),
            ];
            let row: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
            s.push_str(&format!("| {} |\n", row.join(" | ")));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmdhelp_lists_every_option() {
        let h = cmdhelp_all();
        for o in all() {
            assert!(h.contains(o.name), "{} missing", o.name);
        }
        assert!(h.contains("I/O pattern:"));
    }

    #[test]
    fn cmdhelp_one_details() {
        let h = cmdhelp_one("rw").unwrap();
        assert!(h.contains("readwrite"), "{h}");
        assert!(h.contains("randtrim"), "{h}");
        assert!(h.contains("default: read"), "{h}");
        let h = cmdhelp_one("iodepth").unwrap();
        assert!(h.contains("range: 1.."), "{h}");
        assert!(cmdhelp_one("blocksize").unwrap().starts_with("bs:"));
        let e = cmdhelp_one("iodepht").unwrap_err();
        assert!(e.contains("did you mean 'iodepth'"), "{e}");
        for o in crate::table::all().filter(|o| o.support == Support::No) {
            assert!(cmdhelp_one(o.name).unwrap().contains("not supported yet"));
        }
        // An option of an engine ferrio cannot run: its values and its engine.
        let h = cmdhelp_one("cmd_type").unwrap();
        assert!(h.contains("io_uring_cmd") && h.contains("bsg"), "{h}");
    }

    #[test]
    fn docs_file_is_up_to_date() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/options.md");
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        if committed != options_markdown() {
            if std::env::var_os("FERRIO_UPDATE_DOCS").is_some() {
                std::fs::write(path, options_markdown()).unwrap();
            } else {
                panic!("docs/options.md is stale: run `FERRIO_UPDATE_DOCS=1 cargo test -p ferrio-config docs_file_is_up_to_date`");
            }
        }
    }
}
