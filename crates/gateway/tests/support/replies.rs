//! Reading Thrift reply structs in the gateway's integration tests.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use ferrobase_gateway::thrift::{TStruct, TValue};

/// The message of the exception in field `id` of a result struct (field 1 of IOError,
/// IllegalArgument and AlreadyExists); panics naming the struct when there is none.
pub fn exception_message(r: &TStruct, id: i16) -> String {
    match r.get(id) {
        Some(TValue::Struct(e)) => match e.get(1) {
            Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
            other => panic!("exception without a message: {other:?}"),
        },
        other => panic!("no exception in field {id}: {r:?} ({other:?})"),
    }
}
