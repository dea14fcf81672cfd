//! `ferrobase app textbook`: article 5's four schema examples.

use super::args::Args;
use anyhow::{bail, Result};
use ferrobase_apps::textbook::purchase::{Purchase, TABLE as SALE_TABLE};
use ferrobase_apps::textbook::Textbook;

const USAGE: &str = "\
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
            for x in tb.ancestors(a.get("id")?)? {
                println!("{} {}", x.id, x.name);
            }
        }
        "animal-down" => {
            a.only(&["id"])?;
            for x in tb.descendants(a.get("id")?)? {
                println!("{}{} {}", "  ".repeat(x.depth), x.id, x.name);
            }
        }
        "add-animal" => {
            a.only(&["id", "name", "parent"])?;
            let (id, name) = (a.get("id")?, a.get::<String>("name")?);
            tb.add_animal(id, &name, a.opt("parent")?)?;
            println!("added animal {id} {name}");
        }
        "shop-items" => {
            a.only(&["shop"])?;
            for i in tb.items_of(a.get("shop")?)? {
                println!(
                    "item={} name={} price={} title={}",
                    i.id, i.name, i.price, i.title
                );
            }
        }
        "item-shops" => {
            a.only(&["item"])?;
            for s in tb.shops_of(a.get("item")?)? {
                println!(
                    "shop={} name={} address={} regdate={}",
                    s.id, s.name, s.address, s.regdate
                );
            }
        }
        "buy" => {
            a.only(&["user", "product", "name", "time"])?;
            tb.buy(&Purchase {
                user: a.get("user")?,
                product: a.get("product")?,
                name: a.get("name")?,
                time: a
                    .opt("time")?
                    .unwrap_or_else(ferrobase_apps::clock::now_millis),
            })?;
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
            for p in tb.purchases(&plan)? {
                println!(
                    "user={} time={} product={} name={}",
                    p.user, p.time, p.product, p.name
                );
            }
        }
        "fans" => {
            a.only(&["user"])?;
            for f in tb.fans_of(a.get("user")?)? {
                println!("fan={} nickname={} type={}", f.id, f.nickname, f.kind);
            }
        }
        "add-fan" => {
            a.only(&["user", "fan", "type"])?;
            let kind: Option<String> = a.opt("type")?;
            tb.add_fan(
                a.get("user")?,
                a.get("fan")?,
                kind.as_deref().unwrap_or("one-way"),
            )?;
        }
        other => bail!("unknown command {other:?}\n{USAGE}"),
    }
    Ok(())
}
