// Attribute keys and the attributes cached on communicators and datatypes. MPICH calls c3's
// copy/delete trampolines (with the keyval's c3 handle as extra state), and they call the
// program's callbacks with the program's handles. The attribute values themselves are read from
// MPICH when a checkpoint is taken and stored again after a restart.
#include "handles/attributes.hpp"

#include <cstdint>

#include "handles/handles.hpp"
#include "mpi_hooks.hpp"

namespace c3::mpi {
namespace {

auto &keyvals() { return handles().keyvals; }

const KeyvalInfo &keyval_of(void *extra_state) {
  return keyvals().find(int(intptr_t(extra_state)))->info;
}

int comm_copy(MPI_Comm oldcomm, int keyval, void *extra_state, void *in, void *out, int *flag) {
  const KeyvalInfo &k = keyval_of(extra_state);
  (void)keyval;
  return reinterpret_cast<MPI_Comm_copy_attr_function *>(k.copy_fn)(
      app_comm(oldcomm), int(intptr_t(extra_state)), reinterpret_cast<void *>(k.extra_state), in,
      out, flag);
}

int comm_delete(MPI_Comm comm, int keyval, void *value, void *extra_state) {
  const KeyvalInfo &k = keyval_of(extra_state);
  (void)keyval;
  return reinterpret_cast<MPI_Comm_delete_attr_function *>(k.delete_fn)(
      app_comm(comm), int(intptr_t(extra_state)), value, reinterpret_cast<void *>(k.extra_state));
}

int type_copy(MPI_Datatype oldtype, int keyval, void *extra_state, void *in, void *out, int *flag) {
  const KeyvalInfo &k = keyval_of(extra_state);
  (void)keyval;
  return reinterpret_cast<MPI_Type_copy_attr_function *>(k.copy_fn)(
      app_type(oldtype), int(intptr_t(extra_state)), reinterpret_cast<void *>(k.extra_state), in,
      out, flag);
}

int type_delete(MPI_Datatype type, int keyval, void *value, void *extra_state) {
  const KeyvalInfo &k = keyval_of(extra_state);
  (void)keyval;
  return reinterpret_cast<MPI_Type_delete_attr_function *>(k.delete_fn)(
      app_type(type), int(intptr_t(extra_state)), value, reinterpret_cast<void *>(k.extra_state));
}

// The MPICH keyval of an entry; the program's callbacks are reached through the trampolines (a
// null callback stays null: MPI_COMM_NULL_COPY_FN and friends are null in MPICH).
int make_real_keyval(int handle, const KeyvalInfo &k) {
  int real = MPI_KEYVAL_INVALID;
  void *extra = reinterpret_cast<void *>(intptr_t(handle));
  if (k.object == KeyvalInfo::kComm)
    PMPI_Comm_create_keyval(k.copy_fn ? comm_copy : nullptr, k.delete_fn ? comm_delete : nullptr,
                            &real, extra);
  else
    PMPI_Type_create_keyval(k.copy_fn ? type_copy : nullptr, k.delete_fn ? type_delete : nullptr,
                            &real, extra);
  return real;
}

int create(KeyvalInfo k, int *keyval) {
  const int handle = keyvals().add(0, k);  // its handle is the trampolines' extra state
  const int real = make_real_keyval(handle, k);
  if (real == MPI_KEYVAL_INVALID) {
    keyvals().erase(handle);
    return MPI_ERR_OTHER;
  }
  keyvals().set_real(handle, real);
  *keyval = handle;
  return MPI_SUCCESS;
}

KeyvalInfo info(int object, void *copy_fn, void *delete_fn, void *extra_state) {
  KeyvalInfo k;
  k.object = object;
  k.copy_fn = reinterpret_cast<uint64_t>(copy_fn);
  k.delete_fn = reinterpret_cast<uint64_t>(delete_fn);
  k.extra_state = reinterpret_cast<uint64_t>(extra_state);
  return k;
}

}  // namespace

int on_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                          MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                          void *extra_state) noexcept {
  return create(info(KeyvalInfo::kComm, reinterpret_cast<void *>(comm_copy_attr_fn),
                     reinterpret_cast<void *>(comm_delete_attr_fn), extra_state),
                comm_keyval);
}

int on_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                     void *extra_state) noexcept {
  return create(info(KeyvalInfo::kComm, reinterpret_cast<void *>(copy_fn),
                     reinterpret_cast<void *>(delete_fn), extra_state),
                keyval);
}

int on_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                          MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                          void *extra_state) noexcept {
  return create(info(KeyvalInfo::kDatatype, reinterpret_cast<void *>(type_copy_attr_fn),
                     reinterpret_cast<void *>(type_delete_attr_fn), extra_state),
                type_keyval);
}

// The entry stays, with its MPICH keyval: MPICH keeps a freed keyval while attributes use it,
// calls its callbacks for them, and accepts its old handle in calls on those attributes (and
// in further frees) until then. c3 passes such a handle on as MPICH's and lets MPICH judge, as
// plain MPICH would.
int free_keyval(int *h) {
  auto *slot = keyvals().find(*h);
  if (!slot) return PMPI_Comm_free_keyval(h);
  if (slot->refs == 0 && slot->real == 0) invalid_handle(ObjectKind::Keyval, *h);  // from before a restart
  int real = slot->real;
  const int rc = slot->info.object == KeyvalInfo::kComm ? PMPI_Comm_free_keyval(&real)
                                                         : PMPI_Type_free_keyval(&real);
  if (slot->refs > 0) {
    slot->refs = 0;
    slot->info.freed = true;
    keyvals().unmap(*h);  // MPICH may give its handle to a new keyval once it lets it go
  }
  if (rc == MPI_SUCCESS) *h = MPI_KEYVAL_INVALID;
  return rc;
}

void capture_attributes(CommInfo &comm, MPI_Comm real) {
  comm.attrs.clear();
  keyvals().for_each([&](int h, auto &slot) {
    if (slot.refs == 0 || slot.info.object != KeyvalInfo::kComm) return;
    void *value = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(real, slot.real, &value, &flag);
    if (flag) comm.attrs.push_back(Attribute{h, reinterpret_cast<uint64_t>(value)});
  });
}

void capture_attributes(TypeInfo &type, MPI_Datatype real) {
  type.attrs.clear();
  keyvals().for_each([&](int h, auto &slot) {
    if (slot.refs == 0 || slot.info.object != KeyvalInfo::kDatatype) return;
    void *value = nullptr;
    int flag = 0;
    PMPI_Type_get_attr(real, slot.real, &value, &flag);
    if (flag) type.attrs.push_back(Attribute{h, reinterpret_cast<uint64_t>(value)});
  });
}

void restore_attributes(const CommInfo &comm, MPI_Comm real) {
  for (const Attribute &a : comm.attrs)
    if (auto *slot = keyvals().find(a.keyval))
      PMPI_Comm_set_attr(real, slot->real, reinterpret_cast<void *>(a.value));
}

void restore_attributes(const TypeInfo &type, MPI_Datatype real) {
  for (const Attribute &a : type.attrs)
    if (auto *slot = keyvals().find(a.keyval))
      PMPI_Type_set_attr(real, slot->real, reinterpret_cast<void *>(a.value));
}

// Attributes set with a keyval the program had freed are not saved: c3 cannot ask MPICH whether
// it still has that keyval, and asking about one it let go is an error.
void recreate_keyvals() {
  keyvals().for_each([](int h, auto &slot) {
    if (slot.refs > 0) keyvals().set_real(h, make_real_keyval(h, slot.info));
  });
}

}  // namespace c3::mpi
