//! Lists decoded straight into typed values ([`Decoded`]) instead of a value tree
//! ([`TValue`](crate::TValue)) first: a `mutateRows` call's 1,000 rows become
//! [`BatchMutation`](crate::hbase::BatchMutation)s whose rows, columns and values are slices of
//! one buffer, with no per-value objects and no second conversion.
//!
//! A declaration asks for it with [`Ty::Direct`](crate::Ty::Direct); the decoder then builds a
//! [`TValue::Decoded`](crate::TValue::Decoded), which the typed field's
//! [`ThriftValue::from_value`](crate::ThriftValue::from_value) takes apart without copying. The
//! same rules as the tree's apply: undeclared or mistyped fields are read past, the last of
//! repeated fields wins, every byte built is charged to the request's budget, and a value that
//! does not fit its declaration is the same [`IdlError`](crate::IdlError), found in the same
//! order.

use crate::{TType, TValue};
use std::any::Any;
use std::sync::Arc;

/// The lists the decoder builds directly, by what they hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direct {
    /// `list<BatchMutation>` (Thrift1's `mutateRows(Ts)`):
    /// [`RowBatches`](crate::hbase::RowBatches).
    RowBatches,
}

impl Direct {
    /// The declared type of the list's elements.
    pub fn element(self) -> crate::Ty {
        match self {
            Direct::RowBatches => <crate::hbase::BatchMutation as crate::ThriftValue>::TY,
        }
    }
}

/// What a directly decoded list holds.
pub trait DecodedValue: Any + Send + Sync + std::fmt::Debug {
    /// The list as a value tree (for writing, comparing and printing; not on the fast path).
    fn tree(&self) -> TValue;
    /// How many elements it holds, and the first one's row key when it has one (what a slow
    /// log says of a call).
    fn summary(&self) -> (usize, Option<&[u8]>);
}

/// A list decoded straight into typed values (see the module).
#[derive(Clone)]
pub struct Decoded(Arc<dyn DecodedValue>);

impl Decoded {
    /// Wraps a decoded list.
    pub fn new<T: DecodedValue>(v: T) -> Decoded {
        Decoded(Arc::new(v))
    }

    /// The list as a value tree.
    pub fn tree(&self) -> TValue {
        self.0.tree()
    }

    /// How many elements, and the first one's row key.
    pub fn summary(&self) -> (usize, Option<&[u8]>) {
        self.0.summary()
    }

    /// The typed value, moved out when this is its only holder (else cloned); `None` when it
    /// holds another type.
    pub fn take<T: DecodedValue + Clone>(self) -> Option<T> {
        let any: Arc<dyn Any + Send + Sync> = self.0;
        let typed = any.downcast::<T>().ok()?;
        Some(Arc::try_unwrap(typed).unwrap_or_else(|shared| (*shared).clone()))
    }
}

impl std::fmt::Debug for Decoded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Decoded({:?})", self.0)
    }
}

impl PartialEq for Decoded {
    fn eq(&self, other: &Decoded) -> bool {
        self.tree() == other.tree()
    }
}

impl Decoded {
    /// The wire type (always a list).
    pub fn ttype(&self) -> TType {
        TType::List
    }
}
