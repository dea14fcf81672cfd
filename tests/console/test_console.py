"""The console of ``ferrobase serve --http-port`` in headless Chromium (Debian's, driven by
Playwright; no browser is downloaded): the summary, a table and its regions, the heat map after
a skewed workload (time-leading row keys) with the hot range bright and its hover naming the
right keys decoded by the table's ROWKEY_SCHEMA, the slow-operation log and the log-level form.
Screenshots go to ``ARTIFACTS`` (default target/console-test). ``FERROBASE_BIN`` names the binary.
Run by scripts/console-test.sh.
"""

import os
import random
import re
import shutil
import subprocess
import tempfile
import time

import happybase
import pytest
from playwright.sync_api import sync_playwright

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("FERROBASE_BIN") or os.path.join(ROOT, "target", "debug", "ferrobase")
ARTIFACTS = os.environ.get("ARTIFACTS") or os.path.join(ROOT, "target", "console-test")
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
BUCKET_SECS = 4
SCHEMA = "ts:dec13, user:dec6"
SPLITS = ["0500000000000", "1000000000000", "1500000000000"]


def row_key(ts, user):
    return b"%013d%06d" % (ts, user)


@pytest.fixture(scope="module")
def server():
    data = tempfile.mkdtemp(prefix="ferrobase-console-")
    # The table, its splits and its rowkey schema, made by the embedded shell before serving.
    script = "create 'events', 'cf', SPLITS => [%s]\nrowkey_schema 'events', '%s'\n" % (
        ", ".join("'%s'" % s for s in SPLITS), SCHEMA)
    subprocess.run([BINARY, "shell", "--data", data], input=script, text=True, check=True,
                   capture_output=True)
    proc = subprocess.Popen(
        [BINARY, "serve", "--data", data, "--port", "0", "--http-port", "0", "--slow-ms", "0",
         "--heatmap-bucket-secs", str(BUCKET_SECS)],
        stdout=subprocess.PIPE, text=True)
    http = thrift = None
    while thrift is None:
        line = proc.stdout.readline()
        assert line, "serve ended before its Thrift line"
        addr = line.split(" on ")[1].split()[0]
        if "serving HTTP (metrics)" in line:
            http = addr
        elif "the HBase Thrift API" in line:
            thrift = addr
    host, port = thrift.rsplit(":", 1)
    conn = happybase.Connection(host, int(port), autoconnect=True)
    yield {"http": "http://" + http, "conn": conn, "thrift": thrift}
    conn.close()
    proc.terminate()
    proc.wait(timeout=30)
    shutil.rmtree(data, ignore_errors=True)


def skewed_workload(conn):
    """Background writes spread over all time, then a burst of time-leading keys (the rowkeys
    study's bad design): every write of the burst lands at the end of the key space. The burst
    spans two heat-map buckets, so the second bucket's ranges are refined by sampled keys."""
    table = conn.table("events")
    rng = random.Random(7)
    now = int(time.time() * 1000)
    with table.batch(batch_size=200) as b:
        for i in range(300):
            b.put(row_key(rng.randrange(0, now), i), {b"cf:v": b"cold"})
    hot = []
    deadline = time.time() + 2.5 * BUCKET_SECS
    ts = now
    while time.time() < deadline:
        with table.batch(batch_size=100) as b:
            for _ in range(100):
                ts += 1
                key = row_key(ts, ts % 1000)
                hot.append(key)
                b.put(key, {b"cf:v": b"hot"})
        time.sleep(0.05)
    return min(hot), max(hot)


def test_console_table_regions_heat_map_slow_log_and_log_level(server):
    os.makedirs(ARTIFACTS, exist_ok=True)
    hot_min, hot_max = skewed_workload(server["conn"])
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        # Nothing but the server's own pages is fetched.
        outside = []
        page.on("request", lambda r: None if r.url.startswith(server["http"])
                else outside.append(r.url))

        # The summary and the tables.
        response = page.goto(server["http"] + "/")
        assert response.status == 200
        assert len(response.body()) < 200 << 10
        assert page.locator("#summary").inner_text().count("Port:") >= 2
        assert "calls answered" in page.locator("#summary").inner_text()
        page.screenshot(path=os.path.join(ARTIFACTS, "console.png"), full_page=True)

        # A table: its description and regions.
        page.click("a.table:text-is('events')")
        page.wait_for_url("**/table/events")
        assert "ts:dec13" in page.locator("#families").inner_text()
        assert "NAME => 'cf'" in page.locator("#families").inner_text()
        regions = page.locator("tr.region")
        assert regions.count() == len(SPLITS) + 1
        # The last region (time-leading keys land there) took the writes.
        writes = [int(regions.nth(i).locator("td").nth(7).inner_text())
                  for i in range(regions.count())]
        assert writes[-1] == max(writes) and writes[-1] > 10 * min(writes[:-1]), writes
        page.screenshot(path=os.path.join(ARTIFACTS, "table.png"), full_page=True)

        # The heat map: the hottest cell lies in the burst's key range, and its hover title
        # names those keys as the schema decodes them.
        page.click("text=Full page")
        page.wait_for_url("**/heatmap/events")
        cells = page.locator("rect.cell")
        assert cells.count() >= 2
        figures = cells.evaluate_all(
            "rs => rs.map(r => [r.dataset.start, r.dataset.end, +r.dataset.writes, "
            "r.querySelector('title').textContent])")
        start, end, most, title = max(figures, key=lambda f: f[2])
        assert start.encode() <= hot_max and (end == "" or end.encode() > hot_min), (
            start, end, hot_min, hot_max)
        assert most > 100
        # The title decodes the cell's first key: a timestamp inside the burst (the burst
        # may cross a decimal boundary, so compare the numbers, not a common prefix).
        decoded = re.search(r"ts=(\d{13})", title)
        assert decoded, title
        assert int(hot_min[:13]) <= int(decoded.group(1)) <= int(hot_max[:13]), (
            title, hot_min, hot_max)
        hot_prefix = decoded.group(1)
        coldest = min(f[2] for f in figures if f[2] > 0)
        assert coldest < most / 5, figures
        hottest = cells.nth([f[2] for f in figures].index(most))
        hottest.hover()
        assert hottest.locator("title").text_content() == title
        page.screenshot(path=os.path.join(ARTIFACTS, "heatmap.png"), full_page=True)
        json_page = page.request.get(server["http"] + "/heatmap/events?format=json")
        assert json_page.ok and '"start_decoded":"ts=' + hot_prefix in json_page.text()

        # A flush and a major compaction, listed on the console and on /jobs with a timeline.
        out = subprocess.run([BINARY, "shell", "--connect", "thrift://" + server["thrift"]],
                             input="flush 'events'\nmajor_compact 'events'\n", text=True,
                             capture_output=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        page.goto(server["http"] + "/")
        listed = page.locator("#jobs-console tr.job")
        kinds = listed.evaluate_all("rs => rs.map(r => [r.dataset.kind, r.dataset.state])")
        assert ["flush", "done"] in kinds and ["major_compaction", "done"] in kinds, kinds
        assert "events" in page.locator("#jobs-console").inner_text()
        page.click("text=all, with a timeline")
        page.wait_for_url("**/jobs")
        major = page.locator("#jobs-recent tr.job[data-kind=major_compaction]").first
        cells = major.locator("td").all_inner_texts()
        # Started, job, table, region, families, files in, bytes in, files out, bytes out, ...
        assert cells[1:3] == ["major_compaction", "events"] and cells[4] == "cf", cells
        assert int(cells[5]) >= 1 and cells[7] == "1" and cells[11] == "done", cells
        bars = page.locator("#jobs-timeline rect.job-bar")
        assert bars.count() == page.locator("#jobs-recent tr.job").count() + \
            page.locator("#jobs-running tr.job").count()
        bars.first.hover()
        assert "of events region" in bars.first.locator("title").text_content()
        response = page.request.get(server["http"] + "/jobs")
        assert len(response.body()) < 200 << 10
        page.screenshot(path=os.path.join(ARTIFACTS, "jobs.png"), full_page=True)

        # Slow operations (--slow-ms 0 keeps every call).
        page.goto(server["http"] + "/slowlog")
        assert page.locator("#slowlog tr").count() > 10
        assert "Hbase.mutateRows" in page.locator("#slowlog").inner_text()
        page.screenshot(path=os.path.join(ARTIFACTS, "slowlog.png"))

        # The log level, changed through the form.
        page.goto(server["http"] + "/logLevel")
        page.fill("input[name=level]", "debug")
        page.click("button[type=submit]")
        assert "log level set to debug" in page.locator("#outcome").inner_text()
        assert page.locator("#level").inner_text() == "debug"
        page.screenshot(path=os.path.join(ARTIFACTS, "loglevel.png"))
        browser.close()
        assert not outside, outside
