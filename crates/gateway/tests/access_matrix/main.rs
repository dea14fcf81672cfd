//! The ACL matrix through a real server with mutual-TLS identities: for each action (R, W, X,
//! C, A) granted at each scope (global, namespace, table, family, qualifier), exactly the Thrift
//! calls HBase's AccessController allows succeed, the others are refused with its
//! AccessDeniedException text, and partly granted reads return only the granted cells.
//!
//! - `administration`: table ownership and `user_permission` listings.
//! - `client`: a raw Thrift1 client over mutual TLS and a gateway with ACLs to call.
//! - `users`: the matrix's users, their grants and the state each one starts from.
//! - `rules`: each grant against ferrobase's table of checks (docs/design/security.md).
//! - `denials`: the refusals' texts, and identity without authentication.
//! - `recording`: HBase's recorded answers (`data/acl_matrix_hbase.tsv`), or its answers now.
//! - `operations`: `AclMatrix.java`'s operations, through the doors a ferrobase user has.
//! - `comparison`: ferrobase's answers against HBase's, outcome by outcome.

#[path = "../support/mod.rs"]
mod support;

mod administration;
mod client;
mod comparison;
mod denials;
mod operations;
mod recording;
mod rules;
mod users;
