//! The matrix's users: one per scope and granted action (`u_<scope>_<actions>`), each granted by
//! the superuser before it acts, and the state every user starts from.

use crate::client::{args, no_attrs, put, s, Client};
use ferrobase_gateway::thrift::{TType, TValue};

/// A scope of the matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum At {
    /// Every namespace.
    Global,
    /// Namespace `default`.
    Namespace,
    /// Table `t`.
    Table,
    /// Family `t:cf`.
    Family,
    /// Column `t:cf:q`.
    Qualifier,
}

/// The scopes, in the recording's order.
pub(crate) const SCOPES: [At; 5] = [
    At::Global,
    At::Namespace,
    At::Table,
    At::Family,
    At::Qualifier,
];

/// What each user of the recorded matrix is granted (`AclMatrix.java`'s `GRANTS`): each action
/// alone, then READ and WRITE together.
pub(crate) const GRANTS: [&str; 6] = ["R", "W", "X", "C", "A", "RW"];

/// The superuser grants `letters` at `at` to `user` (through `ferrobaseAdmin`, every scope).
pub(crate) fn grant(admin: &mut Client, user: &str, at: At, letters: &str) {
    let attrs = |pairs: &[(&str, &str)]| {
        TValue::Map(
            TType::Binary,
            TType::Binary,
            pairs.iter().map(|(k, v)| (s(k), s(v))).collect(),
        )
    };
    let (target, extra): (&str, Vec<(&str, &str)>) = match at {
        At::Global => ("", vec![]),
        At::Namespace => ("@default", vec![]),
        At::Table => ("t", vec![]),
        At::Family => ("t", vec![("FAMILY", "cf")]),
        At::Qualifier => ("t", vec![("FAMILY", "cf"), ("QUALIFIER", "q")]),
    };
    let mut pairs = vec![("USER", user), ("ACTIONS", letters)];
    pairs.extend(extra);
    admin
        .call(
            "ferrobaseAdmin",
            args(vec![s("grant"), s(target), s(""), attrs(&pairs)]),
        )
        .unwrap();
}

/// The namespace the matrix's users try to drop (and the superuser creates again).
pub(crate) const VICTIM_NS: &str = "victim_ns";

/// Puts the shared state back as every user starts: `t` enabled with row `r`
/// (cf:q, cf:q2, cf2:q), `victim` disabled, namespace `victim_ns` there.
pub(crate) fn reset(admin: &mut Client) {
    let _ = admin.call("enableTable", args(vec![s("t")]));
    admin
        .call(
            "mutateRow",
            args(vec![
                s("t"),
                s("r"),
                TValue::List(
                    TType::Struct,
                    vec![put("cf:q", "v"), put("cf:q2", "v"), put("cf2:q", "v")],
                ),
                no_attrs(),
            ]),
        )
        .unwrap();
    if admin
        .call("isTableEnabled", args(vec![s("victim")]))
        .is_err()
    {
        admin.create_table("victim", &["cf"]).unwrap();
    }
    let _ = admin.call("disableTable", args(vec![s("victim")]));
    // Already there unless a user dropped it.
    let _ = admin.call(
        "ferrobaseAdmin",
        args(vec![s("create_namespace"), s(VICTIM_NS), s(""), no_attrs()]),
    );
}
