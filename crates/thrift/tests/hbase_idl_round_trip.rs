//! Every struct of HBase's Thrift1 IDL survives encoding and decoding through both protocols,
//! and a value that does not fit its declaration is refused with an error naming the struct
//! (or method) and field.

use ferrobase_thrift::hbase::service::{
    CheckAndPutArgs, GetRowTsArgs, MutateRowsTsArgs, ScannerOpenWithScanArgs,
};
use ferrobase_thrift::hbase::{self, *};
use ferrobase_thrift::{
    Binary, Budget, Codec, Compact, IdlError, Limits, MessageHeader, MessageType, TStruct, TValue,
    ThriftStruct,
};

fn cell(v: &str, ts: i64) -> TCell {
    TCell {
        value: v.as_bytes().to_vec(),
        timestamp: ts,
    }
}

fn mutation(column: &str, delete: bool) -> Mutation {
    Mutation {
        is_delete: delete,
        column: column.as_bytes().to_vec().into(),
        value: b"v".to_vec().into(),
        write_to_wal: !delete,
    }
}

/// Encodes `value` as a call's arguments with `codec`, decodes it as the server does (against
/// its declaration) and as the client does (no declaration), and converts back.
fn round_trip<T: ThriftStruct + PartialEq + std::fmt::Debug, C: Codec>(codec: &C, value: &T) {
    let mut wire = Vec::new();
    let header = MessageHeader {
        name: "m".into(),
        kind: MessageType::Call,
        seq_id: 9,
    };
    codec.write_header(&mut wire, &header);
    codec.write_struct(&mut wire, &value.to_struct());
    for declared in [true, false] {
        let mut r = &wire[..];
        let mut b = Budget::new(&mut r, &Limits::default());
        assert_eq!(codec.read_header(&mut b).unwrap(), header);
        let s = if declared {
            codec.read_declared(&mut b, T::FIELDS).unwrap()
        } else {
            codec.read_struct(&mut b).unwrap()
        };
        assert_eq!(&T::from_struct(s).unwrap(), value, "declared: {declared}");
    }
}

fn both<T: ThriftStruct + PartialEq + std::fmt::Debug>(value: T) {
    round_trip(&Binary, &value);
    round_trip(&Compact, &value);
}

#[test]
fn every_struct_round_trips_through_binary_and_compact() {
    both(cell("value", -5));
    both(ColumnDescriptor {
        name: b"cf:".to_vec(),
        max_versions: 7,
        compression: "SNAPPY".into(),
        in_memory: true,
        bloom_filter_type: "ROWCOL".into(),
        bloom_filter_vector_size: 11,
        bloom_filter_nb_hashes: 2,
        block_cache_enabled: true,
        time_to_live: 3600,
    });
    both(TRegionInfo {
        start_key: b"a".to_vec(),
        end_key: b"m".to_vec(),
        id: 1_700_000_000_000,
        name: b"t,a,1.".to_vec(),
        version: 1,
        server_name: b"localhost".to_vec(),
        port: 9090,
    });
    both(mutation("cf:q", false));
    both(BatchMutation {
        row: b"r".to_vec().into(),
        mutations: vec![mutation("cf:a", true), mutation("cf:b", false)],
    });
    both(TIncrement {
        table: b"t".to_vec(),
        row: b"r".to_vec(),
        column: b"cf:n".to_vec(),
        amount: -3,
    });
    both(TColumn {
        column_name: b"cf:q".to_vec(),
        cell: cell("x", 1),
    });
    both(TRowResult {
        row: b"r".to_vec(),
        columns: Some(vec![(b"cf:a".to_vec(), cell("1", 2))]),
        sorted_columns: Some(vec![TColumn {
            column_name: b"cf:b".to_vec(),
            cell: cell("2", 3),
        }]),
    });
    both(TScan {
        start_row: Some(b"a".to_vec()),
        stop_row: Some(b"z".to_vec()),
        timestamp: Some(99),
        columns: Some(vec![b"cf".to_vec(), b"cf:q".to_vec()]),
        caching: Some(100),
        filter_string: Some(b"KeyOnlyFilter()".to_vec()),
        batch_size: Some(10),
        sort_columns: Some(true),
        reversed: Some(false),
        cache_blocks: Some(true),
    });
    both(TScan::default());
    both(TAppend {
        table: b"t".to_vec(),
        row: b"r".to_vec(),
        columns: vec![b"cf:q".to_vec()],
        values: vec![b"tail".to_vec()],
    });
    both(IOError {
        message: "no such table".into(),
        can_retry: Some(true),
    });
    both(IllegalArgument {
        message: "bad".into(),
    });
    both(AlreadyExists {
        message: "t exists".into(),
    });
    both(TAccessControlEntity {
        username: "bob".into(),
        scope: permission_scope::NAMESPACE,
        actions: "RW".into(),
        table_name: None,
        ns_name: Some("ns".into()),
    });
}

#[test]
fn method_arguments_round_trip_through_binary_and_compact() {
    both(GetRowTsArgs {
        table_name: b"t".to_vec(),
        row: b"r".to_vec(),
        timestamp: 42,
        attributes: vec![(b"k".to_vec(), b"v".to_vec())],
    });
    both(MutateRowsTsArgs {
        table_name: b"t".to_vec(),
        row_batches: vec![BatchMutation {
            row: b"r".to_vec().into(),
            mutations: vec![mutation("cf:q", false)],
        }]
        .into(),
        timestamp: 7,
        attributes: Vec::new(),
    });
    both(CheckAndPutArgs {
        table_name: b"t".to_vec(),
        row: b"r".to_vec(),
        column: b"cf:q".to_vec(),
        value: None,
        mput: mutation("cf:q", false),
        attributes: Vec::new(),
    });
    both(ScannerOpenWithScanArgs {
        table_name: b"t".to_vec(),
        scan: TScan {
            reversed: Some(true),
            ..TScan::default()
        },
        attributes: Vec::new(),
    });
}

#[test]
fn field_ids_are_named_as_the_idl_fields() {
    assert_eq!(TScan::reversed, 9);
    assert_eq!(Mutation::writeToWAL, 4);
    assert_eq!(GetRowTsArgs::timestamp, 3);
    assert_eq!(CheckAndPutArgs::mput, 6);
    assert_eq!(TAccessControlEntity::actions, 4);
    let ids: Vec<i16> = ColumnDescriptor::FIELDS.iter().map(|f| f.id).collect();
    assert_eq!(ids, (1..=9).collect::<Vec<_>>());
}

#[test]
fn absent_fields_take_the_idl_defaults() {
    let cd = ColumnDescriptor::from_struct(
        TStruct::new().with(ColumnDescriptor::name, TValue::string("cf:")),
    )
    .unwrap();
    assert_eq!(cd.max_versions, 3);
    assert_eq!(cd.compression, "NONE");
    assert_eq!(cd.time_to_live, 0x7fff_ffff);
    let m =
        Mutation::from_struct(TStruct::new().with(Mutation::column, TValue::string("cf"))).unwrap();
    assert!(m.write_to_wal && !m.is_delete);
}

#[test]
fn a_missing_argument_names_the_method_and_the_argument() {
    let args = TStruct::new()
        .with(GetRowTsArgs::tableName, TValue::string("t"))
        .with(GetRowTsArgs::row, TValue::string("r"));
    let e = GetRowTsArgs::from_struct(args).unwrap_err();
    assert_eq!(e.to_string(), "getRowTs: argument `timestamp` missing");
    assert!(matches!(
        e,
        IdlError::Missing {
            field: "timestamp",
            ..
        }
    ));
}

#[test]
fn a_mistyped_field_names_the_struct_and_the_field() {
    let m = TStruct::new().with(Mutation::column, TValue::I32(1));
    let e = Mutation::from_struct(m.clone()).unwrap_err();
    assert_eq!(e.to_string(), "Mutation.column: expected binary, got i32");
    let args = TStruct::new()
        .with(1, TValue::string("t"))
        .with(2, TValue::string("r"))
        .with(
            3,
            TValue::List(ferrobase_thrift::TType::Struct, vec![TValue::Struct(m)]),
        );
    let e = ferrobase_thrift::hbase::service::MutateRowArgs::from_struct(args).unwrap_err();
    assert_eq!(
        e.to_string(),
        "mutateRow: argument `mutations`: Mutation.column: expected binary, got i32"
    );
    let nested = TStruct::new().with(1, TValue::Struct(TStruct::new()));
    let e = ferrobase_thrift::hbase::service::IncrementArgs::from_struct(nested).unwrap_err();
    assert_eq!(
        e.to_string(),
        "increment: argument `increment`: TIncrement.table missing"
    );
}

#[test]
fn calls_are_built_by_method_name() {
    let call = Call::from_struct("getRowTs", GetRowTsArgs::default().to_struct())
        .unwrap()
        .unwrap();
    assert_eq!(call.method(), "getRowTs");
    assert!(!call.throws().illegal_argument);
    assert!(Call::from_struct("noSuchMethod", TStruct::new()).is_none());
    assert!(arguments("createTable").is_some());
    assert!(hbase::throws("createTable").unwrap().already_exists);
}

/// A value of declared type `ty` with every field set (fields of structs in declaration order).
fn sample(ty: &ferrobase_thrift::Ty) -> TValue {
    use ferrobase_thrift::Ty;
    match ty {
        Ty::Bool => TValue::Bool(true),
        Ty::Byte => TValue::Byte(-3),
        Ty::Double => TValue::Double(0.5),
        Ty::I16 => TValue::I16(-300),
        Ty::I32 => TValue::I32(70_000),
        Ty::I64 => TValue::I64(-5_000_000_000),
        Ty::Binary => TValue::string("x:y"),
        Ty::Struct(fields) => TValue::Struct(sample_struct(fields)),
        Ty::List(e) => TValue::List(e.ttype(), vec![sample(e), sample(e)]),
        Ty::Direct(d) => TValue::List(d.element().ttype(), vec![sample(&d.element())]),
        Ty::Set(e) => TValue::Set(e.ttype(), vec![sample(e)]),
        Ty::Map(k, v) => TValue::Map(k.ttype(), v.ttype(), vec![(sample(k), sample(v))]),
    }
}

fn sample_struct(fields: &[ferrobase_thrift::Field]) -> TStruct {
    TStruct {
        fields: fields.iter().map(|f| (f.id, sample(&f.ty))).collect(),
    }
}

#[test]
fn the_arguments_of_every_method_round_trip_through_binary_and_compact() {
    for &method in hbase::service::METHODS {
        let fields = arguments(method).unwrap();
        let args = sample_struct(fields);
        for compact in [false, true] {
            let mut wire = Vec::new();
            let header = MessageHeader {
                name: method.into(),
                kind: MessageType::Call,
                seq_id: 1,
            };
            let decoded = if compact {
                Compact.write_header(&mut wire, &header);
                Compact.write_struct(&mut wire, &args);
                let mut r = &wire[..];
                let mut b = Budget::new(&mut r, &Limits::default());
                Compact.read_header(&mut b).unwrap();
                Compact.read_declared(&mut b, fields).unwrap()
            } else {
                Binary.write_header(&mut wire, &header);
                Binary.write_struct(&mut wire, &args);
                let mut r = &wire[..];
                let mut b = Budget::new(&mut r, &Limits::default());
                Binary.read_header(&mut b).unwrap();
                Binary.read_declared(&mut b, fields).unwrap()
            };
            // A directly decoded list (`mutateRows`' rows) compared as its value tree.
            let as_tree = TStruct {
                fields: (decoded.fields.iter())
                    .map(|(id, v)| match v {
                        TValue::Decoded(d) => (*id, d.tree()),
                        v => (*id, v.clone()),
                    })
                    .collect(),
            };
            assert_eq!(as_tree, args, "{method}: every declared field is built");
            let call = Call::from_struct(method, decoded)
                .unwrap()
                .unwrap_or_else(|e| panic!("{method}: {e}"));
            assert_eq!(call.method(), method);
            assert_eq!(call.to_struct(), args, "{method}: typed and back");
        }
    }
}

#[test]
fn an_application_exception_round_trips() {
    both(TApplicationException {
        message: "Invalid method name: 'x'".into(),
        kind: 1,
    });
}
