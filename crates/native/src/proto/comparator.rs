//! `Comparator.proto` (package `hbase.pb`), as in hbase-protocol-shaded 2.6.1 (branch-2.6):
//! comparators in their protobuf form (`Comparator{name, serialized_comparator}` wraps one of the
//! others).

/// A comparator: its Java class name (required) and its serialized message.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Comparator {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub serialized_comparator: Option<Vec<u8>>,
}

/// The value a comparator compares with.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ByteArrayComparable {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub value: Option<Vec<u8>>,
}

/// `BinaryComparator` (`comparable` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct BinaryComparator {
    #[prost(message, optional, tag = "1")]
    pub comparable: Option<ByteArrayComparable>,
}

/// `LongComparator` (`comparable` required: 8 big-endian bytes).
#[derive(Clone, PartialEq, prost::Message)]
pub struct LongComparator {
    #[prost(message, optional, tag = "1")]
    pub comparable: Option<ByteArrayComparable>,
}

/// `BinaryPrefixComparator` (`comparable` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct BinaryPrefixComparator {
    #[prost(message, optional, tag = "1")]
    pub comparable: Option<ByteArrayComparable>,
}

/// `BitComparator` (both fields required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct BitComparator {
    #[prost(message, optional, tag = "1")]
    pub comparable: Option<ByteArrayComparable>,
    #[prost(enumeration = "bit_comparator::BitwiseOp", optional, tag = "2")]
    pub bitwise_op: Option<i32>,
}

/// Nested types of [`BitComparator`].
pub mod bit_comparator {
    /// `BitComparator.BitwiseOp`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum BitwiseOp {
        And = 1,
        Or = 2,
        Xor = 3,
    }
}

/// `NullComparator`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NullComparator {}

/// `RegexStringComparator` (`pattern`, `pattern_flags` and `charset` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegexStringComparator {
    #[prost(string, optional, tag = "1")]
    pub pattern: Option<String>,
    /// `java.util.regex.Pattern` flags.
    #[prost(int32, optional, tag = "2")]
    pub pattern_flags: Option<i32>,
    #[prost(string, optional, tag = "3")]
    pub charset: Option<String>,
    /// `JAVA` or `JONI`.
    #[prost(string, optional, tag = "4")]
    pub engine: Option<String>,
}

/// `SubstringComparator` (`substr` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SubstringComparator {
    #[prost(string, optional, tag = "1")]
    pub substr: Option<String>,
}

/// `BigDecimalComparator` (`comparable` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct BigDecimalComparator {
    #[prost(message, optional, tag = "1")]
    pub comparable: Option<ByteArrayComparable>,
}

/// `BinaryComponentComparator` (both fields required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct BinaryComponentComparator {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub value: Option<Vec<u8>>,
    #[prost(uint32, optional, tag = "2")]
    pub offset: Option<u32>,
}
