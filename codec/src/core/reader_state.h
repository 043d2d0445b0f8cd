#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

#include "binary/big_endian.h"
#include "core/key_set.h"
#include "core/timestamp.h"
#include "memory/budget_vector.h"
#include "rosetta/codec/sink.h"

namespace rosetta::codec {

// One open container in a reader: what is left of it, where the reader is in it, and the
// key of the current value (for the error path). Readers keep these on an explicit stack:
// nesting never recurses on the machine stack.
struct Frame {
  uint64_t
      remaining;     // items (keys and values counted apart) still due; kUnknownLength if not given
  uint64_t index;    // items completed at this level
  const char* key;   // current key (text or bytes) or null
  uint64_t key_num;  // current key when it is an integer
  uint32_t key_size;
  KeyKind key_kind;
  bool is_map;
};

// What came of a container a reader offered a sink whole (TakesDecimals, TakesMembers):
// kTaken, or kFailed (the sink's verdict false), when the sink took it; kDeclined when it
// did not (after the container's ItemStart); kNone when it was no container of the shape
// offered (nothing was told).
enum class Offer : uint32_t { kNone, kDeclined, kTaken, kFailed };

// The container stack, depth limit, duplicate keys and error path shared by all readers.
class ReaderState {
 public:
  // The request's options are read once: they do not change while it is read.
  explicit ReaderState(Context& ctx)
      : ctx_(ctx),
        check_keys_(!ctx.options.allow_duplicate_keys),
        json_member_names_(ctx.json_member_names),
        tags_kept_(ctx.tags_kept),
        low_ints_as_doubles_(ctx.options.bignum_as_double && !ctx.tags_kept &&
                             !ctx.json_member_names),
        frames_(ctx),
        keys_(ctx) {}

  Context& ctx() { return ctx_; }
  bool empty() const { return frames_.empty(); }
  size_t depth() const { return frames_.size(); }
  Frame& top() { return frames_.back(); }

  // Whether a container may open here (Open's depth check, for an empty container given
  // to a TakesEmpty sink without opening it).
  bool HasRoom() const { return frames_.size() < ctx_.limits.max_depth; }
  // Depth is checked on every container open (max_depth counts open containers).
  [[gnu::always_inline]] bool Open(bool is_map, uint64_t remaining, uint64_t offset) {
    if (frames_.size() >= ctx_.limits.max_depth) [[unlikely]]
      return DepthExceeded(offset);
    if (is_map && check_keys_ && !keys_.Open()) return false;
    return frames_.Push(Frame{remaining, 0, nullptr, 0, 0, KeyKind::kNone, is_map});
  }
  void Close() {
    if (frames_.back().is_map && check_keys_) keys_.Close();
    frames_.Pop();
  }
  // Whether a text key of plain text identity (untagged, or its tags dropped) may be
  // claimed by the sink (ClaimsKeys): duplicates are refused, and no tag is kept.
  bool claims_text() const { return check_keys_ && !tags_kept_; }
  // A text key the sink claimed: recorded for the error path, or refused as a duplicate.
  bool Claimed(KeyClaim claim, std::string_view key, uint64_t offset) {
    SetKey(KeyKind::kText, key, 0);
    return claim == KeyClaim::kNew || DuplicateKey(offset);
  }
  // True when the next item of the innermost map is a key.
  bool AtKey() const {
    return !frames_.empty() && frames_[frames_.size() - 1].is_map &&
           (frames_[frames_.size() - 1].index & 1) == 0;
  }

  // Records a completed key of the innermost map and refuses a duplicate. A tagged kind
  // carries its tag in `tag`.
  [[gnu::always_inline]] bool Key(KeyKind kind, std::string_view bytes, uint64_t num,
                                  uint64_t offset, uint64_t tag = 0) {
    Frame& f = frames_.back();
    f.key_kind = kind;
    f.key = bytes.data();
    f.key_size = static_cast<uint32_t>(bytes.size());
    f.key_num = num;
    if (!check_keys_ || kind == KeyKind::kOther) return true;
    if (json_member_names_ && kind == KeyKind::kText && !bytes.empty() &&
        (bytes[0] == '-' || (bytes[0] >= '0' && bytes[0] <= '9'))) [[unlikely]] {
      CanonicalInteger(bytes, &kind, &num);  // "12" is the member an integer key 12 becomes
    }
    if (kind == KeyKind::kNegInt && num > 0x7fffffffffffffffull && low_ints_as_doubles_)
        [[unlikely]] {
      kind = KeyKind::kFloat;  // below -2^63: the double MessagePack gets
      num = FloatKey(NegIntToDouble(num));
    }
    const KeyKind content = Untagged(kind);
    if (content == KeyKind::kSimple && num == 23 && !tags_kept_) [[unlikely]]
      num = 22;  // undefined is null there
    const bool by_value = content != KeyKind::kText && content != KeyKind::kBytes;
    KeySet::Result r =
        keys_.Insert(kind, by_value ? std::string_view() : bytes, by_value ? num : 0, tag);
    if (r == KeySet::kInserted) [[likely]]
      return true;
    if (r == KeySet::kNoBudget) return false;
    return DuplicateKey(offset);
  }

  // A key item under `tags` tags (CBOR tags, or 1 for a MessagePack ext or timestamp read
  // as its tag), `tag` the innermost, `content` its content's kind and value. Its identity
  // is that of the key the output gets (docs/formats.md, duplicate keys):
  // - CBOR keeps every tag: one tag and its content; a tagged float or simple value, or
  //   any item under several tags, is not compared.
  // - MessagePack keeps tag 1 (a timestamp) and an ext tag on bytes (the ext) and drops
  //   every other tag, outer ones first. A timestamp of whole seconds is tag 1 on its
  //   seconds, whatever it was given as (an integer, a float, ext -1 data); one with
  //   nanoseconds is not compared, as the MessagePack reader does not compare it. A bignum
  //   is the integer it becomes, or with bignum_as_double beyond 64 bits the double.
  // - JSON drops the tags: the content, a bignum as the integer it becomes.
  // A bignum beyond 64 bits is otherwise its tag and its magnitude without leading zeros.
  [[gnu::cold]] bool TaggedKey(KeyKind content, std::string_view bytes, uint64_t num, uint64_t tag,
                               int tags, uint64_t offset);

  // True when a tag-1001 map key becomes a compared key: into MessagePack, where it is a
  // timestamp (CborReader::ExtendedTimeKey).
  bool JudgesTimestampMaps() const { return check_keys_ && !tags_kept_ && !json_member_names_; }

  // The same for a key looked at ahead, before its item is read: the path names it.
  [[gnu::cold]] bool TimestampKeyAhead(const Timestamp& ts, uint64_t offset);

  // A timestamp key as MessagePack judges it: whole seconds are tag 1 on the seconds
  // (kind and num of the integer); with nanoseconds kind stays kOther (not compared).
  static void TimestampKey(const Timestamp& ts, KeyKind* kind, uint64_t* num) {
    if (ts.nanos != 0) return;
    *kind = ts.seconds >= 0 ? KeyKind::kUint : KeyKind::kNegInt;
    *num = ts.seconds >= 0 ? static_cast<uint64_t>(ts.seconds) : ~static_cast<uint64_t>(ts.seconds);
  }
  [[gnu::cold]] bool TimestampKey(const Timestamp& ts, uint64_t offset);

  // A float key's value: the bits of its double, every NaN as the one quiet NaN.
  static uint64_t FloatKey(double d) {
    return d != d ? 0x7ff8000000000000ull : std::bit_cast<uint64_t>(d);
  }

  // Records the current key for the error path only (keys unique by construction).
  void SetKey(KeyKind kind, std::string_view bytes, uint64_t num) {
    Frame& f = frames_.back();
    f.key_kind = kind;
    f.key = bytes.data();
    f.key_size = static_cast<uint32_t>(bytes.size());
    f.key_num = num;
  }

  // Fills in the offset and path of an error a sink reported (or one found here).
  [[gnu::cold]] void Locate(uint64_t offset) {
    if (!ctx_.located) {
      ctx_.status.offset = offset;
      ctx_.located = true;
    }
    if (ctx_.status.path.empty()) ctx_.status.path = Path();
  }
  [[gnu::cold]] bool FailAt(ErrorCode code, uint64_t offset, std::string message) {
    ctx_.FailAt(code, offset, std::move(message));
    Locate(offset);
    return false;
  }

  // JSON Pointer (RFC 6901) of the item being read.
  [[gnu::cold]] std::string Path() const;

 private:
  // When `text` is an integer exactly as the JSON writer prints one (no sign for 0, no
  // leading zeros, -2^64 .. 2^64-1), its integer kind and value.
  static void CanonicalInteger(std::string_view text, KeyKind* kind, uint64_t* num) {
    const bool negative = text[0] == '-';
    std::string_view digits = negative ? text.substr(1) : text;
    if (digits.empty() || digits.size() > 20 ||
        (digits[0] == '0' && (digits.size() > 1 || negative)))
      return;
    uint64_t v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return;
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (v > (~uint64_t{0} - d) / 10) {
        if (negative && digits == "18446744073709551616") {
          *kind = KeyKind::kNegInt;
          *num = ~uint64_t{0};
        }
        return;
      }
      v = v * 10 + d;
    }
    *kind = negative ? KeyKind::kNegInt : KeyKind::kUint;
    *num = negative ? v - 1 : v;
  }

  [[gnu::cold]] bool DepthExceeded(uint64_t offset) {
    return FailAt(ErrorCode::kDepthExceeded, offset,
                  "nesting deeper than max_depth " + std::to_string(ctx_.limits.max_depth));
  }
  [[gnu::cold]] bool DuplicateKey(uint64_t offset);
  // Key, out of line: one copy for the rare keys (TaggedKey, TimestampKey).
  [[gnu::cold, gnu::noinline]] bool ColdKey(KeyKind kind, std::string_view bytes, uint64_t num,
                                            uint64_t offset, uint64_t tag);

  Context& ctx_;
  const bool check_keys_;
  const bool json_member_names_;
  const bool tags_kept_;
  const bool low_ints_as_doubles_;  // into MessagePack with bignum_as_double
  BudgetVector<Frame, 32> frames_;
  KeySet keys_;
};

// The end of a reader's offer of a short map to a TakesMembers sink (sink.h): its n
// members read into m, `empties` of them empty containers, the map at `start` in the
// input. kNone when such a container would be past max_depth; else the sink is told the
// map's start (when it takes ItemStart) and offered the map.
template <class S>
Offer OfferTo(S& sink, ReaderState& st, const ShortMember* m, size_t n, uint32_t empties,
              uint64_t start) {
  if (empties != 0 && st.depth() + 1 >= st.ctx().limits.max_depth) return Offer::kNone;
  if constexpr (requires { sink.ItemStart(uint64_t{0}); }) sink.ItemStart(start);
  bool ok;
  if (!sink.TakeMembers(m, n, &ok)) return Offer::kDeclined;
  return ok ? Offer::kTaken : Offer::kFailed;
}

}  // namespace rosetta::codec
