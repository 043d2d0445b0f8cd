#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace rosetta::codec {

// a == b for short names (member names, fields, enum values): the bytes compared as two or
// four overlapping words (nothing outside either view is read), not through a call to
// memcmp; past 32 bytes, memcmp.
[[gnu::always_inline]] inline bool SameBytes(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  if (n >= 8 && n <= 16) {
    uint64_t a0, a1, b0, b1;
    std::memcpy(&a0, p, 8);
    std::memcpy(&a1, p + n - 8, 8);
    std::memcpy(&b0, q, 8);
    std::memcpy(&b1, q + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n >= 4 && n < 8) {
    uint32_t a0, a1, b0, b1;
    std::memcpy(&a0, p, 4);
    std::memcpy(&a1, p + n - 4, 4);
    std::memcpy(&b0, q, 4);
    std::memcpy(&b1, q + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n < 4) return n == 0 || (p[0] == q[0] && p[n / 2] == q[n / 2] && p[n - 1] == q[n - 1]);
  if (n <= 32) {
    uint64_t a0, a1, a2, a3, b0, b1, b2, b3;
    std::memcpy(&a0, p, 8);
    std::memcpy(&a1, p + 8, 8);
    std::memcpy(&a2, p + n - 16, 8);
    std::memcpy(&a3, p + n - 8, 8);
    std::memcpy(&b0, q, 8);
    std::memcpy(&b1, q + 8, 8);
    std::memcpy(&b2, q + n - 16, 8);
    std::memcpy(&b3, q + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2) | (a3 ^ b3)) == 0;
  }
  return std::memcmp(p, q, n) == 0;
}

}  // namespace rosetta::codec
