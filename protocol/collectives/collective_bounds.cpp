#include "collectives/collective_bounds.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "handles/communicators.hpp"
#include "handles/handles.hpp"
#include "messages/requests.hpp"

namespace c3::mpi::coll {
namespace {

constexpr uint64_t kGhost = 1, kKeyedRecent = 2;

struct Bounds {
  bool ready = false;
  std::map<uint64_t, uint64_t> bound;            // gid -> highest number reported
  std::set<uint64_t> reported_keys;              // keyed creations other ranks have made
  std::vector<uint64_t> owed;                    // ... of which this rank is a member
  std::map<uint64_t, std::set<int>> ghost_of;    // gid -> ranks that freed it
};
Bounds g_bounds;

template <class F>
void parse(const std::vector<uint64_t> &report, F &&f) {  // f(gid, seq, flags, members)
  size_t i = 0;
  const size_t n = report.empty() ? 0 : report[i++];
  std::vector<int> members;
  for (size_t e = 0; e < n && i + 3 <= report.size(); ++e) {
    const uint64_t gid = report[i], seq = report[i + 1], flags = report[i + 2];
    i += 3;
    members.clear();
    if (flags & kKeyedRecent) {
      const size_t m = i < report.size() ? size_t(report[i++]) : 0;
      for (size_t k = 0; k < m && i < report.size(); ++k) members.push_back(int(report[i++]));
    }
    f(gid, seq, flags, members);
  }
}

void compute() {
  Bounds b;
  auto take = [&](int source, const std::vector<uint64_t> &report) {
    parse(report, [&](uint64_t gid, uint64_t seq, uint64_t flags, const std::vector<int> &members) {
      // Every process has its own MPI_COMM_SELF under one gid: only this rank's number counts.
      if (gid == kSelfGid && source != rt().rank) return;
      uint64_t &bound = b.bound[gid];
      bound = std::max(bound, seq);
      if (flags & kGhost) b.ghost_of[gid].insert(source);
      if (source != rt().rank && (flags & kKeyedRecent)) {
        b.reported_keys.insert(gid);
        if (std::count(members.begin(), members.end(), rt().rank)) b.owed.push_back(gid);
      }
    });
  };
  take(rt().rank, rt().own_report);
  for (int q = 0; q < rt().size; ++q)
    if (q != rt().rank) take(q, rt().reports[size_t(q)]);
  b.ready = true;
  g_bounds = std::move(b);
}

uint64_t bound_of(uint64_t gid) {
  auto it = g_bounds.bound.find(gid);
  return it == g_bounds.bound.end() ? 0 : it->second;
}

bool all_initiated() {
  for (uint8_t i : state().initiated)
    if (!i) return false;
  return true;
}

}  // namespace

std::vector<uint64_t> make_report() {
  std::vector<uint64_t> out{0};
  const uint64_t epoch = state().epoch;  // the checkpoint's (already advanced)
  for_each_held_comm([&](CommInfo &c, bool ghost) {
    const bool recent = c.keyed && c.created_epoch + 1 >= epoch;
    out.insert(out.end(), {c.gid, c.seq, (ghost ? kGhost : 0) | (recent ? kKeyedRecent : 0)});
    if (recent) {
      out.push_back(c.world.size() + c.remote_world.size());
      for (int r : c.world) out.push_back(uint64_t(r));
      for (int r : c.remote_world) out.push_back(uint64_t(r));
    }
    ++out[0];
  });
  return out;
}

void note_report(int source, const uint64_t *words, size_t n, bool ahead) {
  auto &reports = ahead ? rt().ahead_reports : rt().reports;
  reports.resize(size_t(rt().size));
  reports[size_t(source)].assign(words, words + n);
}

void new_epoch() {
  rt().reports.assign(size_t(rt().size), {});
  rt().ahead_reports.resize(size_t(rt().size));
  std::swap(rt().reports, rt().ahead_reports);
  g_bounds = Bounds{};
  rt().own_report = make_report();
}

bool settled() {
  if (!all_initiated()) return false;
  if (!g_bounds.ready) compute();
  bool behind = false;
  std::set<uint64_t> held;
  for_each_held_comm([&](CommInfo &c, bool) {
    held.insert(c.gid);
    if (c.seq < bound_of(c.gid)) behind = true;
  });
  if (behind) return false;
  for (uint64_t gid : g_bounds.owed)
    if (!held.count(gid)) return false;
  for (Request &r : state().requests)
    if (r.kind == Request::Kind::Collective && r.active && !r.done &&
        r.coll->seq <= bound_of(r.coll->gid) && !test_request(r))
      return false;
  return true;
}

void trim_log(CheckpointLog &log) {
  if (!g_bounds.ready) compute();
  auto &c = log.collectives;
  c.erase(std::remove_if(c.begin(), c.end(),
                         [](const LoggedCollective &l) {
                           return l.key ? !g_bounds.reported_keys.count(l.key)
                                        : l.seq > bound_of(l.gid);
                         }),
          c.end());
  // A ghost every member, this rank included, had freed at this checkpoint is needed by no
  // restart from here on. All ranks decide from the same reports, so all drop it together; a
  // member that still held it (or had not made it yet) at the checkpoint keeps everyone's ghost.
  auto &ghosts = handles().ghosts;
  ghosts.erase(std::remove_if(ghosts.begin(), ghosts.end(),
                              [](const Ghost &g) {
                                const auto it = g_bounds.ghost_of.find(g.comm.gid);
                                if (it == g_bounds.ghost_of.end()) return false;
                                for (const auto *side : {&g.comm.world, &g.comm.remote_world})
                                  for (int r : *side)
                                    if (!it->second.count(r)) return false;
                                return true;
                              }),
               ghosts.end());
}

}  // namespace c3::mpi::coll
