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

// Epoch seconds given as a double (CBOR tag 1 on a float) as seconds and nanoseconds: the
// double's exact value rounded to the nearest nanosecond, a value halfway between two
// nanoseconds to the later one. False when not finite or past +-9.2e18 seconds. The one
// rule of the MessagePack writer, the JSON writer's timestamp text and key identity.
bool EpochDoubleToTimestamp(double d, Timestamp* ts);

// Days since 1970-01-01 <-> proleptic Gregorian date (H. Hinnant, "chrono-Compatible
// Low-Level Date Algorithms"); month 1..12, day 1..31.
struct CivilDate {
  int64_t year;
  unsigned month;
  unsigned day;
};
CivilDate CivilFromDays(int64_t days);
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);

// The seconds of 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the instants with a
// four-digit year, as RFC 3339 writes them.
inline constexpr int64_t kYear0Seconds = -62167219200;
inline constexpr int64_t kYear10000Seconds = 253402300800;

// "YYYY-MM-DDTHH:MM:SS" (19 bytes) for kYear0Seconds <= seconds < kYear10000Seconds;
// returns the end.
char* WriteDateTime(char* p, int64_t seconds);

// The most a WriteRfc3339 text takes: date-time, '.', 18 digits, 'Z'.
inline constexpr size_t kMaxRfc3339Size = 19 + 1 + 18 + 1;

// RFC 3339 in UTC: seconds + fraction / 10^digits (fraction < 10^digits, digits <= 18),
// with exactly the fraction digits the value has ("2013-03-21T20:04:00Z",
// "1970-01-01T00:00:00.5Z": trailing zeros dropped, none for a whole second). Null when
// the year is outside 0000..9999 (the caller refuses it); else the end.
char* WriteRfc3339(char* p, int64_t seconds, uint64_t fraction, int digits);

}  // namespace rosetta::codec
