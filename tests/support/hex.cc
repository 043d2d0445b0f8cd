#include "hex.h"

#include <cstdint>
#include <stdexcept>

namespace rosetta::testing {
namespace {

int Nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  throw std::invalid_argument("bad hex digit");
}

}  // namespace

std::string Hex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (char c : hex) {
    if (c == ' ' || c == '\n') continue;
    if (hi < 0) {
      hi = Nibble(c);
    } else {
      out.push_back(static_cast<char>(hi << 4 | Nibble(c)));
      hi = -1;
    }
  }
  if (hi >= 0) throw std::invalid_argument("odd number of hex digits");
  return out;
}

std::string ToHex(std::string_view bytes, std::string_view separator) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    if (!out.empty()) out.append(separator);
    out.push_back(kDigits[static_cast<uint8_t>(c) >> 4]);
    out.push_back(kDigits[static_cast<uint8_t>(c) & 15]);
  }
  return out;
}

}  // namespace rosetta::testing
