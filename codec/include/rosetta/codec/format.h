#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rosetta::codec {

// Numbers are the proto enum's (rosetta.v1.Format) and the TCP protocol's.
enum class Format : uint8_t { kJson = 1, kCbor = 2, kMsgpack = 3, kProtobuf = 4, kFixed = 5 };

// The format registry: each format described once. The CLI's FMT names, the metrics'
// labels, the HTTP media types and the check of a format number on the wire all come from
// here; the (reader, writer) pairs are built from it at compile time (codec/src/formats.h).
// A new format is its folder under codec/src/, its row here and its line in formats.h.
struct FormatInfo {
  Format format;
  std::string_view name;            // "json": CLI, metrics label, docs
  std::string_view media_type;      // HTTP Content-Type / Accept
  std::string_view alt_media_type;  // also accepted on input ("" for none)
  // Read and written through loaded descriptors: the request's Schema runs it
  // (TranscodeRequest::schema and ::message_type); without one it is unknown_message_type.
  bool needs_schema;
};

inline constexpr std::array<FormatInfo, 5> kFormatTable = {{
    {Format::kJson, "json", "application/json", "", false},
    {Format::kCbor, "cbor", "application/cbor", "", false},
    {Format::kMsgpack, "msgpack", "application/msgpack", "application/vnd.msgpack", false},
    {Format::kProtobuf, "protobuf", "application/x-protobuf", "", true},
    // Records of a protobuf message type whose fields all have a fixed size
    // (docs/formats.md "Fixed records").
    {Format::kFixed, "fixed", "application/x-rosetta-fixed", "", true},
}};

// The row of a format number from the wire (gRPC enum, TCP byte), or null: 0 and
// numbers past the table are not formats.
constexpr const FormatInfo* FindFormat(int number) {
  for (const FormatInfo& f : kFormatTable) {
    if (static_cast<int>(f.format) == number) return &f;
  }
  return nullptr;
}
constexpr const FormatInfo& Info(Format format) { return *FindFormat(static_cast<int>(format)); }

std::optional<Format> ParseFormat(std::string_view name);  // "json", "cbor", ...
std::string_view FormatName(Format format);  // "unknown" for a number not in the table
// "json (1), cbor (2), msgpack (3), protobuf (4), fixed (5)": what a refusal of a format
// number lists.
std::string FormatList();

}  // namespace rosetta::codec
