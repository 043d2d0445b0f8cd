#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rosetta::codec::schema {

// The canonical form of a JSON value: equal values (JSON Schema's equality: 1 == 1.0,
// members in any order) have equal bytes. `const`, `enum` and `uniqueItems` compare these.
//   null n | true t | false f | integer i + 8 bytes | integer past INT64_MAX u + 8 bytes
//   other number d + 8 bytes | string s + 8-byte length + UTF-8
//   array [ items ] | object { members sorted by their bytes } (member: key string, value)
namespace canonical {

inline void Put8(std::string& o, char tag, uint64_t v) {
  char b[9];
  b[0] = tag;
  std::memcpy(b + 1, &v, 8);
  o.append(b, 9);
}
inline void Int(std::string& o, int64_t v) { Put8(o, 'i', static_cast<uint64_t>(v)); }
inline void Uint(std::string& o, uint64_t v) {
  if (v <= static_cast<uint64_t>(INT64_MAX))
    Put8(o, 'i', v);
  else
    Put8(o, 'u', v);
}
inline void Double(std::string& o, double d) {
  if (d == std::floor(d) && std::fabs(d) < 9223372036854775808.0) {
    Int(o, static_cast<int64_t>(d));
    return;
  }
  if (d == std::floor(d) && d >= 9223372036854775808.0 && d < 18446744073709551616.0) {
    Put8(o, 'u', static_cast<uint64_t>(d));
    return;
  }
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  Put8(o, 'd', bits);
}
inline void String(std::string& o, std::string_view s) {
  Put8(o, 's', s.size());
  o.append(s.data(), s.size());
}

// Sorts the members of an object whose canonical bytes are o[begin, end) (after its '{'),
// n members, member i starting at starts[i * stride] (ascending, all within [begin, end)).
// `parts` and `sorted` are the caller's buffers, kept between calls; members already in
// order (most objects of one producer) are left where they are.
inline void SortMembers(std::string& o, size_t begin, size_t end, const size_t* starts, size_t n,
                        size_t stride, std::vector<std::string_view>* parts, std::string* sorted) {
  if (n < 2) return;
  parts->clear();
  for (size_t i = 0; i < n; ++i) {
    const size_t b = starts[i * stride];
    const size_t e = i + 1 < n ? starts[(i + 1) * stride] : end;
    parts->emplace_back(o.data() + b, e - b);
  }
  if (std::is_sorted(parts->begin(), parts->end())) return;
  std::sort(parts->begin(), parts->end());
  sorted->clear();
  for (std::string_view p : *parts) sorted->append(p);
  o.replace(begin, end - begin, *sorted);
}

}  // namespace canonical
}  // namespace rosetta::codec::schema
