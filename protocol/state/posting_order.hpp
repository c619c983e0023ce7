// Requests kept in posting order (the receives awaiting a split header). Receives are posted with
// rising posting ids and their headers mostly arrive in that order, so a vector with holes does
// what a search tree did without an allocation and a rebalance per receive: appending is a
// push_back, removing marks a hole (the oldest entry is looked at first, then a binary search)
// and drops the holes at the front.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace c3::mpi {

template <class T>
class PostingOrder {
 public:
  struct Entry {
    uint64_t posting;
    T *item;  // null: removed
  };

  // Walks the live entries in posting order (as (posting, item) pairs).
  class const_iterator {
   public:
    const_iterator(const Entry *at, const Entry *end) : at_(at), end_(end) { skip(); }
    const Entry &operator*() const { return *at_; }
    const Entry *operator->() const { return at_; }
    const_iterator &operator++() {
      ++at_;
      skip();
      return *this;
    }
    bool operator!=(const const_iterator &o) const { return at_ != o.at_; }
    bool operator==(const const_iterator &o) const { return at_ == o.at_; }

   private:
    void skip() {
      while (at_ != end_ && !at_->item) ++at_;
    }
    const Entry *at_, *end_;
  };

  const_iterator begin() const {
    return {entries_.data() + head_, entries_.data() + entries_.size()};
  }
  const_iterator end() const {
    const Entry *last = entries_.data() + entries_.size();
    return {last, last};
  }
  size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }
  // Entries held, holes included (bounded by twice the live ones and a few).
  size_t held() const { return entries_.size(); }

  void insert(uint64_t posting, T *item) {
    ++live_;
    if (entries_.size() == head_ || entries_.back().posting < posting) {
      Entry &e = entries_.emplace_back();  // field by field: no 16-byte reload of a temporary
      e.posting = posting;
      e.item = item;
      return;
    }
    // Out of order (requests rebuilt by hand): its place, after entries of the same posting.
    auto at = std::upper_bound(entries_.begin() + long(head_), entries_.end(), posting,
                               [](uint64_t p, const Entry &e) { return p < e.posting; });
    entries_.insert(at, {posting, item});
  }

  // Removes `item` posted at `posting`; false if it is not here.
  bool erase(uint64_t posting, const T *item) {
    Entry *found = nullptr;
    if (live_ && entries_[head_].item == item && entries_[head_].posting == posting) {
      found = &entries_[head_];  // the oldest: the common case
    } else {
      auto at = std::lower_bound(entries_.begin() + long(head_), entries_.end(), posting,
                                 [](const Entry &e, uint64_t p) { return e.posting < p; });
      for (; at != entries_.end() && at->posting == posting && !found; ++at)
        if (at->item == item) found = &*at;
    }
    if (!found) return false;
    found->item = nullptr;
    --live_;
    drop_holes();
    return true;
  }

  void clear() {
    entries_.clear();
    head_ = live_ = 0;
  }

 private:
  void drop_holes() {
    while (head_ < entries_.size() && !entries_[head_].item) ++head_;
    if (head_ == entries_.size()) {
      entries_.clear();  // keeps the capacity: the next window appends without allocating
      head_ = 0;
    } else if (entries_.size() > 2 * live_ + 32) {
      // More holes than live entries (a long-lived receive keeps the vector from emptying, or
      // headers came out of order): squeezed out, so memory, walks and searches stay
      // proportional to the live entries.
      auto live = std::remove_if(entries_.begin() + long(head_), entries_.end(),
                                 [](const Entry &e) { return !e.item; });
      entries_.erase(live, entries_.end());
      entries_.erase(entries_.begin(), entries_.begin() + long(head_));
      head_ = 0;
    }
  }

  std::vector<Entry> entries_;
  size_t head_ = 0;  // entries before it are holes
  size_t live_ = 0;
};

}  // namespace c3::mpi
