//! Packed artifacts (`Artifact::write_packed`, `build --packs`): one
//! artifact file's bytes, stored as ranges of packs named by a small list;
//! an edit writes its new head and what changed, not the catalog; the
//! packs no list names are removed and those a list names stay few; a
//! list is read as an attacker could have written it.

use std::path::{Path, PathBuf};

use foundry_catalog_serving::artifact::{Artifact, ArtifactError, Summary};
use foundry_catalog_serving::catalog::{Builder, ResponseCatalog};
use foundry_catalog_serving::endpoint::{Request, answer};

use crate::incremental::manifest;

/// A folder of its own, removed when the test ends, however it ends.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let dir = std::env::temp_dir().join(format!("foundry-catalog-packs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Folder(dir)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The packs in its `fcpacks` folder, by name, sorted.
    fn packs(&self) -> Vec<String> {
        let mut packs: Vec<String> = std::fs::read_dir(self.join("fcpacks"))
            .expect("fcpacks")
            .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".fcpack"))
            .collect();
        packs.sort();
        packs
    }

    /// The length of its pack `pack` (by name).
    fn pack_len(&self, pack: &String) -> u64 {
        std::fs::metadata(self.join("fcpacks").join(pack)).expect("a pack").len()
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The packs the pack list at `list` names, by name, sorted, each once.
fn named(list: &Path) -> Vec<String> {
    let list = std::fs::read(list).expect("list");
    let ranges = u32::from_le_bytes(list[12..16].try_into().expect("count")) as usize;
    let mut named: Vec<String> =
        (0..ranges).map(|r| format!("{}.fcpack", hex::encode(&list[24 + 48 * r..24 + 48 * r + 32]))).collect();
    named.sort();
    named.dedup();
    named
}

/// `a` and `b`, each once, sorted.
fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut all: Vec<String> = a.iter().chain(b).cloned().collect();
    all.sort();
    all.dedup();
    all
}

/// `n` products, product `k` titled `titles(k)`.
fn sources(n: usize, title: impl Fn(usize) -> String) -> Vec<(String, String)> {
    (0..n).map(|k| manifest(k, &title(k))).collect()
}

fn build(sources: &[(String, String)], previous: Option<&ResponseCatalog>) -> ResponseCatalog {
    let mut builder = Builder::new();
    if let Some(previous) = previous {
        builder.previous(previous).expect("usable");
    }
    builder.build(sources.to_vec()).expect("builds")
}

/// The bytes of the artifact stored at `path`, read back whole.
fn stored(path: &Path) -> Vec<u8> {
    Artifact::read(path).expect("reads").to_vec()
}

#[test]
fn a_packed_artifact_is_the_one_files_bytes_and_an_edit_writes_what_changed() {
    let folder = Folder::new("edit");
    let path = folder.join("catalog.fcat");
    let mut titles = sources(400, |k| format!("Product {k}"));
    let first = build(&titles, None);
    let tally = first.write_packed(&path).expect("writes");
    assert_eq!((tally.written, tally.kept), (first.artifact().file_len(), 0));
    assert!(stored(&path) == first.artifact().to_vec(), "a packed artifact holds the one file's bytes");
    let list_len = std::fs::metadata(&path).expect("list").len();
    assert!(list_len < 200, "the list is {list_len} bytes");
    assert_eq!(folder.packs().len(), 2, "a head pack and a bodies pack");

    // One title edited, built on the packed artifact as opened from its folder.
    titles[123] = manifest(123, "Product 123, edited");
    let previous = ResponseCatalog::open_to_build_on(&path).expect("opens");
    let edited = build(&titles, Some(&previous));
    let before = folder.packs();
    let tally = edited.write_packed(&path).expect("writes");
    drop(previous);
    let full = build(&titles, None).artifact().to_vec();
    assert!(stored(&path) == full, "the edit's packed artifact is a full build's bytes");
    assert_eq!(tally.kept + tally.written, edited.artifact().file_len(), "every byte is written or named");
    assert!(
        tally.written * 5 < full.len() as u64 && tally.kept * 2 > full.len() as u64,
        "an edit writes its head and what changed ({} of {} bytes), and names the rest",
        tally.written,
        full.len()
    );
    // The head's blocks that did not change are named in the first head's
    // pack (the smaller of the first two here: 400 products' head against
    // their bodies): what is written is less than that head.
    assert!(before.iter().all(|pack| named(&path).contains(pack)), "the first packs are named still");
    let first_head = before.iter().map(|pack| folder.pack_len(pack)).min().unwrap_or_default();
    assert!(tally.written < first_head, "{} bytes written, where the head was {first_head}", tally.written);
    // The list it replaced keeps its packs until the next build: a reader
    // that opened that list a moment before finds them.
    assert_eq!(tally.removed, 0, "the replaced list's packs stay for one build");
    assert_eq!(folder.packs(), union(&before, &named(&path)));
    titles[124] = manifest(124, "Product 124, edited");
    let previous = ResponseCatalog::open_to_build_on(&path).expect("opens");
    let (named_before, in_folder) = (named(&path), folder.packs());
    let tally = build(&titles, Some(&previous)).write_packed(&path).expect("writes");
    drop(previous);
    let kept = union(&named_before, &named(&path));
    assert_eq!(folder.packs(), kept, "the packs of this list and of the one it replaced");
    assert_eq!(tally.removed, in_folder.iter().filter(|pack| !kept.contains(pack)).count());
    let full = build(&titles, None).artifact().to_vec();

    // Served from its folder as the one file is.
    let served = ResponseCatalog::open(&path).expect("serves");
    let full = ResponseCatalog::from_artifact(Artifact::parse(full.into()).expect("parses")).expect("loads");
    for slug in ["product-123", "product-0", "product-399"] {
        let path = format!("/api/public/foundry/products/{slug}");
        assert_eq!(answer(&served, &Request::new("GET", &path)), answer(&full, &Request::new("GET", &path)));
    }
}

#[test]
fn packs_another_list_names_are_kept_and_a_list_names_few_packs() {
    let folder = Folder::new("many");
    let (a, b) = (folder.join("a.fcat"), folder.join("b.fcat"));
    let mut titles = sources(200, |k| format!("Product {k}"));
    build(&titles, None).write_packed(&a).expect("writes");
    let a_packs = folder.packs();
    // b is an edit of a, in the same folder: a's packs are kept while a's
    // list names them.
    titles[7] = manifest(7, "Seven");
    let on_a = ResponseCatalog::open_to_build_on(&a).expect("opens");
    build(&titles, Some(&on_a)).write_packed(&b).expect("writes");
    drop(on_a);
    assert!(a_packs.iter().all(|pack| folder.packs().contains(pack)), "a's packs are kept");
    assert!(stored(&a) == build(&sources(200, |k| format!("Product {k}")), None).artifact().to_vec());
    std::fs::remove_file(&a).expect("remove a");

    // A pack a build left half written (it was stopped) is removed by the
    // next build into the folder.
    let left = folder.join("fcpacks").join(".new-4000000-0.fcpack.tmp");
    std::fs::write(&left, b"half a pack").expect("write");

    // Many edits of b: its list names at most 16 packs, and the folder
    // holds no pack but those it names and those of the list it replaced,
    // after each.
    for edit in 0..24 {
        titles[edit * 7 % 200] = manifest(edit * 7 % 200, &format!("Edit {edit}"));
        let previous = ResponseCatalog::open_to_build_on(&b).expect("opens");
        let replaced = named(&b);
        build(&titles, Some(&previous)).write_packed(&b).expect("writes");
        drop(previous);
        let now = named(&b);
        assert!(now.len() <= 16, "edit {edit}: the list names {} packs", now.len());
        assert_eq!(folder.packs(), union(&replaced, &now), "edit {edit}: the packs of this list and the last");
        assert!(!left.exists(), "a half-written pack is removed");
    }
    assert!(stored(&b) == build(&titles, None).artifact().to_vec(), "after every edit, a full build's bytes");
}

/// `list` with its CRC-32 made good.
fn with_crc(mut list: Vec<u8>) -> Vec<u8> {
    let end = list.len() - 4;
    let crc = crc32fast::hash(&list[..end]);
    list[end..].copy_from_slice(&crc.to_le_bytes());
    list
}

#[test]
fn a_broken_pack_list_is_refused_never_followed_or_waited_on() {
    let folder = Folder::new("hostile");
    let path = folder.join("catalog.fcat");
    build(&sources(50, |k| format!("Product {k}")), None).write_packed(&path).expect("writes");
    let good = std::fs::read(&path).expect("list");
    let packs = folder.packs();
    let refused = |list: &[u8], why: &str| {
        std::fs::write(&path, list).expect("write");
        let error = Artifact::open(&path, u64::MAX).expect_err(why);
        assert!(ResponseCatalog::open(&path).is_err(), "{why}");
        error.to_string()
    };
    let u64_le = |n: u64| n.to_le_bytes();
    // Cut, or a byte changed: its length or its CRC-32 says so.
    refused(&good[..good.len() - 1], "cut");
    let mut flipped = good.clone();
    flipped[30] ^= 1;
    assert!(refused(&flipped, "a changed byte").contains("CRC-32"));
    // More ranges than its length holds, checked before they are read.
    let mut more = good.clone();
    more[12..16].copy_from_slice(&1_000_000u32.to_le_bytes());
    assert!(refused(&with_crc(more), "a count its length does not hold").contains("1000000 ranges"));
    // Ranges that do not add up to the length, or an empty one.
    let mut longer = good.clone();
    longer[16..24].copy_from_slice(&u64_le(u64::from_le_bytes(good[16..24].try_into().unwrap()) + 1));
    assert!(refused(&with_crc(longer), "ranges short of the length").contains("add up"));
    let mut empty = good.clone();
    let first_len = u64::from_le_bytes(good[64..72].try_into().unwrap());
    empty[64..72].copy_from_slice(&u64_le(0));
    empty[16..24].copy_from_slice(&u64_le(u64::from_le_bytes(good[16..24].try_into().unwrap()) - first_len));
    assert!(refused(&with_crc(empty), "an empty range").contains("empty range"));
    // A pack no file is, and bytes past a pack's end.
    let mut missing = good.clone();
    missing[24] ^= 0xff;
    refused(&with_crc(missing), "a pack that is not there");
    let mut past = good.clone();
    past[56..64].copy_from_slice(&u64_le(1 << 40));
    assert!(refused(&with_crc(past), "a range past its pack").contains("which has"));
    // Another version.
    let mut version = good.clone();
    version[8] = 2;
    assert!(refused(&with_crc(version), "version 2").contains("version 2"));

    // A pack that is a link (to the pack itself, renamed), a FIFO, or a
    // packs folder that is a link: refused, never followed or waited on.
    std::fs::write(&path, &good).expect("write");
    let pack = folder.join("fcpacks").join(&packs[0]);
    let moved = folder.join("moved.fcpack");
    std::fs::rename(&pack, &moved).expect("rename");
    std::os::unix::fs::symlink(&moved, &pack).expect("symlink");
    assert!(Artifact::open(&path, u64::MAX).is_err(), "a pack through a link");
    std::fs::remove_file(&pack).expect("remove link");
    rustix::fs::mknodat(rustix::fs::CWD, &pack, rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o600), 0)
        .expect("fifo");
    assert!(Artifact::open(&path, u64::MAX).is_err(), "a FIFO for a pack");
    std::fs::remove_file(&pack).expect("remove fifo");
    std::fs::rename(&moved, &pack).expect("rename back");
    let packs_dir = folder.join("fcpacks");
    let elsewhere = folder.join("elsewhere");
    std::fs::rename(&packs_dir, &elsewhere).expect("rename");
    std::os::unix::fs::symlink(&elsewhere, &packs_dir).expect("symlink");
    assert!(Artifact::open(&path, u64::MAX).is_err(), "a packs folder through a link");
    std::fs::remove_file(&packs_dir).expect("remove link");
    std::fs::rename(&elsewhere, &packs_dir).expect("rename back");
    assert!(Artifact::open(&path, u64::MAX).is_ok(), "the list as written opens");
}

#[test]
fn a_pack_list_fetched_alone_is_named_as_such() {
    let folder = Folder::new("alone");
    let path = folder.join("catalog.fcat");
    build(&sources(5, |k| format!("Product {k}")), None).write_packed(&path).expect("writes");
    let list = std::fs::read(&path).expect("list");
    // What a replica judges of an origin's first bytes, and a parse of a
    // download.
    assert_eq!(Summary::len_needed(&list, list.len() as u64), Err(ArtifactError::Packed));
    assert_eq!(Artifact::parse(list.into()).err(), Some(ArtifactError::Packed));
}

/// Edits that leave most of the packs' bytes named by no range (old
/// versions of edited products) make the next write one pack of bodies
/// again: the packs never hold more than about twice the artifact.
#[test]
fn packs_that_hold_twice_the_artifact_are_written_again_as_one() {
    let folder = Folder::new("compact");
    let path = folder.join("catalog.fcat");
    let mut titles = sources(200, |k| format!("Product {k}"));
    build(&titles, None).write_packed(&path).expect("writes");
    let mut compacted = Vec::new();
    for (round, edited) in [0..100, 30..170, 100..200].into_iter().enumerate() {
        for k in edited {
            titles[k] = manifest(k, &format!("Product {k}, round {round}"));
        }
        let previous = ResponseCatalog::open_to_build_on(&path).expect("opens");
        let built = build(&titles, Some(&previous));
        let tally = built.write_packed(&path).expect("writes");
        drop(previous);
        let held: u64 = named(&path).iter().map(|pack| folder.pack_len(pack)).sum();
        assert!(
            held <= 2 * built.artifact().file_len() + built.artifact().file_len() / 2,
            "round {round}: the list names {held} bytes of packs"
        );
        assert!(stored(&path) == built.artifact().to_vec());
        compacted.push(tally.compacted);
    }
    assert_eq!(compacted, [false, true, false], "the second round would leave 2.2 times the bodies in packs");
    assert_eq!(
        named(&path).len(),
        4,
        "the compacted head and bodies, and the third round's head (its changed blocks) and bodies"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any bytes changed in a pack list, its CRC-32 made good (as a
    /// forger would), and any length: opening it is refused or gives an
    /// artifact whose bytes are read back as checked; never a panic, never
    /// a wait.
    #[test]
    fn a_forged_pack_list_is_refused_or_read_never_a_panic(
        flips in proptest::collection::vec((proptest::prelude::any::<proptest::sample::Index>(), proptest::prelude::any::<u8>()), 1..6),
        cut in proptest::prelude::any::<proptest::sample::Index>(),
        cut_it in proptest::prelude::any::<bool>(),
    ) {
        let folder = Folder::new("forged");
        let path = folder.join("catalog.fcat");
        let built = build(&sources(3, |k| format!("Product {k}")), None);
        built.write_packed(&path).expect("writes");
        let mut list = std::fs::read(&path).expect("list");
        for (at, value) in flips {
            let at = at.index(list.len() - 4);
            list[at] = value;
        }
        let mut list = with_crc(list);
        if cut_it {
            list.truncate(cut.index(list.len()));
        }
        std::fs::write(&path, &list).expect("write");
        if let Ok(artifact) = Artifact::open(&path, u64::MAX) {
            // What opens is judged by the artifact's own checks.
            let _ = ResponseCatalog::from_artifact(artifact);
        }
    }
}

/// A pack replaced at its name after the previous artifact was opened (a
/// build beside this one removed it, or wrote it again) is not named: its
/// bytes are copied from the pack as read, so the list written never
/// names a file that is not the one read.
#[test]
fn a_pack_replaced_since_it_was_read_is_copied_not_named() {
    let folder = Folder::new("replaced");
    let (a, b) = (folder.join("a.fcat"), folder.join("b.fcat"));
    let mut titles = sources(60, |k| format!("Product {k}"));
    build(&titles, None).write_packed(&a).expect("writes");
    let previous = ResponseCatalog::open_to_build_on(&a).expect("opens");
    for pack in folder.packs() {
        let (path, copy) = (folder.join("fcpacks").join(&pack), folder.join("copy"));
        std::fs::copy(&path, &copy).expect("copy");
        std::fs::rename(&copy, &path).expect("another file at the pack's name");
    }
    titles[3] = manifest(3, "Three");
    let built = build(&titles, Some(&previous));
    let tally = built.write_packed(&b).expect("writes");
    assert_eq!((tally.kept, tally.written), (0, built.artifact().file_len()), "every byte copied");
    assert!(stored(&b) == built.artifact().to_vec());
}

/// The head blocks the artifact replaced holds are named only when the
/// bytes in its pack are the new head's: a block changed in its pack
/// (the same digest claimed, other bytes) is written anew, never named.
#[test]
fn a_head_block_changed_in_its_pack_is_written_not_named() {
    let folder = Folder::new("head-changed");
    let path = folder.join("catalog.fcat");
    let mut titles = sources(400, |k| format!("Product {k}"));
    build(&titles, None).write_packed(&path).expect("writes");
    // The head's pack, the smaller of the two (as above), a byte of its
    // last quarter (table bytes of the last blocks) changed in place.
    let head = folder.packs().into_iter().min_by_key(|pack| folder.pack_len(pack)).expect("packs");
    let head = folder.join("fcpacks").join(head);
    let mut bytes = std::fs::read(&head).expect("the head's pack");
    let at = bytes.len() * 3 / 4;
    bytes[at] ^= 0x01;
    std::fs::write(&head, &bytes).expect("changed in place");
    // An edit of the first product, built afresh: the changed block is
    // not the edit's, and its digest is the same.
    titles[0] = manifest(0, "Product 0, edited");
    let built = build(&titles, None);
    let tally = built.write_packed(&path).expect("writes");
    assert!(tally.kept > 0, "the other head blocks are named");
    assert!(stored(&path) == built.artifact().to_vec(), "the changed block written anew");
}
