#pragma once

#include <string>
#include <string_view>

namespace rosetta::testing {

// "d8 18 41 01" -> bytes (spaces and newlines ignored; throws on a bad digit). Expected
// bytes in tests are written this way by hand from the RFCs and specs.
std::string Hex(std::string_view hex);
// bytes -> lowercase hex, `separator` between bytes.
std::string ToHex(std::string_view bytes, std::string_view separator = "");

}  // namespace rosetta::testing
