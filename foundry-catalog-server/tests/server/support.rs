//! A server on an ephemeral loopback port, run in the test process, and a
//! few raw-socket helpers.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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
        let text = exchange(self.addr, "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
        text.lines()
            .find_map(|line| line.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or_else(|| panic!("no metric {name} in\n{text}"))
    }
}

/// Sends `request` on a new connection and reads until the server closes it.
pub(crate) fn exchange(addr: SocketAddr, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("read timeout");
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// The status code of a raw HTTP answer (0 when there is none).
pub(crate) fn status(answer: &str) -> u16 {
    answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
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

/// One response read from a keep-alive connection, by its
/// `Content-Length`: status, headers (lowercase names) and body bytes.
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Response {
    /// Reads one whole response from `stream` (to a HEAD request if
    /// `head`: no body); `None` if the connection closes before its first
    /// byte.
    pub(crate) fn read(stream: &mut TcpStream, head_request: bool) -> Option<Response> {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            match stream.read(&mut byte) {
                Ok(1) => head.push(byte[0]),
                _ if head.is_empty() => return None,
                _ => panic!("a response cut short after {} bytes of its head", head.len()),
            }
        }
        let head = String::from_utf8_lossy(&head).into_owned();
        let status = status(&head);
        let headers: Vec<(String, String)> = head
            .lines()
            .skip(1)
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            .collect();
        let response = Response { status, headers, body: Vec::new() };
        let length = if head_request || status == 304 {
            0
        } else {
            response.header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0)
        };
        let mut body = vec![0u8; length];
        stream.read_exact(&mut body).expect("a whole body, never a cut one");
        Some(Response { body, ..response })
    }

    /// The first value of header `name` (lowercase).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Sends `request` on `stream` and reads its response.
pub(crate) fn send(stream: &mut TcpStream, request: &str) -> Response {
    stream.write_all(request.as_bytes()).expect("send");
    Response::read(stream, request.starts_with("HEAD ")).expect("an answer")
}
