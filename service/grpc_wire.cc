#include "service/grpc_wire.h"

#include <zlib.h>

namespace rosetta::service::grpc {

bool ParseTimeout(std::string_view v, std::chrono::nanoseconds* timeout) {
  if (v.size() < 2 || v.size() > 9) return false;
  uint64_t n = 0;
  for (char c : v.substr(0, v.size() - 1)) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  using std::chrono::nanoseconds;
  switch (v.back()) {
    case 'H':
      *timeout = std::chrono::hours(n);
      return true;
    case 'M':
      *timeout = std::chrono::minutes(n);
      return true;
    case 'S':
      *timeout = std::chrono::seconds(n);
      return true;
    case 'm':
      *timeout = std::chrono::milliseconds(n);
      return true;
    case 'u':
      *timeout = std::chrono::microseconds(n);
      return true;
    case 'n':
      *timeout = nanoseconds(n);
      return true;
    default:
      return false;
  }
}

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c <= 0x7e && c != '%') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (bytes.size() - i == 1) {
    const uint32_t v = uint32_t{p[i]} << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
  } else if (bytes.size() - i == 2) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
  }
  return out;
}

namespace {

bool ReadVarint(const unsigned char*& p, const unsigned char* end, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const unsigned char b = *p++;
    result |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) {
      *v = result;
      return true;
    }
  }
  return false;
}

}  // namespace

bool ReadWireFields(std::string_view message, WireFields* f) {
  const auto* p = reinterpret_cast<const unsigned char*>(message.data());
  const auto* end = p + message.size();
  while (p < end) {
    uint64_t tag;
    if (!ReadVarint(p, end, &tag)) return false;
    const uint64_t number = tag >> 3;
    const int wire = static_cast<int>(tag & 7);
    if (number == 0) return false;
    uint64_t v = 0;
    std::string_view bytes;
    switch (wire) {
      case 0:
        if (!ReadVarint(p, end, &v)) return false;
        break;
      case 1:
        if (end - p < 8) return false;
        p += 8;
        break;
      case 5:
        if (end - p < 4) return false;
        p += 4;
        break;
      case 2:
        if (!ReadVarint(p, end, &v) || v > static_cast<uint64_t>(end - p)) return false;
        bytes = {reinterpret_cast<const char*>(p), static_cast<size_t>(v)};
        p += v;
        break;
      default:  // groups are not part of proto3 and never in these messages
        return false;
    }
    if (number >= WireFields::kMaxField) continue;
    const auto n = static_cast<size_t>(number);
    if (f->seen[n] != 0 && f->wire_type[n] != wire) return false;
    f->wire_type[n] = static_cast<uint8_t>(wire);
    if (f->seen[n] < 255) ++f->seen[n];
    f->varint[n] = v;
    f->bytes[n] = bytes;
  }
  return true;
}

void AppendVarint(std::string* out, uint64_t v) {
  char buf[10];
  size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out->append(buf, n);
}

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

bool Gunzip(std::string_view in, uint64_t limit, std::string* out, bool* too_large) {
  *too_large = false;
  out->clear();
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return false;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  char chunk[16384];
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof(chunk);
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    const size_t got = sizeof(chunk) - z.avail_out;
    if (out->size() + got > limit) {
      *too_large = true;
      break;
    }
    out->append(chunk, got);
    if (rc == Z_OK && got == 0 && z.avail_in == 0) break;  // input ended early
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END && z.avail_in == 0 && !*too_large;
}

}  // namespace rosetta::service::grpc
