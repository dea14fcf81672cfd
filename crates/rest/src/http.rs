//! The door's HTTP/1.1: a blocking accept loop, a thread per connection (at most
//! [`RestOptions::max_connections`](crate::RestOptions)), request heads parsed by `httparse`,
//! bodies by `Content-Length` or chunked, persistent connections, and every limit of
//! `docs/design/rest.md` enforced while reading: the head's size, the body's size, the time a
//! request takes to arrive whole, the time between requests. A request past a limit gets its
//! status (431, 413, 408, 400) and the connection closes; nothing else is affected.

use ferrobase_gateway::tls::ServerWire;
use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

/// The most header lines one request may carry.
const MAX_HEADERS: usize = 100;

/// One request as the resources see it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `PUT`, `POST`, `DELETE`, `HEAD`, ...
    pub method: String,
    /// The path, still percent-encoded (HBase parses row specs before decoding them).
    pub path: String,
    /// The query string without `?` (empty when none), still percent-encoded.
    pub query: String,
    /// Header lines in arrival order, names as sent.
    pub headers: Vec<(String, String)>,
    /// HTTP/1.0 (no persistent connection unless asked for).
    pub http10: bool,
    /// The body, whole.
    pub body: Vec<u8>,
    /// Who sent it, with ACLs on (the door sets it after authenticating the request: the
    /// client certificate's CN or the HTTP Basic login); `None` without ACLs.
    pub user: Option<String>,
}

impl Request {
    /// The first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of query parameter `name`, percent-decoded (`+` as a space).
    pub fn query_all(&self, name: &str) -> Vec<String> {
        self.query
            .split('&')
            .filter(|kv| !kv.is_empty())
            .filter_map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                (percent_decode_str(k, true) == name).then(|| percent_decode_str(v, true))
            })
            .collect()
    }

    /// The first value of query parameter `name`.
    pub fn query_param(&self, name: &str) -> Option<String> {
        self.query_all(name).into_iter().next()
    }

    /// Whether the query names parameter `name` (with or without a value).
    pub fn has_query_param(&self, name: &str) -> bool {
        self.query
            .split('&')
            .any(|kv| percent_decode_str(kv.split_once('=').map_or(kv, |(k, _)| k), true) == name)
    }
}

/// The next piece of a streamed body: `Some(Ok(bytes))`, `None` at its end, `Some(Err(_))`
/// when it cannot go on (the connection is then closed without ending the body, so the client
/// sees a truncated answer rather than a short one that looks whole).
pub type BodyPiece = Option<Result<Vec<u8>, String>>;

/// A body written as it is made (chunked), for answers as large as a table.
pub type BodyStream = Box<dyn FnMut() -> BodyPiece + Send>;

/// One answer.
pub struct Response {
    /// The HTTP status.
    pub status: u16,
    /// Extra header lines (`Content-Type`, `Location`, `X-Timestamp`, ...).
    pub headers: Vec<(String, String)>,
    /// The body (after which `stream`'s pieces follow, when there is one).
    pub body: Vec<u8>,
    /// The rest of the body, made while it is written.
    pub stream: Option<BodyStream>,
}

impl std::fmt::Debug for Response {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Response")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .field("body", &String::from_utf8_lossy(&self.body))
            .field("stream", &self.stream.is_some())
            .finish()
    }
}

impl Response {
    /// A response with `status`, `content_type` and `body`.
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
            stream: None,
        }
    }

    /// A response with `status` and no body.
    pub fn empty(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            stream: None,
        }
    }

    /// A 200 with `content_type` whose body is `head` then `stream`'s pieces.
    pub fn streamed(content_type: &str, head: Vec<u8>, stream: BodyStream) -> Response {
        Response {
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: head,
            stream: Some(stream),
        }
    }

    /// Adds a header line (builder style).
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Response {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// Percent-decodes `s` (`plus_as_space`: the form encoding of query strings). An invalid
/// escape is kept as it is, as Java's `URLDecoder` would refuse it only in the path.
pub fn percent_decode(s: &str, plus_as_space: bool) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'%' => match (
                b.get(i + 1).and_then(|h| (*h as char).to_digit(16)),
                b.get(i + 2).and_then(|l| (*l as char).to_digit(16)),
            ) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(c),
            },
            b'+' if plus_as_space => out.push(b' '),
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

fn percent_decode_str(s: &str, plus_as_space: bool) -> String {
    String::from_utf8_lossy(&percent_decode(s, plus_as_space)).into_owned()
}

/// The limits one connection is read under.
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    /// Bytes of a request head (request line and headers).
    pub max_head: usize,
    /// Bytes of a request body.
    pub max_body: usize,
    /// Time a request may take to arrive whole, from its first byte.
    pub request_timeout: Duration,
    /// Time a persistent connection may wait for its next request.
    pub idle_timeout: Duration,
}

/// Why no request could be read.
#[derive(Debug)]
pub enum ReadError {
    /// The peer closed the connection between requests (not an error).
    Closed,
    /// A limit or a malformed request: answer this, then close.
    Refuse(Response),
    /// The socket failed or timed out mid-request: close without answering.
    Io(io::Error),
}

/// A connection's reader: bytes read past the current request are kept for the next.
pub struct Conn {
    stream: ServerWire,
    buf: Vec<u8>,
    limits: ConnLimits,
}

fn text_response(status: u16, msg: &str) -> Response {
    Response::new(status, "text/plain", format!("{msg}\r\n"))
}

impl Conn {
    /// Wraps an accepted stream, plain or after its TLS handshake.
    pub fn new(stream: ServerWire, limits: ConnLimits) -> Conn {
        Conn {
            stream,
            buf: Vec::new(),
            limits,
        }
    }

    /// The socket beneath (plain or under TLS).
    pub fn socket(&self) -> &std::net::TcpStream {
        self.stream.socket()
    }

    /// Reads more bytes, waiting until `deadline` at most; `Ok(0)` at end of stream.
    fn fill(&mut self, deadline: Instant) -> io::Result<usize> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "request timeout"));
        }
        self.stream.socket().set_read_timeout(Some(left))?;
        let mut chunk = [0u8; 16 * 1024];
        let n = self.stream.read(&mut chunk)?;
        self.buf
            .extend_from_slice(chunk.get(..n).unwrap_or_default());
        Ok(n)
    }

    /// Reads the next request whole, or says why not.
    pub fn read_request(&mut self) -> Result<Request, ReadError> {
        // Wait for the first byte of the next request (idle), then for the rest (request).
        if self.buf.is_empty() {
            match self.fill(Instant::now() + self.limits.idle_timeout) {
                Ok(0) => return Err(ReadError::Closed),
                Ok(_) => {}
                Err(e) if is_timeout(&e) => return Err(ReadError::Closed),
                Err(e) => return Err(ReadError::Io(e)),
            }
        }
        let deadline = Instant::now() + self.limits.request_timeout;
        let timed_out = || {
            ReadError::Refuse(text_response(
                408,
                "Request Timeout: the request did not arrive whole in time",
            ))
        };
        let (head_len, method, target, headers, http10) = loop {
            let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut req = httparse::Request::new(&mut slots);
            match req.parse(&self.buf) {
                Ok(httparse::Status::Complete(n)) => {
                    let headers = req
                        .headers
                        .iter()
                        .map(|h| {
                            (
                                h.name.to_string(),
                                String::from_utf8_lossy(h.value).into_owned(),
                            )
                        })
                        .collect::<Vec<_>>();
                    break (
                        n,
                        req.method.unwrap_or_default().to_string(),
                        req.path.unwrap_or_default().to_string(),
                        headers,
                        req.version == Some(0),
                    );
                }
                Ok(httparse::Status::Partial) => {
                    if self.buf.len() > self.limits.max_head {
                        return Err(ReadError::Refuse(text_response(
                            431,
                            "Request Header Fields Too Large",
                        )));
                    }
                    match self.fill(deadline) {
                        Ok(0) => return Err(ReadError::Io(io::ErrorKind::UnexpectedEof.into())),
                        Ok(_) => {}
                        Err(e) if is_timeout(&e) => return Err(timed_out()),
                        Err(e) => return Err(ReadError::Io(e)),
                    }
                }
                Err(httparse::Error::TooManyHeaders) => {
                    return Err(ReadError::Refuse(text_response(
                        431,
                        "Request Header Fields Too Large",
                    )))
                }
                Err(e) => {
                    return Err(ReadError::Refuse(text_response(
                        400,
                        &format!("Bad request: malformed HTTP request ({e})"),
                    )))
                }
            }
        };
        self.buf.drain(..head_len);
        let mut request = Request {
            method,
            path: String::new(),
            query: String::new(),
            headers,
            http10,
            body: Vec::new(),
            user: None,
        };
        let (path, query) = target.split_once('?').unwrap_or((&target, ""));
        request.path = path.to_string();
        request.query = query.to_string();
        if request
            .header("Expect")
            .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
        {
            let _ = self.stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
        }
        let chunked = request
            .header("Transfer-Encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        let result = if chunked {
            self.read_chunked(deadline)
        } else {
            match request
                .header("Content-Length")
                .map(|v| v.trim().parse::<u64>())
            {
                None => Ok(Vec::new()),
                Some(Err(_)) => Err(ReadError::Refuse(text_response(
                    400,
                    "Bad request: Content-Length is not a number",
                ))),
                Some(Ok(n)) if n > self.limits.max_body as u64 => {
                    Err(ReadError::Refuse(too_large(self.limits.max_body)))
                }
                Some(Ok(n)) => self.read_exact_body(n as usize, deadline),
            }
        };
        request.body = result.map_err(|e| match e {
            ReadError::Io(e) if is_timeout(&e) => timed_out(),
            other => other,
        })?;
        // HBase REST's GzipFilter: a gzip body is inflated, within the same limit.
        if request
            .header("Content-Encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("gzip"))
        {
            request.body = gunzip(&request.body, self.limits.max_body)?;
        }
        Ok(request)
    }

    fn read_exact_body(&mut self, n: usize, deadline: Instant) -> Result<Vec<u8>, ReadError> {
        while self.buf.len() < n {
            match self.fill(deadline) {
                Ok(0) => return Err(ReadError::Io(io::ErrorKind::UnexpectedEof.into())),
                Ok(_) => {}
                Err(e) => return Err(ReadError::Io(e)),
            }
        }
        Ok(self.buf.drain(..n).collect())
    }

    /// A line of a chunked body (without its CRLF).
    fn read_line(&mut self, deadline: Instant) -> Result<String, ReadError> {
        loop {
            if let Some(i) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line =
                    String::from_utf8_lossy(self.buf.get(..i).unwrap_or_default()).into_owned();
                self.buf.drain(..i + 2);
                return Ok(line);
            }
            if self.buf.len() > self.limits.max_head {
                return Err(ReadError::Refuse(text_response(
                    400,
                    "Bad request: malformed chunked body",
                )));
            }
            match self.fill(deadline) {
                Ok(0) => return Err(ReadError::Io(io::ErrorKind::UnexpectedEof.into())),
                Ok(_) => {}
                Err(e) => return Err(ReadError::Io(e)),
            }
        }
    }

    fn read_chunked(&mut self, deadline: Instant) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            let line = self.read_line(deadline)?;
            let size = line.split(';').next().unwrap_or_default().trim();
            let Ok(size) = usize::from_str_radix(size, 16) else {
                return Err(ReadError::Refuse(text_response(
                    400,
                    "Bad request: malformed chunked body",
                )));
            };
            if size == 0 {
                // Trailers, up to the empty line.
                while !self.read_line(deadline)?.is_empty() {}
                return Ok(body);
            }
            if body.len().saturating_add(size) > self.limits.max_body {
                return Err(ReadError::Refuse(too_large(self.limits.max_body)));
            }
            body.extend(self.read_exact_body(size, deadline)?);
            if !self.read_line(deadline)?.is_empty() {
                return Err(ReadError::Refuse(text_response(
                    400,
                    "Bad request: malformed chunked body",
                )));
            }
        }
    }

    /// Writes `response` (`head`: without its body, for `HEAD`), within `timeout`.
    pub fn write_response(
        &mut self,
        response: &mut Response,
        head: bool,
        close: bool,
        timeout: Duration,
    ) -> io::Result<()> {
        self.stream.socket().set_write_timeout(Some(timeout))?;
        if let Some(stream) = response.stream.as_mut() {
            return write_streamed(
                &mut self.stream,
                response.status,
                &response.headers,
                &response.body,
                stream,
                head,
                close,
            );
        }
        let mut out = format!(
            "HTTP/1.1 {} {}\r\n",
            response.status,
            reason(response.status)
        );
        for (k, v) in &response.headers {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
        // 1xx, 204 and 304 answers have no body (RFC 9110); HBase's texts for them are dropped
        // on the wire by Jetty too.
        let bodiless = response.status < 200 || response.status == 204 || response.status == 304;
        if !bodiless {
            out.push_str(&format!("Content-Length: {}\r\n", response.body.len()));
        }
        if close {
            out.push_str("Connection: close\r\n");
        }
        out.push_str("\r\n");
        let mut bytes = out.into_bytes();
        if !head && !bodiless {
            bytes.extend_from_slice(&response.body);
        }
        self.stream.write_all(&bytes)?;
        self.stream.flush()
    }
}

/// Writes a streamed answer with chunked transfer encoding.
fn write_streamed(
    out: &mut ServerWire,
    status: u16,
    headers: &[(String, String)],
    first: &[u8],
    stream: &mut BodyStream,
    head: bool,
    close: bool,
) -> io::Result<()> {
    let mut h = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (k, v) in headers {
        h.push_str(&format!("{k}: {v}\r\n"));
    }
    h.push_str("Transfer-Encoding: chunked\r\n");
    if close {
        h.push_str("Connection: close\r\n");
    }
    h.push_str("\r\n");
    out.write_all(h.as_bytes())?;
    if head {
        out.write_all(b"0\r\n\r\n")?;
        return out.flush();
    }
    let chunk = |out: &mut ServerWire, bytes: &[u8]| -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        out.write_all(format!("{:x}\r\n", bytes.len()).as_bytes())?;
        out.write_all(bytes)?;
        out.write_all(b"\r\n")
    };
    chunk(out, first)?;
    loop {
        match stream() {
            Some(Ok(bytes)) => chunk(out, &bytes)?,
            None => break,
            Some(Err(e)) => {
                return Err(io::Error::other(format!("the answer stopped midway: {e}")));
            }
        }
    }
    out.write_all(b"0\r\n\r\n")?;
    out.flush()
}

/// A gzip body inflated, refused past `limit` bytes or when it is not gzip.
fn gunzip(body: &[u8], limit: usize) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::new();
    let read = flate2::read::GzDecoder::new(body)
        .take(limit as u64 + 1)
        .read_to_end(&mut out);
    match read {
        Ok(_) if out.len() > limit => Err(ReadError::Refuse(too_large(limit))),
        Ok(_) => Ok(out),
        Err(e) => Err(ReadError::Refuse(text_response(
            400,
            &format!("Bad request: Content-Encoding gzip, but the body does not inflate ({e})"),
        ))),
    }
}

fn too_large(limit: usize) -> Response {
    text_response(
        413,
        &format!(
            "Payload Too Large: the request body is over {limit} bytes, the limit \
             (--max-message)"
        ),
    )
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}

/// The reason phrase of a status.
fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        304 => "Not Modified",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        410 => "Gone",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding_keeps_bad_escapes() {
        assert_eq!(percent_decode("a%20b%zz+", true), b"a b%zz ".to_vec());
        assert_eq!(percent_decode("a+b", false), b"a+b".to_vec());
        assert_eq!(percent_decode("%ff", false), vec![0xff]);
    }
}
