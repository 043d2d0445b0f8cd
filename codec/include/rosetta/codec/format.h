#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rosetta::codec {

// Numbers are the proto enum's (rosetta.v1.Format) and the TCP protocol's.
enum class Format : uint8_t { kJson = 1, kCbor = 2, kMsgpack = 3, kProtobuf = 4 };

std::optional<Format> ParseFormat(std::string_view name);  // "json", "cbor", ...
std::string_view FormatName(Format format);

}  // namespace rosetta::codec
