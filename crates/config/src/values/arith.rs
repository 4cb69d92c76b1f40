//! Arithmetic in numeric values, as fio allows when the value is wrapped in
//! parentheses: `size=(1024*1024)`, `bs=(2*4k)`, `runtime=(10*1000000)`.
//!
//! Operators: `+ - * / % ^` (power, right-associative), unary minus, nested
//! parentheses. Numbers may be integers, decimals or `0x` hex and may carry a unit
//! suffix of the value's kind (sizes: k/m/g/t/p...; times: us/ms/s/m/h/d). For time
//! values inside an expression the default unit is microseconds (fio's rule). The
//! result must be a non-negative number; fractions are truncated toward zero.

use super::suffix::{size_suffix_mult, time_suffix_us};

/// The kind of quantity an expression evaluates to (decides what suffixes mean).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Plain number: no suffixes.
    Plain,
    /// Bytes, with size suffixes under the given kb_base.
    Bytes { kb_base: u32 },
    /// Microseconds, with time suffixes.
    Time,
}

/// Evaluate an expression (with or without the outer parentheses) to a u64.
pub fn eval(text: &str, unit: Unit) -> Result<u64, String> {
    let v = eval_f64(text, unit)?;
    if !v.is_finite() {
        return Err(format!(
            "expression '{text}' does not evaluate to a finite number"
        ));
    }
    if v < 0.0 {
        return Err(format!("expression '{text}' is negative ({v})"));
    }
    if v >= 18446744073709551616.0 {
        return Err(format!("expression '{text}' is too large"));
    }
    Ok(v as u64)
}

/// Evaluate an expression to a floating point value.
pub fn eval_f64(text: &str, unit: Unit) -> Result<f64, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        unit,
        text,
    };
    let v = p.expr()?;
    p.ws();
    if p.pos != p.s.len() {
        return Err(p.err("unexpected character"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    unit: Unit,
    text: &'a str,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        format!(
            "bad expression '{}': {} at position {}",
            self.text,
            what,
            self.pos + 1
        )
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn expr(&mut self) -> Result<f64, String> {
        let mut v = self.term()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let r = self.term()?;
            v = if c == b'+' { v + r } else { v - r };
        }
        Ok(v)
    }

    fn term(&mut self) -> Result<f64, String> {
        let mut v = self.unary()?;
        while let Some(c @ (b'*' | b'/' | b'%')) = self.peek() {
            self.pos += 1;
            let r = self.unary()?;
            v = match c {
                b'*' => v * r,
                _ if r == 0.0 => return Err(self.err("division by zero")),
                b'/' => v / r,
                _ => v % r,
            };
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<f64, String> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
            return Ok(-self.unary()?);
        }
        if self.peek() == Some(b'+') {
            self.pos += 1;
            return self.unary();
        }
        self.power()
    }

    fn power(&mut self) -> Result<f64, String> {
        let base = self.atom()?;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            let exp = self.unary()?;
            return Ok(base.powf(exp));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<f64, String> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let v = self.expr()?;
                if self.peek() != Some(b')') {
                    return Err(self.err("missing ')'"));
                }
                self.pos += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => self.number(),
            Some(_) => Err(self.err("expected a number")),
            None => Err(self.err("unexpected end")),
        }
    }

    fn number(&mut self) -> Result<f64, String> {
        let start = self.pos;
        let v = if self.s[self.pos..].starts_with(b"0x") || self.s[self.pos..].starts_with(b"0X") {
            self.pos += 2;
            let hs = self.pos;
            while self.pos < self.s.len() && self.s[self.pos].is_ascii_hexdigit() {
                self.pos += 1;
            }
            let h = std::str::from_utf8(&self.s[hs..self.pos]).unwrap_or("");
            u64::from_str_radix(h, 16).map_err(|_| self.err("bad hex number"))? as f64
        } else {
            while self.pos < self.s.len()
                && (self.s[self.pos].is_ascii_digit() || self.s[self.pos] == b'.')
            {
                self.pos += 1;
            }
            let n = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
            n.parse::<f64>().map_err(|_| self.err("bad number"))?
        };
        let ss = self.pos;
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_alphabetic() {
            self.pos += 1;
        }
        let suffix = std::str::from_utf8(&self.s[ss..self.pos]).unwrap_or("");
        let mult = match self.unit {
            _ if suffix.is_empty() => 1.0,
            Unit::Plain => None.ok_or_else(|| self.err("unexpected unit"))?,
            Unit::Bytes { kb_base } => size_suffix_mult(suffix, kb_base)
                .ok_or_else(|| self.err("unknown size unit"))?
                as f64,
            Unit::Time => {
                time_suffix_us(suffix).ok_or_else(|| self.err("unknown time unit"))? as f64
            }
        };
        Ok(v * mult)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> u64 {
        eval(s, Unit::Plain).unwrap()
    }

    #[test]
    fn precedence_and_assoc() {
        assert_eq!(p("(1+2*3)"), 7);
        assert_eq!(p("((1+2)*3)"), 9);
        assert_eq!(p("(10-4-3)"), 3);
        assert_eq!(p("(2^3^2)"), 512);
        assert_eq!(p("(17%5)"), 2);
        assert_eq!(p("(7/2)"), 3);
        assert_eq!(p("(-2+5)"), 3);
        assert_eq!(p("( 1 + 1 )"), 2);
        assert_eq!(p("(0x10*2)"), 32);
        assert_eq!(p("(1.5*4)"), 6);
    }

    #[test]
    fn units() {
        assert_eq!(eval("(4k*2)", Unit::Bytes { kb_base: 1024 }).unwrap(), 8192);
        assert_eq!(
            eval("(1m-1k)", Unit::Bytes { kb_base: 1000 }).unwrap(),
            999_000
        );
        assert_eq!(eval("(10)", Unit::Time).unwrap(), 10);
        assert_eq!(eval("(2s+5ms)", Unit::Time).unwrap(), 2_005_000);
        assert!(eval("(4k)", Unit::Plain).is_err());
        assert!(eval("(4q)", Unit::Bytes { kb_base: 1024 }).is_err());
    }

    #[test]
    fn errors() {
        for bad in [
            "(",
            "()",
            "(1+)",
            "(1/0)",
            "(1%0)",
            "(1))",
            "(2-3)",
            "(a)",
            "(1 2)",
            "(1e999^9)",
        ] {
            assert!(eval(bad, Unit::Plain).is_err(), "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "[-+*/%^()0-9a-z. ]{0,30}") {
            let _ = eval(&s, Unit::Bytes { kb_base: 1024 });
            let _ = eval(&s, Unit::Time);
        }

        #[test]
        fn sums(a in 0u32..1_000_000, b in 0u32..1_000_000) {
            proptest::prop_assert_eq!(p(&format!("({a}+{b})")), a as u64 + b as u64);
            proptest::prop_assert_eq!(p(&format!("({a}*{b})")), a as u64 * b as u64);
        }
    }
}
