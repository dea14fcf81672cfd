//! Compressed cell blocks (`hbase.client.rpc.compressor`, issue 48): a connection naming a
//! Hadoop codec sends its cell blocks compressed and gets its answers' cell blocks compressed
//! the same way; a cell block that does not decompress, or decompresses past the frame limit (a
//! zip bomb), is refused for that call while the connection and the server go on; a codec
//! ferrobase lacks is refused by name with HBase's `UnsupportedCompressionCodecException`.

#[path = "support/raw_client.rs"]
mod raw_client;

use ferrobase_engine::{ColumnFamilyDescriptor, TableDescriptor, TableName};
use ferrobase_native::cellblock::{decode_block, encode_parts, Codec};
use ferrobase_native::hadoop_codec::HadoopCodec;
use ferrobase_native::proto::client::{
    Get, GetRequest, GetResponse, MutateRequest, MutateResponse, MutationProto,
};
use ferrobase_native::proto::hbase::RegionSpecifier;
use ferrobase_native::NativeOptions;
use prost::Message;
use raw_client::{connect, receive, send, start, CallOpts, Door};

const MAX_MESSAGE: usize = 1 << 20;

fn door() -> (Door, RegionSpecifier) {
    let mut region = None;
    let door = start(
        NativeOptions {
            max_message: MAX_MESSAGE,
            ..NativeOptions::default()
        },
        |engine| {
            engine
                .admin()
                .create_table(
                    TableDescriptor::new(TableName::parse("t").unwrap())
                        .with_family(ColumnFamilyDescriptor::new("cf")),
                )
                .unwrap();
            region = Some(raw_client::region_of(engine, "t"));
        },
    );
    (door, region.unwrap())
}

/// A put of `cells` cells to `row`, carried in a cell block.
fn put(region: &RegionSpecifier, row: &str, cells: usize) -> (MutateRequest, Vec<u8>) {
    let mut block = Vec::new();
    for q in 0..cells {
        let value = format!("value {q} of {row} ").repeat(20);
        let qualifier = format!("q{q:04}");
        encode_parts(
            &mut block,
            row.as_bytes(),
            b"cf",
            qualifier.as_bytes(),
            1000 + q as i64,
            4,
            value.as_bytes(),
            Codec::KeyValue,
        );
    }
    let req = MutateRequest {
        region: Some(region.clone()),
        mutation: Some(MutationProto {
            row: Some(row.as_bytes().to_vec()),
            mutate_type: Some(2),
            associated_cell_count: Some(cells as i32),
            ..MutationProto::default()
        }),
        ..MutateRequest::default()
    };
    (req, block)
}

fn get(region: &RegionSpecifier, row: &str) -> GetRequest {
    GetRequest {
        region: Some(region.clone()),
        get: Some(Get {
            row: Some(row.as_bytes().to_vec()),
            ..Get::default()
        }),
    }
}

#[test]
fn every_codec_compresses_both_directions() {
    let (door, region) = door();
    for codec in HadoopCodec::ALL {
        let mut s = connect(&door, "ClientService", Some(codec.class_name()));
        let row = format!("row-{}", codec.short_name());
        let (req, block) = put(&region, &row, 200);
        let compressed = codec.compress(&block);
        assert!(compressed.len() * 5 < block.len(), "{codec:?} compresses");
        send(
            &mut s,
            1,
            "Mutate",
            &req,
            CallOpts {
                cells: &compressed,
                ..CallOpts::default()
            },
        );
        let r = receive(&mut s).unwrap();
        assert!(r.exception().is_none(), "{codec:?}: {:?}", r.exception());
        assert!(MutateResponse::decode(&r.body[..])
            .unwrap()
            .processed
            .unwrap_or(true));
        send(&mut s, 2, "Get", &get(&region, &row), CallOpts::default());
        let r = receive(&mut s).unwrap();
        assert!(r.exception().is_none(), "{codec:?}: {:?}", r.exception());
        let result = GetResponse::decode(&r.body[..]).unwrap().result.unwrap();
        assert_eq!(result.associated_cell_count, Some(200));
        // The answer's cell block is the codec's stream of the cells the put sent.
        assert!(
            r.cells.len() * 5 < block.len(),
            "{codec:?}: {} bytes",
            r.cells.len()
        );
        let plain = codec.decompress(&r.cells, MAX_MESSAGE).unwrap();
        assert_eq!(plain, block, "{codec:?}");
        assert_eq!(decode_block(&plain, Codec::KeyValue).unwrap().len(), 200);
    }
}

#[test]
fn a_bomb_or_a_broken_stream_is_refused_for_its_call_only() {
    let (door, region) = door();
    let mut s = connect(&door, "ClientService", Some(HadoopCodec::Gzip.class_name()));
    // 8 MiB of zeros in a few KiB: past the 1 MiB frame limit once decompressed.
    let bomb = HadoopCodec::Gzip.compress(&vec![0u8; 8 << 20]);
    assert!(bomb.len() < 64 << 10);
    let (req, _) = put(&region, "bomb", 1);
    send(
        &mut s,
        1,
        "Mutate",
        &req,
        CallOpts {
            cells: &bomb,
            ..CallOpts::default()
        },
    );
    let (class, message) = receive(&mut s).unwrap().exception().unwrap();
    assert_eq!(class, "org.apache.hadoop.hbase.DoNotRetryIOException");
    assert!(message.contains("decompresses to more than"), "{message}");
    assert!(message.contains("--max-message"), "{message}");
    // A stream cut short.
    let (req, block) = put(&region, "cut", 3);
    let mut cut = HadoopCodec::Gzip.compress(&block);
    cut.truncate(cut.len() / 2);
    send(
        &mut s,
        2,
        "Mutate",
        &req,
        CallOpts {
            cells: &cut,
            ..CallOpts::default()
        },
    );
    let (class, message) = receive(&mut s).unwrap().exception().unwrap();
    assert_eq!(class, "org.apache.hadoop.hbase.DoNotRetryIOException");
    assert!(message.contains("gzip stream does not decode"), "{message}");
    // The same connection goes on.
    let ok = HadoopCodec::Gzip.compress(&block);
    send(
        &mut s,
        3,
        "Mutate",
        &req,
        CallOpts {
            cells: &ok,
            ..CallOpts::default()
        },
    );
    assert!(receive(&mut s).unwrap().exception().is_none());
    send(&mut s, 4, "Get", &get(&region, "cut"), CallOpts::default());
    let r = receive(&mut s).unwrap();
    assert_eq!(
        HadoopCodec::Gzip.decompress(&r.cells, MAX_MESSAGE).unwrap(),
        block
    );
}

#[test]
fn an_unknown_codec_is_refused_by_name() {
    let (door, _) = door();
    let mut s = connect(
        &door,
        "ClientService",
        Some("org.apache.hadoop.io.compress.BZip2Codec"),
    );
    send(
        &mut s,
        1,
        "Get",
        &GetRequest::default(),
        CallOpts::default(),
    );
    let r = receive(&mut s).unwrap();
    assert_eq!(r.header.call_id, Some(u32::MAX));
    let (class, message) = r.exception().unwrap();
    assert_eq!(
        class,
        "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException"
    );
    assert!(message.contains("BZip2Codec"), "{message}");
    assert!(receive(&mut s).is_none(), "the connection closes");
    // Others are served.
    let mut s = connect(
        &door,
        "ClientService",
        Some(HadoopCodec::Default.class_name()),
    );
    send(
        &mut s,
        1,
        "Get",
        &GetRequest::default(),
        CallOpts::default(),
    );
    assert!(receive(&mut s).is_some());
}
