#!/usr/bin/env python3
"""Tests of insert_pragmas.py: the positions it finds are exactly the statement positions.

1. A hand-written program with every tricky context (initializers spanning lines, for headers,
   else, do-while, labels, local struct, comments, strings): the set of sites is checked.
2. Real csmith programs: a statement inserted at every site must still compile (gcc), and a
   pragma layout must keep every original line.
"""
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import insert_pragmas  # noqa: E402

# Lines marked `/*S*/` at their start must be exactly the sites (a pragma goes before them).
HANDWRITTEN = r"""
struct pair { int a;
  int b; };
static int table[2][2] = {
  {1, 2},
  {3, 4}};
static int f(int x)
{
/*S*/  int y = 0;
/*S*/  int z[3] = {1,
    2,
    3};
/*S*/  for (y = 0;
    y < 3;
    y++)
    z[y] += x;
/*S*/  if (x)
  {
/*S*/    y = (x +
        1);
/*S*/  }
  else
  {
/*S*/    y = 2; /* a comment { ; */
/*S*/  }
/*S*/  do
  {
/*S*/    y--;
/*S*/  }
  while (y > 0);
/*S*/lbl:
    y++;
/*S*/  if (y < 2)
    goto lbl;
/*S*/  {
/*S*/    const char *s = "{ ; }";
/*S*/    y += s[0];
/*S*/  }
/*S*/  return y + z[0];
/*S*/}
int main(void)
{
/*S*/  struct pair p = {
    1, 2};
/*S*/  return f(p.a) + table[0][0];
/*S*/}
"""


def check_handwritten():
    lines = HANDWRITTEN.split("\n")
    expected = {n for n, line in enumerate(lines) if line.startswith("/*S*/")}
    sites = insert_pragmas.find_sites(HANDWRITTEN)
    found = {s.line for s in sites}
    if found != expected:
        extra = sorted(n + 1 for n in found - expected)
        missing = sorted(n + 1 for n in expected - found)
        print(f"FAIL handwritten: unexpected sites at lines {extra}, missing {missing}")
        return False
    functions = {s.function for s in sites}
    if functions != {"f", "main"}:
        print(f"FAIL handwritten: functions {functions}")
        return False
    return True


def compiles(text, directory):
    path = os.path.join(directory, "probe.c")
    with open(path, "w") as f:
        f.write(text)
    result = subprocess.run(["gcc", "-fsyntax-only", "-w", "-I/usr/include/csmith", path],
                            capture_output=True, text=True)
    if result.returncode != 0:
        print(result.stderr[:2000])
    return result.returncode == 0


def check_csmith(seed, directory):
    text = subprocess.run(["csmith", "--seed", str(seed)], capture_output=True, text=True,
                          check=True).stdout
    sites = insert_pragmas.find_sites(text)
    if len(sites) < 5:
        print(f"FAIL csmith seed {seed}: only {len(sites)} sites")
        return False
    lines = text.split("\n")
    at = {s.line for s in sites}
    probed = []
    for number, line in enumerate(lines):
        if number in at:
            probed.append("(void)0;")
        probed.append(line)
    if not compiles("\n".join(probed), directory):
        print(f"FAIL csmith seed {seed}: a statement at every site does not compile")
        return False
    chosen = insert_pragmas.choose(sites, random.Random(seed), 6, 0.5, True)
    out = insert_pragmas.insert(text, chosen).split("\n")
    kept = [line for line in out if not line.startswith("#pragma ccc_checkpoint")]
    pragmas = len(out) - len(kept)
    if kept != lines or pragmas != len(chosen) or not any(s.function == "main" for s, _ in chosen):
        print(f"FAIL csmith seed {seed}: layout lost lines or pragmas")
        return False
    return True


def main():
    ok = check_handwritten()
    with tempfile.TemporaryDirectory() as directory:
        for seed in (1, 2, 3, 4, 10):
            ok = check_csmith(seed, directory) and ok
    print("insert_pragmas: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
