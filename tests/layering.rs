//! The source's shape, checked: which modules may import which, and which
//! dependencies are for tests only. These read the repository's own files (paths from
//! CARGO_MANIFEST_DIR), so a fresh clone runs them as is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file's code before its `#[cfg(test)]` module, without `//` comments.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The sibling modules each module of a flat directory names through `super::`.
fn sibling_graph(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    // The directory's own files only: a subdirectory is a module of its own.
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    let names: BTreeSet<String> = files
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|n| n != "mod")
        .collect();
    let mut graph = BTreeMap::new();
    for p in &files {
        let me = p.file_stem().unwrap().to_string_lossy().into_owned();
        let code = code_of(p);
        let deps: BTreeSet<String> = names
            .iter()
            .filter(|n| **n != me)
            .filter(|n| {
                code.contains(&format!("super::{n}::")) || code.contains(&format!("super::{n};"))
            })
            .cloned()
            .collect();
        graph.insert(me, deps);
    }
    graph
}

/// A cycle in `graph`, as the path that closes it, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut cycle = path[i..].to_vec();
            cycle.push(n.to_string());
            return Some(cycle);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for d in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(d, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let g = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert!(find_cycle(&g(&[("a", "b"), ("b", "c")])).is_none());
    assert_eq!(
        find_cycle(&g(&[("a", "b"), ("b", "a")])).unwrap(),
        ["a", "b", "a"]
    );
}

#[test]
fn config_value_parsers_import_each_other_without_a_cycle() {
    let graph = sibling_graph(&root().join("crates/config/src/values"));
    assert!(graph.contains_key("suffix") && graph.contains_key("arith"));
    assert!(graph["arith"].contains("suffix"), "{graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "import cycle in crates/config/src/values: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn engine_modules_import_each_other_without_a_cycle() {
    for dir in ["src/engine", "src/engine/sim", "crates/config/src/cli"] {
        let graph = sibling_graph(&root().join(dir));
        if let Some(cycle) = find_cycle(&graph) {
            panic!("import cycle in {dir}: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn serde_json_is_a_test_only_dependency_of_the_report_crate() {
    let toml = std::fs::read_to_string(root().join("crates/report/Cargo.toml")).unwrap();
    let mut section = "";
    let mut seen_in = Vec::new();
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if line.starts_with("serde_json") {
            seen_in.push(section);
        }
    }
    assert_eq!(seen_in, ["[dev-dependencies]"], "{toml}");
}

#[test]
fn no_engine_imports_the_runner() {
    let mut files = Vec::new();
    rust_files(&root().join("src/engine"), &mut files);
    assert!(files.len() > 5, "{files:?}");
    for p in files {
        // Tests included: an engine's tests must not lean on the runner either.
        let text = std::fs::read_to_string(&p).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            assert!(
                !code.contains("crate::runner") && !code.contains("super::super::runner"),
                "{}:{}: engines sit below the runner: {line}",
                p.display(),
                n + 1
            );
        }
    }
}

#[test]
fn the_runner_never_names_an_engine() {
    let mut files = Vec::new();
    rust_files(&root().join("src/runner"), &mut files);
    assert!(files.len() > 5, "{files:?}");
    for p in files {
        let code = code_of(&p);
        for name in ferrio::engine::registry::names() {
            assert!(
                !code.contains(&format!("\"{name}\"")),
                "{} names ioengine '{name}': read the engine's capabilities instead",
                p.display()
            );
        }
    }
}

#[test]
fn every_real_clocksource_the_option_offers_is_one_the_clock_crate_knows() {
    use ferrio_config::ClockSource;
    let offered: BTreeSet<&str> = ClockSource::ALL
        .iter()
        .filter(|(c, _)| *c != ClockSource::Virtual)
        .map(|(_, n)| *n)
        .collect();
    let known: BTreeSet<&str> = ferrio_clock::CLOCK_SOURCES.into_iter().collect();
    assert_eq!(offered, known);
}

/// Whether `code` names `path` as a whole path segment (`super::plan` but not
/// `super::planner`).
fn names_path(code: &str, path: &str) -> bool {
    code.match_indices(path).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + path.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The runner's top-level modules (files and directories) and which of them each one
/// imports, from any of its files: `crate::runner::X`, or `super::X` with as many
/// `super::` as the file sits below the runner.
fn runner_graph() -> BTreeMap<String, BTreeSet<String>> {
    module_graph(&root().join("src/runner"), "crate::runner::")
}

/// The modules of `dir` (files and directories; `path`: the directory's path from its
/// crate's root, `crate::` at the root) and which of them each one imports.
fn module_graph(dir: &Path, path: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut modules = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let crate_root = path == "crate::" && (name == "lib" || name == "main");
        if p.is_dir() {
            let mut files = Vec::new();
            rust_files(&p, &mut files);
            modules.entry(name).or_insert_with(Vec::new).extend(files);
        } else if p.extension().is_some_and(|e| e == "rs") && name != "mod" && !crate_root {
            modules.entry(name).or_insert_with(Vec::new).push(p);
        }
    }
    let names: Vec<String> = modules.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (me, files) in &modules {
        let mut deps = BTreeSet::new();
        for f in files {
            let rel = f.strip_prefix(dir).unwrap();
            let levels = rel.components().count() - usize::from(rel.ends_with("mod.rs"));
            let code = code_of(f);
            for n in names.iter().filter(|n| *n != me) {
                let up = format!("{}{n}", "super::".repeat(levels));
                if names_path(&code, &format!("{path}{n}")) || names_path(&code, &up) {
                    deps.insert(n.clone());
                }
            }
        }
        graph.insert(me.clone(), deps);
    }
    graph
}

/// Every directory of Rust modules in the binary's and the crates' sources, with its
/// path from its crate's root.
fn module_dirs() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, path: &str, out: &mut Vec<(PathBuf, String)>) {
        out.push((dir.to_path_buf(), path.to_string()));
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                walk(&p, &format!("{path}{name}::"), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("src"), "crate::", &mut out);
    for e in std::fs::read_dir(root().join("crates")).unwrap() {
        let src = e.unwrap().path().join("src");
        if src.is_dir() {
            walk(&src, "crate::", &mut out);
        }
    }
    out
}

/// Every module of `graph` that lies on a cycle.
fn on_cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let reaches = |from: &str, to: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(n) = todo.pop() {
            for d in graph.get(&n).into_iter().flatten() {
                if d == to {
                    return true;
                }
                if seen.insert(d.clone()) {
                    todo.push(d.clone());
                }
            }
        }
        false
    };
    graph.keys().filter(|n| reaches(n, n)).cloned().collect()
}

#[test]
fn runner_graph_sees_imports_from_files_and_directories() {
    let g = runner_graph();
    // worker/mod.rs names `super::observer`, worker/run.rs `crate::runner::observer`.
    assert!(g["worker"].contains("observer"), "{:?}", g["worker"]);
    assert!(g["planner"].contains("zones"), "{:?}", g["planner"]);
    assert!(!g["observer"].contains("worker"), "{:?}", g["observer"]);
    let mut toy: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in [("a", "b"), ("b", "a"), ("c", "a")] {
        toy.entry(a.into()).or_default().insert(b.into());
    }
    assert_eq!(on_cycles(&toy), BTreeSet::from(["a".into(), "b".into()]));
    assert!(names_path("use super::plan::X;", "super::plan"));
    assert!(!names_path("use super::planner::X;", "super::plan"));
    assert!(!names_path("use super::super::plan::X;", "super::plan"));
}

#[test]
fn the_runner_modules_import_each_other_without_a_cycle() {
    let cycles = on_cycles(&runner_graph());
    // No cycle at all: the plan holds only types that import nothing back (region,
    // replay, flow, buffers), and the planner that builds the pieces is a module of
    // its own. A module that must read a plan and be read by one moves its shared
    // type down (region.rs) rather than joining a cycle.
    assert!(cycles.is_empty(), "import cycles in src/runner: {cycles:?}");
}

#[test]
fn no_modules_of_one_directory_import_each_other_in_a_circle() {
    let dirs = module_dirs();
    for (dir, path) in &dirs {
        let cycles = on_cycles(&module_graph(dir, path));
        assert!(
            cycles.is_empty(),
            "{}: these modules import each other in a circle: {cycles:?}",
            dir.display()
        );
    }
    // The walk reaches the crates' roots and nested directories, and sees their imports.
    let has = |rel: &str, path: &str| dirs.contains(&(root().join(rel), path.to_string()));
    assert!(has("src", "crate::") && has("src/runner/worker", "crate::runner::worker::"));
    assert!(has("crates/config/src/values", "crate::values::"));
    assert!(module_graph(&root().join("src"), "crate::")["app"].contains("runner"));
    let report = module_graph(&root().join("crates/report/src"), "crate::");
    assert!(report["json"].contains("model"), "{report:?}");
}

/// Small files with one job each: no Rust file of the workspace (code, unit tests,
/// integration tests, examples) is over 800 lines. Split by what the code does.
#[test]
fn no_rust_file_is_over_800_lines() {
    let mut files = Vec::new();
    for dir in ["src", "tests", "examples", "bench"] {
        let d = root().join(dir);
        if d.is_dir() {
            rust_files(&d, &mut files);
        }
    }
    for e in std::fs::read_dir(root().join("crates")).unwrap() {
        rust_files(&e.unwrap().path(), &mut files);
    }
    assert!(files.len() > 100, "found only {} files", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).unwrap().lines().count();
            (n > 800).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over 800 lines: {long:?}");
}
