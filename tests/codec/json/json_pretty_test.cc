// codec/src/json/json_writer.h, option `pretty` (BasicJsonWriter<true>): the layout of
// Python's json.dumps(indent=2) written out by hand, and on the corpus and on random CBOR
// and MessagePack documents: pretty output reads back as exactly the compact output,
// refuses what the compact writer refuses (same code, offset, path and message), fits
// max_output_bytes to the byte, and leaves the CBOR and MessagePack outputs alone.
// Protobuf into pretty JSON: json_pretty_protobuf_test.cc.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "codec_test_support.h"
#include "core/context.h"
#include "json/json_writer.h"
#include "rosetta_test_data.h"

namespace rosetta::codec::testing {
namespace {

MappingOptions Pretty() {
  MappingOptions o;
  o.pretty = true;
  return o;
}

Result PrettyJson(Format from, std::string_view input, const Limits& l = {}) {
  return RunTranscode(from, Format::kJson, input, l, Pretty());
}

// ---- the layout ----

TEST(JsonPrettyLayout, TwoSpacesAnItemALineAndColonSpaceAfterAKey) {
  EXPECT_OUTPUT(PrettyJson(Format::kJson, R"({"a":1,"b":[1,2]})"),
                "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}");
  EXPECT_OUTPUT(PrettyJson(Format::kJson, R"([{"x":{"y":[[]]}},"s",null,true,false,-1.5])"),
                "[\n"
                "  {\n"
                "    \"x\": {\n"
                "      \"y\": [\n"
                "        []\n"
                "      ]\n"
                "    }\n"
                "  },\n"
                "  \"s\",\n"
                "  null,\n"
                "  true,\n"
                "  false,\n"
                "  -1.5\n"
                "]");
}

TEST(JsonPrettyLayout, EmptyContainersStayOnTheirLine) {
  EXPECT_OUTPUT(PrettyJson(Format::kJson, "{}"), "{}");
  EXPECT_OUTPUT(PrettyJson(Format::kJson, "[]"), "[]");
  EXPECT_OUTPUT(PrettyJson(Format::kJson, R"({"a":{},"b":[]})"), "{\n  \"a\": {},\n  \"b\": []\n}");
  EXPECT_OUTPUT(PrettyJson(Format::kJson, "[[],{}]"), "[\n  [],\n  {}\n]");
}

TEST(JsonPrettyLayout, ATopLevelScalarIsWrittenAlone) {
  EXPECT_OUTPUT(PrettyJson(Format::kJson, "5"), "5");
  EXPECT_OUTPUT(PrettyJson(Format::kJson, R"("a\nb")"), R"("a\nb")");
  EXPECT_OUTPUT(PrettyJson(Format::kJson, "null"), "null");
}

TEST(JsonPrettyLayout, EveryItemKindFromCbor) {
  // {1: h'0102', "k": 2(h'010000000000000000'), "ip": 52(h'c0000201'),
  //  "p": 54([32, h'20010db8']), "u": undefined, "s": simple(16), "t": 0("x"), "f": 1.0}
  EXPECT_OUTPUT(CborToJson("a8 01 42 0102"
                           " 61 6b c2 49 010000000000000000"
                           " 62 6970 d8 34 44 c0000201"
                           " 61 70 d8 36 82 18 20 44 20010db8"
                           " 61 75 f7"
                           " 61 73 f0"
                           " 61 74 c0 61 78"
                           " 61 66 f9 3c00",
                           {}, Pretty()),
                "{\n"
                "  \"1\": \"AQI\",\n"
                "  \"k\": 18446744073709551616,\n"
                "  \"ip\": \"192.0.2.1\",\n"
                "  \"p\": \"2001:db8::/32\",\n"
                "  \"u\": null,\n"
                "  \"s\": null,\n"
                "  \"t\": \"x\",\n"
                "  \"f\": 1.0\n"
                "}");
}

TEST(JsonPrettyLayout, StringsAreEscapedAsInCompactOutput) {
  // JSON -> JSON takes escape-free strings and integers as they are (VerbatimText).
  EXPECT_OUTPUT(PrettyJson(Format::kJson, R"({"plain":"abc","esc":"a\"b\u0001","n":-12})"),
                "{\n  \"plain\": \"abc\",\n  \"esc\": \"a\\\"b\\u0001\",\n  \"n\": -12\n}");
}

// ---- the same value as the compact output ----

// The compact output and the pretty one read back into compact JSON: the same bytes. Or,
// for a refused input, the same error.
void ExpectSameValue(Format from, std::string_view input, const MappingOptions& base = {}) {
  MappingOptions pretty_options = base;
  pretty_options.pretty = true;
  const Result compact = RunTranscode(from, Format::kJson, input, {}, base);
  const Result pretty = RunTranscode(from, Format::kJson, input, {}, pretty_options);
  ASSERT_EQ(CodeName(pretty.status.code), CodeName(compact.status.code))
      << pretty.status.message << " / " << compact.status.message;
  EXPECT_EQ(pretty.status.offset, compact.status.offset);
  EXPECT_EQ(pretty.status.path, compact.status.path);
  EXPECT_EQ(pretty.status.message, compact.status.message);
  if (!compact.status.ok()) return;
  EXPECT_GE(pretty.out.size(), compact.out.size());
  MappingOptions read_back;
  read_back.allow_duplicate_keys = base.allow_duplicate_keys;
  EXPECT_OUTPUT(RunTranscode(Format::kJson, Format::kJson, pretty.out, {}, read_back), compact.out);
}

TEST(JsonPrettyValue, EveryCorpusDocumentReadsBackAsTheCompactOutput) {
  const char* const kCorpus[] = {"twitter",      "citm_catalog",  "canada",      "apache_builds",
                                 "gsoc-2018",    "github_events", "instruments", "marine_ik",
                                 "mesh",         "numbers",       "random",      "twitterescaped",
                                 "update-center"};
  int read = 0;
  for (const char* name : kCorpus) {
    const std::string json =
        ::rosetta::testing::ReadFile(::rosetta::testing::DataDir() + "/corpus/" + name + ".json");
    if (json.empty()) continue;
    SCOPED_TRACE(name);
    ++read;
    ExpectSameValue(Format::kJson, json);
    const Result cbor = JsonToCbor(json);
    ASSERT_TRUE(cbor.status.ok());
    ExpectSameValue(Format::kCbor, Hex(cbor.out));
    const Result msgpack = JsonToMsgpack(json);
    ASSERT_TRUE(msgpack.status.ok());
    ExpectSameValue(Format::kMsgpack, Hex(msgpack.out));
  }
  EXPECT_EQ(read, 13) << "corpus not found under " << ::rosetta::testing::DataDir();
}

// Random CBOR: every item kind the JSON writer meets, keys of every kind, tags, nesting,
// and now and then something it refuses.
class CborDocuments {
 public:
  explicit CborDocuments(uint64_t seed) : rng_(seed) {}

  // An array or map at the top, of 1 to 8 items.
  std::string Next() {
    out_.clear();
    const bool map = Pick(2);
    const uint64_t n = 1 + Pick(8);
    Head(map ? 5 : 4, n);
    for (uint64_t i = 0; i < n; ++i) {
      if (map) Key();
      Item(1);
    }
    return out_;
  }

 private:
  uint64_t Pick(uint64_t n) { return rng_() % n; }
  void Head(uint8_t major, uint64_t v) {
    if (v < 24) {
      out_.push_back(static_cast<char>(major << 5 | v));
      return;
    }
    const int bytes = v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffff ? 4 : 8;
    out_.push_back(static_cast<char>(major << 5 | (bytes == 1   ? 24
                                                   : bytes == 2 ? 25
                                                   : bytes == 4 ? 26
                                                                : 27)));
    for (int i = bytes - 1; i >= 0; --i) out_.push_back(static_cast<char>(v >> (8 * i)));
  }
  void Text() {
    static const char* const kPieces[] = {"a", "key", "\"", "\\", "\n", "\x01", "\xc3\xa9", " "};
    std::string s;
    for (uint64_t i = Pick(5); i > 0; --i) s += kPieces[Pick(std::size(kPieces))];
    Head(3, s.size());
    out_ += s;
  }
  void Key() {
    switch (Pick(12)) {
      case 0:
        Head(0, Pick(1000));
        break;
      case 1:
        Head(1, Pick(1000));
        break;
      case 2:
        if (Pick(10) == 0) {
          out_ += "\xf5";  // refused: no JSON member name
          break;
        }
        [[fallthrough]];
      default:
        Text();
    }
  }
  void Item(int depth) {
    switch (Pick(depth < 5 ? 16 : 10)) {
      case 0:
        Head(0, Pick(3) == 0 ? rng_() : Pick(100000));
        break;
      case 1:
        Head(1, Pick(3) == 0 ? rng_() : Pick(100));
        break;
      case 2:
      case 3:
        Text();
        break;
      case 4:
        out_.push_back(static_cast<char>(0xf4 + Pick(4)));  // false true null undefined
        break;
      case 5: {
        double d = std::ldexp(static_cast<double>(rng_() >> 11), static_cast<int>(Pick(100)) - 70);
        if (Pick(40) == 0) d = NAN;  // refused
        const auto b = std::bit_cast<uint64_t>(d);
        out_ += "\xfb";
        for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>(b >> (8 * i)));
        break;
      }
      case 6:
        Head(2, Pick(7));
        for (uint64_t n = static_cast<uint8_t>(out_.back()) & 0x1f; n > 0; --n)
          out_.push_back(static_cast<char>(Pick(256)));
        break;
      case 7:  // tags: a bignum, an IPv4 address and prefix, an epoch time, a dropped tag
        switch (Pick(5)) {
          case 0:
            out_ += "\xc2\x49\x01\x00\x00\x00\x00\x00\x00\x00\x07";
            break;
          case 1:
            out_ += "\xd8\x34\x44\x0a\x00\x00\x01";
            break;
          case 2:
            out_ += std::string("\xd8\x34\x82\x18\x18\x43\xc0\x00\x02", 9);
            break;
          case 3:
            out_ += "\xc1\x1a\x51\x4b\x67\xb0";
            break;
          default:
            out_ += "\xd8\x20";  // tag 32 (URI): dropped
            Text();
        }
        break;
      case 8:
        out_.push_back(static_cast<char>(0xe0 + Pick(20)));  // simple(0..19)
        break;
      case 9:
        Head(Pick(2) ? 4 : 5, 0);  // an empty container
        break;
      default: {
        const bool map = Pick(2);
        const uint64_t n = Pick(6);
        const bool indefinite = Pick(8) == 0;
        if (indefinite)
          out_.push_back(static_cast<char>(map ? 0xbf : 0x9f));
        else
          Head(map ? 5 : 4, n);
        for (uint64_t i = 0; i < n; ++i) {
          if (map) Key();
          Item(depth + 1);
        }
        if (indefinite) out_.push_back('\xff');
      }
    }
  }

  std::mt19937_64 rng_;
  std::string out_;
};

TEST(JsonPrettyValue, RandomCborAndMsgpackReadBackAsTheCompactOutput) {
  CborDocuments docs(20240501);
  MappingOptions dupes;
  dupes.allow_duplicate_keys = true;  // random keys repeat; the check is the layout
  int refused = 0;
  for (int i = 0; i < 10000; ++i) {
    const std::string cbor = docs.Next();
    SCOPED_TRACE(ToHex(cbor));
    ExpectSameValue(Format::kCbor, cbor, dupes);
    if (!RunTranscode(Format::kCbor, Format::kJson, cbor, {}, dupes).status.ok()) ++refused;
    const Result msgpack = RunTranscode(Format::kCbor, Format::kMsgpack, cbor, {}, dupes);
    if (msgpack.status.ok()) ExpectSameValue(Format::kMsgpack, Hex(msgpack.out), dupes);
    if (HasFailure()) break;
  }
  // Both outcomes were exercised.
  EXPECT_GT(refused, 1000);
  EXPECT_LT(refused, 6000);
}

// ---- limits ----

// Every max_output_bytes from 0 to the output's size: refused below it, written at it.
TEST(JsonPrettyLimits, OutputOfExactlyMaxOutputBytesIsWritten) {
  const char* const kDocs[] = {
      R"({"a":1,"b":[1,2,{"c":"xyz","d":[]}],"e":{},"f":-2.5,"g":null})",
      R"([[[[1]]],{"k":{"k":{"k":true}}},"\u0001",12345678901234567890])",
  };
  for (const char* doc : kDocs) {
    const Result full = PrettyJson(Format::kJson, doc);
    ASSERT_TRUE(full.status.ok());
    const Result cbor = JsonToCbor(doc);
    for (uint64_t limit = 0; limit <= full.out.size(); ++limit) {
      SCOPED_TRACE(limit);
      for (Format from : {Format::kJson, Format::kCbor}) {
        const Result r =
            PrettyJson(from, from == Format::kJson ? doc : Hex(cbor.out), MaxOutput(limit));
        if (limit == full.out.size()) {
          EXPECT_OUTPUT(r, full.out);
        } else {
          EXPECT_EQ(CodeName(r.status.code), "output_too_large");
        }
      }
    }
  }
  // An IP address, a bignum and a timestamp's text are written in one piece too.
  MappingOptions o = Pretty();
  o.timestamps_as_text = true;
  const std::string tagged = Hex("83 d8 34 44 c0000201 c2 49 010000000000000000 c1 1a 514b67b0");
  const Result full = RunTranscode(Format::kCbor, Format::kJson, tagged, {}, o);
  ASSERT_TRUE(full.status.ok()) << full.status.message;
  EXPECT_EQ(full.out,
            "[\n  \"192.0.2.1\",\n  18446744073709551616,\n  \"2013-03-21T20:04:00Z\"\n]");
  for (uint64_t limit = 0; limit <= full.out.size(); ++limit) {
    const Result r = RunTranscode(Format::kCbor, Format::kJson, tagged, MaxOutput(limit), o);
    EXPECT_EQ(r.status.ok(), limit == full.out.size()) << limit;
  }
}

TEST(JsonPrettyLimits, WriterRefusesContainersPastMaxDepth) {
  Limits limits = MaxDepth(2);
  MappingOptions options = Pretty();
  Context ctx(limits, options);
  OutputBuffer out;
  out.Begin(limits.max_output_bytes, &ctx.budget);
  PrettyJsonWriter writer(ctx, out);
  EXPECT_TRUE(writer.BeginMap(kUnknownLength));
  EXPECT_TRUE(writer.Text("a"));
  EXPECT_TRUE(writer.BeginArray(kUnknownLength));
  EXPECT_FALSE(writer.BeginArray(kUnknownLength));
  EXPECT_EQ(ctx.status.code, ErrorCode::kDepthExceeded);
  EXPECT_OUTPUT(PrettyJson(Format::kCbor, Hex("81 81 81 01"), MaxDepth(3)),
                "[\n  [\n    [\n      1\n    ]\n  ]\n]");
}

// ---- other outputs ----

TEST(JsonPrettyOtherOutputs, CborAndMsgpackAreUnaffected) {
  const std::string json = R"({"a":[1,2.5,"x",{"b":null}],"c":{}})";
  EXPECT_EQ(JsonToCbor(json, {}, Pretty()).out, JsonToCbor(json).out);
  EXPECT_EQ(JsonToMsgpack(json, {}, Pretty()).out, JsonToMsgpack(json).out);
  const std::string cbor = Hex(JsonToCbor(json).out);
  EXPECT_EQ(RunTranscode(Format::kCbor, Format::kCbor, cbor, {}, Pretty()).out,
            RunTranscode(Format::kCbor, Format::kCbor, cbor).out);
}

}  // namespace
}  // namespace rosetta::codec::testing
