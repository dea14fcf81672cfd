//! Animal taxonomy (article 5, 1.4.4.1): row `id`; `name:` = the name; `parent:<id>` = name
//! for every ancestor (the article's red dog row holds `parent:1=animal` and `parent:4=dog`);
//! `child:<id>` = name for each direct child. Walking up is one Get of the `parent` family;
//! walking down follows `child` families level by level.

use super::{text, Textbook};
use crate::error::{AppError, Result};
use ferrobase_engine::{Get, Put};
use ferrobase_rowkey::Value;

/// The table.
pub const TABLE: &str = "tb_animal";
/// Its key schema.
pub const KEY: &str = "id:u32dec4";

/// One animal class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Animal {
    /// The id.
    pub id: u32,
    /// The name.
    pub name: String,
    /// Depth below the animal a walk started from (0 for itself).
    pub depth: usize,
}

impl Textbook {
    /// Adds animal `id` named `name` under `parent` (`None` for a root): writes its row with
    /// every ancestor in `parent`, then `child:<id>` into the parent's row.
    pub fn add_animal(&self, id: u32, name: &str, parent: Option<u32>) -> Result<()> {
        // A new animal has no children, so refusing an existing id keeps the tree a tree (an
        // existing id with a new parent could make a cycle).
        if self.animal(id)?.is_some() {
            return Err(AppError::invalid(
                "id",
                format!("animal {id} exists already"),
            ));
        }
        if parent == Some(id) {
            return Err(AppError::invalid(
                "parent",
                format!("animal {id} cannot be its own parent"),
            ));
        }
        self.put_animal(id, name, parent)
    }

    /// Writes animal `id` under `parent` (the article's tree again, when loaded twice).
    fn put_animal(&self, id: u32, name: &str, parent: Option<u32>) -> Result<()> {
        let row = self.animal_row(id)?;
        let mut put = Put::new(row.clone()).add_column("name", "", name);
        if let Some(p) = parent {
            let parent_name = self
                .animal(p)?
                .ok_or_else(|| AppError::invalid("parent", format!("no animal {p}")))?;
            for a in self.ancestors(p)? {
                put = put.add_column("parent", self.animal_row(a.id)?, a.name.as_bytes());
            }
            put = put.add_column("parent", self.animal_row(p)?, parent_name.as_bytes());
            self.animal
                .put(Put::new(self.animal_row(p)?).add_column("child", row, name))?;
        }
        self.animal.put(put)?;
        Ok(())
    }

    /// The name of animal `id`.
    pub fn animal(&self, id: u32) -> Result<Option<String>> {
        let r = self
            .animal
            .get(Get::new(self.animal_row(id)?).add_family("name"), None)?;
        Ok((!r.is_empty()).then(|| text(&r, "name", "")))
    }

    /// Walk up: every ancestor of `id`, root first — one Get of the `parent` family.
    pub fn ancestors(&self, id: u32) -> Result<Vec<Animal>> {
        self.related(id, "parent", 0)
    }

    /// Walk down: `id` and every descendant, depth first, children by id.
    pub fn descendants(&self, id: u32) -> Result<Vec<Animal>> {
        let name = self
            .animal(id)?
            .ok_or_else(|| AppError::invalid("animal", format!("no animal {id}")))?;
        let mut out = Vec::new();
        // Each animal once, even in a table whose links were written by hand into a cycle.
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![Animal { id, name, depth: 0 }];
        while let Some(a) = stack.pop() {
            if !seen.insert(a.id) {
                continue;
            }
            let mut children = self.related(a.id, "child", a.depth + 1)?;
            children.reverse();
            out.push(a);
            stack.extend(children);
        }
        Ok(out)
    }

    /// The `family` (`parent` or `child`) cells of `id` as animals.
    fn related(&self, id: u32, family: &str, depth: usize) -> Result<Vec<Animal>> {
        let r = self
            .animal
            .get(Get::new(self.animal_row(id)?).add_family(family), None)?;
        r.cells
            .iter()
            .map(|c| {
                let id = match self.animal_key.decode(c.qualifier())?.as_slice() {
                    [Value::U64(i)] => *i as u32,
                    _ => return Err(AppError::corrupt(TABLE, c.row(), "bad qualifier")),
                };
                Ok(Animal {
                    id,
                    name: String::from_utf8_lossy(c.value()).into_owned(),
                    depth,
                })
            })
            .collect()
    }

    fn animal_row(&self, id: u32) -> Result<Vec<u8>> {
        Ok(self.animal_key.encode(&[Value::U64(id.into())])?)
    }

    /// The article's tree: animal (1) with cat, monkey, dog, tiger, pig (2..6); dog with red dog
    /// and black dog (7, 8); tiger with tiger of northeast (9).
    pub(crate) fn load_taxonomy(&self) -> Result<()> {
        self.put_animal(1, "animal", None)?;
        for (id, name) in [
            (2, "cat"),
            (3, "monkey"),
            (4, "dog"),
            (5, "tiger"),
            (6, "pig"),
        ] {
            self.put_animal(id, name, Some(1))?;
        }
        self.put_animal(7, "reddog", Some(4))?;
        self.put_animal(8, "blackdog", Some(4))?;
        self.put_animal(9, "tiger-of-northeast", Some(5))
    }
}
