//! Replicas pulling from an origin: a test origin on loopback that
//! answers as a web server does (ETags, `If-None-Match`, `Range` with
//! `If-Range`), and can be told to misbehave, as a hostile network or a
//! careless operator would.

use std::path::Path;

use super::*;

/// A fault an [`Origin`] can be told to inject.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    /// Answer as a web server does: 200 with the ETag, 304 to a match,
    /// 206 to a range (with [`Origin::ranges`]) unless `If-Range` names
    /// another ETag.
    None,
    /// Close the connection after this many bytes of the body.
    Cut(usize),
    /// Claim a 10 GB body.
    Huge,
    /// Close every connection at once: the origin is down.
    Down,
    /// Take every connection and never answer (for ten seconds).
    Silent,
    /// Take every connection and never answer (for a minute).
    Hang,
    /// Answer `/catalog.fcat` with a redirect to `/moved.fcat`, which is served.
    Redirect,
    /// Answer 500 to everything.
    Status500,
    /// Send, without `Content-Length`, a header whose lengths claim 10 GB.
    HugeHeader,
    /// Once: a byte of the metadata flipped in the first range's answer.
    CorruptProbe,
    /// Once: the first range's answer names a total one byte longer.
    WrongTotal,
    /// Once: a byte flipped in the first answer to a range past the first.
    CorruptRange,
    /// Once: the first answer to a range past the first cut in half.
    CutRange,
    /// Every range past the first answered with the bytes one further on.
    OtherRange,
    /// No ETag on any answer (so never a 304).
    NoEtag,
    /// Every answer for a file of `fcpacks/` is a 404.
    NoPacks,
    /// Every file of `fcpacks/` sent whole (200), whatever range is asked.
    PacksWhole,
}

impl Fault {
    /// Whether it is injected once, then gone.
    fn once(self) -> bool {
        matches!(self, Fault::CorruptProbe | Fault::WrongTotal | Fault::CorruptRange | Fault::CutRange)
    }
}

/// What the test origin serves and how, and what it was asked.
struct Published {
    body: Vec<u8>,
    /// Files served under `/fcpacks/` (a packed artifact's packs), by
    /// name: `Range` answered without `If-Range` (a pack never changes).
    packs: std::collections::BTreeMap<String, Vec<u8>>,
    /// Requests for files of `fcpacks/`, and the body bytes sent for them.
    pack_requests: usize,
    pack_bytes: usize,
    fault: Fault,
    /// Whether `Range` is answered (206); else every GET gets the whole body.
    ranges: bool,
    /// Whether `If-None-Match` is matched only when it names one ETag (as
    /// Varnish does): a list gets the body.
    single_tag_304: bool,
    requests: usize,
    not_modified: usize,
    /// Whole bodies sent (200s without a fault).
    downloads: usize,
    /// Faults injected (each once-only fault counts once).
    injected: usize,
    /// Requests for a range past the first without `If-Range`.
    ranges_without_if_range: usize,
    /// Ranges past the first answered 206.
    ranges_answered: usize,
    /// Body bytes written to the sockets.
    body_bytes: usize,
}

/// A web server on loopback serving one artifact with a strong ETag, as
/// nginx or an object store would, that can be told to misbehave.
struct Origin {
    url: String,
    published: std::sync::Arc<std::sync::Mutex<Published>>,
}

/// `Range: bytes=<first>-<last>`, as numbers.
fn range_of(head: &str) -> Option<(usize, usize)> {
    let value = head.lines().find_map(|line| line.strip_prefix("range:"))?.trim();
    let (first, last) = value.strip_prefix("bytes=")?.split_once('-')?;
    Some((first.parse().ok()?, last.parse().ok()?))
}

impl Origin {
    fn start() -> Origin {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/catalog.fcat", listener.local_addr().expect("addr"));
        let published = std::sync::Arc::new(std::sync::Mutex::new(Published {
            body: Vec::new(),
            packs: Default::default(),
            pack_requests: 0,
            pack_bytes: 0,
            fault: Fault::None,
            ranges: false,
            single_tag_304: false,
            requests: 0,
            not_modified: 0,
            downloads: 0,
            injected: 0,
            ranges_without_if_range: 0,
            ranges_answered: 0,
            body_bytes: 0,
        }));
        let shared = std::sync::Arc::clone(&published);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
                let mut head = Vec::new();
                let mut byte = [0; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 16 << 10 {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => break,
                    }
                }
                let head = String::from_utf8_lossy(&head).to_lowercase();
                let mut state = shared.lock().expect("origin state");
                state.requests += 1;
                let response = match state.fault {
                    Fault::Down => continue,
                    Fault::Silent | Fault::Hang => {
                        let hold = if state.fault == Fault::Hang { 60 } else { 10 };
                        std::thread::spawn(move || {
                            std::thread::sleep(std::time::Duration::from_secs(hold));
                            drop(stream);
                        });
                        continue;
                    }
                    _ => answer(&mut state, &head),
                };
                drop(state);
                let _ = stream.write_all(&response);
            }
        });
        Origin { url, published }
    }

    /// Answers `Range` (with `If-Range`) as a web server does, from now on.
    fn ranges(&self) {
        self.published.lock().expect("origin state").ranges = true;
    }

    /// Matches `If-None-Match` only when it names one ETag, from now on.
    fn single_tag_304(&self) {
        self.published.lock().expect("origin state").single_tag_304 = true;
    }

    /// What it was asked and did: (faults injected, ranges past the first
    /// asked without `If-Range`, ranges past the first answered, body bytes sent).
    fn tally(&self) -> (usize, usize, usize, usize) {
        let state = self.published.lock().expect("origin state");
        (state.injected, state.ranges_without_if_range, state.ranges_answered, state.body_bytes)
    }

    fn publish(&self, body: Vec<u8>, fault: Fault) {
        let mut state = self.published.lock().expect("origin state");
        state.body = body;
        state.fault = fault;
    }

    /// Publishes the packed artifact at `list` (`build --packs`): its
    /// list at the artifact's URL, its packs under `/fcpacks/`.
    fn publish_packed(&self, list: &Path, fault: Fault) {
        let mut packs = std::collections::BTreeMap::new();
        for entry in std::fs::read_dir(list.with_file_name("fcpacks")).expect("packs") {
            let path = entry.expect("entry").path();
            let name = path.file_name().expect("name").to_string_lossy().into_owned();
            packs.insert(name, std::fs::read(&path).expect("a pack"));
        }
        let mut state = self.published.lock().expect("origin state");
        state.packs = packs;
        state.body = std::fs::read(list).expect("a list");
        state.fault = fault;
    }

    /// Requests for packs, and the bytes sent for them.
    fn pack_tally(&self) -> (usize, usize) {
        let state = self.published.lock().expect("origin state");
        (state.pack_requests, state.pack_bytes)
    }

    fn fault(&self, fault: Fault) {
        self.published.lock().expect("origin state").fault = fault;
    }

    fn downloads(&self) -> usize {
        self.published.lock().expect("origin state").downloads
    }

    fn counts(&self) -> (usize, usize) {
        let state = self.published.lock().expect("origin state");
        (state.requests, state.not_modified)
    }
}

/// The origin's answer to a request whose head (lowercased) is `head`.
fn answer(state: &mut Published, head: &str) -> Vec<u8> {
    if let Some(name) = head.strip_prefix("get /fcpacks/").and_then(|rest| rest.split(' ').next()) {
        return answer_pack(state, name, head);
    }
    let etag = format!("\"{}\"", hex(&sha2_digest(&state.body)));
    let etag_line = if state.fault == Fault::NoEtag { String::new() } else { format!("etag: {etag}\r\n") };
    let matches = head
        .lines()
        .filter_map(|line| line.strip_prefix("if-none-match:"))
        .filter(|list| !state.single_tag_304 || !list.contains(','))
        .flat_map(|list| list.split(','))
        .any(|tag| tag.trim() == etag);
    let total = state.body.len();
    // A range is answered when asked for and, with `If-Range`, of the ETag named.
    let if_range = head.lines().find_map(|line| line.strip_prefix("if-range:")).map(str::trim);
    let range = range_of(head)
        .filter(|_| state.ranges && if_range.is_none_or(|tag| tag == etag))
        .filter(|&(first, last)| first <= last && first < total)
        .map(|(first, last)| (first, last.min(total - 1)));
    if range_of(head).is_some_and(|(first, _)| first > 0) && if_range.is_none() {
        state.ranges_without_if_range += 1;
    }
    let fault = state.fault;
    let inject = |state: &mut Published| {
        state.injected += 1;
        if fault.once() {
            state.fault = Fault::None;
        }
    };
    let mut response = match fault {
        Fault::Redirect if head.starts_with("get /catalog.fcat ") => {
            b"HTTP/1.1 301 Moved Permanently\r\nlocation: /moved.fcat\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                .to_vec()
        }
        _ if matches && fault != Fault::NoEtag => {
            state.not_modified += 1;
            format!("HTTP/1.1 304 Not Modified\r\netag: {etag}\r\nconnection: close\r\n\r\n").into_bytes()
        }
        Fault::Huge => b"HTTP/1.1 200 OK\r\ncontent-length: 10000000000\r\nconnection: close\r\n\r\n".to_vec(),
        Fault::HugeHeader => {
            let mut header = state.body[..72].to_vec();
            header[64..72].copy_from_slice(&10_000_000_000_u64.to_le_bytes());
            let mut response = format!("HTTP/1.1 200 OK\r\n{etag_line}connection: close\r\n\r\n").into_bytes();
            response.extend_from_slice(&header);
            return response;
        }
        Fault::Status500 => {
            b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_vec()
        }
        _ if range.is_some() => {
            let (mut first, mut last) = range.unwrap_or_default();
            let mut claimed_total = total;
            let mut bytes_fault = None;
            match fault {
                Fault::CorruptProbe if first == 0 => {
                    inject(state);
                    bytes_fault = Some(70 - first);
                }
                Fault::WrongTotal if first == 0 => {
                    inject(state);
                    claimed_total += 1;
                }
                Fault::CorruptRange if first > 0 => {
                    inject(state);
                    bytes_fault = Some((last - first) / 2);
                }
                Fault::OtherRange if first > 0 && last + 1 < total => {
                    inject(state);
                    (first, last) = (first + 1, last + 1);
                }
                _ => {}
            }
            state.ranges_answered += usize::from(first > 0);
            let mut bytes = state.body[first..=last].to_vec();
            if let Some(at) = bytes_fault.filter(|&at| at < bytes.len()) {
                bytes[at] ^= 0x20;
            }
            let mut response = format!(
                "HTTP/1.1 206 Partial Content\r\ncontent-length: {}\r\ncontent-range: bytes {first}-{last}/{claimed_total}\r\n{etag_line}connection: close\r\n\r\n",
                bytes.len()
            )
            .into_bytes();
            if fault == Fault::CutRange && first > 0 {
                inject(state);
                bytes.truncate(bytes.len() / 2);
            }
            state.body_bytes += bytes.len();
            response.extend_from_slice(&bytes);
            return response;
        }
        fault => {
            let sent = if let Fault::Cut(n) = fault { n } else { total };
            state.downloads += usize::from(matches!(fault, Fault::None | Fault::NoEtag));
            format!("HTTP/1.1 200 OK\r\ncontent-length: {total}\r\n{etag_line}connection: close\r\n\r\n")
                .into_bytes()
                .into_iter()
                .chain(state.body[..sent.min(total)].iter().copied())
                .collect()
        }
    };
    if let Some(body) = response.windows(4).position(|w| w == b"\r\n\r\n") {
        state.body_bytes += response.len() - body - 4;
    }
    response.shrink_to_fit();
    response
}

/// The origin's answer to a request for the pack `name`: its bytes, or a
/// range of them (nginx answers `Range` of a static file), or a 404.
fn answer_pack(state: &mut Published, name: &str, head: &str) -> Vec<u8> {
    state.pack_requests += 1;
    let Some(pack) = state.packs.get(name).filter(|_| state.fault != Fault::NoPacks) else {
        return b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_vec();
    };
    let total = pack.len();
    let asked =
        range_of(head).filter(|&(first, last)| first <= last && first < total && state.fault != Fault::PacksWhole);
    let (status, range, bytes) = match asked {
        Some((first, last)) => {
            let last = last.min(total - 1);
            ("206 Partial Content", format!("content-range: bytes {first}-{last}/{total}\r\n"), &pack[first..=last])
        }
        None => ("200 OK", String::new(), &pack[..]),
    };
    let mut response =
        format!("HTTP/1.1 {status}\r\ncontent-length: {}\r\n{range}connection: close\r\n\r\n", bytes.len())
            .into_bytes();
    response.extend_from_slice(bytes);
    state.pack_bytes += bytes.len();
    response
}

/// Waits (at most 20 s) until `done` is true, failing with `what`.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "never: {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

impl Server {
    /// Whether a line logged after the first `from` contains `text`.
    fn log_has_after(&self, from: usize, text: &str) -> bool {
        self.log.lock().expect("log").iter().skip(from).any(|line| line.contains(text))
    }

    /// How many lines have been logged.
    fn log_len(&self) -> usize {
        self.log.lock().expect("log").len()
    }

    /// Waits (at most 20 s) until a line logged after the first `from`
    /// contains `text`.
    fn wait_for_log_after(&self, from: usize, text: &str) {
        let started = std::time::Instant::now();
        while !self.log.lock().expect("log").iter().skip(from).any(|line| line.contains(text)) {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(20),
                "never logged {text:?}; the log:\n{}",
                self.log.lock().expect("log").join("\n")
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// A replica pulls its catalog from an origin: a new sequence is served
/// within a poll; every bad artifact (older, expired, another key's, a
/// changed body, appended bytes, a cut download, a 10 GB claim over
/// `--max-artifact-bytes`) is refused with its reason while the catalog
/// being served keeps
/// answering; with the origin down it keeps serving and stays ready, and
/// restarts on its last good artifact; a restart with the origin up and
/// unchanged costs one 304.
#[test]
fn a_replica_pulls_from_an_origin_and_refuses_every_bad_artifact() {
    let dir = catalog_copy("origin");
    let work = temp("origin-out");
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
    for name in ["ci", "other"] {
        assert_eq!(run(&["keygen", "--out", &path(&work.join(name))]).status.code(), Some(0));
    }
    let build = |sequence: u64, title: &str, key: &str, extra: &[&str]| -> Vec<u8> {
        retitle(&dir, title);
        let file = work.join(format!("{sequence}.fcat"));
        let mut args = vec!["build", dir.to_str().expect("utf-8"), "-o", file.to_str().expect("utf-8")];
        let (sequence, key) = (sequence.to_string(), path(&work.join(format!("{key}.key"))));
        args.extend(["--codings", "identity", "--sign-key", &key, "--sequence", &sequence]);
        args.extend(extra);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        std::fs::read(&file).expect("built")
    };
    let origin = Origin::start();
    origin.publish(build(1, "Release one", "ci", &[]), Fault::None);
    let state = work.join("state");
    let args = [
        "--catalog",
        &origin.url,
        "--state-dir",
        &path(&state),
        "--verify-key",
        &path(&work.join("ci.pub")),
        "--poll-interval",
        "100ms",
        "--max-artifact-bytes",
        "1GiB",
    ];
    let server = Server::start(&args);
    assert!(server.product().contains("Release one"));
    assert!(state.join("last-good.fcat").is_file() && state.join("last-good.etag").is_file());

    origin.publish(build(2, "Release two", "ci", &[]), Fault::None);
    server.wait_for_product("Release two");

    // Each bad artifact in turn: refused, saying why; "Release two" stays.
    let two = build(2, "Release two", "ci", &[]);
    let mut changed = build(5, "Release five", "ci", &[]);
    let at = changed.len() - 100;
    changed[at] ^= 0x01;
    let changed = with_checksum(changed);
    let mut appended = build(6, "Release six", "ci", &[]);
    appended.extend_from_slice(b"appended");
    let data_len = u64::from_le_bytes(appended[64..72].try_into().expect("8 bytes")) + 8;
    appended[64..72].copy_from_slice(&data_len.to_le_bytes());
    let appended = with_checksum(appended);
    let cases: Vec<(&str, Vec<u8>, Fault, &str)> = vec![
        ("older", build(1, "Release one", "ci", &[]), Fault::None, "refused as a rollback"),
        (
            "expired",
            build(3, "Release three", "ci", &["--expires-at", "2020-01-01T00:00:00Z"]),
            Fault::None,
            "it expired at",
        ),
        ("another key", build(4, "Release four", "other", &[]), Fault::None, "not by a verify key"),
        ("a changed body", changed, Fault::None, "was changed after it was"),
        ("appended bytes", appended, Fault::None, "belong to no product"),
        ("a cut download", build(7, "Release seven", "ci", &[]), Fault::Cut(1000), "the download"),
        ("a 10 GB claim", build(8, "Release eight", "ci", &[]), Fault::Huge, "over the limit of"),
        ("an HTTP 500", build(9, "Release nine", "ci", &[]), Fault::Status500, "the origin answered 500"),
        (
            "a 10 GB header, no Content-Length",
            build(10, "Release ten", "ci", &[]),
            Fault::HugeHeader,
            "the origin's artifact is 1000000",
        ),
    ];
    for (what, body, fault, reason) in cases {
        let (from, downloads) = (server.log_len(), origin.downloads());
        origin.publish(body, fault);
        server.wait_for_log_after(from, reason);
        assert!(server.product().contains("Release two"), "{what}: the catalog being served stays");
        // What the signed head says (sequence, expiry, key) is remembered:
        // refused once, then not downloaded again while the origin holds
        // it. Bytes that do not add up may have been changed on the way:
        // judged again at a later poll, never remembered.
        let verdict = ["older", "expired", "another key"].contains(&what);
        if fault == Fault::None && verdict {
            server.wait_for_log_after(from, "the origin still holds the artifact refused before");
            assert_eq!(origin.downloads(), downloads + 1, "{what}: downloaded once");
        } else if fault == Fault::None {
            wait_until(&format!("{what}: downloaded again"), || origin.downloads() >= downloads + 2);
            assert!(!server.log_has_after(from, "the origin still holds the artifact refused before"), "{what}");
        }
    }
    assert!(!server.log_has("manifest is invalid"), "an artifact's problems are summed up as an artifact's");
    let (_, metrics) = server.fetch("/metrics");
    assert!(metrics.contains("foundry_catalog_last_load_ok 0\n"), "{metrics}");
    assert!(metrics.contains("foundry_catalog_artifact_sequence 2\n"), "{metrics}");
    // Each failure counted for what it was, and said so.
    let failures =
        |reason: &str| metric(&metrics, &format!("foundry_catalog_load_failures_total{{reason=\"{reason}\"}}"));
    assert!(failures("refused") >= 5 && failures("origin_error") >= 2 && failures("unreachable") >= 1, "{metrics}");
    assert_eq!(failures("local") + failures("internal"), 0, "{metrics}");
    assert!(server.log_has("the origin's answer is not an artifact's: the origin answered 500"));
    assert!(server.log_has("the origin is unreachable: the download"), "a cut download");

    // The origin down: still serving, still ready.
    let from = server.log_len();
    origin.fault(Fault::Down);
    server.wait_for_log_after(from, "the origin is unreachable: cannot reach the origin");
    assert!(server.product().contains("Release two"));
    assert_eq!(server.fetch("/readyz").0, 200);
    drop(server);

    // Restarted with the origin down: the last good artifact. A FIFO in
    // place of its ETag file is not waited on (the ETag is then not sent).
    let etag_file = state.join("last-good.etag");
    let etag = std::fs::read(&etag_file).expect("kept");
    std::fs::remove_file(&etag_file).expect("remove");
    assert!(std::process::Command::new("mkfifo").arg(&etag_file).status().expect("mkfifo runs").success());
    let restarted = Server::start(&args);
    assert!(restarted.product().contains("Release two"));
    assert!(restarted.log_has("serving the last good one"));
    drop(restarted);
    std::fs::remove_file(&etag_file).expect("remove");
    std::fs::write(&etag_file, etag).expect("restore");

    // The origin back, unchanged: a restart costs one 304.
    origin.publish(two, Fault::None);
    let (requests, not_modified) = origin.counts();
    let again = Server::start(&[&args[..6], &["--poll-interval", "1h"]].concat());
    assert!(again.product().contains("Release two"));
    assert_eq!(origin.counts(), (requests + 1, not_modified + 1), "one request, answered 304");
    drop(again);

    // The origin holding an artifact it must refuse (an older one): a
    // restart serves the last good one rather than nothing.
    origin.publish(build(1, "Release one", "ci", &[]), Fault::None);
    let refused = Server::start(&[&args[..6], &["--poll-interval", "1h"]].concat());
    assert!(refused.product().contains("Release two"));
    assert!(refused.log_has("the origin's artifact is refused"), "the log says why");
    drop(refused);

    // A redirect is followed, and said.
    origin.fault(Fault::Redirect);
    let redirected = Server::start(&[&args[..6], &["--poll-interval", "1h"]].concat());
    let product = redirected.product();
    assert!(product.contains("Release two"), "{product}\n{}", redirected.log.lock().expect("log").join("\n"));
    redirected.wait_for_log("the origin redirected, and the redirect was followed");
    assert!(redirected.log_has("/catalog.fcat -> http://"), "every place it went through");
    drop(redirected);

    // An origin that takes the connection and never answers: the error
    // names the flag whose bound was reached.
    origin.fault(Fault::Silent);
    let silent = Server::start(&[&args[..6], &["--poll-interval", "100ms", "--origin-timeout", "1s"]].concat());
    assert!(silent.product().contains("Release two"), "the last good artifact meanwhile");
    silent.wait_for_log("no whole answer within 1s (--origin-timeout)");
    drop(silent);
    // At start, with the default --origin-timeout (5 minutes), the last
    // good artifact is served after a few seconds, not minutes.
    let started = std::time::Instant::now();
    let patient = Server::start(&[&args[..6], &["--poll-interval", "1h"]].concat());
    assert!(patient.product().contains("Release two"));
    assert!(started.elapsed() < std::time::Duration::from_secs(15), "{:?}", started.elapsed());
    assert!(patient.log_has("no answer within 5s (a start's first attempt"), "the log says why");
    drop(patient);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&work);
}

/// Signed releases of the example catalog, each titled by its sequence,
/// and the replica flags that pull them from an [`Origin`].
struct Releases {
    dir: PathBuf,
    work: PathBuf,
    state: PathBuf,
}

impl Releases {
    fn new(name: &str) -> Releases {
        let (dir, work) = (catalog_copy(name), temp(&format!("{name}-out")));
        let out = run(&["keygen", "--out", work.join("ci").to_str().expect("utf-8")]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let state = work.join("state");
        Releases { dir, work, state }
    }

    /// The artifact of release `sequence`, titled `Release <sequence>`.
    fn build(&self, sequence: u64) -> Vec<u8> {
        retitle(&self.dir, &format!("Release {sequence}"));
        let file = self.work.join(format!("{sequence}.fcat"));
        let (sequence, key) = (sequence.to_string(), self.work.join("ci.key"));
        let out = run(&[
            "build",
            self.dir.to_str().expect("utf-8"),
            "-o",
            file.to_str().expect("utf-8"),
            "--codings",
            "identity",
            "--sign-key",
            key.to_str().expect("utf-8"),
            "--sequence",
            &sequence,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        std::fs::read(&file).expect("built")
    }

    /// The packed artifact of release `sequence` (`build --packs`, on the
    /// last one written so when there is one), titled `title`: the path
    /// of its list, its packs beside it.
    fn build_packed(&self, sequence: u64, title: &str) -> PathBuf {
        retitle(&self.dir, title);
        let list = self.work.join("packed").join("catalog.fcat");
        std::fs::create_dir_all(list.parent().expect("a folder")).expect("made");
        let (sequence, key) = (sequence.to_string(), self.work.join("ci.key"));
        let mut args = vec!["build", self.dir.to_str().expect("utf-8"), "-o", list.to_str().expect("utf-8")];
        args.extend(["--packs", "--sign-key", key.to_str().expect("utf-8"), "--sequence", &sequence]);
        if list.exists() {
            args.extend(["--previous", list.to_str().expect("utf-8")]);
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        list
    }

    /// `serve`'s flags for a replica of `origin`, polling every 100 ms.
    fn args(&self, origin: &Origin) -> Vec<String> {
        let verify = self.work.join("ci.pub");
        ["--catalog", &origin.url, "--state-dir", self.state.to_str().expect("utf-8")]
            .into_iter()
            .map(str::to_owned)
            .chain(["--verify-key".to_owned(), verify.to_str().expect("utf-8").to_owned()])
            .chain(["--poll-interval", "100ms", "--drain-timeout", "1s"].map(str::to_owned))
            .collect()
    }

    fn start(&self, origin: &Origin) -> Server {
        let args = self.args(origin);
        Server::start(&args.iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// The files of the state folder, by name, sorted.
    /// Waits until the state folder holds no partial download or
    /// temporary file (a poll in flight has one for a moment; one left
    /// behind stays): up to 5 s.
    fn assert_no_partial_files(&self) {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while self.state_files().iter().any(|name| name.starts_with('.')) {
            assert!(std::time::Instant::now() < until, "left behind: {:?}", self.state_files());
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    fn state_files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.state)
            .expect("state folder")
            .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Releases {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

/// A fault of one range of a delta (corrupted, cut, of another length or
/// of other bytes) never blocks a release: the artifact is asked for
/// whole in the same poll, nothing is remembered as refused, and every
/// range past the first is asked `If-Range` the ETag of the artifact whose
/// head it was planned from. A head block published with a byte changed
/// is never served.
#[test]
fn a_fault_in_a_delta_heals_in_the_same_poll_and_is_never_remembered() {
    let releases = Releases::new("delta-faults");
    let origin = Origin::start();
    origin.ranges();
    origin.publish(releases.build(1), Fault::None);
    let server = releases.start(&origin);
    assert!(server.product().contains("Release 1"));
    // A clean delta first: the test origin's ranges are what a replica pulls.
    origin.publish(releases.build(2), Fault::None);
    server.wait_for_product("Release 2");
    let (_, metrics) = server.fetch("/metrics");
    assert_eq!(metric(&metrics, "foundry_catalog_origin_pulls_total{how=\"delta\"}"), 1, "{metrics}");
    let faults = [Fault::CorruptProbe, Fault::WrongTotal, Fault::CorruptRange, Fault::CutRange, Fault::OtherRange];
    for (n, fault) in faults.into_iter().enumerate() {
        let sequence = 3 + n as u64;
        let (injected, ..) = origin.tally();
        let from = server.log_len();
        origin.publish(releases.build(sequence), fault);
        // Within two polls of 100 ms (and a download and a check, debug build).
        let started = std::time::Instant::now();
        server.wait_for_product(&format!("Release {sequence}"));
        assert!(started.elapsed() < std::time::Duration::from_secs(3), "{fault:?}: {:?}", started.elapsed());
        assert!(origin.tally().0 > injected, "{fault:?} was injected");
        assert!(server.log_has_after(from, "downloading the artifact whole"), "{fault:?}: said at WARN");
        origin.fault(Fault::None);
    }
    assert!(server.log_has("with another range"), "a 206 of another range is refused as such");
    assert!(!server.log_has("refused before"), "no transport fault is remembered as a refusal");
    let (_, metrics) = server.fetch("/metrics");
    assert!(metric(&metrics, "foundry_catalog_origin_delta_failures_total") >= 5, "{metrics}");
    let (_, without_if_range, ranges, _) = origin.tally();
    assert!(ranges > 0, "ranges past the first were asked");
    assert_eq!(without_if_range, 0, "every range past the first is asked with If-Range");

    // A head block fetched with a byte changed (the first product's
    // source digest, which its block's digest alone covers) is never
    // served, though the other blocks are copied from the last good one
    // and not hashed again.
    let sequence = 3 + faults.len() as u64;
    let mut changed = releases.build(sequence);
    let at = index_start(&changed) + 8;
    changed[at] ^= 0x01;
    let from = server.log_len();
    origin.publish(changed, Fault::None);
    server.wait_for_log_after(from, "does not match its digest");
    assert!(server.product().contains(&format!("Release {}", sequence - 1)), "the catalog being served stays");
    origin.publish(releases.build(sequence), Fault::None);
    server.wait_for_product(&format!("Release {sequence}"));
    releases.assert_no_partial_files();
}

/// SIGTERM is honoured while the start-up pull waits on an origin that
/// never answers, and while a later pull does: the process exits within
/// its drain timeout (1 s) and a second.
#[test]
fn sigterm_ends_a_replica_within_the_drain_timeout_at_start_and_mid_pull() {
    let releases = Releases::new("sigterm-pull");
    let origin = Origin::start();
    origin.publish(releases.build(1), Fault::Hang);
    let args = releases.args(&origin);
    // At start, nothing to serve yet: the pull hangs.
    let mut child = Command::new(BIN)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    wait_until("the start-up pull reaches the origin", || origin.counts().0 >= 1);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).expect("a pid")).expect("a pid");
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("signal sent");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(2) {
            let _ = child.kill();
            panic!("SIGTERM at start: still running after 2 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    // Serving, then a poll that hangs.
    origin.fault(Fault::None);
    let mut server = releases.start(&origin);
    assert!(server.product().contains("Release 1"));
    let requests = origin.counts().0;
    origin.fault(Fault::Hang);
    wait_until("a poll reaches the hanging origin", || origin.counts().0 > requests);
    std::thread::sleep(std::time::Duration::from_millis(200));
    server.signal(rustix::process::Signal::TERM);
    let status = server.exit_within(std::time::Duration::from_secs(2)).expect("SIGTERM mid-pull: exited within 2 s");
    assert_eq!(status.code(), Some(0));
    assert!(server.log_has("SIGTERM: shutting down"));
}

/// Partial downloads and temporary files left by a process killed
/// mid-pull (any number, any names) are removed when the next one
/// starts, and never stop a pull; a second process on the same state
/// folder is refused, saying why.
#[test]
fn partial_downloads_are_removed_at_start_and_a_state_folder_has_one_process() {
    let releases = Releases::new("partial-downloads");
    std::fs::create_dir_all(&releases.state).expect("state folder");
    let leftovers: Vec<String> = (0..150)
        .map(|n| format!(".download-1-{n}.fcat"))
        .chain((0..4).map(|n| format!(".download-{n}.fcat")))
        .chain([".last-good.etag.tmp-1-0".to_owned()])
        .collect();
    for name in &leftovers {
        std::fs::write(releases.state.join(name), b"half an artifact").expect("written");
    }
    let origin = Origin::start();
    origin.publish(releases.build(1), Fault::None);
    let server = releases.start(&origin);
    assert!(server.product().contains("Release 1"));
    assert!(server.log_has(&format!("removed {} file(s) an earlier process left half written", leftovers.len())));
    assert_eq!(releases.state_files(), ["highest-sequence", "last-good.etag", "last-good.fcat", "lock"]);
    origin.publish(releases.build(2), Fault::None);
    server.wait_for_product("Release 2");
    // A second process on the same folder.
    let args = releases.args(&origin);
    let mut second = vec!["serve", "--addr", "127.0.0.1:0"];
    second.extend(args.iter().map(String::as_str));
    let out = run(&second);
    assert_ne!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("another process is using this state folder"), "{}", text(&out.stderr));
    assert!(server.product().contains("Release 2"), "the first one serves on");
}

/// A body of the last good file damaged on disk is answered 503, said at
/// WARN with its slug, and repaired from the origin (downloaded whole,
/// though the origin is unchanged) within seconds, without a restart. One
/// whose head does not load at start is downloaded whole then.
#[test]
fn a_damaged_last_good_file_is_repaired_from_the_origin() {
    let releases = Releases::new("repair");
    let origin = Origin::start();
    origin.publish(releases.build(1), Fault::None);
    let server = releases.start(&origin);
    assert!(server.product().contains("Release 1"));
    drop(server);
    // A byte of the product's body changed on disk.
    let last_good = releases.state.join("last-good.fcat");
    let mut bytes = std::fs::read(&last_good).expect("kept");
    let needle = b"\"title\":\"Release 1\"";
    let at = bytes.windows(needle.len()).position(|w| w == needle).expect("the body is stored as is");
    bytes[at + 10] ^= 0x20;
    std::fs::write(&last_good, &bytes).expect("damaged");
    let downloads = origin.downloads();
    let server = releases.start(&origin);
    assert_eq!(server.fetch(PRODUCT).0, 503, "a damaged body is never served");
    server.wait_for_log("a body failed its check");
    assert!(
        server.log_has("slug=\"eu-regulatory-status-signals\"") || server.log_has("slug=eu-regulatory-status-signals")
    );
    let started = std::time::Instant::now();
    server.wait_for_product("\"title\":\"Release 1\"");
    assert!(started.elapsed() < std::time::Duration::from_secs(3), "{:?}", started.elapsed());
    assert_eq!(origin.downloads(), downloads + 1, "downloaded whole once");
    let repaired = std::fs::read(&last_good).expect("kept");
    assert!(repaired.windows(needle.len()).any(|w| w == needle), "the last good file is whole again");
    drop(server);

    // A byte of a block of its head (the first product's source digest,
    // which the block's digest alone covers; the block holds the site
    // documents too, read at start) changed on disk: at start, with the
    // origin unchanged, the artifact is downloaded whole, not nothing served.
    let mut bytes = repaired;
    let at = index_start(&bytes) + 8;
    bytes[at] ^= 0x01;
    std::fs::write(&last_good, &bytes).expect("damaged");
    let downloads = origin.downloads();
    let server = releases.start(&origin);
    assert!(server.product().contains("\"title\":\"Release 1\""));
    assert!(server.log_has("the last good artifact does not load"), "said at WARN");
    assert_eq!(origin.downloads(), downloads + 1, "downloaded whole once");
    assert!(std::fs::read(&last_good).expect("kept") != bytes, "the last good file is whole again");
}

/// At start, a last good file older than the highest sequence served (an
/// older file copied in its place) is set aside and the origin's artifact
/// downloaded whole; a highest sequence lowered by hand below the last
/// good file's is refused with one line saying so.
#[test]
fn an_older_last_good_file_is_set_aside_and_a_lowered_sequence_is_refused() {
    let releases = Releases::new("set-aside");
    let origin = Origin::start();
    let one = releases.build(1);
    origin.publish(one.clone(), Fault::None);
    let server = releases.start(&origin);
    assert!(server.product().contains("Release 1"));
    origin.publish(releases.build(2), Fault::None);
    server.wait_for_product("Release 2");
    drop(server);
    // The last good file replaced by release 1's; the origin holds release 2.
    std::fs::write(releases.state.join("last-good.fcat"), &one).expect("replaced");
    let server = releases.start(&origin);
    assert!(server.product().contains("Release 2"));
    assert!(server.log_has("set aside as"), "the log says what was done");
    assert!(releases.state.join("set-aside.fcat").is_file());
    drop(server);
    // The highest sequence lowered by hand below the last good file's.
    std::fs::write(releases.state.join("highest-sequence"), "1\n").expect("lowered");
    let args = releases.args(&origin);
    let mut serve = vec!["serve", "--addr", "127.0.0.1:0"];
    serve.extend(args.iter().map(String::as_str));
    let out = run(&serve);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("it was lowered by hand"), "{}", text(&out.stderr));
}

/// An origin without ETags costs a poll its first bytes (the summary's
/// content digest says the artifact is the one served), never a whole
/// download or a swap; a new artifact is still pulled.
#[test]
fn an_origin_without_etags_is_polled_by_its_summary() {
    let releases = Releases::new("no-etag");
    let origin = Origin::start();
    origin.ranges();
    origin.publish(releases.build(1), Fault::NoEtag);
    let server = releases.start(&origin);
    assert!(server.product().contains("Release 1"));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (requests, _) = origin.counts();
    let (.., sent) = origin.tally();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let polls = origin.counts().0 - requests;
    let per_poll = (origin.tally().3 - sent) / polls.max(1);
    assert!(polls >= 5, "{polls} polls in 2 s");
    assert!(per_poll <= 64 << 10, "{per_poll} bytes a poll");
    assert!(!server.log_has("catalog reloaded"), "nothing swapped");
    origin.publish(releases.build(2), Fault::NoEtag);
    server.wait_for_product("Release 2");
}

/// Behind a CDN that answers 304 only to a single ETag (Varnish), an
/// artifact refused for what its signed head says is known by its ETag
/// from an answer's head: no poll reads its body again.
#[test]
fn a_refused_artifact_costs_no_body_behind_a_cdn_that_matches_one_etag_only() {
    let releases = Releases::new("one-etag-cdn");
    let origin = Origin::start();
    origin.ranges();
    origin.single_tag_304();
    origin.publish(releases.build(2), Fault::None);
    let server = releases.start(&origin);
    assert!(server.product().contains("Release 2"));
    origin.publish(releases.build(1), Fault::None);
    server.wait_for_log("refused as a rollback");
    server.wait_for_log("the origin still holds the artifact refused before");
    let fetched = || metric(&server.fetch("/metrics").1, "foundry_catalog_origin_fetched_bytes_total");
    let (before, requests) = (fetched(), origin.counts().0);
    wait_until("five more polls", || origin.counts().0 >= requests + 5);
    assert_eq!(fetched(), before, "no body read while the origin holds the refused artifact");
    assert!(server.product().contains("Release 2"));
}

/// A replica pulls a packed artifact (`build --packs`, published as
/// built: the list at the artifact's URL, `fcpacks/` beside it): whole at
/// first, then as a delta whose bytes are ranges of the packs holding
/// them; a pack the origin lost, or packs sent whole whatever range is
/// asked, keep the catalog served, and the release is pulled once the
/// packs answer, without a restart; an origin without ETags costs a poll
/// the list and the summary.
#[test]
fn a_replica_pulls_a_packed_origin_whole_then_as_a_delta() {
    let releases = Releases::new("packed-origin");
    let origin = Origin::start();
    origin.ranges();
    origin.publish_packed(&releases.build_packed(1, "Release 1"), Fault::None);
    let server = releases.start(&origin);
    assert!(server.product().contains("Release 1"));
    let (_, metrics) = server.fetch("/metrics");
    let whole = metric(&metrics, "foundry_catalog_origin_fetched_bytes_total");
    let len = metric(&metrics, "foundry_catalog_origin_artifact_bytes_total");
    assert_eq!(metric(&metrics, "foundry_catalog_origin_pulls_total{how=\"whole\"}"), 1, "{metrics}");
    assert!(whole >= len, "the whole artifact and its list: {whole} of {len}");
    let (requests, sent) = origin.pack_tally();
    assert!(requests > 0 && sent as u64 == len, "the artifact's bytes from packs: {sent} of {len}");

    // An edit: a delta, its bytes ranges of the packs.
    origin.publish_packed(&releases.build_packed(2, "Release 2"), Fault::None);
    server.wait_for_product("Release 2");
    let (_, metrics) = server.fetch("/metrics");
    assert_eq!(metric(&metrics, "foundry_catalog_origin_pulls_total{how=\"delta\"}"), 1, "{metrics}");
    assert_eq!(metric(&metrics, "foundry_catalog_origin_delta_failures_total"), 0, "{metrics}");
    assert!(origin.pack_tally().0 > requests, "its bytes asked of packs");
    // A release whose bodies are the last one's: its head fetched, not its bodies.
    let fetched = metric(&metrics, "foundry_catalog_origin_fetched_bytes_total");
    origin.publish_packed(&releases.build_packed(3, "Release 2"), Fault::None);
    wait_until("the third release pulled", || {
        metric(&server.fetch("/metrics").1, "foundry_catalog_origin_pulls_total{how=\"delta\"}") == 2
    });
    let delta = metric(&server.fetch("/metrics").1, "foundry_catalog_origin_fetched_bytes_total") - fetched;
    // Its first 64 KiB (the whole head of this small catalog) and the list.
    assert!(delta < (64 << 10) + 4096, "a delta of the same bodies fetches its head: {delta} of {len}");
    // The replica's own file is the artifact the list names, in one file.
    let state_dir = std::fs::read_dir(&releases.state).expect("state folder");
    let names: Vec<String> = state_dir.map(|e| e.expect("entry").file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|name| !name.ends_with(".fcpack")), "{names:?}");

    // Its packs lost: the catalog served stays, the error says so; back, it is pulled.
    origin.publish_packed(&releases.build_packed(4, "Release 4"), Fault::NoPacks);
    server.wait_for_log("404");
    assert!(server.product().contains("Release 2"));
    origin.fault(Fault::None);
    server.wait_for_product("Release 4");

    // Packs sent whole whatever range is asked: refused as such, served again once ranged.
    origin.publish_packed(&releases.build_packed(5, "Release 5"), Fault::PacksWhole);
    server.wait_for_log("200 OK to bytes");
    assert!(server.product().contains("Release 4"));
    origin.fault(Fault::None);
    server.wait_for_product("Release 5");

    // Without ETags: a poll costs the list and the summary, not a download.
    origin.publish_packed(&releases.build_packed(6, "Release 6"), Fault::NoEtag);
    server.wait_for_product("Release 6");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (requests, _) = origin.counts();
    let (.., sent) = origin.tally();
    let (pack_requests, pack_sent) = origin.pack_tally();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let polls = origin.counts().0 - requests - (origin.pack_tally().0 - pack_requests);
    let per_poll = (origin.tally().3 - sent + origin.pack_tally().1 - pack_sent) / polls.max(1);
    assert!(polls >= 5, "{polls} polls in 2 s");
    assert!(per_poll <= 128 << 10, "{per_poll} bytes a poll");
    releases.assert_no_partial_files();
}
