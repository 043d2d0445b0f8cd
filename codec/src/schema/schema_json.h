#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rosetta::codec::schema {

struct JMember;

// A schema document as a small tree: schemas are compiled from it once, at load (a
// payload is never made into one of these).
struct JVal {
  enum Kind : uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kArray, kObject };
  Kind kind = kNull;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string s;
  std::vector<JVal> items;
  std::vector<JMember> members;

  bool IsNumber() const { return kind == kInt || kind == kUint || kind == kDouble; }
  double Number() const {
    return kind == kInt ? static_cast<double>(i) : kind == kUint ? static_cast<double>(u) : d;
  }
  // A number with no fractional part that fits 64 bits, as a non-negative count.
  bool Count(uint64_t* n) const {
    if (kind == kUint) return *n = u, true;
    if (kind == kInt && i >= 0) return *n = static_cast<uint64_t>(i), true;
    if (kind == kDouble && d >= 0 && d < 18446744073709551616.0 &&
        d == static_cast<double>(static_cast<uint64_t>(d)))
      return *n = static_cast<uint64_t>(d), true;
    return false;
  }
  const JVal* Get(std::string_view key) const;
};

// An object's member (`first` the name, `second` the value: it reads as a map's pair).
struct JMember {
  std::string first;
  JVal second;
};

inline const JVal* JVal::Get(std::string_view key) const {
  if (kind != kObject) return nullptr;
  for (const auto& m : members)
    if (m.first == key) return &m.second;
  return nullptr;
}

// Parses JSON text (rosetta's own reader, strict RFC 8259, duplicate members refused).
bool ParseJson(std::string_view text, JVal* out, std::string* error);

// The canonical form (canonical.h) of a value.
void Canonicalize(const JVal& v, std::string* out);

}  // namespace rosetta::codec::schema
