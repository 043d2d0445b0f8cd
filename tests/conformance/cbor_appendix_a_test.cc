// RFC 8949 Appendix A (../shared/data/conformance/cbor/appendix_a.json): every example is
// read; those marked roundtrip come back byte for byte from CBOR -> CBOR; those with a
// `decoded` JSON value become that value through CBOR -> JSON (integers past 64 bits as
// the exact digits); the rest map to JSON as DESIGN.md "Mapping between formats" says.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance_support.h"

namespace rosetta::conformance {
namespace {

struct Vector {
  std::string hex;
  std::string cbor;  // bytes
  bool roundtrip = false;
  bool has_decoded = false;
  nlohmann::json decoded;  // big integers as exact digits (ParseJsonExact)
};

const std::vector<Vector>& Vectors() {
  static const auto* vectors = [] {
    auto* out = new std::vector<Vector>;
    nlohmann::json suite = ParseJsonExact(
        rosetta::testing::ReadFile(DataPath("conformance/cbor/appendix_a.json").string()));
    if (!suite.is_array()) return out;
    for (const auto& v : suite) {
      Vector vec;
      vec.hex = v.at("hex").get<std::string>();
      vec.cbor = Unhex(vec.hex);
      vec.roundtrip = v.value("roundtrip", false);
      vec.has_decoded = v.contains("decoded");
      if (vec.has_decoded) vec.decoded = v.at("decoded");
      out->push_back(std::move(vec));
    }
    return out;
  }();
  return *vectors;
}

TEST(CborAppendixA, EveryExampleIsValid) {
  ASSERT_EQ(Vectors().size(), 82u)
      << "appendix_a.json not found under " << rosetta::testing::DataDir();
  int valid = 0;
  for (const auto& v : Vectors()) {
    Status status = Check(Format::kCbor, v.cbor);
    EXPECT_TRUE(status.ok()) << v.hex << ": " << status.ToString();
    valid += status.ok();
  }
  EXPECT_EQ(valid, 82);
}

TEST(CborAppendixA, RoundtripExamplesComeBackByteForByte) {
  ASSERT_EQ(Vectors().size(), 82u);
  int total = 0, identical = 0;
  for (const auto& v : Vectors()) {
    if (!v.roundtrip) continue;
    ++total;
    Outcome out = Convert(Format::kCbor, Format::kCbor, v.cbor);
    ASSERT_TRUE(out.ok()) << v.hex << ": " << out.status.ToString();
    EXPECT_EQ(ToHex(out.out), v.hex);
    identical += out.out == v.cbor;
  }
  EXPECT_EQ(total, 65);
  EXPECT_EQ(identical, 65);
}

// The 17 examples not in preferred serialization (RFC 8949 s4.1): the writer emits the
// shortest float that keeps the value, and definite lengths for indefinite items (s3.2.3:
// the chunks of an indefinite string are joined). Expected bytes derived by hand.
TEST(CborAppendixA, OtherExamplesBecomePreferredSerialization) {
  const std::map<std::string, std::string> preferred = {
      {"fa7f800000", "f97c00"},
      {"fa7fc00000", "f97e00"},
      {"faff800000", "f9fc00"},
      {"fb7ff0000000000000", "f97c00"},
      {"fb7ff8000000000000", "f97e00"},
      {"fbfff0000000000000", "f9fc00"},
      {"5f42010243030405ff", "450102030405"},
      {"7f657374726561646d696e67ff", "6973747265616d696e67"},
      {"9fff", "80"},
      {"9f018202039f0405ffff", "8301820203820405"},
      {"9f01820203820405ff", "8301820203820405"},
      {"83018202039f0405ff", "8301820203820405"},
      {"83019f0203ff820405", "8301820203820405"},
      {"9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
       "98190102030405060708090a0b0c0d0e0f101112131415161718181819"},
      {"bf61610161629f0203ffff", "a26161016162820203"},
      {"826161bf61626163ff", "826161a161626163"},
      {"bf6346756ef563416d7421ff", "a26346756ef563416d7421"},
  };
  int total = 0, matched = 0;
  for (const auto& v : Vectors()) {
    if (v.roundtrip) continue;
    ++total;
    auto expected = preferred.find(v.hex);
    ASSERT_NE(expected, preferred.end()) << v.hex << " has no expectation";
    Outcome out = Convert(Format::kCbor, Format::kCbor, v.cbor);
    ASSERT_TRUE(out.ok()) << v.hex << ": " << out.status.ToString();
    EXPECT_EQ(ToHex(out.out), expected->second) << v.hex;
    matched += ToHex(out.out) == expected->second;
  }
  EXPECT_EQ(total, 17);
  EXPECT_EQ(matched, 17);
}

TEST(CborAppendixA, DecodedExamplesBecomeTheirJsonValue) {
  ASSERT_EQ(Vectors().size(), 82u);
  int total = 0, equal = 0, unrepresentable = 0;
  for (const auto& v : Vectors()) {
    if (!v.has_decoded) continue;
    ++total;
    Outcome out = Convert(Format::kCbor, Format::kJson, v.cbor);
    if (!out.ok()) {
      EXPECT_EQ(out.status.code, ErrorCode::kUnrepresentable)
          << v.hex << ": " << out.status.ToString();
      unrepresentable += out.status.code == ErrorCode::kUnrepresentable;
      continue;
    }
    nlohmann::json actual = ParseJsonExact(out.out);
    EXPECT_TRUE(SameValue(v.decoded, actual))
        << v.hex << ": expected " << v.decoded.dump() << ", got " << out.out;
    equal += SameValue(v.decoded, actual);
  }
  EXPECT_EQ(total, 59);
  EXPECT_EQ(equal, 59);
  EXPECT_EQ(unrepresentable, 0);
}

// The 2^64 bignums of Appendix A, by their digits: never through a double.
TEST(CborAppendixA, BignumsBecomeExactJsonIntegers) {
  const std::map<std::string, std::string> digits = {
      {"1bffffffffffffffff", "18446744073709551615"},
      {"c249010000000000000000", "18446744073709551616"},
      {"3bffffffffffffffff", "-18446744073709551616"},
      {"c349010000000000000000", "-18446744073709551617"},
  };
  for (const auto& [hex, text] : digits) {
    Outcome out = Convert(Format::kCbor, Format::kJson, Unhex(hex));
    ASSERT_TRUE(out.ok()) << hex << ": " << out.status.ToString();
    EXPECT_EQ(out.out, text) << hex;
  }
}

// The examples with no JSON value in the suite (only diagnostic notation), by DESIGN.md:
// NaN and infinities are unrepresentable (null with nonfinite_as_null); undefined and other
// simple values become null (RFC 8949 s6.1's substitute value); tags are dropped and their
// content kept (s6.1; tags 23 and 24 only advise an encoding, s3.4.5); byte strings become
// base64url without padding; integer map keys become decimal strings.
TEST(CborAppendixA, DiagnosticOnlyExamplesMapToJsonAsDesigned) {
  const std::string kUnrepresentable = "<unrepresentable>";
  const std::map<std::string, std::string> expected = {
      {"f97c00", kUnrepresentable},
      {"f97e00", kUnrepresentable},
      {"f9fc00", kUnrepresentable},
      {"fa7f800000", kUnrepresentable},
      {"fa7fc00000", kUnrepresentable},
      {"faff800000", kUnrepresentable},
      {"fb7ff0000000000000", kUnrepresentable},
      {"fb7ff8000000000000", kUnrepresentable},
      {"fbfff0000000000000", kUnrepresentable},
      {"f7", "null"},
      {"f0", "null"},
      {"f818", "null"},
      {"f8ff", "null"},
      {"c074323031332d30332d32315432303a30343a30305a", R"("2013-03-21T20:04:00Z")"},
      {"c11a514b67b0", "1363896240"},
      {"c1fb41d452d9ec200000", "1363896240.5"},
      {"d74401020304", R"("AQIDBA")"},
      {"d818456449455446", R"("ZElFVEY")"},
      {"d82076687474703a2f2f7777772e6578616d706c652e636f6d", R"("http://www.example.com")"},
      {"40", R"("")"},
      {"4401020304", R"("AQIDBA")"},
      {"a201020304", R"({"1":2,"3":4})"},
      {"5f42010243030405ff", R"("AQIDBAU")"},
  };
  MappingOptions nonfinite_as_null;
  nonfinite_as_null.nonfinite_as_null = true;
  int total = 0, matched = 0;
  for (const auto& v : Vectors()) {
    if (v.has_decoded) continue;
    ++total;
    auto want = expected.find(v.hex);
    ASSERT_NE(want, expected.end()) << v.hex << " has no expectation";
    Outcome out = Convert(Format::kCbor, Format::kJson, v.cbor);
    if (want->second == kUnrepresentable) {
      EXPECT_EQ(out.status.code, ErrorCode::kUnrepresentable)
          << v.hex << ": " << out.status.ToString();
      Outcome as_null = Convert(Format::kCbor, Format::kJson, v.cbor, nonfinite_as_null);
      EXPECT_EQ(as_null.out, "null") << v.hex << ": " << as_null.status.ToString();
      matched += out.status.code == ErrorCode::kUnrepresentable && as_null.out == "null";
      continue;
    }
    ASSERT_TRUE(out.ok()) << v.hex << ": " << out.status.ToString();
    EXPECT_TRUE(SameValue(ParseJson(want->second), ParseJson(out.out)))
        << v.hex << ": expected " << want->second << ", got " << out.out;
    matched += SameValue(ParseJson(want->second), ParseJson(out.out));
  }
  EXPECT_EQ(total, 23);
  EXPECT_EQ(matched, 23);
}

}  // namespace
}  // namespace rosetta::conformance
