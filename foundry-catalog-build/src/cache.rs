//! The incremental cache: each definition's generated code, kept in a
//! folder (the build script uses `$OUT_DIR/<output>.cache`) and reused
//! while nothing it depends on has changed.
//!
//! One file per definition, named after a digest of its path. An entry
//! holds its key (the generator's identity, the runtime path, the
//! definition's path and its exact bytes) and what the definition produced
//! (record label, struct name, code). It is used only when every part of
//! the key is equal, the definition's bytes compared byte for byte, so a
//! stale entry (the definition was edited), a foreign one (another
//! generator, another runtime path, another file) or a damaged one
//! (wrong magic, lengths that do not add up to the file, text that is not
//! UTF-8, code that is not a record type's) is ignored and the definition
//! generated again, never trusted and never a panic. Entries are written
//! beside their final name and renamed over it, so one is never seen half
//! written. Cache problems never fail a build: the cache only saves work.
//!
//! The generator's identity is its crate version and cache format, plus
//! the length and modification time of the running executable: a build
//! script is relinked whenever the generator (or the hash rules it
//! compiles in) changes, even without a version bump, as with a path
//! dependency. That part never reaches the output, which stays the same
//! bytes whether it came from the cache or not.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::Digest;

/// The first line of every entry; the number is the entry format.
const MAGIC: &[u8] = b"foundry-catalog-build cache entry 2\n";

/// The file name ending of entries.
const EXTENSION: &str = "entry";

/// What one definition produced, read from the cache: the entry's text
/// (every part of an entry is UTF-8) and where the parts lie in it, so the
/// code is used where it was read, never copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    text: String,
    record_label: std::ops::Range<usize>,
    type_name: std::ops::Range<usize>,
    code: std::ops::Range<usize>,
}

impl Entry {
    fn part(&self, range: &std::ops::Range<usize>) -> &str {
        self.text.get(range.clone()).unwrap_or_default()
    }

    pub(crate) fn record_label(&self) -> &str {
        self.part(&self.record_label)
    }

    pub(crate) fn type_name(&self) -> &str {
        self.part(&self.type_name)
    }

    pub(crate) fn code(&self) -> &str {
        self.part(&self.code)
    }
}

/// An [`Entry`] to store, borrowed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EntryRef<'a> {
    pub(crate) record_label: &'a str,
    pub(crate) type_name: &'a str,
    pub(crate) code: &'a str,
}

/// A cache folder and the key parts shared by every entry.
#[derive(Debug, Clone)]
pub(crate) struct Cache {
    dir: PathBuf,
    generator: String,
}

impl Cache {
    /// The cache in `dir` for a generator whose code names the runtime
    /// `runtime`. `None` when the running executable cannot be identified
    /// (then nothing is cached).
    pub(crate) fn new(dir: &Path, runtime: &str) -> Option<Cache> {
        let exe = std::env::current_exe().and_then(fs::metadata).ok()?;
        let modified = exe.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
        let generator = format!(
            "{} {} exe {} {}.{:09} runtime {runtime}",
            env!("CARGO_PKG_NAME"),
            env!("CARGO_PKG_VERSION"),
            exe.len(),
            modified.as_secs(),
            modified.subsec_nanos()
        );
        Some(Cache { dir: dir.to_owned(), generator })
    }

    /// The entry file of the definition at `path`.
    fn entry_path(&self, path: &str) -> PathBuf {
        let digest = sha2::Sha256::digest(path.as_bytes());
        self.dir.join(format!("{}.{EXTENSION}", hex::encode(&digest[..16])))
    }

    /// The stored result for this definition, if the stored key equals its
    /// key in every part.
    pub(crate) fn get(&self, path: &str, bytes: &[u8]) -> Option<Entry> {
        let stored = fs::read(self.entry_path(path)).ok()?;
        decode(stored, &self.generator, path, bytes)
    }

    /// Stores what a definition produced; failures are ignored (the next
    /// run generates the definition again).
    pub(crate) fn put(&self, path: &str, bytes: &[u8], entry: EntryRef<'_>) {
        let _ = self.write(&self.entry_path(path), &encode(&self.generator, path, bytes, entry));
    }

    fn write(&self, path: &Path, contents: &[u8]) -> std::io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let mut temp = path.to_owned();
        temp.as_mut_os_string().push(".tmp");
        let mut file = fs::File::create(&temp)?;
        file.write_all(contents)?;
        drop(file);
        fs::rename(&temp, path)
    }

    /// Removes the entries of definitions that are gone (and any other
    /// file in the folder), so the folder never grows without bound.
    pub(crate) fn retain(&self, paths: &[&str]) {
        let keep: std::collections::BTreeSet<PathBuf> = paths.iter().map(|p| self.entry_path(p)).collect();
        let Ok(entries) = fs::read_dir(&self.dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if !keep.contains(&path) {
                let _ = fs::remove_file(path);
            }
        }
    }
}

/// The parts of an entry, in order, after the magic line and a line of
/// their lengths in decimal.
fn encode(generator: &str, path: &str, bytes: &[u8], entry: EntryRef<'_>) -> Vec<u8> {
    let parts: [&[u8]; 6] = [
        generator.as_bytes(),
        path.as_bytes(),
        bytes,
        entry.record_label.as_bytes(),
        entry.type_name.as_bytes(),
        entry.code.as_bytes(),
    ];
    let lengths: Vec<String> = parts.iter().map(|p| p.len().to_string()).collect();
    let mut out = Vec::with_capacity(MAGIC.len() + 64 + parts.iter().map(|p| p.len()).sum::<usize>());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(lengths.join(" ").as_bytes());
    out.push(b'\n');
    for part in parts {
        out.extend_from_slice(part);
    }
    out
}

/// The entry stored in `stored`, if it is well formed, its key equals
/// (`generator`, `path`, `bytes`) and its code is a record type's.
pub(crate) fn decode(stored: Vec<u8>, generator: &str, path: &str, bytes: &[u8]) -> Option<Entry> {
    let text = String::from_utf8(stored).ok()?;
    let rest = text.strip_prefix(std::str::from_utf8(MAGIC).ok()?)?;
    let (lengths, body) = rest.split_once('\n')?;
    let mut start = text.len() - body.len();
    let mut parts: Vec<std::ops::Range<usize>> = Vec::with_capacity(6);
    for length in lengths.split(' ') {
        let end = start.checked_add(length.parse::<usize>().ok()?)?;
        // `get` also rejects a range that cuts a character in two.
        text.get(start..end)?;
        parts.push(start..end);
        start = end;
    }
    let [stored_generator, stored_path, stored_bytes, record_label, type_name, code] =
        <[_; 6]>::try_from(parts).ok()?;
    let part = |range: &std::ops::Range<usize>| text.get(range.clone()).unwrap_or_default();
    if start != text.len()
        || part(&stored_generator) != generator
        || part(&stored_path) != path
        || part(&stored_bytes).as_bytes() != bytes
    {
        return None;
    }
    let entry = Entry { text, record_label, type_name, code };
    let (label, code) = (entry.record_label(), entry.code());
    let looks_generated = crate::naming::is_record_label(label)
        && crate::naming::is_identifier(entry.type_name())
        && code.strip_prefix("/// Record type `").and_then(|c| c.strip_prefix(label)).is_some()
        && code.ends_with("}\n");
    looks_generated.then_some(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODE: &str = "/// Record type `weather_reading`.\npub struct WeatherReading {}\n";

    fn encoded(generator: &str, code: &str) -> Vec<u8> {
        let entry = EntryRef { record_label: "weather_reading", type_name: "WeatherReading", code };
        encode(generator, "t/weather_reading.json", b"{}", entry)
    }

    fn read(stored: &[u8], generator: &str, path: &str, bytes: &[u8]) -> Option<(String, String, String)> {
        decode(stored.to_vec(), generator, path, bytes)
            .map(|e| (e.record_label().to_owned(), e.type_name().to_owned(), e.code().to_owned()))
    }

    #[test]
    fn an_entry_reads_back_only_under_its_own_key() {
        let stored = encoded("gen 1", CODE);
        let expected = Some(("weather_reading".to_owned(), "WeatherReading".to_owned(), CODE.to_owned()));
        assert_eq!(read(&stored, "gen 1", "t/weather_reading.json", b"{}"), expected);
        assert_eq!(read(&stored, "gen 2", "t/weather_reading.json", b"{}"), None, "another generator");
        assert_eq!(read(&stored, "gen 1", "u/weather_reading.json", b"{}"), None, "another file");
        assert_eq!(read(&stored, "gen 1", "t/weather_reading.json", b"{ }"), None, "edited definition");
    }

    #[test]
    fn a_damaged_entry_is_ignored_whatever_the_damage() {
        let stored = encoded("gen 1", CODE);
        let read = |bytes: &[u8]| read(bytes, "gen 1", "t/weather_reading.json", b"{}");
        for cut in 0..stored.len() {
            assert_eq!(read(&stored[..cut]), None, "truncated at {cut}");
        }
        let mut longer = stored.clone();
        longer.push(b'\n');
        assert_eq!(read(&longer), None, "trailing bytes");
        for at in 0..stored.len() {
            let mut flipped = stored.clone();
            flipped[at] ^= 0x80;
            // The entry is ASCII here, so a flipped high bit anywhere
            // (magic, lengths, key, names, code) leaves text that is not UTF-8.
            assert_eq!(read(&flipped), None, "byte {at} flipped");
        }
        assert_eq!(read(&encoded("gen 1", "fn main() {}\n")), None, "code that is not a record type's");
    }
}
