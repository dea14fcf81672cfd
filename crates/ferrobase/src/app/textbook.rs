//! `ferrobase app textbook`: article 5's four schema examples.

use anyhow::{bail, Result};
use ferrobase_apps::textbook::purchase::{Purchase, TABLE as SALE_TABLE};
use ferrobase_apps::textbook::Textbook;

/// `ferrobase app textbook [--data DIR | --connect URL] COMMAND`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// The taxonomy, 2 shops / 3 items, purchases, 3 users.
    LoadExample,
    /// Every ancestor of an animal, root first.
    AnimalUp {
        /// The animal.
        #[arg(long, value_name = "ID")]
        id: u32,
    },
    /// An animal's subtree, indented.
    AnimalDown {
        /// The animal.
        #[arg(long, value_name = "ID")]
        id: u32,
    },
    /// Add an animal to the taxonomy.
    AddAnimal {
        /// The new animal's id.
        #[arg(long, value_name = "ID")]
        id: u32,
        /// Its name.
        #[arg(long, allow_hyphen_values = true, value_name = "N")]
        name: String,
        /// Its parent [default: none, a root].
        #[arg(long, value_name = "ID")]
        parent: Option<u32>,
    },
    /// The items a shop sells.
    ShopItems {
        /// The shop.
        #[arg(long, value_name = "ID")]
        shop: u64,
    },
    /// The shops that sell an item.
    ItemShops {
        /// The item.
        #[arg(long, value_name = "ID")]
        item: u64,
    },
    /// Record a purchase.
    Buy {
        /// The buyer.
        #[arg(long, value_name = "U")]
        user: u64,
        /// The product id.
        #[arg(long, value_name = "P")]
        product: u64,
        /// The product's name.
        #[arg(long, allow_hyphen_values = true, value_name = "N")]
        name: String,
        /// When, ms since the epoch.
        #[arg(long, allow_negative_numbers = true, value_name = "MS", default_value = "now", value_parser = super::millis_or_now)]
        time: i64,
    },
    /// A user's purchases, newest first: the newest --limit, or those from --from to --to.
    Purchases {
        /// The buyer.
        #[arg(long, value_name = "U")]
        user: u64,
        /// At most this many (without --from and --to).
        #[arg(long, value_name = "N", default_value_t = 10, conflicts_with_all = ["from", "to"])]
        limit: usize,
        /// The first time, ms since the epoch (with --to).
        #[arg(
            long,
            allow_negative_numbers = true,
            value_name = "MS",
            requires = "to"
        )]
        from: Option<i64>,
        /// The last time, ms since the epoch (with --from).
        #[arg(
            long,
            allow_negative_numbers = true,
            value_name = "MS",
            requires = "from"
        )]
        to: Option<i64>,
        /// Print the scan first.
        #[arg(long)]
        explain: bool,
    },
    /// A user's fans.
    Fans {
        /// The user.
        #[arg(long, value_name = "U")]
        user: u64,
    },
    /// Add a fan to a user.
    AddFan {
        /// The user.
        #[arg(long, value_name = "U")]
        user: u64,
        /// The fan.
        #[arg(long, value_name = "F")]
        fan: u64,
        /// The kind of fan.
        #[arg(
            long = "type",
            allow_hyphen_values = true,
            value_name = "T",
            default_value = "one-way"
        )]
        kind: String,
    },
}

/// Runs one textbook command.
pub fn main(args: Args) -> Result<()> {
    let tb = Textbook::open(&args.target.connect()?)?;
    match args.command {
        Command::LoadExample => {
            tb.load_example()?;
            println!("loaded the examples");
        }
        Command::AnimalUp { id } => {
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
        Command::AnimalDown { id } => {
            super::print_lines(
                tb.descendants(id)?,
                |x| format!("{}{} {}", "  ".repeat(x.depth), x.id, x.name),
                &format!("no animal {id}"),
            );
        }
        Command::AddAnimal { id, name, parent } => {
            tb.add_animal(id, &name, parent)?;
            println!("added animal {id} {name}");
        }
        Command::ShopItems { shop } => {
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
        Command::ItemShops { item } => {
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
        Command::Buy {
            user,
            product,
            name,
            time,
        } => {
            let p = Purchase {
                user,
                product,
                name,
                time,
            };
            tb.buy(&p)?;
            println!(
                "bought user={} time={} product={} name={}",
                p.user, p.time, p.product, p.name
            );
        }
        Command::Purchases {
            user,
            limit,
            from,
            to,
            explain,
        } => {
            let plan = match (from, to) {
                (Some(from), Some(to)) => tb.plan_purchases_between(user, from, to)?,
                // clap requires --from and --to together.
                _ => tb.plan_recent_purchases(user, limit)?,
            };
            if explain {
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
        Command::Fans { user } => {
            super::print_lines(
                tb.fans_of(user)?,
                |f| format!("fan={} nickname={} type={}", f.id, f.nickname, f.kind),
                &format!("user {user} has no fans"),
            );
        }
        Command::AddFan { user, fan, kind } => {
            tb.add_fan(user, fan, &kind)?;
            println!("added fan={fan} of user={user} type={kind}");
        }
    }
    Ok(())
}
