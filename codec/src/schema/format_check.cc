#include "schema/format_check.h"

#include <idn2.h>
#include <unictype.h>
#include <uninorm.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>

#include "schema/regex.h"

namespace rosetta::codec::schema {
namespace {

enum Format : uint8_t {
  kNone,
  kDateTime,
  kDate,
  kTime,
  kDuration,
  kEmail,
  kIdnEmail,
  kHostname,
  kHostnameRfc1034,
  kIdnHostname,
  kIpv4,
  kIpv6,
  kUri,
  kUriReference,
  kIri,
  kIriReference,
  kUriTemplate,
  kUuid,
  kJsonPointer,
  kRelativeJsonPointer,
  kRelativeJsonPointer2020,
  kRegex,
};

struct FormatName {
  std::string_view name;
  Format id;
  Draft since, until;  // the drafts that define it so
};

constexpr FormatName kFormats[] = {
    {"date-time", kDateTime, Draft::k4, Draft::k2020},
    {"email", kEmail, Draft::k4, Draft::k2020},
    // Drafts 4 and 6: "as defined by RFC 1034, section 3.1" (LDH labels; the suite, like
    // RFC 1123, takes a leading digit); draft 7 adds A-labels (RFC 5891 4.4).
    {"hostname", kHostnameRfc1034, Draft::k4, Draft::k6},
    {"hostname", kHostname, Draft::k7, Draft::k2020},
    {"ipv4", kIpv4, Draft::k4, Draft::k2020},
    {"ipv6", kIpv6, Draft::k4, Draft::k2020},
    {"uri", kUri, Draft::k4, Draft::k2020},
    {"uri-reference", kUriReference, Draft::k6, Draft::k2020},
    {"uri-template", kUriTemplate, Draft::k6, Draft::k2020},
    {"json-pointer", kJsonPointer, Draft::k6, Draft::k2020},
    {"date", kDate, Draft::k7, Draft::k2020},
    {"time", kTime, Draft::k7, Draft::k2020},
    {"idn-email", kIdnEmail, Draft::k7, Draft::k2020},
    {"idn-hostname", kIdnHostname, Draft::k7, Draft::k2020},
    {"iri", kIri, Draft::k7, Draft::k2020},
    {"iri-reference", kIriReference, Draft::k7, Draft::k2020},
    // draft-handrews-relative-json-pointer-01/02; 2020-12's draft-bhutton-...-00 adds an
    // index manipulation ("0+1", "1-1/a").
    {"relative-json-pointer", kRelativeJsonPointer, Draft::k7, Draft::k2019},
    {"relative-json-pointer", kRelativeJsonPointer2020, Draft::k2020, Draft::k2020},
    {"regex", kRegex, Draft::k7, Draft::k2020},
    {"duration", kDuration, Draft::k2019, Draft::k2020},
    {"uuid", kUuid, Draft::k2019, Draft::k2020},
};

// ASCII character classes (RFC 3986 2.2-2.3, RFC 5322 atext, RFC 6570 literals).
enum : uint16_t {
  kAlpha = 1 << 0,
  kDigit = 1 << 1,
  kHex = 1 << 2,
  kUnreserved = 1 << 3,  // ALPHA DIGIT - . _ ~
  kSubDelim = 1 << 4,    // ! $ & ' ( ) * + , ; =
  kColon = 1 << 5,
  kAt = 1 << 6,
  kSlash = 1 << 7,
  kQuestion = 1 << 8,
  kAtext = 1 << 9,
  kTemplateLiteral = 1 << 10,  // RFC 6570 2.1 literals, but for '%' (pct-encoded)
  kLdh = 1 << 11,              // letter, digit, hyphen
};
constexpr uint16_t kPchar = kUnreserved | kSubDelim | kColon | kAt;

constexpr auto kClass = [] {
  std::array<uint16_t, 128> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] |= kAlpha | kUnreserved | kAtext | kLdh;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] |= kAlpha | kUnreserved | kAtext | kLdh;
  for (int c = '0'; c <= '9'; ++c) t[c] |= kDigit | kHex | kUnreserved | kAtext | kLdh;
  for (int c = 'a'; c <= 'f'; ++c) t[c] |= kHex;
  for (int c = 'A'; c <= 'F'; ++c) t[c] |= kHex;
  for (char c : std::string_view("-._~")) t[c] |= kUnreserved;
  for (char c : std::string_view("!$&'()*+,;=")) t[c] |= kSubDelim;
  t[':'] |= kColon;
  t['@'] |= kAt;
  t['/'] |= kSlash;
  t['?'] |= kQuestion;
  t['-'] |= kLdh;
  for (char c : std::string_view("!#$%&'*+-/=?^_`{|}~")) t[c] |= kAtext;
  // %x21 / %x23-24 / %x26-3B / %x3D / %x3F-5B / %x5D / %x5F / %x61-7A / %x7E: with "'", as
  // the verified errata 6937 has it (the RFC's "%x26 / %x28-3B" left it out).
  auto lit = [&t](int from, int to) {
    for (int c = from; c <= to; ++c) t[c] |= kTemplateLiteral;
  };
  lit(0x21, 0x21), lit(0x23, 0x24), lit(0x26, 0x3B), lit(0x3D, 0x3D), lit(0x3F, 0x5B);
  lit(0x5D, 0x5D), lit(0x5F, 0x5F), lit(0x61, 0x7A), lit(0x7E, 0x7E);
  return t;
}();

inline bool Is(char c, uint16_t mask) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x80 && (kClass[u] & mask);
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

// The code point of the UTF-8 sequence at s[i]: its length, 0 when it is malformed
// (overlong, a surrogate, past U+10FFFF, cut short).
size_t DecodeUtf8(std::string_view s, size_t i, char32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  size_t len;
  char32_t c, min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, c = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, c = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, c = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() - i < len) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    c = (c << 6) | (b & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *cp = c;
  return len;
}

// Appends cp as UTF-8 at out.
size_t EncodeUtf8(char32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

// RFC 3987 ucschar and iprivate.
bool IsUcschar(char32_t c) {
  if (c < 0x10000) {
    return (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xF900 && c <= 0xFDCF) ||
           (c >= 0xFDF0 && c <= 0xFFEF);
  }
  if ((c & 0xFFFF) > 0xFFFD) return false;
  return c < 0xE0000 || (c >= 0xE1000 && c < 0xF0000);
}
bool IsIprivate(char32_t c) {
  return (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xF0000 && (c & 0xFFFF) <= 0xFFFD);
}

// ---------------------------------------------------------------------------------------------
// Dates and times: RFC 3339 section 5.6 and appendix A.

// The value of n digits at p; -1 when one is not a digit.
int Digits(const char* p, int n) {
  int v = 0;
  for (int k = 0; k < n; ++k) {
    if (!IsDigit(p[k])) return -1;
    v = v * 10 + (p[k] - '0');
  }
  return v;
}

bool CheckDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  const int year = Digits(s.data(), 4), month = Digits(s.data() + 5, 2),
            day = Digits(s.data() + 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  return day <= kDays[month - 1] + (month == 2 && leap);
}

// full-time = partial-time time-offset; a leap second (:60) only at 23:59 UTC.
bool CheckTime(std::string_view s) {
  if (s.size() < 9 || s[2] != ':' || s[5] != ':') return false;
  const int hour = Digits(s.data(), 2), minute = Digits(s.data() + 3, 2),
            second = Digits(s.data() + 6, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
    return false;
  }
  size_t i = 8;
  if (s[i] == '.') {
    const size_t start = ++i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
  }
  if (i == s.size()) return false;
  int offset = 0;  // minutes east of UTC
  if (s[i] == 'Z' || s[i] == 'z') {
    ++i;
  } else if (s[i] == '+' || s[i] == '-') {
    if (s.size() - i != 6 || s[i + 3] != ':') return false;
    const int oh = Digits(s.data() + i + 1, 2), om = Digits(s.data() + i + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return false;
    offset = (s[i] == '+' ? 1 : -1) * (oh * 60 + om);
    i += 6;
  } else {
    return false;
  }
  if (i != s.size()) return false;
  if (second == 60) {
    const int utc = ((hour * 60 + minute - offset) % 1440 + 1440) % 1440;
    if (utc != 23 * 60 + 59) return false;
  }
  return true;
}

bool CheckDateTime(std::string_view s) {
  return s.size() > 11 && (s[10] == 'T' || s[10] == 't') && CheckDate(s.substr(0, 10)) &&
         CheckTime(s.substr(11));
}

// duration = "P" (dur-date / dur-time / dur-week): years, months, days in that order, each
// after the one before it (Y M D, Y M, M D, ...), then "T" and hours, minutes, seconds the same
// way; or weeks alone. Designators in either case (RFC 5234 2.3).
bool CheckDuration(std::string_view s) {
  const size_t n = s.size();
  if (n < 3 || (s[0] != 'P' && s[0] != 'p')) return false;
  size_t i = 1;
  bool time = false;  // after "T"
  int last = -1;      // the index of the last unit in its part: Y M D, or H M S
  int in_part = 0;    // units in the current part
  int total = 0;      // units in all
  while (i < n) {
    if (s[i] == 'T' || s[i] == 't') {
      if (time) return false;
      time = true, last = -1, in_part = 0, ++i;
      continue;
    }
    const size_t start = i;
    while (i < n && IsDigit(s[i])) ++i;
    if (i == start || i == n) return false;
    const char unit = static_cast<char>(s[i++] & ~0x20);  // upper case
    if (unit == 'W') {
      if (time || total != 0 || i != n) return false;
      return true;
    }
    static constexpr std::string_view kDateUnits = "YMD", kTimeUnits = "HMS";
    const size_t at = (time ? kTimeUnits : kDateUnits).find(unit);
    if (at == std::string_view::npos) return false;
    if (last >= 0 && static_cast<int>(at) != last + 1) return false;
    last = static_cast<int>(at), ++in_part, ++total;
  }
  return total > 0 && (!time || in_part > 0);
}

// ---------------------------------------------------------------------------------------------
// IP addresses.

// dotted-quad: four decimal octets 0-255, without leading zeros.
bool CheckIpv4(std::string_view s) {
  size_t i = 0;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (i == s.size() || s[i] != '.') return false;
      ++i;
    }
    const size_t start = i;
    int v = 0;
    while (i < s.size() && IsDigit(s[i]) && i - start < 3) v = v * 10 + (s[i++] - '0');
    if (i == start || v > 255 || (s[start] == '0' && i - start > 1)) return false;
  }
  return i == s.size();
}

// RFC 4291 2.2: eight groups of 1-4 hex digits, the last two of which may be a dotted quad;
// one "::" stands for one or more groups of zeros.
bool CheckIpv6(std::string_view s) {
  const size_t n = s.size();
  size_t i = 0;
  int groups = 0;
  bool compressed = false;
  if (n >= 2 && s[0] == ':' && s[1] == ':') {
    compressed = true, i = 2;
    if (i == n) return true;
  }
  while (true) {
    const size_t start = i;
    while (i < n && Is(s[i], kHex)) ++i;
    if (i < n && s[i] == '.') {  // the dotted quad ends the address
      if (groups > 6 || !CheckIpv4(s.substr(start))) return false;
      groups += 2;
      break;
    }
    if (i == start || i - start > 4) return false;
    ++groups;
    if (i == n) break;
    if (s[i] != ':') return false;
    if (++i == n) return false;  // a trailing single ':'
    if (s[i] == ':') {
      if (compressed) return false;
      compressed = true;
      if (++i == n) break;
    }
    if (groups >= 8) return false;
  }
  return compressed ? groups <= 7 : groups == 8;
}

// ---------------------------------------------------------------------------------------------
// Host names: RFC 1123 2.1 and IDNA2008 (RFC 5890-5893).

// Punycode (RFC 3492 6.2) of the ASCII in `in`, into out[0, *len) (capacity cap): false when
// it is not valid Punycode, when a delta yields a basic code point, or on overflow.
bool PunycodeDecode(std::string_view in, char32_t* out, size_t cap, size_t* len) {
  constexpr uint32_t kBase = 36, kTMin = 1, kTMax = 26, kSkew = 38, kDamp = 700;
  constexpr uint32_t kMax = 0x10FFFF;
  size_t n_out = 0;
  size_t b = in.rfind('-');
  size_t pos = 0;
  if (b != std::string_view::npos) {
    if (b > cap) return false;
    for (size_t k = 0; k < b; ++k) {
      const auto c = static_cast<unsigned char>(in[k]);
      if (c >= 0x80) return false;
      out[n_out++] = c;
    }
    pos = b + 1;
  }
  uint32_t n = 128, bias = 72;
  uint64_t i = 0;
  auto adapt = [](uint64_t delta, uint64_t points, bool first) {
    delta = first ? delta / kDamp : delta / 2;
    delta += delta / points;
    uint32_t k = 0;
    while (delta > ((kBase - kTMin) * kTMax) / 2) delta /= kBase - kTMin, k += kBase;
    return static_cast<uint32_t>(k + (kBase - kTMin + 1) * delta / (delta + kSkew));
  };
  while (pos < in.size()) {
    const uint64_t old_i = i;
    uint64_t w = 1;
    for (uint32_t k = kBase;; k += kBase) {
      if (pos >= in.size()) return false;
      const char c = in[pos++];
      uint32_t digit;
      if (c >= '0' && c <= '9') {
        digit = static_cast<uint32_t>(c - '0' + 26);
      } else if (c >= 'a' && c <= 'z') {
        digit = static_cast<uint32_t>(c - 'a');
      } else if (c >= 'A' && c <= 'Z') {
        digit = static_cast<uint32_t>(c - 'A');
      } else {
        return false;
      }
      i += digit * w;
      if (i > (uint64_t{1} << 40)) return false;
      const uint32_t t = k <= bias ? kTMin : k >= bias + kTMax ? kTMax : k - bias;
      if (digit < t) break;
      w *= kBase - t;
      if (w > (uint64_t{1} << 40)) return false;
    }
    const uint64_t points = n_out + 1;
    bias = adapt(i - old_i, points, old_i == 0);
    const uint64_t next = n + i / points;
    if (next > kMax) return false;
    n = static_cast<uint32_t>(next);
    i %= points;
    if (n < 0x80 || (n >= 0xD800 && n <= 0xDFFF) || n_out == cap) return false;
    std::memmove(out + i + 1, out + i, (n_out - i) * sizeof(char32_t));
    out[i++] = n;
    ++n_out;
  }
  *len = n_out;
  return true;
}

// RFC 5893 section 2, rules 1-6, for one label of a Bidi domain name.
bool BidiRuleHolds(const char32_t* cp, size_t n) {
  const int first = uc_bidi_category(cp[0]);
  const bool rtl = first == UC_BIDI_R || first == UC_BIDI_AL;
  if (!rtl && first != UC_BIDI_L) return false;
  size_t end = n;
  while (end > 0 && uc_bidi_category(cp[end - 1]) == UC_BIDI_NSM) --end;
  if (end == 0) return false;
  const int last = uc_bidi_category(cp[end - 1]);
  bool en = false, an = false;
  for (size_t k = 0; k < n; ++k) {
    switch (uc_bidi_category(cp[k])) {
      case UC_BIDI_EN:
        en = true;
        break;
      case UC_BIDI_AN:
        if (!rtl) return false;
        an = true;
        break;
      case UC_BIDI_R:
      case UC_BIDI_AL:
        if (!rtl) return false;
        break;
      case UC_BIDI_L:
        if (rtl) return false;
        break;
      case UC_BIDI_ES:
      case UC_BIDI_CS:
      case UC_BIDI_ET:
      case UC_BIDI_ON:
      case UC_BIDI_BN:
      case UC_BIDI_NSM:
        break;
      default:
        return false;
    }
  }
  if (rtl) {
    return (last == UC_BIDI_R || last == UC_BIDI_AL || last == UC_BIDI_EN || last == UC_BIDI_AN) &&
           !(en && an);
  }
  return last == UC_BIDI_L || last == UC_BIDI_EN;
}

// RFC 5892 appendix A.3-A.9, the CONTEXTO rules: libidn2 checks that a CONTEXTO code point
// has a rule (TEST_CONTEXTO_WITH_RULE), not the rule itself.
bool ContextORulesHold(const char32_t* cp, size_t n) {
  static const uc_script_t* const greek = uc_script_byname("Greek");
  static const uc_script_t* const hebrew = uc_script_byname("Hebrew");
  static const uc_script_t* const hiragana = uc_script_byname("Hiragana");
  static const uc_script_t* const katakana = uc_script_byname("Katakana");
  static const uc_script_t* const han = uc_script_byname("Han");
  bool arabic_indic = false, extended_arabic_indic = false, katakana_dot = false, kana = false;
  for (size_t k = 0; k < n; ++k) {
    const char32_t c = cp[k];
    if (c < 0xB7) continue;
    switch (c) {
      case 0x00B7:  // MIDDLE DOT: between two 'l'
        if (k == 0 || k + 1 == n || cp[k - 1] != 'l' || cp[k + 1] != 'l') return false;
        continue;
      case 0x0375:  // GREEK LOWER NUMERAL SIGN (KERAIA): before a Greek character
        if (k + 1 == n || !uc_is_script(cp[k + 1], greek)) return false;
        continue;
      case 0x05F3:  // HEBREW PUNCTUATION GERESH, GERSHAYIM: after a Hebrew character
      case 0x05F4:
        if (k == 0 || !uc_is_script(cp[k - 1], hebrew)) return false;
        continue;
      case 0x30FB:  // KATAKANA MIDDLE DOT: with a Hiragana, Katakana or Han character
        katakana_dot = true;
        continue;
      default:
        break;
    }
    arabic_indic |= c >= 0x0660 && c <= 0x0669;
    extended_arabic_indic |= c >= 0x06F0 && c <= 0x06F9;
    kana |= uc_is_script(c, hiragana) || uc_is_script(c, katakana) || uc_is_script(c, han);
  }
  return !(arabic_indic && extended_arabic_indic) && (!katakana_dot || kana);
}

// The labels of a domain name as code points (U-labels for A-labels), for the Bidi rule.
struct Labels {
  static constexpr size_t kMaxCodePoints = 256, kMaxLabels = 128;
  char32_t cp[kMaxCodePoints];
  uint16_t end[kMaxLabels];  // where each label's code points end
  size_t count = 0;
  size_t size = 0;
  bool rtl = false;  // some label has an R, AL or AN character: a Bidi domain name

  bool Add(char32_t c) {
    if (size == kMaxCodePoints) return false;
    if (c >= 0x80 && !rtl) {
      const int bidi = uc_bidi_category(c);
      rtl = bidi == UC_BIDI_R || bidi == UC_BIDI_AL || bidi == UC_BIDI_AN;
    }
    cp[size++] = c;
    return true;
  }
  bool EndLabel() {
    if (count == kMaxLabels) return false;
    end[count++] = static_cast<uint16_t>(size);
    return true;
  }
};

// A U-label's checks (RFC 5891 5.4: NFC, hyphens, a leading combining mark, the code points'
// IDNA2008 categories, CONTEXTJ and CONTEXTO) by libidn2, without mapping (no TR46). Its
// A-label's length in *alabel_len, "xn--" included; when expect is not empty, the A-label
// must equal it (a round trip, RFC 5891 5.2).
bool ULabelValid(const char32_t* cp, size_t n, std::string_view expect, size_t* alabel_len) {
  char utf8[Labels::kMaxCodePoints * 4 + 1];
  size_t len = 0;
  for (size_t k = 0; k < n; ++k) {
    if (cp[k] == 0) return false;
    len += EncodeUtf8(cp[k], utf8 + len);
  }
  utf8[len] = '\0';
  if (!ContextORulesHold(cp, n)) return false;
  uint8_t* alabel = nullptr;
  const int rc = idn2_lookup_u8(reinterpret_cast<const uint8_t*>(utf8), &alabel, IDN2_NO_TR46);
  if (rc != IDN2_OK) return false;
  const size_t alen = std::strlen(reinterpret_cast<const char*>(alabel));
  const bool same =
      expect.empty() || std::string_view(reinterpret_cast<char*>(alabel), alen) == expect;
  idn2_free(alabel);
  *alabel_len = alen;
  return same && alen <= 63;
}

// One label, without its dot (U-labels only where `unicode`; "xn--" ones valid A-labels only
// where `idna`): adds its code points to *labels, its length in the A-label form to
// *alabel_len.
bool CheckLabel(std::string_view label, bool unicode, bool idna, Labels* labels,
                size_t* alabel_len) {
  bool ascii = true;
  for (char c : label) ascii &= static_cast<unsigned char>(c) < 0x80;
  if (ascii) {
    if (label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!Is(c, kLdh)) return false;
    }
    *alabel_len = label.size();
    if (idna && label.size() >= 4 && Lower(label[0]) == 'x' && Lower(label[1]) == 'n' &&
        label[2] == '-' && label[3] == '-') {
      // An A-label: Punycode for a valid U-label that is not all ASCII, and whose A-label
      // is this one (case aside).
      char lower[64];
      for (size_t k = 0; k < label.size(); ++k) lower[k] = Lower(label[k]);
      const std::string_view alabel(lower, label.size());
      char32_t cp[64];
      size_t n = 0;
      if (!PunycodeDecode(alabel.substr(4), cp, 64, &n)) return false;
      bool any_non_ascii = false;
      for (size_t k = 0; k < n; ++k) any_non_ascii |= cp[k] >= 0x80;
      size_t len;
      if (!any_non_ascii || !ULabelValid(cp, n, alabel, &len)) return false;
      for (size_t k = 0; k < n; ++k) {
        if (!labels->Add(cp[k])) return false;
      }
      return labels->EndLabel();
    }
    for (char c : label) {
      if (!labels->Add(static_cast<unsigned char>(c))) return false;
    }
    return labels->EndLabel();
  }
  if (!unicode) return false;
  // A U-label: at least a code point and four octets of Punycode each, and "xn--".
  if (label.size() > 59 * 4) return false;
  const size_t start = labels->size;
  for (size_t i = 0; i < label.size();) {
    char32_t c;
    const size_t len = DecodeUtf8(label, i, &c);
    if (len == 0 || !labels->Add(c)) return false;
    i += len;
  }
  const size_t n = labels->size - start;
  if (labels->cp[start] == '-' || labels->cp[labels->size - 1] == '-') return false;
  return ULabelValid(labels->cp + start, n, {}, alabel_len) && labels->EndLabel();
}

// The length of the label separator at s[i]: 1 for '.', 3 for U+3002, U+FF0E and U+FF61
// (where `ideographic`), else 0.
size_t SeparatorAt(std::string_view s, size_t i, bool ideographic) {
  if (s[i] == '.') return 1;
  if (!ideographic || s.size() - i < 3) return 0;
  const auto b0 = static_cast<unsigned char>(s[i]), b1 = static_cast<unsigned char>(s[i + 1]),
             b2 = static_cast<unsigned char>(s[i + 2]);
  if (b0 == 0xE3 && b1 == 0x80 && b2 == 0x82) return 3;                            // U+3002
  if (b0 == 0xEF && ((b1 == 0xBC && b2 == 0x8E) || (b1 == 0xBD && b2 == 0xA1))) {  // FF0E FF61
    return 3;
  }
  return 0;
}

// A host name: ASCII labels, "xn--" ones valid A-labels (where `idna`), and U-labels where
// `unicode`; '.' between them, or where `ideographic` also U+3002, U+FF0E and U+FF61.
bool CheckDomain(std::string_view s, bool unicode, bool ideographic, bool idna = true) {
  if (s.empty()) return false;
  Labels labels;
  size_t total = 0;  // in the A-label form, dots included
  size_t start = 0;
  for (size_t i = 0;; ++i) {
    const size_t sep = i == s.size() ? 1 : SeparatorAt(s, i, ideographic);
    if (sep == 0) continue;
    if (i == start) return false;  // an empty label
    size_t len;
    if (!CheckLabel(s.substr(start, i - start), unicode, idna, &labels, &len)) return false;
    total += len + (start > 0);
    if (total > 253) return false;
    if (i == s.size()) break;
    i += sep - 1;
    start = i + 1;
  }
  if (labels.rtl) {  // RFC 5893 section 2: every label of a Bidi domain name
    for (size_t k = 0, from = 0; k < labels.count; from = labels.end[k++]) {
      if (!BidiRuleHolds(labels.cp + from, labels.end[k] - from)) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// E-mail addresses: RFC 5321 4.1.2 Mailbox; RFC 6531 3.3 for idn-email.

bool CheckEmail(std::string_view s, bool idn) {
  const size_t n = s.size();
  size_t i = 0;
  auto non_ascii = [&](size_t at) -> size_t {
    char32_t c;
    return idn ? DecodeUtf8(s, at, &c) : 0;
  };
  if (n > 0 && s[0] == '"') {  // Quoted-string
    for (i = 1;;) {
      if (i == n) return false;
      const auto c = static_cast<unsigned char>(s[i]);
      if (c == '"') break;
      if (c == '\\') {  // quoted-pairSMTP: %d92 %d32-126
        if (i + 1 == n || s[i + 1] < 32 || s[i + 1] > 126) return false;
        i += 2;
      } else if (c >= 32 && c <= 126) {  // qtextSMTP: all but '"' and '\'
        ++i;
      } else if (size_t len = c >= 0x80 ? non_ascii(i) : 0) {
        i += len;
      } else {
        return false;
      }
    }
    ++i;
  } else {  // Dot-string: Atom *("." Atom)
    bool atom = false;
    for (; i < n && s[i] != '@'; ++i) {
      if (s[i] == '.') {
        if (!atom) return false;
        atom = false;
      } else if (Is(s[i], kAtext)) {
        atom = true;
      } else if (size_t len = static_cast<unsigned char>(s[i]) >= 0x80 ? non_ascii(i) : 0) {
        atom = true, i += len - 1;
      } else {
        return false;
      }
    }
    if (!atom) return false;
  }
  if (i > 64 || i == n || s[i] != '@') return false;  // RFC 5321 4.5.3.1.1: 64 octets
  const std::string_view domain = s.substr(i + 1);
  if (!domain.empty() && domain.front() == '[') {  // address-literal
    if (domain.back() != ']') return false;
    const std::string_view literal = domain.substr(1, domain.size() - 2);
    if (literal.size() > 5 && Lower(literal[0]) == 'i' && Lower(literal[1]) == 'p' &&
        Lower(literal[2]) == 'v' && literal[3] == '6' && literal[4] == ':') {
      return CheckIpv6(literal.substr(5));
    }
    return CheckIpv4(literal);
  }
  if (!idn) return CheckDomain(domain, false, false);
  bool ascii = true;
  for (char c : domain) ascii &= static_cast<unsigned char>(c) < 0x80;
  if (ascii) return CheckDomain(domain, true, false);
  // RFC 6531 3.3: sub-domain =/ U-label, which IDNA2008 has in NFC (RFC 5891 5.2); the suite
  // takes a domain that is not as valid, so it is normalized here first.
  size_t len = 0;
  uint8_t* nfc = u8_normalize(UNINORM_NFC, reinterpret_cast<const uint8_t*>(domain.data()),
                              domain.size(), nullptr, &len);
  if (nfc == nullptr) return false;
  const bool ok = CheckDomain(std::string_view(reinterpret_cast<char*>(nfc), len), true, false);
  std::free(nfc);
  return ok;
}

// ---------------------------------------------------------------------------------------------
// URIs (RFC 3986) and IRIs (RFC 3987).

// Whether s[from, to) is all ASCII characters of `mask` and pct-encoded triplets, and for an
// IRI ucschar (and iprivate where `priv`).
bool AllOf(std::string_view s, size_t from, size_t to, uint16_t mask, bool iri, bool priv) {
  for (size_t i = from; i < to;) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == '%') {
        if (to - i < 3 || !Is(s[i + 1], kHex) || !Is(s[i + 2], kHex)) return false;
        i += 3;
      } else if (kClass[c] & mask) {
        ++i;
      } else {
        return false;
      }
      continue;
    }
    char32_t cp;
    const size_t len = iri ? DecodeUtf8(s, i, &cp) : 0;
    if (len == 0 || to - i < len || !(IsUcschar(cp) || (priv && IsIprivate(cp)))) return false;
    i += len;
  }
  return true;
}

// authority = [ userinfo "@" ] host [ ":" port ]
bool CheckAuthority(std::string_view a, bool iri) {
  if (const size_t at = a.find('@'); at != std::string_view::npos) {
    if (!AllOf(a, 0, at, kUnreserved | kSubDelim | kColon, iri, false)) return false;
    a.remove_prefix(at + 1);
  }
  size_t host_end;
  if (!a.empty() && a[0] == '[') {  // IP-literal = "[" ( IPv6address / IPvFuture ) "]"
    const size_t close = a.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view inner = a.substr(1, close - 1);
    if (!inner.empty() && (inner[0] == 'v' || inner[0] == 'V')) {
      // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
      size_t i = 1;
      while (i < inner.size() && Is(inner[i], kHex)) ++i;
      if (i == 1 || i == inner.size() || inner[i] != '.' || i + 1 == inner.size() ||
          !AllOf(inner, i + 1, inner.size(), kUnreserved | kSubDelim | kColon, false, false)) {
        return false;
      }
    } else if (!CheckIpv6(inner)) {
      return false;
    }
    host_end = close + 1;
  } else {  // IPv4address or reg-name: the latter takes the former
    host_end = std::min(a.find(':'), a.size());
    if (!AllOf(a, 0, host_end, kUnreserved | kSubDelim, iri, false)) return false;
  }
  if (host_end == a.size()) return true;
  if (a[host_end] != ':') return false;
  for (size_t i = host_end + 1; i < a.size(); ++i) {
    if (!IsDigit(a[i])) return false;
  }
  return true;
}

// URI (or URI-reference where `reference`), IRI (IRI-reference) where `iri`.
bool CheckUri(std::string_view s, bool iri, bool reference) {
  const size_t n = s.size();
  size_t i = 0;
  bool scheme = false;  // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
  if (n > 0 && Is(s[0], kAlpha)) {
    size_t j = 1;
    while (j < n && (Is(s[j], kAlpha | kDigit) || s[j] == '+' || s[j] == '-' || s[j] == '.')) ++j;
    if (j < n && s[j] == ':') scheme = true, i = j + 1;
  }
  if (!scheme && !reference) return false;
  const size_t path_end = std::min(s.find_first_of("?#", i), n);
  if (path_end - i >= 2 && s[i] == '/' && s[i + 1] == '/') {  // "//" authority path-abempty
    const size_t end = std::min(s.find_first_of("/?#", i + 2), n);
    if (!CheckAuthority(s.substr(i + 2, end - i - 2), iri)) return false;
    i = end;
  } else if (!scheme) {  // path-noscheme: no ':' in the first segment
    const size_t end = std::min(s.find('/', i), path_end);
    if (!AllOf(s, i, end, kUnreserved | kSubDelim | kAt, iri, false)) return false;
    i = end;
  }
  if (!AllOf(s, i, path_end, kPchar | kSlash, iri, false)) return false;
  i = path_end;
  if (i < n && s[i] == '?') {
    const size_t end = std::min(s.find('#', i), n);
    if (!AllOf(s, i + 1, end, kPchar | kSlash | kQuestion, iri, true)) return false;
    i = end;
  }
  if (i < n && s[i] == '#') return AllOf(s, i + 1, n, kPchar | kSlash | kQuestion, iri, false);
  return true;
}

// ---------------------------------------------------------------------------------------------
// URI Templates: RFC 6570 2.

// expression = "{" [ operator ] variable-list "}", without its braces.
bool CheckExpression(std::string_view e) {
  const size_t n = e.size();
  size_t i = 0;
  if (n > 0 && std::string_view("+#./;?&=,!@|").find(e[0]) != std::string_view::npos) ++i;
  while (true) {
    // varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded
    bool need = true;  // a varchar must come next
    while (i < n) {
      if (Is(e[i], kAlpha | kDigit) || e[i] == '_') {
        ++i;
      } else if (e[i] == '%' && n - i >= 3 && Is(e[i + 1], kHex) && Is(e[i + 2], kHex)) {
        i += 3;
      } else if (e[i] == '.' && !need) {
        ++i, need = true;
        continue;
      } else {
        break;
      }
      need = false;
    }
    if (need) return false;
    if (i < n && e[i] == '*') {  // explode
      ++i;
    } else if (i < n && e[i] == ':') {  // prefix: max-length = %x31-39 0*3DIGIT
      const size_t start = ++i;
      if (i == n || e[i] < '1' || e[i] > '9') return false;
      while (i < n && IsDigit(e[i])) ++i;
      if (i - start > 4) return false;
    }
    if (i == n) return true;
    if (e[i++] != ',') return false;
  }
}

bool CheckUriTemplate(std::string_view s) {
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '{') {
      const size_t close = s.find('}', i + 1);
      if (close == std::string_view::npos || !CheckExpression(s.substr(i + 1, close - i - 1))) {
        return false;
      }
      i = close + 1;
    } else if (c == '%') {
      if (n - i < 3 || !Is(s[i + 1], kHex) || !Is(s[i + 2], kHex)) return false;
      i += 3;
    } else if (c < 0x80) {
      if (!(kClass[c] & kTemplateLiteral)) return false;
      ++i;
    } else {
      char32_t cp;
      const size_t len = DecodeUtf8(s, i, &cp);
      if (len == 0 || !(IsUcschar(cp) || IsIprivate(cp))) return false;
      i += len;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The rest.

bool CheckUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < 36; ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !Is(s[i], kHex)) return false;
  }
  return true;
}

// RFC 6901: "" or ("/" reference-token)*, where '~' is "~0" or "~1".
bool CheckJsonPointer(std::string_view s) {
  if (s.empty()) return true;
  if (s[0] != '/') return false;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '~' && (++i == s.size() || (s[i] != '0' && s[i] != '1'))) return false;
  }
  return true;
}

// The length of the non-negative-integer ("0" / %x31-39 *DIGIT) at s[i], 0 when none.
size_t NonNegativeInteger(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && IsDigit(s[j])) ++j;
  return j > i + 1 && s[i] == '0' ? 0 : j - i;
}

// non-negative-integer [ index-manipulation ] ( "#" / json-pointer ), where
// index-manipulation = ( "+" / "-" ) non-negative-integer (2020-12 only).
bool CheckRelativeJsonPointer(std::string_view s, bool index_manipulation) {
  size_t i = NonNegativeInteger(s, 0);
  if (i == 0) return false;
  if (index_manipulation && i < s.size() && (s[i] == '+' || s[i] == '-')) {
    const size_t len = NonNegativeInteger(s, i + 1);
    if (len == 0) return false;
    i += 1 + len;
  }
  const std::string_view rest = s.substr(i);
  return rest == "#" || CheckJsonPointer(rest);
}

}  // namespace

uint8_t FormatId(std::string_view name, Draft draft) {
  for (const FormatName& f : kFormats) {
    if (f.name == name && draft >= f.since && draft <= f.until) return f.id;
  }
  return kNone;
}

bool CheckFormat(uint8_t id, std::string_view value) {
  switch (id) {
    case kDateTime:
      return CheckDateTime(value);
    case kDate:
      return CheckDate(value);
    case kTime:
      return CheckTime(value);
    case kDuration:
      return CheckDuration(value);
    case kEmail:
      return CheckEmail(value, false);
    case kIdnEmail:
      return CheckEmail(value, true);
    case kHostname:
      return CheckDomain(value, false, false);
    case kHostnameRfc1034:
      return CheckDomain(value, false, false, false);
    case kIdnHostname:
      return CheckDomain(value, true, true);
    case kIpv4:
      return CheckIpv4(value);
    case kIpv6:
      return CheckIpv6(value);
    case kUri:
      return CheckUri(value, false, false);
    case kUriReference:
      return CheckUri(value, false, true);
    case kIri:
      return CheckUri(value, true, false);
    case kIriReference:
      return CheckUri(value, true, true);
    case kUriTemplate:
      return CheckUriTemplate(value);
    case kUuid:
      return CheckUuid(value);
    case kJsonPointer:
      return CheckJsonPointer(value);
    case kRelativeJsonPointer:
      return CheckRelativeJsonPointer(value, false);
    case kRelativeJsonPointer2020:
      return CheckRelativeJsonPointer(value, true);
    case kRegex:
      return IsEcmaRegex(value);
    default:
      return true;
  }
}

}  // namespace rosetta::codec::schema
