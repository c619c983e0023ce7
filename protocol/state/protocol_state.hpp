// The C3 protocol's state on one rank: epoch and mode, message counters, the registries of late
// and early messages, the request table and the log of non-deterministic events. Lives in the
// system heap and is saved with Boost.Serialization (snapshot at a checkpoint, log at the local
// commit), never as raw memory.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <type_traits>
#include <vector>

#include "handles/handle_state.hpp"
#include "state/posting_order.hpp"

namespace c3::mpi {

enum class Mode : uint8_t { Run, NonDetLog, RecvOnlyLog, Restore };
const char *mode_name(Mode mode);

// MPI_Status as plain ints, so it can be saved and compared (MPICH: count_lo,
// count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR).
struct SavedStatus {
  int words[sizeof(MPI_Status) / sizeof(int)] = {};
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &words;
  }
};
static_assert(sizeof(MPI_Status) % sizeof(int) == 0, "MPI_Status is a sequence of ints");

// A message that arrived after this rank's checkpoint but was sent before the sender's: its
// payload goes into the checkpoint's log, and a restart delivers it from there.
struct LateMessage {
  uint64_t comm = 0;  // the communicator's gid (handles/handle_state.hpp)
  int source = 0;  // rank in comm
  int tag = 0;
  std::string payload;  // without the piggyback header
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &comm &source &tag &payload;
  }
};

// The outcome of one non-deterministic call, replayed in order after a restart.
struct Outcome {
  uint64_t call = 0;     // sequence number of the call (tests, probes, Wait{any,some})
  uint64_t repeat = 1;   // this many consecutive calls from `call` on ended the same way
  int flag = 0;          // test succeeded / probe found a message / cancel succeeded
  std::vector<int> indices;  // requests completed (Testany/some/all, Waitany/some)
  int source = 0, tag = 0;   // a probe's match
  int64_t bytes = 0;         // a probe's payload size
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &call &repeat &flag &indices &source &tag &bytes;
  }
};

// What a wildcard receive matched (posting id -> source, tag).
struct Resolution {
  int source = 0, tag = 0;
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &source &tag;
  }
};

// RecvOnly-Log: a wildcard probe's match. Polls are not logged there, so a restart may probe a
// different number of times: the probe is found again by what a restart reproduces, the
// receive posting it came before and what it asked for.
struct ProbeMatch {
  uint64_t posting = 0;  // the probe came while this receive posting was the next one
  uint64_t comm = 0;     // the communicator's gid
  int wanted_source = 0, wanted_tag = 0;  // the program's arguments (at least one a wildcard)
  int source = 0, tag = 0;                // what it matched
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &posting &comm &wanted_source &wanted_tag &source &tag;
  }
};

// Where a collective's result lands in this process: `count` elements of `type` at `buf`.
struct Region {
  uint64_t buf = 0;
  int count = 0;
  int type = 0;        // the program's handle
  int real = 0;        // MPICH's (not saved)
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &buf &count &type;
  }
};

// The result of a collective call, logged by a process that executed it after its checkpoint
// while some member had executed it before (collectives/collective_call.hpp). `seq` numbers it on
// the communicator `gid`; a creation that is not numbered on a parent (MPI_Comm_create_group,
// MPI_Intercomm_create) is known by the new communicator's gid alone (`key`).
struct LoggedCollective {
  uint64_t gid = 0, seq = 0, key = 0;
  int rc = 0;
  std::string data;        // the output regions, packed
  bool made_comm = false;  // a communicator creation: `comm` describes what this process got
  bool got_comm = false;   // ... and whether it got one (MPI_COMM_NULL otherwise)
  CommInfo comm;
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &gid &seq &key &rc &data &made_comm &got_comm &comm;
  }
};

// A nonblocking collective in the request table: what identifies it and where its result lands.
struct CollectiveRecord {
  uint64_t gid = 0, seq = 0;
  std::vector<Region> outputs;
  int new_comm = 0;   // MPI_Comm_idup: the program's handle of the communicator it makes
  bool started_logging = false;  // started in NonDet-Log or RecvOnly-Log: its result is logged
  // Not saved: the trampoline slot of its user-defined operator, or -1 (handles/ops.cpp); a
  // restart takes a pending collective's result from the log and calls no operator.
  int op_slot = -1;
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &gid &seq &outputs &new_comm &started_logging;
  }
};

// Per checkpoint: everything logged between the checkpoint and its local commit.
struct CheckpointLog {
  std::vector<LateMessage> late;
  std::vector<Outcome> outcomes;
  std::map<uint64_t, Resolution> resolutions;
  std::map<uint64_t, int> cancelled;  // posting id -> whether MPI_Cancel of the receive succeeded
  uint64_t calls_logged_until = 0;    // calls below this number are in `outcomes`
  // RecvOnly-Log: wildcard probes' matches, once a receive showed the match came from a sender
  // that still logged (or was late). Keyed by the probe's call number for the order only.
  std::map<uint64_t, ProbeMatch> probe_matches;
  std::vector<LoggedCollective> collectives;
  // statistics
  uint64_t late_bytes = 0;
  uint64_t early_messages = 0;
  uint64_t nondet_ns = 0, recvonly_ns = 0;
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &late &outcomes &resolutions &cancelled &calls_logged_until &probe_matches
        &collectives &late_bytes &early_messages &nondet_ns &recvonly_ns;
  }
  uint64_t logged_events() const {
    return outcomes.size() + resolutions.size() + cancelled.size() + probe_matches.size() +
           collectives.size();
  }
};

enum class SendMode : uint8_t { Standard, Buffered, Sync, Ready };

// Bytes that are overwritten before they are read: unlike std::string, growing does not
// zero-fill (a full bounce per large receive would otherwise cost a memset each time).
class BounceBuffer {
 public:
  // Small messages all fit the first allocation, which a request slot keeps (Request::reset).
  static constexpr size_t kSmallCapacity = 64;
  BounceBuffer() = default;
  BounceBuffer(const BounceBuffer &o) { assign(o.data(), o.size_); }
  BounceBuffer &operator=(const BounceBuffer &o) {
    if (this != &o) assign(o.data(), o.size_);
    return *this;
  }
  BounceBuffer(BounceBuffer &&o) noexcept { swap(o); }
  BounceBuffer &operator=(BounceBuffer &&o) noexcept {
    BounceBuffer moved(std::move(o));
    swap(moved);
    return *this;
  }
  void swap(BounceBuffer &o) noexcept {
    std::swap(bytes_, o.bytes_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
  }

  [[gnu::always_inline]] char *data() { return bytes_.get(); }
  char &operator[](size_t i) { return bytes_[i]; }
  const char *data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  [[gnu::always_inline]] size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  // Contents up to the old size are kept only when no reallocation happens.
  [[gnu::always_inline]] void resize(size_t n) {
    if (n > capacity_) {
      const size_t capacity = n < kSmallCapacity ? kSmallCapacity : n;
      bytes_.reset(new char[capacity]);
      capacity_ = capacity;
    }
    size_ = n;
  }
  void assign(const char *from, size_t n) {
    resize(n);
    if (n) std::memcpy(bytes_.get(), from, n);
  }
  void clear() { size_ = 0; }
  void release() {
    bytes_.reset();
    size_ = capacity_ = 0;
  }

 private:
  std::unique_ptr<char[]> bytes_;
  size_t size_ = 0, capacity_ = 0;
};

// The plain fields of a request (Request below): one block, so a freed entry is reset by a
// single assignment.
struct RequestFields {
  // Native: a request of a call c3 does not hook (completed through MPICH, not restorable).
  // Collective: a nonblocking collective (or MPI_Comm_idup); `coll` describes it.
  enum class Kind : uint8_t { Free, Send, Recv, Native, Collective };
  Kind kind = Kind::Free;
  SendMode send_mode = SendMode::Standard;
  bool persistent = false;
  bool active = false;      // started and not yet completed towards the application
  bool done = false;        // completed inside c3; `status` is what the application gets
  bool replay_cancel = false;  // restart: this receive was cancelled in the logged run
  uint8_t wire_at = 0;  // live only: where the message starts in `bounce` (piggyback::place_wire)
  uintptr_t buf = 0;
  int count = 0;
  int type = 0;   // MPI_Datatype: the program's handle
  int peer = 0;   // dest or source as given
  int tag = 0;
  int comm = 0;   // MPI_Comm: the program's handle
  uint64_t posting = 0;  // receive: posting id of this activation
  SavedStatus status;
  // Live only (not saved): the MPI side of an active request.
  MPI_Comm rcomm = MPI_COMM_NULL;      // MPICH's communicator and datatype
  MPI_Datatype rtype = MPI_DATATYPE_NULL;
  MPI_Request real = MPI_REQUEST_NULL;
  MPI_Request native = MPI_REQUEST_NULL;  // Kind::Native: MPICH's request (persistent ones stay)
  int32_t header = 0;     // header of a large message (its wire type points here)
  MPI_Datatype wire = MPI_DATATYPE_NULL;  // struct type to free at completion
  bool wire_cached = false;
  int effective_source = 0, effective_tag = 0;
  // Split messages (split_transfer.hpp): `real` is the payload's transfer.
  bool payload_pending = false;  // receive: the header arrived, the payload is on its way
  bool split_send = false;       // send: the header is out, `real` sends the payload
  bool cancel_asked = false;     // receive: the program called MPI_Cancel on this activation (saved)
  bool replay_keep = false;      // restart: MPI_Cancel of this receive failed in the logged run
  bool awaits_header = false;    // receive: may get a split header (split::must_poll)
  // receive awaiting its header whose payload's receive is posted already, as payload_real
  // (messages/payload_prepost.hpp)
  bool preposted = false;
  MPI_Request payload_real = MPI_REQUEST_NULL;
  // Posted by the small-message path (built-in type, header inline in `bounce`, not persistent,
  // never cancelled): MPI_Waitall may complete it without the general path (not saved).
  bool small = false;
  // Posted by the split-message lane (messages/split_lane.hpp: a large message of a built-in
  // type on MPI_COMM_WORLD, its payload straight to or from the program's buffer): MPI_Waitall
  // may complete it without the general path while it is as the lane left it (not saved).
  bool split_lane = false;
  int32_t split_header = 0;      // receive: the header that came first
};

static_assert(std::is_trivially_copyable_v<RequestFields>, "reset() assigns the block at once");

// One application request. The application holds a c3 handle naming this entry, so the same
// value stays valid after a restart.
struct Request : RequestFields {
  std::shared_ptr<CollectiveRecord> coll;  // saved
  BounceBuffer bounce;  // live only: header + payload for small messages

  // Back to a free entry. A small bounce allocation stays: the next request in this slot
  // would make the same one (the message rate of small nonblocking messages paid ~100
  // instructions per message for it). The plain fields get their defaults in one assignment.
  void reset() {
    static const RequestFields kFree{};
    if (coll) coll.reset();
    static_cast<RequestFields &>(*this) = kFree;
    bounce.clear();
  }

  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &kind &send_mode &persistent &active &done &replay_cancel &buf &count &type &peer &tag
        &comm &posting &status &cancel_asked;
    // By value, not as a Boost pointer: a damaged record must fail as an exception.
    bool has_coll = coll != nullptr;
    ar &has_coll;
    if constexpr (Archive::is_loading::value) coll = has_coll ? std::make_shared<CollectiveRecord>() : nullptr;
    if (has_coll) ar &*coll;
  }
};

// The channel of a message as early-message registries count it.
// The request table, indexed by c3 handle index - 1. Requests live in fixed-size chunks, so
// references stay valid while the table grows (hooks and the awaiting set hold them), and a
// lookup is a shift and a mask: every nonblocking call and every completion makes a few.
class RequestTable {
 public:
  RequestTable() = default;
  RequestTable(std::initializer_list<Request> requests) { *this = requests; }
  RequestTable(const RequestTable &other) { *this = other; }
  RequestTable &operator=(const RequestTable &other) {
    if (this != &other) {
      clear();
      for (size_t i = 0; i < other.size(); ++i) emplace_back() = other[i];
    }
    return *this;
  }
  RequestTable &operator=(std::initializer_list<Request> requests) {
    clear();
    for (const Request &r : requests) emplace_back() = r;
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  [[gnu::always_inline]] Request &operator[](size_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  const Request &operator[](size_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  Request &emplace_back() {
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<Request[]>(kChunk));
    Request &r = (*this)[size_++];
    r = Request{};
    return r;
  }
  void clear() {
    chunks_.clear();
    size_ = 0;
    ++clears_;
  }
  // How often any table was cleared (assigned to, loaded): a reference into a table stays valid
  // until then, however the table grows.
  static uint64_t clears() { return clears_; }

  template <class Table, class Value>
  class Iterator {
   public:
    Iterator(Table *table, size_t i) : table_(table), i_(i) {}
    Value &operator*() const { return (*table_)[i_]; }
    Iterator &operator++() { return ++i_, *this; }
    bool operator!=(const Iterator &o) const { return i_ != o.i_; }
    bool operator==(const Iterator &o) const { return i_ == o.i_; }

   private:
    Table *table_;
    size_t i_;
  };
  auto begin() { return Iterator<RequestTable, Request>(this, 0); }
  auto end() { return Iterator<RequestTable, Request>(this, size_); }
  auto begin() const { return Iterator<const RequestTable, const Request>(this, 0); }
  auto end() const { return Iterator<const RequestTable, const Request>(this, size_); }

  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    uint64_t n = size_;
    ar &n;
    if constexpr (Archive::is_loading::value) {
      clear();
      // A damaged count ends where the record's bytes do: reading an element past them throws.
      for (uint64_t i = 0; i < n; ++i) ar &emplace_back();
    } else {
      for (uint64_t i = 0; i < n; ++i) ar &(*this)[i];
    }
  }

 private:
  static constexpr size_t kChunkBits = 6, kChunk = size_t(1) << kChunkBits;
  std::vector<std::unique_ptr<Request[]>> chunks_;
  size_t size_ = 0;
  static inline uint64_t clears_ = 0;
};

struct Signature {
  int peer = 0;  // world rank of the other side
  uint64_t comm = 0;  // the communicator's gid
  int tag = 0;
  bool operator<(const Signature &o) const {
    return std::tie(peer, comm, tag) < std::tie(o.peer, o.comm, o.tag);
  }
  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &peer &comm &tag;
  }
};

struct ProtocolState {
  uint64_t epoch = 0;       // checkpoints taken so far in this lineage; colour = epoch & 3
  uint64_t number_base = 0; // checkpoint number = number_base + epoch
  Mode mode = Mode::Run;
  uint64_t next_posting = 1;
  uint64_t next_call = 1;
  std::vector<uint64_t> sent;                 // per world rank, in this epoch
  std::vector<uint64_t> received[4];          // per colour, per world rank
  std::vector<uint64_t> expected_late;        // per world rank: colour epoch-1 messages sent
  std::vector<uint8_t> initiated;             // Checkpoint-Initiated(epoch) arrived, per rank
  std::vector<int64_t> ahead;                 // a peer's Checkpoint-Initiated(epoch+1) count, -1 none
  std::map<Signature, uint64_t> early;        // received early, by sender signature
  std::map<Signature, uint64_t> was_early;    // restart: our sends a peer already has
  RequestTable requests;                      // index = handle index - 1
  CheckpointLog log;                          // of the checkpoint in progress
  std::deque<LateMessage> pool;               // restart: late messages not yet delivered
  CheckpointLog replay;                       // restart: the log being replayed
  size_t replay_next_outcome = 0;
  uint64_t replay_repeat_used = 0;
  uintptr_t bsend_user_buffer = 0;            // MPI_Buffer_attach's buffer, as the program gave it
  int bsend_user_size = 0;
  uint64_t output_released_at_snapshot = 0;   // stdout bytes released when the checkpoint was taken
  uint64_t output_at_snapshot = 0;            // stdout bytes written when the checkpoint was taken
  uint64_t output_releasable = 0;             // released up to here once committed everywhere
  uint64_t locally_committed = 0;             // newest checkpoint number this rank committed
  uint64_t globally_committed = 0;            // newest known committed by every rank
  uint64_t failed_epoch = 0;                  // this rank could not write that checkpoint
  HandleState handles;                        // the program's MPI objects (handles/)
  int thread_level = MPI_THREAD_SINGLE;       // what the program's MPI_Init_thread got

  template <class Archive>
  void serialize(Archive &ar, unsigned) {
    ar &epoch &number_base &mode &next_posting &next_call &sent &received &expected_late
        &initiated &ahead &early &was_early &requests &bsend_user_buffer &bsend_user_size
        &output_released_at_snapshot &output_at_snapshot &locally_committed &globally_committed
        &failed_epoch &handles &thread_level;
  }
};

extern ProtocolState g_protocol_state;
inline ProtocolState &state() { return g_protocol_state; }

// Process facts not saved.
struct Runtime {
  bool initialized = false;    // MPI initialized (by the program or by a restart)
  bool app_initialized = false;  // the program's MPI_Init has happened (or is replaced by restart)
  bool finalized = false;
  int rank = 0, size = 1;
  MPI_Comm control = MPI_COMM_NULL;  // private duplicate of MPI_COMM_WORLD
  bool has_orphans = false;      // requests the program freed (or c3's buffered sends) are active
  const char *tainted_by = nullptr;  // first call c3 cannot restore (no checkpoints after it)
  uint64_t mode_since_ns = 0;
  std::vector<MPI_Request> control_sends;
  std::vector<std::unique_ptr<std::vector<uint64_t>>> control_buffers;  // one per control send
  std::vector<uint64_t> initiated_counts;       // Checkpoint-Initiated payload per peer
  // Checkpoint-Initiated also carries each rank's collective numbers at its checkpoint
  // (collectives/collective_bounds.hpp): ours, and each peer's of this epoch and of the next.
  std::vector<uint64_t> own_report;
  std::vector<std::vector<uint64_t>> reports, ahead_reports;
  // Restart: communicators the log says this rank created after the checkpoint, built already
  // (with their bulk duplicates), by gid, until the replay reaches their creation.
  std::map<uint64_t, std::pair<MPI_Comm, MPI_Comm>> precreated;
  std::map<uint64_t, uint64_t> pending_output_marks;  // checkpoint -> stdout bytes at it
  std::vector<std::pair<int, uint64_t>> final_from;   // early MPI_Finalize notices
  std::vector<int64_t> finalizing_epoch;  // per rank: its epoch when it entered MPI_Finalize, or -1
  bool sent_all_initiated = false;  // told every rank we have all Checkpoint-Initiated
  int all_initiated_from = 0;       // ranks known to have all Checkpoint-Initiated (us included)
  bool logging_ended_elsewhere = false;  // a rank left NonDet-Log of this epoch (so all may)
  // RecvOnly-Log: wildcard probes' matches whose sender's logging bit a receive has yet to show.
  // Receives posted from `match.posting` on get the probed message or a later one.
  struct ProbedMatch {
    uint64_t call;
    MPI_Comm comm;
    ProbeMatch match;
  };
  std::vector<ProbedMatch> unconfirmed_probes;
  std::map<MPI_Message, MPI_Comm> message_comms;  // matched by MPI_Mprobe, not yet received
  // Matched by MPI_Mprobe and held by c3 until the program receives them: a late message from
  // the log during Restore, or any message received at once while logging.
  std::map<MPI_Message, LateMessage> held_messages;
  MPI_Comm bulk = MPI_COMM_NULL;  // payloads of split messages on MPI_COMM_WORLD
  std::map<MPI_Message, int32_t> split_messages;  // a matched split message's payload -> header
  PostingOrder<Request> awaiting;  // receives with awaits_header
  bool restarted = false;
};
extern Runtime g_runtime;
inline Runtime &rt() { return g_runtime; }

uint64_t now_ns();

}  // namespace c3::mpi
