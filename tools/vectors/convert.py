#!/usr/bin/env python3
"""Convert NIST ACVP ML-DSA JSON vectors into the flat text files tests/core reads.

Output format (one file per ACVP vector set):
  - lines starting with '#' are comments; the header states the source and the
    number of records ("# records = N"), which the C++ reader checks;
  - a record is a run of "key = value" lines (value: hex, a decimal number, a
    name, or true/false; it may be empty, e.g. an empty context); records are
    separated by one blank line;
  - every record carries its group's options (tgId, parameterSet, ...) so each
    record is self-contained and no JSON parser is needed in C++.

sigGen sets are trimmed to keep the repository small; see tests/vectors/README.md.
Standard library only.

Usage: tools/vectors/convert.py SRC_ACVP_DIR OUT_DIR
"""
import argparse
import json
import os
import sys

SOURCE = ("NIST ACVP-Server gen-val/json-files, tag v1.1.0.43, "
          "commit 975de31eb83d87039ec88934fdc47d8c312b892d")

# Group options copied into each record, in this order, when the group has them.
GROUP_KEYS = ["tgId", "parameterSet", "keyFormat", "signatureInterface", "preHash",
              "externalMu", "deterministic"]
# Test fields, in this order. 'reason' only exists in sigVer's internalProjection.
TEST_KEYS = ["tcId", "seed", "sk", "pk", "hashAlg", "context", "message", "mu", "rnd",
             "signature", "testPassed", "reason"]

# Cases kept per sigGen group (see README for why), by vector set.
SIGGEN_KEEP = {"ML-DSA-sigGen-FIPS204": 3, "ML-DSA-sigGen-FIPS204-tr1": 4}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def fmt(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def merge_answers(prompt, answers):
    """Copies each answer field into the prompt test with the same (tgId, tcId)."""
    by_id = {(g["tgId"], t["tcId"]): t for g in answers["testGroups"] for t in g["tests"]}
    for g in prompt["testGroups"]:
        for t in g["tests"]:
            for k, v in by_id[(g["tgId"], t["tcId"])].items():
                t.setdefault(k, v)
    return prompt


def select_siggen(groups, keep):
    """Keeps `keep` cases per group in tcId order, except in preHash groups, where
    cases are picked one at a time preferring a hashAlg not yet kept for the
    parameter set, then one not yet kept in the whole set, so that every hashAlg
    stays covered (per parameter set where there are enough slots)."""
    per_set, in_file = {}, set()
    for g in groups:
        tests = sorted(g["tests"], key=lambda t: t["tcId"])
        if g.get("preHash") != "preHash":
            g["tests"] = tests[:keep]
            continue
        seen = per_set.setdefault(g["parameterSet"], set())
        chosen = []
        for _ in range(min(keep, len(tests))):
            best = min(tests, key=lambda t: (t["hashAlg"] in seen, t["hashAlg"] in in_file, t["tcId"]))
            tests.remove(best)
            chosen.append(best)
            seen.add(best["hashAlg"])
            in_file.add(best["hashAlg"])
        g["tests"] = sorted(chosen, key=lambda t: t["tcId"])
    return groups


def write_set(out_path, name, data, note):
    records = []
    for g in data["testGroups"]:
        for t in g["tests"]:
            lines = [f"{k} = {fmt(g[k])}" for k in GROUP_KEYS if k in g]
            lines += [f"{k} = {fmt(t[k])}" for k in TEST_KEYS if k in t]
            unknown = set(t) - set(TEST_KEYS) - {"deferred"}
            if unknown:
                sys.exit(f"{name}: unexpected test fields {sorted(unknown)}")
            records.append("\n".join(lines))
    with open(out_path, "w", encoding="ascii", newline="\n") as f:
        f.write(f"# ML-DSA {data['mode']} ({data['revision']}) from {name}\n")
        f.write(f"# Source: {SOURCE}. Courtesy of NIST; see tests/vectors/README.md.\n")
        f.write(f"# {note}\n")
        f.write(f"# records = {len(records)}\n\n")
        f.write("\n\n".join(records))
        f.write("\n")
    return len(records)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", help="folder holding ML-DSA-*-FIPS204*/ (e.g. /work/shared/vectors/acvp)")
    ap.add_argument("out", help="output folder (tests/vectors)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    sets = [
        # (source folder, output file, loader)
        ("ML-DSA-keyGen-FIPS204", "keyGen.txt", "projection"),
        ("ML-DSA-sigVer-FIPS204", "sigVer.txt", "projection"),
        ("ML-DSA-sigGen-FIPS204", "sigGen.txt", "prompt+answers"),
        ("ML-DSA-sigGen-FIPS204-tr1", "sigGen-tr1.txt", "prompt+answers"),
    ]
    for folder, out_name, how in sets:
        src = os.path.join(args.src, folder)
        if how == "projection":
            # internalProjection has inputs and answers (and, for sigVer, the reason).
            data = load(os.path.join(src, "internalProjection.json"))
            if data["mode"] == "sigVer":
                # The signer's sk is server-side extra; a verifier never sees it.
                for g in data["testGroups"]:
                    for t in g["tests"]:
                        del t["sk"]
            note = "All test cases."
        else:
            data = merge_answers(load(os.path.join(src, "prompt.json")),
                                 load(os.path.join(src, "expectedResults.json")))
            keep = SIGGEN_KEEP[folder]
            select_siggen(data["testGroups"], keep)
            note = (f"Trimmed: {keep} cases per group; preHash groups prefer hashAlgs not yet "
                    f"kept for the parameter set.")
        n = write_set(os.path.join(args.out, out_name), folder, data, note)
        print(f"{out_name}: {n} records")


if __name__ == "__main__":
    main()
