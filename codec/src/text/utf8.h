#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace rosetta::codec {

// RFC 3629 well-formedness, by simdjson's SIMD validator.
bool ValidUtf8Simd(std::string_view s);

// RFC 3629 well-formedness (no overlongs, no surrogates, nothing past U+10FFFF). Most
// strings are short and ASCII (map keys, names): those are checked here, 8 bytes at a
// time, without the validator's call and dispatch.
inline bool ValidUtf8(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n >= 64) return ValidUtf8Simd(s);
  size_t i = 0;
  uint64_t high = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    high |= w;
  }
  if (n - i >= 4) {  // the tail: two overlapping 4-byte loads
    uint32_t a, b;
    std::memcpy(&a, p + i, 4);
    std::memcpy(&b, p + n - 4, 4);
    high |= a | b;
  } else {
    for (; i < n; ++i) high |= static_cast<uint8_t>(p[i]);
  }
  if ((high & 0x8080808080808080ull) == 0) [[likely]]
    return true;
  return ValidUtf8Simd(s);
}

namespace utf8_detail {
// 24 bytes of 0xff then 24 of 0: the 24 bytes from kMask + 24 - n mask the first n.
inline constexpr unsigned char kMask[48] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
}  // namespace utf8_detail

// ValidUtf8 for a string inside a larger buffer, with `readable` bytes from s.data() to
// the buffer's end. A string under 24 bytes with 24 readable is checked by three loads
// masked to its length: no branch on the length, which varies from string to string
// (map keys, names) and so is mispredicted by a loop.
inline bool ValidUtf8In(std::string_view s, size_t readable) {
  const size_t n = s.size();
  if (n >= 24 || readable < 24) return ValidUtf8(s);
  // Six 8-byte loads into scalars: copied as arrays, the 24 bytes went through the stack
  // in 16-byte stores read back 8 bytes at a time, which stalled on store forwarding (9% of
  // a CBOR read of twitter's records with a schema, in perf samples).
  const char* p = s.data();
  const unsigned char* mask = utf8_detail::kMask + 24 - n;
  uint64_t w0, w1, w2, m0, m1, m2;
  std::memcpy(&w0, p, 8);
  std::memcpy(&w1, p + 8, 8);
  std::memcpy(&w2, p + 16, 8);
  std::memcpy(&m0, mask, 8);
  std::memcpy(&m1, mask + 8, 8);
  std::memcpy(&m2, mask + 16, 8);
  if ((((w0 & m0) | (w1 & m1) | (w2 & m2)) & 0x8080808080808080ull) == 0) [[likely]]
    return true;
  return ValidUtf8Simd(s);
}
// Offset of the first byte that does not begin a well-formed sequence (s.size() when s is
// valid). Linear: for error reports, which must not cost more than the input.
size_t InvalidUtf8Offset(std::string_view s);

}  // namespace rosetta::codec
