#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "binary/float_bits.h"
#include "core/context.h"
#include "core/writer_stack.h"
#include "memory/budget_vector.h"
#include "rosetta/codec/output.h"
#include "rosetta/codec/sink.h"

namespace rosetta::codec {

// Writes CBOR (RFC 8949) in preferred serialization: shortest heads, definite lengths,
// the shortest float that holds the value. A container whose count the input did not give
// gets a one-byte LengthSlot, fixed up (shifted when 24 or more items) when it closes.
//
// kDeterministic (option `deterministic`): RFC 8949 section 4.2.1 core deterministic
// encoding, which is the above plus every map's entries sorted bytewise by their keys'
// encodings. The entries are written as they come; each map keeps only the offsets where
// its keys and values start (charged to the budget), and when it closes its entries are
// sorted by those offsets and moved into order through one scratch copy of the map's
// content. An inner map closes, sorted, before the entry holding it is moved: maps are
// sorted inside out in one pass. Two equal keys are refused (duplicate_key).
template <bool kDeterministic>
class BasicCborWriter {
 public:
  BasicCborWriter(Context& ctx, OutputBuffer& out)
      : ctx_(ctx), out_(out), stack_(ctx), starts_(ctx), maps_(ctx), order_(ctx), copy_(ctx) {}

  // A container's head holds its count: a reader that can count ahead (JsonReader) gives
  // it when the output streams, which it then does instead of being held until the
  // container closes.
  static constexpr bool kHeadsWithCount = true;
  bool Streams() const { return out_.streaming(); }

  bool Null() { return Byte(0xf6); }
  bool Undefined() { return Byte(0xf7); }
  bool Bool(bool b) { return Byte(b ? 0xf5 : 0xf4); }
  bool Simple(uint8_t v) {
    if (!Count()) return false;
    if (!Room(v < 24 ? 1 : 2)) return false;
    if (v < 24) {
      out_.Put(static_cast<char>(0xe0 | v));
    } else {
      out_.Put(static_cast<char>(0xf8));
      out_.Put(static_cast<char>(v));
    }
    return true;
  }
  bool Uint(uint64_t v) { return Item(0, v); }
  bool NegInt(uint64_t v) { return Item(1, v); }
  bool Double(double d) {
    if (!Count()) return false;
    uint16_t half;
    if (DoubleToHalf(d, &half)) {
      if (!Room(3)) return false;
      out_.Put(static_cast<char>(0xf9));
      PutBig(half, 2);
    } else if (FitsFloat(d)) {
      if (!Room(5)) return false;
      out_.Put(static_cast<char>(0xfa));
      PutBig(std::bit_cast<uint32_t>(static_cast<float>(d)), 4);
    } else {
      if (!Room(9)) return false;
      out_.Put(static_cast<char>(0xfb));
      PutBig(std::bit_cast<uint64_t>(d), 8);
    }
    return true;
  }
  bool Text(std::string_view s) { return String(3, s); }
  bool Bytes(std::string_view s) { return String(2, s); }
  bool BeginArray(uint64_t n) { return Begin(4, n, false); }
  bool BeginMap(uint64_t n) {
    if (!Begin(5, n, true)) return false;
    if constexpr (kDeterministic) {
      out_.Hold();  // its entries move when it closes
      return maps_.Push(starts_.size());
    }
    return true;
  }
  bool EndArray() { return End(4); }
  bool EndMap() {
    if constexpr (kDeterministic) {
      if (!SortEntries() || !End(5)) return false;
      out_.Release();
      return true;
    }
    return End(5);
  }
  bool Tag(uint64_t tag) {
    if constexpr (kDeterministic) {
      if (tag_start_ == kNone) tag_start_ = out_.size();  // a tagged key starts at its tag
    }
    if (!Room(9, HeadSize(tag))) return false;
    Head(6, tag);  // a tag and its item are one item: counted with the item
    return true;
  }

 private:
  // Room for n bytes. Hot paths ask for a bound (9 for any head); `exact`, what will really
  // be written, is tried before refusing, so an output of exactly max_output_bytes fits.
  bool Room(size_t n, size_t exact) {
    if (out_.Ensure(n)) [[likely]]
      return true;
    return RoomExact(exact);
  }
  bool Room(size_t n) { return Room(n, n); }
  [[gnu::cold]] bool RoomExact(size_t exact);
  [[gnu::cold]] bool OutputFull();
  static size_t HeadSize(uint64_t v) {
    return v < 24 ? 1 : v <= 0xff ? 2 : v <= 0xffff ? 3 : v <= 0xffffffff ? 5 : 9;
  }
  // Every item is counted in its container as it starts; in a map of deterministic
  // output, where it starts is kept too (a key's, then its value's).
  [[gnu::always_inline]] bool Count() {
    WriterLevel& level = stack_.top();
    ++level.count;
    if constexpr (kDeterministic) {
      const uint64_t at = tag_start_ == kNone ? out_.size() : tag_start_;
      tag_start_ = kNone;
      if (level.is_map) return starts_.Push(at);
    }
    return true;
  }
  bool SortEntries();
  bool Byte(uint8_t b) {
    if (!Count()) return false;
    if (!Room(1)) return false;
    out_.Put(static_cast<char>(b));
    return true;
  }
  void PutBig(uint64_t v, int bytes) {
    char* p = out_.cursor();
    for (int i = bytes - 1; i >= 0; --i) {
      p[i] = static_cast<char>(v);
      v >>= 8;
    }
    out_.Advance(bytes);
  }
  // A head (major type + argument) in its shortest form; needs 9 bytes of room.
  // Every item's head: always inlined, whatever the compiler's size heuristics make of the
  // function it is in.
  [[gnu::always_inline]] void Head(uint8_t major, uint64_t v) {
    uint8_t m = static_cast<uint8_t>(major << 5);
    if (v < 24) {
      out_.Put(static_cast<char>(m | v));
    } else if (v <= 0xff) {
      out_.Put(static_cast<char>(m | 24));
      out_.Put(static_cast<char>(v));
    } else if (v <= 0xffff) {
      out_.Put(static_cast<char>(m | 25));
      PutBig(v, 2);
    } else if (v <= 0xffffffff) {
      out_.Put(static_cast<char>(m | 26));
      PutBig(v, 4);
    } else {
      out_.Put(static_cast<char>(m | 27));
      PutBig(v, 8);
    }
  }
  bool Item(uint8_t major, uint64_t v) {
    if (!Count()) return false;
    if (!Room(9, HeadSize(v))) return false;
    Head(major, v);
    return true;
  }
  bool String(uint8_t major, std::string_view s) {
    if (!Count()) return false;
    if (s.size() >= OutputBuffer::kBlobBytes) [[unlikely]]
      return Blob(major, s);
    if (!Room(9 + s.size(), HeadSize(s.size()) + s.size())) return false;
    Head(major, s.size());
    out_.Append(s.data(), s.size());
    return true;
  }
  bool Begin(uint8_t major, uint64_t n, bool is_map) {
    if (!Count()) return false;
    const bool unknown = n == kUnknownLength;
    if (!Room(9, unknown ? 1 : HeadSize(n))) return false;
    if (!stack_.Push(WriterLevel{out_.size(), 0, is_map, unknown})) return false;
    if (unknown) {
      out_.Put(static_cast<char>(major << 5));  // LengthSlot: filled at End
      out_.Hold();                              // nothing flushed before it is
    } else {
      Head(major, n);
    }
    return true;
  }
  bool End(uint8_t major) {
    WriterLevel l = stack_.Pop();
    if (!l.unknown_length) return true;
    out_.Release();  // the buffer is not flushed before the next Ensure
    uint64_t n = l.is_map ? l.count / 2 : l.count;
    if (n < 24) [[likely]] {
      out_.data()[l.slot] = static_cast<char>((major << 5) | n);
      return true;
    }
    return FillLongSlot(major, l.slot, n);
  }
  bool FillLongSlot(uint8_t major, uint64_t slot, uint64_t n);
  // A long string: its head, then its bytes through OutputBuffer::AppendBlob.
  [[gnu::cold]] bool Blob(uint8_t major, std::string_view s);

  static constexpr uint64_t kNone = ~uint64_t{0};

  Context& ctx_;
  OutputBuffer& out_;
  WriterStack stack_;
  // Deterministic output only (empty otherwise): where each item of an open map starts
  // (key, value, key, value, ...; all open maps, innermost last), where each open map's
  // run of starts begins, and where the tags of the item due start.
  BudgetVector<uint64_t> starts_;
  BudgetVector<uint64_t> maps_;
  struct SortEntry {
    uint64_t prefix;  // the key's first 8 bytes, big-endian
    uint32_t entry;
  };
  BudgetVector<SortEntry> order_;  // a closing map's entries, sorted
  BudgetVector<char> copy_;        // its content, while its entries move
  uint64_t moved_ = 0;             // bytes moved by sorting, all maps together
  uint64_t tag_start_ = kNone;
};

using CborWriter = BasicCborWriter<false>;
using DeterministicCborWriter = BasicCborWriter<true>;

template <class W>
inline constexpr bool kIsCborWriter =
    std::is_same_v<W, CborWriter> || std::is_same_v<W, DeterministicCborWriter>;

}  // namespace rosetta::codec
