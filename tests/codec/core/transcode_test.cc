// codec/src/transcode.cc and the public headers: Limits::LowerTo (never raises), every
// limit through Transcode and Validate in every format, every mapping option, the stable
// names of codes and formats, and what a reused OutputBuffer carries between requests.
#include "rosetta/codec/transcode.h"

#include <cstdlib>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "codec_test_support.h"

namespace rosetta::codec::testing {
namespace {

constexpr Format kCore[] = {Format::kJson, Format::kCbor, Format::kMsgpack};

// ---- Limits::LowerTo ----

Limits Server() {
  Limits s;
  s.max_input_bytes = 1000;
  s.max_output_bytes = 2000;
  s.max_depth = 30;
  s.max_string_bytes = 400;
  s.max_items = 500;
  s.max_alloc_bytes = 6000;
  return s;
}

TEST(LimitsLowerTo, ZeroKeepsTheServersLimit) {
  EXPECT_EQ(Server().LowerTo(KeepLimits()), Server());
}

TEST(LimitsLowerTo, EachLowerFieldReplacesOnlyItself) {
  Limits r = KeepLimits();
  Limits want = Server();
  r.max_input_bytes = 10, want.max_input_bytes = 10;
  EXPECT_EQ(Server().LowerTo(r), want);
  r.max_output_bytes = 20, want.max_output_bytes = 20;
  EXPECT_EQ(Server().LowerTo(r), want);
  r.max_depth = 3, want.max_depth = 3;
  EXPECT_EQ(Server().LowerTo(r), want);
  r.max_string_bytes = 4, want.max_string_bytes = 4;
  EXPECT_EQ(Server().LowerTo(r), want);
  r.max_items = 5, want.max_items = 5;
  EXPECT_EQ(Server().LowerTo(r), want);
  r.max_alloc_bytes = 60, want.max_alloc_bytes = 60;
  EXPECT_EQ(Server().LowerTo(r), want);
}

TEST(LimitsLowerTo, AHigherRequestNeverRaisesALimit) {
  const Limits higher{1001, ~uint64_t{0}, 31, 401, 501, ~uint64_t{0}};
  EXPECT_EQ(Server().LowerTo(higher), Server());
  // Defaults too: a client asking for the maximum of every field gets the defaults.
  const Limits max{~uint64_t{0}, ~uint64_t{0}, ~uint32_t{0},
                   ~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}};
  EXPECT_EQ(Limits{}.LowerTo(max), Limits{});
  // Equal is kept.
  EXPECT_EQ(Server().LowerTo(Server()), Server());
}

TEST(LimitsLowerTo, RandomRequestsNeverRaiseAndLoweringTwiceIsTheMinimum) {
  std::mt19937_64 rng(7);
  auto pick = [&](uint64_t ours) -> uint64_t {
    switch (rng() % 4) {
      case 0:
        return 0;
      case 1:
        return ours + 1 + rng() % 1000;
      case 2:
        return ours;
      default:
        return 1 + rng() % ours;
    }
  };
  auto lowered = [](uint64_t ours, uint64_t theirs) {
    return theirs != 0 && theirs < ours ? theirs : ours;
  };
  for (int i = 0; i < 1000; ++i) {
    const Limits s = Server();
    Limits a{pick(s.max_input_bytes),
             pick(s.max_output_bytes),
             static_cast<uint32_t>(pick(s.max_depth)),
             pick(s.max_string_bytes),
             pick(s.max_items),
             pick(s.max_alloc_bytes)};
    const Limits l = s.LowerTo(a);
    EXPECT_EQ(l.max_input_bytes, lowered(s.max_input_bytes, a.max_input_bytes));
    EXPECT_EQ(l.max_output_bytes, lowered(s.max_output_bytes, a.max_output_bytes));
    EXPECT_EQ(l.max_depth, lowered(s.max_depth, a.max_depth));
    EXPECT_EQ(l.max_string_bytes, lowered(s.max_string_bytes, a.max_string_bytes));
    EXPECT_EQ(l.max_items, lowered(s.max_items, a.max_items));
    EXPECT_EQ(l.max_alloc_bytes, lowered(s.max_alloc_bytes, a.max_alloc_bytes));
    // A connection's limits lowered again by a request: never above either.
    Limits b{pick(s.max_input_bytes),
             pick(s.max_output_bytes),
             static_cast<uint32_t>(pick(s.max_depth)),
             pick(s.max_string_bytes),
             pick(s.max_items),
             pick(s.max_alloc_bytes)};
    const Limits ll = l.LowerTo(b);
    EXPECT_LE(ll.max_input_bytes, l.max_input_bytes);
    EXPECT_LE(ll.max_depth, l.max_depth);
    EXPECT_LE(ll.max_alloc_bytes, l.max_alloc_bytes);
    EXPECT_EQ(ll, l.LowerTo(b).LowerTo(b));
  }
}

TEST(LimitsDefaults, MatchTheDesign) {
  const Limits d;
  EXPECT_EQ(d.max_depth, 128u);  // DESIGN.md "Limits": max depth (default 128)
  EXPECT_GT(d.max_input_bytes, 0u);
  EXPECT_GT(d.max_output_bytes, 0u);
  EXPECT_GT(d.max_string_bytes, 0u);
  EXPECT_GT(d.max_items, 0u);
  EXPECT_GT(d.max_alloc_bytes, 0u);
}

// ---- every limit, in every format, through Transcode and Validate ----

// The same document in each format: {"name": "abcdefgh", "list": [1, [2, [3]]]}.
std::string Document(Format f) {
  switch (f) {
    case Format::kJson:
      return R"({"name":"abcdefgh","list":[1,[2,[3]]]})";
    case Format::kCbor:
      return Hex("a2 64 6e 61 6d 65 68 61 62 63 64 65 66 67 68 64 6c 69 73 74 82 01 82 02 81 03");
    default:
      return Hex("82 a4 6e 61 6d 65 a8 61 62 63 64 65 66 67 68 a4 6c 69 73 74 92 01 92 02 91 03");
  }
}

class EveryLimit : public ::testing::TestWithParam<Format> {
 protected:
  void ExpectRefused(const Limits& limits, const char* code) {
    const Format from = GetParam();
    const std::string doc = Document(from);
    Result v = Check(from, doc, limits);
    EXPECT_EQ(CodeName(v.status.code), code) << "validate: " << v.status.message;
    EXPECT_TRUE(IsLimitError(v.status.code));
    EXPECT_LE(v.stats.peak_bytes, limits.max_alloc_bytes);
    for (Format to : kCore) {
      Result t = RunTranscode(from, to, doc, limits);
      EXPECT_EQ(CodeName(t.status.code), code) << FormatName(to) << ": " << t.status.message;
      EXPECT_LE(t.stats.peak_bytes, limits.max_alloc_bytes);
    }
  }
  void ExpectAccepted(const Limits& limits) {
    const Format from = GetParam();
    const std::string doc = Document(from);
    EXPECT_TRUE(Check(from, doc, limits).status.ok());
    for (Format to : kCore) {
      Result t = RunTranscode(from, to, doc, limits);
      EXPECT_TRUE(t.status.ok()) << FormatName(to) << ": " << t.status.message;
    }
  }
};

TEST_P(EveryLimit, MaxInputBytes) {
  const uint64_t size = Document(GetParam()).size();
  ExpectRefused(MaxInput(size - 1), "input_too_large");
  ExpectAccepted(MaxInput(size));
  EXPECT_EQ(Check(GetParam(), Document(GetParam()), MaxInput(size - 1)).status.offset, size - 1);
}

TEST_P(EveryLimit, MaxDepth) {
  ExpectRefused(MaxDepth(2), "depth_exceeded");
  ExpectAccepted(MaxDepth(4));  // the map, the list, and two arrays inside it
}

TEST_P(EveryLimit, MaxStringBytes) {
  ExpectRefused(MaxString(7), "string_too_large");
  ExpectAccepted(MaxString(8));
}

TEST_P(EveryLimit, MaxItems) {
  ExpectRefused(MaxItems(1), "too_many_items");
  ExpectAccepted(MaxItems(2));
}

TEST_P(EveryLimit, MaxOutputBytes) {
  const Format from = GetParam();
  for (Format to : kCore) {
    Result full = RunTranscode(from, to, Document(from));
    ASSERT_TRUE(full.status.ok());
    const uint64_t size = to == Format::kJson ? full.out.size() : full.out.size() / 2;
    EXPECT_OUTPUT(RunTranscode(from, to, Document(from), MaxOutput(size)), full.out);
    EXPECT_EQ(CodeName(RunTranscode(from, to, Document(from), MaxOutput(size - 1)).status.code),
              "output_too_large");
    EXPECT_TRUE(IsLimitError(ErrorCode::kOutputTooLarge));
  }
}

TEST_P(EveryLimit, MaxAllocBytes) {
  const Format from = GetParam();
  ExpectAccepted(MaxAlloc(1 << 20));
  // JSON charges its parser's memory up front; the binary readers need no heap for this
  // document, so a few bytes are enough for them, and only JSON is refused.
  Result v = Check(from, Document(from), MaxAlloc(64));
  if (from == Format::kJson) {
    EXPECT_EQ(CodeName(v.status.code), "budget_exceeded");
  } else {
    EXPECT_TRUE(v.status.ok()) << v.status.message;
  }
  EXPECT_LE(v.stats.peak_bytes, 64u);
}

INSTANTIATE_TEST_SUITE_P(Formats, EveryLimit, ::testing::ValuesIn(kCore),
                         [](const auto& info) { return std::string(FormatName(info.param)); });

TEST(Budget, EveryRefusalStaysWithinTheBudget) {
  // A document that needs a few KiB of scratch (chunks joined, many keys) under every
  // budget from 0 up: either it fits and succeeds, or it is budget_exceeded within it.
  std::string cbor = Hex("a2 61 61 5f");
  for (int i = 0; i < 40; ++i) cbor += Hex("58 20") + std::string(32, 'x');
  cbor += Hex("ff 61 62 b8 28");
  for (int i = 0; i < 40; ++i) {
    cbor += static_cast<char>(0x18);
    cbor += static_cast<char>(i + 24);
    cbor += Hex("f6");
  }
  ASSERT_TRUE(Check(Format::kCbor, cbor).status.ok());
  bool succeeded = false;
  for (uint64_t budget = 0; budget <= 64 * 1024; budget += 64) {
    for (Format to : kCore) {
      Result r = RunTranscode(Format::kCbor, to, cbor, MaxAlloc(budget));
      EXPECT_LE(r.stats.peak_bytes, budget);
      if (r.status.ok()) {
        succeeded = true;
      } else {
        EXPECT_EQ(CodeName(r.status.code), "budget_exceeded") << budget << ": " << r.status.message;
      }
    }
  }
  EXPECT_TRUE(succeeded);
}

TEST(Budget, StatsReportWhatWasCharged) {
  Result r = JsonToCbor(R"({"a":[1,2,3]})");
  ASSERT_TRUE(r.status.ok());
  EXPECT_GT(r.stats.allocated_bytes, 0u);
  EXPECT_GE(r.stats.peak_bytes, r.stats.allocated_bytes);
}

// ---- mapping options ----

TEST(Options, AllowDuplicateKeysInEveryFormat) {
  MappingOptions allow;
  allow.allow_duplicate_keys = true;
  const std::pair<Format, std::string> dups[] = {
      {Format::kJson, R"({"a":1,"a":2})"},
      {Format::kCbor, Hex("a2 61 61 01 61 61 02")},
      {Format::kMsgpack, Hex("82 a1 61 01 a1 61 02")},
  };
  for (const auto& [from, doc] : dups) {
    SCOPED_TRACE(FormatName(from));
    EXPECT_EQ(CodeName(Check(from, doc).status.code), "duplicate_key");
    EXPECT_TRUE(Check(from, doc, {}, allow).status.ok());
    for (Format to : kCore) {
      EXPECT_EQ(CodeName(RunTranscode(from, to, doc).status.code), "duplicate_key");
      EXPECT_TRUE(RunTranscode(from, to, doc, {}, allow).status.ok());
    }
  }
}

TEST(Options, Base64Standard) {
  MappingOptions standard;
  standard.base64_standard = true;
  EXPECT_OUTPUT(CborToJson("42 fb ff"), R"("-_8")");
  EXPECT_OUTPUT(CborToJson("42 fb ff", {}, standard), R"("+/8=")");
}

TEST(Options, NonfiniteAsNull) {
  MappingOptions null;
  null.nonfinite_as_null = true;
  EXPECT_EQ(CodeName(CborToJson("f9 7e 00").status.code), "unrepresentable");
  EXPECT_OUTPUT(CborToJson("f9 7e 00", {}, null), "null");
  // Only JSON needs it: the binary formats carry NaN.
  EXPECT_OUTPUT(CborToMsgpack("f9 7e 00"), "ca7fc00000");
}

TEST(Options, BignumAsDouble) {
  MappingOptions as_double;
  as_double.bignum_as_double = true;
  EXPECT_EQ(CodeName(JsonToMsgpack("18446744073709551617").status.code), "unrepresentable");
  EXPECT_OUTPUT(JsonToMsgpack("18446744073709551617", {}, as_double), "ca5f800000");
  // CBOR and JSON keep bignums exact whatever the option says.
  EXPECT_OUTPUT(JsonToCbor("18446744073709551616", {}, as_double), "c249010000000000000000");
}

// ---- names, formats, status text ----

TEST(Names, ErrorCodesHaveTheirStableNames) {
  const char* names[] = {"ok",
                         "truncated",
                         "syntax",
                         "invalid_utf8",
                         "depth_exceeded",
                         "input_too_large",
                         "output_too_large",
                         "string_too_large",
                         "too_many_items",
                         "budget_exceeded",
                         "duplicate_key",
                         "unrepresentable",
                         "schema_mismatch",
                         "unknown_message_type",
                         "trailing_data",
                         "unsupported",
                         "schema_violation",
                         "unknown_schema",
                         "not_deterministic",
                         "overloaded"};
  ASSERT_EQ(std::size(names), static_cast<size_t>(kErrorCodeCount));
  for (int i = 0; i < kErrorCodeCount; ++i)
    EXPECT_EQ(CodeName(static_cast<ErrorCode>(i)), names[i]);
}

TEST(Names, LimitErrorsAreExactlyTheLimits) {
  for (int i = 0; i < kErrorCodeCount; ++i) {
    const auto code = static_cast<ErrorCode>(i);
    const std::string_view n = CodeName(code);
    const bool limit = n == "depth_exceeded" || n == "input_too_large" || n == "output_too_large" ||
                       n == "string_too_large" || n == "too_many_items" || n == "budget_exceeded" ||
                       n == "overloaded";
    EXPECT_EQ(IsLimitError(code), limit) << n;
  }
}

TEST(Names, FormatsParseAndPrint) {
  for (Format f : {Format::kJson, Format::kCbor, Format::kMsgpack, Format::kProtobuf}) {
    EXPECT_EQ(ParseFormat(FormatName(f)), f);
  }
  EXPECT_EQ(static_cast<int>(Format::kJson), 1);  // the proto enum's numbers
  EXPECT_EQ(static_cast<int>(Format::kProtobuf), 4);
  EXPECT_FALSE(ParseFormat("JSON").has_value());
  EXPECT_FALSE(ParseFormat("").has_value());
  EXPECT_FALSE(ParseFormat("yaml").has_value());
}

TEST(Names, StatusToStringIsCodeAtByteOffsetMessage) {
  Result r = JsonToCbor(R"({"a":[1,2,})");
  EXPECT_EQ(r.status.ToString(), "syntax at byte 10: " + r.status.message);
  EXPECT_FALSE(r.status.message.empty());
  EXPECT_EQ(Status{}.ToString(), "ok at byte 0: ");
}

// ---- requests ----

// A format that needs a schema, asked for without one: unknown_message_type (the core
// codec links no protobuf); a number that is no format: unsupported.
TEST(Requests, SchemaFormatWithoutASchemaIsUnknownMessageType) {
  TranscodeRequest request;
  request.from = Format::kProtobuf;
  request.to = Format::kJson;
  request.input = "\x08\x01";
  OutputBuffer out;
  EXPECT_EQ(CodeName(Transcode(request, out).code), "unknown_message_type");
  EXPECT_EQ(CodeName(Validate(request).code), "unknown_message_type");
  request.from = Format::kJson;
  request.to = Format::kProtobuf;
  request.input = "{}";
  EXPECT_EQ(CodeName(Transcode(request, out).code), "unknown_message_type");
  request.to = static_cast<Format>(9);
  Status s = Transcode(request, out);
  EXPECT_EQ(CodeName(s.code), "unsupported");
  EXPECT_EQ(s.message,
            "format 9 is not one of json (1), cbor (2), msgpack (3), protobuf (4), fixed (5)");
  request.from = static_cast<Format>(0);
  EXPECT_EQ(CodeName(Validate(request).code), "unsupported");
}

// The registry: every row's name parses back to it, numbers are the proto enum's from 1.
TEST(Requests, FormatRegistryRowsAreConsistent) {
  int number = 1;
  for (const FormatInfo& f : kFormatTable) {
    EXPECT_EQ(static_cast<int>(f.format), number++);
    EXPECT_EQ(ParseFormat(f.name), f.format);
    EXPECT_EQ(FindFormat(static_cast<int>(f.format)), &f);
    EXPECT_TRUE(f.media_type.starts_with("application/")) << f.name;
  }
  EXPECT_EQ(FindFormat(0), nullptr);
  EXPECT_EQ(FindFormat(number), nullptr);
  EXPECT_EQ(FormatName(static_cast<Format>(number)), "unknown");
}

TEST(Requests, IdentityTranscodesGiveThePreferredForm) {
  EXPECT_OUTPUT(RunTranscode(Format::kJson, Format::kJson, " { \"a\" : [ 1 , 2.50 , \"x\" ] } "),
                R"({"a":[1,2.5,"x"]})");
  EXPECT_OUTPUT(CborToCbor("bf 61 61 9f 01 f9 41 00 ff ff"), "a161618201f94100");
  EXPECT_OUTPUT(MsgpackToMsgpack("de 00 01 a1 61 dc 00 02 01 cb 40 04 00 00 00 00 00 00"),
                "81a1619201ca40200000");
}

TEST(Requests, UnpaddedJsonGivesTheSameAnswers) {
  const char* docs[] = {R"({"a":[1,2,3]})", R"({"a":[1,2,})", "[1e400]", R"("x\ny")", "  7  "};
  for (const char* doc : docs) {
    SCOPED_TRACE(doc);
    Result padded = RunTranscode(Format::kJson, Format::kCbor, doc, {}, {}, true);
    Result copied = RunTranscode(Format::kJson, Format::kCbor, doc, {}, {}, false);
    EXPECT_EQ(padded.status.code, copied.status.code);
    EXPECT_EQ(padded.status.offset, copied.status.offset);
    EXPECT_EQ(padded.status.path, copied.status.path);
    EXPECT_EQ(padded.out, copied.out);
  }
}

TEST(Requests, ValidateAcceptsWhatTranscodeAccepts) {
  for (Format from : kCore) {
    const std::string doc = Document(from);
    EXPECT_TRUE(Check(from, doc).status.ok());
    for (Format to : kCore) EXPECT_TRUE(RunTranscode(from, to, doc).status.ok());
  }
}

TEST(Requests, AReusedOutputBufferStartsEachRequestClean) {
  OutputBuffer out;
  TranscodeRequest request;
  request.from = Format::kJson;
  request.to = Format::kCbor;
  std::string big = "[\"" + std::string(1000, 'x') + "\"]";
  big.append(kInputPadding, '\0');
  request.input = std::string_view(big.data(), big.size() - kInputPadding);
  request.input_padding = kInputPadding;
  ASSERT_TRUE(Transcode(request, out).ok());
  EXPECT_EQ(out.size(), 1u + 3u + 1000u);

  std::string small = std::string("[1]") + std::string(kInputPadding, '\0');
  request.input = std::string_view(small.data(), 3);
  ASSERT_TRUE(Transcode(request, out).ok());
  EXPECT_EQ(ToHex(out.view()), "8101");

  // A request that hits max_output_bytes, then one that runs out of budget while the
  // output grows: the second is budget_exceeded, not a leftover output_too_large.
  request.input = std::string_view(big.data(), big.size() - kInputPadding);
  request.limits.max_output_bytes = 100;
  EXPECT_EQ(CodeName(Transcode(request, out).code), "output_too_large");
  OutputBuffer fresh;
  request.limits.max_output_bytes = 1 << 20;
  request.from = Format::kCbor;
  const std::string bytes = Hex("5a 00 01 00 00") + std::string(65536, 'b');
  request.input = bytes;
  request.limits.max_alloc_bytes = 4096;
  EXPECT_EQ(CodeName(Transcode(request, out).code), "budget_exceeded");
  EXPECT_EQ(CodeName(Transcode(request, fresh).code), "budget_exceeded");
}

// ---- the test support itself ----

TEST(HeapWatch, SeesAnAllocationWhileAlive) {
  if (!rosetta::heap::CountingActive()) GTEST_SKIP() << "heap counting is off under sanitizers";
  rosetta::heap::Watch watch;
  void* volatile p = std::malloc(1 << 20);  // volatile: the compiler may not elide the pair
  const auto use = watch.Stop();
  std::free(p);
  EXPECT_GE(use.largest, 1u << 20);
  EXPECT_GE(use.bytes, 1u << 20);
  EXPECT_GE(use.calls, 1u);
  // And a transcode's own output buffer is seen, so the claim-guard checks measure something.
  Result r = JsonToCbor("[\"" + std::string(100000, 'x') + "\"]");
  ASSERT_TRUE(r.status.ok());
  EXPECT_GE(r.heap.largest, 100000u);
}

}  // namespace
}  // namespace rosetta::codec::testing
