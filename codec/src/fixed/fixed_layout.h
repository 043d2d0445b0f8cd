#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protobuf/protobuf_schema.h"

namespace rosetta::codec {

// The `fixed` format (DESIGN.md "Fixed layout", docs/formats.md "Fixed records"): a
// protobuf message type whose fields all have a fixed size is one record, its fields in
// field-number order, little-endian, no tags, no lengths, no padding; a singular message
// field is its own fields inline. The layout is compiled once per message type when the
// schema loads (MessageInfo::fixed): a flat plan of steps with their offsets and kinds,
// which the reader and writer run instead of looking at descriptors.
enum class FixedKind : uint8_t {
  kBegin,   // a message starts: `fields` members follow (the root, or the value of a key)
  kEnd,     // it ends
  kBool,    // 1 byte, 0 or 1
  kInt32,   // int32, sint32, sfixed32: 4 bytes, two's complement
  kUint32,  // uint32, fixed32
  kInt64,   // int64, sint64, sfixed64
  kUint64,  // uint64, fixed64
  kFloat,
  kDouble,
  kEnum,  // 4 bytes, an enum number
};

struct FixedStep {
  FixedKind kind;
  uint32_t offset = 0;   // in the record (scalars)
  uint32_t fields = 0;   // kBegin: how many members
  std::string_view key;  // the member this step is the value of (json_name); empty: the root
  const FieldInfo* field = nullptr;      // scalars and nested messages (null for the root)
  const MessageInfo* message = nullptr;  // kBegin
  const EnumInfo* enum_info = nullptr;   // kEnum
  bool closed_enum = false;              // kEnum: proto2 enums refuse numbers they do not name
  uint32_t end = 0;                      // kBegin: the index of its kEnd step
  // kEnum: the names of numbers enum_min .. enum_min + size - 1 (empty: not defined), when
  // the enum's numbers span fewer than 256; else looked up in the descriptor.
  int32_t enum_min = 0;
  std::vector<std::string_view> enum_names;

  // The name of enum number v, or null when the enum does not define it.
  const std::string_view* EnumName(int32_t v) const {
    if (!enum_names.empty()) {
      const uint64_t i = static_cast<uint64_t>(int64_t{v} - enum_min);
      return i < enum_names.size() && !enum_names[i].empty() ? &enum_names[i] : nullptr;
    }
    return EnumNameSlow(v);
  }
  const std::string_view* EnumNameSlow(int32_t v) const;
};

// A record's encoding in one output format, compiled from the layout (fixed_encoder.cc):
// the bytes that never change (map heads, keys, separators) gathered in front of each
// value, so a record is written as a run of (copy a prefix, encode a value) pairs.
struct EncodeStep {
  FixedKind kind;          // the value's kind; kBegin: a literal only (no value)
  uint8_t prefix_len = 0;  // bytes of `prefix` that come before the value
  uint32_t offset = 0;     // of the value in the record
  const FixedStep* step = nullptr;
  char prefix[16] = {};
};
struct FixedEncoding {
  std::vector<EncodeStep> steps;
  size_t max_bytes = 0;  // the most a record can take, plus 16 bytes of slack for the copies
  // CBOR and MessagePack, when every value is a float (mesh-like records): a record is
  // `image` with each float's 4 bytes put in, big-endian, where `floats` says, unless one
  // of them is written otherwise (MessagePack: a NaN; CBOR: one that fits a half, or is
  // not finite), when the record goes through the steps. Empty for other layouts.
  struct FloatSlot {
    uint32_t from;  // in the record
    uint32_t to;    // in the image
  };
  std::string image;      // padded with zeros to a multiple of 32 bytes
  size_t image_size = 0;  // the record's bytes in it
  std::vector<FloatSlot> floats;
  // With SSSE3, when the floats are the whole record, back to back from its first byte,
  // and it has 16 bytes or more: the image is made 16 bytes at a time. Piece j is the 16
  // record bytes at shuffle[j].from moved into place and byte-swapped by one byte shuffle
  // (`mask`; 0x80 where the image has a literal byte), OR'd into the image's piece j.
  // Empty otherwise.
  struct ShufflePiece {
    uint8_t mask[16];
    uint32_t from;
  };
  std::vector<ShufflePiece> shuffle;
};

struct FixedLayout {
  // Empty when the type has no fixed layout: then `error` says why and `error_path` is
  // the JSON Pointer of the first field that breaks it ("/position/label").
  std::vector<FixedStep> steps;
  uint32_t size = 0;   // bytes in a record
  uint32_t depth = 0;  // nesting of messages (the root is 1)
  uint32_t items = 0;  // the items a record is read as (members and messages), for max_items
  // The steps whose bytes may be refused (bools, closed enums): what a check of a record
  // (validate, fixed into fixed) looks at.
  std::vector<const FixedStep*> checks;
  // A record of every field's default (what an absent member is): zeros, but a proto2
  // field's declared default, and a closed enum's first value (0 may name nothing there).
  std::string defaults;
  // The record's encodings as compact JSON, CBOR and MessagePack (what the writers of
  // those formats write from the reader's events, byte for byte).
  FixedEncoding json, cbor, msgpack;
  std::string error;
  std::string error_path;

  bool ok() const { return !steps.empty(); }
};

// Compiles the layout of m (every type reachable from it must be complete), with its
// encodings.
std::shared_ptr<const FixedLayout> BuildFixedLayout(const MessageInfo& m);

// Compiles `layout`'s encoding in `format` (json, cbor or msgpack): fixed_encoder.cc.
FixedEncoding BuildFixedEncoding(const FixedLayout& layout, uint8_t format);

}  // namespace rosetta::codec
