#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

#include "binary/big_endian.h"
#include "core/reader_state.h"
#include "core/timestamp.h"
#include "rosetta/codec/sink.h"
#include "text/utf8.h"

namespace rosetta::codec {

// The reader's error messages, built out of line (msgpack_reader.cc) so that each
// instantiation of the reader (one per sink) does not carry its own copy.
namespace msgpack_detail {
std::string ClaimsBytes(uint64_t need, uint64_t left);
std::string ClaimsItems(bool is_map, uint64_t n, uint64_t left);
std::string StringTooLarge(uint64_t len, uint64_t max_string_bytes);
std::string TooManyItems(uint64_t n, uint64_t max_items);
std::string BadTimestamp(size_t size);
std::string TrailingBytes(uint64_t n);
}  // namespace msgpack_detail

// Reads one MessagePack object (github.com/msgpack/msgpack/blob/master/spec.md) and
// drives a sink with it. The timestamp extension (-1) becomes CBOR tag 1 (whole seconds)
// or tag 1001 {1: seconds, -9: nanoseconds} (RFC 9581); any other ext type T becomes
// tag kTagMsgpackExtBase + (T & 0xff) over its data, so it passes through CBOR losslessly.
template <Sink S>
class MsgpackReader {
 public:
  MsgpackReader(Context& ctx, S& sink) : st_(ctx), sink_(sink) {}

  bool Read(std::string_view input);

 private:
  using u8 = uint8_t;
  // The sink is told where each item starts (sink.h, ItemStart): the offset in the input
  // of its initial byte. Every item an ext becomes (a tag and its content; a timestamp's
  // map, keys and values) starts at the ext's initial byte.
  static constexpr bool kItemStarts = requires(S & s) { s.ItemStart(uint64_t{0}); };
  [[gnu::cold]] bool Fail(ErrorCode code, uint64_t offset, std::string message) {
    return st_.FailAt(code, offset, std::move(message));
  }
  [[gnu::cold]] bool SinkFailed(uint64_t offset) {
    st_.Locate(offset);
    return false;
  }
  [[gnu::cold]] bool Truncated(uint64_t offset, uint64_t need) {
    return Fail(ErrorCode::kTruncated, offset, msgpack_detail::ClaimsBytes(need, end_ - pos_));
  }
  // Big-endian unsigned of n bytes.
  bool Fixed(size_t n, uint64_t start, uint64_t* v) {
    if (static_cast<size_t>(end_ - pos_) < n) return Truncated(start, n);
    *v = LoadBigEndian(pos_, n);
    pos_ += n;
    return true;
  }
  // Claim guard for str/bin/ext payloads: checked against the bytes left first.
  bool Payload(uint64_t len, uint64_t start, std::string_view* out) {
    if (len > static_cast<uint64_t>(end_ - pos_)) return Truncated(start, len);
    if (len > st_.ctx().limits.max_string_bytes) {
      return Fail(ErrorCode::kStringTooLarge, start,
                  msgpack_detail::StringTooLarge(len, st_.ctx().limits.max_string_bytes));
    }
    *out = {reinterpret_cast<const char*>(pos_), static_cast<size_t>(len)};
    pos_ += len;
    return true;
  }
  bool Ext(int8_t type, std::string_view data, uint64_t start);
  // The map of `count` pairs whose head ends at pos_ (at `start`), offered whole to a
  // TakesMembers sink (sink.h) when every pair is of ShortMember's shapes: a name that is
  // a ShortStr, then an integer of fewer than 20 digits, a float, a ShortStr, nil, false,
  // true, or an empty array or map in one byte. What came of it (Offer); pos_ past the
  // map when taken.
  [[gnu::noinline]] Offer OfferMembers(uint64_t count, uint64_t start);
  // The fixstr or str 8 at *at when it is valid UTF-8 within max_string_bytes (*at moved
  // past it); false otherwise, with nothing said.
  bool ShortStr(const u8** at, std::string_view* s) {
    const u8* p = *at;
    if (p >= end_) return false;
    size_t size;
    if (*p >= 0xa0 && *p <= 0xbf) {
      size = *p++ & 0x1f;
    } else if (*p == 0xd9 && end_ - p >= 2) {
      size = p[1];
      p += 2;
    } else {
      return false;
    }
    if (size > static_cast<size_t>(end_ - p) || size > st_.ctx().limits.max_string_bytes)
      return false;
    *s = {reinterpret_cast<const char*>(p), size};
    if (!ValidUtf8In(*s, static_cast<size_t>(end_ - p))) return false;
    *at = p + size;
    return true;
  }
  ReaderState st_;
  S& sink_;
  const u8* begin_ = nullptr;
  const u8* pos_ = nullptr;
  const u8* end_ = nullptr;
};

template <Sink S>
bool MsgpackReader<S>::Ext(int8_t type, std::string_view data, uint64_t start) {
  // Before each item's event: tells the sink it starts at the ext (a no-op, true, without
  // ItemStart).
  auto at = [&] {
    if constexpr (kItemStarts) sink_.ItemStart(start);
    return true;
  };
  if (type != -1) {
    return (at() && sink_.Tag(kTagMsgpackExtBase + static_cast<uint8_t>(type)) && at() &&
            sink_.Bytes(data)) ||
           SinkFailed(start);
  }
  Timestamp ts{0, 0};
  if (!ParseMsgpackTimestamp(data, &ts)) {
    return Fail(ErrorCode::kSyntax, start, msgpack_detail::BadTimestamp(data.size()));
  }
  const int64_t seconds = ts.seconds;
  const uint64_t nanos = ts.nanos;
  auto integer = [this](int64_t v) {
    return v >= 0 ? sink_.Uint(static_cast<uint64_t>(v)) : sink_.NegInt(~static_cast<uint64_t>(v));
  };
  bool ok;
  if (nanos == 0) {
    ok = at() && sink_.Tag(kTagEpochTime) && at() && integer(seconds);
  } else {
    ok = at() && sink_.Tag(kTagExtendedTime) && at() && sink_.BeginMap(2) && at() &&
         sink_.Uint(1) && at() && integer(seconds) && at() && sink_.NegInt(8) && at() &&
         sink_.Uint(nanos) && sink_.EndMap();
  }
  return ok || SinkFailed(start);
}

template <Sink S>
bool MsgpackReader<S>::Read(std::string_view input) {
  begin_ = pos_ = reinterpret_cast<const u8*>(input.data());
  end_ = begin_ + input.size();
  const Limits& limits = st_.ctx().limits;
  for (;;) {
    uint64_t start = pos_ - begin_;
    KeyKind kind = KeyKind::kOther;
    std::string_view key;
    uint64_t num = 0;
    uint64_t key_tag = 0;  // an ext's tag (kTagMsgpackExtBase + type, or 1 for a timestamp)
    if (!st_.empty() && st_.top().remaining == 0) {
      bool is_map = st_.top().is_map;
      st_.Close();
      if (!(is_map ? sink_.EndMap() : sink_.EndArray())) return SinkFailed(start);
    } else {
      if (pos_ >= end_) [[unlikely]]
        return Fail(ErrorCode::kTruncated, start, "input ends where an item was due");
      const u8 b = *pos_++;
      uint64_t v = 0;
      bool ok = true;
      uint64_t container = 0;  // 1 + count for arrays, 1 + pairs for maps
      bool is_map = false;
      if (b <= 0x7f) {
        if constexpr (kItemStarts) sink_.ItemStart(start);
        ok = sink_.Uint(b);
        kind = KeyKind::kUint;
        num = b;
      } else if (b >= 0xe0) {
        num = ~static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(b)));
        if constexpr (kItemStarts) sink_.ItemStart(start);
        ok = sink_.NegInt(num);
        kind = KeyKind::kNegInt;
      } else if (b <= 0x8f) {
        container = 1 + (b & 0x0f);
        is_map = true;
      } else if (b <= 0x9f) {
        container = 1 + (b & 0x0f);
      } else if (b <= 0xbf || (b >= 0xd9 && b <= 0xdb)) {
        uint64_t len = b <= 0xbf ? (b & 0x1f) : 0;
        if (b > 0xbf && !Fixed(size_t{1} << (b - 0xd9), start, &len)) return false;
        if (!Payload(len, start, &key)) return false;
        if (!ValidUtf8In(key, static_cast<size_t>(end_ - reinterpret_cast<const u8*>(key.data()))))
          return Fail(ErrorCode::kInvalidUtf8, start, "str is not valid UTF-8");
        if constexpr (kItemStarts) sink_.ItemStart(start);
        ok = sink_.Text(key);
        kind = KeyKind::kText;
      } else {
        switch (b) {
          case 0xc0:
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Null();
            kind = KeyKind::kSimple;
            num = 22;
            break;
          case 0xc2:
          case 0xc3:
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Bool(b == 0xc3);
            kind = KeyKind::kSimple;
            num = b == 0xc3 ? 21 : 20;
            break;
          case 0xc4:
          case 0xc5:
          case 0xc6:
            if (!Fixed(size_t{1} << (b - 0xc4), start, &v) || !Payload(v, start, &key))
              return false;
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Bytes(key);
            kind = KeyKind::kBytes;
            break;
          case 0xc7:
          case 0xc8:
          case 0xc9:
          case 0xd4:
          case 0xd5:
          case 0xd6:
          case 0xd7:
          case 0xd8: {
            if (b <= 0xc9) {
              if (!Fixed(size_t{1} << (b - 0xc7), start, &v)) return false;
            } else {
              v = uint64_t{1} << (b - 0xd4);
            }
            uint64_t type = 0;
            std::string_view data;
            if (!Fixed(1, start, &type) || !Payload(v, start, &data)) return false;
            if (!Ext(static_cast<int8_t>(type), data, start)) return false;
            // As a key, the tagged item it is read as: a timestamp of whole seconds is tag 1
            // on its seconds (one with nanoseconds is not compared), another ext is its tag
            // on its data (ReaderState::TaggedKey).
            if (type == 0xff) {
              Timestamp ts{0, 0};
              ParseMsgpackTimestamp(data, &ts);  // Ext() has refused data that is not one
              ReaderState::TimestampKey(ts, &kind, &num);
              key_tag = kTagEpochTime;
            } else {
              kind = KeyKind::kBytes;
              key = data;
              key_tag = kTagMsgpackExtBase + type;
            }
            break;
          }
          case 0xca:
            if (!Fixed(4, start, &v)) return false;
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Double(std::bit_cast<float>(static_cast<uint32_t>(v)));
            kind = KeyKind::kFloat;
            num = ReaderState::FloatKey(std::bit_cast<float>(static_cast<uint32_t>(v)));
            break;
          case 0xcb:
            if (!Fixed(8, start, &v)) return false;
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Double(std::bit_cast<double>(v));
            kind = KeyKind::kFloat;
            num = ReaderState::FloatKey(std::bit_cast<double>(v));
            break;
          case 0xcc:
          case 0xcd:
          case 0xce:
          case 0xcf:
            if (!Fixed(size_t{1} << (b - 0xcc), start, &v)) return false;
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Uint(v);
            kind = KeyKind::kUint;
            num = v;
            break;
          case 0xd0:
          case 0xd1:
          case 0xd2:
          case 0xd3: {
            size_t n = size_t{1} << (b - 0xd0);
            if (!Fixed(n, start, &v)) return false;
            int shift = static_cast<int>(64 - 8 * n);
            int64_t s = static_cast<int64_t>(v << shift) >> shift;  // sign-extend
            if (s >= 0) {
              if constexpr (kItemStarts) sink_.ItemStart(start);
              ok = sink_.Uint(static_cast<uint64_t>(s));
              kind = KeyKind::kUint;
              num = static_cast<uint64_t>(s);
            } else {
              num = ~static_cast<uint64_t>(s);
              if constexpr (kItemStarts) sink_.ItemStart(start);
              ok = sink_.NegInt(num);
              kind = KeyKind::kNegInt;
            }
            break;
          }
          case 0xdc:
          case 0xdd:
          case 0xde:
          case 0xdf:
            if (!Fixed(b & 1 ? 4 : 2, start, &v)) return false;
            container = 1 + v;
            is_map = b >= 0xde;
            break;
          default:  // 0xc1
            return Fail(ErrorCode::kSyntax, start, "0xc1 is never used in MessagePack");
        }
      }
      if (!ok) return SinkFailed(start);
      if (container) {
        uint64_t n = container - 1;
        uint64_t left = static_cast<uint64_t>(end_ - pos_);
        // Claim guard: every item takes at least one byte.
        if (n > left || (is_map && n > left / 2)) {
          return Fail(ErrorCode::kTruncated, start, msgpack_detail::ClaimsItems(is_map, n, left));
        }
        if (n > limits.max_items) {
          return Fail(ErrorCode::kTooManyItems, start,
                      msgpack_detail::TooManyItems(n, limits.max_items));
        }
        bool taken = false, told = false;  // (told: ItemStart before a declined TakeDoubles)
        if constexpr (TakesDoubles<S>) {
          // (n - 1: 0 wraps past the bound.)
          if (!is_map && n - 1 < kMaxTakenDoubles && st_.HasRoom() && !st_.AtKey() &&
              left >= 9 * n) {
            double v[kMaxTakenDoubles];
            size_t i = 0;
            for (; i < n && pos_[9 * i] == 0xcb; ++i)
              v[i] = std::bit_cast<double>(LoadBigEndian(pos_ + 9 * i + 1, 8));
            bool ok = true;
            if (i == n) {
              if constexpr (kItemStarts) sink_.ItemStart(start);
              told = true;
              if (sink_.TakeDoubles(v, i, &ok)) {
                if (!ok) return SinkFailed(start);
                pos_ += 9 * n;
                taken = true;
              }
            }
          }
        }
        if constexpr (TakesMembers<S>) {
          // (The same for a map.)
          if (is_map && n - 1 < kMaxTakenMembers && st_.HasRoom() && !st_.AtKey() &&
              sink_.MayTakeMembers()) {
            const Offer o = OfferMembers(n, start);
            if (o == Offer::kFailed) [[unlikely]]
              return SinkFailed(start);
            taken = o == Offer::kTaken;
            told = o == Offer::kDeclined;
          }
        }
        if (!taken && (!TakesEmpty<S> || n != 0 || !st_.HasRoom())) {
          if (!st_.Open(is_map, is_map ? n * 2 : n, start)) return SinkFailed(start);
          if constexpr (kItemStarts) {
            if (!told) sink_.ItemStart(start);
          }
          if (!(is_map ? sink_.BeginMap(n) : sink_.BeginArray(n))) {
            st_.Close();  // the error's path is the container's own
            return SinkFailed(start);
          }
          continue;
        }
        if constexpr (TakesEmpty<S>) {
          if (!taken) {
            if constexpr (kItemStarts) sink_.ItemStart(start);
            if (!sink_.Empty(is_map)) return SinkFailed(start);
          }
        }
      }
    }
    if (st_.empty()) break;
    Frame& f = st_.top();
    --f.remaining;
    ++f.index;
    if (f.is_map && (f.index & 1)) {
      KeyClaim claim = KeyClaim::kNo;  // (as the CBOR reader's)
      if constexpr (ClaimsKeys<S>) {
        if (kind == KeyKind::kText && st_.claims_text()) claim = sink_.ClaimKey(key, key_tag == 0);
      }
      if (claim != KeyClaim::kNo) {
        if (!st_.Claimed(claim, key, start)) return SinkFailed(start);
      } else if (key_tag != 0) [[unlikely]] {
        if (!st_.TaggedKey(kind, key, num, key_tag, 1, start)) return SinkFailed(start);
      } else if (!st_.Key(kind, key, num, start)) {
        return SinkFailed(start);
      }
    }
  }
  if (uint64_t* item_end = st_.ctx().item_end) [[unlikely]] {
    *item_end = pos_ - begin_;
    return true;
  }
  if (pos_ != end_) {
    return Fail(ErrorCode::kTrailingData, pos_ - begin_,
                msgpack_detail::TrailingBytes(end_ - pos_));
  }
  return true;
}

template <Sink S>
Offer MsgpackReader<S>::OfferMembers(uint64_t count, uint64_t start) {
  // (Storage left uninitialized: a ShortMember's views would be set to empty first.)
  alignas(ShortMember) unsigned char storage[sizeof(ShortMember) * kMaxTakenMembers];
  ShortMember* const m = reinterpret_cast<ShortMember*>(storage);
  const u8* p = pos_;
  uint32_t empties = 0;  // members that are empty containers
  for (uint64_t k = 0; k < count; ++k) {
    ShortMember& x = m[k];
    if (!ShortStr(&p, &x.key) || p >= end_) return Offer::kNone;
    const u8 b = *p;
    if (b <= 0x7f) {  // positive fixint
      x.number = {b, 0, false};
      x.kind = ShortMember::kNumber;
      ++p;
    } else if (b >= 0xe0) {  // negative fixint: -32..-1
      x.number = {uint64_t{256} - b, 0, true};
      x.kind = ShortMember::kNumber;
      ++p;
    } else if ((b >= 0xa0 && b <= 0xbf) || b == 0xd9) {
      if (!ShortStr(&p, &x.text)) return Offer::kNone;
      x.kind = ShortMember::kText;
    } else if (b == 0x80 || b == 0x90) {
      x.kind = b == 0x90 ? ShortMember::kEmptyArray : ShortMember::kEmptyMap;
      ++empties;
      ++p;
    } else if (b == 0xc0 || b == 0xc2 || b == 0xc3) {
      x.kind = b == 0xc0   ? ShortMember::kNull
               : b == 0xc3 ? ShortMember::kTrue
                           : ShortMember::kFalse;
      ++p;
    } else if (b == 0xca || b == 0xcb || (b >= 0xcc && b <= 0xd3)) {
      // float 32 / 64, uint 8..64, int 8..64: n bytes big-endian after the head.
      const size_t n = b == 0xca ? 4 : b == 0xcb ? 8 : size_t{1} << ((b - 0xcc) & 3);
      ++p;
      if (static_cast<size_t>(end_ - p) < n) return Offer::kNone;
      const uint64_t v = LoadBigEndian(p, n);
      p += n;
      constexpr uint64_t kDigitsLimit = 10'000'000'000'000'000'000u;  // (ShortDecimal's)
      if (b == 0xca) {
        x.real = std::bit_cast<float>(static_cast<uint32_t>(v));
        x.kind = ShortMember::kDouble;
      } else if (b == 0xcb) {
        x.real = std::bit_cast<double>(v);
        x.kind = ShortMember::kDouble;
      } else if (b <= 0xcf) {
        if (v >= kDigitsLimit) return Offer::kNone;
        x.number = {v, 0, false};
        x.kind = ShortMember::kNumber;
      } else {
        const int shift = static_cast<int>(64 - 8 * n);
        const int64_t s = static_cast<int64_t>(v << shift) >> shift;  // sign-extended
        // (|INT64_MIN| is 2^63, below 10^19.)
        x.number = {s >= 0 ? static_cast<uint64_t>(s) : uint64_t{0} - static_cast<uint64_t>(s), 0,
                    s < 0};
        x.kind = ShortMember::kNumber;
      }
    } else {
      return Offer::kNone;
    }
  }
  const Offer offer = OfferTo(sink_, st_, m, count, empties, start);
  if (offer == Offer::kTaken) pos_ = p;
  return offer;
}

}  // namespace rosetta::codec
