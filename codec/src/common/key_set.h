#pragma once

#include <cstdint>
#include <string_view>

#include "common/budget_vector.h"

namespace rosetta::codec {

enum class KeyKind : uint8_t { kNone, kText, kBytes, kUint, kNegInt, kOther };

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
  // Text and byte keys are views that must live for the request; integer keys are given
  // by value (kUint / kNegInt with `key` empty).
  Result Insert(KeyKind kind, std::string_view key, uint64_t num = 0);

 private:
  static constexpr uint32_t kLinearKeys = 8;
  struct Entry {
    uint64_t hash;  // the key's fingerprint while its map is linear, its hash once hashed
    const char* data;
    uint64_t num;
    uint32_t size;
    KeyKind kind;
  };
  struct Scope {
    uint32_t first;       // index of its first entry
    uint32_t table;       // where its table starts in tables_
    uint32_t table_size;  // 0: linear; else a power of two, at least twice its keys
  };
  static bool SameKey(const Entry& e, KeyKind kind, std::string_view key, uint64_t num, uint64_t hash) {
    return e.hash == hash && e.kind == kind && e.num == num && e.size == key.size() &&
           (key.empty() || __builtin_memcmp(e.data, key.data(), key.size()) == 0);
  }
  // Gives the innermost map a table for `keys` keys (load factor at most 1/2) and indexes
  // its entries into it; false when the budget refuses.
  bool Rehash(Scope& scope, uint32_t keys);

  BudgetVector<Entry, 32> entries_;
  BudgetVector<Scope, 16> scopes_;
  BudgetVector<uint32_t> tables_;  // entry index + 1; 0 is empty
};

}  // namespace rosetta::codec
