// codec/src/cbor/cbor_writer.h: preferred serialization (RFC 8949 4.1 and 4.2.2), the
// LengthSlot for containers of unknown length, limits, and what other formats become in
// CBOR. Expected bytes are written by hand from RFC 8949 (Appendix A where it has the
// value) and the MessagePack spec.
#include <string>

#include <gtest/gtest.h>

#include "cbor/cbor_writer.h"
#include "codec_test_support.h"
#include "core/context.h"

namespace rosetta::codec::testing {
namespace {

std::string HexOf(uint8_t b) { return ToHex(std::string(1, static_cast<char>(b))); }

// The head of major type `major` with argument n, from RFC 8949 3.1 (shortest form).
std::string HeadHex(uint8_t major, uint64_t n) {
  const uint8_t m = static_cast<uint8_t>(major << 5);
  if (n < 24) return HexOf(m | n);
  std::string h;
  int bytes = n <= 0xff ? 1 : n <= 0xffff ? 2 : n <= 0xffffffff ? 4 : 8;
  h = HexOf(m | (bytes == 1 ? 24 : bytes == 2 ? 25 : bytes == 4 ? 26 : 27));
  for (int i = bytes - 1; i >= 0; --i) h += HexOf(static_cast<uint8_t>(n >> (8 * i)));
  return h;
}

TEST(CborWriterPreferred, IntegersUseTheShortestHead) {
  // RFC 8949 Appendix A.
  const std::pair<const char*, const char*> cases[] = {
      {"0", "00"},
      {"1", "01"},
      {"10", "0a"},
      {"23", "17"},
      {"24", "1818"},
      {"25", "1819"},
      {"100", "1864"},
      {"255", "18ff"},
      {"256", "190100"},
      {"1000", "1903e8"},
      {"65535", "19ffff"},
      {"65536", "1a00010000"},
      {"1000000", "1a000f4240"},
      {"4294967295", "1affffffff"},
      {"4294967296", "1b0000000100000000"},
      {"1000000000000", "1b000000e8d4a51000"},
      {"18446744073709551615", "1bffffffffffffffff"},
      {"-1", "20"},
      {"-10", "29"},
      {"-24", "37"},
      {"-25", "3818"},
      {"-100", "3863"},
      {"-256", "38ff"},
      {"-257", "390100"},
      {"-1000", "3903e7"},
      {"-18446744073709551616", "3bffffffffffffffff"},
  };
  for (const auto& [json, cbor] : cases) {
    SCOPED_TRACE(json);
    EXPECT_OUTPUT(JsonToCbor(json), cbor);
    EXPECT_OUTPUT(JsonToCbor(std::string("[") + json + "]"), std::string("81") + cbor);
  }
}

TEST(CborWriterPreferred, LongerHeadsInTheInputComeOutShortest) {
  EXPECT_OUTPUT(CborToCbor("1b 00 00 00 00 00 00 00 01"), "01");
  EXPECT_OUTPUT(CborToCbor("19 00 17"), "17");
  EXPECT_OUTPUT(CborToCbor("3a 00 00 00 ff"), "38ff");
  EXPECT_OUTPUT(CborToCbor("59 00 01 61"), "4161");
  EXPECT_OUTPUT(CborToCbor("7a 00 00 00 01 61"), "6161");
  EXPECT_OUTPUT(CborToCbor("9a 00 00 00 01 00"), "8100");
  EXPECT_OUTPUT(CborToCbor("b8 01 00 00"), "a10000");
  EXPECT_OUTPUT(CborToCbor("d8 01 1a 00 00 00 01"), "c101");  // tag 1 in two bytes
  EXPECT_OUTPUT(CborToCbor("db 00 00 00 00 6d 70 00 05 40"), "da6d70000540");
  // Indefinite lengths become definite (RFC 8949 4.2.1).
  EXPECT_OUTPUT(CborToCbor("5f 41 01 42 02 03 ff"), "43010203");
  EXPECT_OUTPUT(CborToCbor("7f 61 61 60 61 62 ff"), "626162");
  EXPECT_OUTPUT(CborToCbor("5f ff"), "40");
  EXPECT_OUTPUT(CborToCbor("9f 01 9f ff ff"), "820180");
  EXPECT_OUTPUT(CborToCbor("bf 61 61 01 ff"), "a1616101");
}

TEST(CborWriterPreferred, FloatsTakeTheShortestWidthThatHoldsTheValueExactly) {
  // RFC 8949 Appendix A, from JSON text (the JSON reader gives doubles).
  const std::pair<const char*, const char*> cases[] = {
      {"0.0", "f90000"},
      {"-0.0", "f98000"},
      {"1.0", "f93c00"},
      {"1.1", "fb3ff199999999999a"},
      {"1.5", "f93e00"},
      {"65504.0", "f97bff"},
      {"100000.0", "fa47c35000"},
      {"3.4028234663852886e+38", "fa7f7fffff"},
      {"1.0e+300", "fb7e37e43c8800759c"},
      {"5.960464477539063e-8", "f90001"},  // the smallest half subnormal, 2^-24
      {"0.00006103515625", "f90400"},      // the smallest half normal, 2^-14
      {"-4.0", "f9c400"},
      {"-4.1", "fbc010666666666666"},
      // Boundaries worked out by hand: binary16 has 10 fraction bits, binary32 has 23.
      {"1.0009765625", "f93c01"},                           // 1 + 2^-10: half
      {"1.00048828125", "fa3f801000"},                      // 1 + 2^-11: single
      {"65505.0", "fa477fe100"},                            // past half's 11 significant bits
      {"65520.0", "fa477ff000"},                            // would round to half's infinity
      {"2.98023223876953125e-8", "fa33000000"},             // 2^-25: below half's subnormals
      {"3.0000002384185791015625", "fa40400001"},           // 3 + 2^-22: single
      {"3.00000011920928955078125", "fb4008000010000000"},  // 3 + 2^-23: double only
  };
  for (const auto& [json, cbor] : cases) {
    SCOPED_TRACE(json);
    EXPECT_OUTPUT(JsonToCbor(json), cbor);
  }
}

TEST(CborWriterPreferred, NonFiniteValuesAreHalvesAndNaNIsCanonical) {
  EXPECT_OUTPUT(CborToCbor("fb 7f f0 00 00 00 00 00 00"), "f97c00");
  EXPECT_OUTPUT(CborToCbor("fa ff 80 00 00"), "f9fc00");
  EXPECT_OUTPUT(CborToCbor("fb 7f f8 00 00 00 00 00 00"), "f97e00");
  EXPECT_OUTPUT(CborToCbor("fb 7f f8 00 00 00 00 00 01"), "f97e00");  // NaN with a payload
  EXPECT_OUTPUT(CborToCbor("fb ff f8 00 00 00 00 00 00"), "f97e00");  // negative NaN
  EXPECT_OUTPUT(CborToCbor("fa 7f c0 00 00"), "f97e00");
  EXPECT_OUTPUT(CborToCbor("f9 7e 01"), "f97e00");
  // A double that is a float is written as a float, and a float that is a half as a half.
  EXPECT_OUTPUT(CborToCbor("fb 3f f8 00 00 00 00 00 00"), "f93e00");
  EXPECT_OUTPUT(CborToCbor("fb 40 09 21 fb 54 44 2d 18"), "fb400921fb54442d18");
  EXPECT_OUTPUT(MsgpackToCbor("ca 3f c0 00 00"), "f93e00");
  EXPECT_OUTPUT(MsgpackToCbor("cb 7f f8 00 00 00 00 00 00"), "f97e00");
}

TEST(CborWriterPreferred, SimpleValuesAndLiterals) {
  EXPECT_OUTPUT(JsonToCbor("[false,true,null]"), "83f4f5f6");
  EXPECT_OUTPUT(CborToCbor("f7"), "f7");
  EXPECT_OUTPUT(CborToCbor("f0"), "f0");       // simple(16)
  EXPECT_OUTPUT(CborToCbor("f8 ff"), "f8ff");  // simple(255)
  EXPECT_OUTPUT(MsgpackToCbor("93 c0 c2 c3"), "83f6f4f5");
}

// JSON arrays and objects carry no count: the writer reserves a one-byte LengthSlot and
// widens it when the container closes with 24 or more items.
class CborLengthSlot : public ::testing::TestWithParam<uint64_t> {};

TEST_P(CborLengthSlot, ArrayOfUnknownLengthGetsTheShortestHead) {
  const uint64_t n = GetParam();
  std::string json = "[";
  std::string items;
  for (uint64_t i = 0; i < n; ++i) {
    json += i ? ",0" : "0";
    items += "00";
  }
  json += "]";
  EXPECT_OUTPUT(JsonToCbor(json), HeadHex(4, n) + items);
  // An indefinite-length CBOR array takes the same path.
  EXPECT_OUTPUT(
      RunTranscode(Format::kCbor, Format::kCbor, Hex("9f") + std::string(n, '\0') + Hex("ff")),
      HeadHex(4, n) + items);
}

TEST_P(CborLengthSlot, MapOfUnknownLengthGetsTheShortestHead) {
  const uint64_t n = GetParam();
  std::string json = "{";
  std::string pairs;
  for (uint64_t i = 0; i < n; ++i) {
    const std::string key = std::to_string(100000 + i);  // six digits: text head 0x66
    json += (i ? ",\"" : "\"") + key + "\":0";
    pairs += "66" + ToHex(key) + "00";
  }
  json += "}";
  EXPECT_OUTPUT(JsonToCbor(json), HeadHex(5, n) + pairs);
}

TEST_P(CborLengthSlot, WidenedSlotsInsideWidenedSlotsKeepTheirContent) {
  // [[0 x n], 1, [0 x n]]: both inner slots are widened before the outer one closes.
  const uint64_t n = GetParam();
  std::string inner = "[";
  std::string items;
  for (uint64_t i = 0; i < n; ++i) {
    inner += i ? ",0" : "0";
    items += "00";
  }
  inner += "]";
  EXPECT_OUTPUT(JsonToCbor("[" + inner + ",1," + inner + "]"),
                "83" + HeadHex(4, n) + items + "01" + HeadHex(4, n) + items);
}

INSTANTIATE_TEST_SUITE_P(Counts, CborLengthSlot,
                         ::testing::Values(0, 1, 15, 16, 23, 24, 255, 256, 65535, 65536));

TEST(CborLengthSlot, ContainersOfContainersAllWidened) {
  // 30 arrays of 30 arrays of 2 items: every level needs a two-byte head.
  std::string json = "[";
  std::string cbor = "981e";  // 24 <= 30 <= 255: two-byte heads
  for (int i = 0; i < 30; ++i) {
    json += i ? ",[" : "[";
    cbor += "981e";
    for (int j = 0; j < 30; ++j) {
      json += j ? ",[1,2]" : "[1,2]";
      cbor += "820102";
    }
    json += "]";
  }
  json += "]";
  EXPECT_OUTPUT(JsonToCbor(json), cbor);
}

TEST(CborWriterLimits, OutputOfExactlyMaxOutputBytesIsWritten) {
  // [1,2,3] is 84 01 02 03: four bytes.
  EXPECT_OUTPUT(JsonToCbor("[1,2,3]", MaxOutput(4)), "83010203");
  EXPECT_OUTPUT(JsonToCbor("[1,2,3,4]", MaxOutput(5)), "8401020304");
  EXPECT_OUTPUT(JsonToCbor("\"abc\"", MaxOutput(4)), "63616263");
  EXPECT_OUTPUT(JsonToCbor("[1.5]", MaxOutput(4)), "81f93e00");
  EXPECT_OUTPUT(JsonToCbor("[100000]", MaxOutput(6)), "811a000186a0");
  // 24 items: the widened slot needs one more byte than the items.
  std::string json = "[0";
  for (int i = 1; i < 24; ++i) json += ",0";
  json += "]";
  EXPECT_TRUE(JsonToCbor(json, MaxOutput(26)).status.ok());
  EXPECT_REFUSED(JsonToCbor(json, MaxOutput(25)), "output_too_large", 48, "");  // at the ']'
  const std::string indefinite = "9f" + std::string(48, '0') + "ff";
  EXPECT_TRUE(CborToCbor(indefinite, MaxOutput(26)).status.ok());
  EXPECT_REFUSED(CborToCbor(indefinite, MaxOutput(25)), "output_too_large", 25,
                 "");  // at the break
}

TEST(CborWriterLimits, OutputPastMaxOutputBytesIsRefusedAtTheItemThatDoesNotFit) {
  EXPECT_REFUSED(JsonToCbor("[1,2,3]", MaxOutput(3)), "output_too_large", 5, "/2");
  EXPECT_REFUSED(JsonToCbor(R"({"a":"abcdef"})", MaxOutput(5)), "output_too_large", 5, "/a");
  EXPECT_REFUSED(CborToCbor("82 01 5a 00 00 00 04 00 00 00 00", MaxOutput(5)), "output_too_large",
                 2, "/1");
  // A container that does not fit is refused at its own path.
  EXPECT_REFUSED(JsonToCbor("[0,[1]]", MaxOutput(2)), "output_too_large", 3, "/1");
  EXPECT_REFUSED(CborToCbor("82 00 81 01", MaxOutput(2)), "output_too_large", 2, "/1");
  EXPECT_REFUSED(MsgpackToCbor("92 00 91 01", MaxOutput(2)), "output_too_large", 2, "/1");
  // A close that must widen its slot is refused at the close.
  std::string z24 = "[0";
  for (int i = 1; i < 24; ++i) z24 += ",0";
  z24 += "]";
  EXPECT_REFUSED(JsonToCbor("[" + z24 + " , 1]", MaxOutput(26)), "output_too_large", 49, "/0");
  EXPECT_REFUSED(JsonToCbor(z24.substr(0, 46) + ",[0] ] ", MaxOutput(26)), "output_too_large", 51,
                 "");
}

// The writer's own container stack obeys max_depth: here driven directly, and through a
// MessagePack timestamp whose tag-1001 map the reader never opened.
TEST(CborWriterLimits, WriterRefusesContainersPastMaxDepth) {
  Limits limits = MaxDepth(3);
  MappingOptions options;
  Context ctx(limits, options);
  OutputBuffer out;
  out.Begin(limits.max_output_bytes, &ctx.budget);
  CborWriter writer(ctx, out);
  EXPECT_TRUE(writer.BeginArray(kUnknownLength));
  EXPECT_TRUE(writer.BeginMap(1));
  EXPECT_TRUE(writer.Uint(1));
  EXPECT_TRUE(writer.BeginArray(0));
  EXPECT_FALSE(writer.BeginArray(kUnknownLength));
  EXPECT_EQ(ctx.status.code, ErrorCode::kDepthExceeded);
}

TEST(CborWriterLimits, TimestampMapPastMaxDepthIsRefused) {
  // [timestamp 96 {nanoseconds 1, seconds 0}] with max_depth 1: tag 1001 needs a map.
  const char* ts = "91 c7 0c ff 00 00 00 01 00 00 00 00 00 00 00 00";
  EXPECT_REFUSED(MsgpackToCbor(ts, MaxDepth(1)), "depth_exceeded", 1, "/0");
  EXPECT_OUTPUT(MsgpackToCbor(ts, MaxDepth(2)), "81d903e9a201002801");
}

// ---- what the other formats become in CBOR ----

TEST(CborWriterMapping, MsgpackExtBecomesTagInTheMpRange) {
  EXPECT_OUTPUT(MsgpackToCbor("d4 05 2a"), "da6d700005412a");  // fixext1, type 5
  EXPECT_OUTPUT(MsgpackToCbor("d4 80 00"),
                "da6d70008041"
                "00");                                                      // type -128
  EXPECT_OUTPUT(MsgpackToCbor("d4 7f 00"), "da6d70007f4100");               // type 127
  EXPECT_OUTPUT(MsgpackToCbor("c7 00 10"), "da6d70001040");                 // ext8, empty
  EXPECT_OUTPUT(MsgpackToCbor("c7 03 fe 01 02 03"), "da6d7000fe43010203");  // type -2
  EXPECT_OUTPUT(MsgpackToCbor("d8 01 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"),
                "da6d7000015000"
                "0102030405060708090a0b0c0d0e0f");
}

TEST(CborWriterMapping, MsgpackTimestampsBecomeTag1OrTag1001) {
  // timestamp 32: seconds only.
  EXPECT_OUTPUT(MsgpackToCbor("d6 ff 00 00 00 01"), "c101");
  EXPECT_OUTPUT(MsgpackToCbor("d6 ff 5f 5e 10 00"), "c11a5f5e1000");
  // timestamp 64: 500000000 ns, 1 s.
  EXPECT_OUTPUT(MsgpackToCbor("d7 ff 77 35 94 00 00 00 00 01"), "d903e9a20101281a1dcd6500");
  // timestamp 64 with 0 ns is tag 1.
  EXPECT_OUTPUT(MsgpackToCbor("d7 ff 00 00 00 03 ff ff ff ff"), "c11b00000003ffffffff");
  // timestamp 96: -1 s, and 2^34 s.
  EXPECT_OUTPUT(MsgpackToCbor("c7 0c ff 00 00 00 00 ff ff ff ff ff ff ff ff"), "c120");
  EXPECT_OUTPUT(MsgpackToCbor("c7 0c ff 00 00 00 00 00 00 00 04 00 00 00 00"),
                "c11b0000000400000000");
  EXPECT_OUTPUT(MsgpackToCbor("c7 0c ff 00 00 00 07 80 00 00 00 00 00 00 00"),
                "d903e9a2013b7fffffffffffffff2807");
}

TEST(CborWriterMapping, TextAndBytesFromJsonAndMsgpack) {
  EXPECT_OUTPUT(JsonToCbor(R"(["a\u00e9\n"])"),
                "8164"
                "61c3a90a");
  EXPECT_OUTPUT(JsonToCbor(R"("\ud83d\ude00")"), "64f09f9880");
  EXPECT_OUTPUT(MsgpackToCbor("c4 02 01 02"), "420102");
  EXPECT_OUTPUT(MsgpackToCbor("d9 01 61"), "6161");
  EXPECT_OUTPUT(MsgpackToCbor("82 01 a1 61 ff a1 62"),
                "a2016161"
                "20"
                "6162");  // integer keys kept
}

}  // namespace
}  // namespace rosetta::codec::testing
