#!/usr/bin/env bash
# TLS on HBase's native RPC door (`ferrobase serve --rpc-port P --tls-cert PEM --tls-key PEM`,
# docs/design/native-protocol.md "TLS") with the stock HBase Java client (tests/java-client):
#   1. SeedArticles over TLS (hbase.client.netty.tls.enabled=true, the test CA as a PEM truststore
#      in hbase-site.xml) on hbase-client 2.6.1 and 3.0.0-beta-1 prints Apache HBase 2.6.1's
#      transcript (tests/java-client/expected/hbase-2.6.1.txt);
#   2. a plaintext client (ListTables) on the TLS port is refused with the door's message
#      (FatalConnectionException: "... over TLS only: set hbase.client.netty.tls.enabled=true ...")
#      and the server logs it, while serving a TLS client meanwhile;
#   3. garbage instead of a ClientHello and a client stalled mid-handshake are closed with a log
#      line;
#   4. one port (--rpc-port equal to --port) with TLS: the Java client over TLS and Thrift over
#      TLS (ferrobase shell --connect --tls-ca) on the same port.
# Certificates are made here with the openssl CLI (a CA, and a server certificate for localhost
# and 127.0.0.1, which HBase's client verifies the address against).
#
#   scripts/native-tls-test.sh            FERROBASE_BIN (default target/debug/ferrobase)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${FERROBASE_BIN:-target/debug/ferrobase}
EXPECTED=tests/java-client/expected/hbase-2.6.1.txt
started=$SECONDS
dir=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
die() {
  echo "native-tls: $*" >&2
  exit 1
}

# --- The PKI.
ossl() { openssl "$@" >/dev/null 2>&1 || die "openssl $* failed"; }
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/ca.key" \
  -out "$dir/ca.pem" -days 2 -subj "/CN=ferrobase test CA"
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$dir/server.ext"
ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/server.key" \
  -out "$dir/server.csr" -subj "/CN=ferrobase"
ossl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
  -days 2 -extfile "$dir/server.ext" -out "$dir/server.pem"

# The client's settings, as a user would write them in hbase-site.xml.
mkdir -p "$dir/conf-tls"
cat >"$dir/conf-tls/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.client.netty.tls.enabled</name><value>true</value></property>
  <property><name>hbase.rpc.tls.truststore.location</name><value>$dir/ca.pem</value></property>
  <property><name>hbase.rpc.tls.truststore.type</name><value>PEM</value></property>
</configuration>
EOF

# Starts `ferrobase serve` with TLS and ARGS; sets pid, port (native RPC) and thrift.
serve() {
  local name=$1
  shift
  "$BIN" serve --tls-cert "$dir/server.pem" --tls-key "$dir/server.key" --data "$dir/data-$name" "$@" \
    >"$dir/$name.out" 2>"$dir/$name.err" &
  pid=$!
  for _ in $(seq 100); do
    grep -q "Thrift API on" "$dir/$name.out" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  port=$(grep -o "native RPC on [0-9.:]*" "$dir/$name.out" | sed 's/.*://' || true)
  thrift=$(grep -o "Thrift API on [0-9.:]*" "$dir/$name.out" | sed 's/.*://' || true)
  [[ -n $thrift ]] || { cat "$dir/$name.err" >&2; die "the server ($name) did not start"; }
}

stop() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
}

# Runs SeedArticles over TLS against HOST:PORT with hbase-client VERSION and compares.
seeds_over_tls() {
  local version=$1 at=$2 prefix=$3 out=$dir/seeds-$1-$3.txt status=0
  JAVA_CLIENT_CONF_DIR=$dir/conf-tls JAVA_CLIENT_HBASE=${version/2.6.1/} \
    bash scripts/java-client.sh --bootstrap "$at" --prefix "$prefix" >"$out" 2>"$out.err" || status=$?
  if ! diff -u "$EXPECTED" <(sed "s/$prefix/seed_/g" "$out"); then
    tail -20 "$out.err" >&2
    die "SeedArticles over TLS on hbase-client $version differs from Apache HBase 2.6.1's transcript (above; - HBase, + ferrobase)"
  fi
  [[ $status == 0 ]] || die "SeedArticles over TLS (hbase-client $version) exited $status"
}

# --- 1. The Java client over TLS, 2.6.1 and 3.0.0-beta-1.
serve tls --port 0 --rpc-port 0
[[ -n $port ]] || die "no native RPC port printed"
grep -q "native RPC on .* over TLS" "$dir/tls.out" || die "the door does not say it serves TLS: $(cat "$dir/tls.out")"
t0=$SECONDS
seeds_over_tls 2.6.1 "127.0.0.1:$port" seed_
echo "native-tls: hbase-client 2.6.1 SeedArticles over TLS printed Apache HBase 2.6.1's transcript ($(tail -1 "$dir/seeds-2.6.1-seed_.txt")) in $((SECONDS - t0)) s"
t0=$SECONDS
seeds_over_tls 3.0.0-beta-1 "127.0.0.1:$port" seed3_
echo "native-tls: hbase-client 3.0.0-beta-1 SeedArticles over TLS printed the same transcript in $((SECONDS - t0)) s"

# --- 3. Malformed TLS on the binary's port: garbage, a stalled handshake (closed at the 10 s
# handshake timeout, so run beside step 2); each closed with a log line.
(
python3 - "$port" >"$dir/malformed.txt" 2>&1 <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
def closed(s, within):
    s.settimeout(within)
    try:
        while s.recv(4096):
            pass
        return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False
g = socket.create_connection(("127.0.0.1", port)); g.sendall(b"\x16\x03\x01\x00\x05junk!")
assert closed(g, 5), "garbage ClientHello not closed"
h = socket.create_connection(("127.0.0.1", port)); h.sendall(b"\x16\x03\x01\x02\x00\x01")
assert closed(h, 15), "a stalled handshake was not closed within the handshake timeout"
EOF
) &
malformed=$!

# --- 2. A plaintext client on the TLS port (ListTables: one call, little retrying): refused with
# the door's message, and the server serves a TLS client meanwhile.
t0=$SECONDS
status=0
bash scripts/java-client.sh --program ListTables --bootstrap "127.0.0.1:$port" >"$dir/plain.txt" 2>"$dir/plain.err" &
plain=$!
tls_answer=$(JAVA_CLIENT_CONF_DIR=$dir/conf-tls bash scripts/java-client.sh --program ListTables \
  --bootstrap "127.0.0.1:$port" 2>"$dir/tls-list.err") || { tail -20 "$dir/tls-list.err" >&2; die "ListTables over TLS failed"; }
[[ $tls_answer == "tables: "* ]] || die "ListTables over TLS answered: $tls_answer"
wait "$plain" || status=$?
[[ $status != 0 ]] || die "a plaintext client was served on the TLS port: $(cat "$dir/plain.txt")"
want="refused: org.apache.hadoop.hbase.ipc.RemoteWithExtrasException: org.apache.hadoop.hbase.ipc.FatalConnectionException: this port serves HBase's RPC over TLS only: set hbase.client.netty.tls.enabled=true and hbase.rpc.tls.truststore.location to the server's CA (ferrobase: docs/design/native-protocol.md, TLS)"
[[ $(cat "$dir/plain.txt") == "$want" ]] \
  || { tail -20 "$dir/plain.err" >&2; die "the plaintext client saw, instead of the door's refusal: $(cat "$dir/plain.txt")"; }
grep -q "plaintext connection from .* refused" "$dir/tls.err" || die "the server did not log the plaintext refusal"
echo "native-tls: a plaintext client was refused with the door's message (FatalConnectionException: this port serves HBase's RPC over TLS only ...) while a TLS client was served ($tls_answer), in $((SECONDS - t0)) s"

wait "$malformed" || { cat "$dir/malformed.txt" >&2; die "malformed TLS was not closed"; }
grep -q "TLS handshake with .* refused: received corrupt message" "$dir/tls.err" || die "no log line for the garbage ClientHello"
grep -q "TLS handshake with .* refused: the handshake did not finish" "$dir/tls.err" || die "no log line for the stalled handshake"
echo "native-tls: garbage instead of a ClientHello and a stalled handshake were closed with a log line each"
stop

# --- 4. One port for both doors with TLS: the Java client and Thrift over TLS.
one=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
serve one --port "$one" --rpc-port "$one"
t0=$SECONDS
seeds_over_tls 2.6.1 "127.0.0.1:$one" one_
printf "create 'thrift_too', 'f'\nlist\n" \
  | "$BIN" shell -n --connect "thrift://127.0.0.1:$one" --tls-ca "$dir/ca.pem" >"$dir/shell-one.txt" 2>&1 \
  || { cat "$dir/shell-one.txt" >&2; die "Thrift over TLS on the shared port failed"; }
grep -q "^thrift_too$" "$dir/shell-one.txt" || { cat "$dir/shell-one.txt" >&2; die "Thrift over TLS on the shared port did not list its table"; }
echo "native-tls: one TLS port ($one) served the Java client ($(tail -1 "$dir/seeds-2.6.1-one_.txt")) and Thrift in $((SECONDS - t0)) s"
stop
# --- 5. Mutual TLS with ACLs: --tls-client-ca makes each client certificate's CN the connection's
# user (docs/design/security.md, "The native door"). An admin (superuser) creates a table and
# grants `reader` READ; `reader` reads but may not write or grant itself more; `stranger` sees
# nothing (its reads and writes refused as HBase refuses them; with --rpc-hide-tables not even that
# the table exists: hbase:meta then shows each user the tables a grant reaches, so its client
# answers TableNotFoundException); a client without a certificate is refused in the handshake.
for who in admin reader stranger; do
  printf 'extendedKeyUsage=clientAuth\n' >"$dir/client.ext"
  ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/$who.key" \
    -out "$dir/$who.csr" -subj "/CN=$who"
  ossl x509 -req -in "$dir/$who.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
    -days 2 -extfile "$dir/client.ext" -out "$dir/$who.pem"
  cat "$dir/$who.key" "$dir/$who.pem" >"$dir/$who-keystore.pem"
  mkdir -p "$dir/conf-$who"
  cat >"$dir/conf-$who/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.client.netty.tls.enabled</name><value>true</value></property>
  <property><name>hbase.rpc.tls.truststore.location</name><value>$dir/ca.pem</value></property>
  <property><name>hbase.rpc.tls.truststore.type</name><value>PEM</value></property>
  <property><name>hbase.rpc.tls.keystore.location</name><value>$dir/$who-keystore.pem</value></property>
  <property><name>hbase.rpc.tls.keystore.type</name><value>PEM</value></property>
</configuration>
EOF
done
serve mtls --port 0 --rpc-port 0 --tls-client-ca "$dir/ca.pem" --superuser admin
t0=$SECONDS
for who in admin reader stranger; do
  JAVA_CLIENT_CONF_DIR=$dir/conf-$who bash scripts/java-client.sh --program CertificateUsers \
    --bootstrap "127.0.0.1:$port" "$who" >>"$dir/mtls.txt" 2>"$dir/mtls-$who.err" \
    || { tail -20 "$dir/mtls-$who.err" >&2; die "CertificateUsers as $who failed"; }
done
cat >"$dir/mtls-expected.txt" <<'EOF'
create: ok
put r1: ok
grant reader R: ok
get r1: value v1
put r2: refused RemoteWithExtrasException: org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions (user=reader, scope=default:mtls, family=cf:q, params=[table=default:mtls,family=cf:q],action=WRITE)
list tables: [mtls]
grant self A: refused RemoteWithExtrasException: org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions for user 'reader' (global, action=ADMIN)
get r1: refused RemoteWithExtrasException: org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions for user 'stranger' (table=mtls, action=READ)
put r2: refused RemoteWithExtrasException: org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions (user=stranger, scope=default:mtls, family=cf:q, params=[table=default:mtls,family=cf:q],action=WRITE)
list tables: []
grant self A: refused RemoteWithExtrasException: org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions for user 'stranger' (global, action=ADMIN)
EOF
diff -u "$dir/mtls-expected.txt" "$dir/mtls.txt" || die "the certificate users' answers differ (above; - expected, + ferrobase)"
status=0
JAVA_CLIENT_CONF_DIR=$dir/conf-tls bash scripts/java-client.sh --program ListTables \
  --bootstrap "127.0.0.1:$port" >"$dir/nocert.txt" 2>"$dir/nocert.err" || status=$?
[[ $status != 0 ]] || die "a client without a certificate was served: $(cat "$dir/nocert.txt")"
stop
# The same data with --rpc-hide-tables: the stranger does not learn that mtls exists.
serve mtls --port 0 --rpc-port 0 --tls-client-ca "$dir/ca.pem" --superuser admin --rpc-hide-tables
JAVA_CLIENT_CONF_DIR=$dir/conf-stranger bash scripts/java-client.sh --program CertificateUsers \
  --bootstrap "127.0.0.1:$port" stranger >"$dir/hidden.txt" 2>"$dir/hidden.err" \
  || { tail -20 "$dir/hidden.err" >&2; die "CertificateUsers as stranger (hidden tables) failed"; }
grep -qx "get r1: refused TableNotFoundException: mtls" "$dir/hidden.txt" \
  || { cat "$dir/hidden.txt" >&2; die "with --rpc-hide-tables the stranger still learns that mtls exists"; }
echo "native-tls: mutual TLS with ACLs: each certificate's CN is its user (admin, reader, stranger: $(wc -l <"$dir/mtls.txt") answers as expected), a client without a certificate refused ($(cut -c1-80 "$dir/nocert.txt")), in $((SECONDS - t0)) s"
stop
echo "native-tls: done in $((SECONDS - started)) s"
