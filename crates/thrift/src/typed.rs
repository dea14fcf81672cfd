//! Typed IDL values: Rust types that convert to and from the codec's value tree ([`TValue`],
//! [`TStruct`]), and the macro that declares a Thrift struct once — its Rust type, field ids,
//! requiredness, defaults and the declaration ([`Field`]) the decoder bounds memory with.

use crate::{Field, TStruct, TType, TValue, Ty};

/// What a value belongs to, for error messages: a struct of the IDL or a method's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A struct or exception, by its IDL name (`Mutation`).
    Struct(&'static str),
    /// The argument struct of a service method, by the method's name (`getRowTs`).
    Method(&'static str),
}

/// A value that does not fit its declaration. Its message names the struct (or method) and
/// the field: "getRowTs: argument `timestamp` missing", "Mutation.column: expected binary".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdlError {
    /// A required field (or argument) is absent.
    #[error("{} missing", at(*owner, field))]
    Missing {
        /// The struct or method.
        owner: Owner,
        /// The field's IDL name.
        field: &'static str,
    },
    /// A value of another wire type than declared.
    #[error("{}expected {expected}, got {got}", path_prefix(path))]
    WrongType {
        /// Where, outermost first (`mutateRow: argument `mutations`` then `Mutation.column`).
        path: Vec<String>,
        /// The declared type.
        expected: TType,
        /// The type sent.
        got: TType,
    },
    /// A field whose own value failed, with where it sits.
    #[error("{}: {source}", at(*owner, field))]
    Field {
        /// The struct or method.
        owner: Owner,
        /// The field's IDL name.
        field: &'static str,
        /// What was wrong inside it.
        source: Box<IdlError>,
    },
}

fn at(owner: Owner, field: &str) -> String {
    match owner {
        Owner::Struct(s) => format!("{s}.{field}"),
        Owner::Method(m) => format!("{m}: argument `{field}`"),
    }
}

fn path_prefix(path: &[String]) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{}: ", path.join(": "))
    }
}

impl std::fmt::Display for TType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TType::Bool => "bool",
            TType::Byte => "byte",
            TType::Double => "double",
            TType::I16 => "i16",
            TType::I32 => "i32",
            TType::I64 => "i64",
            TType::Binary => "binary",
            TType::Struct => "struct",
            TType::Map => "map",
            TType::Set => "set",
            TType::List => "list",
        })
    }
}

impl IdlError {
    /// `field` of `owner` is absent.
    pub fn missing(owner: Owner, field: &'static str) -> IdlError {
        IdlError::Missing { owner, field }
    }

    /// A value of type `got` where `expected` was declared (where: filled in by
    /// [`IdlError::within`]).
    pub fn wrong_type(expected: TType, got: TType) -> IdlError {
        IdlError::WrongType {
            path: Vec::new(),
            expected,
            got,
        }
    }

    /// This error, found in field `field` of `owner`.
    pub fn within(self, owner: Owner, field: &'static str) -> IdlError {
        match self {
            IdlError::WrongType {
                mut path,
                expected,
                got,
            } => {
                path.insert(0, at(owner, field));
                IdlError::WrongType {
                    path,
                    expected,
                    got,
                }
            }
            other => IdlError::Field {
                owner,
                field,
                source: Box::new(other),
            },
        }
    }
}

/// A Rust type standing for an IDL type: its declaration and its conversions.
pub trait ThriftValue: Sized {
    /// The declared type (what the decoder builds for it).
    const TY: Ty;
    /// The value as the codec writes it.
    fn to_value(&self) -> TValue;
    /// The value from what the codec read; an error when its wire type is not [`Self::TY`]'s.
    fn from_value(v: TValue) -> Result<Self, IdlError>;
}

/// A struct of the IDL (or a method's argument struct): its fields' declaration and its
/// conversions. Implemented by [`thrift_struct!`](crate::thrift_struct).
pub trait ThriftStruct: Sized {
    /// The struct's name, or its method's, for errors.
    const OWNER: Owner;
    /// Its fields, as the decoder reads them.
    const FIELDS: &'static [Field];
    /// The struct as the codec writes it: fields in declaration order, optional fields only
    /// when set.
    fn to_struct(&self) -> TStruct;
    /// The struct from what the codec read: undeclared fields are ignored, absent fields take
    /// their default (optional: `None`), an absent required field is an error.
    fn from_struct(s: TStruct) -> Result<Self, IdlError>;
}

macro_rules! primitive {
    ($t:ty, $variant:ident, $tt:ident) => {
        impl ThriftValue for $t {
            const TY: Ty = Ty::$tt;
            fn to_value(&self) -> TValue {
                TValue::$variant(self.clone())
            }
            fn from_value(v: TValue) -> Result<Self, IdlError> {
                match v {
                    TValue::$variant(x) => Ok(x),
                    other => Err(IdlError::wrong_type(TType::$tt, other.ttype())),
                }
            }
        }
    };
}

primitive!(bool, Bool, Bool);
primitive!(i8, Byte, Byte);
primitive!(i16, I16, I16);
primitive!(i32, I32, I32);
primitive!(i64, I64, I64);
primitive!(f64, Double, Double);
primitive!(Vec<u8>, Binary, Binary);

/// `binary` held as [`bytes::Bytes`]: a slice of a larger buffer (a directly decoded
/// request's, [`Decoded`](crate::Decoded)) shares it instead of copying.
impl ThriftValue for bytes::Bytes {
    const TY: Ty = Ty::Binary;
    fn to_value(&self) -> TValue {
        TValue::Binary(self.to_vec())
    }
    fn from_value(v: TValue) -> Result<Self, IdlError> {
        match v {
            TValue::Binary(b) => Ok(bytes::Bytes::from(b)),
            other => Err(IdlError::wrong_type(TType::Binary, other.ttype())),
        }
    }
}

/// `string`: UTF-8 expected; invalid sequences are replaced (the IDL's messages and names).
impl ThriftValue for String {
    const TY: Ty = Ty::Binary;
    fn to_value(&self) -> TValue {
        TValue::Binary(self.as_bytes().to_vec())
    }
    fn from_value(v: TValue) -> Result<Self, IdlError> {
        match v {
            TValue::Binary(b) => Ok(String::from_utf8(b)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())),
            other => Err(IdlError::wrong_type(TType::Binary, other.ttype())),
        }
    }
}

/// `list<T>` (a `set<T>` is read as one too).
impl<T: ThriftValue> ThriftValue for Vec<T> {
    const TY: Ty = Ty::List(&T::TY);
    fn to_value(&self) -> TValue {
        TValue::List(T::TY.ttype(), self.iter().map(T::to_value).collect())
    }
    fn from_value(v: TValue) -> Result<Self, IdlError> {
        match v {
            TValue::List(_, items) | TValue::Set(_, items) => {
                items.into_iter().map(T::from_value).collect()
            }
            other => Err(IdlError::wrong_type(TType::List, other.ttype())),
        }
    }
}

/// `map<K, V>`, its entries in wire order.
impl<K: ThriftValue, V: ThriftValue> ThriftValue for Vec<(K, V)> {
    const TY: Ty = Ty::Map(&K::TY, &V::TY);
    fn to_value(&self) -> TValue {
        TValue::Map(
            K::TY.ttype(),
            V::TY.ttype(),
            self.iter()
                .map(|(k, v)| (k.to_value(), v.to_value()))
                .collect(),
        )
    }
    fn from_value(v: TValue) -> Result<Self, IdlError> {
        match v {
            TValue::Map(_, _, items) => items
                .into_iter()
                .map(|(k, v)| Ok((K::from_value(k)?, V::from_value(v)?)))
                .collect(),
            other => Err(IdlError::wrong_type(TType::Map, other.ttype())),
        }
    }
}

/// The Rust type of a field: `optional` fields are `Option`s.
#[doc(hidden)]
#[macro_export]
macro_rules! __thrift_field_ty {
    (optional $ty:ty) => { ::core::option::Option<$ty> };
    (required $ty:ty) => { $ty };
    (default $ty:ty) => { $ty };
}

/// A field's value once the struct has been read.
#[doc(hidden)]
#[macro_export]
macro_rules! __thrift_field_take {
    (optional, $v:expr, $owner:expr, $name:expr) => {
        ::core::result::Result::<_, $crate::IdlError>::Ok($v)
    };
    (required, $v:expr, $owner:expr, $name:expr) => {
        $v.ok_or_else(|| $crate::IdlError::missing($owner, $name))
    };
    (default, $v:expr, $owner:expr, $name:expr, $default:expr) => {
        ::core::result::Result::<_, $crate::IdlError>::Ok($v.unwrap_or_else(|| $default))
    };
}

/// A field's value in a new struct.
#[doc(hidden)]
#[macro_export]
macro_rules! __thrift_field_default {
    (optional) => {
        ::core::option::Option::None
    };
    (required) => {
        ::core::default::Default::default()
    };
    (default, $default:expr) => {
        $default
    };
}

/// Writes a field: optional fields only when set.
#[doc(hidden)]
#[macro_export]
macro_rules! __thrift_field_put {
    (optional, $s:ident, $id:expr, $v:expr) => {
        if let ::core::option::Option::Some(v) = $v {
            $s.fields.push(($id, $crate::ThriftValue::to_value(v)));
        }
    };
    ($mode:ident, $s:ident, $id:expr, $v:expr) => {
        $s.fields.push(($id, $crate::ThriftValue::to_value($v)));
    };
}

/// Declares a Thrift struct once: the Rust struct, a constant per field id (named as the IDL
/// field, e.g. `TScan::reversed == 9`), the declaration the decoder reads it by, and its
/// conversions ([`ThriftStruct`], [`ThriftValue`]).
///
/// Each field is `ID: idlName as rust_name: MODE Type`, MODE one of `required` (absent is an
/// error), `optional` (an `Option`, written only when set) or `default` (then `= value`, taken
/// when absent). The owner is `struct "Name"` for the IDL's structs or `method "name"` for a
/// method's arguments (errors then read "name: argument `x` missing").
///
/// ```
/// ferrobase_thrift::thrift_struct! {
///     /// `struct TCell`.
///     pub struct Cell = struct "TCell" {
///         1: value as value: required Vec<u8>,
///         2: timestamp as timestamp: default i64 = 0,
///     }
/// }
/// assert_eq!(Cell::timestamp, 2);
/// ```
#[macro_export]
macro_rules! thrift_struct {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident = $kind:ident $owner:literal {
            $(
                $(#[$fmeta:meta])*
                $id:literal : $idl:ident as $field:ident : $mode:ident $ty:ty $(= $default:expr)?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name {
            $(
                $(#[$fmeta])*
                #[doc = concat!("(Field ", stringify!($id), ", `", stringify!($idl), "`.)")]
                pub $field: $crate::__thrift_field_ty!($mode $ty),
            )*
        }

        #[allow(non_upper_case_globals, reason = "field ids are named as the IDL's fields")]
        impl $name {
            $(
                #[doc = concat!("The id of field `", stringify!($idl), "`.")]
                pub const $idl: i16 = $id;
            )*
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                $name {
                    $( $field: $crate::__thrift_field_default!($mode $(, $default)?), )*
                }
            }
        }

        impl $crate::ThriftStruct for $name {
            const OWNER: $crate::Owner = $crate::__thrift_owner!($kind $owner);
            const FIELDS: &'static [$crate::Field] = &[
                $(
                    $crate::Field {
                        id: $id,
                        name: stringify!($idl),
                        ty: <$ty as $crate::ThriftValue>::TY,
                    },
                )*
            ];

            fn to_struct(&self) -> $crate::TStruct {
                #[allow(unused_mut, reason = "a struct without fields")]
                let mut s = $crate::TStruct::new();
                $( $crate::__thrift_field_put!($mode, s, $id, &self.$field); )*
                s
            }

            fn from_struct(s: $crate::TStruct) -> ::core::result::Result<Self, $crate::IdlError> {
                $( let mut $field: ::core::option::Option<$ty> = None; )*
                for field in s.fields {
                    #[allow(clippy::match_single_binding, reason = "a struct without fields")]
                    match field.0 {
                        $(
                            $id => {
                                $field = Some(
                                    <$ty as $crate::ThriftValue>::from_value(field.1)
                                        .map_err(|e| e.within(Self::OWNER, stringify!($idl)))?,
                                )
                            }
                        )*
                        _ => {}
                    }
                }
                Ok($name {
                    $(
                        $field: $crate::__thrift_field_take!(
                            $mode, $field, Self::OWNER, stringify!($idl) $(, $default)?
                        )?,
                    )*
                })
            }
        }

        impl $crate::ThriftValue for $name {
            const TY: $crate::Ty = $crate::Ty::Struct(<Self as $crate::ThriftStruct>::FIELDS);
            fn to_value(&self) -> $crate::TValue {
                $crate::TValue::Struct($crate::ThriftStruct::to_struct(self))
            }
            fn from_value(v: $crate::TValue) -> ::core::result::Result<Self, $crate::IdlError> {
                match v {
                    $crate::TValue::Struct(s) => $crate::ThriftStruct::from_struct(s),
                    other => Err($crate::IdlError::wrong_type(
                        $crate::TType::Struct,
                        other.ttype(),
                    )),
                }
            }
        }
    };
}

/// The [`Owner`] of a declaration.
#[doc(hidden)]
#[macro_export]
macro_rules! __thrift_owner {
    (struct $name:literal) => {
        $crate::Owner::Struct($name)
    };
    (method $name:literal) => {
        $crate::Owner::Method($name)
    };
}
