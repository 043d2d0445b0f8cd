#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace rosetta::codec {

// IEEE 754 binary16 to double (RFC 8949 Appendix D).
inline double HalfToDouble(uint16_t half) {
  int exp = (half >> 10) & 0x1f;
  int mant = half & 0x3ff;
  double val;
  if (exp == 0)
    val = std::ldexp(mant, -24);
  else if (exp != 31)
    val = std::ldexp(mant + 1024, exp - 25);
  else
    val = mant == 0 ? INFINITY : NAN;
  return (half & 0x8000) ? -val : val;
}

// The binary16 form of `d` when it holds `d` exactly (preferred serialization, RFC 8949
// 4.1); NaN maps to the canonical quiet NaN 0x7e00.
inline bool DoubleToHalf(double d, uint16_t* out) {
  if (std::isnan(d)) {
    *out = 0x7e00;
    return true;
  }
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d) return false;
  uint32_t bits = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  int exp = static_cast<int>((bits >> 23) & 0xff);
  uint32_t mant = bits & 0x7fffff;
  if (exp == 0xff) {  // infinity (NaN handled above)
    *out = sign | 0x7c00;
    return true;
  }
  if (exp == 0 && mant == 0) {
    *out = sign;
    return true;
  }
  if (exp == 0) return false;  // float subnormals are far below half's range
  int e = exp - 127;
  if (e >= -14 && e <= 15) {  // half normal: 10 mantissa bits
    if (mant & 0x1fff) return false;
    *out = static_cast<uint16_t>(sign | ((e + 15) << 10) | (mant >> 13));
    return true;
  }
  if (e >= -24 && e < -14) {          // half subnormal: value = m * 2^-24
    uint32_t full = mant | 0x800000;  // 1.mant * 2^e = full * 2^(e-23)
    int shift = -14 - e + 13;         // full >> shift = m
    if (full & ((1u << shift) - 1)) return false;
    *out = static_cast<uint16_t>(sign | (full >> shift));
    return true;
  }
  return false;
}

// DoubleToHalf of a float, from its bits alone (the fixed format's float fields into CBOR).
inline bool FloatToHalf(float f, uint16_t* out) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const int exp = static_cast<int>((bits >> 23) & 0xff);
  const uint32_t mant = bits & 0x7fffff;
  if (exp == 0xff) {
    *out = mant != 0 ? 0x7e00 : static_cast<uint16_t>(sign | 0x7c00);
    return true;
  }
  if (exp == 0) {
    if (mant != 0) return false;  // float subnormals are far below half's range
    *out = sign;
    return true;
  }
  const int e = exp - 127;
  if (e >= -14 && e <= 15) {  // half normal: 10 mantissa bits
    if (mant & 0x1fff) return false;
    *out = static_cast<uint16_t>(sign | ((e + 15) << 10) | (mant >> 13));
    return true;
  }
  if (e >= -24 && e < -14) {  // half subnormal: value = m * 2^-24
    const uint32_t full = mant | 0x800000;
    const int shift = -14 - e + 13;
    if (full & ((1u << shift) - 1)) return false;
    *out = static_cast<uint16_t>(sign | (full >> shift));
    return true;
  }
  return false;
}

// True when `d` survives a round trip through binary32.
inline bool FitsFloat(double d) {
  return std::isnan(d) || static_cast<double>(static_cast<float>(d)) == d;
}

}  // namespace rosetta::codec
