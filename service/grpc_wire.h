#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

// The gRPC protocol's own pieces (github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md)
// and the protobuf wire format of rosetta.v1's requests, read and written by hand on the hot
// path: a request's payload is a view into the bytes it arrived in, a response's payload is
// written after its field header in one copy.
namespace rosetta::service::grpc {

enum class Code : uint8_t {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kResourceExhausted = 8,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
};

// grpc-timeout: 1 to 8 ASCII digits and a unit (H M S m u n). False when malformed.
bool ParseTimeout(std::string_view value, std::chrono::nanoseconds* timeout);

// grpc-message: percent-encoded UTF-8, everything outside 0x20..0x7e and '%' escaped.
std::string PercentEncode(std::string_view text);

// The value of a -bin metadata entry: base64 without padding.
std::string Base64(std::string_view bytes);

// The 5-byte message prefix: compressed flag and big-endian length.
inline void AppendPrefix(std::string* out, bool compressed, uint32_t length) {
  const char p[5] = {static_cast<char>(compressed), static_cast<char>(length >> 24),
                     static_cast<char>(length >> 16), static_cast<char>(length >> 8),
                     static_cast<char>(length)};
  out->append(p, 5);
}

// A protobuf message's fields as the wire holds them: for each field number below
// kMaxField, the last scalar value or the last length-delimited bytes, and how often it
// came. Unknown fields are skipped. False when the bytes are not a protobuf message.
struct WireFields {
  static constexpr int kMaxField = 8;
  uint64_t varint[kMaxField] = {};
  std::string_view bytes[kMaxField];
  uint8_t seen[kMaxField] = {};
  uint8_t wire_type[kMaxField] = {};
};
bool ReadWireFields(std::string_view message, WireFields* fields);

void AppendVarint(std::string* out, uint64_t v);
size_t VarintSize(uint64_t v);

// gzip (grpc-encoding: gzip) inflated into *out, refused (false) past `limit` bytes or
// when the stream is not gzip; `*too_large` says which.
bool Gunzip(std::string_view in, uint64_t limit, std::string* out, bool* too_large);

}  // namespace rosetta::service::grpc
