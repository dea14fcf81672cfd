//! Article 5's textbook schemas (section 1.4.4), one table design per example:
//!
//! | example | tables | row key | families |
//! |---------|--------|---------|----------|
//! | animal taxonomy ([`taxonomy`]) | `tb_animal` | `id:u32dec4` | `name`, `parent` (every ancestor), `child` (direct children) |
//! | shop and item, 1:N both ways ([`shop`]) | `tb_shop`, `tb_item` | `id:u64dec8` | `info`, `item` / `info`, `shop` |
//! | purchase records ([`purchase`]) | `tb_sale` | `user:u64dec8, t:revts, product:u64dec8` | `name` |
//! | users and fans ([`user_fans`]) | `tb_user` | `id:u64dec8` | `info`, `fans` |

pub mod purchase;
pub mod shop;
pub mod taxonomy;
pub mod user_fans;

use crate::error::{AppError, Result};
use crate::table_setup::{ensure_tables, TableSpec};
use ferrobase_client::{Connection, Table};
use ferrobase_rowkey::{Schema, Value};

/// The id schema of shops, items, users and products.
pub const ID_KEY: &str = "id:u64dec8";

/// The four examples on one connection.
#[derive(Debug, Clone)]
pub struct Textbook {
    animal: Table,
    shop: Table,
    item: Table,
    sale: Table,
    user: Table,
    id_key: Schema,
    animal_key: Schema,
    sale_key: Schema,
}

impl Textbook {
    /// Opens the examples, creating their tables if absent.
    pub fn open(conn: &Connection) -> Result<Textbook> {
        ensure_tables(
            conn,
            &[
                TableSpec::new(taxonomy::TABLE, &["name", "parent", "child"]).rowkey(taxonomy::KEY),
                TableSpec::new(shop::SHOP_TABLE, &["info", "item"]).rowkey(ID_KEY),
                TableSpec::new(shop::ITEM_TABLE, &["info", "shop"]).rowkey(ID_KEY),
                TableSpec::new(purchase::TABLE, &["name"]).rowkey(purchase::KEY),
                TableSpec::new(user_fans::TABLE, &["info", "fans"]).rowkey(ID_KEY),
            ],
        )?;
        Ok(Textbook {
            animal: conn.table(taxonomy::TABLE),
            shop: conn.table(shop::SHOP_TABLE),
            item: conn.table(shop::ITEM_TABLE),
            sale: conn.table(purchase::TABLE),
            user: conn.table(user_fans::TABLE),
            id_key: ID_KEY.parse()?,
            animal_key: taxonomy::KEY.parse()?,
            sale_key: purchase::KEY.parse()?,
        })
    }

    /// Loads every example's sample data.
    pub fn load_example(&self) -> Result<()> {
        self.load_taxonomy()?;
        self.load_shops()?;
        self.load_purchases()?;
        self.load_users()
    }

    /// The 8-digit key of a shop, item, user or product id.
    fn id(&self, id: u64) -> Result<Vec<u8>> {
        Ok(self.id_key.encode(&[Value::U64(id)])?)
    }

    /// Decodes an 8-digit id (a row key or a qualifier).
    fn id_of(&self, table: &str, key: &[u8]) -> Result<u64> {
        match self.id_key.decode(key)?.as_slice() {
            [Value::U64(id)] => Ok(*id),
            _ => Err(AppError::corrupt(table, key, "not an id")),
        }
    }
}

/// The newest value of `family:qualifier` as text ("" when absent).
fn text(r: &ferrobase_engine::RowResult, family: &str, qualifier: &str) -> String {
    String::from_utf8_lossy(
        r.value(family.as_bytes(), qualifier.as_bytes())
            .unwrap_or_default(),
    )
    .into_owned()
}
