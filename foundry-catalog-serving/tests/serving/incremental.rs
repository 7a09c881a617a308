//! Incremental catalog builds: a build on a previous artifact gives the
//! bytes a full build gives, renders only what changed, and never trusts
//! a previous artifact it cannot account for.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use foundry_catalog_serving::artifact::{self, Artifact, ArtifactError};
use foundry_catalog_serving::catalog::{Builder, CatalogErrors, Progress, ResponseCatalog, Unusable};
use proptest::prelude::*;

use crate::catalog::with_checksum;

/// The example manifests, as templates.
pub(crate) fn templates() -> Vec<serde_json::Value> {
    foundry_catalog::examples::MANIFESTS
        .iter()
        .map(|(_, text)| serde_json::from_str(text).expect("an example is JSON"))
        .collect()
}

/// Product `n`: example `n % 3` with slug `product-<n>` and `title`.
pub(crate) fn manifest(n: usize, title: &str) -> (String, String) {
    let mut manifest = templates()[n % 3].clone();
    manifest["slug"] = serde_json::json!(format!("product-{n}"));
    manifest["title"] = serde_json::json!(title);
    (format!("product-{n}.json"), serde_json::to_string_pretty(&manifest).expect("serializes"))
}

/// Builds `sources` (on `previous`, if given); the artifact's bytes and
/// the last progress report.
fn build(
    sources: &[(String, String)],
    previous: Option<&ResponseCatalog>,
) -> Result<(Vec<u8>, Progress), CatalogErrors> {
    build_artifact(sources, previous).map(|(catalog, progress)| (catalog.artifact().to_vec(), progress))
}

/// [`build`], keeping the catalog.
fn build_artifact(
    sources: &[(String, String)],
    previous: Option<&ResponseCatalog>,
) -> Result<(ResponseCatalog, Progress), CatalogErrors> {
    let (catalog, progress) = counted(previous, |builder| builder.build(sources.to_vec()));
    Ok((catalog?, progress))
}

/// Runs `build` with a builder on `previous` (if given) that records its
/// progress; the result and the last progress report (the tally).
fn counted<T>(previous: Option<&ResponseCatalog>, build: impl FnOnce(&Builder) -> T) -> (T, Progress) {
    counted_with(Builder::new(), previous, build)
}

/// [`counted`] with `builder` as configured.
fn counted_with<T>(
    builder: Builder,
    previous: Option<&ResponseCatalog>,
    build: impl FnOnce(&Builder) -> T,
) -> (T, Progress) {
    let last = Arc::new(Mutex::new(Progress::default()));
    let seen = Arc::clone(&last);
    let mut builder = builder.on_progress(move |p| *seen.lock().expect("lock") = *p);
    if let Some(previous) = previous {
        builder.previous(previous).expect("the previous catalog is usable");
    }
    let built = build(&builder);
    let progress = *last.lock().expect("lock");
    (built, progress)
}

/// An artifact file's bytes loaded as a server loads them (bodies not hashed).
fn loaded(bytes: &[u8]) -> ResponseCatalog {
    let artifact = Artifact::parse(Bytes::copy_from_slice(bytes)).expect("parses");
    ResponseCatalog::from_artifact(artifact).expect("loads")
}

fn catalog(n: usize) -> Vec<(String, String)> {
    (0..n).map(|i| manifest(i, &format!("Product {i}"))).collect()
}

#[test]
fn a_one_manifest_edit_renders_one_product_and_gives_the_full_builds_bytes() {
    let sources = catalog(12);
    let (first, progress) = build(&sources, None).expect("builds");
    assert_eq!((progress.done, progress.rendered, progress.compressed), (12, 12, 12));
    let previous = loaded(&first);

    let (unchanged, progress) = build(&sources, Some(&previous)).expect("builds");
    assert_eq!(unchanged, first);
    assert_eq!((progress.rendered, progress.compressed, progress.reused()), (0, 0, 12));

    let mut edited = sources.clone();
    edited[5] = manifest(5, "Product 5, renamed");
    let (incremental, progress) = build(&edited, Some(&previous)).expect("builds");
    assert_eq!(incremental, build(&edited, None).expect("builds").0);
    assert_ne!(incremental, first);
    assert_eq!((progress.rendered, progress.compressed, progress.reused()), (1, 1, 11));

    // Other bytes, the same record: rendered, not compressed again.
    let mut reformatted = sources.clone();
    reformatted[7].1 = reformatted[7].1.replace("\n  ", "\n    ");
    let (incremental, progress) = build(&reformatted, Some(&previous)).expect("builds");
    assert_eq!(incremental, build(&reformatted, None).expect("builds").0);
    assert_ne!(incremental, first, "the source digest is the new one");
    assert_eq!((progress.rendered, progress.compressed), (1, 0));
}

/// One record type's definition changes (a field's description: the same
/// `schema_hash`, another schema preview): only the products of that type
/// are rendered again, and the bytes are the full build's.
#[test]
fn a_changed_definition_renders_only_its_types_products() {
    let sources = catalog(12);
    let previous = loaded(&build(&sources, None).expect("builds").0);
    let label = foundry_catalog::record_types()[1].record_label.to_string();
    let mut edited = foundry_catalog::record_types()[1].clone();
    edited.fields.to_mut()[0].description = "Another meaning.".into();
    let with_edit = || Builder::new().record_types([edited.clone()]);
    let of_type = |catalog: &ResponseCatalog| {
        (0..12)
            .filter(|n| {
                let body = catalog.get(&format!("product-{n}")).expect("built").body().expect("body");
                serde_json::from_slice::<serde_json::Value>(&body).expect("JSON")["data"]["schema_preview"]["record_label"]
                    == *label
            })
            .count()
    };
    assert_eq!(of_type(&previous), 4, "a third of the products are of that type");

    let mut changes = with_edit();
    let said = changes.previous(&previous).expect("usable");
    assert_eq!(said.to_string(), format!("{label}: another definition"));
    let (incremental, progress) = counted_with(with_edit(), Some(&previous), |b| b.build(sources.clone()));
    let incremental = incremental.expect("builds");
    let (full, _) = counted_with(with_edit(), None, |b| b.build(sources.clone()));
    assert_eq!(incremental.artifact().to_vec(), full.expect("builds").artifact().to_vec());
    assert_eq!((progress.rendered, progress.compressed, progress.reused()), (4, 4, 8));
    assert_ne!(incremental.artifact().to_vec(), previous.artifact().to_vec());

    // Built on again with the same definitions: nothing rendered; and back
    // to the shipped definition: that type's products again.
    let again = loaded(&incremental.artifact().to_vec());
    let (_, progress) = counted_with(with_edit(), Some(&again), |b| b.build(sources.clone()));
    assert_eq!(progress.rendered, 0);
    let (back, progress) = build(&sources, Some(&again)).expect("builds");
    assert_eq!(progress.rendered, 4);
    assert_eq!(back, previous.artifact().to_vec());
}

#[test]
fn removed_and_added_products_come_and_go_and_a_renamed_manifest_is_both() {
    let sources = catalog(6);
    let previous = loaded(&build(&sources, None).expect("builds").0);
    let mut changed: Vec<_> = sources.iter().filter(|(file, _)| file != "product-2.json").cloned().collect();
    changed.push(manifest(9, "Product 9"));
    let (incremental, progress) = build(&changed, Some(&previous)).expect("builds");
    assert_eq!(incremental, build(&changed, None).expect("builds").0);
    assert_eq!((progress.done, progress.rendered), (6, 1));
    let catalog = loaded(&incremental);
    assert!(catalog.get("product-2").is_none(), "a removed product is gone");
    assert!(catalog.get("product-9").is_some());

    // Renamed without changing its slug: the new file name is checked as a
    // full build checks it, not taken from the previous artifact.
    let mut renamed = sources.clone();
    renamed[3].0 = "product-33.json".to_owned();
    let error = build(&renamed, Some(&previous)).expect_err("the file name is not the slug");
    assert_eq!(error, build(&renamed, None).expect_err("the file name is not the slug"));
}

#[test]
fn a_previous_artifact_with_a_changed_body_is_not_trusted() {
    let sources = catalog(4);
    let (first, _) = build(&sources, None).expect("builds");
    let catalog = loaded(&first);
    let entry = catalog.get("product-1").expect("built");
    let body = entry.representation(foundry_catalog_serving::catalog::ContentCoding::Gzip).body().expect("body");
    let at = first.windows(body.len()).position(|w| w == &body[..]).expect("the body is in the file");
    let mut tampered = first.clone();
    tampered[at + body.len() / 2] ^= 0x01;
    // Read whole, it is refused; opened, its bodies are left in the file,
    // and the build checks each product it takes.
    let error = ResponseCatalog::from_artifact(Artifact::parse(Bytes::from(tampered.clone())).expect("parses"));
    assert!(matches!(error, Err(ArtifactError::Body { .. })), "{error:?}");
    let file = std::env::temp_dir().join(format!("foundry-catalog-tampered-previous-{}.fcat", std::process::id()));
    std::fs::write(&file, &tampered).expect("write");
    let previous = ResponseCatalog::open(&file).expect("what is checked at open is whole");
    let (incremental, progress) = build(&sources, Some(&previous)).expect("builds");
    let _ = std::fs::remove_file(&file);
    assert_eq!(incremental, first, "the changed product is built again, not copied");
    assert_eq!((progress.rendered, progress.compressed), (1, 1));
}

/// Versions 1 to 4, written by earlier releases (one file of each under
/// `data/`), are refused wherever an artifact is read, with one line that
/// says to rebuild the file, before anything past its header is read.
#[test]
fn older_formats_are_refused_with_a_hint_to_rebuild() {
    let dir = std::env::temp_dir().join(format!("foundry-catalog-old-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (version, bytes) in [
        (1, &include_bytes!("data/examples-v1.fcat")[..]),
        (2, &include_bytes!("data/examples-v2.fcat")[..]),
        (3, &include_bytes!("data/examples-v3.fcat")[..]),
        (4, &include_bytes!("data/examples-v4.fcat")[..]),
    ] {
        assert_eq!(bytes[8], version, "the file is version {version}");
        let refused = |error: ArtifactError| {
            assert_eq!(error, ArtifactError::Version { found: u32::from(version) });
            let text = error.to_string();
            assert!(!text.contains('\n'), "one line: {text}");
            assert!(
                text.contains(&format!("format version {version}")) && text.contains("reads version 5 only"),
                "{text}"
            );
            assert!(text.contains("hint: rebuild it from its manifests"), "{text}");
        };
        refused(Artifact::parse(Bytes::copy_from_slice(bytes)).expect_err("parsed"));
        // Its first bytes are enough, as a replica judges a download.
        refused(artifact::file_len_of(&bytes[..64]).expect_err("judged from its header"));
        refused(artifact::Summary::len_needed(&bytes[..16], bytes.len() as u64).expect_err("judged from 16 bytes"));
        let file = dir.join(format!("v{version}.fcat"));
        std::fs::write(&file, bytes).expect("write");
        refused(Artifact::read(&file).expect_err("read"));
        refused(Artifact::open(&file, u64::MAX).expect_err("opened"));
        refused(ResponseCatalog::open_to_build_on(&file).expect_err("built on"));
        let error = ResponseCatalog::open(&file).expect_err("served").to_string();
        assert!(error.contains(&file.display().to_string()) && error.contains("hint: rebuild"), "{error}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_previous_artifact_from_another_build_is_refused_with_the_reason() {
    let sources = catalog(3);
    let (first, _) = build(&sources, None).expect("builds");

    let generator = first.windows(21).position(|w| w == b"foundry-catalog 0.1.0").expect("the generator");
    let mut other = first.clone();
    other[generator + 16..generator + 21].copy_from_slice(b"9.9.9");
    let error = Builder::new().previous(&loaded(&with_checksum(other))).expect_err("another version");
    assert_eq!(error.to_string(), "it was built by \"foundry-catalog 9.9.9\", and this is \"foundry-catalog 0.1.0\"");

    // Rendered by another build of the same version: its renderer digest
    // is there, and differs (not only an absent one is refused).
    let key = b"\"renderer_sha256\":\"";
    let at = first.windows(key.len()).position(|w| w == key).expect("the renderer digest") + key.len();
    let mut rendered_elsewhere = first.clone();
    rendered_elsewhere[at] = if first[at] == b'0' { b'1' } else { b'0' };
    let error = Builder::new().previous(&loaded(&with_checksum(rendered_elsewhere))).expect_err("another renderer");
    assert!(matches!(error, Unusable::Renderer { found: Some(_), .. }), "{error}");

    #[cfg(feature = "compression")]
    {
        use foundry_catalog_serving::catalog::ContentCoding;
        let identity = Builder::new().codings(&[ContentCoding::Identity]).expect("available");
        let error = identity.clone().previous(&loaded(&first)).expect_err("other codings");
        assert!(matches!(error, Unusable::Codings { .. }), "{error}");
    }
}

/// One edit of a catalog of at most eight products.
#[derive(Debug, Clone)]
enum Edit {
    Retitle(usize, u8),
    Reformat(usize),
    Remove(usize),
    Add(usize),
    Break(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..8usize, 0..4u8).prop_map(|(n, t)| Edit::Retitle(n, t)),
        (0..8usize).prop_map(Edit::Reformat),
        (0..8usize).prop_map(Edit::Remove),
        (0..8usize).prop_map(Edit::Add),
        (0..8usize).prop_map(Edit::Break),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// After any sequence of edits, each build on the one before (loaded
    /// from its bytes, or kept in memory as a server keeps it) gives the
    /// bytes of a full build; a failed build leaves the previous in place.
    #[test]
    fn every_incremental_build_is_byte_identical_to_a_full_one(
        edits in proptest::collection::vec(edit(), 1..7),
        in_memory in any::<bool>(),
    ) {
        let mut sources: std::collections::BTreeMap<String, String> = catalog(4).into_iter().collect();
        let mut previous = loaded(&build(&sources.clone().into_iter().collect::<Vec<_>>(), None).expect("builds").0);
        for edit in edits {
            match edit {
                Edit::Retitle(n, t) => { let (f, m) = manifest(n, &format!("Title {t}")); sources.insert(f, m); }
                Edit::Reformat(n) => { if let Some(m) = sources.get_mut(&format!("product-{n}.json")) { *m = m.replace(",\n", " ,\n"); } }
                Edit::Remove(n) => { sources.remove(&format!("product-{n}.json")); }
                Edit::Add(n) => { let (f, m) = manifest(n, &format!("Product {n}")); sources.entry(f).or_insert(m); }
                Edit::Break(n) => { sources.insert(format!("product-{n}.json"), "{\"slug\": ".to_owned()); }
            }
            let list: Vec<_> = sources.clone().into_iter().collect();
            let full = build(&list, None).map(|(bytes, _)| bytes);
            let incremental = build_artifact(&list, Some(&previous));
            prop_assert_eq!(&incremental.as_ref().map(|(c, _)| c.artifact().to_vec()).map_err(Clone::clone), &full);
            if let Ok((catalog, _)) = incremental {
                // The next build is on this one: kept in memory as a server
                // keeps it (its bytes shared with the ones before), or read
                // back from its file.
                previous = if in_memory { catalog } else { loaded(&catalog.artifact().to_vec()) };
            }
        }
    }
}

/// Writes `catalog(n)` into a fresh folder, every file an hour old.
fn folder(name: &str, n: usize) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("foundry-catalog-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (file, text) in catalog(n) {
        write_aged(&dir.join(file), &text, std::time::Duration::from_secs(3600));
    }
    dir
}

/// Writes `text` to `path` and sets its modification time `age` ago.
fn write_aged(path: &std::path::Path, text: &str, age: std::time::Duration) {
    std::fs::write(path, text).expect("write");
    let file = std::fs::File::options().write(true).open(path).expect("open");
    file.set_modified(std::time::SystemTime::now() - age).expect("set the modification time");
}

fn rebuild(dir: &std::path::Path, previous: &ResponseCatalog) -> (ResponseCatalog, Progress) {
    counted(Some(previous), |builder| builder.build_dir(dir).expect("builds"))
}

/// A folder rebuilt in the same process (a server's reload) takes a file
/// whose length, times and inode are unchanged as unchanged without
/// reading it; any of them changing makes it read again.
#[test]
fn a_folder_rebuild_reads_only_the_files_whose_stamp_changed() {
    let dir = folder("stamps", 5);
    // Past the time a file must have settled before a build for its stamp
    // to be trusted (its change time cannot be set back).
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let first = Builder::new().build_dir(&dir).expect("builds");
    let full = |dir: &std::path::Path| Builder::new().build_dir(dir).expect("builds").artifact().to_vec();
    let (same, progress) = rebuild(&dir, &first);
    assert_eq!((progress.read, progress.rendered), (0, 0), "nothing changed: nothing read");
    assert_eq!(same.artifact().to_vec(), first.artifact().to_vec());

    // An edit: a new length and modification time.
    write_aged(&dir.join("product-1.json"), &manifest(1, "Edited").1, std::time::Duration::from_secs(3600));
    let (second, progress) = rebuild(&dir, &same);
    assert_eq!((progress.read, progress.rendered, progress.reused()), (1, 1, 4));
    assert_eq!(second.artifact().to_vec(), full(&dir));

    // That file changed just before the build that read it, so it might
    // change again within the same timestamp tick: the next build reads
    // it again, though its stamp is the same (git's racily clean entries).
    let (second, progress) = rebuild(&dir, &second);
    assert_eq!((progress.read, progress.rendered), (1, 0), "only the file that had not settled is read");

    // The same length and modification time, another file (a new inode, as
    // rsync and editors that save by renaming leave): read again.
    let path = dir.join("product-2.json");
    let old = std::fs::metadata(&path).expect("stat");
    let text = std::fs::read_to_string(&path).expect("read").replace("Product 2", "Product Z");
    let replacement = dir.join("product-2.json.tmp");
    std::fs::write(&replacement, &text).expect("write");
    let file = std::fs::File::options().write(true).open(&replacement).expect("open");
    file.set_modified(old.modified().expect("mtime")).expect("set");
    std::fs::rename(&replacement, &path).expect("rename");
    let (third, progress) = rebuild(&dir, &second);
    assert_eq!((progress.rendered, progress.reused()), (1, 4));
    assert_eq!(third.artifact().to_vec(), full(&dir));
    assert!(third.get("product-2").expect("served").body().expect("body").windows(9).any(|w| w == b"Product Z"));

    // Rewritten in place with its length, inode and modification time
    // kept (`cp -p`): the change time, which no program sets, tells.
    let path = dir.join("product-3.json");
    let old = std::fs::metadata(&path).expect("stat");
    let text = std::fs::read_to_string(&path).expect("read").replace("Product 3", "Product Y");
    std::fs::write(&path, &text).expect("write");
    let file = std::fs::File::options().write(true).open(&path).expect("open");
    file.set_modified(old.modified().expect("mtime")).expect("set");
    let (fourth, progress) = rebuild(&dir, &third);
    assert_eq!(progress.rendered, 1, "the change time changed: read again");
    assert_eq!(fourth.artifact().to_vec(), full(&dir));

    // A previous artifact read from a file has no stamps: every file is
    // read, and only the changed one rendered.
    write_aged(&dir.join("product-0.json"), &manifest(0, "Product 0, again").1, std::time::Duration::from_secs(7200));
    let (fifth, progress) = rebuild(&dir, &loaded(&fourth.artifact().to_vec()));
    assert_eq!((progress.read, progress.rendered), (5, 1));
    assert_eq!(fifth.artifact().to_vec(), full(&dir));

    let _ = std::fs::remove_dir_all(&dir);
}
