// Derived datatypes. A new type is recorded as MPICH describes it (MPI_Type_get_envelope and
// MPI_Type_get_contents, with the component types as the program's handles): one recipe format
// for every constructor, the MPI-1 forms included, and a restart builds each type again from it,
// older types first. A type the program frees while a type built from it (or a pending request)
// still names it stays as a zombie until nothing does, as MPI keeps it alive.
#include "handles/datatypes.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "handles/handles.hpp"
#include "layer/layer.hpp"

namespace c3::mpi {
namespace {

auto &types() { return handles().types; }

bool named(MPI_Datatype real) {
  int ni = 0, na = 0, nt = 0, combiner = 0;
  PMPI_Type_get_envelope(real, &ni, &na, &nt, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

// Whether an active request (or a collective request's description) names `app`.
bool pending_request_names(MPI_Datatype app) {
  for (const Request &r : state().requests)
    if (r.kind != Request::Kind::Free && r.active && r.type == app) return true;
  return false;
}

void erase_type(MPI_Datatype app);

// An entry without handles leaves once nothing names it; its components may follow.
void release_if_unnamed(MPI_Datatype app) {
  auto *slot = types().find(app);
  if (!slot || slot->refs > 0 || slot->info.dependants > 0) return;
  if (!pending_request_names(app)) {
    erase_type(app);
    return;
  }
  // Kept for a pending receive: MPICH lets the object go when that completes and may give its
  // handle to a new type then, so its handle no longer leads here.
  if (slot->released) types().forget_real(app);
}

void erase_type(MPI_Datatype app) {
  const std::vector<int> components = types().find(app)->info.types;
  // A zombie rebuilt at a restart (for a pending request) owns its MPICH type.
  auto *slot = types().find(app);
  MPI_Datatype real = slot->released ? 0 : slot->real;
  types().erase(app);
  if (real != 0) PMPI_Type_free(&real);
  for (int c : components)
    if (auto *component = types().find(c)) {
      --component->info.dependants;
      release_if_unnamed(c);
    }
}

bool is_f90(int combiner) {
  return combiner == MPI_COMBINER_F90_REAL || combiner == MPI_COMBINER_F90_COMPLEX ||
         combiner == MPI_COMBINER_F90_INTEGER;
}

MPI_Datatype component_real(int app) {
  auto *slot = types().find(app);
  return slot ? slot->real : app;
}

}  // namespace

RealTypes::RealTypes(const MPI_Datatype *types, int n) : types_(size_t(n > 0 ? n : 0)) {
  for (int i = 0; i < n; ++i) types_[size_t(i)] = real_type(types[i]);
}

MPI_Datatype adopt_datatype(MPI_Datatype real) {
  if (real == MPI_DATATYPE_NULL) return real;
  // MPI_Type_create_f90_*: MPICH returns one cached type per (p, r), never to be freed; its
  // entry keeps it for good (and a restart makes it again).
  if (types().tracks_real(real) && is_f90(types().find(types().app_of(real))->info.combiner))
    return types().app_of(real);
  if (const MPI_Datatype app =
          types().adopt_known(real, [](MPI_Datatype t) { PMPI_Type_free(&t); }))
    return app;
  int ni = 0, na = 0, nt = 0, combiner = 0;
  PMPI_Type_get_envelope(real, &ni, &na, &nt, &combiner);
  if (combiner == MPI_COMBINER_NAMED) return real;  // predefined
  TypeInfo info;
  info.combiner = combiner;
  info.ints.resize(size_t(ni));
  std::vector<MPI_Aint> aints(static_cast<size_t>(na));
  std::vector<MPI_Datatype> components(static_cast<size_t>(nt));
  PMPI_Type_get_contents(real, ni, na, nt, info.ints.data(), aints.data(), components.data());
  info.aints.assign(aints.begin(), aints.end());
  for (MPI_Datatype &c : components) {
    if (named(c)) {
      info.types.push_back(c);
      continue;
    }
    // A derived component comes back as a new MPICH reference to an object the table knows.
    if (types().tracks_real(c)) {
      const MPI_Datatype app = types().app_of(c);
      ++types().find(app)->info.dependants;
      info.types.push_back(app);
    } else {
      // Built from a type c3 does not track (returned by a call it does not support).
      if (!rt().tainted_by) rt().tainted_by = "a datatype built from one c3 does not track";
      info.types.push_back(c);
    }
    PMPI_Type_free(&c);
  }
  return types().add(real, std::move(info));
}

int free_datatype(MPI_Datatype *h) {
  auto *slot = types().find(*h);
  if (!slot) return PMPI_Type_free(h);  // predefined: MPICH reports the error
  if (is_f90(slot->info.combiner)) {     // MPICH refuses to free those, as MPI says
    MPI_Datatype real = slot->real;
    return PMPI_Type_free(&real);
  }
  const MPI_Datatype app = *h;
  if (slot->refs == 1) {
    // MPICH keeps it for the types built from it. Delete callbacks of its attributes run here
    // and still see the program's handle; if one fails, the type stays, as MPICH's does.
    MPI_Datatype real = slot->real;
    const int rc = PMPI_Type_free(&real);
    if (rc != MPI_SUCCESS) return rc;
    types().drop(app);
    // A type built from it keeps it alive in MPICH, which deletes its attributes when that one
    // goes: its handle still leads here until then.
    slot->released = true;
    release_if_unnamed(app);
  } else {
    types().drop(app);
  }
  *h = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

void hold_datatype(MPI_Datatype app) {
  auto *slot = types().find(app);
  if (slot && slot->refs > 0 && !is_f90(slot->info.combiner)) types().retain(app);
}

void release_datatype(MPI_Datatype app) {
  auto *slot = types().find(app);
  if (!slot || slot->refs == 0 || is_f90(slot->info.combiner)) return;
  free_datatype(&app);
}

void release_datatypes_at_finalize() {
  // A free runs the delete callbacks of a type's attributes, which plain MPICH never runs for a
  // type the program keeps: with datatype keyvals about, the types stay.
  bool type_keyvals = false;
  handles().keyvals.for_each([&](int, auto &slot) {
    if (slot.info.object != KeyvalInfo::kComm) type_keyvals = true;
  });
  if (type_keyvals) return;
  std::vector<int> held;
  types().for_each([&](int h, auto &) { held.push_back(h); });
  for (int h : held) {
    auto *slot = types().find(h);
    if (!slot || slot->released || is_f90(slot->info.combiner)) continue;
    MPI_Datatype real = slot->real;
    types().forget_real(h);
    if (real != 0) PMPI_Type_free(&real);
  }
}

void drop_unnamed_datatypes() {
  std::vector<int> zombies;
  types().for_each([&](int h, auto &slot) {
    if (slot.zombie()) zombies.push_back(h);
  });
  for (int h : zombies) release_if_unnamed(h);
}

int on_Type_commit(MPI_Datatype *datatype) noexcept {
  MPI_Datatype real = real_type(*datatype);
  const int rc = PMPI_Type_commit(&real);
  if (rc == MPI_SUCCESS)
    if (auto *slot = types().find(*datatype)) slot->info.committed = true;
  return rc;
}

int on_Type_get_contents(TypeArg datatype, int max_integers, int max_addresses,
                         int max_datatypes, int array_of_integers[],
                         MPI_Aint array_of_addresses[],
                         MPI_Datatype array_of_datatypes[]) noexcept {
  const int rc = PMPI_Type_get_contents(datatype.real, max_integers, max_addresses, max_datatypes,
                                        array_of_integers, array_of_addresses, array_of_datatypes);
  if (rc != MPI_SUCCESS) return rc;
  int ni = 0, na = 0, nt = 0, combiner = 0;
  PMPI_Type_get_envelope(datatype.real, &ni, &na, &nt, &combiner);
  for (int i = 0; i < std::min(nt, max_datatypes); ++i)
    array_of_datatypes[i] = adopt_datatype(array_of_datatypes[i]);
  return rc;
}

MPI_Datatype build_datatype(const TypeInfo &t) {
  std::vector<MPI_Datatype> c;
  for (int app : t.types) c.push_back(component_real(app));
  const int *I = t.ints.data();
  std::vector<MPI_Aint> A(t.aints.begin(), t.aints.end());
  MPI_Datatype out = MPI_DATATYPE_NULL;
  int rc = MPI_ERR_TYPE;
  switch (t.combiner) {
    case MPI_COMBINER_DUP: rc = PMPI_Type_dup(c[0], &out); break;
    case MPI_COMBINER_CONTIGUOUS: rc = PMPI_Type_contiguous(I[0], c[0], &out); break;
    case MPI_COMBINER_VECTOR: rc = PMPI_Type_vector(I[0], I[1], I[2], c[0], &out); break;
    case MPI_COMBINER_HVECTOR_INTEGER:
      rc = PMPI_Type_create_hvector(I[0], I[1], MPI_Aint(I[2]), c[0], &out);
      break;
    case MPI_COMBINER_HVECTOR: rc = PMPI_Type_create_hvector(I[0], I[1], A[0], c[0], &out); break;
    case MPI_COMBINER_INDEXED: rc = PMPI_Type_indexed(I[0], I + 1, I + 1 + I[0], c[0], &out); break;
    case MPI_COMBINER_HINDEXED_INTEGER: {
      std::vector<MPI_Aint> d(I + 1 + I[0], I + 1 + 2 * I[0]);
      rc = PMPI_Type_create_hindexed(I[0], I + 1, d.data(), c[0], &out);
      break;
    }
    case MPI_COMBINER_HINDEXED: rc = PMPI_Type_create_hindexed(I[0], I + 1, A.data(), c[0], &out); break;
    case MPI_COMBINER_INDEXED_BLOCK:
      rc = PMPI_Type_create_indexed_block(I[0], I[1], I + 2, c[0], &out);
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:
      rc = PMPI_Type_create_hindexed_block(I[0], I[1], A.data(), c[0], &out);
      break;
    case MPI_COMBINER_STRUCT_INTEGER: {
      std::vector<MPI_Aint> d(I + 1 + I[0], I + 1 + 2 * I[0]);
      rc = PMPI_Type_create_struct(I[0], I + 1, d.data(), c.data(), &out);
      break;
    }
    case MPI_COMBINER_STRUCT: rc = PMPI_Type_create_struct(I[0], I + 1, A.data(), c.data(), &out); break;
    case MPI_COMBINER_SUBARRAY: {
      const int n = I[0];
      rc = PMPI_Type_create_subarray(n, I + 1, I + 1 + n, I + 1 + 2 * n, I[1 + 3 * n], c[0], &out);
      break;
    }
    case MPI_COMBINER_DARRAY: {
      const int n = I[2];
      rc = PMPI_Type_create_darray(I[0], I[1], n, I + 3, I + 3 + n, I + 3 + 2 * n, I + 3 + 3 * n,
                                   I[3 + 4 * n], c[0], &out);
      break;
    }
    case MPI_COMBINER_F90_REAL: rc = PMPI_Type_create_f90_real(I[0], I[1], &out); break;
    case MPI_COMBINER_F90_COMPLEX: rc = PMPI_Type_create_f90_complex(I[0], I[1], &out); break;
    case MPI_COMBINER_F90_INTEGER: rc = PMPI_Type_create_f90_integer(I[0], &out); break;
    case MPI_COMBINER_RESIZED: rc = PMPI_Type_create_resized(c[0], A[0], A[1], &out); break;
    default: break;
  }
  if (rc != MPI_SUCCESS)
    fatal("restart: could not build a datatype again (combiner " + std::to_string(t.combiner) + ")");
  if (t.committed) PMPI_Type_commit(&out);
  return out;
}

void recreate_datatypes() {
  std::vector<std::pair<uint64_t, int>> order;
  types().for_each([&](int h, auto &slot) { order.emplace_back(slot.serial, h); });
  std::sort(order.begin(), order.end());  // components are older than what is built from them
  // Zombies too: types built from them, and receives pending on them, need them. A zombie
  // keeps its MPICH type until nothing names it (erase_type).
  for (const auto &[serial, h] : order) types().set_real(h, build_datatype(types().find(h)->info));
  for (const auto &[serial, h] : order) {
    auto *slot = types().find(h);
    if (slot->refs == 0)
      types().unmap(h);
    else if (!slot->info.name.empty())
      PMPI_Type_set_name(slot->real, slot->info.name.c_str());
  }
}

void capture_datatype_names() {
  types().for_each([](int, auto &slot) {
    if (slot.refs == 0) return;
    char name[MPI_MAX_OBJECT_NAME + 1] = {};
    int length = 0;
    PMPI_Type_get_name(slot.real, name, &length);
    slot.info.name.assign(name, size_t(length));
  });
}

}  // namespace c3::mpi
