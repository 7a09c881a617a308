//! A server on an ephemeral loopback port, run in the test process, and a
//! few raw-socket helpers.

use std::io::Read;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub(crate) use foundry_catalog_http_cases::client::{self, Response, get};
use foundry_catalog_server::{CatalogSource, Config, Handle, Server};

pub(crate) struct TestServer {
    pub(crate) base: String,
    pub(crate) addr: SocketAddr,
    pub(crate) handle: Handle,
    finished: std::sync::Mutex<mpsc::Receiver<()>>,
}

impl TestServer {
    /// Serves the embedded catalog with the default settings, changed by `edit`.
    pub(crate) fn start(edit: impl FnOnce(&mut Config)) -> TestServer {
        let mut config = Config::default().addr(SocketAddr::from(([127, 0, 0, 1], 0))).source(CatalogSource::Embedded);
        edit(&mut config);
        let (ready_tx, ready_rx) = mpsc::channel();
        let (finished_tx, finished) = mpsc::channel();
        std::thread::spawn(move || {
            let runtime =
                tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
            runtime.block_on(async move {
                let server = Server::bind(config).await.expect("binds");
                ready_tx.send((server.local_addr().expect("address"), server.handle())).expect("test waits");
                server.run().await;
            });
            let _ = finished_tx.send(());
        });
        let (addr, handle) = ready_rx.recv().expect("the server starts");
        TestServer { base: format!("http://{addr}"), addr, handle, finished: std::sync::Mutex::new(finished) }
    }

    /// Whether `run` returned within `limit`.
    pub(crate) fn finished_within(&self, limit: Duration) -> bool {
        self.finished.lock().is_ok_and(|finished| finished.recv_timeout(limit).is_ok())
    }

    /// The value of a metric line such as `foundry_reloads_total{result="ok"}`.
    pub(crate) fn metric(&self, name: &str) -> u64 {
        let text = exchange(self.addr, &get("/metrics")).text().into_owned();
        text.lines()
            .find_map(|line| line.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or_else(|| panic!("no metric {name} in\n{text}"))
    }
}

/// Sends `request` on a new connection and reads its response.
pub(crate) fn exchange(addr: SocketAddr, request: &str) -> Response {
    client::exchange(addr, request).unwrap_or_else(|e| panic!("{e}"))
}

/// How long until the server closes `stream` (reads until end of file),
/// or `None` if it is still open after `limit`.
pub(crate) fn closed_after(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.checked_sub(started.elapsed())?;
        stream.set_read_timeout(Some(left.max(Duration::from_millis(1)))).expect("read timeout");
        match stream.read(&mut buf) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => {}
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return None;
            }
            Err(_) => return Some(started.elapsed()),
        }
    }
}

/// Sends `request` on `stream` and reads its response.
pub(crate) fn send(stream: &mut TcpStream, request: &str) -> Response {
    client::send(stream, request).unwrap_or_else(|e| panic!("{e}"))
}

/// A copy of the example catalog in a fresh temporary folder.
pub(crate) fn catalog_copy(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("foundry-catalog-server-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog");
    for entry in std::fs::read_dir(examples).expect("examples") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, dir.join(path.file_name().expect("name"))).expect("copy");
    }
    dir
}

/// Polls until `condition` holds (at most 5 s).
pub(crate) fn eventually(what: &str, condition: impl Fn() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(started.elapsed() < Duration::from_secs(5), "{what} did not happen");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// A strong ETag of `bytes`: their quoted SHA-256.
pub(crate) fn sha256_tag(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("\"{}\"", hex::encode(sha2::Sha256::digest(bytes)))
}

/// Every representation of `path` on one connection: (Content-Encoding, response).
pub(crate) fn representations(stream: &mut TcpStream, path: &str) -> Vec<(String, Response)> {
    ["identity", "gzip", "br"]
        .into_iter()
        .map(|coding| {
            let r = send(stream, &format!("GET {path} HTTP/1.1\r\nHost: t\r\nAccept-Encoding: {coding}\r\n\r\n"));
            assert_eq!(r.status, 200, "{path} {coding}");
            assert_eq!(r.header("content-encoding").unwrap_or("identity"), coding, "{path}");
            (coding.to_owned(), r)
        })
        .collect()
}
