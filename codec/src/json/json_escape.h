#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "rosetta/codec/output.h"

namespace rosetta::codec {

// Writes s as a JSON string: quotes, and the escapes RFC 8259 section 7 requires ('"',
// '\\', U+0000..U+001F; \b \f \n \r \t by name, the others as \u00XX); everything else,
// UTF-8 included, is copied. The caller has made room for s.size() + 2 bytes; an escape
// makes the room it needs. False when that room cannot be had (Ensure refused it: over
// max_output_bytes or the budget), with the output left incomplete.
bool WriteJsonString(OutputBuffer& out, std::string_view s);

namespace json_escape {

static_assert(std::endian::native == std::endian::little,
              "WriteJsonStringBounded reads words little-endian");

// For each byte: 0 when it is copied as it is, else the letter after the backslash
// ('u' for \u00XX).
inline constexpr auto kEscape = [] {
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
  const uint64_t ctrl = (w - kOnes * 0x20) & ~w;
  const uint64_t quote = w ^ (kOnes * '"');
  const uint64_t slash = w ^ (kOnes * '\\');
  const uint64_t q = (quote - kOnes) & ~quote;
  const uint64_t b = (slash - kOnes) & ~slash;
  return ((ctrl | q | b) & kHigh) != 0;
}

inline constexpr char kHex[] = "0123456789abcdef";

}  // namespace json_escape

// Strings up to this size are written by WriteJsonStringBounded, with room made for
// their worst case; longer ones by WriteJsonString, which makes room as it goes.
inline constexpr size_t kBoundedJsonString = 256;
inline constexpr size_t BoundedJsonStringRoom(size_t n) { return 6 * n + 10; }

// WriteJsonString into raw memory with room for the worst case plus a word, 6 *
// s.size() + 10 bytes (every byte a \u00XX escape); returns the end. For short strings,
// where making that room is free. `readable` is where readable memory ends after s: when
// 8 bytes can be read at s, a string of less than 8 bytes is checked and copied as one
// word (the bytes past it are ignored, and what is written past it is overwritten).
inline char* WriteJsonStringBounded(char* o, std::string_view s, const char* readable) {
  using namespace json_escape;
  const char* p = s.data();
  const size_t n = s.size();
  const char* const end = p + n;
  *o++ = '"';
  if (n < 8) {
    if (readable - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      const uint64_t keep = n ? ~uint64_t{0} >> (64 - 8 * n) : 0;  // little-endian: the first bytes
      // Bytes past the string become 'a' (0x61): nothing to escape.
      if (!MayNeedEscape((w & keep) | (0x6161616161616161ull & ~keep))) {
        std::memcpy(o, &w, 8);
        o += n;
        *o++ = '"';
        return o;
      }
    }
  } else {
    // Whole words, then the last 8 bytes as one more word that overlaps the one before:
    // no byte loop for a string with nothing to escape.
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (MayNeedEscape(w)) break;
      std::memcpy(o + i, &w, 8);
    }
    if (i + 8 > n) {  // every whole word copied
      uint64_t w;
      std::memcpy(&w, end - 8, 8);
      if (i == n || !MayNeedEscape(w)) {
        std::memcpy(o + n - 8, &w, 8);
        o += n;
        *o++ = '"';
        return o;
      }
    }
    p += i;  // the rest byte by byte from the word that stopped it
    o += i;
  }
  for (;;) {
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      if (MayNeedEscape(w)) break;
      std::memcpy(o, &w, 8);
      o += 8;
      p += 8;
    }
    while (p < end && kEscape[static_cast<uint8_t>(*p)] == 0) *o++ = *p++;
    if (p == end) break;
    const uint8_t c = static_cast<uint8_t>(*p++);
    const char e = kEscape[c];
    *o++ = '\\';
    if (e == 'u') {
      o[0] = 'u';
      o[1] = '0';
      o[2] = '0';
      o[3] = kHex[c >> 4];
      o[4] = kHex[c & 15];
      o += 5;
    } else {
      *o++ = e;
    }
  }
  *o++ = '"';
  return o;
}

}  // namespace rosetta::codec
