#include "text/double_text.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "text/decimal.h"

namespace rosetta::codec {

ShortestDecimal ToShortestDecimal(double d) {
  const auto dec = fmt::detail::dragonbox::to_decimal(d);
  return {dec.significand, dec.exponent};
}

ShortestDecimal ToShortestDecimal(float f) {
  const auto dec = fmt::detail::dragonbox::to_decimal(f);
  return {dec.significand, dec.exponent};
}

char* WriteDecimalDouble(char* p, ShortestDecimal dec, double d, bool* integral) {
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
