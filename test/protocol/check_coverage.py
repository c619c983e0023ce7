#!/usr/bin/env python3
"""Coverage of the PMPI layer: every function mpi.h declares has exactly one wrapper in libc3mpi.a.

The list of declared functions comes from gcc itself (-aux-info writes every prototype the
compiler saw), not from the generator's parser, so a prototype the generator misses or misreads
shows up here. The exception: a function mpi.h declares but the MPI library does not define
(no PMPI_ symbol) must have no wrapper, since a wrapper would break every link.

usage: check_coverage.py --cc GCC --include DIR... --mpi-library LIB --nm NM --archive libc3mpi.a
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile


def declared_functions(cc: str, include_dirs: list) -> set:
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "decls.c")
        aux = os.path.join(tmp, "decls.aux")
        with open(source, "w") as f:
            f.write("#include <mpi.h>\n")
        subprocess.run([cc, *(f"-I{d}" for d in include_dirs), "-fsyntax-only", "-aux-info", aux,
                        source], check=True)
        with open(aux) as f:
            text = f.read()
    # /* path:line:NC */ extern int MPI_Send (const void *, int, ...);  - the first name followed
    # by " (" is the function's (parameter lists name function types too: MPI_User_function (*)).
    names = set()
    for line in text.splitlines():
        match = re.match(r"/\*.*?\*/ extern .*?\b(\w+) \(", line)
        if match and re.fullmatch(r"MPIX?_\w+", match.group(1)):
            names.add(match.group(1))
    return names


def nm_defined(nm: str, args: list) -> list:
    out = subprocess.run([nm, "--defined-only", *args], check=True, capture_output=True,
                         text=True).stdout
    return [line.split() for line in out.splitlines() if len(line.split()) >= 3]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cc", required=True)
    parser.add_argument("--include", action="append", default=[])
    parser.add_argument("--mpi-library", required=True)
    parser.add_argument("--nm", default="nm")
    parser.add_argument("--archive", required=True)
    args = parser.parse_args()

    declared = declared_functions(args.cc, args.include)
    provided = {fields[2].split("@")[0] for fields in nm_defined(args.nm, ["-D", args.mpi_library])}
    wrapper_kinds = collections.defaultdict(list)  # function -> nm kinds of its definitions
    for fields in nm_defined(args.nm, [args.archive]):
        if re.fullmatch(r"MPIX?_\w+", fields[2]):
            wrapper_kinds[fields[2]].append(fields[1])

    problems = []
    if len(declared) < 500:
        problems.append(f"only {len(declared)} functions found in mpi.h: is the include path right?")
    absent = sorted(f for f in declared if "P" + f not in provided)
    for function in sorted(declared):
        kinds = wrapper_kinds.get(function, [])
        if function in absent:
            if kinds:
                problems.append(f"{function}: wrapped, but the MPI library has no P{function}")
        elif kinds != ["T"]:
            problems.append(f"{function}: expected one wrapper (nm kind T), found {kinds or 'none'}")
    for function in sorted(set(wrapper_kinds) - declared):
        problems.append(f"{function}: wrapper for a function mpi.h does not declare")

    for problem in problems:
        print(f"check_coverage: {problem}", file=sys.stderr)
    print(f"check_coverage: {len(declared)} functions declared by mpi.h, "
          f"{len(declared) - len(absent)} wrapped, {len(absent)} not in the MPI library "
          f"(no wrapper): {' '.join(absent)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
