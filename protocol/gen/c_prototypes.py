"""Function prototypes from a C header, for the MPI wrapper generator.

Input is the header after the C preprocessor (`cc -E -P mpi.h`), so conditionals and type macros
(MPIO_Request is MPI_Request) are already resolved the way a C program sees them. MPICH's
annotation macros expand to `__attribute__((...))` or to nothing, depending on the compiler and
on how MPICH was configured; attributes are removed here, and so are the unexpanded macros (MPICH_ATTR_POINTER_WITH_TYPE_TAG(1,3),
MPICH_API_PUBLIC, ROMIO_API_PUBLIC) and comments, so that raw prototype text parses too.

This is not a C parser: it reads top-level declarations of the form `<return type> name(<params>)`
and leaves everything else (typedefs, struct and enum definitions, variables) alone. Parameters
declared with function-pointer syntax are rejected with an error, since MPICH uses typedefs for them.
"""

from __future__ import annotations

import dataclasses
import re

# Words that can end a parameter's type, so a parameter ending in one of them has no name.
_TYPE_WORDS = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
    "const", "volatile", "restrict", "__restrict",
}
_ANNOTATION_MACRO = re.compile(r"\bMPICH_ATTR_\w+\s*\([^()]*\)|\b\w+_API_PUBLIC\b")
_COMMENT_OR_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|/\*.*?\*/|//[^\n]*', re.S)
_TOKEN = re.compile(r"[A-Za-z_]\w*|\.\.\.|\S")


class ParseError(Exception):
    pass


def normalize_type(text: str) -> str:
    """Canonical spelling of a C type: single spaces between words, `*` runs glued together.

    `const void*`, `const  void *` and `const void *` all become `const void *`; `char ** *`
    becomes `char ***`. Two types are equal exactly when their canonical spellings are.
    """
    out = ""
    for token in _TOKEN.findall(text):
        if token == "*":
            out += "*" if out.endswith("*") else " *"
        else:
            out += (" " if out else "") + token
    return out


def normalize_array(text: str) -> str:
    return "".join(text.split())


@dataclasses.dataclass(frozen=True)
class Parameter:
    type: str          # canonical (normalize_type), without array brackets
    name: str          # as declared, or arg<N> for an unnamed parameter
    array: str = ""    # array declarator as declared: "", "[]", "[][3]"

    def declaration(self) -> str:
        separator = "" if self.type.endswith("*") else " "
        return f"{self.type}{separator}{self.name}{self.array}"

    def full_type(self) -> str:
        """The type including array brackets, for comparisons."""
        return self.type + self.array


@dataclasses.dataclass(frozen=True)
class Prototype:
    name: str
    return_type: str   # canonical
    parameters: tuple[Parameter, ...]
    variadic: bool = False

    def parameter_list(self) -> str:
        parts = [p.declaration() for p in self.parameters]
        if self.variadic:
            parts.append("...")
        return ", ".join(parts) if parts else "void"

    def argument_list(self) -> str:
        """The named parameters as call arguments; variadic arguments cannot be forwarded."""
        return ", ".join(p.name for p in self.parameters)


def strip_annotations(text: str) -> str:
    """Removes __attribute__((...)) (nested parentheses) and MPICH's annotation macros."""
    text = _ANNOTATION_MACRO.sub(" ", text)
    out = []
    position = 0
    for match in re.finditer(r"\b__attribute__\s*\(", text):
        if match.start() < position:
            continue  # inside an attribute already removed
        out.append(text[position:match.start()])
        depth = 0
        index = match.end() - 1
        while index < len(text):
            if text[index] == "(":
                depth += 1
            elif text[index] == ")":
                depth -= 1
                if depth == 0:
                    break
            index += 1
        if depth != 0:
            raise ParseError("unbalanced parentheses in __attribute__")
        position = index + 1
        out.append(" ")
    out.append(text[position:])
    return "".join(out)


def _top_level_declarations(text: str):
    """Splits text at `;` outside braces and parentheses."""
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char in "{(":
            depth += 1
        elif char in "})":
            depth -= 1
        elif char == ";" and depth == 0:
            yield text[start:index]
            start = index + 1


def _split_parameters(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part.strip() for part in parts]


def _parse_parameter(text: str, position: int, function: str) -> Parameter:
    if "(" in text:
        raise ParseError(f"{function}: parameter '{text}' uses function-pointer syntax, "
                         "which the generator does not support (use a typedef)")
    match = re.fullmatch(r"(.*?)([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)", text)
    if match:
        type_part, name, array = match.groups()
        if type_part.strip() and name not in _TYPE_WORDS and \
                type_part.split()[-1] not in ("struct", "union", "enum"):
            return Parameter(normalize_type(type_part), name, normalize_array(array))
    array_match = re.search(r"((?:\[[^\]]*\]\s*)*)$", text)
    array = array_match.group(1) if array_match else ""
    base = text[:len(text) - len(array)] if array else text
    return Parameter(normalize_type(base), f"arg{position}", normalize_array(array))


def parse_prototypes(text: str, name_pattern: str = r"MPIX?_\w+") -> list[Prototype]:
    """Every function prototype whose name matches name_pattern (whole name), in file order.

    A name declared twice with the same signature is listed once; a conflicting redeclaration is
    an error.
    """
    # Comments survive in raw text, and lines the preprocessor keeps (#pragma) would otherwise
    # glue onto the next declaration.
    text = _COMMENT_OR_STRING.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else " ", text)
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    text = strip_annotations(text)
    wanted = re.compile(name_pattern)
    found: dict[str, Prototype] = {}
    for declaration in _top_level_declarations(text):
        declaration = " ".join(declaration.split())
        match = re.fullmatch(r"([^(){}=]*?)\b([A-Za-z_]\w*)\s*\((.*)\)", declaration)
        if not match:
            continue
        prefix, name, parameters = match.groups()
        prefix_words = prefix.split()
        if not prefix_words or "typedef" in prefix_words or "static" in prefix_words:
            continue
        if not wanted.fullmatch(name):
            continue
        return_type = normalize_type(" ".join(w for w in prefix_words if w not in ("extern", "inline")))
        prototype = _parse_prototype(name, return_type, parameters)
        previous = found.get(name)
        if previous is not None and previous != prototype:
            raise ParseError(f"{name} is declared twice with different signatures")
        found[name] = prototype
    return list(found.values())


def _parse_prototype(name: str, return_type: str, parameter_text: str) -> Prototype:
    parts = _split_parameters(parameter_text)
    if parts == ["void"] or parts == [""]:
        return Prototype(name, return_type, ())
    variadic = parts[-1] == "..."
    if variadic:
        parts = parts[:-1]
    if "..." in parts:
        raise ParseError(f"{name}: '...' must be the last parameter")
    parameters = tuple(_parse_parameter(part, i, name) for i, part in enumerate(parts))
    return Prototype(name, return_type, parameters, variadic)
