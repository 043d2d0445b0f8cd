// codec/src/msgpack/msgpack_writer.h: the shortest MessagePack forms, the LengthSlot for
// containers of unknown length, limits, timestamps and ext types both ways, and what has
// no MessagePack form. Expected bytes are written by hand from the MessagePack spec
// (github.com/msgpack/msgpack/blob/master/spec.md) and RFC 8949.
#include <string>

#include <gtest/gtest.h>

#include "codec_test_support.h"
#include "core/context.h"
#include "msgpack/msgpack_writer.h"

namespace rosetta::codec::testing {
namespace {

std::string HexOf(uint8_t b) { return ToHex(std::string(1, static_cast<char>(b))); }

std::string BigHex(uint64_t v, int bytes) {
  std::string h;
  for (int i = bytes - 1; i >= 0; --i) h += HexOf(static_cast<uint8_t>(v >> (8 * i)));
  return h;
}

// fixarray / array 16 / array 32 (or the map forms) for n items, from the spec.
std::string ContainerHeadHex(uint64_t n, bool map) {
  if (n <= 15) return HexOf(static_cast<uint8_t>((map ? 0x80 : 0x90) | n));
  if (n <= 0xffff) return (map ? "de" : "dc") + BigHex(n, 2);
  return (map ? "df" : "dd") + BigHex(n, 4);
}

TEST(MsgpackWriterShortest, IntegersUseFixintThenTheNarrowestWidth) {
  const std::pair<const char*, const char*> cases[] = {
      {"0", "00"},
      {"127", "7f"},
      {"128", "cc80"},
      {"255", "ccff"},
      {"256", "cd0100"},
      {"65535", "cdffff"},
      {"65536", "ce00010000"},
      {"4294967295", "ceffffffff"},
      {"4294967296", "cf0000000100000000"},
      {"18446744073709551615", "cfffffffffffffffff"},
      {"-1", "ff"},
      {"-32", "e0"},
      {"-33", "d0df"},
      {"-128", "d080"},
      {"-129", "d1ff7f"},
      {"-32768", "d18000"},
      {"-32769", "d2ffff7fff"},
      {"-2147483648", "d280000000"},
      {"-2147483649", "d3ffffffff7fffffff"},
      {"-9223372036854775808", "d38000000000000000"},
  };
  for (const auto& [json, msgpack] : cases) {
    SCOPED_TRACE(json);
    EXPECT_OUTPUT(JsonToMsgpack(json), msgpack);
    EXPECT_OUTPUT(JsonToMsgpack(std::string("[") + json + "]"), std::string("91") + msgpack);
  }
  // Longer forms in the input come out shortest.
  EXPECT_OUTPUT(MsgpackToMsgpack("cf 00 00 00 00 00 00 00 05"), "05");
  EXPECT_OUTPUT(MsgpackToMsgpack("d3 ff ff ff ff ff ff ff ff"), "ff");
  EXPECT_OUTPUT(MsgpackToMsgpack("d1 00 80"), "cc80");
}

TEST(MsgpackWriterShortest, IntegersBelowMinus2To63HaveNoMsgpackForm) {
  EXPECT_REFUSED(JsonToMsgpack("[-9223372036854775809]"), "unrepresentable", 1, "/0");
  EXPECT_REFUSED(CborToMsgpack("3b ff ff ff ff ff ff ff ff"), "unrepresentable", 0, "");
  MappingOptions as_double;
  as_double.bignum_as_double = true;
  // -2^63 - 1 rounds to the double -2^63, which float32 holds exactly.
  EXPECT_OUTPUT(JsonToMsgpack("[-9223372036854775809]", {}, as_double), "91cadf000000");
}

TEST(MsgpackWriterShortest, StringsUseFixstrThenStr8Str16Str32) {
  const size_t lengths[] = {0, 1, 31, 32, 255, 256, 65535, 65536};
  for (size_t n : lengths) {
    SCOPED_TRACE(n);
    const std::string text(n, 'x');
    std::string head = n <= 31       ? HexOf(static_cast<uint8_t>(0xa0 | n))
                       : n <= 0xff   ? "d9" + BigHex(n, 1)
                       : n <= 0xffff ? "da" + BigHex(n, 2)
                                     : "db" + BigHex(n, 4);
    EXPECT_OUTPUT(JsonToMsgpack("\"" + text + "\""), head + ToHex(text));
  }
}

TEST(MsgpackWriterShortest, ByteStringsUseBin8Bin16Bin32) {
  EXPECT_OUTPUT(CborToMsgpack("40"), "c400");
  EXPECT_OUTPUT(CborToMsgpack("43 01 02 03"), "c403010203");
  const std::string b256 = Hex("59 01 00") + std::string(256, '\x07');
  EXPECT_OUTPUT(RunTranscode(Format::kCbor, Format::kMsgpack, b256),
                "c50100" + ToHex(std::string(256, '\x07')));
  const std::string b65536 = Hex("5a 00 01 00 00") + std::string(65536, '\x07');
  EXPECT_OUTPUT(RunTranscode(Format::kCbor, Format::kMsgpack, b65536),
                "c600010000" + ToHex(std::string(65536, '\x07')));
}

TEST(MsgpackWriterShortest, FloatsAreFloat32WhenTheValueSurvives) {
  EXPECT_OUTPUT(JsonToMsgpack("1.5"), "ca3fc00000");
  EXPECT_OUTPUT(JsonToMsgpack("0.0"), "ca00000000");
  EXPECT_OUTPUT(JsonToMsgpack("-0.0"), "ca80000000");
  EXPECT_OUTPUT(JsonToMsgpack("100000.0"), "ca47c35000");
  EXPECT_OUTPUT(JsonToMsgpack("1.1"), "cb3ff199999999999a");
  EXPECT_OUTPUT(JsonToMsgpack("1.0e+300"), "cb7e37e43c8800759c");
  EXPECT_OUTPUT(CborToMsgpack("f9 7c 00"), "ca7f800000");  // Infinity
  EXPECT_OUTPUT(CborToMsgpack("f9 fc 00"), "caff800000");  // -Infinity
  // Every NaN is the one quiet NaN.
  EXPECT_OUTPUT(CborToMsgpack("f9 7e 00"), "ca7fc00000");
  EXPECT_OUTPUT(CborToMsgpack("fb 7f f8 00 00 00 00 00 01"), "ca7fc00000");
  EXPECT_OUTPUT(MsgpackToMsgpack("cb 3f f8 00 00 00 00 00 00"), "ca3fc00000");
}

TEST(MsgpackWriterShortest, NilBoolAndWhatHasNoMsgpackForm) {
  EXPECT_OUTPUT(JsonToMsgpack("[null,false,true]"), "93c0c2c3");
  EXPECT_OUTPUT(CborToMsgpack("f7"), "c0");                               // undefined: nil
  EXPECT_REFUSED(CborToMsgpack("82 00 f0"), "unrepresentable", 2, "/1");  // simple(16)
}

class MsgpackLengthSlot : public ::testing::TestWithParam<uint64_t> {};

TEST_P(MsgpackLengthSlot, ArrayOfUnknownLengthGetsTheShortestHead) {
  const uint64_t n = GetParam();
  std::string json = "[";
  std::string items;
  for (uint64_t i = 0; i < n; ++i) {
    json += i ? ",1" : "1";
    items += "01";
  }
  json += "]";
  EXPECT_OUTPUT(JsonToMsgpack(json), ContainerHeadHex(n, false) + items);
  EXPECT_OUTPUT(
      RunTranscode(Format::kCbor, Format::kMsgpack, Hex("9f") + std::string(n, '\x01') + Hex("ff")),
      ContainerHeadHex(n, false) + items);
}

TEST_P(MsgpackLengthSlot, MapOfUnknownLengthGetsTheShortestHead) {
  const uint64_t n = GetParam();
  std::string json = "{";
  std::string pairs;
  for (uint64_t i = 0; i < n; ++i) {
    const std::string key = std::to_string(100000 + i);  // six digits: fixstr a6
    json += (i ? ",\"" : "\"") + key + "\":1";
    pairs += "a6" + ToHex(key) + "01";
  }
  json += "}";
  EXPECT_OUTPUT(JsonToMsgpack(json), ContainerHeadHex(n, true) + pairs);
}

TEST_P(MsgpackLengthSlot, WidenedSlotsInsideWidenedSlotsKeepTheirContent) {
  const uint64_t n = GetParam();
  std::string inner = "[";
  std::string items;
  for (uint64_t i = 0; i < n; ++i) {
    inner += i ? ",1" : "1";
    items += "01";
  }
  inner += "]";
  EXPECT_OUTPUT(
      JsonToMsgpack("[" + inner + ",2," + inner + "]"),
      "93" + ContainerHeadHex(n, false) + items + "02" + ContainerHeadHex(n, false) + items);
}

INSTANTIATE_TEST_SUITE_P(Counts, MsgpackLengthSlot,
                         ::testing::Values(0, 1, 15, 16, 23, 24, 255, 256, 65535, 65536));

TEST(MsgpackWriterLimits, OutputOfExactlyMaxOutputBytesIsWritten) {
  EXPECT_OUTPUT(JsonToMsgpack("[1,2,3]", MaxOutput(4)), "93010203");
  EXPECT_OUTPUT(JsonToMsgpack("[1.5]", MaxOutput(6)), "91ca3fc00000");
  EXPECT_OUTPUT(JsonToMsgpack("[300]", MaxOutput(4)), "91cd012c");
  EXPECT_OUTPUT(JsonToMsgpack("\"abc\"", MaxOutput(4)), "a3616263");
  EXPECT_OUTPUT(MsgpackToMsgpack("d6 ff 00 00 00 01", MaxOutput(6)), "d6ff00000001");
  EXPECT_OUTPUT(MsgpackToMsgpack("d4 05 2a", MaxOutput(3)), "d4052a");
  // 16 items: the widened slot needs two more bytes than the items.
  std::string json = "[1";
  for (int i = 1; i < 16; ++i) json += ",1";
  json += "]";
  EXPECT_TRUE(JsonToMsgpack(json, MaxOutput(19)).status.ok());
  EXPECT_REFUSED(JsonToMsgpack(json, MaxOutput(18)), "output_too_large", 32, "");
}

TEST(MsgpackWriterLimits, OutputPastMaxOutputBytesIsRefusedAtTheItemThatDoesNotFit) {
  EXPECT_REFUSED(JsonToMsgpack("[1,2,3]", MaxOutput(3)), "output_too_large", 5, "/2");
  EXPECT_REFUSED(JsonToMsgpack(R"({"a":[1.1]})", MaxOutput(8)), "output_too_large", 6, "/a/0");
  EXPECT_REFUSED(JsonToMsgpack(R"([0,[1]])", MaxOutput(2)), "output_too_large", 3, "/1");
}

TEST(MsgpackWriterLimits, WriterRefusesContainersPastMaxDepth) {
  Limits limits = MaxDepth(2);
  MappingOptions options;
  Context ctx(limits, options);
  OutputBuffer out;
  out.Begin(limits.max_output_bytes, &ctx.budget);
  MsgpackWriter writer(ctx, out);
  EXPECT_TRUE(writer.BeginArray(kUnknownLength));
  EXPECT_TRUE(writer.BeginMap(kUnknownLength));
  EXPECT_FALSE(writer.BeginArray(1));
  EXPECT_EQ(ctx.status.code, ErrorCode::kDepthExceeded);
}

// ---- timestamps (the spec's "Timestamp extension type", -1) both ways ----

TEST(MsgpackWriterTimestamps, Tag1BecomesTheShortestTimestamp) {
  EXPECT_OUTPUT(CborToMsgpack("c1 00"), "d6ff00000000");              // 32
  EXPECT_OUTPUT(CborToMsgpack("c1 1a ff ff ff ff"), "d6ffffffffff");  // 32, its top
  EXPECT_OUTPUT(CborToMsgpack("c1 1b 00 00 00 01 00 00 00 00"), "d7ff0000000100000000");  // 64
  EXPECT_OUTPUT(CborToMsgpack("c1 1b 00 00 00 04 00 00 00 00"),  // 2^34: 96
                "c70cff000000000000000400000000");
  EXPECT_OUTPUT(CborToMsgpack("c1 20"), "c70cff00000000ffffffffffffffff");  // -1: 96
  // A float epoch time keeps its fraction as nanoseconds: 1.5 s.
  EXPECT_OUTPUT(CborToMsgpack("c1 f9 3e 00"),
                "d7ff773594000000000"
                "1");
  // -0.5 s is -1 s + 500000000 ns.
  EXPECT_OUTPUT(CborToMsgpack("c1 f9 b8 00"), "c70cff1dcd6500ffffffffffffffff");
  EXPECT_REFUSED(CborToMsgpack("c1 f9 7c 00"), "unrepresentable", 0, "");
}

TEST(MsgpackWriterTimestamps, Tag1001BecomesTheShortestTimestamp) {
  // RFC 9581: {1: seconds, -9: nanoseconds}; the keys may come in either order.
  EXPECT_OUTPUT(CborToMsgpack("d9 03 e9 a2 01 01 28 1a 1d cd 65 00"), "d7ff7735940000000001");
  EXPECT_OUTPUT(CborToMsgpack("d9 03 e9 a2 28 1a 1d cd 65 00 01 01"), "d7ff7735940000000001");
  EXPECT_OUTPUT(CborToMsgpack("d9 03 e9 a1 01 05"), "d6ff00000005");
  EXPECT_OUTPUT(CborToMsgpack("d9 03 e9 bf 01 20 28 07 ff"), "c70cff00000007ffffffffffffffff");
  EXPECT_OUTPUT(CborToMsgpack("82 d9 03 e9 a1 01 05 01"), "92d6ff0000000501");
  // No seconds: known only when the map closes, at the end of the input.
  EXPECT_REFUSED(CborToMsgpack("d9 03 e9 a1 28 07"), "unrepresentable", 6, "");
  EXPECT_REFUSED(CborToMsgpack("d9 03 e9 a2 01 01 28 1a 3b 9a ca 00"), "unrepresentable", 7, "/-9");
  EXPECT_REFUSED(CborToMsgpack("d9 03 e9 a1 02 01"), "unrepresentable", 4, "");  // key 2
}

TEST(MsgpackWriterTimestamps, EveryTimestampSurvivesMsgpackToCborToMsgpack) {
  const char* timestamps[] = {
      "d6ff00000000",
      "d6ff5f5e1000",
      "d7ff7735940000000001",
      "d7ff00000003ffffffff",
      "d7ffee6b27fc00000000",  // 999999999 ns, 0 s
      "c70cff000000000000000400000000",
      "c70cff3b9ac9ff8000000000000000",
      "c70cff00000001ffffffffffffffff",
  };
  for (const char* ts : timestamps) {
    SCOPED_TRACE(ts);
    Result cbor = MsgpackToCbor(ts);
    ASSERT_TRUE(cbor.status.ok()) << cbor.status.message;
    EXPECT_OUTPUT(CborToMsgpack(cbor.out), ts);
  }
}

// ---- ext types <-> CBOR tags 0x6D700000 + type ----

TEST(MsgpackWriterExt, CborTagInTheMpRangeBecomesExt) {
  EXPECT_OUTPUT(CborToMsgpack("da 6d 70 00 05 41 2a"), "d4052a");                 // fixext 1
  EXPECT_OUTPUT(CborToMsgpack("da 6d 70 00 05 42 01 02"), "d5050102");            // fixext 2
  EXPECT_OUTPUT(CborToMsgpack("da 6d 70 00 05 44 01 02 03 04"), "d60501020304");  // fixext 4
  EXPECT_OUTPUT(CborToMsgpack("da 6d 70 00 80 48 00 00 00 00 00 00 00 00"), "d7800000000000000000");
  EXPECT_OUTPUT(CborToMsgpack("da 6d 70 00 7f 50 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"),
                "d87f000102030405060708090a0b0c0d0e0f");
  EXPECT_OUTPUT(CborToMsgpack("da 6d 70 00 01 40"), "c70001");  // ext 8, empty
  EXPECT_OUTPUT(CborToMsgpack("da 6d 70 00 01 43 01 02 03"),
                "c7030101"
                "0203");
  const std::string data(256, '\x05');
  EXPECT_OUTPUT(
      RunTranscode(Format::kCbor, Format::kMsgpack, Hex("da 6d 70 00 fe 59 01 00") + data),
      "c80100fe" + ToHex(data));
  const std::string big(65536, '\x05');
  EXPECT_OUTPUT(
      RunTranscode(Format::kCbor, Format::kMsgpack, Hex("da 6d 70 00 fe 5a 00 01 00 00") + big),
      "c900010000fe" + ToHex(big));
}

TEST(MsgpackWriterExt, EveryExtTypeRoundTripsThroughCbor) {
  for (int type = -128; type <= 127; ++type) {
    if (type == -1) continue;  // the timestamp
    SCOPED_TRACE(type);
    const std::string ext = "d4" + HexOf(static_cast<uint8_t>(type)) + "2a";
    Result cbor = MsgpackToCbor(ext);
    EXPECT_OUTPUT(cbor, "da6d7000" + HexOf(static_cast<uint8_t>(type)) + "412a");
    EXPECT_OUTPUT(CborToMsgpack(cbor.out), ext);
  }
}

// ---- other tags ----

TEST(MsgpackWriterTags, BignumsThatFit64BitsBecomeIntegers) {
  EXPECT_OUTPUT(CborToMsgpack("c2 40"), "00");
  EXPECT_OUTPUT(CborToMsgpack("c2 41 80"), "cc80");
  EXPECT_OUTPUT(CborToMsgpack("c2 48 ff ff ff ff ff ff ff ff"), "cfffffffffffffffff");
  EXPECT_OUTPUT(CborToMsgpack("c2 4a 00 00 00 00 00 00 00 00 00 07"), "07");  // leading zeros
  EXPECT_OUTPUT(CborToMsgpack("c3 40"), "ff");                                // -1 - 0
  EXPECT_OUTPUT(CborToMsgpack("c3 48 7f ff ff ff ff ff ff ff"), "d38000000000000000");
  EXPECT_REFUSED(CborToMsgpack("c3 48 80 00 00 00 00 00 00 00"), "unrepresentable", 0, "");
  EXPECT_REFUSED(CborToMsgpack("81 c2 49 01 00 00 00 00 00 00 00 00"), "unrepresentable", 1, "/0");
  EXPECT_REFUSED(JsonToMsgpack("[18446744073709551616]"), "unrepresentable", 1, "/0");
  MappingOptions as_double;
  as_double.bignum_as_double = true;
  EXPECT_OUTPUT(CborToMsgpack("c2 49 01 00 00 00 00 00 00 00 00", {}, as_double),
                "ca5f800000");  // 2^64: a float32
  EXPECT_OUTPUT(JsonToMsgpack("[18446744073709551616]", {}, as_double), "91ca5f800000");
  EXPECT_OUTPUT(JsonToMsgpack("[18446744073709551617]", {}, as_double), "91ca5f800000");
  EXPECT_OUTPUT(JsonToMsgpack("[18446745173221179392]", {}, as_double), "91cb43f0000010000000");
}

TEST(MsgpackWriterTags, OtherTagsAreDroppedAndTheirItemKept) {
  EXPECT_OUTPUT(CborToMsgpack("d8 20 63 61 62 63"), "a3616263");  // tag 32 (URI)
  EXPECT_OUTPUT(CborToMsgpack("c0 61 61"), "a161");
  EXPECT_OUTPUT(CborToMsgpack("d8 34 44 c0 00 02 01"), "c404c0000201");  // tag 52: bytes kept
  EXPECT_OUTPUT(CborToMsgpack("c6 c7 81 00"), "9100");                   // tags on tags
}

TEST(MsgpackWriterKeys, KeysOfAnyTypePass) {
  EXPECT_OUTPUT(CborToMsgpack("a3 01 00 20 00 41 00 00"),
                "8301"
                "00"
                "ff"
                "00"
                "c40100"
                "00");
  EXPECT_OUTPUT(CborToMsgpack("a1 f9 3e 00 00"), "81ca3fc0000000");
}

}  // namespace
}  // namespace rosetta::codec::testing
