#include "msgpack/msgpack_writer.h"

#include <string>

#include "binary/big_endian.h"
#include "core/timestamp.h"

namespace rosetta::codec {

bool MsgpackWriter::RoomExact(size_t exact) {
  if (out_.Ensure(exact)) return true;
  return OutputFull();
}

bool MsgpackWriter::OutputFull() {
  if (out_.over_limit()) {
    return ctx_.Fail(ErrorCode::kOutputTooLarge, "output would pass max_output_bytes " +
                                                     std::to_string(ctx_.limits.max_output_bytes));
  }
  return ctx_.BudgetExceeded(out_.capacity());
}

bool MsgpackWriter::NegIntTooSmall(uint64_t n) {
  if (ctx_.options.bignum_as_double) return PutDouble(NegIntToDouble(n));
  return Unrepresentable("integer below -2^63 has no MessagePack form");
}

bool MsgpackWriter::Blob(std::string_view s, bool bin) {
  if (!Room(5)) return false;
  out_.Put(static_cast<char>(bin ? 0xc6 : 0xdb));
  PutBig(s.size(), 4);
  return out_.AppendBlob(s.data(), s.size()) || OutputFull();
}

// The slot reserved one byte; 16 or more items need array16/map16 (3 bytes) or
// array32/map32 (5 bytes), so the content moves up (once per such container).
bool MsgpackWriter::FillLongSlot(uint64_t slot, uint64_t n, bool is_map) {
  if (n > 0xffffffff) return Unrepresentable("container of more than 2^32-1 items");
  size_t head = n <= 0xffff ? 3 : 5;
  if (!Room(head - 1)) return false;
  char* base = out_.data();
  std::memmove(base + slot + head, base + slot + 1, out_.size() - slot - 1);
  size_t end = out_.size() + head - 1;
  out_.Resize(slot);
  PutContainerHead(n, is_map);
  out_.Resize(end);
  return true;
}

bool MsgpackWriter::Special(ItemKind kind, uint64_t v) {
  if (capture_depth_) {
    if (stack_.depth() != capture_depth_ || kind == kOtherItem || kind == kNull ||
        kind == kDouble) {
      return Unrepresentable("tag 1001 content must be {1: seconds, -9: nanoseconds}");
    }
    if (capture_field_ == 0) {
      if (kind == kUint && v == 1)
        capture_field_ = 1;
      else if (kind == kNegInt && v == 8)
        capture_field_ = 2;
      else
        return Unrepresentable("tag 1001 key other than 1 or -9");
      return true;
    }
    if (capture_field_ == 1) {
      if (v > 0x7fffffffffffffffull)
        return Unrepresentable("timestamp seconds out of 64-bit range");
      capture_seconds_ = kind == kUint ? static_cast<int64_t>(v) : -1 - static_cast<int64_t>(v);
      capture_seen_ |= 1;
    } else {
      if (kind != kUint || v > 999999999)
        return Unrepresentable("timestamp nanoseconds out of range");
      capture_nanos_ = v;
      capture_seen_ |= 2;
    }
    capture_field_ = 0;
    return true;
  }
  special_ = false;
  const uint64_t tag = pending_tag_;
  if (tag == kTagEpochTime && kind != kNull && kind != kOtherItem) {
    if (kind == kDouble) {
      Timestamp ts{0, 0};
      if (!EpochDoubleToTimestamp(std::bit_cast<double>(v), &ts))
        return Unrepresentable("epoch time out of timestamp range");
      return PutTimestamp(ts.seconds, ts.nanos);
    }
    if (v > 0x7fffffffffffffffull) return Unrepresentable("epoch time out of timestamp range");
    return PutTimestamp(kind == kUint ? static_cast<int64_t>(v) : -1 - static_cast<int64_t>(v), 0);
  }
  // Any other tag on this item is dropped and the item written as it is.
  switch (kind) {
    case kNull:
      return Byte(0xc0);
    case kUint:
      return PutUint(v);
    case kNegInt:
      return PutNegInt(v);
    case kDouble:
      return PutDouble(std::bit_cast<double>(v));
    default:
      return true;  // the caller writes it
  }
}

bool MsgpackWriter::SpecialBytes(std::string_view s) {
  if (capture_depth_) return Special(kOtherItem, 0);
  special_ = false;
  const uint64_t tag = pending_tag_;
  if (tag == kTagPositiveBignum || tag == kTagNegativeBignum) {
    uint64_t v;
    if (BignumToUint64(s, &v)) return tag == kTagPositiveBignum ? PutUint(v) : PutNegInt(v);
    if (!ctx_.options.bignum_as_double)
      return Unrepresentable("bignum beyond 64 bits has no MessagePack form");
    return PutDouble(BignumToDouble(s, tag == kTagNegativeBignum));
  }
  if (tag >= kTagMsgpackExtBase && tag <= kTagMsgpackExtBase + 0xff) {
    Timestamp ts{0, 0};
    if (tag == kTagMsgpackExtBase + 0xff && !ParseMsgpackTimestamp(s, &ts)) {
      return Unrepresentable(
          "ext -1 data is not a MessagePack timestamp (4, 8 or 12 bytes, nanoseconds below 10^9)");
    }
    ++stack_.top().count;
    if (s.size() > 0xffffffff) return Unrepresentable("ext longer than 2^32-1 bytes");
    const bool fixed =
        s.size() == 1 || s.size() == 2 || s.size() == 4 || s.size() == 8 || s.size() == 16;
    if (!Room(6 + s.size(), (fixed                ? 2
                             : s.size() <= 0xff   ? 3
                             : s.size() <= 0xffff ? 4
                                                  : 6) +
                                s.size()))
      return false;
    switch (s.size()) {
      case 1:
        out_.Put(static_cast<char>(0xd4));
        break;
      case 2:
        out_.Put(static_cast<char>(0xd5));
        break;
      case 4:
        out_.Put(static_cast<char>(0xd6));
        break;
      case 8:
        out_.Put(static_cast<char>(0xd7));
        break;
      case 16:
        out_.Put(static_cast<char>(0xd8));
        break;
      default: {
        int width = s.size() <= 0xff ? 1 : s.size() <= 0xffff ? 2 : 4;
        out_.Put(static_cast<char>(width == 1 ? 0xc7 : width == 2 ? 0xc8 : 0xc9));
        PutBig(s.size(), width);
      }
    }
    out_.Put(static_cast<char>(tag - kTagMsgpackExtBase));
    out_.Append(s.data(), s.size());
    return true;
  }
  return PutBin(s);
}

bool MsgpackWriter::SpecialMap(uint64_t n) {
  if (capture_depth_) return Special(kOtherItem, 0);
  special_ = false;
  if (pending_tag_ != kTagExtendedTime) return Begin(n, true);
  // Tag 1001 (RFC 9581): captured, written as one timestamp extension when it closes.
  if (!stack_.Push(WriterLevel{out_.size(), 0, true, false})) return false;
  capture_depth_ = stack_.depth();
  capture_field_ = 0;
  capture_seen_ = 0;
  capture_seconds_ = 0;
  capture_nanos_ = 0;
  special_ = true;
  return true;
}

bool MsgpackWriter::EndTimestampMap() {
  stack_.Pop();
  capture_depth_ = 0;
  special_ = false;
  if (capture_field_ != 0 || !(capture_seen_ & 1))
    return Unrepresentable("tag 1001 without seconds (key 1)");
  return PutTimestamp(capture_seconds_, capture_nanos_);
}

// The shortest of timestamp 32/64/96 that holds the value (MessagePack spec, timestamp).
bool MsgpackWriter::PutTimestamp(int64_t seconds, uint64_t nanos) {
  ++stack_.top().count;
  const bool ts32 = nanos == 0 && seconds >= 0 && seconds <= 0xffffffffll;
  const bool ts64 = !ts32 && seconds >= 0 && seconds < (int64_t{1} << 34);
  if (!Room(15, ts32 ? 6 : ts64 ? 10 : 15)) return false;
  if (ts32) {
    out_.Put(static_cast<char>(0xd6));
    out_.Put(static_cast<char>(0xff));
    PutBig(static_cast<uint64_t>(seconds), 4);
  } else if (ts64) {
    out_.Put(static_cast<char>(0xd7));
    out_.Put(static_cast<char>(0xff));
    PutBig(nanos << 34 | static_cast<uint64_t>(seconds), 8);
  } else {
    out_.Put(static_cast<char>(0xc7));
    out_.Put(static_cast<char>(12));
    out_.Put(static_cast<char>(0xff));
    PutBig(nanos, 4);
    PutBig(static_cast<uint64_t>(seconds), 8);
  }
  return true;
}

}  // namespace rosetta::codec
