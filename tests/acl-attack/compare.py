#!/usr/bin/env python3
"""Compares AclAttack's answers from ferrobase with Apache HBase's, operation by operation.

    compare.py HBASE.txt FERROBASE.txt

Each operation is its line and the superuser's `changed` lines after it. Equal operations
count as equal; the rest are sorted into:

- holes: ferrobase let the user do, read or change more than HBase did (an operation HBase
  refused and ferrobase ran, cells HBase did not return, changes HBase did not make). A hole is
  a bug: always a failure, never a listed difference.
- listed differences (LISTED below), each with its reason: ferrobase refuses what HBase allows
  where docs/design/security.md says it is stricter, or a documented limitation answers
  instead; and a refusal worded differently from HBase's (the verdict is the same).
- unexplained: anything else, a failure.

Exit 0 when there is neither a hole nor an unexplained difference.
"""
import re
import sys
from collections import Counter, OrderedDict

# (name, reason, predicate(op, hbase_outcome, ours_outcome) -> bool). Outcomes are the text
# after the operation: `ok ...`, `denied\tMESSAGE`, `error CLASS\tMESSAGE`.
def hidden(o):
    return ("TableNotFoundException" in o or "RetriesExhaustedWithDetailsException" in o) \
        and not o.startswith("ok")


LISTED = [
    (
        "table hidden",
        "ferrobase's hbase:meta shows a user only the tables a grant of theirs reaches, so the "
        "client cannot locate another table and answers TableNotFoundException where HBase "
        "refuses the operation (stricter: the table's existence is not shown either)",
        lambda op, h, o: (h.startswith("denied") or "NoSuchColumnFamily" in h
                          or op.startswith("tableExists")) and hidden(o)
        and "hbase:acl" not in op,
    ),
    (
        "hbase:acl not a table",
        "the native door does not serve hbase:acl as a table (the grants are read and changed "
        "with grant, revoke and getUserPermissions): docs/design/native-protocol.md",
        lambda op, h, o: "hbase:acl" in op and "TableNotFoundException: hbase:acl" in o.replace("\t", ": ")
        or "hbase:acl" in op and "TableNotFoundException" in o,
    ),
    (
        "batch refusal worded differently",
        "HBase refuses a run of a batch's puts and deletes with the first refusal's words for "
        "each (RSRpcServices.doBatchOp); ferrobase words each action's own: the same verdict "
        "for each action, the same cells",
        lambda op, h, o: op.startswith("batch ") and same_batch_verdicts(h, o),
    ),
    (
        "batch refusals of another kind",
        "each action of a batch refused where HBase refused it, for one of the reasons listed "
        "here ('table hidden', 'unknown family': HBase's NoSuchColumnFamilyException where "
        "ferrobase refuses the read first or cannot locate the table), the other actions alike",
        lambda op, h, o: op.startswith("batch ") and refused_alike(h, o),
    ),
    (
        "batch on a hidden table",
        "as 'table hidden', for each action of a batch",
        lambda op, h, o: op.startswith("batch ") and len(batch_items(h)) == len(batch_items(o))
        and all(x.startswith("{denied") for x in batch_items(h))
        and all("TableNotFoundException" in y for y in batch_items(o)),
    ),
    (
        "batch run refused together",
        "HBase applies a run of a batch's puts and deletes as one mini-batch: when one is "
        "refused, the others of the run fail with its refusal (RSRpcServices.doBatchOp), even "
        "those the user may write; ferrobase refuses only the refused ones, each with its own "
        "words",
        lambda op, h, o: op.startswith("batch ") and run_refused_together(h, o),
    ),
    (
        "unknown family",
        "HBase checks a read's families before its permissions (NoSuchColumnFamilyException); "
        "ferrobase checks the permissions first (the read is narrowed to the columns the user "
        "may read, the missing family's included) and reads the other families it names",
        lambda op, h, o: "NoSuchColumnFamilyException" in h
        and (o.startswith("denied") or o.split("\t")[0] in ("ok []", "ok", "ok false")
             or o.startswith("ok") and all(named(op, c) for c in cells_of(o))),
    ),
    (
        "checkAndMutate's mutation checked first",
        "ferrobase requires WRITE on the cells a checkAndMutate's mutation writes before the "
        "check (issue 45); HBase checks the compared column first and the mutation only when "
        "the condition holds (its prePut/preDelete), so a failing condition answers false",
        lambda op, h, o: op.startswith("checkAndMutate ") and h.startswith("ok false")
        and o.startswith("denied"),
    ),
    (
        "checkAndMutate of RowMutations",
        "HBase checks nothing on the compared column of a checkAndMutate whose action is a "
        "RowMutations (AccessController has no preCheckAndMutate, and RegionObserver's default "
        "calls the put and delete hooks only), so a user without any grant learns from "
        "`false` that the cell does not hold the value, and from `true` (the mutations' own "
        "checks passing) that it does; ferrobase requires READ and WRITE on it and WRITE on the "
        "mutations, or hides the table",
        lambda op, h, o: op.startswith("checkAndMutate ") and h.startswith("ok ")
        and " if filter " not in op
        and not o.startswith("ok") and "put " in op.split(" then ", 1)[1]
        and "delete" in op.split(" then ", 1)[1],
    ),
    (
        "checkAndMutate with a filter condition",
        "HBase checks nothing for a checkAndMutate's filter condition (ifMatches(Filter): "
        "RegionObserver's default preCheckAndPut/preCheckAndDelete with a filter, which "
        "AccessController does not override), so the filter reads any column of the row; "
        "ferrobase reads the row as the caller's Get would be read, narrowed to the columns the "
        "caller may read, and refuses when none is: docs/design/security.md",
        lambda op, h, o: op.startswith("checkAndMutate ") and " if filter " in op
        and h.startswith("ok") and o.startswith("denied") and "action=READ" in o,
    ),
    (
        "increment or append without READ",
        "HBase checks WRITE only for an increment or append (preIncrement, preAppend); "
        "ferrobase requires READ too, as the call answers (or fails) by the value of the cell "
        "it changes (Operation::ReadModifyWrite): docs/design/security.md",
        lambda op, h, o: read_modify_write_refused(op, h, o),
    ),
    (
        "reversed scan with a SingleColumnValue(Exclude)Filter",
        "ferrobase refuses a reversed scan whose filter would load a family on demand (its "
        "engine reads the filter's column apart, HBase's joined heap); HBase loads families on "
        "demand only when the scan asks for it (hbase.hregion.scan.loadColumnFamiliesOnDemand, "
        "off by default): docs/design/native-protocol.md",
        lambda op, h, o: " reversed" in op and "SingleColumnValue" in op
        and "Reverse scan with loading CFs on demand is not supported" in o,
    ),
    (
        "no grant on hbase:acl itself",
        "ferrobase stores no grant on hbase:acl itself (HBase reads one back as a global grant "
        "and its revoke deletes the user's global grant): docs/design/security.md",
        lambda op, h, o: op.startswith(("grant ", "revoke ")) and "@hbase:acl" in op
        and "grants on hbase:acl itself cannot be stored" in o,
    ),
    (
        "partial results past a limit",
        "a scan with partial results or a batch size, and a row limit: ferrobase's last result "
        "of a row may say the row has more cells when it ended there, so the row counts "
        "toward the limit only when the next row's first cells come, and those are returned "
        "too (the scan's own cells, read under the same grants: not an access difference)",
        lambda op, h, o: (" partial" in op or " batch " in op) and " limit " in op
        and h.startswith("ok")
        and o.startswith("ok") and cells_of(o)[:len(cells_of(h))] == cells_of(h),
    ),
    (
        "stale region of a raw scanner",
        "the raw ClientService call of the scanner attack uses the client's cached region "
        "location; after the table was made again HBase answers NotServingRegionException "
        "(the attack does not retry), ferrobase its own error: neither reads anything",
        lambda op, h, o: "the superuser's scanner" in op and "NotServingRegionException" in h
        and not o.startswith("ok"),
    ),
    (
        "revoke of some actions",
        "HBase's revoke of some actions edits the user's first grant in the table's row of "
        "hbase:acl, whatever its family or qualifier (PermissionStorage.removeUserPermission); "
        "ferrobase edits the grant at the scope named",
        lambda op, h, o: op.startswith("revoke ") and h.startswith("ok") and o.startswith("ok"),
    ),
    (
        "system namespace writes",
        "only superusers change a table of the system namespace (hbase:acl's cells are the "
        "grants; HBase lets a WRITE holder on hbase:acl write them): docs/design/security.md",
        lambda op, h, o: o.startswith("denied") and "system namespace" in o
        and (op.startswith("put hbase:acl") or "hbase:" in op),
    ),
    (
        "hbase:acl off line",
        "hbase:acl can be neither truncated nor lose a family, even by a superuser (HBase "
        "refuses its disable and delete; its truncate needs a disabled table)",
        lambda op, h, o: "Not allowed to" in o and "hbase:acl" in op,
    ),
    (
        "hbase:meta rows",
        "ferrobase shows each user the hbase:meta rows of the tables a grant reaches (HBase shows "
        "every row to everyone): docs/design/security.md",
        lambda op, h, o: op.startswith("scan hbase:meta") and h.startswith("ok")
        and o.startswith("ok") and set(cells_of(o)) <= set(cells_of(h)),
    ),
]


# The listed differences where ferrobase does more than HBase without giving more than the
# grants allow: another action's refusal HBase gives a whole run of a batch (the action
# itself is one the user may write), a read of a family the table lacks, which reads
# nothing, and the next row's first cells of a partial scan past its limit.
NOT_HOLES = {"batch run refused together", "unknown family", "partial results past a limit"}


def named(op, cell):
    """Whether a returned cell (`row/f:q=v`) is in a column the operation's text names."""
    col = cell.split("/", 1)[1].split("=", 1)[0] if "/" in cell else cell
    fam = col.split(":", 1)[0]
    words = re.split(r"[ ,]", op)
    return col in words or fam in words


def norm(detail):
    """A refusal's words without the client's batch summary (`: 2 times, servers with issues:
    ...`), which follows the server's text on its line when that text carries no stack trace."""
    return re.sub(r": \d+ times?, servers with issues: .*$", "", detail)


def cells_of(outcome):
    body = outcome.split(" ", 1)[1] if " " in outcome else ""
    return [c for c in re.split(r"[,\[\] ]+", body) if c]


def batch_items(outcome):
    """A batch's answers: `[cells]` or `{refusal}` each (a refusal's text may hold balanced
    braces: HBase's NoSuchColumnFamilyException quotes the table's descriptor)."""
    items, i = [], 0
    while i < len(outcome):
        if outcome[i] == "[":
            j = outcome.find("]", i)
            j = len(outcome) - 1 if j < 0 else j
            items.append(outcome[i:j + 1])
            i = j + 1
        elif outcome[i] == "{":
            depth, j = 0, i
            while j < len(outcome):
                depth += {"{": 1, "}": -1}.get(outcome[j], 0)
                if depth == 0:
                    break
                j += 1
            items.append(outcome[i:j + 1])
            i = j + 1
        else:
            i += 1
    return items


def run_refused_together(h, o):
    """HBase refused an action with another action's words where ferrobase ran it."""
    hi, oi = batch_items(h), batch_items(o)
    if len(hi) != len(oi):
        return False
    refused_alike = False
    for k, (x, y) in enumerate(zip(hi, oi)):
        if x == y:
            continue
        if x.startswith("{denied") and not y.startswith("{"):
            # Another action's refusal, given to this one: ferrobase refused that one too (in
            # its own words: the cell a put's refusal names may differ).
            if not any(x == hi[j] and oi[j].startswith("{denied")
                       for j in range(len(hi)) if j != k):
                return False
            refused_alike = True
        elif x.startswith("{denied") and y.startswith("{denied"):
            continue
        else:
            return False
    return refused_alike


def read_modify_write_refused(op, h, o):
    """HBase ran an increment or append (alone, or as actions of a batch) that ferrobase refused
    for want of READ; everything else alike."""
    if op.startswith(("increment ", "append ")):
        return h.startswith("ok") and o.startswith("denied") and "action=READ" in o
    if not op.startswith("batch ") or not ("increment " in op or "append " in op):
        return False
    hi, oi = batch_items(h), batch_items(o)
    if len(hi) != len(oi):
        return False
    refused = False
    for x, y in zip(hi, oi):
        if x == y:
            continue
        if x.startswith("[") and y.startswith("{denied") and "action=READ" in y:
            refused = True
            continue
        return False
    return refused


def refused_alike(h, o):
    hi, oi = batch_items(h), batch_items(o)
    if len(hi) != len(oi):
        return False
    for x, y in zip(hi, oi):
        if x == y or x.startswith("{") and y.startswith("{"):
            continue
        return False
    return True


def same_batch_verdicts(h, o):
    hi, oi = batch_items(h), batch_items(o)
    if len(hi) != len(oi):
        return False
    for x, y in zip(hi, oi):
        if x.startswith("[") or y.startswith("["):
            if x != y:
                return False
        elif x.split(" ", 1)[0] != y.split(" ", 1)[0]:
            return False
    return True


def read(path):
    ops = OrderedDict()
    epochs = {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t")
        n = int(parts[0])
        if parts[1] == "epoch":
            epochs[n] = parts[2]
        elif parts[1] == "changed":
            ops[n]["changed"].append(parts[2])
        else:
            ops[n] = {
                "user": parts[1],
                "op": parts[2],
                "outcome": parts[3],
                "detail": parts[4] if len(parts) > 4 else "",
                "changed": [],
            }
    return epochs, ops


def more(h, o):
    """Whether ferrobase's answer gives more than HBase's: a hole."""
    if h["outcome"].startswith(("denied", "error")) and o["outcome"].startswith("ok"):
        return "ran what HBase refused"
    if h["op"].startswith("batch ") and h["outcome"].startswith("ok") and o["outcome"].startswith("ok"):
        hi, oi = batch_items(h["outcome"]), batch_items(o["outcome"])
        for k, (x, y) in enumerate(zip(hi, oi)):
            if x.startswith("{") and not y.startswith("{"):
                return f"action {k} ran where HBase refused it: {y}"
            if x.startswith("[") and y.startswith("["):
                extra = [c for c in cells_of("ok " + y) if c not in cells_of("ok " + x)]
                if extra:
                    return f"action {k} returned cells HBase did not: " + " ".join(extra[:5])
    elif h["outcome"].startswith("ok") and o["outcome"].startswith("ok"):
        extra = [c for c in cells_of(o["outcome"]) if c not in cells_of(h["outcome"])]
        if extra and not h["op"].startswith(("scan hbase:meta", "list", "getUserPermissions",
                                             "getDescriptor", "exists", "checkAndMutate")):
            return "returned cells HBase did not: " + " ".join(extra[:5])
    extra = [c for c in o["changed"] if c not in h["changed"]]
    if extra and set(o["changed"]) - set(h["changed"]):
        hbase_parts = set(" ".join(h["changed"]).split())
        ours_parts = set(" ".join(o["changed"]).split())
        if ours_parts - hbase_parts:
            return "changed what HBase did not: " + " ".join(sorted(ours_parts - hbase_parts))[:300]
    return None


def main():
    he, hops = read(sys.argv[1])
    oe, oops = read(sys.argv[2])
    if he != oe:
        print("acl-attack: the epochs' grants differ (not the same seed?)", file=sys.stderr)
        return 1
    counts = Counter()
    holes, unexplained, listed = [], [], Counter()
    for n, h in hops.items():
        o = oops.get(n)
        if o is None:
            unexplained.append((n, h, None, "missing from ferrobase's answers"))
            continue
        if (h["user"], h["op"]) != (o["user"], o["op"]):
            print(f"acl-attack: operation {n} differs: {h['op']!r} / {o['op']!r}", file=sys.stderr)
            return 1
        counts["operations"] += 1
        if h["outcome"] == o["outcome"] and h["changed"] == o["changed"]:
            if h["outcome"].startswith("denied") and norm(h["detail"]) != norm(o["detail"]):
                listed["refusal worded differently"] += 1
            else:
                counts["equal"] += 1
            continue
        hole = more(h, o)
        full_o = o["outcome"] + ("\t" + o["detail"] if o["detail"] else "")
        full_h = h["outcome"] + ("\t" + h["detail"] if h["detail"] else "")
        if hole and not any(name in NOT_HOLES and pred(h["op"], full_h, full_o)
                            for name, _reason, pred in LISTED):
            holes.append((n, h, o, hole))
            continue
        for name, _reason, pred in LISTED:
            if pred(h["op"], full_h, full_o):
                listed[name] += 1
                break
        else:
            unexplained.append((n, h, o, "differs"))
    for n, h, o, why in holes:
        print(f"HOLE {n} {h['user']} {h['op']}: {why}\n  HBase:     {h['outcome']} "
              f"{h['detail']} {h['changed']}\n  ferrobase: {o['outcome']} {o['detail']} "
              f"{o['changed']}", file=sys.stderr)
    for n, h, o, why in unexplained:
        print(f"UNEXPLAINED {n} {h['user']} {h['op']}: {why}\n  HBase:     {h['outcome']} "
              f"{h['detail']} {h['changed']}", file=sys.stderr)
        if o:
            print(f"  ferrobase: {o['outcome']} {o['detail']} {o['changed']}", file=sys.stderr)
    print(f"acl-attack: {counts['operations']} operations, {counts['equal']} equal to Apache "
          f"HBase 2.6.1's AccessController, {sum(listed.values())} listed {dict(listed)}, "
          f"{len(holes)} holes, {len(unexplained)} unexplained")
    return 1 if holes or unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
