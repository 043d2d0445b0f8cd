#pragma once

#include <cstdint>
#include <string_view>

#include "common/budget_vector.h"

namespace rosetta::codec {

enum class KeyKind : uint8_t { kNone, kText, kBytes, kUint, kNegInt, kOther };

// The keys of every open map, to refuse duplicates (RFC 7493 2.3) in every format. Keys
// are views into memory that lives for the whole request. A map's first kLinearKeys keys
// are compared linearly (most maps are small); past that the map's keys go into one
// open-addressing table shared by all open maps, so a hostile map of n keys costs O(n),
// not O(n^2). Every byte is charged to the request's budget.
class KeySet {
 public:
  enum Result { kInserted, kDuplicate, kNoBudget };
  explicit KeySet(Context& ctx) : entries_(ctx), scopes_(ctx), table_(ctx) {}

  bool Open() { return scopes_.Push(Scope{static_cast<uint32_t>(entries_.size()), false}); }
  void Close();
  // Text and byte keys are views that must live for the request; integer keys are given
  // by value (kUint / kNegInt with `key` empty).
  Result Insert(KeyKind kind, std::string_view key, uint64_t num = 0);

 private:
  static constexpr uint32_t kLinearKeys = 8;
  struct Entry {
    uint64_t hash;
    const char* data;
    uint64_t num;
    uint32_t size;
    uint32_t scope;
    KeyKind kind;
  };
  struct Scope {
    uint32_t first;  // index of its first entry
    bool hashed;
  };
  bool SameKey(const Entry& e, uint32_t scope, KeyKind kind, std::string_view key, uint64_t num, uint64_t hash) const {
    return e.hash == hash && e.scope == scope && e.kind == kind && e.num == num && e.size == key.size() &&
           (key.empty() || __builtin_memcmp(e.data, key.data(), key.size()) == 0);
  }
  bool TableInsert(uint32_t entry);  // after ensuring room
  bool EnsureTableRoom(size_t more);
  void TableErase(uint32_t entry);

  BudgetVector<Entry, 32> entries_;
  BudgetVector<Scope, 16> scopes_;
  BudgetVector<uint32_t> table_;  // entry index + 1; 0 is empty
  size_t table_live_ = 0;
};

}  // namespace rosetta::codec
