#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

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

// What a sink that keeps its own record of a map's names says of a text key it was given
// (ClaimsKeys): kNo, the reader checks it as usual; kNew, the sink has recorded it and no
// earlier key of the map was the same; kDuplicate, one was. A sink claims a key by its
// bytes alone, so equal keys are always claimed alike. `as_given`: the key came with no
// tag, so the sink's own view of it is these bytes.
enum class KeyClaim : uint8_t { kNo, kNew, kDuplicate };
template <class S>
concept ClaimsKeys = requires(S& sink, std::string_view key) {
  { sink.ClaimKey(key, true) } -> std::same_as<KeyClaim>;
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
// are compared linearly: each key's one-word fingerprint is kept in an array of its own,
// scanned four words per AVX2 instruction, and a key is compared by content only when a
// fingerprint agrees (most maps are small). Past kLinearKeys keys, or at the first
// fingerprint that agrees for different keys, the map gets an open-addressing table of its
// own, so a hostile map of n keys costs O(n), not O(n^2). Only the innermost open map
// takes keys, so the tables form a stack: a map's table is on top while it is open, grows
// in place, and closing the map pops it whole. Every byte is charged to the request's
// budget.
class KeySet {
 public:
  enum Result { kInserted, kDuplicate, kNoBudget };
  explicit KeySet(Context& ctx) : hashes_(ctx), entries_(ctx), scopes_(ctx), tables_(ctx) {
    for (uint32_t i = 0; i < kScanPad; ++i) hashes_.Push(0);  // inline: cannot fail
  }

  [[gnu::always_inline]] bool Open() {
    return scopes_.Push(Scope{static_cast<uint32_t>(entries_.size()), 0, 0});
  }
  void Close() {
    const Scope& scope = scopes_.back();
    const uint32_t first = scope.first;
    if (scope.table_size) tables_.Truncate(scope.table);
    scopes_.Pop();
    entries_.Truncate(first);
    hashes_.Truncate(first + kScanPad);
    __builtin_memset(&hashes_[first], 0, kScanPad * sizeof(uint64_t));
  }
  // Text and byte keys are views that must live for the request; the other kinds are
  // given by value in `num` with `key` empty. `tag` is a tagged kind's tag (0 otherwise).
  Result Insert(KeyKind kind, std::string_view key, uint64_t num = 0, uint64_t tag = 0) {
    const Scope& scope = scopes_.back();
    const uint64_t fp = Fingerprint(key, num, tag);
    const size_t n = entries_.size();
    const uint32_t count = static_cast<uint32_t>(n) - scope.first;
    // The common case, with no call: a linear map, room for one more key, and no key of
    // the same fingerprint.
    if (scope.table_size == 0 && count < kLinearKeys && n < entries_.capacity() &&
        n + kScanPad < hashes_.capacity() && !AnyEqual(&hashes_[scope.first], count, fp))
        [[likely]] {
      entries_.Push(Entry{key.data(), num, tag, static_cast<uint32_t>(key.size()), kind});
      hashes_[n] = fp;
      hashes_[n + kScanPad] = 0;
      hashes_.Truncate(n + kScanPad + 1);
      return kInserted;
    }
    return InsertOutOfLine(kind, key, num, tag);
  }

 private:
#if defined(__AVX2__)
  // Up to 128 keys the vector scan of the fingerprints costs fewer instructions than
  // hashing (JSON Lines of flat 100-key maps validate in 11% fewer than when hashed from
  // the 65th key).
  static constexpr uint32_t kLinearKeys = 128;
#else
  // Without AVX2 the scan compares one word at a time: maps are hashed sooner.
  static constexpr uint32_t kLinearKeys = 16;
#endif
  // hashes_ ends with this many zeros past the last entry, so that the scan reads whole
  // vectors and needs no tail; a fingerprint (its top bit set) is never 0.
  static constexpr uint32_t kScanPad = 8;
  struct Entry {
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
                      uint64_t tag) {
    return e.kind == kind && e.num == num && e.tag == tag && e.size == key.size() &&
           (key.empty() || __builtin_memcmp(e.data, key.data(), key.size()) == 0);
  }
  // For the linear search of small maps: a word that differs for most distinct keys (the
  // first and last 8 bytes, or all of a shorter key, and the length: "profile_image_url"
  // and "profile_background_image_url" share the rest), so that a key is compared with
  // each earlier key in one vector lane and by content only when the words agree.
  static uint64_t Fingerprint(std::string_view key, uint64_t num, uint64_t tag) {
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
    return (f ^ num ^ tag ^ static_cast<uint64_t>(n) << 56) | uint64_t{1} << 63;
  }
  // Whether any of the n words at p is v (v is not 0; the words past n up to a multiple
  // of 8 are 0).
  static bool AnyEqual(const uint64_t* p, uint32_t n, uint64_t v) {
#if defined(__AVX2__)
    const __m256i x = _mm256_set1_epi64x(static_cast<long long>(v));
    __m256i eq = _mm256_setzero_si256();
    for (const uint64_t* end = p + n; p < end; p += 8) {
      const __m256i a =
          _mm256_cmpeq_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), x);
      const __m256i b =
          _mm256_cmpeq_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 4)), x);
      eq = _mm256_or_si256(eq, _mm256_or_si256(a, b));
    }
    return !_mm256_testz_si256(eq, eq);
#else
    bool any = false;
    for (uint32_t i = 0; i < n; ++i) any |= p[i] == v;
    return any;
#endif
  }
  bool Push(uint64_t hash, KeyKind kind, std::string_view key, uint64_t num, uint64_t tag) {
    if (!entries_.Push(Entry{key.data(), num, tag, static_cast<uint32_t>(key.size()), kind}))
      return false;
    if (!hashes_.Push(0)) [[unlikely]] {
      entries_.Pop();
      return false;
    }
    hashes_[entries_.size() - 1] = hash;
    return true;
  }
  // Takes back the last Push.
  void Pop() {
    entries_.Pop();
    hashes_.Pop();
    hashes_[entries_.size()] = 0;
  }
  // A key the inline path does not take: its map is hashed or has kLinearKeys keys, a
  // key of the same fingerprint is in it, or a vector must grow.
  [[gnu::noinline]] Result InsertOutOfLine(KeyKind kind, std::string_view key, uint64_t num,
                                           uint64_t tag);
  Result InsertHashed(Scope& scope, KeyKind kind, std::string_view key, uint64_t num, uint64_t tag);
  // A key known not to be in the linear map: from now on the map is hashed.
  Result StartHashing(Scope& scope, KeyKind kind, std::string_view key, uint64_t num, uint64_t tag);
  // Gives the innermost map a table for `keys` keys (load factor at most 1/2) and indexes
  // its entries into it; false when the budget refuses.
  bool Rehash(Scope& scope, uint32_t keys);

  // Per entry: the key's fingerprint while its map is linear, its hash once hashed; then
  // kScanPad zeros.
  BudgetVector<uint64_t, 32 + kScanPad> hashes_;
  BudgetVector<Entry, 32> entries_;
  BudgetVector<Scope, 16> scopes_;
  BudgetVector<uint32_t> tables_;  // entry index + 1; 0 is empty
};

}  // namespace rosetta::codec
