"""The functions an MPI library defines, read with nm.

mpi.h declares a few functions MPICH's library does not provide (in MPICH 4.0.2 the Fortran 2008
status conversions such as MPI_Status_f082c). A wrapper for one would call a PMPI_ function that
does not exist and break the link of every program, so the generator asks the library itself.
"""

from __future__ import annotations

import subprocess


def defined_symbols(nm: str, libraries: list[str]) -> set[str]:
    symbols: set[str] = set()
    for library in libraries:
        # A shared library exports through its dynamic symbol table; an archive has no such table.
        dynamic = [] if library.endswith(".a") else ["-D"]
        result = subprocess.run([nm, *dynamic, "--defined-only", library],
                                capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{nm} {library} failed: {result.stderr.strip()}")
        for line in result.stdout.splitlines():
            fields = line.split()
            if len(fields) >= 3:
                symbols.add(fields[2].split("@", 1)[0])  # drop a symbol version
    return symbols
