//! `ferrobase app textbook`: article 5's four schema examples.

use super::args::Args;
use anyhow::{bail, Result};
use ferrobase_apps::textbook::purchase::{Purchase, TABLE as SALE_TABLE};
use ferrobase_apps::textbook::Textbook;

pub(super) const USAGE: &str = "\
ferrobase app textbook [--data DIR | --connect URL] COMMAND
  load-example                        the taxonomy, 2 shops / 3 items, purchases, 3 users
  animal-up --id ID                   every ancestor, root first
  animal-down --id ID                 the subtree, indented
  add-animal --id ID --name N [--parent ID]
  shop-items --shop ID | item-shops --item ID
  buy --user U --product P --name N [--time MS]
  purchases --user U [--limit N] [--from MS --to MS] [--explain]    newest first
  fans --user U | add-fan --user U --fan F [--type T]
";

/// Runs one textbook command.
pub fn main(args: &[String]) -> Result<()> {
    let a = Args::parse(args, &["explain"])?;
    if a.command.is_empty() || a.command == "help" {
        print!("{USAGE}");
        return Ok(());
    }
    let tb = Textbook::open(&a.connect()?)?;
    match a.command.as_str() {
        "load-example" => {
            a.only(&[])?;
            tb.load_example()?;
            println!("loaded the examples");
        }
        "animal-up" => {
            a.only(&["id"])?;
            let id = a.get("id")?;
            let up = tb.ancestors(id)?;
            if up.is_empty() && tb.animal(id)?.is_none() {
                bail!("no animal {id}");
            }
            super::print_lines(
                up,
                |x| format!("{} {}", x.id, x.name),
                &format!("animal {id} has no ancestors (a root)"),
            );
        }
        "animal-down" => {
            a.only(&["id"])?;
            let id = a.get("id")?;
            super::print_lines(
                tb.descendants(id)?,
                |x| format!("{}{} {}", "  ".repeat(x.depth), x.id, x.name),
                &format!("no animal {id}"),
            );
        }
        "add-animal" => {
            a.only(&["id", "name", "parent"])?;
            let (id, name) = (a.get("id")?, a.get::<String>("name")?);
            tb.add_animal(id, &name, a.opt("parent")?)?;
            println!("added animal {id} {name}");
        }
        "shop-items" => {
            a.only(&["shop"])?;
            let shop = a.get("shop")?;
            super::print_lines(
                tb.items_of(shop)?,
                |i| {
                    format!(
                        "item={} name={} price={} title={}",
                        i.id, i.name, i.price, i.title
                    )
                },
                &format!("no items in shop {shop}"),
            );
        }
        "item-shops" => {
            a.only(&["item"])?;
            let item = a.get("item")?;
            super::print_lines(
                tb.shops_of(item)?,
                |s| {
                    format!(
                        "shop={} name={} address={} regdate={}",
                        s.id, s.name, s.address, s.regdate
                    )
                },
                &format!("no shops sell item {item}"),
            );
        }
        "buy" => {
            a.only(&["user", "product", "name", "time"])?;
            let p = Purchase {
                user: a.get("user")?,
                product: a.get("product")?,
                name: a.get("name")?,
                time: a
                    .opt("time")?
                    .unwrap_or_else(ferrobase_apps::clock::now_millis),
            };
            tb.buy(&p)?;
            println!(
                "bought user={} time={} product={} name={}",
                p.user, p.time, p.product, p.name
            );
        }
        "purchases" => {
            a.only(&["user", "limit", "from", "to"])?;
            let user = a.get("user")?;
            let plan = match (a.opt("from")?, a.opt("to")?) {
                (Some(from), Some(to)) => tb.plan_purchases_between(user, from, to)?,
                (None, None) => tb.plan_recent_purchases(user, a.opt("limit")?.unwrap_or(10))?,
                _ => bail!("purchases: give both --from and --to, or neither"),
            };
            if a.on("explain") {
                println!("{}", plan.shell(SALE_TABLE));
            }
            super::print_lines(
                tb.purchases(&plan)?,
                |p| {
                    format!(
                        "user={} time={} product={} name={}",
                        p.user, p.time, p.product, p.name
                    )
                },
                &format!("no purchases by user {user}"),
            );
        }
        "fans" => {
            a.only(&["user"])?;
            let user = a.get("user")?;
            super::print_lines(
                tb.fans_of(user)?,
                |f| format!("fan={} nickname={} type={}", f.id, f.nickname, f.kind),
                &format!("user {user} has no fans"),
            );
        }
        "add-fan" => {
            a.only(&["user", "fan", "type"])?;
            let kind: Option<String> = a.opt("type")?;
            let kind = kind.as_deref().unwrap_or("one-way");
            let (user, fan): (u64, u64) = (a.get("user")?, a.get("fan")?);
            tb.add_fan(user, fan, kind)?;
            println!("added fan={fan} of user={user} type={kind}");
        }
        other => bail!("unknown command {other:?}\n{USAGE}"),
    }
    Ok(())
}
