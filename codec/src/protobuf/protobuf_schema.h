#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <google/protobuf/descriptor.h>

#include "rosetta/codec/schema.h"

namespace rosetta::codec {

// Message types the proto3 JSON mapping gives a special form
// (developers.google.com/protocol-buffers/docs/proto3#json).
enum class WellKnown : uint8_t {
  kNone,
  kTimestamp,
  kDuration,
  kDoubleValue,
  kFloatValue,
  kInt64Value,
  kUInt64Value,
  kInt32Value,
  kUInt32Value,
  kBoolValue,
  kStringValue,
  kBytesValue,
  kStruct,
  kValue,
  kListValue,
  kFieldMask,
  kEmpty,
  kAny,
};

// In an Any, a well-known type with a JSON form of its own travels as {"@type", "value"};
// Empty, whose form is just {}, is written inline like any message (as libprotobuf and
// Java's JsonFormat do, and as libprotobuf requires on input).
inline bool AnyHasValueMember(WellKnown k) {
  return k != WellKnown::kNone && k != WellKnown::kEmpty;
}

enum WireType : uint8_t {
  kVarint = 0,
  kI64 = 1,
  kLen = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kI32 = 5
};

struct FixedLayout;  // fixed/fixed_layout.h

struct EnumInfo {
  const google::protobuf::EnumDescriptor* descriptor;
  bool is_null_value;  // google.protobuf.NullValue: JSON null
};

// What the reader and writer need of one field, precomputed once per schema: no
// descriptor calls on the hot path.
struct FieldInfo {
  const google::protobuf::FieldDescriptor* descriptor;
  std::string name;       // as declared
  std::string json_name;  // lowerCamelCase unless json_name is set
  uint32_t number;
  google::protobuf::FieldDescriptor::Type type;
  WireType wire_type;  // of one element
  bool repeated;
  bool packable;  // a repeated scalar: packed or not on the wire
  bool packed;    // written packed (proto3 default)
  bool is_map;
  bool has_presence;                     // optional, oneof member, message: emitted when set
  int oneof_index;                       // -1: none
  const MessageInfo* message = nullptr;  // message, group and map-entry fields
  const EnumInfo* enum_info = nullptr;
};

struct MessageInfo {
  const google::protobuf::Descriptor* descriptor;
  std::string full_name;
  WellKnown well_known = WellKnown::kNone;
  std::vector<FieldInfo> fields;   // declaration order
  std::vector<int16_t> by_number;  // field number -> index in fields (-1), numbers < 1024
  std::unordered_map<uint32_t, int> by_large_number;
  std::unordered_map<std::string_view, int> by_name;  // json_name and name
  int oneof_count = 0;
  // Its layout as a record of the `fixed` format (or why it has none), compiled when the
  // schema loads.
  std::shared_ptr<const FixedLayout> fixed;

  const FieldInfo* FieldByNumber(uint32_t number) const {
    if (number < by_number.size()) {
      int i = by_number[number];
      return i < 0 ? nullptr : &fields[i];
    }
    auto it = by_large_number.find(number);
    return it == by_large_number.end() ? nullptr : &fields[it->second];
  }
  const FieldInfo* FieldByName(std::string_view name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &fields[it->second];
  }
};

}  // namespace rosetta::codec
