//! The job-file lexer: INI sections, `key=value` and bare `key` lines, `;`/`#`
//! comments, `include FILE` and value substitutions. It knows no option meanings:
//! it turns text into [`Section`]s of [`RawOpt`]s, each carrying its file and line.
//!
//! Rules (fio 3.33, checked with `fio --debug=parse`):
//! - leading blanks are skipped; a line starting with `;` or `#` is a comment, and
//!   anything from the first `;` or `#` on a line is dropped (trailing comment);
//! - blanks around the key and the value are removed (fio keeps the blank after
//!   `=`, so `bs = 8k` reads as 8 bytes there; ferrio reads 8k);
//! - `[name]` starts a section; `[global]` sections hold defaults for the jobs after
//!   them in the same file;
//! - `include FILE` splices FILE's lines into the current section; a relative FILE is
//!   looked up as given (working directory) first, then relative to the including
//!   file's directory (fio 3.33's order); included files may not hold sections, and an
//!   include before any section is an error;
//! - `${VAR}` is replaced from the environment and `$pagesize`, `$ncpus`,
//!   `$mb_memory` by system values (see [`subst`]);
//! - an option before any section is an error.

pub mod subst;

use crate::error::{ConfigError, Loc};
use std::path::{Path, PathBuf};
use subst::{expand_env, replace_keywords, unset_vars, Keywords};

/// One option as written: key, value (None for a bare key), where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawOpt {
    pub key: String,
    pub value: Option<String>,
    pub loc: Loc,
}

/// A `[name]` section (or a command-line `--name=` group).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub loc: Loc,
    pub options: Vec<RawOpt>,
}

impl Section {
    pub fn is_global(&self) -> bool {
        self.name == "global"
    }
}

/// What the lexer needs from the outside world: file reading, environment, keywords.
pub struct Env<'a> {
    pub read: &'a dyn Fn(&Path) -> std::io::Result<String>,
    pub var: &'a dyn Fn(&str) -> Option<String>,
    pub keywords: Keywords,
}

impl Env<'static> {
    /// The real file system and environment; the job file `-` is standard input.
    pub fn system() -> Self {
        Env {
            read: &|p: &Path| {
                let bytes = if p == Path::new("-") {
                    let mut b = Vec::new();
                    std::io::Read::read_to_end(&mut std::io::stdin(), &mut b)?;
                    b
                } else {
                    std::fs::read(p)?
                };
                decode(&bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
            },
            var: &|k: &str| std::env::var(k).ok(),
            keywords: Keywords::system(),
        }
    }
}

/// Job-file bytes as text. Comments may hold any bytes (fio reads bytes, and old job
/// files carry Latin-1 in comments): everything from a `;` or `#` on a line that is not
/// UTF-8 is dropped here, as the lexer would drop it. Anything else that is not UTF-8
/// is an error naming the line.
pub fn decode(bytes: &[u8]) -> Result<String, String> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Ok(s.to_string());
    }
    let mut out = String::with_capacity(bytes.len());
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let text = match std::str::from_utf8(line) {
            Ok(t) => t,
            Err(_) => {
                let code = line
                    .iter()
                    .position(|&b| b == b';' || b == b'#')
                    .map_or(line, |i| &line[..i]);
                std::str::from_utf8(code).map_err(|e| {
                    let col = e.valid_up_to();
                    format!(
                        "line {} is not valid UTF-8 (byte 0x{:02x} at column {}); only comments may hold other bytes",
                        n + 1,
                        code[col],
                        col + 1
                    )
                })?
            }
        };
        out.push_str(text);
    }
    Ok(out)
}

const MAX_INCLUDE_DEPTH: usize = 16;

/// Read and lex one job file (its warnings dropped: see [`parse_file_noting`]).
pub fn parse_file(path: &Path, env: &Env) -> Result<Vec<Section>, ConfigError> {
    parse_file_noting(path, env, &mut Vec::new())
}

/// Read and lex one job file; warnings for stderr (an unset `${VAR}`) go to `notes`.
pub fn parse_file_noting(
    path: &Path,
    env: &Env,
    notes: &mut Vec<String>,
) -> Result<Vec<Section>, ConfigError> {
    let text = (env.read)(path).map_err(|e| {
        ConfigError(format!(
            "cannot read job file '{}': {}",
            path.display(),
            io_reason(&e)
        ))
    })?;
    parse_text_noting(&text, path, env, notes)
}

/// Lex job-file text; `path` names it in messages and anchors relative includes.
pub fn parse_text(text: &str, path: &Path, env: &Env) -> Result<Vec<Section>, ConfigError> {
    parse_text_noting(text, path, env, &mut Vec::new())
}

/// [`parse_text`], its warnings added to `notes`.
pub fn parse_text_noting(
    text: &str,
    path: &Path,
    env: &Env,
    notes: &mut Vec<String>,
) -> Result<Vec<Section>, ConfigError> {
    let mut sections = Vec::new();
    let mut lexer = Lexer { env, notes };
    lexer.lex(text, path, &mut sections, 0)?;
    Ok(sections)
}

fn io_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    s.split(" (os error").next().unwrap_or(&s).to_string()
}

/// The lexer's outside world and where its warnings go.
struct Lexer<'a, 'e> {
    env: &'a Env<'e>,
    notes: &'a mut Vec<String>,
}

impl Lexer<'_, '_> {
    /// A warning for each unset `${VAR}` in `text`: as in fio, it is replaced by
    /// nothing, and the option then parses or is refused on its own.
    fn unset_check(&mut self, line: &str, text: &str, loc: &Loc) {
        for name in unset_vars(text, self.env.var) {
            self.notes.push(format!(
                "environment variable '{name}' is not set (in '{line}' at {loc}); it is replaced by nothing, as in fio"
            ));
        }
    }

    fn lex(
        &mut self,
        text: &str,
        path: &Path,
        out: &mut Vec<Section>,
        depth: usize,
    ) -> Result<(), ConfigError> {
        let env = self.env;
        let display = path.display().to_string();
        for (n, raw) in text.lines().enumerate() {
            let loc = Loc::File {
                path: display.clone(),
                line: n + 1,
            };
            let line = raw.trim_start();
            if line.starts_with([';', '#']) {
                continue;
            }
            let line = line.split([';', '#']).next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('[') {
                if depth > 0 {
                    return Err(ConfigError(format!(
                        "included file may not contain sections: '{line}' (at {loc})"
                    )));
                }
                let name = rest
                    .strip_suffix(']')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| {
                        ConfigError(format!(
                            "malformed section header '{line}' (at {loc}); expected [name]"
                        ))
                    })?;
                out.push(Section {
                    name: name.to_string(),
                    loc,
                    options: Vec::new(),
                });
                continue;
            }
            if let Some(file) = include_target(line) {
                if depth >= MAX_INCLUDE_DEPTH {
                    return Err(ConfigError(format!(
                    "include nesting deeper than {MAX_INCLUDE_DEPTH} (include loop?) (at {loc})"
                )));
                }
                if out.is_empty() {
                    return Err(ConfigError(format!(
                    "include outside of any [section] (at {loc}); put it under [global] or a job section"
                )));
                }
                self.unset_check(line, file, &loc);
                let file = expand_env(file, env.var);
                // fio's order: the name as given (relative to the working directory), then
                // relative to the including file's directory.
                let mut tried = Vec::new();
                let mut found = None;
                for target in candidates(path, &file) {
                    match (env.read)(&target) {
                        Ok(text) => {
                            found = Some((target, text));
                            break;
                        }
                        Err(e) => tried.push(format!("'{}': {}", target.display(), io_reason(&e))),
                    }
                }
                let Some((target, inc)) = found else {
                    return Err(ConfigError(format!(
                        "cannot read include file {} (at {loc})",
                        tried.join(", ")
                    )));
                };
                self.lex(&inc, &target, out, depth + 1)?;
                continue;
            }
            let (key, value) = match line.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (line, None),
            };
            if key.is_empty() || key.contains(char::is_whitespace) {
                return Err(ConfigError(format!(
                    "malformed line '{line}' (at {loc}); expected option=value or option"
                )));
            }
            if let Some(v) = value {
                self.unset_check(line, v, &loc);
            }
            let value = value.map(|v| replace_keywords(&expand_env(v, env.var), &env.keywords));
            let opt = RawOpt {
                key: key.to_string(),
                value,
                loc: loc.clone(),
            };
            match out.last_mut() {
            Some(s) => s.options.push(opt),
            None => {
                return Err(ConfigError(format!(
                    "option '{key}' outside of any [section] (at {loc}); put it under [global] or a job section"
                )))
            }
        }
        }
        Ok(())
    }
}

fn include_target(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("include")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let f = rest.trim();
    (!f.is_empty() && !f.contains('=')).then_some(f)
}

fn candidates(including: &Path, file: &str) -> Vec<PathBuf> {
    let p = Path::new(file);
    let mut out = vec![p.to_path_buf()];
    if p.is_relative() {
        if let Some(dir) = including.parent().filter(|d| !d.as_os_str().is_empty()) {
            out.push(dir.join(p));
        }
    }
    out
}

#[cfg(test)]
mod tests;
