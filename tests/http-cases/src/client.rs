//! The one raw HTTP/1.1 client of the project's tests: it writes requests
//! exactly as given (malformed ones included) and reads responses by
//! their `Content-Length`, so keep-alive, pipelining, HEAD and 304 can be
//! checked byte for byte. Every test that speaks raw HTTP uses it.

use std::borrow::Cow;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// How long a read waits before the exchange is a failure, so a server
/// that stops answering fails the test instead of hanging it.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest response head read (a server's heads are far shorter).
const MAX_HEAD: usize = 64 * 1024;

/// The longest body read: a `Content-Length` above it is a failure, not an
/// allocation.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// One response: status, headers (lowercase names, in order), body bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Every header line, its name lowercased, its value trimmed.
    pub headers: Vec<(String, String)>,
    /// The body (none for HEAD and 304).
    pub body: Vec<u8>,
}

impl Response {
    /// Reads one whole response from `stream` (to a HEAD request if
    /// `head_request`: no body). `Ok(None)` if the connection closes
    /// before the response's first byte; an error if it is cut short.
    pub fn read(stream: &mut impl Read, head_request: bool) -> Result<Option<Response>, String> {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            match stream.read(&mut byte) {
                Ok(1) if head.len() < MAX_HEAD => head.push(byte[0]),
                Ok(1) => return Err(format!("a response head over {MAX_HEAD} bytes")),
                Ok(_) | Err(_) if head.is_empty() => return Ok(None),
                Ok(_) => return Err(format!("the response ends after {} bytes of its head", head.len())),
                Err(e) => return Err(format!("the response stops after {} bytes of its head: {e}", head.len())),
            }
        }
        let head = String::from_utf8_lossy(&head);
        let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let headers = head
            .lines()
            .skip(1)
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            .collect();
        let mut response = Response { status, headers, body: Vec::new() };
        if !head_request && status != 304 {
            let length: usize = response.header("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
            if length > MAX_BODY {
                return Err(format!("a Content-Length of {length} bytes, over {MAX_BODY}"));
            }
            response.body = vec![0; length];
            stream.read_exact(&mut response.body).map_err(|e| format!("the body is cut short: {e}"))?;
        }
        Ok(Some(response))
    }

    /// The first value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy).
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.body)
    }
}

/// Sends `request` on `stream` as written and reads its response.
pub fn send(stream: &mut TcpStream, request: &str) -> Result<Response, String> {
    stream.write_all(request.as_bytes()).map_err(|e| format!("cannot send: {e}"))?;
    Response::read(stream, request.starts_with("HEAD "))?
        .ok_or_else(|| "the connection closed with no response".to_owned())
}

/// Sends `request` on a new connection (reads time out after
/// [`READ_TIMEOUT`]) and reads one response.
pub fn exchange(addr: SocketAddr, request: &str) -> Result<Response, String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("cannot connect: {e}"))?;
    stream.set_read_timeout(Some(READ_TIMEOUT)).map_err(|e| e.to_string())?;
    send(&mut stream, request)
}

/// `GET path` with a Host, on a connection the server closes after it.
pub fn get(path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
}
