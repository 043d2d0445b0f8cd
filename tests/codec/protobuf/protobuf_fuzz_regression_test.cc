// Inputs the fuzz targets found (tests/fuzz), kept as regression tests. Each names the
// property that failed: rosetta accepted protobuf that libprotobuf refuses.
#include <gtest/gtest.h>

#include "protobuf_test_support.h"

namespace rosetta::codec {
namespace {

using namespace prototest;

// Both parsers agree: libprotobuf's verdict on the same bytes is the expectation.
void ExpectSameVerdictAsLibprotobuf(const std::string& wire, const char* code) {
  auto message = NewMessage();
  ASSERT_FALSE(message->ParseFromString(wire))
      << "libprotobuf accepts this input: the case is stale";
  Result r = Check(Format::kProtobuf, wire);
  EXPECT_EQ(CodeName(r.status.code), code) << r.status.ToString();
}

TEST(ProtobufFuzzRegression, TagVarintOfSixBytesIsRefused) {
  // fuzz_protobuf_reader: an unknown fixed32 field whose tag is a 6-byte varint.
  ExpectSameVerdictAsLibprotobuf(Hex("ed f5 ec 80 82 00") + Hex("34 02 90 02"), "syntax");
}

TEST(ProtobufFuzzRegression, ReplacedOneofMemberIsStillChecked) {
  // choice_item (malformed: a field number 0 inside), then choice_string replaces it.
  ExpectSameVerdictAsLibprotobuf(LenField(12, LenField(1, "a") + Hex("00 01")) + LenField(10, "b"),
                                 "syntax");
}

TEST(ProtobufFuzzRegression, SingularStringGivenTwiceChecksTheFirst) {
  // field_name5 = "\xe2" (invalid UTF-8), then field_name5 = "ok": the last wins, the first
  // is still invalid.
  ExpectSameVerdictAsLibprotobuf(LenField(31, "\xe2") + LenField(31, "ok"), "invalid_utf8");
}

TEST(ProtobufFuzzRegression, MapEntryKeyGivenTwiceChecksTheFirst) {
  // maps.string_string entry {1: "\xe2", 2: "v", 1: "k"}.
  const std::string entry = LenField(1, "\xe2") + LenField(2, "v") + LenField(1, "k");
  ExpectSameVerdictAsLibprotobuf(LenField(3, LenField(1, entry)), "invalid_utf8");
}

TEST(ProtobufFuzzRegression, FieldNumberZeroInsideAMapEntryIsRefused) {
  const std::string entry = LenField(1, "k") + Hex("00 01");
  ExpectSameVerdictAsLibprotobuf(LenField(3, LenField(1, entry)), "syntax");
}

TEST(ProtobufFuzzRegression, ValueKindReplacedByALaterOneIsStillChecked) {
  // maps.string_value {"k": Value}: the Value's list_value (6) is malformed (wire type 6),
  // then bool_value (4) replaces it in the oneof.
  const std::string value = LenField(6, Hex("2e b5")) + VarintField(4, 1);
  const std::string entry = LenField(1, "k") + LenField(2, value);
  ExpectSameVerdictAsLibprotobuf(LenField(3, LenField(15, entry)), "syntax");
}

}  // namespace
}  // namespace rosetta::codec
