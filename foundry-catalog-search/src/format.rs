//! The bytes of an index: a fixed header, then fixed-width tables, then
//! the words and the postings. Every integer is little-endian.
//!
//! | offset | bytes | what |
//! |---|---|---|
//! | 0 | 8 | [`MAGIC`] |
//! | 8 | 4 | [`VERSION`] |
//! | 12 | 4 | documents, `D` |
//! | 16 | 4 | words, `W` |
//! | 20 | 4 | bytes of the words, `T` |
//! | 24 | 4 | bytes of the postings, `P` |
//! | 28 | 8 | the sum of the documents' lengths |
//! | 36 | 4·D | each document's length (the weights of its words) |
//! | … | 4·W | where each word ends in the words' bytes |
//! | … | 4·W | where each word's postings end in the postings' bytes |
//! | … | 4·W | how many documents have each word |
//! | … | T | the words, UTF-8, in byte order, each once |
//! | … | P | the postings |
//!
//! A word's postings are, for each document that has it in increasing
//! order, the gap from the previous document (the first from 0) and the
//! word's weighted count in that document, each a LEB128 varint.

/// What an index starts with.
pub const MAGIC: &[u8; 8] = b"FCSEARCH";

/// The layout's version; an index of another is refused.
pub const VERSION: u32 = 1;

/// The header's bytes.
pub(crate) const HEADER: usize = 36;

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
    use super::{get_varint, put_varint};

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
}
