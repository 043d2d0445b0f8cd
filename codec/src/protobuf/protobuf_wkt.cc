#include "protobuf/protobuf_wkt.h"

#include <charconv>
#include <cstring>

#include "core/timestamp.h"

namespace rosetta::codec {
namespace {

constexpr int64_t kMinTimestamp = -62135596800;  // 0001-01-01T00:00:00Z
constexpr int64_t kMaxTimestamp = 253402300799;  // 9999-12-31T23:59:59Z
constexpr int64_t kMaxDurationSeconds = 315576000000;

char* PutDigits(char* p, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return p + width;
}

// 0, 3, 6 or 9 digits, as protobuf prints them.
char* PutNanos(char* p, int32_t nanos) {
  if (nanos == 0) return p;
  *p++ = '.';
  if (nanos % 1000000 == 0) return PutDigits(p, nanos / 1000000, 3);
  if (nanos % 1000 == 0) return PutDigits(p, nanos / 1000, 6);
  return PutDigits(p, nanos, 9);
}

bool ParseDigits(std::string_view s, size_t at, int n, int* out) {
  if (at + n > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[at + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

// ".ddd" up to 9 digits at s[at]: nanoseconds; advances at.
bool ParseFraction(std::string_view s, size_t* at, int32_t* nanos) {
  *nanos = 0;
  if (*at >= s.size() || s[*at] != '.') return true;
  ++*at;
  int digits = 0;
  int32_t v = 0;
  while (*at < s.size() && s[*at] >= '0' && s[*at] <= '9') {
    if (++digits > 9) return false;
    v = v * 10 + (s[*at] - '0');
    ++*at;
  }
  if (digits == 0) return false;
  for (int i = digits; i < 9; ++i) v *= 10;
  *nanos = v;
  return true;
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

}  // namespace

size_t FormatTimestamp(int64_t seconds, int32_t nanos, char* out) {
  if (seconds < kMinTimestamp || seconds > kMaxTimestamp || nanos < 0 || nanos > 999999999)
    return 0;
  char* p = WriteDateTime(out, seconds);
  p = PutNanos(p, nanos);
  *p++ = 'Z';
  return static_cast<size_t>(p - out);
}

bool ParseTimestamp(std::string_view s, int64_t* seconds, int32_t* nanos) {
  int y, mo, d, h, mi, se;
  if (s.size() < 20 || !ParseDigits(s, 0, 4, &y) || s[4] != '-' || !ParseDigits(s, 5, 2, &mo) ||
      s[7] != '-' || !ParseDigits(s, 8, 2, &d) || (s[10] != 'T' && s[10] != 't') ||
      !ParseDigits(s, 11, 2, &h) || s[13] != ':' || !ParseDigits(s, 14, 2, &mi) || s[16] != ':' ||
      !ParseDigits(s, 17, 2, &se)) {
    return false;
  }
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1] || (mo == 2 && d == 29 && !leap) ||
      h > 23 || mi > 59 || se > 59) {
    return false;
  }
  size_t at = 19;
  if (!ParseFraction(s, &at, nanos)) return false;
  int64_t offset = 0;
  if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) {
    ++at;
  } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    int oh, om;
    if (!ParseDigits(s, at + 1, 2, &oh) || at + 3 >= s.size() || s[at + 3] != ':' ||
        !ParseDigits(s, at + 4, 2, &om) || oh > 23 || om > 59) {
      return false;
    }
    offset = (s[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    at += 6;
  } else {
    return false;
  }
  if (at != s.size()) return false;
  *seconds = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
             h * 3600 + mi * 60 + se - offset;
  return *seconds >= kMinTimestamp && *seconds <= kMaxTimestamp;
}

size_t FormatDuration(int64_t seconds, int32_t nanos, char* out) {
  if (seconds < -kMaxDurationSeconds || seconds > kMaxDurationSeconds || nanos < -999999999 ||
      nanos > 999999999 || (seconds > 0 && nanos < 0) || (seconds < 0 && nanos > 0)) {
    return 0;
  }
  char* p = out;
  if (seconds < 0 || nanos < 0) *p++ = '-';
  p = std::to_chars(p, p + 24,
                    seconds < 0 ? -static_cast<uint64_t>(seconds) : static_cast<uint64_t>(seconds))
          .ptr;
  p = PutNanos(p, nanos < 0 ? -nanos : nanos);
  *p++ = 's';
  return static_cast<size_t>(p - out);
}

bool ParseDuration(std::string_view s, int64_t* seconds, int32_t* nanos) {
  if (s.size() < 2 || s.back() != 's') return false;
  s.remove_suffix(1);
  bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  size_t at = 0;
  uint64_t whole = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), whole);
  if (r.ec != std::errc() || r.ptr == s.data()) return false;
  at = static_cast<size_t>(r.ptr - s.data());
  int32_t frac = 0;
  if (!ParseFraction(s, &at, &frac) || at != s.size()) return false;
  if (whole > static_cast<uint64_t>(kMaxDurationSeconds)) return false;
  *seconds = negative ? -static_cast<int64_t>(whole) : static_cast<int64_t>(whole);
  *nanos = negative ? -frac : frac;
  return true;
}

void AppendCamelPath(std::string_view snake, std::string& out) {
  bool upper = false;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    upper = false;
  }
}

bool CamelPathRoundTrips(std::string_view snake) {
  for (size_t i = 0; i < snake.size(); ++i) {
    const char c = snake[i];
    if (c >= 'A' && c <= 'Z') return false;
    if (c == '_' && (i + 1 == snake.size() || snake[i + 1] < 'a' || snake[i + 1] > 'z'))
      return false;
  }
  return true;
}

bool AppendSnakePath(std::string_view camel, std::string& out) {
  for (char c : camel) {
    if (c == '_') return false;  // would not survive the round trip
    if (c >= 'A' && c <= 'Z') {
      out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return true;
}

size_t Base64DecodedSize(std::string_view t) {
  while (!t.empty() && t.back() == '=') t.remove_suffix(1);
  return t.size() / 4 * 3 + (t.size() % 4 == 0 ? 0 : t.size() % 4 - 1);
}

bool Base64Decode(std::string_view t, char* out) {
  size_t pad = 0;
  while (!t.empty() && t.back() == '=') {
    t.remove_suffix(1);
    ++pad;
  }
  if (pad > 2 || t.size() % 4 == 1 || (pad && (t.size() + pad) % 4 != 0)) return false;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : t) {
    int v = Base64Value(c);
    if (v < 0) return false;
    acc = acc << 6 | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *out++ = static_cast<char>(acc >> bits);
    }
  }
  return true;
}

}  // namespace rosetta::codec
