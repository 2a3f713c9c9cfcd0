#!/usr/bin/env python3
"""Static sanity checks for sample cases (no interpreter needed).

usage: python3 samples/validate.py [CASE_DIR...]   (default: every folder with a case.json)

Checks, for kernel.G.ptx and kernel.O3.ptx: launch.json's kernel is an .entry of the module,
the .entry parameter list matches launch.json's args (count, order, .u64 for buffers, scalar
sizes, .align N .b8 name[size] for "bytes" structs); every in/ and expected/ file is exactly
count * elemsize bytes and belongs to a buffer arg; kernel.cu line 1 is a comment; lines named
in case.json exist in kernel.cu; non-ok cases have no expected/*.bin.
"""
import json
import os
import re
import sys

SIZES = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "u32": 4, "s32": 4, "u64": 8, "s64": 8,
         "f16": 2, "f32": 4, "f64": 8}


def entry_params(ptx, name):
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    if not m:
        return None
    params = []
    for p in m.group(1).split(","):
        p = p.strip()
        if not p:
            continue
        a = re.match(r"\.param\s+\.align\s+(\d+)\s+\.b8\s+\S+\[(\d+)\]", p)
        if a:
            params.append(("bytes", int(a.group(2))))
            continue
        s = re.match(r"\.param\s+\.([busf])(\d+)\s+(\.ptr\s+\S+\s+)?\S+", p)
        if not s:
            params.append(("?", p))
            continue
        params.append((s.group(1), int(s.group(2)) // 8))
    return params


def check(case):
    errs = []
    launch = json.load(open(os.path.join(case, "launch.json")))
    meta = json.load(open(os.path.join(case, "case.json")))
    src = open(os.path.join(case, "kernel.cu")).read().split("\n")
    if not src[0].startswith("//"):
        errs.append("kernel.cu line 1 is not a comment")
    for key in ("grid", "block"):
        if len(launch[key]) != 3:
            errs.append(f"{key} needs 3 numbers")
    nthreads = launch["block"][0] * launch["block"][1] * launch["block"][2]
    if nthreads > 1024:
        errs.append("block larger than 1024 threads")
    for build in ("G", "O3"):
        ptx = open(os.path.join(case, f"kernel.{build}.ptx")).read()
        params = entry_params(ptx, launch["kernel"])
        if params is None:
            errs.append(f"{build}: no .entry {launch['kernel']}")
            continue
        args = launch["args"]
        if len(params) != len(args):
            errs.append(f"{build}: {len(params)} params, launch.json has {len(args)} args")
        for i, (p, a) in enumerate(zip(params, args)):
            if "count" in a:
                if p != ("u", 8) and p != ("b", 8):
                    errs.append(f"{build}: arg {i} {a['name']} is a buffer but param is {p}")
                if a["type"] not in SIZES:
                    errs.append(f"arg {a['name']}: bad type {a['type']}")
            elif a["type"] == "bytes":
                if p != ("bytes", len(a["value"])):
                    errs.append(f"{build}: arg {i} {a['name']} bytes[{len(a['value'])}] vs param {p}")
            else:
                if p[1] != SIZES[a["type"]]:
                    errs.append(f"{build}: arg {i} {a['name']} {a['type']} vs param {p}")
                if a["type"][0] == "f" and p[0] not in ("f", "b"):
                    errs.append(f"{build}: arg {i} {a['name']} float vs param {p}")
    bufs = {a["name"]: a for a in launch["args"] if "count" in a}
    for a in bufs.values():
        if "file" in a:
            path = os.path.join(case, a["file"])
            if not os.path.exists(path):
                errs.append(f"missing {a['file']}")
            elif os.path.getsize(path) != a["count"] * SIZES[a["type"]]:
                errs.append(f"{a['file']}: {os.path.getsize(path)} bytes, want {a['count'] * SIZES[a['type']]}")
    exp = os.path.join(case, "expected")
    expect = meta.get("expect", "ok")
    if os.path.isdir(exp):
        for f in os.listdir(exp):
            if f == "stdout.txt":
                continue
            name = f[:-4]
            if not f.endswith(".bin") or name not in bufs:
                errs.append(f"expected/{f} is not a buffer of launch.json")
                continue
            if expect != "ok":
                errs.append(f"expected/{f} present although expect is {expect}")
            a = bufs[name]
            if os.path.getsize(os.path.join(exp, f)) != a["count"] * SIZES[a["type"]]:
                errs.append(f"expected/{f}: wrong size")
    if expect == "ok" and not (os.path.isdir(exp) and os.listdir(exp)):
        errs.append("expect ok but expected/ is empty")
    lines = []
    if "faultLine" in meta:
        lines.append(meta["faultLine"])
    for r in meta.get("races", []):
        lines += r["lines"]
    for ln in lines:
        if not (1 <= ln <= len(src)) or not src[ln - 1].strip():
            errs.append(f"case.json names line {ln}, which is empty or missing in kernel.cu")
    for k in meta.get("tolerance", {}):
        if k not in bufs:
            errs.append(f"tolerance for unknown buffer {k}")
    return errs


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    cases = sys.argv[1:] or sorted(os.path.join(root, d) for d in os.listdir(root)
                                   if os.path.exists(os.path.join(root, d, "case.json")))
    bad = 0
    for c in cases:
        errs = check(c)
        print(("OK  " if not errs else "BAD ") + os.path.basename(os.path.normpath(c)))
        for e in errs:
            print("    " + e)
        bad += bool(errs)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
