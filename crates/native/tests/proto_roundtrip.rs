//! The hand-declared HBase messages (`ferrobase_native::proto`): byte encodings computed by hand
//! from the field numbers and wire types of hbase-protocol-shaded 2.6.1's `.proto` files, proto2
//! defaults, and round trips of nested messages.

use ferrobase_native::proto::{
    client, cluster_status, filter, hbase, master, registry, rpc, tracing,
};
use prost::Message;

fn encode<M: Message>(message: &M) -> Vec<u8> {
    message.encode_to_vec()
}

#[test]
fn request_header_encodes_as_hbase_writes_it() {
    let header = rpc::RequestHeader {
        call_id: Some(1),
        method_name: Some("Get".to_owned()),
        request_param: Some(true),
        ..Default::default()
    };
    // call_id = 1 (varint), method_name = 3 (length-delimited), request_param = 4 (varint).
    let bytes = encode(&header);
    assert_eq!(
        bytes,
        [0x08, 0x01, 0x1a, 0x03, b'G', b'e', b't', 0x20, 0x01]
    );
    assert_eq!(
        rpc::RequestHeader::decode(bytes.as_slice()).unwrap(),
        header
    );
}

#[test]
fn request_header_is_read_length_delimited_with_priority_and_timeout() {
    let header = rpc::RequestHeader {
        call_id: Some(300),
        method_name: Some("Scan".to_owned()),
        request_param: Some(true),
        cell_block_meta: Some(rpc::CellBlockMeta { length: Some(5) }),
        priority: Some(200),
        timeout: Some(60_000),
        ..Default::default()
    };
    let bytes = header.encode_length_delimited_to_vec();
    // 300 is the two-byte varint ac 02; the whole header is prefixed by its varint length.
    assert_eq!(&bytes[1..4], [0x08, 0xac, 0x02]);
    assert_eq!(usize::from(bytes[0]), bytes.len() - 1);
    assert_eq!(
        rpc::RequestHeader::decode_length_delimited(bytes.as_slice()).unwrap(),
        header
    );
}

#[test]
fn response_header_with_exception() {
    let header = rpc::ResponseHeader {
        call_id: Some(7),
        exception: Some(rpc::ExceptionResponse {
            exception_class_name: Some("X".to_owned()),
            do_not_retry: Some(true),
            ..Default::default()
        }),
        cell_block_meta: None,
    };
    // exception = 2 holds exception_class_name = 1 and do_not_retry = 5.
    assert_eq!(
        encode(&header),
        [0x08, 0x07, 0x12, 0x05, 0x0a, 0x01, b'X', 0x28, 0x01]
    );
}

#[test]
fn connection_registry_response_carries_the_cluster_id() {
    let response = registry::GetConnectionRegistryResponse {
        cluster_id: Some("abc".to_owned()),
    };
    assert_eq!(encode(&response), [0x0a, 0x03, b'a', b'b', b'c']);
}

#[test]
fn trace_info_headers_are_a_map() {
    let mut info = tracing::RPCTInfo::default();
    info.headers
        .insert("traceparent".to_owned(), "x".to_owned());
    // headers = 3, each entry a message of key = 1 and value = 2.
    let mut expected = vec![0x1a, 0x10, 0x0a, 0x0b];
    expected.extend_from_slice(b"traceparent");
    expected.extend_from_slice(&[0x12, 0x01, b'x']);
    assert_eq!(encode(&info), expected);
}

#[test]
fn region_specifier_and_negative_int64() {
    let region = hbase::RegionSpecifier {
        r#type: Some(hbase::region_specifier::RegionSpecifierType::RegionName as i32),
        value: Some(b"r".to_vec()),
    };
    assert_eq!(encode(&region), [0x08, 0x01, 0x12, 0x01, b'r']);
    // int64 (not sint64): -1 is a ten-byte varint.
    let pair = hbase::NameInt64Pair {
        name: None,
        value: Some(-1),
    };
    assert_eq!(
        encode(&pair),
        [0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
    );
}

#[test]
fn proto2_defaults_of_get_and_scan() {
    let get = client::Get {
        row: Some(b"r".to_vec()),
        ..Default::default()
    };
    // Only the row is written: unset optional fields are absent, not their defaults.
    assert_eq!(encode(&get), [0x0a, 0x01, b'r']);
    assert_eq!(get.max_versions(), 1);
    assert!(get.cache_blocks());
    assert!(!get.existence_only());
    assert_eq!(get.consistency(), client::Consistency::Strong);

    let scan = client::Scan::default();
    assert_eq!(scan.max_versions(), 1);
    assert!(scan.cache_blocks());
    assert!(scan.include_start_row());
    assert!(!scan.include_stop_row());
    assert!(!scan.reversed());
    assert_eq!(scan.read_type(), client::scan::ReadType::Default);

    let mutation = client::MutationProto::default();
    assert_eq!(
        mutation.durability(),
        client::mutation_proto::Durability::UseDefault
    );
    let modify = master::ModifyTableRequest::default();
    assert!(modify.reopen_regions());
}

#[test]
fn scan_response_repeated_scalars_are_not_packed() {
    let response = client::ScanResponse {
        cells_per_result: vec![3, 2],
        partial_flag_per_result: vec![false, true],
        more_results_in_region: Some(true),
        ..Default::default()
    };
    // proto2 repeated scalars without [packed=true]: one tag per element.
    assert_eq!(
        encode(&response),
        [0x08, 0x03, 0x08, 0x02, 0x38, 0x00, 0x38, 0x01, 0x40, 0x01]
    );
    // A packed encoding of the same field decodes too, as protobuf's rules require.
    let packed = [0x0a, 0x02, 0x03, 0x02];
    assert_eq!(
        client::ScanResponse::decode(packed.as_slice())
            .unwrap()
            .cells_per_result,
        [3, 2]
    );
}

#[test]
fn timestamps_filter_is_packed() {
    let filter = filter::TimestampsFilter {
        timestamps: vec![1, 2],
        can_hint: None,
    };
    assert_eq!(encode(&filter), [0x0a, 0x02, 0x01, 0x02]);
}

#[test]
fn repeated_enums_are_not_packed() {
    let response = master::SecurityCapabilitiesResponse {
        capabilities: vec![
            master::security_capabilities_response::Capability::SimpleAuthentication as i32,
            master::security_capabilities_response::Capability::Authorization as i32,
        ],
    };
    assert_eq!(encode(&response), [0x08, 0x00, 0x08, 0x02]);
    let request = master::GetClusterStatusRequest {
        options: vec![cluster_status::ClusterOption::LiveServers as i32],
    };
    assert_eq!(encode(&request), [0x08, 0x02]);
}

#[test]
fn unknown_fields_are_skipped() {
    // A GetResponse with a field 15 (varint) that this side does not declare, then result = 1.
    let bytes = [0x78, 0x05, 0x0a, 0x02, 0x18, 0x01];
    let response = client::GetResponse::decode(bytes.as_slice()).unwrap();
    assert_eq!(response.result.unwrap().exists, Some(true));
}

#[test]
fn nested_filter_list_and_multi_round_trip() {
    let page = filter::PageFilter {
        page_size: Some(10),
    };
    let value = filter::SingleColumnValueFilter {
        column_family: Some(b"cf".to_vec()),
        column_qualifier: Some(b"q".to_vec()),
        compare_op: Some(hbase::CompareType::GreaterOrEqual as i32),
        comparator: Some(ferrobase_native::proto::comparator::Comparator {
            name: Some("org.apache.hadoop.hbase.filter.BinaryComparator".to_owned()),
            serialized_comparator: Some(encode(
                &ferrobase_native::proto::comparator::BinaryComparator {
                    comparable: Some(ferrobase_native::proto::comparator::ByteArrayComparable {
                        value: Some(b"v".to_vec()),
                    }),
                },
            )),
        }),
        filter_if_missing: Some(true),
        latest_version_only: None,
    };
    let list = filter::FilterList {
        operator: Some(filter::filter_list::Operator::MustPassAll as i32),
        filters: vec![
            filter::Filter {
                name: Some("org.apache.hadoop.hbase.filter.PageFilter".to_owned()),
                serialized_filter: Some(encode(&page)),
            },
            filter::Filter {
                name: Some("org.apache.hadoop.hbase.filter.SingleColumnValueFilter".to_owned()),
                serialized_filter: Some(encode(&value)),
            },
        ],
    };
    let decoded = filter::FilterList::decode(encode(&list).as_slice()).unwrap();
    assert_eq!(decoded, list);
    assert_eq!(
        decoded.operator(),
        filter::filter_list::Operator::MustPassAll
    );
    let inner = filter::SingleColumnValueFilter::decode(
        decoded.filters[1].serialized_filter.as_deref().unwrap(),
    )
    .unwrap();
    assert_eq!(inner, value);

    let put = client::MutationProto {
        row: Some(b"row".to_vec()),
        mutate_type: Some(client::mutation_proto::MutationType::Put as i32),
        column_value: vec![client::mutation_proto::ColumnValue {
            family: Some(b"cf".to_vec()),
            qualifier_value: vec![client::mutation_proto::column_value::QualifierValue {
                qualifier: Some(b"q".to_vec()),
                value: Some(b"v".to_vec()),
                timestamp: Some(1_700_000_000_000),
                delete_type: None,
                tags: None,
            }],
        }],
        durability: Some(client::mutation_proto::Durability::SkipWal as i32),
        ..Default::default()
    };
    let multi = client::MultiRequest {
        region_action: vec![client::RegionAction {
            region: Some(hbase::RegionSpecifier {
                r#type: Some(hbase::region_specifier::RegionSpecifierType::RegionName as i32),
                value: Some(b"t,,1.abc.".to_vec()),
            }),
            atomic: Some(true),
            action: vec![client::Action {
                index: Some(0),
                mutation: Some(put),
                get: None,
                service_call: None,
            }],
            condition: None,
        }],
        nonce_group: Some(42),
        condition: None,
    };
    assert_eq!(
        client::MultiRequest::decode(encode(&multi).as_slice()).unwrap(),
        multi
    );
}
