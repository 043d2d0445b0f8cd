#pragma once

// An independent reference for deterministic CBOR (RFC 8949 section 4.2.1), used by the
// deterministic writer's unit test and its fuzz target: a plain walker of definite-length
// CBOR (what rosetta's writer makes) that rebuilds an item with every map's entries sorted
// by their encoded keys, by copying and sorting whole strings, nothing like the writer's
// offsets. Input must be well-formed; recursion is bounded by the writer's max_depth.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rosetta::testing {

// The end of the definite-length item that starts at p.
inline size_t CborItemEnd(std::string_view b, size_t p) {
  const uint8_t ib = static_cast<uint8_t>(b[p]);
  const int major = ib >> 5, ai = ib & 31;
  uint64_t arg = ai;
  size_t at = p + 1;
  if (ai >= 24 && ai <= 27) {
    const size_t bytes = size_t{1} << (ai - 24);
    arg = 0;
    for (size_t i = 0; i < bytes; ++i) arg = arg << 8 | static_cast<uint8_t>(b[at + i]);
    at += bytes;
  }
  switch (major) {
    case 2:
    case 3:
      return at + arg;
    case 4:
      for (uint64_t i = 0; i < arg; ++i) at = CborItemEnd(b, at);
      return at;
    case 5:
      for (uint64_t i = 0; i < 2 * arg; ++i) at = CborItemEnd(b, at);
      return at;
    case 6:
      return CborItemEnd(b, at);
    default:
      return at;
  }
}

// The item at [p, end) with every map inside it sorted by its keys' bytes.
inline std::string CborSorted(std::string_view b, size_t p, size_t end) {
  const uint8_t ib = static_cast<uint8_t>(b[p]);
  const int major = ib >> 5, ai = ib & 31;
  const size_t head = ai < 24 ? 1 : 1 + (size_t{1} << (ai - 24));
  if (major < 4 || major > 6) return std::string(b.substr(p, end - p));
  std::string out(b.substr(p, head));
  size_t q = p + head;
  if (major == 6) return out + CborSorted(b, q, end);
  if (major == 4) {
    while (q < end) {
      const size_t e = CborItemEnd(b, q);
      out += CborSorted(b, q, e);
      q = e;
    }
    return out;
  }
  std::vector<std::pair<std::string, std::string>> entries;
  while (q < end) {
    const size_t k = CborItemEnd(b, q), v = CborItemEnd(b, k);
    entries.emplace_back(CborSorted(b, q, k), CborSorted(b, k, v));
    q = v;
  }
  std::sort(entries.begin(), entries.end());
  for (auto& [k, v] : entries) out += k + v;
  return out;
}

inline std::string CborSorted(std::string_view b) { return CborSorted(b, 0, b.size()); }

}  // namespace rosetta::testing
