#include "cbor/cbor_reader.h"

namespace rosetta::codec {

bool ScanExtendedTimeMap(const uint8_t* p, const uint8_t* end, uint64_t count, Timestamp* ts) {
  auto integer = [&](uint8_t* major, uint64_t* v) {
    if (p >= end) return false;
    const uint8_t ib = *p++;
    const uint8_t ai = ib & 31;
    *major = ib >> 5;
    if (*major > 1 || ai > 27) return false;
    if (ai < 24) {
      *v = ai;
      return true;
    }
    const size_t n = size_t{1} << (ai - 24);
    if (static_cast<size_t>(end - p) < n) return false;
    *v = LoadBigEndian(p, n);
    p += n;
    return true;
  };
  *ts = {0, 0};
  bool seconds = false;
  for (uint64_t i = 0; count == kUnknownLength || i < count; ++i) {
    if (count == kUnknownLength && p < end && *p == 0xff) break;
    uint8_t key_major, value_major;
    uint64_t key, value;
    if (i == 2 || !integer(&key_major, &key) || !integer(&value_major, &value)) return false;
    if (key_major == 0 && key == 1 && value <= 0x7fffffffffffffffull) {
      ts->seconds =
          value_major == 0 ? static_cast<int64_t>(value) : -1 - static_cast<int64_t>(value);
      seconds = true;
    } else if (key_major == 1 && key == 8 && value_major == 0 && value <= 999999999) {
      ts->nanos = value;
    } else {
      return false;
    }
  }
  return seconds;
}

}  // namespace rosetta::codec
