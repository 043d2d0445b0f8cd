// Hostile protobuf input: each test is named for the attack it stops, asserts the error
// code, and (for a claim) that nothing near the claim was charged or asked of the heap.
#include <gtest/gtest.h>

#include "protobuf_test_support.h"

namespace rosetta::codec {
namespace {

using namespace prototest;

constexpr uint64_t k4GiB = 0xffffffffull;
constexpr uint64_t kHuge = 1ull << 62;

// A length-delimited field header (tag + length) claiming `claim` bytes, with nothing behind.
std::string Claim(uint32_t number, uint64_t claim) { return Tag(number, 2) + Varint(claim); }

// --- length claims beyond the bytes left -------------------------------------------------------

TEST(ProtobufHostileTest, StringFieldClaimingFourGibibytes) {
  std::string input = Claim(31, k4GiB) + "abc";  // field_name5
  Result r = ToJson(input);
  EXPECT_PB_REFUSED(r, "truncated", 0, "");
  EXPECT_NOTHING_ALLOCATED_FOR(r, k4GiB);
}

TEST(ProtobufHostileTest, BytesFieldClaimingTwoToTheSixtySecond) {
  std::string input = LenField(1, "") + Claim(1, kHuge);
  Result r = ToJson(input);
  EXPECT_PB_REFUSED(r, "truncated", 2, "");
  EXPECT_NOTHING_ALLOCATED_FOR(r, kHuge);
  EXPECT_PB_REFUSED(Check(Format::kProtobuf, input), "truncated", 2, "");
}

TEST(ProtobufHostileTest, NestedMessageClaimingFourGibibytes) {
  Result r = ToJson(Claim(1, k4GiB) + std::string(20, '\0'));
  EXPECT_PB_REFUSED(r, "truncated", 0, "");
  EXPECT_NOTHING_ALLOCATED_FOR(r, k4GiB);
}

TEST(ProtobufHostileTest, FieldClaimingPastItsMessageButWithinTheInput) {
  // scalars is 5 bytes long; inside it, f_string claims 100000: the bytes after scalars
  // (an unknown field of 200000) are not its own, though a check against the input alone
  // would let them pass.
  std::string input = Tag(1, 2) + Varint(5) + Tag(14, 2) + Varint(100000) + "x" +
                      LenField(100, std::string(200000, 'y'));
  Result r = ToJson(input);
  EXPECT_PB_REFUSED(r, "truncated", 2, "/scalars");
  EXPECT_NOTHING_ALLOCATED_FOR(r, 100000);
}

TEST(ProtobufHostileTest, NestedMessageInsideNestedMessageClaimingFourGibibytes) {
  std::string inner = Claim(5, k4GiB);     // Item.child
  std::string input = LenField(5, inner);  // Test.items
  Result r = ToJson(input);
  EXPECT_PB_REFUSED(r, "truncated", 2, "/items/0");
  EXPECT_NOTHING_ALLOCATED_FOR(r, k4GiB);
}

TEST(ProtobufHostileTest, PackedFieldClaimingFourGibibytes) {
  Result r = ToJson(LenField(2, Claim(3, k4GiB)));  // repeateds.p_int32
  EXPECT_PB_REFUSED(r, "truncated", 2, "/repeateds");
  EXPECT_NOTHING_ALLOCATED_FOR(r, k4GiB);
}

TEST(ProtobufHostileTest, PackedVarintsCutInTheMiddle) {
  Result r = ToJson(LenField(3, Hex("01 80")), "rosetta.test.Repeateds");
  EXPECT_PB_REFUSED(r, "truncated", 4, "/pInt32/1");
}

TEST(ProtobufHostileTest, PackedFixedRunNotAWholeNumberOfElements) {
  Result r = ToJson(LenField(10, std::string(9, '\1')), "rosetta.test.Repeateds");  // p_fixed64
  EXPECT_EQ(CodeName(r.status.code), "truncated") << r.status.message;
}

TEST(ProtobufHostileTest, MapEntryClaimingFourGibibytes) {
  Result r = ToJson(LenField(3, Claim(1, k4GiB)));  // maps.string_string
  EXPECT_PB_REFUSED(r, "truncated", 2, "/maps");
  EXPECT_NOTHING_ALLOCATED_FOR(r, k4GiB);
}

TEST(ProtobufHostileTest, MapKeyClaimingPastItsEntry) {
  // An entry of 5 bytes whose key claims 100000; what follows the entry is not its own.
  std::string entry = Tag(1, 2) + Varint(100000) + "k";
  Result r =
      ToJson(LenField(1, entry) + LenField(100, std::string(200000, 'k')), "rosetta.test.Maps");
  EXPECT_PB_REFUSED(r, "truncated", 2, "/stringString");
  EXPECT_NOTHING_ALLOCATED_FOR(r, 100000);
}

TEST(ProtobufHostileTest, MapValueMessageClaimingFourGibibytes) {
  std::string entry = LenField(1, "k") + Claim(2, k4GiB);
  Result r = ToJson(LenField(13, entry), "rosetta.test.Maps");  // string_item
  EXPECT_EQ(CodeName(r.status.code), "truncated") << r.status.message;
  EXPECT_NOTHING_ALLOCATED_FOR(r, k4GiB);
}

TEST(ProtobufHostileTest, AnyValueClaimingFourGibibytes) {
  std::string any = LenField(1, "type.googleapis.com/rosetta.test.Item") + Claim(2, k4GiB);
  Result r = ToJson(LenField(17, any), "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "truncated") << r.status.message;
  EXPECT_NOTHING_ALLOCATED_FOR(r, k4GiB);
}

TEST(ProtobufHostileTest, FixedSizeFieldsCutShort) {
  EXPECT_PB_REFUSED(ToJson(LenField(1, Tag(1, 1) + "1234567")), "truncated", 2, "/scalars");
  EXPECT_PB_REFUSED(ToJson(LenField(1, Tag(2, 5) + "123")), "truncated", 2, "/scalars");
}

// --- varints ------------------------------------------------------------------------------

TEST(ProtobufHostileTest, VarintLongerThanTenBytes) {
  Result r = ToJson(LenField(1, Hex("18 80 80 80 80 80 80 80 80 80 80 01")));
  EXPECT_EQ(CodeName(r.status.code), "syntax") << r.status.message;
  EXPECT_EQ(r.status.path, "/scalars");
}

TEST(ProtobufHostileTest, VarintOverflowingSixtyFourBits) {
  Result r = ToJson(LenField(1, Hex("20 ff ff ff ff ff ff ff ff ff 02")));
  EXPECT_PB_REFUSED(r, "syntax", 12, "/scalars");
}

TEST(ProtobufHostileTest, TagVarintOverflowing) {
  EXPECT_EQ(CodeName(ToJson(Hex("ff ff ff ff ff ff ff ff ff 7f 00")).status.code), "syntax");
}

TEST(ProtobufHostileTest, LengthVarintOverflowing) {
  Result r = ToJson(Hex("0a ff ff ff ff ff ff ff ff ff 7f"));
  EXPECT_EQ(CodeName(r.status.code), "syntax") << r.status.message;
  EXPECT_NOTHING_ALLOCATED_FOR(r, k4GiB);
}

TEST(ProtobufHostileTest, VarintCutAtTheEnd) {
  EXPECT_PB_REFUSED(ToJson(Hex("f0 01 80")), "truncated", 3, "");
  EXPECT_PB_REFUSED(ToJson(Hex("f0")), "truncated", 1, "");
}

// --- tags and wire types ----------------------------------------------------------------------

TEST(ProtobufHostileTest, WrongWireTypeForAField) {
  // f_int32 (varint) given as fixed32; f_string (LEN) given as a varint; a message as fixed64.
  EXPECT_PB_REFUSED(ToJson(LenField(1, Fixed32Field(3, 1))), "schema_mismatch", 2, "/scalars");
  EXPECT_PB_REFUSED(ToJson(LenField(1, VarintField(14, 1))), "schema_mismatch", 2, "/scalars");
  EXPECT_PB_REFUSED(ToJson(Fixed64Field(1, 1)), "schema_mismatch", 0, "");
  // A non-packable repeated field (strings) given as a varint.
  EXPECT_PB_REFUSED(ToJson(VarintField(40, 1), "rosetta.test.Repeateds"), "schema_mismatch", 0, "");
  // A map entry's key with the wrong wire type.
  EXPECT_EQ(CodeName(ToJson(LenField(1, VarintField(1, 1)), "rosetta.test.Maps").status.code),
            "schema_mismatch");
}

TEST(ProtobufHostileTest, WireTypesSixAndSevenAreSyntaxErrors) {
  EXPECT_PB_REFUSED(ToJson(Hex("0e")), "syntax", 0, "");
  EXPECT_PB_REFUSED(ToJson(Hex("0f")), "syntax", 0, "");
}

TEST(ProtobufHostileTest, FieldNumberZeroIsASyntaxError) {
  EXPECT_PB_REFUSED(ToJson(Hex("00 01")), "syntax", 0, "");
  EXPECT_PB_REFUSED(ToJson(Hex("02 00")), "syntax", 0, "");
}

TEST(ProtobufHostileTest, GroupsAreUnsupported) {
  EXPECT_PB_REFUSED(ToJson(Hex("0b 0c")), "unsupported", 0, "");  // start group, field 1
  EXPECT_PB_REFUSED(ToJson(Hex("a3 06 a4 06")), "unsupported", 0,
                    "");                                       // an unknown field 100 as a group
  EXPECT_PB_REFUSED(ToJson(Hex("0c")), "unsupported", 0, "");  // a stray end group
  EXPECT_PB_REFUSED(ToJson(LenField(1, Hex("0b"))), "unsupported", 2, "/scalars");
  EXPECT_EQ(CodeName(ToJson(LenField(1, Hex("0b")), "rosetta.test.Maps").status.code),
            "unsupported");  // in a map entry
}

// --- nesting ---------------------------------------------------------------------------------

// Test.child nested n deep, built inside out.
std::string NestedChildren(int n) {
  std::string wire = Wire("renamed: 1");
  for (int i = 0; i < n; ++i) wire = LenField(6, wire);
  return wire;
}

TEST(ProtobufHostileTest, NestingPastMaxDepthFromProtobuf) {
  Result r = ToJson(NestedChildren(200));
  EXPECT_EQ(CodeName(r.status.code), "depth_exceeded") << r.status.message;
  EXPECT_LT(r.stats.peak_bytes, 64u * 1024);  // the levels it read, no more
  EXPECT_EQ(CodeName(ToJson(NestedChildren(10), kTest, {}, MaxDepth(10)).status.code),
            "depth_exceeded");
  EXPECT_TRUE(ToJson(NestedChildren(9), kTest, {}, MaxDepth(10)).status.ok());
  EXPECT_EQ(CodeName(Check(Format::kProtobuf, NestedChildren(200)).status.code), "depth_exceeded");
  EXPECT_EQ(CodeName(Convert(Format::kProtobuf, Format::kCbor, NestedChildren(200)).status.code),
            "depth_exceeded");
}

TEST(ProtobufHostileTest, NestingIsCappedWhateverMaxDepthSays) {
  // The reader recurses per nested message: 512 levels at most, even with max_depth 100000.
  Result r = ToJson(NestedChildren(600), kTest, {}, MaxDepth(100000));
  EXPECT_EQ(CodeName(r.status.code), "depth_exceeded") << r.status.message;
  EXPECT_TRUE(ToJson(NestedChildren(500), kTest, {}, MaxDepth(100000)).status.ok());
}

TEST(ProtobufHostileTest, NestingThroughValuesAndListsPastMaxDepth) {
  // google.protobuf.Value { list_value { values { list_value { ... } } } }
  std::string value = VarintField(4, 1);  // bool_value: true
  for (int i = 0; i < 300; ++i) value = LenField(6, LenField(1, value));
  Result r = ToJson(LenField(13, value), "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "depth_exceeded") << r.status.message;
}

TEST(ProtobufHostileTest, NestingThroughAnyPastMaxDepth) {
  std::string any = "";
  for (int i = 0; i < 300; ++i)
    any = LenField(1, "type.googleapis.com/google.protobuf.Any") + LenField(2, any);
  Result r = ToJson(LenField(17, any), "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "depth_exceeded") << r.status.message;
}

std::string NestedJson(int n) {
  std::string json;
  for (int i = 0; i < n; ++i) json += R"({"child":)";
  json += "{}";
  for (int i = 0; i < n; ++i) json += "}";
  return json;
}

TEST(ProtobufHostileTest, NestingPastMaxDepthIntoProtobuf) {
  Result r = FromJson(NestedJson(200));
  EXPECT_EQ(CodeName(r.status.code), "depth_exceeded") << r.status.message;
  EXPECT_EQ(CodeName(FromJson(NestedJson(10), kTest, {}, MaxDepth(10)).status.code),
            "depth_exceeded");
  EXPECT_TRUE(FromJson(NestedJson(9), kTest, {}, MaxDepth(10)).status.ok());
  // The same nesting as CBOR: {"child": {"child": ...}}
  std::string cbor;
  for (int i = 0; i < 200; ++i) cbor += Hex("a1 65 63 68 69 6c 64");
  cbor += Hex("a0");
  EXPECT_EQ(CodeName(Convert(Format::kCbor, Format::kProtobuf, cbor).status.code),
            "depth_exceeded");
}

TEST(ProtobufHostileTest, NestingPastMaxDepthInsideABufferedAny) {
  std::string inner = NestedJson(200);
  std::string json =
      R"({"any":{"child":)" + inner + R"(,"@type":"type.googleapis.com/rosetta.test.Test"}})";
  Result r = FromJson(json, "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "depth_exceeded") << r.status.message;
  // Within max_depth overall, it passes.
  json = R"({"any":{"child":)" + NestedJson(100) +
         R"(,"@type":"type.googleapis.com/rosetta.test.Test"}})";
  r = FromJson(json, "rosetta.test.WellKnown");
  EXPECT_TRUE(r.status.ok()) << r.status.message;
}

// --- UTF-8 --------------------------------------------------------------------------------------

TEST(ProtobufHostileTest, InvalidUtf8InAStringField) {
  Result r = ToJson(LenField(1, LenField(14, "ok\xff")));
  EXPECT_PB_REFUSED(r, "invalid_utf8", 4, "/scalars/fString");
  EXPECT_PB_REFUSED(Check(Format::kProtobuf, LenField(1, LenField(14, "ok\xff"))), "invalid_utf8",
                    4, "/scalars/fString");
  // Overlong encodings and surrogates are invalid too.
  EXPECT_EQ(CodeName(ToJson(LenField(31, "\xc0\xaf")).status.code), "invalid_utf8");
  EXPECT_EQ(CodeName(ToJson(LenField(31, "\xed\xa0\x80")).status.code), "invalid_utf8");
  // Into CBOR as well: every format's text is UTF-8.
  EXPECT_EQ(CodeName(Convert(Format::kProtobuf, Format::kCbor, LenField(31, "\xff")).status.code),
            "invalid_utf8");
}

TEST(ProtobufHostileTest, InvalidUtf8InARepeatedStringAndAStringValue) {
  EXPECT_EQ(
      CodeName(
          ToJson(LenField(40, "a") + LenField(40, "\x80"), "rosetta.test.Repeateds").status.code),
      "invalid_utf8");
  EXPECT_EQ(
      CodeName(ToJson(LenField(10, LenField(1, "\xfe")), "rosetta.test.WellKnown").status.code),
      "invalid_utf8");
}

TEST(ProtobufHostileTest, InvalidUtf8InAMapKey) {
  std::string entry = LenField(1, "k\xff") + LenField(2, "v");
  Result r = ToJson(LenField(1, entry), "rosetta.test.Maps");
  EXPECT_EQ(CodeName(r.status.code), "invalid_utf8") << r.status.message;
  EXPECT_EQ(r.status.path, "/stringString");
  // A Struct's keys are map keys too.
  std::string field = LenField(1, "\xc3") + LenField(2, VarintField(4, 1));
  EXPECT_EQ(
      CodeName(ToJson(LenField(12, LenField(1, field)), "rosetta.test.WellKnown").status.code),
      "invalid_utf8");
}

TEST(ProtobufHostileTest, InvalidUtf8InAMapValue) {
  std::string entry = LenField(1, "k") + LenField(2, "v\xff");
  Result r = ToJson(LenField(1, entry), "rosetta.test.Maps");
  EXPECT_EQ(CodeName(r.status.code), "invalid_utf8") << r.status.message;
  EXPECT_EQ(r.status.path, "/stringString/k");
}

TEST(ProtobufHostileTest, InvalidUtf8InAFieldMaskPath) {
  Result r = ToJson(LenField(15, LenField(1, "foo\xff")), "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "invalid_utf8") << r.status.message;
}

TEST(ProtobufHostileTest, FieldMaskPathWithoutACamelCaseFormIsUnrepresentable) {
  // Written as "foo1" or "fooBar", these would come back as other paths.
  for (const char* path : {"foo_1", "foo__bar", "foo_", "fooBar", "a.b_"}) {
    Result r = ToJson(LenField(15, LenField(1, path)), "rosetta.test.WellKnown");
    EXPECT_EQ(CodeName(r.status.code), "unrepresentable") << path;
  }
}

TEST(ProtobufHostileTest, InvalidUtf8InAnAnyTypeUrl) {
  std::string any = LenField(1, "type.googleapis.com/\xff") + LenField(2, "");
  Result r = ToJson(LenField(17, any), "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "invalid_utf8") << r.status.message;
}

// --- counts and budgets ------------------------------------------------------------------------

TEST(ProtobufHostileTest, RepeatedFieldPastMaxItems) {
  Limits l;
  l.max_items = 100;
  std::string packed(101, '\1');
  Result r = ToJson(LenField(3, packed), "rosetta.test.Repeateds", {}, l);
  EXPECT_PB_REFUSED(r, "too_many_items", 2, "/pInt32");
  std::string unpacked;
  for (int i = 0; i < 101; ++i) unpacked += LenField(40, "s");
  EXPECT_EQ(CodeName(ToJson(unpacked, "rosetta.test.Repeateds", {}, l).status.code),
            "too_many_items");
  EXPECT_TRUE(
      ToJson(LenField(3, std::string(100, '\1')), "rosetta.test.Repeateds", {}, l).status.ok());
}

TEST(ProtobufHostileTest, MapPastMaxItems) {
  Limits l;
  l.max_items = 10;
  std::string wire;
  for (int i = 0; i < 11; ++i) wire += LenField(3, VarintField(1, static_cast<uint64_t>(i)));
  EXPECT_EQ(CodeName(ToJson(wire, "rosetta.test.Maps", {}, l).status.code), "too_many_items");
}

TEST(ProtobufHostileTest, StringPastMaxStringBytes) {
  Limits l;
  l.max_string_bytes = 4;
  EXPECT_PB_REFUSED(ToJson(LenField(31, "12345"), kTest, {}, l), "string_too_large", 3,
                    "/fieldName5");
  EXPECT_EQ(CodeName(ToJson(LenField(1, LenField(1, "12345") + LenField(2, "v")),
                            "rosetta.test.Maps", {}, l)
                         .status.code),
            "string_too_large");
}

TEST(ProtobufHostileTest, ManyOccurrencesAreChargedToTheBudget) {
  // Every field occurrence takes an index entry: 100000 of them are refused under a
  // small budget instead of growing past it.
  std::string wire;
  for (int i = 0; i < 100000; ++i) wire += VarintField(30, 1);
  Limits l;
  l.max_alloc_bytes = 64 * 1024;
  Result r = ToJson(wire, kTest, {}, l);
  EXPECT_EQ(CodeName(r.status.code), "budget_exceeded") << r.status.message;
  EXPECT_LE(r.stats.peak_bytes, l.max_alloc_bytes);
  EXPECT_TRUE(ToJson(wire).status.ok());
}

TEST(ProtobufHostileTest, BufferedAnyIsChargedToTheBudget) {
  std::string json = R"({"any":{"name":")" + std::string(100000, 'x') +
                     R"(","@type":"type.googleapis.com/rosetta.test.Item"}})";
  Limits l;
  l.max_alloc_bytes = 64 * 1024;
  Result r = FromJson(json, "rosetta.test.WellKnown", {}, l);
  EXPECT_EQ(CodeName(r.status.code), "budget_exceeded") << r.status.message;
  EXPECT_TRUE(FromJson(json, "rosetta.test.WellKnown").status.ok());
}

TEST(ProtobufHostileTest, OutputPastMaxOutputBytes) {
  Limits l;
  l.max_output_bytes = 64;
  EXPECT_EQ(CodeName(ToJson(LenField(31, std::string(100, 'x')), kTest, {}, l).status.code),
            "output_too_large");
  EXPECT_EQ(
      CodeName(
          FromJson(R"({"fieldName5":")" + std::string(100, 'x') + "\"}", kTest, {}, l).status.code),
      "output_too_large");
}

// --- every prefix of a valid message ------------------------------------------------------------

TEST(ProtobufHostileTest, EveryPrefixOfAValidMessageIsReadOrRefusedCleanly) {
  std::string wire = Wire(R"(scalars { f_double: 1.5 f_int64: -1 f_string: "text" f_fixed32: 7 }
                             repeateds { p_int32: [1, 300, -1] u_fixed64: [5, 6] r_item { name: "x" } }
                             maps { string_item { key: "k" value { name: "v" } } int64_bytes { key: -1 value: "b" } }
                             well_known { timestamp { seconds: 5 } any { [type.googleapis.com/rosetta.test.Item] { name: "a" } }
                                          struct_value { fields { key: "s" value { list_value { values { number_value: 1 } } } } } }
                             choice_string: "c" opt_int32: 0)");
  ASSERT_TRUE(ToJson(wire).status.ok());
  int refused = 0;
  for (size_t n = 0; n < wire.size(); ++n) {
    Result r = ToJson(wire.substr(0, n));
    if (!r.status.ok()) {
      ++refused;
      EXPECT_TRUE(r.status.code == ErrorCode::kTruncated ||
                  r.status.code == ErrorCode::kSchemaMismatch ||
                  r.status.code == ErrorCode::kInvalidUtf8 ||
                  r.status.code == ErrorCode::kUnknownMessageType)
          << n << ": " << CodeName(r.status.code) << " " << r.status.message;
      EXPECT_LE(r.status.offset, n);
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace rosetta::codec
