//! A minimal ordered JSON tree printed byte-for-byte like fio's `json.c`.
//!
//! fio prints objects as `{`, one `"key" : value` pair per line indented two spaces
//! per level, pairs separated by `,\n`, and the closing brace on its own line at the
//! parent's indentation; arrays likewise with `[`/`]`. Integers are printed plain,
//! doubles with C's `%f` (six decimals), strings with only `"` and `\` escaped.
//! Key order is insertion order and duplicate keys are kept, as in fio.

use std::fmt::Write;

/// One JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
    Str(String),
    Obj(Object),
    Arr(Vec<Value>),
}

/// An ordered list of key/value pairs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object(pub Vec<(String, Value)>);

impl Object {
    pub fn new() -> Self {
        Object(Vec::new())
    }
    pub fn int(&mut self, key: &str, v: impl Into<i128>) -> &mut Self {
        self.0.push((key.to_string(), Value::Int(v.into())));
        self
    }
    pub fn float(&mut self, key: &str, v: f64) -> &mut Self {
        self.0.push((key.to_string(), Value::Float(v)));
        self
    }
    pub fn str(&mut self, key: &str, v: &str) -> &mut Self {
        self.0.push((key.to_string(), Value::Str(v.to_string())));
        self
    }
    pub fn obj(&mut self, key: &str, v: Object) -> &mut Self {
        self.0.push((key.to_string(), Value::Obj(v)));
        self
    }
    pub fn arr(&mut self, key: &str, v: Vec<Value>) -> &mut Self {
        self.0.push((key.to_string(), Value::Arr(v)));
        self
    }
}

/// C's `printf("%f", v)`: six decimals, correctly rounded (glibc and Rust both round
/// the exact binary value half-to-even); "nan"/"-nan"/"inf"/"-inf" like glibc.
pub fn fmt_f(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    format!("{v:.6}")
}

/// fio's string escaping: a backslash before `"` and `\`. Control characters (which
/// fio would emit raw, producing invalid JSON) are written as `\u00XX`.
fn escape(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn indent(level: usize, out: &mut String) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn print_value(v: &Value, level: usize, out: &mut String) {
    match v {
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => out.push_str(&fmt_f(*f)),
        Value::Str(s) => escape(s, out),
        Value::Obj(o) => print_object(o, level, out),
        Value::Arr(a) => {
            out.push_str("[\n");
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(level + 1, out);
                print_value(e, level + 1, out);
            }
            out.push('\n');
            indent(level, out);
            out.push(']');
        }
    }
}

fn print_object(o: &Object, level: usize, out: &mut String) {
    out.push_str("{\n");
    for (i, (k, v)) in o.0.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        indent(level + 1, out);
        escape(k, out);
        out.push_str(" : ");
        print_value(v, level + 1, out);
    }
    out.push('\n');
    indent(level, out);
    out.push('}');
}

/// The whole document: the root object followed by a newline.
pub fn print_root(o: &Object) -> String {
    let mut out = String::new();
    print_object(o, 0, &mut out);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_percent_f() {
        assert_eq!(fmt_f(0.0), "0.000000");
        assert_eq!(fmt_f(14666.666666666666), "14666.666667");
        assert_eq!(fmt_f(99.99), "99.990000");
        assert_eq!(fmt_f(0.0000005), "0.000000"); // the double is just below 5e-7
        assert_eq!(fmt_f(0.0000015), "0.000002");
        assert_eq!(fmt_f(-1.5), "-1.500000");
        assert_eq!(fmt_f(1e20), "100000000000000000000.000000");
        assert_eq!(fmt_f(f64::NAN), "nan");
        assert_eq!(fmt_f(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn layout_like_fio() {
        let mut inner = Object::new();
        inner.int("a", 1u64).float("b", 2.5);
        let mut root = Object::new();
        root.str("name", "x\"y\\z")
            .obj("o", inner)
            .arr("l", vec![Value::Int(1), Value::Int(-2)]);
        let want = "{\n  \"name\" : \"x\\\"y\\\\z\",\n  \"o\" : {\n    \"a\" : 1,\n    \"b\" : 2.500000\n  },\n  \"l\" : [\n    1,\n    -2\n  ]\n}\n";
        assert_eq!(print_root(&root), want);
    }

    #[test]
    fn empty_containers_like_fio() {
        // fio's printer always writes the newline after the opening brace and the
        // one before the closing brace.
        let mut root = Object::new();
        root.obj("o", Object::new()).arr("a", Vec::new());
        assert_eq!(
            print_root(&root),
            "{\n  \"o\" : {\n\n  },\n  \"a\" : [\n\n  ]\n}\n"
        );
    }
}
