#include "json/json_writer.h"

#include "core/timestamp.h"
#include "json/json_escape.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <string>
#include <vector>

namespace rosetta::codec {
template <bool kPretty>
bool BasicJsonWriter<kPretty>::OutputFull() {
  if (out_.over_limit()) {
    return ctx_.Fail(ErrorCode::kOutputTooLarge, "output would pass max_output_bytes " +
                                                     std::to_string(ctx_.limits.max_output_bytes));
  }
  return ctx_.BudgetExceeded(out_.capacity());
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::RoomExact(size_t exact) {
  if (out_.Ensure(exact)) return true;
  return OutputFull();
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::DoubleExact(double d) {
  char buf[32];
  const size_t size = static_cast<size_t>(WriteJsonDouble(buf, d) - buf);
  if (!RoomExact(Sep() + size)) return false;
  Prefix();
  out_.Append(buf, size);
  return true;
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::DecimalAsDouble(std::string_view text) {
  double d = 0;
  // libstdc++'s from_chars reads decimals exactly (correctly rounded).
  std::from_chars(text.data(), text.data() + text.size(), d);
  return Double(d);
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::FloatExact(float f) {
  char buf[32];
  const size_t size = static_cast<size_t>(WriteJsonFloat(buf, f) - buf);
  if (!RoomExact(Sep() + size)) return false;
  Prefix();
  out_.Append(buf, size);
  return true;
}

// The exact size of what Integer() writes, when the 24-byte bound does not fit.
template <bool kPretty>
bool BasicJsonWriter<kPretty>::IntegerRoom(uint64_t v, bool negative, bool key) {
  size_t digits = 20;  // -1 - (2^64 - 1) prints as -18446744073709551616
  if (!negative || v != ~uint64_t{0}) {
    char buf[24];
    digits =
        static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, negative ? v + 1 : v).ptr - buf);
  }
  return RoomExact(Sep() + (key ? 2 : 0) + (negative ? 1 : 0) + digits);
}

// ",\n" (not before a container's first item) and two spaces a level before an array
// element or a key, ": " before a value; nothing before the top-level item.
template <bool kPretty>
bool BasicJsonWriter<kPretty>::PrettyLead() {
  const WriterLevel& l = stack_.top();
  const size_t depth = stack_.depth();
  if (depth == 0) return true;
  if (l.is_map && (l.count & 1)) {
    if (!Room(2)) return false;
    out_.Append(": ", 2);
    return true;
  }
  const size_t n = (l.count ? 2 : 1) + 2 * depth;
  if (!Room(n)) return false;
  char* p = out_.cursor();
  if (l.count) *p++ = ',';
  *p++ = '\n';
  std::memset(p, ' ', 2 * depth);
  out_.Advance(n);
  return true;
}

// A container that has items closes on a line of its own, at its opening line's indent.
template <bool kPretty>
bool BasicJsonWriter<kPretty>::PrettyEnd(char close) {
  const size_t indent = 2 * stack_.depth();
  if (!Room(indent + 2)) return false;
  char* p = out_.cursor();
  p[0] = '\n';
  std::memset(p + 1, ' ', indent);
  p[indent + 1] = close;
  out_.Advance(indent + 2);
  return true;
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::BadKey(const char* type) {
  return Unrepresentable(std::string("a ") + type +
                         " map key has no JSON form (keys must be text or integers)");
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::NonFinite(double d) {
  if (ctx_.options.nonfinite_as_null) return Literal("null", 4);
  return Unrepresentable(std::string(std::isnan(d) ? "NaN" : "Infinity") + " has no JSON form");
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::String(std::string_view s) {
  // A short string when the room for its worst case is there already: written directly,
  // word by word (never made room for: that could grow the buffer, and charge the budget,
  // for escapes the string does not have).
  if (s.size() <= kBoundedJsonString &&
      static_cast<size_t>(out_.room_end() - out_.cursor()) >= BoundedJsonStringRoom(s.size())) {
    char* const o = out_.cursor();
    out_.Advance(WriteJsonStringBounded(o, s, s.data() + s.size()) - o);
    return true;
  }
  if (!WriteJsonString(out_, s)) [[unlikely]]
    return OutputFull();
  return true;
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::Base64(std::string_view s) {
  static constexpr char kUrl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  static constexpr char kStd[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const bool standard = ctx_.options.base64_standard;
  const char* alphabet = standard ? kStd : kUrl;
  const size_t tail = s.size() % 3;
  const size_t encoded =
      standard || tail == 0 ? (s.size() + 2) / 3 * 4 : s.size() / 3 * 4 + tail + 1;
  if (!Lead()) return false;
  if (!Room((s.size() + 2) / 3 * 4 + 3, Sep() + encoded + 2)) return false;
  Prefix();
  char* o = out_.cursor();
  char* const start = o;
  *o++ = '"';
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t n = s.size(), i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = p[i] << 16 | p[i + 1] << 8 | p[i + 2];
    o[0] = alphabet[v >> 18];
    o[1] = alphabet[(v >> 12) & 63];
    o[2] = alphabet[(v >> 6) & 63];
    o[3] = alphabet[v & 63];
    o += 4;
  }
  if (n - i == 1) {
    uint32_t v = p[i] << 16;
    *o++ = alphabet[v >> 18];
    *o++ = alphabet[(v >> 12) & 63];
    if (standard) {
      *o++ = '=';
      *o++ = '=';
    }
  } else if (n - i == 2) {
    uint32_t v = p[i] << 16 | p[i + 1] << 8;
    *o++ = alphabet[v >> 18];
    *o++ = alphabet[(v >> 12) & 63];
    *o++ = alphabet[(v >> 6) & 63];
    if (standard) *o++ = '=';
  }
  *o++ = '"';
  out_.Advance(o - start);
  return true;
}

// The item after a tag that was not what the tag wants: ext tags refuse it, an IP
// capture refuses it, the other tags are dropped.
template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialOther() {
  if (ip_depth_) return Unrepresentable("tag 52/54 prefix must be [length, address bytes]");
  special_ = false;
  if (pending_tag_ >= kTagMsgpackExtBase && pending_tag_ <= kTagMsgpackExtBase + 0xff) {
    return Unrepresentable("MessagePack ext type " +
                           std::to_string(static_cast<int8_t>(pending_tag_ - kTagMsgpackExtBase)) +
                           " has no JSON form");
  }
  return true;
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialLiteral(const char* text, size_t n) {
  if (InTime()) return Time(kTimeOther);
  return SpecialOther() && LiteralItem(text, n);
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialDouble(double d) {
  if (InTime()) return Time(kTimeDouble, 0, d);
  return SpecialOther() && DoubleItem(d);
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialText(std::string_view s) {
  if (InTime()) return Time(kTimeText);
  return SpecialOther() && TextItem(s);
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialMap() {
  if (InTime()) return Time(kTimeBeginMap);
  return SpecialOther() && Begin('{', true);
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialEndArray() {
  if (InTime()) return Time(kTimeEnd);
  if (ip_depth_ && stack_.depth() == ip_depth_) return EndIpPrefix();
  return End(']');
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialEndMap() {
  if (InTime()) return Time(kTimeEnd);
  return End('}');
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialTag(uint64_t tag) {
  if (InTime()) return Time(kTimeTag);
  return SpecialOther() && TagItem(tag);
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialInt(uint64_t v, bool negative) {
  if (InTime()) return Time(negative ? kTimeNegInt : kTimeUint, v);
  if (ip_depth_ && stack_.depth() == ip_depth_ && ip_field_ == 0 && !negative) {
    ip_prefix_ = v;
    ip_field_ = 1;
    return true;
  }
  if (!SpecialOther()) return false;
  return Integer(v, negative);
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialBytes(std::string_view s) {
  if (InTime()) return Time(kTimeOther);
  if (ip_depth_) {
    if (stack_.depth() != ip_depth_ || ip_field_ != 1 || s.size() > (ip_v6_ ? 16u : 4u))
      return SpecialOther();
    std::memset(ip_addr_, 0, sizeof ip_addr_);
    std::memcpy(ip_addr_, s.data(), s.size());
    ip_addr_size_ = s.size();
    ip_field_ = 2;
    return true;
  }
  const uint64_t tag = pending_tag_;
  if (tag == kTagPositiveBignum || tag == kTagNegativeBignum) {
    special_ = false;
    if (AtKey()) return BadKey("bignum");
    return Bignum(s, tag == kTagNegativeBignum);
  }
  if (tag == kTagIpv4 || tag == kTagIpv6) {
    special_ = false;
    if (AtKey()) return BadKey("IP address");
    const size_t want = tag == kTagIpv6 ? 16 : 4;
    if (s.size() != want)
      return Unrepresentable("tag " + std::to_string(tag) + " address must have " +
                             std::to_string(want) + " bytes");
    return IpText(tag == kTagIpv6, s, -1);
  }
  if (!SpecialOther()) return false;
  return Bytes(s);
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::SpecialArray() {
  if (InTime()) return Time(kTimeBeginArray);
  if (ip_depth_) return SpecialOther();
  if (pending_tag_ == kTagIpv4 || pending_tag_ == kTagIpv6) {
    if (AtKey()) return BadKey("IP prefix");
    if (!stack_.Push(WriterLevel{0, 0, false, false})) return false;
    ip_depth_ = stack_.depth();
    ip_v6_ = pending_tag_ == kTagIpv6;
    ip_field_ = 0;
    return true;  // special_ stays set: the capture sees the next items
  }
  if (!SpecialOther()) return false;
  return Begin('[', false);
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::EndIpPrefix() {
  stack_.Pop();
  ip_depth_ = 0;
  special_ = false;
  if (ip_field_ != 2 || ip_prefix_ > (ip_v6_ ? 128u : 32u))
    return Unrepresentable("tag 52/54 prefix must be [length, address bytes]");
  return IpText(ip_v6_, {reinterpret_cast<const char*>(ip_addr_), ip_v6_ ? 16u : 4u},
                static_cast<int>(ip_prefix_));
}

// Dotted quad, or RFC 5952 text for IPv6 (lowercase, no leading zeros, the longest run
// of two or more zero groups as "::"), then "/prefix" when there is one.
template <bool kPretty>
bool BasicJsonWriter<kPretty>::IpText(bool v6, std::string_view addr, int prefix) {
  char buf[64];
  char* o = buf;
  *o++ = '"';
  const auto* b = reinterpret_cast<const uint8_t*>(addr.data());
  auto dotted = [&o](const uint8_t* q) {
    for (int i = 0; i < 4; ++i) {
      if (i) *o++ = '.';
      o = std::to_chars(o, o + 3, q[i]).ptr;
    }
  };
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (!v6) {
    dotted(b);
  } else if (std::memcmp(b, kMapped, 12) == 0) {
    // An IPv4-mapped address keeps its dotted quad (RFC 5952 section 5).
    std::memcpy(o, "::ffff:", 7);
    o += 7;
    dotted(b + 12);
  } else {
    uint16_t g[8];
    for (int i = 0; i < 8; ++i) g[i] = static_cast<uint16_t>(b[2 * i] << 8 | b[2 * i + 1]);
    int best = -1, best_len = 1;
    for (int i = 0; i < 8;) {
      if (g[i] != 0) {
        ++i;
        continue;
      }
      int j = i;
      while (j < 8 && g[j] == 0) ++j;
      if (j - i > best_len) {
        best = i;
        best_len = j - i;
      }
      i = j;
    }
    for (int i = 0; i < 8; ++i) {
      if (i == best) {
        *o++ = ':';
        *o++ = ':';
        i += best_len - 1;
        continue;
      }
      if (i && i != best + best_len) *o++ = ':';
      o = std::to_chars(o, o + 4, g[i], 16).ptr;
    }
  }
  if (prefix >= 0) {
    *o++ = '/';
    o = std::to_chars(o, o + 3, prefix).ptr;
  }
  *o++ = '"';
  if (!Lead() || !Room(Sep() + static_cast<size_t>(o - buf))) return false;
  Prefix();
  out_.Append(buf, o - buf);
  return true;
}

// The exact decimal form of a bignum (RFC 8949 3.4.3): value n, or -1 - n when negative.
template <bool kPretty>
bool BasicJsonWriter<kPretty>::Bignum(std::string_view magnitude, bool negative) {
  // Printing is quadratic in the length: bound it (as CPython bounds int/str conversion).
  static constexpr size_t kMaxBignumBytes = 4096;
  if (magnitude.size() > kMaxBignumBytes) return Unrepresentable("bignum longer than 4096 bytes");
  const size_t limbs_needed = (magnitude.size() + 3) / 4 + 1;
  const size_t digits_max = magnitude.size() * 241 / 100 + 3;  // log10(256) < 2.41
  if (!ctx_.budget.Charge(limbs_needed * 4 + digits_max))
    return ctx_.BudgetExceeded(limbs_needed * 4 + digits_max);
  std::vector<uint32_t> limbs;  // little-endian base 2^32
  limbs.reserve(limbs_needed);
  const auto* p = reinterpret_cast<const uint8_t*>(magnitude.data());
  for (size_t end = magnitude.size(); end > 0;) {
    uint32_t v = 0;
    size_t begin = end >= 4 ? end - 4 : 0;
    for (size_t i = begin; i < end; ++i) v = v << 8 | p[i];
    limbs.push_back(v);
    end = begin;
  }
  if (negative) {  // -1 - n: print n + 1
    size_t i = 0;
    while (i < limbs.size() && ++limbs[i] == 0) ++i;
    if (i == limbs.size()) limbs.push_back(1);
  }
  while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
  std::string digits;
  digits.reserve(digits_max);
  while (!limbs.empty()) {
    uint64_t rem = 0;
    for (size_t i = limbs.size(); i-- > 0;) {
      uint64_t cur = rem << 32 | limbs[i];
      limbs[i] = static_cast<uint32_t>(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
    for (int k = 0; k < 9; ++k) {
      digits.push_back(static_cast<char>('0' + rem % 10));
      rem /= 10;
      if (limbs.empty() && rem == 0) break;
    }
  }
  if (digits.empty()) digits.push_back('0');
  if (!Lead()) return false;
  if (!Room(Sep() + (negative ? 1 : 0) + digits.size())) return false;
  Prefix();
  if (negative) out_.Put('-');
  for (size_t i = digits.size(); i-- > 0;) out_.Put(digits[i]);
  return true;
}

// ---- timestamps_as_text (docs/formats.md "Timestamps as text") ----

namespace {
constexpr uint64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
const char kOutOfYears[] = "timestamp outside the years 0000..9999 has no RFC 3339 form";
}  // namespace

// Tag 1's item is written as it comes; tag 1001's map is read whole: its keys in any
// order, the text written when it closes. special_ stays set while the map is open.
template <bool kPretty>
bool BasicJsonWriter<kPretty>::Time(TimeEvent event, uint64_t v, double d) {
  if (!time_.open) {
    if (pending_tag_ == kTagExtendedTime) {
      if (event != kTimeBeginMap)
        return Unrepresentable("tag 1001 content must be a map (RFC 9581 section 3)");
      time_ = TimeMap{};
      time_.open = true;
      return true;
    }
    special_ = false;  // tag 1 (RFC 8949 section 3.4.2)
    if (event == kTimeUint || event == kTimeNegInt) {
      if (v > kMaxInt64) return Unrepresentable(kOutOfYears);
      return TimeText(event == kTimeUint ? static_cast<int64_t>(v) : -1 - static_cast<int64_t>(v),
                      0, 0);
    }
    if (event == kTimeDouble) {
      Timestamp ts{0, 0};
      if (std::isnan(d)) return Unrepresentable("epoch time NaN has no RFC 3339 form");
      if (!EpochDoubleToTimestamp(d, &ts)) return Unrepresentable(kOutOfYears);
      return TimeText(ts.seconds, ts.nanos, 9);
    }
    return Unrepresentable("tag 1 content must be an integer or a float (RFC 8949 section 3.4.2)");
  }
  if (time_.skip_depth) {  // inside a container of a skipped value
    if (event == kTimeBeginArray || event == kTimeBeginMap) {
      ++time_.skip_depth;
    } else if (event == kTimeEnd && --time_.skip_depth == 0) {
      time_.value_of = TimeMap::kKeyDue;
    }
    return true;
  }
  if (time_.value_of == TimeMap::kSkip) {
    if (event == kTimeBeginArray || event == kTimeBeginMap) {
      time_.skip_depth = 1;
    } else if (event != kTimeTag) {  // a tag's item is skipped with it
      time_.value_of = TimeMap::kKeyDue;
    }
    return true;
  }
  if (time_.value_of == TimeMap::kKeyDue) {
    if (event == kTimeEnd) return EndTimeMap();
    return TimeMapKey(event, v);
  }
  return TimeMapValue(event, v, d);
}

// RFC 9581 section 3: unsigned keys are a base time or critical and must be understood;
// negative integer and text keys are elective and ignored unless this writer uses them.
template <bool kPretty>
bool BasicJsonWriter<kPretty>::TimeMapKey(TimeEvent event, uint64_t v) {
  if (event == kTimeUint) {
    if (v != 1) {
      return Unrepresentable("tag 1001 key " + std::to_string(v) +
                             " (a base time or critical key) is not supported");
    }
    if (time_.has_seconds) return Unrepresentable("tag 1001 key 1 given twice");
    time_.value_of = 1;
    return true;
  }
  if (event == kTimeNegInt) {
    const int64_t key = v < 18 ? -1 - static_cast<int64_t>(v) : 0;
    if (key == -1) {
      time_.value_of = -1;                  // timescale
    } else if (key != 0 && key % 3 == 0) {  // -3 .. -18: a decimal fraction (section 3.3)
      if (time_.digits) return Unrepresentable("tag 1001 has more than one fraction key");
      time_.value_of = key;
    } else {
      time_.value_of = TimeMap::kSkip;
    }
    return true;
  }
  if (event == kTimeText) {
    time_.value_of = TimeMap::kSkip;
    return true;
  }
  return Unrepresentable("tag 1001 map keys must be integers or text (RFC 9581 section 3)");
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::TimeMapValue(TimeEvent event, uint64_t v, double d) {
  const int64_t key = time_.value_of;
  time_.value_of = TimeMap::kKeyDue;
  if (key == 1) {
    time_.has_seconds = true;
    if (event == kTimeDouble) {
      time_.float_seconds = true;
      time_.seconds_double = d;
      return true;
    }
    if (event != kTimeUint && event != kTimeNegInt)
      return Unrepresentable("tag 1001 key 1 must be an integer or a float");
    time_.seconds_in_range = v <= kMaxInt64;
    time_.seconds =
        event == kTimeUint ? static_cast<int64_t>(v) : -1 - static_cast<int64_t>(v & kMaxInt64);
    return true;
  }
  if (key == -1) {
    if (event != kTimeUint || v != 0)
      return Unrepresentable("tag 1001 timescale (key -1) other than UTC (0) is not supported");
    return true;
  }
  if (event != kTimeUint) {
    return Unrepresentable("tag 1001 key " + std::to_string(key) +
                           " must be an unsigned integer (RFC 9581 section 3.3)");
  }
  time_.digits = static_cast<int>(-key);
  time_.fraction = v;
  return true;
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::EndTimeMap() {
  special_ = false;
  time_.open = false;
  if (!time_.has_seconds) return Unrepresentable("tag 1001 without a base time (key 1)");
  if (time_.float_seconds) {
    if (time_.digits) {
      return Unrepresentable(
          "tag 1001 key 1 must be an integer beside a fraction key (RFC 9581 section 3.3)");
    }
    Timestamp ts{0, 0};
    if (std::isnan(time_.seconds_double))
      return Unrepresentable("epoch time NaN has no RFC 3339 form");
    if (!EpochDoubleToTimestamp(time_.seconds_double, &ts)) return Unrepresentable(kOutOfYears);
    return TimeText(ts.seconds, ts.nanos, 9);
  }
  if (!time_.seconds_in_range) return Unrepresentable(kOutOfYears);
  int64_t seconds = time_.seconds;
  uint64_t fraction = time_.fraction;
  if (time_.digits) {  // a fraction of a second or more carries into the seconds
    const uint64_t unit = kPowersOf10[time_.digits];
    const uint64_t carry = fraction / unit;
    fraction %= unit;
    if (carry > kMaxInt64 || __builtin_add_overflow(seconds, static_cast<int64_t>(carry), &seconds))
      return Unrepresentable(kOutOfYears);
  }
  return TimeText(seconds, fraction, time_.digits);
}

template <bool kPretty>
bool BasicJsonWriter<kPretty>::TimeText(int64_t seconds, uint64_t fraction, int digits) {
  char buf[kMaxRfc3339Size + 2];
  buf[0] = '"';
  char* end = WriteRfc3339(buf + 1, seconds, fraction, digits);
  if (end == nullptr) return Unrepresentable(kOutOfYears);
  *end++ = '"';
  const auto size = static_cast<size_t>(end - buf);
  if (!Lead() || !Room(Sep() + size)) return false;
  Prefix();
  out_.Append(buf, size);
  return true;
}

template class BasicJsonWriter<false>;
template class BasicJsonWriter<true>;

}  // namespace rosetta::codec
