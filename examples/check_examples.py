#!/usr/bin/env python3
"""check_examples.py - the configurations in examples/ work as shipped, with a real openssl.

Usage: check_examples.py --modules DIR (--openssl EXE | --openssl-env VAR) EXAMPLE
EXAMPLE: application, system-wide, tls-server

Each example file is used unchanged; OPENSSL_MODULES=DIR (the build's module
folder) stands in for OpenSSL's MODULESDIR, where an installed module sits.
  application  OPENSSL_CONF=application.cnf: the provider and default are
               active, keys, signatures, an X.509 v3 certificate (`req -x509`
               with the extensions of [v3_ca]), the [ml_dsa_sect] settings.
  system-wide  a copy of that openssl's own openssl.cnf (Debian 12's or 13's)
               with `.include system-wide.cnf` appended, as docs/USAGE.md says:
               the same, plus the pitfall (without `activate = 1` in
               [default_sect] randomness is gone); on 3.5 and later, the
               preference comes only with `.include prefer-mldsa-accel.cnf`.
  tls-server   OPENSSL_CONF=tls-server.cnf for s_server; s_client connects
               (ECDSA on 3.0, ML-DSA-65 TLS 1.3 on 3.5 and later).
On 3.5 and later (which have their own ML-DSA) every example that asks for it
must make this provider the one used: keys generated with
MLDSA_ACCEL_OUTPUT_FORMATS=priv-only (an environment setting only this provider
reads) come out without a seed, where the same configuration without its
alg_section line (system-wide: without prefer-mldsa-accel.cnf) gives OpenSSL's
own seed-priv key (the control). --openssl-env names a variable holding the binary; unset,
the check prints "skipped: ..." and exits 77.
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from checks import Checks  # noqa: E402


SKIP = 77
HERE = os.path.dirname(os.path.realpath(__file__))
TIMEOUT = 60


class OpenSSL:
    """One openssl binary run with a given configuration file."""

    def __init__(self, exe, modules, work):
        self.exe, self.modules, self.work = exe, modules, work
        out = subprocess.run([exe, "version"], capture_output=True, text=True, timeout=TIMEOUT).stdout
        m = re.match(r"OpenSSL (\d+)\.(\d+)", out)
        self.version = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        self.label = out.split()[1] if m else "?"

    def has_own_mldsa(self):
        return self.version >= (3, 5)

    def run(self, conf, args, env=None, input=None):
        e = dict(os.environ, OPENSSL_CONF=conf, OPENSSL_MODULES=self.modules)
        e.pop("MLDSA_ACCEL_OUTPUT_FORMATS", None)
        e.update(env or {})
        try:
            return subprocess.run([self.exe] + args, capture_output=True, env=e, input=input,
                                  timeout=TIMEOUT, cwd=self.work)
        except subprocess.TimeoutExpired as x:
            return subprocess.CompletedProcess(x.cmd, 124, b"", b"(timed out)")

    def system_cnf(self):
        """The openssl.cnf this binary reads by default."""
        # A wrapper from scripts/fetch-openssl.sh: DIR/bin/opensslNN and DIR/root.
        root = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(self.exe))), "root")
        if os.path.exists(os.path.join(root, "etc/ssl/openssl.cnf")):
            return os.path.join(root, "etc/ssl/openssl.cnf")
        out = subprocess.run([self.exe, "version", "-d"], capture_output=True, text=True).stdout
        m = re.search(r'OPENSSLDIR: "([^"]+)"', out)
        return os.path.join(m.group(1), "openssl.cnf") if m else None


def describe(p):
    return f"$ {' '.join(map(str, p.args))}\n  rc={p.returncode}\n" + \
        (p.stdout or b"").decode(errors="replace")[-1500:] + (p.stderr or b"").decode(errors="replace")[-1500:]


def without_lines(src, pattern, dst):
    """Copy of src with the lines matching pattern removed (a control config)."""
    with open(src) as f:
        lines = f.readlines()
    kept = [l for l in lines if not re.match(pattern, l)]
    assert len(kept) < len(lines), f"{pattern} not in {src}"
    with open(dst, "w") as f:
        f.writelines(kept)
    return dst


def providers_active(checks, o, conf, what):
    p = o.run(conf, ["list", "-providers"])
    out = p.stdout.decode(errors="replace")
    blocks = {m.group(1): m.group(2) for m in re.finditer(r"^  (\S+)\n((?:    .*\n)*)", out, re.M)}
    checks.check(p.returncode == 0 and "status: active" in blocks.get("mldsa-accel", ""),
                 f"{what}: mldsa-accel is active", describe(p))
    checks.check("status: active" in blocks.get("default", ""), f"{what}: default is active", describe(p))
    r = o.run(conf, ["rand", "-hex", "16"])
    checks.check(r.returncode == 0, f"{what}: randomness works (the default provider is on)", describe(r))


def sign_verify(checks, o, conf, what, with_cert=True):
    key, msg, sig = (os.path.join(o.work, n) for n in ("key.pem", "msg.txt", "msg.sig"))
    with open(msg, "w") as f:
        f.write("example message\n")
    ok = checks.check(o.run(conf, ["genpkey", "-algorithm", "ML-DSA-65", "-out", key]).returncode == 0,
                      f"{what}: genpkey ML-DSA-65")
    s = o.run(conf, ["pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", msg, "-out", sig])
    v = o.run(conf, ["pkeyutl", "-verify", "-rawin", "-inkey", key, "-in", msg, "-sigfile", sig])
    checks.check(ok and s.returncode == 0 and v.returncode == 0 and b"Signature Verified Successfully" in v.stdout,
                 f"{what}: pkeyutl sign and verify", describe(s) + "\n" + describe(v))
    if with_cert:
        cert = os.path.join(o.work, "cert.pem")
        c = o.run(conf, ["req", "-x509", "-new", "-key", key, "-subj", "/CN=example", "-days", "2", "-out", cert])
        vc = o.run(conf, ["verify", "-CAfile", cert, cert])
        checks.check(c.returncode == 0 and vc.returncode == 0, f"{what}: self-signed certificate made and verified",
                     describe(c) + "\n" + describe(vc))
        # `req -x509` takes its extensions from [req] x509_extensions: without
        # them the certificate is X.509 v1, which no CA should issue.
        t = o.run(conf, ["x509", "-in", cert, "-noout", "-text"])
        text = t.stdout.decode(errors="replace")
        # (No authority key identifier required: RFC 5280 lets a self-signed
        # certificate omit it, and OpenSSL 4.0's own openssl.cnf does.)
        checks.check(t.returncode == 0 and "Version: 3 (0x2)" in text and "X509v3 Subject Key Identifier" in text
                     and "CA:TRUE" in text,
                     f"{what}: the certificate is X.509 v3 with a subject key identifier and CA:TRUE", describe(t))


def has_seed(o, conf, env=None):
    """Generates an ML-DSA-44 key and says whether its text shows a seed (None: failed)."""
    g = o.run(conf, ["genpkey", "-algorithm", "ML-DSA-44"], env=env)
    if g.returncode != 0:
        return None
    t = o.run(conf, ["pkey", "-noout", "-text"], input=g.stdout)
    return None if t.returncode != 0 else bool(re.search(rb"^seed:", t.stdout, re.M))


def preferred(checks, o, conf, control_conf, what):
    """On 3.5+, this provider (not OpenSSL's own ML-DSA) generates and encodes keys."""
    if not o.has_own_mldsa():
        return
    env = {"MLDSA_ACCEL_OUTPUT_FORMATS": "priv-only"}
    ours = has_seed(o, conf, env)
    control = has_seed(o, control_conf, env)
    checks.check(ours is False, f"{what}: mldsa-accel is preferred over OpenSSL {o.label}'s ML-DSA "
                 "(a priv-only key, as MLDSA_ACCEL_OUTPUT_FORMATS asks)", f"seed in key: {ours}")
    checks.check(control is True, f"{what}: control: without the alg_section line (or prefer-mldsa-accel.cnf) "
                 "OpenSSL's own ML-DSA answers (a seed-priv key)", f"seed in key: {control}")


def check_application(checks, o):
    conf = os.path.join(HERE, "application.cnf")
    what = f"application.cnf on {o.label}"
    providers_active(checks, o, conf, what)
    sign_verify(checks, o, conf, what)
    key = os.path.join(o.work, "key.pem")
    t = o.run(conf, ["pkey", "-in", key, "-noout", "-text"])
    checks.check(re.search(rb"^seed:", t.stdout, re.M) is not None, f"{what}: retain_seed = yes keeps the seed",
                 describe(t))
    noseed = os.path.join(o.work, "noseed.cnf")
    with open(conf) as f:
        text = f.read()
    with open(noseed, "w") as f:
        f.write(text.replace("\nretain_seed = yes\n", "\nretain_seed = no\n"))
    t = o.run(noseed, ["pkey", "-in", key, "-noout", "-text"])
    checks.check(t.returncode == 0 and re.search(rb"^seed:", t.stdout, re.M) is None,
                 f"{what}: [ml_dsa_sect] is read (retain_seed = no drops the seed)", describe(t))
    preferred(checks, o, conf, without_lines(conf, r"alg_section", os.path.join(o.work, "noalg.cnf")), what)


def check_system_wide(checks, o):
    snippet = os.path.join(HERE, "system-wide.cnf")
    system = o.system_cnf()
    if not system or not os.path.exists(system):
        print(f"skipped: cannot find the openssl.cnf of {o.exe}")
        return SKIP
    with open(system) as f:
        base = f.read()

    def merged(name, *snippets):
        path = os.path.join(o.work, name)
        with open(path, "w") as f:
            f.write(base.rstrip("\n") + "".join(f"\n.include {s}" for s in snippets) + "\n")
        return path

    what = f"{system} + .include system-wide.cnf on {o.label}"
    conf = merged("system.cnf", snippet)
    prefer = os.path.join(HERE, "prefer-mldsa-accel.cnf")
    # Control: the system file alone does not load the provider.
    p = o.run(system, ["list", "-providers"])
    checks.check(p.returncode == 0 and b"mldsa-accel" not in p.stdout, f"control: {system} alone lists no mldsa-accel",
                 describe(p))
    providers_active(checks, o, conf, what)
    sign_verify(checks, o, conf, what)
    d = o.run(conf, ["dgst", "-sha256"], input=b"abc")
    checks.check(d.returncode == 0, f"{what}: SHA-256 from the default provider", describe(d))
    # The pitfall docs/USAGE.md warns of: without `activate = 1` the default provider is off.
    with open(snippet) as f:
        text = f.read()
    assert "\n[default_sect]\nactivate = 1\n" in text
    nodefault = os.path.join(o.work, "nodefault.cnf")
    with open(nodefault, "w") as f:
        f.write(text.replace("\n[default_sect]\nactivate = 1\n", "\n[default_sect]\n"))
    no_default = merged("system-nodefault.cnf", nodefault)
    p = o.run(no_default, ["list", "-providers"])
    checks.check(b"mldsa-accel" in p.stdout, f"{what}: control: without activate = 1 mldsa-accel still loads",
                 describe(p))
    r = o.run(no_default, ["rand", "-hex", "16"])
    checks.check(r.returncode != 0, f"{what}: control: without activate = 1 in [default_sect] randomness fails",
                 describe(r))
    # Preferring this provider over a built-in ML-DSA is a second, explicit
    # include; system-wide.cnf alone is the control.
    with open(snippet) as f:
        checks.check("alg_section" not in re.sub(r"#.*", "", f.read()),
                     "system-wide.cnf alone sets no alg_section (no preference by default)")
    with_prefer = merged("system-prefer.cnf", snippet, prefer)
    providers_active(checks, o, with_prefer, f"{what} + prefer-mldsa-accel.cnf")
    preferred(checks, o, with_prefer, conf, f"{what} + prefer-mldsa-accel.cnf")
    return None


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_tls_server(checks, o):
    conf = os.path.join(HERE, "tls-server.cnf")
    app = os.path.join(HERE, "application.cnf")  # has the [req] section for making the certificate
    what = f"tls-server.cnf on {o.label}"
    providers_active(checks, o, conf, what)
    key, cert = os.path.join(o.work, "server.key"), os.path.join(o.work, "server.pem")
    if o.has_own_mldsa():
        alg, sigalg = ["-algorithm", "ML-DSA-65"], "mldsa65"
    else:  # libssl 3.0 has no ML-DSA signature schemes: the config must leave ECDSA working
        alg, sigalg = ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], "ecdsa_secp256r1_sha256"
    g = o.run(conf, ["genpkey"] + alg + ["-out", key])
    c = o.run(app, ["req", "-x509", "-new", "-key", key, "-subj", "/CN=localhost", "-days", "2", "-out", cert])
    if not checks.check(g.returncode == 0 and c.returncode == 0, f"{what}: server key and certificate",
                        describe(g) + "\n" + describe(c)):
        return
    port = free_port()
    env = dict(os.environ, OPENSSL_CONF=conf, OPENSSL_MODULES=o.modules)
    server_cmd = [o.exe, "s_server", "-accept", f"127.0.0.1:{port}", "-cert", cert, "-key", key,
                  "-tls1_3", "-naccept", "1", "-www"]
    server = subprocess.Popen(server_cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=env, cwd=o.work)
    try:
        timer = threading.Timer(30, server.kill)
        timer.start()
        line = b""
        while True:
            line = server.stdout.readline()
            if not line or line.startswith(b"ACCEPT"):
                break
        timer.cancel()
        if not checks.check(line.startswith(b"ACCEPT"), f"{what}: s_server listens", line.decode(errors="replace")):
            return
        cl = o.run(app, ["s_client", "-connect", f"127.0.0.1:{port}", "-tls1_3", "-CAfile", cert,
                         "-verify_return_error", "-sigalgs", sigalg, "-ign_eof"], input=b"GET / HTTP/1.0\r\n\r\n")
        out = cl.stdout.decode(errors="replace")
        checks.check(cl.returncode == 0 and "Verify return code: 0 (ok)" in out and "HTTP/1.0 200 ok" in out,
                     f"{what}: s_client: TLS 1.3 handshake, certificate verified, page served", describe(cl))
        m = re.search(r"Peer signature type: (\S+)", out)
        want = "mldsa65" if o.has_own_mldsa() else "ECDSA"
        checks.check(m is not None and m.group(1) == want, f"{what}: server signed with {want}",
                     f"found {m.group(1) if m else 'none'}")
    finally:
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    preferred(checks, o, conf, without_lines(conf, r"alg_section", os.path.join(o.work, "noalg.cnf")), what)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--modules", required=True, help="folder holding mldsa-accel.so")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--openssl", help="the openssl binary")
    src.add_argument("--openssl-env", help="environment variable holding the openssl binary")
    ap.add_argument("example", choices=["application", "system-wide", "tls-server"])
    args = ap.parse_args()
    exe = args.openssl or os.environ.get(args.openssl_env, "")
    if not exe or not os.access(exe, os.X_OK):
        print(f"skipped: no openssl binary ({args.openssl_env or 'openssl'} unset or not executable)")
        return SKIP
    checks = Checks()
    with tempfile.TemporaryDirectory(prefix=f"examples-{args.example}-") as work:
        o = OpenSSL(exe, os.path.realpath(args.modules), work)
        print(f"openssl: {exe} ({o.label})")
        rc = {"application": check_application, "system-wide": check_system_wide,
              "tls-server": check_tls_server}[args.example](checks, o)
        if rc == SKIP:
            return SKIP
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
