//! A raw HBase RPC client for the native door's tests: the preamble, a connection header with a
//! codec and a compressor, request frames with a header priority and timeout, and response frames
//! read back whole (header, message, cell block).

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_native::proto::rpc::{
    CellBlockMeta, ConnectionHeader, RequestHeader, ResponseHeader, UserInformation,
};
use ferrobase_native::{NativeOptions, NativeServer, NativeStopHandle};
use prost::Message;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// `org.apache.hadoop.hbase.codec.KeyValueCodec`.
pub const KEY_VALUE_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";

/// A running door over its own engine.
pub struct Door {
    pub addr: SocketAddr,
    pub stop: NativeStopHandle,
    pub _dir: tempfile::TempDir,
}

impl Drop for Door {
    fn drop(&mut self) {
        self.stop.stop();
    }
}

/// Starts a door with `opts` (its address replaced by a free loopback port) over an engine that
/// `setup` prepares.
pub fn start(opts: NativeOptions, setup: impl FnOnce(&Engine)) -> Door {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    setup(&engine);
    let server = NativeServer::bind(
        engine,
        NativeOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            ..opts
        },
    )
    .unwrap();
    let door = Door {
        addr: server.local_addr().unwrap(),
        stop: server.stop_handle().unwrap(),
        _dir: dir,
    };
    std::thread::spawn(move || server.run());
    door
}

/// A connection that has sent the preamble and a header for `service` with `compressor`.
pub fn connect(door: &Door, service: &str, compressor: Option<&str>) -> TcpStream {
    connect_to(door.addr, service, Some(KEY_VALUE_CODEC), compressor)
}

/// A connection to `addr` that has sent the preamble and a header for `service` with `codec`
/// (none: cells come inside the results) and `compressor`.
pub fn connect_to(
    addr: SocketAddr,
    service: &str,
    codec: Option<&str>,
    compressor: Option<&str>,
) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    // As HBase's client (tcpNoDelay): a frame written in two parts is not held back.
    s.set_nodelay(true).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(b"HBas\x00\x50").unwrap();
    let header = ConnectionHeader {
        user_info: Some(UserInformation {
            effective_user: Some("tester".into()),
            real_user: None,
        }),
        service_name: Some(service.into()),
        cell_block_codec_class: codec.map(str::to_string),
        cell_block_compressor_class: compressor.map(str::to_string),
        ..ConnectionHeader::default()
    };
    let bytes = header.encode_to_vec();
    s.write_all(&(bytes.len() as u32).to_be_bytes()).unwrap();
    s.write_all(&bytes).unwrap();
    s
}

/// One Scan call with the call timeout `timeout_ms` on a connection without a codec; its answer
/// (the call must not fail).
pub fn scan(
    s: &mut TcpStream,
    id: u32,
    req: &ferrobase_native::proto::client::ScanRequest,
    timeout_ms: u32,
) -> ferrobase_native::proto::client::ScanResponse {
    let o = CallOpts {
        timeout_ms: Some(timeout_ms),
        ..CallOpts::default()
    };
    send(s, id, "Scan", req, o);
    let resp = receive(s).expect("an answer");
    assert!(resp.exception().is_none(), "{:?}", resp.exception());
    assert!(resp.cells.is_empty(), "no codec, no cell block");
    Message::decode(&resp.body[..]).unwrap()
}

/// The region specifier of `table`'s region `region` starting at `start`.
pub fn region_named(
    table: &str,
    start: &[u8],
    region: u64,
) -> ferrobase_native::proto::hbase::RegionSpecifier {
    use ferrobase_native::proto::hbase::region_specifier::RegionSpecifierType;
    ferrobase_native::proto::hbase::RegionSpecifier {
        r#type: Some(RegionSpecifierType::EncodedRegionName as i32),
        value: Some(
            ferrobase_gateway::catalog::encoded_region_name(table, start, region).into_bytes(),
        ),
    }
}

/// What a call carries besides its method and parameter.
#[derive(Default, Clone, Copy)]
pub struct CallOpts<'a> {
    pub cells: &'a [u8],
    pub priority: Option<u32>,
    pub timeout_ms: Option<u32>,
}

/// Sends a call.
pub fn send(s: &mut TcpStream, id: u32, method: &str, param: &impl Message, o: CallOpts<'_>) {
    let header = RequestHeader {
        call_id: Some(id),
        method_name: Some(method.into()),
        request_param: Some(true),
        cell_block_meta: (!o.cells.is_empty()).then_some(CellBlockMeta {
            length: Some(o.cells.len() as u32),
        }),
        priority: o.priority,
        timeout: o.timeout_ms,
        ..RequestHeader::default()
    };
    let param = param.encode_to_vec();
    let mut frame = Vec::new();
    header.encode_length_delimited(&mut frame).unwrap();
    prost::encoding::encode_varint(param.len() as u64, &mut frame);
    frame.extend_from_slice(&param);
    frame.extend_from_slice(o.cells);
    s.write_all(&(frame.len() as u32).to_be_bytes()).unwrap();
    s.write_all(&frame).unwrap();
}

/// One response: its header, message bytes and cell block (as sent: compressed or not).
pub struct Response {
    pub header: ResponseHeader,
    pub body: Vec<u8>,
    pub cells: Vec<u8>,
}

impl Response {
    /// The exception's class and message, if the call failed.
    pub fn exception(&self) -> Option<(String, String)> {
        let e = self.header.exception.as_ref()?;
        Some((
            e.exception_class_name.clone().unwrap_or_default(),
            e.stack_trace.clone().unwrap_or_default(),
        ))
    }
}

/// Reads one response; `None` once the server closed.
pub fn receive(s: &mut TcpStream) -> Option<Response> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).ok()?;
    let mut frame = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut frame).ok()?;
    let mut rest = &frame[..];
    let header = ResponseHeader::decode_length_delimited(&mut rest).unwrap();
    let mut body = Vec::new();
    if header.exception.is_none() {
        let n = prost::encoding::decode_varint(&mut rest).unwrap() as usize;
        body = rest[..n].to_vec();
        rest = &rest[n..];
    }
    let want = header
        .cell_block_meta
        .as_ref()
        .and_then(|m| m.length)
        .unwrap_or(0) as usize;
    assert_eq!(rest.len(), want, "the cell block ends the frame");
    Some(Response {
        header,
        body,
        cells: rest.to_vec(),
    })
}

/// The region specifier of `table`'s only region.
pub fn region_of(engine: &Engine, table: &str) -> ferrobase_native::proto::hbase::RegionSpecifier {
    region_named(table, b"", engine.admin().regions(table).unwrap()[0].id)
}
