#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "text/decimal.h"

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
// The same for a positive finite float: the fewest digits that read back as that float.
ShortestDecimal ToShortestDecimal(float f);

// The text of d = dec (d positive) in every layout; WriteShortestDouble's general case.
char* WriteDecimalDouble(char* p, ShortestDecimal dec, double d, bool* integral);

#if defined(__SSE4_1__)
// Common shapes of doubles in measured data (coordinates, readings): fixed notation with
// 1..7 digits before the point, where fixed is always shorter than scientific. The digits
// are made in one register (SixteenDigits) and the point goes in by one shuffle.
namespace double_text_detail {

// The 16 bytes of `digits` with '.' put in after the first `whole` (the last digit drops out).
inline __m128i PointAfter(__m128i digits, int whole) {
  const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m128i place = _mm_set1_epi8(static_cast<char>(whole));
  const __m128i at = _mm_cmpeq_epi8(iota, place);
  // Byte i is digit i before the point's place, digit i - 1 after it; 0xff (zero) at it.
  const __m128i shuffle = _mm_or_si128(_mm_add_epi8(iota, _mm_cmpgt_epi8(iota, place)), at);
  return _mm_or_si128(_mm_shuffle_epi8(digits, shuffle), _mm_and_si128(at, _mm_set1_epi8('.')));
}

// 16 or 17 significant digits (86% of canada.json's numbers): two stores. n is a template
// parameter: where the text ends must not wait on the digits (the next number's stores
// would), so the caller branches on the length instead.
template <int n>
inline char* LongFraction(char* p, uint64_t sig, int whole) {
  const uint64_t high = sig / 100000000;
  const auto low = static_cast<uint32_t>(sig - high * 100000000);
  if constexpr (n == 17) {
    const auto lead = static_cast<uint32_t>(high / 100000000);  // 1..9
    const __m128i rest =
        SixteenDigits(static_cast<uint32_t>(high - uint64_t{lead} * 100000000), low);
    const __m128i digits = _mm_alignr_epi8(rest, _mm_set1_epi8(static_cast<char>('0' + lead)), 15);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), PointAfter(digits, whole));
    const auto tail = static_cast<uint16_t>(_mm_extract_epi16(rest, 7));  // the last two digits
    std::memcpy(p + 16, &tail, 2);
  } else {
    const __m128i digits = SixteenDigits(static_cast<uint32_t>(high), low);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), PointAfter(digits, whole));
    p[16] = static_cast<char>(_mm_extract_epi8(digits, 15));
  }
  return p + n + 1;
}

// 2..15 significant digits: widened to 16 with trailing zeros, one 16-byte store of which
// the text is the first n + 1 bytes.
inline char* ShortFraction(char* p, uint64_t sig, int n, int whole) {
  const uint64_t wide = sig * kPowersOf10[16 - n];
  const uint64_t high = wide / 100000000;
  const __m128i digits =
      SixteenDigits(static_cast<uint32_t>(high), static_cast<uint32_t>(wide - high * 100000000));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), PointAfter(digits, whole));
  return p + n + 1;
}

}  // namespace double_text_detail
#endif

// Writes the shortest decimal text that reads back as the finite double d, exactly the
// text std::to_chars(p, p + 32, d) writes (fixed or scientific, whichever is shorter,
// fixed on a tie; exponents as e+NN / e-NN), and returns its end. It may write up to 24
// bytes at p: the bytes between the returned end and p + 24 are scratch.
// `integral` tells whether the text is an integer (no '.', no exponent). The common shape
// is written here, inline in the writers' loops; the rest in WriteDecimalDouble
// (tests/codec/text/text_primitives_test.cc compares every shape with to_chars).
inline char* WriteShortestDecimal(char* p, ShortestDecimal dec, double d, bool* integral) {
#if defined(__SSE4_1__)
  using namespace double_text_detail;
  const uint64_t sig = dec.significand;
  const int exp = dec.exponent;
  if (exp < 0) [[likely]] {
    *integral = false;
    if (sig >= 10000000000000000ull) {
      if (exp > -17 && exp < -9) return LongFraction<17>(p, sig, 17 + exp);
    } else if (sig >= 1000000000000000ull) {
      if (exp > -16 && exp < -8) return LongFraction<16>(p, sig, 16 + exp);
    } else {
      const int n = DecimalDigits(sig);
      if (n + exp > 0 && n + exp < 8) return ShortFraction(p, sig, n, n + exp);
    }
  }
#endif
  return WriteDecimalDouble(p, dec, d, integral);
}
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
  return WriteShortestDecimal(p, ToShortestDecimal(d), d, integral);
}

// A finite float's shortest text, laid out as WriteShortestDouble lays out a double's:
// exactly what std::to_chars(p, p + 32, f) writes for the float (0.1f is "0.1", where the
// double it widens to would be "0.10000000149011612").
inline char* WriteShortestFloat(char* p, float f, bool* integral) {
  if (std::signbit(f)) {
    *p++ = '-';
    f = -f;
  }
  if (f == 0) {
    *integral = true;
    *p++ = '0';
    return p;
  }
  return WriteShortestDecimal(p, ToShortestDecimal(f), static_cast<double>(f), integral);
}

// A finite double as JSON writes it: an integral one keeps a ".0", so that it stays a float
// across a round trip ("1" would come back as an integer). Uses up to 24 bytes at p.
inline char* WriteJsonDouble(char* p, double d) {
  bool integral;
  p = WriteShortestDouble(p, d, &integral);
  if (integral) {
    p[0] = '.';
    p[1] = '0';
    p += 2;
  }
  return p;
}
inline char* WriteJsonFloat(char* p, float f) {
  bool integral;
  p = WriteShortestFloat(p, f, &integral);
  if (integral) {
    p[0] = '.';
    p[1] = '0';
    p += 2;
  }
  return p;
}

}  // namespace rosetta::codec
