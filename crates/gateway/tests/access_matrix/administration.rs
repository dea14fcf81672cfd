//! Grant administration and table ownership through the gateway, as HBase's AccessController
//! keeps them: who owns a table after creating or altering it, and what `user_permission`
//! lists at each scope.

use crate::client::{admin_op, Answer, Client, Gateway};
use ferrobase_gateway::thrift::TValue;

/// The lines of a `user_permission` answer, sorted.
fn listed(answer: Answer) -> Vec<String> {
    let Ok(Some(TValue::List(_, lines))) = answer else {
        panic!("user_permission: {answer:?}");
    };
    let mut out: Vec<String> = lines
        .into_iter()
        .map(|l| match l {
            TValue::Binary(b) => String::from_utf8_lossy(&b).into_owned(),
            other => panic!("not a line: {other:?}"),
        })
        .collect();
    out.sort();
    out
}

fn gateway_with_table() -> (Gateway, Client) {
    let gw = Gateway::start();
    let mut admin = gw.client("admin");
    admin.create_table("t", &["cf"]).unwrap();
    (gw, admin)
}

/// HBase's `postModifyTable` grants the table's owner (without an `OWNER` in the descriptor,
/// the user who changed it) every action on it: CREATE on a table is enough to become its
/// owner, and so to grant on it, by altering it (found by the matrix against HBase 2.6.1).
#[test]
fn altering_a_table_grants_the_user_every_action_on_it() {
    let (gw, mut admin) = gateway_with_table();
    admin_op(
        &mut admin,
        "grant",
        "t",
        "",
        &[("USER", "bob"), ("ACTIONS", "C")],
    )
    .unwrap();
    admin_op(
        &mut admin,
        "grant",
        "t",
        "",
        &[("USER", "carol"), ("ACTIONS", "C")],
    )
    .unwrap();
    let mut bob = gw.client("bob");
    let grant_dave =
        |c: &mut Client| admin_op(c, "grant", "t", "", &[("USER", "dave"), ("ACTIONS", "R")]);
    // Before altering it, CREATE does not let bob grant (that needs ADMIN).
    let refused = grant_dave(&mut bob);
    assert!(
        matches!(&refused, Err(m) if m.contains("user=bob") && m.contains("action=ADMIN")),
        "{refused:?}"
    );
    admin_op(
        &mut bob,
        "set_table_attributes",
        "t",
        "",
        &[("MAX_FILESIZE", "1073741824")],
    )
    .unwrap();
    grant_dave(&mut bob).unwrap();
    // A family added is a change of the descriptor too.
    let mut carol = gw.client("carol");
    admin_op(&mut carol, "put_family", "t", "", &[("NAME", "cf2")]).unwrap();
    assert_eq!(
        listed(admin_op(&mut admin, "user_permission", "t", "", &[])),
        ["admin t RWXCA", "bob t RWXCA", "carol t RWXCA", "dave t R"]
    );
}

/// HBase's `getUserPermissions` without a scope lists the global grants and the superusers,
/// not the grants of every namespace and table.
#[test]
fn user_permission_without_scope_lists_global_grants_and_superusers() {
    let (_gw, mut admin) = gateway_with_table();
    for (target, user) in [("", "ops"), ("@default", "nsadmin"), ("t", "reader")] {
        let attrs = [("USER", user), ("ACTIONS", "R")];
        admin_op(&mut admin, "grant", target, "", &attrs).unwrap();
    }
    assert_eq!(
        listed(admin_op(&mut admin, "user_permission", "", "", &[])),
        ["admin GLOBAL RWXCA", "ops GLOBAL R"]
    );
    assert_eq!(
        listed(admin_op(&mut admin, "user_permission", "@default", "", &[])),
        ["nsadmin @default R"]
    );
    assert_eq!(
        listed(admin_op(&mut admin, "user_permission", "t", "", &[])),
        ["admin t RWXCA", "reader t R"]
    );
}
