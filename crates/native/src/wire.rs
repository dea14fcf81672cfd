//! The framing of HBase's RPC (`docs/design/native-protocol.md`, "Framing"): the connection
//! preambles, the connection header, request and response frames. Every length is checked
//! against the frame limit before anything is allocated for it.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::proto::rpc::{ConnectionHeader, RequestHeader, ResponseHeader};
use prost::Message;
use std::io::{self, Read, Write};

/// The six bytes that open an RPC connection: `HBas`, the version (0) and the authentication
/// method (80 SIMPLE, 81 KERBEROS, 82 DIGEST).
pub const RPC_MAGIC: &[u8; 4] = b"HBas";
/// The only RPC version HBase 2 and 3 speak.
pub const RPC_VERSION: u8 = 0;
/// `AuthMethod.SIMPLE`'s code: the user is who the connection header says.
pub const AUTH_SIMPLE: u8 = 80;
/// The six bytes an HBase 2.6+ client sends on a connection opened only to learn the cluster
/// id (`ConnectionRegistryService`); it is answered with one frame and closed.
pub const REGISTRY_PREAMBLE: &[u8; 6] = b"Regist";

/// What the first six bytes of a connection asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preamble {
    /// An RPC connection with this authentication method.
    Rpc {
        /// `AuthMethod` code.
        auth: u8,
    },
    /// The 2.6 connection-registry preamble.
    Registry,
}

/// Why a connection's bytes could not be read as HBase's RPC.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The socket failed or closed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The bytes break the framing; the connection cannot go on.
    #[error("{0}")]
    Malformed(String),
    /// A frame's length is past the limit (`--max-message`); the connection cannot go on
    /// (its bytes are not read).
    #[error("a request of {len} bytes is past the limit of {limit} bytes (--max-message)")]
    TooLong {
        /// The length the frame announced.
        len: u64,
        /// The limit.
        limit: usize,
    },
}

/// Reads and classifies the six preamble bytes.
pub fn read_preamble(r: &mut impl Read) -> Result<Preamble, WireError> {
    let mut b = [0u8; 6];
    r.read_exact(&mut b)?;
    if &b == REGISTRY_PREAMBLE {
        return Ok(Preamble::Registry);
    }
    let (magic, rest) = b.split_at(4);
    if magic != RPC_MAGIC {
        return Err(WireError::Malformed(format!(
            "the connection does not start with HBase's RPC preamble (HBas or Regist): {}",
            String::from_utf8_lossy(&b).escape_debug()
        )));
    }
    let [version, auth] = [rest.first().copied(), rest.get(1).copied()];
    match (version, auth) {
        (Some(RPC_VERSION), Some(auth)) => Ok(Preamble::Rpc { auth }),
        (version, _) => Err(WireError::Malformed(format!(
            "RPC version {} is not supported (only {RPC_VERSION})",
            version.unwrap_or_default()
        ))),
    }
}

/// Reads one length-prefixed frame (a 4-byte big-endian length, then that many bytes).
/// `Ok(None)` when the peer closed cleanly before the frame began.
pub fn read_frame(r: &mut impl Read, limit: usize) -> Result<Option<Vec<u8>>, WireError> {
    let mut len = [0u8; 4];
    match r.read(&mut len[..1]) {
        Ok(0) => return Ok(None),
        Ok(_) => {}
        Err(e) => return Err(e.into()),
    }
    r.read_exact(&mut len[1..])?;
    let len = u32::from_be_bytes(len);
    if len as usize > limit {
        return Err(WireError::TooLong {
            len: u64::from(len),
            limit,
        });
    }
    let mut buf = vec![0u8; len as usize];
    r.read_exact(&mut buf)?;
    Ok(Some(buf))
}

/// Decodes the connection header frame's bytes.
pub fn connection_header(frame: &[u8]) -> Result<ConnectionHeader, WireError> {
    ConnectionHeader::decode(frame)
        .map_err(|e| WireError::Malformed(format!("the connection header does not decode: {e}")))
}

/// One request as framed: its header, the bytes of its parameter message, and its cell block.
#[derive(Debug)]
pub struct RequestFrame {
    /// The request header.
    pub header: RequestHeader,
    /// The parameter message's bytes (empty when `request_param` is false).
    pub param: Vec<u8>,
    /// The cell block (empty without `cell_block_meta`).
    pub cells: Vec<u8>,
}

/// Splits a request frame: a varint-delimited `RequestHeader`, a varint-delimited parameter,
/// then the cell block of `cell_block_meta.length` bytes, which must end the frame.
pub fn split_request(frame: &[u8]) -> Result<RequestFrame, WireError> {
    let mut rest = frame;
    let header = RequestHeader::decode_length_delimited(&mut rest)
        .map_err(|e| WireError::Malformed(format!("the request header does not decode: {e}")))?;
    let mut param = Vec::new();
    if header.request_param.unwrap_or(false) {
        let len = prost::encoding::decode_varint(&mut rest).map_err(|e| {
            WireError::Malformed(format!(
                "the request parameter's length does not decode: {e}"
            ))
        })?;
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        if len > rest.len() {
            return Err(WireError::Malformed(format!(
                "the request parameter claims {len} bytes, {} are left in the frame",
                rest.len()
            )));
        }
        let (p, r) = rest.split_at(len);
        param = p.to_vec();
        rest = r;
    }
    let want = header
        .cell_block_meta
        .as_ref()
        .and_then(|m| m.length)
        .unwrap_or(0) as usize;
    if want != rest.len() {
        return Err(WireError::Malformed(format!(
            "the cell block is {} bytes, its header says {want}",
            rest.len()
        )));
    }
    Ok(RequestFrame {
        header,
        param,
        cells: rest.to_vec(),
    })
}

/// Writes a response frame: the total length, the varint-delimited header, the
/// varint-delimited message (absent for an exception) and the cell block.
pub fn write_response(
    w: &mut impl Write,
    header: &ResponseHeader,
    body: Option<&[u8]>,
    cells: &[u8],
) -> io::Result<()> {
    let apart = cells.len() >= WRITE_CELLS_APART;
    let copied = if apart { 0 } else { cells.len() };
    let mut out = Vec::with_capacity(16 + body.map_or(0, <[u8]>::len) + copied);
    out.extend_from_slice(&[0; 4]);
    header
        .encode_length_delimited(&mut out)
        .map_err(io::Error::other)?;
    if let Some(body) = body {
        prost::encoding::encode_varint(body.len() as u64, &mut out);
        out.extend_from_slice(body);
    }
    if !apart {
        out.extend_from_slice(cells);
    }
    let len = u32::try_from(out.len() - 4 + (cells.len() - copied))
        .map_err(|_| io::Error::other("a response of 4 GiB or more cannot be framed"))?;
    if let Some(head) = out.get_mut(..4) {
        head.copy_from_slice(&len.to_be_bytes());
    }
    w.write_all(&out)?;
    if apart {
        w.write_all(cells)?;
    }
    w.flush()
}

/// A cell block at least this long is written after its frame's head rather than copied behind
/// it into one buffer: a scan batch of the Java client's 2 MiB was copied once more (and its
/// buffer allocated and faulted in) for nothing. A shorter one is copied, so a small answer
/// stays one write and one packet.
const WRITE_CELLS_APART: usize = 64 << 10;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::rpc::CellBlockMeta;

    #[test]
    fn preambles_are_told_apart() {
        assert_eq!(
            read_preamble(&mut &b"HBas\x00\x50"[..]).unwrap(),
            Preamble::Rpc { auth: 80 }
        );
        assert_eq!(
            read_preamble(&mut &b"Regist"[..]).unwrap(),
            Preamble::Registry
        );
        assert!(matches!(
            read_preamble(&mut &b"HBas\x01\x50"[..]),
            Err(WireError::Malformed(_))
        ));
        assert!(matches!(
            read_preamble(&mut &b"\x80\x01\x00\x01ab"[..]),
            Err(WireError::Malformed(_))
        ));
    }

    #[test]
    fn a_request_as_the_java_client_frames_it() {
        // call 0 ClientMetaService.GetClusterId, captured from hbase-client 2.6.1.
        let bytes = b"\x00\x00\x00\x1c\x1a\x08\x00\x12\x00\x1a\x0cGetClusterId\x20\x01\x30\x00\x38\xa0\x9c\x01\x00";
        let frame = read_frame(&mut &bytes[..], 1 << 20).unwrap().unwrap();
        let req = split_request(&frame).unwrap();
        assert_eq!(req.header.call_id, Some(0));
        assert_eq!(req.header.method_name.as_deref(), Some("GetClusterId"));
        assert_eq!(req.header.timeout, Some(20000));
        assert!(req.param.is_empty() && req.cells.is_empty());
    }

    #[test]
    fn frames_past_the_limit_or_short_of_their_cell_block_are_refused() {
        let big = b"\x7f\xff\xff\xff";
        assert!(matches!(
            read_frame(&mut &big[..], 1 << 20),
            Err(WireError::TooLong { .. })
        ));
        let header = RequestHeader {
            call_id: Some(1),
            method_name: Some("Get".into()),
            request_param: Some(false),
            cell_block_meta: Some(CellBlockMeta { length: Some(10) }),
            ..RequestHeader::default()
        };
        let mut frame = Vec::new();
        header.encode_length_delimited(&mut frame).unwrap();
        frame.extend_from_slice(b"short");
        assert!(matches!(
            split_request(&frame),
            Err(WireError::Malformed(_))
        ));
    }

    #[test]
    fn responses_carry_their_length() {
        let mut out = Vec::new();
        let header = ResponseHeader {
            call_id: Some(u32::MAX),
            ..ResponseHeader::default()
        };
        write_response(&mut out, &header, Some(b"\x0a\x01x"), b"").unwrap();
        assert_eq!(
            out,
            b"\x00\x00\x00\x0b\x06\x08\xff\xff\xff\xff\x0f\x03\x0a\x01x".to_vec()
        );
    }

    /// A writer that records each write apart.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_large_cell_block_follows_its_head_uncopied_and_a_small_one_in_one_write() {
        let header = ResponseHeader {
            call_id: Some(7),
            cell_block_meta: None,
            ..ResponseHeader::default()
        };
        for cells in [vec![5u8; 100], vec![9u8; WRITE_CELLS_APART + 1]] {
            let mut writes = Writes::default();
            write_response(&mut writes, &header, Some(b"\x0a\x01x"), &cells).unwrap();
            let whole: Vec<u8> = writes.0.concat();
            let mut one = Vec::new();
            write_response(&mut one, &header, Some(b"\x0a\x01x"), &[]).unwrap();
            // The same frame as a head then the cells, its length counting both.
            let len = u32::from_be_bytes(whole[..4].try_into().unwrap()) as usize;
            assert_eq!(len, whole.len() - 4);
            assert_eq!(&whole[4..one.len()], &one[4..]);
            assert_eq!(&whole[one.len()..], &cells[..]);
            let expected_writes = if cells.len() >= WRITE_CELLS_APART {
                2
            } else {
                1
            };
            assert_eq!(writes.0.len(), expected_writes);
        }
    }
}
