#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/decimal.h"

namespace rosetta::codec {

// A positive finite double as significand x 10^exponent, the significand as short as
// reading back to the same double allows (and of those, the nearest). libfmt's Dragonbox
// (header-only: compiled in double_text.cc, no library at run time), about twice as fast
// here as libstdc++'s to_chars.
struct ShortestDecimal {
  uint64_t significand;
  int exponent;
};
ShortestDecimal ToShortestDecimal(double d);

// The text of d = dec (d positive) in every layout; WriteShortestDouble's general case.
char* WriteDecimalDouble(char* p, ShortestDecimal dec, double d, bool* integral);

#if defined(__SSE4_1__)
// 16 or 17 significant digits, `whole` (1..7) of them before the point: dd.ddddddddddddddd,
// the shape of most doubles in measured data (coordinates, readings; 86% of canada.json).
// Fixed is shorter than scientific here. The digits are made in one register
// (SixteenDigits) and the point goes in by one shuffle, so the text is two stores. n is a
// template parameter: where the text ends must not wait on the digits (the next number's
// stores would), so the caller branches on the length instead.
template <int n>
inline char* WholeAndFraction(char* p, uint64_t sig, int whole, bool* integral) {
  *integral = false;
  const uint64_t high = sig / 100000000;
  const auto low = static_cast<uint32_t>(sig - high * 100000000);
  // Byte i of the text is digit i below the point's place, digit i - 1 after it.
  const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m128i place = _mm_set1_epi8(static_cast<char>(whole));
  const __m128i at = _mm_cmpeq_epi8(iota, place);
  const __m128i shuffle = _mm_or_si128(_mm_add_epi8(iota, _mm_cmpgt_epi8(iota, place)), at);  // 0xff: zero
  const __m128i dot = _mm_and_si128(at, _mm_set1_epi8('.'));
  if constexpr (n == 17) {
    const auto lead = static_cast<uint32_t>(high / 100000000);  // 1..9
    const __m128i rest = SixteenDigits(static_cast<uint32_t>(high - uint64_t{lead} * 100000000), low);
    const __m128i digits = _mm_alignr_epi8(rest, _mm_set1_epi8(static_cast<char>('0' + lead)), 15);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_or_si128(_mm_shuffle_epi8(digits, shuffle), dot));
    const auto tail = static_cast<uint16_t>(_mm_extract_epi16(rest, 7));  // the last two digits
    std::memcpy(p + 16, &tail, 2);
  } else {
    const __m128i digits = SixteenDigits(static_cast<uint32_t>(high), low);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_or_si128(_mm_shuffle_epi8(digits, shuffle), dot));
    p[16] = static_cast<char>(_mm_extract_epi8(digits, 15));
  }
  return p + n + 1;
}
#endif

// Writes the shortest decimal text that reads back as the finite double d, exactly the
// text std::to_chars(p, p + 32, d) writes (fixed or scientific, whichever is shorter,
// fixed on a tie; exponents as e+NN / e-NN), and returns its end (at most 24 bytes).
// `integral` tells whether the text is an integer (no '.', no exponent). The common shape
// is written here, inline in the writers' loops; the rest in WriteDecimalDouble
// (tests/codec/text_primitives_test.cc compares every shape with to_chars).
inline char* WriteShortestDouble(char* p, double d, bool* integral) {
  if (std::signbit(d)) {
    *p++ = '-';
    d = -d;
  }
  if (d == 0) {
    *integral = true;
    *p++ = '0';
    return p;
  }
  const ShortestDecimal dec = ToShortestDecimal(d);
#if defined(__SSE4_1__)
  const uint64_t sig = dec.significand;
  const int exp = dec.exponent;
  if (sig >= 1000000000000000ull && exp < 0) [[likely]] {
    if (sig >= 10000000000000000ull) {
      if (exp > -17 && exp < -9) return WholeAndFraction<17>(p, sig, 17 + exp, integral);
    } else if (exp > -16 && exp < -8) {
      return WholeAndFraction<16>(p, sig, 16 + exp, integral);
    }
  }
#endif
  return WriteDecimalDouble(p, dec, d, integral);
}

}  // namespace rosetta::codec
