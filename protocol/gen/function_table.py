"""The declarative table of MPI functions the protocol handles (protocol/mpi_functions.txt).

The format is described at the top of the table itself. This module reads it, checks it is
well formed (known roles and categories, no duplicates) and that each entry agrees with the
prototype MPICH's mpi.h declares.
"""

from __future__ import annotations

import dataclasses
import re

from c_prototypes import Parameter, Prototype, normalize_array, normalize_type

DIRECTIONS = ("in", "out", "inout")


class TableError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Role:
    name: str
    direction: str
    description: str


@dataclasses.dataclass(frozen=True)
class TableParameter:
    parameter: Parameter
    role: str


@dataclasses.dataclass(frozen=True)
class Entry:
    name: str                      # MPI_Send
    category: str
    return_type: str               # canonical
    parameters: tuple[TableParameter, ...]
    line: int                      # of the `function` line, for messages

    @property
    def hook(self) -> str:
        """Name of the hook in namespace c3::mpi: MPI_Send -> on_Send."""
        return "on_" + self.name[len("MPI_"):]

    def prototype(self) -> Prototype:
        return Prototype(self.name, self.return_type, tuple(p.parameter for p in self.parameters))


@dataclasses.dataclass
class Table:
    path: str
    roles: dict[str, Role]
    categories: dict[str, str]     # name -> description
    entries: list[Entry]


def _error(path: str, line: int, message: str) -> TableError:
    return TableError(f"{path}:{line}: {message}")


def parse_table(text: str, path: str = "<table>") -> Table:
    table = Table(path, {}, {}, [])
    current = None  # (name, category, return type, line, parameters) of the entry being read

    def finish():
        if current is not None:
            name, category, return_type, line, parameters = current
            table.entries.append(Entry(name, category, return_type, tuple(parameters), line))

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        words = line.split()
        if raw[0] in " \t":
            if current is None:
                raise _error(path, number, "parameter line outside a function entry")
            current[4].append(_parse_parameter_line(words, path, number))
            continue
        finish()
        current = None
        keyword = words[0]
        if keyword == "role":
            if len(words) < 4 or words[2] not in DIRECTIONS:
                raise _error(path, number, "expected: role <name> <in|out|inout> <description>")
            if words[1] in table.roles:
                raise _error(path, number, f"role '{words[1]}' declared twice")
            table.roles[words[1]] = Role(words[1], words[2], " ".join(words[3:]))
        elif keyword == "category":
            if len(words) < 3:
                raise _error(path, number, "expected: category <name> <description>")
            if words[1] in table.categories:
                raise _error(path, number, f"category '{words[1]}' declared twice")
            table.categories[words[1]] = " ".join(words[2:])
        elif keyword == "function":
            if len(words) < 4:
                raise _error(path, number, "expected: function <MPI_name> <category> <return type>")
            name, category = words[1], words[2]
            if not re.fullmatch(r"MPI_\w+", name):
                raise _error(path, number, f"'{name}' is not an MPI_ function name")
            current = (name, category, normalize_type(" ".join(words[3:])), number, [])
        else:
            raise _error(path, number, f"unknown keyword '{keyword}'")
    finish()
    _check_vocabulary(table)
    return table


def _parse_parameter_line(words: list[str], path: str, number: int) -> TableParameter:
    if len(words) < 3:
        raise _error(path, number, "expected: <C type> <name> <role>")
    role, declarator = words[-1], words[-2]
    match = re.fullmatch(r"([A-Za-z_]\w*)((?:\[\w*\])*)", declarator)
    if not match:
        raise _error(path, number, f"'{declarator}' is not a parameter name")
    parameter = Parameter(normalize_type(" ".join(words[:-2])), match.group(1),
                          normalize_array(match.group(2)))
    return TableParameter(parameter, role)


def _check_vocabulary(table: Table) -> None:
    seen = set()
    for entry in table.entries:
        if entry.name in seen:
            raise _error(table.path, entry.line, f"{entry.name} has two entries")
        seen.add(entry.name)
        if entry.category not in table.categories:
            raise _error(table.path, entry.line,
                         f"{entry.name}: unknown category '{entry.category}'")
        names = set()
        for p in entry.parameters:
            if p.role not in table.roles:
                raise _error(table.path, entry.line,
                             f"{entry.name}: parameter '{p.parameter.name}' has unknown role '{p.role}'")
            if p.parameter.name in names:
                raise _error(table.path, entry.line,
                             f"{entry.name}: parameter name '{p.parameter.name}' used twice")
            names.add(p.parameter.name)


def check_against_header(table: Table, prototypes: dict[str, Prototype]) -> None:
    """Each entry must spell the return type and parameter types of mpi.h's prototype."""
    for entry in table.entries:
        where = f"{entry.name} (table {table.path}:{entry.line})"
        header = prototypes.get(entry.name)
        if header is None:
            raise TableError(f"{where}: not declared in mpi.h")
        if header.variadic:
            raise TableError(f"{where}: variadic functions cannot have a hook")
        if header.return_type != entry.return_type:
            raise TableError(f"{where}: returns '{entry.return_type}', mpi.h says '{header.return_type}'")
        if len(header.parameters) != len(entry.parameters):
            raise TableError(f"{where}: {len(entry.parameters)} parameters, mpi.h declares "
                             f"{len(header.parameters)}: {header.parameter_list()}")
        for index, (ours, theirs) in enumerate(zip(entry.parameters, header.parameters), start=1):
            if ours.parameter.full_type() != theirs.full_type():
                raise TableError(f"{where}: parameter {index} '{ours.parameter.name}' has type "
                                 f"'{ours.parameter.full_type()}', mpi.h says '{theirs.full_type()}'")
