#!/usr/bin/env bash
# servers.sh SUITE CASE - unmodified Debian servers and clients, in the Debian
# root of SUITE that debian_root.sh made (the .deb installed, enabled in
# /etc/ssl/openssl.cnf), on 127.0.0.1 only, each step under a timeout.
#
# Debian 13 (trixie, OpenSSL 3.5 libssl) cases:
#   nginx-chain    nginx serves an ML-DSA-87 root -> ML-DSA-65 leaf chain to
#                  curl and s_client (mldsa65); gdb, attached to nginx, counts
#                  calls of the provider's signing function: at least one per
#                  handshake. Control: the same without
#                  prefer-mldsa-accel.cnf (OpenSSL's own ML-DSA used): no calls.
#   nginx-dual     one nginx server with an ECDSA P-256 and an ML-DSA-65
#                  certificate: a client offering only ecdsa_secp256r1_sha256 gets
#                  ECDSA, one offering only mldsa65 gets ML-DSA; curl gets one.
#   haproxy-async  HAProxy with ssl-mode-async terminating TLS (ML-DSA-65) in
#                  front of an HTTP backend; gdb counts the provider's signatures.
#   python         Python's ssl module verifies the ML-DSA chain and reads the page.
#   fleet          examples/fleet-haproxy.cfg (addresses put on 127.0.0.1) in
#                  front of two nginx nodes, each with its own ML-DSA key:
#                  requests through it reach both nodes, each node's certificate.
# Debian 12 (bookworm, OpenSSL 3.0 libssl) case:
#   classic        with the provider loaded (seen in each server's memory map):
#                  nginx with RSA + ECDSA certificates to curl, s_client and
#                  Python; HAProxy with ssl-mode-async; and nginx refusing to
#                  start with an ML-DSA certificate, as docs/INTEROP.md says.
set -uo pipefail
suite=$1 case=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
root=${MLDSA_ACCEL_ROOTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/roots}/$suite
step_timeout=60
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root (chroot)"; exit 77; }
[ -f "$root/.mldsa-accel-ready" ] ||
  { echo "skipped: no $suite root with this build's package at $root (debian_root.sh skipped or failed)"; exit 77; }

work_in=/tmp/servers-$case-$$      # as the chrooted programs see it
work="$root$work_in"
mkdir -p "$work"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do timeout 10 tail --pid="$p" -f /dev/null 2>/dev/null || kill -9 "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
passed=0 failed=0
check() {  # check OK WHAT [DETAIL-FILE]
  if [ "$1" = 0 ]; then
    passed=$((passed + 1)); echo "ok: $2"
  else
    failed=$((failed + 1)); echo "FAIL: $2"
    [ -n "${3:-}" ] && [ -f "$3" ] && sed 's/^/  /' "$3" | tail -25
  fi
}
in_root() { timeout "$step_timeout" chroot "$root" "$@"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() {  # PORT: until something listens on 127.0.0.1:PORT (10 s)
  local i
  for i in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
start() {  # LOG CMD...: a program in the root, in the background; its pid in $started
  local log=$1
  shift
  chroot "$root" "$@" >"$log" 2>&1 &
  started=$!
  pids+=("$started")
}

# gdb, attached to PID, counts calls of the provider's signing entry point
# (sig_sign, the OSSL_FUNC_SIGNATURE_SIGN / DIGEST_SIGN function) until PID
# exits; gdb_count prints the count once the caller has stopped PID.
gdb_attach() {  # PID LOG
  cat >"$work/gdb.cmds" <<EOF
set pagination off
set confirm off
set debug-file-directory /proc/$1/root/usr/lib/debug
set sysroot /proc/$1/root
handle SIGQUIT nostop noprint pass
handle SIGUSR1 nostop noprint pass
handle SIGTERM nostop noprint pass
break mldsa::prov::(anonymous namespace)::sig_sign
commands
silent
continue
end
continue
info breakpoints
EOF
  timeout 120 gdb -q -batch -p "$1" -x "$work/gdb.cmds" >"$2" 2>&1 &
  gdb_pid=$!
  local i
  for i in $(seq 300); do
    grep -q '^Breakpoint 1 at' "$2" && return 0
    kill -0 "$gdb_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
gdb_count() {  # LOG: once the inferior was stopped; the count in $signs (not in a subshell: it waits for gdb)
  wait "$gdb_pid" 2>/dev/null
  signs=$(sed -n 's/.*breakpoint already hit \([0-9]*\) time.*/\1/p' "$1")
  signs=${signs:-0}
}

# Makes, inside the root, CA root.pem (ALG_ROOT) and leaf NAME.pem / NAME.key
# (ALG_LEAF) for localhost and 127.0.0.1, and NAME-chain.pem (leaf + root).
make_pki() {  # ROOT-ALG-ARGS... -- NAME LEAF-ALG-ARGS...
  local root_args=() leaf_args=() name
  while [ "$1" != "--" ]; do root_args+=("$1"); shift; done
  shift
  name=$1
  shift
  leaf_args=("$@")
  cat >"$work/mk-$name.sh" <<EOF
set -e
cd $work_in
[ -f root.pem ] || {
  openssl genpkey ${root_args[*]} -out root.key
  openssl req -x509 -new -key root.key -subj /CN=test-root -days 2 -out root.pem \
    -addext basicConstraints=critical,CA:true -addext keyUsage=critical,keyCertSign
}
openssl genpkey ${leaf_args[*]} -out $name.key
openssl req -new -key $name.key -subj /CN=localhost -out $name.csr
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:false\n' >$name.ext
openssl x509 -req -in $name.csr -CA root.pem -CAkey root.key -days 2 -extfile $name.ext -out $name.pem
cat $name.pem root.pem >$name-chain.pem
cat $name-chain.pem $name.key >$name-haproxy.pem
EOF
  in_root sh "$work_in/mk-$name.sh" >"$work/mk-$name.log" 2>&1
}

nginx_conf() {  # FILE PORT BODY CERT-NAME... (one ssl_certificate pair per name)
  local file=$1 port=$2 body=$3 certs=""
  shift 3
  for n in "$@"; do
    certs+="    ssl_certificate $work_in/$n-chain.pem;
    ssl_certificate_key $work_in/$n.key;
"
  done
  cat >"$file" <<EOF
daemon off;
master_process off;
error_log stderr notice;
pid $work_in/nginx-$port.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $work_in/body-$port;
  proxy_temp_path $work_in/proxy-$port;
  fastcgi_temp_path $work_in/fastcgi-$port;
  uwsgi_temp_path $work_in/uwsgi-$port;
  scgi_temp_path $work_in/scgi-$port;
  server {
    listen 127.0.0.1:$port ssl;
    server_name localhost;
$certs    ssl_protocols TLSv1.2 TLSv1.3;
    location / { return 200 "$body\n"; }
  }
}
EOF
}

start_nginx() {  # CONF-INSIDE-ROOT PORT LOG [env...]: nginx in the background; its pid in $started
  local conf=$1 port=$2 log=$3
  shift 3
  start "$log" env "$@" nginx -c "$conf"
  wait_port "$port"
}

curl_get() {  # PORT OUT [curl options...]: a GET of https://localhost:PORT/ trusting root.pem
  local port=$1 out=$2
  shift 2
  in_root curl -sS --max-time 20 --cacert "$work_in/root.pem" --resolve "localhost:$port:127.0.0.1" \
    "$@" "https://localhost:$port/" >"$out" 2>&1
}

s_client_sigalg() {  # PORT SIGALGS OUT: the peer signature type a client offering only SIGALGS gets
  local port=$1 sigalgs=$2 out=$3
  in_root openssl s_client -connect "127.0.0.1:$port" -servername localhost -CAfile "$work_in/root.pem" \
    -verify_return_error -sigalgs "$sigalgs" </dev/null >"$out" 2>&1
  sed -n 's/^Peer signature type: \(.*\)$/\1/p' "$out" | head -1
}

python_get() {  # PORT OUT: Python's ssl client, verifying against root.pem
  local port=$1 out=$2
  cat >"$work/client.py" <<EOF
import socket, ssl
ctx = ssl.create_default_context(cafile="$work_in/root.pem")
with socket.create_connection(("127.0.0.1", $port), timeout=20) as raw:
    with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
        tls.sendall(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
        version, data = tls.version(), b""
        while chunk := tls.recv(4096):
            data += chunk
print(ssl.OPENSSL_VERSION, version, data.split(b"\r\n")[0].decode(), data.split(b"\r\n\r\n", 1)[1].decode().strip())
EOF
  in_root python3 "$work_in/client.py" >"$out" 2>&1
}

maps_module() {  # PID: whether the process has mldsa-accel.so mapped
  grep -q 'ossl-modules/mldsa-accel.so' "/proc/$1/maps"
}

stop() {  # PID [SIGNAL]: graceful stop (nginx: QUIT, the default; HAProxy: USR1), wait up to 10 s
  kill -"${2:-QUIT}" "$1" 2>/dev/null
  timeout 10 tail --pid="$1" -f /dev/null
}

# A plain HTTP backend for HAProxy: Python's http.server on PORT.
start_backend() {  # PORT
  mkdir -p "$work/www"
  echo "hello from the backend" >"$work/www/index.html"
  start "$work/backend.log" python3 -m http.server --bind 127.0.0.1 --directory "$work_in/www" "$1"
  wait_port "$1"
}

haproxy_conf() {  # FILE FRONT-PORT BACK-PORT CERT-NAME
  cat >"$1" <<EOF
global
    nbthread 1
    ssl-mode-async
defaults
    mode http
    timeout connect 5s
    timeout client 20s
    timeout server 20s
frontend tls_in
    bind 127.0.0.1:$2 ssl crt $work_in/$4-haproxy.pem
    default_backend web
backend web
    server backend1 127.0.0.1:$3
EOF
}

case_nginx_chain() {
  make_pki -algorithm ML-DSA-87 -- leaf -algorithm ML-DSA-65
  check $? "ML-DSA-87 root and ML-DSA-65 leaf made with the root's openssl" "$work/mk-leaf.log"
  local port n
  for mode in provider control; do
    port=$(free_port)
    nginx_conf "$work/nginx.conf" "$port" "hello from nginx" leaf
    local env=()
    if [ "$mode" = control ]; then
      # The system file with system-wide.cnf but not prefer-mldsa-accel.cnf: both ML-DSAs loaded, none preferred.
      { cat "$root/etc/ssl/openssl.cnf.debian"; echo ".include /usr/share/mldsa-accel/system-wide.cnf"; } >"$work/control.cnf"
      env=(OPENSSL_CONF="$work_in/control.cnf")
    fi
    start_nginx "$work_in/nginx.conf" "$port" "$work/nginx-$mode.log" "${env[@]}"
    check $? "$mode: nginx started with the ML-DSA chain on 127.0.0.1:$port" "$work/nginx-$mode.log"
    local pid=$started
    maps_module "$pid"
    check $? "$mode: mldsa-accel.so is mapped in nginx"
    gdb_attach "$pid" "$work/gdb-$mode.log"
    check $? "$mode: gdb attached to nginx, breakpoint on the provider's sig_sign" "$work/gdb-$mode.log"
    local ok=0 i
    for i in 1 2 3; do
      curl_get "$port" "$work/curl.out" && grep -q "hello from nginx" "$work/curl.out" || ok=1
    done
    check $ok "$mode: curl: three HTTPS requests, chain verified against the ML-DSA-87 root" "$work/curl.out"
    [ "$(s_client_sigalg "$port" mldsa65 "$work/s_client.out")" = mldsa65 ] && grep -q 'Verify return code: 0 (ok)' "$work/s_client.out"
    check $? "$mode: s_client: peer signature type mldsa65, chain verified" "$work/s_client.out"
    stop "$pid"
    gdb_count "$work/gdb-$mode.log"
    n=$signs
    if [ "$mode" = provider ]; then
      [ "$n" -ge 4 ]
      check $? "provider: the provider signed every handshake (sig_sign called $n times for 4 handshakes)" "$work/gdb-$mode.log"
    else
      [ "$n" -eq 0 ]
      check $? "control: without prefer-mldsa-accel.cnf OpenSSL's own ML-DSA signed (sig_sign called $n times)" "$work/gdb-$mode.log"
    fi
  done
}

case_nginx_dual() {
  make_pki -algorithm ML-DSA-65 -- mldsa -algorithm ML-DSA-65 &&
    make_pki -algorithm ML-DSA-65 -- ecdsa -algorithm EC -pkeyopt ec_paramgen_curve:P-256
  check $? "ML-DSA-65 and ECDSA P-256 leaves under one ML-DSA-65 root" "$work/mk-ecdsa.log"
  local port
  port=$(free_port)
  nginx_conf "$work/nginx.conf" "$port" "hello from dual nginx" ecdsa mldsa
  start_nginx "$work_in/nginx.conf" "$port" "$work/nginx.log"
  check $? "nginx started with an ECDSA and an ML-DSA certificate" "$work/nginx.log"
  local pid=$started
  # s_client 3.5 names the scheme (ecdsa_secp256r1_sha256), 3.0 the key type (ECDSA).
  [[ "$(s_client_sigalg "$port" ecdsa_secp256r1_sha256 "$work/ec.out")" =~ ^(ECDSA|ecdsa_secp256r1_sha256)$ ]] &&
    grep -q 'Verify return code: 0 (ok)' "$work/ec.out"
  check $? "a client offering only ecdsa_secp256r1_sha256 gets the ECDSA certificate" "$work/ec.out"
  [ "$(s_client_sigalg "$port" mldsa65 "$work/ml.out")" = mldsa65 ] && grep -q 'Verify return code: 0 (ok)' "$work/ml.out"
  check $? "a client offering only mldsa65 gets the ML-DSA certificate" "$work/ml.out"
  curl_get "$port" "$work/curl.out" && grep -q "hello from dual nginx" "$work/curl.out"
  check $? "curl (its default signature algorithms) gets a page" "$work/curl.out"
  stop "$pid"
}

case_haproxy_async() {
  make_pki -algorithm ML-DSA-87 -- leaf -algorithm ML-DSA-65
  check $? "ML-DSA certificates made" "$work/mk-leaf.log"
  local front back
  front=$(free_port)
  back=$(free_port)
  start_backend "$back"
  check $? "HTTP backend on 127.0.0.1:$back" "$work/backend.log"
  haproxy_conf "$work/haproxy.cfg" "$front" "$back" leaf
  in_root haproxy -c -f "$work_in/haproxy.cfg" >"$work/haproxy-c.log" 2>&1
  check $? "haproxy -c accepts ssl-mode-async with the ML-DSA certificate" "$work/haproxy-c.log"
  start "$work/haproxy.log" haproxy -db -f "$work_in/haproxy.cfg"
  local pid=$started
  wait_port "$front"
  check $? "HAProxy listens on 127.0.0.1:$front" "$work/haproxy.log"
  gdb_attach "$pid" "$work/gdb.log"
  check $? "gdb attached to HAProxy" "$work/gdb.log"
  local ok=0 i
  for i in 1 2 3; do
    curl_get "$front" "$work/curl.out" && grep -q "hello from the backend" "$work/curl.out" || ok=1
  done
  check $ok "curl through HAProxy (ssl-mode-async): three requests reach the backend" "$work/curl.out"
  stop "$pid" USR1
  gdb_count "$work/gdb.log"
  local n=$signs
  [ "$n" -ge 3 ]
  check $? "HAProxy's handshakes were signed by the provider (sig_sign called $n times for 3)" "$work/gdb.log"
}

case_python() {
  make_pki -algorithm ML-DSA-87 -- leaf -algorithm ML-DSA-65
  check $? "ML-DSA certificates made" "$work/mk-leaf.log"
  local port
  port=$(free_port)
  nginx_conf "$work/nginx.conf" "$port" "hello from nginx" leaf
  start_nginx "$work_in/nginx.conf" "$port" "$work/nginx.log"
  check $? "nginx started" "$work/nginx.log"
  python_get "$port" "$work/py.out" && grep -q "TLSv1.3 HTTP/1.1 200 OK hello from nginx" "$work/py.out"
  check $? "Python's ssl client verifies the ML-DSA chain: $(head -c 200 "$work/py.out")" "$work/py.out"
  stop "$started"
}

case_fleet() {
  make_pki -algorithm ML-DSA-87 -- node1 -algorithm ML-DSA-65 &&
    make_pki -algorithm ML-DSA-87 -- node2 -algorithm ML-DSA-65
  check $? "two nodes, each with its own ML-DSA-65 key" "$work/mk-node2.log"
  local p1 p2 front n1 n2
  p1=$(free_port); p2=$(free_port); front=$(free_port)
  nginx_conf "$work/node1.conf" "$p1" "node1" node1
  nginx_conf "$work/node2.conf" "$p2" "node2" node2
  start_nginx "$work_in/node1.conf" "$p1" "$work/node1.log"; n1=$started
  start_nginx "$work_in/node2.conf" "$p2" "$work/node2.log"; n2=$started
  # The example as shipped, its addresses put on loopback.
  sed -e "s/bind :443/bind 127.0.0.1:$front/" -e "s/192\.0\.2\.11:443/127.0.0.1:$p1/" \
      -e "s/192\.0\.2\.12:443/127.0.0.1:$p2/" "$repo/examples/fleet-haproxy.cfg" >"$work/fleet.cfg"
  ! grep -Eq '192\.0\.2\.|bind :' "$work/fleet.cfg"
  check $? "examples/fleet-haproxy.cfg with its addresses on 127.0.0.1" "$work/fleet.cfg"
  grep -Eq '192\.0\.2\.|bind :' "$work/fleet.cfg" && return  # never start it pointing elsewhere
  start "$work/fleet.log" haproxy -db -f "$work_in/fleet.cfg"
  local hp=$started
  wait_port "$front"
  check $? "the balancer listens on 127.0.0.1:$front" "$work/fleet.log"
  sleep 0.5  # first health checks
  local got="" i
  for i in 1 2 3 4; do
    curl_get "$front" "$work/curl.out" && got+=" $(cat "$work/curl.out")"
  done
  [[ "$got" == *node1* && "$got" == *node2* ]]
  check $? "four requests through the balancer reached both nodes:$got" "$work/curl.out"
  local f1 f2
  f1=$(in_root openssl x509 -in "$work_in/node1.pem" -noout -fingerprint -sha256)
  f2=$(in_root openssl x509 -in "$work_in/node2.pem" -noout -fingerprint -sha256)
  [ "$f1" != "$f2" ]
  check $? "each node has its own certificate"
  stop "$hp" USR1; stop "$n1"; stop "$n2"
}

case_classic() {
  make_pki -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -- rsa -algorithm RSA -pkeyopt rsa_keygen_bits:2048 &&
    make_pki -algorithm RSA -- ecdsa -algorithm EC -pkeyopt ec_paramgen_curve:P-256 &&
    make_pki -algorithm RSA -- mldsa -algorithm ML-DSA-65
  check $? "RSA root; RSA, ECDSA and ML-DSA-65 leaves (made with Debian 12's openssl and the provider)" "$work/mk-mldsa.log"
  local port front back pid
  port=$(free_port)
  nginx_conf "$work/nginx.conf" "$port" "hello from nginx" rsa ecdsa
  start_nginx "$work_in/nginx.conf" "$port" "$work/nginx.log"
  check $? "nginx started with RSA and ECDSA certificates" "$work/nginx.log"
  pid=$started
  maps_module "$pid"
  check $? "mldsa-accel.so is mapped in nginx (loaded from /etc/ssl/openssl.cnf)"
  curl_get "$port" "$work/curl.out" && grep -q "hello from nginx" "$work/curl.out"
  check $? "curl gets a page" "$work/curl.out"
  [[ "$(s_client_sigalg "$port" ecdsa_secp256r1_sha256 "$work/ec.out")" =~ ^(ECDSA|ecdsa_secp256r1_sha256)$ ]]
  check $? "a client offering ecdsa_secp256r1_sha256 gets ECDSA" "$work/ec.out"
  [ "$(s_client_sigalg "$port" rsa_pss_rsae_sha256 "$work/rsa.out")" = RSA-PSS ]
  check $? "a client offering rsa_pss_rsae_sha256 gets RSA-PSS" "$work/rsa.out"
  python_get "$port" "$work/py.out" && grep -q "HTTP/1.1 200 OK hello from nginx" "$work/py.out"
  check $? "Python's ssl client: $(head -c 200 "$work/py.out")" "$work/py.out"
  stop "$pid"

  front=$(free_port); back=$(free_port)
  start_backend "$back"
  haproxy_conf "$work/haproxy.cfg" "$front" "$back" ecdsa
  start "$work/haproxy.log" haproxy -db -f "$work_in/haproxy.cfg"
  pid=$started
  wait_port "$front"
  check $? "HAProxy with ssl-mode-async and an ECDSA certificate listens" "$work/haproxy.log"
  maps_module "$pid"
  check $? "mldsa-accel.so is mapped in HAProxy"
  curl_get "$front" "$work/curl.out" && grep -q "hello from the backend" "$work/curl.out"
  check $? "curl through HAProxy reaches the backend" "$work/curl.out"
  stop "$pid" USR1

  # What docs/INTEROP.md says of ML-DSA certificates on 3.0's libssl.
  nginx_conf "$work/mldsa.conf" "$(free_port)" "never" mldsa
  in_root nginx -t -c "$work_in/mldsa.conf" >"$work/nginx-t.log" 2>&1
  [ $? -ne 0 ] && grep -q 'unknown certificate type' "$work/nginx-t.log"
  check $? "libssl 3.0: nginx refuses to start with an ML-DSA certificate (\"unknown certificate type\")" "$work/nginx-t.log"
  nginx_conf "$work/dual.conf" "$(free_port)" "never" ecdsa mldsa
  in_root nginx -t -c "$work_in/dual.conf" >"$work/nginx-t3.log" 2>&1
  [ $? -ne 0 ]
  check $? "libssl 3.0: an ECDSA + ML-DSA dual-certificate nginx does not start at all" "$work/nginx-t3.log"
  # One issued by an ML-DSA CA: "ca md too weak" (the CA's signature has no digest
  # libssl 3.0 knows), in nginx and in Python.
  cat >"$work/mk-mlca.sh" <<EOF
set -e
cd $work_in
openssl genpkey -algorithm ML-DSA-65 -out mlca.key
openssl req -x509 -new -key mlca.key -subj /CN=ml-dsa-ca -days 2 -out mlca.pem
openssl x509 -req -in mldsa.csr -CA mlca.pem -CAkey mlca.key -days 2 -out mlsigned-chain.pem
cp mldsa.key mlsigned.key
EOF
  in_root sh "$work_in/mk-mlca.sh" >"$work/mk-mlca.log" 2>&1
  nginx_conf "$work/mlsigned.conf" "$(free_port)" "never" mlsigned
  in_root nginx -t -c "$work_in/mlsigned.conf" >"$work/nginx-t2.log" 2>&1
  [ $? -ne 0 ] && grep -q 'ca md too weak' "$work/nginx-t2.log"
  check $? "libssl 3.0: nginx refuses an ML-DSA certificate from an ML-DSA CA (\"ca md too weak\")" "$work/nginx-t2.log"
  in_root python3 -c "import ssl; ssl.create_default_context().load_cert_chain('$work_in/mlsigned-chain.pem', '$work_in/mlsigned.key')" \
    >"$work/py-t.log" 2>&1
  [ $? -ne 0 ] && grep -q 'CA_MD_TOO_WEAK' "$work/py-t.log"
  check $? "libssl 3.0: Python's load_cert_chain refuses it (CA_MD_TOO_WEAK)" "$work/py-t.log"
}

t0=$SECONDS
case "$case" in
  nginx-chain) case_nginx_chain ;;
  nginx-dual) case_nginx_dual ;;
  haproxy-async) case_haproxy_async ;;
  python) case_python ;;
  fleet) case_fleet ;;
  classic) case_classic ;;
  *) echo "servers.sh: unknown case $case"; exit 2 ;;
esac
echo "$case: $passed checks passed, $failed failed ($((SECONDS - t0)) s)"
[ "$failed" -eq 0 ]
