//! Where each value of a definition file is: JSON pointer → line and
//! column, so every error can name its place, including those found after
//! parsing (rule checks, and format errors found on the parsed tree).

use std::collections::BTreeMap;

/// The place of every value in a JSON text, by JSON pointer (RFC 6901),
/// found the first time one is asked for (a definition without errors
/// never needs one).
#[derive(Debug, Clone, Default)]
pub(crate) struct Positions<'a> {
    text: &'a str,
    scanned: std::cell::OnceCell<Scanned>,
    /// The parsed tree, when kept: its numbers written as integers are
    /// exact (`u64`/`i64`), so most need no scan of the text.
    value: Option<serde_json::Value>,
}

/// What a scan found.
#[derive(Debug, Clone, Default)]
struct Scanned {
    /// Line and column (from 1, the column in characters) of each value.
    at: BTreeMap<String, (usize, usize)>,
    /// Line and column of the key of each object member, by the member's
    /// pointer.
    keys: BTreeMap<String, (usize, usize)>,
    /// The byte range of each number, `true`, `false` and `null`, so a
    /// number can be read from its text rather than from an `f64`.
    scalars: BTreeMap<String, (usize, usize)>,
}

impl<'a> Positions<'a> {
    /// The places of the values of `text`, which is valid JSON (it was
    /// parsed before); a text that is not gives what was found up to the
    /// fault.
    pub(crate) fn new(text: &'a str) -> Positions<'a> {
        Positions { text, scanned: std::cell::OnceCell::new(), value: None }
    }

    /// Keeps the parsed tree of the text, for [`Positions::integer`].
    pub(crate) fn keep(&mut self, value: serde_json::Value) {
        self.value = Some(value);
    }

    /// The number at `pointer` when the file writes it as an integer
    /// (digits only: no fraction, no exponent), exactly; `None` for any
    /// other value or when the tree was not kept.
    pub(crate) fn integer(&self, pointer: &str) -> Option<i128> {
        let number = self.value.as_ref()?.pointer(pointer)?.as_number()?;
        number.as_i64().map(i128::from).or_else(|| number.as_u64().map(i128::from))
    }

    fn scanned(&self) -> &Scanned {
        self.scanned.get_or_init(|| scan(self.text))
    }

    /// The text of the number (or `true`, `false`, `null`) at `pointer`,
    /// exactly as the file writes it.
    pub(crate) fn scalar_text(&self, pointer: &str) -> Option<&'a str> {
        let &(start, end) = self.scanned().scalars.get(pointer)?;
        self.text.get(start..end)
    }

    /// The line and column of the key of the object member at `pointer`,
    /// or of the value when it has no key there.
    pub(crate) fn key_of(&self, pointer: &str) -> (usize, usize) {
        self.scanned().keys.get(pointer).copied().unwrap_or_else(|| self.of(pointer))
    }

    /// The line and column of the value at `pointer`, or of its nearest
    /// enclosing value that is in the file (a missing key is reported at
    /// its object).
    pub(crate) fn of(&self, pointer: &str) -> (usize, usize) {
        let mut pointer = pointer;
        loop {
            if let Some(&place) = self.scanned().at.get(pointer) {
                return place;
            }
            match pointer.rfind('/') {
                Some(cut) => pointer = &pointer[..cut],
                None => return (1, 1),
            }
        }
    }
}

fn scan(text: &str) -> Scanned {
    let mut scanner = Scanner {
        text,
        bytes: text.as_bytes(),
        i: 0,
        line: 1,
        line_start: 0,
        out: BTreeMap::new(),
        keys: BTreeMap::new(),
        scalars: BTreeMap::new(),
    };
    scanner.value(String::new(), 0);
    Scanned { at: scanner.out, keys: scanner.keys, scalars: scanner.scalars }
}

/// A JSON pointer one key or index further in.
pub(crate) fn child(pointer: &str, step: &str) -> String {
    format!("{pointer}/{}", step.replace('~', "~0").replace('/', "~1"))
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    i: usize,
    line: usize,
    line_start: usize,
    out: BTreeMap<String, (usize, usize)>,
    keys: BTreeMap<String, (usize, usize)>,
    scalars: BTreeMap<String, (usize, usize)>,
}

/// Deeper than serde_json parses (128), so a text that parsed is scanned whole.
const MAX_DEPTH: usize = 256;

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn whitespace(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = self.i;
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                _ => break,
            }
        }
    }

    fn place(&self) -> (usize, usize) {
        let column = self.text.get(self.line_start..self.i).map_or(0, |s| s.chars().count()) + 1;
        (self.line, column)
    }

    fn value(&mut self, pointer: String, depth: usize) {
        self.whitespace();
        if depth > MAX_DEPTH {
            return;
        }
        self.out.insert(pointer.clone(), self.place());
        match self.peek() {
            Some(b'{') => {
                self.i += 1;
                loop {
                    self.whitespace();
                    match self.peek() {
                        Some(b'}') | None => break,
                        Some(b',') => self.i += 1,
                        Some(b'"') => {
                            let place = self.place();
                            let key = self.string();
                            let member = child(&pointer, &key);
                            self.keys.insert(member.clone(), place);
                            self.whitespace();
                            if self.peek() == Some(b':') {
                                self.i += 1;
                            }
                            self.value(member, depth + 1);
                        }
                        Some(_) => return,
                    }
                }
                self.i += 1;
            }
            Some(b'[') => {
                self.i += 1;
                let mut index = 0;
                loop {
                    self.whitespace();
                    match self.peek() {
                        Some(b']') | None => break,
                        Some(b',') => self.i += 1,
                        Some(_) => {
                            self.value(child(&pointer, &index.to_string()), depth + 1);
                            index += 1;
                        }
                    }
                }
                self.i += 1;
            }
            Some(b'"') => {
                self.string();
            }
            Some(_) => {
                let start = self.i;
                while self.peek().is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')) {
                    self.i += 1;
                }
                self.scalars.insert(pointer, (start, self.i));
            }
            None => {}
        }
    }

    /// Reads a string from its opening quote; returns its decoded text.
    fn string(&mut self) -> String {
        let start = self.i;
        self.i += 1;
        while let Some(b) = self.peek() {
            self.i += 1;
            match b {
                b'\\' => self.i += 1,
                b'"' => break,
                _ => {}
            }
        }
        let raw = self.text.get(start..self.i.min(self.text.len())).unwrap_or_default();
        serde_json::from_str(raw).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_and_escaped_key_has_its_place() {
        let text = "{\n  \"a\": [1, {\"b/c\": \"x\"}],\n  \"q\\\"k\": true\n}";
        let positions = Positions::new(text);
        assert_eq!(positions.of(""), (1, 1));
        assert_eq!(positions.of("/a"), (2, 8));
        assert_eq!(positions.of("/a/1"), (2, 12));
        assert_eq!(positions.of("/a/1/b~1c"), (2, 20));
        assert_eq!(positions.of("/q\"k"), (3, 11));
        assert_eq!(positions.of("/a/1/missing"), (2, 12), "a missing key is placed at its object");
        assert_eq!(positions.key_of("/a/1/b~1c"), (2, 13));
        assert_eq!(positions.key_of("/a/0"), (2, 9), "an array entry is placed at its value");
        assert_eq!(positions.scalar_text("/a/0"), Some("1"));
        assert_eq!(positions.scalar_text("/q\"k"), Some("true"));
        assert_eq!(positions.scalar_text("/a/1/b~1c"), None, "a string is not a scalar here");
    }
}
