// codec/src/json/json_reader.h (simdjson stage 1, our walk) and json_scalar_reader.h (scalar
// roots and the exact location of errors): every error the JSON reader reports, with its
// code, byte offset and JSON Pointer path; exact integers; nesting and duplicate keys at
// scale. Offsets are counted by hand from the inputs (RFC 8259).
#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "codec_test_support.h"
#include "json/json_reader.h"

namespace rosetta::codec::testing {
namespace {

Result CheckJson(std::string_view json, const Limits& limits = {},
                 const MappingOptions& options = {}) {
  return Check(Format::kJson, json, limits, options);
}

std::string Pointer(std::string_view step, int times) {
  std::string p;
  for (int i = 0; i < times; ++i) p += step;
  return p;
}

// ---- every error code, located ----

TEST(JsonReaderErrors, TruncatedWhereTheInputEnds) {
  EXPECT_REFUSED(CheckJson(R"({"a":[1,2)"), "truncated", 9, "/a/2");
  EXPECT_REFUSED(CheckJson(R"([1,2,)"), "truncated", 5, "/2");
  EXPECT_REFUSED(CheckJson(R"([)"), "truncated", 1, "/0");
  EXPECT_REFUSED(CheckJson(R"({"a":)"), "truncated", 5, "/a");
  EXPECT_REFUSED(CheckJson(R"({"a")"), "truncated", 4, "/a");
  EXPECT_REFUSED(CheckJson(R"(["abc)"), "truncated", 1,
                 "/0");  // an unterminated string, at its quote
  EXPECT_REFUSED(CheckJson(R"("abc)"), "truncated", 0, "");
  EXPECT_REFUSED(CheckJson(R"(tru)"), "truncated", 0, "");
  EXPECT_REFUSED(CheckJson(R"(-)"), "truncated", 1, "");
  EXPECT_REFUSED(CheckJson(""), "truncated", 0, "");
  EXPECT_REFUSED(CheckJson("  \n"), "truncated", 3, "");
}

TEST(JsonReaderErrors, EveryProperPrefixOfADocumentIsTruncated) {
  const std::string doc = R"({"a":[1,-500,1.5e3,"x\u00e9\n",true,false,null,{}],"b":{"c":[]}})";
  ASSERT_TRUE(CheckJson(doc).status.ok());
  for (size_t n = 0; n < doc.size(); ++n) {
    Result r = CheckJson(doc.substr(0, n));
    EXPECT_EQ(CodeName(r.status.code), "truncated")
        << "prefix " << doc.substr(0, n) << ": " << r.status.message;
    EXPECT_LE(r.status.offset, n);
  }
}

TEST(JsonReaderErrors, SyntaxErrorsAreLocatedAtTheOffendingByte) {
  EXPECT_REFUSED(CheckJson(R"({"a":[1,2,})"), "syntax", 10, "/a/2");
  EXPECT_REFUSED(CheckJson(R"([1 2])"), "syntax", 3, "/1");
  EXPECT_REFUSED(CheckJson(R"({"a" 1})"), "syntax", 5, "/a");
  EXPECT_REFUSED(CheckJson(R"({1:2})"), "syntax", 1, "");
  EXPECT_REFUSED(CheckJson(R"({"a":1,})"), "syntax", 7, "");
  EXPECT_REFUSED(CheckJson(R"([01])"), "syntax", 2, "/1");  // no leading zeros
  EXPECT_REFUSED(CheckJson(R"([1.])"), "syntax", 3, "/0");  // a digit after the point
  EXPECT_REFUSED(CheckJson(R"([1e+])"), "syntax", 4, "/0");
  EXPECT_REFUSED(CheckJson(R"([+1])"), "syntax", 1, "/0");
  EXPECT_REFUSED(CheckJson(R"([.5])"), "syntax", 1, "/0");
  EXPECT_REFUSED(CheckJson(R"([nul])"), "syntax", 4, "/0");
  EXPECT_REFUSED(CheckJson(R"([True])"), "syntax", 1, "/0");
  EXPECT_REFUSED(CheckJson("[\"a\x01\"]"), "syntax", 3, "/0");  // raw control character
  EXPECT_REFUSED(CheckJson(R"({"k":["\q"]})"), "syntax", 7, "/k/0");
  EXPECT_REFUSED(CheckJson(R"(["\u12G4"])"), "syntax", 6, "/0");
  EXPECT_REFUSED(CheckJson(R"([1,,2])"), "syntax", 3, "/1");
  EXPECT_REFUSED(CheckJson(R"(["a":1])"), "syntax", 4, "/1");
  EXPECT_REFUSED(CheckJson("[\v1]"), "syntax", 1, "/0");  // not JSON whitespace
  // Scalar roots take the byte-by-byte reader.
  EXPECT_REFUSED(CheckJson("nulL"), "syntax", 3, "");
  EXPECT_REFUSED(CheckJson("0x10"), "trailing_data", 1, "");
}

TEST(JsonReaderErrors, InvalidUtf8AtTheFirstBadByte) {
  EXPECT_REFUSED(CheckJson("[\"a\",\"\xff\"]"), "invalid_utf8", 6, "/1");
  EXPECT_REFUSED(CheckJson("{\"\xc3\x28\":1}"), "invalid_utf8", 2, "");        // in a key
  EXPECT_REFUSED(CheckJson("[\"ok\xed\xa0\x80\"]"), "invalid_utf8", 4, "/0");  // encoded surrogate
  EXPECT_REFUSED(CheckJson("[\"\xc0\xaf\"]"), "invalid_utf8", 2, "/0");        // overlong '/'
  EXPECT_REFUSED(CheckJson("[\"\xf4\x90\x80\x80\"]"), "invalid_utf8", 2, "/0");  // past U+10FFFF
  EXPECT_REFUSED(CheckJson("\"ab\xe2\x82\""), "invalid_utf8", 3, "");  // cut sequence, root
  // Escapes that name no scalar value.
  EXPECT_REFUSED(CheckJson(R"(["\udc00"])"), "invalid_utf8", 2, "/0");
  EXPECT_REFUSED(CheckJson(R"({"s":"x\ud800y"})"), "invalid_utf8", 7, "/s");
  EXPECT_REFUSED(CheckJson(R"(["\ud800\u0041"])"), "invalid_utf8", 2, "/0");
  EXPECT_TRUE(CheckJson(R"(["\ud83d\ude00"])").status.ok());
}

TEST(JsonReaderErrors, DepthExceededAtTheContainerThatOpensPastTheLimit) {
  EXPECT_REFUSED(CheckJson("[[[1]]]", MaxDepth(2)), "depth_exceeded", 2, "/0/0");
  EXPECT_REFUSED(CheckJson(R"({"a":{"b":[1]}})", MaxDepth(2)), "depth_exceeded", 10, "/a/b");
  EXPECT_REFUSED(CheckJson(R"([0, {"x": []}])", MaxDepth(2)), "depth_exceeded", 10, "/1/x");
  EXPECT_TRUE(CheckJson("[[1]]", MaxDepth(2)).status.ok());
}

TEST(JsonReaderErrors, StringTooLargeAtTheString) {
  EXPECT_REFUSED(CheckJson(R"({"a":"abcd"})", MaxString(3)), "string_too_large", 5, "/a");
  EXPECT_REFUSED(CheckJson(R"({"abcd":1})", MaxString(3)), "string_too_large", 1, "");
  EXPECT_REFUSED(CheckJson(R"("abcd")", MaxString(3)), "string_too_large", 0, "");
  EXPECT_TRUE(CheckJson(R"({"abc":"abc"})", MaxString(3)).status.ok());
}

TEST(JsonReaderErrors, MaxStringBytesBoundsTheUnescapedValueOnEveryPath) {
  // Twelve bytes of escapes hold a two-byte value: within 3, at the root and inside arrays.
  EXPECT_TRUE(CheckJson(R"(["\u0041\u0041"])", MaxString(3)).status.ok());
  EXPECT_TRUE(CheckJson(R"("\u0041\u0041")", MaxString(3)).status.ok());
  EXPECT_TRUE(CheckJson(R"({"\u0041\u0041":1})", MaxString(3)).status.ok());
  EXPECT_REFUSED(CheckJson(R"(["\u0041\u0041\u0041\u0041"])", MaxString(3)), "string_too_large", 1,
                 "/0");
  EXPECT_REFUSED(CheckJson(R"("\u0041\u0041\u0041\u0041")", MaxString(3)), "string_too_large", 0,
                 "");
  // Another error later in the document is reported as itself, not as the string.
  EXPECT_REFUSED(CheckJson(R"(["\u0041\u0041", 1,])", MaxString(3)), "syntax", 19, "/2");
}

TEST(JsonReaderErrors, TooManyItemsAtTheFirstItemPastTheLimit) {
  EXPECT_REFUSED(CheckJson("[1,2,3]", MaxItems(2)), "too_many_items", 5, "/2");
  EXPECT_REFUSED(CheckJson(R"({"a":1,"b":2,"c":3})", MaxItems(2)), "too_many_items", 13, "");
  EXPECT_REFUSED(CheckJson(R"({"x":[1, 2, 3]})", MaxItems(2)), "too_many_items", 12, "/x/2");
  EXPECT_TRUE(CheckJson(R"({"a":[1,2],"b":2})", MaxItems(2)).status.ok());
}

TEST(JsonReaderErrors, BudgetExceededBeforeTheParserIsGivenMemory) {
  // The parser's working memory is charged before the first byte is read.
  Result r = CheckJson(R"({"a":[1,2,3]})", MaxAlloc(1000));
  EXPECT_REFUSED(r, "budget_exceeded", 0, "");
  EXPECT_LE(r.stats.peak_bytes, 1000u);
  EXPECT_TRUE(CheckJson(R"({"a":[1,2,3]})", MaxAlloc(1 << 20)).status.ok());
  // An integer beyond 64 bits needs scratch for its magnitude.
  EXPECT_REFUSED(CheckJson("123456789012345678901234567890", MaxAlloc(8)), "budget_exceeded", 0,
                 "");
  // Input without simdjson's padding is copied once, and the copy is charged.
  EXPECT_REFUSED(
      RunTranscode(Format::kJson, Format::kCbor, "[1]", MaxAlloc(64), {}, /*padded=*/false),
      "budget_exceeded", 0, "");
  EXPECT_OUTPUT(RunTranscode(Format::kJson, Format::kCbor, "[1]", {}, {}, /*padded=*/false),
                "8101");
}

TEST(JsonReaderErrors, BudgetExceededForAnEscapedStringIsLocatedAtTheString) {
  // The unescaped text needs a buffer: refused where the string starts.
  EXPECT_REFUSED(CheckJson(R"(  "a\nb")", MaxAlloc(1)), "budget_exceeded", 2, "");
}

TEST(JsonReaderErrors, DuplicateKeyAtTheSecondKey) {
  EXPECT_REFUSED(CheckJson(R"({"a":1,"a":2})"), "duplicate_key", 7, "/a");
  EXPECT_REFUSED(CheckJson(R"({"x":{"a":1,"a":2}})"), "duplicate_key", 12, "/x/a");
  // The same name spelled with an escape is the same key (RFC 8259 section 8.3).
  EXPECT_REFUSED(CheckJson(R"({"a":1,"\u0061":2})"), "duplicate_key", 7, "/a");
  EXPECT_REFUSED(CheckJson(R"([{"a/b":1,"a/b":2}])"), "duplicate_key", 10, "/0/a~1b");
  // Sibling and nested objects may reuse a name; case matters.
  EXPECT_TRUE(CheckJson(R"([{"a":1},{"a":{"a":1}}])").status.ok());
  EXPECT_TRUE(CheckJson(R"({"a":1,"A":2})").status.ok());
}

// Keys without escapes are taken from the input as they are (json_reader.h String: the
// extent from the next token, a backslash looked for a word at a time); keys with one go
// through simdjson's unescaping. Every length across three words, with each escape at
// every place, must read as the same key.
TEST(JsonReaderKeys, KeysOfEveryLengthWithAnEscapeAtEveryPlaceReadExactly) {
  const std::pair<std::string, std::string> kEscapes[] = {
      {"\\\"", "\""}, {"\\\\", "\\"}, {"\\n", "\n"}, {"\\u00e9", "\xc3\xa9"}, {"\\/", "/"}};
  int checked = 0;
  for (size_t n = 0; n <= 24; ++n) {
    for (int at = -1; at < static_cast<int>(n); ++at) {  // -1: no escape
      for (const auto& [escaped, value] : kEscapes) {
        std::string raw, key;
        for (size_t i = 0; i < n; ++i) {
          const char c = static_cast<char>('a' + i);
          raw += static_cast<int>(i) == at ? escaped : std::string(1, c);
          key += static_cast<int>(i) == at ? value : std::string(1, c);
        }
        std::string cbor = "\xa1";
        if (key.size() < 24) {
          cbor += static_cast<char>(0x60 + key.size());
        } else {
          cbor += '\x78';
          cbor += static_cast<char>(key.size());
        }
        cbor += key + '\x01';
        EXPECT_OUTPUT(JsonToCbor("{\"" + raw + "\":1}"), ToHex(cbor));
        // The same key twice, once spelled with an escape where the other has none (the
        // escapes whose character may stand in a string as it is).
        if (at >= 0 && (value == "/" || value == "\xc3\xa9")) {
          std::string path = "/";
          for (char c : key) path += c == '/' ? std::string("~1") : std::string(1, c);
          EXPECT_REFUSED(CheckJson("{\"" + key + "\":1,\"" + raw + "\":2}"), "duplicate_key",
                         key.size() + 6, path);
        }
        ++checked;
        if (at < 0) break;  // once without an escape
      }
    }
  }
  EXPECT_EQ(checked, 25 + 5 * 300);
}

TEST(JsonReaderErrors, DuplicateKeysAllowedByOption) {
  MappingOptions allow;
  allow.allow_duplicate_keys = true;
  EXPECT_TRUE(CheckJson(R"({"a":1,"a":2})", {}, allow).status.ok());
  EXPECT_OUTPUT(JsonToCbor(R"({"a":1,"a":2})", {}, allow), "a2616101616102");
  EXPECT_OUTPUT(JsonToMsgpack(R"({"a":1,"a":2})", {}, allow), "82a16101a16102");
}

TEST(JsonReaderErrors, UnrepresentableNumbersAndWriterRefusalsAreLocated) {
  EXPECT_REFUSED(CheckJson("[1e400]"), "unrepresentable", 1, "/0");
  EXPECT_REFUSED(CheckJson(R"({"n":-1.5e309})"), "unrepresentable", 5, "/n");
  EXPECT_REFUSED(CheckJson("[" + std::string(4301, '7') + "]"), "unrepresentable", 1, "/0");
  EXPECT_TRUE(CheckJson("[" + std::string(4300, '7') + "]").status.ok());
  // An exponent below the smallest subnormal is zero, not an error.
  EXPECT_OUTPUT(JsonToCbor("[1e-400]"), "81f90000");
  // The MessagePack writer has no bignums: refused at the number.
  EXPECT_REFUSED(JsonToMsgpack(R"({"a":[18446744073709551616]})"), "unrepresentable", 6, "/a/0");
  EXPECT_REFUSED(JsonToMsgpack("[0,-18446744073709551616]"), "unrepresentable", 3, "/1");
}

TEST(JsonReaderErrors, TrailingDataAfterTheText) {
  EXPECT_REFUSED(CheckJson("[1] 2"), "trailing_data", 4, "");
  EXPECT_REFUSED(CheckJson("{}x"), "trailing_data", 2, "");
  EXPECT_REFUSED(CheckJson("1 2"), "trailing_data", 2, "");
  EXPECT_REFUSED(CheckJson("[1]]"), "trailing_data", 3, "");
  EXPECT_TRUE(CheckJson(" [1] \n").status.ok());
}

TEST(JsonReaderErrors, InputTooLargeBeforeAnythingIsRead) {
  EXPECT_REFUSED(CheckJson("[1,2]", MaxInput(4)), "input_too_large", 4, "");
  EXPECT_REFUSED(JsonToCbor("[1,2]", MaxInput(4)), "input_too_large", 4, "");
  EXPECT_TRUE(CheckJson("[1,2]", MaxInput(5)).status.ok());
}

// ---- integers stay exact (RFC 8949 3.4.3 for the bignums) ----

// Decimals with more than 19 significant digits, in every place the digits can be: the
// expected doubles are Python's float() of the same text (correctly rounded). simdjson
// 3.0.1's decimal parser gets the first one wrong (json_reader.h Number).
TEST(JsonReaderNumbers, DecimalsOfMoreThan19DigitsAreCorrectlyRounded) {
  EXPECT_OUTPUT(JsonToCbor("[0.12345789018446744073709551615]"), "81fb3fbf9aefb0c683b3");
  EXPECT_OUTPUT(JsonToCbor("[-0.000000012345678901234567890123]"), "81fbbe4a831bd731a289");
  EXPECT_OUTPUT(JsonToCbor("[1.2345678901234567890123e-5]"), "81fb3ee9e409302678ba");
  EXPECT_OUTPUT(JsonToCbor("[98765.432109876543210987654321]"), "81fb40f81cd6e9ec0bc1");
}

// Decimals with an integer part of 0 and at most 19 digits in all go to simdjson's decimal
// parser (json_reader.h Number); longer ones do not. Random ones of every length, sign and
// exponent, against glibc's strtod (correctly rounded), one array each.
struct DoubleCapture {
  std::vector<double> doubles;
  bool Null() { return false; }
  bool Undefined() { return false; }
  bool Bool(bool) { return false; }
  bool Simple(uint8_t) { return false; }
  bool Uint(uint64_t v) { return doubles.push_back(static_cast<double>(v)), true; }
  bool NegInt(uint64_t v) { return doubles.push_back(-1.0 - static_cast<double>(v)), true; }
  bool Double(double d) { return doubles.push_back(d), true; }
  bool Text(std::string_view) { return false; }
  bool Bytes(std::string_view) { return false; }
  bool BeginArray(uint64_t) { return true; }
  bool EndArray() { return true; }
  bool BeginMap(uint64_t) { return false; }
  bool EndMap() { return false; }
  bool Tag(uint64_t) { return false; }
};

TEST(JsonReaderNumbers, DecimalsBelowOneOfUpTo22DigitsAgreeWithStrtod) {
  std::mt19937_64 rng(20261202);
  std::string json = "[";
  std::vector<std::string> texts;
  for (int i = 0; i < 200000; ++i) {
    std::string t = rng() % 2 ? "-0." : "0.";
    const int zeros = static_cast<int>(rng() % 4);  // 0.000ddd
    t.append(zeros, '0');
    const int digits = 1 + static_cast<int>(rng() % 21);
    for (int d = 0; d < digits; ++d) t += static_cast<char>('0' + rng() % 10);
    if (rng() % 4 == 0) t += (rng() % 2 ? "e-" : "E+") + std::to_string(rng() % 30);
    json += (i ? "," : "") + t;
    texts.push_back(std::move(t));
  }
  json += "]";
  const std::string buffer = json + std::string(kInputPadding, ' ');
  const Limits limits;
  const MappingOptions options;
  Context ctx(limits, options);
  DoubleCapture capture;
  ASSERT_TRUE(JsonReader<DoubleCapture>(ctx, capture)
                  .Read(std::string_view(buffer.data(), json.size()), kInputPadding))
      << ctx.status.ToString();
  ASSERT_EQ(capture.doubles.size(), texts.size());
  int short_ones = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const double expected = std::strtod(texts[i].c_str(), nullptr);
    ASSERT_EQ(std::bit_cast<uint64_t>(capture.doubles[i]), std::bit_cast<uint64_t>(expected))
        << texts[i];
    short_ones += texts[i].size() <= 20;
  }
  EXPECT_GT(short_ones, 50000);  // both paths are taken
  EXPECT_LT(short_ones, 150000);
}

// Decimals given to JSON -> JSON as one array, and the text it must write for each:
// libstdc++'s strtod + to_chars (the shortest, a whole number with ".0" as JsonWriter
// keeps it).
struct ShortestTexts {
  std::string json = "[", expected = "[";
  // Adds `text`; returns the text expected for it.
  std::string Add(const std::string& text) {
    const double d = std::strtod(text.c_str(), nullptr);
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    std::string shortest(buf, r.ptr);
    if (shortest.find_first_of(".e") == std::string::npos) shortest += ".0";
    if (json.size() > 1) {
      json += ',';
      expected += ',';
    }
    json += text;
    expected += shortest;
    return shortest;
  }
  void Check() const {
    const Result r = RunTranscode(Format::kJson, Format::kJson, json + "]");
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.out, expected + "]");
  }
};

// JSON -> JSON writes a decimal of at most 15 significant digits in the layout to_chars
// gives it as it is (json_reader.h IsShortestFixed), and every other decimal as the
// shortest text of its double: random decimals of every shape (trailing zeros, leading
// zeros after the point, 1..20 digits, exponents), against libstdc++'s strtod + to_chars.
TEST(JsonReaderNumbers, DecimalsIntoJsonAreTheShortestTextOfTheirDouble) {
  std::mt19937_64 rng(15);
  ShortestTexts texts;
  int verbatim_shaped = 0;
  for (int i = 0; i < 100000; ++i) {
    std::string t = rng() % 3 == 0 ? "-" : "";
    const int whole = static_cast<int>(rng() % 9);  // 0: "0."
    if (whole == 0) {
      t += "0.";
      t.append(rng() % 6, '0');
    } else {
      t += static_cast<char>('1' + rng() % 9);
      for (int d = 1; d < whole; ++d) t += static_cast<char>('0' + rng() % 10);
      t += '.';
    }
    const int digits = 1 + static_cast<int>(rng() % 14);
    for (int d = 0; d < digits; ++d) t += static_cast<char>('0' + rng() % 10);
    if (rng() % 8 == 0) t += '0';  // a trailing zero
    if (rng() % 10 == 0) {         // an exponent
      t += 'e';
      t += std::to_string(rng() % 40);
    }
    verbatim_shaped += texts.Add(t) == t;
  }
  texts.Check();
  EXPECT_GT(verbatim_shaped, 20000);  // both kinds are many
  EXPECT_LT(verbatim_shaped, 80000);
}

// Decimals of 16 and 17 digits, as %.17g prints doubles (canada.json's coordinates): the
// text JSON -> JSON writes must be to_chars's shortest for the double. Short values
// printed long, random long ones, and nines that carry when rounded.
TEST(JsonReaderNumbers, LongDecimalsIntoJsonAreTheShortestTextOfTheirDouble) {
  std::mt19937_64 rng(17);
  ShortestTexts texts;
  int rounded = 0;
  for (int i = 0; i < 100000; ++i) {
    char t[64];
    const int shape = static_cast<int>(rng() % 4);
    const double sign = rng() % 2 ? -1.0 : 1.0;
    if (shape == 0) {  // a value of few decimals, printed with 17 digits
      const double v = static_cast<double>(rng() % 400000000) / 1e6 * sign;
      std::snprintf(t, sizeof t, "%.17g", v);
    } else if (shape == 1) {  // random digits, 16 or 17 of them
      const int whole = 1 + static_cast<int>(rng() % 14);
      const int all = 16 + static_cast<int>(rng() % 2);
      std::string d = sign < 0 ? "-" : "";
      d += static_cast<char>('1' + rng() % 9);
      for (int k = 1; k < all; ++k) {
        if (k == whole) d += '.';
        d += static_cast<char>('0' + rng() % 10);
      }
      std::snprintf(t, sizeof t, "%s", d.c_str());
    } else if (shape == 2) {  // nines that carry: 12.3999999999999999, 99.99999999999999
      const int whole = 1 + static_cast<int>(rng() % 4);
      std::string d = sign < 0 ? "-" : "";
      for (int k = 0; k < 17; ++k) {
        if (k == whole) d += '.';
        d += k < static_cast<int>(rng() % 6) ? static_cast<char>('1' + rng() % 8) : '9';
      }
      std::snprintf(t, sizeof t, "%s", d.c_str());
    } else {  // a random double
      std::snprintf(t, sizeof t, "%.17g", std::ldexp(static_cast<double>(rng() >> 11), -40) * sign);
    }
    const std::string text(t);
    if (text.find_first_of(".") == std::string::npos || text.find('e') != std::string::npos)
      continue;
    rounded += texts.Add(text).size() < text.size();
  }
  texts.Check();
  EXPECT_GT(rounded, 20000);  // many are written shorter than they came
}

// json_detail::EightDigits, the reader's eight-digits-at-once step, against the digits
// read one by one: random digit strings, and every place holding each byte that is not
// a digit (those next to '0' and '9' and those whose +6 carries into the next byte).
TEST(JsonReaderNumbers, EightDigitsAtOnceAgreesWithOneByOne) {
  std::mt19937_64 rng(88);
  int checked = 0;
  for (int i = 0; i < 100000; ++i) {
    char text[8];
    uint64_t expected = 0;
    for (char& c : text) {
      c = static_cast<char>('0' + rng() % 10);
      expected = expected * 10 + static_cast<uint64_t>(c - '0');
    }
    uint64_t v = 0;
    ASSERT_TRUE(json_detail::EightDigits(text, &v)) << std::string(text, 8);
    ASSERT_EQ(v, expected) << std::string(text, 8);
    ++checked;
  }
  for (int place = 0; place < 8; ++place) {
    for (int byte = 0; byte < 256; ++byte) {
      if (byte >= '0' && byte <= '9') continue;
      char text[9] = "12345678";
      text[place] = static_cast<char>(byte);
      uint64_t v = 0;
      ASSERT_FALSE(json_detail::EightDigits(text, &v)) << place << " " << byte;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 100000 + 8 * 246);
}

// json_detail::ReadShortDecimal (and, with AVX2, ReadShortDecimalAvx2), which read the
// items of a short array offered whole (TakesDecimals), against the grammar read here
// byte by byte: every combination of a sign, 0 to 21 integer digits (a leading zero
// among them), no fraction, a bare '.' or 1 to 21 fraction digits, and a tail that is
// none, an exponent, a stray byte or a second '.', each extent followed by a byte that
// ends a number.
TEST(JsonReaderNumbers, ShortDecimalsAreReadAsTheGrammarSays) {
  std::mt19937_64 rng(91);
  auto digits = [&](int n, bool lead_zero) {
    std::string s;
    for (int i = 0; i < n; ++i)
      s += static_cast<char>('0' + (i == 0 && lead_zero ? 0 : i == 0 ? 1 + rng() % 9 : rng() % 10));
    return s;
  };
  int checked = 0, accepted = 0;
#if defined(__AVX2__)
  int simd = 0;
#endif
  for (int rep = 0; rep < 6; ++rep) {
    for (const char* sign : {"", "-"}) {
      for (int nd = 0; nd <= 21; ++nd) {
        for (int m = -2; m <= 21; ++m) {  // -2: no '.'; -1: a bare '.'
          for (const char* tail : {"", "", "e5", "x", ".5"}) {
            if (m == -2 && *tail == '.') tail = "5.";        // (a second '.', not a first)
            const bool lead_zero = nd >= 1 && rep % 3 == 0;  // ("0" itself when nd is 1)
            std::string text = sign + digits(nd, lead_zero);
            if (m >= -1) text += '.';
            if (m >= 0) text += digits(m, false);
            text += tail;
            // The grammar: digits with no leading zero, then none or '.' and digits; 19
            // digits at most; nothing else.
            const int fraction = m < 0 ? 0 : m;
            const bool want = nd >= 1 && !(lead_zero && nd > 1) && m != -1 && m != 0 &&
                              *tail == '\0' && nd + fraction <= 19;
            std::string padded = text + (rep % 2 ? "]" : ",") + std::string(64, '7');
            const char* p = padded.data();
            const char* e = p + text.size();
            ShortDecimal d{};
            const bool got = json_detail::ReadShortDecimal(p, e, &d);
            ASSERT_EQ(got, want) << text;
            if (want) {
              std::string all = text.substr(*sign == '-');
              all.erase(std::remove(all.begin(), all.end(), '.'), all.end());
              EXPECT_EQ(d.digits, std::stoull(all)) << text;
              EXPECT_EQ(d.fraction_digits, static_cast<uint32_t>(fraction)) << text;
              EXPECT_EQ(d.negative, *sign == '-') << text;
              ++accepted;
            }
#if defined(__AVX2__)
            // The same, for the integer and fraction parts of at most 16 digits each.
            ShortDecimal v{};
            const bool fits = m < 0 ? nd <= 19 : nd <= 16 && m <= 16;
            ASSERT_EQ(json_detail::ReadShortDecimalAvx2(p, e, &v), want && fits) << text;
            if (want && fits) {
              EXPECT_EQ(v.digits, d.digits) << text;
              EXPECT_EQ(v.fraction_digits, d.fraction_digits) << text;
              EXPECT_EQ(v.negative, d.negative) << text;
              ++simd;
            }
#endif
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 6 * 2 * 22 * 24 * 5);
  // Per sign and empty tail: 19 integers and 171 decimals (nd + m <= 19), only the 19 with
  // one integer digit where a leading zero is written (reps 0 and 3).
  EXPECT_EQ(accepted, 2 * 2 * (4 * 190 + 2 * 19));
#if defined(__AVX2__)
  EXPECT_GT(simd, accepted * 3 / 4);
#endif
}

TEST(JsonReaderNumbers, IntegersAcrossCborsWholeRangeAreExact) {
  EXPECT_OUTPUT(JsonToCbor("[18446744073709551615]"), "811bffffffffffffffff");
  EXPECT_OUTPUT(JsonToCbor("[-18446744073709551616]"), "813bffffffffffffffff");
  EXPECT_OUTPUT(JsonToCbor("[-9223372036854775809]"), "813b8000000000000000");
  EXPECT_OUTPUT(JsonToCbor("[18446744073709551616]"), "81c249010000000000000000");
  // -18446744073709551617 = -1 - 2^64: tag 3 over 2^64.
  EXPECT_OUTPUT(JsonToCbor("[-18446744073709551617]"), "81c349010000000000000000");
  EXPECT_OUTPUT(JsonToCbor("18446744073709551616"), "c249010000000000000000");
  EXPECT_OUTPUT(JsonToCbor("[-0]"), "8100");
  EXPECT_OUTPUT(JsonToCbor("[-0.0]"), "81f98000");
  EXPECT_OUTPUT(JsonToCbor("[1E2]"), "81f95640");
}

// ---- nesting and keys at scale ----

TEST(JsonReaderScale, HundredThousandNestedArraysAreRefusedWithoutCrashing) {
  const std::string input = std::string(100000, '[') + std::string(100000, ']');
  Result v = CheckJson(input);
  EXPECT_REFUSED(v, "depth_exceeded", 128, Pointer("/0", 128));
  for (Format to : {Format::kJson, Format::kCbor, Format::kMsgpack}) {
    EXPECT_REFUSED(RunTranscode(Format::kJson, to, input), "depth_exceeded", 128,
                   Pointer("/0", 128));
  }
  // Unclosed, and objects.
  EXPECT_REFUSED(CheckJson(std::string(100000, '[')), "depth_exceeded", 128, Pointer("/0", 128));
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += R"({"a":)";
  EXPECT_REFUSED(CheckJson(objects), "depth_exceeded", 640, Pointer("/a", 128));
}

TEST(JsonReaderScale, HundredThousandNestedArraysUnderAHighLimitUseNoMachineStack) {
  Limits deep;
  deep.max_depth = 200000;
  const std::string input = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_TRUE(CheckJson(input, deep).status.ok());
  Result r = RunTranscode(Format::kJson, Format::kCbor, input, deep);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(r.out, Pointer("81", 99999) + "80");
}

std::string BigObject(int n, bool duplicate_last) {
  std::string out = "{";
  for (int i = 0; i < n; ++i) {
    if (i) out += ',';
    out += "\"k";
    out += std::to_string(i);
    out += "\":null";
  }
  if (duplicate_last) out += R"(,"k0":null)";
  out += '}';
  return out;
}

TEST(JsonReaderScale, ObjectOf200000DistinctKeysIsAcceptedFast) {
  const std::string input = BigObject(200000, false);
  const auto t0 = std::chrono::steady_clock::now();
  Result r = CheckJson(input);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_TRUE(JsonToCbor(input).status.ok());
}

TEST(JsonReaderScale, DuplicateAtTheEndOfA200000KeyObjectIsCaught) {
  const std::string input = BigObject(200000, true);
  const uint64_t last_key = input.size() - 10;  // "k0":null}
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_REFUSED(CheckJson(input), "duplicate_key", last_key, "/k0");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_REFUSED(JsonToMsgpack(input), "duplicate_key", last_key, "/k0");
}

}  // namespace
}  // namespace rosetta::codec::testing
