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
const MAGIC: &[u8] = b"foundry-catalog-build cache entry 1\n";

/// The file name ending of entries.
const EXTENSION: &str = "entry";

/// What one definition produced, as stored in and read from the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) record_label: String,
    pub(crate) type_name: String,
    pub(crate) code: String,
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
        decode(&stored, &self.generator, path, bytes)
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
pub(crate) fn decode(stored: &[u8], generator: &str, path: &str, bytes: &[u8]) -> Option<Entry> {
    let rest = stored.strip_prefix(MAGIC)?;
    let newline = rest.iter().position(|&b| b == b'\n')?;
    let lengths = std::str::from_utf8(&rest[..newline]).ok()?;
    let mut body = &rest[newline + 1..];
    let mut parts: Vec<&[u8]> = Vec::with_capacity(6);
    for length in lengths.split(' ') {
        let length: usize = length.parse().ok()?;
        let (part, tail) = body.split_at_checked(length)?;
        parts.push(part);
        body = tail;
    }
    let [stored_generator, stored_path, stored_bytes, label, type_name, code] = parts[..] else {
        return None;
    };
    if !body.is_empty()
        || stored_generator != generator.as_bytes()
        || stored_path != path.as_bytes()
        || stored_bytes != bytes
    {
        return None;
    }
    let entry = Entry {
        record_label: String::from_utf8(label.to_vec()).ok()?,
        type_name: String::from_utf8(type_name.to_vec()).ok()?,
        code: String::from_utf8(code.to_vec()).ok()?,
    };
    let looks_generated = crate::naming::is_record_label(&entry.record_label)
        && crate::naming::is_identifier(&entry.type_name)
        && entry
            .code
            .strip_prefix("/// Record type `")
            .and_then(|c| c.strip_prefix(entry.record_label.as_str()))
            .is_some()
        && entry.code.ends_with("}\n");
    looks_generated.then_some(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(generator: &str, entry: &Entry) -> Vec<u8> {
        let entry = EntryRef { record_label: &entry.record_label, type_name: &entry.type_name, code: &entry.code };
        encode(generator, "t/weather_reading.json", b"{}", entry)
    }

    fn entry() -> Entry {
        Entry {
            record_label: "weather_reading".to_owned(),
            type_name: "WeatherReading".to_owned(),
            code: "/// Record type `weather_reading`.\npub struct WeatherReading {}\n".to_owned(),
        }
    }

    #[test]
    fn an_entry_reads_back_only_under_its_own_key() {
        let stored = encoded("gen 1", &entry());
        assert_eq!(decode(&stored, "gen 1", "t/weather_reading.json", b"{}"), Some(entry()));
        assert_eq!(decode(&stored, "gen 2", "t/weather_reading.json", b"{}"), None, "another generator");
        assert_eq!(decode(&stored, "gen 1", "u/weather_reading.json", b"{}"), None, "another file");
        assert_eq!(decode(&stored, "gen 1", "t/weather_reading.json", b"{ }"), None, "edited definition");
    }

    #[test]
    fn a_damaged_entry_is_ignored_whatever_the_damage() {
        let stored = encoded("gen 1", &entry());
        let read = |bytes: &[u8]| decode(bytes, "gen 1", "t/weather_reading.json", b"{}");
        for cut in 0..stored.len() {
            assert_eq!(read(&stored[..cut]), None, "truncated at {cut}");
        }
        let mut longer = stored.clone();
        longer.push(b'\n');
        assert_eq!(read(&longer), None, "trailing bytes");
        for at in 0..stored.len() {
            let mut flipped = stored.clone();
            flipped[at] ^= 0x80;
            // A flipped byte in the key, a length, the magic line, a name
            // or the code's shape is caught; inside the code it would have
            // to keep the text UTF-8, which a flipped high bit never does.
            assert_eq!(read(&flipped), None, "byte {at} flipped");
        }
        let foreign = encoded("gen 1", &Entry { code: "fn main() {}\n".to_owned(), ..entry() });
        assert_eq!(read(&foreign), None, "code that is not a record type's");
    }
}
