// The protobuf reader: wire format -> events shaped by the proto3 JSON mapping
// (developers.google.com/protocol-buffers/docs/proto3#json), checked through JSON, CBOR
// and MessagePack outputs. Wire inputs come from libprotobuf (text format, serialized by
// it) or are written by hand where libprotobuf would never produce them.
#include <gtest/gtest.h>

#include "protobuf_test_support.h"

namespace rosetta::codec {
namespace {

using namespace prototest;

Result ToCbor(std::string_view wire, std::string_view type = kTest, const MappingOptions& o = {}) {
  return Convert(Format::kProtobuf, Format::kCbor, wire, type, o);
}
Result ToMsgpack(std::string_view wire, std::string_view type = kTest) {
  return Convert(Format::kProtobuf, Format::kMsgpack, wire, type);
}
std::string HexOut(const Result& r) {
  return r.status.ok() ? ToHex(r.out) : "error: " + r.status.message;
}

// --- scalars ----------------------------------------------------------------------------

TEST(ProtobufReaderTest, EveryScalarTypeIntoJson) {
  std::string wire = Wire(R"(scalars {
    f_double: 1.5 f_float: 0.1 f_int32: -5 f_int64: -9007199254740993 f_uint32: 4294967295
    f_uint64: 18446744073709551615 f_sint32: -2147483648 f_sint64: -9223372036854775808
    f_fixed32: 7 f_fixed64: 18446744073709551615 f_sfixed32: -7 f_sfixed64: -9223372036854775808
    f_bool: true f_string: "h\303\251llo" f_bytes: "\000\377\376" f_enum: BLUE })");
  EXPECT_PB_OUTPUT(
      ToJson(wire),
      R"({"scalars":{"fDouble":1.5,"fFloat":0.1,"fInt32":-5,"fInt64":"-9007199254740993",)"
      R"("fUint32":4294967295,"fUint64":"18446744073709551615","fSint32":-2147483648,)"
      R"("fSint64":"-9223372036854775808","fFixed32":7,"fFixed64":"18446744073709551615",)"
      R"("fSfixed32":-7,"fSfixed64":"-9223372036854775808","fBool":true,"fString":"héllo",)"
      R"("fBytes":"AP/+","fEnum":"BLUE"}})");
}

TEST(ProtobufReaderTest, SixtyFourBitIntegersAreStringsInJsonOnly) {
  std::string wire = Wire("scalars { f_int64: -5 f_uint64: 7 }");
  EXPECT_PB_OUTPUT(ToJson(wire), R"({"scalars":{"fInt64":"-5","fUint64":"7"}})");
  // CBOR: {"scalars": {"fInt64": -5, "fUint64": 7}}
  EXPECT_EQ(HexOut(ToCbor(wire)),
            "a1 67 73 63 61 6c 61 72 73 a2 66 66 49 6e 74 36 34 24 67 66 55 69 6e 74 36 34 07");
  // MessagePack: the same, with fixmaps and fixints
  EXPECT_EQ(HexOut(ToMsgpack(wire)),
            "81 a7 73 63 61 6c 61 72 73 82 a6 66 49 6e 74 36 34 fb a7 66 55 69 6e 74 36 34 07");
}

TEST(ProtobufReaderTest, FloatPrintsItsShortestFloatFormInJson) {
  EXPECT_PB_OUTPUT(ToJson(Wire("scalars { f_float: 0.1 }")), R"({"scalars":{"fFloat":0.1}})");
  EXPECT_PB_OUTPUT(ToJson(Wire("scalars { f_float: 3.4028234663852886e38 }")),
                   R"({"scalars":{"fFloat":3.4028235e+38}})");
  // In CBOR the float keeps its exact value (as a single-precision float).
  EXPECT_EQ(HexOut(ToCbor(Wire("scalars { f_float: 0.1 }"))),
            "a1 67 73 63 61 6c 61 72 73 a1 66 66 46 6c 6f 61 74 fa 3d cc cc cd");
}

TEST(ProtobufReaderTest, NonFiniteFloatsAreStringsInJsonAndFloatsInCbor) {
  EXPECT_PB_OUTPUT(ToJson(Wire("scalars { f_double: nan f_float: -inf }")),
                   R"({"scalars":{"fDouble":"NaN","fFloat":"-Infinity"}})");
  EXPECT_PB_OUTPUT(ToJson(Wire("scalars { f_double: inf }")),
                   R"({"scalars":{"fDouble":"Infinity"}})");
  EXPECT_EQ(HexOut(ToCbor(Wire("scalars { f_double: inf }"))),
            "a1 67 73 63 61 6c 61 72 73 a1 67 66 44 6f 75 62 6c 65 f9 7c 00");
}

TEST(ProtobufReaderTest, BytesAreStandardBase64WithPaddingInJson) {
  EXPECT_PB_OUTPUT(ToJson(Wire(R"(scalars { f_bytes: "\373" })")),
                   R"({"scalars":{"fBytes":"+w=="}})");
  EXPECT_PB_OUTPUT(ToJson(Wire(R"(scalars { f_bytes: "\377\377" })")),
                   R"({"scalars":{"fBytes":"//8="}})");
  // CBOR keeps a byte string.
  EXPECT_EQ(HexOut(ToCbor(Wire(R"(scalars { f_bytes: "\373" })"))),
            "a1 67 73 63 61 6c 61 72 73 a1 66 66 42 79 74 65 73 41 fb");
}

TEST(ProtobufReaderTest, EnumsByNameUnknownNumbersAsNumbers) {
  EXPECT_PB_OUTPUT(ToJson(Wire("scalars { f_enum: GREEN }")), R"({"scalars":{"fEnum":"GREEN"}})");
  EXPECT_PB_OUTPUT(ToJson(Wire("scalars { f_enum: INFRARED }")),
                   R"({"scalars":{"fEnum":"INFRARED"}})");
  EXPECT_PB_OUTPUT(ToJson(Wire("scalars { f_enum: 42 }")), R"({"scalars":{"fEnum":42}})");
  EXPECT_PB_OUTPUT(ToJson(Wire("scalars { f_enum: -7 }")), R"({"scalars":{"fEnum":-7}})");
  EXPECT_PB_OUTPUT(ToJson(Wire("repeateds { p_enum: [RED, 99, BLUE] }")),
                   R"({"repeateds":{"pEnum":["RED",99,"BLUE"]}})");
}

TEST(ProtobufReaderTest, Int32GivenAsATenByteNegativeVarint) {
  // int32 -1 is sign-extended to ten bytes on the wire.
  EXPECT_PB_OUTPUT(ToJson(LenField(1, Hex("18 ff ff ff ff ff ff ff ff ff 01"))),
                   R"({"scalars":{"fInt32":-1}})");
  // A five-byte form (as some encoders write) reads the same.
  EXPECT_PB_OUTPUT(ToJson(LenField(1, Hex("18 ff ff ff ff 0f"))), R"({"scalars":{"fInt32":-1}})");
}

// --- presence and defaults --------------------------------------------------------------

TEST(ProtobufReaderTest, DefaultsOfFieldsWithoutPresenceAreOmitted) {
  // libprotobuf never writes these; an encoder may.
  std::string scalars = VarintField(3, 0) + VarintField(4, 0) + Fixed64Field(1, 0) +
                        Fixed32Field(2, 0) + VarintField(13, 0) + LenField(14, "") +
                        LenField(15, "") + VarintField(16, 0) + Fixed32Field(9, 0) +
                        Fixed64Field(12, 0);
  EXPECT_PB_OUTPUT(ToJson(LenField(1, scalars)), R"({"scalars":{}})");
}

TEST(ProtobufReaderTest, ANonCanonicalZeroVarintIsStillTheDefault) {
  EXPECT_PB_OUTPUT(ToJson(LenField(1, Hex("18 80 00"))), R"({"scalars":{}})");
  EXPECT_PB_OUTPUT(ToJson(LenField(1, Hex("68 80 80 00"))), R"({"scalars":{}})");  // bool
}

TEST(ProtobufReaderTest, LastOccurrenceDecidesTheDefault) {
  // f_int32 given 5 then 0: the value is 0, omitted.
  EXPECT_PB_OUTPUT(ToJson(LenField(1, VarintField(3, 5) + VarintField(3, 0))), R"({"scalars":{}})");
  EXPECT_PB_OUTPUT(ToJson(LenField(1, VarintField(3, 0) + VarintField(3, 5))),
                   R"({"scalars":{"fInt32":5}})");
}

TEST(ProtobufReaderTest, NegativeZeroIsNotTheDefault) {
  EXPECT_PB_OUTPUT(ToJson(LenField(1, Fixed64Field(1, 0x8000000000000000ull))),
                   R"({"scalars":{"fDouble":-0.0}})");
}

TEST(ProtobufReaderTest, OptionalFieldsArePresentAtTheirDefault) {
  EXPECT_PB_OUTPUT(
      ToJson(Wire(
          R"(opt_int32: 0 opt_string: "" opt_double: 0 opt_enum: COLOR_UNSPECIFIED opt_bool: false)")),
      R"({"optInt32":0,"optString":"","optDouble":0.0,"optEnum":"COLOR_UNSPECIFIED","optBool":false})");
}

TEST(ProtobufReaderTest, OneofMembersArePresentAtTheirDefault) {
  EXPECT_PB_OUTPUT(ToJson(Wire("choice_int64: 0")), R"({"choiceInt64":"0"})");
  EXPECT_PB_OUTPUT(ToJson(Wire(R"(choice_string: "")")), R"({"choiceString":""})");
  EXPECT_PB_OUTPUT(ToJson(Wire("choice_item {}")), R"({"choiceItem":{}})");
  EXPECT_PB_OUTPUT(ToJson(Wire("choice_enum: COLOR_UNSPECIFIED")),
                   R"({"choiceEnum":"COLOR_UNSPECIFIED"})");
}

TEST(ProtobufReaderTest, OneofShowsTheLastMemberSet) {
  std::string wire = Wire(R"(choice_string: "a")") + Wire("choice_int64: 5");
  EXPECT_PB_OUTPUT(ToJson(wire), R"({"choiceInt64":"5"})");
  wire = Wire("choice_int64: 5") + Wire(R"(choice_string: "a")");
  EXPECT_PB_OUTPUT(ToJson(wire), R"({"choiceString":"a"})");
}

TEST(ProtobufReaderTest, OneofMessageSetAgainAfterAnotherMemberStartsOver) {
  // choice_item {name}, then choice_int64, then choice_item {quantity}: setting another
  // member cleared the first item (libprotobuf keeps only {quantity}).
  std::string wire = Wire(R"(choice_item { name: "a" })") + Wire("choice_int64: 5") +
                     Wire("choice_item { quantity: 2 }");
  EXPECT_PB_OUTPUT(ToJson(wire), R"({"choiceItem":{"quantity":2}})");
  EXPECT_EQ(Text(wire), "choice_item {\n  quantity: 2\n}\n");
}

TEST(ProtobufReaderTest, MessagesArePresentWhenEmpty) {
  EXPECT_PB_OUTPUT(ToJson(Wire("scalars {} child {}")), R"({"scalars":{},"child":{}})");
}

TEST(ProtobufReaderTest, EmptyInputIsTheEmptyMessage) {
  EXPECT_PB_OUTPUT(ToJson(""), "{}");
  EXPECT_EQ(HexOut(ToCbor("")), "a0");
}

// --- names --------------------------------------------------------------------------------

TEST(ProtobufReaderTest, KeysAreJsonNames) {
  EXPECT_PB_OUTPUT(ToJson(Wire(R"(renamed: 1 field_name5: "x" large_number: 2 far_number: 3)")),
                   R"({"customName":1,"fieldName5":"x","largeNumber":2,"farNumber":3})");
}

TEST(ProtobufReaderTest, FieldsComeInDeclarationOrderWhateverTheWireOrder) {
  std::string wire = Wire("far_number: 3") + Wire("renamed: 1") + Wire("scalars { f_int32: 1 }");
  EXPECT_PB_OUTPUT(ToJson(wire), R"({"scalars":{"fInt32":1},"customName":1,"farNumber":3})");
}

// --- repeated fields ------------------------------------------------------------------------

TEST(ProtobufReaderTest, PackedRepeatedScalarsOfEveryType) {
  std::string wire = Wire(R"(repeateds {
    p_double: [1.5, -2] p_float: [0.25] p_int32: [1, -1] p_int64: [-2, 3] p_uint32: [4294967295]
    p_uint64: [18446744073709551615] p_sint32: [-3, 3] p_sint64: [-4] p_fixed32: [5] p_fixed64: [6]
    p_sfixed32: [-7] p_sfixed64: [-8] p_bool: [true, false] p_enum: [RED] })");
  EXPECT_PB_OUTPUT(
      ToJson(wire),
      R"({"repeateds":{"pDouble":[1.5,-2.0],"pFloat":[0.25],"pInt32":[1,-1],"pInt64":["-2","3"],)"
      R"("pUint32":[4294967295],"pUint64":["18446744073709551615"],"pSint32":[-3,3],"pSint64":["-4"],)"
      R"("pFixed32":[5],"pFixed64":["6"],"pSfixed32":[-7],"pSfixed64":["-8"],"pBool":[true,false],)"
      R"("pEnum":["RED"]}})");
}

TEST(ProtobufReaderTest, UnpackedRepeatedScalarsOfEveryType) {
  std::string wire = Wire(R"(repeateds {
    u_double: [1.5, -2] u_float: [0.25] u_int32: [1, -1] u_int64: [-2, 3] u_uint32: [4294967295]
    u_uint64: [18446744073709551615] u_sint32: [-3, 3] u_sint64: [-4] u_fixed32: [5] u_fixed64: [6]
    u_sfixed32: [-7] u_sfixed64: [-8] u_bool: [true, false] u_enum: [RED] })");
  EXPECT_PB_OUTPUT(
      ToJson(wire),
      R"({"repeateds":{"uDouble":[1.5,-2.0],"uFloat":[0.25],"uInt32":[1,-1],"uInt64":["-2","3"],)"
      R"("uUint32":[4294967295],"uUint64":["18446744073709551615"],"uSint32":[-3,3],"uSint64":["-4"],)"
      R"("uFixed32":[5],"uFixed64":["6"],"uSfixed32":[-7],"uSfixed64":["-8"],"uBool":[true,false],)"
      R"("uEnum":["RED"]}})");
}

TEST(ProtobufReaderTest, PackedFieldGivenUnpackedAndUnpackedGivenPacked) {
  // p_int32 (3) one element per tag; u_int32 (23) as one packed run: both are accepted.
  std::string wire = VarintField(3, 1) + VarintField(3, 2) + LenField(23, Hex("01 02 03"));
  EXPECT_PB_OUTPUT(ToJson(wire, "rosetta.test.Repeateds"), R"({"pInt32":[1,2],"uInt32":[1,2,3]})");
  EXPECT_EQ(Text(wire, "rosetta.test.Repeateds"),
            "p_int32: 1\np_int32: 2\nu_int32: 1\nu_int32: 2\nu_int32: 3\n");
}

TEST(ProtobufReaderTest, InterleavedRepeatedFieldsKeepWireOrderPerField) {
  std::string wire = LenField(3, Hex("01 02")) + LenField(40, "a") + VarintField(3, 3) +
                     LenField(40, "b") + LenField(3, Hex("04")) +
                     Fixed64Field(1, 0x3ff0000000000000ull) + LenField(3, "");
  EXPECT_PB_OUTPUT(ToJson(wire, "rosetta.test.Repeateds"),
                   R"({"pDouble":[1.0],"pInt32":[1,2,3,4],"rString":["a","b"]})");
}

TEST(ProtobufReaderTest, EmptyPackedRunsAloneAreOmitted) {
  EXPECT_PB_OUTPUT(ToJson(LenField(3, "") + LenField(1, ""), "rosetta.test.Repeateds"), "{}");
}

TEST(ProtobufReaderTest, RepeatedStringsBytesAndMessages) {
  std::string wire =
      Wire(R"(repeateds { r_string: ["", "x"] r_bytes: ["\001"] r_item { name: "a" } r_item {} })");
  EXPECT_PB_OUTPUT(
      ToJson(wire),
      R"({"repeateds":{"rString":["","x"],"rBytes":["AQ=="],"rItem":[{"name":"a"},{}]}})");
}

TEST(ProtobufReaderTest, RepeatedFixedSizeRunMustHoldWholeElements) {
  EXPECT_PB_REFUSED(ToJson(LenField(9, Hex("01 02 03 04 05")), "rosetta.test.Repeateds"),
                    "truncated", 2, "/pFixed32");
}

// --- a field given twice ------------------------------------------------------------------

TEST(ProtobufReaderTest, SingularScalarGivenTwiceLastWins) {
  std::string wire = Wire(R"(f_int32: 1 f_string: "a")", "rosetta.test.Scalars") +
                     Wire(R"(f_int32: 2 f_string: "b")", "rosetta.test.Scalars");
  EXPECT_PB_OUTPUT(ToJson(wire, "rosetta.test.Scalars"), R"({"fInt32":2,"fString":"b"})");
}

TEST(ProtobufReaderTest, MessageGivenTwiceIsMerged) {
  std::string wire =
      Wire(R"(scalars { f_int32: 1 f_string: "a" } child { items { name: "x" } renamed: 1 })") +
      Wire(
          R"(scalars { f_string: "b" f_bool: true } child { items { name: "y" } child { renamed: 3 } })");
  EXPECT_PB_OUTPUT(
      ToJson(wire),
      R"({"scalars":{"fInt32":1,"fBool":true,"fString":"b"},)"
      R"("child":{"items":[{"name":"x"},{"name":"y"}],"child":{"customName":3},"customName":1}})");
}

TEST(ProtobufReaderTest, MessageGivenTwiceInsideAMessageGivenTwice) {
  std::string wire = Wire("child { child { scalars { f_int32: 1 } } }") +
                     Wire("child { child { scalars { f_int64: 2 } } }");
  EXPECT_PB_OUTPUT(ToJson(wire), R"({"child":{"child":{"scalars":{"fInt32":1,"fInt64":"2"}}}})");
}

// --- maps -----------------------------------------------------------------------------------

TEST(ProtobufReaderTest, MapsWithEveryKeyTypeHaveTextKeys) {
  std::string wire = Wire(R"(maps {
    string_string { key: "a" value: "b" }
    bool_int32 { key: true value: 1 } bool_int32 { key: false value: 0 }
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
    int32_item { key: 1 value {} } })");
  EXPECT_PB_OUTPUT(
      ToJson(wire),
      R"({"maps":{"stringString":{"a":"b"},"boolInt32":{"false":0,"true":1},"int32String":{"-5":"x"},)"
      R"("int64Bytes":{"-9223372036854775808":"AQ=="},"uint32Double":{"4294967295":1.5},)"
      R"("uint64Float":{"18446744073709551615":0.5},"sint32Bool":{"-1":true},"sint64Int64":{"-2":"-3"},)"
      R"("fixed32Uint32":{"7":8},"fixed64Uint64":{"9":"10"},"sfixed32Enum":{"-11":"GREEN"},)"
      R"("sfixed64Sint64":{"-12":"-13"},"stringItem":{"k":{"name":"n"}},"int32Item":{"1":{}}}})");
}

TEST(ProtobufReaderTest, MapKeysAreTextInCborAndMessagePackToo) {
  std::string wire = Wire("int32_string { key: -5 value: \"x\" } bool_int32 { key: true value: 2 }",
                          "rosetta.test.Maps");
  // {"boolInt32": {"true": 2}, "int32String": {"-5": "x"}}
  EXPECT_EQ(HexOut(ToCbor(wire, "rosetta.test.Maps")),
            "a2 69 62 6f 6f 6c 49 6e 74 33 32 a1 64 74 72 75 65 02 6b 69 6e 74 33 32 53 74 72 69 "
            "6e 67 a1 62 2d 35 61 78");
  EXPECT_EQ(HexOut(ToMsgpack(wire, "rosetta.test.Maps")),
            "82 a9 62 6f 6f 6c 49 6e 74 33 32 81 a4 74 72 75 65 02 ab 69 6e 74 33 32 53 74 72 69 "
            "6e 67 81 a2 2d 35 a1 78");
}

TEST(ProtobufReaderTest, MapEntryWithoutKeyOrValueUsesTheDefaults) {
  // string_string entries: {value "v"} (no key), {key "k"} (no value), {} (neither).
  std::string maps = LenField(1, LenField(2, "v")) + LenField(1, LenField(1, "k")) +
                     LenField(13, LenField(1, "i"));
  EXPECT_PB_OUTPUT(ToJson(maps, "rosetta.test.Maps"),
                   R"({"stringString":{"":"v","k":""},"stringItem":{"i":{}}})");
  EXPECT_PB_OUTPUT(ToJson(LenField(2, ""), "rosetta.test.Maps"), R"({"boolInt32":{"false":0}})");
}

TEST(ProtobufReaderTest, MapEntryWithValueBeforeKeyAndUnknownParts) {
  std::string entry = LenField(2, "v") + VarintField(3, 9) + LenField(1, "k");
  EXPECT_PB_OUTPUT(ToJson(LenField(1, entry), "rosetta.test.Maps"),
                   R"({"stringString":{"k":"v"}})");
}

TEST(ProtobufReaderTest, MapEntriesInterleavedWithOtherFields) {
  std::string wire = Wire(R"(string_string { key: "a" value: "1" })", "rosetta.test.Maps") +
                     Wire(R"(int32_string { key: 1 value: "x" })", "rosetta.test.Maps") +
                     Wire(R"(string_string { key: "b" value: "2" })", "rosetta.test.Maps");
  EXPECT_PB_OUTPUT(ToJson(wire, "rosetta.test.Maps"),
                   R"({"stringString":{"a":"1","b":"2"},"int32String":{"1":"x"}})");
}

TEST(ProtobufReaderTest, DuplicateMapKeysOnTheWireAreRefusedUnlessAllowed) {
  std::string wire = Wire(R"(string_string { key: "a" value: "1" })", "rosetta.test.Maps") +
                     Wire(R"(string_string { key: "a" value: "2" })", "rosetta.test.Maps");
  Result r = ToJson(wire, "rosetta.test.Maps");
  EXPECT_EQ(CodeName(r.status.code), "duplicate_key") << r.status.message;
  EXPECT_EQ(r.status.path, "/stringString/a");
  MappingOptions allow;
  allow.allow_duplicate_keys = true;
  EXPECT_PB_OUTPUT(ToJson(wire, "rosetta.test.Maps", allow),
                   R"({"stringString":{"a":"1","a":"2"}})");
  // Integer keys compare by value.
  wire = Wire("int32_string { key: 1 value: \"x\" }", "rosetta.test.Maps") +
         Wire("int32_string { key: 1 value: \"y\" }", "rosetta.test.Maps");
  EXPECT_EQ(CodeName(ToJson(wire, "rosetta.test.Maps").status.code), "duplicate_key");
}

// --- unknown fields ---------------------------------------------------------------------------

TEST(ProtobufReaderTest, UnknownFieldsOfEveryWireTypeAreSkipped) {
  std::string unknown =
      VarintField(100, 1) + Fixed64Field(101, 2) + LenField(102, "abc") + Fixed32Field(103, 4);
  EXPECT_PB_OUTPUT(ToJson(unknown + Wire("renamed: 1") + unknown), R"({"customName":1})");
  EXPECT_PB_OUTPUT(ToJson(LenField(1, unknown + VarintField(3, 5))), R"({"scalars":{"fInt32":5}})");
}

TEST(ProtobufReaderTest, UnknownFieldsAreRefusedWithRejectUnknownFields) {
  std::string wire = Wire("renamed: 1") + VarintField(100, 1);
  EXPECT_PB_REFUSED(ToJson(wire, kTest, RejectUnknown()), "schema_mismatch", 3, "");
  // Inside a nested message the path names it.
  wire = LenField(1, VarintField(3, 5) + VarintField(99, 1));
  EXPECT_PB_REFUSED(ToJson(wire, kTest, RejectUnknown()), "schema_mismatch", 4, "/scalars");
  EXPECT_PB_REFUSED(Check(Format::kProtobuf, wire, kTest, RejectUnknown()), "schema_mismatch", 4,
                    "/scalars");
}

// --- well-known types -------------------------------------------------------------------------

std::string WktJson(std::string_view text) {
  return ToJson(Wire(text, "rosetta.test.WellKnown"), "rosetta.test.WellKnown").out;
}

TEST(ProtobufReaderTest, TimestampIsRfc3339WithZeroThreeSixOrNineFractionDigits) {
  EXPECT_EQ(WktJson("timestamp {}"), R"({"timestamp":"1970-01-01T00:00:00Z"})");
  EXPECT_EQ(WktJson("timestamp { seconds: 1577836800 nanos: 500000000 }"),
            R"({"timestamp":"2020-01-01T00:00:00.500Z"})");
  EXPECT_EQ(WktJson("timestamp { seconds: 1 nanos: 1000 }"),
            R"({"timestamp":"1970-01-01T00:00:01.000001Z"})");
  EXPECT_EQ(WktJson("timestamp { seconds: -1 nanos: 1 }"),
            R"({"timestamp":"1969-12-31T23:59:59.000000001Z"})");
  EXPECT_EQ(WktJson("timestamp { seconds: -62135596800 }"),
            R"({"timestamp":"0001-01-01T00:00:00Z"})");
  EXPECT_EQ(WktJson("timestamp { seconds: 253402300799 nanos: 999999999 }"),
            R"({"timestamp":"9999-12-31T23:59:59.999999999Z"})");
  EXPECT_EQ(WktJson("timestamps { seconds: 86400 } timestamps {}"),
            R"({"timestamps":["1970-01-02T00:00:00Z","1970-01-01T00:00:00Z"]})");
}

TEST(ProtobufReaderTest, TimestampOutOfRangeIsUnrepresentable) {
  Result r = ToJson(Wire("timestamp { seconds: 253402300800 }", "rosetta.test.WellKnown"),
                    "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "unrepresentable") << r.status.message;
  EXPECT_EQ(r.status.path, "/timestamp");
  r = ToJson(Wire("timestamp { nanos: -1 }", "rosetta.test.WellKnown"), "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "unrepresentable") << r.status.message;
}

TEST(ProtobufReaderTest, DurationIsSecondsWithSuffix) {
  EXPECT_EQ(WktJson("duration {}"), R"({"duration":"0s"})");
  EXPECT_EQ(WktJson("duration { seconds: 1 nanos: 500000000 }"), R"({"duration":"1.500s"})");
  EXPECT_EQ(WktJson("duration { seconds: -1 nanos: -1000 }"), R"({"duration":"-1.000001s"})");
  EXPECT_EQ(WktJson("duration { nanos: -500000000 }"), R"({"duration":"-0.500s"})");
  EXPECT_EQ(WktJson("duration { seconds: 315576000000 }"), R"({"duration":"315576000000s"})");
  Result r = ToJson(Wire("duration { seconds: 1 nanos: -1 }", "rosetta.test.WellKnown"),
                    "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "unrepresentable") << r.status.message;
}

TEST(ProtobufReaderTest, WrappersAreTheirValuePresentEvenAtTheDefault) {
  EXPECT_EQ(
      WktJson(
          R"(double_value {} float_value { value: 0.1 } int64_value { value: -5 } uint64_value {}
                        int32_value { value: -6 } uint32_value {} bool_value {} string_value { value: "s" }
                        bytes_value { value: "\001" })"),
      R"({"doubleValue":0.0,"floatValue":0.1,"int64Value":"-5","uint64Value":"0","int32Value":-6,)"
      R"("uint32Value":0,"boolValue":false,"stringValue":"s","bytesValue":"AQ=="})");
  EXPECT_EQ(WktJson("double_value { value: nan }"), R"({"doubleValue":"NaN"})");
  EXPECT_EQ(WktJson("int32_values { value: 1 } int32_values {}"), R"({"int32Values":[1,0]})");
}

TEST(ProtobufReaderTest, StructValueAndListValue) {
  EXPECT_EQ(WktJson(R"(struct_value { fields { key: "a" value { number_value: 1.5 } }
                                      fields { key: "b" value { list_value { values { bool_value: true }
                                                                             values { null_value: NULL_VALUE }
                                                                             values { string_value: "s" } } } }
                                      fields { key: "c" value { struct_value {} } } })"),
            R"({"structValue":{"a":1.5,"b":[true,null,"s"],"c":{}}})");
  EXPECT_EQ(WktJson("value { number_value: 0 }"), R"({"value":0.0})");
  EXPECT_EQ(WktJson("value { null_value: NULL_VALUE }"), R"({"value":null})");
  EXPECT_EQ(WktJson("value {}"), R"({"value":null})");
  EXPECT_EQ(WktJson(R"(value { string_value: "" })"), R"({"value":""})");
  EXPECT_EQ(WktJson("list_value {}"), R"({"listValue":[]})");
  EXPECT_EQ(WktJson("struct_value {}"), R"({"structValue":{}})");
  EXPECT_EQ(WktJson("list_value { values { list_value { values { number_value: -2 } } } }"),
            R"({"listValue":[[-2.0]]})");
}

TEST(ProtobufReaderTest, ValueKindGivenTwiceLastWins) {
  std::string value = LenField(3, "a") + VarintField(4, 1);  // string_value then bool_value
  EXPECT_PB_OUTPUT(ToJson(LenField(13, value), "rosetta.test.WellKnown"), R"({"value":true})");
}

TEST(ProtobufReaderTest, ValueStructGivenTwiceMergesUnlessAnotherKindCameBetween) {
  std::string a = LenField(
      5, LenField(1, LenField(1, "a") + LenField(2, VarintField(4, 1))));  // struct_value {a: true}
  std::string b = LenField(
      5,
      LenField(1, LenField(1, "b") + LenField(2, VarintField(4, 0))));  // struct_value {b: false}
  EXPECT_PB_OUTPUT(ToJson(LenField(13, a + b), "rosetta.test.WellKnown"),
                   R"({"value":{"a":true,"b":false}})");
  EXPECT_PB_OUTPUT(ToJson(LenField(13, a + VarintField(4, 1) + b), "rosetta.test.WellKnown"),
                   R"({"value":{"b":false}})");
  EXPECT_EQ(Text(LenField(13, a + VarintField(4, 1) + b), "rosetta.test.WellKnown"),
            Text(LenField(13, b), "rosetta.test.WellKnown"));
}

TEST(ProtobufReaderTest, FieldMaskIsCommaSeparatedLowerCamelPaths) {
  EXPECT_EQ(WktJson(R"(field_mask { paths: "foo_bar" paths: "baz.qux_quux" paths: "a" })"),
            R"({"fieldMask":"fooBar,baz.quxQuux,a"})");
  EXPECT_EQ(WktJson("field_mask {}"), R"({"fieldMask":""})");
}

TEST(ProtobufReaderTest, EmptyIsAnEmptyObject) {
  EXPECT_EQ(WktJson("empty {}"), R"({"empty":{}})");
  // Unknown fields inside Empty are skipped like any others.
  EXPECT_PB_OUTPUT(ToJson(LenField(16, VarintField(1, 1)), "rosetta.test.WellKnown"),
                   R"({"empty":{}})");
}

TEST(ProtobufReaderTest, NullValueFieldAtItsOnlyValueIsTheDefault) {
  EXPECT_PB_OUTPUT(ToJson(VarintField(21, 0), "rosetta.test.WellKnown"), "{}");
}

TEST(ProtobufReaderTest, AnyOfAMessageInlinesItsFields) {
  EXPECT_EQ(WktJson(R"(any { [type.googleapis.com/rosetta.test.Item] { name: "x" quantity: 2 } })"),
            R"({"any":{"@type":"type.googleapis.com/rosetta.test.Item","name":"x","quantity":2}})");
  EXPECT_EQ(WktJson(R"(any { [type.googleapis.com/rosetta.test.Item] {} })"),
            R"({"any":{"@type":"type.googleapis.com/rosetta.test.Item"}})");
  EXPECT_EQ(
      WktJson(
          R"(anys { [type.googleapis.com/rosetta.test.Test] { well_known { any { [type.googleapis.com/rosetta.test.Item] { name: "deep" } } } } })"),
      R"({"anys":[{"@type":"type.googleapis.com/rosetta.test.Test","wellKnown":{"any":)"
      R"({"@type":"type.googleapis.com/rosetta.test.Item","name":"deep"}}}]})");
}

TEST(ProtobufReaderTest, AnyOfAWellKnownTypeHasAValueMember) {
  EXPECT_EQ(
      WktJson("any { [type.googleapis.com/google.protobuf.Timestamp] { seconds: 1 } }"),
      R"({"any":{"@type":"type.googleapis.com/google.protobuf.Timestamp","value":"1970-01-01T00:00:01Z"}})");
  EXPECT_EQ(WktJson("any { [type.googleapis.com/google.protobuf.Int64Value] { value: 5 } }"),
            R"({"any":{"@type":"type.googleapis.com/google.protobuf.Int64Value","value":"5"}})");
  EXPECT_EQ(
      WktJson(
          R"(any { [type.googleapis.com/google.protobuf.Struct] { fields { key: "a" value { bool_value: true } } } })"),
      R"({"any":{"@type":"type.googleapis.com/google.protobuf.Struct","value":{"a":true}}})");
  // Empty, whose JSON form is just {}, is inlined like any message (as libprotobuf does).
  EXPECT_EQ(WktJson("any { [type.googleapis.com/google.protobuf.Empty] {} }"),
            R"({"any":{"@type":"type.googleapis.com/google.protobuf.Empty"}})");
  EXPECT_EQ(
      WktJson(
          R"(any { [type.googleapis.com/google.protobuf.Any] { [type.googleapis.com/rosetta.test.Item] { name: "x" } } })"),
      R"({"any":{"@type":"type.googleapis.com/google.protobuf.Any","value":)"
      R"({"@type":"type.googleapis.com/rosetta.test.Item","name":"x"}}})");
}

TEST(ProtobufReaderTest, AnyTypeUrlPrefixIsAnythingUpToTheLastSlash) {
  std::string any = LenField(1, "example.com/x/rosetta.test.Item") + LenField(2, LenField(1, "n"));
  EXPECT_PB_OUTPUT(ToJson(LenField(17, any), "rosetta.test.WellKnown"),
                   R"({"any":{"@type":"example.com/x/rosetta.test.Item","name":"n"}})");
}

TEST(ProtobufReaderTest, EmptyAnyIsAnEmptyObject) { EXPECT_EQ(WktJson("any {}"), R"({"any":{}})"); }

TEST(ProtobufReaderTest, AnyOfAnUnknownTypeIsUnknownMessageType) {
  std::string any = LenField(1, "type.googleapis.com/rosetta.test.Nope") + LenField(2, "");
  Result r = ToJson(LenField(17, any), "rosetta.test.WellKnown");
  EXPECT_PB_REFUSED(r, "unknown_message_type", 5, "/any");  // at the type URL
  EXPECT_PB_REFUSED(Check(Format::kProtobuf, LenField(17, any), "rosetta.test.WellKnown"),
                    "unknown_message_type", 5, "/any");
}

TEST(ProtobufReaderTest, AnyWithAValueButNoTypeIsASchemaMismatch) {
  Result r = ToJson(LenField(17, LenField(2, "x")), "rosetta.test.WellKnown");
  EXPECT_EQ(CodeName(r.status.code), "schema_mismatch") << r.status.message;
  EXPECT_EQ(r.status.path, "/any");
}

TEST(ProtobufReaderTest, MapOfWellKnownValues) {
  std::string wire = Wire(R"(string_value { key: "n" value { number_value: 2 } }
                             string_timestamp { key: "t" value { seconds: 60 } })",
                          "rosetta.test.Maps");
  EXPECT_PB_OUTPUT(ToJson(wire, "rosetta.test.Maps"),
                   R"({"stringValue":{"n":2.0},"stringTimestamp":{"t":"1970-01-01T00:01:00Z"}})");
}

// --- other outputs and validation ---------------------------------------------------------

TEST(ProtobufReaderTest, ProtobufToProtobufNormalizes) {
  // Unpacked elements of a packed field come out packed; a singular field given twice once.
  std::string wire =
      VarintField(3, 1) + VarintField(3, 2) + VarintField(23, 5) + VarintField(23, 6);
  Result r = Convert(Format::kProtobuf, Format::kProtobuf, wire, "rosetta.test.Repeateds");
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(ToHex(r.out), "1a 02 01 02 b8 01 05 b8 01 06");
  r = Convert(Format::kProtobuf, Format::kProtobuf, Wire("renamed: 1") + Wire("renamed: 2"));
  EXPECT_EQ(ToHex(r.out), "f0 01 02");
}

TEST(ProtobufReaderTest, ValidateAcceptsWhatTranscodeAccepts) {
  std::string wire = Wire(R"(scalars { f_string: "x" } maps { string_item { key: "k" value {} } }
                             well_known { any { [type.googleapis.com/rosetta.test.Item] { name: "x" } } })");
  Result r = Check(Format::kProtobuf, wire);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(CodeName(Check(Format::kProtobuf, Hex("0a 05 01")).status.code), "truncated");
}

TEST(ProtobufReaderTest, CborOutputOfWellKnownTypes) {
  // {"timestamp": "1970-01-01T00:00:01Z"} in CBOR: the JSON form, as text.
  Result r =
      ToCbor(Wire("timestamp { seconds: 1 }", "rosetta.test.WellKnown"), "rosetta.test.WellKnown");
  EXPECT_EQ(HexOut(r),
            "a1 69 74 69 6d 65 73 74 61 6d 70 74 31 39 37 30 2d 30 31 2d 30 31 54 30 30 3a 30 30 "
            "3a 30 31 5a");
}

}  // namespace
}  // namespace rosetta::codec
