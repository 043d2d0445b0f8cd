#pragma once

#include <cstdint>
#include <string_view>

#include "memory/budget_vector.h"

namespace rosetta::codec {

// A key's identity: its type and value; a tagged key (a CBOR tag the output keeps, a
// MessagePack ext or timestamp) is its tag and its content's kind and value. A float is
// the bits of its double (NaN: the one quiet NaN the writers write), a simple value its
// CBOR number (false 20, true 21, null 22, undefined 23). kOther keys (containers, items
// under several tags) are not compared.
enum class KeyKind : uint8_t {
  kNone,
  kText,
  kBytes,
  kUint,
  kNegInt,
  kTaggedText,
  kTaggedBytes,
  kTaggedUint,
  kTaggedNegInt,
  kFloat,
  kSimple,
  kOther
};

// The tagged kind of a content kind (kText .. kNegInt).
constexpr KeyKind Tagged(KeyKind content) {
  return static_cast<KeyKind>(
      static_cast<uint8_t>(content) +
      (static_cast<uint8_t>(KeyKind::kTaggedText) - static_cast<uint8_t>(KeyKind::kText)));
}
// The content kind of a tagged kind; other kinds are returned as they are.
constexpr KeyKind Untagged(KeyKind kind) {
  return kind >= KeyKind::kTaggedText && kind <= KeyKind::kTaggedNegInt
             ? static_cast<KeyKind>(static_cast<uint8_t>(kind) -
                                    (static_cast<uint8_t>(KeyKind::kTaggedText) -
                                     static_cast<uint8_t>(KeyKind::kText)))
             : kind;
}

// The keys of every open map, to refuse duplicates (RFC 7493 2.3) in every format. Keys
// are views into memory that lives for the whole request. A map's first kLinearKeys keys
// are compared linearly, by a one-word fingerprint first (most maps are small); past that
// the map gets an open-addressing table of its own, so a hostile map of n keys costs
// O(n), not O(n^2). Only the innermost open map takes keys, so the tables form a stack:
// a map's table is on top while it is open, grows in place, and closing the map pops it
// whole. Every byte is charged to the request's budget.
class KeySet {
 public:
  enum Result { kInserted, kDuplicate, kNoBudget };
  explicit KeySet(Context& ctx) : entries_(ctx), scopes_(ctx), tables_(ctx) {}

  bool Open() { return scopes_.Push(Scope{static_cast<uint32_t>(entries_.size()), 0, 0}); }
  void Close() {
    const Scope scope = scopes_.back();
    entries_.Truncate(scope.first);
    if (scope.table_size) tables_.Truncate(scope.table);
    scopes_.Pop();
  }
  // Text and byte keys are views that must live for the request; the other kinds are
  // given by value in `num` with `key` empty. `tag` is a tagged kind's tag (0 otherwise).
  Result Insert(KeyKind kind, std::string_view key, uint64_t num = 0, uint64_t tag = 0) {
    Scope& scope = scopes_.back();
    if (scope.table_size != 0) return InsertHashed(scope, kind, key, num, tag);
    const uint64_t fp = Fingerprint(key, num) ^ tag;
    for (uint32_t i = scope.first; i < entries_.size(); ++i) {
      if (SameKey(entries_[i], kind, key, num, tag, fp)) [[unlikely]]
        return kDuplicate;
    }
    if (entries_.size() - scope.first >= kLinearKeys) [[unlikely]]
      return StartHashing(scope, kind, key, num, tag);
    if (!entries_.Push(Entry{fp, key.data(), num, tag, static_cast<uint32_t>(key.size()), kind}))
      return kNoBudget;
    return kInserted;
  }

 private:
  // Up to 16 keys the linear scan costs fewer instructions than hashing every key (a log
  // record of 15 fields: 10% fewer for a MessagePack sequence to JSON Lines).
  static constexpr uint32_t kLinearKeys = 16;
  struct Entry {
    uint64_t hash;  // the key's fingerprint while its map is linear, its hash once hashed
    const char* data;
    uint64_t num;
    uint64_t tag;
    uint32_t size;
    KeyKind kind;
  };
  struct Scope {
    uint32_t first;       // index of its first entry
    uint32_t table;       // where its table starts in tables_
    uint32_t table_size;  // 0: linear; else a power of two, at least twice its keys
  };
  static bool SameKey(const Entry& e, KeyKind kind, std::string_view key, uint64_t num,
                      uint64_t tag, uint64_t hash) {
    return e.hash == hash && e.kind == kind && e.num == num && e.tag == tag &&
           e.size == key.size() &&
           (key.empty() || __builtin_memcmp(e.data, key.data(), key.size()) == 0);
  }
  // For the linear search of small maps: a word that differs for most distinct keys (the
  // first and last 8 bytes, or all of a shorter key), so that a key is compared with each
  // earlier key in one instruction and by content only when the words agree.
  static uint64_t Fingerprint(std::string_view key, uint64_t num) {
    const char* p = key.data();
    const size_t n = key.size();
    uint64_t f;
    if (n >= 8) {
      uint64_t a, b;
      __builtin_memcpy(&a, p, 8);
      __builtin_memcpy(&b, p + n - 8, 8);
      f = a ^ (b << 7 | b >> 57);
    } else if (n >= 4) {
      uint32_t a, b;
      __builtin_memcpy(&a, p, 4);
      __builtin_memcpy(&b, p + n - 4, 4);
      f = uint64_t{a} << 32 | b;
    } else if (n > 0) {
      const auto* u = reinterpret_cast<const uint8_t*>(p);
      f = uint64_t{u[0]} << 16 | uint64_t{u[n / 2]} << 8 | u[n - 1];
    } else {
      f = 0;
    }
    return f ^ num;
  }
  Result InsertHashed(Scope& scope, KeyKind kind, std::string_view key, uint64_t num, uint64_t tag);
  // The key after the first kLinearKeys of a map (known not to be among them): from now
  // on the map is hashed.
  [[gnu::noinline]] Result StartHashing(Scope& scope, KeyKind kind, std::string_view key,
                                        uint64_t num, uint64_t tag);
  // Gives the innermost map a table for `keys` keys (load factor at most 1/2) and indexes
  // its entries into it; false when the budget refuses.
  bool Rehash(Scope& scope, uint32_t keys);

  BudgetVector<Entry, 32> entries_;
  BudgetVector<Scope, 16> scopes_;
  BudgetVector<uint32_t> tables_;  // entry index + 1; 0 is empty
};

}  // namespace rosetta::codec
