//! Arbitrary bytes as a route page's kept cards (`cards/<route>/…` in an
//! artifact, read by every build on it and by a server's search page),
//! with the form's first line or without (then read as JSON, as an
//! earlier build wrote them) → never a panic, never an allocation past
//! the bytes given; what reads writes back and reads again as the same
//! cards, in path order.
#![no_main]

use foundry_catalog_pages::cards::MAGIC;
use foundry_catalog_pages::list::Card;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let framed = [MAGIC, data].concat();
    for bytes in [data, &framed[..]] {
        if let Ok(cards) = Card::decode_all(bytes) {
            let mut sorted = cards.clone();
            sorted.sort_by(|a, b| a.path.cmp(&b.path));
            let again = Card::decode_all(&Card::encode_all(&cards)).expect("what it wrote reads");
            assert_eq!(again, sorted);
        }
    }
});
