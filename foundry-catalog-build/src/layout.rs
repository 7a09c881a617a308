//! Line breaking for generated code, the way prettyplease does it, for the
//! few constructs the emitter writes.
//!
//! The emitter writes Rust text directly instead of building tokens,
//! parsing them back with `syn` and printing them with prettyplease (that
//! round trip was nine tenths of the generator's time). The text must
//! still be exactly what prettyplease prints, so the places where
//! prettyplease may break a line are modelled here with its own rules
//! (prettyplease's `algorithm.rs`, after Oppen and rustc's `pp`):
//!
//! - a delimited list (call arguments, array elements, generic arguments,
//!   the tokens of an attribute) is a *consistent* box that starts after
//!   its opening delimiter: either it all fits on the line, or every item
//!   goes on a line of its own, indented four spaces more than the line
//!   the box belongs to, with a trailing comma (none in attributes) and
//!   the closing delimiter back on that line's indentation;
//! - a method chain (`field(…).optional().build()`) is a consistent box
//!   four spaces in with a break before each `.`: on one line, or every
//!   call on a line of its own (the head's arguments then sit in the box
//!   too); a lone block argument (`.items(const { … })`) follows `(`
//!   directly, in no box of its own;
//! - an inline `const { expr }` is a consistent box with a break after `{`
//!   and before `}`;
//! - a box fits when its flat width, plus the text after it up to the next
//!   possible break, is at most the space left on the line: 89 columns
//!   from the left margin, but never less than 60 after the indentation
//!   the line starts at. Widths are in bytes, as prettyplease counts them.
//!
//! Everything else the emitter writes has no break opportunity (paths,
//! literals, doc comments) or always breaks (item bodies). The tests hold
//! prettyplease to this model: for every corpus definition, thousands of
//! random ones and widths swept across every boundary, formatting the
//! generated text with prettyplease must give back the same bytes
//! (`foundry-catalog-build/tests/generator/format.rs`).

/// prettyplease's margin.
const MARGIN: usize = 89;
/// prettyplease's indentation step.
pub(crate) const INDENT: usize = 4;
/// The least space prettyplease leaves after deep indentation.
const MIN_SPACE: usize = 60;

/// A piece of generated code, with the places where lines may break.
#[derive(Debug, Clone)]
pub(crate) enum Doc {
    /// Text with no break opportunity in it.
    Text(String),
    /// Pieces written one after another.
    Seq(Vec<Doc>),
    /// `open`, items separated by `, `, `close`: one line, or one item a line.
    List(List),
    /// A block expression with one expression in it (`const { … }`): a
    /// consistent box with a break after `{` and before `}`; broken, the
    /// expression is on a line of its own four spaces in and `}` back on
    /// the block's line.
    Block(&'static str, Box<Doc>),
    /// A method chain `head.a(…).b(…)`: a consistent box, four spaces in,
    /// with a break before each `.`; broken, every call starts a line of
    /// its own, and the head's arguments sit in the box too.
    Chain(Box<Doc>, Vec<(String, Vec<Doc>)>),
}

/// A delimited list (see [`Doc::List`]).
#[derive(Debug, Clone)]
pub(crate) struct List {
    pub(crate) open: &'static str,
    pub(crate) items: Vec<Doc>,
    pub(crate) close: &'static str,
    /// Whether a broken list ends its last item with a comma (expressions
    /// and types do; attribute tokens do not).
    pub(crate) trailing_comma: bool,
}

impl Doc {
    /// Text with no break opportunity.
    pub(crate) fn text(text: impl Into<String>) -> Doc {
        Doc::Text(text.into())
    }

    /// `head` followed by a parenthesized list, as in a call.
    pub(crate) fn call(head: impl Into<String>, args: Vec<Doc>) -> Doc {
        Doc::Seq(vec![Doc::text(head), Doc::List(List { open: "(", items: args, close: ")", trailing_comma: true })])
    }

    /// `head` followed by generic arguments, as in a type.
    pub(crate) fn generic(head: impl Into<String>, args: Vec<Doc>) -> Doc {
        Doc::Seq(vec![Doc::text(head), Doc::List(List { open: "<", items: args, close: ">", trailing_comma: true })])
    }

    /// An array expression `[a, b]`.
    pub(crate) fn array(items: Vec<Doc>) -> Doc {
        Doc::List(List { open: "[", items, close: "]", trailing_comma: true })
    }

    /// An outer attribute `#[name(tokens, …)]`.
    pub(crate) fn attribute(name: &str, tokens: Vec<Doc>) -> Doc {
        Doc::Seq(vec![
            Doc::text(format!("#[{name}")),
            Doc::List(List { open: "(", items: tokens, close: ")", trailing_comma: false }),
            Doc::text("]"),
        ])
    }

    /// An inline `const { expr }` block.
    pub(crate) fn const_block(expr: Doc) -> Doc {
        Doc::Block("const", Box::new(expr))
    }

    /// A method chain on `head` (see [`Doc::Chain`]).
    pub(crate) fn chain(head: Doc, calls: Vec<(String, Vec<Doc>)>) -> Doc {
        Doc::Chain(Box::new(head), calls)
    }

    /// The width of the piece written on one line.
    fn flat_width(&self) -> usize {
        match self {
            Doc::Text(text) => text.len(),
            Doc::Seq(parts) => parts.iter().map(Doc::flat_width).sum(),
            Doc::List(list) => list.flat_width(),
            // `head { expr }`
            Doc::Block(head, expr) => head.len() + 5 + expr.flat_width(),
            Doc::Chain(head, calls) => {
                let calls: usize = calls.iter().map(|(name, args)| 1 + name.len() + args_width(args)).sum();
                head.flat_width() + calls
            }
        }
    }

    /// The width from the start of this piece to its first break
    /// opportunity, and whether it has one.
    fn width_to_break(&self) -> (usize, bool) {
        match self {
            Doc::Text(text) => (text.len(), false),
            Doc::Seq(parts) => width_to_break(parts),
            // A list may break right after its opening delimiter (an empty
            // one is written as one word).
            Doc::List(list) if list.items.is_empty() => (list.open.len() + list.close.len(), false),
            Doc::List(list) => (list.open.len(), true),
            // `head {` then the break.
            Doc::Block(head, _) => (head.len() + 2, true),
            Doc::Chain(head, calls) => match head.width_to_break() {
                (width, true) => (width, true),
                // The break before the first `.`.
                (width, false) => (width, !calls.is_empty()),
            },
        }
    }
}

impl List {
    fn flat_width(&self) -> usize {
        let items: usize = self.items.iter().map(Doc::flat_width).sum();
        self.open.len() + items + 2 * self.items.len().saturating_sub(1) + self.close.len()
    }
}

/// The flat width of call arguments `(a, b)`.
fn args_width(args: &[Doc]) -> usize {
    let items: usize = args.iter().map(Doc::flat_width).sum();
    2 + items + 2 * args.len().saturating_sub(1)
}

/// Call arguments as a list.
fn args_list(args: &[Doc]) -> List {
    List { open: "(", items: args.to_vec(), close: ")", trailing_comma: true }
}

fn width_to_break(parts: &[Doc]) -> (usize, bool) {
    let mut width = 0;
    for part in parts {
        let (w, breaks) = part.width_to_break();
        width += w;
        if breaks {
            return (width, true);
        }
    }
    (width, false)
}

/// Writes generated code line by line, breaking lists as prettyplease does.
#[derive(Debug, Default)]
pub(crate) struct Printer {
    out: String,
    line_start: usize,
}

impl Printer {
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Printer { out: String::with_capacity(capacity), line_start: 0 }
    }

    pub(crate) fn finish(self) -> String {
        self.out
    }

    /// Writes one line at `indent` (a line of its own in prettyplease: it
    /// follows a hard break and ends with one).
    pub(crate) fn line(&mut self, indent: usize, doc: &Doc) {
        self.spaces(indent);
        self.doc(doc, indent, 0);
        self.newline();
    }

    /// Writes one line of text with no break opportunity.
    pub(crate) fn text_line(&mut self, indent: usize, text: &str) {
        self.spaces(indent);
        self.out.push_str(text);
        self.newline();
    }

    /// A `///` doc comment line as prettyplease writes `#[doc = " text"]`:
    /// trailing spaces dropped, `///` alone for an empty line.
    ///
    /// `value` is the attribute's value: empty, or starting with a space.
    pub(crate) fn doc_comment(&mut self, indent: usize, value: &str) {
        self.spaces(indent);
        self.out.push_str("///");
        self.out.push_str(value.trim_end_matches(' '));
        self.newline();
    }

    fn spaces(&mut self, n: usize) {
        self.out.extend(std::iter::repeat_n(' ', n));
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.line_start = self.out.len();
    }

    /// Whether `width` more bytes fit on the current line
    /// (prettyplease's `size <= space`, where the space is set at each line
    /// break from the indentation the line starts at, whatever box comes
    /// after).
    fn fits(&self, width: usize) -> bool {
        let line = &self.out[self.line_start..];
        let line_indent = line.len() - line.trim_start_matches(' ').len();
        let space = MARGIN.saturating_sub(line_indent).max(MIN_SPACE);
        let used = line.len() - line_indent;
        used + width <= space
    }

    /// Writes `doc`; `indent` is the indentation of the box it belongs to
    /// and `trailing` the width of what follows it up to the next break.
    fn doc(&mut self, doc: &Doc, indent: usize, trailing: usize) {
        match doc {
            Doc::Text(text) => self.out.push_str(text),
            Doc::Seq(parts) => {
                for (i, part) in parts.iter().enumerate() {
                    let rest = match parts.get(i + 1..) {
                        Some(rest) => width_to_break(rest),
                        None => (0, false),
                    };
                    let after = if rest.1 { rest.0 } else { rest.0 + trailing };
                    self.doc(part, indent, after);
                }
            }
            Doc::List(list) => self.list(list, indent, trailing),
            Doc::Block(..) | Doc::Chain(..) if self.fits(doc.flat_width() + trailing) => self.flat(doc),
            Doc::Block(head, expr) => {
                self.out.push_str(head);
                self.out.push_str(" {");
                self.newline();
                self.spaces(indent + INDENT);
                self.doc(expr, indent + INDENT, 0);
                self.newline();
                self.spaces(indent);
                self.out.push('}');
            }
            Doc::Chain(head, calls) => {
                let inner = indent + INDENT;
                self.doc(head, inner, 0);
                for (i, (name, args)) in calls.iter().enumerate() {
                    self.newline();
                    self.spaces(inner);
                    self.out.push('.');
                    self.out.push_str(name);
                    let after = if i + 1 == calls.len() { trailing } else { 0 };
                    match args.as_slice() {
                        // A lone block argument is written right after `(`,
                        // in no box of its own (prettyplease's `is_blocklike`).
                        [block @ Doc::Block(..)] => {
                            self.out.push('(');
                            self.doc(block, inner, after + 1);
                            self.out.push(')');
                        }
                        args => self.list(&args_list(args), inner, after),
                    }
                }
            }
        }
    }

    fn list(&mut self, list: &List, indent: usize, trailing: usize) {
        self.out.push_str(list.open);
        let Some(last) = list.items.len().checked_sub(1) else {
            self.out.push_str(list.close);
            return;
        };
        let width = list.flat_width() - list.open.len() + trailing;
        if self.fits(width) {
            for (i, item) in list.items.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.flat(item);
            }
        } else {
            let inner = indent + INDENT;
            for (i, item) in list.items.iter().enumerate() {
                self.newline();
                self.spaces(inner);
                // A comma between items is text before the next break; the
                // trailing comma is written by the break itself and is not
                // counted (prettyplease's `pre_break`).
                self.doc(item, inner, usize::from(i < last));
                if i < last || list.trailing_comma {
                    self.out.push(',');
                }
            }
            self.newline();
            self.spaces(indent);
        }
        self.out.push_str(list.close);
    }

    fn flat(&mut self, doc: &Doc) {
        match doc {
            Doc::Text(text) => self.out.push_str(text),
            Doc::Seq(parts) => parts.iter().for_each(|part| self.flat(part)),
            Doc::List(list) => {
                self.out.push_str(list.open);
                for (i, item) in list.items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.flat(item);
                }
                self.out.push_str(list.close);
            }
            Doc::Block(head, expr) => {
                self.out.push_str(head);
                self.out.push_str(" { ");
                self.flat(expr);
                self.out.push_str(" }");
            }
            Doc::Chain(head, calls) => {
                self.flat(head);
                for (name, args) in calls {
                    self.out.push('.');
                    self.out.push_str(name);
                    self.flat(&Doc::List(args_list(args)));
                }
            }
        }
    }

    /// Writes `head`, a possible break, then `tail` (an `impl Trait for
    /// Type {` line): on one line when it fits, otherwise `tail` starts a
    /// line at `indent` (prettyplease's inconsistent box around an impl
    /// header, whose break sits before `for`).
    pub(crate) fn breakable_line(&mut self, indent: usize, head: &str, tail: &str) {
        self.spaces(indent);
        self.out.push_str(head);
        if self.fits(1 + tail.len()) {
            self.out.push(' ');
        } else {
            self.newline();
            self.spaces(indent);
        }
        self.out.push_str(tail);
        self.newline();
    }
}

/// A Rust string literal for `text`, escaped exactly as `proc_macro2`'s
/// `Literal::string` escapes it (what `quote!` wrote before), so
/// descriptions and names read the same as ever.
pub(crate) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            // `\0` followed by a digit would read as an octal escape.
            '\0' if chars.as_str().starts_with(|next: char| next.is_ascii_digit() && next <= '7') => {
                out.push_str("\\x00");
            }
            '\0' => out.push_str("\\0"),
            '\'' => out.push('\''),
            c if c.is_ascii_alphanumeric() || c == ' ' => out.push(c),
            c => out.extend(c.escape_debug()),
        }
    }
    out.push('"');
    out
}

/// An unsuffixed float literal, as `proc_macro2::Literal::f64_unsuffixed`
/// writes it (`0.91`, `0.0`).
pub(crate) fn float_literal(value: f64) -> String {
    let mut text = value.to_string();
    if !text.contains('.') {
        text.push_str(".0");
    }
    text
}
