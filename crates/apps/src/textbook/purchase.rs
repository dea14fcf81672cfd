//! Purchase records (article 5, 1.4.4.3): `tb_sale` keyed
//! `<user_id><Long.MAX_VALUE - System.currentTimeMillis()><product_id>`, cells `name:product`
//! and `name:time`, so a user's purchases are one range, newest first, and a time window is a
//! sub-range of it.

use super::Textbook;
use crate::error::{AppError, Result};
use crate::scan_plan::ScanPlan;
use ferrobase_engine::{Put, RowResult};
use ferrobase_rowkey::Value;
use std::ops::Bound;

/// The table.
pub const TABLE: &str = "tb_sale";
/// Its key schema.
pub const KEY: &str = "user:u64dec8, t:revts, product:u64dec8";

/// One purchase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Purchase {
    /// The buyer.
    pub user: u64,
    /// When, ms since the epoch.
    pub time: i64,
    /// The product id.
    pub product: u64,
    /// `name:product`: the product's name.
    pub name: String,
}

impl Textbook {
    /// Records a purchase.
    pub fn buy(&self, p: &Purchase) -> Result<()> {
        let row = self.sale_key.encode(&[
            Value::U64(p.user),
            Value::I64(p.time),
            Value::U64(p.product),
        ])?;
        self.sale.put(
            Put::new(row)
                .add_column("name", "product", p.name.as_bytes())
                .add_column("name", "time", p.time.to_string()),
        )?;
        Ok(())
    }

    /// The scan of `user`'s newest `limit` purchases.
    pub fn plan_recent_purchases(&self, user: u64, limit: usize) -> Result<ScanPlan> {
        let r = self.sale_key.prefix_ranges(&[Value::U64(user)])?.remove(0);
        let mut plan = ScanPlan::range(r.start, r.stop);
        plan.limit = Some(limit);
        Ok(plan)
    }

    /// The scan of `user`'s purchases from `from` to `to` ms (inclusive): the reversed
    /// timestamps put `to` at the start of the range.
    pub fn plan_purchases_between(&self, user: u64, from: i64, to: i64) -> Result<ScanPlan> {
        if from > to {
            return Err(AppError::invalid(
                "range",
                format!("--from {from} is after --to {to}"),
            ));
        }
        let r = self
            .sale_key
            .field_ranges(
                &[Value::U64(user)],
                Bound::Included(Value::I64(from)),
                Bound::Included(Value::I64(to)),
            )?
            .remove(0);
        Ok(ScanPlan::range(r.start, r.stop))
    }

    /// Runs a purchase scan: newest first.
    pub fn purchases(&self, plan: &ScanPlan) -> Result<Vec<Purchase>> {
        plan.run(&self.sale)?
            .iter()
            .map(|r| self.decode_purchase(r))
            .collect()
    }

    fn decode_purchase(&self, r: &RowResult) -> Result<Purchase> {
        match self.sale_key.decode(r.row())?.as_slice() {
            [Value::U64(user), Value::I64(time), Value::U64(product)] => Ok(Purchase {
                user: *user,
                time: *time,
                product: *product,
                name: super::text(r, "name", "product"),
            }),
            _ => Err(AppError::corrupt(TABLE, r.row(), "bad key")),
        }
    }

    /// User 1 buys six products one day apart from 2024-01-01 00:00 UTC (1704067200000 ms);
    /// user 2 one.
    pub(crate) fn load_purchases(&self) -> Result<()> {
        const DAY: i64 = 86_400_000;
        const START: i64 = 1_704_067_200_000;
        for (i, name) in ["tea", "cup", "pot", "tray", "kettle", "spoon"]
            .iter()
            .enumerate()
        {
            self.buy(&Purchase {
                user: 1,
                time: START + i as i64 * DAY,
                product: 100 + i as u64,
                name: name.to_string(),
            })?;
        }
        self.buy(&Purchase {
            user: 2,
            time: START,
            product: 100,
            name: "tea".into(),
        })
    }
}
