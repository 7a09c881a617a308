//! The picture a shared link shows (`og:image`): one per site, at
//! [`PATH`], a 1200×630 PNG (the size Open Graph and X's large cards ask
//! for), drawn here like the icon ([`crate::favicon`]), so the same crate
//! version writes the same bytes.
//!
//! It is the icon's mark, inverted and large: a white rounded square with
//! three bars of the links' blue (`#0b57d0`), on that blue. RGB, 8 bits a
//! channel, no interlacing; every row is filtered "none" and the image is
//! deflated by zlib at its best level (4.6 kB: the rows repeat).

use std::io::Write;

/// Where the image is served and written.
pub const PATH: &str = "/og-image.png";

/// Its width and height, in pixels.
pub const WIDTH: usize = 1200;
/// See [`WIDTH`].
pub const HEIGHT: usize = 630;

/// How many times the icon's size the mark is drawn.
const SCALE: usize = 10;
/// The mark's side, and where it starts (centred), in pixels.
const MARK: usize = crate::favicon::SIDE * SCALE;
const LEFT: usize = (WIDTH - MARK) / 2;
const TOP: usize = (HEIGHT - MARK) / 2;

const BLUE: [u8; 3] = [0x0b, 0x57, 0xd0];
const WHITE: [u8; 3] = [0xff, 0xff, 0xff];

/// The colour of the pixel at column `x`, row `y` from the top: the
/// icon's mark ([`crate::favicon`]) with its colours swapped, on blue.
fn pixel(x: usize, y: usize) -> [u8; 3] {
    let (Some(mx), Some(my)) = (x.checked_sub(LEFT), y.checked_sub(TOP)) else { return BLUE };
    match crate::favicon::mark(mx, my, SCALE) {
        crate::favicon::Mark::Square => WHITE,
        crate::favicon::Mark::Outside | crate::favicon::Mark::Bar => BLUE,
    }
}

/// The PNG file's bytes.
pub fn png() -> Vec<u8> {
    let mut raw = Vec::with_capacity(HEIGHT * (1 + WIDTH * 3));
    for y in 0..HEIGHT {
        raw.push(0); // filter: none
        for x in 0..WIDTH {
            raw.extend_from_slice(&pixel(x, y));
        }
    }
    let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let idat = zlib.write_all(&raw).and_then(|()| zlib.finish()).unwrap_or_default();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(WIDTH as u32).to_be_bytes());
    ihdr.extend_from_slice(&(HEIGHT as u32).to_be_bytes());
    // 8 bits a channel, colour type 2 (RGB), deflate, adaptive filtering, no interlace.
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(b"IHDR", ihdr.as_slice()), (b"IDAT", idat.as_slice()), (b"IEND", &[][..])] {
        out.extend_from_slice(&u32::try_from(data.len()).unwrap_or(u32::MAX).to_be_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.extend_from_slice(&crc.finalize().to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    /// The file is the PNG its chunks say, each chunk's CRC right, and
    /// its pixels inflate to the drawing: the blue ground, the white
    /// mark, a blue bar on it.
    #[test]
    fn the_image_is_a_1200_by_630_png_of_the_mark() {
        let png = super::png();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let mut at = 8;
        let mut chunks = Vec::new();
        while at < png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            let (kind, data) = (&png[at + 4..at + 8], &png[at + 8..at + 8 + len]);
            let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
            assert_eq!(crc, crc32fast::hash(&[kind, data].concat()), "{:?}'s CRC", std::str::from_utf8(kind));
            chunks.push((kind.to_vec(), data.to_vec()));
            at += 12 + len;
        }
        let kinds: Vec<&[u8]> = chunks.iter().map(|(kind, _)| kind.as_slice()).collect();
        assert_eq!(kinds, [&b"IHDR"[..], b"IDAT", b"IEND"]);
        assert_eq!(chunks[0].1, [0, 0, 4, 176, 0, 0, 2, 118, 8, 2, 0, 0, 0], "1200 × 630, RGB, 8 bits");
        let mut raw = Vec::new();
        flate2::read::ZlibDecoder::new(chunks[1].1.as_slice()).read_to_end(&mut raw).unwrap();
        assert_eq!(raw.len(), 630 * (1 + 1200 * 3));
        let pixel = |x: usize, y: usize| {
            let at = y * (1 + 1200 * 3) + 1 + x * 3;
            [raw[at], raw[at + 1], raw[at + 2]]
        };
        assert_eq!(pixel(0, 0), super::BLUE);
        assert_eq!(pixel(600, 170), super::WHITE, "the mark");
        assert_eq!(pixel(600, 255), super::BLUE, "its first bar");
        assert_eq!(pixel(442, 157), super::BLUE, "outside its rounded corner");
        assert!(png.len() < 16 * 1024, "{} bytes", png.len());
        assert_eq!(super::png(), png, "the same bytes every time");
    }
}
