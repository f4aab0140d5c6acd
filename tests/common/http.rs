//! A plain HTTP/1.1 client for the tests: one request per connection (`Connection: close`),
//! the answer read to its end, chunked bodies joined. Enough for the server under test and
//! chromedriver, and no client library to build with the suite.

use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// How long a request may wait on the other end before it fails (the bound of a hang).
const PATIENCE: Duration = Duration::from_secs(120);

/// An answer: its status, headers (names in lower case) and body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The value of header `name` (any case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(&self.body)
    }
}

/// `url` with `key=value` added to its query, the value percent-encoded.
pub fn with_query(url: &str, key: &str, value: &str) -> String {
    let mut out = String::from(url);
    out.push(if url.contains('?') { '&' } else { '?' });
    out.push_str(key);
    out.push('=');
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// GET `url`.
pub fn get(url: &str) -> std::io::Result<Response> {
    request("GET", url, None)
}

/// POST `body` (JSON) to `url`.
pub fn post(url: &str, body: &str) -> std::io::Result<Response> {
    request("POST", url, Some(body))
}

/// `method` on `url` (`http://host:port/path?query`), with a JSON `body` if any; any status
/// is an answer, only a failed connection or a malformed answer an error.
pub fn request(method: &str, url: &str, body: Option<&str>) -> std::io::Result<Response> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| invalid("not http://"))?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut stream = TcpStream::connect(host)?;
    stream.set_read_timeout(Some(PATIENCE))?;
    stream.set_write_timeout(Some(PATIENCE))?;
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    if let Some(body) = body {
        head.push_str("Content-Type: application/json\r\n");
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.unwrap_or("").as_bytes())?;
    // Read until the answer is whole: some servers (chromedriver) keep the connection open
    // whatever the request asks.
    let mut bytes = Vec::new();
    let mut buf = [0u8; 16 << 10];
    loop {
        let n = stream.read(&mut buf)?;
        bytes.extend_from_slice(&buf[..n]);
        if let Some(answer) = answer(&bytes, n == 0)? {
            return Ok(answer);
        }
    }
}

fn invalid(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string())
}

/// Where `needle` first occurs in `bytes`.
fn find(bytes: &[u8], needle: &[u8]) -> Option<usize> {
    bytes.windows(needle.len()).position(|w| w == needle)
}

/// The answer `bytes` hold once they hold all of it: by its length, its chunks, or (with
/// neither) the connection's end, `closed`. None while more is to come.
fn answer(bytes: &[u8], closed: bool) -> std::io::Result<Option<Response>> {
    let Some(end) = find(bytes, b"\r\n\r\n") else {
        return match closed {
            true => Err(invalid("no end of headers")),
            false => Ok(None),
        };
    };
    let head = std::str::from_utf8(&bytes[..end]).map_err(|_| invalid("headers not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("no status"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let value = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let raw = &bytes[end + 4..];
    let body = match value("content-length") {
        Some(n) => {
            let n = n.parse().map_err(|_| invalid("a content length"))?;
            raw.get(..n).map(<[u8]>::to_vec)
        }
        None if value("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) => {
            dechunk(raw).ok()
        }
        None => closed.then(|| raw.to_vec()),
    };
    let body = match body {
        Some(body) => String::from_utf8(body).map_err(|_| invalid("body not UTF-8"))?,
        None if closed => return Err(invalid("a short body")),
        None => return Ok(None),
    };
    Ok(Some(Response {
        status,
        headers,
        body,
    }))
}

/// A chunked body joined.
fn dechunk(mut raw: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = find(raw, b"\r\n").ok_or_else(|| invalid("a chunk without its size"))?;
        let size = std::str::from_utf8(&raw[..line_end])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next()?.trim(), 16).ok())
            .ok_or_else(|| invalid("a chunk size"))?;
        raw = &raw[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        let chunk = raw.get(..size).ok_or_else(|| invalid("a short chunk"))?;
        out.extend_from_slice(chunk);
        raw = raw
            .get(size + 2..)
            .ok_or_else(|| invalid("a short chunk"))?;
    }
}

#[test]
fn chunked_bodies_are_joined_and_queries_encoded() {
    let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nAllow: GET\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n";
    let r = answer(chunked, false).unwrap().unwrap();
    assert_eq!((r.status, r.body.as_str()), (200, "abcde"));
    assert_eq!(r.header("allow"), Some("GET"));
    // Not whole yet: more to come, or an error once the connection has ended.
    let cut = &chunked[..chunked.len() - 5];
    assert!(answer(cut, false).unwrap().is_none());
    assert!(answer(cut, true).is_err());
    let sized = b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}";
    assert_eq!(answer(sized, false).unwrap().unwrap().body, "{}");
    assert_eq!(
        with_query("http://h/p", "fen", "8/8 w - - 0 1"),
        "http://h/p?fen=8%2F8%20w%20-%20-%200%201"
    );
}
