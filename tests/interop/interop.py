#!/usr/bin/env python3
"""interop.py - ML-DSA interop between mldsa-accel and OpenSSL 3.5's own ML-DSA.

Three "sides" run the openssl command line:
  openssl35         OpenSSL 3.5+ ($OPENSSL35) with its default provider only
  mldsa-accel@3.0   the system openssl (3.0) with this provider (the only ML-DSA there)
  mldsa-accel@3.5   OpenSSL 3.5 with this provider and the default one, the
                    default property query "?provider=mldsa-accel" picking ours
Each area checks both directions between openssl35 and each of our sides.

Usage: interop.py --provider MODULE.so --probe PROBE [--openssl30 PATH|none] [--newer-env VAR] AREA
AREA: capabilities30 async30 capabilities keys sign x509 cms tls speed speed_async speed_sim libcrypto
(speed_sim: openssl speed -async_jobs 64 through the provider's simulated GPU;
libcrypto: the newer openssl with the module loaded maps exactly one libcrypto).
Every area but capabilities30 and async30 needs OPENSSL35 (a 3.5+ openssl binary); without
it the script prints "skipped: OPENSSL35 not set" and exits 77. --newer-env names
another variable for that binary (OPENSSL36, OPENSSL40: the same checks on 3.6 or 4.0);
--openssl30 none leaves out the mldsa-accel@3.0 side (a module built against
OpenSSL 4.0 does not load into 3.0).
"""
import argparse
import base64
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import Checks  # noqa: E402


SKIP = 77
VARIANTS = ["ML-DSA-44", "ML-DSA-65", "ML-DSA-87"]
# FIPS 204 sizes: public key, expanded private key, signature.
SIZES = {"ML-DSA-44": (1312, 2560, 2420), "ML-DSA-65": (1952, 4032, 3309), "ML-DSA-87": (2592, 4896, 4627)}
TLS_NAMES = {"ML-DSA-44": ("mldsa44", 0x0904, 128), "ML-DSA-65": ("mldsa65", 0x0905, 192),
             "ML-DSA-87": ("mldsa87", 0x0906, 256)}
FORMATS = ["seed-priv", "priv-only", "oqskeypair", "seed-only", "bare-priv", "bare-seed"]
OURS = "mldsa-accel"
PROPQ = "?provider=mldsa-accel"
TIMEOUT = 120  # seconds for any one openssl command


class Side:
    """One openssl command line and the configuration it runs with."""

    def __init__(self, label, exe, work, module=None, with_default_mldsa=True, propq=None):
        self.label, self.exe, self.work = label, exe, work
        self.module, self.propq = module, propq
        self.with_default_mldsa = with_default_mldsa
        self._confs = {}

    def conf(self, output_format=None):
        """Writes (once) an openssl.cnf for this side and PKCS#8 output format."""
        key = output_format or "default"
        if key in self._confs:
            return self._confs[key]
        fmt = f"ml-dsa.output_formats = {output_format}\n" if output_format else ""
        text = "openssl_conf = init\n[init]\nproviders = provs\n"
        if self.propq:
            text += "alg_section = algs\n"
        text += "[provs]\ndefault = default_sect\n"
        if self.module:
            text += f"{OURS} = ours_sect\n"
        text += "[default_sect]\nactivate = 1\n"
        if self.with_default_mldsa:
            text += fmt
        if self.module:
            text += f"[ours_sect]\nmodule = {self.module}\nactivate = 1\n{fmt}"
        if self.propq:
            text += f"[algs]\ndefault_properties = {self.propq}\n"
        # req needs a distinguished_name section even when -subj gives the name.
        text += "[req]\ndistinguished_name = dn\n[dn]\n"
        path = os.path.join(self.work, f"{re.sub(r'[^A-Za-z0-9]+', '_', self.label)}-{key}.cnf")
        with open(path, "w") as f:
            f.write(text)
        self._confs[key] = path
        return path

    def run(self, args, output_format=None, input=None, timeout=TIMEOUT):
        env = dict(os.environ, OPENSSL_CONF=self.conf(output_format))
        if self.module:
            env["OPENSSL_MODULES"] = os.path.dirname(self.module)
        try:
            return subprocess.run([self.exe] + args, input=input, capture_output=True, env=env,
                                  timeout=timeout, cwd=self.work)
        except subprocess.TimeoutExpired as e:
            return subprocess.CompletedProcess(e.cmd, 124, e.stdout or b"", (e.stderr or b"") + b"\n(timed out)")


def describe(proc):
    cmd = " ".join(str(a) for a in proc.args)
    err = (proc.stderr or b"").decode(errors="replace").strip()
    return f"$ {cmd}\n  rc={proc.returncode}\n{err[-2000:]}"


def ran(checks, proc, what):
    return checks.check(proc.returncode == 0, what, describe(proc))


# --- PKCS#8 layout ---------------------------------------------------------

def der_tlv(data, pos):
    """(tag, content start, content end) of the DER element at pos."""
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        n = length & 0x7F
        length = int.from_bytes(data[pos:pos + n], "big")
        pos += n
    return tag, pos, pos + length


def pem_to_der(path):
    lines = open(path).read().split("\n")
    body = [l for l in lines if l and not l.startswith("-----")]
    return base64.b64decode("".join(body))


def private_key_octets(der):
    """The privateKey OCTET STRING content of a PrivateKeyInfo."""
    _, pos, _ = der_tlv(der, 0)        # PrivateKeyInfo SEQUENCE
    _, _, pos = der_tlv(der, pos)      # version
    _, _, pos = der_tlv(der, pos)      # AlgorithmIdentifier
    tag, start, end = der_tlv(der, pos)
    return der[start:end] if tag == 0x04 else b""


def pkcs8_format(variant, payload):
    """Names the layout (see encoders/pkcs8_formats.h) by length and prefix."""
    pk, sk, _ = SIZES[variant]
    n = len(payload)
    if n == 4 + 2 + 32 + 4 + sk and payload[:2] == b"\x30\x82":
        return "seed-priv"
    if n == 4 + sk and payload[:2] == b"\x04\x82":
        return "priv-only"
    if n == 4 + sk + pk and payload[:2] == b"\x04\x82":
        return "oqskeypair"
    if n == 34 and payload[:2] == b"\x80\x20":
        return "seed-only"
    if n == sk:
        return "bare-priv"
    if n == 32:
        return "bare-seed"
    return f"unknown ({n} bytes)"


# --- areas -----------------------------------------------------------------

def area_keys(checks, s35, ours_sides, work):
    """Keys written by one side in each PKCS#8 format load on the other with the same public key."""
    for variant in VARIANTS:
        for fmt in FORMATS:
            for ours in ours_sides:
                for a, b in ((s35, ours), (ours, s35)):
                    what = f"{variant} {fmt}: {a.label} -> {b.label}"
                    key = os.path.join(work, "key.pem")
                    key2 = os.path.join(work, "key2.pem")
                    if not ran(checks, a.run(["genpkey", "-algorithm", variant, "-out", key], fmt), f"{what}: genpkey"):
                        continue
                    got = pkcs8_format(variant, private_key_octets(pem_to_der(key)))
                    checks.check(got == fmt, f"{what}: {a.label} wrote {fmt}", f"found {got}")
                    pa = a.run(["pkey", "-in", key, "-pubout", "-outform", "DER"])
                    pb = b.run(["pkey", "-in", key, "-pubout", "-outform", "DER"])
                    if ran(checks, pb, f"{what}: {b.label} loads it"):
                        checks.check(pa.returncode == 0 and pa.stdout == pb.stdout
                                     and len(pb.stdout) > SIZES[variant][0],
                                     f"{what}: same public key on both sides")
                    # b writes the key back in the same format, a reads it.
                    pw = b.run(["pkey", "-in", key, "-out", key2], fmt)
                    if not ran(checks, pw, f"{what}: {b.label} writes it back as {fmt}"):
                        continue
                    got = pkcs8_format(variant, private_key_octets(pem_to_der(key2)))
                    checks.check(got == fmt, f"{what}: {b.label} wrote {fmt}", f"found {got}")
                    pa2 = a.run(["pkey", "-in", key2, "-pubout", "-outform", "DER"])
                    checks.check(pa2.returncode == 0 and pa2.stdout == pa.stdout,
                                 f"{what}: {a.label} loads it back, same public key", describe(pa2))


def sign_args(key, msg, sig, context=None, deterministic=False):
    args = ["pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", msg, "-out", sig]
    if context is not None:
        args += ["-pkeyopt", f"context-string:{context}"]
    if deterministic:
        args += ["-pkeyopt", "deterministic:1"]
    return args


def verify_args(pub, msg, sig, context=None):
    args = ["pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", pub, "-in", msg, "-sigfile", sig]
    if context is not None:
        args += ["-pkeyopt", f"context-string:{context}"]
    return args


def verified(proc):
    return proc.returncode == 0 and b"Signature Verified Successfully" in proc.stdout


def area_sign(checks, s35, ours_sides, work):
    """Signatures made by one side verify on the other; deterministic ones are equal byte for byte."""
    msg = os.path.join(work, "msg.bin")
    with open(msg, "wb") as f:
        f.write(os.urandom(1000))
    ctx = "interop-context"
    for variant in VARIANTS:
        key, pub = os.path.join(work, "sk.pem"), os.path.join(work, "pk.pem")
        if not ran(checks, s35.run(["genpkey", "-algorithm", variant, "-out", key]), f"{variant}: genpkey"):
            continue
        ran(checks, s35.run(["pkey", "-in", key, "-pubout", "-out", pub]), f"{variant}: public key")
        for ours in ours_sides:
            for a, b in ((s35, ours), (ours, s35)):
                what = f"{variant}: {a.label} signs, {b.label} verifies"
                sig = os.path.join(work, "sig.bin")
                for context in (None, ctx):
                    label = "with context" if context else "empty context"
                    if not ran(checks, a.run(sign_args(key, msg, sig, context)), f"{what}: sign ({label})"):
                        continue
                    checks.check(os.path.getsize(sig) == SIZES[variant][2], f"{what}: signature size ({label})")
                    v = b.run(verify_args(pub, msg, sig, context))
                    checks.check(verified(v), f"{what}: verifies ({label})", describe(v))
                # The verifier must look at the context: another one fails.
                a.run(sign_args(key, msg, sig, ctx))
                v = b.run(verify_args(pub, msg, sig, ctx + "x"))
                checks.check(v.returncode != 0 and not verified(v), f"{what}: wrong context rejected", describe(v))
            sa, sb = os.path.join(work, "det_a.bin"), os.path.join(work, "det_b.bin")
            pa = s35.run(sign_args(key, msg, sa, ctx, deterministic=True))
            pb = ours.run(sign_args(key, msg, sb, ctx, deterministic=True))
            if ran(checks, pa, f"{variant}: {s35.label} deterministic sign") and \
               ran(checks, pb, f"{variant}: {ours.label} deterministic sign"):
                checks.check(open(sa, "rb").read() == open(sb, "rb").read(),
                             f"{variant}: deterministic signatures of {s35.label} and {ours.label} equal byte for byte")


def make_chain(checks, side, variant, work, tag):
    """Root CA and a leaf it issued, both `variant`, made by `side`. Returns paths or None."""
    p = lambda name: os.path.join(work, f"{tag}-{name}")
    ok = ran(checks, side.run(["genpkey", "-algorithm", variant, "-out", p("root.key")]), f"{tag}: root key")
    ok = ok and ran(checks, side.run(["req", "-x509", "-new", "-key", p("root.key"), "-subj", "/CN=interop root",
                                      "-days", "30", "-out", p("root.pem"),
                                      "-addext", "basicConstraints=critical,CA:TRUE",
                                      "-addext", "keyUsage=critical,keyCertSign,cRLSign"]), f"{tag}: root cert")
    ok = ok and ran(checks, side.run(["genpkey", "-algorithm", variant, "-out", p("leaf.key")]), f"{tag}: leaf key")
    ok = ok and ran(checks, side.run(["req", "-new", "-key", p("leaf.key"), "-subj", "/CN=localhost",
                                      "-out", p("leaf.csr")]), f"{tag}: leaf request")
    with open(p("leaf.ext"), "w") as f:
        f.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                "subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    ok = ok and ran(checks, side.run(["x509", "-req", "-in", p("leaf.csr"), "-CA", p("root.pem"), "-CAkey",
                                      p("root.key"), "-set_serial", "2", "-days", "30", "-extfile", p("leaf.ext"),
                                      "-out", p("leaf.pem")]), f"{tag}: leaf cert")
    return (p("root.pem"), p("root.key"), p("leaf.pem"), p("leaf.key")) if ok else None


def chain_verifies(side, root, leaf):
    v = side.run(["verify", "-check_ss_sig", "-CAfile", root, leaf])
    return v.returncode == 0 and v.stdout.strip().endswith(b": OK"), v


def area_x509(checks, s35, ours_sides, work):
    """A root -> leaf chain issued by one side verifies on the other."""
    for variant in VARIANTS:
        for ours in ours_sides:
            for a, b in ((s35, ours), (ours, s35)):
                what = f"{variant}: chain by {a.label}, verified by {b.label}"
                chain = make_chain(checks, a, variant, work, "x509")
                other = make_chain(checks, a, variant, work, "other")
                if not chain or not other:
                    continue
                ok, v = chain_verifies(b, chain[0], chain[2])
                checks.check(ok, what, describe(v))
                # Same root name, other key: only the signature check tells them apart.
                ok, v = chain_verifies(b, other[0], chain[2])
                checks.check(not ok, f"{what}: leaf under a different root of the same name rejected", describe(v))


def area_cms(checks, s35, ours_sides, work):
    """CMS SignedData made on one side verifies on the other."""
    msg = os.path.join(work, "cms-msg.txt")
    with open(msg, "wb") as f:
        f.write(b"CMS interop message\n" + os.urandom(64).hex().encode())
    for variant in VARIANTS:
        for ours in ours_sides:
            for a, b in ((s35, ours), (ours, s35)):
                what = f"{variant}: CMS signed by {a.label}, verified by {b.label}"
                chain = make_chain(checks, a, variant, work, "cms")
                if not chain:
                    continue
                root, _, leaf, leaf_key = chain
                signed = os.path.join(work, "msg.cms")
                out = os.path.join(work, "cms-out.txt")
                # RFC 9882: SHA-512 for the signed attributes (3.5.9 has no default digest for ML-DSA).
                s = a.run(["cms", "-sign", "-binary", "-md", "sha512", "-in", msg, "-signer", leaf, "-inkey", leaf_key,
                           "-outform", "DER", "-out", signed])
                if not ran(checks, s, f"{what}: sign"):
                    continue
                v = b.run(["cms", "-verify", "-binary", "-inform", "DER", "-in", signed, "-content", msg,
                           "-CAfile", root, "-out", out])
                checks.check(v.returncode == 0 and b"Verification successful" in v.stderr
                             and open(out, "rb").read() == open(msg, "rb").read(), what, describe(v))
                with open(os.path.join(work, "cms-tampered.txt"), "wb") as f:
                    f.write(open(msg, "rb").read() + b"!")
                v = b.run(["cms", "-verify", "-binary", "-inform", "DER", "-in", signed, "-content",
                           os.path.join(work, "cms-tampered.txt"), "-CAfile", root, "-out", out])
                checks.check(v.returncode != 0, f"{what}: changed content rejected", describe(v))


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def provider_flags(module):
    return ["-provider-path", os.path.dirname(module), "-provider", OURS, "-provider", "default",
            "-propquery", PROPQ]


def server_conf(work):
    """Config for s_server: the default provider may read only bare-seed ML-DSA
    keys, so the server's seed-priv key loads through our provider alone (and
    so our provider signs the handshake)."""
    conf = os.path.join(work, "tls-server.cnf")
    with open(conf, "w") as f:
        f.write("openssl_conf = init\n[init]\nproviders = provs\n[provs]\ndefault = dflt\n"
                "[dflt]\nactivate = 1\nml-dsa.input_formats = bare-seed\n")
    return conf


def run_tls_case(checks, o35, module, work, chain, client_ours, variant):
    name, code, _ = TLS_NAMES[variant]
    root, _, leaf, leaf_key = chain
    port = free_port()
    server_cmd = [o35, "s_server"] + provider_flags(module) + [
        "-accept", f"127.0.0.1:{port}", "-cert", leaf, "-key", leaf_key, "-tls1_3", "-naccept", "1", "-www"]
    server = subprocess.Popen(server_cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=dict(os.environ, OPENSSL_CONF=server_conf(work)))
    who = "our provider" if client_ours else "the default provider"
    what = f"{variant}: TLS 1.3, server on mldsa-accel, client on {who}"
    try:
        # s_server prints ACCEPT once it listens; give up after 30 s.
        timer = threading.Timer(30, server.kill)
        timer.start()
        line = b""
        while True:
            line = server.stdout.readline()
            if not line or line.startswith(b"ACCEPT"):
                break
        timer.cancel()
        if not checks.check(line.startswith(b"ACCEPT"), f"{what}: s_server listens",
                            f"$ {' '.join(server_cmd)}\n{line.decode(errors='replace')}"):
            return
        # -ign_eof: send the request, then read until the server closes.
        client_cmd = [o35, "s_client"] + (provider_flags(module) if client_ours else []) + [
            "-connect", f"127.0.0.1:{port}", "-servername", "localhost", "-tls1_3", "-CAfile", root,
            "-verify_return_error", "-verify_hostname", "localhost", "-sigalgs", name, "-ign_eof"]
        try:
            c = subprocess.run(client_cmd, input=b"GET / HTTP/1.0\r\n\r\n", capture_output=True, timeout=30)
            out = c.stdout.decode(errors="replace") + c.stderr.decode(errors="replace")
            rc = c.returncode
        except subprocess.TimeoutExpired:
            out, rc = "(s_client timed out)", 124
        detail = f"$ {' '.join(client_cmd)}\n  rc={rc}\n{out[-3000:]}"
        checks.check(rc == 0 and "Verify return code: 0 (ok)" in out and "New, TLSv1.3, Cipher is" in out,
                     f"{what}: TLS 1.3 handshake, server chain verified", detail)
        m = re.search(r"Peer signature type: (\S+)", out)
        checks.check(m is not None and m.group(1) == name,
                     f"{what}: negotiated signature scheme {name} (0x{code:04x})",
                     f"found {m.group(1) if m else 'none'}\n{detail}")
        checks.check("HTTP/1.0 200 ok" in out, f"{what}: application data exchanged", detail)
    finally:
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def area_tls(checks, s35, o35, module, work):
    """s_server with an ML-DSA certificate on our provider; s_client on the default provider and on ours."""
    for variant in ["ML-DSA-65"] + [v for v in VARIANTS if v != "ML-DSA-65"]:
        # Certificates from the 3.5 side; genpkey writes seed-priv keys.
        chain = make_chain(checks, s35, variant, work, f"tls{variant[-2:]}")
        if not chain:
            continue
        # Control: without our provider, the server's config cannot load the key.
        ctl = subprocess.run([o35, "pkey", "-in", chain[3], "-noout"], capture_output=True, timeout=TIMEOUT,
                             env=dict(os.environ, OPENSSL_CONF=server_conf(work)))
        checks.check(ctl.returncode != 0, f"{variant}: the server's key loads only through mldsa-accel",
                     describe(ctl))
        for client_ours in (False, True):
            run_tls_case(checks, o35, module, work, chain, client_ours, variant)


def speed_rates(text, variant):
    """(keygens/s, sign/s, verify/s) from openssl speed's table row, or None."""
    m = re.search(rf"^\s*{re.escape(variant)}\s+\S+s\s+\S+s\s+\S+s\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$",
                  text, re.M)
    return tuple(float(x) for x in m.groups()) if m else None


def area_speed(checks, o35, module, work, extra, env=None):
    """openssl speed on 3.5 with our provider (extra: e.g. -async_jobs 4; env: more environment).
    Returns the combined output of each run."""
    outputs = []
    for variant in VARIANTS:
        cmd = [o35, "speed"] + provider_flags(module) + ["-seconds", "1"] + extra + [variant]
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=60, cwd=work, env=dict(os.environ, **(env or {})))
            out, rc = p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace"), p.returncode
        except subprocess.TimeoutExpired:
            out, rc = "(timed out)", 124
        rates = speed_rates(out, variant)
        what = f"speed {' '.join(extra)} {variant}".replace("  ", " ")
        checks.check(rc == 0 and rates is not None and all(r > 0 for r in rates), f"{what}: rates printed",
                     f"$ {' '.join(cmd)}\n  rc={rc}\n{out[-2000:]}")
        if rates:  # openssl speed's own table: header and row
            print("\n".join("  " + l for l in out.splitlines() if "keygens/s" in l or l.strip().startswith(variant)))
        outputs.append((variant, out))
    return outputs


def area_speed_sim(checks, o35, module, work):
    """openssl speed -async_jobs 64 with the provider's GPU path on two simulated devices
    (router, batch queue, GPU executor, engine): its signatures verify (speed checks them),
    and the provider's report at unload shows the work went through the batch queue."""
    env = {"MLDSA_ACCEL_SIM_DEVICES": "2", "MLDSA_ACCEL_GPU_POLICY": "always", "MLDSA_ACCEL_GPU_MAX_BATCH": "64",
           "MLDSA_ACCEL_REPORT": "1"}
    for variant, out in area_speed(checks, o35, module, work, ["-async_jobs", "64"], env):
        m = re.search(r"mldsa-accel: (\d+) requests on the CPU, (\d+) through the batch queue \((\d+) batches.*?"
                      r"(\d+) failed, (\d+) requests recomputed", out)
        checks.check(m is not None and int(m.group(2)) > 0 and int(m.group(4)) == 0,
                     f"speed -async_jobs 64 {variant}: work went through the simulated GPU, no batch failed",
                     out[-1500:])
        if m:
            print(f"  {m.group(0)}")


# --- provider_probe --------------------------------------------------------

def runner_for(openssl_exe):
    """How to run a program on the libraries `openssl_exe` uses: a command prefix, or None."""
    # A wrapper written by scripts/fetch-openssl35.sh: DIR/bin/openssl35 and DIR/root.
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(openssl_exe))), "root")
    for loader in ("usr/lib64/ld-linux-x86-64.so.2", "lib64/ld-linux-x86-64.so.2"):
        if os.path.exists(os.path.join(root, loader)):
            libs = ":".join(os.path.join(root, d) for d in ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu"))
            return [os.path.join(root, loader), "--library-path", libs]
    # A real binary: run on the library directory its libcrypto comes from.
    try:
        ldd = subprocess.run(["ldd", openssl_exe], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"libcrypto\.so\.3 => (\S+)", ldd)
    return ["env", f"LD_LIBRARY_PATH={os.path.dirname(m.group(1))}"] if m else None


def probe(checks, prefix, probe_exe, module, providers, propq, what):
    cmd = prefix + [probe_exe, "--modules", os.path.dirname(module)] + (["--propq", propq] if propq else []) + providers
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    checks.check(p.returncode == 0, f"{what}: probe runs", f"$ {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    print("  " + p.stdout.strip().replace("\n", "\n  "))
    return p.stdout.splitlines()


def check_our_capabilities(checks, lines, what):
    ours = [l.split()[2:] for l in lines if l.startswith(f"sigalg {OURS} ")]
    want = [[TLS_NAMES[v][0], v, oid, f"0x{TLS_NAMES[v][1]:04x}", str(TLS_NAMES[v][2]), "772", "0"]
            for v, oid in zip(VARIANTS, ["2.16.840.1.101.3.4.3.17", "2.16.840.1.101.3.4.3.18",
                                         "2.16.840.1.101.3.4.3.19"])]
    checks.check(ours == want, f"{what}: TLS-SIGALG offers mldsa44/65/87 (0x0904-0x0906, TLS 1.3 and up)",
                 f"got {ours}")
    checks.check(f"capability {OURS} TLS-SIGALG rc=1" in lines, f"{what}: TLS-SIGALG returns 1")
    checks.check(f"capability {OURS} TLS-GROUP rc=1" in lines, f"{what}: other capabilities return 1 (no groups)")
    checks.check("ssl_ctx ok" in lines, f"{what}: SSL_CTX_new works with the provider loaded")


def area_capabilities30(checks, probe_exe, module):
    lines = probe(checks, [], probe_exe, module, [OURS, "default"], None, "OpenSSL 3.0")
    check_our_capabilities(checks, lines, "OpenSSL 3.0")
    for v in VARIANTS:
        checks.check(f"fetch KEYMGMT {v} {OURS}" in lines and f"fetch SIGNATURE {v} {OURS}" in lines,
                     f"OpenSSL 3.0: {v} keymgmt and signature come from {OURS}")


def area_async30(checks, probe_exe, module):
    """Keygen, sign and verify inside an ASYNC job on OpenSSL 3.0: OpenSSL runs
    jobs on 32 KiB fibre stacks (openssl speed -async_jobs, async TLS servers),
    so the provider must fit in them."""
    cmd = [probe_exe, "--modules", os.path.dirname(module), "--async", OURS, "default"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        out, rc = "(timed out)", 124
    detail = f"$ {' '.join(cmd)}\n  rc={rc}\n{out[-2000:]}"
    checks.check(rc == 0, "OpenSSL 3.0: provider_probe --async exits cleanly", detail)
    for v in VARIANTS:
        checks.check(f"async {v} ok" in out, f"OpenSSL 3.0: {v} keygen, sign, verify inside an ASYNC job", detail)


def area_capabilities(checks, o35, probe_exe, module):
    prefix = runner_for(o35)
    if prefix is None:
        print(f"skipped: cannot find the libraries of {o35} to run provider_probe on")
        return SKIP
    # Default loaded first: without a query the first-loaded provider tends to
    # answer (OpenSSL leaves it undefined), so the query, not the order, must pick ours.
    control = probe(checks, prefix, probe_exe, module, ["default", OURS], None, "OpenSSL 3.5, no query")
    answered = sorted({l.split()[3] for l in control if l.startswith("fetch ")})
    print(f"  without a property query ML-DSA was fetched from: {', '.join(answered)}")
    lines = probe(checks, prefix, probe_exe, module, ["default", OURS], PROPQ, "OpenSSL 3.5 with " + PROPQ)
    checks.check(any(l.startswith("version OpenSSL 3.") and not l.startswith("version OpenSSL 3.0")
                     for l in lines), "probe runs on the 3.5 libraries")
    check_our_capabilities(checks, lines, "OpenSSL 3.5")
    checks.check(any(l.startswith("sigalg default mldsa65 ") for l in lines),
                 "OpenSSL 3.5: the default provider offers mldsa65 too")
    for v in VARIANTS:
        checks.check(f"fetch KEYMGMT {v} {OURS}" in lines and f"fetch SIGNATURE {v} {OURS}" in lines,
                     f"OpenSSL 3.5: {PROPQ} picks {OURS} for {v} keymgmt and signature "
                     "(so libssl uses our TLS-SIGALG entry, not the default one)")
    # Control for async30: the ASYNC job harness with OpenSSL 3.5's own ML-DSA.
    p = subprocess.run(prefix + [probe_exe, "--async", "default"], capture_output=True, text=True, timeout=TIMEOUT)
    checks.check(p.returncode == 0 and all(f"async {v} ok" in p.stdout for v in VARIANTS),
                 "OpenSSL 3.5: its own ML-DSA keygen, sign, verify inside ASYNC jobs (control for async30)",
                 p.stdout + p.stderr)
    return None


def area_libcrypto(checks, o35, module, work, var):
    """The module, loaded into the newer openssl, makes that process map exactly
    one libcrypto: the module's NEEDED soname is the one the process already has."""
    rd = subprocess.run(["readelf", "-d", module], capture_output=True, text=True, timeout=TIMEOUT).stdout
    m = re.search(r"Shared library: \[(libcrypto\.so\.\d+)\]", rd)
    if not checks.check(m is not None, "the module links a libcrypto", rd[-1000:]):
        return None
    wanted = m.group(1)
    key = os.path.join(work, "key.pem")
    cmd = [o35, "genpkey"] + provider_flags(module) + ["-algorithm", "ML-DSA-65", "-out", key]
    p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT,
                       env=dict(os.environ, LD_DEBUG="files", OPENSSL_CONF=os.devnull))
    loaded = []
    for path in re.findall(r"file=(\S*libcrypto\.so\.\d+) \[\d+\];\s+generating link map",
                           p.stderr.decode(errors="replace")):
        if path not in loaded:
            loaded.append(path)
    own = os.path.basename(loaded[0]) if loaded else "?"
    if own != wanted:
        print(f"skipped: this module links {wanted} (built against OpenSSL {wanted[-1]}.x headers) while {var} "
              f"runs on {own}: loaded there it would map a second libcrypto ({', '.join(loaded)}). "
              f"A module for that OpenSSL is built against its headers (scripts/test.sh's openssl40 stage)")
        return SKIP
    checks.check(p.returncode == 0 and os.path.exists(key), f"{var}: genpkey ML-DSA-65 with mldsa-accel loaded",
                 describe(p))
    checks.check(len(loaded) == 1, f"{var}: the process maps exactly one libcrypto ({', '.join(loaded)})")
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--provider", required=True, help="path of mldsa-accel.so")
    ap.add_argument("--probe", help="path of provider_probe")
    ap.add_argument("--openssl30", default=shutil.which("openssl") or "openssl",
                    help="the system openssl (3.0), or none")
    ap.add_argument("--newer-env", default="OPENSSL35", help="variable naming the 3.5+ openssl (default OPENSSL35)")
    ap.add_argument("area", choices=["capabilities30", "async30", "capabilities", "keys", "sign", "x509", "cms", "tls",
                                     "speed", "speed_async", "speed_sim", "libcrypto"])
    args = ap.parse_args()
    module = os.path.realpath(args.provider)
    checks = Checks()

    if args.area == "capabilities30":
        area_capabilities30(checks, args.probe, module)
        return checks.finish()
    if args.area == "async30":
        area_async30(checks, args.probe, module)
        return checks.finish()

    var = args.newer_env
    o35 = os.environ.get(var)
    if not o35:
        print(f"skipped: {var} not set (scripts/fetch-openssl.sh prints a binary to use)")
        return SKIP
    v = subprocess.run([o35, "version"], capture_output=True, text=True, timeout=TIMEOUT).stdout
    m = re.match(r"OpenSSL (\d+)\.(\d+)\.", v)
    if not m or (int(m.group(1)), int(m.group(2))) < (3, 5):
        print(f"skipped: {var}={o35} is not OpenSSL 3.5 or later ({v.strip()})")
        return SKIP
    print(f"{var}: {v.strip()}")
    newer = f"{m.group(1)}.{m.group(2)}"

    with tempfile.TemporaryDirectory(prefix=f"interop-{args.area}-") as work:
        s35 = Side(f"openssl{newer}", o35, work)
        ours35 = Side(f"mldsa-accel@{newer}", o35, work, module=module, propq=PROPQ)
        ours_sides = [ours35]
        if args.openssl30 != "none":
            ours_sides.insert(0, Side("mldsa-accel@3.0", args.openssl30, work, module=module))
        if args.area == "libcrypto":
            if area_libcrypto(checks, o35, module, work, var) == SKIP:
                return SKIP
        elif args.area == "capabilities":
            if area_capabilities(checks, o35, args.probe, module) == SKIP:
                return SKIP
        elif args.area == "keys":
            area_keys(checks, s35, ours_sides, work)
        elif args.area == "sign":
            area_sign(checks, s35, ours_sides, work)
        elif args.area == "x509":
            area_x509(checks, s35, ours_sides, work)
        elif args.area == "cms":
            # OpenSSL 3.0's CMS hands the SignerInfo digest (SHA-512) to
            # EVP_DigestSignInit/VerifyInit for key types it does not know;
            # RFC 9882 wants pure ML-DSA over the signed attributes (3.5's CMS
            # special-cases ML-DSA), so our signature refuses the digest
            # ("unsupported digest for ML-DSA") instead of signing something else.
            if args.openssl30 != "none":
                print("skipped: CMS with mldsa-accel on OpenSSL 3.0 (3.0's CMS passes SHA-512 to the ML-DSA "
                      f"signature); CMS runs between {s35.label} and {ours35.label} only")
            area_cms(checks, s35, [ours35], work)
        elif args.area == "tls":
            area_tls(checks, s35, o35, module, work)
        elif args.area == "speed":
            area_speed(checks, o35, module, work, [])
        elif args.area == "speed_async":
            # ASYNC jobs run on OpenSSL's 32 KiB fibre stacks.
            area_speed(checks, o35, module, work, ["-async_jobs", "4"])
        elif args.area == "speed_sim":
            area_speed_sim(checks, o35, module, work)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
