// The indirection tables behind every MPI object the program creates (communicators, groups,
// datatypes, ops, error handlers, keyvals, info objects). The program holds c3 handles: MPICH's
// handle layout with kind bits 00 (which MPICH never hands out), the object type in bits 29-26 and
// an index + 1 below, so a c3 handle can never equal a live MPICH handle and one that leaked into
// MPICH would be rejected loudly. After a restart the same c3 handles name objects re-created
// with the same meaning (handles/recreate.cpp).
//
// Each entry owns exactly one MPICH reference: where MPICH hands out another reference to an
// object already in the table (MPI_Comm_group twice, MPI_Comm_get_errhandler, the datatypes of
// MPI_Type_get_contents), the program gets the same c3 handle with one more count on the entry,
// and the extra MPICH reference is dropped at once. An entry whose count drops to zero frees its
// MPICH object; it may stay as a zombie (no handle, index reserved) while a dependant still names
// it (a derived datatype built from it, a pending request).
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>

namespace c3::mpi {

// MPICH's object types (bits 29-26 of a handle).
enum class ObjectKind : uint32_t {
  Comm = 1, Group = 2, Datatype = 3, Errhandler = 5, Op = 6, Info = 7, Keyval = 9, Request = 0xb
};
constexpr uint32_t kHandleIndexBits = 26;
constexpr uint32_t kHandleIndexMask = (1u << kHandleIndexBits) - 1;

// A c3 handle of `kind`: kind bits 00, that object type and a non-zero index.
template <ObjectKind Kind>
[[gnu::always_inline]] constexpr bool is_c3_handle(int handle) {
  return (uint32_t(handle) >> kHandleIndexBits) == uint32_t(Kind) &&
         (uint32_t(handle) & kHandleIndexMask) != 0;
}
template <ObjectKind Kind>
constexpr int c3_handle(size_t index) {
  return int((uint32_t(Kind) << kHandleIndexBits) | uint32_t(index + 1));
}

template <class Info>
struct HandleSlot {
  Info info;             // what re-creates the object at restart (saved)
  uint32_t refs = 0;     // handles the program holds (0: free, or a zombie)
  bool used = false;     // live or zombie
  uint64_t serial = 0;   // creation order: what an object is built from is older
  int real = 0;          // the MPICH object (not saved: re-created at restart)
  // The program freed it and c3 gave up its MPICH reference, but MPICH keeps the object (for a
  // type built from it, a pending request) and its handle still leads here, so callbacks MPICH
  // runs for it later get the program's handle. Not saved: a restart rebuilds owned objects.
  bool released = false;

  bool zombie() const { return used && refs == 0; }
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &info &refs &used &serial;
  }
};

// `Info` is the saved description of one object (serializable).
template <ObjectKind Kind, class Info>
class HandleTable {
 public:
  using Slot = HandleSlot<Info>;

  // The MPICH object behind a handle the program passed: handles that are not c3's (predefined
  // ones, nulls, objects of calls c3 does not track) are MPICH's own and pass unchanged.
  // (Every MPI call translates its handles: forced inline, as the tables' users are large.)
  [[gnu::always_inline]] int real_of(int handle) const {
    if (!is_c3_handle<Kind>(handle)) return handle;
    const size_t i = (uint32_t(handle) & kHandleIndexMask) - 1;
    if (i < slots_.size() && slots_[i].refs > 0) return slots_[i].real;
    return real_of_freed(handle);
  }
  // The program's handle for an MPICH object, or the object itself when c3 does not track it.
  int app_of(int real) const {
    auto it = by_real_.find(real);
    return it == by_real_.end() ? real : it->second;
  }
  bool tracks_real(int real) const { return by_real_.count(real) != 0; }

  Slot *find(int handle) {
    if (!is_c3_handle<Kind>(handle)) return nullptr;
    const size_t i = (uint32_t(handle) & kHandleIndexMask) - 1;
    return i < slots_.size() && slots_[i].used ? &slots_[i] : nullptr;
  }
  const Slot *find(int handle) const { return const_cast<HandleTable *>(this)->find(handle); }
  Slot &at(int handle) {
    Slot *s = find(handle);
    if (!s || s->refs == 0) stale(handle);
    return *s;
  }

  // A new entry for `real` (the lowest free index, so a replay after a restart hands out the
  // same values as the run it repeats).
  int add(int real, Info info) {
    size_t i = 0;
    while (i < slots_.size() && slots_[i].used) ++i;
    if (i == slots_.size()) {
      if (i >= kHandleIndexMask - 1) too_many();
      slots_.emplace_back();
    }
    Slot &s = slots_[i];
    s = Slot{};
    s.info = std::move(info);
    s.refs = 1;
    s.used = true;
    s.serial = next_serial_++;
    s.real = real;
    if (real) by_real_[real] = c3_handle<Kind>(i);
    return c3_handle<Kind>(i);
  }
  // One more handle for an object already in the table.
  void retain(int handle) { ++at(handle).refs; }
  // MPICH handed out another reference to an object the table has: the program gets its handle
  // once more and the extra reference is dropped (`free_real(real)`). 0 if the table lacks it.
  // A released entry comes back to life: MPICH's new reference becomes its own.
  template <class FreeReal>
  int adopt_known(int real, FreeReal &&free_real) {
    auto it = by_real_.find(real);
    if (it == by_real_.end()) return 0;
    const int handle = it->second;
    Slot &s = *find(handle);
    if (s.refs == 0 && s.released) {
      s.refs = 1;
      s.released = false;
      return handle;
    }
    retain(handle);
    free_real(real);
    return handle;
  }
  // The program gave up a handle; with the last one the entry goes and `free_real(real)` frees
  // the MPICH object.
  template <class FreeReal>
  void release(int handle, FreeReal &&free_real) {
    if (!drop(handle)) return;
    const int real = slot_real(handle);
    erase(handle);
    free_real(real);
  }
  // The program gave up one handle. Returns true when it was the last: the caller frees the
  // MPICH object (forget_real) and either keeps the entry as a zombie or erases it.
  bool drop(int handle) { return --at(handle).refs == 0; }
  // The MPICH object of an entry, also one the program no longer holds a handle to.
  int slot_real(int handle) {
    Slot *s = find(handle);
    return s ? s->real : 0;
  }
  void forget_real(int handle) {
    Slot *s = find(handle);
    if (!s) return;
    unmap_real(s->real, handle);
    s->real = 0;
  }
  // The entry keeps its MPICH object, but MPICH's handle no longer leads to it (a zombie the
  // program holds no handle to: another reference MPICH hands out becomes a new entry).
  void unmap(int handle) {
    if (Slot *s = find(handle)) unmap_real(s->real, handle);
  }
  void erase(int handle) {
    Slot *s = find(handle);
    if (!s) return;
    unmap_real(s->real, handle);
    *s = Slot{};
  }
  // Restart: the re-created MPICH object of an entry.
  void set_real(int handle, int real) {
    Slot &s = *find(handle);
    unmap_real(s.real, handle);
    s.real = real;
    s.released = false;
    if (real) by_real_[real] = handle;
  }
  // After loading a saved table: no MPICH object exists yet.
  void forget_all_reals() {
    by_real_.clear();
    for (Slot &s : slots_) s.real = 0;
  }

  template <class F>
  void for_each(F &&f) {  // f(handle, slot), live and zombie entries
    for (size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i].used) f(c3_handle<Kind>(i), slots_[i]);
  }
  size_t live_count() const {
    size_t n = 0;
    for (const Slot &s : slots_) n += s.refs > 0;
    return n;
  }

  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &slots_ &next_serial_;
  }

 private:
  // MPICH may have given a freed object's handle to a new one meanwhile: only this entry's
  // mapping goes.
  void unmap_real(int real, int handle) {
    auto it = by_real_.find(real);
    if (it != by_real_.end() && it->second == handle) by_real_.erase(it);
  }
  // real_of for a handle the program no longer holds: a freed keyval lives on in MPICH while
  // attributes use it (handles/attributes.cpp); any other is stale.
  int real_of_freed(int handle) const;
  [[noreturn]] static int stale(int handle);
  [[noreturn]] static void too_many();
  std::deque<Slot> slots_;  // a deque: entries stay put while the table grows
  uint64_t next_serial_ = 1;
  std::unordered_map<int, int> by_real_;  // MPICH object -> c3 handle (not saved)
};

// Ends the job: the program passed a handle of this kind that names no live object.
[[noreturn]] void invalid_handle(ObjectKind kind, int handle);
[[noreturn]] void too_many_handles(ObjectKind kind);

template <ObjectKind Kind, class Info>
int HandleTable<Kind, Info>::real_of_freed(int handle) const {
  const size_t i = (uint32_t(handle) & kHandleIndexMask) - 1;
  if (Kind == ObjectKind::Keyval && i < slots_.size() && slots_[i].used && slots_[i].real)
    return slots_[i].real;
  return stale(handle);
}
template <ObjectKind Kind, class Info>
int HandleTable<Kind, Info>::stale(int handle) {
  invalid_handle(Kind, handle);
}
template <ObjectKind Kind, class Info>
void HandleTable<Kind, Info>::too_many() {
  too_many_handles(Kind);
}

}  // namespace c3::mpi
