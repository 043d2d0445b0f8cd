// codec/src/fast_path/binary_to_json.h: the CBOR -> JSON and MessagePack -> JSON fast paths
// against the general path (CborReader / MsgpackReader into JsonWriter) on random
// documents (MessagePack ones are the CBOR ones transcoded by the general path). Where the fast
// path answers, its output must be the general path's byte for byte; where the document stays
// inside what the fast path takes and the general path succeeds, the fast path must answer (it is
// not allowed to fall back silently); and Transcode, which tries the fast path first, must give
// exactly the general path's output or error (code, offset, path).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "cbor/cbor_reader.h"
#include "core/context.h"
#include "fast_path/binary_to_json.h"
#include "json/json_writer.h"
#include "msgpack/msgpack_reader.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::codec {
namespace {

// Random CBOR. `plain` stays true while only what the fast path takes was written.
class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  std::string Document(bool* plain) {
    out_.clear();
    plain_ = true;
    Item(0);
    *plain = plain_;
    return out_;
  }

 private:
  uint64_t Pick(uint64_t n) { return rng_() % n; }
  void Head(uint8_t major, uint64_t v) {
    // Sometimes a longer argument than needed (still well-formed CBOR).
    const int extra = Pick(8) == 0 ? static_cast<int>(Pick(3)) : 0;
    int width = v < 24 ? 0 : v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffff ? 3 : 4;
    width = std::min(4, width + extra);
    if (width == 0) {
      out_.push_back(static_cast<char>(major << 5 | v));
      return;
    }
    out_.push_back(static_cast<char>(major << 5 | (23 + width)));
    const int bytes = 1 << (width - 1);
    for (int i = bytes - 1; i >= 0; --i) out_.push_back(static_cast<char>(v >> (8 * i)));
  }
  std::string Text() {
    static const char* const kPieces[] = {"a",
                                          "id",
                                          "name",
                                          "\"",
                                          "\\",
                                          "\n",
                                          "\t",
                                          "\x01",
                                          "\x1f",
                                          "/",
                                          "\xc3\xa9",
                                          "\xe2\x82\xac",
                                          "\xf0\x9f\x98\x80",
                                          "138586341",
                                          "x y"};
    std::string s;
    const uint64_t pieces = Pick(6) == 0 ? Pick(120) : Pick(6);
    for (uint64_t i = 0; i < pieces; ++i) s += kPieces[Pick(std::size(kPieces))];
    if (Pick(200) == 0 && !s.empty()) s[Pick(s.size())] = static_cast<char>(0xff);  // invalid UTF-8
    return s;
  }
  void TextItem(const std::string& s) {
    Head(3, s.size());
    out_ += s;
  }
  void Item(int depth) {
    const uint64_t kind = Pick(depth < 6 ? 14 : 9);
    switch (kind) {
      case 0:
        Head(0, Pick(4) == 0 ? rng_() : Pick(2) ? Pick(30) : Pick(1u << 30));
        break;
      case 1:
        Head(1, Pick(4) == 0 ? rng_() : Pick(1000));
        break;
      case 2:
      case 3:
        TextItem(Text());
        break;
      case 4:
        out_.push_back(static_cast<char>(0xf4 + Pick(3)));  // false, true, null
        break;
      case 5: {  // a float of each width
        const int w = static_cast<int>(Pick(3));
        double d = Pick(10) == 0 ? (Pick(2) ? NAN : INFINITY)
                                 : std::ldexp(static_cast<double>(Pick(1 << 20)),
                                              static_cast<int>(Pick(60)) - 40);
        if (Pick(2)) d = -d;
        if (!std::isfinite(d)) plain_ = false;
        if (w == 0) {
          out_ += "\xf9";
          out_.push_back(static_cast<char>(Pick(256)));
          out_.push_back(static_cast<char>(Pick(256)));
          if ((static_cast<uint8_t>(out_[out_.size() - 2]) & 0x7c) == 0x7c)
            plain_ = false;  // half Inf/NaN
        } else if (w == 1) {
          const auto f = std::bit_cast<uint32_t>(static_cast<float>(d));
          out_ += "\xfa";
          for (int i = 3; i >= 0; --i) out_.push_back(static_cast<char>(f >> (8 * i)));
        } else {
          const auto b = std::bit_cast<uint64_t>(d);
          out_ += "\xfb";
          for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>(b >> (8 * i)));
        }
        break;
      }
      case 6:  // what only the general path takes
        plain_ = false;
        switch (Pick(5)) {
          case 0:
            Head(2, 3);
            out_ += "abc";
            break;  // bytes
          case 1:
            Head(6, 1);
            Head(0, 1363896240);
            break;  // a tag
          case 2:
            out_.push_back('\xf7');
            break;  // undefined
          case 3:
            out_ += "\x7f\x61x\x61y\xff";
            break;  // indefinite text
          default:
            out_.push_back('\xe5');
            break;  // simple(5)
        }
        break;
      case 7:
        if (Pick(50) == 0) {  // broken: truncated or trailing
          plain_ = false;
          if (Pick(2))
            out_.push_back('\x18');
          else
            out_ += "\x82\x01";
        } else {
          Head(0, 7);
        }
        break;
      case 8:
        Head(1, ~uint64_t{0} - Pick(2));  // -2^64 (general path only) and -2^64 + 1
        if (static_cast<uint8_t>(out_[out_.size() - 1]) == 0xff) plain_ = false;
        break;
      case 9: {  // a vector: float64s (the fast path's run), sometimes broken by another item
        const uint64_t n = Pick(4) == 0 ? Pick(30) : Pick(4);
        const uint64_t other = Pick(3) == 0 ? Pick(n + 1) : n;  // where another item is (n: none)
        Head(4, n);
        for (uint64_t i = 0; i < n; ++i) {
          if (i == other) {
            Item(depth + 1);
            continue;
          }
          double d = std::ldexp(static_cast<double>(rng_() >> 11), static_cast<int>(Pick(80)) - 60);
          if (Pick(2)) d = -d;
          if (Pick(40) == 0) {
            d = Pick(2) ? NAN : -INFINITY;
            plain_ = false;
          }
          const auto b = std::bit_cast<uint64_t>(d);
          out_ += "\xfb";
          for (int k = 7; k >= 0; --k) out_.push_back(static_cast<char>(b >> (8 * k)));
        }
        break;
      }
      default: {
        const bool map = Pick(2);
        const uint64_t n = Pick(4) == 0 ? Pick(40) : Pick(5);
        if (Pick(30) == 0) {  // indefinite length
          plain_ = false;
          out_.push_back(static_cast<char>(map ? 0xbf : 0x9f));
          for (uint64_t i = 0; i < n; ++i) {
            if (map) TextItem(Text());
            Item(depth + 1);
          }
          out_.push_back('\xff');
          break;
        }
        Head(map ? 5 : 4, n);
        std::string first_key;
        for (uint64_t i = 0; i < n; ++i) {
          if (map) {
            if (Pick(25) == 0) {
              plain_ = false;
              Head(0, Pick(10));  // an integer key
            } else {
              std::string k = i > 0 && Pick(30) == 0 ? first_key : Text();  // sometimes a duplicate
              if (i == 0) first_key = k;
              TextItem(k);
            }
          }
          Item(depth + 1);
        }
      }
    }
  }

  std::mt19937_64 rng_;
  std::string out_;
  bool plain_ = true;
};

struct Result {
  bool ok;
  std::string output;
  Status status;
};

Result General(Format from, std::string_view cbor, const Limits& limits,
               const MappingOptions& options) {
  Context ctx(limits, options);
  OutputBuffer out;
  out.Begin(limits.max_output_bytes, &ctx.budget);
  const uint64_t guess = cbor.size() + cbor.size() / 2 + 64;  // as Transcode sizes it
  if (guess <= limits.max_output_bytes && guess <= ctx.budget.limit() / 2) out.Ensure(guess);
  ctx.json_member_names = true;
  JsonWriter writer(ctx, out);
  const bool ok = from == Format::kCbor ? CborReader<JsonWriter>(ctx, writer).Read(cbor)
                                        : MsgpackReader<JsonWriter>(ctx, writer).Read(cbor);
  return {ok, std::string(out.view()), ctx.status};
}

void Compare(Format from, const std::string& cbor, bool plain, const Limits& limits,
             const MappingOptions& options, int* fast_answers) {
  const Result general = General(from, cbor, limits, options);
  Context ctx(limits, options);
  OutputBuffer out;
  out.Begin(limits.max_output_bytes, &ctx.budget);
  const bool fast =
      from == Format::kCbor ? FastCborToJson(ctx, cbor, out) : FastMsgpackToJson(ctx, cbor, out);
  if (fast) {
    ++*fast_answers;
    if (general.status.code == ErrorCode::kBudgetExceeded) return;  // see below
    ASSERT_TRUE(general.ok) << "fast path answered where the general path says "
                            << general.status.ToString();
    ASSERT_EQ(std::string(out.view()), general.output);
  } else if (plain && general.ok) {
    FAIL() << "the fast path fell back on a document it takes: " << general.output.substr(0, 200);
  }
  TranscodeRequest r;
  r.from = from;
  r.to = Format::kJson;
  r.input = cbor;
  r.limits = limits;
  r.options = options;
  OutputBuffer end_to_end;
  const Status s = Transcode(r, end_to_end);
  if (general.status.code == ErrorCode::kBudgetExceeded || s.code == ErrorCode::kBudgetExceeded) {
    // Where the budget runs out depends on the memory already at hand: the fast path
    // needs less than the general one (no per-item bookkeeping), and a fallback
    // inherits the output capacity it grew (as a request inherits a thread's buffer
    // from an earlier one: output.h), which changes the output's growth steps. So with
    // the budget in play the answer is budget_exceeded, or exactly the general path's
    // under the default budget (its output or its error).
    if (s.code == ErrorCode::kBudgetExceeded) return;
    Limits roomy_limits = limits;
    roomy_limits.max_alloc_bytes = Limits().max_alloc_bytes;
    const Result roomy = General(from, cbor, roomy_limits, options);
    ASSERT_EQ(s.code, roomy.status.code) << s.ToString() << " vs " << roomy.status.ToString();
    ASSERT_EQ(s.offset, roomy.status.offset) << s.ToString();
    if (s.ok()) {
      ASSERT_EQ(std::string(end_to_end.view()), roomy.output);
    }
    return;
  }
  ASSERT_EQ(s.code, general.status.code) << s.ToString() << " vs " << general.status.ToString();
  ASSERT_EQ(s.offset, general.status.offset) << s.ToString();
  ASSERT_EQ(s.path, general.status.path) << s.ToString();
  if (s.ok()) {
    ASSERT_EQ(std::string(end_to_end.view()), general.output);
  }
}

// The document in `from`: CBOR as generated, or MessagePack by the general transcoder
// (false when it has no MessagePack form, or is not well-formed CBOR).
bool InFormat(Format from, const std::string& cbor, std::string* doc) {
  if (from == Format::kCbor) {
    *doc = cbor;
    return true;
  }
  TranscodeRequest r;
  r.from = Format::kCbor;
  r.to = Format::kMsgpack;
  r.input = cbor;
  r.options.allow_duplicate_keys = true;  // kept, for the JSON side to refuse
  OutputBuffer out;
  if (!Transcode(r, out).ok()) return false;
  *doc = std::string(out.view());
  return true;
}

class FastToJsonTest : public ::testing::TestWithParam<Format> {};

TEST_P(FastToJsonTest, SameAsTheGeneralPathOnRandomDocuments) {
  Generator gen(20261130);
  Limits limits;
  MappingOptions options;
  int fast_answers = 0, plain_docs = 0, docs = 0;
  for (int i = 0; i < 20000; ++i) {
    bool plain;
    std::string doc;
    if (!InFormat(GetParam(), gen.Document(&plain), &doc)) continue;
    ++docs;
    plain_docs += plain;
    ASSERT_NO_FATAL_FAILURE(Compare(GetParam(), doc, plain, limits, options, &fast_answers))
        << "document " << i;
  }
  EXPECT_GT(docs, 12000);
  EXPECT_GT(plain_docs, 8000);
  EXPECT_GT(fast_answers, 6000);
}

// Every limit the fast path shares with the general path, lowered so that random
// documents hit it: the answers (fallback, then the general path's error) still agree.
TEST_P(FastToJsonTest, SameAsTheGeneralPathUnderLowLimits) {
  Generator gen(7);
  int fast_answers = 0;
  for (int i = 0; i < 20000; ++i) {
    Limits limits;
    switch (i % 5) {
      case 0:
        limits.max_depth = 2;
        break;
      case 1:
        limits.max_items = 3;
        break;
      case 2:
        limits.max_string_bytes = 5;
        break;
      case 3:
        limits.max_output_bytes = 40;
        break;
      default:
        limits.max_alloc_bytes = 2000;
        break;
    }
    MappingOptions options;
    options.allow_duplicate_keys = i % 7 == 0;
    bool plain;
    std::string doc;
    if (!InFormat(GetParam(), gen.Document(&plain), &doc)) continue;
    ASSERT_NO_FATAL_FAILURE(Compare(GetParam(), doc, false, limits, options, &fast_answers))
        << "document " << i;
  }
  EXPECT_GT(fast_answers, 2000);
}

// Every MessagePack width the fast path reads, including those no preferred encoder
// writes (uint32 for 5, str16 for "ab", array32 of 1, map16 of 1): the same JSON as the
// general path, from the fast path itself.
TEST(FastToJsonMsgpack, EveryWidth) {
  const std::string docs[] = {std::string("\xcc\x05", 2),
                              std::string("\xcd\x00\x05", 3),
                              std::string("\xce\x00\x00\x00\x05", 5),
                              std::string("\xcf\x00\x00\x00\x00\x00\x00\x00\x05", 9),
                              std::string("\xcf\xff\xff\xff\xff\xff\xff\xff\xff", 9),
                              std::string("\xd0\xfb", 2),
                              std::string("\xd1\xff\xfb", 3),
                              std::string("\xd2\xff\xff\xff\xfb", 5),
                              std::string("\xd3\xff\xff\xff\xff\xff\xff\xff\xfb", 9),
                              std::string("\xd3\x80\x00\x00\x00\x00\x00\x00\x00", 9),
                              std::string("\xd0\x05", 2),
                              std::string("\xe0", 1),
                              std::string("\x7f", 1),
                              std::string("\xd9\x02"
                                          "ab",
                                          4),
                              std::string("\xda\x00\x02"
                                          "ab",
                                          5),
                              std::string("\xdb\x00\x00\x00\x02"
                                          "ab",
                                          7),
                              std::string("\xdc\x00\x01\xc3", 4),
                              std::string("\xdd\x00\x00\x00\x01\xc2", 6),
                              std::string("\xde\x00\x01\xa1k\xc0", 6),
                              std::string("\xdf\x00\x00\x00\x01\xa1k\xc0", 8),
                              std::string("\xca\x3f\xc0\x00\x00", 5),
                              std::string("\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00", 9),
                              std::string("\x82\xa1"
                                          "a\x90\xa1"
                                          "b\x80",
                                          7)};
  const char* const expected[] = {"5",
                                  "5",
                                  "5",
                                  "5",
                                  "18446744073709551615",
                                  "-5",
                                  "-5",
                                  "-5",
                                  "-5",
                                  "-9223372036854775808",
                                  "5",
                                  "-32",
                                  "127",
                                  "\"ab\"",
                                  "\"ab\"",
                                  "\"ab\"",
                                  "[true]",
                                  "[false]",
                                  "{\"k\":null}",
                                  "{\"k\":null}",
                                  "1.5",
                                  "1.5",
                                  "{\"a\":[],\"b\":{}}"};
  static_assert(std::size(docs) == std::size(expected));
  for (size_t i = 0; i < std::size(docs); ++i) {
    Limits limits;
    MappingOptions options;
    Context ctx(limits, options);
    OutputBuffer out;
    out.Begin(limits.max_output_bytes, &ctx.budget);
    ASSERT_TRUE(FastMsgpackToJson(ctx, docs[i], out)) << i;
    EXPECT_EQ(std::string(out.view()), expected[i]) << i;
    EXPECT_EQ(General(Format::kMsgpack, docs[i], limits, options).output, expected[i]) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, FastToJsonTest,
                         ::testing::Values(Format::kCbor, Format::kMsgpack),
                         [](const ::testing::TestParamInfo<Format>& info) {
                           return info.param == Format::kCbor ? "Cbor" : "Msgpack";
                         });

}  // namespace
}  // namespace rosetta::codec
