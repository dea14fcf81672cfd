//! The generated files of the pushdown study: N users × M files, each on a random day of 2012,
//! a name from four (one starting with article 2's prefix) and a category from six.

use super::{CATEGORY_PREFIX, NAME_PREFIX};
use crate::bench::Rng;

#[derive(Debug, Clone)]
pub(super) struct Config {
    pub(super) users: u32,
    pub(super) files_per_user: u32,
    /// User-month queries (random users) per design; design b: at most `full_scans`.
    pub(super) queries: usize,
    /// Repetitions of every full-table scan and of the date query.
    pub(super) full_scans: usize,
}

impl Config {
    pub(super) fn new(quick: bool) -> Config {
        if quick {
            Config {
                users: 100,
                files_per_user: 100,
                queries: 20,
                full_scans: 3,
            }
        } else {
            Config {
                users: 2_000,
                files_per_user: 500,
                queries: 200,
                full_scans: 5,
            }
        }
    }
}

/// A generated file.
#[derive(Debug, Clone)]
pub(super) struct File {
    pub(super) user: u32,
    pub(super) date: u32,
    pub(super) id: u32,
    pub(super) name: String,
    pub(super) category: String,
}

/// 2012's day `d` (0..366) as `yyyymmdd`.
pub(super) fn date_of(day: u32) -> u32 {
    const DAYS: [u32; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut d = day % 366;
    for (m, len) in DAYS.iter().enumerate() {
        if d < *len {
            return 20_120_000 + (m as u32 + 1) * 100 + d + 1;
        }
        d -= len;
    }
    unreachable!()
}

pub(super) fn generate(cfg: &Config) -> Vec<File> {
    const CATEGORIES: [&str; 6] = ["综艺", "综艺花絮", "花絮", "电影", "音乐", "新闻"];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut files = Vec::with_capacity((cfg.users * cfg.files_per_user) as usize);
    for j in 0..cfg.files_per_user {
        for u in 0..cfg.users {
            let r = rng.next();
            let k = (r >> 20) % 100;
            let name = match (r >> 8) % 4 {
                0 => format!("中国好声音第{k}期"),
                1 => format!("张玮独家专访{k}"),
                2 => format!("加多宝凉茶广告{k}"),
                _ => format!("快乐大本营第{k}期"),
            };
            files.push(File {
                user: u + 1,
                date: date_of((r % 366) as u32),
                id: j * cfg.users + u,
                name,
                category: CATEGORIES[((r >> 40) % 6) as usize].to_string(),
            });
        }
    }
    files
}

pub(super) fn matches(f: &File) -> bool {
    f.name.starts_with(NAME_PREFIX) && f.category.starts_with(CATEGORY_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_2012() {
        assert_eq!(date_of(0), 20120101);
        assert_eq!(date_of(59), 20120229);
        assert_eq!(date_of(365), 20121231);
    }
}
