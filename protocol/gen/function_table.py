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

# What generated code does with a parameter of a role, named in the role's declaration
# ({treatment}); emit_wrappers.py spells out each. Handles are translated between the program's
# (c3) handles and MPICH's; new objects are adopted into c3's tables; freed ones leave them.
TREATMENTS = (
    "status", "comm", "datatype", "op", "group", "errhandler", "keyval", "info", "native_request",
    "adopt_group", "adopt_datatype", "adopt_info", "adopt_errhandler", "adopt_request",
    "free_group", "free_datatype", "free_op", "free_errhandler", "free_keyval", "free_info",
)
_ARRAY_TREATMENT = re.compile(r"datatype\[(\w+)\]")  # an array of datatypes, length given by a parameter

# Function attributes: name -> whether it takes a value.
ATTRIBUTES = {
    "pass": False,     # no hook: the wrapper translates handles and calls PMPI_ itself
    "noentry": False,  # the wrapper opens no Entry (calls valid before MPI_Init or after Finalize)
    "shape": True,     # a collective: the wrapper is the log-or-replay skeleton of that shape
    "proc_null": False,  # a blocking send or receive: returns at once when its peer is MPI_PROC_NULL
    "outcome": True,   # tests and waits for one of several requests: the wrapper is the skeleton
    "fast": False,     # before the Entry, the wrapper tries c3::mpi::fast_X (hooks/fast_paths.hpp)
}

# outcome=<kind> -> c3::mpi::Completion::Kind (nondet/completion.hpp)
OUTCOME_KINDS = {
    "test": "Test", "peek": "Peek", "testany": "TestAny", "testsome": "TestSome",
    "testall": "TestAll", "waitany": "WaitAny", "waitsome": "WaitSome",
}


class TableError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Role:
    name: str
    direction: str
    description: str
    treatment: str = ""   # what the generated code does with such a parameter ({...}; see emit)


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
    attributes: dict = dataclasses.field(default_factory=dict, compare=False)  # flag -> value

    @property
    def passthrough(self) -> bool:
        """No hook: the generated wrapper translates the handles and calls PMPI itself."""
        return "pass" in self.attributes

    @property
    def collective(self) -> str:
        """The shape of a collective whose wrapper is the generated log-or-replay skeleton."""
        return self.attributes.get("shape", "")

    @property
    def outcome(self) -> str:
        """The kind of a test or wait whose outcome the generated skeleton hands out by role."""
        return self.attributes.get("outcome", "")

    @property
    def proc_null(self) -> bool:
        return "proc_null" in self.attributes

    @property
    def fast(self) -> bool:
        """The wrapper first tries an inline path for the common case (hooks/fast_paths.hpp)."""
        return "fast" in self.attributes

    @property
    def entry_guard(self) -> bool:
        return "noentry" not in self.attributes

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
            name, category, return_type, line, parameters, attributes = current
            table.entries.append(Entry(name, category, return_type, tuple(parameters), line,
                                       attributes))

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
                raise _error(path, number,
                             "expected: role <name> <in|out|inout> [{treatment}] <description>")
            if words[1] in table.roles:
                raise _error(path, number, f"role '{words[1]}' declared twice")
            treatment = ""
            rest = words[3:]
            if rest[0].startswith("{"):
                if not rest[0].endswith("}") or len(rest) < 2:
                    raise _error(path, number, f"bad treatment '{rest[0]}'")
                treatment, rest = rest[0][1:-1], rest[1:]
                if treatment not in TREATMENTS and not _ARRAY_TREATMENT.fullmatch(treatment):
                    raise _error(path, number, f"unknown treatment '{treatment}'")
            table.roles[words[1]] = Role(words[1], words[2], " ".join(rest), treatment)
        elif keyword == "category":
            if len(words) < 3:
                raise _error(path, number, "expected: category <name> <description>")
            if words[1] in table.categories:
                raise _error(path, number, f"category '{words[1]}' declared twice")
            table.categories[words[1]] = " ".join(words[2:])
        elif keyword == "function":
            if len(words) < 4:
                raise _error(path, number,
                             "expected: function <MPI_name> <category> <return type> [attribute...]")
            name, category = words[1], words[2]
            if not re.fullmatch(r"MPI_\w+", name):
                raise _error(path, number, f"'{name}' is not an MPI_ function name")
            attributes = {}
            for word in words[4:]:
                key, _, value = word.partition("=")
                if key not in ATTRIBUTES or bool(value) != ATTRIBUTES[key]:
                    raise _error(path, number, f"{name}: unknown attribute '{word}'")
                if key == "outcome" and value not in OUTCOME_KINDS:
                    raise _error(path, number, f"{name}: outcome must be one of {', '.join(OUTCOME_KINDS)}")
                attributes[key] = value
            current = (name, category, normalize_type(words[3]), number, [], attributes)
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
