#!/usr/bin/env python3
"""sass_count.py - dynamic warp-instruction counts of CUDA kernels from their
compiled SASS, without a GPU: the counting half of bench/gpu_model.py.

From a host object (or an executable / static library member) it takes the
sm_90 cubins out of the .nv_fatbin section, disassembles each with nvdisasm,
and for every kernel builds the control-flow graph of each function (the
kernel and the device functions it calls), its natural loops, and then the
instructions one warp issues in one call:

  - straight-line code is counted as compiled;
  - a loop's blocks are counted once per iteration, with the trip count
    solved from the SASS where the loop is counted: an induction register
    stepped by a constant (or shifted, for loops over powers of two),
    compared with a constant, a kernel parameter field or a value derived
    from them; the compare may sit anywhere on the path every iteration runs
    (the compiler hoists it), the counter may be rotated through a reused
    register (r = x + c; ...; x = r), start from a constant the control flow
    shows, or step on exclusive paths (a sponge's 8-byte and 1-byte steps:
    the larger, an estimate);
  - a loop whose trip the data decides (rejection sampling) takes it from
    the task code's annotation: `// model-trips: NAME` on the source loop,
    tied to the SASS loop through the cubin's line info (kernels are built
    with -lineinfo), the trip from gpu_model.py's LOOP_TRIPS (as a warp runs
    it: the most over its 32 lanes);
  - a loop neither solves nor names counts once per entry and is reported
    (--loops lists them all with their source line);
  - both sides of a branch are counted (a divergent warp runs both), except
    where the branch's condition is known for the parameter set and the warp
    (predicates computed from TaskParams fields, thread and lane indices and
    constants are evaluated for the 32 lanes of the warp: all agree, one
    side only), and except BRA.DIV's slow path (taken only by a warp that is
    not converged at a shuffle, which our kernels never are);
  - a call adds the callee's count; Keccak permutations (the keccak_f1600
    function, or a warp-wide round loop of shuffles) are left out and costed
    per permutation, for gpu_model.py to multiply by the algorithm's count.

CUDA 13 writes cubins that the newest nvdisasm this machine can get (Debian
12's CUDA 11.8, scripts/fetch-cuda-tools.sh) refuses by their header alone
(the new ELF OS/ABI and flags); the SASS encoding of sm_90 itself is the same.
So the header is rewritten to the old form before disassembly, and every
16-byte slot nvdisasm leaves out (instructions 11.8 does not know; in
practice VIADD, opcode 0x836/0xc36) is decoded here from its bits: each is
counted, and VIADD's destination, source and immediate are tracked like
IADD3's.

Exact for what it counts; what it does not model: per-lane divergence beyond
"both sides" (a data-dependent branch whose lanes all go one way is still
counted both ways), and memory or pipeline stalls (those are gpu_model.py's).
"""
import functools
import os
import re
import shutil
import struct
import subprocess
import tempfile

INSN = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^(\S+):\s*$")
TARGET = re.compile(r"`\(([^)]+)\)")
CBANK = re.compile(r"^c\[0x0\]\[(0x[0-9a-f]+)\]$")
SRCLINE = re.compile(r'^\s*//## File "([^"]+)", line (\d+)')
MARKER = re.compile(r"model-trips:\s*([A-Za-z0-9_]+)")
IMM = re.compile(r"^-?0x[0-9a-f]+$|^-?[0-9]+$")


# ---------------------------------------------------------------------------
# ELF and fatbin


def elf_sections(data):
    """{name: (offset, size)} of an ELF64 little-endian file."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not an ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    raw = []
    for i in range(shnum):
        name, _typ, _flags, _addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        raw.append((name, off, size))
    strtab = raw[shstrndx][1]
    out = {}
    for name, off, size in raw:
        end = data.index(b"\0", strtab + name)
        out[data[strtab + name:end].decode()] = (off, size)
    return out


def fatbin_cubins(obj_bytes):
    """The sm_90 ELF images in an object's .nv_fatbin section, as bytes.
    Fatbin layout (as nvcc writes it): a 16-byte header (magic 0xBA55ED50,
    version, header size, size), then entries: kind (1 PTX, 2 ELF), version,
    entry header size, payload size, ..., at 56 the uncompressed size; an
    ELF payload starts with \\x7fELF, or with zstd's magic when compressed."""
    secs = elf_sections(obj_bytes)
    name = ".nv_fatbin" if ".nv_fatbin" in secs else "__nv_relfatbin" if "__nv_relfatbin" in secs else None
    if name is None:  # (__nv_relfatbin: objects built with -rdc)
        return []
    off, size = secs[name]
    fb = obj_bytes[off:off + size]
    out = []
    pos = 0
    while pos + 16 <= len(fb):
        magic, _ver, hsize, fsize = struct.unpack_from("<IHHQ", fb, pos)
        if magic != 0xBA55ED50:
            break
        entry = pos + hsize
        end = pos + hsize + fsize
        while entry < end:
            kind, _ev, ehsize, psize = struct.unpack_from("<HHIQ", fb, entry)
            payload = fb[entry + ehsize:entry + ehsize + psize]
            if kind == 2 and payload[:4] == ZSTD_MAGIC and ehsize >= 64:
                payload = unzstd(payload, struct.unpack_from("<Q", fb, entry + 56)[0])
            if kind == 2 and payload[:4] == b"\x7fELF":
                out.append(bytes(payload))
            entry += ehsize + psize
        pos = end
    return out


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def unzstd(data, size):
    """A zstd-compressed fatbin entry (CUDA 13 compresses some), through the
    zstd tool; the entry's padding after the frame makes it complain, so
    the output is accepted when it has the size the entry header gives."""
    zstd = shutil.which("zstd")
    if zstd is None:
        raise RuntimeError("a compressed cubin and no zstd tool to open it (apt-get install zstd)")
    out = subprocess.run([zstd, "-d", "-c", "-q"], input=bytes(data), capture_output=True).stdout
    if len(out) != size:
        raise RuntimeError("zstd gave %d bytes of a %d-byte cubin" % (len(out), size))
    return out


def legacy_header(cubin):
    """The cubin with the pre-CUDA-12.8 ELF header (OS/ABI 0x33, ABI version
    7, flags EF_CUDA_SM90 | virtual SM90 | 64-bit | unified texmode) that
    older nvdisasm reads. Only sm_90 is accepted."""
    d = bytearray(cubin)
    flags, = struct.unpack_from("<I", d, 0x30)
    if d[7] == 0x41:  # CUDA 13: arch in bits 8-15
        arch = (flags >> 8) & 0xFF
    else:
        arch = flags & 0xFF
    if arch != 90:
        raise ValueError("cubin for sm_%d, not sm_90" % arch)
    d[7], d[8] = 0x33, 7
    struct.pack_into("<I", d, 0x30, 0x5A055A)
    return bytes(d)


# ---------------------------------------------------------------------------
# Instructions


class Insn:
    __slots__ = ("addr", "guard", "op", "args", "text", "line")

    def __init__(self, addr, guard, op, args, text):
        self.addr, self.guard, self.op, self.args, self.text = addr, guard, op, args, text
        self.line = None  # (source path, line number) where the cubin has line info

    @property
    def base(self):
        return self.op.split(".")[0]

    def __repr__(self):
        return "%05x %s" % (self.addr, self.text)


def split_args(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[(`":
            depth += 1
        elif ch in "])" and depth:
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_insn(addr, text):
    guard = None
    t = text
    if t.startswith("@"):
        g, t = t.split(None, 1)
        guard = g[1:]
    parts = t.split(None, 1)
    op = parts[0]
    args = split_args(parts[1]) if len(parts) > 1 else []
    return Insn(addr, guard, op, args, text)


def decode_unknown(addr, word0):
    """An instruction nvdisasm 11.8 skipped: VIADD (0x836 immediate, 0xc36
    constant bank) decoded from its bits (Rd 16-23, Ra 24-31, imm 32-63,
    guard 12-15); anything else as an opaque instruction."""
    opc = word0 & 0xFFF
    pred = (word0 >> 12) & 7
    neg = (word0 >> 15) & 1
    guard = None if pred == 7 and not neg else ("!" if neg else "") + ("PT" if pred == 7 else "P%d" % pred)
    rd, ra = (word0 >> 16) & 0xFF, (word0 >> 24) & 0xFF
    reg = lambda r: "RZ" if r == 255 else "R%d" % r
    if opc == 0x836:
        imm = (word0 >> 32) & 0xFFFFFFFF
        if imm >= 1 << 31:
            imm -= 1 << 32
        return Insn(addr, guard, "VIADD", [reg(rd), reg(ra), hex(imm)], "VIADD %s, %s, %s" % (reg(rd), reg(ra), hex(imm)))
    if opc == 0xC36:
        return Insn(addr, guard, "VIADD", [reg(rd), reg(ra), "c[?]"], "VIADD %s, %s, c[?]" % (reg(rd), reg(ra)))
    return Insn(addr, guard, "UNKNOWN_%03x" % opc, [], "UNKNOWN opcode 0x%03x" % opc)


class Function:
    def __init__(self, name, section):
        self.name, self.section = name, section
        self.insns = []
        self.labels = {}  # label -> addr

    @property
    def short(self):
        return demangle_short(self.name.split("$")[-1])


def demangle_short(mangled):
    """The last name component of an Itanium-mangled name (no c++filt needed)."""
    pos = 3 if mangled.startswith("_ZN") else 2 if mangled.startswith("_Z") else -1
    if pos < 0:
        return mangled
    names = []
    while pos < len(mangled) and mangled[pos].isdigit():
        end = pos
        while mangled[end].isdigit():
            end += 1
        n = int(mangled[pos:end])
        names.append(mangled[end:end + n])
        pos = end + n
    names = [n for n in names if not n.startswith("_GLOBAL__N")]
    return names[-1] if names else mangled


def kernel_registers(cubin):
    """{kernel: registers per thread}, from the EIATTR_REGCOUNT (0x2f)
    attributes of the cubin's .nv.info section (symbol index, count)."""
    secs = elf_sections(cubin)
    if ".nv.info" not in secs or ".symtab" not in secs or ".strtab" not in secs:
        return {}
    sym_off, sym_size = secs[".symtab"]
    str_off, _ = secs[".strtab"]
    names = []
    for i in range(sym_size // 24):
        n, = struct.unpack_from("<I", cubin, sym_off + 24 * i)
        names.append(cubin[str_off + n:cubin.index(b"\0", str_off + n)].decode())
    off, size = secs[".nv.info"]
    out = {}
    p = off
    while p + 4 <= off + size:
        fmt, attr = cubin[p], cubin[p + 1]
        if fmt == 4:  # EIFMT_SVAL: a 16-bit size, then the value
            n, = struct.unpack_from("<H", cubin, p + 2)
            if attr == 0x2F and n == 8:
                sym, regs = struct.unpack_from("<II", cubin, p + 4)
                if sym < len(names):
                    out[names[sym]] = regs
            p += 4 + n
        else:
            p += 4
    return out


def disassemble(nvdisasm, cubin):
    """Kernels of one cubin: {kernel name: {function name: Function}}, the
    kernel's own code under its name, each callee under its local label."""
    legacy = legacy_header(cubin)
    secs = elf_sections(legacy)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(legacy)
        f.flush()
        p = subprocess.run([nvdisasm, "-c", "-g", f.name], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("nvdisasm failed: " + p.stderr.strip())
    kernels = {}
    section = None
    func = None
    pending = []
    src = None
    for line in p.stdout.splitlines():
        m = SRCLINE.match(line)
        if m:
            src = (m.group(1), int(m.group(2)))
            continue
        m = re.match(r"\s*\.section\s+(\.text\.[^,]+),", line)
        if m:
            section = m.group(1)
            kernels[section[6:]] = {}
            func, pending = None, []
            continue
        if section is None:
            continue
        m = LABEL.match(line)
        if m:
            lab = m.group(1)
            if lab.startswith(".text."):
                continue
            if lab.startswith(".L"):
                pending.append(lab)
            else:
                func = Function(lab, section)
                kernels[section[6:]][lab] = func
                pending = []
            continue
        m = INSN.match(line)
        if m and func is not None:
            addr = int(m.group(1), 16)
            for lab in pending:
                func.labels[lab] = addr
            pending = []
            ins = parse_insn(addr, m.group(2))
            ins.line = src
            func.insns.append(ins)
    # Fill the slots nvdisasm skipped, from the section's bytes.
    for kname, funcs in kernels.items():
        off, size = secs[".text." + kname]
        ordered = sorted(funcs.values(), key=lambda fn: fn.insns[0].addr if fn.insns else 0)
        for i, fn in enumerate(ordered):
            if not fn.insns:
                continue
            end = ordered[i + 1].insns[0].addr if i + 1 < len(ordered) and ordered[i + 1].insns else size
            known = {ins.addr for ins in fn.insns}
            start = fn.insns[0].addr
            last = fn.insns[-1].addr
            for a in range(start, min(end, last + 16), 16):
                if a not in known:
                    w0, = struct.unpack_from("<Q", legacy, off + a)
                    fn.insns.append(decode_unknown(a, w0))
            fn.insns.sort(key=lambda ins: ins.addr)
    return kernels


# ---------------------------------------------------------------------------
# Control flow


def branch_target(ins):
    m = TARGET.search(ins.text)
    return m.group(1) if m else None


class Block:
    __slots__ = ("idx", "insns", "succ", "pred", "cold", "calls")

    def __init__(self, idx):
        self.idx, self.insns, self.succ, self.pred, self.cold, self.calls = idx, [], [], [], set(), []


def build_cfg(fn):
    insns = fn.insns
    addr_index = {ins.addr: i for i, ins in enumerate(insns)}
    leaders = {0}
    label_at = {}
    for lab, a in fn.labels.items():
        if a in addr_index:
            leaders.add(addr_index[a])
            label_at[lab] = addr_index[a]
    for i, ins in enumerate(insns):
        if ins.base in ("BRA", "EXIT", "RET", "BRX", "JMX", "JMP", "BPT", "KILL") and i + 1 < len(insns):
            leaders.add(i + 1)
    starts = sorted(leaders)
    block_of = {}
    blocks = []
    for bi, s in enumerate(starts):
        e = starts[bi + 1] if bi + 1 < len(starts) else len(insns)
        b = Block(bi)
        b.insns = insns[s:e]
        blocks.append(b)
        block_of[s] = bi
    for b in blocks:
        last = b.insns[-1]
        nxt = b.idx + 1 if b.idx + 1 < len(blocks) else None
        conditional = last.guard is not None and last.guard != "PT"
        for ins in b.insns:
            if ins.base == "CALL":
                t = branch_target(ins)
                if t:
                    b.calls.append(t)
        if last.base == "BRA":
            t = branch_target(last)
            tb = block_of.get(label_at.get(t)) if t else None
            if tb is not None:
                b.succ.append(tb)
                if ".DIV" in last.op:
                    b.cold.add(tb)
            if (conditional or ".DIV" in last.op) and nxt is not None:
                b.succ.append(nxt)
        elif last.base in ("EXIT", "RET", "BPT", "KILL", "BRX", "JMX", "JMP"):
            if conditional and nxt is not None:
                b.succ.append(nxt)
        elif nxt is not None:
            b.succ.append(nxt)
        for s in b.succ:
            blocks[s].pred.append(b.idx)
    return blocks


def dominators(blocks):
    """Immediate dominators (Cooper, Harvey, Kennedy), entry = block 0."""
    order, seen = [], set()
    stack = [(0, iter(blocks[0].succ))]
    seen.add(0)
    while stack:
        n, it = stack[-1]
        for s in it:
            if s not in seen:
                seen.add(s)
                stack.append((s, iter(blocks[s].succ)))
                break
        else:
            order.append(n)
            stack.pop()
    rpo = list(reversed(order))
    pos = {n: i for i, n in enumerate(rpo)}
    idom = {0: 0}
    changed = True
    while changed:
        changed = False
        for n in rpo[1:]:
            preds = [p for p in blocks[n].pred if p in idom]
            if not preds:
                continue
            new = preds[0]
            for p in preds[1:]:
                a, b = p, new
                while a != b:
                    while pos[a] > pos[b]:
                        a = idom[a]
                    while pos[b] > pos[a]:
                        b = idom[b]
                new = a
            if idom.get(n) != new:
                idom[n] = new
                changed = True
    return idom, pos


def dominates(idom, a, b):
    while True:
        if a == b:
            return True
        if b == 0 or b not in idom:
            return False
        b = idom[b]


class Loop:
    def __init__(self, header):
        self.header, self.latches, self.body = header, [], {header}
        self.ordinal = 0
        self.marker = None  # the `// model-trips: NAME` of its source loop


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.lru_cache(maxsize=None)
def source_lines(path):
    """A source file's lines, by the path the line info gives or, for a
    build made elsewhere, the same path under this checkout."""
    cands = [path]
    norm = os.path.normpath(path)
    for top in ("kernels", "cpu"):
        key = os.sep + top + os.sep
        if key in norm:
            cands.append(os.path.join(REPO, top, norm.split(key, 1)[1]))
    for c in cands:
        if os.path.isfile(c):
            with open(c, errors="replace") as f:
                return f.read().splitlines()
    return []


def marker_of(line):
    """The trip-count annotation on a source line (path, number), or None."""
    if line is None:
        return None
    lines = source_lines(line[0])
    if not 0 < line[1] <= len(lines):
        return None
    m = MARKER.search(lines[line[1] - 1])
    return m.group(1) if m else None


def loop_markers(blocks, loops):
    """Sets each loop's marker from the `// model-trips: NAME` comments of
    the task code: a marked source line annotates the innermost loop whose
    own instructions (not those of loops nested in it) come from that line.
    A loop two marks reach keeps none (--loops shows 'ambiguous')."""
    own = {}
    for lp in loops:
        o = set(lp.body)
        for other in loops:
            if other is not lp and other.header in lp.body and other.header != lp.header:
                o -= other.body
        own[lp.header] = o
    holders = {}  # marked source line -> loops whose own instructions come from it
    for lp in loops:
        for n in own[lp.header]:
            for ins in blocks[n].insns:
                if ins.line is not None and marker_of(ins.line):
                    holders.setdefault(ins.line, {})[lp.header] = lp
    found = {lp.header: set() for lp in loops}
    for line, lps in holders.items():
        for q in lps.values():  # the innermost holders (one per nest: a line inlined twice marks both)
            if not any(o is not q and o.header in q.body for o in lps.values()):
                found[q.header].add(marker_of(line))
    for lp in loops:
        f = found[lp.header]
        lp.marker = next(iter(f)) if len(f) == 1 else ("ambiguous:" + ",".join(sorted(f)) if f else None)


def natural_loops(blocks, idom):
    loops = {}
    for b in blocks:
        if b.idx not in idom:
            continue
        for s in b.succ:
            if dominates(idom, s, b.idx):
                lp = loops.setdefault(s, Loop(s))
                lp.latches.append(b.idx)
                stack = [b.idx]
                while stack:
                    n = stack.pop()
                    if n not in lp.body:
                        lp.body.add(n)
                        stack.extend(blocks[n].pred)
    out = sorted(loops.values(), key=lambda lp: blocks[lp.header].insns[0].addr)
    for i, lp in enumerate(out):
        lp.ordinal = i
    return out


# ---------------------------------------------------------------------------
# Values: what a register holds, as a function of (params, tid), when known.
# A linear pass in address order (values set before a loop and not written
# in it are what the loop sees); a register written by anything not modelled
# becomes unknown (None).


def const_value(tok):
    if tok in ("RZ", "URZ"):
        return 0
    if IMM.match(tok):
        return int(tok, 16) if "0x" in tok else int(tok)
    return None


def to_s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


class Sym:
    """A value: kind 'const' (v), 'param' (byte offset into the kernel
    parameters), 'tid', or 'expr' (fn(env) with env = (params, tid))."""

    def __init__(self, fn, deps=()):
        self.fn, self.deps = fn, frozenset(deps)

    def __call__(self, env):
        return self.fn(env)


def sym_const(v):
    return Sym(lambda env, v=v: v)


def operand(tok, regs):
    neg = tok.startswith("-")
    t = tok[1:] if neg else tok
    t = t.split(".reuse")[0]
    if t.startswith("|"):
        return None
    c = const_value(t)
    if c is not None:
        s = sym_const(c)
    else:
        m = CBANK.match(t)
        if m:
            off = int(m.group(1), 16)
            s = Sym(lambda env, off=off: env[0].get(off), ("param",))
        else:
            s = regs.get(t)
    if s is None:
        return None
    if neg:
        return Sym(lambda env, s=s: None if s(env) is None else -s(env), s.deps)
    return s


def combine(fn, *syms):
    if any(s is None for s in syms):
        return None
    deps = set()
    for s in syms:
        deps |= s.deps

    def f(env):
        vals = [s(env) for s in syms]
        if any(v is None for v in vals):
            return None
        return to_s32(fn(*vals))
    return Sym(f, deps)


CMP = {
    "EQ": lambda a, b: a == b, "NE": lambda a, b: a != b, "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b, "GE": lambda a, b: a >= b,
}


def isetp_sym(ins, regs, preds):
    """The predicate an ISETP/UISETP writes, as a Sym giving True/False, or None."""
    parts = ins.op.split(".")
    cmp = next((p for p in parts if p in CMP), None)
    unsigned = "U32" in parts
    combo = "AND" if "AND" in parts else "OR" if "OR" in parts else None
    if cmp is None or combo is None or len(ins.args) < 5:
        return None
    a, b = operand(ins.args[2], regs), operand(ins.args[3], regs)
    q = ins.args[4]
    qs = pred_sym(q, preds)
    if a is None or b is None or qs is None:
        return None

    def f(env):
        x, y, z = a(env), b(env), qs(env)
        if x is None or y is None or z is None:
            return None
        if unsigned:
            x, y = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        r = CMP[cmp](x, y)
        return (r and z) if combo == "AND" else (r or z)
    return Sym(f, a.deps | b.deps | qs.deps)


def pred_sym(tok, preds):
    neg = tok.startswith("!")
    t = tok[1:] if neg else tok
    if t in ("PT", "UPT"):
        s = Sym(lambda env: True)
    else:
        s = preds.get(t)
    if s is None:
        return None
    if neg:
        return Sym(lambda env, s=s: None if s(env) is None else not s(env), s.deps)
    return s


def dests(ins):
    """Registers an instruction writes (best effort: its first operand, and
    the pair of a .64 load)."""
    if not ins.args:
        return []
    d = ins.args[0].split(".reuse")[0]
    if not re.match(r"^U?R\d+$", d):
        return []
    out = [d]
    if ".64" in ins.op or ins.base == "CS2R":
        pre = "UR" if d.startswith("UR") else "R"
        out.append("%s%d" % (pre, int(d[len(pre):]) + 1))
    if ".128" in ins.op:
        pre = "UR" if d.startswith("UR") else "R"
        out += ["%s%d" % (pre, int(d[len(pre):]) + k) for k in (1, 2, 3)]
    return out


def add_operands(ins):
    """(a, b, c) of a three-input add Rd = a + b + c: IADD3 / UIADD3, also
    with a carry-out predicate (IADD3 Rd, P0, a, b, c, the low word of a
    64-bit add); None for anything else."""
    if ins.op not in ("IADD3", "UIADD3"):
        return None
    a = ins.args
    if len(a) == 4:
        return a[1], a[2], a[3]
    if len(a) == 5 and re.match(r"^!?U?P(\d+|T)$", a[1]):
        return a[2], a[3], a[4]
    return None


def hfma2_constant(ins):
    """The 32-bit constant of HFMA2.MMA Rd, -RZ, RZ, hi, lo (how the compiler
    loads small constants: two fp16 immediates, high half first), or None."""
    a = ins.args
    if ins.op != "HFMA2.MMA" or len(a) != 5 or a[1] != "-RZ" or a[2] != "RZ":
        return None
    try:
        hi, lo = (struct.unpack("<H", struct.pack("<e", float(x)))[0] for x in a[3:5])
    except (ValueError, OverflowError, struct.error):
        return None
    return to_s32(hi << 16 | lo)


def shift_step(ins, r):
    """("shl" | "shr", k) where ins is r = r << k or r = r >> k (unsigned),
    k a constant: the induction of a loop over powers of two."""
    a = [t.split(".reuse")[0] for t in ins.args]
    if ins.op in ("SHF.L.U32", "USHF.L.U32") and len(a) == 4 and a[0] == r and a[1] == r and a[3] in ("RZ", "URZ"):
        k = const_value(a[2])
        return ("shl", k) if k else None
    if ins.op in ("IMAD.SHL.U32", "IMAD.SHL") and len(a) == 4 and a[0] == r and a[1] == r and a[3] in ("RZ", "URZ"):
        m = const_value(a[2])
        return ("shl", m.bit_length() - 1) if m and m & (m - 1) == 0 and m > 1 else None
    if ins.op in ("SHF.R.U32.HI", "USHF.R.U32.HI") and len(a) == 4 and a[0] == r and a[1] in ("RZ", "URZ") \
            and a[3] == r:
        k = const_value(a[2])
        return ("shr", k) if k else None
    if ins.op in ("LEA", "ULEA") and len(a) == 4 and a[0] == r and a[1] == r and a[2] in ("RZ", "URZ"):
        k = const_value(a[3])
        return ("shl", k) if k else None
    return None


def step(ins, regs, preds):
    """Updates regs/preds for one instruction."""
    op, base, a = ins.op, ins.base, ins.args
    if base in ("ISETP", "UISETP") and len(a) >= 2:
        s = isetp_sym(ins, regs, preds) if ins.guard is None else None
        preds[a[0]] = s
        if a[1] not in ("PT", "UPT"):
            preds[a[1]] = None
        return
    if base in ("PLOP3", "UPLOP3", "FSETP", "DSETP", "VOTE", "VOTEU", "R2P", "LDS", "SHFL") and a:
        for t in a[:2]:
            if re.match(r"^!?U?P\d+$", t):
                preds[t.lstrip("!")] = None
    if base in ("IADD3", "UIADD3", "LEA", "ULEA", "IMAD.WIDE") and len(a) > 1 and re.match(r"^U?P\d+$", a[1]):
        preds[a[1]] = None  # a carry out
    ds = dests(ins)
    if not ds:
        return
    val = None
    if ins.guard is None:
        if base == "S2R" and len(a) == 2:
            if a[1] == "SR_TID.X":
                val = Sym(lambda env: env[1], ("tid",))
            elif a[1] == "SR_LANEID":
                val = Sym(lambda env: env[1] & 31, ("tid",))
        elif base in ("LDC", "ULDC") and len(a) == 2:
            m = CBANK.match(a[1])
            if m:
                off = int(m.group(1), 16)
                if ".64" in op:
                    regs[ds[0]] = Sym(lambda env, off=off: env[0].get(off), ("param",))
                    regs[ds[1]] = Sym(lambda env, off=off: env[0].get(off + 4), ("param",))
                    return
                if op in ("LDC", "ULDC"):
                    val = Sym(lambda env, off=off: env[0].get(off), ("param",))
        elif base in ("MOV", "UMOV") and len(a) == 2:
            val = operand(a[1], regs)
        elif hfma2_constant(ins) is not None:
            val = sym_const(hfma2_constant(ins))
        elif op == "IMAD.MOV.U32" and len(a) == 4 and a[1] == "RZ" and a[2] == "RZ":
            val = operand(a[3], regs)
        elif op == "IMAD.MOV" and len(a) == 4 and a[1] == "RZ" and a[2] == "RZ":
            val = operand(a[3], regs)
        elif add_operands(ins) is not None:
            x, y, z = add_operands(ins)
            val = combine(lambda x, y, z: x + y + z, operand(x, regs), operand(y, regs), operand(z, regs))
        elif op == "VIADD" and len(a) == 3:
            val = combine(lambda x, y: x + y, operand(a[1], regs), operand(a[2], regs))
        elif op in ("IMAD", "UIMAD", "IMAD.IADD") and len(a) == 4:
            val = combine(lambda x, y, z: x * y + z, operand(a[1], regs), operand(a[2], regs), operand(a[3], regs))
        elif op in ("IMAD.SHL.U32", "IMAD.SHL") and len(a) == 4:
            val = combine(lambda x, y, z: x * y + z, operand(a[1], regs), operand(a[2], regs), operand(a[3], regs))
        elif op in ("SHF.R.U32.HI", "USHF.R.U32.HI") and len(a) == 4 and a[1] in ("RZ", "URZ"):
            val = combine(lambda n, x: (x & 0xFFFFFFFF) >> (n & 31), operand(a[2], regs), operand(a[3], regs))
        elif op in ("SHF.R.S32.HI", "USHF.R.S32.HI") and len(a) == 4 and a[1] in ("RZ", "URZ"):
            val = combine(lambda n, x: to_s32(x) >> (n & 31), operand(a[2], regs), operand(a[3], regs))
        elif op in ("SHF.L.U32", "USHF.L.U32") and len(a) == 4 and a[3] in ("RZ", "URZ"):
            val = combine(lambda x, n: x << (n & 31), operand(a[1], regs), operand(a[2], regs))
        elif op in ("LOP3.LUT", "ULOP3.LUT") and len(a) >= 5:
            lut = const_value(a[4])
            x, y, z = operand(a[1], regs), operand(a[2], regs), operand(a[3], regs)
            if lut is not None and x is not None and y is not None and z is not None:
                def f3(u, v, w, lut=lut):
                    r = 0
                    for bit in range(32):
                        i = ((u >> bit) & 1) << 2 | ((v >> bit) & 1) << 1 | ((w >> bit) & 1)
                        r |= ((lut >> i) & 1) << bit
                    return r
                val = combine(f3, x, y, z)
        elif op in ("SEL", "USEL") and len(a) == 4:
            x, y, pz = operand(a[1], regs), operand(a[2], regs), pred_sym(a[3], preds)
            if x is not None and y is not None and pz is not None:
                val = Sym(lambda env: (lambda c: None if c is None else (x(env) if c else y(env)))(pz(env)),
                          x.deps | y.deps | pz.deps)
    for d in ds:
        regs[d] = None
    if val is not None:
        regs[ds[0]] = val


# ---------------------------------------------------------------------------
# Counting


class Analysis:
    """One function: blocks, loops, and the values the linear pass saw at
    each loop header and each ISETP."""

    def __init__(self, fn):
        self.fn = fn
        self.blocks = build_cfg(fn)
        self.idom, self.rpo = dominators(self.blocks)
        self.loops = natural_loops(self.blocks, self.idom)
        loop_markers(self.blocks, self.loops)
        self.block_loops = {b.idx: [lp for lp in self.loops if b.idx in lp.body] for b in self.blocks}
        headers = {self.blocks[lp.header].insns[0].addr for lp in self.loops}
        self.at_header = {}
        self.isetp = {}   # addr -> Sym of the predicate written
        self.branch = {}  # addr -> Sym of a branch's guard
        self.values = {}  # addr -> {reg: Sym} before the instruction, for compares' operands
        regs, preds = {}, {}
        written = {}  # loop header addr -> registers and predicates its body writes
        for lp in self.loops:
            w = set()
            for n in lp.body:
                for ins in self.blocks[n].insns:
                    w.update(dests(ins))
                    if ins.base in ("ISETP", "UISETP", "PLOP3", "UPLOP3") and ins.args:
                        w.update(t.lstrip("!") for t in ins.args[:2])
            written[self.blocks[lp.header].insns[0].addr] = w
        # A join of paths (a block with two predecessors that is no loop's
        # header) sees a register written more than once in the function
        # as unknown: the linear pass's last write in address order need
        # not be the one each path brings (a state variable set on each
        # path, as the signing scheduler's step).
        nwrites = {}
        for ins in fn.insns:
            for d in dests(ins):
                nwrites[d] = nwrites.get(d, 0) + 1
            if ins.base in ("ISETP", "UISETP", "PLOP3", "UPLOP3") and ins.args:
                for t in ins.args[:2]:
                    nwrites[t.lstrip("!")] = nwrites.get(t.lstrip("!"), 0) + 1
        joins = {b.insns[0].addr for b in self.blocks if len(set(b.pred)) > 1}
        for ins in fn.insns:
            if ins.addr in joins and ins.addr not in headers:
                for r in [r for r in regs if nwrites.get(r, 0) > 1]:
                    regs.pop(r)
                for r in [r for r in preds if nwrites.get(r, 0) > 1]:
                    preds.pop(r)
            if ins.addr in headers:
                # What the loop's own iterations see at entry (the loop solver's
                # start values), then its body's registers become unknown: a
                # value read in the loop must not change across iterations.
                self.at_header[ins.addr] = dict(regs)
                for r in written[ins.addr]:
                    regs.pop(r, None)
                    preds.pop(r, None)
            if ins.base in ("ISETP", "UISETP"):
                self.values[ins.addr] = dict(regs)
            if ins.base == "BRA" and ins.guard and ins.guard not in ("PT",):
                self.branch[ins.addr] = pred_sym(ins.guard, preds)
            step(ins, regs, preds)
            if ins.base in ("ISETP", "UISETP"):
                self.isetp[ins.addr] = preds.get(ins.args[0])
        self.block_of_addr = {ins.addr: b.idx for b in self.blocks for ins in b.insns}

    def position(self, addr):
        return self.block_of_addr[addr]

    def find_setp(self, blk, upto, pname, loop=None):
        """The ISETP that last wrote predicate pname before index upto of
        block blk (through PLOP3 copies and 64-bit compares' low words):
        (insn, negated) or None. With loop: where blk does not write it, the
        search goes on up blk's dominators inside the loop (the compiler
        hoists a loop's compare to the top of its body), provided no other
        block of the loop writes the predicate."""
        neg = False
        chain = [(blk, upto)]
        if loop is not None:
            b = blk.idx
            while b != loop.header and self.idom.get(b, b) in loop.body and self.idom[b] != b:
                b = self.idom[b]
                chain.append((self.blocks[b], len(self.blocks[b].insns)))
        insns = [ins for blk_, end in chain for ins in reversed(blk_.insns[:end])]

        def written_between(d, pred):
            """Whether a block on a path from block d to blk (inside the
            loop, not through its header) writes the predicate."""
            fwd, stack = {d}, [d]
            while stack:
                for s_ in self.blocks[stack.pop()].succ:
                    if s_ in loop.body and s_ != loop.header and s_ not in fwd:
                        fwd.add(s_)
                        stack.append(s_)
            back, stack = {blk.idx}, [blk.idx]
            while stack:
                for p_ in self.blocks[stack.pop()].pred:
                    if p_ in fwd and p_ not in back:
                        back.add(p_)
                        stack.append(p_)
            return any(pred in [t.lstrip("!") for t in (ins.args[:2] if ins.args else [])]
                       for n in back - {d, blk.idx} for ins in self.blocks[n].insns)
        for ins in insns:
            writes = [t.lstrip("!") for t in ins.args[:2]] if ins.args else []
            if pname not in writes:
                continue
            if ins.guard or (loop is not None and self.position(ins.addr) != blk.idx
                             and written_between(self.position(ins.addr), pname)):
                return None
            if ins.base in ("ISETP", "UISETP") and ins.args[0] == pname:
                if ".EX" not in ins.op:
                    return ins, neg
                # The high word of a 64-bit compare (against zero): the low
                # word's compare feeds it; counters stay below 2^32.
                if ins.args[3] not in ("RZ", "URZ") or len(ins.args) < 6:
                    return None
                pname = ins.args[5].lstrip("!")
                continue
            if ins.base == "PLOP3" and len(ins.args) == 7 and ins.args[1:4] == ["PT", "PT", "PT"] \
                    and ins.args[5] == "0x80":
                pname = ins.args[4]
                if pname.startswith("!"):
                    neg = not neg
                    pname = pname[1:]
                continue
            return None
        return None

    def solve_trip(self, lp, env_for, inner_trips):
        """Iterations of loop lp per entry, as (trip, exact), or None where
        the SASS does not show a counted loop. Exact: one compare of an
        induction register stepped once per iteration by a constant. Else
        an estimate: a compound condition (the tightest counted part), or a
        register stepped in several places or under a guard (all steps
        taken, nested loops' trips included). env_for(lane) -> env; the
        warp's trip is the most over its lanes."""
        cands = []
        for n in lp.body:
            last = self.blocks[n].insns[-1]
            if last.base != "BRA" or last.guard in (None, "PT") or ".DIV" in last.op:
                continue
            succ = self.blocks[n].succ
            target = succ[0] if succ else None
            if target == lp.header and n in lp.latches:
                cands.append((n, last, True))   # taken: continue
            elif target is not None and target not in lp.body:
                cands.append((n, last, False))  # taken: leave
            elif len(succ) > 1 and succ[1] not in lp.body and target in lp.body:
                cands.append((n, last, None))   # not taken: leave
        cands = [c for c in cands if all(dominates(self.idom, c[0], la) for la in lp.latches)]
        if len(cands) != 1:
            return None
        n, br, mode = cands[0]
        blk = self.blocks[n]
        gneg = br.guard.startswith("!")
        # The loop continues iff the guard predicate P == cont_pol.
        cont_pol = (not gneg) if mode in (True, None) else gneg
        found = self.find_setp(blk, len(blk.insns) - 1, br.guard.lstrip("!"), lp)
        if found is None:
            return None
        comps = []  # (setp, pol): the component continues the loop iff its compare == pol
        todo = [(found[0], cont_pol != found[1], 0)]
        all_end = True
        while todo:
            setp, pol, depth = todo.pop()
            parts = setp.op.split(".")
            combo = "AND" if "AND" in parts else "OR"
            q = setp.args[4] if len(setp.args) > 4 else "PT"
            comps.append((setp, pol))
            if q in ("PT", "UPT"):
                continue
            # P = A combo Q: each part ends the loop alone for AND-continue / OR-exit.
            ends = (combo == "AND" and pol) or (combo == "OR" and not pol)
            all_end = all_end and ends
            sblk = self.blocks[self.position(setp.addr)]
            idx = sblk.insns.index(setp)
            sub = self.find_setp(sblk, idx, q.lstrip("!"), lp) if depth < 3 else None
            if sub is not None:
                todo.append((sub[0], pol != (q.startswith("!") != sub[1]), depth + 1))
            elif not ends:
                return None
        exact = len(comps) == 1
        trips = []
        for setp, pol in comps:
            t = self.solve_component(lp, setp, pol, env_for, inner_trips)
            if t is None:
                t = self.affine_trip(lp, setp, pol, env_for)
            if t is not None:
                trips.append(t[0])
                exact = exact and t[1]
        if not trips:
            return None
        return (min(trips) if all_end else max(trips)), exact

    def solve_component(self, lp, setp, pol, env_for, inner_trips):
        parts = setp.op.split(".")
        cmp = next((p for p in parts if p in CMP), None)
        if cmp is None or setp.guard:
            return None
        unsigned = "U32" in parts
        before = self.values.get(setp.addr, {})
        header_vals = self.at_header.get(self.blocks[lp.header].insns[0].addr, {})
        n = self.position(setp.addr)
        for side in (2, 3):
            r = setp.args[side].split(".reuse")[0]
            if not re.match(r"^U?R\d+$", r) or r in ("RZ", "URZ"):
                continue
            writes = [ins for m in lp.body for ins in self.blocks[m].insns if r in dests(ins)]
            if not writes:
                continue
            rotated = self.rotated_induction(lp, r, writes, header_vals)
            if rotated is not None:
                # r = x + c with x = r copied back at the latch: r steps by
                # c from x's value at entry.
                x, c = rotated
                if header_vals.get(x) is None:
                    continue
                header_vals = dict(header_vals)
                header_vals[r] = header_vals[x]
            advance, exact, post = 0, len(writes) == 1, None
            steps = []
            scale = None  # a shift step instead: ("shl" | "shr", amount)
            for w in writes:
                stepv = None
                a = add_operands(w)
                if rotated is not None:
                    stepv = rotated[1]
                elif a is not None and a[0].split(".reuse")[0] == r and a[2] in ("RZ", "URZ"):
                    stepv = const_value(a[1])
                elif w.op == "VIADD" and len(w.args) == 3 and w.args[1].split(".reuse")[0] == r:
                    stepv = const_value(w.args[2])
                elif len(writes) == 1 and not w.guard and shift_step(w, r) is not None:
                    scale = shift_step(w, r)
                    stepv = 1  # (its place: the simulation below shifts)
                if not stepv:
                    advance = None
                    break
                wb = self.position(w.addr)
                mult = 1
                for inner in self.block_loops[wb]:
                    if inner is not lp and lp.header in inner.body:
                        continue  # an enclosing loop
                    if inner is not lp:
                        t = inner_trips.get(inner.header)
                        if t is None:
                            mult = None
                            break
                        mult *= t
                if mult is None:
                    advance = None
                    break
                if w.guard or mult != 1:
                    exact = False
                advance += stepv * mult
                steps.append((wb, stepv * mult))
                if wb == n:
                    p_ = w.addr < setp.addr
                elif dominates(self.idom, wb, n):
                    p_ = True
                else:
                    p_ = False
                post = p_ if post is None or post == p_ else False
            if advance is not None and 1 < len(steps) <= 4 and all(
                    wb not in self.reach_in_iteration(lp, wa) for wa, _ in steps for wb, _ in steps if wa != wb):
                # Steps on exclusive paths (one per iteration): the largest,
                # the whole-word path a sponge or packer takes but for its tail.
                advance = max((st for _, st in steps), key=abs)
                post = all(w.addr < setp.addr for w in writes)  # each path steps before the compare
            if not advance:
                continue
            if scale is not None and (len(steps) != 1 or steps[0][1] != 1):
                continue  # a shift under an inner loop: not modelled
            if scale is None:
                nxt = lambda v, a=advance: v + a
            elif scale[0] == "shl":
                nxt = lambda v, k=scale[1]: (v << k) & 0xFFFFFFFF
            else:
                nxt = lambda v, k=scale[1]: (v & 0xFFFFFFFF) >> k
            init = header_vals.get(r) or self.entry_constant(lp, r)
            other = operand(setp.args[5 - side], before)
            # (other is known at the compare only if it is the same every
            # iteration: the pass forgot every register the loop writes at its
            # header, so a value known here was rebuilt from invariants.)
            if init is None or other is None:
                continue
            most = 0
            for lane in range(32):
                env = env_for(lane)
                v, bound = init(env), other(env)
                if v is None or bound is None:
                    return None
                k = 0
                while True:
                    k += 1
                    if k > 1 << 16:
                        return None
                    x, y = (nxt(v) if post else v), bound
                    if side == 3:
                        x, y = y, x
                    if unsigned:
                        x, y = x & 0xFFFFFFFF, y & 0xFFFFFFFF
                    else:
                        x, y = to_s32(x), to_s32(y)
                    if CMP[cmp](x, y) != pol:
                        break
                    v = nxt(v)
                    if scale is not None and v == 0:
                        return None
                most = max(most, k)
            return most, exact
        return None

    def affine_trip(self, lp, setp, pol, env_for):
        """The trip of a loop whose compare reads h + c1, h a register's
        value at the top of the iteration that the iteration leaves as
        h + step (through copies and register reuse: the compiler's rotated
        counters), followed along the blocks every iteration runs. (trip,
        exact) or None."""
        chain = sorted((n for n in lp.body if all(dominates(self.idom, n, la) for la in lp.latches)),
                       key=lambda n: self.blocks[n].insns[0].addr)
        if not chain or chain[0] != lp.header:
            return None
        side_writes = set()
        for n in lp.body:
            if n not in chain:
                for ins in self.blocks[n].insns:
                    side_writes.update(dests(ins))
        val = {}  # register -> (header register or None, constant): the value is h + c

        def get(tok):
            t = tok.split(".reuse")[0]
            c = const_value(t)
            if c is not None:
                return (None, c)
            if not re.match(r"^U?R\d+$", t):
                return None
            return val.get(t, (t, 0))

        at_cmp = None
        for n in chain:
            for ins in self.blocks[n].insns:
                if ins is setp:
                    at_cmp = {side: get(setp.args[side]) for side in (2, 3)}
                ds = dests(ins)
                if not ds:
                    continue
                new = None
                a = add_operands(ins)
                if not ins.guard:
                    if a is not None:
                        x, y, z = get(a[0]), get(a[1]), get(a[2])
                        if x and y and z and sum(1 for v in (x, y, z) if v[0] is not None) <= 1:
                            new = (next((v[0] for v in (x, y, z) if v[0] is not None), None), x[1] + y[1] + z[1])
                    elif ins.op == "VIADD" and len(ins.args) == 3:
                        x, y = get(ins.args[1]), get(ins.args[2])
                        if x and y and y[0] is None:
                            new = (x[0], x[1] + y[1])
                    elif ins.base in ("MOV", "UMOV") and len(ins.args) == 2:
                        new = get(ins.args[1])
                    elif ins.op in ("IMAD.MOV.U32", "IMAD.MOV") and len(ins.args) == 4 and ins.args[1] == "RZ" \
                            and ins.args[2] == "RZ":
                        new = get(ins.args[3])
                for d in ds:
                    val[d] = None
                if new is not None:
                    val[ds[0]] = new
        if at_cmp is None:
            return None
        header_vals = self.at_header.get(self.blocks[lp.header].insns[0].addr, {})
        before = self.values.get(setp.addr, {})
        parts = setp.op.split(".")
        cmp = next((p for p in parts if p in CMP), None)
        if cmp is None or setp.guard:
            return None
        unsigned = "U32" in parts
        for side in (2, 3):
            v = at_cmp[side]
            if v is None or v[0] is None or v[0] in side_writes:
                continue
            h, c1 = v
            end = val.get(h, (h, 0))
            if end is None or end[0] != h or end[1] == 0:
                continue
            stepv = end[1]
            init = header_vals.get(h)
            o = at_cmp[5 - side]
            if o is None:
                continue
            if o[0] is None:
                other = sym_const(o[1])
            else:
                if o[0] in side_writes or val.get(o[0], (o[0], 0)) != (o[0], 0):
                    continue  # the bound changes across iterations
                other = before.get(o[0]) or header_vals.get(o[0])
                if other is None:
                    continue
                other = Sym(lambda env, s0=other, c=o[1]: None if s0(env) is None else s0(env) + c, other.deps)
            init = init or self.entry_constant(lp, h)
            if init is None:
                continue
            most = 0
            for lane in range(32):
                env = env_for(lane)
                x0, bound = init(env), other(env)
                if x0 is None or bound is None:
                    return None
                k = 0
                while True:
                    k += 1
                    if k > 1 << 16:
                        return None
                    x, y = x0 + c1, bound
                    if side == 3:
                        x, y = y, x
                    if unsigned:
                        x, y = x & 0xFFFFFFFF, y & 0xFFFFFFFF
                    else:
                        x, y = to_s32(x), to_s32(y)
                    if CMP[cmp](x, y) != pol:
                        break
                    x0 += stepv
                most = max(most, k)
            return most, True
        return None

    def reach_in_iteration(self, lp, b):
        """Blocks of loop lp reachable from block b within one iteration
        (not through the back edge to the header)."""
        seen, stack = set(), [b]
        while stack:
            for s_ in self.blocks[stack.pop()].succ:
                if s_ in lp.body and s_ != lp.header and s_ not in seen:
                    seen.add(s_)
                    stack.append(s_)
        return seen

    def entry_constant(self, lp, r):
        """r's value on entry to the loop where the control flow shows it
        (the linear pass does not: code laid out between the last write and
        the loop): the last write of r up the dominators of the loop's one
        entry edge, when that write is a constant. A Sym or None."""
        outside = [p for p in self.blocks[lp.header].pred if p not in lp.body]
        if len(outside) != 1:
            return None
        b = outside[0]
        for _ in range(64):
            for ins in reversed(self.blocks[b].insns):
                if r not in dests(ins):
                    continue
                if ins.guard:
                    return None
                a = ins.args
                v = None
                if ins.base in ("MOV", "UMOV") and len(a) == 2:
                    v = const_value(a[1])
                elif ins.op in ("IMAD.MOV.U32", "IMAD.MOV") and len(a) == 4 and a[1] == "RZ" and a[2] == "RZ":
                    v = const_value(a[3])
                elif ins.base == "CS2R" and len(a) == 2 and a[1] == "SRZ":
                    v = 0
                else:
                    v = hfma2_constant(ins)
                return None if v is None else sym_const(v)
            if b == 0 or self.idom.get(b, b) == b:
                return None
            b = self.idom[b]
        return None

    def rotated_induction(self, lp, r, writes, header_vals):
        """(x, c) where the loop's one write of r is r = x + c and its one
        write of x is x = r (a copy): the compiler's rotated counter. None
        otherwise."""
        if len(writes) != 1 or writes[0].guard:
            return None
        a = add_operands(writes[0])
        if a is not None and a[2] in ("RZ", "URZ"):
            x, c = a[0].split(".reuse")[0], const_value(a[1])
        elif writes[0].op == "VIADD" and len(writes[0].args) == 3:
            x, c = writes[0].args[1].split(".reuse")[0], const_value(writes[0].args[2])
        else:
            return None
        if x == r or c is None or not re.match(r"^U?R\d+$", x):
            return None
        xw = [ins for m in lp.body for ins in self.blocks[m].insns if x in dests(ins)]
        if len(xw) != 1 or xw[0].guard:
            return None
        w = xw[0]
        src = None
        if w.base in ("MOV", "UMOV") and len(w.args) == 2:
            src = w.args[1]
        elif w.op in ("IMAD.MOV.U32", "IMAD.MOV") and len(w.args) == 4 and w.args[1] == "RZ" and w.args[2] == "RZ":
            src = w.args[3]
        if src is None or src.split(".reuse")[0] != r:
            return None
        return x, c

    def reachable(self, env_for):
        """Blocks a warp can reach: BRA.DIV's slow paths and branches whose
        guard is the same for all 32 lanes drop their other edge."""
        seen = {0}
        stack = [0]
        while stack:
            n = stack.pop()
            b = self.blocks[n]
            last = b.insns[-1]
            succ = [s for s in b.succ if s not in b.cold]
            if last.base == "BRA" and len(b.succ) == 2 and last.addr in self.branch:
                g = self.branch[last.addr]
                if g is not None:
                    vals = {g(env_for(t)) for t in range(32)}
                    if vals == {True}:
                        succ = [b.succ[0]]
                    elif vals == {False}:
                        succ = [b.succ[1]]
            for s in succ:
                if s not in seen:
                    seen.add(s)
                    stack.append(s)
        return seen


def is_permutation_loop(an, lp):
    """A warp-wide Keccak-f permutation written as a loop over rounds: an
    innermost loop whose body is shuffles and bitwise logic (>= 8 SHFL and
    >= 30 LOP3 per iteration). Its instructions are hashing, counted per
    permutation (Counter.permutation_cost) times the permutations the
    algorithm makes, not by the loop's own trip count."""
    if any(other is not lp and other.header in lp.body for other in an.loops):
        return False
    ops = [ins.base for n in lp.body for ins in an.blocks[n].insns]
    return ops.count("SHFL") >= 8 and ops.count("LOP3") >= 30


def is_permutation_function(fn):
    return fn.short == "keccak_f1600"


def access_bytes(ins):
    """Bytes per lane of a load or store (LDL/STL/LDG/STG/LD/ST)."""
    for w, b in ((".128", 16), (".64", 8), (".U8", 1), (".S8", 1), (".U16", 2), (".S16", 2)):
        if w in ins.op:
            return b
    return 4


class Count:
    """What one warp issues: instructions outside hashing, and the bytes its
    lanes move through local (stack) and global memory."""

    def __init__(self, insns=0, local=0, glob=0):
        self.insns, self.local, self.glob = insns, local, glob

    def add(self, other, k=1):
        self.insns += k * other.insns
        self.local += k * other.local
        self.glob += k * other.glob


class Counter:
    """Counts a kernel's warp instructions per call, per context (a
    parameter environment and a warp index). Hashing is left out (a
    permutation's cost comes from permutation_cost; how many the algorithm
    makes, from gpu_model.py's tables); loops the SASS does not solve count
    once per entry unless `annotations` ({marker: trip or callable(params)})
    gives the trip of the loops their source marks `// model-trips: marker`
    (an annotation wins over a solved trip: it is the expected trip of a
    loop whose count the data decides)."""

    def __init__(self, kernel_funcs, entry):
        self.funcs = kernel_funcs
        self.entry = entry
        self.analysis = {name: Analysis(fn) for name, fn in kernel_funcs.items()}
        self.registers = None

    def loops(self):
        for name, an in self.analysis.items():
            for lp in an.loops:
                yield name, an, lp

    def permutation_cost(self, params):
        """(instructions one lane's (or thread's) permutation issues,
        instructions a warp-wide permutation issues); None where the kernel
        has none."""
        lane = warp = None
        for name, an in self.analysis.items():
            if is_permutation_function(an.fn):
                lane = self.count(params, 0, {}, hashing=True, entry=name).insns
        env = lambda l: (params, l)
        for name, an, lp in self.loops():
            if not is_permutation_loop(an, lp):
                continue
            reach = an.reachable(env)  # without BRA.DIV's slow path
            body = [ins for n in lp.body if n in reach for ins in an.blocks[n].insns]
            t = an.solve_trip(lp, env, {})
            if t is not None:
                trips = t[0]
            else:
                # Rounds per iteration: its reads of the round constants
                # (constant bank 3, or global through the constant cache).
                rounds = sum(1 for ins in body if "c[0x3]" in ins.text or ".CONSTANT" in ins.op)
                trips = 24 / max(1, rounds)
            cost = len(body) * trips
            warp = cost if warp is None else min(warp, cost)
        return lane, warp

    def count(self, params, warp, annotations, tid_base=None, unresolved=None, estimated=None, hashing=False,
              entry=None):
        """A Count for one warp in one call of the kernel (or of function
        `entry`). params: {byte offset in the kernel parameters: value};
        warp: its index in the block (tid = 32 warp + lane), or tid_base.
        hashing: count permutations too (for permutation_cost)."""
        base = 32 * warp if tid_base is None else tid_base
        env_cache = {}

        def env_for(lane):
            e = env_cache.get(lane)
            if e is None:
                e = env_cache[lane] = (params, base + lane)
            return e

        @functools.lru_cache(maxsize=None)
        def fcount(name):
            an = self.analysis[name]
            reach = an.reachable(env_for)
            trips = {}
            skip = set()
            for lp in sorted(an.loops, key=lambda lp: len(lp.body)):  # inner loops first
                if not hashing and is_permutation_loop(an, lp):
                    skip |= lp.body
                    trips[lp.header] = 1
                    continue
                if lp.marker in annotations:
                    a = annotations[lp.marker]
                    t = a(params) if callable(a) else a
                else:
                    solved = an.solve_trip(lp, env_for, trips)
                    t = solved[0] if solved else None
                    if t is None:
                        if unresolved is not None:
                            unresolved.append((name, lp))
                        t = 1
                    elif not solved[1] and estimated is not None:
                        estimated.append((name, lp, t))
                trips[lp.header] = t
            total = Count()
            for b in an.blocks:
                if b.idx not in reach or b.idx in skip:
                    continue
                f = 1
                for lp in an.block_loops[b.idx]:
                    f *= trips[lp.header]
                own = Count(len(b.insns))
                for ins in b.insns:
                    if ins.base in ("LDL", "STL"):
                        own.local += 32 * access_bytes(ins)
                    elif ins.base in ("LDG", "STG", "LD", "ST", "ATOMG", "RED"):
                        own.glob += 32 * access_bytes(ins)
                for c in b.calls:
                    if c in self.funcs and c != name:
                        if not hashing and is_permutation_function(self.analysis[c].fn):
                            own.insns -= 1  # the call itself is hashing's
                            continue
                        own.add(fcount(c))
                total.add(own, f)
            return total

        return fcount(entry or self.entry)


def loop_report(counter, params, warp=0):
    """Lines describing every loop of a kernel: function, ordinal, static
    size, depth, solved trip (or '?'), and what it calls; for annotating."""
    lines = []
    env = lambda lane: (params, 32 * warp + lane)
    for name, an, _ in [(n, a, None) for n, a in counter.analysis.items()]:
        trips = {}
        for lp in sorted(an.loops, key=lambda lp: len(lp.body)):
            t = an.solve_trip(lp, env, trips)
            trips[lp.header] = t[0] if t else None
        for lp in an.loops:
            t = an.solve_trip(lp, env, trips)
            size = sum(len(an.blocks[n].insns) for n in lp.body)
            depth = sum(1 for other in an.loops if lp.header in other.body and other is not lp)
            calls = sorted({demangle_short(c.split("$")[-1]) for n in lp.body for c in an.blocks[n].calls})
            first = an.blocks[lp.header].insns[0].addr
            src = an.blocks[lp.header].insns[0].line
            lines.append("%-22s loop %3d  at %05x  %5d insns  depth %d  trip %s%s%s%s" % (
                an.fn.short[:22], lp.ordinal, first, size, depth,
                "?" if t is None else ("%d" % t[0]) + ("" if t[1] else " (estimate)"),
                ("  calls " + ",".join(calls)) if calls else "",
                ("  at %s:%d" % (os.path.basename(src[0]), src[1])) if src else "",
                ("  marked " + lp.marker) if lp.marker else ""))
    return lines


def find_nvdisasm(explicit=None):
    """nvdisasm: the given path, $NVDISASM, PATH, /usr/local/cuda/bin, or the
    copy scripts/fetch-cuda-tools.sh unpacks into its cache."""
    cands = [explicit, os.environ.get("NVDISASM"), shutil.which("nvdisasm"), "/usr/local/cuda/bin/nvdisasm",
             os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "mldsa-accel",
                          "cuda-tools", "bin", "nvdisasm")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None
