#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "binary/big_endian.h"
#include "binary/float_bits.h"
#include "core/reader_state.h"
#include "core/timestamp.h"
#include "memory/budget_vector.h"
#include "memory/scratch.h"
#include "rosetta/codec/sink.h"
#include "text/utf8.h"

namespace rosetta::codec {

// The content of a tag-1001 map (RFC 9581) as the MessagePack writer takes it, looked at
// ahead from p (its first item; `count` pairs, kUnknownLength when indefinite): 1 or 2
// pairs of integers, {1: seconds, -9: nanoseconds}, the seconds present. False for any
// other content, which the writer (or the reader) refuses. Reads only what is there.
bool ScanExtendedTimeMap(const uint8_t* p, const uint8_t* end, uint64_t count, Timestamp* ts);

// Reads one CBOR data item (RFC 8949) and drives a sink with it. Iterative: containers
// live on ReaderState's stack. Every claimed length or count is checked against the
// bytes left before it is used, so a claim never costs more than the bytes behind it.
//
// kDeterministic (validate --deterministic): the item must also be in RFC 8949 section
// 4.2.1 core deterministic encoding, else `not_deterministic` naming the rule broken:
// every head (integer, length, count, tag) in its shortest form, no indefinite length,
// every float in the shortest of half, single and double that holds its value exactly,
// and every map's keys in strictly increasing bytewise order of their encodings (each
// compared with the one before it where both lie in the input: nothing is copied).
template <Sink S, bool kDeterministic = false>
class CborReader {
 public:
  CborReader(Context& ctx, S& sink) : st_(ctx), sink_(sink), scratch_(ctx), keys_(ctx) {}

  bool Read(std::string_view input);

 private:
  using u8 = uint8_t;
  // The sink is told where each item starts (sink.h, ItemStart): the offset in the input
  // of its initial byte; a tag's content is told its own start after the tag's.
  static constexpr bool kItemStarts = requires(S & s) { s.ItemStart(uint64_t{0}); };
  [[gnu::cold]] bool Fail(ErrorCode code, uint64_t offset, std::string message) {
    return st_.FailAt(code, offset, std::move(message));
  }
  [[gnu::cold]] bool SinkFailed(uint64_t offset) {
    st_.Locate(offset);
    return false;
  }
  [[gnu::cold]] bool Truncated(uint64_t offset, uint64_t need) {
    return Fail(ErrorCode::kTruncated, offset,
                "item claims " + std::to_string(need) + " bytes but " +
                    std::to_string(end_ - pos_) + " remain");
  }
  [[gnu::cold]] bool Reserved(uint64_t offset, u8 ai) {
    return Fail(ErrorCode::kSyntax, offset,
                "reserved additional information " + std::to_string(ai));
  }
  // Reads the argument that follows an initial byte; false on truncation/reserved values.
  // On the path of every item: always inlined, whatever the compiler's size heuristics
  // make of the function it is in.
  [[gnu::always_inline]] bool Argument(u8 ai, uint64_t start, uint64_t* arg) {
    if (ai < 24) {
      *arg = ai;
      return true;
    }
    if (ai > 27) return Reserved(start, ai);
    size_t n = size_t{1} << (ai - 24);
    if (static_cast<size_t>(end_ - pos_) < n) return Truncated(start, n);
    *arg = LoadBigEndian(pos_, n);
    pos_ += n;
    return true;
  }
  bool ReadString(u8 major, u8 ai, uint64_t start, std::string_view* out);
  bool ReadChunks(u8 major, uint64_t start, std::string_view* out);
  // The map of `count` pairs whose head ends at pos_ (at `start`), offered whole to a
  // TakesMembers sink (sink.h) when every pair is of ShortMember's shapes: a name that is
  // a ShortText, then an integer of fewer than 20 digits, a float, a ShortText, false,
  // true, null, or an empty array or map in one byte. What came of it (Offer); pos_ past
  // the map when taken.
  [[gnu::noinline]] Offer OfferMembers(uint64_t count, uint64_t start);
  // The definite text string at *at when its head is one or two bytes (at most 255 bytes
  // of text) and it is valid UTF-8 within max_string_bytes (*at moved past it); false
  // otherwise, with nothing said (the events then say what is wrong, if anything).
  bool ShortText(const u8** at, std::string_view* s);

  // Deterministic checks (kDeterministic only).
  [[gnu::cold]] bool NotDeterministic(uint64_t offset, std::string message) {
    return Fail(ErrorCode::kNotDeterministic, offset,
                "not deterministic CBOR (RFC 8949 4.2.1): " + std::move(message));
  }
  bool ShortestHead(u8 ai, uint64_t arg, uint64_t start) {
    if (ai < 24 || (ai == 24 && arg >= 24) || (ai == 25 && arg > 0xff) ||
        (ai == 26 && arg > 0xffff) || (ai == 27 && arg > 0xffffffff))
      return true;
    return NotDeterministic(start,
                            "the argument " + std::to_string(arg) + " is not in its shortest head");
  }
  bool ShortestFloat(u8 ai, double d, uint64_t start) {
    uint16_t half;
    if (ai == 25 || (ai == 26 && !DoubleToHalf(d, &half)) ||
        (ai == 27 && !DoubleToHalf(d, &half) && !FitsFloat(d)))
      return true;
    return NotDeterministic(start, "the float is not in the shortest form that holds its value");
  }
  // Each open container's keys: where the key being read starts, and the one before it.
  struct Keys {
    uint64_t start = 0;
    uint64_t prev_start = 0, prev_end = 0;
    bool has_prev = false;
  };
  bool KeyInOrder(uint64_t end) {
    Keys& k = keys_.back();
    const std::string_view key(reinterpret_cast<const char*>(begin_) + k.start, end - k.start);
    if (k.has_prev) {
      const std::string_view prev(reinterpret_cast<const char*>(begin_) + k.prev_start,
                                  k.prev_end - k.prev_start);
      if (!(prev < key))
        return NotDeterministic(k.start,
                                "map keys are not in increasing bytewise order of their encodings");
    }
    k.prev_start = k.start;
    k.prev_end = end;
    k.has_prev = true;
    return true;
  }

  ReaderState st_;
  S& sink_;
  Scratch scratch_;
  BudgetVector<Keys> keys_;  // kDeterministic: one per open container
  const u8* begin_ = nullptr;
  const u8* pos_ = nullptr;
  const u8* end_ = nullptr;
};

template <Sink S, bool kDeterministic>
bool CborReader<S, kDeterministic>::ReadString(u8 major, u8 ai, uint64_t start,
                                               std::string_view* out) {
  if (ai == 31) {
    if constexpr (kDeterministic) return NotDeterministic(start, "a string of indefinite length");
    return ReadChunks(major, start, out);
  }
  uint64_t len = 0;
  if (!Argument(ai, start, &len)) return false;
  if constexpr (kDeterministic) {
    if (!ShortestHead(ai, len, start)) return false;
  }
  // Claim guard: the length is checked against the bytes behind it before anything else.
  if (len > static_cast<uint64_t>(end_ - pos_)) return Truncated(start, len);
  if (len > st_.ctx().limits.max_string_bytes) {
    return Fail(ErrorCode::kStringTooLarge, start,
                "string of " + std::to_string(len) + " bytes passes max_string_bytes " +
                    std::to_string(st_.ctx().limits.max_string_bytes));
  }
  *out = {reinterpret_cast<const char*>(pos_), static_cast<size_t>(len)};
  pos_ += len;
  if (major == 3 && !ValidUtf8(*out))
    return Fail(ErrorCode::kInvalidUtf8, start, "text string is not valid UTF-8");
  return true;
}

template <Sink S, bool kDeterministic>
bool CborReader<S, kDeterministic>::ShortText(const u8** at, std::string_view* s) {
  const u8* p = *at;
  if (p >= end_ || (*p >> 5) != 3) return false;
  size_t size = *p++ & 31;
  if (size == 24) {
    if (p >= end_) return false;
    size = *p++;
  } else if (size > 24) {
    return false;
  }
  if (size > static_cast<size_t>(end_ - p) || size > st_.ctx().limits.max_string_bytes)
    return false;
  *s = {reinterpret_cast<const char*>(p), size};
  if (!ValidUtf8In(*s, static_cast<size_t>(end_ - p))) return false;
  *at = p + size;
  return true;
}

template <Sink S, bool kDeterministic>
Offer CborReader<S, kDeterministic>::OfferMembers(uint64_t count, uint64_t start) {
  // (Storage left uninitialized: a ShortMember's views would be set to empty first.)
  alignas(ShortMember) unsigned char storage[sizeof(ShortMember) * kMaxTakenMembers];
  ShortMember* const m = reinterpret_cast<ShortMember*>(storage);
  const u8* p = pos_;
  uint32_t empties = 0;  // members that are empty containers
  for (uint64_t k = 0; k < count; ++k) {
    ShortMember& x = m[k];
    if (!ShortText(&p, &x.key) || p >= end_) return Offer::kNone;
    const u8 major = *p >> 5;
    const u8 ai = *p & 31;
    switch (major) {
      case 0:
      case 1: {
        ++p;
        uint64_t arg = ai;
        if (ai >= 24) {
          if (ai > 27) return Offer::kNone;
          const size_t n = size_t{1} << (ai - 24);
          if (static_cast<size_t>(end_ - p) < n) return Offer::kNone;
          arg = LoadBigEndian(p, n);
          p += n;
        }
        // (ShortDecimal's digits are below 10^19: -1 - arg has arg + 1.)
        constexpr uint64_t kDigitsLimit = 10'000'000'000'000'000'000u;
        if (arg >= kDigitsLimit - major) return Offer::kNone;
        x.number = {arg + major, 0, major == 1};
        x.kind = ShortMember::kNumber;
        break;
      }
      case 3:
        if (!ShortText(&p, &x.text)) return Offer::kNone;
        x.kind = ShortMember::kText;
        break;
      case 4:
      case 5:
        if (ai != 0) return Offer::kNone;
        ++p;
        x.kind = major == 4 ? ShortMember::kEmptyArray : ShortMember::kEmptyMap;
        ++empties;
        break;
      case 7:
        ++p;
        if (ai == 20 || ai == 21) {
          x.kind = ai == 21 ? ShortMember::kTrue : ShortMember::kFalse;
        } else if (ai == 22) {
          x.kind = ShortMember::kNull;
        } else if (ai >= 25 && ai <= 27) {
          const size_t n = size_t{1} << (ai - 24);
          if (static_cast<size_t>(end_ - p) < n) return Offer::kNone;
          const uint64_t bits = LoadBigEndian(p, n);
          p += n;
          x.real = ai == 25   ? HalfToDouble(static_cast<uint16_t>(bits))
                   : ai == 26 ? std::bit_cast<float>(static_cast<uint32_t>(bits))
                              : std::bit_cast<double>(bits);
          x.kind = ShortMember::kDouble;
        } else {
          return Offer::kNone;
        }
        break;
      default:
        return Offer::kNone;
    }
  }
  const Offer offer = OfferTo(sink_, st_, m, count, empties, start);
  if (offer == Offer::kTaken) pos_ = p;
  return offer;
}

// An indefinite-length string: definite chunks of the same major type up to a break
// (RFC 8949 3.2.3). The chunks are walked once to check them and total their size, then
// copied once into a block of exactly that size.
template <Sink S, bool kDeterministic>
bool CborReader<S, kDeterministic>::ReadChunks(u8 major, uint64_t start, std::string_view* out) {
  const u8* first = pos_;
  uint64_t total = 0;
  size_t chunks = 0;
  std::string_view only;
  for (;;) {
    if (pos_ >= end_) return Truncated(start, 1);
    const uint64_t chunk_start = pos_ - begin_;
    u8 ib = *pos_++;
    if (ib == 0xff) break;
    if ((ib >> 5) != major || (ib & 31) == 31) {
      return Fail(
          ErrorCode::kSyntax, chunk_start,
          "chunk of an indefinite-length string must be a definite string of the same type");
    }
    std::string_view chunk;
    if (!ReadString(major, ib & 31, chunk_start, &chunk)) return false;  // checks UTF-8 per chunk
    total += chunk.size();
    if (total > st_.ctx().limits.max_string_bytes) {
      return Fail(
          ErrorCode::kStringTooLarge, start,
          "string passes max_string_bytes " + std::to_string(st_.ctx().limits.max_string_bytes));
    }
    only = chunk;
    ++chunks;
  }
  if (chunks <= 1) {
    *out = chunks ? only : std::string_view();
    return true;
  }
  char* block = scratch_.Allocate(total);
  if (block == nullptr) return SinkFailed(start);
  const u8* end = pos_;
  size_t at = 0;
  for (pos_ = first; *pos_ != 0xff;) {
    std::string_view chunk;
    u8 ib = *pos_++;
    ReadString(major, ib & 31, 0, &chunk);  // already checked
    std::memcpy(block + at, chunk.data(), chunk.size());
    at += chunk.size();
  }
  pos_ = end;
  *out = {block, static_cast<size_t>(total)};
  return true;
}

template <Sink S, bool kDeterministic>
bool CborReader<S, kDeterministic>::Read(std::string_view input) {
  begin_ = pos_ = reinterpret_cast<const u8*>(input.data());
  end_ = begin_ + input.size();
  const Limits& limits = st_.ctx().limits;
  bool tagged = false;   // a tag was read and its item is due
  int key_tags = 0;      // how many tags the item just read had (2: two or more)
  uint64_t key_tag = 0;  // its innermost tag
  uint64_t item = 0;     // where the item being read starts: its first tag, if it has one
  for (;;) {
    uint64_t start = pos_ - begin_;
    if (!tagged) item = start;
    if constexpr (kDeterministic) {
      if (!tagged && !st_.empty() && st_.top().is_map && !(st_.top().index & 1))
        keys_.back().start = start;  // a key starts here (or its map closes)
    }
    KeyKind kind = KeyKind::kOther;
    std::string_view key;
    uint64_t num = 0;
    if (!tagged) key_tags = 0;
    if (!st_.empty() && !tagged) {
      Frame& f = st_.top();
      bool close;
      if (f.remaining == kUnknownLength) {
        close = pos_ < end_ && *pos_ == 0xff;
        if (close) {
          if (f.is_map && (f.index & 1))
            return Fail(ErrorCode::kSyntax, start, "break after a map key with no value");
          ++pos_;
        }
      } else {
        close = f.remaining == 0;
      }
      if (close) {
        bool is_map = f.is_map;
        st_.Close();
        if constexpr (kDeterministic) keys_.Pop();
        if (!(is_map ? sink_.EndMap() : sink_.EndArray())) return SinkFailed(item);
        goto item_done;
      }
    }
    if (pos_ >= end_) [[unlikely]]
      return Fail(ErrorCode::kTruncated, start, "input ends where an item was due");
    tagged = false;
    {
      const u8 ib = *pos_++;
      const u8 major = ib >> 5;
      const u8 ai = ib & 31;
      uint64_t arg = 0;
      switch (major) {
        case 0:
        case 1:
          if (ai == 31) return Fail(ErrorCode::kSyntax, start, "integer with indefinite length");
          if (!Argument(ai, start, &arg)) return false;
          if constexpr (kDeterministic) {
            if (!ShortestHead(ai, arg, start)) return false;
          }
          if constexpr (kItemStarts) sink_.ItemStart(start);
          if (!(major == 0 ? sink_.Uint(arg) : sink_.NegInt(arg))) return SinkFailed(item);
          kind = major == 0 ? KeyKind::kUint : KeyKind::kNegInt;
          num = arg;
          break;
        case 2:
        case 3: {
          // A string of up to 23 bytes (most keys and names) has its length in the head:
          // taken here, without the call; anything else, or one that fails a check, goes
          // through ReadString, which says why.
          if (ai < 24 && ai <= static_cast<uint64_t>(end_ - pos_) &&
              ai <= limits.max_string_bytes &&
              (major == 2 ||
               ValidUtf8In({reinterpret_cast<const char*>(pos_), static_cast<size_t>(ai)},
                           static_cast<size_t>(end_ - pos_)))) {
            key = {reinterpret_cast<const char*>(pos_), static_cast<size_t>(ai)};
            pos_ += ai;
          } else if (!ReadString(major, ai, start, &key)) {
            return false;
          }
          if constexpr (kItemStarts) sink_.ItemStart(start);
          if (!(major == 3 ? sink_.Text(key) : sink_.Bytes(key))) return SinkFailed(item);
          kind = major == 3 ? KeyKind::kText : KeyKind::kBytes;
          break;
        }
        case 4:
        case 5: {
          const bool is_map = major == 5;
          uint64_t items = kUnknownLength;
          if constexpr (kDeterministic) {
            if (ai == 31)
              return NotDeterministic(
                  start, is_map ? "a map of indefinite length" : "an array of indefinite length");
          }
          if (ai != 31) {
            if (!Argument(ai, start, &arg)) return false;
            if constexpr (kDeterministic) {
              if (!ShortestHead(ai, arg, start)) return false;
            }
            // Claim guard: every item takes at least one byte.
            uint64_t left = static_cast<uint64_t>(end_ - pos_);
            if (arg > left || (is_map && arg > left / 2)) {
              return Fail(ErrorCode::kTruncated, start,
                          (is_map ? "map claims " : "array claims ") + std::to_string(arg) +
                              " items but " + std::to_string(left) + " bytes remain");
            }
            if (arg > limits.max_items) {
              return Fail(ErrorCode::kTooManyItems, start,
                          std::to_string(arg) + " items pass max_items " +
                              std::to_string(limits.max_items));
            }
            items = is_map ? arg * 2 : arg;
          }
          if constexpr (TakesEmpty<S>) {
            if (items == 0 && key_tags == 0 && st_.HasRoom()) {
              if constexpr (kItemStarts) sink_.ItemStart(start);
              if (!sink_.Empty(is_map)) return SinkFailed(item);
              break;
            }
          }
          bool told = false;  // (ItemStart before a TakeDoubles the sink declined)
          if constexpr (TakesDoubles<S> && !kDeterministic) {
            // (items - 1: 0 and an indefinite length wrap past the bound.)
            if (!is_map && items - 1 < kMaxTakenDoubles && key_tags == 0 && st_.HasRoom() &&
                !st_.AtKey() && static_cast<uint64_t>(end_ - pos_) >= 9 * items) {
              double v[kMaxTakenDoubles];
              size_t i = 0;
              for (; i < items && pos_[9 * i] == 0xfb; ++i)
                v[i] = std::bit_cast<double>(LoadBigEndian(pos_ + 9 * i + 1, 8));
              bool ok = true;
              if (i == items) {
                if constexpr (kItemStarts) sink_.ItemStart(start);
                told = true;
                if (sink_.TakeDoubles(v, i, &ok)) {
                  if (!ok) return SinkFailed(item);
                  pos_ += 9 * items;
                  break;
                }
              }
            }
          }
          if constexpr (TakesMembers<S> && !kDeterministic) {
            // (The same for a map: arg - 1, as items - 1 above.)
            if (is_map && ai != 31 && arg - 1 < kMaxTakenMembers && key_tags == 0 &&
                st_.HasRoom() && !st_.AtKey() && sink_.MayTakeMembers()) {
              const Offer o = OfferMembers(arg, start);
              if (o == Offer::kTaken) break;
              if (o == Offer::kFailed) [[unlikely]]
                return SinkFailed(item);
              told = o == Offer::kDeclined;
            }
          }
          // A tag-1001 map key into MessagePack is the timestamp it becomes (docs/formats.md).
          if (is_map && key_tags != 0 && key_tag == kTagExtendedTime && st_.JudgesTimestampMaps() &&
              st_.AtKey()) [[unlikely]] {
            Timestamp ts{0, 0};
            if (ScanExtendedTimeMap(pos_, end_, ai == 31 ? kUnknownLength : arg, &ts) &&
                !st_.TimestampKeyAhead(ts, start)) {
              return SinkFailed(start);
            }
          }
          if (!st_.Open(is_map, items, start)) return SinkFailed(item);
          if constexpr (kDeterministic) {
            if (!keys_.Push(Keys{})) return SinkFailed(item);
          }
          uint64_t count = ai == 31 ? kUnknownLength : arg;
          if constexpr (kItemStarts) {
            if (!told) sink_.ItemStart(start);
          }
          if (!(is_map ? sink_.BeginMap(count) : sink_.BeginArray(count))) {
            st_.Close();  // the error's path is the container's own
            return SinkFailed(item);
          }
          continue;
        }
        case 6:
          if (ai == 31) return Fail(ErrorCode::kSyntax, start, "tag with indefinite length");
          if (!Argument(ai, start, &arg)) return false;
          if constexpr (kDeterministic) {
            if (!ShortestHead(ai, arg, start)) return false;
          }
          if constexpr (kItemStarts) sink_.ItemStart(start);
          if (!sink_.Tag(arg)) return SinkFailed(item);
          tagged = true;
          key_tags = key_tags == 0 ? 1 : 2;
          key_tag = arg;
          continue;  // the tagged item follows; together they are one item
        default: {   // 7: simple values and floats (RFC 8949 3.3)
          bool ok;
          kind = KeyKind::kSimple;
          num = ai;
          if (ai < 20) {
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Simple(ai);
          } else if (ai == 20 || ai == 21) {
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Bool(ai == 21);
          } else if (ai == 22) {
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Null();
          } else if (ai == 23) {
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Undefined();
          } else if (ai == 24) {
            if (pos_ >= end_) return Truncated(start, 1);
            u8 v = *pos_++;
            // RFC 8949 3.3 makes 0xf8 0x00..0x1f not well-formed; 24..31 are kept readable
            // (RFC 7049 and its Appendix A vector simple(24) = f818): docs/formats.md.
            if (v < 24)
              return Fail(ErrorCode::kSyntax, start,
                          "simple value " + std::to_string(v) + " in two bytes");
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Simple(v);
            num = v;
          } else if (ai <= 27) {
            if (!Argument(ai, start, &arg)) return false;
            double d;
            if (ai == 25) {
              d = HalfToDouble(static_cast<uint16_t>(arg));
            } else if (ai == 26) {
              d = std::bit_cast<float>(static_cast<uint32_t>(arg));
            } else {
              d = std::bit_cast<double>(arg);
            }
            if constexpr (kDeterministic) {
              if (!ShortestFloat(ai, d, start)) return false;
            }
            if constexpr (kItemStarts) sink_.ItemStart(start);
            ok = sink_.Double(d);
            kind = KeyKind::kFloat;
            num = ReaderState::FloatKey(d);
          } else if (ai == 31) {
            return Fail(ErrorCode::kSyntax, start, "break outside an indefinite-length item");
          } else {
            return Fail(ErrorCode::kSyntax, start,
                        "reserved additional information " + std::to_string(ai));
          }
          if (!ok) return SinkFailed(item);
          break;
        }
      }
    }
  item_done:
    if (st_.empty()) break;
    {
      Frame& f = st_.top();
      if (f.remaining != kUnknownLength) {
        --f.remaining;
      } else if (f.index >= (f.is_map ? limits.max_items * 2 : limits.max_items)) [[unlikely]] {
        return Fail(ErrorCode::kTooManyItems, start,
                    "container passes max_items " + std::to_string(limits.max_items));
      }
      ++f.index;
      if (f.is_map && (f.index & 1)) {
        // A duplicate is located; no budget is not yet. A tagged key's identity depends on
        // what the output keeps of its tags (ReaderState::TaggedKey).
        // A text key the sink may keep its own record of (ClaimsKeys): one with tags too,
        // as they are dropped.
        KeyClaim claim = KeyClaim::kNo;
        if constexpr (ClaimsKeys<S>) {
          if (kind == KeyKind::kText && st_.claims_text())
            claim = sink_.ClaimKey(key, key_tags == 0);
        }
        if (claim != KeyClaim::kNo) {
          if (!st_.Claimed(claim, key, start)) return SinkFailed(start);
        } else if (key_tags != 0) [[unlikely]] {
          if (!st_.TaggedKey(kind, key, num, key_tag, key_tags, start)) return SinkFailed(start);
        } else if (!st_.Key(kind, key, num, start)) {
          return SinkFailed(start);
        }
        if constexpr (kDeterministic) {
          if (!KeyInOrder(pos_ - begin_)) return false;  // located at the key, by its path
        }
      }
    }
  }
  if (uint64_t* item_end = st_.ctx().item_end) [[unlikely]] {
    *item_end = pos_ - begin_;
    return true;
  }
  if (pos_ != end_) {
    return Fail(ErrorCode::kTrailingData, pos_ - begin_,
                std::to_string(end_ - pos_) + " bytes after the end of the data item");
  }
  return true;
}

}  // namespace rosetta::codec
