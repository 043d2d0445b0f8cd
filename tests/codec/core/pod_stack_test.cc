// codec/src/memory/pod_stack.h: the validator's stacks of evaluations and slots. Checked
// against std::vector as the model under random pushes, pops, truncations and swaps, and
// for the alignment of an over-aligned element type.
#include "memory/pod_stack.h"

#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace rosetta::codec {
namespace {

struct alignas(64) Wide {
  uint32_t a;
  uint64_t b;
};

template <class S, class V>
void ExpectSame(const S& s, const V& model) {
  ASSERT_EQ(s.size(), model.size());
  ASSERT_GE(s.capacity(), s.size());
  for (size_t i = 0; i < model.size(); ++i) {
    ASSERT_EQ(s[i].a, model[i].a) << "at " << i;
    ASSERT_EQ(s[i].b, model[i].b) << "at " << i;
  }
}

TEST(PodStackTest, MatchesAVectorUnderRandomOperations) {
  std::mt19937_64 rng(7);
  PodStack<Wide> s, t;
  std::vector<Wide> model, other;
  size_t grew = 0;
  for (int step = 0; step < 200000; ++step) {
    const uint64_t op = rng() % 100;
    if (op < 60) {
      const Wide w{static_cast<uint32_t>(rng()), rng()};
      const size_t cap = s.capacity();
      s.push_back(w);
      model.push_back(w);
      if (s.capacity() != cap) {
        ++grew;
        EXPECT_GE(s.capacity(), 2 * cap);  // doubled at least: amortized constant pushes
      }
    } else if (op < 80) {
      if (!model.empty()) {
        EXPECT_EQ(s.back().b, model.back().b);
        s.pop_back();
        model.pop_back();
      }
    } else if (op < 95) {
      const size_t n = model.empty() ? 0 : rng() % (model.size() + 1);
      s.truncate(n);
      model.resize(n);
    } else if (op < 99) {
      s.swap(t);
      model.swap(other);
    } else {
      s.clear();
      model.clear();
    }
    if (step % 997 == 0) {
      ExpectSame(s, model);
      ExpectSame(t, other);
    }
  }
  ExpectSame(s, model);
  ExpectSame(t, other);
  EXPECT_GT(grew, 3u);
}

TEST(PodStackTest, ElementsKeepTheirAlignmentAcrossGrowth) {
  PodStack<Wide> s;
  for (uint32_t i = 0; i < 1000; ++i) {
    s.push_back(Wide{i, uint64_t{i} * 3});
    ASSERT_EQ(reinterpret_cast<uintptr_t>(s.data()) % alignof(Wide), 0u);
  }
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(s[i].b, uint64_t{i} * 3);
}

TEST(PodStackTest, ReserveGrowsOnlyPastTheCapacity) {
  PodStack<Wide> s;
  EXPECT_EQ(s.capacity(), 0u);
  EXPECT_TRUE(s.empty());
  s.reserve(64);
  EXPECT_EQ(s.capacity(), 64u);
  const Wide* before = s.data();
  s.reserve(10);
  EXPECT_EQ(s.capacity(), 64u);
  EXPECT_EQ(s.data(), before);
  for (uint32_t i = 0; i < 64; ++i) s.push_back(Wide{i, i});
  EXPECT_EQ(s.data(), before);  // 64 pushes into 64 reserved: no growth
  s.push_back(Wide{64, 64});
  EXPECT_EQ(s.capacity(), 128u);
  EXPECT_EQ(s[0].a, 0u);
  EXPECT_EQ(s[64].a, 64u);
}

}  // namespace
}  // namespace rosetta::codec
