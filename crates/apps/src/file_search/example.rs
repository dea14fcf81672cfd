//! Article 2's example data: ten files of four users.

use super::FileRecord;

/// The article's file table (ID, CreateTime, Name, Category, UserID), in file id order.
pub fn files() -> Vec<FileRecord> {
    [
        (1, 20120902, "中国好声音第1期", "综艺", 1),
        (2, 20120904, "中国好声音第2期", "综艺", 1),
        (3, 20120906, "中国好声音外卡赛", "综艺", 1),
        (4, 20120908, "中国好声音第3期", "综艺", 1),
        (5, 20120910, "中国好声音第4期", "综艺", 1),
        (6, 20120912, "中国好声音选手采访", "综艺花絮", 2),
        (7, 20120914, "中国好声音第5期", "综艺", 1),
        (8, 20120916, "中国好声音录制花絮", "综艺花絮", 2),
        (9, 20120918, "张玮独家专访", "花絮", 3),
        (10, 20120920, "加多宝凉茶广告", "综艺广告", 4),
    ]
    .into_iter()
    .map(|(file, date, name, category, user)| FileRecord {
        user,
        date,
        file,
        name: name.to_string(),
        category: category.to_string(),
    })
    .collect()
}
