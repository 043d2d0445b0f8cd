// codec/src/json/json_writer.h: escaping (RFC 8259 section 7), shortest round-trip
// doubles, bytes as base64url or base64 (RFC 4648), bignums as exact integers (RFC 8949
// 3.4.3), IP addresses as text (RFC 9164, RFC 5952), keys, non-finite numbers, ext types,
// limits. Expected text is written by hand from those RFCs.
#include <string>

#include <gtest/gtest.h>

#include "codec_test_support.h"
#include "core/context.h"
#include "json/json_writer.h"

namespace rosetta::codec::testing {
namespace {

// CBOR text string of `s` (definite length).
std::string CborText(std::string_view s) {
  std::string out;
  if (s.size() < 24) {
    out.push_back(static_cast<char>(0x60 | s.size()));
  } else {
    out.push_back(static_cast<char>(0x79));
    out.push_back(static_cast<char>(s.size() >> 8));
    out.push_back(static_cast<char>(s.size()));
  }
  out += s;
  return out;
}

Result CborTextToJson(std::string_view s) {
  return RunTranscode(Format::kCbor, Format::kJson, CborText(s));
}

MappingOptions Standard64() {
  MappingOptions o;
  o.base64_standard = true;
  return o;
}

// ---- strings ----

TEST(JsonWriterEscaping, EveryControlCharacterQuoteAndBackslash) {
  std::string all;
  for (int c = 0; c < 0x20; ++c) all.push_back(static_cast<char>(c));
  all += "\"\\/\x7f";
  EXPECT_OUTPUT(
      CborTextToJson(all),
      R"("\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f)"
      R"(\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f)"
      R"(\"\\/)"
      "\x7f\"");
}

// RFC 8259 section 7, as a table written out by hand.
std::string Escaped(char c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      break;
  }
  if (static_cast<unsigned char>(c) < 0x20) {
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("\\u00") + kHex[c >> 4] + kHex[c & 15];
  }
  return std::string(1, c);
}

TEST(JsonWriterEscaping, EscapesAreFoundAtEveryPositionOfAWord) {
  // The writer scans 8 bytes at a time: put each character that needs an escape at each
  // of 24 positions, with plain and non-ASCII text around it.
  std::string specials;
  for (int c = 0; c < 0x20; ++c) specials.push_back(static_cast<char>(c));
  specials += "\"\\";
  const std::string filler = "abcdefghijklmnopqrstuvwx\xc3\xa9yz0123";
  for (char special : specials) {
    for (size_t at = 0; at < 24; ++at) {
      std::string text = filler.substr(0, at) + special + filler.substr(at);
      std::string expected = "\"";
      expected += filler.substr(0, at);
      expected += Escaped(special);
      expected += filler.substr(at);
      expected += '"';
      Result r = CborTextToJson(text);
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      ASSERT_EQ(r.out, expected) << "char " << int(special) << " at " << at;
    }
  }
}

TEST(JsonWriterEscaping, NonAsciiPassesThroughUnescaped) {
  EXPECT_OUTPUT(CborTextToJson("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe2\x80\xa8"),
                "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe2\x80\xa8\"");
  // JSON escapes in the input come out as UTF-8.
  EXPECT_OUTPUT(RunTranscode(Format::kJson, Format::kJson, R"(["\u00e9\ud83d\ude00\/"])"),
                "[\"\xc3\xa9\xf0\x9f\x98\x80/\"]");
}

TEST(JsonWriterEscaping, LongStringsWithManyEscapes) {
  std::string text, expected = "\"";
  for (int i = 0; i < 1000; ++i) {
    text += "ab\n\x01\"";
    expected += "ab\\n\\u0001\\\"";
  }
  expected += "\"";
  EXPECT_OUTPUT(CborTextToJson(text), expected);
}

// ---- numbers ----

TEST(JsonWriterNumbers, DoublesAreShortestRoundTripAndIntegralOnesKeepAPoint) {
  const std::pair<const char*, const char*> cases[] = {
      {"fb 3f b9 99 99 99 99 99 9a", "0.1"},
      {"fb 3f d5 55 55 55 55 55 55", "0.3333333333333333"},
      {"fb 3f d3 33 33 33 33 33 34", "0.30000000000000004"},
      {"fb 7e 37 e4 3c 88 00 75 9c", "1e+300"},
      {"fb 00 00 00 00 00 00 00 01", "5e-324"},
      {"fb 3e e4 f8 b5 88 e3 68 f1", "1e-05"},
      {"fb 44 4b 1a e4 d6 e2 ef 50", "1e+21"},
      {"fb 43 0c 6b f5 26 34 00 00", "1e+15"},
      {"fb 43 40 00 00 00 00 00 00", "9007199254740992.0"},
      {"fb 40 fe 24 00 00 00 00 00", "123456.0"},
      {"f9 3c 00", "1.0"},
      {"f9 80 00", "-0.0"},
      {"f9 00 00", "0.0"},
      {"f9 56 40", "100.0"},
      {"f9 7b ff", "65504.0"},
      {"f9 3e 00", "1.5"},
      {"fa 7f 7f ff ff", "3.4028234663852886e+38"},
      {"fa 3f 8c cc cd", "1.100000023841858"},  // float32 1.1, exactly
  };
  for (const auto& [cbor, json] : cases) {
    SCOPED_TRACE(cbor);
    EXPECT_OUTPUT(CborToJson(cbor), json);
  }
  EXPECT_OUTPUT(RunTranscode(Format::kJson, Format::kJson, "[1.0,1e2,-0.0,1.5E-7,2.5e+0,0.1]"),
                "[1.0,100.0,-0.0,1.5e-07,2.5,0.1]");
  EXPECT_OUTPUT(MsgpackToJson("ca 3f c0 00 00"), "1.5");
}

TEST(JsonWriterNumbers, IntegersAreExactAcrossCborsRange) {
  EXPECT_OUTPUT(CborToJson("1b ff ff ff ff ff ff ff ff"), "18446744073709551615");
  EXPECT_OUTPUT(CborToJson("3b ff ff ff ff ff ff ff ff"), "-18446744073709551616");
  EXPECT_OUTPUT(CborToJson("3b 7f ff ff ff ff ff ff ff"), "-9223372036854775808");
  EXPECT_OUTPUT(CborToJson("83 00 20 17"), "[0,-1,23]");
  EXPECT_OUTPUT(MsgpackToJson("d3 80 00 00 00 00 00 00 00"), "-9223372036854775808");
}

TEST(JsonWriterNumbers, NonFiniteNumbersAreRefusedUnlessWrittenAsNull) {
  EXPECT_REFUSED(CborToJson("82 f9 7e 00 f9 7c 00"), "unrepresentable", 1, "/0");
  EXPECT_REFUSED(CborToJson("a1 61 78 fb ff f0 00 00 00 00 00 00"), "unrepresentable", 3, "/x");
  EXPECT_REFUSED(MsgpackToJson("ca 7f c0 00 00"), "unrepresentable", 0, "");
  MappingOptions null;
  null.nonfinite_as_null = true;
  EXPECT_OUTPUT(CborToJson("83 f9 7e 00 f9 7c 00 f9 fc 00", {}, null), "[null,null,null]");
  EXPECT_OUTPUT(CborToJson("a1 61 78 f9 7e 00", {}, null), "{\"x\":null}");
  EXPECT_OUTPUT(CborToJson("f9 3e 00", {}, null), "1.5");
}

// ---- bytes: RFC 4648 section 10 test vectors ----

TEST(JsonWriterBytes, Base64UrlWithoutPaddingByDefault) {
  const std::pair<const char*, const char*> cases[] = {
      {"40", R"("")"},
      {"41 66", R"("Zg")"},
      {"42 66 6f", R"("Zm8")"},
      {"43 66 6f 6f", R"("Zm9v")"},
      {"44 66 6f 6f 62", R"("Zm9vYg")"},
      {"45 66 6f 6f 62 61", R"("Zm9vYmE")"},
      {"46 66 6f 6f 62 61 72", R"("Zm9vYmFy")"},
      {"42 fb ff", R"("-_8")"},
      {"43 fb ff bf", R"("-_-_")"},
  };
  for (const auto& [cbor, json] : cases) {
    SCOPED_TRACE(cbor);
    EXPECT_OUTPUT(CborToJson(cbor), json);
  }
  EXPECT_OUTPUT(MsgpackToJson("92 c4 01 66 c4 02 fb ff"), R"(["Zg","-_8"])");
}

TEST(JsonWriterBytes, StandardBase64WithPaddingByOption) {
  const std::pair<const char*, const char*> cases[] = {
      {"40", R"("")"},
      {"41 66", R"("Zg==")"},
      {"42 66 6f", R"("Zm8=")"},
      {"43 66 6f 6f", R"("Zm9v")"},
      {"44 66 6f 6f 62", R"("Zm9vYg==")"},
      {"45 66 6f 6f 62 61", R"("Zm9vYmE=")"},
      {"46 66 6f 6f 62 61 72", R"("Zm9vYmFy")"},
      {"42 fb ff", R"("+/8=")"},
      {"43 fb ff bf", R"("+/+/")"},
  };
  for (const auto& [cbor, json] : cases) {
    SCOPED_TRACE(cbor);
    EXPECT_OUTPUT(CborToJson(cbor, {}, Standard64()), json);
  }
}

// ---- bignums (tags 2 and 3) ----

TEST(JsonWriterBignums, BignumsPrintAsTheExactInteger) {
  EXPECT_OUTPUT(CborToJson("c2 49 01 00 00 00 00 00 00 00 00"),
                "18446744073709551616");  // RFC 8949 App. A
  EXPECT_OUTPUT(CborToJson("c3 49 01 00 00 00 00 00 00 00 00"), "-18446744073709551617");
  EXPECT_OUTPUT(CborToJson("c2 40"), "0");
  EXPECT_OUTPUT(CborToJson("c3 40"), "-1");
  EXPECT_OUTPUT(CborToJson("c2 42 00 01"), "1");
  EXPECT_OUTPUT(CborToJson("c2 48 ff ff ff ff ff ff ff ff"), "18446744073709551615");
  EXPECT_OUTPUT(CborToJson("c2 4d 0c 9f 2c 9c d0 46 74 ed ea 40 00 00 00"),
                "1000000000000000000000000000000");
  EXPECT_OUTPUT(CborToJson("c2 51 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"),
                "340282366920938463463374607431768211456");  // 2^128
  EXPECT_OUTPUT(CborToJson("c3 50 ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff"),
                "-340282366920938463463374607431768211456");  // -1 - (2^128 - 1)
  EXPECT_OUTPUT(CborToJson("82 c2 41 05 c3 41 05"), "[5,-6]");
}

TEST(JsonWriterBignums, LongIntegersRoundTripThroughCbor) {
  std::string digits = "9";
  for (int i = 0; i < 999; ++i) digits.push_back(static_cast<char>('0' + (i * 7 + 3) % 10));
  for (const std::string& n : {digits, "-" + digits, std::string("18446744073709551616"),
                               std::string("-18446744073709551617")}) {
    Result cbor = JsonToCbor("[" + n + "]");
    ASSERT_TRUE(cbor.status.ok()) << cbor.status.message;
    EXPECT_OUTPUT(CborToJson(cbor.out), "[" + n + "]");
  }
}

TEST(JsonWriterBignums, BignumsPastTheirBoundOrAsKeysAreRefused) {
  const std::string big = Hex("c2 59 10 01") + std::string(4097, '\x01');
  EXPECT_REFUSED(RunTranscode(Format::kCbor, Format::kJson, big), "unrepresentable", 0, "");
  EXPECT_REFUSED(CborToJson("a1 c2 41 01 00"), "unrepresentable", 1, "");
}

// ---- IP addresses (RFC 9164 tags 52/54), text per RFC 5952 ----

TEST(JsonWriterIp, AddressesAndPrefixesFromTheRfc9164Examples) {
  EXPECT_OUTPUT(CborToJson("d8 34 44 c0 00 02 01"), R"("192.0.2.1")");
  EXPECT_OUTPUT(CborToJson("d8 36 50 20 01 0d b8 12 34 de ed be ef ca fe fa ce fe ed"),
                R"("2001:db8:1234:deed:beef:cafe:face:feed")");
  EXPECT_OUTPUT(CborToJson("d8 36 82 18 30 46 20 01 0d b8 12 34"), R"("2001:db8:1234::/48")");
  EXPECT_OUTPUT(CborToJson("d8 34 82 18 18 43 c0 00 02"), R"("192.0.2.0/24")");
  EXPECT_OUTPUT(CborToJson("d8 34 82 00 40"), R"("0.0.0.0/0")");
  EXPECT_OUTPUT(CborToJson("d8 36 82 00 40"), R"("::/0")");
}

std::string V6(std::string_view groups_hex) { return "d8 36 50 " + std::string(groups_hex); }

TEST(JsonWriterIp, Ipv6TextFollowsRfc5952) {
  const std::pair<const char*, const char*> cases[] = {
      // 4.2.1/4.2.2: the longest run of two or more zero groups becomes "::"; one zero stays.
      {"20 01 0d b8 00 00 00 00 00 00 ff 00 00 42 83 29", "2001:db8::ff00:42:8329"},
      {"20 01 0d b8 00 00 00 01 00 01 00 01 00 01 00 01", "2001:db8:0:1:1:1:1:1"},
      // 4.2.3: the first of equally long runs.
      {"20 01 0d b8 00 00 00 00 00 01 00 00 00 00 00 01", "2001:db8::1:0:0:1"},
      {"20 01 00 00 00 00 00 01 00 00 00 00 00 00 00 01", "2001:0:0:1::1"},
      // 4.1 and 4.3: no leading zeros, lowercase.
      {"20 01 0d b8 00 00 00 00 00 00 00 00 00 00 ab cd", "2001:db8::abcd"},
      {"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", "::"},
      {"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01", "::1"},
      {"00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00", "1::"},
      {"fe 80 00 00 00 00 00 00 00 00 00 00 00 01 00 02", "fe80::1:2"},
      {"00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00", "0:1::"},
      // 5: an IPv4-mapped address keeps its dotted quad.
      {"00 00 00 00 00 00 00 00 00 00 ff ff c0 00 02 01", "::ffff:192.0.2.1"},
      {"00 00 00 00 00 00 00 00 00 00 ff fe c0 00 02 01", "::fffe:c000:201"},
  };
  for (const auto& [addr, text] : cases) {
    SCOPED_TRACE(text);
    std::string quoted = "\"";
    quoted += text;
    quoted += '"';
    EXPECT_OUTPUT(CborToJson(V6(addr)), quoted);
  }
}

TEST(JsonWriterIp, AddressesInsideContainersAndOneAfterAnother) {
  EXPECT_OUTPUT(CborToJson("82 d8 34 82 18 18 43 c0 00 02 d8 34 44 c0 00 02 01"),
                R"(["192.0.2.0/24","192.0.2.1"])");
  EXPECT_OUTPUT(CborToJson("a2 61 61 d8 34 44 0a 00 00 01 61 62 d8 36 82 18 40 44 20 01 0d b8"),
                R"({"a":"10.0.0.1","b":"2001:db8::/64"})");
}

TEST(JsonWriterIp, MalformedAddressesAreRefused) {
  EXPECT_REFUSED(CborToJson("d8 34 43 c0 00 02"), "unrepresentable", 0, "");  // 3 bytes
  EXPECT_REFUSED(CborToJson("81 d8 36 44 c0 00 02 01"), "unrepresentable", 1,
                 "/0");  // 4 bytes for v6
  EXPECT_REFUSED(CborToJson("d8 34 82 18 21 44 c0 00 02 01"), "unrepresentable", 10,
                 "");  // /33, known at the close
  EXPECT_REFUSED(CborToJson("d8 36 82 18 81 40"), "unrepresentable", 6, "");  // /129
  EXPECT_REFUSED(CborToJson("d8 34 82 18 18 45 c0 00 02 01 00"), "unrepresentable", 5, "/1");
  EXPECT_REFUSED(CborToJson("a1 d8 34 44 c0 00 02 01 00"), "unrepresentable", 1, "");  // as a key
}

// ---- keys ----

TEST(JsonWriterKeys, IntegerKeysBecomeDecimalStrings) {
  EXPECT_OUTPUT(CborToJson("a2 01 61 61 20 61 62"), R"({"1":"a","-1":"b"})");
  EXPECT_OUTPUT(CborToJson("a1 1b ff ff ff ff ff ff ff ff 00"), R"({"18446744073709551615":0})");
  EXPECT_OUTPUT(CborToJson("a1 3b ff ff ff ff ff ff ff ff 00"), R"({"-18446744073709551616":0})");
  EXPECT_OUTPUT(MsgpackToJson("81 d3 80 00 00 00 00 00 00 00 c0"),
                R"({"-9223372036854775808":null})");
  // A tag on a key is dropped, its key kept.
  EXPECT_OUTPUT(CborToJson("a2 c0 61 61 00 c1 01 00"), R"({"a":0,"1":0})");
}

TEST(JsonWriterKeys, NonTextKeysAreRefusedAtTheKey) {
  const char* keys[] = {
      "a1 41 00 00",     // bytes
      "a1 f9 3c 00 00",  // float
      "a1 80 00",        // array
      "a1 a0 00",        // map
      "a1 f5 00",        // bool
      "a1 f6 00",        // null
      "a1 f7 00",        // undefined
      "a1 f0 00",        // simple(16)
  };
  for (const char* cbor : keys) {
    SCOPED_TRACE(cbor);
    EXPECT_REFUSED(CborToJson(cbor), "unrepresentable", 1, "");
  }
  EXPECT_REFUSED(CborToJson("a1 61 78 a1 41 00 00"), "unrepresentable", 4, "/x");
  EXPECT_REFUSED(MsgpackToJson("82 a1 61 00 c4 01 00 00"), "unrepresentable", 4, "");
}

// ---- tags and the other CBOR items ----

TEST(JsonWriterTags, MsgpackExtHasNoJsonForm) {
  EXPECT_REFUSED(MsgpackToJson("d4 05 00"), "unrepresentable", 0, "");
  EXPECT_REFUSED(MsgpackToJson("81 a1 61 c7 00 05"), "unrepresentable", 3, "/a");
  EXPECT_REFUSED(CborToJson("82 00 da 6d 70 00 05 41 00"), "unrepresentable", 2, "/1");
  EXPECT_REFUSED(CborToJson("da 6d 70 00 05 80"), "unrepresentable", 0, "");  // over any item
}

TEST(JsonWriterTags, OtherTagsAreDroppedAndTheirContentKept) {
  // RFC 8949 Appendix A: 0("2013-03-21T20:04:00Z"), 1(1363896240), 32("http://www.example.com").
  EXPECT_OUTPUT(CborToJson("c0 74 32 30 31 33 2d 30 33 2d 32 31 54 32 30 3a 30 34 3a 30 30 5a"),
                R"("2013-03-21T20:04:00Z")");
  EXPECT_OUTPUT(CborToJson("c1 1a 51 4b 67 b0"), "1363896240");
  EXPECT_OUTPUT(CborToJson("c1 fb 41 d4 52 d9 ec 20 00 00"), "1363896240.5");
  EXPECT_OUTPUT(
      CborToJson("d8 20 76 68 74 74 70 3a 2f 2f 77 77 77 2e 65 78 61 6d 70 6c 65 2e 63 6f 6d"),
      R"("http://www.example.com")");
  EXPECT_OUTPUT(CborToJson("d7 44 01 02 03 04"),
                R"("AQIDBA")");  // 23(h'01020304'): still base64url
  EXPECT_OUTPUT(CborToJson("d9 d9 f7 82 c6 01 c7 a0"), "[1,{}]");  // self-describe, tags on items
  // MessagePack timestamps reach JSON as their CBOR tags do: the epoch number, or the map.
  EXPECT_OUTPUT(MsgpackToJson("d6 ff 00 00 00 01"), "1");
  EXPECT_OUTPUT(MsgpackToJson("d7 ff 77 35 94 00 00 00 00 01"), R"({"1":1,"-9":500000000})");
}

TEST(JsonWriterTags, UndefinedAndSimpleValuesBecomeNull) {
  EXPECT_OUTPUT(CborToJson("84 f7 f0 f8 ff f6"), "[null,null,null,null]");
  EXPECT_OUTPUT(CborToJson("83 f4 f5 f6"), "[false,true,null]");
}

// ---- containers and limits ----

TEST(JsonWriterContainers, NestedContainersAndSeparators) {
  EXPECT_OUTPUT(CborToJson("a2 61 61 82 80 a0 61 62 a1 61 63 9f ff"),
                R"({"a":[[],{}],"b":{"c":[]}})");
  EXPECT_OUTPUT(MsgpackToJson("93 90 80 92 01 02"), "[[],{},[1,2]]");
}

TEST(JsonWriterLimits, OutputOfExactlyMaxOutputBytesIsWritten) {
  EXPECT_OUTPUT(CborToJson("83 01 02 03", MaxOutput(7)), "[1,2,3]");
  EXPECT_OUTPUT(CborToJson("64 61 0a 62 01", MaxOutput(12)), R"("a\nb\u0001")");
  EXPECT_OUTPUT(CborToJson("f9 3c 00", MaxOutput(3)), "1.0");
  EXPECT_OUTPUT(CborToJson("81 fb 3f b9 99 99 99 99 99 9a", MaxOutput(5)), "[0.1]");
  EXPECT_OUTPUT(CborToJson("a1 20 1b ff ff ff ff ff ff ff ff", MaxOutput(27)),
                R"({"-1":18446744073709551615})");
  EXPECT_OUTPUT(CborToJson("82 41 ff 44 00 00 00 00", MaxOutput(15)), R"(["_w","AAAAAA"])");
  EXPECT_OUTPUT(CborToJson("41 ff", MaxOutput(6), Standard64()), R"("/w==")");
  EXPECT_OUTPUT(CborToJson("81 d8 34 44 c0 00 02 01", MaxOutput(13)), R"(["192.0.2.1"])");
  EXPECT_OUTPUT(CborToJson("c3 49 01 00 00 00 00 00 00 00 00", MaxOutput(21)),
                "-18446744073709551617");
  EXPECT_OUTPUT(CborToJson("82 f5 f6", MaxOutput(11)), "[true,null]");
  // Numbers whose writers store whole words past the text, into exactly their room.
  EXPECT_OUTPUT(CborToJson("81 fb c0 50 67 45 80 3c d1 42", MaxOutput(12)), "[-65.613617]");
  EXPECT_OUTPUT(CborToJson("fb 41 9d 6f 34 54 7e 69 ad", MaxOutput(15)), "123456789.12345");
  EXPECT_OUTPUT(CborToJson("82 3b 00 00 00 03 ff ff ff ff 1a 05 f5 e1 00", MaxOutput(24)),
                "[-17179869184,100000000]");
}

TEST(JsonWriterLimits, OutputPastMaxOutputBytesIsRefusedAtTheItemThatDoesNotFit) {
  EXPECT_REFUSED(CborToJson("83 01 02 03", MaxOutput(6)), "output_too_large", 4, "");
  EXPECT_REFUSED(CborToJson("83 01 02 03", MaxOutput(5)), "output_too_large", 3, "/2");
  EXPECT_REFUSED(CborToJson("a1 61 78 64 61 0a 62 01", MaxOutput(16)), "output_too_large", 3, "/x");
  EXPECT_REFUSED(CborToJson("82 00 81 00", MaxOutput(3)), "output_too_large", 2, "/1");
  EXPECT_REFUSED(CborToJson("c3 49 01 00 00 00 00 00 00 00 00", MaxOutput(20)), "output_too_large",
                 0, "");
}

TEST(JsonWriterLimits, WriterRefusesContainersPastMaxDepth) {
  Limits limits = MaxDepth(2);
  MappingOptions options;
  Context ctx(limits, options);
  OutputBuffer out;
  out.Begin(limits.max_output_bytes, &ctx.budget);
  JsonWriter writer(ctx, out);
  EXPECT_TRUE(writer.BeginMap(kUnknownLength));
  EXPECT_TRUE(writer.Text("a"));
  EXPECT_TRUE(writer.BeginArray(kUnknownLength));
  EXPECT_FALSE(writer.BeginArray(kUnknownLength));
  EXPECT_EQ(ctx.status.code, ErrorCode::kDepthExceeded);
}

}  // namespace
}  // namespace rosetta::codec::testing
