//! The index against a second judge: a scan of the documents themselves,
//! scoring BM25 by the textbook formula, must find and rank what the
//! index finds and ranks; and no bytes, however broken, make the index
//! panic or allocate past them.

use foundry_catalog_search::format::PART_BYTES;
use foundry_catalog_search::{Built, Index, IndexBuilder, IndexEdit, Part, query_words, words};
use proptest::prelude::*;

/// A document as the scan sees it: its fields as (weight, text).
type Doc = Vec<(u32, String)>;

/// The BM25 ranking of `query` over `docs` by scanning every document:
/// each word's weighted count and each document's length counted again
/// from the text, idf and the average from the whole collection.
fn scan(docs: &[Doc], query: &str) -> Vec<(u32, f64)> {
    let asked = query_words(query);
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

fn build(docs: &[Doc]) -> Built {
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
    let word = prop::sample::select(vec![
        "alpha", "Beta", "gamma", "DELTA", "eps", "数据", "处理", "42", "fan-out", "ünï", "zeta", "eta", "theta",
        "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron",
    ]);
    prop::collection::vec(word, 0..8).prop_map(|words| words.join(" "))
}

/// A query: up to 24 of the text's words, so that some pass the 16 that count.
fn long_query() -> impl Strategy<Value = String> {
    prop::collection::vec(text(), 1..4).prop_map(|texts| texts.join(" "))
}

fn doc() -> impl Strategy<Value = Doc> {
    prop::collection::vec((0u32..4, text()), 0..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_index_finds_and_ranks_what_a_scan_does(
        docs in prop::collection::vec(doc(), 1..30),
        query in long_query(),
        skip in 0usize..5,
        limit in 1usize..10,
    ) {
        let built = build(&docs);
        let index = built.open().unwrap();
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

    /// Documents added to several builders in turn, the builders then
    /// appended in order, give one builder's bytes: what lets a caller
    /// index on several threads.
    #[test]
    fn builders_appended_in_order_give_one_builders_bytes(
        docs in prop::collection::vec(doc(), 0..30),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(docs.len() + 1)).collect();
        cuts.sort_unstable();
        let mut joined = IndexBuilder::new();
        let mut from = 0;
        for to in cuts.into_iter().chain([docs.len()]) {
            let mut run = IndexBuilder::new();
            for doc in &docs[from..to] {
                let fields: Vec<(u32, &str)> = doc.iter().map(|(weight, text)| (*weight, text.as_str())).collect();
                run.add(&fields);
            }
            joined.append(run);
            from = to;
        }
        prop_assert_eq!(joined.len(), docs.len());
        prop_assert_eq!(joined.finish(), build(&docs));
    }

    /// Documents changed in an index's bytes give the bytes of the index
    /// built from the changed documents: its head, each part it made
    /// again, and every other part as it was.
    #[test]
    fn an_index_edited_is_the_index_built_from_the_edited_documents(
        docs in prop::collection::vec(doc(), 1..30),
        changes in prop::collection::vec((any::<prop::sample::Index>(), doc()), 0..6),
    ) {
        let before = build(&docs);
        let mut edited = docs.clone();
        let mut edit = IndexEdit::new();
        for (at, now) in &changes {
            let at = at.index(docs.len());
            edit.change(at as u32, &fields(&docs[at]), &fields(now));
            edited[at] = now.clone();
        }
        let after = build(&edited);
        let made = edit.apply(&before.head, |k| Ok(&before.parts[k])).unwrap();
        prop_assert_eq!(&made.head, &after.head);
        prop_assert_eq!(before.parts.len(), after.parts.len());
        for (k, part) in after.parts.iter().enumerate() {
            prop_assert_eq!(made.parts.get(&k).unwrap_or(&before.parts[k]), part, "part {}", k);
        }
    }

    #[test]
    fn broken_bytes_are_refused_or_answered_never_a_panic(
        docs in prop::collection::vec(doc(), 1..10),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        query in text(),
        in_head in any::<bool>(),
    ) {
        let built = build(&docs);
        let mut broken = built.clone();
        // The head, or the part of the query's first word (the one a
        // query reads).
        let k = words(&query).first().map_or(0, |word| Index::open(&built.head[..]).unwrap().part_of(word));
        let target = if in_head { &mut broken.head } else { &mut broken.parts[k] };
        for (at, value) in flips {
            let at = at.index(target.len());
            target[at] = value;
        }
        if let Ok(index) = Index::open(&broken.head[..]) {
            let parts: Vec<_> = broken.parts.iter().enumerate().map(|(k, p)| Part::open(&p[..], &index, k)).collect();
            let _ = index.search(&query, 0, 10, |k| parts.get(k).and_then(|p| p.as_ref().ok()).ok_or(foundry_catalog_search::IndexError::new("refused")));
        }
        let short = &built.head[..cut.index(built.head.len())];
        prop_assert!(Index::open(short).is_err());
        let index = Index::open(&built.head[..]).unwrap();
        let short = &built.parts[0][..cut.index(built.parts[0].len())];
        prop_assert!(Part::open(short, &index, 0).is_err());
    }
}

/// The words that count are the first 16 distinct ones as typed: a
/// 17th is left out whatever it sorts as.
#[test]
fn the_first_sixteen_distinct_words_count_as_typed() {
    let typed: Vec<String> = (0..20).map(|n| format!("w{:02}", 19 - n)).collect();
    let query = format!("{} {}", typed[0], typed.join(" "));
    assert_eq!(query_words(&query), typed[..16]);
    let docs: Vec<Doc> = vec![vec![(1, typed[..16].join(" "))], vec![(1, typed[4..].join(" "))]];
    // Document 0 has the 16 that count (w19 … w04), not w03 … w00.
    let built = build(&docs);
    let found = built.open().unwrap().search(&query, 0, 10).unwrap();
    assert_eq!(found.hits.iter().map(|hit| hit.doc).collect::<Vec<_>>(), [0]);
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
    let built = build(&docs);
    let index = built.open().unwrap();
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
    let mut built = build(&[vec![(1, "alpha".into())]]);
    assert!(built.open().is_ok());
    built.head[8] = 2;
    assert!(built.open().unwrap_err().to_string().contains("version"));
    assert!(Index::open(&b"not an index at all, but long enough"[..]).is_err());
    let empty = IndexBuilder::new().finish();
    let opened = empty.open().unwrap();
    assert_eq!((opened.index.docs(), opened.search("alpha", 0, 10).unwrap().total), (0, 0));
}

/// A part is refused where another is asked for, or in another index.
#[test]
fn a_part_is_only_its_own_index_and_number() {
    let docs: Vec<Doc> = (0..40_000).map(|i| vec![(1, format!("word{i} shared"))]).collect();
    let built = build(&docs);
    assert!(built.parts.len() > 1, "{} parts", built.parts.len());
    let index = Index::open(&built.head[..]).unwrap();
    assert!(Part::open(&built.parts[1][..], &index, 0).is_err());
    let other = build(&docs[..10]);
    let other_index = Index::open(&other.head[..]).unwrap();
    assert!(Part::open(&built.parts[0][..], &other_index, 0).is_err());
}

/// An edit of one document's words changes the head and the parts of
/// the words it added or removed, not the others: what a replica fetches
/// for an edit.
#[test]
fn an_edit_changes_the_head_and_its_words_parts_only() {
    let docs: Vec<Doc> =
        (0..20_000).map(|i| vec![(3, format!("title {i}")), (1, format!("summary word{} common", i % 500))]).collect();
    let before = build(&docs);
    let mut edited = docs.clone();
    edited[7][0].1 = "title 7 renamed".to_owned();
    let after = build(&edited);
    assert_eq!(after.parts.len(), before.parts.len());
    assert!(before.parts.len() >= 4, "{} parts", before.parts.len());
    let changed: Vec<usize> = (0..after.parts.len()).filter(|&k| after.parts[k] != before.parts[k]).collect();
    let index = Index::open(&after.head[..]).unwrap();
    // "renamed" is new; "title" and "7" keep their counts in doc 7.
    assert_eq!(changed, [index.part_of("renamed")]);
    assert_ne!(after.head, before.head);
}

/// An edit over many parts gives the bytes a build gives, reading only
/// the parts of the words it changes; an edit that would split the words
/// into another number of parts, or whose documents were not as the
/// index holds them, is refused (the caller builds the index again).
#[test]
fn an_edit_reads_only_its_words_parts_and_refuses_what_it_cannot_make() {
    let docs: Vec<Doc> =
        (0..20_000).map(|i| vec![(3, format!("title {i}")), (1, format!("summary word{} common", i % 500))]).collect();
    let before = build(&docs);
    assert!(before.parts.len() >= 4, "{} parts", before.parts.len());
    let mut edited = docs.clone();
    let mut edit = IndexEdit::new();
    for (at, title) in [(7, "title 7 renamed"), (19_999, "title"), (8, "title 8 renamed word499")] {
        edit.change(at as u32, &fields(&docs[at]), &fields(&vec![(3, title.to_owned()), docs[at][1].clone()]));
        edited[at][0].1 = title.to_owned();
    }
    let after = build(&edited);
    let mut asked = Vec::new();
    let made = edit
        .apply(&before.head, |k| {
            asked.push(k);
            Ok(&before.parts[k])
        })
        .unwrap();
    assert_eq!(made.head, after.head);
    let changed: Vec<usize> = (0..after.parts.len()).filter(|&k| after.parts[k] != before.parts[k]).collect();
    assert_eq!(made.parts.keys().copied().collect::<Vec<_>>(), changed);
    assert_eq!(asked, changed);
    for (k, part) in &made.parts {
        assert_eq!(part, &after.parts[*k], "part {k}");
    }
    // A document whose fields were not these: its length, or a word's count.
    let mut wrong = IndexEdit::new();
    wrong.change(7, &[(3, "title 7 extra")], &[(3, "title 7")]);
    assert!(wrong.apply(&before.head, |k| Ok(&before.parts[k])).is_err());
    let mut wrong = IndexEdit::new();
    wrong.change(7, &[(3, "other words"), (1, "summary word7 common")], &[(3, "title 7")]);
    assert!(wrong.apply(&before.head, |k| Ok(&before.parts[k])).is_err());
    let mut past = IndexEdit::new();
    past.change(20_000, &[], &[(3, "title")]);
    assert!(past.apply(&before.head, |k| Ok(&before.parts[k])).is_err());
    // The documents' lengths at a part's size exactly: one more splits
    // the words in two parts, and the edit is refused.
    let full = PART_BYTES / 2;
    let docs: Vec<Doc> = (0..full).map(|i| vec![(1, format!("w{i} x"))]).collect();
    let one = build(&docs);
    assert_eq!(one.parts.len(), 1);
    let mut grown = IndexEdit::new();
    grown.change(0, &fields(&docs[0]), &[(1, "w0 x y")]);
    let mut two = docs.clone();
    two[0][0].1 = "w0 x y".to_owned();
    assert_eq!(build(&two).parts.len(), 2);
    let refused = grown.apply(&one.head, |k| Ok(&one.parts[k])).unwrap_err();
    assert!(refused.to_string().contains("another number of parts"), "{refused}");
}

fn fields(doc: &Doc) -> Vec<(u32, &str)> {
    doc.iter().map(|(weight, text)| (*weight, text.as_str())).collect()
}

/// Postings that name a document twice, or one past the last, are
/// refused when a query reads them, not counted twice or read past.
#[test]
fn postings_out_of_order_or_out_of_range_are_refused() {
    let built = build(&[vec![(1, "alpha".into())], vec![(1, "alpha".into())]]);
    assert_eq!(built.parts.len(), 1);
    // The postings are last: gap 0, count 1, gap 1, count 1.
    let part = &built.parts[0];
    assert_eq!(&part[part.len() - 4..], [0, 1, 1, 1]);
    assert_eq!(built.open().unwrap().search("alpha", 0, 10).unwrap().total, 2);
    for (at, value) in [(2, 0), (2, 2), (4, 1)] {
        let mut broken = built.clone();
        let at = broken.parts[0].len() - at;
        broken.parts[0][at] = value;
        let opened = broken.open().unwrap();
        assert!(opened.search("alpha", 0, 10).is_err(), "byte {at} = {value}");
    }
}
