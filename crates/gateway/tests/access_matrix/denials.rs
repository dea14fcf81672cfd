//! The texts of refusals (HBase 2.6's `AccessDeniedException` messages), the checks that hold
//! for superusers too, and the `anonymous` user of connections without authentication.

use crate::client::{args, columns_of, family, no_attrs, plain_call, put, s, Gateway, DENIED};
use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_gateway::access::AccessOptions;
use ferrobase_gateway::thrift::{TStruct, TType, TValue};
use ferrobase_gateway::{Server, ServerOptions};
use std::io::BufReader;
use std::net::TcpStream;

#[test]
fn denials_carry_hbase_access_denied_text() {
    let gw = Gateway::start();
    let mut admin = gw.client("admin");
    admin.create_table("t", &["cf"]).unwrap();
    let mut bob = gw.client("bob");
    let cases: Vec<(&str, TStruct, &str)> = vec![
        (
            "get",
            args(vec![s("t"), s("r"), s("cf:q"), no_attrs()]),
            "Insufficient permissions for user 'bob' (table=t, action=READ)",
        ),
        (
            "mutateRow",
            args(vec![
                s("t"),
                s("r"),
                TValue::List(TType::Struct, vec![put("cf:q", "v")]),
                no_attrs(),
            ]),
            "Insufficient permissions (user=bob, scope=default:t, family=cf:q, params=[table=default:t,family=cf:q],action=WRITE)",
        ),
        (
            "disableTable",
            args(vec![s("t")]),
            "Insufficient permissions (user=bob, scope=default:t, params=[table=default:t,],action=CREATE)",
        ),
        (
            "createTable",
            args(vec![
                s("u"),
                TValue::List(TType::Struct, vec![family("cf")]),
            ]),
            "Insufficient permissions (user=bob, scope=default, params=[namespace=default,table=default:u,family=cf],action=CREATE)",
        ),
        (
            "ferrobaseAdmin",
            args(vec![s("create_namespace"), s("ns"), s(""), no_attrs()]),
            "Insufficient permissions for user 'bob' (global, action=ADMIN)",
        ),
    ];
    for (method, a, text) in cases {
        let answer = bob.call(method, a);
        assert_eq!(answer, Err(format!("{DENIED}{text}")), "{method}");
    }
    // Nothing granted: no table listed.
    assert_eq!(
        bob.call("getTableNames", TStruct::new()).unwrap(),
        Some(TValue::List(TType::Binary, vec![]))
    );
    // checkAndPut needs READ and WRITE on the compared column.
    let cas = || {
        args(vec![s("t"), s("r"), s("cf:q")])
            .with(5, s("v"))
            .with(6, put("cf:q", "w"))
            .with(7, no_attrs())
    };
    let text = "Insufficient permissions (user=bob, scope=default:t, family=cf:q, params=[table=default:t,family=cf:q],action=READ)";
    assert_eq!(
        bob.call("checkAndPut", cas()),
        Err(format!("{DENIED}{text}"))
    );
    let entity = TStruct::new()
        .with(1, s("bob"))
        .with(2, TValue::I32(0))
        .with(4, s("RW"))
        .with(5, s("t"));
    let granted = admin.call("grant", TStruct::new().with(1, TValue::Struct(entity)));
    assert_eq!(granted, Ok(Some(TValue::Bool(true))));
    assert_eq!(
        bob.call("checkAndPut", cas()),
        Ok(Some(TValue::Bool(false)))
    );
    // hbase:acl cannot be disabled, even by a superuser.
    let answer = admin.call("disableTable", args(vec![s("hbase:acl")]));
    assert_eq!(
        answer,
        Err(format!(
            "{DENIED}Not allowed to disable hbase:acl table with AccessController installed"
        ))
    );
    // A namespace grant needs ADMIN on the namespace (HBase's requireNamespacePermission with
    // an unset filterUser: the trailing empty parameter).
    let grant_ns = args(vec![
        s("grant"),
        s("@default"),
        s(""),
        TValue::Map(
            TType::Binary,
            TType::Binary,
            vec![(s("USER"), s("carol")), (s("ACTIONS"), s("R"))],
        ),
    ]);
    assert_eq!(
        bob.call("ferrobaseAdmin", grant_ns),
        Err(format!(
            "{DENIED}Insufficient permissions (user=bob, scope=default, \
             params=[namespace=default,],action=ADMIN)"
        ))
    );
    // Only a superuser may change a superuser's grants, even with global ADMIN.
    let grant_global = |user: &str, actions: &str| {
        args(vec![
            s("grant"),
            s(""),
            s(""),
            TValue::Map(
                TType::Binary,
                TType::Binary,
                vec![(s("USER"), s(user)), (s("ACTIONS"), s(actions))],
            ),
        ])
    };
    admin
        .call("ferrobaseAdmin", grant_global("ops", "A"))
        .unwrap();
    let mut ops = gw.client("ops");
    let answer = ops.call("ferrobaseAdmin", grant_global("admin", "R"));
    assert!(
        matches!(&answer, Err(m) if m.contains("superusers's or supergroups's permissions")),
        "{answer:?}"
    );
}

#[test]
fn without_authentication_every_connection_is_anonymous() {
    let data = tempfile::tempdir().unwrap();
    let engine = Engine::open(data.path(), EngineOptions::default()).unwrap();
    // Set up embedded, before serving: a table and a read grant to `anonymous`.
    let store = ferrobase_gateway::access::AclStore::open(&engine).unwrap();
    let desc =
        ferrobase_engine::TableDescriptor::new(ferrobase_engine::TableName::parse("t").unwrap())
            .with_family(ferrobase_engine::ColumnFamilyDescriptor::new("cf"));
    engine.admin().create_table(desc).unwrap();
    engine
        .table("t")
        .unwrap()
        .put(ferrobase_engine::Put::new("r").add_column("cf", "q", "v"))
        .unwrap();
    store
        .grant(
            "anonymous",
            &ferrobase_gateway::access::Scope::table("t"),
            ferrobase_gateway::access::Actions::parse("R").unwrap(),
        )
        .unwrap();
    let opts = ServerOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        access: Some(AccessOptions::default()),
        ..ServerOptions::default()
    };
    let server = Server::bind(engine, opts).unwrap();
    let addr = server.local_addr().unwrap();
    let stop = server.stop_handle().unwrap();
    let serving = std::thread::spawn(move || server.run());
    let mut sock = BufReader::new(TcpStream::connect(addr).unwrap());
    let row = plain_call(&mut sock, "getRow", args(vec![s("t"), s("r"), no_attrs()])).unwrap();
    assert_eq!(columns_of(&row), ["cf:q".to_string()].into());
    let put = plain_call(
        &mut sock,
        "mutateRow",
        args(vec![
            s("t"),
            s("r"),
            TValue::List(TType::Struct, vec![put("cf:q", "w")]),
            no_attrs(),
        ]),
    );
    assert!(
        matches!(&put, Err(m) if m.contains("user=anonymous, scope=default:t, family=cf:q, params=[table=default:t,family=cf:q],action=WRITE")),
        "{put:?}"
    );
    stop.stop();
    serving.join().unwrap().unwrap();
}
