#include "core/timestamp.h"

#include "text/decimal.h"

namespace rosetta::codec {
namespace {

// round(f * 10^9) for 0 <= f < 1, exactly: f is m * 2^(e - 53) with a 53-bit m, so
// f * 10^9 is m * 10^9 (below 2^83) shifted right by 53 - e. A remainder of exactly half
// rounds up when `half_up`, else down.
uint64_t FractionToNanos(double f, bool half_up) {
  if (f == 0) return 0;
  int e;
  const double m = std::frexp(f, &e);  // 0.5 <= m < 1, e <= 0
  const int shift = 53 - e;
  if (shift >= 84) return 0;  // f * 10^9 < 2^83 / 2^84: below one half
  const auto mantissa = static_cast<uint64_t>(std::ldexp(m, 53));
  const unsigned __int128 scaled = static_cast<unsigned __int128>(mantissa) * 1000000000u;
  const unsigned __int128 low = scaled & ((static_cast<unsigned __int128>(1) << shift) - 1);
  const unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
  auto nanos = static_cast<uint64_t>(scaled >> shift);
  if (low > half || (low == half && half_up)) ++nanos;
  return nanos;
}

}  // namespace

bool EpochDoubleToTimestamp(double d, Timestamp* ts) {
  if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) return false;
  // Split the magnitude: a - floor(a) is exact for a >= 0 (d - floor(d) is not when
  // -1 < d < 0: 1 + d rounds).
  const double a = std::fabs(d);
  const double whole = std::floor(a);
  auto seconds = static_cast<int64_t>(whole);
  // Halfway goes to the later instant: up for a positive d, toward zero for a negative one.
  uint64_t nanos = FractionToNanos(a - whole, d >= 0);
  if (nanos == 1000000000) {
    ++seconds;
    nanos = 0;
  }
  if (d < 0) {
    seconds = -seconds;
    if (nanos != 0) {
      --seconds;
      nanos = 1000000000 - nanos;
    }
  }
  *ts = {seconds, nanos};
  return true;
}

CivilDate CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<int64_t>(yoe) + era * 400 + (m <= 2), m, d};
}

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

char* WriteDateTime(char* p, int64_t seconds) {
  using decimal_detail::Four;
  using decimal_detail::Pair;
  const int64_t days = (seconds >= 0 ? seconds : seconds - 86399) / 86400;
  const auto rem = static_cast<uint32_t>(seconds - days * 86400);
  const CivilDate date = CivilFromDays(days);
  Four(p, static_cast<uint32_t>(date.year));
  p[4] = '-';
  Pair(p + 5, date.month);
  p[7] = '-';
  Pair(p + 8, date.day);
  p[10] = 'T';
  Pair(p + 11, rem / 3600);
  p[13] = ':';
  Pair(p + 14, rem / 60 % 60);
  p[16] = ':';
  Pair(p + 17, rem % 60);
  return p + 19;
}

char* WriteRfc3339(char* p, int64_t seconds, uint64_t fraction, int digits) {
  if (seconds < kYear0Seconds || seconds >= kYear10000Seconds) return nullptr;
  p = WriteDateTime(p, seconds);
  if (fraction != 0) {
    while (fraction % 10 == 0) {
      fraction /= 10;
      --digits;
    }
    *p++ = '.';
    for (int i = digits - 1; i >= 0; --i) {
      p[i] = static_cast<char>('0' + fraction % 10);
      fraction /= 10;
    }
    p += digits;
  }
  *p++ = 'Z';
  return p;
}

}  // namespace rosetta::codec
