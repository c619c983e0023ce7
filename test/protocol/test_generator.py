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
    int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
    int MPI_Group_free(MPI_Group *group);
    int MPI_Type_create_struct(int count, const int blocklens[], const MPI_Aint displs[],
                               const MPI_Datatype types[], MPI_Datatype *newtype);
    int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm);
    int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Request *request);
    int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
    int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                      const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
    int MPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag,
                    MPI_Status *status);
    int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
    int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                     int array_of_indices[], MPI_Status array_of_statuses[]);
    int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm) MPICH_API_PUBLIC;
    int QMPI_Send(QMPI_Context context, int tool_id, const void *buf) MPICH_API_PUBLIC;
    """)

TABLE_HEAD = textwrap.dedent("""\
    role send_buf  in   data sent
    role count     in   elements
    role datatype  in   {datatype} type
    role peer      in   rank
    role tag       in   tag
    role comm      in   {comm} communicator
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
                                 "MPI_Pcontrol", "MPI_Unnamed", "MPI_Init", "MPIX_Comm_revoke",
                                 "MPI_Comm_group", "MPI_Group_free", "MPI_Type_create_struct",
                                 "MPI_Allreduce", "MPI_Iallreduce", "MPI_Allreduce_init",
                                 "MPI_Alltoallw", "MPI_Testany", "MPI_Request_get_status", "MPI_Waitsome"])

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
        self.assertIn("int on_Send(const void *buf, int count, c3::mpi::TypeArg datatype, int dest, "
                      "int tag, c3::mpi::CommArg comm) noexcept;", files["mpi_hooks.hpp"])
        self.assertIn('extern "C" int MPI_Send(const void *buf, int count, MPI_Datatype datatype, '
                      "int dest, int tag, MPI_Comm comm) {\n"
                      "  c3::mpi::Entry entry;\n"
                      "  return c3::mpi::on_Send(buf, count, c3::mpi::type_arg(datatype), dest, tag, "
                      "c3::mpi::comm_arg(comm));\n}",
                      files["mpi_table_wrappers.cpp"])
        unsupported = files["mpi_unsupported_wrappers.cpp"]
        self.assertNotIn("MPI_Send(", unsupported)
        # By type alone: handles passed by value are translated.
        self.assertIn('extern "C" int MPI_Recv(void *buf, int count, MPI_Datatype datatype, '
                      "int source, int tag, MPI_Comm comm, MPI_Status *status) {\n"
                      '  c3::mpi::unsupported_call("MPI_Recv", comm);\n'
                      "  return PMPI_Recv(buf, count, c3::mpi::real_type(datatype), source, tag, "
                      "c3::mpi::real_comm(comm), status);\n}",
                      unsupported)
        # A request an unsupported call makes joins the request table (persistent for *_init).
        self.assertIn("  if (rc == MPI_SUCCESS) *request = c3::mpi::adopt_request(*request, true);",
                      unsupported)
        self.assertIn("  return PMPI_Pcontrol(level);", unsupported)
        self.assertIn("  return PMPIX_Comm_revoke(c3::mpi::real_comm(comm));", unsupported)
        self.assertIn('extern "C" double MPI_Wtime(void) {', unsupported)
        self.assertIn('  c3::mpi::unsupported_call("MPI_Wtime", MPI_COMM_NULL);', unsupported)
        for name in ("PMPI_Send", "QMPI_Send", "not_mpi"):
            self.assertNotIn(f" {name}(", unsupported)

    OBJECT_ROLES = textwrap.dedent("""\
        role new_group  out    {adopt_group} group made
        role freed      inout  {free_group} group freed
        role types      in     {datatype[count]} types
        role new_type   out    {adopt_datatype} type made
        role value      in     other
        role recv_buf   out    received
        role data_count in     elements
        role data_type  in     {datatype} their type
        role op         in     {op} operator
        role new_request out   request
        category c      things
        """)

    def test_pass_throughs_translate_adopt_and_free(self):
        table = TABLE_HEAD + self.OBJECT_ROLES + textwrap.dedent("""\
            function MPI_Comm_group  c  int  pass
                MPI_Comm     comm   comm
                MPI_Group *  group  new_group
            function MPI_Group_free  c  int  pass noentry
                MPI_Group *  group  freed
            function MPI_Type_create_struct  c  int  pass
                int                 count      value
                const int           blocklens[]  value
                const MPI_Aint      displs[]   value
                const MPI_Datatype  types[]    types
                MPI_Datatype *      newtype    new_type
            """)
        wrappers = self.generate(table)["mpi_table_wrappers.cpp"]
        self.assertIn("  c3::mpi::Entry entry;\n"
                      "  const int rc = PMPI_Comm_group(c3::mpi::real_comm(comm), group);\n"
                      "  if (rc == MPI_SUCCESS && entry.outermost()) *group = "
                      "c3::mpi::adopt_group(*group);\n"
                      "  return rc;\n}", wrappers)
        self.assertIn('extern "C" int MPI_Group_free(MPI_Group *group) {\n'
                      "  return c3::mpi::free_group(group);\n}", wrappers)
        self.assertIn("  c3::mpi::RealTypes types_real(types, count);\n"
                      "  const int rc = PMPI_Type_create_struct(count, blocklens, displs, "
                      "types_real.data(), newtype);\n", wrappers)
        self.assertNotIn("on_Comm_group", self.generate(table)["mpi_hooks.hpp"])

    def test_collective_skeleton(self):
        entry = textwrap.dedent("""\
            function MPI_{name}  c  int  shape=Allreduce
                const void *   sendbuf   send_buf
                void *         recvbuf   recv_buf
                int            count     data_count
                MPI_Datatype   datatype  data_type
                MPI_Op         op        op
                MPI_Comm       comm      comm
            """)
        table = (TABLE_HEAD + self.OBJECT_ROLES + entry.format(name="Allreduce") +
                 entry.format(name="Iallreduce") + "        MPI_Request * request new_request\n")
        wrappers = self.generate(table)["mpi_table_wrappers.cpp"]
        self.assertIn("  c3::mpi::coll::Call call(c3::mpi::coll::Shape::Allreduce, comm);\n"
                      "  call.send_buf = sendbuf;\n  call.recv_buf = recvbuf;\n"
                      "  call.recv_count = count;\n  call.recv_type = datatype;\n"
                      "  call.op = op;\n"
                      "  return c3::mpi::coll::run(call, [&] {\n"
                      "    return PMPI_Allreduce(sendbuf, recvbuf, count, "
                      "c3::mpi::real_type(datatype), c3::mpi::real_op(op), call.real_comm());\n"
                      "  });\n}", wrappers)
        self.assertIn("  return c3::mpi::coll::start(call, request, "
                      "[&](MPI_Request *real_request) {\n"
                      "    return PMPI_Iallreduce(sendbuf, recvbuf, count, "
                      "c3::mpi::real_type(datatype), c3::mpi::real_op(op), call.real_comm(), "
                      "real_request);\n", wrappers)
        self.assertIn("collective MPI_Allreduce\n", self.generate(table)["mpi_wrappers.txt"])
        # Run mode: the blocking call goes to MPICH at once; the nonblocking one has no such path
        # (its request must describe its result, should a checkpoint come before it completes).
        run_mode = ("  MPI_Comm run_comm;\n"
                    "  if (c3::mpi::coll::numbered_in_run_mode(comm, run_comm)) {\n"
                    "    c3::mpi::NativeBlocking blocking;\n"
                    "    return PMPI_Allreduce(sendbuf, recvbuf, count, c3::mpi::real_type(datatype), "
                    "c3::mpi::real_op(op), run_comm);\n  }\n"
                    "  c3::mpi::coll::Call call(")
        self.assertIn(run_mode, wrappers)
        self.assertEqual(wrappers.count("numbered_in_run_mode"), 1)

    def test_collective_with_type_arrays_has_no_run_mode_path(self):
        entry = textwrap.dedent("""\
            role send_counts in  elements
            role send_displs in  displacements
            role send_types  in  types
            role recv_counts in  elements
            role recv_displs in  displacements
            role recv_types  in  types
            function MPI_Alltoallw  c  int  shape=Alltoallw
                const void *          sendbuf       send_buf
                const int             sendcounts[]  send_counts
                const int             sdispls[]     send_displs
                const MPI_Datatype    sendtypes[]   send_types
                void *                recvbuf       recv_buf
                const int             recvcounts[]  recv_counts
                const int             rdispls[]     recv_displs
                const MPI_Datatype    recvtypes[]   recv_types
                MPI_Comm              comm          comm
            """)
        wrappers = self.generate(TABLE_HEAD + self.OBJECT_ROLES + entry)["mpi_table_wrappers.cpp"]
        self.assertIn("call.real_send_types(), recvbuf", wrappers)
        self.assertNotIn("numbered_in_run_mode", wrappers)

    def test_outcome_skeleton(self):
        table = textwrap.dedent("""\
            role request        inout  one request
            role request_array  inout  requests
            role request_count  in     how many
            role flag           out    test outcome
            role index          out    completed one
            role outcount       out    how many completed
            role index_array    out    which completed
            role status         out    {status} status
            role status_array   out    statuses
            category completion  completes requests
            function MPI_Testany  completion  int  outcome=testany
                int            count                request_count
                MPI_Request    array_of_requests[]  request_array
                int *          indx                 index
                int *          flag                 flag
                MPI_Status *   status               status
            function MPI_Request_get_status  completion  int  outcome=peek
                MPI_Request    request   request
                int *          flag      flag
                MPI_Status *   status    status
            function MPI_Waitsome  completion  int  outcome=waitsome
                int            incount              request_count
                MPI_Request    array_of_requests[]  request_array
                int *          outcount             outcount
                int            array_of_indices[]   index_array
                MPI_Status     array_of_statuses[]  status_array
            """)
        generated = self.generate(table)
        wrappers = generated["mpi_table_wrappers.cpp"]
        self.assertIn("  c3::mpi::Entry entry;\n"
                      "  c3::mpi::Completion completion(c3::mpi::Completion::Kind::TestAny, count, "
                      "array_of_requests);\n"
                      "  c3::mpi::run_completion(completion);\n"
                      "  *indx = completion.index();\n"
                      "  *flag = completion.flag;\n"
                      "  completion.deliver_one(status);\n"
                      "  return MPI_SUCCESS;\n}", wrappers)
        self.assertIn("Completion::Kind::Peek, 1, &request);", wrappers)
        self.assertIn("  *outcount = completion.outcount();\n"
                      "  completion.copy_indices(array_of_indices);\n"
                      "  completion.deliver_each(array_of_statuses);\n", wrappers)
        self.assertNotIn("on_Testany", generated["mpi_hooks.hpp"])
        self.assertIn("outcome MPI_Waitsome\n", generated["mpi_wrappers.txt"])
        with self.assertRaisesRegex(TableError, "MPI_Testany: outcome must be one of"):
            parse_table(table.replace("outcome=testany", "outcome=sometimes"))

    def test_status_and_proc_null(self):
        table = textwrap.dedent("""\
            role send_buf  in   data sent
            role recv_buf  out  received
            role count     in   elements
            role datatype  in   {datatype} type
            role dest      in   rank sent to
            role source    in   rank to match
            role tag       in   tag
            role comm      in   {comm} communicator
            role status    out  {status} status
            category send  sends
            category recv  receives
            function MPI_Send  send  int  proc_null
                const void *   buf       send_buf
                int            count     count
                MPI_Datatype   datatype  datatype
                int            dest      dest
                int            tag       tag
                MPI_Comm       comm      comm
            function MPI_Recv  recv  int  proc_null
                void *         buf       recv_buf
                int            count     count
                MPI_Datatype   datatype  datatype
                int            source    source
                int            tag       tag
                MPI_Comm       comm      comm
                MPI_Status *   status    status
            """)
        wrappers = self.generate(table)["mpi_table_wrappers.cpp"]
        self.assertIn("  c3::mpi::Entry entry;\n"
                      "  MPI_Status status_ignored;\n"
                      "  if (status == MPI_STATUS_IGNORE) status = &status_ignored;\n"
                      "  if (source == MPI_PROC_NULL) {\n"
                      "    c3::mpi::proc_null_status(status);\n"
                      "    return MPI_SUCCESS;\n  }\n"
                      "  return c3::mpi::on_Recv(", wrappers)
        self.assertIn("  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;\n"
                      "  return c3::mpi::on_Send(", wrappers)

    def test_fast_path_comes_before_the_entry(self):
        wrappers = self.generate(TABLE_HEAD + SEND_ENTRY.replace("send  int", "send  int  fast"))[
            "mpi_table_wrappers.cpp"]
        self.assertIn('#include "hooks/fast_paths.hpp"', wrappers)
        self.assertRegex(wrappers, r"  if \(int rc = 0; c3::mpi::fast_Send\(buf, count, datatype, dest, "
                                   r"tag, comm, rc\)\) return rc;\n  c3::mpi::Entry entry;\n")
        with self.assertRaisesRegex(TableError, "MPI_Send: a fast path needs an Entry and an int result"):
            self.generate(TABLE_HEAD + SEND_ENTRY.replace("send  int", "send  int  fast  noentry"))

    def test_table_errors_of_treatments_and_attributes(self):
        with self.assertRaisesRegex(TableError, "unknown treatment 'handle'"):
            parse_table("role r in {handle} x\n")
        with self.assertRaisesRegex(TableError, "MPI_Send: unknown attribute 'quick'"):
            parse_table(TABLE_HEAD + SEND_ENTRY.replace("send  int", "send  int  quick"))
        with self.assertRaisesRegex(TableError, "unknown attribute 'shape'"):
            parse_table(TABLE_HEAD + SEND_ENTRY.replace("send  int", "send  int  shape"))
        bad = TABLE_HEAD + self.OBJECT_ROLES + textwrap.dedent("""\
            function MPI_Type_create_struct  c  int  pass
                int                 n          value
                const int           blocklens[]  value
                const MPI_Aint      displs[]   value
                const MPI_Datatype  types[]    types
                MPI_Datatype *      newtype    new_type
            """)
        with self.assertRaisesRegex(TableError, "no parameter 'count' gives its length"):
            self.generate(bad)

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
