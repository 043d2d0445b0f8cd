// codec/src/core/key_set.h: duplicate keys per open map (RFC 7493 2.3), linear for
// small maps and hashed past them, scoped by nesting, charged to the budget; checked
// against a plain model under random nesting, inserts and closes.
#include "core/key_set.h"

#include <chrono>
#include <deque>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "core/context.h"

namespace rosetta::codec {
namespace {

// "k12" without operator+ on temporaries (GCC 12 -Wrestrict false positive).
std::string Name(const char* prefix, uint64_t i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

class KeySetTest : public ::testing::Test {
 protected:
  KeySet::Result Text(std::string_view s) { return keys_.Insert(KeyKind::kText, Keep(s)); }
  KeySet::Result Bytes(std::string_view s) { return keys_.Insert(KeyKind::kBytes, Keep(s)); }
  KeySet::Result Uint(uint64_t v) { return keys_.Insert(KeyKind::kUint, {}, v); }
  KeySet::Result NegInt(uint64_t v) { return keys_.Insert(KeyKind::kNegInt, {}, v); }
  // Keys are views that must live for the request: each gets storage of its own, so equal
  // keys are compared by content, never by address.
  std::string_view Keep(std::string_view s) { return storage_.emplace_back(s); }

  Limits limits_;
  MappingOptions options_;
  Context ctx_{limits_, options_};
  KeySet keys_{ctx_};
  std::deque<std::string> storage_;
};

TEST_F(KeySetTest, SmallMapRefusesARepeatedKey) {
  ASSERT_TRUE(keys_.Open());
  EXPECT_EQ(Text("a"), KeySet::kInserted);
  EXPECT_EQ(Text("b"), KeySet::kInserted);
  EXPECT_EQ(Text("a"), KeySet::kDuplicate);
  EXPECT_EQ(Text("ab"), KeySet::kInserted);
  EXPECT_EQ(Text("A"), KeySet::kInserted);
  EXPECT_EQ(Text(""), KeySet::kInserted);
  EXPECT_EQ(Text(""), KeySet::kDuplicate);
  keys_.Close();
}

TEST_F(KeySetTest, KeysOfDifferentKindsNeverCollide) {
  ASSERT_TRUE(keys_.Open());
  EXPECT_EQ(Text("1"), KeySet::kInserted);
  EXPECT_EQ(Bytes("1"), KeySet::kInserted);
  EXPECT_EQ(Uint(1), KeySet::kInserted);
  EXPECT_EQ(NegInt(1), KeySet::kInserted);
  EXPECT_EQ(Uint(0), KeySet::kInserted);
  EXPECT_EQ(Text(""), KeySet::kInserted);
  EXPECT_EQ(Bytes(""), KeySet::kInserted);
  EXPECT_EQ(Bytes(std::string_view("\0", 1)), KeySet::kInserted);
  EXPECT_EQ(Uint(1), KeySet::kDuplicate);
  EXPECT_EQ(NegInt(1), KeySet::kDuplicate);
  EXPECT_EQ(Bytes("1"), KeySet::kDuplicate);
  EXPECT_EQ(Bytes(""), KeySet::kDuplicate);
  EXPECT_EQ(Uint(~uint64_t{0}), KeySet::kInserted);
  EXPECT_EQ(NegInt(~uint64_t{0}), KeySet::kInserted);
  EXPECT_EQ(Uint(~uint64_t{0}), KeySet::kDuplicate);
}

// A tagged key is its tag and its content: it differs from the untagged content and from
// the same content under another tag, in a small (linear) map and a large (hashed) one.
TEST_F(KeySetTest, TaggedKeysAreTheirTagAndContent) {
  for (int filler : {0, 100}) {
    SCOPED_TRACE(filler);
    ASSERT_TRUE(keys_.Open());
    for (int i = 0; i < filler; ++i) ASSERT_EQ(Text(Name("f", i)), KeySet::kInserted);
    EXPECT_EQ(Uint(5), KeySet::kInserted);
    EXPECT_EQ(keys_.Insert(KeyKind::kTaggedUint, {}, 5, 1), KeySet::kInserted);
    EXPECT_EQ(keys_.Insert(KeyKind::kTaggedUint, {}, 5, 2), KeySet::kInserted);
    EXPECT_EQ(keys_.Insert(KeyKind::kTaggedNegInt, {}, 5, 1), KeySet::kInserted);
    EXPECT_EQ(keys_.Insert(KeyKind::kTaggedBytes, Keep("A"), 0, 1), KeySet::kInserted);
    EXPECT_EQ(keys_.Insert(KeyKind::kTaggedText, Keep("A"), 0, 1), KeySet::kInserted);
    EXPECT_EQ(Bytes("A"), KeySet::kInserted);
    EXPECT_EQ(keys_.Insert(KeyKind::kTaggedUint, {}, 5, 1), KeySet::kDuplicate);
    EXPECT_EQ(keys_.Insert(KeyKind::kTaggedUint, {}, 5, 2), KeySet::kDuplicate);
    EXPECT_EQ(keys_.Insert(KeyKind::kTaggedBytes, Keep("A"), 0, 1), KeySet::kDuplicate);
    EXPECT_EQ(keys_.Insert(KeyKind::kTaggedBytes, Keep("A"), 0, 0x6D700001), KeySet::kInserted);
    EXPECT_EQ(Uint(5), KeySet::kDuplicate);
    keys_.Close();
  }
}

TEST_F(KeySetTest, LargeMapIsHashedAndStillExact) {
  ASSERT_TRUE(keys_.Open());
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(Text(Name("k", i)), KeySet::kInserted) << i;
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(Text(Name("k", i)), KeySet::kDuplicate) << i;
  for (uint64_t i = 0; i < 5000; ++i) ASSERT_EQ(Uint(i), KeySet::kInserted) << i;
  for (uint64_t i = 0; i < 5000; ++i) ASSERT_EQ(Uint(i), KeySet::kDuplicate) << i;
  EXPECT_EQ(Text("k5000"), KeySet::kInserted);
}

TEST_F(KeySetTest, NestedMapsHaveTheirOwnKeys) {
  ASSERT_TRUE(keys_.Open());
  EXPECT_EQ(Text("a"), KeySet::kInserted);
  ASSERT_TRUE(keys_.Open());
  EXPECT_EQ(Text("a"), KeySet::kInserted);  // the same key one level down
  EXPECT_EQ(Text("a"), KeySet::kDuplicate);
  keys_.Close();
  EXPECT_EQ(Text("a"), KeySet::kDuplicate);  // the outer map still has it
  ASSERT_TRUE(keys_.Open());                 // a sibling starts empty
  EXPECT_EQ(Text("a"), KeySet::kInserted);
  keys_.Close();
  keys_.Close();
}

TEST_F(KeySetTest, ClosingAHashedChildKeepsTheHashedParentExact) {
  ASSERT_TRUE(keys_.Open());
  for (int i = 0; i < 300; ++i) ASSERT_EQ(Text(Name("p", i)), KeySet::kInserted);
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(keys_.Open());
    // The child's keys collide in content with the parent's, so their hashes share slots.
    for (int i = 0; i < 300; ++i) ASSERT_EQ(Text(Name("p", i)), KeySet::kInserted);
    for (int i = 0; i < 300; ++i) ASSERT_EQ(Text(Name("p", i)), KeySet::kDuplicate);
    keys_.Close();
  }
  for (int i = 0; i < 300; ++i) ASSERT_EQ(Text(Name("p", i)), KeySet::kDuplicate) << i;
  EXPECT_EQ(Text("p300"), KeySet::kInserted);
}

TEST_F(KeySetTest, ManyKeysAreLinearInTime) {
  // A hostile map of n keys costs O(n), not O(n^2).
  ASSERT_TRUE(keys_.Open());
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < 1000000; ++i)
    ASSERT_EQ(Uint(i * 0x9E3779B97F4A7C15ull), KeySet::kInserted);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
}

// Every map size across the switch from the linear scan to hashing (at kLinearKeys, and
// where the scan's vectors end): each key goes in once, then every one is refused, the
// first and the last included, and a fresh key still goes in.
TEST_F(KeySetTest, EveryMapSizeAroundTheLinearLimitIsExact) {
  for (int n = 1; n <= 300; ++n) {
    SCOPED_TRACE(n);
    ASSERT_TRUE(keys_.Open());
    for (int i = 0; i < n; ++i) ASSERT_EQ(Text(Name("key_", i)), KeySet::kInserted) << i;
    for (int i = n - 1; i >= 0; --i) ASSERT_EQ(Text(Name("key_", i)), KeySet::kDuplicate) << i;
    EXPECT_EQ(Text(Name("key_", n)), KeySet::kInserted);
    EXPECT_EQ(Text(Name("key_", n)), KeySet::kDuplicate);
    keys_.Close();
  }
}

// Keys of one length that share their first and last 8 bytes, and integers that differ
// only in the top bit, have one fingerprint: they are told apart by content, before and
// after the map switches to hashing.
TEST_F(KeySetTest, KeysWithOneFingerprintAreComparedByContent) {
  ASSERT_TRUE(keys_.Open());
  EXPECT_EQ(Text("profile_image_url"), KeySet::kInserted);
  EXPECT_EQ(Text("profile_background_image_url"), KeySet::kInserted);
  EXPECT_EQ(Text("profile_image_url"), KeySet::kDuplicate);
  EXPECT_EQ(Text("profile_background_image_url"), KeySet::kDuplicate);
  for (int i = 0; i < 300; ++i) {
    std::string key = "prefix__";
    key += static_cast<char>('A' + i / 26 % 26);
    key += static_cast<char>('a' + i % 26);
    key += "__suffix";
    ASSERT_EQ(Text(key), KeySet::kInserted) << i;
    ASSERT_EQ(Text(key), KeySet::kDuplicate) << i;
  }
  EXPECT_EQ(Uint(5), KeySet::kInserted);
  EXPECT_EQ(Uint(5 | uint64_t{1} << 63), KeySet::kInserted);
  EXPECT_EQ(Uint(5), KeySet::kDuplicate);
  EXPECT_EQ(Uint(5 | uint64_t{1} << 63), KeySet::kDuplicate);
  EXPECT_EQ(Text("profile_image_url"), KeySet::kDuplicate);
  keys_.Close();

  // Two keys of one fingerprint in a small map, then more keys, in a map inside it.
  ASSERT_TRUE(keys_.Open());
  EXPECT_EQ(Text("outer"), KeySet::kInserted);
  ASSERT_TRUE(keys_.Open());
  EXPECT_EQ(Uint(7), KeySet::kInserted);
  EXPECT_EQ(Uint(7 | uint64_t{1} << 63), KeySet::kInserted);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(Text(Name("k", i)), KeySet::kInserted) << i;
  EXPECT_EQ(Text("outer"), KeySet::kInserted);
  EXPECT_EQ(Uint(7 | uint64_t{1} << 63), KeySet::kDuplicate);
  EXPECT_EQ(Text("k19"), KeySet::kDuplicate);
  keys_.Close();
  EXPECT_EQ(Text("outer"), KeySet::kDuplicate);
  EXPECT_EQ(Uint(7), KeySet::kInserted);
  keys_.Close();
}

// An inner map starts at any offset in the stack of keys and scans none of the outer
// map's keys; after it closes, the outer map is exact again, linear or hashed.
TEST_F(KeySetTest, InnerMapsAtEveryOffsetSeeNoOuterKey) {
  for (int outer : {1, 3, 7, 8, 9, 15, 31, 127, 128, 129, 200}) {
    for (int inner : {1, 4, 8, 9, 17, 130}) {
      SCOPED_TRACE(testing::Message() << outer << " " << inner);
      ASSERT_TRUE(keys_.Open());
      for (int i = 0; i < outer; ++i) ASSERT_EQ(Text(Name("o", i)), KeySet::kInserted);
      ASSERT_TRUE(keys_.Open());
      for (int i = 0; i < inner; ++i) ASSERT_EQ(Text(Name("o", i)), KeySet::kInserted) << i;
      for (int i = 0; i < inner; ++i) ASSERT_EQ(Text(Name("o", i)), KeySet::kDuplicate) << i;
      keys_.Close();
      for (int i = 0; i < outer; ++i) ASSERT_EQ(Text(Name("o", i)), KeySet::kDuplicate) << i;
      for (int i = outer; i < outer + 10; ++i) ASSERT_EQ(Text(Name("o", i)), KeySet::kInserted);
      for (int i = 0; i < outer + 10; ++i) ASSERT_EQ(Text(Name("o", i)), KeySet::kDuplicate);
      keys_.Close();
    }
  }
}

TEST(KeySetBudget, GrowthPastTheBudgetIsRefusedAndRecorded) {
  Limits limits;
  limits.max_alloc_bytes = 4096;
  MappingOptions options;
  Context ctx(limits, options);
  KeySet keys(ctx);
  ASSERT_TRUE(keys.Open());
  KeySet::Result r = KeySet::kInserted;
  uint64_t i = 0;
  for (; i < 100000 && r == KeySet::kInserted; ++i) r = keys.Insert(KeyKind::kUint, {}, i);
  EXPECT_EQ(r, KeySet::kNoBudget);
  EXPECT_LT(i, 100000u);
  EXPECT_EQ(ctx.status.code, ErrorCode::kBudgetExceeded);
  EXPECT_LE(ctx.budget.peak(), 4096u);
}

// Whenever the budget refuses a key (a vector's growth, the switch to hashing, a table's
// growth), the keys already in stay in and the refused key is not in.
TEST(KeySetBudget, ARefusedKeyLeavesTheMapExact) {
  for (size_t budget = 1024; budget <= 65536; budget += 512) {
    SCOPED_TRACE(budget);
    Limits limits;
    limits.max_alloc_bytes = budget;
    MappingOptions options;
    Context ctx(limits, options);
    KeySet keys(ctx);
    std::deque<std::string> storage;
    ASSERT_TRUE(keys.Open());
    int refused = -1;
    for (int i = 0; i < 5000 && refused < 0; ++i) {
      const KeySet::Result r = keys.Insert(KeyKind::kText, storage.emplace_back(Name("key_", i)));
      if (r == KeySet::kNoBudget)
        refused = i;
      else
        ASSERT_EQ(r, KeySet::kInserted) << i;
    }
    ASSERT_GE(refused, 0);
    EXPECT_LE(ctx.budget.peak(), budget);
    for (int i = 0; i < refused; ++i) {
      ASSERT_EQ(keys.Insert(KeyKind::kText, storage.emplace_back(Name("key_", i))),
                KeySet::kDuplicate)
          << i;
    }
    EXPECT_NE(keys.Insert(KeyKind::kText, storage.emplace_back(Name("key_", refused))),
              KeySet::kDuplicate);
  }
}

// A closed inner map leaves nothing its parent's scan could match: the parent, given the
// inner map's keys after it, stays linear and takes no table (the same bytes as a parent
// that never had the inner map).
TEST(KeySetBudget, AClosedInnerMapDoesNotMakeItsParentHash) {
  Limits limits;
  MappingOptions options;
  std::deque<std::string> storage;
  auto insert = [&](KeySet& keys, const char* prefix, int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(keys.Insert(KeyKind::kText, storage.emplace_back(Name(prefix, i))),
                KeySet::kInserted);
    }
  };
  Context with_inner(limits, options);
  KeySet a(with_inner);
  ASSERT_TRUE(a.Open());
  insert(a, "o", 5);
  ASSERT_TRUE(a.Open());
  insert(a, "k", 100);
  a.Close();
  insert(a, "k", 100);
  Context without(limits, options);
  KeySet b(without);
  ASSERT_TRUE(b.Open());
  insert(b, "o", 5);
  insert(b, "k", 100);
  EXPECT_EQ(with_inner.budget.used(), without.budget.used());
}

// Keys that share their first and last 8 bytes but not their length (as twitter's user
// objects have them) have different fingerprints: their map stays linear and takes no
// table (the same bytes as a map of unrelated keys).
TEST(KeySetBudget, KeysOfDifferentLengthsKeepTheMapLinear) {
  Limits limits;
  MappingOptions options;
  std::deque<std::string> storage;
  auto used = [&](std::initializer_list<const char*> names) {
    Context ctx(limits, options);
    KeySet keys(ctx);
    EXPECT_TRUE(keys.Open());
    for (const char* name : names)
      EXPECT_EQ(keys.Insert(KeyKind::kText, storage.emplace_back(name)), KeySet::kInserted);
    keys.Close();
    return ctx.budget.used();
  };
  EXPECT_EQ(used({"profile_image_url", "profile_background_image_url", "profile_image_url_https",
                  "profile_background_image_url_https"}),
            used({"a", "b", "c", "d"}));
}

// Random nesting, inserts and closes, against one std::set per open map.
TEST(KeySetModel, AgreesWithASetPerOpenMap) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    Limits limits;
    MappingOptions options;
    Context ctx(limits, options);
    KeySet keys(ctx);
    std::deque<std::string> storage;
    std::vector<std::set<std::tuple<int, std::string, uint64_t>>> model;
    // Small alphabets make duplicates frequent; wide ones make maps grow past hashing.
    const int alphabet = static_cast<int>(rng() % 3 == 0 ? 20 : 400);
    for (int op = 0; op < 20000; ++op) {
      const uint32_t dice = rng() % 100;
      if (model.empty() || (dice < 3 && model.size() < 40)) {
        ASSERT_TRUE(keys.Open());
        model.emplace_back();
        continue;
      }
      if (dice < 6) {
        keys.Close();
        model.pop_back();
        continue;
      }
      const int kind = static_cast<int>(rng() % 4);
      const uint64_t v = rng() % alphabet;
      KeySet::Result got;
      std::tuple<int, std::string, uint64_t> key;
      if (kind < 2) {
        const std::string& s = storage.emplace_back(Name(kind == 0 ? "t" : "b", v));
        got = keys.Insert(kind == 0 ? KeyKind::kText : KeyKind::kBytes, s);
        key = {kind, s, 0};
      } else {
        got = keys.Insert(kind == 2 ? KeyKind::kUint : KeyKind::kNegInt, {}, v);
        key = {kind, "", v};
      }
      const bool fresh = model.back().insert(key).second;
      ASSERT_EQ(got, fresh ? KeySet::kInserted : KeySet::kDuplicate)
          << "op " << op << " depth " << model.size();
    }
    while (!model.empty()) {
      keys.Close();
      model.pop_back();
    }
  }
}

}  // namespace
}  // namespace rosetta::codec
