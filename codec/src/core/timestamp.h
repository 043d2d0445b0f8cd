#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include "binary/big_endian.h"

namespace rosetta::codec {

// A point in time as the MessagePack timestamp extension holds it.
struct Timestamp {
  int64_t seconds;
  uint64_t nanos;  // 0 .. 999,999,999
};

// The data of a timestamp ext (type -1): 4 bytes of seconds, 8 bytes of nanoseconds (30
// bits) and seconds (34 bits), or 12 bytes of nanoseconds (32 bits) and signed seconds (64
// bits). False for any other size or for nanoseconds past 999,999,999 (MessagePack spec,
// timestamp extension type). The one rule of the reader, the writer (an ext -1 it is
// given) and the duplicate-key identity of both.
inline bool ParseMsgpackTimestamp(std::string_view data, Timestamp* ts) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  if (data.size() == 4) {
    *ts = {static_cast<int64_t>(LoadBigEndian(p, 4)), 0};
  } else if (data.size() == 8) {
    const uint64_t v = LoadBigEndian(p, 8);
    *ts = {static_cast<int64_t>(v & ((uint64_t{1} << 34) - 1)), v >> 34};
  } else if (data.size() == 12) {
    *ts = {static_cast<int64_t>(LoadBigEndian(p + 4, 8)), LoadBigEndian(p, 4)};
  } else {
    return false;
  }
  return ts->nanos <= 999999999;
}

// Epoch seconds given as a double (CBOR tag 1 on a float) as seconds and nanoseconds, the
// nanoseconds rounded to nearest. False when not finite or past the 64-bit seconds range.
inline bool EpochDoubleToTimestamp(double d, Timestamp* ts) {
  if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) return false;
  const double whole = std::floor(d);
  int64_t seconds = static_cast<int64_t>(whole);
  uint64_t nanos = static_cast<uint64_t>(std::llround((d - whole) * 1e9));
  if (nanos >= 1000000000) {
    ++seconds;
    nanos -= 1000000000;
  }
  *ts = {seconds, nanos};
  return true;
}

}  // namespace rosetta::codec
