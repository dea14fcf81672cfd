"""Drives `ferrobase shell` through a pseudo-terminal, as a person would: line editing,
multi-line input for an unclosed brace, completion with Tab, history with the up arrow,
history kept across sessions, and Ctrl-C interrupting a long scan."""

import fcntl
import os
import pty
import select
import subprocess
import tempfile
import termios
import time

BIN = os.environ.get("FERROBASE_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "target", "debug", "ferrobase"))


class Terminal:
    def __init__(self, data, history):
        self.master, slave = pty.openpty()
        env = dict(os.environ, FERROBASE_HISTORY=history, TERM="xterm", RUST_BACKTRACE="0")
        # The pty is the shell's controlling terminal (a session of its own), so Ctrl-C while a
        # statement runs is a SIGINT, as in a real terminal.
        def controlling_tty():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen([BIN, "shell", "--data", data], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True, preexec_fn=controlling_tty)
        os.close(slave)
        self.buf = b""

    def read_until(self, needle, timeout=20):
        deadline = time.time() + timeout
        while needle.encode() not in self.buf:
            left = deadline - time.time()
            assert left > 0, "timed out waiting for %r; screen so far:\n%s" % (needle, self.buf.decode(errors="replace"))
            r, _, _ = select.select([self.master], [], [], left)
            if r:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    break
                self.buf += chunk
        assert needle.encode() in self.buf, "missing %r in:\n%s" % (needle, self.buf.decode(errors="replace"))
        cut = self.buf.index(needle.encode()) + len(needle)
        out, self.buf = self.buf[:cut], self.buf[cut:]
        return out.decode(errors="replace")

    def send(self, keys):
        os.write(self.master, keys.encode())

    def close(self):
        self.send("exit\r")
        self.proc.wait(timeout=20)
        os.close(self.master)


def test_multiline_completion_and_history_across_sessions():
    data = tempfile.mkdtemp()
    history = os.path.join(tempfile.mkdtemp(), "history")
    t = Terminal(data, history)
    t.read_until("ferrobase(main):001:0> ")
    t.send("create 'people', {NAME => 'info', VERSIONS => 3}\r")
    t.read_until("Created table people")
    t.read_until("> ")
    t.send("put 'people', 'alice', 'info:age', '31'\r")
    t.read_until("Took")
    t.read_until("> ")
    # Multi-line input: the unclosed brace continues onto the next line.
    t.send("scan 'people', {LIMIT =>\r")
    time.sleep(0.3)
    t.send("10}\r")
    out = t.read_until("1 row(s)")
    assert "column=info:age" in out and "value=31" in out
    t.read_until("> ")
    # Completion of a command name and of an attribute key.
    t.send("desc\t")
    time.sleep(0.3)
    t.send(" 'people'\r")
    out = t.read_until("COLUMN FAMILIES DESCRIPTION")
    t.read_until("Took")
    t.read_until("> ")
    t.send("scan 'people', {LIM\t")
    time.sleep(0.3)
    t.send(" => 1}\r")
    t.read_until("value=31")
    t.read_until("Took")
    t.read_until("> ")
    # History: up arrow recalls the previous statement.
    t.send("\x1b[A\r")
    t.read_until("value=31")
    t.read_until("Took")
    t.read_until("> ")
    t.close()
    with open(history) as f:
        assert "put 'people', 'alice', 'info:age', '31'" in f.read()
    # A new session finds the history of the previous one.
    t = Terminal(data, history)
    t.read_until("> ")
    t.send("\x1b[A\x1b[A\x1b[A\x1b[A\x1b[A\r")
    out = t.read_until("Took")
    t.read_until("> ")
    t.close()


def test_ctrl_c_interrupts_a_long_scan_and_the_shell_goes_on():
    data = tempfile.mkdtemp()
    history = os.path.join(tempfile.mkdtemp(), "history")
    load = "create 'big', 'f'\n(1..200000).each { |i| put 'big', \"r#{i}\", 'f:q', 'v' }\n"
    subprocess.run([BIN, "shell", "--data", data], input=load.encode(), stdout=subprocess.DEVNULL, check=True, timeout=600)
    t = Terminal(data, history)
    t.read_until("> ")
    t.send("scan 'big'\r")
    t.read_until("column=f:q")
    t.send("\x03")
    # The generous timeout only guards against a hang; the assertion is that the scan stopped.
    out = t.read_until("ERROR: Interrupted (Ctrl-C)", timeout=60)
    assert "200000 row(s)" not in out
    t.read_until("> ")
    assert t.proc.poll() is None, "Ctrl-C ended the shell"
    t.send("count 'big', {ROWPREFIXFILTER => 'r12345'}\r")
    out = t.read_until("row(s)")
    assert "11 row(s)" in out
    t.read_until("> ")
    t.close()


def test_table_reference_methods_complete_with_tab():
    data = tempfile.mkdtemp()
    history = os.path.join(tempfile.mkdtemp(), "history")
    t = Terminal(data, history)
    t.read_until("> ")
    t.send("t = create 'refs', 'f'\r")
    t.read_until("=> Hbase::Table - refs")
    t.read_until("> ")
    t.send("t.pu\t")
    time.sleep(0.3)
    t.send(" 'r1', 'f:q', 'v'\r")
    t.read_until("Took")
    t.read_until("> ")
    t.send("t.sca\t\r")
    out = t.read_until("1 row(s)")
    assert "column=f:q" in out and "value=v" in out
    t.read_until("> ")
    t.close()


def test_disable_all_asks_on_the_terminal():
    data = tempfile.mkdtemp()
    history = os.path.join(tempfile.mkdtemp(), "history")
    t = Terminal(data, history)
    t.read_until("> ")
    t.send("create 'pa', 'f'\r")
    t.read_until("=> Hbase::Table - pa")
    t.read_until("> ")
    t.send("disable_all 'p.*'\r")
    t.read_until("Disable the above 1 tables (y/n)?")
    t.send("y\r")
    t.read_until("1 tables successfully disabled")
    t.read_until("> ")
    t.send("is_disabled 'pa'\r")
    t.read_until("=> true")
    t.read_until("> ")
    t.close()
