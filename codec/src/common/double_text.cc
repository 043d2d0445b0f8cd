#include "common/double_text.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "common/decimal.h"

namespace rosetta::codec {
namespace {

// Writes the n decimal digits of v (n = DecimalDigits(v)) at p, 8 at a time with 32-bit
// arithmetic once the rest fits.
inline void WriteDigits(char* p, uint64_t v, int n) {
  char* q = p + n;
  while (v >= 100000000) {
    const uint64_t hi = v / 100000000;
    uint32_t lo = static_cast<uint32_t>(v - hi * 100000000);
    v = hi;
    const uint32_t a = lo / 10000, b = lo % 10000;
    std::memcpy(q - 8, kDigitPairs + 2 * (a / 100), 2);
    std::memcpy(q - 6, kDigitPairs + 2 * (a % 100), 2);
    std::memcpy(q - 4, kDigitPairs + 2 * (b / 100), 2);
    std::memcpy(q - 2, kDigitPairs + 2 * (b % 100), 2);
    q -= 8;
  }
  uint32_t w = static_cast<uint32_t>(v);
  while (w >= 100) {
    q -= 2;
    std::memcpy(q, kDigitPairs + 2 * (w % 100), 2);
    w /= 100;
  }
  if (w >= 10) {
    std::memcpy(q - 2, kDigitPairs + 2 * w, 2);
  } else {
    q[-1] = static_cast<char>('0' + w);
  }
}

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
  const int n = DecimalDigits(sig);
  const int exp = dec.exponent;
  const int sci_exp = exp + n - 1;  // d.ddd x 10^sci_exp
  const int sci_exp_abs = sci_exp < 0 ? -sci_exp : sci_exp;
  const int sci_len = n + (n > 1 ? 1 : 0) + 2 + (sci_exp_abs >= 100 ? 3 : 2);
  const int fixed_len = exp >= 0 ? n + exp : (n + exp > 0 ? n + 1 : 2 - exp);
  if (fixed_len <= sci_len) {
    *integral = exp >= 0;
    if (exp == 0) {  // ddd
      WriteDigits(p, sig, n);
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
      WriteDigits(p + 19 - low_digits, low, low_digits);
      return p + 19;
    }
    const int whole = n + exp;  // digits before the point
    if (whole > 0) {            // dd.ddd: the digits one place right, the whole part moved back
      WriteDigits(p + 1, sig, n);
      for (int i = 0; i < whole; ++i) p[i] = p[i + 1];
      p[whole] = '.';
      return p + n + 1;
    }
    p[0] = '0';  // 0.000ddd
    p[1] = '.';
    for (int i = 0; i < -whole; ++i) p[2 + i] = '0';
    WriteDigits(p + 2 - whole, sig, n);
    return p + 2 - whole + n;
  }
  *integral = false;
  WriteDigits(p + 1, sig, n);  // d.ddd: the first digit moved back over the point
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
