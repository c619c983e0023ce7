// PostingOrder (state/posting_order.hpp), the receives awaiting a split header in posting order:
// random inserts and removals checked against an ordered set after every step, in the shapes the
// protocol makes (windows posted in order and completed roughly in order, a long-lived receive at
// the front, requests rebuilt out of order with repeated posting ids).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "state/posting_order.hpp"

using c3::mpi::PostingOrder;

namespace {

struct Item {
  int id;
};

using Model = std::set<std::pair<uint64_t, const Item *>>;

// The container walks exactly the model's entries, in the model's order.
void check_same(const PostingOrder<Item> &order, const Model &model) {
  REQUIRE(order.size() == model.size());
  REQUIRE(order.empty() == model.empty());
  auto expected = model.begin();
  for (const auto &[posting, item] : order) {
    REQUIRE(expected != model.end());
    CHECK(posting == expected->first);
    CHECK(item == expected->second);
    ++expected;
  }
  CHECK(expected == model.end());
}

}  // namespace

TEST_CASE("posting order: windows posted in order, completed in any order", "[posting_order]") {
  std::mt19937 rng(GENERATE(1u, 2u, 3u, 4u));
  std::vector<Item> items(256);
  for (size_t i = 0; i < items.size(); ++i) items[i].id = int(i);
  PostingOrder<Item> order;
  Model model;
  uint64_t next = 0;
  std::vector<std::pair<uint64_t, Item *>> live;
  std::vector<Item *> unused;
  for (Item &item : items) unused.push_back(&item);
  for (int step = 0; step < 20000; ++step) {
    const bool post = !unused.empty() && (live.empty() || rng() % 2 == 0);
    if (post) {
      Item *item = unused.back();
      unused.pop_back();
      order.insert(next, item);
      model.emplace(next, item);
      live.emplace_back(next++, item);
    } else {
      // Mostly the oldest (headers come in posting order), sometimes any of them.
      const size_t k = rng() % 4 ? 0 : size_t(rng() % live.size());
      const auto [posting, item] = live[k];
      CHECK(order.erase(posting, item));
      CHECK_FALSE(order.erase(posting, item));  // gone already
      model.erase({posting, item});
      live.erase(live.begin() + long(k));
      unused.push_back(item);
    }
    check_same(order, model);
    REQUIRE(order.held() <= 2 * order.size() + 33);
  }
}

TEST_CASE("posting order: a long-lived receive at the front keeps the rest bounded",
          "[posting_order]") {
  Item first{0}, other{1};
  PostingOrder<Item> order;
  order.insert(0, &first);
  // Each window of one receive comes and goes behind the first: the holes are squeezed out.
  for (uint64_t posting = 1; posting < 100000; ++posting) {
    order.insert(posting, &other);
    REQUIRE(order.erase(posting, &other));
    REQUIRE(order.held() <= 2 * order.size() + 33);
  }
  Model model{{0, &first}};
  check_same(order, model);
  // A removal of something never inserted changes nothing.
  CHECK_FALSE(order.erase(5, &other));
  CHECK_FALSE(order.erase(0, &other));
  check_same(order, model);
  CHECK(order.erase(0, &first));
  check_same(order, {});
}

TEST_CASE("posting order: out-of-order inserts and repeated posting ids", "[posting_order]") {
  std::mt19937 rng(GENERATE(7u, 8u));
  std::vector<Item> items(64);
  PostingOrder<Item> order;
  Model model;
  std::vector<std::pair<uint64_t, Item *>> live;
  for (int step = 0; step < 5000; ++step) {
    if (live.size() < items.size() && (live.empty() || rng() % 3)) {
      // Requests rebuilt by hand: any posting id, some repeated, each item at most once.
      Item *item = nullptr;
      for (Item &candidate : items) {
        bool used = false;
        for (const auto &entry : live) used |= entry.second == &candidate;
        if (!used) {
          item = &candidate;
          break;
        }
      }
      const uint64_t posting = rng() % 16;
      order.insert(posting, item);
      model.emplace(posting, item);
      live.emplace_back(posting, item);
    } else {
      const size_t k = size_t(rng() % live.size());
      CHECK(order.erase(live[k].first, live[k].second));
      model.erase({live[k].first, live[k].second});
      live.erase(live.begin() + long(k));
    }
    // Equal posting ids keep their insertion order; the model orders them by address. Compare
    // as multisets of postings, and the items of each posting as sets.
    REQUIRE(order.size() == model.size());
    std::multiset<std::pair<uint64_t, const Item *>> walked;
    uint64_t last = 0;
    for (const auto &[posting, item] : order) {
      CHECK(posting >= last);
      last = posting;
      walked.emplace(posting, item);
    }
    CHECK(std::equal(walked.begin(), walked.end(), model.begin(), model.end()));
  }
  order.clear();
  CHECK(order.empty());
  CHECK(order.begin() == order.end());
}
