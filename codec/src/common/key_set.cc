#include "common/key_set.h"

#include <cstring>

namespace rosetta::codec {
namespace {

// Keys are short: 8 bytes at a time with a multiply-xorshift mix is several times cheaper
// than std::hash's byte loop, and a hostile map still costs O(n) (linear probing over a
// table at most half full; keys that collide still compare by content).
inline uint64_t Mix(uint64_t h) {
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  return h ^ (h >> 32);
}

uint64_t HashKey(uint32_t scope, KeyKind kind, std::string_view key, uint64_t num) {
  uint64_t h = (uint64_t{scope} << 8 | static_cast<uint8_t>(kind)) * 0x9E3779B97F4A7C15ull ^ key.size() ^ num;
  const char* p = key.data();
  size_t n = key.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = Mix(h ^ w);
  }
  if (n >= 4) {  // two overlapping 4-byte loads: no variable-length copy
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    h = Mix(h ^ (uint64_t{a} << 32 | b));
  } else if (n > 0) {
    const auto* u = reinterpret_cast<const uint8_t*>(p);
    h = Mix(h ^ (uint64_t{u[0]} << 16 | uint64_t{u[n / 2]} << 8 | u[n - 1]));
  }
  return Mix(h);
}

// For the linear search of small maps: a word that differs for most distinct keys (the
// first and last 8 bytes, or all of a shorter key), so that a key is compared with each
// earlier key in one instruction and by content only when the words agree.
inline uint64_t Fingerprint(std::string_view key, uint64_t num) {
  const char* p = key.data();
  const size_t n = key.size();
  uint64_t f;
  if (n >= 8) {
    uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);
    f = a ^ (b << 7 | b >> 57);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    f = uint64_t{a} << 32 | b;
  } else if (n > 0) {
    const auto* u = reinterpret_cast<const uint8_t*>(p);
    f = uint64_t{u[0]} << 16 | uint64_t{u[n / 2]} << 8 | u[n - 1];
  } else {
    f = 0;
  }
  return f ^ num;
}

}  // namespace

KeySet::Result KeySet::Insert(KeyKind kind, std::string_view key, uint64_t num) {
  Scope& scope = scopes_.back();
  const uint32_t scope_id = static_cast<uint32_t>(scopes_.size() - 1);
  const uint32_t count = static_cast<uint32_t>(entries_.size()) - scope.first;
  // Small maps compare without hashing (most maps: measured 19% of CBOR -> JSON with a
  // hash per key); a map's keys are hashed when it outgrows kLinearKeys.
  // A linear map's entries hold the key's Fingerprint in `hash`; a hashed map's, its hash.
  uint64_t hash;
  if (!scope.hashed) {
    hash = Fingerprint(key, num);
    for (uint32_t i = scope.first; i < entries_.size(); ++i) {
      const Entry& e = entries_[i];
      if (e.hash == hash && e.kind == kind && e.num == num && e.size == key.size() &&
          (key.empty() || __builtin_memcmp(e.data, key.data(), key.size()) == 0)) [[unlikely]] {
        return kDuplicate;
      }
    }
  } else {
    hash = HashKey(scope_id, kind, key, num);
    const size_t mask = table_.size() - 1;
    for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
      uint32_t e = table_[slot];
      if (e == 0) break;
      if (SameKey(entries_[e - 1], scope_id, kind, key, num, hash)) return kDuplicate;
    }
  }
  // Room first, entry second: a rehash re-inserts every entry of the hashed maps, so an
  // entry must not be in entries_ (as hashed) before it is inserted exactly once.
  const bool hashed = scope.hashed;
  const bool switching = !hashed && count + 1 > kLinearKeys;
  if ((hashed || switching) && !EnsureTableRoom(hashed ? 1 : count + 1)) return kNoBudget;
  if (!entries_.Push(Entry{hash, key.data(), num, static_cast<uint32_t>(key.size()), scope_id, kind})) return kNoBudget;
  if (hashed) {
    TableInsert(static_cast<uint32_t>(entries_.size() - 1));
  } else if (switching) {
    // This map outgrew linear search: hash and index all its keys (room was made above).
    for (uint32_t i = scopes_.back().first; i < entries_.size(); ++i) {
      Entry& e = entries_[i];
      e.hash = HashKey(scope_id, e.kind, {e.data, e.size}, e.num);
      TableInsert(i);
    }
    scopes_.back().hashed = true;
  }
  return kInserted;
}

// Makes room for `more` entries (load factor at most 1/2), rehashing the maps already
// hashed.
bool KeySet::EnsureTableRoom(size_t more) {
  if ((table_live_ + more) * 2 <= table_.size()) return true;
  size_t cap = table_.size() ? table_.size() * 2 : 64;
  while ((table_live_ + more) * 2 > cap) cap *= 2;
  if (!table_.Reserve(cap)) return false;
  table_.Truncate(cap);
  for (size_t i = 0; i < cap; ++i) table_[i] = 0;
  table_live_ = 0;
  for (uint32_t s = 0; s < scopes_.size(); ++s) {
    if (!scopes_[s].hashed) continue;
    uint32_t end = s + 1 < scopes_.size() ? scopes_[s + 1].first : static_cast<uint32_t>(entries_.size());
    for (uint32_t i = scopes_[s].first; i < end; ++i) TableInsert(i);
  }
  return true;
}

bool KeySet::TableInsert(uint32_t entry) {
  const size_t mask = table_.size() - 1;
  size_t slot = entries_[entry].hash & mask;
  while (table_[slot] != 0) slot = (slot + 1) & mask;
  table_[slot] = entry + 1;
  ++table_live_;
  return true;
}

void KeySet::TableErase(uint32_t entry) {
  const size_t mask = table_.size() - 1;
  size_t i = entries_[entry].hash & mask;
  while (table_[i] != entry + 1) i = (i + 1) & mask;
  // Backward-shift deletion keeps every probe chain unbroken without tombstones.
  for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
    uint32_t e = table_[j];
    if (e == 0) break;
    size_t home = entries_[e - 1].hash & mask;
    bool movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
    if (movable) {
      table_[i] = e;
      i = j;
    }
  }
  table_[i] = 0;
  --table_live_;
}

void KeySet::Close() {
  Scope scope = scopes_.back();
  if (scope.hashed) {
    for (uint32_t i = scope.first; i < entries_.size(); ++i) TableErase(i);
  }
  entries_.Truncate(scope.first);
  scopes_.Pop();
}

}  // namespace rosetta::codec
