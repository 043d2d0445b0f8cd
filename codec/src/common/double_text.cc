#include "common/double_text.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "common/decimal.h"

namespace rosetta::codec {
namespace {

#if defined(__SSE4_1__)
// 16 or 17 significant digits, `whole` (1..7) of them before the point: dd.ddddddddddddddd,
// the shape of most doubles in measured data (coordinates, readings; 86% of canada.json).
// Fixed is shorter than scientific here. The digits are made in one register
// (SixteenDigits) and the point goes in by one shuffle, so the text is two stores. n is a
// template parameter: where the text ends must not wait on the digits (the next number's
// stores would), so the caller branches on the length instead.
template <int n>
char* WholeAndFraction(char* p, uint64_t sig, int whole, bool* integral) {
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

}  // namespace

char* WriteShortestDouble(char* p, double d, bool* integral) {
  if (std::signbit(d)) {
    *p++ = '-';
    d = -d;
  }
  if (d == 0) {
    *integral = true;
    *p++ = '0';
    return p;
  }
  // d = significand x 10^exponent, the significand as short as round-tripping allows.
  const auto dec = fmt::detail::dragonbox::to_decimal(d);
  const uint64_t sig = dec.significand;
  // Most doubles that are not short decimals have 16 or 17 digits. Telling those apart
  // by comparison lets the branch predictor supply the length, so where the text ends
  // does not wait on the digit count's arithmetic (canada.json: 21.0 -> 17.5 ns a double).
  int n;
  if (sig >= 1000000000000000ull) {
    n = sig >= 10000000000000000ull ? 17 : 16;
  } else {
    n = DecimalDigits(sig);
  }
  const int exp = dec.exponent;
#if defined(__SSE4_1__)
  if (exp < 0 && n + exp > 0 && n + exp < 8) [[likely]] {
    if (sig >= 10000000000000000ull) return WholeAndFraction<17>(p, sig, 17 + exp, integral);
    if (sig >= 1000000000000000ull) return WholeAndFraction<16>(p, sig, 16 + exp, integral);
  }
#endif
  const int sci_exp = exp + n - 1;  // d.ddd x 10^sci_exp
  const int sci_exp_abs = sci_exp < 0 ? -sci_exp : sci_exp;
  const int sci_len = n + (n > 1 ? 1 : 0) + 2 + (sci_exp_abs >= 100 ? 3 : 2);
  const int fixed_len = exp >= 0 ? n + exp : (n + exp > 0 ? n + 1 : 2 - exp);
  if (fixed_len <= sci_len) {
    *integral = exp >= 0;
    if (exp == 0) {  // ddd
      WriteDecimal(p, sig);
      return p + n;
    }
    if (exp > 0) {
      // An integer written out in full: to_chars gives its exact digits, not the
      // shortest ones padded with zeros (99999999999999984, not 99999999999999980). It
      // is below 10^22 here (fixed is longer than scientific past that), so 128 bits hold it.
      const auto v = static_cast<unsigned __int128>(d);
      constexpr uint64_t kTen19 = 10000000000000000000ull;
      if (v < kTen19) return WriteDecimal(p, static_cast<uint64_t>(v));
      p = WriteDecimal(p, static_cast<uint64_t>(v / kTen19));
      const uint64_t low = static_cast<uint64_t>(v % kTen19);  // 19 digits, leading zeros kept
      const int low_digits = DecimalDigits(low);
      std::memset(p, '0', 19);
      WriteDecimal(p + 19 - low_digits, low);
      return p + 19;
    }
    const int whole = n + exp;  // digits before the point
    if (whole > 0) {            // dd.ddd: the digits one place right, the whole part moved back
      WriteDecimal(p + 1, sig);
      for (int i = 0; i < whole; ++i) p[i] = p[i + 1];
      p[whole] = '.';
      return p + n + 1;
    }
    p[0] = '0';  // 0.000ddd
    p[1] = '.';
    for (int i = 0; i < -whole; ++i) p[2 + i] = '0';
    WriteDecimal(p + 2 - whole, sig);
    return p + 2 - whole + n;
  }
  *integral = false;
  WriteDecimal(p + 1, sig);  // d.ddd: the first digit moved back over the point
  p[0] = p[1];
  if (n > 1) {
    p[1] = '.';
    p += n + 1;
  } else {
    p += 1;
  }
  *p++ = 'e';
  *p++ = sci_exp < 0 ? '-' : '+';
  if (sci_exp_abs >= 100) {
    *p++ = static_cast<char>('0' + sci_exp_abs / 100);
    std::memcpy(p, kDigitPairs + 2 * (sci_exp_abs % 100), 2);
  } else {
    std::memcpy(p, kDigitPairs + 2 * sci_exp_abs, 2);
  }
  return p + 2;
}

}  // namespace rosetta::codec
