//! The pre-built response catalog: building from folders and manifests.

use std::path::{Path, PathBuf};

use bytes::Bytes;
use foundry_catalog_serving::artifact::{Artifact, ArtifactError};
use foundry_catalog_serving::catalog::ContentCoding;
use foundry_catalog_serving::catalog::{CatalogError, ResponseCatalog, SiteResource};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog")
}

/// A fresh temporary folder for one test.
pub(crate) fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("foundry-catalog-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The example catalog as an artifact file's bytes.
fn example_artifact() -> Vec<u8> {
    foundry_catalog_serving::catalog::Builder::new()
        .build_dir(&examples())
        .expect("the examples build")
        .artifact()
        .to_vec()
}

fn load(bytes: Vec<u8>) -> Result<ResponseCatalog, ArtifactError> {
    Artifact::parse(Bytes::from(bytes)).and_then(ResponseCatalog::from_artifact)
}

/// The length of a version-5 artifact's header.
pub(crate) const HEADER: usize = 72;

/// The header's length field at `at` (16: metadata, 24: signature, 32:
/// block list, 40: slug directory, 48: index, 56: table, 64: bodies).
pub(crate) fn length(bytes: &[u8], at: usize) -> usize {
    usize::try_from(u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8"))).unwrap_or(usize::MAX)
}

/// Where a version-5 artifact's index starts: what its CRC-32 covers ends there.
pub(crate) fn index_start(bytes: &[u8]) -> usize {
    [16, 24, 32, 40].iter().fold(HEADER, |sum, &at| sum.saturating_add(length(bytes, at)))
}

/// Where a version-5 artifact's bodies start.
pub(crate) fn bodies_start(bytes: &[u8]) -> usize {
    index_start(bytes) + length(bytes, 48) + length(bytes, 56)
}

/// Rewrites the header's CRC-32 to match the bytes it covers (a file
/// whose summary is consistent and wrong).
pub(crate) fn with_checksum(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= HEADER {
        let crc = crc32fast::hash(bytes.get(16..index_start(&bytes).min(bytes.len())).unwrap_or_default());
        bytes[12..16].copy_from_slice(&crc.to_le_bytes());
    }
    bytes
}

/// Rewrites each block's digest in the block list to match the index
/// entries and table bytes it covers, then the header's CRC-32 (a
/// consistent file whose contents are wrong, as an unsigned file can be
/// made). The file's blocks are told apart by the entries' lengths, which
/// this reads as the block list says: one block, or blocks of products
/// alone.
pub(crate) fn with_digests(mut bytes: Vec<u8>) -> Vec<u8> {
    use sha2::Digest;
    if bytes.len() < HEADER {
        return bytes;
    }
    // Lengths as the (maybe changed) header says; what lies outside the
    // file is left as it is.
    let at =
        |n: usize| [16, 24, 32, 40, 48, 56][..n].iter().fold(HEADER, |sum, &at| sum.saturating_add(length(&bytes, at)));
    let (blocks_at, index_at, table_at) = (at(2), at(4), at(5));
    // As many blocks as the header says, within the file.
    let blocks = (length(&bytes, 32) / 48).min(bytes.len().saturating_sub(blocks_at) / 48);
    let index_len = length(&bytes, 48);
    let count = |k: usize| {
        bytes.get(blocks_at + 48 * k..blocks_at + 48 * k + 4).map_or(0, |_| u32_at(&bytes, blocks_at + 48 * k))
    };
    let entries = (0..blocks).fold(0_usize, |sum, k| sum.saturating_add(count(k) as usize));
    let (mut index, mut table) = (index_at, table_at);
    for k in 0..blocks {
        let entry = blocks_at + 48 * k;
        if bytes.len() < entry + 48 {
            break;
        }
        let count = u32_at(&bytes, entry) as usize;
        let table_len = u32_at(&bytes, entry + 4) as usize;
        // Entries of one length: the whole index when it is one block.
        let index_len = if blocks == 1 { index_len } else { (index_len / entries.max(1)).saturating_mul(count) };
        let mut hasher = sha2::Sha256::new();
        hasher.update(bytes.get(index..index.saturating_add(index_len)).unwrap_or_default());
        hasher.update(bytes.get(table..table.saturating_add(table_len)).unwrap_or_default());
        let digest = hasher.finalize();
        bytes[entry + 16..entry + 48].copy_from_slice(&digest);
        (index, table) = (index.saturating_add(index_len), table.saturating_add(table_len));
    }
    with_checksum(bytes)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4"))
}

#[test]
fn an_artifact_round_trips_every_body_etag_and_coding() {
    let in_memory = foundry_catalog_serving::catalog::Builder::new().build_dir(&examples()).expect("builds in memory");
    let dir = temp("round-trip");
    let file = dir.join("catalog.fcat");
    std::fs::write(&file, example_artifact()).expect("write");
    let loaded = ResponseCatalog::open(&file).expect("loads");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(loaded.slugs(), in_memory.slugs());
    assert_eq!(loaded.codings(), in_memory.codings());
    assert_eq!(loaded.metadata(), in_memory.metadata());
    assert_eq!(loaded.len(), 3);
    for slug in in_memory.slugs() {
        let (a, b) = (in_memory.get(&slug).expect("entry"), loaded.get(&slug).expect("entry"));
        assert_eq!(a, b, "{slug}");
        for &coding in ContentCoding::ALL {
            assert_eq!(
                a.representation(coding).body().expect("body"),
                b.representation(coding).body().expect("body"),
                "{slug} {coding}"
            );
            assert_eq!(a.representation(coding).etag(), b.representation(coding).etag(), "{slug} {coding}");
        }
        assert_eq!(a.modified(), b.modified());
    }
}

#[test]
fn building_twice_gives_the_same_bytes() {
    let (a, b) = (example_artifact(), example_artifact());
    assert_eq!(a, b);
    assert_eq!(&a[..8], b"\x89FCA\r\n\x1a\n");
}

#[test]
fn truncated_files_are_refused_by_name() {
    let bytes = example_artifact();
    for len in [0, 7, 8, 20, 39, 40, 41, bytes.len() / 2, bytes.len() - 1] {
        let error = load(bytes[..len].to_vec()).expect_err("truncated");
        match len {
            0..8 => assert_eq!(error, ArtifactError::NotAnArtifact, "{len}"),
            _ => assert!(matches!(error, ArtifactError::Length { .. }), "{len}: {error}"),
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(load(longer), Err(ArtifactError::Length { .. })));
}

#[test]
fn a_corrupted_byte_is_refused_wherever_it_is() {
    let bytes = example_artifact();
    let bodies = bodies_start(&bytes);
    // What precedes the index fails the checksum: the CRC field, the
    // metadata, the block list and the slug directory's last byte.
    let index = index_start(&bytes);
    for at in [13, HEADER + 2, HEADER + length(&bytes, 16) + 3, index - 1] {
        let mut corrupted = bytes.clone();
        corrupted[at] ^= 0x20;
        let error = load(corrupted).expect_err("corrupted");
        assert!(matches!(error, ArtifactError::Checksum { .. }), "{at}: {error}");
        assert!(error.to_string().contains("corrupted"), "{error}");
    }
    // The index and the table fail their block's digest: read whole, at
    // load; opened, when the block is first used.
    for at in [index, index + length(&bytes, 48), bodies - 1] {
        let mut corrupted = bytes.clone();
        corrupted[at] ^= 0x20;
        let error = load(corrupted).expect_err("corrupted");
        assert!(error.to_string().contains("does not match its digest"), "{at}: {error}");
    }
    // A body fails its ETag: read whole, at load; opened, when it is read.
    let dir = temp("corrupted-body");
    for at in [bodies, (bodies + bytes.len()) / 2, bytes.len() - 1] {
        let mut corrupted = bytes.clone();
        corrupted[at] ^= 0x20;
        let error = load(corrupted.clone()).expect_err("corrupted");
        assert!(matches!(error, ArtifactError::Body { .. }), "{at}: {error}");
        let file = dir.join(format!("{at}.fcat"));
        std::fs::write(&file, &corrupted).expect("write");
        let opened = ResponseCatalog::open(&file).expect("what is checked at open is whole");
        let failures = every_body(&opened).into_iter().filter_map(Result::err).collect::<Vec<_>>();
        // One body is changed, and with a gzip body the body as is inflated from it.
        assert!((1..=2).contains(&failures.len()), "{at}: {failures:?}");
        assert!(matches!(failures[0], ArtifactError::Changed { .. }), "{at}: {}", failures[0]);
        assert!(failures[0].to_string().contains("does not match its ETag"), "{}", failures[0]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every body of every product, page and site document of a catalog, in
/// every coding, as [`foundry_catalog_serving::catalog::Representation::body`] gives it.
pub(crate) fn every_body(catalog: &ResponseCatalog) -> Vec<Result<Bytes, ArtifactError>> {
    let mut entries: Vec<foundry_catalog_serving::catalog::CatalogEntry> =
        catalog.slugs().into_iter().filter_map(|slug| catalog.get(&slug)).collect();
    for path in catalog.page_paths() {
        match catalog.site_resource(&path) {
            Some(SiteResource::Page(entry) | SiteResource::Document(entry) | SiteResource::NotFound(entry)) => {
                entries.push(entry);
            }
            Some(SiteResource::Unavailable) => panic!("{path}: unavailable"),
            None => {}
        }
    }
    if let Some(SiteResource::NotFound(entry)) = catalog.site_resource("/no/such/page") {
        entries.push(entry);
    }
    entries
        .iter()
        .flat_map(|entry| catalog.codings().iter().map(|&coding| entry.representation(coding).body()))
        .collect()
}

#[test]
fn another_format_version_is_refused_with_a_hint() {
    let mut bytes = example_artifact();
    // Version 6: one past the newest this build reads (docs/artifact.md).
    bytes[8..12].copy_from_slice(&6u32.to_le_bytes());
    let error = load(bytes).expect_err("wrong version");
    assert_eq!(error, ArtifactError::Version { found: 6 });
    assert!(error.to_string().contains("rebuild it"), "{error}");
}

#[test]
fn inconsistent_contents_with_a_valid_checksum_are_refused_not_trusted() {
    let bytes = example_artifact();
    let length = |at: usize| length(&bytes, at);
    let index = HEADER + length(16) + length(24) + length(32) + length(40);
    // The first entry's slug length (after `modified` and the source digest) runs past the table.
    let mut far = bytes.clone();
    far[index + 40..index + 44].copy_from_slice(&u32::MAX.to_le_bytes());
    // The first entry's slug is made uppercase in the table, the data region's first part.
    let data = index + length(48);
    let mut upper = bytes.clone();
    upper[data] = upper[data].to_ascii_uppercase();
    // Unknown metadata.
    let mut metadata = bytes.clone();
    metadata[HEADER] = b'[';
    // A record type named outside its form (it would reach logs and metrics).
    let metadata_end = HEADER + length(16);
    let mut label = bytes.clone();
    let at = label[HEADER..metadata_end]
        .windows(b"\"regulatory_status_signal\"".len())
        .position(|w| w == b"\"regulatory_status_signal\"")
        .expect("the metadata names the type");
    label[HEADER + at + 1] = b'R';
    let mut date = bytes.clone();
    date[index] ^= 1;
    // A signature region of the wrong length.
    let mut signature = bytes.clone();
    signature[24] = 5;
    signature.extend_from_slice(&[0; 5]);
    // A body moved into the table: the table one byte longer, the bodies one shorter.
    let mut moved = bytes.clone();
    moved[56..64].copy_from_slice(&(length(56) as u64 + 1).to_le_bytes());
    moved[64..72].copy_from_slice(&(length(64) as u64 - 1).to_le_bytes());
    for (what, bytes) in [
        ("span", far),
        ("slug", upper),
        ("metadata", metadata),
        ("record type", label),
        ("date", date),
        ("signature", signature),
        ("table", moved),
    ] {
        let error = load(with_digests(bytes)).expect_err(what);
        assert!(matches!(error, ArtifactError::Malformed(_)), "{what}: {error}");
        assert!(!error.to_string().contains("does not match its digest"), "{what}: past the digests: {error}");
    }
}

#[test]
fn every_problem_of_every_file_is_reported_with_a_count() {
    let dir = temp("errors");
    for entry in std::fs::read_dir(examples()).expect("examples") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, dir.join(path.file_name().expect("name"))).expect("copy");
    }
    std::fs::write(dir.join("not-json.json"), "{\"slug\": ").expect("write");
    std::fs::write(dir.join("latin-1.json"), b"{\"title\": \"caf\xe9\"}").expect("write");
    std::fs::write(dir.join("two-problems.json"), r#"{"slug": "Two Problems", "title": 3}"#).expect("write");
    let errors = foundry_catalog_serving::catalog::Builder::new().build_dir(&dir).expect_err("three bad manifests");
    let _ = std::fs::remove_dir_all(&dir);
    let files: Vec<&str> =
        errors.errors.iter().map(|e| Path::new(e.file()).file_name().and_then(|n| n.to_str()).unwrap_or("")).collect();
    assert_eq!(files, ["latin-1.json", "not-json.json", "two-problems.json"]);
    assert!(matches!(&errors.errors[0], CatalogError::Read { reason, .. } if reason.contains("not UTF-8")), "{errors}");
    assert_eq!(errors.sources, 6);
    assert_eq!(errors.invalid_files(), 3);
    assert!(errors.problems() >= 4, "{errors}");
    let text = errors.to_string();
    let summary = text.lines().last().unwrap_or_default();
    assert_eq!(summary, format!("error: 3 of 6 manifests are invalid: {} problems", errors.problems()));
}

#[test]
fn a_bad_catalog_fails_at_start_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("foundry-catalog-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("broken-product.json"), "{\"slug\": \"broken-product\"").expect("write");
    let errors =
        foundry_catalog_serving::catalog::Builder::new().build_dir(&dir).expect_err("a broken manifest").to_string();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(errors.contains("broken-product.json:1:"), "{errors}");
}

#[test]
fn duplicate_slugs_name_both_files() {
    let (file, text) = (
        "examples/catalog/crm-webhook-connector.json",
        include_str!("../../../examples/catalog/crm-webhook-connector.json"),
    );
    let errors = foundry_catalog_serving::catalog::Builder::new()
        .build([
            (file.to_owned(), text.to_owned()),
            ("elsewhere/crm-webhook-connector.json".to_owned(), text.to_owned()),
        ])
        .expect_err("duplicate")
        .to_string();
    assert_eq!(
        errors,
        "error: elsewhere/crm-webhook-connector.json: slug `crm-webhook-connector` is also served from examples/catalog/crm-webhook-connector.json; hint: give every product its own slug\n\
         error: 1 of 2 manifests is invalid: 1 problem"
    );
}

/// Giving the builder the shipped record types again changes nothing: the
/// same artifact bytes as without them.
#[test]
fn the_shipped_record_types_given_again_are_the_shipped_ones() {
    let plain = foundry_catalog_serving::catalog::Builder::new().build_dir(&examples()).expect("builds");
    let again = foundry_catalog_serving::catalog::Builder::new()
        .record_types(foundry_catalog::record_types().to_vec())
        .build_dir(&examples())
        .expect("builds");
    assert_eq!(again.artifact().to_vec(), plain.artifact().to_vec());
}

/// A file is judged by its header before memory is taken for it: over the
/// size limit, or not an artifact, it is refused at once; a FIFO is
/// refused, not waited on.
#[test]
fn a_file_is_judged_by_its_header_and_size_before_it_is_read() {
    let dir = temp("bounded");
    let artifact = dir.join("catalog.fcat");
    std::fs::write(&artifact, example_artifact()).expect("write");
    let len = std::fs::metadata(&artifact).expect("written").len();
    let error = Artifact::read_at_most(&artifact, len - 1).expect_err("over the limit");
    assert_eq!(error, ArtifactError::TooLarge { len, max: len - 1 });
    Artifact::read_at_most(&artifact, len).expect("at the limit");

    // 1 GiB of zeros (sparse: no disk, no memory): not an artifact, from
    // its first bytes.
    let zeros = dir.join("zeros.fcat");
    std::fs::File::create(&zeros).and_then(|f| f.set_len(1 << 30)).expect("sparse file");
    assert_eq!(Artifact::read(&zeros).expect_err("zeros"), ArtifactError::NotAnArtifact);
    // A header whose lengths do not add up to the file: refused as such.
    let mut header = example_artifact()[..48].to_vec();
    header.resize(4096, 0);
    std::fs::write(&zeros, &header).expect("write");
    assert!(matches!(Artifact::read(&zeros), Err(ArtifactError::Length { found: 4096, .. })));

    let fifo = dir.join("fifo.fcat");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let error = Artifact::read(&fifo).expect_err("a FIFO");
    assert!(error.to_string().contains("not a regular file"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An output is never written through a link planted at its temporary
/// name: the link's target is untouched, and the output is written.
#[test]
fn an_output_is_never_written_through_a_planted_link() {
    let dir = temp("planted");
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep me").expect("write");
    let output = dir.join("catalog.fcat");
    for attempt in 0..3 {
        let planted = dir.join(format!(".catalog.fcat.tmp-{}-{attempt}", std::process::id()));
        std::os::unix::fs::symlink(&victim, planted).expect("plant a link");
    }
    foundry_catalog_serving::files::replace(&output, |file| std::io::Write::write_all(file, b"new")).expect("writes");
    assert_eq!(std::fs::read_to_string(&victim).expect("readable"), "keep me");
    assert_eq!(std::fs::read_to_string(&output).expect("written"), "new");
    assert!(!std::fs::symlink_metadata(&output).expect("there").file_type().is_symlink());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder's manifests are regular files within a size limit: a link
/// (to `/dev/zero`, say), a FIFO and a file over the limit are each one
/// problem naming the file, and the build neither hangs nor reads them.
#[test]
fn a_manifest_folder_takes_regular_files_only_within_a_limit() {
    let dir = temp("irregular");
    for entry in std::fs::read_dir(examples()).expect("examples") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, dir.join(path.file_name().expect("name"))).expect("copy");
    }
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.json")).expect("link");
    let made = std::process::Command::new("mkfifo").arg(dir.join("fifo.json")).status().expect("mkfifo runs");
    assert!(made.success());
    std::fs::write(dir.join("big.json"), " ".repeat(20_000)).expect("write");
    let builder = foundry_catalog_serving::catalog::Builder::new().max_manifest_len(16_384);
    let errors = builder.build_dir(&dir).expect_err("three problems");
    let text = errors.to_string();
    assert!(text.contains("zero.json: cannot read: a symbolic link"), "{text}");
    assert!(text.contains("fifo.json: cannot read: a FIFO"), "{text}");
    assert!(text.contains("big.json: cannot read: 20000 bytes, over the limit of 16384 for a manifest"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a replica accepts by sequence and expiry.
#[test]
fn a_replica_admits_by_sequence_and_expiry() {
    use std::time::{Duration, UNIX_EPOCH};
    let sources =
        || foundry_catalog::examples::MANIFESTS.iter().map(|(name, text)| (name.to_string(), text.to_string()));
    let build = |builder: foundry_catalog_serving::catalog::Builder| {
        builder
            .codings(&[foundry_catalog_serving::catalog::ContentCoding::Identity])
            .expect("identity")
            .build(sources())
            .expect("builds")
    };
    let now = UNIX_EPOCH + Duration::from_secs(2_000_000_000);
    let at = |n: u64| foundry_catalog_serving::catalog::Builder::new().sequence(n);
    let (seven, eight) = (build(at(7)), build(at(8)));
    let seven = seven.metadata();
    let eight = eight.metadata();
    assert_eq!(eight.admissible(Some(7), Some(seven), now), Ok(()));
    assert_eq!(seven.admissible(Some(8), None, now), Err(ArtifactError::Rollback { sequence: 7, highest: 8 }));
    assert_eq!(seven.admissible(None, Some(eight), now), Err(ArtifactError::Rollback { sequence: 7, highest: 8 }));
    // The higher of the two: the sequence served, past the highest recorded.
    assert_eq!(seven.admissible(Some(6), Some(eight), now), Err(ArtifactError::Rollback { sequence: 7, highest: 8 }));
    assert_eq!(seven.admissible(Some(8), Some(seven), now), Err(ArtifactError::Rollback { sequence: 7, highest: 8 }));
    let unsequenced = build(foundry_catalog_serving::catalog::Builder::new());
    assert_eq!(unsequenced.metadata().admissible(Some(8), None, now), Err(ArtifactError::NoSequence { highest: 8 }));
    assert_eq!(unsequenced.metadata().admissible(None, None, now), Ok(()));
    let other = foundry_catalog::examples::MANIFESTS
        .iter()
        .map(|(n, t)| (n.to_string(), t.replace("EU ", "EU, ")))
        .collect::<Vec<_>>();
    let reused = at(8)
        .codings(&[foundry_catalog_serving::catalog::ContentCoding::Identity])
        .expect("identity")
        .build(other)
        .expect("builds");
    assert_eq!(
        reused.metadata().admissible(Some(8), Some(eight), now),
        Err(ArtifactError::SequenceReused { sequence: 8 })
    );
    assert_eq!(eight.admissible(Some(8), Some(eight), now), Ok(()), "the same artifact again");

    let expiring = build(at(9).expires(now));
    assert_eq!(expiring.metadata().admissible(Some(8), None, now - Duration::from_secs(1)), Ok(()));
    let error = expiring.metadata().admissible(Some(8), None, now).expect_err("expired");
    assert_eq!(error, ArtifactError::Expired { expired: "2033-05-18T03:33:20Z".to_owned() });
    assert!(expiring.metadata().expired(now) && !expiring.metadata().expired(now - Duration::from_secs(1)));
}

/// A catalog opened from its file keeps the bodies it has read and
/// checked while its cache has room, never more than the limit, reads a
/// body past it again at each request, and gives everything back when it
/// is dropped.
#[test]
fn the_body_cache_keeps_checked_bodies_up_to_its_limit_and_gives_them_back() {
    use foundry_catalog_serving::catalog::{BodyCache, OpenOptions};
    let dir = temp("body-cache");
    let file = dir.join("catalog.fcat");
    std::fs::write(&file, example_artifact()).expect("write");
    // Below the bodies of the example catalog, with or without compression (16,607 bytes without).
    let limit = 10_000;
    let cache = BodyCache::new(limit);
    let opened = ResponseCatalog::open_with(&file, &OpenOptions::default().body_cache(cache.clone())).expect("opens");
    assert!(opened.reads_bodies_from_file());
    let first = every_body(&opened);
    let total: u64 = first.iter().map(|body| body.as_ref().expect("checked").len() as u64).sum();
    assert!(total > limit, "the bodies do not all fit: {total} bytes");
    let kept = cache.kept_bytes();
    assert!(kept > 0 && kept <= limit, "{kept} of {limit} bytes kept");
    // Each body read and checked once; a body as is inflated from gzip
    // reads (and checks) its gzip body too, which a request for the gzip
    // body then finds kept, if there was room for it.
    let inflated = opened.slugs().len() + opened.page_paths().len();
    let reads = cache.reads();
    assert!((first.len() as u64..=(first.len() + inflated) as u64).contains(&reads), "{reads} reads");
    let second = every_body(&opened);
    assert_eq!(first, second);
    assert!(cache.reads() > first.len() as u64, "bodies past the limit are read again");
    assert_eq!(cache.kept_bytes(), kept, "and not kept");
    // Another catalog sharing the cache finds no room left beyond the limit.
    let other = ResponseCatalog::open_with(&file, &OpenOptions::default().body_cache(cache.clone())).expect("opens");
    every_body(&other);
    assert!(cache.kept_bytes() <= limit);
    drop(opened);
    drop(other);
    assert_eq!(cache.kept_bytes(), 0, "a dropped catalog gives its bodies back");
    assert_eq!(cache.failures(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A FIFO where an artifact should be is refused at once, never waited
/// on, by every way of opening one (a replica's state folder, a build's
/// previous artifact, a served file).
#[test]
fn a_fifo_in_place_of_an_artifact_is_refused_without_waiting() {
    let dir = temp("fifo");
    let fifo = dir.join("last-good.fcat");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let (send, receive) = std::sync::mpsc::channel();
    let path = fifo.clone();
    std::thread::spawn(move || {
        let whole = Artifact::read(&path).map(|_| ());
        let head = Artifact::open(&path, 1 << 20).map(|_| ());
        let built_on = ResponseCatalog::open_to_build_on(&path).map(|_| ());
        let _ = send.send((whole, head, built_on));
    });
    let (whole, head, built_on) =
        receive.recv_timeout(std::time::Duration::from_secs(10)).expect("answered at once, not waiting on the FIFO");
    for result in [whole, head, built_on] {
        assert!(
            matches!(&result, Err(ArtifactError::Read(reason)) if reason.contains("not a regular file")),
            "{result:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A build that stores gzip stores no body as is: each is its gzip body
/// inflated, served with the bytes and ETag an identity-only build
/// stores, read from the file or held in memory.
#[cfg(feature = "compression")]
#[test]
fn a_build_with_gzip_stores_no_body_as_is_and_serves_it_the_same() {
    use foundry_catalog_serving::catalog::Builder;
    let build = |codings: &[ContentCoding]| {
        let builder = Builder::new().codings(codings).expect("available");
        #[cfg(feature = "pages")]
        let builder = builder.pages(crate::pages::pages("https://catalog.example.com"));
        builder.build_dir(&examples()).expect("builds")
    };
    let plain = build(&[ContentCoding::Identity]);
    let both = build(&[ContentCoding::Identity, ContentCoding::Gzip]);
    let (plain_bytes, both_bytes) = (plain.artifact().to_vec(), both.artifact().to_vec());
    let holds = |bytes: &[u8], text: &[u8]| bytes.windows(text.len()).any(|w| w == text);
    assert!(holds(&plain_bytes, b"{\"data\":{\"slug\":"), "an identity-only build stores the bodies as is");
    assert!(!holds(&both_bytes, b"{\"data\":{\"slug\":"), "a build with gzip stores none");
    #[cfg(feature = "pages")]
    assert!(!holds(&both_bytes, b"<!DOCTYPE html>"), "nor any page as is");
    let dir = temp("inflated");
    let file = dir.join("catalog.fcat");
    std::fs::write(&file, &both_bytes).expect("write");
    let opened = ResponseCatalog::open(&file).expect("opens");
    let parsed = load(both_bytes).expect("parses");
    let _ = std::fs::remove_dir_all(&dir);
    for slug in plain.slugs() {
        let expected = plain.get(&slug).expect("built").representation(ContentCoding::Identity);
        for catalog in [&both, &opened, &parsed] {
            let identity = catalog.get(&slug).expect("built").representation(ContentCoding::Identity);
            assert_eq!((identity.etag(), identity.len()), (expected.etag(), expected.len()), "{slug}");
            assert_eq!(identity.body().expect("inflated"), expected.body().expect("stored"), "{slug}");
        }
    }
    #[cfg(feature = "pages")]
    assert!(!plain.page_paths().is_empty());
    for path in plain.page_paths() {
        let page = |catalog: &ResponseCatalog| match catalog.site_resource(&path) {
            Some(SiteResource::Page(entry) | SiteResource::Document(entry)) => entry.body().expect("a page"),
            _ => panic!("{path} is a page or a site document"),
        };
        assert_eq!(page(&opened), page(&plain), "{path}");
    }
}

/// The metadata's generator name reaches the server's log and a build's
/// notes: one that holds a newline, a terminal escape or an invisible
/// bidirectional override (each could forge a log line) is refused at
/// load, named as an escaped string.
#[test]
fn a_generator_name_that_could_forge_a_log_line_is_refused() {
    let bytes = example_artifact();
    let meta_at = HEADER;
    let meta = &bytes[meta_at..meta_at + length(&bytes, 16)];
    let text = std::str::from_utf8(meta).expect("JSON");
    let generator = serde_json::from_str::<serde_json::Value>(text).expect("JSON")["generator"]
        .as_str()
        .expect("a generator")
        .to_owned();
    assert!(load(bytes.clone()).is_ok(), "the artifact as built loads");
    // Each replacement is as long, escaped in JSON, as the name's first two bytes.
    for forged in ["\\n", "\\u001b", "\\u202e"] {
        let quoted = format!("\"generator\":\"{generator}\"");
        let replaced = format!("\"generator\":\"{forged}{}\"", &generator[forged.len()..]);
        assert_eq!(quoted.len(), replaced.len());
        let edited = text.replacen(&quoted, &replaced, 1);
        assert_ne!(edited, text, "the generator is in the metadata as {quoted}");
        let mut forged_bytes = bytes.clone();
        forged_bytes[meta_at..meta_at + meta.len()].copy_from_slice(edited.as_bytes());
        let error = load(with_checksum(forged_bytes)).expect_err("refused").to_string();
        assert!(error.contains("the generator's name") && error.contains("control or invisible"), "{error}");
        assert!(!error.contains('\n') && !error.contains('\u{1b}') && !error.contains('\u{202e}'), "{error:?}");
    }
}

/// A build whose bodies are spooled to a folder as they are made
/// (`Builder::spool_bodies`, what `build -o` does) writes the same bytes
/// as one that holds them in memory, with pages and without, serves the
/// same bodies, and leaves nothing in the folder; a folder it cannot
/// write to fails the build naming it.
#[test]
fn a_build_spooling_its_bodies_writes_what_a_build_in_memory_writes() {
    use foundry_catalog_serving::catalog::Builder;
    let dir = temp("spool");
    // Enough products that each thread seals several blocks (64 KiB and up).
    let manifests = temp("spool-manifests");
    for entry in std::fs::read_dir(examples()).expect("the examples") {
        let text = std::fs::read_to_string(entry.expect("listed").path()).expect("read");
        let manifest: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        for n in 0..100 {
            let mut copy = manifest.clone();
            let slug = format!("{}-{n}", manifest["slug"].as_str().expect("a slug"));
            copy["title"] = serde_json::json!(format!("Product {n}"));
            copy["slug"] = serde_json::json!(slug);
            std::fs::write(manifests.join(format!("{slug}.json")), copy.to_string()).expect("written");
        }
    }
    #[allow(unused_mut)]
    let mut builders = vec![Builder::new()];
    #[cfg(feature = "pages")]
    {
        let site = foundry_catalog_pages::Site::new("https://catalog.example.com").expect("a site");
        builders.push(Builder::new().pages(foundry_catalog_pages::Pages::new(site)));
    }
    for builder in builders {
        let in_memory = builder.clone().build_dir(&manifests).expect("builds");
        let spooled = builder.clone().spool_bodies(&dir).build_dir(&manifests).expect("builds");
        assert!(!spooled.artifact().bodies_in_files(), "built here, whatever holds the bodies");
        let out = dir.join("out.fcat");
        let mut file = std::fs::File::create(&out).expect("created");
        spooled.write_file(&mut file).expect("written");
        assert!(std::fs::read(&out).expect("read") == in_memory.artifact().to_vec(), "the same bytes");
        assert!(spooled.artifact().to_vec() == in_memory.artifact().to_vec());
        for slug in in_memory.slugs() {
            let (a, b) = (in_memory.get(&slug).expect("built"), spooled.get(&slug).expect("built"));
            for &coding in in_memory.codings() {
                let (a, b) = (a.representation(coding), b.representation(coding));
                assert_eq!((a.etag(), a.body().expect("body")), (b.etag(), b.body().expect("body")), "{slug}");
            }
        }
        std::fs::remove_file(&out).expect("removed");
        let left: Vec<_> = std::fs::read_dir(&dir).expect("listed").collect();
        assert!(left.is_empty(), "the spool files are not in the folder: {left:?}");
    }
    let missing = dir.join("no-such-folder");
    let errors = Builder::new().spool_bodies(&missing).build_dir(&examples()).expect_err("no folder");
    assert!(
        errors
            .errors
            .iter()
            .all(|e| matches!(e, CatalogError::Spool { dir, .. } if *dir == missing.display().to_string())),
        "{errors}"
    );
    assert!(errors.to_string().contains("cannot write the build's bodies there"), "{errors}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&manifests);
}

/// A previous artifact whose stamps say it is as its build wrote it has
/// its head's forms taken as that build made them, yet every block of
/// its head is still checked against the block list: a block changed
/// since (its stamps made again to match the changed file, as a forged
/// stamp could) is refused, as without stamps.
#[test]
fn a_stamped_previous_artifacts_blocks_are_still_checked_against_the_block_list() {
    let dir = temp("stamped-blocks");
    let (file, stamps) = (dir.join("catalog.fcat"), dir.join("catalog.fcat.stamps"));
    let built = foundry_catalog_serving::catalog::Builder::new().build_dir(&examples()).expect("builds");
    let mut bytes = built.artifact().to_vec();
    // A slug in the head's table (before any body holds it), changed to another slug.
    let slug = b"lead-signal-extractor";
    let at = bytes.windows(slug.len()).position(|w| w == slug).expect("the slug");
    bytes[at] = b'x';
    std::fs::write(&file, with_checksum(bytes)).expect("write");
    let stamp = |file: &Path| {
        let written = std::fs::metadata(file).expect("metadata");
        let mut text = Vec::new();
        assert!(built.write_stamps(&mut text, Some(&written)).expect("stamps"));
        std::fs::write(&stamps, &text).expect("write");
    };
    stamp(&file);
    let error = ResponseCatalog::open_to_build_on_stamped(&file, &stamps).map(|_| ()).expect_err("refused");
    assert!(error.to_string().contains("does not match its digest in the block list"), "{error}");
    assert!(ResponseCatalog::open_to_build_on(&file).is_err());
    // The block list's digests made again to match (a consistent head
    // whose slug is not where the slug directory finds it): refused by
    // its forms unless stamps say the file is as its build wrote it; a
    // forged stamp has its forms taken as they are (docs/artifact.md),
    // which a server checks again before serving any of it.
    let mut slug_moved = built.artifact().to_vec();
    slug_moved[at] = b'x';
    std::fs::write(&file, with_digests(slug_moved)).expect("write");
    let unstamped = {
        let mut text = Vec::new();
        assert!(built.write_stamps(&mut text, None).expect("stamps"));
        text
    };
    std::fs::write(&stamps, &unstamped).expect("write");
    let error = ResponseCatalog::open_to_build_on_stamped(&file, &stamps).map(|_| ()).expect_err("refused");
    assert!(error.to_string().contains("is not where the slug directory finds it"), "{error}");
    stamp(&file);
    let (_, read) = ResponseCatalog::open_to_build_on_stamped(&file, &stamps).expect("its forms taken as they are");
    assert_eq!(read, Ok(true));
    let served = ResponseCatalog::open(&file).expect("a head read a block at a time");
    assert!(served.lookup("lead-signal-extractor").is_err(), "a server refuses the block");
    // The same file as built, stamped: opened, its stamps used.
    std::fs::write(&file, built.artifact().to_vec()).expect("write");
    stamp(&file);
    let (_, read) = ResponseCatalog::open_to_build_on_stamped(&file, &stamps).expect("opens");
    assert_eq!(read, Ok(true));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A previous artifact opened with its stamps: its content digest is
/// checked unless the stamps say the file is the one its build wrote. A
/// file whose content digest is wrong (its blocks and CRC-32 made good,
/// as an unsigned file can be) is refused when its stamps are another
/// artifact's, and when they are its own but the file is not the one
/// they stamped.
#[test]
fn a_previous_artifact_is_checked_whole_unless_its_stamps_say_it_is_as_written() {
    let dir = temp("stamped");
    let (file, stamps) = (dir.join("catalog.fcat"), dir.join("catalog.fcat.stamps"));
    let built = foundry_catalog_serving::catalog::Builder::new().build_dir(&examples()).expect("builds");
    let mut out = std::fs::File::create(&file).expect("create");
    built.write_file(&mut out).expect("written");
    drop(out);
    let written = std::fs::metadata(&file).expect("metadata");
    let mut text = Vec::new();
    assert!(built.write_stamps(&mut text, Some(&written)).expect("stamps"));
    std::fs::write(&stamps, &text).expect("write");
    let (_, read) = ResponseCatalog::open_to_build_on_stamped(&file, &stamps).expect("opens");
    assert_eq!(read, Ok(true));

    // The content digest changed in the metadata, the CRC-32 made good.
    let digest = built.metadata().content_sha256.clone();
    let other = "0".repeat(64);
    let mut bytes = std::fs::read(&file).expect("read");
    let at = bytes.windows(64).position(|w| w == digest.as_bytes()).expect("the digest");
    bytes[at..at + 64].copy_from_slice(other.as_bytes());
    let wrong = dir.join("wrong.fcat");
    std::fs::write(&wrong, with_checksum(bytes)).expect("write");
    let refused = |result: Result<(ResponseCatalog, Result<bool, String>), ArtifactError>| {
        let error = result.map(|_| ()).expect_err("refused").to_string();
        assert!(error.contains("content_sha256 is"), "{error}");
    };
    // Stamps of another artifact: not used, and the digest is checked.
    refused(ResponseCatalog::open_to_build_on_stamped(&wrong, &stamps));
    // Its own digest in the stamps, but they stamped another file.
    let at = text.windows(64).position(|w| w == digest.as_bytes()).expect("the digest");
    text[at..at + 64].copy_from_slice(other.as_bytes());
    std::fs::write(&stamps, text).expect("write");
    refused(ResponseCatalog::open_to_build_on_stamped(&wrong, &stamps));
    refused(ResponseCatalog::open_to_build_on(&wrong).map(|catalog| (catalog, Ok(false))));
    let _ = std::fs::remove_dir_all(&dir);
}
