// The protobuf writer: events shaped by the proto3 JSON mapping -> wire format, from JSON,
// CBOR and MessagePack. Outputs are checked against what libprotobuf serializes for the
// same message (exact bytes where the member order is the field order, else parsed back
// by libprotobuf and compared as text format).
#include <gtest/gtest.h>

#include "protobuf_test_support.h"

namespace rosetta::codec {
namespace {

using namespace prototest;

// Output bytes as hex, or the error.
std::string HexOf(const Result& r) {
  if (!r.status.ok())
    return std::string("error: ") + std::string(CodeName(r.status.code)) + " " + r.status.message;
  return ToHex(r.out);
}
// Output parsed back by libprotobuf, as text format (or the error).
std::string TextOf(const Result& r, std::string_view type = kTest) {
  if (!r.status.ok())
    return std::string("error: ") + std::string(CodeName(r.status.code)) + " " + r.status.message;
  return Text(r.out, type);
}
std::string Expected(std::string_view text, std::string_view type = kTest) {
  return Text(Wire(text, type), type);
}
// Concatenation without operator+ chains (GCC 12 warns falsely on those, -Wrestrict).
std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

// --- scalars --------------------------------------------------------------------------------

TEST(ProtobufWriterTest, EveryScalarTypeMatchesLibprotobufBytes) {
  Result r = FromJson(
      R"({"scalars":{"fDouble":1.5,"fFloat":0.1,"fInt32":-5,"fInt64":"-9007199254740993",)"
      R"("fUint32":4294967295,"fUint64":"18446744073709551615","fSint32":-2147483648,)"
      R"("fSint64":"-9223372036854775808","fFixed32":7,"fFixed64":"18446744073709551615",)"
      R"("fSfixed32":-7,"fSfixed64":"-9223372036854775808","fBool":true,"fString":"héllo",)"
      R"("fBytes":"AP/+","fEnum":"BLUE"}})");
  EXPECT_EQ(HexOf(r), ToHex(Wire(R"(scalars {
    f_double: 1.5 f_float: 0.1 f_int32: -5 f_int64: -9007199254740993 f_uint32: 4294967295
    f_uint64: 18446744073709551615 f_sint32: -2147483648 f_sint64: -9223372036854775808
    f_fixed32: 7 f_fixed64: 18446744073709551615 f_sfixed32: -7 f_sfixed64: -9223372036854775808
    f_bool: true f_string: "h\303\251llo" f_bytes: "\000\377\376" f_enum: BLUE })")));
}

TEST(ProtobufWriterTest, IntegersAsNumbersOrStrings) {
  std::string expected = ToHex(
      Wire("scalars { f_int32: -5 f_int64: 123 f_uint64: 18446744073709551615 f_sint64: -1 }"));
  EXPECT_EQ(
      HexOf(FromJson(
          R"({"scalars":{"fInt32":-5,"fInt64":123,"fUint64":18446744073709551615,"fSint64":-1}})")),
      expected);
  EXPECT_EQ(
      HexOf(FromJson(
          R"({"scalars":{"fInt32":"-5","fInt64":"123","fUint64":"18446744073709551615","fSint64":"-1"}})")),
      expected);
  // Integral numbers in exponent or fraction form are accepted.
  EXPECT_EQ(
      HexOf(FromJson(
          R"({"scalars":{"fInt32":-5.0,"fInt64":1.23e2,"fUint64":"18446744073709551615","fSint64":"-1e0"}})")),
      expected);
}

TEST(ProtobufWriterTest, IntegerOutOfRangeOrFractionalIsASchemaMismatch) {
  // The offset is the value's: {"scalars":{"fInt32": is 21 bytes.
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fInt32":2147483648}})"), "schema_mismatch", 21,
                    "/scalars/fInt32");
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fInt32":-2147483649}})"), "schema_mismatch", 21,
                    "/scalars/fInt32");
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fUint32":-1}})"), "schema_mismatch", 22,
                    "/scalars/fUint32");
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fUint64":"-1"}})"), "schema_mismatch", 22,
                    "/scalars/fUint64");
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fInt64":"9223372036854775808"}})"), "schema_mismatch",
                    21, "/scalars/fInt64");
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fInt32":1.5}})"), "schema_mismatch", 21,
                    "/scalars/fInt32");
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fInt32":"1x"}})"), "schema_mismatch", 21,
                    "/scalars/fInt32");
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fInt32":true}})"), "schema_mismatch", 21,
                    "/scalars/fInt32");
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fInt32":""}})"), "schema_mismatch", 21,
                    "/scalars/fInt32");
}

TEST(ProtobufWriterTest, IntegerBeyondSixtyFourBitsIsUnrepresentableInAnIntegerField) {
  // JSON integers past 64 bits travel as bignums (CBOR tags 2 and 3).
  Result r = FromJson(R"({"scalars":{"fUint64":18446744073709551616}})");
  EXPECT_EQ(CodeName(r.status.code), "unrepresentable") << r.status.message;
  EXPECT_EQ(r.status.path, "/scalars/fUint64");
  r = FromJson(R"({"scalars":{"fInt64":-9223372036854775809}})");
  EXPECT_EQ(CodeName(r.status.code), "schema_mismatch")
      << r.status.message;  // in 64 bits, out of int64's range
  r = FromJson(R"({"scalars":{"fSint64":-18446744073709551617}})");
  EXPECT_EQ(CodeName(r.status.code), "unrepresentable") << r.status.message;
}

TEST(ProtobufWriterTest, IntegerBeyondSixtyFourBitsIsANumberInAFloatingPointField) {
  EXPECT_EQ(
      TextOf(FromJson(
          R"({"scalars":{"fDouble":100000000000000000000000,"fFloat":-18446744073709551617}})")),
      Expected("scalars { f_double: 1e23 f_float: -1.8446744e19 }"));
  EXPECT_EQ(
      TextOf(FromJson(R"({"value":123456789012345678901234567890})", "rosetta.test.WellKnown"),
             "rosetta.test.WellKnown"),
      Expected("value { number_value: 1.2345678901234568e29 }", "rosetta.test.WellKnown"));
  // Rounded as the exact value is: 2^64 + 2^11 + 1 lies just above a midpoint.
  EXPECT_EQ(TextOf(FromJson(R"({"scalars":{"fDouble":18446744073709553665}})")),
            Expected("scalars { f_double: 18446744073709555712 }"));
  EXPECT_EQ(TextOf(FromJson(R"({"scalars":{"fDouble":18446744073709553664}})")),
            Expected("scalars { f_double: 18446744073709551616 }"));
  EXPECT_EQ(TextOf(FromJson(R"({"scalars":{"fDouble":-18446744073709553665}})")),
            Expected("scalars { f_double: -18446744073709555712 }"));
  // Past the range of a double: unrepresentable.
  Result r = FromJson(R"({"scalars":{"fDouble":)" + std::string(400, '9') + "}}");
  EXPECT_EQ(CodeName(r.status.code), "unrepresentable") << r.status.message;
}

TEST(ProtobufWriterTest, BignumThatFitsSixtyFourBitsIsAnInteger) {
  // CBOR {"scalars": {"fUint64": 2(h'00ff'), "fInt64": 3(h'04')}}: non-preferred bignums.
  std::string cbor =
      Hex("a1 67 73 63 61 6c 61 72 73 a2 67 66 55 69 6e 74 36 34 c2 42 00 ff 66 66 49 6e 74 36 34 "
          "c3 41 04");
  EXPECT_EQ(TextOf(Convert(Format::kCbor, Format::kProtobuf, cbor)),
            Expected("scalars { f_int64: -5 f_uint64: 255 }"));
}

TEST(ProtobufWriterTest, FloatingPointFromNumbersAndStrings) {
  EXPECT_EQ(TextOf(FromJson(R"({"scalars":{"fDouble":"NaN","fFloat":"-Infinity"}})")),
            Expected("scalars { f_double: nan f_float: -inf }"));
  EXPECT_EQ(TextOf(FromJson(R"({"scalars":{"fDouble":"Infinity","fFloat":"1.5"}})")),
            Expected("scalars { f_double: inf f_float: 1.5 }"));
  EXPECT_EQ(TextOf(FromJson(R"({"scalars":{"fDouble":1e308,"fFloat":-7}})")),
            Expected("scalars { f_double: 1e308 f_float: -7 }"));
  // Only proto3 JSON's spellings of the non-finite values.
  for (const char* spelling : {"nan", "inf", "-inf", "infinity", "1e999"}) {
    EXPECT_EQ(CodeName(FromJson(Cat({R"({"scalars":{"fDouble":")", spelling, "\"}}"})).status.code),
              "schema_mismatch")
        << spelling;
  }
}

TEST(ProtobufWriterTest, FloatRangeIsTheFloatsOwn) {
  // The largest float as printed (shortest round trip) rounds to it: accepted.
  EXPECT_EQ(TextOf(FromJson(R"({"scalars":{"fFloat":3.4028235e38}})")),
            Expected("scalars { f_float: 3.4028234663852886e38 }"));
  EXPECT_EQ(TextOf(FromJson(R"({"scalars":{"fFloat":-3.40282347e+38}})")),
            Expected("scalars { f_float: -3.4028234663852886e38 }"));
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fFloat":3.4028236e38}})"), "schema_mismatch", 21,
                    "/scalars/fFloat");
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fFloat":-1e39}})"), "schema_mismatch", 21,
                    "/scalars/fFloat");
}

TEST(ProtobufWriterTest, BytesFromStandardOrUrlBase64WithOrWithoutPadding) {
  std::string expected = ToHex(Wire(R"(scalars { f_bytes: "\000\377\376\373" })"));
  for (const char* b64 : {"AP/++w==", "AP_--w==", "AP/++w", "AP_--w"}) {
    EXPECT_EQ(HexOf(FromJson(Cat({R"({"scalars":{"fBytes":")", b64, "\"}}"}))), expected) << b64;
  }
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"fBytes":""}})")), "0a 00");
}

TEST(ProtobufWriterTest, InvalidBase64IsASchemaMismatch) {
  for (const char* b64 : {"A", "AP/+*w==", "AP/++w===", "A===", "AP/+ +w=="}) {
    Result r = FromJson(Cat({R"({"scalars":{"fBytes":")", b64, "\"}}"}));
    EXPECT_EQ(CodeName(r.status.code), "schema_mismatch") << b64;
    EXPECT_EQ(r.status.path, "/scalars/fBytes") << b64;
  }
}

TEST(ProtobufWriterTest, EnumsByNameOrNumber) {
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"fEnum":"BLUE"}})")),
            ToHex(Wire("scalars { f_enum: BLUE }")));
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"fEnum":3}})")), ToHex(Wire("scalars { f_enum: BLUE }")));
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"fEnum":"INFRARED"}})")),
            ToHex(Wire("scalars { f_enum: INFRARED }")));
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"fEnum":-1}})")),
            ToHex(Wire("scalars { f_enum: INFRARED }")));
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"fEnum":42}})")), ToHex(Wire("scalars { f_enum: 42 }")));
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"fEnum":"COLOR_UNSPECIFIED"}})")), "0a 00");
}

TEST(ProtobufWriterTest, UnknownEnumNameIsAMismatchOrSkippedWithIgnoreUnknownFields) {
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fEnum":"PURPLE"}})"), "schema_mismatch", 20,
                    "/scalars/fEnum");
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"fEnum":"PURPLE"}})", kTest, IgnoreUnknown())), "0a 00");
  EXPECT_EQ(
      HexOf(FromJson(R"({"repeateds":{"uEnum":["RED","PURPLE","BLUE"]}})", kTest, IgnoreUnknown())),
      ToHex(Wire("repeateds { u_enum: [RED, BLUE] }")));
}

TEST(ProtobufWriterTest, StringMustBeText) {
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fString":1}})"), "schema_mismatch", 22,
                    "/scalars/fString");
  EXPECT_PB_REFUSED(FromJson(R"({"scalars":{"fBool":"true"}})"), "schema_mismatch", 20,
                    "/scalars/fBool");
}

// --- names and defaults ----------------------------------------------------------------------

TEST(ProtobufWriterTest, JsonNamesAndDeclaredNamesAreBothAccepted) {
  std::string expected = ToHex(Wire(R"(scalars { f_int64: 5 } renamed: 1 field_name5: "x")"));
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"fInt64":"5"},"customName":1,"fieldName5":"x"})")),
            expected);
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"f_int64":"5"},"renamed":1,"field_name5":"x"})")),
            expected);
}

TEST(ProtobufWriterTest, DefaultsOfFieldsWithoutPresenceAreNotWritten) {
  EXPECT_EQ(HexOf(FromJson(
                R"({"scalars":{"fInt32":0,"fInt64":"0","fString":"","fBool":false,"fDouble":0,)"
                R"("fFloat":0.0,"fBytes":"","fEnum":0,"fFixed64":"0","fSfixed32":0}})")),
            "0a 00");
}

TEST(ProtobufWriterTest, NegativeZeroIsWritten) {
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{"fDouble":-0.0}})")), "0a 09 09 00 00 00 00 00 00 00 80");
}

TEST(ProtobufWriterTest, FieldsWithPresenceAreWrittenAtTheirDefault) {
  EXPECT_EQ(
      HexOf(FromJson(
          R"({"optInt32":0,"optString":"","optEnum":"COLOR_UNSPECIFIED","optBool":false})")),
      ToHex(Wire(R"(opt_int32: 0 opt_string: "" opt_enum: COLOR_UNSPECIFIED opt_bool: false)")));
  EXPECT_EQ(HexOf(FromJson(R"({"choiceInt64":"0"})")), ToHex(Wire("choice_int64: 0")));
  EXPECT_EQ(HexOf(FromJson(R"({"choiceItem":{}})")), "62 00");
  EXPECT_EQ(HexOf(FromJson(R"({"scalars":{},"child":{}})")), "0a 00 32 00");
}

TEST(ProtobufWriterTest, NullMeansAbsent) {
  EXPECT_EQ(HexOf(FromJson(
                R"({"scalars":null,"optInt32":null,"items":null,"maps":null,"customName":null})")),
            "");
  EXPECT_EQ(HexOf(FromJson(R"({"wellKnown":{"timestamp":null,"int32Value":null,"any":null}})")),
            "22 00");
}

TEST(ProtobufWriterTest, NullInsideARepeatedFieldOrMapIsRefused) {
  EXPECT_PB_REFUSED(FromJson(R"({"repeateds":{"pInt32":[1,null]}})"), "schema_mismatch", 26,
                    "/repeateds/pInt32/1");
  Result r = FromJson(R"({"maps":{"stringString":{"a":null}}})");
  EXPECT_EQ(CodeName(r.status.code), "schema_mismatch") << r.status.message;
  EXPECT_EQ(r.status.path, "/maps/stringString/a");
}

TEST(ProtobufWriterTest, OneofGivenTwiceIsRefused) {
  Result r = FromJson(R"({"choiceString":"a","choiceInt64":"1"})");
  EXPECT_EQ(CodeName(r.status.code), "schema_mismatch") << r.status.message;
  EXPECT_EQ(r.status.path, "/choiceInt64");
  // A null member does not count.
  EXPECT_EQ(HexOf(FromJson(R"({"choiceString":null,"choiceInt64":"1"})")),
            ToHex(Wire("choice_int64: 1")));
}

TEST(ProtobufWriterTest, WrongJsonTypeForAFieldIsASchemaMismatch) {
  // (The JSON reader locates a refused array at its first element: "/scalars/0".)
  auto refused_at = [](const Result& r, uint64_t offset, std::string_view path) {
    EXPECT_EQ(CodeName(r.status.code), "schema_mismatch") << r.status.message;
    EXPECT_EQ(r.status.offset, offset) << r.status.message;
    EXPECT_TRUE(r.status.path.starts_with(path)) << r.status.path;
  };
  refused_at(FromJson(R"({"scalars":[]})"), 11, "/scalars");
  refused_at(FromJson(R"({"items":{}})"), 9, "/items");
  refused_at(FromJson(R"({"maps":{"stringString":[]}})"), 24, "/maps/stringString");
  refused_at(FromJson("[]"), 0, "");
  refused_at(FromJson("5"), 0, "");
}

// --- unknown members ------------------------------------------------------------------------

TEST(ProtobufWriterTest, UnknownMemberIsASchemaMismatchWithItsPath) {
  // Located at the member's name, and named by the path.
  EXPECT_PB_REFUSED(FromJson(R"({"items":[{"name":"a","bogus":1}]})"), "schema_mismatch", 22,
                    "/items/0/bogus");
  EXPECT_PB_REFUSED(FromJson(R"({"bogus":1})"), "schema_mismatch", 1, "/bogus");
}

TEST(ProtobufWriterTest, BadValueDeepInsideNamesItsPath) {
  EXPECT_PB_REFUSED(FromJson(R"({"items":[{"name":"a"},{"quantity":"many"}]})"), "schema_mismatch",
                    35, "/items/1/quantity");
  EXPECT_PB_REFUSED(FromJson(R"({"items":[{"quantity":1.5}]})"), "schema_mismatch", 22,
                    "/items/0/quantity");
}

TEST(ProtobufWriterTest, IgnoreUnknownFieldsSkipsWholeValues) {
  Result r =
      FromJson(R"({"bogus":{"a":[1,{"b":null}],"c":"d"},"customName":1,"also":[[],{}],"x":null})",
               kTest, IgnoreUnknown());
  EXPECT_EQ(HexOf(r), ToHex(Wire("renamed: 1")));
}

// --- repeated fields ----------------------------------------------------------------------------

TEST(ProtobufWriterTest, RepeatedScalarsArePackedAsLibprotobufPacksThem) {
  std::string json =
      R"({"repeateds":{"pDouble":[1.5,-2],"pFloat":[0.25],"pInt32":[1,-1],"pInt64":["-2",3],)"
      R"("pUint32":[4294967295],"pUint64":["18446744073709551615"],"pSint32":[-3,3],"pSint64":["-4"],)"
      R"("pFixed32":[5],"pFixed64":["6"],"pSfixed32":[-7],"pSfixed64":["-8"],"pBool":[true,false],)"
      R"("pEnum":["RED",2]}})";
  EXPECT_EQ(HexOf(FromJson(json)), ToHex(Wire(R"(repeateds {
    p_double: [1.5, -2] p_float: [0.25] p_int32: [1, -1] p_int64: [-2, 3] p_uint32: [4294967295]
    p_uint64: [18446744073709551615] p_sint32: [-3, 3] p_sint64: [-4] p_fixed32: [5] p_fixed64: [6]
    p_sfixed32: [-7] p_sfixed64: [-8] p_bool: [true, false] p_enum: [RED, GREEN] })")));
}

TEST(ProtobufWriterTest, UnpackedRepeatedScalarsOneElementPerTag) {
  std::string json =
      R"({"repeateds":{"uDouble":[1.5,-2],"uFloat":[0.25],"uInt32":[1,-1],"uInt64":["-2",3],)"
      R"("uUint32":[4294967295],"uUint64":["18446744073709551615"],"uSint32":[-3,3],"uSint64":["-4"],)"
      R"("uFixed32":[5],"uFixed64":["6"],"uSfixed32":[-7],"uSfixed64":["-8"],"uBool":[true,false],)"
      R"("uEnum":["RED",2]}})";
  EXPECT_EQ(HexOf(FromJson(json)), ToHex(Wire(R"(repeateds {
    u_double: [1.5, -2] u_float: [0.25] u_int32: [1, -1] u_int64: [-2, 3] u_uint32: [4294967295]
    u_uint64: [18446744073709551615] u_sint32: [-3, 3] u_sint64: [-4] u_fixed32: [5] u_fixed64: [6]
    u_sfixed32: [-7] u_sfixed64: [-8] u_bool: [true, false] u_enum: [RED, GREEN] })")));
}

TEST(ProtobufWriterTest, EmptyArraysWriteNothing) {
  EXPECT_EQ(HexOf(FromJson(
                R"({"repeateds":{"pInt32":[],"uInt32":[],"rString":[],"rItem":[]},"items":[]})")),
            "12 00");
}

TEST(ProtobufWriterTest, PackedRunLongerThan127BytesWidensItsLength) {
  std::string json = R"({"repeateds":{"pFixed64":[)";
  std::string text = "repeateds { p_fixed64: [";
  for (int i = 0; i < 40; ++i) {
    json += Cat({i ? "," : "", "\"", std::to_string(i), "\""});
    text += Cat({i ? "," : "", std::to_string(i)});
  }
  json += "]}}";
  text += "] }";
  EXPECT_EQ(HexOf(FromJson(json)), ToHex(Wire(text)));
}

TEST(ProtobufWriterTest, RepeatedStringsBytesAndMessages) {
  EXPECT_EQ(
      HexOf(FromJson(
          R"({"repeateds":{"rString":["","x"],"rBytes":["AQ=="],"rItem":[{"name":"a"},{}]}})")),
      ToHex(Wire(
          R"(repeateds { r_string: ["", "x"] r_bytes: ["\001"] r_item { name: "a" } r_item {} })")));
}

TEST(ProtobufWriterTest, LongNestedMessagesWidenTheirLengthSlots) {
  std::string long_name(300, 'n');
  std::string deep_name(20000, 'd');
  Result r = FromJson(Cat({R"({"child":{"items":[{"name":")", long_name,
                           R"("}],"child":{"fieldName5":")", deep_name, R"("}}})"}));
  EXPECT_EQ(HexOf(r), ToHex(Wire(Cat({R"(child { items { name: ")", long_name,
                                      R"(" } child { field_name5: ")", deep_name, R"(" } })"}))));
}

// --- maps ---------------------------------------------------------------------------------------

TEST(ProtobufWriterTest, MapsWithEveryKeyType) {
  std::string json =
      R"({"maps":{"stringString":{"a":"b"},"boolInt32":{"false":0,"true":1},"int32String":{"-5":"x"},)"
      R"("int64Bytes":{"-9223372036854775808":"AQ=="},"uint32Double":{"4294967295":1.5},)"
      R"("uint64Float":{"18446744073709551615":0.5},"sint32Bool":{"-1":true},"sint64Int64":{"-2":"-3"},)"
      R"("fixed32Uint32":{"7":8},"fixed64Uint64":{"9":"10"},"sfixed32Enum":{"-11":"GREEN"},)"
      R"("sfixed64Sint64":{"-12":"-13"},"stringItem":{"k":{"name":"n"}},"int32Item":{"1":{}}}})";
  // Map entries carry key and value even at their defaults, as libprotobuf writes them.
  EXPECT_EQ(HexOf(FromJson(json)), ToHex(Wire(R"(maps {
    string_string { key: "a" value: "b" }
    bool_int32 { key: false value: 0 } bool_int32 { key: true value: 1 }
    int32_string { key: -5 value: "x" }
    int64_bytes { key: -9223372036854775808 value: "\001" }
    uint32_double { key: 4294967295 value: 1.5 }
    uint64_float { key: 18446744073709551615 value: 0.5 }
    sint32_bool { key: -1 value: true }
    sint64_int64 { key: -2 value: -3 }
    fixed32_uint32 { key: 7 value: 8 }
    fixed64_uint64 { key: 9 value: 10 }
    sfixed32_enum { key: -11 value: GREEN }
    sfixed64_sint64 { key: -12 value: -13 }
    string_item { key: "k" value { name: "n" } }
    int32_item { key: 1 value {} } })")));
}

TEST(ProtobufWriterTest, MapKeyThatIsNotItsTypeIsASchemaMismatch) {
  for (const char* json :
       {R"({"maps":{"int32String":{"x":"y"}}})", R"({"maps":{"int32String":{"2147483648":"y"}}})",
        R"({"maps":{"boolInt32":{"yes":1}}})", R"({"maps":{"uint64Float":{"-1":1}}})"}) {
    Result r = FromJson(json);
    EXPECT_EQ(CodeName(r.status.code), "schema_mismatch") << json;
  }
}

TEST(ProtobufWriterTest, MapEntriesInCborWithIntegerKeys) {
  // CBOR {"maps": {"int32String": {-5: "x"}, "boolInt32": {true: 1}}}: keys need not be text.
  std::string cbor =
      Hex("a1 64 6d 61 70 73 a2 6b 69 6e 74 33 32 53 74 72 69 6e 67 a1 24 61 78"
          " 69 62 6f 6f 6c 49 6e 74 33 32 a1 f5 01");
  Result r = Convert(Format::kCbor, Format::kProtobuf, cbor);
  EXPECT_EQ(
      TextOf(r),
      Expected(
          R"(maps { int32_string { key: -5 value: "x" } bool_int32 { key: true value: 1 } })"));
}

// --- CBOR and MessagePack inputs ----------------------------------------------------------------

TEST(ProtobufWriterTest, FromCborWithNativeIntegersAndByteStrings) {
  // {"scalars": {"fInt64": -5, "fBytes": h'01ff', "fDouble": 1.5 (half float)}}
  std::string cbor =
      Hex("a1 67 73 63 61 6c 61 72 73 a3 66 66 49 6e 74 36 34 24 66 66 42 79 74 65 73 42 01 ff"
          " 67 66 44 6f 75 62 6c 65 f9 3e 00");
  EXPECT_EQ(TextOf(Convert(Format::kCbor, Format::kProtobuf, cbor)),
            Expected(R"(scalars { f_double: 1.5 f_int64: -5 f_bytes: "\001\377" })"));
}

TEST(ProtobufWriterTest, FromCborIndefiniteLengthContainers) {
  // {_ "items": [_ {_ "name": "a"}]}
  std::string cbor = Hex("bf 65 69 74 65 6d 73 9f bf 64 6e 61 6d 65 61 61 ff ff ff");
  EXPECT_EQ(TextOf(Convert(Format::kCbor, Format::kProtobuf, cbor)),
            Expected(R"(items { name: "a" })"));
}

TEST(ProtobufWriterTest, FromMessagePack) {
  // {"scalars": {"fUint64": 2^64-1, "fString": "x"}}
  std::string mp =
      Hex("81 a7 73 63 61 6c 61 72 73 82 a7 66 55 69 6e 74 36 34 cf ff ff ff ff ff ff ff ff"
          " a7 66 53 74 72 69 6e 67 a1 78");
  EXPECT_EQ(TextOf(Convert(Format::kMsgpack, Format::kProtobuf, mp)),
            Expected(R"(scalars { f_uint64: 18446744073709551615 f_string: "x" })"));
}

TEST(ProtobufWriterTest, ProtobufThroughCborAndMessagePackAndBackIsLossless) {
  const std::string wire =
      Wire(R"(scalars { f_double: nan f_float: 0.1 f_int64: -9223372036854775808
                                            f_uint64: 18446744073709551615 f_sint32: -1 f_bytes: "\000\377" f_enum: 42 }
                                   repeateds { p_float: [-0, 1e-45] u_sfixed64: [-1] r_bytes: [""] }
                                   maps { int64_bytes { key: -1 value: "\001" } bool_int32 { key: true value: 0 }
                                          string_item { key: "k" value { tags: ["a"] } } }
                                   well_known { timestamp { seconds: -1 nanos: 5 } duration { seconds: -2 }
                                                uint64_value { value: 18446744073709551615 } bytes_value { value: "\377" }
                                                struct_value { fields { key: "n" value { number_value: -0.5 } } }
                                                any { [type.googleapis.com/rosetta.test.Item] { name: "x" } } }
                                   choice_item {} opt_int32: 0)");
  for (Format middle : {Format::kCbor, Format::kMsgpack}) {
    Result there = Convert(Format::kProtobuf, middle, wire);
    ASSERT_TRUE(there.status.ok()) << there.status.message;
    Result back = Convert(middle, Format::kProtobuf, there.out);
    EXPECT_EQ(TextOf(back), Text(wire)) << FormatName(middle);
  }
}

TEST(ProtobufWriterTest, ByteStringForAStringFieldIsRefused) {
  std::string cbor = Hex("a1 6a 66 69 65 6c 64 4e 61 6d 65 35 41 78");  // {"fieldName5": h'78'}
  EXPECT_EQ(CodeName(Convert(Format::kCbor, Format::kProtobuf, cbor).status.code),
            "schema_mismatch");
}

// --- well-known types
// -----------------------------------------------------------------------------

std::string WktText(std::string_view json) {
  return TextOf(FromJson(json, "rosetta.test.WellKnown"), "rosetta.test.WellKnown");
}
std::string WktExpected(std::string_view text) { return Expected(text, "rosetta.test.WellKnown"); }

TEST(ProtobufWriterTest, TimestampFromRfc3339) {
  EXPECT_EQ(WktText(R"({"timestamp":"2020-01-01T00:00:00.5Z"})"),
            WktExpected("timestamp { seconds: 1577836800 nanos: 500000000 }"));
  EXPECT_EQ(WktText(R"({"timestamp":"2020-01-01T01:00:00+01:00"})"),
            WktExpected("timestamp { seconds: 1577836800 }"));
  EXPECT_EQ(WktText(R"({"timestamp":"1969-12-31t23:59:59.000000001z"})"),
            WktExpected("timestamp { seconds: -1 nanos: 1 }"));
  EXPECT_EQ(WktText(R"({"timestamp":"0001-01-01T00:00:00Z"})"),
            WktExpected("timestamp { seconds: -62135596800 }"));
  EXPECT_EQ(WktText(R"({"timestamp":"1970-01-01T00:00:00Z"})"), WktExpected("timestamp {}"));
  EXPECT_EQ(HexOf(FromJson(R"({"timestamp":"1970-01-01T00:00:00Z"})", "rosetta.test.WellKnown")),
            "0a 00");
}

TEST(ProtobufWriterTest, InvalidTimestampIsASchemaMismatch) {
  for (const char* ts : {"2020-13-01T00:00:00Z", "2019-02-29T00:00:00Z", "2020-01-01 00:00:00Z",
                         "2020-01-01T00:00:00", "2020-01-01T00:00:00.1234567891Z",
                         "10000-01-01T00:00:00Z", "0000-12-31T23:59:59Z", "x"}) {
    Result r = FromJson(Cat({R"({"timestamp":")", ts, "\"}"}), "rosetta.test.WellKnown");
    EXPECT_EQ(CodeName(r.status.code), "schema_mismatch") << ts;
    EXPECT_EQ(r.status.path, "/timestamp") << ts;
  }
}

TEST(ProtobufWriterTest, DurationFromSeconds) {
  EXPECT_EQ(WktText(R"({"duration":"1.5s"})"),
            WktExpected("duration { seconds: 1 nanos: 500000000 }"));
  EXPECT_EQ(WktText(R"({"duration":"-0.000000001s"})"), WktExpected("duration { nanos: -1 }"));
  EXPECT_EQ(WktText(R"({"duration":"-315576000000s"})"),
            WktExpected("duration { seconds: -315576000000 }"));
  for (const char* d : {"1", "s", "1.s", "315576000001s", "+1s", "1.0000000001s", "--1s"}) {
    EXPECT_EQ(
        CodeName(
            FromJson(Cat({R"({"duration":")", d, "\"}"}), "rosetta.test.WellKnown").status.code),
        "schema_mismatch")
        << d;
  }
}

TEST(ProtobufWriterTest, WrappersFromTheirValues) {
  EXPECT_EQ(
      WktText(
          R"({"doubleValue":1.5,"floatValue":"NaN","int64Value":"-5","uint64Value":7,"int32Value":0,)"
          R"("uint32Value":3,"boolValue":false,"stringValue":"","bytesValue":"AQ=="})"),
      WktExpected(
          R"(double_value { value: 1.5 } float_value { value: nan } int64_value { value: -5 }
                           uint64_value { value: 7 } int32_value {} uint32_value { value: 3 } bool_value {}
                           string_value {} bytes_value { value: "\001" })"));
  // A wrapper at its default is present and empty.
  EXPECT_EQ(HexOf(FromJson(R"({"int32Value":0})", "rosetta.test.WellKnown")), "3a 00");
  EXPECT_EQ(WktText(R"({"int32Values":[1,0]})"),
            WktExpected("int32_values { value: 1 } int32_values {}"));
}

TEST(ProtobufWriterTest, StructValueAndListValue) {
  EXPECT_EQ(
      WktText(
          R"({"structValue":{"a":1.5,"b":[true,null,"s"],"c":{}},"value":null,"listValue":[[-2]]})"),
      WktExpected(R"(struct_value { fields { key: "a" value { number_value: 1.5 } }
                                          fields { key: "b" value { list_value { values { bool_value: true }
                                                                                 values { null_value: NULL_VALUE }
                                                                                 values { string_value: "s" } } } }
                                          fields { key: "c" value { struct_value {} } } }
                           value { null_value: NULL_VALUE }
                           list_value { values { list_value { values { number_value: -2 } } } })"));
  EXPECT_EQ(WktText(R"({"value":0})"), WktExpected("value { number_value: 0 }"));
  EXPECT_EQ(WktText(R"({"value":""})"), WktExpected(R"(value { string_value: "" })"));
  EXPECT_EQ(WktText(R"({"value":false})"), WktExpected("value { bool_value: false }"));
  EXPECT_EQ(WktText(R"({"value":"18446744073709551615"})"),
            WktExpected(R"(value { string_value: "18446744073709551615" })"));
  EXPECT_EQ(WktText(R"({"value":18446744073709551615})"),
            WktExpected("value { number_value: 1.8446744073709552e19 }"));
}

TEST(ProtobufWriterTest, StructMustBeAnObjectAndListValueAnArray) {
  EXPECT_EQ(CodeName(FromJson(R"({"structValue":[]})", "rosetta.test.WellKnown").status.code),
            "schema_mismatch");
  EXPECT_EQ(CodeName(FromJson(R"({"listValue":{}})", "rosetta.test.WellKnown").status.code),
            "schema_mismatch");
  EXPECT_EQ(CodeName(FromJson(R"({"structValue":5})", "rosetta.test.WellKnown").status.code),
            "schema_mismatch");
}

TEST(ProtobufWriterTest, FieldMaskFromLowerCamelPaths) {
  EXPECT_EQ(WktText(R"({"fieldMask":"fooBar,baz.quxQuux,a"})"),
            WktExpected(R"(field_mask { paths: "foo_bar" paths: "baz.qux_quux" paths: "a" })"));
  EXPECT_EQ(HexOf(FromJson(R"({"fieldMask":""})", "rosetta.test.WellKnown")), "7a 00");
  EXPECT_EQ(CodeName(FromJson(R"({"fieldMask":"foo_bar"})", "rosetta.test.WellKnown").status.code),
            "schema_mismatch");
}

TEST(ProtobufWriterTest, EmptyFromAnEmptyObject) {
  EXPECT_EQ(HexOf(FromJson(R"({"empty":{}})", "rosetta.test.WellKnown")), "82 01 00");
}

TEST(ProtobufWriterTest, NullValueEnumFromNull) {
  // google.protobuf.NullValue takes null; at its only value (0) it is the default.
  EXPECT_EQ(HexOf(FromJson(R"({"nullValue":null})", "rosetta.test.WellKnown")), "");
  EXPECT_EQ(HexOf(FromJson(R"({"nullValue":"NULL_VALUE"})", "rosetta.test.WellKnown")), "");
}

// --- Any
// ------------------------------------------------------------------------------------------

TEST(ProtobufWriterTest, AnyOfAMessage) {
  EXPECT_EQ(
      WktText(
          R"({"any":{"@type":"type.googleapis.com/rosetta.test.Item","name":"x","quantity":2}})"),
      WktExpected(R"(any { [type.googleapis.com/rosetta.test.Item] { name: "x" quantity: 2 } })"));
}

TEST(ProtobufWriterTest, AnyOfAWellKnownType) {
  EXPECT_EQ(
      WktText(R"({"any":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1.5s"}})"),
      WktExpected("any { [type.googleapis.com/google.protobuf.Duration] { seconds: 1 nanos: "
                  "500000000 } }"));
  EXPECT_EQ(
      WktText(
          R"({"any":{"@type":"type.googleapis.com/google.protobuf.Struct","value":{"a":[1]}}})"),
      WktExpected(R"(any { [type.googleapis.com/google.protobuf.Struct] {
                             fields { key: "a" value { list_value { values { number_value: 1 } } } } } })"));
  // Empty is inlined like any message: it has no "value" member (libprotobuf refuses one too).
  EXPECT_EQ(WktText(R"({"any":{"@type":"type.googleapis.com/google.protobuf.Empty"}})"),
            WktExpected("any { [type.googleapis.com/google.protobuf.Empty] {} }"));
  EXPECT_EQ(
      CodeName(
          FromJson(R"({"any":{"@type":"type.googleapis.com/google.protobuf.Empty","value":{}}})",
                   "rosetta.test.WellKnown")
              .status.code),
      "schema_mismatch");
  EXPECT_EQ(
      CodeName(
          FromJson(R"({"any":{"value":{},"@type":"type.googleapis.com/google.protobuf.Empty"}})",
                   "rosetta.test.WellKnown")
              .status.code),
      "schema_mismatch");
  // An Any of a well-known type without its "value" holds the type's default.
  EXPECT_EQ(WktText(R"({"any":{"@type":"type.googleapis.com/google.protobuf.Timestamp"}})"),
            WktExpected("any { [type.googleapis.com/google.protobuf.Timestamp] {} }"));
  EXPECT_EQ(
      WktText(R"({"any":{"@type":"type.googleapis.com/google.protobuf.Any","value":)"
              R"({"@type":"type.googleapis.com/rosetta.test.Item","name":"x"}}})"),
      WktExpected(
          R"(any { [type.googleapis.com/google.protobuf.Any] { [type.googleapis.com/rosetta.test.Item] { name: "x" } } })"));
}

TEST(ProtobufWriterTest, AnyWithTypeFirstOrLastGivesTheSameBytes) {
  const std::string first =
      R"({"anys":[{"@type":"type.googleapis.com/rosetta.test.Test","items":[{"name":"a","tags":["x","y"]}],)"
      R"("wellKnown":{"any":{"@type":"type.googleapis.com/rosetta.test.Item","name":"in"}},"customName":3}]})";
  const std::string last =
      R"({"anys":[{"items":[{"name":"a","tags":["x","y"]}],"wellKnown":{"any":{"name":"in",)"
      R"("@type":"type.googleapis.com/rosetta.test.Item"}},"customName":3,"@type":"type.googleapis.com/rosetta.test.Test"}]})";
  const std::string middle =
      R"({"anys":[{"items":[{"name":"a","tags":["x","y"]}],"@type":"type.googleapis.com/rosetta.test.Test",)"
      R"("wellKnown":{"any":{"@type":"type.googleapis.com/rosetta.test.Item","name":"in"}},"customName":3}]})";
  Result a = FromJson(first, "rosetta.test.WellKnown");
  Result b = FromJson(last, "rosetta.test.WellKnown");
  Result c = FromJson(middle, "rosetta.test.WellKnown");
  ASSERT_TRUE(a.status.ok()) << a.status.message;
  ASSERT_TRUE(b.status.ok()) << b.status.message;
  ASSERT_TRUE(c.status.ok()) << c.status.message;
  EXPECT_EQ(ToHex(a.out), ToHex(b.out));
  EXPECT_EQ(ToHex(a.out), ToHex(c.out));
  EXPECT_EQ(
      Text(a.out, "rosetta.test.WellKnown"),
      WktExpected(
          R"(anys { [type.googleapis.com/rosetta.test.Test] { items { name: "a" tags: ["x", "y"] }
                           well_known { any { [type.googleapis.com/rosetta.test.Item] { name: "in" } } } renamed: 3 } })"));
  // The buffered form is charged to the request.
  EXPECT_GT(b.stats.peak_bytes, a.stats.peak_bytes);
}

TEST(ProtobufWriterTest, AnyOfAWellKnownTypeWithValueFirst) {
  Result a = FromJson(
      R"({"any":{"@type":"type.googleapis.com/google.protobuf.Timestamp","value":"1970-01-01T00:00:01Z"}})",
      "rosetta.test.WellKnown");
  Result b = FromJson(
      R"({"any":{"value":"1970-01-01T00:00:01Z","@type":"type.googleapis.com/google.protobuf.Timestamp"}})",
      "rosetta.test.WellKnown");
  EXPECT_EQ(HexOf(a), HexOf(b));
  EXPECT_EQ(Text(a.out, "rosetta.test.WellKnown"),
            WktExpected("any { [type.googleapis.com/google.protobuf.Timestamp] { seconds: 1 } }"));
}

TEST(ProtobufWriterTest, EmptyAnyObject) {
  EXPECT_EQ(HexOf(FromJson(R"({"any":{}})", "rosetta.test.WellKnown")), "8a 01 00");
}

TEST(ProtobufWriterTest, AnyOfAnUnknownTypeIsUnknownMessageType) {
  Result r = FromJson(R"({"any":{"@type":"type.googleapis.com/rosetta.test.Nope"}})",
                      "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "unknown_message_type") << r.status.message;
  EXPECT_EQ(r.status.path, "/any/@type");
  r = FromJson(R"({"any":{"name":"x","@type":"type.googleapis.com/rosetta.test.Nope"}})",
               "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "unknown_message_type") << r.status.message;
}

TEST(ProtobufWriterTest, AnyWithoutTypeOrWithBadMembersIsASchemaMismatch) {
  for (const char* json :
       {R"({"any":{"name":"x"}})", R"({"any":{"@type":5}})",
        R"({"any":{"@type":"type.googleapis.com/rosetta.test.Item","bogus":1}})",
        R"({"any":{"bogus":1,"@type":"type.googleapis.com/rosetta.test.Item"}})",
        R"({"any":{"@type":"type.googleapis.com/google.protobuf.Duration","seconds":1}})",
        R"({"any":[]})"}) {
    EXPECT_EQ(CodeName(FromJson(json, "rosetta.test.WellKnown").status.code), "schema_mismatch")
        << json;
  }
}

TEST(ProtobufWriterTest, AnyInsideAnyWithTypesLast) {
  std::string json =
      R"({"any":{"value":{"name":"x","@type":"type.googleapis.com/rosetta.test.Item"},)"
      R"("@type":"type.googleapis.com/google.protobuf.Any"}})";
  EXPECT_EQ(
      WktText(json),
      WktExpected(
          R"(any { [type.googleapis.com/google.protobuf.Any] { [type.googleapis.com/rosetta.test.Item] { name: "x" } } })"));
}

// --- the whole record, byte for byte ------------------------------------------------------------

TEST(ProtobufWriterTest, LogRecordMatchesLibprotobufByteForByte) {
  std::string json =
      R"({"time":"2024-05-01T12:34:56.789Z","level":"WARN","message":"disk almost full",)"
      R"("attributes":{"host":"db-1"},"traceId":"1234567890123","spanId":"42","durationMs":12.5})";
  EXPECT_EQ(
      HexOf(FromJson(json, "rosetta.test.LogRecord")),
      ToHex(Wire(
          R"(time { seconds: 1714566896 nanos: 789000000 } level: WARN message: "disk almost full"
                          attributes { key: "host" value: "db-1" } trace_id: 1234567890123 span_id: 42 duration_ms: 12.5)",
          "rosetta.test.LogRecord")));
}

TEST(ProtobufWriterTest, ValidateOfJsonDoesNotNeedTheSchema) {
  // Validate reads one format under its own rules: a JSON payload is checked as JSON.
  Result r = Check(Format::kJson, R"({"anything":1})");
  EXPECT_TRUE(r.status.ok()) << r.status.message;
}

}  // namespace
}  // namespace rosetta::codec
