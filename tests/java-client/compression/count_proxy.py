"""A TCP proxy that counts the bytes each way, for scripts/native-compression-test.sh.

    python3 count_proxy.py LISTEN_HOST PORT TARGET_HOST COUNTS_FILE

Listens on LISTEN_HOST:PORT, forwards every connection to TARGET_HOST:PORT, and rewrites
COUNTS_FILE with `client_to_server server_to_client` after every chunk. The server advertises
LISTEN_HOST (`--advertise`) on the same port, so every connection the Java client opens, its
bootstrap and the ones meta names, goes through here.
"""

import os
import socket
import sys
import threading

listen_host, port, target_host, counts_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
counts = [0, 0]
lock = threading.Lock()


def pump(src, dst, way):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
            with lock:
                counts[way] += len(data)
                write_counts()
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def write_counts():
    # Replaced whole, so a reader never sees it half written.
    with open(counts_file + ".tmp", "w") as f:
        f.write(f"{counts[0]} {counts[1]}\n")
    os.replace(counts_file + ".tmp", counts_file)


server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind((listen_host, port))
server.listen(64)
write_counts()
while True:
    client, _ = server.accept()
    upstream = socket.create_connection((target_host, port))
    for s in (client, upstream):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    threading.Thread(target=pump, args=(client, upstream, 0), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client, 1), daemon=True).start()
