#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rosetta::codec {

// Text forms of the well-known types in the proto3 JSON mapping.

// RFC 3339 "1972-01-01T10:00:20.021Z" (0, 3, 6 or 9 fraction digits), for
// 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z. Returns the length written to
// out (at least 32 bytes), or 0 when the value is out of that range.
size_t FormatTimestamp(int64_t seconds, int32_t nanos, char* out);
bool ParseTimestamp(std::string_view text, int64_t* seconds, int32_t* nanos);

// "1.000340012s", "-0.5s"; |seconds| <= 315576000000 and nanos of the same sign.
size_t FormatDuration(int64_t seconds, int32_t nanos, char* out);
bool ParseDuration(std::string_view text, int64_t* seconds, int32_t* nanos);

// FieldMask paths: "foo_bar.baz" <-> "fooBar.baz".
void AppendCamelPath(std::string_view snake, std::string& out);
// False when the lowerCamelCase form of a path would not convert back to it: an upper-case
// letter, or '_' not followed by a lower-case letter ("foo_1", "foo__bar", "foo_").
bool CamelPathRoundTrips(std::string_view snake);
bool AppendSnakePath(std::string_view camel, std::string& out);

// Base64 (standard or URL alphabet, padding optional), as proto3 JSON accepts for bytes.
// DecodedSize is exact for valid input; Decode returns false on invalid input.
size_t Base64DecodedSize(std::string_view text);
bool Base64Decode(std::string_view text, char* out);

}  // namespace rosetta::codec
