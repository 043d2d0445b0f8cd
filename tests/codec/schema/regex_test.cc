// codec/src/schema/regex.h: ECMA-262 patterns translated to RE2. First the official JSON
// Schema Test Suite's regex files for every draft (pattern.json, patternProperties.json,
// optional/ecmascript-regex.json, optional/non-bmp-regex.json, optional/format/regex.json),
// evaluated here by hand for the few keywords they use, with the number that pass asserted;
// then each construct's translation and meaning, and what is refused and why.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <re2/re2.h>
#include <nlohmann/json.hpp>

#ifndef ROSETTA_DEFAULT_DATA_DIR
#define ROSETTA_DEFAULT_DATA_DIR "../shared/data"
#endif
#include "rosetta_test_data.h"
#include "schema/ascii_dfa.h"
#include "schema/regex.h"

namespace rosetta::codec::schema {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------
// The suite.

// Just enough of a validator for these files: the keywords they use, nothing else (a case
// using another keyword fails, named).
class MiniValidator {
 public:
  explicit MiniValidator(bool draft4) : draft4_(draft4) {}

  // False with *why set when the case cannot be evaluated (a refused pattern, a keyword
  // this does not know).
  bool Valid(const json& schema, const json& instance, bool* valid, std::string* why) {
    if (schema.is_boolean()) {
      *valid = schema.get<bool>();
      return true;
    }
    *valid = true;
    for (const auto& [key, value] : schema.items()) {
      bool ok = true;
      if (key == "$schema" || key == "description") continue;
      if (key == "type") {
        ok = TypeMatches(value.get<std::string>(), instance);
      } else if (key == "maximum") {
        ok = !instance.is_number() || instance.get<double>() <= value.get<double>();
      } else if (key == "format") {
        if (value != "regex") return Unknown("format " + value.dump(), why);
        ok = !instance.is_string() || IsEcmaRegex(instance.get<std::string>());
      } else if (key == "pattern") {
        if (instance.is_string()) {
          auto re = Compile(value.get<std::string>(), why);
          if (!re) return false;
          ok = RegexSearch(*re, instance.get<std::string>());
        }
      } else if (key == "patternProperties" || key == "additionalProperties") {
        if (key == "additionalProperties" && schema.contains("patternProperties")) continue;
        if (instance.is_object() && !Members(schema, instance, &ok, why)) return false;
      } else {
        return Unknown("keyword " + key, why);
      }
      if (!ok) *valid = false;
    }
    return true;
  }

 private:
  // patternProperties, then additionalProperties for the members no pattern matched (these
  // files have no "properties").
  bool Members(const json& schema, const json& instance, bool* ok, std::string* why) {
    const json none = json::object();
    const json& patterns =
        schema.contains("patternProperties") ? schema["patternProperties"] : none;
    for (const auto& [name, member] : instance.items()) {
      bool matched = false;
      for (const auto& [pattern, subschema] : patterns.items()) {
        auto re = Compile(pattern, why);
        if (!re) return false;
        if (!RegexSearch(*re, name)) continue;
        matched = true;
        bool v;
        if (!Valid(subschema, member, &v, why)) return false;
        if (!v) *ok = false;
      }
      if (!matched && schema.contains("additionalProperties")) {
        bool v;
        if (!Valid(schema["additionalProperties"], member, &v, why)) return false;
        if (!v) *ok = false;
      }
    }
    return true;
  }

  bool TypeMatches(const std::string& type, const json& v) {
    if (type == "string") return v.is_string();
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    if (type == "number") return v.is_number();
    if (type == "integer") {
      if (draft4_) return v.is_number_integer();
      return v.is_number() &&
             v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>()));
    }
    return false;
  }

  std::unique_ptr<re2::RE2> Compile(const std::string& pattern, std::string* why) {
    std::string error;
    auto re = CompileEcmaRegex(pattern, &error);
    if (!re) *why = "pattern " + json(pattern).dump() + ": " + error;
    return re;
  }

  static bool Unknown(const std::string& what, std::string* why) {
    *why = "this test does not evaluate " + what;
    return false;
  }

  bool draft4_;
};

struct SuiteFile {
  const char* draft;
  const char* file;
  int cases;
  int passed;
};

// Every case passes: the counts are the suite's own (format/regex.json is not in drafts 4
// and 6, which have no "regex" format).
constexpr SuiteFile kSuiteFiles[] = {
    {"draft4", "pattern.json", 9, 9},
    {"draft4", "patternProperties.json", 18, 18},
    {"draft4", "optional/ecmascript-regex.json", 74, 74},
    {"draft4", "optional/non-bmp-regex.json", 12, 12},
    {"draft6", "pattern.json", 9, 9},
    {"draft6", "patternProperties.json", 23, 23},
    {"draft6", "optional/ecmascript-regex.json", 74, 74},
    {"draft6", "optional/non-bmp-regex.json", 12, 12},
    {"draft7", "pattern.json", 9, 9},
    {"draft7", "patternProperties.json", 23, 23},
    {"draft7", "optional/ecmascript-regex.json", 74, 74},
    {"draft7", "optional/non-bmp-regex.json", 12, 12},
    {"draft7", "optional/format/regex.json", 8, 8},
    {"draft2019-09", "pattern.json", 9, 9},
    {"draft2019-09", "patternProperties.json", 23, 23},
    {"draft2019-09", "optional/ecmascript-regex.json", 74, 74},
    {"draft2019-09", "optional/non-bmp-regex.json", 12, 12},
    {"draft2019-09", "optional/format/regex.json", 8, 8},
    {"draft2020-12", "pattern.json", 12, 12},
    {"draft2020-12", "patternProperties.json", 25, 25},
    {"draft2020-12", "optional/ecmascript-regex.json", 74, 74},
    {"draft2020-12", "optional/non-bmp-regex.json", 12, 12},
    {"draft2020-12", "optional/format/regex.json", 8, 8},
};

class RegexSuite : public ::testing::TestWithParam<SuiteFile> {};

TEST_P(RegexSuite, AgreesWithTheSuite) {
  const SuiteFile& f = GetParam();
  const std::filesystem::path path = std::filesystem::path(rosetta::testing::DataDir()) /
                                     "conformance/json-schema-test-suite/tests" / f.draft / f.file;
  const std::string text = rosetta::testing::ReadFile(path.string());
  ASSERT_FALSE(text.empty()) << "no suite file " << path << " (set ROSETTA_DATA_DIR)";
  const json groups = json::parse(text);
  MiniValidator validator(std::string_view(f.draft) == "draft4");
  int cases = 0, passed = 0;
  for (const auto& group : groups) {
    for (const auto& test : group.at("tests")) {
      ++cases;
      bool valid = false;
      std::string why;
      const std::string where = std::string(f.draft) + "/" + f.file + ": " +
                                group.at("description").get<std::string>() + " / " +
                                test.at("description").get<std::string>();
      if (!validator.Valid(group.at("schema"), test.at("data"), &valid, &why)) {
        ADD_FAILURE() << where << ": " << why;
      } else if (valid != test.at("valid").get<bool>()) {
        ADD_FAILURE() << where << ": " << test.at("data").dump() << " is "
                      << (valid ? "valid" : "invalid") << " here";
      } else {
        ++passed;
      }
    }
  }
  EXPECT_EQ(cases, f.cases) << path;
  EXPECT_EQ(passed, f.passed) << path;
}

INSTANTIATE_TEST_SUITE_P(Files, RegexSuite, ::testing::ValuesIn(kSuiteFiles), [](const auto& info) {
  std::string name = std::string(info.param.draft) + "_" + info.param.file;
  for (char& c : name) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
});

// ---------------------------------------------------------------------------------------
// Helpers.

std::string Translate(std::string_view ecma) {
  std::string out, error;
  if (!TranslateEcmaRegex(ecma, &out, &error)) return "ERROR " + error;
  return out;
}

std::string ErrorOf(std::string_view ecma) {
  std::string out, error;
  if (TranslateEcmaRegex(ecma, &out, &error)) return "translated to " + out;
  return error;
}

// Whether the pattern matches somewhere in the text; a pattern that does not compile fails
// the test.
::testing::AssertionResult Matches(std::string_view ecma, std::string_view text) {
  std::string error;
  auto re = CompileEcmaRegex(ecma, &error);
  if (!re) return ::testing::AssertionFailure() << ecma << " does not compile: " << error;
  if (RegexSearch(*re, text)) return ::testing::AssertionSuccess() << ecma << " matches";
  return ::testing::AssertionFailure()
         << ecma << " does not match " << json(text).dump() << " (RE2: " << re->pattern() << ")";
}

std::string Utf8(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xC0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
  return s;
}

// ---------------------------------------------------------------------------------------
// Characters and character class escapes.

TEST(EcmaRegex, DigitIsAsciiOnly) {
  EXPECT_EQ(Translate("\\d"), "[0-9]");
  EXPECT_TRUE(Matches("^\\d$", "7"));
  EXPECT_FALSE(Matches("\\d", "\u0663"));        // ARABIC-INDIC DIGIT THREE
  EXPECT_FALSE(Matches("\\d", "\xef\xbc\x91"));  // FULLWIDTH DIGIT ONE
  EXPECT_TRUE(Matches("^\\D$", "\u0663"));
  EXPECT_FALSE(Matches("\\D", "0123"));
  EXPECT_TRUE(Matches("^[\\D]$", "\u0663"));
  EXPECT_TRUE(Matches("^[^\\D]$", "5"));
  EXPECT_FALSE(Matches("[^\\D]", "x\u0663"));
}

TEST(EcmaRegex, WordIsAsciiOnly) {
  EXPECT_EQ(Translate("\\w"), "[0-9A-Z_a-z]");
  EXPECT_TRUE(Matches("^\\w+$", "az_AZ09"));
  EXPECT_FALSE(Matches("\\w", "\u00e9"));
  EXPECT_FALSE(Matches("\\w", "\u017f"));  // LATIN SMALL LETTER LONG S
  EXPECT_FALSE(Matches("\\w", "\u212a"));  // KELVIN SIGN
  EXPECT_TRUE(Matches("^\\W$", "\u00e9"));
  EXPECT_FALSE(Matches("\\W", "a_Z9"));
  EXPECT_TRUE(Matches("^[\\W\\d]+$", "-9\u00e9"));
}

TEST(EcmaRegex, SpaceIsWhiteSpaceAndLineTerminator) {
  const char32_t spaces[] = {0x09,   0x0A,   0x0B,   0x0C,   0x0D,   0x20,
                             0xA0,   0x1680, 0x2000, 0x2001, 0x2005, 0x200A,
                             0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF};
  for (char32_t c : spaces) {
    EXPECT_TRUE(Matches("^\\s$", Utf8(c))) << std::hex << static_cast<uint32_t>(c);
    EXPECT_TRUE(Matches("^[\\s]$", Utf8(c))) << std::hex << static_cast<uint32_t>(c);
    EXPECT_FALSE(Matches("\\S", Utf8(c))) << std::hex << static_cast<uint32_t>(c);
    EXPECT_FALSE(Matches("[^\\s]", Utf8(c))) << std::hex << static_cast<uint32_t>(c);
  }
  // Not ECMA whitespace: NEL (a control), MONGOLIAN VOWEL SEPARATOR (Cf since Unicode 6.3),
  // ZERO WIDTH SPACE (Cf), EN DASH.
  const char32_t others[] = {0x01, 0x85, 0x180E, 0x200B, 0x2013, 'a'};
  for (char32_t c : others) {
    EXPECT_FALSE(Matches("\\s", Utf8(c))) << std::hex << static_cast<uint32_t>(c);
    EXPECT_TRUE(Matches("^\\S$", Utf8(c))) << std::hex << static_cast<uint32_t>(c);
    EXPECT_TRUE(Matches("^[\\S]$", Utf8(c))) << std::hex << static_cast<uint32_t>(c);
  }
}

TEST(EcmaRegex, DotIsAnyCodePointButLineTerminators) {
  EXPECT_EQ(Translate("."), "[^\\x{A}\\x{D}\\x{2028}\\x{2029}]");
  for (std::string_view t : {"\n", "\r", "\u2028", "\u2029"}) {
    EXPECT_FALSE(Matches(".", t)) << json(t).dump();
  }
  for (std::string_view t : std::initializer_list<std::string_view>{
           "a", "\t", "\x0b", "\u0085", "\u00e9", "\U0001F432", std::string_view("\0", 1)}) {
    EXPECT_TRUE(Matches("^.$", t)) << json(t).dump();
  }
  EXPECT_FALSE(Matches("^..$", "\U0001F432"));  // one code point, not two UTF-16 units
  EXPECT_TRUE(Matches("a.c", "xxa\u00e9cxx"));
  EXPECT_TRUE(Matches("^[.]$", "."));
  EXPECT_FALSE(Matches("[.]", "a"));
}

TEST(EcmaRegex, AnchorsAreInputStartAndEndOnly) {
  EXPECT_EQ(Translate("^abc$"), "\\Aabc\\z");
  EXPECT_TRUE(Matches("^abc$", "abc"));
  EXPECT_FALSE(Matches("^abc$", "abc\n"));  // no match before a final newline
  EXPECT_FALSE(Matches("^abc$", "\nabc"));
  EXPECT_FALSE(Matches("^b", "a\nb"));  // no multiline
  EXPECT_FALSE(Matches("a$", "a\nb"));
  EXPECT_FALSE(Matches("a$", "a\r"));
  EXPECT_TRUE(Matches("a|^b", "b"));
  EXPECT_TRUE(Matches("(^a|b)c", "bc"));
  EXPECT_TRUE(Matches("^$", ""));
}

TEST(EcmaRegex, WordBoundaryIsAscii) {
  EXPECT_TRUE(Matches("\\bfoo\\b", "a foo."));
  EXPECT_FALSE(Matches("\\bfoo\\b", "afoo"));
  EXPECT_TRUE(Matches("\\ba", "\u00e9a"));  // é is not a word character
  EXPECT_TRUE(Matches("a\\b", "a\u00e9"));
  EXPECT_FALSE(Matches("a\\B", "a\u00e9"));
  EXPECT_TRUE(Matches("a\\Bb", "ab"));
  EXPECT_TRUE(Matches("\\B", ""));
  EXPECT_TRUE(Matches("\\B", "\u00e9"));
  EXPECT_FALSE(Matches("\\B", "a"));
  // Every position of "aéa" and "k🐲A" is a boundary; RE2 alone would find \B between the
  // bytes of the middle character.
  EXPECT_FALSE(Matches("\\B", "a\u00e9a"));
  EXPECT_FALSE(Matches("\\B", "k\U0001F432A"));
  EXPECT_EQ(Translate("\\Bx"), "\\A(?s:.)*?(?:\\Bx)");
  EXPECT_EQ(Translate("\\bx"), "\\bx");
  EXPECT_TRUE(Matches("^[\\b]$", "\b"));  // backspace in a class
  EXPECT_FALSE(IsEcmaRegex("[\\B]"));
  EXPECT_FALSE(IsEcmaRegex("\\b+"));  // assertions take no quantifier
}

TEST(EcmaRegex, ControlAndCodeEscapes) {
  EXPECT_TRUE(Matches("^\\cJ$", "\n"));
  EXPECT_TRUE(Matches("^\\cj$", "\n"));
  EXPECT_TRUE(Matches("^\\cC$", "\x03"));
  EXPECT_TRUE(Matches("^[\\cA-\\cC]+$", "\x01\x02\x03"));
  EXPECT_FALSE(IsEcmaRegex("\\c1"));
  EXPECT_FALSE(IsEcmaRegex("\\c"));
  EXPECT_FALSE(IsEcmaRegex("[\\c_]"));  // Annex B only
  EXPECT_TRUE(Matches("^\\t\\n\\v\\f\\r$", "\t\n\v\f\r"));
  EXPECT_TRUE(Matches("^\\x41\\x7a$", "Az"));
  EXPECT_FALSE(IsEcmaRegex("\\x4"));
  EXPECT_FALSE(IsEcmaRegex("\\xg0"));
  EXPECT_TRUE(Matches("^\\u00e9\\u0041$", "\u00e9A"));
  EXPECT_FALSE(IsEcmaRegex("\\u00e"));
  EXPECT_TRUE(Matches("^\\u{1F432}$", "\U0001F432"));
  EXPECT_TRUE(Matches("^\\u{0000000041}$", "A"));
  EXPECT_TRUE(Matches("^\\u{10FFFF}$", "\U0010FFFF"));
  EXPECT_FALSE(IsEcmaRegex("\\u{110000}"));
  EXPECT_FALSE(IsEcmaRegex("\\u{}"));
  EXPECT_FALSE(IsEcmaRegex("\\u{41"));
  EXPECT_TRUE(Matches("^\\0$", std::string_view("\0", 1)));
  EXPECT_TRUE(Matches("^[\\0]$", std::string_view("\0", 1)));
  EXPECT_FALSE(IsEcmaRegex("\\00"));
  EXPECT_FALSE(IsEcmaRegex("\\01"));
}

TEST(EcmaRegex, SurrogatePairsAreOneCodePoint) {
  EXPECT_EQ(Translate("\\uD83D\\uDC32"), "\\x{1F432}");
  EXPECT_TRUE(Matches("^\\uD83D\\uDC32$", "\U0001F432"));
  EXPECT_TRUE(Matches("^\\uD83D\\uDC32+$", "\U0001F432\U0001F432"));  // + takes the pair
  EXPECT_TRUE(Matches("^[\\uD83D\\uDC32]$", "\U0001F432"));
  EXPECT_TRUE(Matches("^[\\uD83D\\uDC00-\\uD83D\\uDCFF]$", "\U0001F432"));
  EXPECT_FALSE(Matches("^[\\uD83D\\uDC00-\\uD83D\\uDCFF]$", "\U0001F532"));
  EXPECT_TRUE(Matches("^\U0001F432*$", "\U0001F432\U0001F432"));
  EXPECT_FALSE(Matches("^\U0001F432*$", "\U0001F409"));
  // A lone surrogate is valid ECMA-262 and matches nothing in valid UTF-8.
  EXPECT_TRUE(IsEcmaRegex("\\uD83D"));
  EXPECT_FALSE(Matches("\\uD83D", "\U0001F432"));
  EXPECT_FALSE(Matches("\\u{D83D}\\u{DC32}", "\U0001F432"));  // braces never pair
}

TEST(EcmaRegex, IdentityEscapes) {
  EXPECT_EQ(Translate("\\/"), "/");
  EXPECT_TRUE(Matches("^a\\/b$", "a/b"));
  EXPECT_TRUE(Matches("^\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|$", "^$\\.*+?()[]{}|"));
  // Annex B's escapes of other ASCII punctuation: the character itself.
  EXPECT_TRUE(Matches("^\\d{3}\\-\\d{4}$", "555-1234"));
  EXPECT_TRUE(
      Matches("^\\\"\\'\\,\\:\\=\\!\\<\\>\\@\\#\\%\\&\\~\\`\\;\\_ $", "\"',:=!<>@#%&~`;_ "));
  EXPECT_TRUE(Matches("^[\\-\\_\\!]+$", "-_!"));
  // Letters and digits that are no escape are not ECMA-262 (with the u flag).
  for (std::string_view p : {"\\a", "\\e", "\\z", "\\A", "\\Z", "\\Q", "\\E", "\\h", "\\g", "\\y",
                             "\\i", "\\8", "[\\a]", "[\\1]", "\\", "[\\"}) {
    EXPECT_FALSE(IsEcmaRegex(p)) << p;
  }
  EXPECT_FALSE(IsEcmaRegex("\\\xc3\xa9"));  // \é
}

// ---------------------------------------------------------------------------------------
// Unicode property escapes.

TEST(EcmaRegex, GeneralCategory) {
  EXPECT_EQ(Translate("\\p{L}"), "[\\pL]");
  EXPECT_EQ(Translate("\\p{Letter}"), "[\\pL]");
  EXPECT_EQ(Translate("\\p{gc=L}"), "[\\pL]");
  EXPECT_EQ(Translate("\\p{General_Category=Letter}"), "[\\pL]");
  EXPECT_EQ(Translate("\\p{Lu}"), "[\\p{Lu}]");
  EXPECT_EQ(Translate("\\p{Uppercase_Letter}"), "[\\p{Lu}]");
  EXPECT_EQ(Translate("\\P{L}"), "[\\PL]");
  EXPECT_EQ(Translate("\\p{digit}"), "[\\p{Nd}]");
  EXPECT_EQ(Translate("\\p{punct}"), "[\\pP]");
  EXPECT_EQ(Translate("\\p{cntrl}"), "[\\p{Cc}]");
  EXPECT_EQ(Translate("\\p{Combining_Mark}"), "[\\pM]");
  EXPECT_EQ(Translate("\\p{LC}"), "[\\p{Lu}\\p{Ll}\\p{Lt}]");
  EXPECT_TRUE(Matches("^\\p{Letter}+$", "Hello\u03c0\u00e9"));
  EXPECT_FALSE(Matches("\\p{Letter}", "123"));
  EXPECT_TRUE(Matches("^\\p{digit}+$", "42\u09ea\u09e8"));
  EXPECT_TRUE(Matches("^\\p{Lu}\\p{Ll}+$", "\u00c9cole"));
  EXPECT_TRUE(Matches("^\\p{Cased_Letter}$", "\u01c5"));  // Lt
  EXPECT_FALSE(Matches("\\p{LC}", "\u02b0"));             // Lm
  EXPECT_TRUE(Matches("^\\P{LC}$", "\u02b0"));
  EXPECT_TRUE(Matches("^[^\\P{Lu}x]$", "Q"));
  EXPECT_FALSE(Matches("[^\\P{Lu}x]", "q"));
  EXPECT_TRUE(Matches("^[\\p{L}\\d]+$", "a1\u00e9"));
  EXPECT_TRUE(Matches("^[^\\p{L}\\d]+$", "-_ "));
  // Names are case-sensitive and exact; "Letter" is no script and "Greek" no category.
  for (std::string_view p :
       {"\\p{letter}", "\\p{LETTER}", "\\p{Lx}", "\\p{gc=Greek}", "\\p{L=Letter}", "\\p{}",
        "\\p{gc=}", "\\p{L", "\\pL", "\\p", "\\p{ L}", "\\p{gc=L=L}"}) {
    EXPECT_FALSE(IsEcmaRegex(p)) << p;
  }
}

TEST(EcmaRegex, OtherAndUnassigned) {
  // ECMA's \p{C} holds Cn (unassigned) too; RE2's \pC does not, so the translation lists
  // the unassigned code points of RE2's own tables.
  const std::string unassigned = "\u0378";
  EXPECT_TRUE(Matches("^\\p{C}$", unassigned));
  EXPECT_TRUE(Matches("^\\p{Cn}$", unassigned));
  EXPECT_TRUE(Matches("^\\p{Unassigned}$", unassigned));
  EXPECT_TRUE(Matches("^\\p{C}$", std::string_view("\0", 1)));
  EXPECT_TRUE(Matches("^\\p{C}$", "\u200b"));  // Cf
  EXPECT_FALSE(Matches("\\p{Cn}", "a\u0000\u200b"));
  EXPECT_FALSE(Matches("\\P{Cn}", unassigned));
  EXPECT_FALSE(Matches("\\p{Assigned}", unassigned));
  EXPECT_TRUE(Matches("^\\p{Assigned}+$", "a\u0000\u200b"));
  EXPECT_TRUE(Matches("^\\P{C}$", "a"));
  EXPECT_FALSE(Matches("\\P{C}", unassigned));
  EXPECT_TRUE(Matches("^[x\\p{Cn}]+$", "x" + unassigned));
  EXPECT_FALSE(Matches("[^x\\p{Cn}]", "x" + unassigned));
  EXPECT_TRUE(Matches("^\\p{Co}$", "\ue000"));
}

// The 30 General_Category values split the code points: each holds exactly one of them
// (sampled: every 17th code point but the surrogates, and the unassigned ones near them).
TEST(EcmaRegex, GeneralCategoriesPartitionTheCodePoints) {
  const char* leaves[] = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl",
                          "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc",
                          "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};
  std::vector<std::unique_ptr<re2::RE2>> res;
  for (const char* leaf : leaves) {
    std::string error;
    res.push_back(CompileEcmaRegex(std::string("^\\p{") + leaf + "}$", &error));
    ASSERT_TRUE(res.back()) << leaf << ": " << error;
  }
  int checked = 0;
  for (char32_t c = 0; c <= 0x10FFFF; c += (c >= 0x370 && c < 0x400) ? 1 : 17) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    int in = 0;
    for (const auto& re : res) in += RegexSearch(*re, Utf8(c));
    ASSERT_EQ(in, 1) << "U+" << std::hex << static_cast<uint32_t>(c);
    ++checked;
  }
  EXPECT_GT(checked, 60000);
}

TEST(EcmaRegex, Scripts) {
  EXPECT_EQ(Translate("\\p{Script=Greek}"), "[\\p{Greek}]");
  EXPECT_EQ(Translate("\\p{sc=Grek}"), "[\\p{Greek}]");
  EXPECT_EQ(Translate("\\P{sc=Latn}"), "[\\P{Latin}]");
  EXPECT_EQ(Translate("\\p{sc=Qaai}"), "[\\p{Inherited}]");
  EXPECT_TRUE(Matches("^\\p{Script=Greek}+$", "\u03c0\u03b1"));
  EXPECT_FALSE(Matches("\\p{Script=Greek}", "pa"));
  EXPECT_TRUE(Matches("^[\\p{sc=Han}\\p{sc=Hira}]+$", "\u6f22\u3072"));
  EXPECT_TRUE(Matches("^\\P{sc=Cyrl}$", "a"));
  EXPECT_FALSE(Matches("\\p{sc=Hrkt}", "\u30a2\u3042"));  // no code point has it
  // ECMA-262 but no RE2 table: Script_Extensions, Unknown.
  EXPECT_EQ(ErrorOf("\\p{scx=Grek}"),
            "\\p{scx=Grek} at 0 has no RE2 meaning (RE2 has Script tables, not "
            "Script_Extensions)");
  EXPECT_TRUE(IsEcmaRegex("\\p{Script_Extensions=Greek}"));
  EXPECT_EQ(ErrorOf("\\p{sc=Zzzz}"),
            "\\p{sc=Zzzz} at 0 has no RE2 meaning (RE2 has no table for that script)");
  EXPECT_TRUE(IsEcmaRegex("\\p{sc=Unknown}"));
  for (std::string_view p : {"\\p{sc=greek}", "\\p{Script=Elvish}", "\\p{Greek}", "\\p{Grek}",
                             "\\p{Script}", "\\p{Block=Basic_Latin}"}) {
    EXPECT_FALSE(IsEcmaRegex(p)) << p;
  }
}

TEST(EcmaRegex, BinaryProperties) {
  EXPECT_TRUE(Matches("^\\p{ASCII}+$", "az\x7f"));
  EXPECT_FALSE(Matches("\\p{ASCII}", "\u0080"));
  EXPECT_TRUE(Matches("^\\P{ASCII}$", "\u0080"));
  EXPECT_TRUE(Matches("^\\p{AHex}+$", "09afAF"));
  EXPECT_FALSE(Matches("\\p{ASCII_Hex_Digit}", "g\uff10"));
  EXPECT_TRUE(Matches("^\\p{Hex_Digit}$", "\uff10"));
  EXPECT_TRUE(Matches("^\\p{Any}$", "\U0010FFFF"));
  EXPECT_FALSE(Matches("\\P{Any}", "abc"));
  EXPECT_FALSE(Matches("[\\P{Any}]", "abc"));
  EXPECT_TRUE(Matches("^[^\\P{Any}]$", "a"));
  EXPECT_TRUE(Matches("^\\p{White_Space}$", "\u0085"));  // unlike \s
  EXPECT_TRUE(Matches("^\\p{space}$", "\u3000"));
  EXPECT_FALSE(Matches("\\p{White_Space}", "\ufeff"));  // unlike \s
  EXPECT_TRUE(Matches("^\\p{NChar}$", "\ufdd0"));
  EXPECT_TRUE(Matches("^\\p{RI}\\p{RI}$", "\U0001F1EB\U0001F1F7"));
  EXPECT_TRUE(Matches("^\\p{Join_C}$", "\u200d"));
  EXPECT_TRUE(Matches("^\\p{Bidi_C}$", "\u200e"));
  EXPECT_TRUE(Matches("^\\p{Pat_WS}$", "\u200e"));
  // ECMA-262, but RE2 has no table.
  EXPECT_EQ(ErrorOf("a\\p{Alphabetic}"),
            "\\p{Alphabetic} at 1 has no RE2 meaning (RE2 has no table for that property)");
  for (std::string_view p : {"\\p{Emoji}", "\\P{Alpha}", "\\p{ID_Start}", "\\p{Lowercase}",
                             "\\p{Extended_Pictographic}", "[\\p{Uppercase}]"}) {
    EXPECT_TRUE(IsEcmaRegex(p)) << p;
    EXPECT_NE(ErrorOf(p).find("has no RE2 meaning"), std::string::npos) << p;
  }
  EXPECT_FALSE(IsEcmaRegex("\\p{Alphabetic=Yes}"));
  EXPECT_FALSE(IsEcmaRegex("\\p{alphabetic}"));
  EXPECT_FALSE(IsEcmaRegex("\\p{Emoji_Keycap_Sequence}"));  // a property of strings: v flag
}

// ---------------------------------------------------------------------------------------
// Character classes.

TEST(EcmaRegex, ClassEdgeCases) {
  EXPECT_EQ(Translate("[]"), "[^\\x{0}-\\x{10FFFF}]");
  EXPECT_EQ(Translate("[^]"), "[\\x{0}-\\x{10FFFF}]");
  EXPECT_FALSE(Matches("[]", "abc"));
  EXPECT_TRUE(Matches("a[]*b", "ab"));
  EXPECT_TRUE(Matches("^[^]$", "\n"));
  EXPECT_TRUE(Matches("^[^]$", "\U0001F432"));
  EXPECT_TRUE(Matches("^[-a]+$", "-a"));
  EXPECT_TRUE(Matches("^[a-]+$", "-a"));
  EXPECT_TRUE(Matches("^[a-c-e]+$", "b-e"));
  EXPECT_FALSE(Matches("[a-c-e]", "d"));
  EXPECT_TRUE(Matches("^[--0]+$", "-./0"));
  EXPECT_TRUE(Matches("^[\\w-]+$", "a-b"));
  EXPECT_TRUE(Matches("^[\\-]$", "-"));
  EXPECT_TRUE(Matches("^[[]$", "["));
  EXPECT_TRUE(Matches("^[[:alpha:]]$", ":]"));  // no POSIX classes: '[' ':' 'a'... then ']'
  EXPECT_TRUE(Matches("^[\\]]$", "]"));
  EXPECT_TRUE(Matches("^[^\\]]$", "a"));
  EXPECT_TRUE(Matches("^[$^.*+?(){}|/]+$", "$^.*+?(){}|/"));
  EXPECT_TRUE(Matches("^[\\^]$", "^"));
  EXPECT_TRUE(Matches("^[\u00e0-\u00ff]$", "\u00e9"));
  EXPECT_TRUE(Matches("^[\\u{1F400}-\\u{1F4FF}]$", "\U0001F432"));
  EXPECT_FALSE(IsEcmaRegex("[z-a]"));
  EXPECT_EQ(ErrorOf("x[z-a]"), "not ECMA-262: range out of order z-a at 2");
  EXPECT_FALSE(IsEcmaRegex("[\\d-z]"));  // a class escape ends no range (u flag)
  EXPECT_FALSE(IsEcmaRegex("[a-\\d]"));
  EXPECT_FALSE(IsEcmaRegex("[\\p{L}-z]"));
  EXPECT_FALSE(IsEcmaRegex("[a"));
  EXPECT_FALSE(IsEcmaRegex("[^"));
  EXPECT_FALSE(IsEcmaRegex("[a-"));
  EXPECT_EQ(ErrorOf("ab[c"), "not ECMA-262: unterminated character class at 2");
}

// ---------------------------------------------------------------------------------------
// Quantifiers.

TEST(EcmaRegex, Quantifiers) {
  EXPECT_EQ(Translate("a{2}b{2,}c{2,3}d*?e+?f??g{1,2}?"), "a{2}b{2,}c{2,3}d*?e+?f??g{1,2}?");
  EXPECT_TRUE(Matches("^a{3}$", "aaa"));
  EXPECT_FALSE(Matches("^a{3}$", "aa"));
  EXPECT_TRUE(Matches("^a{2,}$", "aaaaa"));
  EXPECT_TRUE(Matches("^a{0}$", ""));
  EXPECT_TRUE(Matches("^(?:ab){1,2}$", "abab"));
  EXPECT_FALSE(Matches("^(?:ab){1,2}$", "ababab"));
  EXPECT_TRUE(Matches("^\u00e9{2}$", "\u00e9\u00e9"));  // a code point, not its last byte
  EXPECT_TRUE(Matches("^a{1000}$", std::string(1000, 'a')));
  EXPECT_FALSE(IsEcmaRegex("a{2,1}"));
  EXPECT_FALSE(IsEcmaRegex("*a"));
  EXPECT_FALSE(IsEcmaRegex("a**"));
  EXPECT_FALSE(IsEcmaRegex("a{1}{2}"));
  EXPECT_FALSE(IsEcmaRegex("a|*"));
  EXPECT_FALSE(IsEcmaRegex("(*)"));
  EXPECT_FALSE(IsEcmaRegex("^*"));
  EXPECT_FALSE(IsEcmaRegex("$+"));
  EXPECT_EQ(ErrorOf("ab+*"), "not ECMA-262: nothing to repeat at 3");
  // RE2's limits: a count over 1000, nested counts whose product is over 1000.
  EXPECT_EQ(ErrorOf("xa{1001}"), "repetition {1001} at 2 exceeds RE2's limit of 1000");
  EXPECT_EQ(ErrorOf("a{1,1001}"), "repetition {1,1001} at 1 exceeds RE2's limit of 1000");
  EXPECT_EQ(ErrorOf("a{99999999999999999999,}"),
            "repetition {99999999999999999999,} at 1 exceeds RE2's limit of 1000");
  EXPECT_TRUE(IsEcmaRegex("a{1001}"));
  EXPECT_EQ(ErrorOf("(?:a{100}){11}"),
            "repetition {11} at 10 nests counts whose product exceeds RE2's limit of 1000");
  EXPECT_TRUE(Matches("^(?:a{100}){10}$", std::string(1000, 'a')));
  EXPECT_TRUE(Matches("^(?:a{10}|b{1000})$", std::string(1000, 'b')));
  EXPECT_TRUE(Matches("^(?:a{10}){0}(?:b*){100}$", "bb"));
}

TEST(EcmaRegex, LiteralBracesAnnexB) {
  EXPECT_EQ(Translate("x{"), "x\\{");
  EXPECT_TRUE(Matches("^x{$", "x{"));
  EXPECT_TRUE(Matches("^{$", "{"));
  EXPECT_TRUE(Matches("^x{1$", "x{1"));
  EXPECT_TRUE(Matches("^x{1,$", "x{1,"));
  EXPECT_TRUE(Matches("^x{,5}$", "x{,5}"));
  EXPECT_TRUE(Matches("^x{a}$", "x{a}"));
  EXPECT_TRUE(Matches("^}$", "}"));
  EXPECT_TRUE(Matches("^]$", "]"));
  EXPECT_TRUE(Matches("^a{2}{$", "aa{"));
  EXPECT_FALSE(IsEcmaRegex("{1}"));  // a quantifier with nothing to repeat
  EXPECT_FALSE(IsEcmaRegex("a|{1,2}"));
  EXPECT_FALSE(IsEcmaRegex("({2})"));
  EXPECT_FALSE(IsEcmaRegex("^{2}"));
}

// ---------------------------------------------------------------------------------------
// Groups, alternatives, modifiers.

TEST(EcmaRegex, Groups) {
  EXPECT_EQ(Translate("(?<year>\\d{4})-(?<m>\\d\\d)"), "(?P<year>[0-9]{4})-(?P<m>[0-9][0-9])");
  EXPECT_EQ(Translate("(a)(?:b)"), "(a)(?:b)");
  EXPECT_TRUE(Matches("^(?<year>\\d{4})-(?<month>\\d{2})$", "2024-05"));
  // Names RE2 cannot take are dropped (they mean nothing to a search).
  EXPECT_EQ(Translate("(?<$x>a)(?<\u00e9>b)(?<\\u0061b>c)"), "(a)(b)(?P<ab>c)");
  EXPECT_TRUE(Matches("^(?<$x>a)(?<\u00e9>b)$", "ab"));
  // The same name in alternatives that exclude each other (ES2025).
  EXPECT_EQ(Translate("(?<a>x)|(?<a>y)"), "(?P<a>x)|(y)");
  EXPECT_FALSE(IsEcmaRegex("(?<a>x)(?<a>y)"));
  EXPECT_FALSE(IsEcmaRegex("(?:(?<a>x)|y)(?<a>z)"));
  EXPECT_FALSE(IsEcmaRegex("(?<1a>x)"));
  EXPECT_FALSE(IsEcmaRegex("(?<>x)"));
  EXPECT_FALSE(IsEcmaRegex("(?<a-b>x)"));
  EXPECT_FALSE(IsEcmaRegex("(?P<a>x)"));  // Python's syntax
  EXPECT_FALSE(IsEcmaRegex("(?#comment)"));
  EXPECT_FALSE(IsEcmaRegex("(?>atomic)"));
  EXPECT_FALSE(IsEcmaRegex("(?"));
  EXPECT_FALSE(IsEcmaRegex("(a"));
  EXPECT_FALSE(IsEcmaRegex("a)"));
  EXPECT_EQ(ErrorOf("^(abc]"), "not ECMA-262: unterminated group at 1");
  EXPECT_EQ(ErrorOf("ab)"), "not ECMA-262: unmatched ) at 2");
  EXPECT_TRUE(Matches("^(?:a|bc|)$", ""));
  EXPECT_TRUE(Matches("^(?:|a)+$", "aa"));
  EXPECT_TRUE(Matches("^()*$", ""));
  EXPECT_TRUE(Matches("(^)*b", "ab"));
  EXPECT_TRUE(Matches("^(a|b)*?c$", "ababc"));
  EXPECT_TRUE(Matches("|", "x"));
  EXPECT_TRUE(Matches("", ""));
}

TEST(EcmaRegex, Modifiers) {
  EXPECT_EQ(Translate("(?i:a)b"), "(?i:a)b");
  EXPECT_TRUE(Matches("^(?i:a)b$", "Ab"));
  EXPECT_FALSE(Matches("^(?i:a)b$", "AB"));
  EXPECT_TRUE(Matches("^(?i:a(?-i:b))$", "Ab"));
  EXPECT_FALSE(Matches("^(?i:a(?-i:b))$", "AB"));
  EXPECT_TRUE(Matches("^(?i:[a-z]+)$", "MiXeD"));
  EXPECT_TRUE(Matches("^(?i:\u00e9)$", "\u00c9"));
  // Under iu, \w also holds U+017F and U+212A (they case-fold into it), \W never does.
  EXPECT_TRUE(Matches("^(?i:\\w)$", "\u017f"));
  EXPECT_TRUE(Matches("^(?i:\\w)$", "\u212a"));
  EXPECT_FALSE(Matches("(?i:\\W)", "\u017fsSkK\u212a"));
  EXPECT_FALSE(Matches("(?i:[\\W])", "\u017fsSkK\u212a"));
  EXPECT_TRUE(Matches("^(?i:[^a-z])$", "1"));
  EXPECT_FALSE(Matches("(?i:[^a-z])", "A\u017f"));
  EXPECT_TRUE(Matches("^(?s:.)$", "\n"));
  EXPECT_TRUE(Matches("^(?s:a.)(?-s:.)$", "a\nb"));
  EXPECT_FALSE(Matches("^(?s:a.)(?-s:.)$", "a\n\n"));
  EXPECT_TRUE(Matches("^(?m:a)$", "a"));
  EXPECT_EQ(ErrorOf("(?m:^a)"),
            "^ under the m modifier at 4 has no RE2 meaning (RE2 finds line ends at \\n only, "
            "not \\r, U+2028, U+2029)");
  EXPECT_EQ(ErrorOf("(?i:\\bx)"),
            "\\b under the i modifier at 4 has no RE2 meaning (ECMA's word characters then "
            "include U+017F and U+212A)");
  EXPECT_NE(ErrorOf("(?i:\\p{Lu})").find("under the i modifier"), std::string::npos);
  EXPECT_TRUE(IsEcmaRegex("(?m:^a)"));
  for (std::string_view p :
       {"(?ii:a)", "(?i-i:a)", "(?-:a)", "(?x:a)", "(?i)a", "(?i", "(?-i", "(?I:a)", "(?--i:a)"}) {
    EXPECT_FALSE(IsEcmaRegex(p)) << p;
  }
  EXPECT_TRUE(IsEcmaRegex("(?ims:a)(?-ims:b)(?i-ms:c)(?-i:d)"));
}

// ---------------------------------------------------------------------------------------
// Refused: what needs backtracking.

TEST(EcmaRegex, BackreferencesAreRefused) {
  EXPECT_EQ(ErrorOf("(a)b\\1"), "backreference \\1 at 4 has no linear-time meaning");
  EXPECT_EQ(ErrorOf("\\1(a)"), "backreference \\1 at 0 has no linear-time meaning");
  EXPECT_EQ(ErrorOf("(?<n>a)\\k<n>"), "backreference \\k<n> at 7 has no linear-time meaning");
  EXPECT_TRUE(IsEcmaRegex("(a)\\1"));
  EXPECT_TRUE(IsEcmaRegex("(a)\\1*"));
  EXPECT_TRUE(IsEcmaRegex("\\k<n>(?<n>a)"));
  EXPECT_TRUE(IsEcmaRegex("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10"));
  // With the u flag, no group: a syntax error (not Annex B's octal escape).
  EXPECT_FALSE(IsEcmaRegex("\\1"));
  EXPECT_FALSE(IsEcmaRegex("(a)\\2"));
  EXPECT_FALSE(IsEcmaRegex("\\k<n>"));
  EXPECT_FALSE(IsEcmaRegex("(?<m>a)\\k<n>"));
  EXPECT_FALSE(IsEcmaRegex("(a)\\k"));
  EXPECT_EQ(ErrorOf("(a)\\2"), "not ECMA-262: \\2 names no group (there are 1) at 3");
}

TEST(EcmaRegex, LookaroundsAreRefused) {
  EXPECT_EQ(ErrorOf("a(?=b)"), "lookahead (?= at 1 has no linear-time meaning");
  EXPECT_EQ(ErrorOf("a(?!b)"), "lookahead (?! at 1 has no linear-time meaning");
  EXPECT_EQ(ErrorOf("(?<=a)b"), "lookbehind (?<= at 0 has no linear-time meaning");
  EXPECT_EQ(ErrorOf("(?<!a)b"), "lookbehind (?<! at 0 has no linear-time meaning");
  for (std::string_view p : {"a(?=b)", "(?!a)", "(?<=a)b", "(?<!a)b", "(?=(?<n>a))\\k<n>"}) {
    EXPECT_TRUE(IsEcmaRegex(p)) << p;
    EXPECT_FALSE(CompileEcmaRegex(p, nullptr)) << p;
  }
  // Not quantifiable with the u flag (Annex B allows it without).
  EXPECT_FALSE(IsEcmaRegex("(?=a)*"));
  EXPECT_FALSE(IsEcmaRegex("(?<=a)?"));
  EXPECT_FALSE(IsEcmaRegex("(?=a"));
  // A syntax error wins over a refusal.
  EXPECT_EQ(ErrorOf("(?=a)b{2,1}"), "not ECMA-262: numbers out of order in {2,1} at 6");
}

// ---------------------------------------------------------------------------------------
// The rest of the interface.

TEST(EcmaRegex, FormatRegex) {
  EXPECT_TRUE(IsEcmaRegex("([abc])+\\s+$"));
  EXPECT_FALSE(IsEcmaRegex("^(abc]"));
  EXPECT_TRUE(IsEcmaRegex(""));
  EXPECT_FALSE(IsEcmaRegex("\xff"));
  EXPECT_FALSE(IsEcmaRegex("\xc3"));          // truncated
  EXPECT_FALSE(IsEcmaRegex("\xc0\xaf"));      // overlong
  EXPECT_FALSE(IsEcmaRegex("\xed\xa0\x80"));  // a surrogate
  std::string error;
  EXPECT_FALSE(IsEcmaRegex("ab\xff", &error));
  EXPECT_EQ(error, "not ECMA-262: invalid UTF-8 at byte 2");
  EXPECT_TRUE(IsEcmaRegex("(a)\\1", &error));
}

TEST(EcmaRegex, ErrorsAreOneLine) {
  for (std::string_view p : {"\\\n", "[\n-\x01]", "(?<\n>a)", "\\p{\n}", "a{2,1}\n"}) {
    const std::string e = ErrorOf(p);
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    EXPECT_NE(e.find(" at "), std::string::npos) << e;
  }
}

TEST(EcmaRegex, NestingIsBounded) {
  std::string ok = std::string(200, '(') + "a" + std::string(200, ')');
  EXPECT_TRUE(Matches(ok, "a"));
  std::string deep = std::string(10000, '(') + "a" + std::string(10000, ')');
  EXPECT_FALSE(IsEcmaRegex(deep));
  EXPECT_EQ(ErrorOf(deep), "groups nested deeper than 256 at 256");
}

TEST(EcmaRegex, CompileOptionsAndBudget) {
  std::string error;
  auto re = CompileEcmaRegex("^\\p{L}{1,20}$", &error);
  ASSERT_TRUE(re) << error;
  EXPECT_TRUE(re->options().encoding() == re2::RE2::Options::EncodingUTF8);
  EXPECT_EQ(re->options().max_mem(), kEcmaRegexMaxMem);
  EXPECT_FALSE(re->options().log_errors());
  EXPECT_TRUE(RegexSearch(*re, "\u00e9t\u00e9"));
  EXPECT_FALSE(CompileEcmaRegex("\\p{L}{1000}", &error));
  EXPECT_EQ(error, "pattern too large for RE2's memory budget of 8192 KiB");
  EXPECT_TRUE(CompileEcmaRegex("\\p{L}{20}", &error, int64_t{1} << 20)) << error;
  EXPECT_FALSE(CompileEcmaRegex("\\p{L}{100}", &error, int64_t{1} << 20));
  EXPECT_EQ(error, "pattern too large for RE2's memory budget of 1024 KiB");
  EXPECT_FALSE(CompileEcmaRegex("(a)\\1", &error));
  EXPECT_EQ(error, "backreference \\1 at 3 has no linear-time meaning");
}

TEST(EcmaRegex, SearchIsLinear) {
  // The classic catastrophic patterns for a backtracking engine.
  std::string error;
  auto nested = CompileEcmaRegex("^(a+)+$", &error);
  ASSERT_TRUE(nested) << error;
  auto alternation = CompileEcmaRegex("^(a|a)*b$", &error);
  ASSERT_TRUE(alternation) << error;
  const std::string text = std::string(100000, 'a') + "!";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(RegexSearch(*nested, text));
  EXPECT_FALSE(RegexSearch(*alternation, text));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // Invalid UTF-8 in the text matches no character.
  auto any = CompileEcmaRegex("^.$", &error);
  ASSERT_TRUE(any) << error;
  EXPECT_FALSE(RegexSearch(*any, "\xff"));
  EXPECT_TRUE(RegexSearch(*any, "\xc3\xa9"));
}

// ---------------------------------------------------------------------------------------
// AsciiDfa: the byte automaton of simple patterns, checked against RE2.

// An automaton too large for the pair table (125 states of 63 byte classes).
constexpr const char* kWide =
    "^(?:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789){2}$";

// Every pattern of the benchmark's schemas (load/bench/schema/schemas) that AsciiDfa takes,
// with texts that match it; the hot ones among them are why it exists. Then others.
const std::vector<std::pair<const char*, std::vector<std::string>>>& DfaCases() {
  static const auto* cases = new std::vector<std::pair<const char*, std::vector<std::string>>>{
      {"^[0-9A-Fa-f]{6}$", {"C0DEED", "ffffff"}},
      {"^https?://", {"http://t.co/x", "https://example.com"}},
      {"^[a-z][a-z0-9_]*$", {"a", "abc_9"}},
      {"^[0-9]{1,20}$", {"0", "12345678901234567890"}},
      {"^!?[a-z0-9]+$", {"!linux", "x64"}},
      {"^SEE LICENSE IN [A-Za-z0-9._/-]+$", {"SEE LICENSE IN LICENSE.md"}},
      {"^/images/[A-Za-z0-9+/]{24}$", {"/images/abcdefghijklmnopqrstuvwx"}},
      {"^\\./", {"./a"}},
      {"\\.d\\.[cm]?ts$", {"index.d.ts", "a.d.mts"}},
      {"\\.[0-9]$", {"man.1", "x.d.9"}},
      {"\\{0\\}", {"{0}", "a{0}b"}},
      {"^[a-z]{2,3}(?:-[a-z]{2,4})?$", {"en", "en-gb", "zh-hant"}},
      {"^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
       "(?:0[1-9]|[12][0-9]|3[01]) (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9] [+-][0-9]{4} "
       "[0-9]{4}$",
       {"Sun Aug 31 00:29:15 +0000 2014", "Mon Jan 01 23:59:59 -0130 1999"}},
      {"^(?:@[a-z0-9*~-][a-z0-9*._~-]*/)?[a-z0-9~-][a-z0-9._~-]*$",
       {"lodash", "@babel/core", "a.b-c~"}},
      {"^\\.(?:/[A-Za-z0-9*._-]+)*$", {".", "./lib/index.js"}},
      {"^(?:0|[1-9][0-9]*)\\.(?:0|[1-9][0-9]*)\\.(?:0|[1-9][0-9]*)(?:-(?:0|[1-9][0-9]*|[0-9]*"
       "[A-Za-z-][0-9A-Za-z-]*)(?:\\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?"
       "(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?$",
       {"1.2.3", "0.0.1-alpha.1+build.5", "10.20.30-rc-1"}},
      {"^(?:docker://[a-z0-9./:_-]+|\\./[A-Za-z0-9_./-]*|[A-Za-z0-9_.-]+/"
       "[A-Za-z0-9_./-]+@[A-Za-z0-9_./-]+)$",
       {"actions/checkout@v4", "docker://alpine:3.18", "./local"}},
      {"^(?:[0-9*/,-]+ ){4}[0-9A-Za-z*/,-]+$", {"0 0 * * 1", "*/5 1,2 * * MON"}},
      {"^[A-Za-z0-9_./-]+(?::[A-Za-z0-9_./-]+)?$", {"ubuntu", "node:20"}},
      {"^(?:(?:github|gitlab|bitbucket):)?[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$",
       {"github:a/b", "user/repo"}},
      {"^\\([A-Za-z0-9.+-]+(?: (?:AND|OR) [A-Za-z0-9.+-]+)+\\)$", {"(MIT OR Apache-2.0)"}},
      {"^[1-9][0-9]{0,15}$", {"1", "1234567890123456"}},
      {"^\\d{3}-\\w+$", {"123-a_B9"}},
      {"^a{2,}b?c*$", {"aa", "aaabccc"}},
      {"^[a-z]*[a-z]$", {"a", "abc"}},  // greedy alone would fail these: an automaton does not
      {"(a|b)*abb", {"abb", "xxababb"}},
      {"^[-a]", {"-", "a-"}},
      {"^[\\-\\]]+$", {"-]", "]]]"}},
      {"", {"", "anything"}},
      {"$", {"", "x"}},
      {"^(?:a|)$", {"", "a"}},
      {"^x+?y{1,3}?$", {"xy", "xxyyy"}},
      {"^a?", {"", "b", "ab"}},  // an accepting start: no first byte rules a match out
      // The run form's edges (SearchRuns): an empty text, a count of 0 in the fixed part,
      // more distinct sets than a byte's entry has bits, a fixed part past kMaxRunFixed.
      {"^[a-z]{0,3}$", {"", "abc"}},
      {"^ab{0}c[0-9]{2}$", {"ac12"}},
      {"^abcdefgh[0-9]+$", {"abcdefgh1", "abcdefgh123"}},
      {"^a{65}b$", {std::string(65, 'a') + "b"}},
      {kWide,
       {"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyzAB"
        "CDEFGHIJKLMNOPQRSTUVWXYZ0123456789"}},
  };
  return *cases;
}

TEST(AsciiDfa, TakesTheSubsetAndRefusesTheRest) {
  for (const auto& [pattern, texts] : DfaCases())
    EXPECT_TRUE(AsciiDfa::Build(pattern).has_value()) << pattern;
  for (const char* refused :
       {"^.",
        "a.b",
        "^[^a]",
        "\\s",
        "\\S",
        "\\D",
        "\\bx",
        "\\n",
        "\\u0041",
        "\\x41",
        "\xc3\xa9",
        "(?=a)",
        "(?!a)",
        "(?<=a)b",
        "(?<n>a)",
        "(?i:a)",
        "a^",
        "a$b",
        "(a$)",
        "^a|b",
        "a|b$",
        "a{",
        "a{2,1}",
        "a}",
        "]",
        "[]",
        "[a",
        "\\1",
        "(a)\\1",
        "a**",
        "a+*",
        "[z-a]",
        "[\\d-z]",
        "[a-c-e]",
        "(a",
        "a)",
        "a{10000}",                                            // past the count the parser reads
        "(?:abcdefghijklmnop){40}",                            // past kMaxPositions once unrolled
        "(a|b)*a(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)"}) {  // 2^9 states: past kMaxStates
    EXPECT_FALSE(AsciiDfa::Build(refused).has_value()) << refused;
  }
}

// A schema's pattern that AsciiDfa takes gets no RE2 (Compiler::NewRegex), so whatever it
// takes the translation to RE2 must take too, or a pattern RE2 refuses would load: random
// patterns of the syntax both read, with the bad forms among them (reversed counts and
// ranges, empty classes, dangling brackets and quantifiers, escapes of letters).
TEST(AsciiDfa, TakesOnlyWhatTheTranslationTakes) {
  std::mt19937_64 rng(20261205);
  const std::vector<std::string> pieces = {
      "a",      "b",     "0",     "1",     "-",     "_",    ".",   "^",     "$",       "|",
      "?",      "*",     "+",     "(",     ")",     "{",    "}",   "[",     "]",       ",",
      ":",      "\\",    "/",     " ",     "\\d",   "\\w",  "\\-", "\\.",   "(?:",     "{2}",
      "{1,3}",  "{2,}",  "{3,1}", "[a-z]", "[0-9]", "[^a]", "\\b", "\\s",   "{0}",     "{0,0}",
      "{1000}", "{513}", "[z-a]", "[]",    "\\q",   "\\1",  "(?=", "(?<n>", "\\u0041", "\\x4"};
  int taken = 0, both = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string pattern;
    const int n = 1 + static_cast<int>(rng() % 10);
    for (int k = 0; k < n; ++k) pattern += pieces[rng() % pieces.size()];
    if (!AsciiDfa::Build(pattern)) continue;
    ++taken;
    std::string error;
    const bool translated = CompileEcmaRegex(pattern, &error) != nullptr;
    EXPECT_TRUE(translated) << pattern << ": " << error;
    both += translated;
  }
  EXPECT_GT(taken, 1500);
  EXPECT_EQ(both, taken);
  for (const auto& [pattern, texts] : DfaCases()) {
    std::string error;
    EXPECT_TRUE(CompileEcmaRegex(pattern, &error) != nullptr) << pattern << ": " << error;
  }
}

// Search steps two bytes at a time where the automaton is small enough (pairs()); the
// tests compare both it and SearchBytes with RE2. Every pattern of the benchmark's takes
// pairs, twitter's dates (81 states of 30 byte classes) too; kWide does not.
TEST(AsciiDfa, SmallAutomataStepTwoBytes) {
  size_t with_pairs = 0;
  for (const auto& [pattern, texts] : DfaCases()) {
    const std::optional<AsciiDfa> dfa = AsciiDfa::Build(pattern);
    ASSERT_TRUE(dfa.has_value()) << pattern;
    if (pattern == kWide) {
      EXPECT_FALSE(dfa->pairs()) << pattern;
    } else {
      EXPECT_TRUE(dfa->pairs()) << pattern;
      ++with_pairs;
    }
  }
  EXPECT_EQ(with_pairs, DfaCases().size() - 1);
}

// A pattern whose every byte's set follows from its place (fixed counts, then one run of
// a range) is searched with no automaton step (AsciiDfa::SearchRuns); the test above and
// the one below compare its verdicts with RE2's.
TEST(AsciiDfa, PlacesDecideTheRunForm) {
  for (const char* runs : {"^[0-9A-Fa-f]{6}$", "^[a-z][a-z0-9_]*$", "^[0-9]{1,20}$",
                           "^SEE LICENSE IN [A-Za-z0-9._/-]+$", "^/images/[A-Za-z0-9+/]{24}$",
                           "^[1-9][0-9]{0,15}$", "^\\d{3}-\\w+$", "^[\\-\\]]+$", "^[a-z]{0,3}$",
                           "^ab{0}c[0-9]{2}$", "^(?:[a-z][0-9])[a-z]*$"}) {
    const std::optional<AsciiDfa> dfa = AsciiDfa::Build(runs);
    ASSERT_TRUE(dfa.has_value()) << runs;
    EXPECT_TRUE(dfa->runs()) << runs;
  }
  for (const char* not_runs :
       {"^https?://", "^[a-z]*[a-z]$", "^!?[a-z0-9]+$", "^a{2,}b?c*$", "^(?:a|)$", "^x+?y{1,3}?$",
        "[0-9]+$", "^[0-9]+", "^abcdefgh[0-9]+$", "^a{65}b$", "^(?:ab){2}$", kWide}) {
    const std::optional<AsciiDfa> dfa = AsciiDfa::Build(not_runs);
    ASSERT_TRUE(dfa.has_value()) << not_runs;
    EXPECT_FALSE(dfa->runs()) << not_runs;
  }
}

// The run form's last run is checked 32 bytes at a time (AsciiDfa::RunAllIn): every
// length to 100, every byte value at the first, a middle and the last place of the run,
// and texts that end at a page's end with the next page unreadable (a load past it would
// fault: those go byte by byte), each verdict RE2's.
TEST(AsciiDfa, RunsOfEveryLengthAndByte) {
  const long page = sysconf(_SC_PAGESIZE);
  void* const mem = mmap(nullptr, static_cast<size_t>(page) * 2, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  char* const guard = static_cast<char*>(mem) + page;
  ASSERT_EQ(mprotect(guard, static_cast<size_t>(page), PROT_NONE), 0);
  uint64_t checked = 0, matched = 0, at_page_end = 0;
  // (No structured binding: clang 14 refuses one captured by a lambda.)
  for (const auto& one :
       std::vector<std::pair<const char*, char>>{{"^[0-9]{1,20}$", '7'},
                                                 {"^[a-z][a-z0-9_]*$", 'q'},
                                                 {"^SEE LICENSE IN [A-Za-z0-9._/-]+$", '/'},
                                                 {"^\\d{3}-\\w+$", '_'},
                                                 {"^[\\-\\]]+$", ']'},
                                                 {"^[ -~]*$", '~'},
                                                 {"^[!-~]{2,}$", '!'}}) {
    const char* const pattern = one.first;
    const char member = one.second;
    const std::optional<AsciiDfa> dfa = AsciiDfa::Build(pattern);
    ASSERT_TRUE(dfa.has_value()) << pattern;
    ASSERT_TRUE(dfa->runs()) << pattern;
    std::string error;
    const std::unique_ptr<re2::RE2> re = CompileEcmaRegex(pattern, &error);
    ASSERT_TRUE(re) << error;
    // The fixed part: the shortest text RE2 matches with `member` after it.
    std::string head;
    for (const char* h : {"", "a", "SEE LICENSE IN ", "123-"})
      if (RegexSearch(*re, std::string(h) + member + member)) head = h;
    auto check = [&](std::string_view text) {
      const bool want = RegexSearch(*re, text);
      ASSERT_EQ(dfa->Search(text), want)
          << pattern << " on " << ::testing::PrintToString(std::string(text));
      ++checked;
      matched += want;
    };
    for (size_t n = 0; n <= 100; ++n) {
      std::string text = head + std::string(n, member);
      check(text);
      // The text's last byte at the page's end.
      char* const end_at = guard - text.size();
      std::memcpy(end_at, text.data(), text.size());
      check(std::string_view(end_at, text.size()));
      ++at_page_end;
      if (n == 0) continue;
      for (const size_t at : {size_t{0}, n / 2, n - 1}) {
        for (int b = 0; b < 256; ++b) {
          std::string t = text;
          t[head.size() + at] = static_cast<char>(b);
          check(t);
        }
      }
    }
  }
  EXPECT_EQ(munmap(mem, static_cast<size_t>(page) * 2), 0);
  EXPECT_EQ(at_page_end, 7u * 101);
  EXPECT_GT(checked, 7u * 100 * 3 * 256);
  EXPECT_GT(matched, 7u * 100 * 3 * 20);
}

TEST(AsciiDfa, AgreesWithRe2OnMutatedAndRandomText) {
  // Each text is mutated (characters replaced, inserted, deleted, doubled), random texts
  // are added, and every verdict is RE2's. The alphabet has a byte of a two-byte UTF-8
  // character and one that is no UTF-8 at all.
  std::mt19937_64 rng(20261202);
  const std::string alphabet = "aAbzZ09x_-./:!+]{}()sS htpMonJ@*~,\xc3\xa9\x80\n";
  auto pick = [&] { return alphabet[rng() % alphabet.size()]; };
  uint64_t checked = 0, matched = 0, ruled_out = 0;
  for (const auto& one : DfaCases()) {
    const char* const pattern = one.first;  // named: the check below captures it
    const std::vector<std::string>& texts = one.second;
    const std::optional<AsciiDfa> dfa = AsciiDfa::Build(pattern);
    ASSERT_TRUE(dfa.has_value()) << pattern;
    std::string error;
    const std::unique_ptr<re2::RE2> re = CompileEcmaRegex(pattern, &error);
    ASSERT_TRUE(re) << error;
    uint64_t here = 0;
    auto check = [&](const std::string& text) {
      const bool want = RegexSearch(*re, text);
      ASSERT_EQ(dfa->Search(text), want) << pattern << " on \"" << text << "\"";
      ASSERT_EQ(dfa->SearchBytes(text), want) << pattern << " on \"" << text << "\"";
      if (dfa->RulesOut(text)) {
        ASSERT_FALSE(want) << pattern << " on \"" << text << "\": ruled out by its first byte";
        ++ruled_out;
      }
      ++checked;
      here += want;
    };
    for (const std::string& text : texts) {
      check(text);
      for (int round = 0; round < 3000; ++round) {
        std::string t = text;
        const int edits = 1 + static_cast<int>(rng() % 3);
        for (int e = 0; e < edits; ++e) {
          const size_t at = t.empty() ? 0 : rng() % (t.size() + 1);
          switch (rng() % 4) {
            case 0:
              if (at < t.size()) t[at] = pick();
              break;
            case 1:
              t.insert(t.begin() + static_cast<std::ptrdiff_t>(at), pick());
              break;
            case 2:
              if (at < t.size()) t.erase(at, 1);
              break;
            default:
              if (at < t.size()) t.insert(t.begin() + static_cast<std::ptrdiff_t>(at), t[at]);
          }
        }
        check(t);
      }
    }
    for (int round = 0; round < 2000; ++round) {
      std::string t(rng() % 12, ' ');
      for (char& c : t) c = pick();
      check(t);
    }
    EXPECT_GT(here, texts.size()) << pattern << ": too few texts match to test the matching side";
    matched += here;
  }
  EXPECT_GT(checked, 200000u);
  EXPECT_GT(matched, 20000u);
  EXPECT_GT(ruled_out, 10000u);
}

// The official suite's patterns (pattern.json, patternProperties.json and
// optional/ecmascript-regex.json of every draft): each one AsciiDfa takes gives RE2's
// verdict on every string of its file.
TEST(AsciiDfa, AgreesWithRe2OnTheSuitesPatterns) {
  const std::filesystem::path root = std::filesystem::path(rosetta::testing::DataDir()) /
                                     "conformance/json-schema-test-suite/tests";
  size_t taken = 0, compared = 0;
  for (const char* draft : {"draft4", "draft6", "draft7", "draft2019-09", "draft2020-12"}) {
    for (const char* file :
         {"pattern.json", "patternProperties.json", "optional/ecmascript-regex.json"}) {
      const std::string text = rosetta::testing::ReadFile((root / draft / file).string());
      ASSERT_FALSE(text.empty()) << "no suite file " << file << " (set ROSETTA_DATA_DIR)";
      const json suite = json::parse(text);
      std::vector<std::string> patterns, strings;
      std::function<void(const json&, bool)> walk = [&](const json& v, bool key_is_pattern) {
        if (v.is_object()) {
          for (const auto& [k, x] : v.items()) {
            if (k == "pattern" && x.is_string()) patterns.push_back(x.get<std::string>());
            if (key_is_pattern) patterns.push_back(k);
            walk(x, k == "patternProperties");
            if (x.is_string()) strings.push_back(x.get<std::string>());
            strings.push_back(k);
          }
        } else if (v.is_array()) {
          for (const auto& x : v) walk(x, false);
        } else if (v.is_string()) {
          strings.push_back(v.get<std::string>());
        }
      };
      walk(suite, false);
      for (const std::string& p : patterns) {
        const std::optional<AsciiDfa> dfa = AsciiDfa::Build(p);
        if (!dfa) continue;
        ++taken;
        std::string error;
        const std::unique_ptr<re2::RE2> re = CompileEcmaRegex(p, &error);
        ASSERT_TRUE(re) << p << ": " << error;
        for (const std::string& s : strings) {
          EXPECT_EQ(dfa->Search(s), RegexSearch(*re, s)) << p << " on \"" << s << "\"";
          EXPECT_EQ(dfa->SearchBytes(s), RegexSearch(*re, s)) << p << " on \"" << s << "\"";
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(taken, 20u);
  EXPECT_GT(compared, 1000u);
}

}  // namespace
}  // namespace rosetta::codec::schema
