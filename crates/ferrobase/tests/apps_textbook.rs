//! Article 5's textbook schemas: walking the animal taxonomy up and down, shops and items both
//! ways, purchases newest first and in a time window, users' fans — embedded and through
//! `ferrobase serve`.

mod apps_harness;

use apps_harness::{app, Server};
use ferrobase_apps::textbook::Textbook;
use ferrobase_client::Connection;

const DAY: i64 = 86_400_000;
const START: i64 = 1_704_067_200_000;

fn check(conn: &Connection) {
    let tb = Textbook::open(conn).unwrap();
    tb.load_example().unwrap();
    let up: Vec<_> = tb
        .ancestors(7)
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(up, ["animal", "dog"]);
    assert!(tb.ancestors(1).unwrap().is_empty());
    let down: Vec<_> = tb
        .descendants(1)
        .unwrap()
        .into_iter()
        .map(|a| (a.depth, a.name))
        .collect();
    let want = [
        (0, "animal"),
        (1, "cat"),
        (1, "monkey"),
        (1, "dog"),
        (2, "reddog"),
        (2, "blackdog"),
        (1, "tiger"),
        (2, "tiger-of-northeast"),
        (1, "pig"),
    ];
    assert_eq!(
        down,
        want.iter()
            .map(|(d, n)| (*d, n.to_string()))
            .collect::<Vec<_>>()
    );

    let items: Vec<_> = tb.items_of(1).unwrap().into_iter().map(|i| i.id).collect();
    assert_eq!(items, [1, 2]);
    let shops: Vec<_> = tb
        .shops_of(2)
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(shops, ["Tea House", "Phone Store"]);

    let recent = tb
        .purchases(&tb.plan_recent_purchases(1, 3).unwrap())
        .unwrap();
    let names: Vec<_> = recent.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["spoon", "kettle", "tray"]);
    let window = tb
        .purchases(
            &tb.plan_purchases_between(1, START + DAY, START + 3 * DAY)
                .unwrap(),
        )
        .unwrap();
    let names: Vec<_> = window.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["tray", "pot", "cup"]);
    assert_eq!(
        tb.purchases(&tb.plan_recent_purchases(2, 10).unwrap())
            .unwrap()
            .len(),
        1
    );

    let fans: Vec<_> = tb
        .fans_of(1)
        .unwrap()
        .into_iter()
        .map(|f| (f.id, f.nickname, f.kind))
        .collect();
    assert_eq!(
        fans,
        [
            (2, "bob".to_string(), "mutual".to_string()),
            (3, "carol".to_string(), "one-way".to_string())
        ]
    );
}

#[test]
fn the_examples_answer_embedded() {
    let dir = tempfile::tempdir().unwrap();
    check(&Connection::open(&format!("file:{}", dir.path().display())).unwrap());
}

#[test]
fn the_examples_answer_through_a_server() {
    let server = Server::start();
    check(&Connection::open(&server.url).unwrap());
    let up = app(&[
        "textbook",
        "--connect",
        &server.url,
        "animal-up",
        "--id",
        "9",
    ]);
    assert_eq!(up, "1 animal\n5 tiger\n");
}
