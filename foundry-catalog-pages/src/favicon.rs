//! The site's icon at [`PATH`], linked from every page's head: a 32×32
//! ICO (the format every browser and crawler asks `/favicon.ico` for),
//! drawn here, so the same crate version writes the same bytes.
//!
//! The image is a list on the links' blue (`#0b57d0`): a rounded square
//! with three white bars. Its pixels are stored uncompressed (32-bit BGRA,
//! a BMP without its file header, as ICO holds it), with alpha, so the
//! AND mask is all zero.

/// Where the icon is served and written.
pub const PATH: &str = "/favicon.ico";

/// The icon's side, in pixels.
pub(crate) const SIDE: usize = 32;

/// The square's corner radius, in pixels.
const RADIUS: usize = 6;

/// The square's colour as blue, green, red, alpha (`#0b57d0`).
const BLUE: [u8; 4] = [0xd0, 0x57, 0x0b, 0xff];

/// The bars' colour.
const WHITE: [u8; 4] = [0xff, 0xff, 0xff, 0xff];

/// The rows (from the top) and columns each white bar covers.
const BARS: [(std::ops::Range<usize>, std::ops::Range<usize>); 3] = [(8..12, 8..24), (14..18, 8..24), (20..24, 8..20)];

/// What of the mark, drawn `scale` times the icon's size, is at column
/// `x`, row `y` from its top left: the icon draws it at 1, and the picture
/// shared links show ([`crate::share_image`]) at 10.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// Past the square or outside one of its rounded corners.
    Outside,
    /// The rounded square.
    Square,
    /// One of its three bars.
    Bar,
}

/// [`Mark`] at column `x`, row `y` of the mark drawn at `scale`.
pub(crate) fn mark(x: usize, y: usize, scale: usize) -> Mark {
    let (side, radius) = (SIDE * scale, RADIUS * scale);
    if x >= side || y >= side {
        return Mark::Outside;
    }
    let scaled = |range: &std::ops::Range<usize>| range.start * scale..range.end * scale;
    if BARS.iter().any(|(rows, columns)| scaled(rows).contains(&y) && scaled(columns).contains(&x)) {
        return Mark::Bar;
    }
    // Outside a corner's quarter circle.
    let far = side - 1 - radius;
    let (dx, dy) =
        (x.saturating_sub(far).max(radius.saturating_sub(x)), y.saturating_sub(far).max(radius.saturating_sub(y)));
    if dx * dx + dy * dy > radius * radius { Mark::Outside } else { Mark::Square }
}

/// The colour of the pixel at column `x`, row `y` from the top:
/// transparent outside the square.
fn pixel(x: usize, y: usize) -> [u8; 4] {
    match mark(x, y, 1) {
        Mark::Outside => [0; 4],
        Mark::Square => BLUE,
        Mark::Bar => WHITE,
    }
}

/// The ICO file's bytes.
pub fn ico() -> Vec<u8> {
    const DIR: usize = 6;
    const ENTRY: usize = 16;
    const INFO: usize = 40;
    let pixels = SIDE * SIDE * 4;
    // One bit a pixel, each row padded to 32 bits.
    let mask = SIDE.div_ceil(32) * 4 * SIDE;
    let image = INFO + pixels + mask;
    let mut out = Vec::with_capacity(DIR + ENTRY + image);
    let u16le = |out: &mut Vec<u8>, n: u16| out.extend_from_slice(&n.to_le_bytes());
    let u32le = |out: &mut Vec<u8>, n: u32| out.extend_from_slice(&n.to_le_bytes());
    let side = u8::try_from(SIDE).unwrap_or(0);
    let (image_len, offset) = (u32::try_from(image).unwrap_or(0), u32::try_from(DIR + ENTRY).unwrap_or(0));
    // ICONDIR: reserved, type 1 (icon), one image.
    for n in [0, 1, 1] {
        u16le(&mut out, n);
    }
    // ICONDIRENTRY: width, height, no palette, reserved, 1 plane, 32 bits a pixel.
    out.extend_from_slice(&[side, side, 0, 0]);
    u16le(&mut out, 1);
    u16le(&mut out, 32);
    u32le(&mut out, image_len);
    u32le(&mut out, offset);
    // BITMAPINFOHEADER: the height counts the image and its mask.
    u32le(&mut out, INFO as u32);
    u32le(&mut out, SIDE as u32);
    u32le(&mut out, 2 * SIDE as u32);
    u16le(&mut out, 1);
    u16le(&mut out, 32);
    u32le(&mut out, 0); // no compression
    u32le(&mut out, (pixels + mask) as u32);
    for _ in 0..4 {
        u32le(&mut out, 0); // resolution and palette: none
    }
    // Rows from the bottom up, as a BMP stores them.
    for y in (0..SIDE).rev() {
        for x in 0..SIDE {
            out.extend_from_slice(&pixel(x, y));
        }
    }
    out.resize(out.len() + mask, 0);
    out
}

#[cfg(test)]
mod tests {
    /// The file is the ICO its header says: one 32×32 image of 32 bits a
    /// pixel at the offset named, as long as named, its corners clear and
    /// its middle the square's colour.
    #[test]
    fn the_icon_is_one_32_pixel_image_as_its_header_says() {
        let ico = super::ico();
        let u16at = |at: usize| u16::from_le_bytes([ico[at], ico[at + 1]]);
        let u32at = |at: usize| u32::from_le_bytes([ico[at], ico[at + 1], ico[at + 2], ico[at + 3]]);
        assert_eq!((u16at(0), u16at(2), u16at(4)), (0, 1, 1));
        assert_eq!((ico[6], ico[7]), (32, 32));
        assert_eq!(u16at(12), 32, "bits a pixel");
        let (len, offset) = (u32at(14) as usize, u32at(18) as usize);
        assert_eq!(offset + len, ico.len());
        assert_eq!((u32at(offset), u32at(offset + 4), u32at(offset + 8)), (40, 32, 64));
        let pixel = |x: usize, y: usize| {
            let at = offset + 40 + ((31 - y) * 32 + x) * 4;
            [ico[at], ico[at + 1], ico[at + 2], ico[at + 3]]
        };
        for (x, y) in [(0, 0), (31, 0), (0, 31), (31, 31)] {
            assert_eq!(pixel(x, y)[3], 0, "corner {x},{y} is clear");
        }
        assert_eq!(pixel(16, 2), super::BLUE);
        assert_eq!(pixel(16, 9), super::WHITE);
        assert_eq!(super::ico(), ico, "the same bytes every time");
    }
}
