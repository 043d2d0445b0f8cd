#include "json/json_escape.h"

#include <array>
#include <cstdint>
#include <cstring>

namespace rosetta::codec {
namespace {

// For each byte: 0 when it is copied as it is, else the letter after the backslash
// ('u' for \u00XX).
constexpr auto kEscape = [] {
  std::array<char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = 'u';
  t['\b'] = 'b';
  t['\f'] = 'f';
  t['\n'] = 'n';
  t['\r'] = 'r';
  t['\t'] = 't';
  t['"'] = '"';
  t['\\'] = '\\';
  return t;
}();

// True when one of the 8 bytes may need escaping (false positives only send a word to
// the byte loop, which is exact).
inline bool MayNeedEscape(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  uint64_t ctrl = (w - kOnes * 0x20) & ~w;
  uint64_t quote = w ^ (kOnes * '"');
  uint64_t slash = w ^ (kOnes * '\\');
  uint64_t q = (quote - kOnes) & ~quote;
  uint64_t s = (slash - kOnes) & ~slash;
  return ((ctrl | q | s) & kHigh) != 0;
}

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

bool WriteJsonString(OutputBuffer& out, std::string_view s) {
  out.Put('"');
  const char* p = s.data();
  const char* const end = p + s.size();
  for (;;) {
    const char* run = p;
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      if (MayNeedEscape(w)) break;
      p += 8;
    }
    while (p < end && kEscape[static_cast<uint8_t>(*p)] == 0) ++p;
    out.Append(run, p - run);
    if (p == end) break;
    // An escape takes up to 6 bytes for 1: room for it, the rest and the quote (first a
    // bound, then exactly what this escape needs, so an output that fits exactly fits).
    const uint8_t c = static_cast<uint8_t>(*p++);
    const char e = kEscape[c];
    const size_t rest = static_cast<size_t>(end - p) + 1;
    if (!out.Ensure(6 + rest) && !out.Ensure((e == 'u' ? 6 : 2) + rest)) return false;
    out.Put('\\');
    if (e == 'u') {
      char u[5] = {'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out.Append(u, 5);
    } else {
      out.Put(e);
    }
  }
  out.Put('"');
  return true;
}

}  // namespace rosetta::codec
