#!/usr/bin/env python3
"""Unit tests of the wrapper generator (protocol/gen): prototype parsing, the table, the output."""

import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "protocol", "gen"))

from c_prototypes import Parameter, ParseError, normalize_type, parse_prototypes  # noqa: E402
from function_table import TableError, check_against_header, parse_table  # noqa: E402
import generate_wrappers  # noqa: E402

# Raw MPICH-style prototypes (unexpanded annotation macros) next to what the preprocessor leaves.
HEADER = textwrap.dedent("""\
    /* Copyright (C) by someone; int MPI_Commented(int x); */
    // int MPI_LineComment(int x);
    static const char *mpich_version = "a /* b // c";
    #pragma GCC visibility push(default)
    typedef int MPI_Comm;
    typedef struct MPI_Status { int count_lo; int (*fn)(int x); } MPI_Status;
    typedef int (MPI_Copy_function)(MPI_Comm, int, void *);
    static const int mpich_mpi_int = ((int)0x4c000405);
    enum QMPI_Functions_enum { MPI_ALLGATHER_T, MPI_SEND_T };
    extern int not_mpi(int x);
    int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
                 MPICH_ATTR_POINTER_WITH_TYPE_TAG(1,3) MPICH_API_PUBLIC;
    int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Status *status) __attribute__((pointer_with_type_tag(MPI,1,3)));
    double MPI_Wtime(void) MPICH_API_PUBLIC;
    int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
    int MPI_Pcontrol(const int level, ...) MPICH_API_PUBLIC;
    int MPI_Unnamed(MPI_Comm, const char *, int [], unsigned int);
    int MPI_Init(int *argc, char ** *argv) ROMIO_API_PUBLIC;
    int MPIX_Comm_revoke(MPI_Comm comm) MPICH_API_PUBLIC;
    int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm) MPICH_API_PUBLIC;
    int QMPI_Send(QMPI_Context context, int tool_id, const void *buf) MPICH_API_PUBLIC;
    """)

TABLE_HEAD = textwrap.dedent("""\
    role send_buf  in   data sent
    role count     in   elements
    role datatype  in   type
    role peer      in   rank
    role tag       in   tag
    role comm      in   communicator
    category send  sends
    category query questions
    """)

SEND_ENTRY = textwrap.dedent("""\
    function MPI_Send  send  int
        const void *   buf       send_buf   # a comment
        int            count     count
        MPI_Datatype   datatype  datatype
        int            dest      peer
        int            tag       tag
        MPI_Comm       comm      comm
    """)


def prototypes_by_name():
    return {p.name: p for p in parse_prototypes(HEADER)}


class PrototypeParsing(unittest.TestCase):
    def test_finds_mpi_and_mpix_functions_only(self):
        names = [p.name for p in parse_prototypes(HEADER)]
        self.assertEqual(names, ["MPI_Send", "MPI_Recv", "MPI_Wtime", "MPI_Group_range_incl",
                                 "MPI_Pcontrol", "MPI_Unnamed", "MPI_Init", "MPIX_Comm_revoke"])

    def test_annotation_macros_and_attributes_are_dropped(self):
        send = prototypes_by_name()["MPI_Send"]
        self.assertEqual(send.parameter_list(), "const void *buf, int count, MPI_Datatype datatype, "
                                                "int dest, int tag, MPI_Comm comm")
        recv = prototypes_by_name()["MPI_Recv"]
        self.assertEqual(recv.parameters[0], Parameter("void *", "buf"))
        self.assertEqual(recv.parameters[-1], Parameter("MPI_Status *", "status"))

    def test_void_arrays_variadic_and_pointers(self):
        protos = prototypes_by_name()
        self.assertEqual(protos["MPI_Wtime"].return_type, "double")
        self.assertEqual(protos["MPI_Wtime"].parameters, ())
        self.assertEqual(protos["MPI_Wtime"].parameter_list(), "void")
        ranges = protos["MPI_Group_range_incl"].parameters[2]
        self.assertEqual((ranges.type, ranges.name, ranges.array), ("int", "ranges", "[][3]"))
        self.assertEqual(ranges.declaration(), "int ranges[][3]")
        pcontrol = protos["MPI_Pcontrol"]
        self.assertTrue(pcontrol.variadic)
        self.assertEqual(pcontrol.parameter_list(), "const int level, ...")
        self.assertEqual(pcontrol.argument_list(), "level")
        self.assertEqual(protos["MPI_Init"].parameters[1], Parameter("char ***", "argv"))

    def test_unnamed_parameters_get_names(self):
        unnamed = prototypes_by_name()["MPI_Unnamed"]
        self.assertEqual(unnamed.parameter_list(),
                         "MPI_Comm arg0, const char *arg1, int arg2[], unsigned int arg3")

    def test_type_spelling_is_canonical(self):
        self.assertEqual(normalize_type("const  void*"), "const void *")
        self.assertEqual(normalize_type("char ** *"), "char ***")

    def test_function_pointer_parameter_is_an_error(self):
        with self.assertRaisesRegex(ParseError, "MPI_Bad.*function-pointer"):
            parse_prototypes("int MPI_Bad(void (*fn)(int));")

    def test_conflicting_redeclaration_is_an_error(self):
        with self.assertRaisesRegex(ParseError, "MPI_Twice"):
            parse_prototypes("int MPI_Twice(int a); int MPI_Twice(long a);")


class Table(unittest.TestCase):
    def test_good_table(self):
        table = parse_table(TABLE_HEAD + SEND_ENTRY + "function MPI_Wtime query double\n")
        self.assertEqual([e.name for e in table.entries], ["MPI_Send", "MPI_Wtime"])
        send = table.entries[0]
        self.assertEqual(send.hook, "on_Send")
        self.assertEqual([p.role for p in send.parameters],
                         ["send_buf", "count", "datatype", "peer", "tag", "comm"])
        self.assertEqual(send.parameters[0].parameter, Parameter("const void *", "buf"))
        self.assertEqual(table.roles["send_buf"].direction, "in")
        check_against_header(table, prototypes_by_name())

    def test_array_parameter(self):
        table = parse_table("role r in x\ncategory c x\nfunction MPI_Group_range_incl c int\n"
                            "  MPI_Group group r\n  int n r\n  int ranges[][3] r\n"
                            "  MPI_Group * newgroup r\n")
        check_against_header(table, prototypes_by_name())

    def assert_table_error(self, text, pattern):
        with self.assertRaisesRegex(TableError, pattern):
            check_against_header(parse_table(text, "t.txt"), prototypes_by_name())

    def test_unknown_role(self):
        self.assert_table_error(TABLE_HEAD + SEND_ENTRY.replace("peer", "pier"),
                                r"t.txt:9: MPI_Send: parameter 'dest' has unknown role 'pier'")

    def test_unknown_category(self):
        self.assert_table_error(TABLE_HEAD + SEND_ENTRY.replace("send  int", "sned int"),
                                "unknown category 'sned'")

    def test_bad_direction(self):
        self.assert_table_error("role x sideways y\n", r"t.txt:1: expected: role")

    def test_duplicate_entry(self):
        self.assert_table_error(TABLE_HEAD + SEND_ENTRY + SEND_ENTRY, "MPI_Send has two entries")

    def test_parameter_outside_entry(self):
        self.assert_table_error("  int x comm\n", "t.txt:1: parameter line outside")

    def test_unknown_keyword(self):
        self.assert_table_error("fnuction MPI_Send send int\n", "unknown keyword 'fnuction'")

    def test_not_in_header(self):
        self.assert_table_error(TABLE_HEAD + "function MPI_Nope query int\n",
                                "MPI_Nope .*not declared in mpi.h")

    def test_type_differs_from_header(self):
        self.assert_table_error(TABLE_HEAD + SEND_ENTRY.replace("const void *", "void *"),
                                "parameter 1 'buf' has type 'void \\*', mpi.h says 'const void \\*'")

    def test_return_type_differs_from_header(self):
        self.assert_table_error(TABLE_HEAD + "function MPI_Wtime query int\n",
                                "returns 'int', mpi.h says 'double'")

    def test_parameter_missing(self):
        entry = "\n".join(SEND_ENTRY.splitlines()[:-1]) + "\n"
        self.assert_table_error(TABLE_HEAD + entry, "5 parameters, mpi.h declares 6")

    def test_variadic_cannot_be_hooked(self):
        self.assert_table_error("role v in x\ncategory c x\nfunction MPI_Pcontrol c int\n"
                                "  const int level v\n", "variadic")


class Generation(unittest.TestCase):
    def generate(self, table_text, provided=None):
        with tempfile.TemporaryDirectory() as tmp:
            header = os.path.join(tmp, "mpi_h.i")
            table = os.path.join(tmp, "table.txt")
            with open(header, "w") as f:
                f.write(HEADER)
            with open(table, "w") as f:
                f.write(table_text)
            out = os.path.join(tmp, "out")
            generate_wrappers.generate(table, header, out, provided)
            result = {}
            for name in os.listdir(out):
                with open(os.path.join(out, name)) as f:
                    result[name] = f.read()
            return result

    def test_hooked_and_unsupported_wrappers(self):
        files = self.generate(TABLE_HEAD + SEND_ENTRY)
        self.assertIn("int on_Send(const void *buf, int count, MPI_Datatype datatype, int dest, "
                      "int tag, MPI_Comm comm) noexcept;", files["mpi_hooks.hpp"])
        self.assertIn('extern "C" int MPI_Send(const void *buf, int count, MPI_Datatype datatype, '
                      "int dest, int tag, MPI_Comm comm) {\n"
                      "  return c3::mpi::on_Send(buf, count, datatype, dest, tag, comm);\n}",
                      files["mpi_hooked_wrappers.cpp"])
        unsupported = files["mpi_unsupported_wrappers.cpp"]
        self.assertNotIn("MPI_Send", unsupported)
        self.assertIn('extern "C" int MPI_Recv(void *buf, int count, MPI_Datatype datatype, '
                      "int source, int tag, MPI_Comm comm, MPI_Status *status) {\n"
                      '  c3::mpi::unsupported_call("MPI_Recv", comm);\n'
                      "  return PMPI_Recv(buf, count, datatype, source, tag, comm, status);\n}",
                      unsupported)
        self.assertIn("  return PMPI_Pcontrol(level);", unsupported)
        self.assertIn("  return PMPIX_Comm_revoke(comm);", unsupported)
        self.assertIn('extern "C" double MPI_Wtime(void) {', unsupported)
        self.assertIn('  c3::mpi::unsupported_call("MPI_Wtime", MPI_COMM_NULL);', unsupported)
        for name in ("PMPI_Send", "QMPI_Send", "not_mpi"):
            self.assertNotIn(f" {name}(", unsupported)

    def test_functions_missing_from_the_library_get_no_wrapper(self):
        everything = {"PMPI_Send", "PMPI_Recv", "PMPI_Wtime", "PMPI_Group_range_incl",
                      "PMPI_Pcontrol", "PMPI_Unnamed", "PMPI_Init", "PMPIX_Comm_revoke"}
        files = self.generate(TABLE_HEAD + SEND_ENTRY, everything - {"PMPI_Unnamed"})
        self.assertNotIn("MPI_Unnamed", files["mpi_unsupported_wrappers.cpp"])
        self.assertIn("not-in-library MPI_Unnamed\n", files["mpi_wrappers.txt"])
        self.assertIn("unsupported MPI_Recv\n", files["mpi_wrappers.txt"])
        self.assertIn("hook MPI_Send\n", files["mpi_wrappers.txt"])
        with self.assertRaisesRegex(TableError, "does not define PMPI_Send"):
            self.generate(TABLE_HEAD + SEND_ENTRY, everything - {"PMPI_Send"})

    def test_command_line_reports_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            table = os.path.join(tmp, "table.txt")
            header = os.path.join(tmp, "mpi_h.i")
            with open(table, "w") as f:
                f.write(TABLE_HEAD + SEND_ENTRY.replace("peer", "pier"))
            with open(header, "w") as f:
                f.write(HEADER)
            status = generate_wrappers.main(["--table", table, "--prototypes", header,
                                             "--out-dir", os.path.join(tmp, "out")])
            self.assertEqual(status, 1)
            with open(header, "w") as f:
                f.write("int not_mpi(void);\n")
            status = generate_wrappers.main(["--table", table, "--prototypes", header,
                                             "--out-dir", os.path.join(tmp, "out")])
            self.assertEqual(status, 1)


if __name__ == "__main__":
    unittest.main()
