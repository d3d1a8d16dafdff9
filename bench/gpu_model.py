#!/usr/bin/env python3
"""gpu_model.py - a cost model of the GPU kernels on one H200 that needs no
GPU. Every rate it prints is a PREDICTION, never a measurement.

Per kernel it takes from the compiled SASS of our build (bench/sass_count.py:
nvdisasm of the sm_90 cubins in the build's objects):
  - warp instructions per call outside hashing: straight-line code as
    compiled, loops by the trip counts the SASS shows, or, for loops the
    data decides, by the expected trips of LOOP_TRIPS that the task code's
    `// model-trips:` comments name (loops it cannot solve count once per
    entry; --loops lists them, and the report says how many),
  - the instructions of one Keccak-f permutation as that kernel runs it: one
    state per thread or lane (the keccak_f1600 function) or one state over a
    warp (the inlined round loop),
  - bytes its lanes move through local and global memory, and its registers
    per thread (occupancy, ptxas's EIATTR_REGCOUNT);
and from the algorithm (the tables below): permutations per task by kind,
calls per task of each kernel (signing attempts: 4.25 / 5.1 / 3.85 expected),
and the bytes the engine copies over PCIe per task (kernels/host/device_worker.cc's
layouts). From those, a bound per operation on an H200: 132 SMs x 4
schedulers x 1 warp instruction/cycle at 1.98 GHz, HBM 4.8 TB/s, PCIe Gen5
~50 GB/s each way; kernels of one operation add their issue time, copies
overlap it (streams).

The issue-slot bound is never reached; the fraction of it real code gets
(latency, dependencies, occupancy, divergence the count does not see) is
the calibration factor, fitted on the GPU Dilithium paper's code
(encryptorion-lab/cuDilithium, counted the same way from an sm_90 build)
against its measured H200 rates, and applied to ours. One factor for all
operations (see CALIBRATION_NOTE).

  python3 bench/gpu_model.py [--build DIR] [--json] [--breakdown] [--loops KERNEL]
  python3 bench/gpu_model.py --cudilithium DIR --write-calibration bench/gpu_model_calibration.json
Exit 77 (with the reason) without nvdisasm or without a CUDA build in DIR.
"""
import argparse
import glob
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_count as sc  # noqa: E402

# H200 (SXM): what the bound is made of.
SMS, SCHEDULERS, CLOCK_HZ = 132, 4, 1.98e9
ISSUE_PER_S = SMS * SCHEDULERS * CLOCK_HZ  # warp instructions per second
HBM_BYTES_PER_S = 4.8e12
PCIE_BYTES_PER_S = 50e9  # each way
L2_BYTES = 50 * 2**20
SHAKE128_RATE, SHAKE256_RATE = 168, 136

GOALS = {  # ops/s, the issue's goal on one H200
    "ML-DSA-44": {"keygen": 12e6, "sign": 3e6, "verify": 12e6},
    "ML-DSA-65": {"keygen": 5.6e6, "sign": 2e6, "verify": 6.4e6},
    "ML-DSA-87": {"keygen": 3.3e6, "sign": 1.5e6, "verify": 3.7e6},
}
# The CPU for comparison, MEASURED: ours (avx512 backend) on one core of an
# AMD EPYC Zen 5 (family 26 model 2, 2 vCPUs), us per call, bench_paired at
# 4eb6306 (bench/RESULTS.md, "Against the anchors"); ops/s per core = 1e6 / us.
CPU_US_PER_CALL = {
    "ML-DSA-44": {"keygen": 14.6, "sign": 37.8, "verify": 9.6},
    "ML-DSA-65": {"keygen": 16.1, "sign": 43.7, "verify": 14.0},
    "ML-DSA-87": {"keygen": 23.8, "sign": 53.2, "verify": 20.8},
}
# cuDilithium measured on an H200 (batch 10k, 10 streams, transfers included), ops/s.
CUDILITHIUM_MEASURED = {
    "Dilithium2": {"keygen": 3.28e6, "sign": 1.14e6, "verify": 3.67e6},
    "Dilithium3": {"keygen": 1.87e6, "sign": 0.77e6, "verify": 2.13e6},
    "Dilithium5": {"keygen": 1.10e6, "sign": 0.60e6, "verify": 1.23e6},
}
# How far the model's figure for cuDilithium may be from its measured rate
# once calibrated (the ctest checks it): the residuals of the fit.
CALIBRATION_TOLERANCE = 0.25
# The count of one known kernel, to catch drift of the counter (or of the
# kernel): keygen_kernel, ML-DSA-44, warp 0, instructions outside hashing per
# call, as bench/sass_count.py counts the sm_90 SASS of CUDA 13.0 at the
# commit that set it, and the loops it leaves unresolved. Its parts, per
# thread (the warp issues each once for its 32 tasks): ntt ~9.2k x 4 and
# invntt_tomont ~10.8k x 4 (two counted passes of 16 blocks of 16
# coefficients in registers, 4 levels each, unrolled; were 24,942 and 28,689
# as 8 passes over local memory), the rejection samplers (annotated trips), the sponge's
# lane steps (word-wide for 8-aligned data: tr = H(pk) is 164 lanes of ~21
# instructions, the loop unrolled 4x, where the byte-wise absorb took ~79 a
# lane) and pack_bits (256 coefficients, 3 guarded byte steps each). Was
# 586,416 with 8 unresolved loops before the word-wide sponge (-7.9%), then
# 540,284 before the NTTs' register passes (-24%), 409,150 before the
# twiddles' q^-1 multiples were tabled (-0.6%).
# A change to the task code or the compiler moves it: recount and update it
# in the same commit (--check prints the new figure).
KNOWN_COUNT = {"kernel": "keygen_kernel", "set": "ML-DSA-44", "insns": 406854, "tolerance": 0.02,
               "unresolved_loops": 4}
CALIBRATION_NOTE = (
    "One factor for all operations: the geometric mean over the nine cuDilithium rates of measured / "
    "issue-slot bound. Per-operation factors (printed too) would fit three points each and carry "
    "cuDilithium's own per-operation overheads (its host-driven signing loop, its pitch copies) over to "
    "kernels that have none of them.")


class Set:
    """A parameter set: FIPS 204 / round-3 values, and the TaskParams the
    kernels get (first kernel parameter, at c[0x0][0x210])."""

    def __init__(self, name, k, l, eta, tau, beta, gamma1_bits, omega, gamma2_div, ctilde, pk, sk, sig, attempts,
                 round3=False):
        self.name, self.k, self.l, self.eta, self.tau = name, k, l, eta, tau
        self.gamma1_bits, self.omega, self.pk, self.sk, self.sig = gamma1_bits, omega, pk, sk, sig
        self.attempts = attempts
        self.w1_bits = 6 if gamma2_div == 88 else 4
        fields = [k, l, eta, tau, beta, gamma1_bits, omega, 1 << gamma1_bits, (8380417 - 1) // gamma2_div,
                  ctilde, 32 if round3 else 64, 64 if round3 else 32, int(round3), pk, sk, sig]
        self.task_params = {0x210 + 4 * i: v for i, v in enumerate(fields)}


# Expected signing attempts (FIPS 204 Section 3.4's repetition counts).
SETS = [
    Set("ML-DSA-44", 4, 4, 2, 39, 78, 17, 80, 88, 32, 1312, 2560, 2420, 4.25),
    Set("ML-DSA-65", 6, 5, 4, 49, 196, 19, 55, 32, 48, 1952, 4032, 3309, 5.1),
    Set("ML-DSA-87", 8, 7, 2, 60, 120, 19, 75, 32, 64, 2592, 4896, 4627, 3.85),
]
DILITHIUM = {  # round 3, as cuDilithium builds them (DILITHIUM_MODE 2, 3, 5)
    "Dilithium2": Set("Dilithium2", 4, 4, 2, 39, 78, 17, 80, 88, 32, 1312, 2528, 2420, 4.25, True),
    "Dilithium3": Set("Dilithium3", 6, 5, 4, 49, 196, 19, 55, 32, 32, 1952, 4000, 3293, 5.1, True),
    "Dilithium5": Set("Dilithium5", 8, 7, 2, 60, 120, 19, 75, 32, 32, 2592, 4864, 4595, 3.85, True),
}


# ---------------------------------------------------------------------------
# Permutations the algorithm makes (expected values).

def blocks(nbytes, rate):
    """Permutations to absorb nbytes and pad (the first output block comes with them)."""
    return nbytes // rate + 1


EXPAND_A_BLOCKS = 5  # RejNTTPoly: 4 blocks give 224 candidates, 5 give 280 (accept ~0.999)
WARP = 32


def binom_tail(n, p, k):
    """P(Binomial(n, p) >= k)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return sum(math.comb(n, x) * p**x * (1 - p)**(n - x) for x in range(k, n + 1))


def warp_max_draws(per_draw, p, need, limit):
    """E[the most draws any of a warp's 32 lanes makes] when each lane draws
    until `need` successes of probability p, in units of per_draw draws (a
    block, a byte): a warp runs a data-dependent loop until its last lane is
    done."""
    e, units = 0.0, 0
    while units < limit:
        done_one = binom_tail(units * per_draw, p, need)  # P(one lane done within `units`)
        miss = 1 - done_one**WARP
        if miss < 1e-9:
            break
        e += miss
        units += 1
    return e


def eta_accept(eta):
    return 15 / 16 if eta == 2 else 9 / 16


def rej_bounded_blocks(s):
    """SHAKE256 blocks of RejBoundedPoly as a warp runs it (the most over its
    lanes): 272 half-bytes a block."""
    return warp_max_draws(2 * SHAKE256_RATE, eta_accept(s.eta), 256, 8)


def rej_ntt_blocks(s):
    """SHAKE128 blocks of RejNTTPoly as a warp runs it (the most over its
    lanes): 56 candidates a block, each taken with probability q / 2^23."""
    return warp_max_draws(SHAKE128_RATE // 3, 8380417 / 2**23, 256, 16)


def ball_draws(s):
    """Bytes SampleInBall draws per position i (256 - tau .. 255), as a warp
    runs it: a byte j <= i is taken (probability (i + 1) / 256); averaged
    over the positions."""
    total = 0.0
    for i in range(256 - s.tau, 256):
        p = (i + 1) / 256
        total += warp_max_draws(1, p, 1, 64)
    return total / s.tau


# The trip counts of the loops the data decides, by the name the task code
# gives them (`// model-trips: NAME` on the loop's line; bench/sass_count.py
# ties the SASS loop to it through the cubin's line info). Expected trips per
# entry of the loop, as a warp runs it.
LOOP_TRIPS = {
    "rej_bounded_blocks": rej_bounded_blocks,
    "rej_ntt_blocks": rej_ntt_blocks,
    "ball_draws": ball_draws,
    # Loops of sign_attempt over the l polynomials of y or s1
    # (kernels/thread/sign.h) that the solver does not read in the form the
    # compiler gives them (the A^ o y^ terms inside the inverse NTT's first
    # pass, the z = y + c s1 loop): their trip is just l.
    "sign_l": lambda s: s.l,
}


# (sign_kernel's scheduler loop, for (;;) over sign_unit_step, is left
# unresolved on purpose: counted once per entry, it is one step, and the
# model counts the kernel once per attempt.)


def loop_trips(s):
    return {name: f(s) for name, f in LOOP_TRIPS.items()}


def challenge_blocks(s):
    return blocks(64 + s.k * 32 * s.w1_bits, SHAKE256_RATE)


# ---------------------------------------------------------------------------
# Kernel sets: per operation, the kernels a task runs. A kernel:
#   name      the __global__ function (demangled short name)
#   per       "thread": one thread per task (a warp serves 32 tasks);
#             "block": one block per task (warps: its warps); "warp": one warp per task
#   warps     warps per block (for "block")
#   calls     calls per task, callable(set)
#   lane      permutations per call run one state per thread/lane, as warp
#             issues: per task for "thread" kernels (the warp's 32 lanes
#             share each issue), per block for "block" kernels
#   warp      permutations per call run over a whole warp
# Adding a kernel set is adding an entry here.


class K:
    def __init__(self, name, per, calls=lambda s: 1, lane=lambda s: 0, warp=lambda s: 0, warps=1, local_hbm=None):
        self.name, self.per, self.calls, self.lane, self.warp, self.warps = name, per, calls, lane, warp, warps
        # Local (stack) traffic reaches HBM when the resident stacks exceed L2
        # (thread kernels: 1-28 KiB a thread); the cooperative kernels' is small.
        self.local_hbm = per == "thread" if local_hbm is None else local_hbm


def tr_blocks(s):
    return blocks(s.pk, SHAKE256_RATE)


def coop_a_issues(s, rows_per_pass):
    """Lane-parallel ExpandA in passes: per pass, warps of 32 lanes each run
    5 blocks."""
    issues, r0 = 0, 0
    while r0 < s.k:
        rows = min(rows_per_pass, s.k - r0)
        issues += EXPAND_A_BLOCKS * math.ceil(rows * s.l / 32)
        r0 += rows
    return issues


# Rows of A^ per pass in the cooperative kernels' 48 KiB plans (KeygenShared, VerifyShared).
COOP_KEYGEN_ROWS = {"ML-DSA-44": 4, "ML-DSA-65": 4, "ML-DSA-87": 3}
COOP_VERIFY_ROWS = {"ML-DSA-44": 4, "ML-DSA-65": 5, "ML-DSA-87": 3}

KERNEL_SETS = {
    "thread": {
        "keygen": [K("keygen_kernel", "thread",
                     lane=lambda s: 1 + (s.l + s.k) * rej_bounded_blocks(s) + s.k * s.l * EXPAND_A_BLOCKS
                     + tr_blocks(s))],
        # Distinct keys (no public-key cache): tr, mu, ExpandA, SampleInBall, c~'.
        "verify": [K("verify_kernel", "thread",
                     lane=lambda s: tr_blocks(s) + 1 + s.k * s.l * EXPAND_A_BLOCKS + 1 + challenge_blocks(s))],
        # Distinct keys: each task's key expanded, rho'', then the attempts.
        "sign": [K("expand_keys_kernel", "thread", lane=lambda s: s.k * s.l * EXPAND_A_BLOCKS),
                 K("prepare_tasks_kernel", "thread", lane=lambda s: 1),
                 K("sign_kernel", "thread", calls=lambda s: s.attempts,
                   lane=lambda s: s.l * 5 + challenge_blocks(s) + 1)],
    },
    "coop": {
        "keygen": [K("coop_keygen_kernel", "block", warps=4, warp=lambda s: 1 + tr_blocks(s),
                     lane=lambda s: 2 + coop_a_issues(s, COOP_KEYGEN_ROWS[s.name]))],
        "verify": [K("coop_verify_kernel", "block", warps=4,
                     warp=lambda s: tr_blocks(s) + 1 + 1 + challenge_blocks(s),
                     lane=lambda s: coop_a_issues(s, COOP_VERIFY_ROWS[s.name]))],
        "sign": [K("coop_expand_kernel", "block", warps=4,
                   lane=lambda s: EXPAND_A_BLOCKS * math.ceil(s.k * s.l / 32)),
                 K("prepare_tasks_kernel", "thread", lane=lambda s: 1),
                 K("coop_sign_kernel", "block", warps=4, calls=lambda s: s.attempts,
                   warp=lambda s: s.l * 5 + challenge_blocks(s) + 1)],
    },
}


def pcie_bytes(s, op):
    """(host to device, device to host) bytes per task as the engine stages
    them (kernels/host/device_worker.cc): keygen seeds in, pk out (the caller
    keeps the seed, as the provider and the bulk tool do: KeygenItem's sk null); verify
    pk, signature, mu slot, mode, offset and M' (32-byte message) in, a code
    out; sign (distinct keys) sk, rnd, mu, key index in, signature and best
    attempt out."""
    if op == "keygen":
        return 32, s.pk
    if op == "verify":
        return s.pk + s.sig + 64 + 1 + 4 + 34, 1
    return s.sk + 32 + 64 + 4, s.sig + 4


# cuDilithium's kernels (src/*.cu at its HEAD), the way its API launches them.
CUD_KERNELS = {
    "keygen": [K("gpu_keypair", "warp", local_hbm=False,
                 warp=lambda s: 2 + (s.l + s.k) * (2 if s.eta == 2 else 3) + s.k * s.l * 5 + tr_blocks(s))],
    "sign": [K("notmp_shake_new_kernel", "warp", calls=lambda s: 2, warp=lambda s: 1, local_hbm=False),
             K("polyvec_matrix_expand_opt_kernel", "warp", warp=lambda s: s.k * s.l * 5, local_hbm=False),
             K("unpack_fuse_ntt_radix2_opt_kernel", "block", warps=4, local_hbm=False),
             K("compute_y_opt_kernel", "warp", calls=lambda s: s.attempts, warp=lambda s: s.l * 5, local_hbm=False),
             K("compute_w_128t_kernel", "block", warps=4, calls=lambda s: s.attempts, local_hbm=False),
             K("compute_cp_kernel", "warp", calls=lambda s: s.attempts,
               warp=lambda s: blocks(48 + s.k * 32 * s.w1_bits, SHAKE256_RATE) + 1, local_hbm=False),
             K("rej_loop_128t_kernel", "block", warps=4, calls=lambda s: s.attempts, local_hbm=False)],
    "verify": [K("gpu_verify", "warp", local_hbm=False,
                 warp=lambda s: tr_blocks(s) + 1 + s.k * s.l * 5 + blocks(48 + s.k * 32 * s.w1_bits, SHAKE256_RATE)
                 + 1)],
}


def cud_pcie_bytes(s, op):
    """cuDilithium's copies (src/api.cu; 32-byte messages): keygen pk and sk
    out; sign message and sk in, signature out; verify signature, message
    and pk in, an int out."""
    if op == "keygen":
        return 0, s.pk + s.sk
    if op == "sign":
        return 32 + s.sk, s.sig
    return s.sig + 32 + s.pk, 4


# ---------------------------------------------------------------------------
# Counting a build


def find_objects(build, pattern):
    return sorted(glob.glob(os.path.join(build, "**", pattern), recursive=True))


def count_objects(nvdisasm, objects, sets, params_of, annotate=True):
    """{set name: {kernel short name: {warp index: counts}}} plus registers and
    permutation costs: everything the model needs of a build, as plain data
    (what gpu_model_calibration.json stores for cuDilithium)."""
    out = {}
    for obj in objects:
        for cubin in sc.fatbin_cubins(open(obj, "rb").read()):
            regs = sc.kernel_registers(cubin)
            for kname, funcs in sc.disassemble(nvdisasm, cubin).items():
                short = sc.demangle_short(kname)
                counter = sc.Counter(funcs, kname)
                for s in sets:
                    params = params_of(s)
                    entry = out.setdefault(s.name, {}).setdefault(short, {})
                    if "warps" in entry:
                        continue  # the same kernel in another object (an unused duplicate)
                    lane_cost, warp_cost = counter.permutation_cost(params)
                    warps = []
                    unresolved, estimated = [], []
                    trips = loop_trips(s) if annotate else {}
                    for w in range(4):
                        c = counter.count(params, w, trips, unresolved=unresolved if w == 0 else None,
                                          estimated=estimated if w == 0 else None)
                        warps.append({"insns": c.insns, "local_bytes": c.local, "global_bytes": c.glob})
                    entry.update({"warps": warps, "registers": regs.get(kname, 0),
                                  "lane_permutation": lane_cost, "warp_permutation": warp_cost,
                                  "unresolved_loops": len(unresolved), "estimated_loops": len(estimated)})
    return out


def task_params_of(s):
    return s.task_params


def no_params(s):
    return {}


# ---------------------------------------------------------------------------
# The model


def warps_per_sm(regs, block_threads):
    """Resident warps an SM holds by registers (64 Ki, 256-register
    allocation granules per warp, whole blocks, at most 64 warps)."""
    if regs <= 0:
        return 64
    per_warp = -(-regs * 32 // 256) * 256
    wpb = max(1, block_threads // 32)
    blocks_ = min(65536 // (per_warp * wpb), 64 // wpb)
    return blocks_ * wpb


def kernel_cost(k, s, counts, lane_fallback=None, warp_fallback=None):
    """Per task: warp instructions (hashing and the rest), HBM bytes, and the
    kernel's registers."""
    c = counts[k.name]
    if k.per == "block":
        ws = c["warps"][:k.warps]
        tasks_per_call = 1
    elif k.per == "warp":
        ws = c["warps"][:1]
        tasks_per_call = 1
    else:
        ws = c["warps"][:1]
        tasks_per_call = 32
    rest = sum(w["insns"] for w in ws) / tasks_per_call
    lane_cost = c["lane_permutation"] or lane_fallback or 0
    warp_cost = c["warp_permutation"] or warp_fallback or 0
    lane_perms, warp_perms = k.lane(s), k.warp(s)
    if lane_perms and not lane_cost:
        raise RuntimeError("%s: no one-state permutation found in its SASS" % k.name)
    if warp_perms and not warp_cost:
        raise RuntimeError("%s: no warp-wide permutation found in its SASS" % k.name)
    hashing = (lane_perms * lane_cost + warp_perms * warp_cost) / (32 if k.per == "thread" else 1)
    hbm = sum(w["global_bytes"] + (w["local_bytes"] if k.local_hbm else 0) for w in ws) / tasks_per_call
    calls = k.calls(s)
    return {"kernel": k.name, "calls": calls, "hashing": calls * hashing, "rest": calls * rest,
            "insns": calls * (hashing + rest), "hbm_bytes": calls * hbm, "registers": c["registers"],
            "unresolved_loops": c["unresolved_loops"]}


def operation(kernels, s, counts, op, pcie, factor):
    """The bound and the prediction of one operation: kernels' issue time
    adds up; HBM and each PCIe direction are bounds of their own."""
    # A kernel whose permutation loop the count does not recognise (fused
    # into a bigger loop) is given the same build's cheapest one.
    lane_fb = min((c["lane_permutation"] for c in counts.values() if c["lane_permutation"]), default=None)
    warp_fb = min((c["warp_permutation"] for c in counts.values() if c["warp_permutation"]), default=None)
    costs = [kernel_cost(k, s, counts, lane_fb, warp_fb) for k in kernels]
    insns = sum(c["insns"] for c in costs)
    hbm = sum(c["hbm_bytes"] for c in costs)
    h2d, d2h = pcie(s, op)
    times = {"compute": insns / ISSUE_PER_S / factor, "hbm": hbm / HBM_BYTES_PER_S,
             "pcie_in": h2d / PCIE_BYTES_PER_S, "pcie_out": d2h / PCIE_BYTES_PER_S}
    bound = max(times, key=times.get)
    return {"rate": 1 / times[bound], "bound": bound, "times": times, "insns": insns, "kernels": costs,
            "issue_bound_rate": ISSUE_PER_S / insns}


def fit(cud_counts):
    """The calibration factor from cuDilithium: measured rate x its warp
    instructions per op / the issue rate, per point; one factor, the
    geometric mean. Returns the calibration block."""
    points = {}
    for name, s in DILITHIUM.items():
        for op, kernels in CUD_KERNELS.items():
            r = operation(kernels, s, cud_counts[name], op, cud_pcie_bytes, 1.0)
            points[(name, op)] = (CUDILITHIUM_MEASURED[name][op] / r["issue_bound_rate"], r)
    factor = math.exp(sum(math.log(v) for v, _ in points.values()) / len(points))
    per_op = {op: math.exp(sum(math.log(points[(n, op)][0]) for n in DILITHIUM) / len(DILITHIUM))
              for op in CUD_KERNELS}
    rows = []
    for (name, op), _ in points.items():
        r = operation(CUD_KERNELS[op], DILITHIUM[name], cud_counts[name], op, cud_pcie_bytes, factor)
        measured = CUDILITHIUM_MEASURED[name][op]
        rows.append({"set": name, "op": op, "measured": measured, "model": r["rate"], "bound": r["bound"],
                     "residual": r["rate"] / measured - 1, "warp_insns_per_op": r["insns"]})
    return {"factor": factor, "per_operation_factors": per_op, "fitted_on": "cuDilithium (encryptorion-lab) "
            "Dilithium2/3/5 keygen, sign, verify measured on an H200, batch 10k, 10 streams, transfers included",
            "note": CALIBRATION_NOTE, "tolerance": CALIBRATION_TOLERANCE, "points": rows}


def load_calibration(path):
    with open(path) as f:
        return json.load(f)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="a build directory configured with CUDA on (sm_90)")
    ap.add_argument("--nvdisasm", help="nvdisasm to use (default: $NVDISASM, PATH, /usr/local/cuda/bin, "
                    "scripts/fetch-cuda-tools.sh's cache)")
    ap.add_argument("--calibration", default=os.path.join(here, "gpu_model_calibration.json"))
    ap.add_argument("--cudilithium", help="a cuDilithium build directory (sm_90): recount it instead of "
                    "reading --calibration")
    ap.add_argument("--write-calibration", help="write cuDilithium's counts to this file (with --cudilithium)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check", action="store_true", help="exit 1 unless every set/kernels/operation has a positive "
                    "finite rate and the calibrated model reproduces cuDilithium's rates within the tolerance")
    ap.add_argument("--breakdown", action="store_true", help="per kernel: instructions, share, bound")
    ap.add_argument("--loops", metavar="KERNEL", help="list a kernel's loops and their trip counts (ML-DSA-44)")
    args = ap.parse_args()

    nvdisasm = sc.find_nvdisasm(args.nvdisasm)
    if nvdisasm is None:
        print("skipped: no nvdisasm (scripts/fetch-cuda-tools.sh fetches one; or set NVDISASM)")
        return 77
    objects = find_objects(args.build, "mldsa_cuda_device.dir/global/*.cu.o")
    if not objects:
        print("skipped: no CUDA objects in %s (configure with -DMLDSA_ACCEL_CUDA=ON, sm_90, and build "
              "mldsa_cuda_device)" % args.build)
        return 77

    if args.loops:
        for obj in objects:
            for cubin in sc.fatbin_cubins(open(obj, "rb").read()):
                for kname, funcs in sc.disassemble(nvdisasm, cubin).items():
                    if sc.demangle_short(kname) == args.loops:
                        print("\n".join(sc.loop_report(sc.Counter(funcs, kname), SETS[0].task_params)))
        return 0

    if args.cudilithium:
        cud_counts = {}
        for name, s in DILITHIUM.items():
            objs = find_objects(args.cudilithium, "cuDilithium%s.dir/*.cu.o" % name[-1])
            if not objs:
                print("no cuDilithium%s objects under %s" % (name[-1], args.cudilithium))
                return 1
            cud_counts.update(count_objects(nvdisasm, objs, [s], no_params))
        if args.write_calibration:
            with open(args.write_calibration, "w") as f:
                json.dump({"made_by": "python3 bench/gpu_model.py --cudilithium DIR --write-calibration FILE, DIR a "
                           "build of github encryptorion-lab/cuDilithium (HEAD 65402a7) for sm_90 with CUDA 13.0 "
                           "(cmake -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real; targets "
                           "cuDilithium2 cuDilithium3 cuDilithium5), counted by bench/sass_count.py",
                           "counts": cud_counts}, f, indent=1, sort_keys=True)
                f.write("\n")
    else:
        cud_counts = load_calibration(args.calibration)["counts"]

    ours = count_objects(nvdisasm, objects, SETS, task_params_of)
    cal = fit(cud_counts)
    factor = cal["factor"]
    result = {}
    details = {}
    for s in SETS:
        for kset, ops in KERNEL_SETS.items():
            for op, kernels in ops.items():
                r = operation(kernels, s, ours[s.name], op, pcie_bytes, factor)
                result.setdefault(s.name, {}).setdefault(kset, {})[op] = r["rate"]
                details[(s.name, kset, op)] = r
    unresolved = {k: v["unresolved_loops"] for k, v in ours[SETS[0].name].items()}

    if args.check:
        bad = []
        for s in SETS:
            for kset, ops in KERNEL_SETS.items():
                for op in ("keygen", "sign", "verify"):
                    r = result.get(s.name, {}).get(kset, {}).get(op)
                    if r is None or not math.isfinite(r) or r <= 0:
                        bad.append("%s %s %s: %r" % (s.name, kset, op, r))
        for p in cal["points"]:
            if abs(p["residual"]) > CALIBRATION_TOLERANCE:
                bad.append("cuDilithium %s %s: model %.3g vs measured %.3g (%+.0f%%, tolerance %.0f%%)" % (
                    p["set"], p["op"], p["model"], p["measured"], 100 * p["residual"], 100 * CALIBRATION_TOLERANCE))
        known = ours[KNOWN_COUNT["set"]].get(KNOWN_COUNT["kernel"])
        if known is None:
            bad.append("%s: not in the build" % KNOWN_COUNT["kernel"])
        else:
            got = known["warps"][0]["insns"]
            drift = got / KNOWN_COUNT["insns"] - 1
            print("known count: %s %s warp 0: %.0f instructions outside hashing (recorded %d, %+.2f%%), %d "
                  "unresolved loops (recorded %d)" % (KNOWN_COUNT["kernel"], KNOWN_COUNT["set"], got,
                                                      KNOWN_COUNT["insns"], 100 * drift, known["unresolved_loops"],
                                                      KNOWN_COUNT["unresolved_loops"]))
            if abs(drift) > KNOWN_COUNT["tolerance"] or known["unresolved_loops"] > KNOWN_COUNT["unresolved_loops"]:
                bad.append("%s count drifted: %.0f vs %d recorded (tolerance %.0f%%), %d unresolved loops vs %d" % (
                    KNOWN_COUNT["kernel"], got, KNOWN_COUNT["insns"], 100 * KNOWN_COUNT["tolerance"],
                    known["unresolved_loops"], KNOWN_COUNT["unresolved_loops"]))
        worst = max(abs(p["residual"]) for p in cal["points"])
        print("gpu model check: %d sets x %d kernel sets x 3 operations, calibration factor %.3f, worst cuDilithium "
              "residual %.0f%% (tolerance %.0f%%)" % (len(SETS), len(KERNEL_SETS), factor, 100 * worst,
                                                    100 * CALIBRATION_TOLERANCE))
        for b in bad:
            print("FAILED: " + b)
        return 1 if bad else 0

    if args.json:
        out = dict(result)
        out["calibration"] = {k: v for k, v in cal.items()}
        out["calibration"]["unresolved_loops"] = unresolved
        out["prediction"] = True
        print(json.dumps(out, indent=1, sort_keys=True))
        return 0

    print("GPU cost model: PREDICTED rates on one H200 (ops/s, end to end; no GPU ran this).")
    print("calibration factor %.3f (fraction of the issue-slot bound; fitted on cuDilithium, see below)" % factor)
    print()
    ksets = list(KERNEL_SETS)
    print("| set | operation | " + " | ".join("%s (predicted)" % k for k in ksets) +
          " | goal | CPU, 1 Zen 5 core (measured) | bound (" + " / ".join(ksets) + ") |")
    print("|---|---|" + "---:|" * len(ksets) + "---:|---:|---|")
    for s in SETS:
        for op in ("keygen", "sign", "verify"):
            rs = [details[(s.name, k, op)] for k in ksets]
            print("| %s | %s | %s | %.1f M | %.1f k | %s |" % (
                s.name, op, " | ".join("%.2f M" % (r["rate"] / 1e6) for r in rs), GOALS[s.name][op] / 1e6,
                1e3 / CPU_US_PER_CALL[s.name][op], " / ".join(r["bound"] for r in rs)))
    best = {}
    for s in SETS:
        for op in ("keygen", "sign", "verify"):
            k = max(ksets, key=lambda k: details[(s.name, k, op)]["rate"])
            best[k] = best.get(k, 0) + 1
    print()
    print("fastest predicted, of the 9 set/operation pairs: " + ", ".join("%s %d" % kv for kv in sorted(best.items())))
    print()
    print("calibration on cuDilithium (model with the factor vs measured on an H200):")
    print("| set | operation | measured | model | residual | bound |")
    print("|---|---|---:|---:|---:|---|")
    for p in cal["points"]:
        print("| %s | %s | %.2f M | %.2f M | %+.0f%% | %s |" % (p["set"], p["op"], p["measured"] / 1e6,
                                                                p["model"] / 1e6, 100 * p["residual"], p["bound"]))
    print("per-operation factors (not applied): " + ", ".join("%s %.3f" % kv for kv in cal["per_operation_factors"].items()))
    print("loops the SASS count could not solve (counted once per entry), ML-DSA-44: " +
          ", ".join("%s %d" % kv for kv in sorted(unresolved.items()) if kv[1]))
    if args.breakdown:
        for s in SETS[:1] if not args.json else SETS:
            for kset in KERNEL_SETS:
                for op in ("keygen", "sign", "verify"):
                    r = details[(s.name, kset, op)]
                    print()
                    print("%s %s %s: predicted %.2f M/s, bound by %s (compute %.0f ns, HBM %.0f ns, PCIe in %.0f ns,"
                          " out %.0f ns per op)" % (s.name, kset, op, r["rate"] / 1e6, r["bound"],
                                                    *(1e9 * r["times"][x] for x in ("compute", "hbm", "pcie_in", "pcie_out"))))
                    print("| kernel | calls/op | warp insns/op | hashing | rest | share of issue time | HBM bytes/op | registers | warps/SM |")
                    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
                    for c in r["kernels"]:
                        k = next(k for k in KERNEL_SETS[kset][op] if k.name == c["kernel"])
                        print("| %s | %.2f | %.0f | %.0f | %.0f | %.0f%% | %.0f | %d | %d |" % (
                            c["kernel"], c["calls"], c["insns"], c["hashing"], c["rest"], 100 * c["insns"] / r["insns"],
                            c["hbm_bytes"], c["registers"], warps_per_sm(c["registers"], 128)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
