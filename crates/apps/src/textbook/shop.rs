//! Shops and items, 1:N both ways (article 5, 1.4.4.2): `tb_shop` row `shop_id` with
//! `info:name|address|regdate` and `item:<item_id>=type`; `tb_item` row `item_id` with
//! `info:name|price|details|title` and `shop:<shop_id>=type`. Each side stores the relation,
//! so "a shop's items" and "an item's shops" are each one Get (plus a Get per item or shop for
//! its details) instead of an RDBMS join.

use super::{text, Textbook};
use crate::error::Result;
use ferrobase_engine::{Get, Put};

/// The shop table.
pub const SHOP_TABLE: &str = "tb_shop";
/// The item table.
pub const ITEM_TABLE: &str = "tb_item";

/// A shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shop {
    /// Its id.
    pub id: u64,
    /// `info:name`.
    pub name: String,
    /// `info:address`.
    pub address: String,
    /// `info:regdate`.
    pub regdate: String,
}

/// An item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Its id.
    pub id: u64,
    /// `info:name`.
    pub name: String,
    /// `info:price`.
    pub price: String,
    /// `info:details`.
    pub details: String,
    /// `info:title`.
    pub title: String,
}

impl Textbook {
    /// Writes a shop's `info`.
    pub fn add_shop(&self, s: &Shop) -> Result<()> {
        self.shop.put(
            Put::new(self.id(s.id)?)
                .add_column("info", "name", s.name.as_bytes())
                .add_column("info", "address", s.address.as_bytes())
                .add_column("info", "regdate", s.regdate.as_bytes()),
        )?;
        Ok(())
    }

    /// Writes an item's `info`.
    pub fn add_item(&self, i: &Item) -> Result<()> {
        self.item.put(
            Put::new(self.id(i.id)?)
                .add_column("info", "name", i.name.as_bytes())
                .add_column("info", "price", i.price.as_bytes())
                .add_column("info", "details", i.details.as_bytes())
                .add_column("info", "title", i.title.as_bytes()),
        )?;
        Ok(())
    }

    /// Relates `shop` and `item` with `kind` on both sides.
    pub fn link(&self, shop: u64, item: u64, kind: &str) -> Result<()> {
        let (s, i) = (self.id(shop)?, self.id(item)?);
        self.shop
            .put(Put::new(s.clone()).add_column("item", i.clone(), kind))?;
        self.item.put(Put::new(i).add_column("shop", s, kind))?;
        Ok(())
    }

    /// The items `shop` sells, by id, with their details.
    pub fn items_of(&self, shop: u64) -> Result<Vec<Item>> {
        let r = self
            .shop
            .get(Get::new(self.id(shop)?).add_family("item"), None)?;
        let mut out = Vec::new();
        for c in &r.cells {
            let id = self.id_of(SHOP_TABLE, c.qualifier())?;
            let i = self
                .item
                .get(Get::new(self.id(id)?).add_family("info"), None)?;
            out.push(Item {
                id,
                name: text(&i, "info", "name"),
                price: text(&i, "info", "price"),
                details: text(&i, "info", "details"),
                title: text(&i, "info", "title"),
            });
        }
        Ok(out)
    }

    /// The shops selling `item`, by id, with their details.
    pub fn shops_of(&self, item: u64) -> Result<Vec<Shop>> {
        let r = self
            .item
            .get(Get::new(self.id(item)?).add_family("shop"), None)?;
        let mut out = Vec::new();
        for c in &r.cells {
            let id = self.id_of(ITEM_TABLE, c.qualifier())?;
            let s = self
                .shop
                .get(Get::new(self.id(id)?).add_family("info"), None)?;
            out.push(Shop {
                id,
                name: text(&s, "info", "name"),
                address: text(&s, "info", "address"),
                regdate: text(&s, "info", "regdate"),
            });
        }
        Ok(out)
    }

    /// Two shops and three items; item 2 is sold by both shops.
    pub(crate) fn load_shops(&self) -> Result<()> {
        for (id, name, address, regdate) in [
            (1, "Tea House", "Hangzhou", "2012-03-01"),
            (2, "Phone Store", "Shenzhen", "2013-07-15"),
        ] {
            self.add_shop(&Shop {
                id,
                name: name.into(),
                address: address.into(),
                regdate: regdate.into(),
            })?;
        }
        for (id, name, price, title) in [
            (1, "longjing", "120.00", "West Lake Longjing"),
            (2, "teacup", "35.50", "Celadon teacup"),
            (3, "phone", "2999.00", "Phone X"),
        ] {
            self.add_item(&Item {
                id,
                name: name.into(),
                price: price.into(),
                details: format!("{title}, sample item {id}"),
                title: title.into(),
            })?;
        }
        self.link(1, 1, "sell")?;
        self.link(1, 2, "sell")?;
        self.link(2, 2, "sell")?;
        self.link(2, 3, "sell")
    }
}
