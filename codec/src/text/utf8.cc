#include "text/utf8.h"

#include <cstring>

#include <simdjson.h>

namespace rosetta::codec {

bool ValidUtf8Simd(std::string_view s) { return simdjson::validate_utf8(s.data(), s.size()); }

size_t InvalidUtf8Offset(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    // RFC 3629 section 4: the second byte's range depends on the first (no overlongs, no
    // surrogates, nothing past U+10FFFF); the others are 80..BF.
    size_t len;
    uint8_t lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      if (c == 0xe0) lo = 0xa0;
      if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;
    } else {
      return i;
    }
    if (n - i < len || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k) {
      if (p[i + k] < 0x80 || p[i + k] > 0xbf) return i;
    }
    i += len;
  }
  return n;
}

}  // namespace rosetta::codec
