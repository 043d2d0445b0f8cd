// codec/src/msgpack/msgpack_reader.h: every error the MessagePack reader reports, with
// its code, byte offset and JSON Pointer path; the claim guards, each named for the attack
// it stops; nesting and duplicate keys at scale. Inputs are hand-written hex (the
// MessagePack spec, github.com/msgpack/msgpack/blob/master/spec.md).
#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "codec_test_support.h"

namespace rosetta::codec::testing {
namespace {

std::string Big(uint8_t lead, uint64_t v, int bytes) {
  std::string s(1, static_cast<char>(lead));
  for (int i = bytes - 1; i >= 0; --i) s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}

// A claim refused both when validating and when transcoding, with nothing allocated for it.
void ExpectClaimRefused(std::string_view hex, const char* code, uint64_t at, const char* path,
                        uint64_t claim, const Limits& limits = {}) {
  const std::string input = Hex(hex);
  Result v = Check(Format::kMsgpack, input, limits);
  EXPECT_REFUSED(v, code, at, path);
  EXPECT_NOTHING_ALLOCATED_FOR(v, claim);
  for (Format to : {Format::kJson, Format::kCbor, Format::kMsgpack}) {
    SCOPED_TRACE(std::string("to ") + std::string(FormatName(to)));
    Result t = RunTranscode(Format::kMsgpack, to, input, limits);
    EXPECT_REFUSED(t, code, at, path);
    EXPECT_NOTHING_ALLOCATED_FOR(t, claim);
  }
}

Result CheckHex(std::string_view hex, const Limits& limits = {},
                const MappingOptions& options = {}) {
  return Check(Format::kMsgpack, Hex(hex), limits, options);
}

// ---- every error code, located ----

TEST(MsgpackReaderErrors, TruncatedInsideAnItemReportsTheItemAndItsPath) {
  EXPECT_REFUSED(CheckHex("92 01 cd 01"), "truncated", 2, "/1");  // uint16 with one byte
  EXPECT_REFUSED(CheckHex("81 a1 61"), "truncated", 3, "/a");     // a key and no value
  EXPECT_REFUSED(CheckHex(""), "truncated", 0, "");
  EXPECT_REFUSED(CheckHex("cb 00 00"), "truncated", 0, "");
  EXPECT_REFUSED(CheckHex("91 d9"), "truncated", 1, "/0");           // str8 without its length
  EXPECT_REFUSED(CheckHex("a3 61"), "truncated", 0, "");             // fixstr of 3 with 1 byte
  EXPECT_REFUSED(CheckHex("92 00 d6 ff 00"), "truncated", 2, "/1");  // fixext4 with 1 byte
  EXPECT_REFUSED(CheckHex("c7 01"), "truncated", 0, "");             // ext8 without its type
}

TEST(MsgpackReaderErrors, EveryProperPrefixOfADocumentIsTruncated) {
  // {"a": [1, 500, 1.5f, bin 0102, "xyz", ext 5 00, true, timestamp 1], "b": {1: nil}}
  const std::string doc = Hex(
      "82 a1 61 98 01 cd 01 f4 ca 3f c0 00 00 c4 02 01 02 a3 78 79 7a d4 05 00 c3 d6 ff 00 00 00 01"
      " a1 62 81 01 c0");
  ASSERT_TRUE(Check(Format::kMsgpack, doc).status.ok());
  for (size_t n = 0; n < doc.size(); ++n) {
    Result r = Check(Format::kMsgpack, doc.substr(0, n));
    EXPECT_EQ(CodeName(r.status.code), "truncated")
        << "prefix of " << n << " bytes: " << r.status.message;
    EXPECT_LE(r.status.offset, n);
  }
}

TEST(MsgpackReaderErrors, SyntaxErrorsAreLocated) {
  EXPECT_REFUSED(CheckHex("91 c1"), "syntax", 1, "/0");  // 0xc1 is never used
  EXPECT_REFUSED(CheckHex("c1"), "syntax", 0, "");
  // Timestamp (ext -1) of a size the spec does not define.
  EXPECT_REFUSED(CheckHex("92 00 d5 ff 00 00"), "syntax", 2, "/1");
  EXPECT_REFUSED(CheckHex("c7 05 ff 00 00 00 00 00"), "syntax", 0, "");
  // Nanoseconds above 999999999: timestamp 64 and timestamp 96.
  EXPECT_REFUSED(CheckHex("81 a1 74 d7 ff ee 6b 28 00 00 00 00 05"), "syntax", 3, "/t");
  EXPECT_REFUSED(CheckHex("c7 0c ff 3b 9a ca 00 00 00 00 00 00 00 00 00"), "syntax", 0, "");
}

TEST(MsgpackReaderErrors, InvalidUtf8InStrIsLocatedAtTheString) {
  EXPECT_REFUSED(CheckHex("81 a1 61 a2 c3 28"), "invalid_utf8", 3, "/a");
  EXPECT_REFUSED(CheckHex("92 00 d9 03 ed a0 80"), "invalid_utf8", 2, "/1");  // a surrogate, str8
  EXPECT_REFUSED(CheckHex("81 a1 ff 00"), "invalid_utf8", 1, "");             // a key
  EXPECT_TRUE(CheckHex("c4 02 c3 28").status.ok());  // bin has no UTF-8 rule
}

TEST(MsgpackReaderErrors, DepthExceededAtTheContainerThatOpensPastTheLimit) {
  EXPECT_REFUSED(CheckHex("91 91 91 00", MaxDepth(2)), "depth_exceeded", 2, "/0/0");
  EXPECT_REFUSED(CheckHex("81 a1 78 91 80", MaxDepth(2)), "depth_exceeded", 4, "/x/0");
  EXPECT_TRUE(CheckHex("91 91 00", MaxDepth(2)).status.ok());
}

TEST(MsgpackReaderErrors, StringTooLargeForStrBinAndExt) {
  EXPECT_REFUSED(CheckHex("91 a4 61 62 63 64", MaxString(3)), "string_too_large", 1, "/0");
  EXPECT_REFUSED(CheckHex("81 a1 6b c4 04 00 00 00 00", MaxString(3)), "string_too_large", 3, "/k");
  EXPECT_REFUSED(CheckHex("92 00 c7 04 01 00 00 00 00", MaxString(3)), "string_too_large", 2, "/1");
  EXPECT_REFUSED(CheckHex("d6 01 00 00 00 00", MaxString(3)), "string_too_large", 0, "");
  EXPECT_TRUE(CheckHex("a3 61 62 63", MaxString(3)).status.ok());
}

TEST(MsgpackReaderErrors, TooManyItemsForArraysAndMaps) {
  EXPECT_REFUSED(CheckHex("93 01 02 03", MaxItems(2)), "too_many_items", 0, "");
  EXPECT_REFUSED(CheckHex("91 83 01 c0 02 c0 03 c0", MaxItems(2)), "too_many_items", 1, "/0");
  EXPECT_REFUSED(CheckHex("dc 00 03 01 02 03", MaxItems(2)), "too_many_items", 0, "");
  EXPECT_TRUE(CheckHex("82 01 c0 02 c0", MaxItems(2)).status.ok());
}

TEST(MsgpackReaderErrors, BudgetExceededWhenTheContainerStackMustGrow) {
  // 64 nested arrays: the reader's container stack outgrows its first block somewhere
  // along the way, and 1000 bytes do not pay for the next one. Refused at that array.
  const std::string input = std::string(64, '\x91') + Hex("00");
  Result r = Check(Format::kMsgpack, input, MaxAlloc(1000));
  EXPECT_EQ(CodeName(r.status.code), "budget_exceeded");
  ASSERT_GT(r.status.offset, 0u);
  ASSERT_LT(r.status.offset, 64u);
  std::string path;
  for (uint64_t i = 0; i < r.status.offset; ++i) path += "/0";
  EXPECT_EQ(r.status.path, path);
  EXPECT_LE(r.stats.peak_bytes, 1000u);
  EXPECT_TRUE(Check(Format::kMsgpack, input, MaxAlloc(1 << 16)).status.ok());
}

TEST(MsgpackReaderErrors, DuplicateKeyAtTheSecondKey) {
  EXPECT_REFUSED(CheckHex("82 a1 61 01 a1 61 02"), "duplicate_key", 4, "/a");
  EXPECT_REFUSED(CheckHex("82 01 c0 01 c0"), "duplicate_key", 3, "/1");
  EXPECT_REFUSED(CheckHex("82 ff c0 ff c0"), "duplicate_key", 3, "/-1");
  // The same integer in two encodings (fixint and uint8, negative fixint and int16).
  EXPECT_REFUSED(CheckHex("82 01 c0 cc 01 c0"), "duplicate_key", 3, "/1");
  EXPECT_REFUSED(CheckHex("82 e0 c0 d1 ff e0 c0"), "duplicate_key", 3, "/-32");
  // The same text as fixstr and str8.
  EXPECT_REFUSED(CheckHex("82 a1 61 c0 d9 01 61 c0"), "duplicate_key", 4, "/a");
  EXPECT_REFUSED(CheckHex("82 c4 01 00 01 c4 01 00 02"), "duplicate_key", 5, std::string("/\0", 2));
  // Keys of different types never collide: 1, "1", bin "1", -1.
  EXPECT_TRUE(CheckHex("84 01 c0 a1 31 c0 c4 01 31 c0 ff c0").status.ok());
  // The same key in sibling and nested maps is no duplicate.
  EXPECT_TRUE(CheckHex("92 81 a1 61 00 81 a1 61 81 a1 61 00").status.ok());
}

// nil, bool and float keys are compared by value: float32 and float64 of one value (the
// writers give one value one encoding) are one key, every NaN is one key.
TEST(MsgpackReaderErrors, DuplicateNilBoolAndFloatKeys) {
  EXPECT_REFUSED(CheckHex("82 c0 00 c0 00"), "duplicate_key", 3, "/null");
  EXPECT_REFUSED(CheckHex("82 c2 00 c2 00"), "duplicate_key", 3, "/false");
  EXPECT_REFUSED(CheckHex("82 ca 3f c0 00 00 00 cb 3f f8 00 00 00 00 00 00 00"), "duplicate_key", 7,
                 "/1.5");
  EXPECT_REFUSED(CheckHex("82 ca 7f c0 00 00 00 cb 7f f0 00 00 00 00 00 01 00"), "duplicate_key", 7,
                 "/nan");
  EXPECT_TRUE(CheckHex("84 c0 00 c2 00 c3 00 ca 00 00 00 00 00").status.ok());
  EXPECT_TRUE(CheckHex("82 ca 00 00 00 00 00 ca 80 00 00 00 00").status.ok());
  EXPECT_REFUSED(RunTranscode(Format::kMsgpack, Format::kCbor, Hex("82 c3 00 c3 00")),
                 "duplicate_key", 3, "/true");
}

TEST(MsgpackReaderErrors, DuplicateKeysAllowedByOption) {
  MappingOptions allow;
  allow.allow_duplicate_keys = true;
  EXPECT_TRUE(CheckHex("82 a1 61 01 a1 61 02", {}, allow).status.ok());
  EXPECT_OUTPUT(
      RunTranscode(Format::kMsgpack, Format::kMsgpack, Hex("82 a1 61 01 a1 61 02"), {}, allow),
      "82a16101a16102");
  EXPECT_OUTPUT(
      RunTranscode(Format::kMsgpack, Format::kCbor, Hex("82 a1 61 01 a1 61 02"), {}, allow),
      "a2616101616102");
}

TEST(MsgpackReaderErrors, UnrepresentableFromTheWriterIsLocatedByTheReader) {
  EXPECT_REFUSED(MsgpackToJson("92 01 d4 05 00"), "unrepresentable", 2, "/1");  // ext into JSON
  EXPECT_REFUSED(MsgpackToJson("81 c4 01 00 00"), "unrepresentable", 1, "");    // bin key into JSON
  EXPECT_REFUSED(MsgpackToJson("81 a1 6e cb 7f f8 00 00 00 00 00 00"), "unrepresentable", 3,
                 "/n");  // NaN
}

TEST(MsgpackReaderErrors, TrailingDataAfterTheObject) {
  EXPECT_REFUSED(CheckHex("01 02"), "trailing_data", 1, "");
  EXPECT_REFUSED(CheckHex("91 01 02"), "trailing_data", 2, "");
}

TEST(MsgpackReaderErrors, InputTooLargeBeforeAnythingIsRead) {
  EXPECT_REFUSED(CheckHex("93 01 02 03", MaxInput(3)), "input_too_large", 3, "");
  EXPECT_REFUSED(RunTranscode(Format::kMsgpack, Format::kCbor, Hex("93 01 02 03"), MaxInput(3)),
                 "input_too_large", 3, "");
  EXPECT_TRUE(CheckHex("93 01 02 03", MaxInput(4)).status.ok());
}

// ---- claim guards: a claim never costs more than the bytes behind it ----

TEST(MsgpackClaimGuard, MsgpackStr32Claiming4GiBIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("db ff ff ff ff 61 62", "truncated", 0, "", 0xffffffffu);
}

TEST(MsgpackClaimGuard, MsgpackBin32Claiming4GiBIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("c6 ff ff ff ff 00 01", "truncated", 0, "", 0xffffffffu);
}

TEST(MsgpackClaimGuard, MsgpackExt32Claiming4GiBIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("c9 ff ff ff ff 05 00", "truncated", 0, "", 0xffffffffu);
}

TEST(MsgpackClaimGuard, MsgpackTimestampExtClaiming4GiBIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("91 c9 ff ff ff ff ff 00 00 00 00", "truncated", 1, "/0", 0xffffffffu);
}

TEST(MsgpackClaimGuard, MsgpackArray32Claiming4GiItemsIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("dd ff ff ff ff 00 00", "truncated", 0, "", 0xffffffffu);
}

TEST(MsgpackClaimGuard, MsgpackMap32Claiming4GiPairsIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("df ff ff ff ff a1 61 00", "truncated", 0, "", 0xffffffffu);
}

TEST(MsgpackClaimGuard, MsgpackMapClaimingTwiceAsManyPairsAsBytesIsRefused) {
  // 65535 pairs need at least 131070 bytes; 1000 remain.
  ExpectClaimRefused("de ff ff" + std::string(2000, '0'), "truncated", 0, "", 131070);
}

TEST(MsgpackClaimGuard, MsgpackClaimWithinTheBytesButPastMaxItemsIsRefusedBeforeAllocating) {
  const std::string input = Big(0xdc, 1000, 2) + std::string(1000, '\x00');
  Result r = Check(Format::kMsgpack, input, MaxItems(10));
  EXPECT_REFUSED(r, "too_many_items", 0, "");
  EXPECT_NOTHING_ALLOCATED_FOR(r, 1000);
}

TEST(MsgpackClaimGuard, MsgpackNestedClaimsAreEachCheckedAgainstTheBytesLeft) {
  ExpectClaimRefused("91 91 91 dd ff ff ff ff 00", "truncated", 3, "/0/0/0", 0xffffffffu);
  ExpectClaimRefused("92 91 00 dc ff ff 00 00", "truncated", 3, "/1", 0xffff);
  ExpectClaimRefused("81 a1 61 c6 ff ff ff ff 00", "truncated", 3, "/a", 0xffffffffu);
  // A key that claims 4 GiB.
  ExpectClaimRefused("81 db ff ff ff ff 00", "truncated", 1, "", 0xffffffffu);
}

// ---- nesting and keys at scale ----

TEST(MsgpackReaderScale, HundredThousandNestedArraysAreRefusedWithoutCrashing) {
  const std::string input = std::string(100000, '\x91') + Hex("00");
  std::string path;
  for (int i = 0; i < 128; ++i) path += "/0";
  Result v = Check(Format::kMsgpack, input);
  EXPECT_REFUSED(v, "depth_exceeded", 128, path);
  EXPECT_LT(v.stats.peak_bytes, 64u << 10);
  for (Format to : {Format::kJson, Format::kCbor, Format::kMsgpack}) {
    EXPECT_REFUSED(RunTranscode(Format::kMsgpack, to, input), "depth_exceeded", 128, path);
  }
  // Maps nest the same way: {"": {"": ...}}.
  std::string maps;
  for (int i = 0; i < 100000; ++i) maps += Hex("81 a0");
  std::string map_path;
  for (int i = 0; i < 128; ++i) map_path += "/";
  EXPECT_REFUSED(Check(Format::kMsgpack, maps), "depth_exceeded", 256, map_path);
}

TEST(MsgpackReaderScale, HundredThousandNestedArraysUnderAHighLimitUseNoMachineStack) {
  Limits deep;
  deep.max_depth = 200000;
  const std::string input = std::string(100000, '\x91') + Hex("00");
  EXPECT_TRUE(Check(Format::kMsgpack, input, deep).status.ok());
  Result r = RunTranscode(Format::kMsgpack, Format::kMsgpack, input, deep);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(r.out.size(), 2 * input.size());
}

std::string BigMap(uint32_t n, bool duplicate_last) {
  std::string out = Big(0xdf, n + duplicate_last, 4);
  for (uint32_t i = 0; i < n; ++i) {
    std::string key = "k";
    key += std::to_string(i);
    out += static_cast<char>(0xa0 | key.size());
    out += key;
    out += '\xc0';
  }
  if (duplicate_last) out += Hex("a2 6b 30 c0");
  return out;
}

TEST(MsgpackReaderScale, MapOf200000DistinctKeysIsAcceptedFast) {
  const std::string input = BigMap(200000, false);
  const auto t0 = std::chrono::steady_clock::now();
  Result r = Check(Format::kMsgpack, input);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_TRUE(RunTranscode(Format::kMsgpack, Format::kJson, input).status.ok());
}

TEST(MsgpackReaderScale, DuplicateAtTheEndOfA200000KeyMapIsCaught) {
  const std::string input = BigMap(200000, true);
  const uint64_t last_key = input.size() - 4;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_REFUSED(Check(Format::kMsgpack, input), "duplicate_key", last_key, "/k0");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_REFUSED(RunTranscode(Format::kMsgpack, Format::kCbor, input), "duplicate_key", last_key,
                 "/k0");
}

}  // namespace
}  // namespace rosetta::codec::testing
