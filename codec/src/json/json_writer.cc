#include "json/json_writer.h"

#include "json/json_escape.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace rosetta::codec {
namespace {}  // namespace

bool JsonWriter::OutputFull() {
  if (out_.over_limit()) {
    return ctx_.Fail(ErrorCode::kOutputTooLarge, "output would pass max_output_bytes " +
                                                     std::to_string(ctx_.limits.max_output_bytes));
  }
  return ctx_.BudgetExceeded(out_.capacity());
}

bool JsonWriter::RoomExact(size_t exact) {
  if (out_.Ensure(exact)) return true;
  return OutputFull();
}

bool JsonWriter::DoubleExact(double d) {
  char buf[32];
  const size_t size = static_cast<size_t>(WriteJsonDouble(buf, d) - buf);
  if (!RoomExact(Sep() + size)) return false;
  Prefix();
  out_.Append(buf, size);
  return true;
}

// The exact size of what Integer() writes, when the 24-byte bound does not fit.
bool JsonWriter::IntegerRoom(uint64_t v, bool negative, bool key) {
  size_t digits = 20;  // -1 - (2^64 - 1) prints as -18446744073709551616
  if (!negative || v != ~uint64_t{0}) {
    char buf[24];
    digits =
        static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, negative ? v + 1 : v).ptr - buf);
  }
  return RoomExact(Sep() + (key ? 2 : 0) + (negative ? 1 : 0) + digits);
}

bool JsonWriter::BadKey(const char* type) {
  return Unrepresentable(std::string("a ") + type +
                         " map key has no JSON form (keys must be text or integers)");
}

bool JsonWriter::NonFinite(double d) {
  if (ctx_.options.nonfinite_as_null) return Literal("null", 4);
  return Unrepresentable(std::string(std::isnan(d) ? "NaN" : "Infinity") + " has no JSON form");
}

bool JsonWriter::String(std::string_view s) {
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

bool JsonWriter::Base64(std::string_view s) {
  static constexpr char kUrl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  static constexpr char kStd[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const bool standard = ctx_.options.base64_standard;
  const char* alphabet = standard ? kStd : kUrl;
  const size_t tail = s.size() % 3;
  const size_t encoded =
      standard || tail == 0 ? (s.size() + 2) / 3 * 4 : s.size() / 3 * 4 + tail + 1;
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
bool JsonWriter::SpecialOther() {
  if (ip_depth_) return Unrepresentable("tag 52/54 prefix must be [length, address bytes]");
  special_ = false;
  if (pending_tag_ >= kTagMsgpackExtBase && pending_tag_ <= kTagMsgpackExtBase + 0xff) {
    return Unrepresentable("MessagePack ext type " +
                           std::to_string(static_cast<int8_t>(pending_tag_ - kTagMsgpackExtBase)) +
                           " has no JSON form");
  }
  return true;
}

bool JsonWriter::SpecialInt(uint64_t v, bool negative) {
  if (ip_depth_ && stack_.depth() == ip_depth_ && ip_field_ == 0 && !negative) {
    ip_prefix_ = v;
    ip_field_ = 1;
    return true;
  }
  if (!SpecialOther()) return false;
  return Integer(v, negative);
}

bool JsonWriter::SpecialBytes(std::string_view s) {
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

bool JsonWriter::SpecialArray() {
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

bool JsonWriter::EndIpPrefix() {
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
bool JsonWriter::IpText(bool v6, std::string_view addr, int prefix) {
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
  if (!Room(Sep() + static_cast<size_t>(o - buf))) return false;
  Prefix();
  out_.Append(buf, o - buf);
  return true;
}

// The exact decimal form of a bignum (RFC 8949 3.4.3): value n, or -1 - n when negative.
bool JsonWriter::Bignum(std::string_view magnitude, bool negative) {
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
  if (!Room(Sep() + (negative ? 1 : 0) + digits.size())) return false;
  Prefix();
  if (negative) out_.Put('-');
  for (size_t i = digits.size(); i-- > 0;) out_.Put(digits[i]);
  return true;
}

}  // namespace rosetta::codec
