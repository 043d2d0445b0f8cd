#include "common/utf8.h"

#include <cstring>

#include <simdjson.h>

namespace rosetta::codec {

bool ValidUtf8(std::string_view s) {
  // Short strings (most map keys) are checked inline: the SIMD validator's dispatch costs
  // more than it saves under 16 bytes of ASCII.
  if (s.size() < 16) {
    for (char c : s) {
      if (static_cast<unsigned char>(c) >= 0x80) return simdjson::validate_utf8(s.data(), s.size());
    }
    return true;
  }
  return simdjson::validate_utf8(s.data(), s.size());
}

}  // namespace rosetta::codec
