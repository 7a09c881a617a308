//! The bytes of an index: a head, and its words split among parts by a
//! hash of each word, so that an edit of one document changes the head
//! and the parts of the words whose count in it changed, not the whole
//! index (what a replica fetches for an edit); a document added or
//! removed renumbers those after it, and changes every part. Every
//! integer is little-endian.
//!
//! The head:
//!
//! | offset | bytes | what |
//! |---|---|---|
//! | 0 | 8 | [`MAGIC`] |
//! | 8 | 4 | [`VERSION`] |
//! | 12 | 4 | documents, `D` |
//! | 16 | 4 | parts, `S` (a power of two, at most [`MAX_PARTS`]; a build gives [`parts_for`] the sum) |
//! | 20 | 8 | the sum of the documents' lengths |
//! | 28 | 4·D | each document's length (the weights of its words) |
//!
//! Part `k` holds the words whose [`part_of`] is `k`:
//!
//! | offset | bytes | what |
//! |---|---|---|
//! | 0 | 8 | [`PART_MAGIC`] |
//! | 8 | 4 | [`VERSION`] |
//! | 12 | 4 | `k` |
//! | 16 | 4 | `S` |
//! | 20 | 4 | documents, `D` (the head's) |
//! | 24 | 4 | words, `W` |
//! | 28 | 4 | bytes of the words, `T` |
//! | 32 | 4 | bytes of the postings, `P` |
//! | 36 | 4·W | where each word ends in the words' bytes |
//! | … | 4·W | where each word's postings end in the postings' bytes |
//! | … | 4·W | how many documents have each word |
//! | … | T | the words, UTF-8, in byte order, each once |
//! | … | P | the postings |
//!
//! A word's postings are, for each document that has it in increasing
//! order, the gap from the previous document (the first from 0) and the
//! word's weighted count in that document, each a LEB128 varint.

/// What an index's head starts with.
pub const MAGIC: &[u8; 8] = b"FCSEARCH";

/// What each part starts with.
pub const PART_MAGIC: &[u8; 8] = b"FCSPART1";

/// The layout's version; an index of another is refused.
pub const VERSION: u32 = 1;

/// The most parts an index is split into.
pub const MAX_PARTS: usize = 4096;

/// About how many bytes of words and postings a part holds ([`parts_for`]).
pub const PART_BYTES: usize = 64 * 1024;

/// How many parts an index whose documents' lengths add up to `total` is
/// split into: the fewest, a power of two up to [`MAX_PARTS`], that gives
/// each at most [`PART_BYTES`] of that total. A word takes about a byte
/// and a posting about two, against a length of one or more per word a
/// document has (its fields' weights), so a part holds about
/// [`PART_BYTES`] bytes. Reckoned from the head alone, so that an edit
/// of a few documents knows whether it splits the words alike without
/// reading every part ([`crate::IndexEdit`]).
pub fn parts_for(total: u64) -> usize {
    let wanted = total.div_ceil(PART_BYTES as u64).clamp(1, MAX_PARTS as u64);
    // At most MAX_PARTS, a power of two: so is the next power of two.
    (wanted as usize).next_power_of_two()
}

/// The head's bytes before the lengths.
pub(crate) const HEAD: usize = 28;

/// Where the head holds the sum of the documents' lengths (a `u64`).
pub(crate) const TOTAL_AT: usize = 20;

/// The sum of the documents' lengths in a head's `bytes` (the caller
/// checked they are at least [`HEAD`] long).
pub(crate) fn total_of(bytes: &[u8]) -> u64 {
    u64::from(u32_at(bytes, TOTAL_AT)) | (u64::from(u32_at(bytes, TOTAL_AT + 4)) << 32)
}

/// A part's header bytes.
pub(crate) const PART_HEADER: usize = 36;

/// The part of `parts` that holds `word`: FNV-1a (64 bits) of its bytes,
/// modulo `parts`. The same on every machine.
pub fn part_of(word: &str, parts: usize) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in word.as_bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (hash % parts.max(1) as u64) as usize
}

/// `value` appended as a LEB128 varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The varint at `*at` in `bytes`, moving `*at` past it; none when it is
/// cut short or longer than a `u32`.
pub(crate) fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut value: u32 = 0;
    for shift in (0..35).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        let bits = u32::from(byte & 0x7F);
        if shift == 28 && bits > 0x0F {
            return None;
        }
        value |= bits << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// The `u32` at byte `at` of `bytes` (the caller checked the length).
pub(crate) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::{get_varint, part_of, put_varint};

    #[test]
    fn varints_round_trip_and_refuse_overflow() {
        for value in [0, 1, 127, 128, 300, 16_383, 16_384, u32::MAX] {
            let mut bytes = Vec::new();
            put_varint(&mut bytes, value);
            let mut at = 0;
            assert_eq!(get_varint(&bytes, &mut at), Some(value));
            assert_eq!(at, bytes.len());
        }
        let mut at = 0;
        assert_eq!(get_varint(&[0xFF, 0xFF, 0xFF, 0xFF, 0x1F], &mut at), None);
        let mut at = 0;
        assert_eq!(get_varint(&[0x80], &mut at), None);
    }

    /// FNV-1a's published values: the part of a word is the same on
    /// every machine.
    #[test]
    fn a_words_part_is_fnv_1a_of_its_bytes() {
        assert_eq!(part_of("", usize::MAX), (0xcbf2_9ce4_8422_2325_u64 % usize::MAX as u64) as usize);
        assert_eq!(part_of("a", 1 << 16), (0xaf63_dc4c_8601_ec8c_u64 % (1 << 16)) as usize);
        assert_eq!(part_of("foobar", 1 << 16), (0x8594_4171_f739_67e8_u64 % (1 << 16)) as usize);
        assert_eq!(part_of("anything", 1), 0);
    }
}
