//! Rows matching fixed-width patterns with wildcard positions, seeking straight to the next
//! possible match (HBase's `FuzzyRowFilter`).

use super::Filter;

/// Each rule is a key and a mask of the same length: mask byte 0 means the row's byte at that
/// position must equal the key's, 1 means any byte. A row matches when any rule does.
#[derive(Debug, Clone)]
pub struct FuzzyRowFilter {
    rules: Vec<(Vec<u8>, Vec<u8>)>,
    reversed: bool,
    done: bool,
    /// The current row's key matched no rule: its cells answer NEXT_ROW (in an OR list that
    /// another member passed) and `filter_row` drops it.
    row_out: bool,
}

impl FuzzyRowFilter {
    /// A filter over `(key, mask)` rules; masks shorter than their key are padded with 0.
    pub fn new(rules: Vec<(Vec<u8>, Vec<u8>)>) -> Self {
        let rules = rules
            .into_iter()
            .map(|(k, mut m)| {
                m.resize(k.len(), 0);
                (k, m)
            })
            .collect();
        FuzzyRowFilter {
            rules,
            reversed: false,
            done: false,
            row_out: false,
        }
    }

    fn matches(row: &[u8], key: &[u8], mask: &[u8]) -> bool {
        row.len() >= key.len()
            && key
                .iter()
                .zip(mask)
                .zip(row)
                .all(|((k, m), r)| *m != 0 || k == r)
    }

    /// The smallest row > `row` that matches the rule, if any.
    fn next_for_rule(row: &[u8], key: &[u8], mask: &[u8]) -> Option<Vec<u8>> {
        let fill = |mut s: Vec<u8>, from: usize| {
            for j in from..key.len() {
                s.push(if mask[j] == 0 { key[j] } else { 0 });
            }
            s
        };
        let n = row.len().min(key.len());
        let first_bad = (0..n).find(|&i| mask[i] == 0 && row[i] != key[i]);
        match first_bad {
            None if row.len() >= key.len() => {
                // The row matches already; the next match is the row's successor.
                let mut s = row.to_vec();
                s.push(0);
                Some(s)
            }
            None => Some(fill(row.to_vec(), row.len())),
            Some(i) if row[i] < key[i] => {
                let mut s = row[..i].to_vec();
                s.push(key[i]);
                Some(fill(s, i + 1))
            }
            Some(i) => {
                let j = (0..i).rev().find(|&j| mask[j] != 0 && row[j] < 0xff)?;
                let mut s = row[..j].to_vec();
                s.push(row[j] + 1);
                Some(fill(s, j + 1))
            }
        }
    }
}

impl Filter for FuzzyRowFilter {
    /// A HintingFilter in HBase: AND lists ask it about cells an earlier member rejected.
    fn is_hinting(&self) -> bool {
        true
    }
    fn filter_all_remaining(&self) -> bool {
        self.done
    }
    fn reset(&mut self) {
        self.row_out = false;
    }
    row_verdict!();
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.rules.iter().any(|(k, m)| Self::matches(row, k, m)) {
            return false;
        }
        self.row_out = true;
        if !self.reversed
            && self
                .rules
                .iter()
                .all(|(k, m)| Self::next_for_rule(row, k, m).is_none())
        {
            self.done = true;
        }
        true
    }
    fn next_row_hint(&self, row: &[u8]) -> Option<Vec<u8>> {
        if self.reversed {
            return None;
        }
        self.rules
            .iter()
            .filter_map(|(k, m)| Self::next_for_rule(row, k, m))
            .min()
    }
    fn set_reversed(&mut self, r: bool) {
        self.reversed = r;
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_next(row: &[u8], key: &[u8], mask: &[u8]) -> Option<Vec<u8>> {
        // Over a 3-letter alphabet and fixed length, enumerate every candidate.
        let alphabet = [0u8, 1, 2, 0xff];
        let mut best: Option<Vec<u8>> = None;
        let len = key.len();
        let total = alphabet.len().pow(len as u32);
        for mut n in 0..total {
            let mut s = Vec::with_capacity(len);
            for _ in 0..len {
                s.push(alphabet[n % alphabet.len()]);
                n /= alphabet.len();
            }
            if s.as_slice() > row
                && FuzzyRowFilter::matches(&s, key, mask)
                && best.as_ref().is_none_or(|b| s < *b)
            {
                best = Some(s);
            }
        }
        best
    }

    #[test]
    fn next_hint_is_the_smallest_matching_row_above() {
        let alphabet = [0u8, 1, 2, 0xff];
        let key = [1u8, 0, 2];
        let mask = [0u8, 1, 0];
        for a in alphabet {
            for b in alphabet {
                for c in alphabet {
                    let row = [a, b, c];
                    if FuzzyRowFilter::matches(&row, &key, &mask) {
                        continue;
                    }
                    let got = FuzzyRowFilter::next_for_rule(&row, &key, &mask);
                    let want = brute_next(&row, &key, &mask);
                    // The hint may be shorter-alphabet-free but must never skip a match.
                    match (&got, &want) {
                        (Some(g), Some(w)) => {
                            assert!(g <= w, "{row:?}: hint {g:?} passes match {w:?}")
                        }
                        (None, Some(w)) => panic!("{row:?}: no hint but {w:?} matches"),
                        _ => {}
                    }
                }
            }
        }
    }
}
