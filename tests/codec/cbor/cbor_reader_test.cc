// codec/src/cbor/cbor_reader.h: every error the CBOR reader reports, with its code, byte
// offset and JSON Pointer path; the claim guards, each named for the attack it stops;
// nesting and duplicate keys at scale. Inputs are hand-written hex (RFC 8949).
#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "codec_test_support.h"

namespace rosetta::codec::testing {
namespace {

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// CBOR head for major type `major` and argument `v` in its shortest form.
std::string Head(uint8_t major, uint64_t v) {
  std::string h;
  const char m = static_cast<char>(major << 5);
  if (v < 24) return std::string(1, static_cast<char>(m | v));
  int bytes = v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffff ? 4 : 8;
  h.push_back(static_cast<char>(m | (bytes == 1 ? 24 : bytes == 2 ? 25 : bytes == 4 ? 26 : 27)));
  for (int i = bytes - 1; i >= 0; --i) h.push_back(static_cast<char>(v >> (8 * i)));
  return h;
}

std::string TextItem(std::string_view s) { return Head(3, s.size()) + std::string(s); }

// A claim refused both when validating and when transcoding, with nothing allocated for it.
void ExpectClaimRefused(std::string_view hex, const char* code, uint64_t at, const char* path,
                        uint64_t claim, const Limits& limits = {}) {
  const std::string input = Hex(hex);
  Result v = Check(Format::kCbor, input, limits);
  EXPECT_REFUSED(v, code, at, path);
  EXPECT_NOTHING_ALLOCATED_FOR(v, claim);
  for (Format to : {Format::kJson, Format::kCbor, Format::kMsgpack}) {
    SCOPED_TRACE(std::string("to ") + std::string(FormatName(to)));
    Result t = RunTranscode(Format::kCbor, to, input, limits);
    EXPECT_REFUSED(t, code, at, path);
    EXPECT_NOTHING_ALLOCATED_FOR(t, claim);
  }
}

// ---- every error code, located ----

TEST(CborReaderErrors, TruncatedInsideAnItemReportsTheItemAndItsPath) {
  // [1, 0x19 0x01 ...]: a uint16 head with one of its two bytes.
  EXPECT_REFUSED(Check(Format::kCbor, Hex("82 01 19 01")), "truncated", 2, "/1");
  // {"a": <nothing>} when the map's claim still fits the bytes left.
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a1 61 61")), "truncated", 3, "/a");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("9f 01 02")), "truncated", 3, "/2");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("")), "truncated", 0, "");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("f8")), "truncated", 0, "");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("fb 00 00")), "truncated", 0, "");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a1 61 61 c2")), "truncated", 4, "/a");
}

TEST(CborReaderErrors, EveryProperPrefixOfADocumentIsTruncated) {
  // {"a": [1, -500, 1.5, h'0102', "xyz", [_ "a", "b"], true, 1(0)], "b": {1: null}}
  const std::string doc =
      Hex("a2 61 61 88 01 39 01 f3 f9 3e 00 42 01 02 63 78 79 7a 7f 61 61 61 62 ff f5 c1 00 61 62 "
          "a1 01 f6");
  ASSERT_TRUE(Check(Format::kCbor, doc).status.ok());
  for (size_t n = 0; n < doc.size(); ++n) {
    Result r = Check(Format::kCbor, doc.substr(0, n));
    EXPECT_EQ(CodeName(r.status.code), "truncated")
        << "prefix of " << n << " bytes: " << r.status.message;
    EXPECT_LE(r.status.offset, n);
  }
}

TEST(CborReaderErrors, SyntaxErrorsAreLocated) {
  EXPECT_REFUSED(Check(Format::kCbor, Hex("81 1c")), "syntax", 1, "/0");     // reserved ai 28
  EXPECT_REFUSED(Check(Format::kCbor, Hex("82 00 1f")), "syntax", 2, "/1");  // indefinite integer
  EXPECT_REFUSED(Check(Format::kCbor, Hex("ff")), "syntax", 0, "");          // break outside
  EXPECT_REFUSED(Check(Format::kCbor, Hex("81 ff")), "syntax", 1,
                 "/0");  // break in a definite array
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a1 61 61 df")), "syntax", 3, "/a");  // tag ai 31
  EXPECT_REFUSED(Check(Format::kCbor, Hex("bf 61 61 ff")), "syntax", 3, "/a");  // break after a key
  EXPECT_REFUSED(Check(Format::kCbor, Hex("f8 17")), "syntax", 0, "");  // simple 23 in two bytes
  EXPECT_REFUSED(Check(Format::kCbor, Hex("82 01 fc")), "syntax", 2, "/1");  // reserved simple ai
  // An indefinite string's chunks must be definite strings of the same major type.
  EXPECT_REFUSED(Check(Format::kCbor, Hex("5f 61 61 ff")), "syntax", 1, "");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("7f 7f 61 61 ff ff")), "syntax", 1, "");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("81 7f 61 61 01 ff")), "syntax", 4, "/0");
}

TEST(CborReaderErrors, InvalidUtf8InTextIsLocatedAtTheString) {
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a1 61 61 62 c3 28")), "invalid_utf8", 3, "/a");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("82 00 63 ed a0 80")), "invalid_utf8", 2,
                 "/1");                                                          // a surrogate
  EXPECT_REFUSED(Check(Format::kCbor, Hex("62 c0 80")), "invalid_utf8", 0, "");  // overlong
  // A key is text too.
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a1 61 ff 00")), "invalid_utf8", 1, "");
  // Byte strings carry no UTF-8 rule.
  EXPECT_TRUE(Check(Format::kCbor, Hex("42 c3 28")).status.ok());
}

TEST(CborReaderErrors, EveryChunkOfAnIndefiniteTextStringMustBeValidUtf8) {
  // "\xc3\xa9" split across two chunks: each chunk alone is invalid (RFC 8949 3.2.3).
  EXPECT_REFUSED(Check(Format::kCbor, Hex("7f 61 c3 61 a9 ff")), "invalid_utf8", 1, "");
  EXPECT_OUTPUT(CborToCbor("7f 62 c3 a9 61 61 ff"), "63c3a961");
}

TEST(CborReaderErrors, DepthExceededAtTheContainerThatOpensPastTheLimit) {
  EXPECT_REFUSED(Check(Format::kCbor, Hex("81 81 81 00"), MaxDepth(2)), "depth_exceeded", 2,
                 "/0/0");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a1 61 78 9f bf ff ff"), MaxDepth(2)), "depth_exceeded",
                 4, "/x/0");
  EXPECT_TRUE(Check(Format::kCbor, Hex("81 81 00"), MaxDepth(2)).status.ok());
}

TEST(CborReaderErrors, StringTooLargeAtTheStringThatPassesMaxStringBytes) {
  EXPECT_REFUSED(Check(Format::kCbor, Hex("81 64 61 62 63 64"), MaxString(3)), "string_too_large",
                 1, "/0");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a1 61 6b 44 00 00 00 00"), MaxString(3)),
                 "string_too_large", 3, "/k");
  EXPECT_TRUE(Check(Format::kCbor, Hex("63 61 62 63"), MaxString(3)).status.ok());
  // Chunks of 2 + 2 bytes: each fits, their total does not.
  EXPECT_REFUSED(Check(Format::kCbor, Hex("82 00 5f 42 00 00 42 00 00 ff"), MaxString(3)),
                 "string_too_large", 2, "/1");
}

TEST(CborReaderErrors, TooManyItemsForDefiniteAndIndefiniteContainers) {
  EXPECT_REFUSED(Check(Format::kCbor, Hex("83 01 02 03"), MaxItems(2)), "too_many_items", 0, "");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("81 a3 01 00 02 00 03 00"), MaxItems(2)),
                 "too_many_items", 1, "/0");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("9f 01 02 03 ff"), MaxItems(2)), "too_many_items", 3,
                 "/2");
  // The third pair is refused at its key, where the map is the path.
  EXPECT_REFUSED(Check(Format::kCbor, Hex("bf 01 00 02 00 03 00 ff"), MaxItems(2)),
                 "too_many_items", 5, "");
  EXPECT_TRUE(Check(Format::kCbor, Hex("9f 01 02 ff"), MaxItems(2)).status.ok());
  EXPECT_TRUE(Check(Format::kCbor, Hex("a2 01 00 02 00"), MaxItems(2)).status.ok());
}

TEST(CborReaderErrors, BudgetExceededWhenChunksMustBeJoined) {
  // [(_ 1500 bytes, 1500 bytes)]: joining the chunks needs 3000 bytes; the budget is 2048.
  const std::string chunk = Head(2, 1500) + std::string(1500, 'x');
  const std::string input = Hex("81 5f") + chunk + chunk + Hex("ff");
  Result r = Check(Format::kCbor, input, MaxAlloc(2048));
  EXPECT_REFUSED(r, "budget_exceeded", 1, "/0");
  EXPECT_LE(r.stats.peak_bytes, 2048u);
  EXPECT_TRUE(Check(Format::kCbor, input, MaxAlloc(8192)).status.ok());
}

TEST(CborReaderErrors, DuplicateKeyAtTheSecondKey) {
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a2 61 61 01 61 61 02")), "duplicate_key", 4, "/a");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a2 01 00 01 00")), "duplicate_key", 3, "/1");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a2 20 00 20 00")), "duplicate_key", 3, "/-1");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a2 41 00 01 41 00 02")), "duplicate_key", 4,
                 std::string("/\0", 2));
  EXPECT_REFUSED(Check(Format::kCbor, Hex("bf 61 62 f6 61 62 f6 ff")), "duplicate_key", 4, "/b");
  // RFC 6901: '/' and '~' in a key are escaped in the path.
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a2 63 61 2f 7e 00 63 61 2f 7e 00")), "duplicate_key", 6,
                 "/a~1~0");
  // Keys of different types never collide: 1, "1", h'31', -2 and 1.0.
  EXPECT_TRUE(
      Check(Format::kCbor, Hex("a5 01 00 61 31 00 41 31 00 21 00 f9 3c 00 00")).status.ok());
  // The same key in sibling maps and in nested maps is no duplicate.
  EXPECT_TRUE(Check(Format::kCbor, Hex("82 a1 61 61 00 a1 61 61 a1 61 61 00")).status.ok());
}

// Float and simple keys are compared by value: a float in any width (the writers give one
// value one encoding), every NaN as one; 0.0 and -0.0 differ.
TEST(CborReaderErrors, DuplicateFloatAndSimpleKeys) {
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a2 f9 3e 00 00 fb 3f f8 00 00 00 00 00 00 00")),
                 "duplicate_key", 5, "/1.5");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a2 f9 7e 00 00 fa 7f c0 00 01 00")), "duplicate_key", 5,
                 "/nan");
  EXPECT_TRUE(Check(Format::kCbor, Hex("a2 f9 00 00 00 f9 80 00 00")).status.ok());
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a2 f6 00 f6 00")), "duplicate_key", 3, "/null");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a2 f5 00 f5 00")), "duplicate_key", 3, "/true");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("a2 e5 00 e5 00")), "duplicate_key", 3, "/simple(5)");
  EXPECT_REFUSED(CborToCbor("a2 f8 20 00 f8 20 00"), "duplicate_key", 4, "/simple(32)");
  // null, undefined, false, true, simple(0): distinct in CBOR.
  EXPECT_OUTPUT(CborToCbor("a5 f6 00 f7 00 f4 00 f5 00 e0 00"), "a5f600f700f400f500e000");
  // MessagePack has no undefined: it becomes nil, the same key as null there.
  EXPECT_REFUSED(CborToMsgpack("a2 f6 00 f7 00"), "duplicate_key", 3, "/undefined");
  // A float and the integer of its value are distinct keys in both binary formats.
  EXPECT_OUTPUT(CborToMsgpack("a2 01 00 f9 3c 00 00"), "820100ca3f80000000");
}

TEST(CborReaderErrors, DuplicateKeysAllowedByOption) {
  MappingOptions allow;
  allow.allow_duplicate_keys = true;
  EXPECT_TRUE(Check(Format::kCbor, Hex("a2 61 61 01 61 61 02"), {}, allow).status.ok());
  EXPECT_OUTPUT(RunTranscode(Format::kCbor, Format::kCbor, Hex("a2 61 61 01 61 61 02"), {}, allow),
                "a2616101616102");
}

TEST(CborReaderErrors, UnrepresentableFromTheWriterIsLocatedByTheReader) {
  // [0, NaN] into JSON: the writer refuses, the reader says where.
  EXPECT_REFUSED(CborToJson("82 00 f9 7e 00"), "unrepresentable", 2, "/1");
  // {1.5: 0} into JSON: a float key.
  EXPECT_REFUSED(CborToJson("a1 f9 3e 00 00"), "unrepresentable", 1, "");
}

TEST(CborReaderErrors, TrailingDataAfterTheItem) {
  EXPECT_REFUSED(Check(Format::kCbor, Hex("01 02")), "trailing_data", 1, "");
  EXPECT_REFUSED(Check(Format::kCbor, Hex("81 01 ff")), "trailing_data", 2, "");
}

TEST(CborReaderErrors, InputTooLargeBeforeAnythingIsRead) {
  Result r = Check(Format::kCbor, Hex("83 01 02 03"), MaxInput(3));
  EXPECT_REFUSED(r, "input_too_large", 3, "");
  EXPECT_REFUSED(RunTranscode(Format::kCbor, Format::kJson, Hex("83 01 02 03"), MaxInput(3)),
                 "input_too_large", 3, "");
  EXPECT_TRUE(Check(Format::kCbor, Hex("83 01 02 03"), MaxInput(4)).status.ok());
}

// ---- claim guards: a claim never costs more than the bytes behind it ----

TEST(CborClaimGuard, CborByteStringClaiming4GiBIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("5a ff ff ff ff 00 01 02 03", "truncated", 0, "", 0xffffffffu);
}

TEST(CborClaimGuard, CborTextStringClaiming2To63BytesIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("7b 7f ff ff ff ff ff ff ff 61", "truncated", 0, "", 0x7fffffffffffffffull);
}

TEST(CborClaimGuard, CborTextStringClaiming2To64Minus1BytesIsRefusedWithoutOverflow) {
  ExpectClaimRefused("7b ff ff ff ff ff ff ff ff 61", "truncated", 0, "", ~uint64_t{0});
}

TEST(CborClaimGuard, CborArrayClaiming4GiItemsIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("9a ff ff ff ff 00 00", "truncated", 0, "", 0xffffffffu);
}

TEST(CborClaimGuard, CborArrayClaiming2To64Minus1ItemsIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("9b ff ff ff ff ff ff ff ff 00", "truncated", 0, "", ~uint64_t{0});
}

TEST(CborClaimGuard, CborMapClaimingTwiceAsManyPairsAsBytesIsRefused) {
  // 65535 pairs need at least 131070 bytes; 1000 remain.
  ExpectClaimRefused("b9 ff ff" + std::string(2000, '0'), "truncated", 0, "", 131070);
  // A pair count whose doubling overflows 64 bits.
  ExpectClaimRefused("bb 80 00 00 00 00 00 00 01 00 00", "truncated", 0, "", 0x8000000000000001ull);
}

TEST(CborClaimGuard, CborMapClaiming4GiPairsIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("ba ff ff ff ff 61 61 00", "truncated", 0, "", 0xffffffffu);
}

TEST(CborClaimGuard, CborClaimWithinTheBytesButPastMaxItemsIsRefusedBeforeAllocating) {
  const std::string input = Head(4, 1000) + std::string(1000, '\x00');
  Result r = Check(Format::kCbor, input, MaxItems(10));
  EXPECT_REFUSED(r, "too_many_items", 0, "");
  EXPECT_NOTHING_ALLOCATED_FOR(r, 1000);
}

TEST(CborClaimGuard, CborIndefiniteStringChunkClaiming4GiBIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("5f 41 00 5a ff ff ff ff 00 ff", "truncated", 3, "", 0xffffffffu);
  ExpectClaimRefused("82 00 7f 7b ff ff ff ff ff ff ff ff 61 ff", "truncated", 3, "/1",
                     ~uint64_t{0});
}

TEST(CborClaimGuard, CborManyChunksAreJoinedOnlyAfterTheirTotalIsKnown) {
  // 1000 one-byte chunks then no break: refused before any block is allocated for them.
  const std::string input = Hex("5f") + Repeat(Hex("41 00"), 1000);
  Result r = Check(Format::kCbor, input);
  EXPECT_REFUSED(r, "truncated", 0, "");
  EXPECT_NOTHING_ALLOCATED_FOR(r, 1000);
}

TEST(CborClaimGuard, CborNestedClaimsAreEachCheckedAgainstTheBytesLeft) {
  // Each outer claim fits; the innermost claims 4 GiB.
  ExpectClaimRefused("81 81 81 81 5a ff ff ff ff 00", "truncated", 4, "/0/0/0/0", 0xffffffffu);
  // An outer array of two claims: the second is the lie.
  ExpectClaimRefused("82 81 00 9a 00 ff ff ff 00 00", "truncated", 3, "/1", 0xffffffu);
  // A map whose value claims 2^32 items.
  ExpectClaimRefused("a1 61 61 9b 00 00 00 01 00 00 00 00 00", "truncated", 3, "/a",
                     uint64_t{1} << 32);
}

TEST(CborClaimGuard, CborClaimUnderATagIsRefusedWithNothingAllocated) {
  // Bignum (tag 2) claiming 2^63 bytes of magnitude.
  ExpectClaimRefused("82 00 c2 5b 7f ff ff ff ff ff ff ff 00", "truncated", 3, "/1",
                     0x7fffffffffffffffull);
  // A MessagePack ext tag over an array claim, and tags on tags.
  ExpectClaimRefused("da 6d 70 00 01 9a ff ff ff ff", "truncated", 5, "", 0xffffffffu);
  ExpectClaimRefused("c1 d8 36 d9 03 e9 ba ff ff ff ff", "truncated", 6, "", 0xffffffffu);
}

TEST(CborClaimGuard, CborClaimUnderATaggedKeyIsRefusedWithNothingAllocated) {
  ExpectClaimRefused("a1 c2 5a ff ff ff ff 00", "truncated", 2, "", 0xffffffffu);
}

// ---- nesting and keys at scale ----

TEST(CborReaderScale, HundredThousandNestedArraysAreRefusedWithoutCrashing) {
  const std::string input = std::string(100000, '\x81') + Hex("00");
  std::string path;
  for (int i = 0; i < 128; ++i) path += "/0";
  Result v = Check(Format::kCbor, input);
  EXPECT_REFUSED(v, "depth_exceeded", 128, path);
  EXPECT_LT(v.stats.peak_bytes, 64u << 10);
  for (Format to : {Format::kJson, Format::kCbor, Format::kMsgpack}) {
    EXPECT_REFUSED(RunTranscode(Format::kCbor, to, input), "depth_exceeded", 128, path);
  }
  // Indefinite-length arrays take the same path.
  EXPECT_REFUSED(Check(Format::kCbor, std::string(100000, '\x9f')), "depth_exceeded", 128, path);
}

TEST(CborReaderScale, HundredThousandNestedArraysUnderAHighLimitUseNoMachineStack) {
  // The reader and writers keep containers on heap stacks, so a deep document that the
  // limits allow is read iteratively rather than by recursion.
  Limits deep;
  deep.max_depth = 200000;
  const std::string input = std::string(100000, '\x81') + Hex("00");
  EXPECT_TRUE(Check(Format::kCbor, input, deep).status.ok());
  Result r = RunTranscode(Format::kCbor, Format::kCbor, input, deep);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(r.out.size(), 2 * input.size());
  Result j = RunTranscode(Format::kCbor, Format::kJson, input, deep);
  EXPECT_TRUE(j.status.ok()) << j.status.message;
  EXPECT_EQ(j.out, std::string(100000, '[') + "0" + std::string(100000, ']'));
}

std::string BigMap(size_t n, bool duplicate_last) {
  std::string body;
  for (size_t i = 0; i < n; ++i) {
    std::string key = "k";
    key += std::to_string(i);
    body += TextItem(key);
    body += '\xf6';
  }
  if (duplicate_last) body += TextItem("k0") + Hex("f6");
  return Head(5, n + duplicate_last) + body;
}

TEST(CborReaderScale, MapOf200000DistinctKeysIsAcceptedFast) {
  const std::string input = BigMap(200000, false);
  const auto t0 = std::chrono::steady_clock::now();
  Result r = Check(Format::kCbor, input);
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  // Linear in the keys: a quadratic check would take minutes here.
  EXPECT_LT(elapsed, std::chrono::seconds(2));
  EXPECT_TRUE(RunTranscode(Format::kCbor, Format::kJson, input).status.ok());
}

TEST(CborReaderScale, DuplicateAtTheEndOfA200000KeyMapIsCaught) {
  const std::string input = BigMap(200000, true);
  const uint64_t last_key = input.size() - 4;  // "k0" (3 bytes) then null
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_REFUSED(Check(Format::kCbor, input), "duplicate_key", last_key, "/k0");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_REFUSED(RunTranscode(Format::kCbor, Format::kMsgpack, input), "duplicate_key", last_key,
                 "/k0");
  // Integer keys too.
  std::string ints = Head(5, 200001);
  for (uint64_t i = 0; i < 200000; ++i) ints += Head(0, i) + Hex("f6");
  const uint64_t last = ints.size();
  ints += Head(0, 199999) + Hex("f6");
  EXPECT_REFUSED(Check(Format::kCbor, ints), "duplicate_key", last, "/199999");
}

}  // namespace
}  // namespace rosetta::codec::testing
