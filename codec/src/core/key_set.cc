#include "core/key_set.h"

#include <cstring>

#if defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

namespace rosetta::codec {
namespace {

inline uint64_t Mix(uint64_t h) {
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  return h ^ (h >> 32);
}

// One step over 8 bytes of a key: the CPU's CRC32C instruction where there is one (a
// cycle per word), a multiply-xorshift otherwise.
inline uint64_t Step(uint64_t h, uint64_t w) {
#if defined(__SSE4_2__)
  return _mm_crc32_u64(h, w);
#else
  return Mix(h ^ w);
#endif
}

// The whole key goes into the hash (a hostile map cannot make keys collide by varying
// bytes the hash skips); the result is mixed once so that its low bits pick the slot.
uint64_t HashKey(KeyKind kind, std::string_view key, uint64_t num, uint64_t tag) {
  uint64_t h = (static_cast<uint64_t>(kind) << 56 | key.size()) ^ num;
  if (tag != 0) h = Step(h, tag);
  const char* p = key.data();
  size_t n = key.size();
  uint64_t h2 = num >> 32;
  for (; n >= 16; p += 16, n -= 16) {  // two independent chains: twice the throughput
    uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    h = Step(h, a);
    h2 = Step(h2, b);
  }
  if (n >= 8) {
    uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);  // overlapping: no variable-length copy
    h = Step(h, a);
    h2 = Step(h2, b);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    h = Step(h, uint64_t{a} << 32 | b);
  } else if (n > 0) {
    const auto* u = reinterpret_cast<const uint8_t*>(p);
    h = Step(h, uint64_t{u[0]} << 16 | uint64_t{u[n / 2]} << 8 | u[n - 1]);
  }
  return Mix(h ^ (h2 << 32 | h2 >> 32));
}

}  // namespace

KeySet::Result KeySet::InsertOutOfLine(KeyKind kind, std::string_view key, uint64_t num,
                                       uint64_t tag) {
  Scope& scope = scopes_.back();
  if (scope.table_size != 0) return InsertHashed(scope, kind, key, num, tag);
  const uint64_t fp = Fingerprint(key, num, tag);
  const uint32_t count = static_cast<uint32_t>(entries_.size()) - scope.first;
  if (AnyEqual(&hashes_[scope.first], count, fp)) {
    for (uint32_t i = scope.first; i < entries_.size(); ++i) {
      if (hashes_[i] == fp && SameKey(entries_[i], kind, key, num, tag)) return kDuplicate;
    }
    // A fingerprint that agrees for different keys hashes the map: keys made to share a
    // fingerprint are then never compared by content with each other.
    return StartHashing(scope, kind, key, num, tag);
  }
  if (count >= kLinearKeys) return StartHashing(scope, kind, key, num, tag);
  return Push(fp, kind, key, num, tag) ? kInserted : kNoBudget;
}

KeySet::Result KeySet::StartHashing(Scope& scope, KeyKind kind, std::string_view key, uint64_t num,
                                    uint64_t tag) {
  if (!Push(0, kind, key, num, tag)) return kNoBudget;
  for (uint32_t i = scope.first; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    hashes_[i] = HashKey(e.kind, {e.data, e.size}, e.num, e.tag);
  }
  if (!Rehash(scope, static_cast<uint32_t>(entries_.size()) - scope.first)) {
    Pop();
    for (uint32_t i = scope.first; i < entries_.size(); ++i) {  // still linear
      const Entry& e = entries_[i];
      hashes_[i] = Fingerprint({e.data, e.size}, e.num, e.tag);
    }
    return kNoBudget;
  }
  return kInserted;
}

KeySet::Result KeySet::InsertHashed(Scope& scope, KeyKind kind, std::string_view key, uint64_t num,
                                    uint64_t tag) {
  const uint32_t count = static_cast<uint32_t>(entries_.size()) - scope.first;
  const uint64_t hash = HashKey(kind, key, num, tag);
  const uint32_t mask = scope.table_size - 1;
  uint32_t* table = &tables_[scope.table];
  uint32_t slot = static_cast<uint32_t>(hash) & mask;
  for (;; slot = (slot + 1) & mask) {
    const uint32_t e = table[slot];
    if (e == 0) break;
    if (hashes_[e - 1] == hash && SameKey(entries_[e - 1], kind, key, num, tag)) return kDuplicate;
  }
  if (!Push(hash, kind, key, num, tag)) return kNoBudget;
  if ((count + 1) * 2 > scope.table_size) {  // past half full: a table twice the size
    if (!Rehash(scope, count + 1)) {
      Pop();
      return kNoBudget;
    }
    return kInserted;
  }
  table[slot] = static_cast<uint32_t>(entries_.size());
  return kInserted;
}

bool KeySet::Rehash(Scope& scope, uint32_t keys) {
  uint32_t size = scope.table_size ? scope.table_size : 32;
  while (keys * 2 > size) size *= 2;
  const uint32_t base =
      static_cast<uint32_t>(tables_.size());  // the innermost map's table is on top
  const uint32_t start = scope.table_size ? scope.table : base;
  if (!tables_.Reserve(size_t{start} + size)) return false;
  tables_.Truncate(size_t{start} + size);
  uint32_t* table = &tables_[start];
  std::memset(table, 0, sizeof(uint32_t) * size);
  const uint32_t mask = size - 1;
  for (uint32_t i = scope.first; i < entries_.size(); ++i) {
    uint32_t slot = static_cast<uint32_t>(hashes_[i]) & mask;
    while (table[slot] != 0) slot = (slot + 1) & mask;
    table[slot] = i + 1;
  }
  scope.table = start;
  scope.table_size = size;
  return true;
}

}  // namespace rosetta::codec
