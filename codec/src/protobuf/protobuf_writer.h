#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/context.h"
#include "memory/budget_vector.h"
#include "protobuf/protobuf_schema.h"
#include "rosetta/codec/output.h"
#include "rosetta/codec/sink.h"

namespace rosetta::codec {

template <bool kDeterministic>
class BasicCborWriter;
using CborWriter = BasicCborWriter<false>;

// Writes protobuf wire format from events shaped by the proto3 JSON mapping, driven by
// the message descriptor: member names by json_name or declared name; numbers also as
// strings; "NaN"/"Infinity"; enums by name or number; bytes as base64 text (or a byte
// string from CBOR/MessagePack); the well-known types in their JSON forms. A nested
// message is written through a one-byte LengthSlot filled when it closes (widened when
// 128 bytes or more): no buffered subtree, no second pass. An Any whose "@type" comes
// first is written straight through; otherwise its members are buffered (as CBOR, within
// the request's budget) until "@type" is known, then replayed.
class ProtobufWriter {
 public:
  ProtobufWriter(Context& ctx, OutputBuffer& out, const Schema* schema, const MessageInfo& root);
  ~ProtobufWriter();

  bool Null() { return Event({Ev::kNull}); }
  bool Undefined() { return Event({Ev::kNull}); }
  bool Bool(bool b) { return Event({Ev::kBool, b ? 1u : 0u}); }
  bool Simple(uint8_t) { return Mismatch("a CBOR simple value has no protobuf form"); }
  bool Uint(uint64_t v) { return Event({Ev::kUint, v}); }
  bool NegInt(uint64_t n) { return Event({Ev::kNegInt, n}); }
  bool Double(double d) { return Event({Ev::kDouble, 0, d}); }
  bool Text(std::string_view s) { return Event({Ev::kText, 0, 0, s}); }
  bool Bytes(std::string_view s) {
    if (bignum_tag_ != 0) [[unlikely]]
      return Bignum(s);
    return Event({Ev::kBytes, 0, 0, s});
  }
  bool BeginArray(uint64_t) { return Event({Ev::kBeginArray}); }
  bool BeginMap(uint64_t) { return Event({Ev::kBeginMap}); }
  bool EndArray() { return Event({Ev::kEndArray}); }
  bool EndMap() { return Event({Ev::kEndMap}); }
  // Tags carry no meaning in proto3 JSON: dropped, item kept; but bignums (tags 2 and 3,
  // JSON integers past 64 bits) are numbers: see Bignum.
  bool Tag(uint64_t tag);

 private:
  struct Ev {
    enum Kind : uint8_t {
      kNull,
      kBool,
      kUint,
      kNegInt,
      kDouble,
      kText,
      kBytes,
      kBeginArray,
      kBeginMap,
      kEndArray,
      kEndMap
    };
    Ev(Kind k, uint64_t uv = 0, double dv = 0, std::string_view sv = {})
        : kind(k), u(uv), d(dv), s(sv) {}
    Kind kind;
    uint64_t u;
    double d;
    std::string_view s;
  };
  enum class Mode : uint8_t {
    kMessage,    // members of `msg`: a key, then the value of `field`
    kRepeated,   // elements of `field`
    kMap,        // entries of map field `field`: key, value, ...
    kAny,        // an Any whose first member is due
    kAnyBody,    // an Any after "@type": members of `msg` (or "value" for a well-known type)
    kAnyBuffer,  // an Any without "@type" first: members buffered as CBOR
    kSkip,       // the value of an unknown member, ignored (ignore_unknown_fields)
  };
  static constexpr uint64_t kNoSlot = ~uint64_t{0};
  struct Level {
    Mode mode;
    const MessageInfo* msg;
    const FieldInfo* field;  // kMessage: the member whose value is due (null: a key is due)
    uint64_t slots[3];       // LengthSlots to fill when this level closes, innermost first
    uint64_t entry_slot;     // kMap: the open entry (its value is due); kAny*: the value bytes
    uint32_t skip_depth;     // kSkip: containers open inside the skipped value
    bool packed;             // kRepeated: elements written packed into slots[0]
    uint64_t packed_tag_at;  // kRepeated packed: where its tag starts (rolled back if empty)
    uint32_t count;          // kRepeated: elements written; kAnyBuffer: buffer index
    bool key_due;            // kMap: a key is due
    uint64_t oneofs = 0;     // kMessage, kAnyBody: oneofs (by index < 64) given a member
  };

  bool Event(const Ev& ev);
  bool MessageValue(const MessageInfo& m, uint32_t number, const Ev& ev, uint64_t extra_slot);
  bool Scalar(const FieldInfo& f, const Ev& ev, bool packed_element);
  bool Scalar(const FieldInfo& f, const Ev& ev, bool packed_element, bool omit_default);
  bool ToInteger(const FieldInfo& f, const Ev& ev, uint64_t* raw);
  bool ToFloating(const FieldInfo& f, const Ev& ev, double* d);
  bool Key(Level& level, const Ev& ev);
  bool MapKey(const FieldInfo& map_field, const Ev& ev);
  bool Close(const Ev& ev);
  bool AnyType(Level& level, std::string_view url);
  bool AnyReplay();
  bool Bignum(std::string_view magnitude);
  bool Push(Level level);

  bool Room(size_t n) {
    if (out_.Ensure(n)) [[likely]]
      return true;
    return OutputFull();
  }
  [[gnu::cold]] bool OutputFull();
  [[gnu::cold]] bool Mismatch(std::string message) {
    return ctx_.Fail(ErrorCode::kSchemaMismatch, std::move(message));
  }
  void PutVarint(uint64_t v) {  // after Room(10)
    char* p = out_.cursor();
    char* start = p;
    while (v >= 0x80) {
      *p++ = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<char>(v);
    out_.Advance(p - start);
  }
  bool Tag(uint32_t number, uint8_t wire) {
    if (!Room(10)) return false;
    PutVarint(uint64_t{number} << 3 | wire);
    return true;
  }
  // A one-byte LengthSlot; Fill writes the length of what followed it.
  bool Slot(uint64_t* slot) {
    if (!Room(1)) return false;
    *slot = out_.size();
    out_.Put(0);
    return true;
  }
  bool Fill(uint64_t slot);
  bool FillAll(const uint64_t (&slots)[3]) {
    for (uint64_t s : slots) {
      if (s != kNoSlot && !Fill(s)) return false;
    }
    return true;
  }

  Context& ctx_;
  OutputBuffer& out_;
  const Schema* schema_;
  const MessageInfo& root_;
  BudgetVector<Level> levels_;
  bool done_ = false;        // the root value is complete
  uint64_t bignum_tag_ = 0;  // a bignum tag whose byte string is due
  bool in_bignum_ = false;   // the event being written is a bignum (as a double)
  // Any members waiting for their "@type" (kAnyBuffer levels index these).
  struct AnyBuffer;
  std::vector<std::unique_ptr<AnyBuffer>> any_buffers_;
};

}  // namespace rosetta::codec
