#include "protobuf/protobuf_reader.h"

#include <string>

namespace rosetta::codec::protobuf_detail {

std::string TooManyItems(uint64_t n, uint64_t max_items) {
  return std::to_string(n) + " items pass max_items " + std::to_string(max_items);
}

std::string InvalidFieldNumber(uint64_t number, const char* where) {
  return "invalid field number " + std::to_string(number) + where;
}

std::string InvalidWireType(unsigned wire) { return "invalid wire type " + std::to_string(wire); }

std::string ClaimsBytes(uint64_t number, uint64_t claimed, uint64_t left) {
  return "field " + std::to_string(number) + " claims " + std::to_string(claimed) + " bytes but " +
         std::to_string(left) + " remain";
}

std::string UnknownField(uint64_t number, const std::string& message) {
  return "unknown field " + std::to_string(number) + " in " + message;
}

std::string WrongWireType(const std::string& field, unsigned wire, unsigned expected) {
  return "field " + field + " has wire type " + std::to_string(wire) + ", expected " +
         std::to_string(expected);
}

std::string PassesMaxStringBytes(const char* what, uint64_t max_string_bytes) {
  return std::string(what) + " passes max_string_bytes " + std::to_string(max_string_bytes);
}

std::string FieldMaskPathNotCamel(std::string_view path) {
  return "FieldMask path \"" + std::string(path) +
         "\" has no lowerCamelCase form that converts back";
}

std::string FieldMaskBudget(uint64_t size) {
  return "FieldMask of " + std::to_string(size) + " bytes passes max_alloc_bytes";
}

std::string AnyTypeNotLoaded(std::string_view url) {
  return "Any holds " + std::string(url) + ", not in the loaded descriptors";
}

}  // namespace rosetta::codec::protobuf_detail
