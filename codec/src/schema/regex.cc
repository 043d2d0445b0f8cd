#include "schema/regex.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rosetta::codec::schema {

namespace {

constexpr char32_t kMaxCodePoint = 0x10FFFF;
constexpr char32_t kNoChar = 0xFFFFFFFF;

// ---------------------------------------------------------------------------------------
// Code point sets.

struct Range {
  char32_t lo, hi;
};

// Sorted, disjoint, not adjacent.
std::vector<Range> Normalize(std::vector<Range> r) {
  std::sort(r.begin(), r.end(), [](Range a, Range b) { return a.lo < b.lo; });
  std::vector<Range> out;
  for (Range x : r) {
    if (!out.empty() && x.lo <= out.back().hi + 1) {
      out.back().hi = std::max(out.back().hi, x.hi);
    } else {
      out.push_back(x);
    }
  }
  return out;
}

std::vector<Range> Complement(const std::vector<Range>& in) {
  std::vector<Range> r = Normalize(in), out;
  char32_t next = 0;
  for (Range x : r) {
    if (x.lo > next) out.push_back({next, x.lo - 1});
    next = x.hi + 1;
  }
  if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
  return out;
}

// What one RE2 bracket expression holds: code point ranges and RE2 property tokens
// ("\pL", "\p{Greek}", "\P{Greek}").
struct CharSet {
  std::vector<Range> ranges;
  std::vector<std::string> props;

  void Add(char32_t lo, char32_t hi) { ranges.push_back({lo, hi}); }
  void Add(const CharSet& o) {
    ranges.insert(ranges.end(), o.ranges.begin(), o.ranges.end());
    props.insert(props.end(), o.props.begin(), o.props.end());
  }
};

void AppendHex(std::string& out, uint32_t v) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  char buf[8];
  int n = 0;
  do {
    buf[n++] = kHex[v & 15];
    v >>= 4;
  } while (v);
  while (n) out += buf[--n];
}

bool IsAsciiAlnum(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

// One code point as an RE2 literal, outside a bracket expression.
void AppendLiteral(std::string& out, char32_t c) {
  if (IsAsciiAlnum(c)) {
    out += static_cast<char>(c);
  } else if (c >= 0x20 && c < 0x7F) {
    if (std::string_view("\\.+*?()|[]{}^$").find(static_cast<char>(c)) != std::string_view::npos) {
      out += '\\';
    }
    out += static_cast<char>(c);
  } else {
    out += "\\x{";
    AppendHex(out, c);
    out += '}';
  }
}

// One code point inside an RE2 bracket expression.
void AppendClassChar(std::string& out, char32_t c) {
  if (IsAsciiAlnum(c)) {
    out += static_cast<char>(c);
  } else if (c >= 0x20 && c < 0x7F) {
    // '[' too: "[:" would begin a POSIX class.
    if (std::string_view("\\]^-[").find(static_cast<char>(c)) != std::string_view::npos) {
      out += '\\';
    }
    out += static_cast<char>(c);
  } else {
    out += "\\x{";
    AppendHex(out, c);
    out += '}';
  }
}

constexpr std::string_view kAnyChar = "[\\x{0}-\\x{10FFFF}]";
constexpr std::string_view kNoCharClass = "[^\\x{0}-\\x{10FFFF}]";

// The set as one RE2 bracket expression (negated: its complement).
void AppendClass(std::string& out, const CharSet& set, bool negated) {
  std::vector<Range> ranges = Normalize(set.ranges);
  if (ranges.empty() && set.props.empty()) {
    out += negated ? kAnyChar : kNoCharClass;  // RE2 has no "[]" or "[^]"
    return;
  }
  out += negated ? "[^" : "[";
  for (Range r : ranges) {
    AppendClassChar(out, r.lo);
    if (r.hi == r.lo) continue;
    if (r.hi != r.lo + 1) out += '-';
    AppendClassChar(out, r.hi);
  }
  for (const std::string& p : set.props) out += p;
  out += ']';
}

// ---------------------------------------------------------------------------------------
// ECMA's fixed sets.

CharSet DigitSet() {
  CharSet s;
  s.Add('0', '9');
  return s;
}

// Under iu, ECMA's \w also holds what case-folds into it: U+017F and U+212A.
CharSet WordSet(bool ignore_case) {
  CharSet s;
  s.Add('0', '9');
  s.Add('A', 'Z');
  s.Add('_', '_');
  s.Add('a', 'z');
  if (ignore_case) {
    s.Add(0x17F, 0x17F);
    s.Add(0x212A, 0x212A);
  }
  return s;
}

// WhiteSpace (TAB VT FF ZWNBSP and Zs) and LineTerminator (LF CR LS PS).
CharSet SpaceSet() {
  CharSet s;
  for (Range r : std::initializer_list<Range>{{0x09, 0x0D},
                                              {0x20, 0x20},
                                              {0xA0, 0xA0},
                                              {0x1680, 0x1680},
                                              {0x2000, 0x200A},
                                              {0x2028, 0x2029},
                                              {0x202F, 0x202F},
                                              {0x205F, 0x205F},
                                              {0x3000, 0x3000},
                                              {0xFEFF, 0xFEFF}}) {
    s.Add(r.lo, r.hi);
  }
  return s;
}

CharSet Complemented(const CharSet& s) {  // s has ranges only
  CharSet out;
  out.ranges = Complement(s.ranges);
  return out;
}

// ---------------------------------------------------------------------------------------
// Unicode properties.

// The General_Category leaves, a bit each; a set of them is a mask.
constexpr const char* kGcLeaves[] = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl",
                                     "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc",
                                     "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};
constexpr int kGcCount = 30;
constexpr uint32_t kGcAll = (uint32_t{1} << kGcCount) - 1;
constexpr int kCn = 29;

constexpr uint32_t Bits(int first, int count) { return ((uint32_t{1} << count) - 1) << first; }

// The majors RE2 names with one letter, as masks. RE2 has no \p{Cn} (and its \pC leaves the
// unassigned out), so C is spelled leaf by leaf.
struct Major {
  const char* re2;
  uint32_t mask;
};
constexpr Major kMajors[] = {{"\\pL", Bits(0, 5)},  {"\\pM", Bits(5, 3)},  {"\\pN", Bits(8, 3)},
                             {"\\pP", Bits(11, 7)}, {"\\pS", Bits(18, 4)}, {"\\pZ", Bits(22, 3)}};

struct GcName {
  const char* name;
  uint32_t mask;
};
// PropertyValueAliases.txt, gc: every short name, long name and alias (case-sensitive).
// clang-format off
constexpr GcName kGcNames[] = {
    {"L", Bits(0, 5)}, {"Letter", Bits(0, 5)}, {"LC", Bits(0, 3)}, {"Cased_Letter", Bits(0, 3)},
    {"Lu", Bits(0, 1)}, {"Uppercase_Letter", Bits(0, 1)}, {"Ll", Bits(1, 1)},
    {"Lowercase_Letter", Bits(1, 1)}, {"Lt", Bits(2, 1)}, {"Titlecase_Letter", Bits(2, 1)},
    {"Lm", Bits(3, 1)}, {"Modifier_Letter", Bits(3, 1)}, {"Lo", Bits(4, 1)},
    {"Other_Letter", Bits(4, 1)}, {"M", Bits(5, 3)}, {"Mark", Bits(5, 3)},
    {"Combining_Mark", Bits(5, 3)}, {"Mn", Bits(5, 1)}, {"Nonspacing_Mark", Bits(5, 1)},
    {"Mc", Bits(6, 1)}, {"Spacing_Mark", Bits(6, 1)}, {"Me", Bits(7, 1)},
    {"Enclosing_Mark", Bits(7, 1)}, {"N", Bits(8, 3)}, {"Number", Bits(8, 3)}, {"Nd", Bits(8, 1)},
    {"Decimal_Number", Bits(8, 1)}, {"digit", Bits(8, 1)}, {"Nl", Bits(9, 1)},
    {"Letter_Number", Bits(9, 1)}, {"No", Bits(10, 1)}, {"Other_Number", Bits(10, 1)},
    {"P", Bits(11, 7)}, {"Punctuation", Bits(11, 7)}, {"punct", Bits(11, 7)}, {"Pc", Bits(11, 1)},
    {"Connector_Punctuation", Bits(11, 1)}, {"Pd", Bits(12, 1)}, {"Dash_Punctuation", Bits(12, 1)},
    {"Ps", Bits(13, 1)}, {"Open_Punctuation", Bits(13, 1)}, {"Pe", Bits(14, 1)},
    {"Close_Punctuation", Bits(14, 1)}, {"Pi", Bits(15, 1)}, {"Initial_Punctuation", Bits(15, 1)},
    {"Pf", Bits(16, 1)}, {"Final_Punctuation", Bits(16, 1)}, {"Po", Bits(17, 1)},
    {"Other_Punctuation", Bits(17, 1)}, {"S", Bits(18, 4)}, {"Symbol", Bits(18, 4)},
    {"Sm", Bits(18, 1)}, {"Math_Symbol", Bits(18, 1)}, {"Sc", Bits(19, 1)},
    {"Currency_Symbol", Bits(19, 1)}, {"Sk", Bits(20, 1)}, {"Modifier_Symbol", Bits(20, 1)},
    {"So", Bits(21, 1)}, {"Other_Symbol", Bits(21, 1)}, {"Z", Bits(22, 3)},
    {"Separator", Bits(22, 3)}, {"Zs", Bits(22, 1)}, {"Space_Separator", Bits(22, 1)},
    {"Zl", Bits(23, 1)}, {"Line_Separator", Bits(23, 1)}, {"Zp", Bits(24, 1)},
    {"Paragraph_Separator", Bits(24, 1)}, {"C", Bits(25, 5)}, {"Other", Bits(25, 5)},
    {"Cc", Bits(25, 1)}, {"Control", Bits(25, 1)}, {"cntrl", Bits(25, 1)}, {"Cf", Bits(26, 1)},
    {"Format", Bits(26, 1)}, {"Cs", Bits(27, 1)}, {"Surrogate", Bits(27, 1)}, {"Co", Bits(28, 1)},
    {"Private_Use", Bits(28, 1)}, {"Cn", Bits(29, 1)}, {"Unassigned", Bits(29, 1)},
};
// clang-format on

void AppendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

RE2::Options QuietOptions() {
  RE2::Options o;
  o.set_log_errors(false);
  return o;
}

// General_Category=Unassigned as the linked RE2's tables have it (so that Cn and the other
// 29 categories partition the code points exactly): every code point no RE2 category holds.
// Found once, on first use, by asking RE2 about each code point (about 0.1 s).
const std::vector<Range>& Unassigned() {
  static const std::vector<Range> kRanges = [] {
    RE2 assigned("[\\pL\\pM\\pN\\pP\\pS\\pZ\\p{Cc}\\p{Cf}\\p{Co}\\p{Cs}]", QuietOptions());
    std::vector<Range> out;
    std::string buf;
    for (char32_t c = 0; c <= kMaxCodePoint; ++c) {
      if (c == 0xD800) c = 0xE000;  // surrogates are Cs; UTF-8 cannot hold them
      buf.clear();
      AppendUtf8(buf, c);
      if (RE2::FullMatch(buf, assigned)) continue;
      if (!out.empty() && out.back().hi + 1 == c) {
        out.back().hi = c;
      } else {
        out.push_back({c, c});
      }
    }
    return out;
  }();
  return kRanges;
}

// The one RE2 token for the mask ("\\pL", "\\p{Lu}"), or "" when it takes more than one (or
// holds Cn, which RE2 has no token for).
std::string GcToken(uint32_t mask) {
  for (const Major& m : kMajors) {
    if (mask == m.mask) return m.re2;
  }
  for (int i = 0; i < kGcCount; ++i) {
    if (i != kCn && mask == uint32_t{1} << i) return std::string("\\p{") + kGcLeaves[i] + "}";
  }
  return "";
}

CharSet GcSet(uint32_t mask) {
  CharSet s;
  for (const Major& m : kMajors) {
    if ((mask & m.mask) == m.mask) {
      s.props.push_back(m.re2);
      mask &= ~m.mask;
    }
  }
  for (int i = 0; i < kGcCount; ++i) {
    if (!(mask & (uint32_t{1} << i))) continue;
    if (i == kCn) {
      s.ranges.insert(s.ranges.end(), Unassigned().begin(), Unassigned().end());
    } else {
      s.props.push_back(std::string("\\p{") + kGcLeaves[i] + "}");
    }
  }
  return s;
}

struct ScriptName {
  const char* code;   // ISO 15924
  const char* name;   // the long name, what RE2 calls it
  const char* alias;  // "" or a further alias
};
// PropertyValueAliases.txt, sc (Unicode 15, as RE2 20220601 has them, and 16).
// clang-format off
constexpr ScriptName kScripts[] = {
    {"Adlm", "Adlam", ""}, {"Aghb", "Caucasian_Albanian", ""}, {"Ahom", "Ahom", ""},
    {"Arab", "Arabic", ""}, {"Armi", "Imperial_Aramaic", ""}, {"Armn", "Armenian", ""},
    {"Avst", "Avestan", ""}, {"Bali", "Balinese", ""}, {"Bamu", "Bamum", ""},
    {"Bass", "Bassa_Vah", ""}, {"Batk", "Batak", ""}, {"Beng", "Bengali", ""},
    {"Bhks", "Bhaiksuki", ""}, {"Bopo", "Bopomofo", ""}, {"Brah", "Brahmi", ""},
    {"Brai", "Braille", ""}, {"Bugi", "Buginese", ""}, {"Buhd", "Buhid", ""},
    {"Cakm", "Chakma", ""}, {"Cans", "Canadian_Aboriginal", ""}, {"Cari", "Carian", ""},
    {"Cham", "Cham", ""}, {"Cher", "Cherokee", ""}, {"Chrs", "Chorasmian", ""},
    {"Copt", "Coptic", "Qaac"}, {"Cpmn", "Cypro_Minoan", ""}, {"Cprt", "Cypriot", ""},
    {"Cyrl", "Cyrillic", ""}, {"Deva", "Devanagari", ""}, {"Diak", "Dives_Akuru", ""},
    {"Dogr", "Dogra", ""}, {"Dsrt", "Deseret", ""}, {"Dupl", "Duployan", ""},
    {"Egyp", "Egyptian_Hieroglyphs", ""}, {"Elba", "Elbasan", ""}, {"Elym", "Elymaic", ""},
    {"Ethi", "Ethiopic", ""}, {"Geor", "Georgian", ""}, {"Glag", "Glagolitic", ""},
    {"Gong", "Gunjala_Gondi", ""}, {"Gonm", "Masaram_Gondi", ""}, {"Goth", "Gothic", ""},
    {"Gran", "Grantha", ""}, {"Grek", "Greek", ""}, {"Gujr", "Gujarati", ""},
    {"Guru", "Gurmukhi", ""}, {"Hang", "Hangul", ""}, {"Hani", "Han", ""}, {"Hano", "Hanunoo", ""},
    {"Hatr", "Hatran", ""}, {"Hebr", "Hebrew", ""}, {"Hira", "Hiragana", ""},
    {"Hluw", "Anatolian_Hieroglyphs", ""}, {"Hmng", "Pahawh_Hmong", ""},
    {"Hmnp", "Nyiakeng_Puachue_Hmong", ""}, {"Hung", "Old_Hungarian", ""},
    {"Ital", "Old_Italic", ""}, {"Java", "Javanese", ""}, {"Kali", "Kayah_Li", ""},
    {"Kana", "Katakana", ""}, {"Khar", "Kharoshthi", ""}, {"Khmr", "Khmer", ""},
    {"Khoj", "Khojki", ""}, {"Kits", "Khitan_Small_Script", ""}, {"Knda", "Kannada", ""},
    {"Kthi", "Kaithi", ""}, {"Lana", "Tai_Tham", ""}, {"Laoo", "Lao", ""}, {"Latn", "Latin", ""},
    {"Lepc", "Lepcha", ""}, {"Limb", "Limbu", ""}, {"Lina", "Linear_A", ""},
    {"Linb", "Linear_B", ""}, {"Lisu", "Lisu", ""}, {"Lyci", "Lycian", ""}, {"Lydi", "Lydian", ""},
    {"Mahj", "Mahajani", ""}, {"Maka", "Makasar", ""}, {"Mand", "Mandaic", ""},
    {"Mani", "Manichaean", ""}, {"Marc", "Marchen", ""}, {"Medf", "Medefaidrin", ""},
    {"Mend", "Mende_Kikakui", ""}, {"Merc", "Meroitic_Cursive", ""},
    {"Mero", "Meroitic_Hieroglyphs", ""}, {"Mlym", "Malayalam", ""}, {"Modi", "Modi", ""},
    {"Mong", "Mongolian", ""}, {"Mroo", "Mro", ""}, {"Mtei", "Meetei_Mayek", ""},
    {"Mult", "Multani", ""}, {"Mymr", "Myanmar", ""}, {"Nand", "Nandinagari", ""},
    {"Narb", "Old_North_Arabian", ""}, {"Nbat", "Nabataean", ""}, {"Newa", "Newa", ""},
    {"Nkoo", "Nko", ""}, {"Nshu", "Nushu", ""}, {"Ogam", "Ogham", ""}, {"Olck", "Ol_Chiki", ""},
    {"Orkh", "Old_Turkic", ""}, {"Orya", "Oriya", ""}, {"Osge", "Osage", ""},
    {"Osma", "Osmanya", ""}, {"Ougr", "Old_Uyghur", ""}, {"Palm", "Palmyrene", ""},
    {"Pauc", "Pau_Cin_Hau", ""}, {"Perm", "Old_Permic", ""}, {"Phag", "Phags_Pa", ""},
    {"Phli", "Inscriptional_Pahlavi", ""}, {"Phlp", "Psalter_Pahlavi", ""},
    {"Phnx", "Phoenician", ""}, {"Plrd", "Miao", ""}, {"Prti", "Inscriptional_Parthian", ""},
    {"Rjng", "Rejang", ""}, {"Rohg", "Hanifi_Rohingya", ""}, {"Runr", "Runic", ""},
    {"Samr", "Samaritan", ""}, {"Sarb", "Old_South_Arabian", ""}, {"Saur", "Saurashtra", ""},
    {"Sgnw", "SignWriting", ""}, {"Shaw", "Shavian", ""}, {"Shrd", "Sharada", ""},
    {"Sidd", "Siddham", ""}, {"Sind", "Khudawadi", ""}, {"Sinh", "Sinhala", ""},
    {"Sogd", "Sogdian", ""}, {"Sogo", "Old_Sogdian", ""}, {"Sora", "Sora_Sompeng", ""},
    {"Soyo", "Soyombo", ""}, {"Sund", "Sundanese", ""}, {"Sylo", "Syloti_Nagri", ""},
    {"Syrc", "Syriac", ""}, {"Tagb", "Tagbanwa", ""}, {"Takr", "Takri", ""},
    {"Tale", "Tai_Le", ""}, {"Talu", "New_Tai_Lue", ""}, {"Taml", "Tamil", ""},
    {"Tang", "Tangut", ""}, {"Tavt", "Tai_Viet", ""}, {"Telu", "Telugu", ""},
    {"Tfng", "Tifinagh", ""}, {"Tglg", "Tagalog", ""}, {"Thaa", "Thaana", ""},
    {"Thai", "Thai", ""}, {"Tibt", "Tibetan", ""}, {"Tirh", "Tirhuta", ""}, {"Tnsa", "Tangsa", ""},
    {"Toto", "Toto", ""}, {"Ugar", "Ugaritic", ""}, {"Vaii", "Vai", ""}, {"Vith", "Vithkuqi", ""},
    {"Wara", "Warang_Citi", ""}, {"Wcho", "Wancho", ""}, {"Xpeo", "Old_Persian", ""},
    {"Xsux", "Cuneiform", ""}, {"Yezi", "Yezidi", ""}, {"Yiii", "Yi", ""},
    {"Zanb", "Zanabazar_Square", ""}, {"Zinh", "Inherited", "Qaai"}, {"Zyyy", "Common", ""},
    {"Kawi", "Kawi", ""}, {"Nagm", "Nag_Mundari", ""},
    // Unicode 16.
    {"Gara", "Garay", ""}, {"Gukh", "Gurung_Khema", ""}, {"Krai", "Kirat_Rai", ""},
    {"Onao", "Ol_Onal", ""}, {"Sunu", "Sunuwar", ""}, {"Todr", "Todhri", ""},
    {"Tutg", "Tulu_Tigalari", ""},
    // No code point has Script=Katakana_Or_Hiragana (only Script_Extensions do): empty.
    {"Hrkt", "Katakana_Or_Hiragana", ""},
    // What no script holds: RE2 has no table for it.
    {"Zzzz", "Unknown", ""},
};
// clang-format on

const ScriptName* FindScript(std::string_view v) {
  for (const ScriptName& s : kScripts) {
    if (v == s.code || v == s.name || (*s.alias && v == s.alias)) return &s;
  }
  return nullptr;
}

struct BinaryProperty {
  const char* name;
  const char* alias;
  // The code points, for the few whose set is fixed by definition or stable; empty for
  // those RE2 has no table for (refused).
  std::vector<Range> ranges;
  bool expressible;
};

// ECMA-262's table of binary Unicode properties (name and its one alias).
const std::vector<BinaryProperty>& BinaryProperties() {
  static const std::vector<BinaryProperty> kProps = {
      {"ASCII", "", {{0, 0x7F}}, true},
      {"ASCII_Hex_Digit", "AHex", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}, true},
      {"Alphabetic", "Alpha", {}, false},
      {"Any", "", {{0, kMaxCodePoint}}, true},
      {"Assigned", "", {}, true},  // General_Category other than Cn
      {"Bidi_Control",
       "Bidi_C",
       {{0x61C, 0x61C}, {0x200E, 0x200F}, {0x202A, 0x202E}, {0x2066, 0x2069}},
       true},
      {"Bidi_Mirrored", "Bidi_M", {}, false},
      {"Case_Ignorable", "CI", {}, false},
      {"Cased", "", {}, false},
      {"Changes_When_Casefolded", "CWCF", {}, false},
      {"Changes_When_Casemapped", "CWCM", {}, false},
      {"Changes_When_Lowercased", "CWL", {}, false},
      {"Changes_When_NFKC_Casefolded", "CWKCF", {}, false},
      {"Changes_When_Titlecased", "CWT", {}, false},
      {"Changes_When_Uppercased", "CWU", {}, false},
      {"Dash", "", {}, false},
      {"Default_Ignorable_Code_Point", "DI", {}, false},
      {"Deprecated", "Dep", {}, false},
      {"Diacritic", "Dia", {}, false},
      {"Emoji", "", {}, false},
      {"Emoji_Component", "EComp", {}, false},
      {"Emoji_Modifier", "EMod", {}, false},
      {"Emoji_Modifier_Base", "EBase", {}, false},
      {"Emoji_Presentation", "EPres", {}, false},
      {"Extended_Pictographic", "ExtPict", {}, false},
      {"Extender", "Ext", {}, false},
      {"Grapheme_Base", "Gr_Base", {}, false},
      {"Grapheme_Extend", "Gr_Ext", {}, false},
      {"Hex_Digit",
       "Hex",
       {{'0', '9'}, {'A', 'F'}, {'a', 'f'}, {0xFF10, 0xFF19}, {0xFF21, 0xFF26}, {0xFF41, 0xFF46}},
       true},
      {"IDS_Binary_Operator", "IDSB", {}, false},
      {"IDS_Trinary_Operator", "IDST", {}, false},
      {"IDS_Unary_Operator", "IDSU", {}, false},
      {"ID_Continue", "IDC", {}, false},
      {"ID_Start", "IDS", {}, false},
      {"Ideographic", "Ideo", {}, false},
      {"Join_Control", "Join_C", {{0x200C, 0x200D}}, true},
      {"Logical_Order_Exception", "LOE", {}, false},
      {"Lowercase", "Lower", {}, false},
      {"Math", "", {}, false},
      {"Noncharacter_Code_Point",
       "NChar",
       {{0xFDD0, 0xFDEF},
        {0xFFFE, 0xFFFF},
        {0x1FFFE, 0x1FFFF},
        {0x2FFFE, 0x2FFFF},
        {0x3FFFE, 0x3FFFF},
        {0x4FFFE, 0x4FFFF},
        {0x5FFFE, 0x5FFFF},
        {0x6FFFE, 0x6FFFF},
        {0x7FFFE, 0x7FFFF},
        {0x8FFFE, 0x8FFFF},
        {0x9FFFE, 0x9FFFF},
        {0xAFFFE, 0xAFFFF},
        {0xBFFFE, 0xBFFFF},
        {0xCFFFE, 0xCFFFF},
        {0xDFFFE, 0xDFFFF},
        {0xEFFFE, 0xEFFFF},
        {0xFFFFE, 0xFFFFF},
        {0x10FFFE, 0x10FFFF}},
       true},
      {"Pattern_Syntax", "Pat_Syn", {}, false},
      {"Pattern_White_Space",
       "Pat_WS",
       {{0x09, 0x0D}, {0x20, 0x20}, {0x85, 0x85}, {0x200E, 0x200F}, {0x2028, 0x2029}},
       true},
      {"Quotation_Mark", "QMark", {}, false},
      {"Radical", "", {}, false},
      {"Regional_Indicator", "RI", {{0x1F1E6, 0x1F1FF}}, true},
      {"Sentence_Terminal", "STerm", {}, false},
      {"Soft_Dotted", "SD", {}, false},
      {"Terminal_Punctuation", "Term", {}, false},
      {"Unified_Ideograph", "UIdeo", {}, false},
      {"Uppercase", "Upper", {}, false},
      {"Variation_Selector", "VS", {}, false},
      {"White_Space",
       "space",
       {{0x09, 0x0D},
        {0x20, 0x20},
        {0x85, 0x85},
        {0xA0, 0xA0},
        {0x1680, 0x1680},
        {0x2000, 0x200A},
        {0x2028, 0x2029},
        {0x202F, 0x202F},
        {0x205F, 0x205F},
        {0x3000, 0x3000}},
       true},
      {"XID_Continue", "XIDC", {}, false},
      {"XID_Start", "XIDS", {}, false},
  };
  return kProps;
}

// ---------------------------------------------------------------------------------------
// The parser: ECMA-262's Pattern[+UnicodeMode, +NamedCaptureGroups] by recursive descent,
// writing the RE2 translation as it goes.

bool IsSyntaxChar(char32_t c) {
  return c < 0x80 &&
         std::string_view("^$\\.*+?()[]{}|").find(static_cast<char>(c)) != std::string_view::npos;
}

bool IsHex(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

uint32_t HexValue(char32_t c) {
  if (c <= '9') return c - '0';
  if (c <= 'F') return c - 'A' + 10;
  return c - 'a' + 10;
}

bool IsDigit(char32_t c) { return c >= '0' && c <= '9'; }

// A character for an error message: printable ASCII as it is, else U+XXXX.
std::string Show(char32_t c) {
  std::string s;
  if (c >= 0x20 && c < 0x7F) {
    s += static_cast<char>(c);
  } else {
    s += "U+";
    if (c < 0x1000) s += std::string(c < 0x10 ? 3 : c < 0x100 ? 2 : 1, '0');
    AppendHex(s, c);
  }
  return s;
}

// Identifier characters of group names, approximately: ECMA's ID_Start / ID_Continue are
// Unicode properties RE2 has no table for; letters, letter numbers, marks, digits and
// connector punctuation stand for them beyond ASCII.
bool IsIdStart(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '$' || c == '_';
  static const RE2 kRe("[\\pL\\p{Nl}]", QuietOptions());
  std::string s;
  AppendUtf8(s, c);
  return RE2::FullMatch(s, kRe);
}

bool IsIdContinue(char32_t c) {
  if (c < 0x80) return IsAsciiAlnum(c) || c == '$' || c == '_';
  if (c == 0x200C || c == 0x200D) return true;
  static const RE2 kRe("[\\pL\\p{Nl}\\p{Mn}\\p{Mc}\\p{Nd}\\p{Pc}]", QuietOptions());
  std::string s;
  AppendUtf8(s, c);
  return RE2::FullMatch(s, kRe);
}

struct Flags {
  bool i = false, m = false, s = false;
};

class Parser {
 public:
  Parser(const std::u32string& p, bool translate) : p_(p), translate_(translate) {}

  // False on a syntax error (error()); else refusal() is empty iff output() is the meaning.
  bool Run() {
    Prescan();
    std::string body;
    int rep = 1;
    if (!ParseDisjunction(body, &rep)) return false;
    if (pos_ < p_.size()) return Fail(pos_, "unmatched )");
    if (uses_not_boundary_) {
      out_ = "\\A(?s:.)*?(?:" + body + ")";
    } else {
      out_ = std::move(body);
    }
    return true;
  }

  const std::string& error() const { return error_; }
  const std::string& refusal() const { return refusal_; }
  std::string& output() { return out_; }

 private:
  // --- errors

  bool Fail(size_t at, std::string_view what) {
    if (error_.empty()) {
      error_ = "not ECMA-262: ";
      error_ += what;
      error_ += " at " + std::to_string(at);
    }
    return false;
  }
  // The pattern is ECMA-262 but has no RE2 meaning: keep parsing (a syntax error later still
  // makes it not ECMA-262), remember the first reason.
  void Refuse(size_t at, std::string_view what, std::string_view why) {
    if (!translate_ || !refusal_.empty()) return;
    refusal_ = std::string(what) + " at " + std::to_string(at) + " " + std::string(why);
  }

  // --- input

  bool AtEnd() const { return pos_ >= p_.size(); }
  char32_t Peek(size_t ahead = 0) const {
    return pos_ + ahead < p_.size() ? p_[pos_ + ahead] : kNoChar;
  }

  // --- the prescan: capturing group count and names, which escapes before them may name.

  void Prescan() {
    bool in_class = false;
    for (size_t i = 0; i < p_.size(); ++i) {
      char32_t c = p_[i];
      if (c == '\\') {
        ++i;
      } else if (in_class) {
        if (c == ']') in_class = false;
      } else if (c == '[') {
        in_class = true;
      } else if (c == '(') {
        if (i + 1 < p_.size() && p_[i + 1] == '?') {
          if (i + 2 < p_.size() && p_[i + 2] == '<' && i + 3 < p_.size() && p_[i + 3] != '=' &&
              p_[i + 3] != '!') {
            ++group_count_;
            size_t at = i + 3;
            std::u32string name;
            if (ScanGroupName(at, &name, nullptr)) names_.insert(std::move(name));
          }
        } else {
          ++group_count_;
        }
      }
    }
  }

  // --- group names: RegExpIdentifierName, then '>'. `at` is just past '<'; on success
  // it is past '>'. *where_bad (if not null) is where it went wrong.

  bool ScanIdentifierChar(size_t& at, char32_t* c) {
    if (at >= p_.size()) return false;
    if (p_[at] != '\\') {
      *c = p_[at++];
      return true;
    }
    // \u escape: \uXXXX (with a surrogate pair \uXXXX\uXXXX) or \u{...}.
    if (at + 1 >= p_.size() || p_[at + 1] != 'u') return false;
    size_t i = at + 2;
    char32_t v;
    if (!ScanUnicodeEscapeBody(i, &v)) return false;
    at = i;
    *c = v;
    return true;
  }

  bool ScanGroupName(size_t& at, std::u32string* name, size_t* where_bad) {
    name->clear();
    size_t i = at;
    for (;;) {
      if (i < p_.size() && p_[i] == '>' && !name->empty()) {
        at = i + 1;
        return true;
      }
      size_t start = i;
      char32_t c;
      bool ok = ScanIdentifierChar(i, &c) && (name->empty() ? IsIdStart(c) : IsIdContinue(c));
      if (!ok) {
        if (where_bad) *where_bad = start;
        return false;
      }
      *name += c;
    }
  }

  // After "\u": XXXX (a lead surrogate followed by \uXXXX trail joins it) or {X...}.
  // `i` moves past what was read.
  bool ScanUnicodeEscapeBody(size_t& i, char32_t* out) {
    auto hex4 = [&](size_t at, char32_t* v) {
      if (at + 4 > p_.size()) return false;
      uint32_t x = 0;
      for (size_t k = at; k < at + 4; ++k) {
        if (!IsHex(p_[k])) return false;
        x = x * 16 + HexValue(p_[k]);
      }
      *v = x;
      return true;
    };
    if (i < p_.size() && p_[i] == '{') {
      size_t k = i + 1;
      uint32_t v = 0;
      while (k < p_.size() && IsHex(p_[k])) {
        v = v * 16 + HexValue(p_[k]);
        if (v > kMaxCodePoint) return false;
        ++k;
      }
      if (k == i + 1 || k >= p_.size() || p_[k] != '}') return false;
      i = k + 1;
      *out = v;
      return true;
    }
    char32_t v;
    if (!hex4(i, &v)) return false;
    i += 4;
    if (v >= 0xD800 && v <= 0xDBFF && i + 1 < p_.size() && p_[i] == '\\' && p_[i + 1] == 'u') {
      char32_t trail;
      if (hex4(i + 2, &trail) && trail >= 0xDC00 && trail <= 0xDFFF) {
        v = 0x10000 + ((v - 0xD800) << 10) + (trail - 0xDC00);
        i += 6;
      }
    }
    *out = v;
    return true;
  }

  // --- Disjunction :: Alternative ('|' Alternative)*
  // *rep: the largest product of repetition counts on a path inside (RE2's limit).

  bool ParseDisjunction(std::string& out, int* rep) {
    int id = next_disjunction_++;
    alt_path_.push_back({id, 0});
    *rep = 1;
    for (;;) {
      int r = 1;
      if (!ParseAlternative(out, &r)) return false;
      *rep = std::max(*rep, r);
      if (Peek() != '|') break;
      ++pos_;
      out += '|';
      ++alt_path_.back().second;
    }
    alt_path_.pop_back();
    return true;
  }

  bool ParseAlternative(std::string& out, int* rep) {
    *rep = 1;
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      int r = 1;
      if (!ParseTerm(out, &r)) return false;
      *rep = std::max(*rep, r);
    }
    return true;
  }

  // --- Term :: Assertion | Atom Quantifier?

  bool ParseTerm(std::string& out, int* rep) {
    size_t at = pos_;
    char32_t c = Peek();
    *rep = 1;
    switch (c) {
      case '^':
      case '$':
        ++pos_;
        if (flags_.m) {
          Refuse(at, std::string(1, static_cast<char>(c)) + " under the m modifier",
                 "has no RE2 meaning (RE2 finds line ends at \\n only, not \\r, U+2028, U+2029)");
        }
        out += c == '^' ? "\\A" : "\\z";
        return true;
      case '*':
      case '+':
      case '?':
        return Fail(at, "nothing to repeat");
      case '{': {
        size_t i = pos_;
        Quantifier q;
        if (ScanBracedQuantifier(i, &q)) return Fail(at, "nothing to repeat");
        break;  // Annex B: a literal '{'
      }
      case '\\':
        if (Peek(1) == 'b' || Peek(1) == 'B') {
          bool not_boundary = Peek(1) == 'B';
          pos_ += 2;
          if (flags_.i) {
            Refuse(at, not_boundary ? "\\B under the i modifier" : "\\b under the i modifier",
                   "has no RE2 meaning (ECMA's word characters then include U+017F and U+212A)");
          }
          if (not_boundary) {
            out += "\\B";
            uses_not_boundary_ = true;
          } else {
            out += "\\b";
          }
          return true;
        }
        break;
      case '(':
        if (Peek(1) == '?' && (Peek(2) == '=' || Peek(2) == '!' ||
                               (Peek(2) == '<' && (Peek(3) == '=' || Peek(3) == '!')))) {
          return ParseLookaround(out);
        }
        break;
      default:
        break;
    }
    std::string atom;
    int inner = 1;
    if (!ParseAtom(atom, &inner)) return false;
    out += atom;
    *rep = inner;
    return ParseQuantifier(out, rep);
  }

  struct Quantifier {
    uint64_t min = 0, max = 0;
    bool unbounded = false;
  };

  // {n}, {n,}, {n,m} from `i` (at '{'); moves `i` past '}'. Counts saturate.
  bool ScanBracedQuantifier(size_t& i, Quantifier* q) {
    auto number = [&](size_t& k, uint64_t* v) {
      size_t start = k;
      *v = 0;
      while (k < p_.size() && IsDigit(p_[k])) {
        *v = std::min<uint64_t>(*v * 10 + (p_[k] - '0'), uint64_t{1} << 40);
        ++k;
      }
      return k > start;
    };
    size_t k = i;
    if (k >= p_.size() || p_[k] != '{') return false;
    ++k;
    if (!number(k, &q->min)) return false;
    q->max = q->min;
    q->unbounded = false;
    if (k < p_.size() && p_[k] == ',') {
      ++k;
      if (!number(k, &q->max)) q->unbounded = true;
    }
    if (k >= p_.size() || p_[k] != '}') return false;
    i = k + 1;
    return true;
  }

  bool ParseQuantifier(std::string& out, int* rep) {
    size_t at = pos_;
    char32_t c = Peek();
    if (c == '*' || c == '+' || c == '?') {
      ++pos_;
      out += static_cast<char>(c);
    } else if (c == '{') {
      Quantifier q;
      size_t i = pos_;
      if (!ScanBracedQuantifier(i, &q)) return true;  // a literal '{' follows
      std::string shown;
      for (char32_t ch : std::u32string_view(p_).substr(pos_, i - pos_)) {
        shown += static_cast<char>(ch);
      }
      pos_ = i;
      if (!q.unbounded && q.min > q.max) return Fail(at, "numbers out of order in " + shown);
      if (q.min > kEcmaRegexMaxRepeat || (!q.unbounded && q.max > kEcmaRegexMaxRepeat)) {
        Refuse(at, "repetition " + shown,
               "exceeds RE2's limit of " + std::to_string(kEcmaRegexMaxRepeat));
      } else {
        // RE2 divides 1000 by each count (the maximum, else the minimum) down the tree.
        uint64_t m = q.unbounded ? q.min : q.max;
        if (m > 0) {
          uint64_t product = static_cast<uint64_t>(*rep) * m;
          if (product > static_cast<uint64_t>(kEcmaRegexMaxRepeat)) {
            Refuse(at, "repetition " + shown,
                   "nests counts whose product exceeds RE2's limit of " +
                       std::to_string(kEcmaRegexMaxRepeat));
            product = kEcmaRegexMaxRepeat + 1;
          }
          *rep = static_cast<int>(product);
        }
      }
      out += '{';
      out += std::to_string(q.min);
      if (q.unbounded) {
        out += ',';
      } else if (q.max != q.min) {
        out += ',';
        out += std::to_string(q.max);
      }
      out += '}';
    } else {
      return true;
    }
    if (Peek() == '?') {
      ++pos_;
      out += '?';
    }
    return true;
  }

  // --- (?= (?! (?<= (?<!: parsed, refused, never quantified (u-mode).

  bool ParseLookaround(std::string& out) {
    size_t at = pos_;
    bool behind = Peek(2) == '<';
    std::string what = behind ? (Peek(3) == '=' ? "lookbehind (?<=" : "lookbehind (?<!")
                              : (Peek(2) == '=' ? "lookahead (?=" : "lookahead (?!");
    pos_ += behind ? 4 : 3;
    Refuse(at, what, "has no linear-time meaning");
    if (!Enter(at)) return false;
    std::string ignored;
    int rep = 1;
    if (!ParseDisjunction(ignored, &rep)) return false;
    if (Peek() != ')') return Fail(at, "unterminated group");
    ++pos_;
    --depth_;
    out += "(?:)";
    return true;
  }

  bool Enter(size_t at) {
    if (++depth_ > kEcmaRegexMaxNesting) {
      if (error_.empty()) {
        error_ = "groups nested deeper than " + std::to_string(kEcmaRegexMaxNesting) + " at " +
                 std::to_string(at);
      }
      return false;
    }
    return true;
  }

  // --- Atom

  bool ParseAtom(std::string& out, int* rep) {
    size_t at = pos_;
    char32_t c = Peek();
    switch (c) {
      case '.':
        ++pos_;
        out += flags_.s ? std::string(kAnyChar) : "[^\\x{A}\\x{D}\\x{2028}\\x{2029}]";
        return true;
      case '[': {
        CharSet set;
        bool negated = false;
        if (!ParseClass(&set, &negated)) return false;
        AppendClass(out, set, negated);
        return true;
      }
      case '(':
        return ParseGroup(out, rep);
      case ')':
        return Fail(at, "unmatched )");
      case '\\':
        return ParseAtomEscape(out);
      default:
        // PatternCharacter; Annex B's ExtendedPatternCharacter adds ']' '{' '}' (a '{' that
        // begins a quantifier never gets here).
        ++pos_;
        AppendLiteral(out, c);
        return true;
    }
  }

  bool ParseGroup(std::string& out, int* rep) {
    size_t at = pos_;
    if (!Enter(at)) return false;
    Flags saved = flags_;
    std::string open;
    if (Peek(1) != '?') {
      pos_ += 1;
      open = "(";
    } else if (Peek(2) == ':') {
      pos_ += 3;
      open = "(?:";
    } else if (Peek(2) == '<') {
      // (?<name>
      size_t i = pos_ + 3, bad = i;
      std::u32string name;
      if (!ScanGroupName(i, &name, &bad)) return Fail(bad, "invalid group name");
      pos_ = i;
      std::vector<std::vector<std::pair<int, int>>>& paths = named_[name];
      for (const auto& path : paths) {
        if (!Exclusive(path, alt_path_)) return Fail(at, "duplicate group name");
      }
      bool first = paths.empty();
      paths.push_back(alt_path_);
      // RE2 takes word-character names, each once; the name means nothing to a search.
      bool re2_name = first && std::all_of(name.begin(), name.end(), [](char32_t ch) {
                        return IsAsciiAlnum(ch) || ch == '_';
                      });
      if (re2_name) {
        open = "(?P<";
        for (char32_t ch : name) open += static_cast<char>(ch);
        open += '>';
      } else {
        open = "(";
      }
    } else {
      // (?ims-ims:
      pos_ += 2;
      Flags add, remove;
      bool dash = false;
      std::string seen;
      for (;;) {
        char32_t f = Peek();
        if (f == 'i' || f == 'm' || f == 's') {
          if (seen.find(static_cast<char>(f)) != std::string::npos) {
            return Fail(pos_, "repeated modifier");
          }
          seen += static_cast<char>(f);
          Flags& which = dash ? remove : add;
          (f == 'i' ? which.i : f == 'm' ? which.m : which.s) = true;
          ++pos_;
        } else if (f == '-' && !dash) {
          dash = true;
          ++pos_;
        } else if (f == ':') {
          break;
        } else {
          return Fail(at, "invalid group");
        }
      }
      if (dash && seen.empty()) return Fail(at, "invalid group (?-:");
      ++pos_;  // ':'
      if (add.i) flags_.i = true;
      if (remove.i) flags_.i = false;
      if (add.m) flags_.m = true;
      if (remove.m) flags_.m = false;
      if (add.s) flags_.s = true;
      if (remove.s) flags_.s = false;
      if (flags_.i != saved.i) {
        open = flags_.i ? "(?i:" : "(?-i:";
      } else {
        open = "(?:";
      }
    }
    out += open;
    if (!ParseDisjunction(out, rep)) return false;
    if (Peek() != ')') return Fail(at, "unterminated group");
    ++pos_;
    out += ')';
    flags_ = saved;
    --depth_;
    return true;
  }

  // Whether two groups can never both take part in a match: on their paths from the root,
  // they first part in different alternatives of one disjunction.
  static bool Exclusive(const std::vector<std::pair<int, int>>& a,
                        const std::vector<std::pair<int, int>>& b) {
    for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
      if (a[k] == b[k]) continue;
      return a[k].first == b[k].first;
    }
    return false;
  }

  // --- AtomEscape (after '\' outside a class; \b \B were taken as assertions)

  bool ParseAtomEscape(std::string& out) {
    size_t at = pos_;
    char32_t e = Peek(1);
    if (e == kNoChar) return Fail(at, "\\ at end of pattern");
    if (e >= '1' && e <= '9') {
      size_t i = pos_ + 1;
      uint64_t n = 0;
      std::string digits;
      while (i < p_.size() && IsDigit(p_[i])) {
        n = std::min<uint64_t>(n * 10 + (p_[i] - '0'), uint64_t{1} << 40);
        digits += static_cast<char>(p_[i]);
        ++i;
      }
      pos_ = i;
      if (n > static_cast<uint64_t>(group_count_)) {
        return Fail(
            at, "\\" + digits + " names no group (there are " + std::to_string(group_count_) + ")");
      }
      Refuse(at, "backreference \\" + digits, "has no linear-time meaning");
      out += "(?:)";
      return true;
    }
    if (e == 'k') {
      size_t i = pos_ + 2, bad = i;
      std::u32string name;
      if (i >= p_.size() || p_[i] != '<') return Fail(at, "invalid escape \\k");
      ++i;
      if (!ScanGroupName(i, &name, &bad)) return Fail(bad, "invalid group name");
      if (!names_.count(name)) {
        return Fail(at, "\\k names no group");
      }
      std::string shown;
      for (size_t k = pos_; k < i; ++k) shown += Show(p_[k]);
      pos_ = i;
      Refuse(at, "backreference " + shown, "has no linear-time meaning");
      out += "(?:)";
      return true;
    }
    CharSet set;
    bool is_set = false;
    if (!ParseSetEscape(&set, &is_set)) return false;
    if (is_set) {
      AppendClass(out, set, false);
      return true;
    }
    char32_t c;
    if (!ParseCharacterEscape(&c, false)) return false;
    AppendLiteral(out, c);
    return true;
  }

  // \d \D \s \S \w \W \p{..} \P{..} at pos_ ('\'): *is_set false (and nothing read) when it
  // is something else.
  bool ParseSetEscape(CharSet* set, bool* is_set) {
    char32_t e = Peek(1);
    *is_set = true;
    switch (e) {
      case 'd':
        *set = DigitSet();
        break;
      case 'D':
        *set = Complemented(DigitSet());
        break;
      case 's':
        *set = SpaceSet();
        break;
      case 'S':
        *set = Complemented(SpaceSet());
        break;
      case 'w':
        *set = WordSet(flags_.i);
        break;
      case 'W':
        *set = Complemented(WordSet(flags_.i));
        break;
      case 'p':
      case 'P':
        return ParseProperty(set);
      default:
        *is_set = false;
        return true;
    }
    pos_ += 2;
    return true;
  }

  // \p{Name=Value}, \p{NameOrValue}; pos_ at '\'.
  bool ParseProperty(CharSet* set) {
    size_t at = pos_;
    bool negated = Peek(1) == 'P';
    if (Peek(2) != '{') return Fail(at, "invalid property escape (\\p needs {...})");
    size_t i = pos_ + 3;
    std::string name, value;
    bool has_eq = false;
    while (i < p_.size() && p_[i] != '}') {
      char32_t c = p_[i];
      if (c == '=' && !has_eq) {
        has_eq = true;
      } else if (IsAsciiAlnum(c) || c == '_') {
        (has_eq ? value : name) += static_cast<char>(c);
      } else {
        return Fail(at, "invalid property escape");
      }
      ++i;
    }
    if (i >= p_.size()) return Fail(at, "unterminated property escape");
    std::string shown = std::string(negated ? "\\P{" : "\\p{") + name +
                        (has_eq ? "=" + value : std::string()) + "}";
    pos_ = i + 1;
    if (name.empty() || (has_eq && value.empty())) {
      return Fail(at, "invalid property escape " + shown);
    }
    if (flags_.i) {
      Refuse(at, shown + " under the i modifier",
             "has no RE2 meaning (ECMA and RE2 case-fold property sets differently)");
    }

    // Resolve to a gc mask, a script, or ranges.
    enum { kGc, kScript, kRangeSet, kUntranslatable } kind = kUntranslatable;
    uint32_t mask = 0;
    std::string script;
    std::vector<Range> ranges;
    auto find_gc = [&](std::string_view v) {
      for (const GcName& g : kGcNames) {
        if (v == g.name) {
          mask = g.mask;
          return true;
        }
      }
      return false;
    };
    if (has_eq) {
      if (name == "General_Category" || name == "gc") {
        if (!find_gc(value)) return Fail(at, "unknown General_Category value in " + shown);
        kind = kGc;
      } else if (name == "Script" || name == "sc" || name == "Script_Extensions" || name == "scx") {
        const ScriptName* s = FindScript(value);
        if (!s) return Fail(at, "unknown script in " + shown);
        if (name == "Script_Extensions" || name == "scx") {
          Refuse(at, shown, "has no RE2 meaning (RE2 has Script tables, not Script_Extensions)");
          kind = kUntranslatable;
        } else if (std::string_view(s->code) == "Hrkt") {
          kind = kRangeSet;  // empty
        } else if (translate_ && !RE2(std::string("\\p{") + s->name + "}", QuietOptions()).ok()) {
          Refuse(at, shown, "has no RE2 meaning (RE2 has no table for that script)");
          kind = kUntranslatable;
        } else {
          kind = kScript;
          script = s->name;
        }
      } else {
        return Fail(at, "unknown property name in " + shown);
      }
    } else if (find_gc(name)) {
      kind = kGc;
    } else {
      const BinaryProperty* b = nullptr;
      for (const BinaryProperty& p : BinaryProperties()) {
        if (name == p.name || (*p.alias && name == p.alias)) b = &p;
      }
      if (!b) return Fail(at, "unknown property in " + shown);
      if (!b->expressible) {
        Refuse(at, shown, "has no RE2 meaning (RE2 has no table for that property)");
        kind = kUntranslatable;
      } else if (std::string_view(b->name) == "Assigned") {
        kind = kGc;
        mask = kGcAll & ~(uint32_t{1} << kCn);
      } else {
        kind = kRangeSet;
        ranges.assign(b->ranges.begin(), b->ranges.end());
      }
    }

    *set = CharSet();
    if (kind == kUntranslatable || !translate_) return true;
    switch (kind) {
      case kGc:
        if (negated && !GcToken(mask).empty()) {
          set->props.push_back("\\P" + GcToken(mask).substr(2));  // \PL, \P{Lu}
        } else {
          *set = GcSet(negated ? kGcAll & ~mask : mask);
        }
        break;
      case kScript:
        set->props.push_back(std::string(negated ? "\\P{" : "\\p{") + script + "}");
        break;
      case kRangeSet:
        set->ranges = negated ? Complement(ranges) : Normalize(ranges);
        break;
      case kUntranslatable:
        break;
    }
    return true;
  }

  // CharacterEscape after '\' (pos_ at '\'), in a class or not: the code point.
  bool ParseCharacterEscape(char32_t* c, bool in_class) {
    size_t at = pos_;
    char32_t e = Peek(1);
    pos_ += 2;
    switch (e) {
      case 'f':
        *c = 0x0C;
        return true;
      case 'n':
        *c = 0x0A;
        return true;
      case 'r':
        *c = 0x0D;
        return true;
      case 't':
        *c = 0x09;
        return true;
      case 'v':
        *c = 0x0B;
        return true;
      case 'c': {
        char32_t l = Peek();
        if (!((l >= 'A' && l <= 'Z') || (l >= 'a' && l <= 'z'))) {
          return Fail(at, "invalid escape \\c (a letter must follow)");
        }
        ++pos_;
        *c = l % 32;
        return true;
      }
      case '0':
        if (IsDigit(Peek())) return Fail(at, "invalid escape \\0 followed by a digit");
        *c = 0;
        return true;
      case 'x': {
        if (!IsHex(Peek()) || !IsHex(Peek(1))) return Fail(at, "invalid escape \\x");
        *c = HexValue(Peek()) * 16 + HexValue(Peek(1));
        pos_ += 2;
        return true;
      }
      case 'u': {
        size_t i = pos_;
        if (!ScanUnicodeEscapeBody(i, c)) return Fail(at, "invalid escape \\u");
        pos_ = i;
        return true;
      }
      default:
        break;
    }
    // IdentityEscape: SyntaxCharacter and '/' (u-mode), '-' in a class (u-mode), any other
    // ASCII punctuation (Annex B).
    if (e != kNoChar &&
        (IsSyntaxChar(e) || e == '/' || (e > 0x20 && e < 0x7F && !IsAsciiAlnum(e)))) {
      *c = e;
      return true;
    }
    if (in_class && IsDigit(e)) return Fail(at, "invalid escape \\" + Show(e) + " in a class");
    return Fail(at, "invalid escape \\" + Show(e));
  }

  // --- CharacterClass: '[' '^'? ClassContents ']'

  struct ClassAtom {
    bool is_set = false;
    char32_t c = 0;
    CharSet set;
  };

  bool ParseClassAtom(ClassAtom* a) {
    char32_t c = Peek();
    if (c != '\\') {
      ++pos_;
      a->c = c;
      return true;
    }
    char32_t e = Peek(1);
    if (e == kNoChar) return Fail(pos_, "\\ at end of pattern");
    if (e == 'b') {
      pos_ += 2;
      a->c = 0x08;
      return true;
    }
    if (e == '-') {
      pos_ += 2;
      a->c = '-';
      return true;
    }
    if (!ParseSetEscape(&a->set, &a->is_set)) return false;
    if (a->is_set) return true;
    return ParseCharacterEscape(&a->c, true);
  }

  bool ParseClass(CharSet* set, bool* negated) {
    size_t at = pos_;
    ++pos_;
    if (Peek() == '^') {
      *negated = true;
      ++pos_;
    }
    for (;;) {
      if (AtEnd()) return Fail(at, "unterminated character class");
      if (Peek() == ']') {
        ++pos_;
        break;
      }
      size_t atom_at = pos_;
      ClassAtom a;
      if (!ParseClassAtom(&a)) return false;
      if (Peek() == '-' && Peek(1) != ']' && Peek(1) != kNoChar) {
        size_t dash = pos_;
        ++pos_;
        ClassAtom b;
        if (!ParseClassAtom(&b)) return false;
        if (a.is_set || b.is_set) return Fail(dash, "character class escape as a range end");
        if (a.c > b.c) {
          return Fail(atom_at, "range out of order " + Show(a.c) + "-" + Show(b.c));
        }
        set->Add(a.c, b.c);
      } else if (a.is_set) {
        set->Add(a.set);
      } else {
        set->Add(a.c, a.c);
      }
    }
    return true;
  }

  const std::u32string& p_;
  const bool translate_;
  size_t pos_ = 0;
  int depth_ = 0;
  Flags flags_;
  bool uses_not_boundary_ = false;
  int group_count_ = 0;
  std::set<std::u32string> names_;  // from the prescan
  // Each group name: the alternative paths of the groups that have it.
  std::map<std::u32string, std::vector<std::vector<std::pair<int, int>>>> named_;
  std::vector<std::pair<int, int>> alt_path_;  // (disjunction, alternative) from the root
  int next_disjunction_ = 0;
  std::string out_, error_, refusal_;
};

// Strict UTF-8 (no overlongs, surrogates or values past U+10FFFF). False with the byte
// offset of the first bad sequence.
bool DecodeUtf8(std::string_view s, std::u32string* out, size_t* bad) {
  out->clear();
  out->reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    char32_t c;
    int n;
    if (b < 0x80) {
      c = b;
      n = 0;
    } else if (b >= 0xC2 && b <= 0xDF) {
      c = b & 0x1F;
      n = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      c = b & 0x0F;
      n = 2;
    } else if (b >= 0xF0 && b <= 0xF4) {
      c = b & 0x07;
      n = 3;
    } else {
      *bad = i;
      return false;
    }
    for (int k = 1; k <= n; ++k) {
      if (i + k >= s.size()) {
        *bad = i;
        return false;
      }
      unsigned char cb = static_cast<unsigned char>(s[i + k]);
      if ((cb & 0xC0) != 0x80) {
        *bad = i;
        return false;
      }
      c = (c << 6) | (cb & 0x3F);
    }
    if ((n == 2 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) ||
        (n == 3 && (c < 0x10000 || c > kMaxCodePoint))) {
      *bad = i;
      return false;
    }
    out->push_back(c);
    i += n + 1;
  }
  return true;
}

// 0: translated; 1: not ECMA-262; 2: ECMA-262 that RE2 cannot express.
int Run(std::string_view ecma, bool translate, std::string* re2_pattern, std::string* error) {
  std::u32string p;
  size_t bad = 0;
  if (!DecodeUtf8(ecma, &p, &bad)) {
    if (error) *error = "not ECMA-262: invalid UTF-8 at byte " + std::to_string(bad);
    return 1;
  }
  Parser parser(p, translate);
  if (!parser.Run()) {
    if (error) *error = parser.error();
    return 1;
  }
  if (!parser.refusal().empty()) {
    if (error) *error = parser.refusal();
    return 2;
  }
  if (re2_pattern) *re2_pattern = std::move(parser.output());
  return 0;
}

}  // namespace

bool TranslateEcmaRegex(std::string_view ecma, std::string* re2_pattern, std::string* error) {
  return Run(ecma, true, re2_pattern, error) == 0;
}

std::unique_ptr<re2::RE2> CompileEcmaRegex(std::string_view ecma, std::string* error) {
  return CompileEcmaRegex(ecma, error, kEcmaRegexMaxMem);
}

std::unique_ptr<re2::RE2> CompileEcmaRegex(std::string_view ecma, std::string* error,
                                           int64_t max_mem) {
  std::string translated;
  if (!TranslateEcmaRegex(ecma, &translated, error)) return nullptr;
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_posix_syntax(false);
  options.set_longest_match(false);
  options.set_case_sensitive(true);
  options.set_never_nl(false);
  options.set_dot_nl(false);
  options.set_log_errors(false);
  options.set_max_mem(max_mem);
  auto re = std::make_unique<re2::RE2>(translated, options);
  if (!re->ok()) {
    if (error) {
      if (re->error_code() == RE2::ErrorPatternTooLarge) {
        *error = "pattern too large for RE2's memory budget of " + std::to_string(max_mem >> 10) +
                 " KiB";
      } else {
        *error = "RE2 rejected the translation: " + re->error();
      }
    }
    return nullptr;
  }
  return re;
}

bool IsEcmaRegex(std::string_view pattern) { return IsEcmaRegex(pattern, nullptr); }

bool IsEcmaRegex(std::string_view pattern, std::string* error) {
  return Run(pattern, false, nullptr, error) != 1;
}

bool RegexSearch(const re2::RE2& re, std::string_view text) {
  // Match with no submatches, not PartialMatch: that goes through DoMatch's argument
  // handling first, a quarter of a short string's search.
  return re.Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED,
                  nullptr, 0);
}

}  // namespace rosetta::codec::schema
