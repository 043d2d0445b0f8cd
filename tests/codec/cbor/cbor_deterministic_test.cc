// Deterministic CBOR (RFC 8949 section 4.2.1): the writer's option `deterministic` (map
// entries sorted bytewise by their keys' encodings, inside out) and the reader's check
// behind `validate --deterministic` (each rule refused with not_deterministic, located).
// Expected bytes are written by hand from the RFC; the property test compares the writer
// with the plain writer's output sorted by an independent walker (support/cbor_sorted.h).
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "codec_test_support.h"
#include "support/cbor_sorted.h"

namespace rosetta::codec::testing {
namespace {

MappingOptions Deterministic() {
  MappingOptions o;
  o.deterministic = true;
  return o;
}

// ---- the writer ----

TEST(DeterministicCborWriter, TheContractExample) {
  // {"b":1,"a":[1.5,100000]}: "a" (61 61) before "b" (61 62); 1.5 as a half, 100000 in 4 bytes.
  EXPECT_OUTPUT(JsonToCbor(R"({"b":1,"a":[1.5,100000]})", {}, Deterministic()),
                "a2616182f93e001a000186a0616201");
  // Without the option the input's order is kept.
  EXPECT_OUTPUT(JsonToCbor(R"({"b":1,"a":[1.5,100000]})"), "a2616201616182f93e001a000186a0");
}

TEST(DeterministicCborWriter, ShorterEncodingsFirstNotShorterStrings) {
  // Bytewise order of the encodings: "b" is 61 62 and "aa" is 62 61 61, so "b" comes first
  // (the length is in the head), though "aa" < "b" as text.
  EXPECT_OUTPUT(JsonToCbor(R"({"aa":1,"b":2})", {}, Deterministic()),
                "a26162026261610"
                "1");
}

TEST(DeterministicCborWriter, KeysOfEveryTypeByTheirEncodings) {
  // {"z": 4, 100: 3, -1: 2, 10: 1}: 0a < 18 64 < 20 < 61 7a.
  EXPECT_OUTPUT(CborToCbor("a4617a04186403200"
                           "20a01",
                           {}, Deterministic()),
                "a40a0118640320026"
                "17a04");
  // A tagged key starts at its tag: c1 00 sorts after 00.
  EXPECT_OUTPUT(CborToCbor("a2c1006178006179", {}, Deterministic()), "a2006179c1006178");
}

TEST(DeterministicCborWriter, NestedMapsAreSortedInsideOut) {
  EXPECT_OUTPUT(JsonToCbor(R"({"z":{"y":1,"b":[{"d":1,"c":2}]},"a":0})", {}, Deterministic()),
                "a2616100617aa2616281a26163026164016179"
                "01");
}

TEST(DeterministicCborWriter, AnIndefiniteMapOfManyEntriesGetsItsLongHeadAfterSorting) {
  // 30 entries, keys 29 down to 0, in an indefinite-length map: definite, 18 1e, keys 0..29.
  std::string in = "bf", want = "b81e";
  for (int k = 29; k >= 0; --k)
    in += (k < 24 ? ToHex(std::string(1, static_cast<char>(k)))
                  : "18" + ToHex(std::string(1, static_cast<char>(k)))) +
          "f6";
  in += "ff";
  for (int k = 0; k < 30; ++k)
    want += (k < 24 ? ToHex(std::string(1, static_cast<char>(k)))
                    : "18" + ToHex(std::string(1, static_cast<char>(k)))) +
            "f6";
  EXPECT_OUTPUT(CborToCbor(in, {}, Deterministic()), want);
}

TEST(DeterministicCborWriter, DuplicateKeysAreRefusedEvenWhereAllowed) {
  MappingOptions o = Deterministic();
  o.allow_duplicate_keys = true;
  Result r = JsonToCbor(R"({"x":{"a":1,"a":2}})", {}, o);
  EXPECT_EQ(CodeName(r.status.code), "duplicate_key") << r.status.message;
  EXPECT_EQ(r.status.path, "/x");
  // The plain writer keeps them when they are allowed.
  EXPECT_TRUE(JsonToCbor(R"({"x":{"a":1,"a":2}})", {},
                         [] {
                           MappingOptions p;
                           p.allow_duplicate_keys = true;
                           return p;
                         }())
                  .status.ok());
}

TEST(DeterministicCborWriter, SortingIsChargedToTheBudget) {
  // A map of 2,000 members in reverse order: its offsets, its order and its copy are
  // charged, so a budget that the plain transcode fits is too small for the sorted one.
  std::string json = "{";
  for (int i = 1999; i >= 0; --i)
    json += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + (i ? "," : "}");
  Result plain = JsonToCbor(json);
  ASSERT_TRUE(plain.status.ok());
  Result sorted = JsonToCbor(json, {}, Deterministic());
  ASSERT_TRUE(sorted.status.ok());
  EXPECT_GT(sorted.stats.peak_bytes, plain.stats.peak_bytes);
  Limits tight;
  tight.max_alloc_bytes = plain.stats.peak_bytes;
  ASSERT_TRUE(JsonToCbor(json, tight).status.ok());
  Result refused = JsonToCbor(json, tight, Deterministic());
  EXPECT_EQ(CodeName(refused.status.code), "budget_exceeded") << refused.status.message;
}

TEST(DeterministicCborWriter, MapsNestedOutOfOrderCannotMoveABigValueOncePerLevel) {
  // {"b":{"b":{... {"b":"<1 MiB>","a":0} ...},"a":0},"a":0}, 100 levels, each out of
  // order: each level would move the big string again. Bounded by 4 x max_output_bytes.
  const std::string big(1 << 20, 'x');
  std::string json;
  for (int i = 0; i < 100; ++i) json += "{\"b\":";
  json += "\"" + big + "\"";
  for (int i = 0; i < 100; ++i) json += ",\"a\":0}";
  Limits limits;
  limits.max_output_bytes = 2 << 20;
  ASSERT_TRUE(JsonToCbor(json, limits).status.ok());
  Result r = JsonToCbor(json, limits, Deterministic());
  EXPECT_EQ(CodeName(r.status.code), "budget_exceeded") << r.status.message;
  EXPECT_NE(r.status.message.find("out of order"), std::string::npos) << r.status.message;
  // A few levels are sorted as usual.
  const std::string shallow = "{\"b\":{\"b\":\"" + big + "\",\"a\":0},\"a\":0}";
  Result ok = JsonToCbor(shallow, limits, Deterministic());
  EXPECT_TRUE(ok.status.ok()) << ok.status.message;
}

std::string RandomJson(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 2 ? 2 : 5);
  switch (kind(rng)) {
    case 0:
      return std::to_string(static_cast<int64_t>(rng()) - (1LL << 31));
    case 1:
      return "\"" + std::string(rng() % 30, static_cast<char>('a' + rng() % 26)) + "\"";
    case 2:
      return rng() % 2 ? "1.5" : "null";
    case 3: {
      std::string s = "[";
      for (int i = 0, n = static_cast<int>(rng() % 5); i < n; ++i)
        s += (i ? "," : "") + RandomJson(rng, depth + 1);
      return s + "]";
    }
    default: {
      std::string s = "{";
      const int n = static_cast<int>(rng() % 16);
      std::vector<std::string> keys;
      for (int i = 0; i < n; ++i) {
        std::string key;
        for (int j = 0, len = static_cast<int>(rng() % 28); j < len; ++j)
          key += static_cast<char>('a' + rng() % 26);
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
        keys.push_back(key);
        s += (keys.size() > 1 ? "," : "") + ("\"" + key + "\":") + RandomJson(rng, depth + 1);
      }
      return s + "}";
    }
  }
}

TEST(DeterministicCborWriter, EqualsThePlainOutputSortedByAnIndependentWalker) {
  std::mt19937 rng(20261201);
  for (int i = 0; i < 300; ++i) {
    const std::string json = "{\"doc\":" + RandomJson(rng, 0) + ",\"n\":" + std::to_string(i) + "}";
    SCOPED_TRACE(json);
    Result plain = JsonToCbor(json), det = JsonToCbor(json, {}, Deterministic());
    ASSERT_TRUE(plain.status.ok() && det.status.ok()) << det.status.message;
    const std::string bytes = Hex(plain.out);
    EXPECT_EQ(det.out, ToHex(::rosetta::testing::CborSorted(bytes)));
    // And the reader's check accepts what the writer made.
    Result check = Check(Format::kCbor, Hex(det.out), {}, Deterministic());
    EXPECT_TRUE(check.status.ok()) << check.status.message;
  }
}

// ---- the reader's check (validate --deterministic) ----

void ExpectNotDeterministic(std::string_view hex, uint64_t at, const char* path, const char* rule) {
  Result r = Check(Format::kCbor, Hex(hex), {}, Deterministic());
  EXPECT_REFUSED(r, "not_deterministic", at, path);
  EXPECT_NE(r.status.message.find(rule), std::string::npos) << r.status.message;
  // Without the option the same input is valid CBOR.
  EXPECT_TRUE(Check(Format::kCbor, Hex(hex)).status.ok()) << hex;
}

TEST(DeterministicCborCheck, EachRuleRefusedWhereItIsBroken) {
  ExpectNotDeterministic("1805", 0, "", "shortest head");          // 5 in two bytes
  ExpectNotDeterministic("8219000101", 1, "/0", "shortest head");  // 1 in three bytes
  ExpectNotDeterministic(
      "a1780161"
      "01",
      1, "", "shortest head");                               // a key's length
  ExpectNotDeterministic("d8010a", 0, "", "shortest head");  // tag 1 in two bytes
  ExpectNotDeterministic("9f01ff", 0, "", "array of indefinite length");
  ExpectNotDeterministic(
      "a1616bbf01"
      "02ff",
      3, "/k", "map of indefinite length");
  ExpectNotDeterministic("7f6161ff", 0, "", "string of indefinite length");
  ExpectNotDeterministic("fa3fc00000", 0, "", "float");          // 1.5 fits a half
  ExpectNotDeterministic("fb3ff8000000000000", 0, "", "float");  // 1.5 again
}

TEST(DeterministicCborCheck, KeysOutOfOrderAreLocatedAtTheLaterKey) {
  // {"b":1,"a":1}: "a" at byte 4 comes after "b".
  ExpectNotDeterministic("a2616201616101", 4, "/a", "increasing bytewise order");
  // {"aa":1,"b":2}: length first, so "b" must come first.
  ExpectNotDeterministic("a262616101616202", 5, "/b", "increasing bytewise order");
  // In a nested map, at its own key.
  ExpectNotDeterministic("a16178a2617a01617901", 7, "/x/y", "increasing bytewise order");
}

TEST(DeterministicCborCheck, DeterministicInputPasses) {
  for (std::string_view hex :
       {"00", "1818", "190100", "f93e00", "fa47c35000", "fb3fb999999999999a", "a2616101616202",
        "a40a0118640320026"
        "17a04",
        "a2006179c1006178", "80", "a0", "60", "40", "c11a514b67b0"}) {
    SCOPED_TRACE(hex);
    Result r = Check(Format::kCbor, Hex(hex), {}, Deterministic());
    EXPECT_TRUE(r.status.ok()) << r.status.message;
  }
}

}  // namespace
}  // namespace rosetta::codec::testing
