#!/usr/bin/env python3
"""Generates c3's PMPI layer from protocol/mpi_functions.txt and MPICH's mpi.h.

Run by CMake at build time (protocol/CMakeLists.txt); writes into --out-dir:
  mpi_hooks.hpp                 declarations of the hooks c3::mpi::on_X (table entries decided
                                by hand)
  mpi_table_wrappers.cpp        extern "C" MPI_X for each table entry: hook, pass-through or
                                collective skeleton
  mpi_unsupported_wrappers.cpp  extern "C" MPI_X for every other function of mpi.h, calling
                                c3::mpi::unsupported_call and then PMPI_X
  mpi_wrappers.txt              what became of each function mpi.h declares
A file whose content is unchanged is not rewritten, so an unrelated change rebuilds nothing.
See docs/protocol-layer.md.
"""

from __future__ import annotations

import argparse
import os
import sys

from c_prototypes import ParseError, parse_prototypes
from emit_wrappers import hooks_header, manifest, table_wrappers, unsupported_wrappers
from function_table import TableError, check_against_header, parse_table
from library_symbols import defined_symbols


def _write_if_changed(path: str, content: str) -> None:
    try:
        with open(path, encoding="utf-8") as existing:
            if existing.read() == content:
                return
    except FileNotFoundError:
        pass
    with open(path, "w", encoding="utf-8") as out:
        out.write(content)


def generate(table_path: str, prototypes_path: str, out_dir: str, provided: set[str] | None) -> None:
    with open(prototypes_path, encoding="utf-8") as f:
        prototypes = parse_prototypes(f.read())
    if not prototypes:
        raise ParseError(f"{prototypes_path}: no MPI_ prototypes found (is it the preprocessed mpi.h?)")
    with open(table_path, encoding="utf-8") as f:
        table = parse_table(f.read(), table_path)
    by_name = {p.name: p for p in prototypes}
    check_against_header(table, by_name)

    def in_library(name: str) -> bool:
        return provided is None or "P" + name in provided

    for entry in table.entries:
        if not in_library(entry.name):
            raise TableError(f"{entry.name}: the MPI library does not define P{entry.name}")
    hooked = {entry.name for entry in table.entries}
    unsupported = [p for p in prototypes if p.name not in hooked and in_library(p.name)]
    absent = [p for p in prototypes if p.name not in hooked and not in_library(p.name)]

    os.makedirs(out_dir, exist_ok=True)
    hooks = hooks_header(table)  # checks the table's treatments on the way
    wrappers = table_wrappers(table)
    _write_if_changed(os.path.join(out_dir, "mpi_hooks.hpp"), hooks)
    _write_if_changed(os.path.join(out_dir, "mpi_table_wrappers.cpp"), wrappers)
    _write_if_changed(os.path.join(out_dir, "mpi_unsupported_wrappers.cpp"),
                      unsupported_wrappers(unsupported))
    _write_if_changed(os.path.join(out_dir, "mpi_wrappers.txt"), manifest(table, unsupported, absent))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", required=True, help="protocol/mpi_functions.txt")
    parser.add_argument("--prototypes", required=True, help="mpi.h after the C preprocessor")
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--nm", default="nm", help="nm used to read --mpi-library")
    parser.add_argument("--mpi-library", action="append", default=[],
                        help="MPI library whose PMPI_ symbols the wrappers call (repeatable); "
                             "without it every declared function is assumed to exist")
    args = parser.parse_args(argv)
    try:
        provided = defined_symbols(args.nm, args.mpi_library) if args.mpi_library else None
        generate(args.table, args.prototypes, args.out_dir, provided)
    except (ParseError, TableError, RuntimeError, OSError) as error:
        print(f"generate_wrappers: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
