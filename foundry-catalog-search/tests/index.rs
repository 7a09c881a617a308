//! The index against a second judge: a scan of the documents themselves,
//! scoring BM25 by the textbook formula, must find and rank what the
//! index finds and ranks; and no bytes, however broken, make the index
//! panic or allocate past them.

use foundry_catalog_search::{Index, IndexBuilder, MAX_QUERY_WORDS, words};
use proptest::prelude::*;

/// A document as the scan sees it: its fields as (weight, text).
type Doc = Vec<(u32, String)>;

/// The BM25 ranking of `query` over `docs` by scanning every document:
/// each word's weighted count and each document's length counted again
/// from the text, idf and the average from the whole collection.
fn scan(docs: &[Doc], query: &str) -> Vec<(u32, f64)> {
    let mut asked = words(query);
    asked.sort();
    asked.dedup();
    asked.truncate(MAX_QUERY_WORDS);
    if asked.is_empty() {
        return Vec::new();
    }
    let counted: Vec<(Vec<(String, u32)>, f64)> = docs
        .iter()
        .map(|doc| {
            let pairs: Vec<(String, u32)> =
                doc.iter().flat_map(|(weight, text)| words(text).into_iter().map(move |w| (w, *weight))).collect();
            let length = pairs.iter().map(|(_, weight)| f64::from(*weight)).sum();
            (pairs, length)
        })
        .collect();
    let n = docs.len() as f64;
    let total: f64 = counted.iter().map(|(_, length)| length).sum();
    let average = if total == 0.0 { 1.0 } else { total / n };
    let count = |pairs: &[(String, u32)], word: &str| -> f64 {
        pairs.iter().filter(|(w, _)| w == word).map(|(_, weight)| f64::from(*weight)).sum()
    };
    let mut ranked = Vec::new();
    for (d, (pairs, length)) in counted.iter().enumerate() {
        if asked.iter().any(|word| count(pairs, word) == 0.0) {
            continue;
        }
        let mut score = 0.0;
        for word in &asked {
            let df = counted.iter().filter(|(p, _)| count(p, word) > 0.0).count() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            let tf = count(pairs, word);
            score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average));
        }
        ranked.push((d as u32, score));
    }
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked
}

fn build(docs: &[Doc]) -> Vec<u8> {
    let mut builder = IndexBuilder::new();
    for doc in docs {
        let fields: Vec<(u32, &str)> = doc.iter().map(|(weight, text)| (*weight, text.as_str())).collect();
        builder.add(&fields);
    }
    builder.finish()
}

/// Text from a small vocabulary, so that words repeat across documents;
/// with case, punctuation and a script written without spaces.
fn text() -> impl Strategy<Value = String> {
    let word =
        prop::sample::select(vec!["alpha", "Beta", "gamma", "DELTA", "eps", "数据", "处理", "42", "fan-out", "ünï"]);
    prop::collection::vec(word, 0..8).prop_map(|words| words.join(" "))
}

fn doc() -> impl Strategy<Value = Doc> {
    prop::collection::vec((0u32..4, text()), 0..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_index_finds_and_ranks_what_a_scan_does(
        docs in prop::collection::vec(doc(), 1..30),
        query in text(),
        skip in 0usize..5,
        limit in 1usize..10,
    ) {
        let index = Index::open(build(&docs)).unwrap();
        let expected = scan(&docs, &query);
        let found = index.search(&query, skip, limit).unwrap();
        prop_assert_eq!(found.total, expected.len());
        let got: Vec<u32> = found.hits.iter().map(|hit| hit.doc).collect();
        let want: Vec<u32> = expected.iter().skip(skip).take(limit).map(|(doc, _)| *doc).collect();
        prop_assert_eq!(got, want);
        for (hit, (_, score)) in found.hits.iter().zip(expected.iter().skip(skip)) {
            prop_assert!((hit.score - score).abs() < 1e-9, "{} against {}", hit.score, score);
        }
    }

    #[test]
    fn broken_bytes_are_refused_or_answered_never_a_panic(
        docs in prop::collection::vec(doc(), 1..10),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        query in text(),
    ) {
        let bytes = build(&docs);
        let mut broken = bytes.clone();
        for (at, value) in flips {
            let at = at.index(broken.len());
            broken[at] = value;
        }
        if let Ok(index) = Index::open(&broken[..]) {
            let _ = index.search(&query, 0, 10);
        }
        let short = &bytes[..cut.index(bytes.len())];
        prop_assert!(Index::open(short).is_err());
    }
}

#[test]
fn the_same_documents_give_the_same_bytes() {
    let docs: Vec<Doc> = (0..200)
        .map(|i| vec![(3, format!("title {i} alpha")), (1, format!("summary {} beta gamma {i}", i % 7))])
        .collect();
    // Each builder's word map has its own random hash order.
    let first = build(&docs);
    for _ in 0..5 {
        assert_eq!(build(&docs), first);
    }
}

#[test]
fn a_title_word_outranks_a_summary_word_and_every_word_must_match() {
    let docs: Vec<Doc> = vec![
        vec![(3, "CRM export".into()), (1, "A webhook, daily".into())],
        vec![(3, "Webhook connector".into()), (1, "Sends CRM events".into())],
        vec![(3, "EU signals".into()), (1, "Daily market signals".into())],
    ];
    let index = Index::open(build(&docs)).unwrap();
    let ranked = |query: &str| -> Vec<u32> { index.search(query, 0, 10).unwrap().hits.iter().map(|h| h.doc).collect() };
    assert_eq!(ranked("webhook"), [1, 0]);
    // Each has one word in its title and one in its summary: a tie, in
    // document order.
    assert_eq!(ranked("WEBHOOK crm"), [0, 1]);
    assert_eq!(ranked("webhook signals"), Vec::<u32>::new());
    assert_eq!(ranked("unknown"), Vec::<u32>::new());
    assert_eq!(ranked("  ,, "), Vec::<u32>::new());
    assert_eq!(index.search("daily", 1, 10).unwrap().hits.len(), 1);
    assert_eq!(index.search("daily", 5, 10).unwrap(), foundry_catalog_search::Found { total: 2, hits: vec![] });
}

#[test]
fn an_index_of_another_version_or_none_is_refused() {
    let mut bytes = build(&[vec![(1, "alpha".into())]]);
    assert!(Index::open(&bytes[..]).is_ok());
    bytes[8] = 2;
    assert!(Index::open(&bytes[..]).unwrap_err().to_string().contains("version"));
    assert!(Index::open(&b"not an index at all, but long enough"[..]).is_err());
    let empty = Index::open(IndexBuilder::new().finish()).unwrap();
    assert_eq!((empty.docs(), empty.search("alpha", 0, 10).unwrap().total), (0, 0));
}

/// Postings that name a document twice, or one past the last, are
/// refused when a query reads them, not counted twice or read past.
#[test]
fn postings_out_of_order_or_out_of_range_are_refused() {
    let bytes = build(&[vec![(1, "alpha".into())], vec![(1, "alpha".into())]]);
    // The postings are last: gap 0, count 1, gap 1, count 1.
    assert_eq!(&bytes[bytes.len() - 4..], [0, 1, 1, 1]);
    let index = Index::open(&bytes[..]).unwrap();
    assert_eq!(index.search("alpha", 0, 10).unwrap().total, 2);
    for (at, value) in [(2, 0), (2, 2), (4, 1)] {
        let mut broken = bytes.clone();
        let at = broken.len() - at;
        broken[at] = value;
        let index = Index::open(&broken[..]).unwrap();
        assert!(index.search("alpha", 0, 10).is_err(), "byte {at} = {value}");
    }
}
