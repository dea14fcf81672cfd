//! A named filter built from its arguments (HBase's `createFilterFromArguments` of each filter
//! class): each argument read as the type the filter takes, with a positioned error otherwise.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::*;

struct ArgReader<'a> {
    name: &'a str,
    at: usize,
    args: Vec<(usize, Arg)>,
    i: usize,
}

impl ArgReader<'_> {
    fn next(&mut self, what: &str) -> Result<(usize, Arg), ParseError> {
        let a = self.args.get(self.i).cloned().ok_or_else(|| {
            err(
                self.at,
                format!("{} expects {what} as argument {}", self.name, self.i + 1),
            )
        })?;
        self.i += 1;
        Ok(a)
    }
    fn str(&mut self) -> Result<Vec<u8>, ParseError> {
        match self.next("a quoted string")? {
            (_, Arg::Str(s)) => Ok(s),
            (p, _) => Err(err(
                p,
                format!(
                    "{} expects a quoted string as argument {}",
                    self.name, self.i
                ),
            )),
        }
    }
    fn int(&mut self) -> Result<i64, ParseError> {
        self.number("an integer")
    }
    /// The next argument as an integer that must not be negative: HBase's filters check such
    /// arguments in their constructors (`Preconditions.checkArgument(... >= 0, "... must be
    /// positive")`), so a negative one is refused, not read as 0.
    fn count(&mut self, what: &str) -> Result<u64, ParseError> {
        let at = self.args.get(self.i).map_or(0, |x| x.0);
        let n = self.int()?;
        u64::try_from(n).map_err(|_| err(at, format!("{}: {what} must be positive {n}", self.name)))
    }
    fn float(&mut self) -> Result<f64, ParseError> {
        self.number("a number")
    }
    /// The next argument as a number of type `T`; `what` names it in the errors.
    fn number<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ParseError> {
        match self.next(what)? {
            (p, Arg::Num(n)) => n
                .parse()
                .map_err(|_| err(p, format!("{} expects {what}, got {n}", self.name))),
            (p, _) => Err(err(
                p,
                format!("{} expects {what} as argument {}", self.name, self.i),
            )),
        }
    }
    fn bool(&mut self) -> Result<bool, ParseError> {
        match self.next("true or false")? {
            (_, Arg::Bool(b)) => Ok(b),
            (p, _) => Err(err(
                p,
                format!("{} expects true or false as argument {}", self.name, self.i),
            )),
        }
    }
    fn op(&mut self) -> Result<CompareOp, ParseError> {
        match self.next("a compare operator")? {
            (_, Arg::Op(o)) => Ok(o),
            (p, _) => Err(err(
                p,
                format!(
                    "{} expects a compare operator (<, <=, =, !=, >=, >) as argument {}",
                    self.name, self.i
                ),
            )),
        }
    }
    fn comparator(&mut self) -> Result<Comparator, ParseError> {
        let (p, _) = self
            .args
            .get(self.i)
            .cloned()
            .unwrap_or((self.at, Arg::Bool(false)));
        let s = self.str()?;
        Comparator::parse(&s).map_err(|e| err(p, e.to_string()))
    }
    /// A compare operator and a comparator, checked as HBase's `CompareFilter` and
    /// `SingleColumnValueFilter` check them: `regexstring:` and `substring:` only with `=` and `!=`.
    fn op_and_comparator(&mut self) -> Result<(CompareOp, Comparator), ParseError> {
        let op = self.op()?;
        let at = self.args.get(self.i).map_or(self.at, |(p, _)| *p);
        let cmp = self.comparator()?;
        if matches!(cmp, Comparator::Regex(_) | Comparator::Substring(_))
            && !matches!(op, CompareOp::Equal | CompareOp::NotEqual)
        {
            return Err(err(
                at,
                "A regexstring comparator and substring comparator can only be used with EQUAL \
                 and NOT_EQUAL",
            ));
        }
        Ok((op, cmp))
    }
    fn remaining(&self) -> usize {
        self.args.len() - self.i
    }
    fn done(&self) -> Result<(), ParseError> {
        match self.args.get(self.i) {
            None => Ok(()),
            Some((p, _)) => Err(err(
                *p,
                format!(
                    "{} takes {} argument(s), got {}",
                    self.name,
                    self.i,
                    self.args.len()
                ),
            )),
        }
    }
}

fn mask_bytes(m: &[u8]) -> Vec<u8> {
    m.iter()
        .map(|&b| {
            if b == b'1' || b == 1 || b == b'?' {
                1
            } else {
                0
            }
        })
        .collect()
}

/// The filter `name` (at byte `at`) built from `args`.
pub(super) fn build(
    name: &str,
    at: usize,
    args: Vec<(usize, Arg)>,
) -> Result<Box<dyn Filter>, ParseError> {
    let mut a = ArgReader {
        name,
        at,
        args,
        i: 0,
    };
    let f: Box<dyn Filter> = match name {
        "KeyOnlyFilter" => Box::new(KeyOnlyFilter::new(if a.remaining() > 0 {
            a.bool()?
        } else {
            false
        })),
        "FirstKeyOnlyFilter" => Box::new(FirstKeyOnlyFilter::new()),
        "PrefixFilter" => Box::new(PrefixFilter::new(a.str()?)),
        "ColumnPrefixFilter" => Box::new(ColumnPrefixFilter::new(a.str()?)),
        "MultipleColumnPrefixFilter" => {
            let mut p = Vec::new();
            while a.remaining() > 0 {
                p.push(a.str()?);
            }
            Box::new(MultipleColumnPrefixFilter::new(p))
        }
        "ColumnCountGetFilter" => Box::new(ColumnCountGetFilter::new(a.count("limit")?)),
        "PageFilter" => Box::new(PageFilter::new(a.count("page size")?)),
        "ColumnPaginationFilter" => {
            let limit = a.count("limit")?;
            match a.args.get(a.i).map(|x| x.1.clone()) {
                Some(Arg::Str(_)) => {
                    Box::new(ColumnPaginationFilter::with_column_offset(limit, a.str()?))
                }
                _ => Box::new(ColumnPaginationFilter::new(limit, a.count("offset")?)),
            }
        }
        "InclusiveStopFilter" => Box::new(InclusiveStopFilter::new(a.str()?)),
        "TimestampsFilter" => {
            let mut t = Vec::new();
            while a.remaining() > 0 {
                t.push(a.count("timestamp")? as i64);
            }
            Box::new(TimestampsFilter::new(t))
        }
        "RowFilter" => {
            let (op, cmp) = a.op_and_comparator()?;
            Box::new(RowFilter::new(op, cmp))
        }
        "FamilyFilter" => {
            let (op, cmp) = a.op_and_comparator()?;
            Box::new(FamilyFilter::new(op, cmp))
        }
        "QualifierFilter" => {
            let (op, cmp) = a.op_and_comparator()?;
            Box::new(QualifierFilter::new(op, cmp))
        }
        "ValueFilter" => {
            let (op, cmp) = a.op_and_comparator()?;
            Box::new(ValueFilter::new(op, cmp))
        }
        "DependentColumnFilter" => {
            let f = a.str()?;
            let q = a.str()?;
            let drop = if a.remaining() > 0 { a.bool()? } else { false };
            let cmp = if a.remaining() > 0 {
                Some(a.op_and_comparator()?)
            } else {
                None
            };
            Box::new(DependentColumnFilter::new(f, q, drop, cmp))
        }
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
            let (family, qualifier) = (a.str()?, a.str()?);
            let (op, cmp) = a.op_and_comparator()?;
            let mut f = SingleColumnValueFilter::new(family, qualifier, op, cmp);
            if a.remaining() > 0 {
                f.filter_if_missing = a.bool()?;
                f.latest_version_only = a.bool()?;
            }
            if name == "SingleColumnValueExcludeFilter" {
                f = f.excluding_column();
            }
            Box::new(f)
        }
        "ColumnRangeFilter" => Box::new(ColumnRangeFilter::new(
            a.str()?,
            a.bool()?,
            a.str()?,
            a.bool()?,
        )),
        "ColumnValueFilter" => {
            let (family, qualifier) = (a.str()?, a.str()?);
            let (op, cmp) = a.op_and_comparator()?;
            Box::new(ColumnValueFilter::new(family, qualifier, op, cmp))
        }
        "FuzzyRowFilter" => {
            let mut rules = Vec::new();
            while a.remaining() > 0 {
                let k = a.str()?;
                let m = a.str()?;
                rules.push((k, mask_bytes(&m)));
            }
            if rules.is_empty() {
                return Err(err(at, "FuzzyRowFilter expects pairs of 'key', 'mask'"));
            }
            Box::new(FuzzyRowFilter::new(rules))
        }
        "MultiRowRangeFilter" => {
            let mut ranges = Vec::new();
            while a.remaining() > 0 {
                ranges.push(RowRange {
                    start: a.str()?,
                    start_inclusive: a.bool()?,
                    stop: a.str()?,
                    stop_inclusive: a.bool()?,
                });
            }
            Box::new(MultiRowRangeFilter::new(ranges))
        }
        "RandomRowFilter" => Box::new(RandomRowFilter::new(a.float()? as f32)),
        _ => return Err(err(at, format!("unknown filter {name:?}"))),
    };
    a.done()?;
    Ok(f)
}
