#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace rosetta::codec {

// An unsigned integer of n bytes (1, 2, 4 or 8), most significant first, as CBOR heads and
// MessagePack fixed-width values store them: one load and a byte swap. The caller has
// checked that n bytes are there.
inline uint64_t LoadBigEndian(const uint8_t* p, size_t n) {
  switch (n) {
    case 1:
      return p[0];
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return __builtin_bswap16(v);
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return __builtin_bswap32(v);
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return __builtin_bswap64(v);
    }
  }
}

// A bignum's magnitude bytes without their leading zero bytes: the same number.
inline std::string_view BignumMagnitude(std::string_view magnitude) {
  while (!magnitude.empty() && magnitude.front() == '\0') magnitude.remove_prefix(1);
  return magnitude;
}

// The value of a bignum's magnitude bytes (RFC 8949 3.4.3, most significant first) when it
// fits 64 bits once its leading zero bytes are set aside; false when it does not. The one
// rule by which a bignum becomes an integer (MessagePack writer) and a bignum map key is
// compared as that integer (CBOR reader).
inline bool BignumToUint64(std::string_view magnitude, uint64_t* v) {
  magnitude = BignumMagnitude(magnitude);
  if (magnitude.size() > 8) return false;
  uint64_t x = 0;
  for (char c : magnitude) x = x << 8 | static_cast<uint8_t>(c);
  *v = x;
  return true;
}

// The double a bignum becomes (bignum_as_double): the one rule of the MessagePack
// writer and of the identity of such a map key: its magnitude n, or -1 - n.
// The double an integer below -2^63 (-1 - n) becomes (bignum_as_double), as above.
inline double NegIntToDouble(uint64_t n) { return -1.0 - static_cast<double>(n); }

inline double BignumToDouble(std::string_view magnitude, bool negative) {
  double d = 0;
  for (char c : magnitude) d = d * 256 + static_cast<uint8_t>(c);
  return negative ? -1 - d : d;
}

}  // namespace rosetta::codec
