// kawanet/msgpack-test-suite (../shared/data/conformance/msgpack/msgpack-test-suite.json):
// each value with every valid MessagePack encoding of it. Every encoding becomes the value
// through MessagePack -> JSON and through MessagePack -> CBOR -> MessagePack -> JSON;
// timestamps and other extension types, which have no JSON form, come back from
// MessagePack -> MessagePack as the suite's first (shortest) encoding.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance_support.h"

namespace rosetta::conformance {
namespace {

struct Encoding {
  std::string group;  // "20.number-positive.yaml"
  std::string kind;   // "nil", "bool", "binary", "number", "bignum", "string", "array", "map",
                      // "timestamp", "ext"
  nlohmann::json value;
  std::string hex;  // as in the suite: "cd-00-01"
  std::string bytes;
  std::string shortest;  // the case's first encoding, bytes
};

const std::vector<Encoding>& Encodings() {
  static const auto* encodings = [] {
    auto* out = new std::vector<Encoding>;
    nlohmann::json suite = ParseJson(rosetta::testing::ReadFile(
        DataPath("conformance/msgpack/msgpack-test-suite.json").string()));
    if (!suite.is_object()) return out;
    for (const auto& [group, cases] : suite.items()) {
      for (const auto& c : cases) {
        std::string kind;
        for (const auto& [key, unused] : c.items()) {
          if (key != "msgpack") kind = key;
        }
        const auto& hexes = c.at("msgpack");
        for (const auto& hex : hexes) {
          out->push_back({group, kind, c.at(kind), hex.get<std::string>(),
                          Unhex(hex.get<std::string>()), Unhex(hexes.at(0).get<std::string>())});
        }
      }
    }
    return out;
  }();
  return *encodings;
}

std::string Base64UrlUnpadded(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 |
                 uint8_t(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out.push_back(kAlphabet[(n >> shift) & 63]);
  }
  if (size_t rest = bytes.size() - i; rest > 0) {
    uint32_t n =
        uint32_t(uint8_t(bytes[i])) << 16 | (rest == 2 ? uint32_t(uint8_t(bytes[i + 1])) << 8 : 0);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    if (rest == 2) out.push_back(kAlphabet[(n >> 6) & 63]);
  }
  return out;
}

// The JSON value an encoding must become (DESIGN.md "Mapping between formats"): nil is
// null, binary is base64url without padding, a bignum is the exact integer.
nlohmann::json ExpectedJson(const Encoding& e) {
  if (e.kind == "nil") return nullptr;
  if (e.kind == "binary") return Base64UrlUnpadded(Unhex(e.value.get<std::string>()));
  if (e.kind == "bignum") return ParseJsonExact(e.value.get<std::string>());
  return e.value;
}

bool HasJsonForm(const Encoding& e) { return e.kind != "timestamp" && e.kind != "ext"; }

TEST(MsgpackTestSuite, SuiteHas233Encodings) {
  ASSERT_EQ(Encodings().size(), 233u)
      << "msgpack-test-suite.json not found under " << rosetta::testing::DataDir();
  std::map<std::string, int> per_kind;
  for (const auto& e : Encodings()) ++per_kind[e.kind];
  EXPECT_EQ(per_kind, (std::map<std::string, int>{{"array", 20},
                                                  {"bignum", 6},
                                                  {"binary", 9},
                                                  {"bool", 2},
                                                  {"ext", 11},
                                                  {"map", 15},
                                                  {"nil", 1},
                                                  {"number", 123},
                                                  {"string", 27},
                                                  {"timestamp", 19}}));
}

TEST(MsgpackTestSuite, EveryEncodingBecomesItsValueInJson) {
  ASSERT_EQ(Encodings().size(), 233u);
  int total = 0, equal = 0;
  for (const auto& e : Encodings()) {
    if (!HasJsonForm(e)) continue;
    ++total;
    Outcome out = Convert(Format::kMsgpack, Format::kJson, e.bytes);
    ASSERT_TRUE(out.ok()) << e.group << " " << e.hex << ": " << out.status.ToString();
    nlohmann::json expected = ExpectedJson(e);
    nlohmann::json actual = ParseJsonExact(out.out);
    EXPECT_TRUE(SameValue(expected, actual))
        << e.group << " " << e.hex << ": expected " << expected.dump() << ", got " << out.out;
    equal += SameValue(expected, actual);
  }
  EXPECT_EQ(total, 203);
  EXPECT_EQ(equal, 203);
}

TEST(MsgpackTestSuite, EveryEncodingKeepsItsValueThroughCbor) {
  ASSERT_EQ(Encodings().size(), 233u);
  int total = 0, equal = 0;
  for (const auto& e : Encodings()) {
    if (!HasJsonForm(e)) continue;
    ++total;
    Outcome cbor = Convert(Format::kMsgpack, Format::kCbor, e.bytes);
    ASSERT_TRUE(cbor.ok()) << e.group << " " << e.hex << ": " << cbor.status.ToString();
    Outcome msgpack = Convert(Format::kCbor, Format::kMsgpack, cbor.out);
    ASSERT_TRUE(msgpack.ok()) << e.group << " " << e.hex << ": " << msgpack.status.ToString()
                              << " on CBOR " << ToHex(cbor.out);
    Outcome json = Convert(Format::kMsgpack, Format::kJson, msgpack.out);
    ASSERT_TRUE(json.ok()) << e.group << " " << e.hex << ": " << json.status.ToString() << " on "
                           << ToHex(msgpack.out);
    nlohmann::json expected = ExpectedJson(e);
    nlohmann::json actual = ParseJsonExact(json.out);
    EXPECT_TRUE(SameValue(expected, actual))
        << e.group << " " << e.hex << ": expected " << expected.dump() << ", got " << json.out
        << " via CBOR " << ToHex(cbor.out);
    equal += SameValue(expected, actual);
  }
  EXPECT_EQ(total, 203);
  EXPECT_EQ(equal, 203);
}

TEST(MsgpackTestSuite, TimestampsAndExtensionsComeBackAsTheShortestEncoding) {
  ASSERT_EQ(Encodings().size(), 233u);
  int total = 0, identical = 0;
  for (const auto& e : Encodings()) {
    if (HasJsonForm(e)) continue;
    ++total;
    Outcome out = Convert(Format::kMsgpack, Format::kMsgpack, e.bytes);
    ASSERT_TRUE(out.ok()) << e.group << " " << e.hex << ": " << out.status.ToString();
    EXPECT_EQ(ToHex(out.out), ToHex(e.shortest)) << e.group << " " << e.hex;
    identical += out.out == e.shortest;
  }
  EXPECT_EQ(total, 30);
  EXPECT_EQ(identical, 30);
}

}  // namespace
}  // namespace rosetta::conformance
