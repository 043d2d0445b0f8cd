#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace rosetta::codec {

// Decimal digits of an unsigned integer, written directly: the digit count from the bit
// length (one table compare), then two digits per step from a 200-byte table. Numbers
// are most of what some documents hold; this is what the JSON writer prints them with.
inline constexpr char kDigitPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// 1..20: how many decimal digits v has.
inline int DecimalDigits(uint64_t v) {
  static constexpr uint64_t kPow10[20] = {1ull,
                                          10ull,
                                          100ull,
                                          1000ull,
                                          10000ull,
                                          100000ull,
                                          1000000ull,
                                          10000000ull,
                                          100000000ull,
                                          1000000000ull,
                                          10000000000ull,
                                          100000000000ull,
                                          1000000000000ull,
                                          10000000000000ull,
                                          100000000000000ull,
                                          1000000000000000ull,
                                          10000000000000000ull,
                                          100000000000000000ull,
                                          1000000000000000000ull,
                                          10000000000000000000ull};
  const uint64_t x = v | 1;
  const int bits = 64 - std::countl_zero(x);
  const int guess = (bits * 1233) >> 12;  // floor(bits * log10(2)): the count, or one less
  return guess + (x >= kPow10[guess]);
}

// Writes v at p (at most 20 bytes); returns the end.
inline char* WriteDecimal(char* p, uint64_t v) {
  char* const end = p + DecimalDigits(v);
  char* q = end;
  while (v > 0xffffffffu) {
    const uint64_t r = v % 100;
    v /= 100;
    q -= 2;
    std::memcpy(q, kDigitPairs + 2 * r, 2);
  }
  uint32_t w = static_cast<uint32_t>(v);  // 32-bit division from here: cheaper
  while (w >= 100) {
    const uint32_t r = w % 100;
    w /= 100;
    q -= 2;
    std::memcpy(q, kDigitPairs + 2 * r, 2);
  }
  if (w >= 10) {
    std::memcpy(q - 2, kDigitPairs + 2 * w, 2);
  } else {
    q[-1] = static_cast<char>('0' + w);
  }
  return end;
}

}  // namespace rosetta::codec
