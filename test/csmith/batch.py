#!/usr/bin/env python3
"""Runs the csmith differential test (differential.py) over many seeds in parallel.

Writes OUT/results.jsonl (one record per seed) and, for every failing seed, keeps its work
directory OUT/seed-N (csmith program, pragma'd program, logs) and appends the reproduction
command to OUT/failures.txt. Prints one line per seed and the summary line
"csmith: N seeds, P passed, F failed, S skipped".

Usage: batch.py --c3cc PATH --out DIR (--seeds 1,2,3 | --start N --count M) [--jobs 2]
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import differential  # noqa: E402


def describe(record):
    kills = ",".join(record["kills"]) or "-"
    text = (f"seed {record['seed']}: {record['verdict'].upper()} {record['opt']} "
            f"pragmas={record['pragmas']} (forced {record['forced']}) "
            f"visits={record.get('visits')} "
            f"committed={record['committed']} frames={record.get('max_frames', 0)} "
            f"kills={kills} runs={record['runs']} "
            f"{record['seconds']}s")
    if record.get("csmith_options"):
        text += f" [csmith {record['csmith_options']}]"
    if record["reason"]:
        text += f" -- {record['reason']}"
    return text


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--c3cc", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", help="comma-separated seeds")
    parser.add_argument("--start", type=int, default=1)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--ref-timeout", type=float, default=5.0)
    parser.add_argument("--min-passed", type=int, default=0,
                        help="fail unless at least this many seeds pass (guards against a "
                             "batch that silently skips everything)")
    parser.add_argument("--keep-all", action="store_true", help="keep every seed's work directory")
    args = parser.parse_args(argv)

    seeds = ([int(s) for s in args.seeds.split(",") if s.strip()] if args.seeds
             else list(range(args.start, args.start + args.count)))
    c3cc = os.path.abspath(args.c3cc)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    results_path = os.path.join(out, "results.jsonl")
    failures_path = os.path.join(out, "failures.txt")
    open(results_path, "w").close()
    open(failures_path, "w").close()
    lock = threading.Lock()

    def one(seed):
        work = os.path.join(out, f"seed-{seed}")
        shutil.rmtree(work, ignore_errors=True)
        record = differential.SeedTest(c3cc, seed, work, args.ref_timeout).run()
        record["repro"] = differential.reproduce_command(c3cc, seed, work)
        with lock:
            with open(results_path, "a") as f:
                f.write(json.dumps(record) + "\n")
            if record["verdict"] == "fail":
                with open(failures_path, "a") as f:
                    f.write(f"seed {seed}: {record['reason']}\n  {record['detail']}\n"
                            f"  files: {work}\n  reproduce: {record['repro']}\n")
            print(describe(record), flush=True)
        if record["verdict"] != "fail" and not args.keep_all:
            shutil.rmtree(work, ignore_errors=True)
        return record

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        records = list(pool.map(one, seeds))

    counts = {v: sum(1 for r in records if r["verdict"] == v)
              for v in ("pass", "fail", "skip", "unsupported")}
    print(f"csmith: {len(records)} seeds, {counts['pass']} passed, {counts['fail']} failed, "
          f"{counts['skip'] + counts['unsupported']} skipped")
    if counts["unsupported"]:
        print(f"csmith: {counts['unsupported']} of the skipped hit a documented unsupported "
              "construct:")
        for r in records:
            if r["verdict"] == "unsupported":
                print(f"  seed {r['seed']}: {r['detail']}")
    skipped = {}
    for r in records:
        if r["verdict"] == "skip":
            skipped[r["reason"]] = skipped.get(r["reason"], 0) + 1
    for reason, n in sorted(skipped.items()):
        print(f"  skipped {n}: {reason}")
    if counts["fail"]:
        print("failing seeds:")
        for r in records:
            if r["verdict"] == "fail":
                print(f"  seed {r['seed']}: {r['reason']}\n    {r['detail']}\n    {r['repro']}")
        print(f"record of the failures: {failures_path}")
    ok = counts["fail"] == 0 and counts["pass"] >= args.min_passed
    if counts["pass"] < args.min_passed:
        print(f"csmith: only {counts['pass']} seeds passed, expected at least {args.min_passed}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
