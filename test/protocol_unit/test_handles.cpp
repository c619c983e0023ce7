// The handle tables (protocol/handles/): every MPI object the program creates is named by a c3
// handle, recorded well enough to build it again, and translated back to the program's handles
// where MPICH calls the program (reduction operators, error handlers, attribute callbacks).
// Objects are made through c3's wrappers (MPI_*: libc3mpi is linked before MPICH), as a program
// makes them; MPICH's own answers come from PMPI_* on the objects behind the handles. Every test
// frees what it creates: MPICH reports leaked objects at MPI_Finalize.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/protocol_files.hpp"
#include "handles/attributes.hpp"
#include "handles/communicators.hpp"
#include "handles/datatypes.hpp"
#include "handles/errhandlers.hpp"
#include "handles/groups.hpp"
#include "handles/handles.hpp"
#include "handles/infos.hpp"
#include "handles/ops.hpp"
#include "handles/recreate.hpp"
#include "messages/requests.hpp"
#include "unit_support.hpp"

using namespace c3::mpi;
using c3::mpi::test::StateGuard;
using c3::mpi::test::have_two_ranks;
using c3::mpi::test::world_rank;
using c3::mpi::test::world_size;

namespace {

// A c3 handle of kind K: kind bits 31-30 are 00, MPICH's object type in bits 29-26, index + 1
// below.
template <ObjectKind K>
bool c3_shaped(int h) {
  return (uint32_t(h) >> 30) == 0 && ((uint32_t(h) >> 26) & 0xf) == uint32_t(K) &&
         (uint32_t(h) & kHandleIndexMask) != 0 && is_c3_handle<K>(h);
}

// Every rank's value (all ranks call it).
std::vector<uint64_t> gather(uint64_t value) {
  std::vector<uint64_t> all(static_cast<size_t>(world_size()));
  PMPI_Allgather(&value, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  return all;
}

// n ranks from `from`, `step` apart.
std::vector<int> iota_ranks(int from, int n, int step = 1) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back(from + i * step);
  return out;
}

// Ghosts this test left (a checkpoint would drop them once every member freed them).
class GhostGuard {
 public:
  GhostGuard() : count_(handles().ghosts.size()) {}
  ~GhostGuard() {
    if (handles().ghosts.size() > count_) handles().ghosts.resize(count_);
  }
  GhostGuard(const GhostGuard &) = delete;
  GhostGuard &operator=(const GhostGuard &) = delete;

 private:
  size_t count_;
};

// ---------------------------------------------------------------------------------------------
// Datatypes

auto &types() { return handles().types; }

struct Envelope {
  int ni = -1, na = -1, nt = -1, combiner = -1;
  bool operator==(const Envelope &o) const {
    return ni == o.ni && na == o.na && nt == o.nt && combiner == o.combiner;
  }
};

std::ostream &operator<<(std::ostream &os, const Envelope &e) {
  return os << "{ints " << e.ni << ", addresses " << e.na << ", types " << e.nt << ", combiner "
            << e.combiner << "}";
}

Envelope envelope_native(MPI_Datatype real) {
  Envelope e;
  PMPI_Type_get_envelope(real, &e.ni, &e.na, &e.nt, &e.combiner);
  return e;
}

Envelope envelope_c3(MPI_Datatype h) {
  Envelope e;
  CHECK(MPI_Type_get_envelope(h, &e.ni, &e.na, &e.nt, &e.combiner) == MPI_SUCCESS);
  return e;
}

bool predefined(MPI_Datatype real) { return envelope_native(real).combiner == MPI_COMBINER_NAMED; }

// MPICH's description of a type (MPI_Type_get_contents); the extra references MPICH hands out
// for derived components are dropped again (the values stay valid while the type lives).
struct Contents {
  std::vector<int> ints;
  std::vector<int64_t> aints;
  std::vector<MPI_Datatype> types;
};

Contents contents_native(MPI_Datatype real) {
  const Envelope e = envelope_native(real);
  Contents c;
  c.ints.resize(size_t(e.ni));
  std::vector<MPI_Aint> aints(static_cast<size_t>(e.na));
  c.types.resize(size_t(e.nt));
  PMPI_Type_get_contents(real, e.ni, e.na, e.nt, c.ints.data(), aints.data(), c.types.data());
  c.aints.assign(aints.begin(), aints.end());
  for (MPI_Datatype t : c.types)
    if (!predefined(t)) PMPI_Type_free(&t);
  return c;
}

// What a type does: its bounds, and what MPI_Pack makes of two elements of a sample buffer.
struct TypeFacts {
  MPI_Count size = -1;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  std::string packed;
};

constexpr size_t kSampleBytes = size_t(1) << 16;
constexpr int kSampleCount = 2;

// Every byte differs from its neighbours; the elements start in the middle, so negative lower
// bounds stay inside.
const unsigned char *sample_origin() {
  static const std::vector<unsigned char> bytes = [] {
    std::vector<unsigned char> b(kSampleBytes);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<unsigned char>((i * 7 + i / 251) & 0xff);
    return b;
  }();
  return bytes.data() + kSampleBytes / 2;
}

TypeFacts facts_native(MPI_Datatype real) {
  TypeFacts f;
  PMPI_Type_size_x(real, &f.size);
  PMPI_Type_get_extent(real, &f.lb, &f.extent);
  PMPI_Type_get_true_extent(real, &f.true_lb, &f.true_extent);
  int room = 0;
  PMPI_Pack_size(kSampleCount, real, MPI_COMM_SELF, &room);
  f.packed.assign(size_t(room), '\0');
  int position = 0;
  CHECK(PMPI_Pack(sample_origin(), kSampleCount, real, f.packed.data(), room, &position,
                  MPI_COMM_SELF) == MPI_SUCCESS);
  f.packed.resize(size_t(position));
  return f;
}

// The same questions through c3's wrappers, with the program's handle.
TypeFacts facts_c3(MPI_Datatype h) {
  TypeFacts f;
  CHECK(MPI_Type_size_x(h, &f.size) == MPI_SUCCESS);
  CHECK(MPI_Type_get_extent(h, &f.lb, &f.extent) == MPI_SUCCESS);
  CHECK(MPI_Type_get_true_extent(h, &f.true_lb, &f.true_extent) == MPI_SUCCESS);
  int room = 0;
  CHECK(MPI_Pack_size(kSampleCount, h, MPI_COMM_SELF, &room) == MPI_SUCCESS);
  f.packed.assign(size_t(room), '\0');
  int position = 0;
  CHECK(MPI_Pack(sample_origin(), kSampleCount, h, f.packed.data(), room, &position,
                 MPI_COMM_SELF) == MPI_SUCCESS);
  f.packed.resize(size_t(position));
  return f;
}

void check_same(const TypeFacts &got, const TypeFacts &want) {
  CHECK(got.size == want.size);
  CHECK(got.lb == want.lb);
  CHECK(got.extent == want.extent);
  CHECK(got.true_lb == want.true_lb);
  CHECK(got.true_extent == want.true_extent);
  CHECK(got.packed.size() == want.packed.size());
  CHECK(got.packed == want.packed);
}

// A restart's datatype step, as recreate_handles takes it: the table keeps its entries, MPICH's
// objects are not there (forget_all_reals, as after loading a snapshot) and are built from the
// recipes. The objects of before are freed when the guard ends.
class TypeRestart {
 public:
  TypeRestart() {
    types().for_each([&](int, auto &slot) {
      if (slot.real && !slot.released) before_.push_back(slot.real);  // c3's own references
    });
    types().forget_all_reals();
    recreate_datatypes();
  }
  ~TypeRestart() {
    for (MPI_Datatype &t : before_) PMPI_Type_free(&t);
  }
  TypeRestart(const TypeRestart &) = delete;
  TypeRestart &operator=(const TypeRestart &) = delete;

 private:
  std::vector<MPI_Datatype> before_;
};

uint32_t refs_of(MPI_Datatype h) {
  const auto *slot = types().find(h);
  return slot ? slot->refs : 0;
}

uint32_t dependants_of(MPI_Datatype h) {
  const auto *slot = types().find(h);
  return slot ? slot->info.dependants : 0;
}

// c3's wrapper with the program's handles, or MPICH's own call with MPICH's.
#define EITHER(native, fn, ...) ((native) ? P##fn(__VA_ARGS__) : fn(__VA_ARGS__))

struct Constructor {
  const char *name;
  int combiner;                          // what MPICH 4.0.2 answers
  std::vector<MPI_Datatype> components;  // the recipe's, as the program names them
  std::function<int(bool native, MPI_Datatype *out)> make;
};

}  // namespace

TEST_CASE("handles: c3 handles carry kind bits 00 and MPICH's object type", "[handles]") {
  CHECK(c3_handle<ObjectKind::Comm>(0) == 0x04000001);
  CHECK(c3_handle<ObjectKind::Datatype>(4) == 0x0c000005);
  CHECK(c3_handle<ObjectKind::Keyval>(0) == 0x24000001);
  // MPICH's null handles have kind bits 00 too, with index 0: never c3 handles.
  CHECK_FALSE(is_c3_handle<ObjectKind::Comm>(MPI_COMM_NULL));
  CHECK_FALSE(is_c3_handle<ObjectKind::Datatype>(MPI_DATATYPE_NULL));
  CHECK_FALSE(is_c3_handle<ObjectKind::Group>(MPI_GROUP_NULL));
  CHECK_FALSE(is_c3_handle<ObjectKind::Op>(MPI_OP_NULL));
  CHECK_FALSE(is_c3_handle<ObjectKind::Errhandler>(MPI_ERRHANDLER_NULL));
  CHECK_FALSE(is_c3_handle<ObjectKind::Info>(MPI_INFO_NULL));
  CHECK_FALSE(is_c3_handle<ObjectKind::Keyval>(MPI_KEYVAL_INVALID));
  // Predefined objects pass through translation unchanged.
  CHECK_FALSE(is_c3_handle<ObjectKind::Comm>(MPI_COMM_WORLD));
  CHECK_FALSE(is_c3_handle<ObjectKind::Datatype>(MPI_INT));
  CHECK(real_comm(MPI_COMM_WORLD) == MPI_COMM_WORLD);
  CHECK(real_type(MPI_DOUBLE) == MPI_DOUBLE);
  CHECK(real_op(MPI_SUM) == MPI_SUM);
  CHECK(real_group(MPI_GROUP_EMPTY) == MPI_GROUP_EMPTY);
  CHECK(real_info(MPI_INFO_ENV) == MPI_INFO_ENV);
  CHECK(real_keyval(MPI_TAG_UB) == MPI_TAG_UB);
  CHECK(real_errhandler(MPI_ERRORS_RETURN) == MPI_ERRORS_RETURN);
  // Another object type's c3 handle is not this kind's.
  CHECK_FALSE(is_c3_handle<ObjectKind::Datatype>(c3_handle<ObjectKind::Comm>(0)));
}

TEST_CASE("datatypes: every constructor gives a c3 handle, MPICH's envelope and a recipe that "
          "builds the same type",
          "[handles][datatypes]") {
  MPI_Datatype inner = MPI_DATATYPE_NULL;  // a derived component: 2 shorts, 3 apart
  REQUIRE(MPI_Type_vector(2, 1, 3, MPI_SHORT, &inner) == MPI_SUCCESS);
  REQUIRE(c3_shaped<ObjectKind::Datatype>(inner));
  auto in = [&](bool native) { return native ? real_type(inner) : inner; };

  const int bls3[3] = {1, 2, 3}, displs3[3] = {0, 4, 10}, block_displs[3] = {0, 5, 9};
  const MPI_Aint hdispls2[2] = {-8, 40}, hblock_displs[3] = {0, 24, 64}, sdispls[3] = {0, 8, 40};
  const int sbls[3] = {3, 2, 1};
  const int sizes[2] = {5, 7}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
  const int gsizes[2] = {4, 6}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 2};

  const std::vector<Constructor> constructors = {
      {"contiguous", MPI_COMBINER_CONTIGUOUS, {inner},
       [&](bool n, MPI_Datatype *o) { return EITHER(n, MPI_Type_contiguous, 3, in(n), o); }},
      {"vector", MPI_COMBINER_VECTOR, {MPI_FLOAT},
       [&](bool n, MPI_Datatype *o) { return EITHER(n, MPI_Type_vector, 3, 2, 4, MPI_FLOAT, o); }},
      {"create_hvector", MPI_COMBINER_HVECTOR, {inner},
       [&](bool n, MPI_Datatype *o) {
         return EITHER(n, MPI_Type_create_hvector, 3, 2, MPI_Aint(24), in(n), o);
       }},
      {"hvector (MPI-1)", MPI_COMBINER_HVECTOR, {MPI_DOUBLE},
       [&](bool n, MPI_Datatype *o) {
         return EITHER(n, MPI_Type_hvector, 2, 1, MPI_Aint(-16), MPI_DOUBLE, o);
       }},
      {"indexed", MPI_COMBINER_INDEXED, {MPI_DOUBLE},
       [&](bool n, MPI_Datatype *o) {
         return EITHER(n, MPI_Type_indexed, 3, bls3, displs3, MPI_DOUBLE, o);
       }},
      {"create_hindexed", MPI_COMBINER_HINDEXED, {MPI_INT},
       [&](bool n, MPI_Datatype *o) {
         const int bls[2] = {2, 1};
         return EITHER(n, MPI_Type_create_hindexed, 2, bls, hdispls2, MPI_INT, o);
       }},
      {"hindexed (MPI-1)", MPI_COMBINER_HINDEXED, {inner},
       [&](bool n, MPI_Datatype *o) {
         int bls[2] = {2, 1};
         MPI_Aint displs[2] = {16, 0};
         return EITHER(n, MPI_Type_hindexed, 2, bls, displs, in(n), o);
       }},
      {"create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, {inner},
       [&](bool n, MPI_Datatype *o) {
         return EITHER(n, MPI_Type_create_indexed_block, 3, 2, block_displs, in(n), o);
       }},
      {"create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, {MPI_INT},
       [&](bool n, MPI_Datatype *o) {
         return EITHER(n, MPI_Type_create_hindexed_block, 3, 2, hblock_displs, MPI_INT, o);
       }},
      {"create_struct", MPI_COMBINER_STRUCT, {MPI_CHAR, inner, MPI_DOUBLE},
       [&](bool n, MPI_Datatype *o) {
         const MPI_Datatype ts[3] = {MPI_CHAR, in(n), MPI_DOUBLE};
         return EITHER(n, MPI_Type_create_struct, 3, sbls, sdispls, ts, o);
       }},
      {"struct (MPI-1)", MPI_COMBINER_STRUCT, {inner, inner},
       [&](bool n, MPI_Datatype *o) {
         int bls[2] = {1, 2};
         MPI_Aint displs[2] = {0, 16};
         MPI_Datatype ts[2] = {in(n), in(n)};
         return EITHER(n, MPI_Type_struct, 2, bls, displs, ts, o);
       }},
      {"create_subarray", MPI_COMBINER_SUBARRAY, {inner},
       [&](bool n, MPI_Datatype *o) {
         return EITHER(n, MPI_Type_create_subarray, 2, sizes, subsizes, starts,
                       MPI_ORDER_FORTRAN, in(n), o);
       }},
      {"create_darray", MPI_COMBINER_DARRAY, {MPI_INT},
       [&](bool n, MPI_Datatype *o) {
         return EITHER(n, MPI_Type_create_darray, 4, 1, 2, gsizes, distribs, dargs, psizes,
                       MPI_ORDER_C, MPI_INT, o);
       }},
      {"create_resized", MPI_COMBINER_RESIZED, {inner},
       [&](bool n, MPI_Datatype *o) {
         return EITHER(n, MPI_Type_create_resized, in(n), MPI_Aint(-4), MPI_Aint(24), o);
       }},
      {"dup (derived)", MPI_COMBINER_DUP, {inner},
       [&](bool n, MPI_Datatype *o) { return EITHER(n, MPI_Type_dup, in(n), o); }},
      {"dup (predefined)", MPI_COMBINER_DUP, {MPI_DOUBLE},
       [&](bool n, MPI_Datatype *o) { return EITHER(n, MPI_Type_dup, MPI_DOUBLE, o); }},
  };

  for (const Constructor &c : constructors) {
    INFO(c.name);
    MPI_Datatype h = MPI_DATATYPE_NULL, ref = MPI_DATATYPE_NULL;
    REQUIRE(c.make(false, &h) == MPI_SUCCESS);
    REQUIRE(c.make(true, &ref) == MPI_SUCCESS);
    CHECK(c3_shaped<ObjectKind::Datatype>(h));
    CHECK_FALSE(is_c3_handle<ObjectKind::Datatype>(real_type(h)));
    CHECK(app_type(real_type(h)) == h);

    // MPI_Type_get_envelope through c3 answers as MPICH does for the same construction.
    const Envelope mpich = envelope_native(ref);
    CHECK(envelope_c3(h) == mpich);
    CHECK(mpich.combiner == c.combiner);

    // The recipe is MPICH's description, with the components as the program's handles.
    const auto *slot = types().find(h);
    REQUIRE(slot != nullptr);
    CHECK(slot->refs == 1);
    const Contents contents = contents_native(ref);
    CHECK(slot->info.combiner == c.combiner);
    CHECK(slot->info.ints == contents.ints);
    CHECK(slot->info.aints == contents.aints);
    CHECK(slot->info.types == std::vector<int>(c.components.begin(), c.components.end()));
    CHECK_FALSE(slot->info.committed);
    size_t uses = 0;
    for (MPI_Datatype t : c.components) uses += t == inner;
    CHECK(dependants_of(inner) == uses);

    REQUIRE(MPI_Type_commit(&h) == MPI_SUCCESS);
    REQUIRE(PMPI_Type_commit(&ref) == MPI_SUCCESS);
    CHECK(types().find(h)->info.committed);

    // Built again from the recipe alone: the same type.
    MPI_Datatype built = build_datatype(types().find(h)->info);
    CHECK_FALSE(is_c3_handle<ObjectKind::Datatype>(built));
    CHECK(envelope_native(built) == mpich);
    const TypeFacts expected = facts_native(ref);
    CHECK(expected.size > 0);
    CHECK_FALSE(expected.packed.empty());
    {
      INFO("the program's handle through c3's wrappers");
      check_same(facts_c3(h), expected);
    }
    {
      INFO("built from the recipe");
      check_same(facts_native(built), expected);
    }
    PMPI_Type_free(&built);
    PMPI_Type_free(&ref);

    const MPI_Datatype freed = h;
    REQUIRE(MPI_Type_free(&h) == MPI_SUCCESS);
    CHECK(h == MPI_DATATYPE_NULL);
    CHECK(types().find(freed) == nullptr);
    CHECK(dependants_of(inner) == 0);
  }
  const MPI_Datatype inner_handle = inner;
  REQUIRE(MPI_Type_free(&inner) == MPI_SUCCESS);
  CHECK(types().find(inner_handle) == nullptr);
}

TEST_CASE("datatypes: a freed handle's index is handed out again, lowest first",
          "[handles][datatypes]") {
  MPI_Datatype a, b, c;
  REQUIRE(MPI_Type_contiguous(2, MPI_INT, &a) == MPI_SUCCESS);
  REQUIRE(MPI_Type_contiguous(3, MPI_INT, &b) == MPI_SUCCESS);
  const MPI_Datatype first = a, second = b;
  CHECK(first != second);
  MPI_Type_free(&a);
  REQUIRE(MPI_Type_contiguous(4, MPI_INT, &c) == MPI_SUCCESS);
  CHECK(c == first);
  int size = 0;
  MPI_Type_size(c, &size);
  CHECK(size == 16);
  MPI_Type_free(&b);
  MPI_Type_free(&c);
  CHECK(types().find(first) == nullptr);
  CHECK(types().find(second) == nullptr);
}

TEST_CASE("datatypes: nested recipes, and components freed while a type built from them lives",
          "[handles][datatypes]") {
  // A struct of vectors of a resized int.
  MPI_Datatype resized, vec, st;
  REQUIRE(MPI_Type_create_resized(MPI_INT, 0, 8, &resized) == MPI_SUCCESS);
  REQUIRE(MPI_Type_vector(3, 1, 2, resized, &vec) == MPI_SUCCESS);
  const int bls[3] = {1, 2, 1};
  const MPI_Aint displs[3] = {0, 48, 64};
  const MPI_Datatype parts[3] = {vec, MPI_DOUBLE, vec};
  REQUIRE(MPI_Type_create_struct(3, bls, displs, parts, &st) == MPI_SUCCESS);
  REQUIRE(MPI_Type_commit(&st) == MPI_SUCCESS);
  const MPI_Datatype resized_h = resized, vec_h = vec, st_h = st;

  CHECK(types().find(resized_h)->info.types == std::vector<int>{MPI_INT});
  CHECK(types().find(vec_h)->info.types == std::vector<int>{resized_h});
  CHECK(types().find(st_h)->info.types == std::vector<int>{vec_h, MPI_DOUBLE, vec_h});
  CHECK(dependants_of(resized_h) == 1);
  CHECK(dependants_of(vec_h) == 2);

  const TypeFacts before = facts_c3(st);
  CHECK(before.size == 3 * 4 * 2 + 16);
  MPI_Datatype built = build_datatype(types().find(st_h)->info);
  check_same(facts_native(built), before);
  PMPI_Type_free(&built);

  // The components go; MPI keeps them for the struct, c3 keeps their entries as zombies.
  REQUIRE(MPI_Type_free(&resized) == MPI_SUCCESS);
  REQUIRE(MPI_Type_free(&vec) == MPI_SUCCESS);
  CHECK(resized == MPI_DATATYPE_NULL);
  CHECK(vec == MPI_DATATYPE_NULL);
  for (MPI_Datatype zombie : {resized_h, vec_h}) {
    const auto *slot = types().find(zombie);
    REQUIRE(slot != nullptr);
    CHECK(slot->zombie());
    CHECK(slot->refs == 0);
    // c3's MPICH reference is given up; the handle still leads here (delete callbacks).
    CHECK(slot->released);
    CHECK(app_type(slot->real) == zombie);
  }
  check_same(facts_c3(st), before);
  // A checkpoint keeps zombies something still names.
  drop_unnamed_datatypes();
  CHECK(types().find(resized_h) != nullptr);
  CHECK(types().find(vec_h) != nullptr);

  // The last type built from them takes them along.
  REQUIRE(MPI_Type_free(&st) == MPI_SUCCESS);
  CHECK(types().find(st_h) == nullptr);
  CHECK(types().find(vec_h) == nullptr);
  CHECK(types().find(resized_h) == nullptr);
}

TEST_CASE("datatypes: recreate_datatypes builds zombies and live types in creation order",
          "[handles][datatypes]") {
  MPI_Datatype a, b, c, d;
  REQUIRE(MPI_Type_contiguous(2, MPI_INT, &a) == MPI_SUCCESS);
  REQUIRE(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &b) == MPI_SUCCESS);
  const MPI_Datatype b_h = b;
  MPI_Type_free(&a);  // its index is free again
  REQUIRE(MPI_Type_vector(2, 2, 3, b, &c) == MPI_SUCCESS);  // built from b, at a lower index
  const MPI_Datatype c_h = c;
  REQUIRE(MPI_Type_create_resized(c, -8, 400, &d) == MPI_SUCCESS);
  const MPI_Datatype d_h = d;
  REQUIRE(MPI_Type_commit(&d) == MPI_SUCCESS);
  REQUIRE(MPI_Type_commit(&c) == MPI_SUCCESS);
  REQUIRE(MPI_Type_set_name(d, "c3 test type") == MPI_SUCCESS);
  // Table order is not creation order here: a restart that followed it would build c before b.
  CHECK(uint32_t(c_h) < uint32_t(b_h));
  CHECK(types().find(b_h)->serial < types().find(c_h)->serial);
  CHECK(types().find(c_h)->serial < types().find(d_h)->serial);

  MPI_Type_free(&b);  // zombie: c names it
  MPI_Type_free(&c);  // zombie: d names it
  CHECK(types().find(b_h)->zombie());
  CHECK(types().find(c_h)->zombie());
  const TypeFacts before = facts_c3(d);
  capture_datatype_names();
  CHECK(types().find(d_h)->info.name == "c3 test type");
  {
    TypeRestart restart;
    const auto *live = types().find(d_h);
    REQUIRE(live != nullptr);
    CHECK(live->real != 0);
    CHECK(live->refs == 1);
    CHECK(app_type(live->real) == d_h);
    check_same(facts_c3(d), before);
    CHECK(types().find(d_h)->info.committed);
    char name[MPI_MAX_OBJECT_NAME + 1] = {};
    int length = 0;
    MPI_Type_get_name(d, name, &length);
    CHECK(std::string(name, size_t(length)) == "c3 test type");
    // Zombies stay zombies: no handle of the program's, entries kept.
    for (MPI_Datatype zombie : {b_h, c_h}) {
      const auto *slot = types().find(zombie);
      REQUIRE(slot != nullptr);
      CHECK(slot->zombie());
    }
  }
  MPI_Type_free(&d);
  CHECK(types().find(d_h) == nullptr);
  CHECK(types().find(c_h) == nullptr);
  CHECK(types().find(b_h) == nullptr);
}

TEST_CASE("datatypes: a type freed while a pending receive names it has an MPICH type after a "
          "restart",
          "[handles][datatypes]") {
  StateGuard guard;
  MPI_Datatype t;
  REQUIRE(MPI_Type_vector(2, 1, 2, MPI_INT, &t) == MPI_SUCCESS);
  REQUIRE(MPI_Type_commit(&t) == MPI_SUCCESS);
  const MPI_Datatype t_h = t;
  // An MPI_Irecv pending at the checkpoint: requests_restored() gives it slot_real(type) and
  // repost_after_restart() posts it again with that.
  Request *r = nullptr;
  MPI_Request req = new_request(Request::Kind::Recv, &r);
  r->active = true;
  r->type = t_h;
  r->count = 1;
  r->comm = MPI_COMM_SELF;
  r->tag = 3;
  MPI_Type_free(&t);  // legal: MPI keeps the type for the pending receive
  REQUIRE(types().find(t_h) != nullptr);
  CHECK(types().find(t_h)->zombie());
  drop_unnamed_datatypes();
  REQUIRE(types().find(t_h) != nullptr);
  {
    TypeRestart restart;
    const MPI_Datatype rebuilt = types().slot_real(t_h);
    CHECK(rebuilt != 0);
    if (rebuilt != 0) {
      int size = 0;
      PMPI_Type_size(rebuilt, &size);
      CHECK(size == 8);
    }
  }
  // The receive completes: the zombie and its MPICH type go (MPICH reports a leak otherwise).
  request_of(req).active = false;
  free_request(req);
  drop_unnamed_datatypes();
  CHECK(types().find(t_h) == nullptr);
}

TEST_CASE("datatypes: MPI_Type_get_contents hands out the program's handles",
          "[handles][datatypes]") {
  MPI_Datatype vec, st;
  REQUIRE(MPI_Type_vector(2, 1, 2, MPI_INT, &vec) == MPI_SUCCESS);
  const int bls[2] = {1, 1};
  const MPI_Aint displs[2] = {0, 32};
  const MPI_Datatype parts[2] = {vec, MPI_DOUBLE};
  REQUIRE(MPI_Type_create_struct(2, bls, displs, parts, &st) == MPI_SUCCESS);
  const MPI_Datatype vec_h = vec, st_h = st;

  const Envelope e = envelope_c3(st);
  CHECK(e == Envelope{3, 2, 2, MPI_COMBINER_STRUCT});
  int ints[3] = {};
  MPI_Aint aints[2] = {};
  MPI_Datatype got[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  REQUIRE(MPI_Type_get_contents(st, 3, 2, 2, ints, aints, got) == MPI_SUCCESS);
  CHECK(ints[0] == 2);
  CHECK(aints[1] == 32);
  CHECK(got[0] == vec_h);  // the same handle, one more reference
  CHECK(got[1] == MPI_DOUBLE);
  CHECK(refs_of(vec_h) == 2);
  int size = 0;
  CHECK(MPI_Type_size(got[0], &size) == MPI_SUCCESS);
  CHECK(size == 8);
  REQUIRE(MPI_Type_free(&got[0]) == MPI_SUCCESS);
  CHECK(got[0] == MPI_DATATYPE_NULL);
  CHECK(refs_of(vec_h) == 1);
  CHECK(MPI_Type_size(vec, &size) == MPI_SUCCESS);

  // Predefined components come back unchanged.
  int vints[3] = {};
  MPI_Datatype vgot[1] = {MPI_DATATYPE_NULL};
  REQUIRE(MPI_Type_get_contents(vec, 3, 0, 1, vints, nullptr, vgot) == MPI_SUCCESS);
  CHECK(vgot[0] == MPI_INT);
  CHECK(vints[2] == 2);

  // A component the program freed (a zombie) comes back as a c3 handle it can use and free.
  REQUIRE(MPI_Type_free(&vec) == MPI_SUCCESS);
  REQUIRE(MPI_Type_get_contents(st, 3, 2, 2, ints, aints, got) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Datatype>(got[0]));
  CHECK(MPI_Type_size(got[0], &size) == MPI_SUCCESS);
  CHECK(size == 8);
  REQUIRE(MPI_Type_free(&got[0]) == MPI_SUCCESS);
  REQUIRE(MPI_Type_free(&st) == MPI_SUCCESS);
  CHECK(types().find(st_h) == nullptr);
  CHECK(types().find(vec_h) == nullptr);
}

TEST_CASE("datatypes: MPI_Type_create_f90_real twice with the same arguments",
          "[handles][datatypes]") {
  // MPICH returns its cached type both times; in a singleton MPI job of its own
  // (child_scenarios.cpp), since a broken MPICH type breaks MPI_Finalize.
  const c3::mpi::test::ChildResult r = c3::mpi::test::run_child("f90-type-twice");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("f90 type sizes 4 4"));
  CHECK_THAT(r.err, !Catch::Contains("Assertion"));
}

// ---------------------------------------------------------------------------------------------
// Groups

namespace {

auto &groups() { return handles().groups; }

MPI_Group world_group_native() {
  MPI_Group g;
  PMPI_Comm_group(MPI_COMM_WORLD, &g);
  return g;
}

std::vector<int> world_ranks_native(MPI_Group real) {
  int n = 0;
  PMPI_Group_size(real, &n);
  std::vector<int> ranks(static_cast<size_t>(n)), world(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ranks[size_t(i)] = i;
  MPI_Group w = world_group_native();
  if (n > 0) PMPI_Group_translate_ranks(real, n, ranks.data(), w, world.data());
  PMPI_Group_free(&w);
  return world;
}

}  // namespace

TEST_CASE("groups: MPI_Comm_group twice gives one c3 handle with two references",
          "[handles][groups]") {
  const int n = world_size();
  MPI_Group a = MPI_GROUP_NULL, b = MPI_GROUP_NULL;
  REQUIRE(MPI_Comm_group(MPI_COMM_WORLD, &a) == MPI_SUCCESS);
  REQUIRE(MPI_Comm_group(MPI_COMM_WORLD, &b) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Group>(a));
  CHECK(a == b);
  const MPI_Group h = a;
  const auto *slot = groups().find(h);
  REQUIRE(slot != nullptr);
  CHECK(slot->refs == 2);
  std::vector<int> everyone(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) everyone[size_t(i)] = i;
  CHECK(slot->info.world == everyone);

  REQUIRE(MPI_Group_free(&a) == MPI_SUCCESS);
  CHECK(a == MPI_GROUP_NULL);
  REQUIRE(groups().find(h) != nullptr);
  CHECK(groups().find(h)->refs == 1);
  int size = 0, rank = -1;
  CHECK(MPI_Group_size(b, &size) == MPI_SUCCESS);
  CHECK(size == n);
  CHECK(MPI_Group_rank(b, &rank) == MPI_SUCCESS);
  CHECK(rank == world_rank());
  REQUIRE(MPI_Group_free(&b) == MPI_SUCCESS);
  CHECK(b == MPI_GROUP_NULL);
  CHECK(groups().find(h) == nullptr);

  // MPI_GROUP_EMPTY is MPICH's and passes unchanged, in and out.
  MPI_Group all = MPI_GROUP_NULL, empty = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &all);
  REQUIRE(MPI_Group_incl(all, 0, nullptr, &empty) == MPI_SUCCESS);
  CHECK(empty == MPI_GROUP_EMPTY);
  CHECK(MPI_Group_size(MPI_GROUP_EMPTY, &size) == MPI_SUCCESS);
  CHECK(size == 0);
  int result = -1;
  CHECK(MPI_Group_compare(empty, MPI_GROUP_EMPTY, &result) == MPI_SUCCESS);
  CHECK(result == MPI_IDENT);
  CHECK(MPI_Group_free(&empty) == MPI_SUCCESS);
  CHECK(empty == MPI_GROUP_NULL);
  MPI_Group_free(&all);
}

TEST_CASE("groups: group operations answer as MPICH's do, and record world ranks",
          "[handles][groups]") {
  const int n = world_size(), me = world_rank();
  MPI_Group world = MPI_GROUP_NULL;
  REQUIRE(MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS);
  MPI_Group world_real = real_group(world);
  std::vector<int> reversed(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) reversed[size_t(i)] = n - 1 - i;
  const int zero[1] = {0};
  int rev_range[1][3] = {{n - 1, 0, -1}}, even_range[1][3] = {{0, n - 1, 2}};

  // c3 (program handles) and MPICH (its handles): each op on both.
  struct Op {
    const char *name;
    std::function<int(bool native, MPI_Group *out)> make;
  };
  MPI_Group rev = MPI_GROUP_NULL, rev_native = MPI_GROUP_NULL;
  REQUIRE(MPI_Group_incl(world, n, reversed.data(), &rev) == MPI_SUCCESS);
  REQUIRE(PMPI_Group_incl(world_real, n, reversed.data(), &rev_native) == MPI_SUCCESS);
  MPI_Group excl0 = MPI_GROUP_NULL, excl0_native = MPI_GROUP_NULL;
  REQUIRE(MPI_Group_excl(world, 1, zero, &excl0) == MPI_SUCCESS);
  REQUIRE(PMPI_Group_excl(world_real, 1, zero, &excl0_native) == MPI_SUCCESS);
  auto pick = [](bool native, MPI_Group app, MPI_Group real) { return native ? real : app; };
  const std::vector<Op> ops = {
      {"incl reversed",
       [&](bool nat, MPI_Group *o) {
         return EITHER(nat, MPI_Group_incl, pick(nat, world, world_real), n, reversed.data(), o);
       }},
      {"excl 0",
       [&](bool nat, MPI_Group *o) {
         return EITHER(nat, MPI_Group_excl, pick(nat, world, world_real), 1, zero, o);
       }},
      {"range_incl reversed",
       [&](bool nat, MPI_Group *o) {
         return EITHER(nat, MPI_Group_range_incl, pick(nat, world, world_real), 1, rev_range, o);
       }},
      {"range_excl even",
       [&](bool nat, MPI_Group *o) {
         return EITHER(nat, MPI_Group_range_excl, pick(nat, world, world_real), 1, even_range, o);
       }},
      {"union",
       [&](bool nat, MPI_Group *o) {
         return EITHER(nat, MPI_Group_union, pick(nat, excl0, excl0_native),
                       pick(nat, rev, rev_native), o);
       }},
      {"intersection",
       [&](bool nat, MPI_Group *o) {
         return EITHER(nat, MPI_Group_intersection, pick(nat, rev, rev_native),
                       pick(nat, excl0, excl0_native), o);
       }},
      {"difference",
       [&](bool nat, MPI_Group *o) {
         return EITHER(nat, MPI_Group_difference, pick(nat, world, world_real),
                       pick(nat, excl0, excl0_native), o);
       }},
  };
  for (const Op &op : ops) {
    INFO(op.name);
    MPI_Group mine = MPI_GROUP_NULL, theirs = MPI_GROUP_NULL;
    REQUIRE(op.make(false, &mine) == MPI_SUCCESS);
    REQUIRE(op.make(true, &theirs) == MPI_SUCCESS);
    if (theirs == MPI_GROUP_EMPTY) {
      CHECK(mine == MPI_GROUP_EMPTY);
    } else {
      CHECK(c3_shaped<ObjectKind::Group>(mine));
      const auto *slot = groups().find(mine);
      REQUIRE(slot != nullptr);
      CHECK(slot->info.world == world_ranks_native(theirs));
    }
    int size_c3 = -1, size_mpich = -2, rank_c3 = -1, rank_mpich = -2;
    MPI_Group_size(mine, &size_c3);
    PMPI_Group_size(theirs, &size_mpich);
    CHECK(size_c3 == size_mpich);
    MPI_Group_rank(mine, &rank_c3);
    PMPI_Group_rank(theirs, &rank_mpich);
    CHECK(rank_c3 == rank_mpich);
    std::vector<int> ranks(static_cast<size_t>(size_mpich)), to_c3(ranks.size(), -5),
        to_mpich(ranks.size(), -6);
    for (size_t i = 0; i < ranks.size(); ++i) ranks[i] = int(i);
    if (!ranks.empty()) {
      CHECK(MPI_Group_translate_ranks(mine, int(ranks.size()), ranks.data(), world,
                                      to_c3.data()) == MPI_SUCCESS);
      PMPI_Group_translate_ranks(theirs, int(ranks.size()), ranks.data(), world_real,
                                 to_mpich.data());
      CHECK(to_c3 == to_mpich);
      // And the other way, into the group (ranks outside it are MPI_UNDEFINED).
      std::vector<int> all(static_cast<size_t>(n)), back_c3(all.size()), back_mpich(all.size());
      for (int i = 0; i < n; ++i) all[size_t(i)] = i;
      MPI_Group_translate_ranks(world, n, all.data(), mine, back_c3.data());
      PMPI_Group_translate_ranks(world_real, n, all.data(), theirs, back_mpich.data());
      CHECK(back_c3 == back_mpich);
    }
    for (MPI_Group other : {world, rev, excl0}) {
      int cmp_c3 = -1, cmp_mpich = -2;
      CHECK(MPI_Group_compare(mine, other, &cmp_c3) == MPI_SUCCESS);
      PMPI_Group_compare(theirs, real_group(other), &cmp_mpich);
      CHECK(cmp_c3 == cmp_mpich);
    }
    REQUIRE(MPI_Group_free(&mine) == MPI_SUCCESS);
    CHECK(mine == MPI_GROUP_NULL);
    PMPI_Group_free(&theirs);
  }
  // Recorded world ranks of the reversed group, and this process's rank in it.
  REQUIRE(groups().find(rev) != nullptr);
  CHECK(groups().find(rev)->info.world == reversed);
  int rank = -1;
  MPI_Group_rank(rev, &rank);
  CHECK(rank == n - 1 - me);
  MPI_Group_free(&rev);
  MPI_Group_free(&excl0);
  PMPI_Group_free(&rev_native);
  PMPI_Group_free(&excl0_native);
  MPI_Group_free(&world);
}

TEST_CASE("groups: the group of a split communicator records its members as world ranks",
          "[handles][groups][two_ranks]") {
  if (!have_two_ranks()) return;
  const int n = world_size(), me = world_rank();
  MPI_Comm rev = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, 0, n - me, &rev) == MPI_SUCCESS);
  MPI_Group g = MPI_GROUP_NULL;
  REQUIRE(MPI_Comm_group(rev, &g) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Group>(g));
  std::vector<int> reversed(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) reversed[size_t(i)] = n - 1 - i;
  REQUIRE(groups().find(g) != nullptr);
  CHECK(groups().find(g)->info.world == reversed);
  CHECK(world_ranks(real_group(g)) == reversed);
  // group_of_world_ranks builds the same group again.
  MPI_Group again = group_of_world_ranks(reversed);
  int cmp = -1;
  PMPI_Group_compare(again, real_group(g), &cmp);
  CHECK(cmp == MPI_IDENT);
  PMPI_Group_free(&again);
  MPI_Group_free(&g);
  MPI_Comm_free(&rev);
}

// ---------------------------------------------------------------------------------------------
// Info objects

namespace {

using InfoEntries = std::vector<std::pair<std::string, std::string>>;

InfoEntries info_entries(MPI_Info h) {
  InfoEntries out;
  int n = 0;
  CHECK(MPI_Info_get_nkeys(h, &n) == MPI_SUCCESS);
  for (int i = 0; i < n; ++i) {
    char key[MPI_MAX_INFO_KEY + 1] = {};
    MPI_Info_get_nthkey(h, i, key);
    int length = 0, flag = 0;
    MPI_Info_get_valuelen(h, key, &length, &flag);
    std::string value(size_t(length) + 1, '\0');
    MPI_Info_get(h, key, length, value.data(), &flag);
    CHECK(flag);
    value.resize(size_t(length));
    out.emplace_back(key, value);
  }
  return out;
}

}  // namespace

TEST_CASE("infos: contents are captured and built again", "[handles][infos]") {
  auto &infos = handles().infos;
  MPI_Info info = MPI_INFO_NULL, dup = MPI_INFO_NULL;
  REQUIRE(MPI_Info_create(&info) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Info>(info));
  const std::string longest(MPI_MAX_INFO_VAL, 'v');
  MPI_Info_set(info, "c3_first", "one");
  MPI_Info_set(info, "c3_spaces", "a value with spaces");
  MPI_Info_set(info, "c3_longest", longest.c_str());
  MPI_Info_set(info, "c3_first", "replaced");
  REQUIRE(MPI_Info_dup(info, &dup) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Info>(dup));
  CHECK(dup != info);
  MPI_Info_set(dup, "c3_only_dup", "x");
  MPI_Info_delete(dup, "c3_spaces");

  const InfoEntries info_want = {
      {"c3_first", "replaced"}, {"c3_spaces", "a value with spaces"}, {"c3_longest", longest}};
  const InfoEntries dup_want = {{"c3_first", "replaced"}, {"c3_longest", longest}, {"c3_only_dup", "x"}};
  CHECK(info_entries(info) == info_want);
  CHECK(info_entries(dup) == dup_want);

  capture_infos();
  REQUIRE(infos.find(info) != nullptr);
  REQUIRE(infos.find(dup) != nullptr);
  CHECK(infos.find(info)->info.entries == info_want);
  CHECK(infos.find(dup)->info.entries == dup_want);

  // A restart: new MPICH objects behind the same handles, with the same contents.
  std::vector<MPI_Info> before;
  infos.for_each([&](int, auto &slot) { before.push_back(slot.real); });
  const MPI_Info info_real_before = real_info(info);
  recreate_infos();
  CHECK(real_info(info) != info_real_before);
  CHECK_FALSE(is_c3_handle<ObjectKind::Info>(real_info(info)));
  CHECK(info_entries(info) == info_want);
  CHECK(info_entries(dup) == dup_want);
  for (MPI_Info &old : before) PMPI_Info_free(&old);

  const MPI_Info info_h = info, dup_h = dup;
  REQUIRE(MPI_Info_free(&info) == MPI_SUCCESS);
  REQUIRE(MPI_Info_free(&dup) == MPI_SUCCESS);
  CHECK(info == MPI_INFO_NULL);
  CHECK(dup == MPI_INFO_NULL);
  CHECK(infos.find(info_h) == nullptr);
  CHECK(infos.find(dup_h) == nullptr);

  // MPI_INFO_ENV is MPICH's; a duplicate of it is the program's.
  MPI_Info env = MPI_INFO_NULL;
  REQUIRE(MPI_Info_dup(MPI_INFO_ENV, &env) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Info>(env));
  MPI_Info_free(&env);
}

TEST_CASE("infos: MPI_Comm_get_info returns a c3 handle", "[handles][infos]") {
  MPI_Comm c = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_dup(MPI_COMM_SELF, &c) == MPI_SUCCESS);
  MPI_Info used = MPI_INFO_NULL;
  REQUIRE(MPI_Comm_get_info(c, &used) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Info>(used));
  int n = -1;
  CHECK(MPI_Info_get_nkeys(used, &n) == MPI_SUCCESS);
  CHECK(n >= 0);
  MPI_Info_free(&used);
  CHECK(used == MPI_INFO_NULL);
  MPI_Comm_free(&c);
}

// ---------------------------------------------------------------------------------------------
// Keyvals and attributes

namespace {

// What an attribute callback was called with.
struct AttrCall {
  int object;  // MPI_Comm or MPI_Datatype
  int keyval;
  uintptr_t value;
  void *extra;
};

std::vector<AttrCall> g_copies, g_deletes;

int copy_comm_attr(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  g_copies.push_back({oldcomm, keyval, reinterpret_cast<uintptr_t>(in), extra});
  *static_cast<void **>(out) = reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(in) + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

int delete_comm_attr(MPI_Comm comm, int keyval, void *value, void *extra) {
  g_deletes.push_back({comm, keyval, reinterpret_cast<uintptr_t>(value), extra});
  return MPI_SUCCESS;
}

int copy_type_attr(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out, int *flag) {
  g_copies.push_back({oldtype, keyval, reinterpret_cast<uintptr_t>(in), extra});
  *static_cast<void **>(out) = reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(in) + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

int delete_type_attr(MPI_Datatype type, int keyval, void *value, void *extra) {
  g_deletes.push_back({type, keyval, reinterpret_cast<uintptr_t>(value), extra});
  return MPI_SUCCESS;
}

// The first call for an attribute value (values are distinct in each test), or one that
// matches nothing.
AttrCall with_value(const std::vector<AttrCall> &calls, uintptr_t value) {
  for (const AttrCall &c : calls)
    if (c.value == value) return c;
  return AttrCall{-1, -1, 0, nullptr};
}

void *attr_value(uintptr_t v) { return reinterpret_cast<void *>(v); }

void clear_calls() {
  g_copies.clear();
  g_deletes.clear();
}

}  // namespace

TEST_CASE("attributes: communicator callbacks get the program's handles and extra state",
          "[handles][attributes]") {
  clear_calls();
  int extra_state = 0;
  int kv = MPI_KEYVAL_INVALID;
  REQUIRE(MPI_Comm_create_keyval(copy_comm_attr, delete_comm_attr, &kv, &extra_state) ==
          MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Keyval>(kv));
  const int kv_h = kv;

  MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_dup(MPI_COMM_SELF, &a) == MPI_SUCCESS);
  const MPI_Comm a_h = a;
  REQUIRE(MPI_Comm_set_attr(a, kv, attr_value(0x1230)) == MPI_SUCCESS);
  void *value = nullptr;
  int flag = 0;
  CHECK(MPI_Comm_get_attr(a, kv, &value, &flag) == MPI_SUCCESS);
  CHECK(flag);
  CHECK(value == attr_value(0x1230));

  REQUIRE(MPI_Comm_dup(a, &b) == MPI_SUCCESS);
  const MPI_Comm b_h = b;
  CHECK(g_copies.size() == 1);
  CHECK(with_value(g_copies, 0x1230).object == a_h);  // the old communicator, as the program names it
  CHECK(with_value(g_copies, 0x1230).keyval == kv_h);
  CHECK(with_value(g_copies, 0x1230).extra == &extra_state);
  flag = 0;
  CHECK(MPI_Comm_get_attr(b, kv, &value, &flag) == MPI_SUCCESS);
  CHECK(flag);
  CHECK(value == attr_value(0x1231));
  CHECK(g_deletes.empty());

  // MPI_Comm_delete_attr on a live communicator.
  REQUIRE(MPI_Comm_delete_attr(b, kv) == MPI_SUCCESS);
  CHECK(g_deletes.size() == 1);
  CHECK(with_value(g_deletes, 0x1231).object == b_h);
  CHECK(with_value(g_deletes, 0x1231).keyval == kv_h);
  CHECK(with_value(g_deletes, 0x1231).extra == &extra_state);

  // MPI_Comm_free deletes the attributes of the communicator being freed.
  REQUIRE(MPI_Comm_free(&a) == MPI_SUCCESS);
  CHECK(a == MPI_COMM_NULL);
  CHECK(g_deletes.size() == 2);
  CHECK(with_value(g_deletes, 0x1230).object == a_h);  // the program's handle, not MPICH's
  CHECK(with_value(g_deletes, 0x1230).keyval == kv_h);
  CHECK(with_value(g_deletes, 0x1230).extra == &extra_state);

  REQUIRE(MPI_Comm_free(&b) == MPI_SUCCESS);
  CHECK(g_deletes.size() == 2);
  REQUIRE(MPI_Comm_free_keyval(&kv) == MPI_SUCCESS);
  CHECK(kv == MPI_KEYVAL_INVALID);
  const auto *slot = handles().keyvals.find(kv_h);
  REQUIRE(slot != nullptr);  // kept: MPICH may still call its callbacks
  CHECK(slot->refs == 0);
  CHECK(slot->info.freed);
  clear_calls();
}

TEST_CASE("attributes: the MPI-1 keyval calls go through the same tables",
          "[handles][attributes]") {
  clear_calls();
  int extra_state = 0;
  int kv = MPI_KEYVAL_INVALID;
  REQUIRE(MPI_Keyval_create(copy_comm_attr, delete_comm_attr, &kv, &extra_state) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Keyval>(kv));
  const int kv_h = kv;
  MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_dup(MPI_COMM_SELF, &a) == MPI_SUCCESS);
  const MPI_Comm a_h = a;
  REQUIRE(MPI_Attr_put(a, kv, attr_value(0x40)) == MPI_SUCCESS);
  REQUIRE(MPI_Comm_dup(a, &b) == MPI_SUCCESS);
  CHECK(g_copies.size() == 1);
  CHECK(with_value(g_copies, 0x40).object == a_h);
  CHECK(with_value(g_copies, 0x40).keyval == kv_h);
  void *value = nullptr;
  int flag = 0;
  CHECK(MPI_Attr_get(b, kv, &value, &flag) == MPI_SUCCESS);
  CHECK(flag);
  CHECK(value == attr_value(0x41));
  REQUIRE(MPI_Attr_delete(a, kv) == MPI_SUCCESS);
  CHECK(g_deletes.size() == 1);
  CHECK(with_value(g_deletes, 0x40).object == a_h);
  REQUIRE(MPI_Attr_delete(b, kv) == MPI_SUCCESS);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  REQUIRE(MPI_Keyval_free(&kv) == MPI_SUCCESS);
  CHECK(kv == MPI_KEYVAL_INVALID);
  clear_calls();
}

TEST_CASE("attributes: datatype callbacks get the program's handles and extra state",
          "[handles][attributes][datatypes]") {
  clear_calls();
  int extra_state = 0;
  int kv = MPI_KEYVAL_INVALID;
  REQUIRE(MPI_Type_create_keyval(copy_type_attr, delete_type_attr, &kv, &extra_state) ==
          MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Keyval>(kv));
  const int kv_h = kv;
  MPI_Datatype t = MPI_DATATYPE_NULL, copy = MPI_DATATYPE_NULL;
  REQUIRE(MPI_Type_contiguous(3, MPI_INT, &t) == MPI_SUCCESS);
  const MPI_Datatype t_h = t;
  REQUIRE(MPI_Type_set_attr(t, kv, attr_value(0x500)) == MPI_SUCCESS);
  REQUIRE(MPI_Type_dup(t, &copy) == MPI_SUCCESS);
  const MPI_Datatype copy_h = copy;
  CHECK(g_copies.size() == 1);
  CHECK(with_value(g_copies, 0x500).object == t_h);
  CHECK(with_value(g_copies, 0x500).keyval == kv_h);
  CHECK(with_value(g_copies, 0x500).extra == &extra_state);
  void *value = nullptr;
  int flag = 0;
  CHECK(MPI_Type_get_attr(copy, kv, &value, &flag) == MPI_SUCCESS);
  CHECK(flag);
  CHECK(value == attr_value(0x501));

  REQUIRE(MPI_Type_delete_attr(copy, kv) == MPI_SUCCESS);
  CHECK(g_deletes.size() == 1);
  CHECK(with_value(g_deletes, 0x501).object == copy_h);

  // MPI_Type_free deletes the attributes of the type being freed.
  REQUIRE(MPI_Type_free(&copy) == MPI_SUCCESS);
  REQUIRE(MPI_Type_free(&t) == MPI_SUCCESS);
  CHECK(g_deletes.size() == 2);
  CHECK(with_value(g_deletes, 0x500).object == t_h);  // the program's handle, not MPICH's
  CHECK(with_value(g_deletes, 0x500).keyval == kv_h);
  CHECK(with_value(g_deletes, 0x500).extra == &extra_state);
  REQUIRE(MPI_Type_free_keyval(&kv) == MPI_SUCCESS);
  CHECK(kv == MPI_KEYVAL_INVALID);
  clear_calls();
}

namespace {

int g_failing_deletes = 0;

// Fails while g_failing_deletes says so.
int failing_delete(MPI_Comm, int, void *, void *) {
  if (g_failing_deletes > 0) {
    --g_failing_deletes;
    return MPI_ERR_OTHER;
  }
  return MPI_SUCCESS;
}

}  // namespace

TEST_CASE("attributes: MPI_Comm_free fails as MPICH's does when a delete callback fails",
          "[handles][attributes]") {
  // MPICH reports it on MPI_COMM_WORLD's handler: errors return for this test.
  MPI_Errhandler world_handler = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_handler);
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int kv = MPI_KEYVAL_INVALID;
  REQUIRE(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &kv, nullptr) ==
          MPI_SUCCESS);
  MPI_Comm c = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_dup(MPI_COMM_SELF, &c) == MPI_SUCCESS);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  MPI_Comm_set_attr(c, kv, attr_value(0x31));
  const MPI_Comm c_h = c;
  MPI_Comm c_real = real_comm(c);
  g_failing_deletes = 1;
  const int rc = MPI_Comm_free(&c);
  // MPICH: the error code, and the communicator stays (the program may free it again).
  CHECK(rc != MPI_SUCCESS);
  if (rc != MPI_SUCCESS) {
    CHECK(c == c_h);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
  } else {
    PMPI_Comm_free(&c_real);  // what MPICH kept and c3 let go of
  }
  g_failing_deletes = 0;
  MPI_Comm_free_keyval(&kv);
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, world_handler);
  if (world_handler != MPI_ERRORS_ARE_FATAL && world_handler != MPI_ERRORS_RETURN)
    PMPI_Errhandler_free(&world_handler);
}

TEST_CASE("attributes: a datatype freed while a type built from it lives: its delete callback "
          "sees the program's handle",
          "[handles][attributes][datatypes]") {
  clear_calls();
  int extra_state = 0;
  int kv = MPI_KEYVAL_INVALID;
  REQUIRE(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_type_attr, &kv, &extra_state) ==
          MPI_SUCCESS);
  MPI_Datatype t = MPI_DATATYPE_NULL, d = MPI_DATATYPE_NULL;
  REQUIRE(MPI_Type_contiguous(2, MPI_INT, &t) == MPI_SUCCESS);
  const MPI_Datatype t_h = t;
  MPI_Type_set_attr(t, kv, attr_value(0x700));
  REQUIRE(MPI_Type_contiguous(2, t, &d) == MPI_SUCCESS);
  REQUIRE(MPI_Type_free(&t) == MPI_SUCCESS);  // a zombie: d names it
  // MPICH deletes t's attributes when it destroys t: here, or with d at the latest.
  REQUIRE(MPI_Type_free(&d) == MPI_SUCCESS);
  CHECK(g_deletes.size() == 1);
  CHECK(with_value(g_deletes, 0x700).object == t_h);  // the program's handle, not MPICH's
  CHECK(with_value(g_deletes, 0x700).keyval == kv);
  CHECK(types().find(t_h) == nullptr);
  MPI_Type_free_keyval(&kv);
  clear_calls();
}

TEST_CASE("attributes: capture_attributes and restore_attributes round trip",
          "[handles][attributes]") {
  clear_calls();
  int extra_state = 0;
  int kv1 = MPI_KEYVAL_INVALID, kv2 = MPI_KEYVAL_INVALID, unused = MPI_KEYVAL_INVALID,
      tkv = MPI_KEYVAL_INVALID;
  REQUIRE(MPI_Comm_create_keyval(copy_comm_attr, delete_comm_attr, &kv1, &extra_state) == MPI_SUCCESS);
  REQUIRE(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv2, nullptr) ==
          MPI_SUCCESS);
  REQUIRE(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_comm_attr, &unused, nullptr) ==
          MPI_SUCCESS);
  REQUIRE(MPI_Type_create_keyval(copy_type_attr, delete_type_attr, &tkv, &extra_state) ==
          MPI_SUCCESS);

  MPI_Comm c = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_dup(MPI_COMM_SELF, &c) == MPI_SUCCESS);
  MPI_Comm_set_attr(c, kv1, attr_value(0xabc0));
  MPI_Comm_set_attr(c, kv2, attr_value(0xdef0));
  CommInfo info;
  capture_attributes(info, real_comm(c));
  REQUIRE(info.attrs.size() == 2);
  CHECK(info.attrs[0].keyval == kv1);
  CHECK(info.attrs[0].value == 0xabc0);
  CHECK(info.attrs[1].keyval == kv2);
  CHECK(info.attrs[1].value == 0xdef0);

  // Stored on a fresh MPICH communicator without any callback running.
  MPI_Comm fresh = MPI_COMM_NULL;
  PMPI_Comm_split(MPI_COMM_SELF, 0, 0, &fresh);
  restore_attributes(info, fresh);
  CHECK(g_copies.empty());
  CHECK(g_deletes.empty());
  for (const Attribute &a : info.attrs) {
    void *value = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(fresh, real_keyval(a.keyval), &value, &flag);
    CHECK(flag);
    CHECK(value == attr_value(a.value));
  }
  int flag = 1;
  void *value = nullptr;
  PMPI_Comm_get_attr(fresh, real_keyval(unused), &value, &flag);
  CHECK_FALSE(flag);
  CommInfo again;
  capture_attributes(again, fresh);
  REQUIRE(again.attrs.size() == 2);
  CHECK(again.attrs[0].value == info.attrs[0].value);
  CHECK(again.attrs[1].value == info.attrs[1].value);
  PMPI_Comm_free(&fresh);  // kv1's delete callback runs for the restored attribute
  CHECK(g_deletes.size() == 1);

  // The same for a datatype.
  MPI_Datatype t = MPI_DATATYPE_NULL;
  REQUIRE(MPI_Type_contiguous(2, MPI_INT, &t) == MPI_SUCCESS);
  MPI_Type_set_attr(t, tkv, attr_value(0x77));
  TypeInfo tinfo;
  capture_attributes(tinfo, real_type(t));
  REQUIRE(tinfo.attrs.size() == 1);
  CHECK(tinfo.attrs[0].keyval == tkv);
  CHECK(tinfo.attrs[0].value == 0x77);
  MPI_Datatype fresh_type = MPI_DATATYPE_NULL;
  PMPI_Type_contiguous(2, MPI_INT, &fresh_type);
  restore_attributes(tinfo, fresh_type);
  flag = 0;
  PMPI_Type_get_attr(fresh_type, real_keyval(tkv), &value, &flag);
  CHECK(flag);
  CHECK(value == attr_value(0x77));
  PMPI_Type_delete_attr(fresh_type, real_keyval(tkv));
  PMPI_Type_free(&fresh_type);
  MPI_Type_delete_attr(t, tkv);
  MPI_Type_free(&t);

  MPI_Comm_delete_attr(c, kv1);
  MPI_Comm_free(&c);
  MPI_Comm_free_keyval(&kv1);
  MPI_Comm_free_keyval(&kv2);
  MPI_Comm_free_keyval(&unused);
  MPI_Type_free_keyval(&tkv);
  clear_calls();
}

// ---------------------------------------------------------------------------------------------
// User-defined reduction operators

namespace {

MPI_Datatype g_op_type = MPI_DATATYPE_NULL;
int g_op_len = -1;

// Adds pairs of ints (the datatype is two ints, or one).
void add_ints(void *in, void *inout, int *len, MPI_Datatype *type) {
  g_op_type = *type;
  g_op_len = *len;
  int bytes = int(sizeof(int));
  if (*type != MPI_INT) MPI_Type_size(*type, &bytes);
  const int per = bytes / int(sizeof(int));
  for (int i = 0; i < *len * per; ++i) static_cast<int *>(inout)[i] += static_cast<int *>(in)[i];
}

}  // namespace

TEST_CASE("ops: a user function sees the program's datatype handle", "[handles][ops]") {
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  REQUIRE(MPI_Type_contiguous(2, MPI_INT, &pair) == MPI_SUCCESS);
  REQUIRE(MPI_Type_commit(&pair) == MPI_SUCCESS);
  MPI_Op op = MPI_OP_NULL, other = MPI_OP_NULL;
  REQUIRE(MPI_Op_create(add_ints, 1, &op) == MPI_SUCCESS);
  REQUIRE(MPI_Op_create(add_ints, 0, &other) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Op>(op));
  CHECK(c3_shaped<ObjectKind::Op>(other));
  CHECK(op != other);
  int commute = -1;
  CHECK(MPI_Op_commutative(op, &commute) == MPI_SUCCESS);
  CHECK(commute == 1);
  CHECK(MPI_Op_commutative(other, &commute) == MPI_SUCCESS);
  CHECK(commute == 0);

  int in[6] = {1, 2, 3, 4, 5, 6}, inout[6] = {10, 20, 30, 40, 50, 60};
  g_op_type = MPI_DATATYPE_NULL;
  REQUIRE(MPI_Reduce_local(in, inout, 3, pair, op) == MPI_SUCCESS);
  CHECK(g_op_type == pair);  // c3's handle, not MPICH's
  CHECK(c3_shaped<ObjectKind::Datatype>(g_op_type));
  CHECK(g_op_len == 3);
  CHECK(std::vector<int>(inout, inout + 6) == std::vector<int>{11, 22, 33, 44, 55, 66});

  REQUIRE(MPI_Reduce_local(in, inout, 2, MPI_INT, other) == MPI_SUCCESS);
  CHECK(g_op_type == MPI_INT);
  CHECK(g_op_len == 2);
  CHECK(inout[0] == 12);
  CHECK(inout[1] == 24);

  const MPI_Op op_h = op;
  REQUIRE(MPI_Op_free(&op) == MPI_SUCCESS);
  CHECK(op == MPI_OP_NULL);
  CHECK(handles().ops.find(op_h) == nullptr);
  REQUIRE(MPI_Op_free(&other) == MPI_SUCCESS);
  MPI_Type_free(&pair);
}

TEST_CASE("ops: MPI_Allreduce with a user operator and a derived type", "[handles][ops][two_ranks]") {
  if (!have_two_ranks()) return;
  const int n = world_size(), me = world_rank();
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(add_ints, 1, &op);
  int in[4] = {me, 1, 2 * me, 2}, out[4] = {};
  g_op_type = MPI_DATATYPE_NULL;
  CHECK(MPI_Allreduce(in, out, 2, pair, op, MPI_COMM_WORLD) == MPI_SUCCESS);
  const int ranks_sum = n * (n - 1) / 2;
  CHECK(std::vector<int>(out, out + 4) == std::vector<int>{ranks_sum, n, 2 * ranks_sum, 2 * n});
  CHECK(g_op_type == pair);
  MPI_Op_free(&op);
  MPI_Type_free(&pair);
}

// ---------------------------------------------------------------------------------------------
// Error handlers

namespace {

MPI_Comm g_err_comm = MPI_COMM_NULL;
int g_err_code = 0, g_err_calls = 0;

void record_error(MPI_Comm *comm, int *code, ...) {
  g_err_comm = *comm;
  g_err_code = *code;
  ++g_err_calls;
}

}  // namespace

TEST_CASE("errhandlers: a user handler gets the program's communicator handle",
          "[handles][errhandlers]") {
  MPI_Comm c = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_dup(MPI_COMM_SELF, &c) == MPI_SUCCESS);
  const MPI_Comm c_h = c;
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  REQUIRE(MPI_Comm_create_errhandler(record_error, &eh) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Errhandler>(eh));
  const MPI_Errhandler eh_h = eh;
  REQUIRE(MPI_Comm_set_errhandler(c, eh) == MPI_SUCCESS);

  g_err_calls = 0;
  REQUIRE(MPI_Comm_call_errhandler(c, MPI_ERR_OTHER) == MPI_SUCCESS);
  CHECK(g_err_calls == 1);
  CHECK(g_err_comm == c_h);
  CHECK(g_err_code == MPI_ERR_OTHER);

  // An error MPICH finds itself: a cartesian query on a communicator without a topology.
  int coords[1] = {};
  CHECK(MPI_Cart_coords(c, 0, 1, coords) != MPI_SUCCESS);
  CHECK(g_err_calls == 2);
  CHECK(g_err_comm == c_h);

  MPI_Errhandler got = MPI_ERRHANDLER_NULL;
  REQUIRE(MPI_Comm_get_errhandler(c, &got) == MPI_SUCCESS);
  CHECK(got == eh_h);
  REQUIRE(handles().errhandlers.find(eh_h) != nullptr);
  CHECK(handles().errhandlers.find(eh_h)->refs == 2);
  REQUIRE(MPI_Errhandler_free(&got) == MPI_SUCCESS);
  CHECK(got == MPI_ERRHANDLER_NULL);
  REQUIRE(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
  CHECK(eh == MPI_ERRHANDLER_NULL);
  // Freed by the program, still the communicator's: the entry stays.
  REQUIRE(handles().errhandlers.find(eh_h) != nullptr);
  CHECK(handles().errhandlers.find(eh_h)->refs == 0);
  REQUIRE(MPI_Comm_call_errhandler(c, MPI_ERR_ARG) == MPI_SUCCESS);
  CHECK(g_err_calls == 3);
  CHECK(g_err_comm == c_h);
  CHECK(g_err_code == MPI_ERR_ARG);
  REQUIRE(MPI_Comm_get_errhandler(c, &got) == MPI_SUCCESS);
  CHECK(got == eh_h);
  MPI_Errhandler_free(&got);

  // A checkpoint records the program's handle as the communicator's handler.
  {
    StateGuard guard;
    capture_comm_properties();
    REQUIRE(comm_info(c_h) != nullptr);
    CHECK(comm_info(c_h)->errhandler == eh_h);
  }

  // Predefined handlers are MPICH's.
  REQUIRE(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  REQUIRE(MPI_Comm_get_errhandler(c, &got) == MPI_SUCCESS);
  CHECK(got == MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&got);
  MPI_Comm_free(&c);
}

TEST_CASE("errhandlers: more handlers over a run than trampolines, one alive at a time",
          "[handles][errhandlers]") {
  // The limit is 64 alive at once (docs/user-guide.md); in a singleton MPI job of its own.
  const c3::mpi::test::ChildResult r = c3::mpi::test::run_child("errhandlers-one-at-a-time");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("created and freed 100 error handlers"));
  CHECK_THAT(r.err, !Catch::Contains("c3: error"));
}

// ---------------------------------------------------------------------------------------------
// A restart's other steps: new MPICH objects behind the same handles

TEST_CASE("handles: groups, operators, error handlers and keyvals are built again",
          "[handles]") {
  GhostGuard ghosts;
  const int n = world_size(), me = world_rank();
  clear_calls();

  // Groups, from their world ranks.
  MPI_Group world = MPI_GROUP_NULL, rev = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const std::vector<int> reversed = iota_ranks(n - 1, n, -1);
  MPI_Group_incl(world, n, reversed.data(), &rev);
  std::vector<MPI_Group> old_groups;
  handles().groups.for_each([&](int, auto &slot) { old_groups.push_back(slot.real); });
  const MPI_Group rev_before = real_group(rev);
  recreate_groups();
  CHECK(real_group(rev) != rev_before);
  int cmp = -1;
  PMPI_Group_compare(real_group(rev), rev_before, &cmp);
  CHECK(cmp == MPI_IDENT);
  int rank = -1;
  MPI_Group_rank(rev, &rank);
  CHECK(rank == n - 1 - me);
  for (MPI_Group &g : old_groups) PMPI_Group_free(&g);

  // An operator, bound to the same function.
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(add_ints, 0, &op);
  std::vector<MPI_Op> old_ops;
  handles().ops.for_each([&](int, auto &slot) { old_ops.push_back(slot.real); });
  const MPI_Op op_before = real_op(op);
  recreate_ops();
  CHECK(real_op(op) != op_before);
  int commute = -1;
  MPI_Op_commutative(op, &commute);
  CHECK(commute == 0);
  int in[2] = {1, 2}, inout[2] = {10, 20};
  g_op_type = MPI_DATATYPE_NULL;
  CHECK(MPI_Reduce_local(in, inout, 1, pair, op) == MPI_SUCCESS);
  CHECK(g_op_type == pair);
  CHECK(inout[1] == 22);
  for (MPI_Op &o : old_ops) PMPI_Op_free(&o);

  // An error handler, bound to the same function.
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MPI_Comm_create_errhandler(record_error, &eh);
  std::vector<MPI_Errhandler> old_handlers;
  handles().errhandlers.for_each([&](int, auto &slot) { old_handlers.push_back(slot.real); });
  const MPI_Errhandler eh_before = real_errhandler(eh);
  recreate_errhandlers();
  CHECK(real_errhandler(eh) != eh_before);
  for (MPI_Errhandler &e : old_handlers)
    if (e != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&e);

  // A keyval, with its callbacks.
  int extra_state = 0;
  int kv = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(copy_comm_attr, delete_comm_attr, &kv, &extra_state);
  std::vector<std::pair<int, int>> old_keyvals;  // (MPICH keyval, object kind)
  handles().keyvals.for_each([&](int, auto &slot) {
    if (slot.refs > 0) old_keyvals.emplace_back(slot.real, slot.info.object);
  });
  const int kv_before = real_keyval(kv);
  recreate_keyvals();
  CHECK(real_keyval(kv) != kv_before);
  for (auto &[k, object] : old_keyvals) {
    int key = k;
    if (object == KeyvalInfo::kComm)
      PMPI_Comm_free_keyval(&key);
    else
      PMPI_Type_free_keyval(&key);
  }

  // All of them at work on a communicator.
  MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_SELF, &a);
  const MPI_Comm a_h = a;
  CHECK(MPI_Comm_set_errhandler(a, eh) == MPI_SUCCESS);
  g_err_calls = 0;
  MPI_Comm_call_errhandler(a, MPI_ERR_OTHER);
  CHECK(g_err_calls == 1);
  CHECK(g_err_comm == a_h);
  CHECK(MPI_Comm_set_attr(a, kv, attr_value(0x10)) == MPI_SUCCESS);
  MPI_Comm_dup(a, &b);
  CHECK(with_value(g_copies, 0x10).object == a_h);
  CHECK(with_value(g_copies, 0x10).keyval == kv);
  CHECK(with_value(g_copies, 0x10).extra == &extra_state);
  MPI_Comm_delete_attr(a, kv);
  MPI_Comm_delete_attr(b, kv);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_free_keyval(&kv);
  MPI_Errhandler_free(&eh);
  MPI_Op_free(&op);
  MPI_Type_free(&pair);
  MPI_Group_free(&rev);
  MPI_Group_free(&world);
  clear_calls();
}

// ---------------------------------------------------------------------------------------------
// Communicators

namespace {

auto &comms() { return handles().comms; }

void check_topology(const Topology &got, const Topology &want) {
  CHECK(got.kind == want.kind);
  CHECK(got.dims == want.dims);
  CHECK(got.periods == want.periods);
  CHECK(got.index == want.index);
  CHECK(got.edges == want.edges);
  CHECK(got.sources == want.sources);
  CHECK(got.source_weights == want.source_weights);
  CHECK(got.destinations == want.destinations);
  CHECK(got.destination_weights == want.destination_weights);
  CHECK(got.weighted == want.weighted);
}

// What describe_comm finds, against a record (all but the identity and the epoch).
void check_describes(const CommInfo &got, const CommInfo &want) {
  CHECK(got.inter == want.inter);
  CHECK(got.rank == want.rank);
  CHECK(got.world == want.world);
  CHECK(got.remote_world == want.remote_world);
  check_topology(got.topology, want.topology);
}

// The record of a program's communicator describes its MPICH object, and build_comm makes a
// twin of it (collective over its members: every member calls this).
void check_record_and_rebuild(MPI_Comm app) {
  const CommInfo *info = comm_info(app);
  CHECK(info != nullptr);
  if (!info) return;
  {
    INFO("describe_comm of the MPICH communicator");
    check_describes(describe_comm(real_comm(app)), *info);
  }
  MPI_Comm built = build_comm(*info);
  CHECK(built != MPI_COMM_NULL);
  if (built == MPI_COMM_NULL) return;
  CHECK_FALSE(is_c3_handle<ObjectKind::Comm>(built));
  {
    INFO("describe_comm of build_comm's communicator");
    check_describes(describe_comm(built), *info);
  }
  int cmp = -1;
  PMPI_Comm_compare(built, real_comm(app), &cmp);
  CHECK(cmp == MPI_CONGRUENT);
  PMPI_Comm_free(&built);
}

// Frees a communicator through c3: its entry leaves the table for a ghost.
void free_comm(MPI_Comm &c) {
  const MPI_Comm h = c;
  const uint64_t gid = comm_gid(h);
  REQUIRE(MPI_Comm_free(&c) == MPI_SUCCESS);
  CHECK(c == MPI_COMM_NULL);
  CHECK(comms().find(h) == nullptr);
  REQUIRE_FALSE(handles().ghosts.empty());
  CHECK(handles().ghosts.back().comm.gid == gid);
}



}  // namespace

TEST_CASE("communicators: split, dup and cartesian communicators are c3 handles with the right "
          "record",
          "[handles][communicators]") {
  GhostGuard ghosts;
  const int n = world_size(), me = world_rank();
  const uint64_t world_seq = handles().world.seq;

  // Reversed order: key n - rank.
  MPI_Comm rev = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, 7, n - me, &rev) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Comm>(rev));
  CHECK(handles().world.seq == world_seq + 1);
  CommInfo *ri = comm_info(rev);
  REQUIRE(ri != nullptr);
  CHECK(ri->world == iota_ranks(n - 1, n, -1));
  CHECK(ri->rank == n - 1 - me);
  CHECK_FALSE(ri->inter);
  CHECK(ri->remote_world.empty());
  CHECK(ri->topology.kind == MPI_UNDEFINED);
  CHECK(ri->gid > kSelfGid);
  CHECK(ri->gid == numbered_gid(kWorldGid, world_seq + 1, *ri));
  CHECK(ri->seq == 0);
  CHECK_FALSE(ri->keyed);
  int rank = -1, size = -1;
  CHECK(MPI_Comm_rank(rev, &rank) == MPI_SUCCESS);
  CHECK(MPI_Comm_size(rev, &size) == MPI_SUCCESS);
  CHECK(rank == ri->rank);
  CHECK(size == n);
  CHECK(app_comm(real_comm(rev)) == rev);
  const std::vector<uint64_t> rev_gids = gather(ri->gid);
  CHECK(rev_gids == std::vector<uint64_t>(size_t(n), ri->gid));
  check_record_and_rebuild(rev);

  // A duplicate: same members, a gid of its own, numbered on its parent.
  MPI_Comm dup = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_dup(rev, &dup) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Comm>(dup));
  CHECK(dup != rev);
  CommInfo *di = comm_info(dup);
  REQUIRE(di != nullptr);
  CHECK(comm_info(rev)->seq == 1);
  CHECK(di->world == comm_info(rev)->world);
  CHECK(di->rank == comm_info(rev)->rank);
  CHECK(di->gid != comm_info(rev)->gid);
  CHECK(di->gid == numbered_gid(comm_info(rev)->gid, 1, *di));
  CHECK(gather(di->gid) == std::vector<uint64_t>(size_t(n), di->gid));
  int cmp = -1;
  CHECK(MPI_Comm_compare(dup, rev, &cmp) == MPI_SUCCESS);
  CHECK(cmp == MPI_CONGRUENT);
  check_record_and_rebuild(dup);

  // A periodic ring over the reversed communicator.
  MPI_Comm ring = MPI_COMM_NULL;
  const int dims[1] = {n}, periods[1] = {1};
  REQUIRE(MPI_Cart_create(rev, 1, dims, periods, 0, &ring) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Comm>(ring));
  CommInfo *ci = comm_info(ring);
  REQUIRE(ci != nullptr);
  CHECK(ci->topology.kind == MPI_CART);
  CHECK(ci->topology.dims == std::vector<int>{n});
  CHECK(ci->topology.periods == std::vector<int>{1});
  CHECK(ci->world == iota_ranks(n - 1, n, -1));
  CHECK(ci->rank == n - 1 - me);
  CHECK(gather(ci->gid) == std::vector<uint64_t>(size_t(n), ci->gid));
  int cdims[1] = {}, cperiods[1] = {}, coords[1] = {-1};
  CHECK(MPI_Cart_get(ring, 1, cdims, cperiods, coords) == MPI_SUCCESS);
  CHECK(coords[0] == n - 1 - me);
  check_record_and_rebuild(ring);

  // A 2-d grid, and a row of it (MPI_Cart_sub).
  int grid_dims[2] = {0, 0};
  MPI_Dims_create(n, 2, grid_dims);
  const int grid_periods[2] = {0, 1};
  MPI_Comm grid = MPI_COMM_NULL, row = MPI_COMM_NULL;
  REQUIRE(MPI_Cart_create(MPI_COMM_WORLD, 2, grid_dims, grid_periods, 0, &grid) == MPI_SUCCESS);
  REQUIRE(comm_info(grid) != nullptr);
  CHECK(comm_info(grid)->topology.dims == std::vector<int>(grid_dims, grid_dims + 2));
  CHECK(comm_info(grid)->topology.periods == std::vector<int>{0, 1});
  check_record_and_rebuild(grid);
  const int remain[2] = {0, 1};
  REQUIRE(MPI_Cart_sub(grid, remain, &row) == MPI_SUCCESS);
  REQUIRE(comm_info(row) != nullptr);
  CHECK(comm_info(row)->topology.kind == MPI_CART);
  CHECK(comm_info(row)->topology.dims == std::vector<int>{grid_dims[1]});
  CHECK(comm_info(row)->size() == grid_dims[1]);
  check_record_and_rebuild(row);

  // A cartesian communicator of one process: the others get MPI_COMM_NULL and no entry.
  const size_t live = comms().live_count();
  MPI_Comm one = MPI_COMM_NULL;
  const int one_dims[1] = {1}, no_periods[1] = {0};
  REQUIRE(MPI_Cart_create(MPI_COMM_WORLD, 1, one_dims, no_periods, 0, &one) == MPI_SUCCESS);
  if (me == 0) {
    CHECK(c3_shaped<ObjectKind::Comm>(one));
    REQUIRE(comm_info(one) != nullptr);
    CHECK(comm_info(one)->world == std::vector<int>{0});
    check_record_and_rebuild(one);
    free_comm(one);
  } else {
    CHECK(one == MPI_COMM_NULL);
    CHECK(comms().live_count() == live);
  }

  free_comm(row);
  free_comm(grid);
  free_comm(ring);
  free_comm(dup);
  free_comm(rev);
}

TEST_CASE("communicators: one split call, different members, different gids",
          "[handles][communicators][two_ranks]") {
  if (!have_two_ranks()) return;
  GhostGuard ghosts;
  const int n = world_size(), me = world_rank();
  MPI_Comm half = MPI_COMM_NULL, none = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half) == MPI_SUCCESS);
  const CommInfo *hi = comm_info(half);
  REQUIRE(hi != nullptr);
  CHECK(hi->world == iota_ranks(me % 2, (n - me % 2 + 1) / 2, 2));
  CHECK(hi->rank == me / 2);
  const std::vector<uint64_t> gids = gather(hi->gid);
  for (int q = 0; q < n; ++q) {
    INFO("rank " << q);
    if (q % 2 == me % 2)
      CHECK(gids[size_t(q)] == hi->gid);
    else
      CHECK(gids[size_t(q)] != hi->gid);
  }
  check_record_and_rebuild(half);

  // MPI_UNDEFINED: MPI_COMM_NULL, nothing recorded.
  const size_t live = comms().live_count();
  REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? 0 : MPI_UNDEFINED, 0, &none) == MPI_SUCCESS);
  if (me == 0) {
    CHECK(comm_info(none) != nullptr);
    CHECK(comm_info(none)->world == std::vector<int>{0});
    free_comm(none);
  } else {
    CHECK(none == MPI_COMM_NULL);
    CHECK(comms().live_count() == live);
  }
  free_comm(half);
}

TEST_CASE("communicators: graph topologies are recorded and built again",
          "[handles][communicators]") {
  GhostGuard ghosts;
  const int n = world_size(), me = world_rank();

  // A directed ring: node i's neighbour is i + 1.
  std::vector<int> index(static_cast<size_t>(n)), edges(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    index[size_t(i)] = i + 1;
    edges[size_t(i)] = (i + 1) % n;
  }
  MPI_Comm graph = MPI_COMM_NULL;
  REQUIRE(MPI_Graph_create(MPI_COMM_WORLD, n, index.data(), edges.data(), 0, &graph) ==
          MPI_SUCCESS);
  REQUIRE(comm_info(graph) != nullptr);
  CHECK(comm_info(graph)->topology.kind == MPI_GRAPH);
  CHECK(comm_info(graph)->topology.index == index);
  CHECK(comm_info(graph)->topology.edges == edges);
  check_record_and_rebuild(graph);

  // Weighted neighbours on a ring.
  const int prev = (me + n - 1) % n, next = (me + 1) % n;
  const int sources[1] = {prev}, source_weights[1] = {me + 1}, dests[1] = {next},
            dest_weights[1] = {me + 10};
  MPI_Comm weighted = MPI_COMM_NULL;
  REQUIRE(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, sources, source_weights, 1, dests,
                                         dest_weights, MPI_INFO_NULL, 0,
                                         &weighted) == MPI_SUCCESS);
  REQUIRE(comm_info(weighted) != nullptr);
  const Topology &wt = comm_info(weighted)->topology;
  CHECK(wt.kind == MPI_DIST_GRAPH);
  CHECK(wt.weighted);
  CHECK(wt.sources == std::vector<int>{prev});
  CHECK(wt.source_weights == std::vector<int>{me + 1});
  CHECK(wt.destinations == std::vector<int>{next});
  CHECK(wt.destination_weights == std::vector<int>{me + 10});
  check_record_and_rebuild(weighted);

  // An unweighted chain: the first node has no sources, the last no destinations.
  std::vector<int> chain_sources, chain_dests;
  if (me > 0) chain_sources.push_back(me - 1);
  if (me + 1 < n) chain_dests.push_back(me + 1);
  MPI_Comm chain = MPI_COMM_NULL;
  REQUIRE(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, int(chain_sources.size()),
                                         chain_sources.data(), MPI_UNWEIGHTED,
                                         int(chain_dests.size()), chain_dests.data(),
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &chain) == MPI_SUCCESS);
  REQUIRE(comm_info(chain) != nullptr);
  CHECK_FALSE(comm_info(chain)->topology.weighted);
  CHECK(comm_info(chain)->topology.sources == chain_sources);
  CHECK(comm_info(chain)->topology.destinations == chain_dests);
  check_record_and_rebuild(chain);

  // The general form: each process names its own edge to the next.
  const int one_source[1] = {me}, degree[1] = {1}, edge_dest[1] = {next};
  MPI_Comm general = MPI_COMM_NULL;
  REQUIRE(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one_source, degree, edge_dest,
                                MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &general) == MPI_SUCCESS);
  REQUIRE(comm_info(general) != nullptr);
  CHECK(comm_info(general)->topology.destinations == std::vector<int>{next});
  CHECK(comm_info(general)->topology.sources == std::vector<int>{prev});
  check_record_and_rebuild(general);

  free_comm(general);
  free_comm(chain);
  free_comm(weighted);
  free_comm(graph);
}

TEST_CASE("communicators: intercommunicators and their merge", "[handles][communicators][two_ranks]") {
  if (!have_two_ranks()) return;
  GhostGuard ghosts;
  const int n = world_size(), me = world_rank();
  MPI_Comm half = MPI_COMM_NULL, inter = MPI_COMM_NULL, merged = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half) == MPI_SUCCESS);
  REQUIRE(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 91, &inter) ==
          MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Comm>(inter));
  const CommInfo *ii = comm_info(inter);
  REQUIRE(ii != nullptr);
  const std::vector<int> evens = iota_ranks(0, (n + 1) / 2, 2), odds = iota_ranks(1, n / 2, 2);
  CHECK(ii->inter);
  CHECK(ii->keyed);
  CHECK(ii->world == (me % 2 ? odds : evens));
  CHECK(ii->remote_world == (me % 2 ? evens : odds));
  CHECK(ii->rank == me / 2);
  CHECK(ii->topology.kind == MPI_UNDEFINED);
  CHECK(gather(ii->gid) == std::vector<uint64_t>(size_t(n), ii->gid));
  int remote = 0;
  CHECK(MPI_Comm_remote_size(inter, &remote) == MPI_SUCCESS);
  CHECK(remote == int(ii->remote_world.size()));
  check_record_and_rebuild(inter);

  REQUIRE(MPI_Intercomm_merge(inter, me % 2, &merged) == MPI_SUCCESS);
  const CommInfo *mi = comm_info(merged);
  REQUIRE(mi != nullptr);
  CHECK_FALSE(mi->inter);
  std::vector<int> low_first = evens;
  low_first.insert(low_first.end(), odds.begin(), odds.end());
  CHECK(mi->world == low_first);
  CHECK(gather(mi->gid) == std::vector<uint64_t>(size_t(n), mi->gid));
  check_record_and_rebuild(merged);

  free_comm(merged);
  free_comm(inter);
  free_comm(half);
}

TEST_CASE("communicators: MPI_Comm_create, MPI_Comm_create_group and MPI_Comm_idup",
          "[handles][communicators]") {
  GhostGuard ghosts;
  const int n = world_size(), me = world_rank();
  MPI_Group world = MPI_GROUP_NULL, low = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int zero[1] = {0};
  MPI_Group_incl(world, 1, zero, &low);

  // Numbered on the parent: every rank of it calls, those outside the group get nothing.
  const size_t live = comms().live_count();
  MPI_Comm first = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_create(MPI_COMM_WORLD, low, &first) == MPI_SUCCESS);
  if (me == 0) {
    CHECK(c3_shaped<ObjectKind::Comm>(first));
    REQUIRE(comm_info(first) != nullptr);
    CHECK(comm_info(first)->world == std::vector<int>{0});
    CHECK_FALSE(comm_info(first)->keyed);
    check_record_and_rebuild(first);
    free_comm(first);
  } else {
    CHECK(first == MPI_COMM_NULL);
    CHECK(comms().live_count() == live);
  }

  // Keyed by members and tag: the same call twice gives two gids, alike on every member.
  MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_create_group(MPI_COMM_WORLD, world, 5, &a) == MPI_SUCCESS);
  REQUIRE(MPI_Comm_create_group(MPI_COMM_WORLD, world, 5, &b) == MPI_SUCCESS);
  REQUIRE(comm_info(a) != nullptr);
  REQUIRE(comm_info(b) != nullptr);
  CHECK(comm_info(a)->keyed);
  CHECK(comm_info(a)->world == iota_ranks(0, n));
  CHECK(comm_info(a)->rank == me);
  CHECK(comm_info(a)->gid > kSelfGid);
  CHECK(comm_info(a)->gid != comm_info(b)->gid);
  CHECK(gather(comm_info(a)->gid) == std::vector<uint64_t>(size_t(n), comm_info(a)->gid));
  CHECK(gather(comm_info(b)->gid) == std::vector<uint64_t>(size_t(n), comm_info(b)->gid));
  check_record_and_rebuild(a);

  // Described once the request completes.
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Request req = MPI_REQUEST_NULL;
  REQUIRE(MPI_Comm_idup(a, &c, &req) == MPI_SUCCESS);
  CHECK(c3_shaped<ObjectKind::Comm>(c));
  REQUIRE(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  const CommInfo *ci = comm_info(c);
  REQUIRE(ci != nullptr);
  CHECK(ci->world == iota_ranks(0, n));
  CHECK(ci->rank == me);
  CHECK(ci->gid > kSelfGid);
  CHECK(ci->gid != comm_info(a)->gid);
  CHECK(gather(ci->gid) == std::vector<uint64_t>(size_t(n), ci->gid));
  int size = 0;
  CHECK(MPI_Comm_size(c, &size) == MPI_SUCCESS);
  CHECK(size == n);
  check_record_and_rebuild(c);

  free_comm(c);
  free_comm(b);
  free_comm(a);
  MPI_Group_free(&low);
  MPI_Group_free(&world);
}

TEST_CASE("communicators: one freed while requests are pending stays a zombie until they "
          "complete",
          "[handles][communicators][attributes]") {
  GhostGuard ghosts;
  clear_calls();
  int kv = MPI_KEYVAL_INVALID;
  REQUIRE(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_comm_attr, &kv, nullptr) ==
          MPI_SUCCESS);
  MPI_Comm c = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_dup(MPI_COMM_SELF, &c) == MPI_SUCCESS);
  const MPI_Comm c_h = c;
  MPI_Comm_set_attr(c, kv, attr_value(0x60));
  int in = -1, out = 42;
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  REQUIRE(MPI_Irecv(&in, 1, MPI_INT, 0, 9, c, &reqs[0]) == MPI_SUCCESS);
  REQUIRE(MPI_Isend(&out, 1, MPI_INT, 0, 9, c, &reqs[1]) == MPI_SUCCESS);
  REQUIRE(MPI_Comm_free(&c) == MPI_SUCCESS);
  CHECK(c == MPI_COMM_NULL);
  const auto *slot = comms().find(c_h);
  REQUIRE(slot != nullptr);
  CHECK(slot->zombie());
  retire_unused_comms();  // a checkpoint keeps it while the requests are pending
  CHECK(comms().find(c_h) != nullptr);

  REQUIRE(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  CHECK(in == 42);
  // MPICH deletes the attributes once the last request lets the communicator go.
  CHECK(g_deletes.size() == 1);
  CHECK(with_value(g_deletes, 0x60).object == c_h);  // the program's handle, not MPICH's
  retire_unused_comms();
  CHECK(comms().find(c_h) == nullptr);
  REQUIRE_FALSE(handles().ghosts.empty());
  MPI_Comm_free_keyval(&kv);
  clear_calls();
}

namespace {

// Two tables alike in everything a snapshot keeps: the same entries (live and zombie) with the
// same counts and records; `same_info` compares the records.
template <class Table, class SameInfo>
void check_same_table(Table &got, Table &want, SameInfo &&same_info) {
  std::vector<int> got_handles, want_handles;
  got.for_each([&](int h, auto &) { got_handles.push_back(h); });
  want.for_each([&](int h, auto &) { want_handles.push_back(h); });
  CHECK(got_handles == want_handles);
  for (int h : want_handles) {
    INFO("handle " << std::hex << h);
    const auto *g = got.find(h);
    const auto *w = want.find(h);
    REQUIRE(g != nullptr);
    CHECK(g->refs == w->refs);
    CHECK(g->used == w->used);
    CHECK(g->serial == w->serial);
    CHECK(g->real == 0);  // MPICH's objects are made again at a restart
    same_info(g->info, w->info);
  }
}

void check_same_comm(const CommInfo &got, const CommInfo &want) {
  CHECK(got.gid == want.gid);
  CHECK(got.seq == want.seq);
  CHECK(got.created_epoch == want.created_epoch);
  CHECK(got.keyed == want.keyed);
  CHECK(got.name == want.name);
  CHECK(got.errhandler == want.errhandler);
  CHECK(got.attrs.size() == want.attrs.size());
  for (size_t i = 0; i < std::min(got.attrs.size(), want.attrs.size()); ++i) {
    CHECK(got.attrs[i].keyval == want.attrs[i].keyval);
    CHECK(got.attrs[i].value == want.attrs[i].value);
  }
  check_describes(got, want);
}

}  // namespace

TEST_CASE("handles: a snapshot keeps every table, and new handles continue alike",
          "[handles]") {
  GhostGuard ghosts;
  int kv = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, nullptr);
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MPI_Comm_create_errhandler(record_error, &eh);
  MPI_Comm c = MPI_COMM_NULL;
  const int dims[1] = {world_size()}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c);
  MPI_Comm_set_name(c, "c3 ring");
  MPI_Comm_set_errhandler(c, eh);
  MPI_Comm_set_attr(c, kv, attr_value(0x71));
  MPI_Datatype base = MPI_DATATYPE_NULL, outer = MPI_DATATYPE_NULL;
  MPI_Type_vector(2, 1, 2, MPI_INT, &base);
  MPI_Type_contiguous(3, base, &outer);
  MPI_Type_commit(&outer);
  MPI_Type_set_name(outer, "c3 outer");
  MPI_Type_free(&base);  // a zombie
  MPI_Group g = MPI_GROUP_NULL;
  MPI_Comm_group(c, &g);
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(add_ints, 1, &op);
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "c3_key", "c3 value");

  {
    StateGuard guard;
    capture_handle_properties();
    const std::string bytes = files::encode_snapshot(state());
    ProtocolState copy = files::decode_snapshot(bytes.data(), bytes.size(), "test snapshot");
    HandleState &want = state().handles, &got = copy.handles;
    check_same_table(got.comms, want.comms, check_same_comm);
    check_same_table(got.types, want.types, [](const TypeInfo &a, const TypeInfo &b) {
      CHECK(a.combiner == b.combiner);
      CHECK(a.ints == b.ints);
      CHECK(a.aints == b.aints);
      CHECK(a.types == b.types);
      CHECK(a.committed == b.committed);
      CHECK(a.dependants == b.dependants);
      CHECK(a.name == b.name);
    });
    check_same_table(got.groups, want.groups,
                     [](const GroupInfo &a, const GroupInfo &b) { CHECK(a.world == b.world); });
    check_same_table(got.ops, want.ops, [](const OpInfo &a, const OpInfo &b) {
      CHECK(a.function == b.function);
      CHECK(a.commute == b.commute);
      CHECK(a.slot == b.slot);
    });
    check_same_table(got.errhandlers, want.errhandlers,
                     [](const ErrhandlerInfo &a, const ErrhandlerInfo &b) {
                       CHECK(a.function == b.function);
                       CHECK(a.slot == b.slot);
                     });
    check_same_table(got.keyvals, want.keyvals, [](const KeyvalInfo &a, const KeyvalInfo &b) {
      CHECK(a.object == b.object);
      CHECK(a.copy_fn == b.copy_fn);
      CHECK(a.delete_fn == b.delete_fn);
      CHECK(a.extra_state == b.extra_state);
      CHECK(a.freed == b.freed);
    });
    check_same_table(got.infos, want.infos,
                     [](const InfoObjectInfo &a, const InfoObjectInfo &b) {
                       CHECK(a.entries == b.entries);
                     });
    check_same_comm(got.world, want.world);
    check_same_comm(got.self, want.self);

    // What the checkpoint read from MPICH.
    const CommInfo *ci = comm_info(c);
    REQUIRE(ci != nullptr);
    CHECK(ci->name == "c3 ring");
    CHECK(ci->errhandler == eh);
    REQUIRE(ci->attrs.size() == 1);
    CHECK(ci->attrs[0].keyval == kv);
    CHECK(ci->attrs[0].value == 0x71);
    CHECK(types().find(outer)->info.name == "c3 outer");
    REQUIRE(handles().infos.find(info) != nullptr);
    CHECK(handles().infos.find(info)->info.entries == InfoEntries{{"c3_key", "c3 value"}});

    // The restored tables hand out the handles the running ones do.
    const int next_type = got.types.add(0, TypeInfo{});
    MPI_Datatype made = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(5, MPI_INT, &made);
    CHECK(made == next_type);
    MPI_Type_free(&made);
  }

  MPI_Info_free(&info);
  MPI_Op_free(&op);
  MPI_Group_free(&g);
  MPI_Type_free(&outer);
  MPI_Comm_delete_attr(c, kv);
  MPI_Comm_free(&c);
  MPI_Errhandler_free(&eh);
  MPI_Comm_free_keyval(&kv);
}

// ---------------------------------------------------------------------------------------------
// Stale handles end the process with c3's error

TEST_CASE("handles: a stale handle ends the process naming its kind", "[handles]") {
  const std::vector<std::pair<const char *, const char *>> cases = {
      {"comm-of-freed", "c3: error: invalid MPI_Comm 0x4000001"},
      {"comm-send-on-freed", "c3: error: invalid MPI_Comm 0x4000001"},
      {"type-of-freed", "c3: error: invalid MPI_Datatype 0xc000001"},
      {"type-of-zombie", "c3: error: invalid MPI_Datatype 0xc000001"},
      {"type-free-zombie", "c3: error: invalid MPI_Datatype 0xc000001"},
      {"group-of-freed", "c3: error: invalid MPI_Group 0x8000001"},
      {"errhandler-free-freed", "c3: error: invalid MPI_Errhandler 0x14000001"},
      {"keyval-free-freed", "c3: error: invalid attribute keyval 0x24000001"},
  };
  for (const auto &[scenario, message] : cases) {
    INFO(scenario);
    c3::mpi::test::ChildResult r = c3::mpi::test::run_child(scenario);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(message));
    CHECK_THAT(r.err, Catch::Contains("names no live object"));
    CHECK_THAT(r.err, !Catch::Contains("survived"));
  }
}
