#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

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

}  // namespace rosetta::codec
