#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE4_1__)
#include <immintrin.h>
#endif

namespace rosetta::codec {

// Decimal digits of an unsigned integer, written directly: the digit count from the bit
// length (one table compare), then two digits per step from a 200-byte table. Numbers
// are most of what some documents hold; this is what the JSON writer prints them with.
inline constexpr char kDigitPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

inline constexpr uint64_t kPowersOf10[20] = {1ull,
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

// 1..20: how many decimal digits v has.
inline int DecimalDigits(uint64_t v) {
  const uint64_t x = v | 1;
  const int bits = 64 - std::countl_zero(x);
  const int guess = (bits * 1233) >> 12;  // floor(bits * log10(2)): the count, or one less
  return guess + (x >= kPowersOf10[guess]);
}

namespace decimal_detail {

inline void Pair(char* p, uint32_t v) { std::memcpy(p, kDigitPairs + 2 * v, 2); }
// Exactly 4 / 8 digits of v (v < 10^4 / 10^8), leading zeros kept: the halves are
// independent, so the divisions run side by side.
inline void Four(char* p, uint32_t v) {
  Pair(p, v / 100);
  Pair(p + 2, v % 100);
}
inline void Eight(char* p, uint32_t v) {
  Four(p, v / 10000);
  Four(p + 4, v % 10000);
}
// 1..4 digits of v < 10^4, no leading zeros; returns the end.
inline char* UpToFour(char* p, uint32_t v) {
  if (v < 100) {
    if (v < 10) {
      *p = static_cast<char>('0' + v);
      return p + 1;
    }
    Pair(p, v);
    return p + 2;
  }
  if (v < 1000) {
    *p = static_cast<char>('0' + v / 100);
    Pair(p + 1, v % 100);
    return p + 3;
  }
  Four(p, v);
  return p + 4;
}
// 1..8 digits of v < 10^8, no leading zeros; returns the end.
inline char* UpToEight(char* p, uint32_t v) {
  if (v < 10000) return UpToFour(p, v);
  const uint32_t hi = v / 10000, lo = v % 10000;
  p = UpToFour(p, hi);
  Four(p, lo);
  return p + 4;
}

}  // namespace decimal_detail

#if defined(__SSE4_1__)
// The 16 digits of a and b (a < 10^8 first, then b < 10^8, leading zeros kept) as 16
// ASCII bytes, every lane at once: a and b are split into 4 numbers below 10^4, those
// into 8 below 100, those into 16 digits. Each split is one multiply for all lanes that
// divides (x / 10^4 as x * ceil(2^45 / 10^4) >> 45, x / 100 as x * 5243 >> 19, x / 10 as
// x * 6554 >> 16, exact in the ranges they get) and one that places quotient and
// remainder side by side: q | (x - d q) << w is (x << w) - q * (d 2^w - 1).
inline __m128i SixteenDigits(uint32_t a, uint32_t b) {
  const __m128i v = _mm_set_epi64x(b, a);
  const __m128i q = _mm_srli_epi64(_mm_mul_epu32(v, _mm_set1_epi64x(0xD1B71759)), 45);
  // 4 x u32 in text order: a / 10^4, a % 10^4, b / 10^4, b % 10^4.
  const __m128i x = _mm_or_si128(
      q, _mm_slli_epi64(_mm_sub_epi32(v, _mm_mul_epu32(q, _mm_set1_epi64x(10000))), 32));
  const __m128i h = _mm_srli_epi32(_mm_mullo_epi32(x, _mm_set1_epi32(5243)), 19);
  const __m128i pairs =
      _mm_sub_epi32(_mm_slli_epi32(x, 16), _mm_mullo_epi32(h, _mm_set1_epi32(100 * 65536 - 1)));
  const __m128i tens = _mm_mulhi_epu16(pairs, _mm_set1_epi16(6554));
  const __m128i digits =
      _mm_sub_epi16(_mm_slli_epi16(pairs, 8), _mm_mullo_epi16(tens, _mm_set1_epi16(10 * 256 - 1)));
  return _mm_add_epi8(digits, _mm_set1_epi8('0'));
}
#endif

// Writes v at p (at most 20 bytes); returns the end. Up to 8 digits in 32-bit halves,
// then 8 digits at a time: short dependency chains instead of one division per pair.
inline char* WriteDecimal(char* p, uint64_t v) {
  using namespace decimal_detail;
  if (v < 100000000) return UpToEight(p, static_cast<uint32_t>(v));
  if (v < 10000000000000000ull) {
    const uint64_t hi = v / 100000000;
    p = UpToEight(p, static_cast<uint32_t>(hi));
    Eight(p, static_cast<uint32_t>(v - hi * 100000000));
    return p + 8;
  }
  const uint64_t top = v / 10000000000000000ull;  // 1..1844
  const uint64_t rest = v - top * 10000000000000000ull;
  const uint64_t mid = rest / 100000000;
  p = UpToEight(p, static_cast<uint32_t>(top));
  Eight(p, static_cast<uint32_t>(mid));
  Eight(p + 8, static_cast<uint32_t>(rest - mid * 100000000));
  return p + 16;
}

}  // namespace rosetta::codec
