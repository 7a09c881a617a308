//! The index of a compiled output: which definition produced which part
//! of which file, so that the next run reuses every definition that is
//! unchanged.
//!
//! [`Generator::compile`](crate::Generator::compile) writes the record
//! types in a few files (shards, see `compile`) and beside the output an
//! index (`<output>.index`). An entry's key is the generator's identity,
//! the runtime path, the definition's path and its exact bytes (compared
//! byte for byte: a hash would cost more than the comparison in a build
//! script, which runs unoptimized); its value is the record label and type name the definition produced and
//! where its code lies: the shard, the span and the span's CRC-32. Each
//! shard's entry gives its file's length and modification time when it was
//! written. A definition whose key is unchanged is neither parsed, checked
//! nor emitted: a shard whose record types are all unchanged is not
//! touched, as long as its file still has the length and modification time
//! the index gives (the test cargo applies to its own outputs), and a
//! rewritten shard copies their code from the old file, each span checked
//! against its CRC-32; a span that fails is generated again.
//!
//! Nothing is trusted without a check. The index carries a CRC-32 of
//! itself, so a damaged or truncated index is ignored whole, and it names
//! the generator that wrote it. A missing, foreign or damaged index only
//! means every definition is generated again: never a panic and never a
//! wrong byte. Cache problems never fail a build: the cache only saves work.
//!
//! The generator's identity is its crate version and index format, plus
//! the length and modification time of the running executable: a build
//! script is relinked whenever the generator (or the hash rules it
//! compiles in) changes, even without a version bump, as with a path
//! dependency. That part never reaches the output, which stays the same
//! bytes whether it came from the cache or not.
//!
//! Index format (all numbers decimal ASCII; the CRC covers every byte after
//! its line; shards and entries in output order):
//!
//! ```text
//! foundry-catalog-build index 2\n
//! <CRC-32 of the rest>\n
//! <generator length> <shards> <entries>\n
//! <generator>
//! then per shard:
//! <name length> <file length> <file mtime seconds> <nanoseconds>\n
//! <name>
//! then per entry:
//! <path length> <bytes length> <label length> <type-name length> <shard> <code start> <code length> <code CRC-32>\n
//! <path><definition bytes><record label><type name>
//! ```

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The first line of an index; the number is the index format.
const MAGIC: &[u8] = b"foundry-catalog-build index 2\n";

/// The index of the output at `output`.
pub(crate) fn index_path(output: &Path) -> PathBuf {
    let mut path = output.to_owned();
    path.as_mut_os_string().push(".index");
    path
}

/// This generator's identity for a runtime path and settings, or `None`
/// when the running executable cannot be identified (then nothing is
/// reused).
pub(crate) fn identity(runtime: &str, settings: &crate::settings::Settings) -> Option<String> {
    let exe = std::env::current_exe().and_then(std::fs::metadata).ok()?;
    let modified = exe.modified().ok()?.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    Some(format!(
        "{} {} index 2 exe {} {}.{:09} runtime {runtime} settings {}",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION"),
        exe.len(),
        modified.as_secs(),
        modified.subsec_nanos(),
        settings.identity()
    ))
}

/// The length and modification time of a written file, as the index keeps
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified: Duration,
}

impl Stamp {
    /// The stamp of the file at `path` now.
    pub(crate) fn of(path: &Path) -> Option<Stamp> {
        let metadata = std::fs::metadata(path).ok()?;
        let modified = metadata.modified().ok()?.duration_since(SystemTime::UNIX_EPOCH).ok()?;
        Some(Stamp { len: metadata.len(), modified })
    }

    /// The file's length.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }
}

/// Where a record type's code lies in its shard, and the CRC-32 of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) shard: usize,
    pub(crate) range: Range<usize>,
    pub(crate) crc: u32,
}

impl Span {
    /// This span's code in `shard` (the shard file's bytes), if it is
    /// there and its CRC-32 matches.
    pub(crate) fn code_in<'a>(&self, shard: &'a [u8]) -> Option<&'a [u8]> {
        shard.get(self.range.clone()).filter(|code| crc32fast::hash(code) == self.crc)
    }
}

/// A shard of the previous output: its name and the stamp of its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shard {
    pub(crate) name: String,
    pub(crate) stamp: Stamp,
}

/// What one definition produced last time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reused<'a> {
    pub(crate) record_label: &'a str,
    pub(crate) type_name: &'a str,
    pub(crate) span: &'a Span,
}

/// One entry of an index; its texts are ranges of the index (UTF-8,
/// checked when it was read).
#[derive(Debug, PartialEq, Eq)]
struct Indexed {
    path: Range<usize>,
    bytes: Range<usize>,
    record_label: Range<usize>,
    type_name: Range<usize>,
    span: Span,
}

/// A previous index, made by this generator.
#[derive(Debug)]
pub(crate) struct Previous {
    index: Vec<u8>,
    shards: Vec<Shard>,
    /// How many record types each shard holds.
    members: Vec<usize>,
    entries: Vec<Indexed>,
    /// Entry numbers sorted by path.
    by_path: Vec<usize>,
}

impl Previous {
    /// The index of the output at `output`, if it can be read, is whole
    /// and was made by `generator`.
    pub(crate) fn load(output: &Path, generator: &str) -> Option<Previous> {
        decode(std::fs::read(index_path(output)).ok()?, generator)
    }

    /// A text of the index.
    fn text(&self, range: &Range<usize>) -> &str {
        self.index.get(range.clone()).and_then(|b| std::str::from_utf8(b).ok()).unwrap_or_default()
    }

    /// What the definition at `path` produced last time, if its bytes were
    /// `bytes`.
    pub(crate) fn get(&self, path: &str, bytes: &[u8]) -> Option<Reused<'_>> {
        // Bytes compare as the UTF-8 texts they are.
        let at =
            self.by_path.binary_search_by(|&i| self.index[self.entries[i].path.clone()].cmp(path.as_bytes())).ok()?;
        let entry = &self.entries[self.by_path[at]];
        (self.index.get(entry.bytes.clone())? == bytes).then_some(Reused {
            record_label: self.text(&entry.record_label),
            type_name: self.text(&entry.type_name),
            span: &entry.span,
        })
    }

    /// How many definitions the index holds.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The previous output's shards, in order.
    pub(crate) fn shards(&self) -> &[Shard] {
        &self.shards
    }

    /// How many record types shard `shard` held.
    pub(crate) fn members(&self, shard: usize) -> usize {
        self.members.get(shard).copied().unwrap_or(0)
    }
}

/// One definition to index: its path and bytes, what it produced and
/// where.
#[derive(Debug, Clone)]
pub(crate) struct Produced<'a> {
    pub(crate) path: &'a str,
    pub(crate) bytes: &'a [u8],
    pub(crate) record_label: &'a str,
    pub(crate) type_name: &'a str,
    pub(crate) span: &'a Span,
}

/// The index, made by `generator`, of `shards` holding `entries`.
pub(crate) fn encode(generator: &str, shards: &[Shard], entries: &[Produced<'_>]) -> Vec<u8> {
    let size = entries.iter().map(|e| e.path.len() + e.bytes.len() + e.record_label.len() + e.type_name.len() + 64);
    let mut body = Vec::with_capacity(generator.len() + 64 * (shards.len() + 1) + size.sum::<usize>());
    body.extend_from_slice(format!("{} {} {}\n", generator.len(), shards.len(), entries.len()).as_bytes());
    body.extend_from_slice(generator.as_bytes());
    for shard in shards {
        let (secs, nanos) = (shard.stamp.modified.as_secs(), shard.stamp.modified.subsec_nanos());
        body.extend_from_slice(format!("{} {} {secs} {nanos}\n", shard.name.len(), shard.stamp.len).as_bytes());
        body.extend_from_slice(shard.name.as_bytes());
    }
    for e in entries {
        let (path, bytes, label, name) = (e.path.len(), e.bytes.len(), e.record_label.len(), e.type_name.len());
        let Span { shard, range, crc } = e.span;
        let (start, len) = (range.start, range.len());
        body.extend_from_slice(format!("{path} {bytes} {label} {name} {shard} {start} {len} {crc}\n").as_bytes());
        for part in [e.path.as_bytes(), e.bytes, e.record_label.as_bytes(), e.type_name.as_bytes()] {
            body.extend_from_slice(part);
        }
    }
    let mut out = Vec::with_capacity(MAGIC.len() + 16 + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(format!("{}\n", crc32fast::hash(&body)).as_bytes());
    out.extend_from_slice(&body);
    out
}

/// Reads an index: lines of words and the parts they measure.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// The next line's words, separated by single spaces.
    fn line(&mut self) -> Option<std::str::Split<'a, char>> {
        let rest = self.bytes.get(self.at..)?;
        let end = rest.iter().position(|&b| b == b'\n')?;
        let line = std::str::from_utf8(&rest[..end]).ok()?;
        self.at += end + 1;
        Some(line.split(' '))
    }

    /// The next `len` bytes, as a range of the bytes read.
    fn part(&mut self, len: usize) -> Option<Range<usize>> {
        let end = self.at.checked_add(len)?;
        (end <= self.bytes.len()).then(|| std::mem::replace(&mut self.at, end)..end)
    }

    /// The next `len` bytes, text, as a range of the bytes read.
    fn text(&mut self, len: u64) -> Option<Range<usize>> {
        let range = self.part(usize::try_from(len).ok()?)?;
        std::str::from_utf8(&self.bytes[range.clone()]).ok()?;
        Some(range)
    }
}

/// A plain decimal number: `parse` alone would also take a leading `+`.
fn number(word: &str) -> Option<u64> {
    (!word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())).then(|| word.parse().ok()).flatten()
}

/// The first `N` words of a line, as numbers.
fn numbers<'a, const N: usize>(words: &mut impl Iterator<Item = &'a str>) -> Option<[u64; N]> {
    let mut numbers = [0; N];
    for n in &mut numbers {
        *n = number(words.next()?)?;
    }
    Some(numbers)
}

/// A modification time from seconds and nanoseconds.
fn modified(secs: u64, nanos: u64) -> Option<Duration> {
    (nanos < 1_000_000_000).then(|| Some(Duration::new(secs, u32::try_from(nanos).ok()?))).flatten()
}

/// Whether `texts` (ranges of `bytes`) are all different.
fn distinct(bytes: &[u8], mut texts: Vec<&Range<usize>>) -> bool {
    texts.sort_by(|a, b| bytes[(*a).clone()].cmp(&bytes[(*b).clone()]));
    texts.windows(2).all(|w| bytes[w[0].clone()] != bytes[w[1].clone()])
}

/// The index in `index`, if it is whole, was made by `generator`, and its
/// shards and entries are well formed, distinct and name record types.
fn decode(index: Vec<u8>, generator: &str) -> Option<Previous> {
    let rest = index.strip_prefix(MAGIC)?;
    let line = rest.iter().position(|&b| b == b'\n')?;
    let body = &rest[line + 1..];
    let stored = number(std::str::from_utf8(&rest[..line]).ok()?)?;
    if stored != u64::from(crc32fast::hash(body)) {
        return None;
    }
    let mut reader = Reader { bytes: &index, at: index.len() - body.len() };
    let mut words = reader.line()?;
    let [generator_len, shard_count, count] = numbers(&mut words)?;
    if words.next().is_some() || index.get(reader.text(generator_len)?)? != generator.as_bytes() {
        return None;
    }
    let text = |range: &Range<usize>| std::str::from_utf8(&index[range.clone()]).unwrap_or_default();
    let mut shards = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for _ in 0..shard_count {
        let mut words = reader.line()?;
        let [name, len, secs, nanos] = numbers(&mut words)?;
        let name = text(&reader.text(name)?).to_owned();
        if words.next().is_some() || !crate::naming::is_record_label(&name) || !names.insert(name.clone()) {
            return None;
        }
        shards.push(Shard { name, stamp: Stamp { len, modified: modified(secs, nanos)? } });
    }
    let mut members = vec![0; shards.len()];
    let mut entries = Vec::new();
    for _ in 0..count {
        let mut words = reader.line()?;
        let [path, bytes, label, type_name, shard, start, len, crc] = numbers(&mut words)?;
        if words.next().is_some() {
            return None;
        }
        let path = reader.text(path)?;
        let bytes = reader.part(usize::try_from(bytes).ok()?)?;
        let (record_label, type_name) = (reader.text(label)?, reader.text(type_name)?);
        let shard = usize::try_from(shard).ok()?;
        *members.get_mut(shard)? += 1;
        if !crate::naming::is_record_label(text(&record_label)) || !crate::naming::is_identifier(text(&type_name)) {
            return None;
        }
        let start = usize::try_from(start).ok()?;
        let range = start..start.checked_add(usize::try_from(len).ok()?)?;
        let span = Span { shard, range, crc: u32::try_from(crc).ok()? };
        entries.push(Indexed { path, bytes, record_label, type_name, span });
    }
    let whole = reader.at == index.len()
        && distinct(&index, entries.iter().map(|e| &e.path).collect())
        && distinct(&index, entries.iter().map(|e| &e.record_label).collect());
    if !whole {
        return None;
    }
    let mut by_path: Vec<usize> = (0..entries.len()).collect();
    by_path.sort_by(|&a, &b| index[entries[a].path.clone()].cmp(&index[entries[b].path.clone()]));
    Some(Previous { index, shards, members, entries, by_path })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BYTES: &[u8] = b"{}";
    const STAMP: Stamp = Stamp { len: 40, modified: Duration::new(1_700_000_000, 5) };

    fn span() -> Span {
        Span { shard: 0, range: 3..9, crc: 77 }
    }

    fn entry<'a>(path: &'a str, record_label: &'a str, type_name: &'a str, span: &'a Span) -> Produced<'a> {
        Produced { path, bytes: BYTES, record_label, type_name, span }
    }

    fn shard(name: &str) -> Shard {
        Shard { name: name.to_owned(), stamp: STAMP }
    }

    fn encoded(generator: &str) -> Vec<u8> {
        encode(
            generator,
            &[shard("weather_reading")],
            &[entry("t/w.json", "weather_reading", "WeatherReading", &span())],
        )
    }

    #[test]
    fn an_entry_reads_back_only_under_its_own_key() {
        let index = encoded("gen 1");
        let get = |generator: &str, path: &str, bytes: &[u8]| {
            let previous = decode(index.clone(), generator)?;
            let reused = previous.get(path, bytes)?;
            Some((reused.record_label.to_owned(), reused.type_name.to_owned(), reused.span.clone()))
        };
        let expected = Some(("weather_reading".to_owned(), "WeatherReading".to_owned(), span()));
        assert_eq!(get("gen 1", "t/w.json", BYTES), expected);
        assert_eq!(get("gen 2", "t/w.json", BYTES), None, "another generator");
        assert_eq!(get("gen 1", "u/w.json", BYTES), None, "another file");
        assert_eq!(get("gen 1", "t/w.json", b"{ }"), None, "edited definition");
        let previous = decode(index, "gen 1").expect("decodes");
        assert_eq!(previous.shards(), &[shard("weather_reading")]);
        assert_eq!((previous.members(0), previous.members(1), previous.len()), (1, 0, 1));
    }

    #[test]
    fn a_damaged_index_is_ignored_whatever_the_damage() {
        let index = encoded("gen 1");
        let decodes = |index: &[u8]| decode(index.to_vec(), "gen 1").is_some();
        assert!(decodes(&index));
        for cut in 0..index.len() {
            assert!(!decodes(&index[..cut]), "truncated at {cut}");
        }
        assert!(!decodes(&[index.as_slice(), b"\n"].concat()), "trailing bytes");
        for at in 0..index.len() {
            for bit in [0x01, 0x80] {
                let mut flipped = index.clone();
                flipped[at] ^= bit;
                assert!(!decodes(&flipped), "byte {at} bit {bit:#x} flipped");
            }
        }
    }

    #[test]
    fn shards_and_entries_must_be_well_formed_and_distinct() {
        let (a, b) = (span(), Span { shard: 1, ..span() });
        let one = [shard("weather_reading")];
        let good = entry("t/a.json", "weather_reading", "WeatherReading", &a);
        assert!(decode(encode("g", &one, std::slice::from_ref(&good)), "g").is_some());
        let cases: [(&str, &[Shard], Vec<Produced<'_>>); 6] = [
            ("one path twice", &one, vec![good.clone(), entry("t/a.json", "other_reading", "OtherReading", &a)]),
            ("one label twice", &one, vec![good.clone(), entry("t/b.json", "weather_reading", "Weather2", &a)]),
            ("not a label", &one, vec![entry("t/a.json", "Weather Reading", "WeatherReading", &a)]),
            ("not an identifier", &one, vec![entry("t/a.json", "weather_reading", "Weather Reading", &a)]),
            ("no such shard", &one, vec![entry("t/a.json", "weather_reading", "WeatherReading", &b)]),
            ("one shard name twice", &[shard("weather_reading"), shard("weather_reading")], vec![good.clone()]),
        ];
        for (name, shards, entries) in cases {
            assert!(decode(encode("g", shards, &entries), "g").is_none(), "{name}");
        }
    }

    #[test]
    fn a_span_gives_its_code_only_when_its_crc_matches() {
        let shard = b"abc/// code\n}\nxyz";
        let range = 3..14;
        let span = Span { shard: 0, crc: crc32fast::hash(&shard[range.clone()]), range: range.clone() };
        assert_eq!(span.code_in(shard), Some(&shard[range.clone()]));
        assert_eq!(span.code_in(b"abc/// Code\n}\nxyz"), None, "changed");
        assert_eq!(span.code_in(&shard[..10]), None, "too short");
    }
}
