#include "msgpack/msgpack_reader.h"

#include <string>

namespace rosetta::codec::msgpack_detail {

std::string ClaimsBytes(uint64_t need, uint64_t left) {
  return "item claims " + std::to_string(need) + " bytes but " + std::to_string(left) + " remain";
}

std::string ClaimsItems(bool is_map, uint64_t n, uint64_t left) {
  return (is_map ? "map claims " : "array claims ") + std::to_string(n) + " items but " +
         std::to_string(left) + " bytes remain";
}

std::string StringTooLarge(uint64_t len, uint64_t max_string_bytes) {
  return "string of " + std::to_string(len) + " bytes passes max_string_bytes " +
         std::to_string(max_string_bytes);
}

std::string TooManyItems(uint64_t n, uint64_t max_items) {
  return std::to_string(n) + " items pass max_items " + std::to_string(max_items);
}

std::string BadTimestamp(size_t size) {
  if (size == 4 || size == 8 || size == 12) return "timestamp nanoseconds above 999999999";
  return "timestamp extension of " + std::to_string(size) + " bytes";
}

std::string TrailingBytes(uint64_t n) {
  return std::to_string(n) + " bytes after the end of the object";
}

}  // namespace rosetta::codec::msgpack_detail
