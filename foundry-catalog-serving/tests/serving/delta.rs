//! A replica's plan to write a new artifact from the one it has and
//! ranges of the origin's (`foundry_catalog_serving::delta`): carried out
//! on the two files' bytes, it gives the new file exactly, fetching only
//! the runs of products and documents whose ETags changed.

use bytes::Bytes;
use foundry_catalog_serving::artifact::{self, Artifact, Summary};
use foundry_catalog_serving::catalog::Builder;
use foundry_catalog_serving::delta::{Plan, Source};
use proptest::prelude::*;

use crate::incremental::manifest;

/// The artifact file of products `numbers`, product `n` titled `titles(n)`.
fn artifact(numbers: &[usize], title: impl Fn(usize) -> String) -> Vec<u8> {
    let sources = numbers.iter().map(|&n| manifest(n, &title(n)));
    Builder::new().build(sources).expect("builds").artifact().to_vec()
}

/// [`artifact`] storing bodies as is only: a title of the same length
/// gives bodies of the same length, which only their ETags tell apart.
fn identity_artifact(numbers: &[usize], title: impl Fn(usize) -> String) -> Vec<u8> {
    let sources = numbers.iter().map(|&n| manifest(n, &title(n)));
    let builder =
        Builder::new().codings(&[foundry_catalog_serving::catalog::ContentCoding::Identity]).expect("identity");
    builder.build(sources).expect("builds").artifact().to_vec()
}

/// The new file as a replica writes it: its summary fetched (as
/// `Summary::len_needed` asks, from a first range), then the head plan's
/// runs (copied from `old`'s head in memory, or fetched from `new`), then
/// the body plan's (copied from `old`'s file, or fetched); the bytes
/// fetched; and both plans.
fn carry_out(old: &[u8], new: &[u8], max_ranges: usize) -> (Vec<u8>, u64, [Plan; 2]) {
    let total = new.len() as u64;
    let mut fetched = 72.min(new.len());
    let summary_len = loop {
        let needed = Summary::len_needed(&new[..fetched], total).expect("a summary");
        let needed = usize::try_from(needed).expect("small");
        if needed <= fetched {
            break needed;
        }
        fetched = needed;
    };
    let summary = Summary::parse(&new[..summary_len], total).expect("a summary");
    let old_artifact = Artifact::parse(Bytes::copy_from_slice(old)).expect("the old one parses");
    let head_plan = Plan::head(&summary, &old_artifact, max_ranges);
    assert_eq!((head_plan.start(), head_plan.end()), (summary_len as u64, summary.head_len()));
    let mut written = new[..summary_len].to_vec();
    let mut from_origin = summary_len as u64;
    let mut carry = |plan: &Plan, written: &mut Vec<u8>, head: bool| {
        for run in plan.runs() {
            assert_eq!(run.at, written.len() as u64, "the runs follow each other");
            let (at, len) = (run.at as usize, run.len as usize);
            match run.source {
                Source::Old { at: from } => {
                    let copied = &old[from as usize..from as usize + len];
                    if head {
                        let kept = old_artifact.head_bytes(from, run.len).expect("in the old head");
                        assert!(kept == copied, "the old head's copy in memory is its file's bytes");
                    }
                    written.extend_from_slice(copied);
                }
                Source::Origin => {
                    written.extend_from_slice(&new[at..at + len]);
                    from_origin += run.len;
                }
                Source::Made => written.resize(at + len, 0),
            }
        }
        assert_eq!(written.len() as u64, plan.end());
    };
    carry(&head_plan, &mut written, true);
    if head_plan.runs().iter().any(|run| run.source == Source::Made) {
        Artifact::fill_directory(&mut written, total).expect("the directory made");
    }
    let head = Artifact::from_head(written.clone(), total).expect("a checked head");
    let plan = Plan::new(&head, &old_artifact, max_ranges);
    assert_eq!(plan.start(), summary.head_len());
    carry(&plan, &mut written, false);
    (written, from_origin, [head_plan, plan])
}

#[test]
fn one_retitled_product_of_forty_fetches_its_run_alone() {
    let numbers: Vec<usize> = (0..40).collect();
    let old = artifact(&numbers, |n| format!("Product {n}"));
    let new = artifact(&numbers, |n| if n == 17 { "Retitled".to_owned() } else { format!("Product {n}") });
    let (written, fetched, [head, plan]) = carry_out(&old, &new, Plan::MAX_RANGES);
    assert!(written == new, "the plan writes the new file exactly");
    assert_eq!(plan.ranges(), 1, "one product changed: one range of bodies");
    assert!(head.ranges() <= 2, "one block of index entries and one of the table: {head:?}");
    assert!(fetched < new.len() as u64 / 10, "{fetched} of {} bytes fetched", new.len());
    let (same, fetched_same, [head, plan]) = carry_out(&new, &new, Plan::MAX_RANGES);
    assert!(same == new);
    assert_eq!(
        (head.ranges(), plan.ranges(), fetched_same),
        (0, 0, head.start()),
        "an unchanged artifact: its summary alone"
    );
}

/// A head of many blocks: one product's edit fetches its block of index
/// entries and its block of the table, and copies every other block;
/// inserting a product moves no block boundary but its own block's.
#[test]
fn one_edit_fetches_one_block_of_the_head() {
    // Enough products that the gap between the two blocks is past `Plan::GAP`.
    let numbers: Vec<usize> = (0..2000).collect();
    let title = |n: usize| format!("Product {n}");
    let old = identity_artifact(&numbers, title);
    let new = identity_artifact(&numbers, |n| if n == 1000 { "Retitled".to_owned() } else { title(n) });
    let (written, _, [head, _]) = carry_out(&old, &new, Plan::MAX_RANGES);
    assert!(written == new);
    let whole = head.end() - head.start();
    assert!(head.ranges() <= 2, "{head:?}");
    assert!(head.fetched() * 4 < whole, "{} of the head's {whole} bytes fetched", head.fetched());
    let inserted: Vec<usize> = (0..1000).chain([10_000]).chain(1000..2000).collect();
    let grown = identity_artifact(&inserted, title);
    let (written, _, [head, _]) = carry_out(&old, &grown, Plan::MAX_RANGES);
    assert!(written == grown);
    assert!(head.ranges() <= 2, "{head:?}");
    assert!(head.fetched() * 4 < head.end() - head.start(), "{} of {whole} bytes fetched", head.fetched());
}

#[test]
fn a_body_of_the_same_length_is_told_apart_by_its_etag() {
    let numbers: Vec<usize> = (0..10).collect();
    let old = identity_artifact(&numbers, |n| format!("Product {n}"));
    let new = identity_artifact(&numbers, |n| if n == 4 { format!("Changed {n}") } else { format!("Product {n}") });
    assert_eq!(old.len(), new.len());
    let (written, _, [_, plan]) = carry_out(&old, &new, Plan::MAX_RANGES);
    assert!(written == new, "the changed body is fetched, not copied");
    assert_eq!(plan.ranges(), 1);
}

#[test]
fn what_is_not_an_artifact_is_refused_from_its_first_bytes() {
    assert!(artifact::file_len_of(&[0; 72]).is_err(), "zeros");
    assert!(artifact::file_len_of(b"<html>").is_err());
    let new = artifact(&[1], |n| format!("Product {n}"));
    assert_eq!(artifact::file_len_of(&new[..72]), Ok(new.len() as u64));
    assert!(Summary::len_needed(&new[..72], new.len() as u64 + 1).is_err(), "lengths that do not add up");
    // Nothing yet, or too little to judge: the header is asked for.
    for first in [0, 4, 8, 12, 71] {
        assert_eq!(Summary::len_needed(&new[..first], new.len() as u64), Ok(72), "{first} bytes");
    }
    assert_eq!(Summary::len_needed(b"<html>\n<he", new.len() as u64), Err(artifact::ArtifactError::NotAnArtifact));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any edits (titles changed, products removed and added), any bound
    /// on the ranges: the plan writes the new file exactly, asking at most
    /// that many ranges, and fetches no more than the new file.
    #[test]
    fn any_plan_writes_the_new_file_exactly(
        retitled in proptest::collection::vec(0usize..12, 0..6),
        removed in proptest::collection::vec(0usize..12, 0..3),
        added in proptest::collection::vec(12usize..16, 0..3),
        max_ranges in 1usize..4,
    ) {
        let old_numbers: Vec<usize> = (0..12).collect();
        let mut new_numbers: Vec<usize> = (0..12).filter(|n| !removed.contains(n)).chain(added.iter().copied()).collect();
        new_numbers.sort_unstable();
        new_numbers.dedup();
        let old = artifact(&old_numbers, |n| format!("Product {n}"));
        let new = artifact(&new_numbers, |n| if retitled.contains(&n) { format!("New {n}") } else { format!("Product {n}") });
        let (written, fetched, [head, plan]) = carry_out(&old, &new, max_ranges);
        prop_assert!(written == new);
        prop_assert!(head.ranges() <= max_ranges && plan.ranges() <= max_ranges);
        prop_assert!(fetched <= new.len() as u64);
    }
}

/// A fresh temporary folder for one test.
fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("foundry-catalog-delta-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Three releases of products `0..products` (product `n` titled
/// `Product n`): the first, written to `dir` as `base.fcat`; the second
/// with product 17 retitled; the third with product `also` retitled too;
/// and the first opened from its file, as a replica's base.
fn three_releases(dir: &std::path::Path, products: usize, also: usize) -> ([Vec<u8>; 3], Artifact) {
    let numbers: Vec<usize> = (0..products).collect();
    let title = |n: usize| format!("Product {n}");
    let first = artifact(&numbers, title);
    let second = artifact(&numbers, |n| if n == 17 { "Retitled".to_owned() } else { title(n) });
    let third = artifact(&numbers, |n| match n {
        17 => "Retitled".to_owned(),
        n if n == also => "Retitled too".to_owned(),
        _ => title(n),
    });
    std::fs::write(dir.join("base.fcat"), &first).expect("written");
    let base = Artifact::open(&dir.join("base.fcat"), 1 << 30).expect("the base opens");
    ([first, second, third], base)
}

/// Writes `new` at `path` as a replica writes a pull with `old` the
/// artifact it has (opened from its file, or layered over one), layered
/// or whole: the head, the plan's fetched runs from `new`, its copied runs
/// from `old` except, when `layered`, what `old` reads from its base file
/// (holes). Returns the bytes written, and the artifact written
/// (`delta::written`: its head from memory).
fn write_pull(path: &std::path::Path, new: &[u8], old: &Artifact, layered: bool) -> (u64, Artifact) {
    use std::io::Write;
    let head = Artifact::from_head(new.to_vec(), new.len() as u64).expect("a head");
    let plan = Plan::new(&head, old, Plan::MAX_RANGES);
    let mut file = std::fs::File::create_new(path).expect("a new file");
    let holes_for = layered.then_some(old);
    let writes = foundry_catalog_serving::delta::head_writes(&head, holes_for);
    let mut written =
        foundry_catalog_serving::delta::write_head(&new[..plan.start() as usize], &writes, &mut file).expect("written");
    for run in plan.runs() {
        match run.source {
            Source::Old { at } => {
                let to_copy = old.bytes_to_copy(at, run.len, holes_for).expect("a range of its bodies");
                let copied = old.copy_range(at, run.len, &mut file, holes_for).expect("copied");
                assert_eq!(copied, to_copy, "bytes_to_copy says what copy_range copies");
                written += copied;
            }
            Source::Origin | Source::Made => {
                file.write_all(&new[run.at as usize..(run.at + run.len) as usize]).expect("written");
                written += run.len;
            }
        }
    }
    file.set_len(new.len() as u64).expect("its length");
    drop(file);
    let artifact = foundry_catalog_serving::delta::written(head, path, old, &plan, layered).expect("written");
    (written, artifact)
}

/// A layered pull writes the head and what changed, nothing its base
/// holds (those bytes of its file are holes, read as zeros), and opened
/// over its base it is the new artifact, byte for byte; a second pull
/// over the layered one carries what the first fetched and still writes
/// nothing the base holds. The artifact a replica loads as it wrote it
/// (`delta::written`, its head not read back) is the same, and so is a
/// pull written whole. The bodies are read from the base: a byte
/// flipped in the base's body of an unchanged product fails that body's
/// check when the layered catalog reads it, and no other.
#[test]
fn a_layered_pull_writes_only_what_its_base_does_not_hold() {
    let dir = temp("layered");
    let ([first, second, third], base) = three_releases(&dir, 40, 30);

    let (written, as_written) = write_pull(&dir.join("second.delta"), &second, &base, true);
    let layered = foundry_catalog_serving::delta::open_layered(&dir.join("second.delta"), &base, 1 << 30)
        .expect("opens over its base");
    assert!(layered.to_vec() == second, "the layered artifact is the new one, byte for byte");
    assert!(as_written.to_vec() == second, "as written, too");
    let (whole, as_written) = write_pull(&dir.join("second.fcat"), &second, &base, false);
    assert!(whole == second.len() as u64 && std::fs::read(dir.join("second.fcat")).expect("read") == second);
    assert!(as_written.to_vec() == second, "a pull written whole, as written");
    let head_len = Plan::new(&layered, &base, Plan::MAX_RANGES).start();
    assert!(written < head_len + (second.len() as u64 - head_len) / 10, "{written} of {} bytes written", second.len());
    let on_disk = std::fs::read(dir.join("second.delta")).expect("read");
    let zeros = on_disk.iter().skip(head_len as usize).filter(|&&b| b == 0).count();
    assert!(zeros > (second.len() - head_len as usize) * 8 / 10, "the base's bodies are holes: {zeros} zeros");

    // A second pull over the layered one: product 17 carried from the first delta.
    let (written, as_written) = write_pull(&dir.join("third.delta"), &third, &layered, true);
    let again = foundry_catalog_serving::delta::open_layered(&dir.join("third.delta"), &base, 1 << 30)
        .expect("opens over its base");
    assert!(again.to_vec() == third, "a delta over a delta is the newest artifact, byte for byte");
    assert!(as_written.to_vec() == third, "as written, too");
    assert!(written < head_len + (third.len() as u64 - head_len) / 5, "{written} bytes written");

    // Its bodies are read from the base, and checked.
    let catalog = foundry_catalog_serving::catalog::ResponseCatalog::from_artifact(again).expect("loads");
    assert!(catalog.reads_bodies_from_file(), "a layered catalog reads its bodies when they are asked for");
    let gzip = foundry_catalog_serving::catalog::ContentCoding::Gzip;
    let (unchanged, retitled) = ("product-3", "product-30");
    let (span_at, span_len) = {
        let base_catalog =
            foundry_catalog_serving::catalog::ResponseCatalog::from_artifact(base.clone()).expect("loads");
        let body = base_catalog.get(unchanged).expect("in the base").representation(gzip).body().expect("a body");
        let at = first.windows(body.len()).position(|w| w == &body[..]).expect("the base file holds it");
        (at, body.len())
    };
    let mut damaged = first.clone();
    damaged[span_at + span_len / 2] ^= 1;
    std::fs::write(dir.join("base.fcat"), &damaged).expect("rewritten in place");
    assert!(catalog.get(unchanged).expect("served").representation(gzip).body().is_err(), "read from the damaged base");
    assert!(catalog.get(retitled).expect("served").representation(gzip).body().is_ok(), "read from the delta");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A layered pull leaves as holes the blocks of the head its base holds
/// (the same digest and lengths), as it does the bodies: it writes the
/// summary, the slug directory and the blocks that changed. Opened over
/// its base, as a replica does at start, those blocks are read from the
/// base, and it is the new artifact byte for byte; a pull over it writes
/// the blocks its base does not hold, the previous pull's changed block
/// among them, not only those that changed since.
#[test]
fn a_layered_pull_leaves_the_head_blocks_its_base_holds_as_holes() {
    let dir = temp("head-holes");
    let ([_, second, third], base) = three_releases(&dir, 320, 300);
    let head_of = |bytes: &[u8]| Artifact::from_head(bytes.to_vec(), bytes.len() as u64).expect("a head");
    let written_of = |writes: &[std::ops::Range<u64>]| writes.iter().map(|range| range.end - range.start).sum::<u64>();

    let summary = Summary::parse(&second, second.len() as u64).expect("a summary");
    let writes = foundry_catalog_serving::delta::head_writes(&head_of(&second), Some(&base));
    assert!(writes[0].start == 0 && writes[0].end > summary.len(), "the summary and the directory: {writes:?}");
    let blocks_len = summary.head_len() - writes[0].end;
    let head_written = written_of(&writes);
    assert!(
        head_written - writes[0].end < blocks_len / 3,
        "one block of five changed: {head_written} of {} bytes of the head written",
        summary.head_len()
    );
    assert_eq!(
        written_of(&foundry_catalog_serving::delta::head_writes(&head_of(&second), None)),
        summary.head_len(),
        "written whole, the whole head"
    );
    write_pull(&dir.join("second.delta"), &second, &base, true);
    let on_disk = std::fs::read(dir.join("second.delta")).expect("read");
    let mut at = 0;
    for range in writes.iter().map(|range| range.start as usize..range.end as usize) {
        assert!(on_disk[at..range.start].iter().all(|&b| b == 0), "a hole at {at}..{}", range.start);
        assert!(on_disk[range.clone()] == second[range.clone()], "written at {range:?}");
        at = range.end;
    }
    let layered = foundry_catalog_serving::delta::open_layered(&dir.join("second.delta"), &base, 1 << 30)
        .expect("opens over its base");
    assert!(layered.to_vec() == second, "its head's holes read from the base: the new artifact, byte for byte");
    // A delta holding its head whole (as written before) reads the same.
    let mut whole_head = on_disk.clone();
    let head_len = summary.head_len() as usize;
    whole_head[..head_len].copy_from_slice(&second[..head_len]);
    std::fs::write(dir.join("whole-head.delta"), &whole_head).expect("written");
    let opened = foundry_catalog_serving::delta::open_layered(&dir.join("whole-head.delta"), &base, 1 << 30)
        .expect("opens over its base");
    assert!(opened.to_vec() == second, "a delta with its head whole");

    // A pull over the layered one: the first pull's block and this one's.
    let writes_again = foundry_catalog_serving::delta::head_writes(&head_of(&third), Some(&layered));
    assert!(written_of(&writes_again) > head_written, "two blocks the base does not hold");
    write_pull(&dir.join("third.delta"), &third, &layered, true);
    let again = foundry_catalog_serving::delta::open_layered(&dir.join("third.delta"), &base, 1 << 30)
        .expect("opens over its base");
    assert!(again.to_vec() == third, "a delta over a delta is the newest artifact, byte for byte");
    let catalog = foundry_catalog_serving::catalog::ResponseCatalog::from_artifact(again).expect("loads");
    for slug in ["product-3", "product-17", "product-300"] {
        assert!(catalog.get(slug).is_some(), "{slug} found through its head block");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A block of the head is copied whole from the old head when its index
/// entries and table bytes both come from it: every block but the one an
/// edit changed; not those fetched in one range with their neighbours.
#[test]
fn the_blocks_copied_whole_are_those_taken_from_the_old_head() {
    // Enough products that the gap between the two blocks is past `Plan::GAP`.
    let numbers: Vec<usize> = (0..2000).collect();
    let title = |n: usize| format!("Product {n}");
    let old = identity_artifact(&numbers, title);
    let one = identity_artifact(&numbers, |n| if n == 1000 { "Retitled".to_owned() } else { title(n) });
    let two = identity_artifact(&numbers, |n| match n {
        500 | 1500 => "Retitled".to_owned(),
        _ => title(n),
    });
    let old = Artifact::parse(Bytes::from(old)).expect("parses");
    let copied = |new: &[u8], max_ranges: usize| {
        let summary = Summary::parse(new, new.len() as u64).expect("a summary");
        let copied = Plan::head(&summary, &old, max_ranges).copied_blocks(&summary);
        assert!(copied.len() >= 2000 / 256, "2,000 products: {copied:?}");
        copied.iter().enumerate().filter(|&(_, &copied)| !copied).map(|(k, _)| k).collect::<Vec<_>>()
    };
    let one_edit = copied(&one, Plan::MAX_RANGES);
    assert_eq!(one_edit.len(), 1, "{one_edit:?}");
    // The index entries of the blocks between two edits lie within
    // `Plan::GAP` of theirs: fetched in one range with them, not copied.
    let between = copied(&two, Plan::MAX_RANGES);
    assert!(between.len() > 2 && between.windows(2).all(|w| w[1] == w[0] + 1), "{between:?}");
}
