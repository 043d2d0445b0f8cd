#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "binary/float_bits.h"
#include "core/context.h"
#include "core/writer_stack.h"
#include "rosetta/codec/output.h"
#include "rosetta/codec/sink.h"

namespace rosetta::codec {

// Writes MessagePack in its shortest forms (fixint/fixstr/fixarray/fixmap first, float32
// when it holds the value). A container whose count the input did not give gets a
// one-byte LengthSlot (fixarray/fixmap), widened when it closes with 16 or more items.
// Tags: 1 and 1001 become the timestamp extension, 2/3 integers when they fit in 64 bits,
// kTagMsgpackExtBase + T the ext type T; every other tag is dropped and its item kept.
class MsgpackWriter {
 public:
  MsgpackWriter(Context& ctx, OutputBuffer& out) : ctx_(ctx), out_(out), stack_(ctx) {}

  // A container's head holds its count: a reader that can count ahead (JsonReader) gives
  // it when the output streams, which it then does instead of being held until the
  // container closes.
  static constexpr bool kHeadsWithCount = true;
  bool Streams() const { return out_.streaming(); }

  bool Null() {
    if (special_) [[unlikely]]
      return Special(kNull, 0);
    return Byte(0xc0);
  }
  bool Undefined() { return Null(); }  // MessagePack has no undefined: nil (docs/formats.md)
  bool Bool(bool b) {
    if (special_ && !Special(kOtherItem, 0)) [[unlikely]]
      return false;
    return Byte(b ? 0xc3 : 0xc2);
  }
  bool Simple(uint8_t v) {
    if (special_ && !Special(kOtherItem, 0)) [[unlikely]]
      return false;
    return Unrepresentable("CBOR simple value " + std::to_string(v) + " has no MessagePack form");
  }
  bool Uint(uint64_t v) {
    if (special_) [[unlikely]]
      return Special(kUint, v);
    return PutUint(v);
  }
  bool NegInt(uint64_t n) {
    if (special_) [[unlikely]]
      return Special(kNegInt, n);
    return PutNegInt(n);
  }
  bool Double(double d) {
    if (special_) [[unlikely]]
      return Special(kDouble, std::bit_cast<uint64_t>(d));
    return PutDouble(d);
  }
  bool Text(std::string_view s) {
    if (special_) [[unlikely]]
      return Special(kOtherItem, 0) && PutText(s);
    return PutText(s);
  }
  bool Bytes(std::string_view s) {
    if (special_) [[unlikely]]
      return SpecialBytes(s);
    return PutBin(s);
  }
  bool BeginArray(uint64_t n) {
    if (special_) [[unlikely]] {
      if (!Special(kOtherItem, 0)) return false;
    }
    return Begin(n, false);
  }
  bool BeginMap(uint64_t n) {
    if (special_) [[unlikely]]
      return SpecialMap(n);
    return Begin(n, true);
  }
  bool EndArray() { return End(); }
  bool EndMap() {
    if (capture_depth_ && stack_.depth() == capture_depth_) [[unlikely]]
      return EndTimestampMap();
    return End();
  }
  bool Tag(uint64_t tag) {
    if (special_ && !Special(kOtherItem, 0))
      return false;  // a tag on a tag: the outer one is dropped
    pending_tag_ = tag;
    special_ = tag == kTagEpochTime || tag == kTagExtendedTime || tag == kTagPositiveBignum ||
               tag == kTagNegativeBignum ||
               (tag >= kTagMsgpackExtBase && tag <= kTagMsgpackExtBase + 0xff);
    return true;
  }

 private:
  enum ItemKind { kNull, kUint, kNegInt, kDouble, kOtherItem };

  // Room for n bytes. Hot paths ask for a bound (9 for any integer); `exact`, what will
  // really be written, is tried before refusing, so an output of exactly max_output_bytes fits.
  bool Room(size_t n, size_t exact) {
    if (out_.Ensure(n)) [[likely]]
      return true;
    return RoomExact(exact);
  }
  bool Room(size_t n) { return Room(n, n); }
  [[gnu::cold]] bool RoomExact(size_t exact);
  [[gnu::cold]] bool OutputFull();
  static size_t UintSize(uint64_t v) {
    return v <= 0x7f ? 1 : v <= 0xff ? 2 : v <= 0xffff ? 3 : v <= 0xffffffff ? 5 : 9;
  }
  static size_t StrHeadSize(size_t n) { return n <= 31 ? 1 : n <= 0xff ? 2 : n <= 0xffff ? 3 : 5; }
  static size_t BinHeadSize(size_t n) { return n <= 0xff ? 2 : n <= 0xffff ? 3 : 5; }
  [[gnu::cold]] bool Unrepresentable(std::string message) {
    return ctx_.Fail(ErrorCode::kUnrepresentable, std::move(message));
  }
  void PutBig(uint64_t v, int bytes) {
    char* p = out_.cursor();
    for (int i = bytes - 1; i >= 0; --i) {
      p[i] = static_cast<char>(v);
      v >>= 8;
    }
    out_.Advance(bytes);
  }
  bool Byte(uint8_t b) {
    ++stack_.top().count;
    if (!Room(1)) return false;
    out_.Put(static_cast<char>(b));
    return true;
  }
  bool PutUint(uint64_t v) {
    ++stack_.top().count;
    if (!Room(9, UintSize(v))) return false;
    if (v <= 0x7f) {
      out_.Put(static_cast<char>(v));
    } else if (v <= 0xff) {
      out_.Put(static_cast<char>(0xcc));
      out_.Put(static_cast<char>(v));
    } else if (v <= 0xffff) {
      out_.Put(static_cast<char>(0xcd));
      PutBig(v, 2);
    } else if (v <= 0xffffffff) {
      out_.Put(static_cast<char>(0xce));
      PutBig(v, 4);
    } else {
      out_.Put(static_cast<char>(0xcf));
      PutBig(v, 8);
    }
    return true;
  }
  // The integer -1 - n.
  bool PutNegInt(uint64_t n) {
    if (n > 0x7fffffffffffffffull) [[unlikely]]
      return NegIntTooSmall(n);
    ++stack_.top().count;
    int64_t v = -1 - static_cast<int64_t>(n);
    if (!Room(9, v >= -32 ? 1 : v >= -128 ? 2 : v >= -32768 ? 3 : v >= -2147483648ll ? 5 : 9))
      return false;
    if (v >= -32) {
      out_.Put(static_cast<char>(v));
    } else if (v >= -128) {
      out_.Put(static_cast<char>(0xd0));
      out_.Put(static_cast<char>(v));
    } else if (v >= -32768) {
      out_.Put(static_cast<char>(0xd1));
      PutBig(static_cast<uint64_t>(v), 2);
    } else if (v >= -2147483648ll) {
      out_.Put(static_cast<char>(0xd2));
      PutBig(static_cast<uint64_t>(v), 4);
    } else {
      out_.Put(static_cast<char>(0xd3));
      PutBig(static_cast<uint64_t>(v), 8);
    }
    return true;
  }
  [[gnu::cold]] bool NegIntTooSmall(uint64_t n);
  bool PutDouble(double d) {
    ++stack_.top().count;
    if (FitsFloat(d)) {
      if (!Room(5)) return false;
      out_.Put(static_cast<char>(0xca));
      // Every NaN is written as the one quiet NaN, as the CBOR writer does (f97e00).
      PutBig(std::isnan(d) ? 0x7fc00000u : std::bit_cast<uint32_t>(static_cast<float>(d)), 4);
    } else {
      if (!Room(9)) return false;
      out_.Put(static_cast<char>(0xcb));
      PutBig(std::bit_cast<uint64_t>(d), 8);
    }
    return true;
  }
  bool PutText(std::string_view s) {
    ++stack_.top().count;
    if (s.size() > 0xffffffff) return Unrepresentable("str longer than 2^32-1 bytes");
    if (s.size() >= OutputBuffer::kBlobBytes) [[unlikely]]
      return Blob(s, false);
    if (!Room(5 + s.size(), StrHeadSize(s.size()) + s.size())) return false;
    if (s.size() <= 31) {
      out_.Put(static_cast<char>(0xa0 | s.size()));
    } else if (s.size() <= 0xff) {
      out_.Put(static_cast<char>(0xd9));
      out_.Put(static_cast<char>(s.size()));
    } else if (s.size() <= 0xffff) {
      out_.Put(static_cast<char>(0xda));
      PutBig(s.size(), 2);
    } else {
      out_.Put(static_cast<char>(0xdb));
      PutBig(s.size(), 4);
    }
    out_.Append(s.data(), s.size());
    return true;
  }
  bool PutBin(std::string_view s) {
    ++stack_.top().count;
    if (s.size() > 0xffffffff) return Unrepresentable("bin longer than 2^32-1 bytes");
    if (s.size() >= OutputBuffer::kBlobBytes) [[unlikely]]
      return Blob(s, true);
    if (!Room(5 + s.size(), BinHeadSize(s.size()) + s.size())) return false;
    int width = s.size() <= 0xff ? 1 : s.size() <= 0xffff ? 2 : 4;
    out_.Put(static_cast<char>(width == 1 ? 0xc4 : width == 2 ? 0xc5 : 0xc6));
    PutBig(s.size(), width);
    out_.Append(s.data(), s.size());
    return true;
  }
  bool Begin(uint64_t n, bool is_map) {
    ++stack_.top().count;
    const bool unknown = n == kUnknownLength;
    if (!Room(5, unknown || n <= 15 ? 1 : n <= 0xffff ? 3 : 5)) return false;
    if (!unknown && n > 0xffffffff) return Unrepresentable("container of more than 2^32-1 items");
    if (!stack_.Push(WriterLevel{out_.size(), 0, is_map, unknown})) return false;
    if (unknown) {
      out_.Put(static_cast<char>(is_map ? 0x80 : 0x90));  // LengthSlot: filled at End
      out_.Hold();                                        // nothing flushed before it is
    } else {
      PutContainerHead(n, is_map);
    }
    return true;
  }
  void PutContainerHead(uint64_t n, bool is_map) {
    if (n <= 15) {
      out_.Put(static_cast<char>((is_map ? 0x80 : 0x90) | n));
    } else if (n <= 0xffff) {
      out_.Put(static_cast<char>(is_map ? 0xde : 0xdc));
      PutBig(n, 2);
    } else {
      out_.Put(static_cast<char>(is_map ? 0xdf : 0xdd));
      PutBig(n, 4);
    }
  }
  bool End() {
    WriterLevel l = stack_.Pop();
    if (!l.unknown_length) return true;
    out_.Release();  // the buffer is not flushed before the next Ensure
    uint64_t n = l.is_map ? l.count / 2 : l.count;
    if (n <= 15) [[likely]] {
      out_.data()[l.slot] = static_cast<char>((l.is_map ? 0x80 : 0x90) | n);
      return true;
    }
    return FillLongSlot(l.slot, n, l.is_map);
  }
  bool FillLongSlot(uint64_t slot, uint64_t n, bool is_map);
  // A long str or bin (at least kBlobBytes, at most 2^32-1): its 5-byte head, then its
  // bytes through OutputBuffer::AppendBlob.
  [[gnu::cold]] bool Blob(std::string_view s, bool bin);

  // Tagged items (cold: only after a tag this writer gives meaning to).
  bool Special(ItemKind kind, uint64_t v);
  bool SpecialBytes(std::string_view s);
  bool SpecialMap(uint64_t n);
  bool EndTimestampMap();
  bool PutTimestamp(int64_t seconds, uint64_t nanos);

  Context& ctx_;
  OutputBuffer& out_;
  WriterStack stack_;
  bool special_ = false;
  uint64_t pending_tag_ = 0;
  // A tag-1001 map being captured: {1: seconds, -9: nanoseconds}.
  size_t capture_depth_ = 0;
  int capture_field_ = 0;  // 0: expecting a key, 1: seconds due, 2: nanoseconds due
  int64_t capture_seconds_ = 0;
  uint64_t capture_nanos_ = 0;
  int capture_seen_ = 0;  // bit 0: seconds, bit 1: nanoseconds
};

}  // namespace rosetta::codec
