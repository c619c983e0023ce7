#!/usr/bin/env python3
"""One seed of the csmith differential test of c3.

The csmith program built with gcc is the reference. The same program with checkpoint pragmas
inserted at random statement positions is built with c3cc at a random -O level; it must print
exactly the reference output when it runs uninterrupted, and also when it is killed (a C3_FAULT
or an external SIGKILL) and restarted with C3_RESTART=auto, appending to the same output file,
until it exits 0.

Every random choice derives from the seed, so a seed reproduces its test; only the external
SIGKILL's moment and time-triggered (C3_INTERVAL) checkpoints depend on timing.

Usage: differential.py --c3cc PATH --seed N [--work DIR] [--keep]
"""
import argparse
import glob
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import insert_pragmas  # noqa: E402

CSMITH = "csmith"
CSMITH_INCLUDE = "/usr/include/csmith"
REFERENCE_CC = "gcc"
CLANG = "clang-14"
MAX_CHECKPOINTS = 200   # per run; more means the pragma layout is thinned out
LAYOUT_ATTEMPTS = 4
MAX_RESTARTS = 6        # restarts after the planned kills before giving up
ALL_SITES = 1 << 30      # a pragma count meaning "at every position"
SIGKILL_MIN_SECONDS = 0.05  # shorter runs are killed with C3_FAULT only
FAULT_KINDS = ("after-commit", "mid-write", "before-commit", "site", "sigkill")

# c3-precompile errors about constructs docs/architecture.md and the precompiler list as
# unsupported (CheckUnsupported.cpp, RenameMain.cpp): a csmith program hitting one is reported,
# not failed.
UNSUPPORTED_PATTERNS = [
    r"variable-length array '.*' in function '.*', which can reach a checkpoint",
    r"thread-local variable",
    r"alloca\(\) in function '.*', which can reach a checkpoint",
    r"'(_?setjmp|__sigsetjmp|sigsetjmp|_?longjmp|siglongjmp|__longjmp_chk)' in function",
    r"computed goto in a function that can reach a checkpoint",
    r"local (type|typedef)( '.*')? declared in function '.*', which can reach a checkpoint",
    r"variadic function '.*' can reach a checkpoint",
    r"main\(\) with more than three parameters",
]

CHECKPOINT_LINE = re.compile(r"^c3: checkpoint (\d+) at ([^:]*):(\d+):", re.M)


class Outcome(Exception):
    """Ends a seed's test early with a verdict."""

    def __init__(self, verdict, reason, detail=""):
        super().__init__(reason)
        self.verdict, self.reason, self.detail = verdict, reason, detail


def _run(cmd, timeout, **kwargs):
    try:
        return subprocess.run(cmd, capture_output=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        return None


def _tail(data, lines=12):
    text = data.decode(errors="replace") if isinstance(data, bytes) else data
    return "\n".join(text.rstrip("\n").split("\n")[-lines:])


def _first_difference(expected, actual):
    exp, act = expected.split(b"\n"), actual.split(b"\n")
    for number, (e, a) in enumerate(zip(exp, act), 1):
        if e != a:
            return f"line {number}: expected {e[:80]!r}, got {a[:80]!r}"
    return (f"expected {len(expected)} bytes ({len(exp)} lines), "
            f"got {len(actual)} bytes ({len(act)} lines)")


def unsupported_message(stderr_text):
    """The c3 diagnostic when every error in `stderr_text` is a documented unsupported construct
    (with its hint note), else None."""
    errors = [line for line in stderr_text.split("\n") if " error: " in line]
    if not errors or "note: hint:" not in stderr_text:
        return None
    for line in errors:
        message = line.split(" error: ", 1)[1]
        if not any(re.search(p, message) for p in UNSUPPORTED_PATTERNS):
            return None
    return errors[0]


# csmith options some seeds add to the defaults, for programs of other shapes.
CSMITH_EXTRA_OPTIONS = [
    ["--float"], ["--inline-function"], ["--builtins"], ["--random-random"],
    ["--max-funcs", "20"], ["--max-block-depth", "7"], ["--max-expr-complexity", "15"],
    ["--no-packed-struct"], ["--check-global"],
]


class Plan:
    """The random choices for one seed."""

    def __init__(self, seed):
        rng = random.Random(seed * 7919 + 17)
        self.rng = rng
        self.csmith_options = []
        if rng.random() < 0.5:
            for option in rng.sample(CSMITH_EXTRA_OPTIONS, rng.randint(1, 4)):
                self.csmith_options += option
        if "--float" in self.csmith_options and "--check-global" in self.csmith_options:
            # --check-global prints float globals converted to int: undefined when out of range.
            self.csmith_options.remove("--check-global")
        # --builtins emits SSE4.2 builtins (crc32), which clang accepts only for such a target.
        self.cflags = ["-msse4.2"] if "--builtins" in self.csmith_options else []
        self.opt = rng.choice(["-O0", "-O1", "-O2"])
        # Some seeds get many pragmas, or one at every possible position (the forced ones stay
        # bounded): more functions reach a checkpoint, so more code is transformed.
        shape = rng.random()
        self.pragma_count = (ALL_SITES if shape < 0.1 else
                             rng.randint(20, 60) if shape < 0.3 else rng.randint(1, 12))
        self.interval = rng.choice([None, None, None, "0.001", "0.005", "0.05"])
        self.force_ratio = rng.choice([0.3, 0.6, 1.0])
        self.main_site = rng.random() < 0.6
        self.keep = rng.choice([1, 2, 2, 3])
        self.layout_seed = rng.randrange(1 << 30)
        self.kill_count = rng.choice([1, 1, 1, 2, 3])
        self.kill_seed = rng.randrange(1 << 30)


class SeedTest:
    def __init__(self, c3cc, seed, work, ref_timeout=5.0, log=None):
        self.c3cc = c3cc
        self.seed = seed
        self.work = work
        self.ref_timeout = ref_timeout
        self.plan = Plan(seed)
        self.log = log or (lambda message: None)
        self.record = {"seed": seed, "csmith_options": " ".join(self.plan.csmith_options),
                       "opt": self.plan.opt, "interval": self.plan.interval,
                       "keep": self.plan.keep, "pragmas": 0, "forced": 0, "visits": None,
                       "committed": 0,
                       "kills": [], "runs": 0, "verdict": None, "reason": "", "detail": ""}

    def cflags(self):
        return ["-w", "-I" + CSMITH_INCLUDE] + self.plan.cflags

    def path(self, name):
        return os.path.join(self.work, name)

    # --- reference ------------------------------------------------------------------------

    def make_reference(self):
        result = _run([CSMITH, "--seed", str(self.seed)] + self.plan.csmith_options, 60)
        if result is None:
            raise Outcome("skip", "csmith runs longer than 60 s")
        if result.returncode != 0:
            raise Outcome("skip", "csmith failed")
        with open(self.path("orig.c"), "wb") as f:
            f.write(result.stdout)
        result = _run([REFERENCE_CC, "-O1", *self.cflags(), self.path("orig.c"),
                       "-o", self.path("ref")], 120)
        if result is None or result.returncode != 0:
            raise Outcome("skip", "reference does not compile")
        start = time.monotonic()
        result = _run([self.path("ref"), "1"], self.ref_timeout, cwd=self.work)
        self.ref_seconds = time.monotonic() - start
        if result is None:
            raise Outcome("skip", f"reference runs longer than {self.ref_timeout:g} s")
        if result.returncode != 0:
            raise Outcome("skip", f"reference exits with {result.returncode}")
        self.expected = result.stdout
        with open(self.path("ref.out"), "wb") as f:
            f.write(self.expected)
        # Generous: checkpoints cost time, -O0 is slower than gcc -O1.
        self.run_timeout = max(30.0, 30 * self.ref_seconds)

    def clang_compiles(self):
        result = _run([CLANG, self.plan.opt, *self.cflags(), self.path("orig.c"),
                       "-o", self.path("clang-ref")], 300)
        return result is not None and result.returncode == 0

    def clang_output(self):
        """What plain clang-14 at the c3 build's -O level prints, or None when it cannot build
        or run the original program."""
        if not self.clang_compiles():
            return None
        result = _run([self.path("clang-ref"), "1"], self.run_timeout, cwd=self.work)
        return result.stdout if result is not None and result.returncode == 0 else None

    # --- c3 build ---------------------------------------------------------------------------

    def write_layout(self, chosen):
        with open(self.path("orig.c")) as f:
            text = f.read()
        with open(self.path("prog.c"), "w") as f:
            f.write(insert_pragmas.insert(text, chosen))
        self.record["pragmas"] = len(chosen)
        self.record["forced"] = sum(1 for _, force in chosen if force)
        # prog.c line of each pragma, 1-based, for matching the runtime's "at prog.c:LINE".
        self.pragma_lines = {}
        inserted_before = 0
        for site, force in chosen:
            self.pragma_lines[site.line + inserted_before + 1] = (site, force)
            inserted_before += 1

    def profile(self, sites):
        """How often an uninterrupted run passes each site: orig.c built with gcc and a counter
        at every site. Returns the list of counts, or None when that build fails."""
        with open(self.path("orig.c")) as f:
            lines = f.read().split("\n")
        at = {site.line: i for i, site in enumerate(sites)}
        counted = ["#include <stdio.h>",
                   f"static unsigned long long c3_csmith_visits[{len(sites)}];",
                   "static void __attribute__((destructor)) c3_csmith_report(void)",
                   "{ for (unsigned i = 0; i < sizeof c3_csmith_visits / sizeof *c3_csmith_visits;"
                   " i++) fprintf(stderr, \"%llu\\n\", c3_csmith_visits[i]); }",
                   "#line 1"]
        for number, line in enumerate(lines):
            if number in at:
                counted.append(f"c3_csmith_visits[{at[number]}]++;")
            counted.append(line)
        with open(self.path("profile.c"), "w") as f:
            f.write("\n".join(counted))
        result = _run([REFERENCE_CC, "-O1", *self.cflags(), self.path("profile.c"),
                       "-o", self.path("profile")], 120)
        if result is None or result.returncode != 0:
            return None
        result = _run([self.path("profile"), "1"], self.ref_timeout * 2, cwd=self.work)
        if result is None or result.returncode != 0 or result.stdout != self.expected:
            return None
        counts = [int(n) for n in result.stderr.split()]
        return counts if len(counts) == len(sites) else None

    def build(self):
        cmd = [self.c3cc, self.plan.opt, *self.cflags(), self.path("prog.c"),
               "-o", self.path("prog")]
        self.build_command = " ".join(cmd)
        result = _run(cmd, 600)
        if result is None:
            raise Outcome("fail", "c3cc timed out", self.build_command)
        if result.returncode != 0:
            text = result.stderr.decode(errors="replace")
            with open(self.path("c3cc.err"), "w") as f:
                f.write(text)
            if not self.clang_compiles():
                raise Outcome("skip", "clang-14 does not compile the original program")
            message = unsupported_message(text)
            if message:
                raise Outcome("unsupported", "c3cc: documented unsupported construct", message)
            raise Outcome("fail", "c3cc failed", _tail(text))

    # --- runs -------------------------------------------------------------------------------

    def env(self, ckpt_dir, fault=None, restart=False):
        env = dict(os.environ)
        for name in ("C3_FAULT", "C3_RESTART", "C3_INTERVAL", "C3_KEEP"):
            env.pop(name, None)
        env.update({"C3_CKPT_DIR": ckpt_dir, "C3_VERBOSE": "1", "C3_KEEP": str(self.plan.keep)})
        if self.plan.interval:
            env["C3_INTERVAL"] = self.plan.interval
        if fault:
            env["C3_FAULT"] = fault
        if restart:
            env["C3_RESTART"] = "auto"
        return env

    def run_program(self, out_path, err_path, env, append, kill_after=None, count_limit=None):
        """Runs the c3 build; returns (returncode or 'timeout' or 'too-many', seconds).
        `kill_after` sends SIGKILL after that many seconds; `count_limit` kills the run once it
        has committed more checkpoints than that."""
        with open(out_path, "ab" if append else "wb") as out, open(err_path, "wb") as err:
            start = time.monotonic()
            proc = subprocess.Popen([self.path("prog"), "1"], stdout=out, stderr=err, env=env,
                                    cwd=self.work)
            status = None
            while True:
                try:
                    code = proc.wait(timeout=0.02)
                    break
                except subprocess.TimeoutExpired:
                    pass
                elapsed = time.monotonic() - start
                if kill_after is not None and elapsed >= kill_after:
                    proc.send_signal(signal.SIGKILL)
                    kill_after = None
                elif elapsed > self.run_timeout:
                    proc.kill()
                    status = "timeout"
                elif count_limit is not None and self.committed(err_path) > count_limit:
                    proc.kill()
                    status = "too-many"
            return (status or code), time.monotonic() - start

    @staticmethod
    def committed(err_path):
        with open(err_path, "rb") as f:
            return f.read().count(b" committed (")

    @staticmethod
    def has_committed_checkpoint(ckpt_dir):
        return bool(glob.glob(os.path.join(ckpt_dir, "ckpt.*", "COMMITTED")))

    def uninterrupted(self, layout_rng, sites):
        """Finds a pragma layout that commits at most MAX_CHECKPOINTS checkpoints, and checks
        the uninterrupted output."""
        visits = self.profile(sites)
        if visits is None:
            chosen = insert_pragmas.choose(sites, layout_rng, self.plan.pragma_count,
                                           self.plan.force_ratio, self.plan.main_site)
        else:
            chosen = insert_pragmas.choose_profiled(sites, visits, layout_rng,
                                                    self.plan.pragma_count, self.plan.force_ratio,
                                                    self.plan.main_site, MAX_CHECKPOINTS // 2)
        visits_of = dict(zip((s.line for s in sites), visits)) if visits else {}
        for attempt in range(LAYOUT_ATTEMPTS + 1):
            self.write_layout(chosen)
            self.build()
            ckpt = self.path("ckpt-uninterrupted")
            shutil.rmtree(ckpt, ignore_errors=True)
            status, seconds = self.run_program(self.path("uninterrupted.out"),
                                               self.path("uninterrupted.err"), self.env(ckpt),
                                               append=False, count_limit=MAX_CHECKPOINTS)
            self.record["runs"] += 1
            if status != "too-many":
                break
            chosen = self.thinned(chosen, last_attempt=attempt + 1 == LAYOUT_ATTEMPTS)
        self.visits = sum(visits_of.get(site.line, 0) for site, _ in chosen) if visits else None
        self.record["visits"] = self.visits
        err_text = open(self.path("uninterrupted.err"), "rb").read()
        if status == "timeout":
            raise Outcome("fail", "uninterrupted run hangs", _tail(err_text))
        if status == "too-many":
            raise Outcome("skip", "too many checkpoints even with the pragmas thinned out")
        if status != 0:
            raise Outcome("fail", f"uninterrupted run exits with {status}", _tail(err_text))
        self.uninterrupted_seconds = seconds
        self.record["committed"] = err_text.count(b" committed (")
        frames = [int(n) for n in re.findall(rb"heap extents \([^)]*\), (\d+) frames", err_text)]
        self.record["max_frames"] = max(frames, default=0)
        actual = open(self.path("uninterrupted.out"), "rb").read()
        if actual != self.expected:
            clang_output = self.clang_output()
            if clang_output == self.expected or clang_output is None:
                raise Outcome("fail", "uninterrupted output differs",
                              _first_difference(self.expected, actual))
            if clang_output != actual:
                raise Outcome("skip", "gcc, clang-14 and c3 outputs all differ",
                              _first_difference(clang_output, actual))
            # gcc and clang disagree (unspecified behaviour in the program); c3 builds with
            # clang, so clang's output is the reference from here on.
            self.expected = clang_output
            self.record["reference"] = "clang-14"

    def thinned(self, chosen, last_attempt):
        """The layout without the pragma that committed most checkpoints (or, at the last
        attempt, without any forced pragma)."""
        if last_attempt:
            return [(site, False) for site, _ in chosen]
        counts = {}
        text = open(self.path("uninterrupted.err"), errors="replace").read()
        for match in CHECKPOINT_LINE.finditer(text):
            line = int(match.group(3))
            counts[line] = counts.get(line, 0) + 1
        if not counts:
            return [(site, False) for site, _ in chosen]
        hottest = self.pragma_lines.get(max(counts, key=counts.get))
        if not hottest:
            return [(site, False) for site, _ in chosen]
        return [(site, force) for site, force in chosen if site is not hottest[0]]

    def fault_plan(self):
        """1-3 kills: C3_FAULT values (one per run) or ('sigkill', delay)."""
        rng = random.Random(self.plan.kill_seed)
        committed = self.record["committed"]
        kinds = [k for k in FAULT_KINDS if committed > 0 or k == "sigkill" or
                 (k == "site" and self.visits)]
        faults, number = [], 0
        for _ in range(self.plan.kill_count):
            kind = rng.choice(kinds)
            if kind in ("after-commit", "mid-write", "before-commit"):
                if number >= committed:
                    kind = "site"
                else:
                    number = rng.randint(number + 1, committed)
                    faults.append(f"{kind}:{number}")
                    continue
            if kind == "sigkill" and self.uninterrupted_seconds < SIGKILL_MIN_SECONDS:
                kind = "site"  # a kill by time would almost always come after the end
            if kind == "site" and self.visits:
                faults.append(f"site:{rng.randint(1, self.visits)}")
            else:
                faults.append(("sigkill", rng.uniform(0.0, self.uninterrupted_seconds)))
        return faults

    def killed_and_restarted(self):
        faults = self.fault_plan()
        for attempt in range(3):
            delivered = self.kill_sequence(faults)
            if delivered or not faults or attempt == 2:
                break
            # The first kill came too late (the program had finished): aim earlier.
            first = faults[0]
            if isinstance(first, tuple):
                faults[0] = ("sigkill", first[1] / 4)
            elif first.startswith("site:"):
                faults[0] = f"site:{max(1, int(first[5:]) // 8)}"
            else:
                break
        actual = open(self.path("restarted.out"), "rb").read()
        if actual != self.expected:
            raise Outcome("fail", "output after kill and restart differs",
                          _first_difference(self.expected, actual))

    def kill_sequence(self, faults):
        """Runs the program with the kills of `faults`, restarting after each, until it exits 0.
        Returns whether the first kill was delivered."""
        out, ckpt = self.path("restarted.out"), self.path("ckpt-restarted")
        shutil.rmtree(ckpt, ignore_errors=True)
        open(out, "wb").close()
        log = []
        self.record["kills"] = log
        for run in range(len(faults) + MAX_RESTARTS):
            fault = faults[run] if run < len(faults) else None
            restart = run > 0
            if restart and not self.has_committed_checkpoint(ckpt):
                # No checkpoint to go back to: the restart starts afresh, and so must the output
                # (the runtime trims the file only back to a checkpoint).
                open(out, "wb").close()
            kill_after = fault[1] if isinstance(fault, tuple) else None
            env = self.env(ckpt, fault if isinstance(fault, str) else None, restart)
            err = self.path(f"restarted.err.{run}")
            status, _ = self.run_program(out, err, env, append=True, kill_after=kill_after)
            self.record["runs"] += 1
            label = (f"sigkill@{fault[1]:.3f}s" if isinstance(fault, tuple) else fault) or "none"
            log.append(f"{label}->{'killed' if status == -signal.SIGKILL else status}")
            if status == 0:
                return run > 0
            if status == "timeout":
                raise Outcome("fail", f"run {run} hangs" + (" (restarted)" if restart else ""),
                              _tail(open(err, "rb").read()))
            if status != -signal.SIGKILL or fault is None:
                raise Outcome("fail", f"run {run} exits with {status}" +
                              (" (restarted)" if restart else ""), _tail(open(err, "rb").read()))
        raise Outcome("fail", "program does not finish after restarts")

    # --- the test ---------------------------------------------------------------------------

    def run(self):
        start = time.monotonic()
        os.makedirs(self.work, exist_ok=True)
        try:
            self.make_reference()
            with open(self.path("orig.c")) as f:
                sites = insert_pragmas.find_sites(f.read())
            if not sites:
                raise Outcome("skip", "no statement position for a pragma")
            self.uninterrupted(random.Random(self.plan.layout_seed), sites)
            self.killed_and_restarted()
            self.record["verdict"] = "pass"
        except Outcome as o:
            self.record.update(verdict=o.verdict, reason=o.reason, detail=o.detail)
        self.record["seconds"] = round(time.monotonic() - start, 2)
        return self.record


def reproduce_command(c3cc, seed, work):
    script = os.path.abspath(__file__)
    return f"python3 {script} --c3cc {c3cc} --seed {seed} --work {work} --keep"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--c3cc", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--work", help="work directory (default: a fresh one in /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--ref-timeout", type=float, default=5.0)
    args = parser.parse_args(argv)
    work = args.work or os.path.join("/tmp", f"c3-csmith-{os.getpid()}-{args.seed}")
    record = SeedTest(os.path.abspath(args.c3cc), args.seed, work, args.ref_timeout).run()
    print(json.dumps(record))
    if not args.keep and record["verdict"] != "fail":
        shutil.rmtree(work, ignore_errors=True)
    return 1 if record["verdict"] == "fail" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
