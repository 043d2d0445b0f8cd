// Deterministic CBOR, differential: X -> CBOR with the option `deterministic` must be
// X -> CBOR without it, with every map's entries sorted by their encoded keys (sorted here
// by a walker of this file, independent of the writer's offsets), for X in JSON, CBOR and
// MessagePack (the first byte picks X). The deterministic output must pass
// validate --deterministic, and written again deterministically it must not change.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_common.h"

namespace {

// The end of the definite-length CBOR item at p (the writer makes no other kind).
size_t ItemEnd(std::string_view b, size_t p) {
  const uint8_t ib = static_cast<uint8_t>(b[p]);
  const int major = ib >> 5, ai = ib & 31;
  uint64_t arg = ai;
  size_t at = p + 1;
  if (ai >= 24 && ai <= 27) {
    const size_t bytes = size_t{1} << (ai - 24);
    arg = 0;
    for (size_t i = 0; i < bytes; ++i) arg = arg << 8 | static_cast<uint8_t>(b[at + i]);
    at += bytes;
  }
  switch (major) {
    case 2:
    case 3:
      return at + arg;
    case 4:
      for (uint64_t i = 0; i < arg; ++i) at = ItemEnd(b, at);
      return at;
    case 5:
      for (uint64_t i = 0; i < 2 * arg; ++i) at = ItemEnd(b, at);
      return at;
    case 6:
      return ItemEnd(b, at);
    default:
      return at;
  }
}

// The item at [p, end) with every map inside it sorted by its keys' bytes.
std::string Sorted(std::string_view b, size_t p, size_t end) {
  const uint8_t ib = static_cast<uint8_t>(b[p]);
  const int major = ib >> 5, ai = ib & 31;
  const size_t head = ai < 24 ? 1 : 1 + (size_t{1} << (ai - 24));
  if (major < 4 || major > 6) return std::string(b.substr(p, end - p));
  std::string out(b.substr(p, head));
  size_t q = p + head;
  if (major == 6) return out + Sorted(b, q, end);
  if (major == 4) {
    while (q < end) {
      const size_t e = ItemEnd(b, q);
      out += Sorted(b, q, e);
      q = e;
    }
    return out;
  }
  std::vector<std::pair<std::string, std::string>> entries;
  while (q < end) {
    const size_t k = ItemEnd(b, q), v = ItemEnd(b, k);
    entries.emplace_back(Sorted(b, q, k), Sorted(b, k, v));
    q = v;
  }
  std::sort(entries.begin(), entries.end());
  for (auto& [k, v] : entries) out += k + v;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rosetta;
  if (size < 1) return 0;
  const codec::Format x = static_cast<codec::Format>(1 + data[0] % 3);
  fuzz::Padded input(data + 1, size - 1);
  const std::string_view in = input.view(size - 1);
  codec::MappingOptions deterministic;
  deterministic.deterministic = true;
  codec::OutputBuffer plain, sorted, again;
  if (!fuzz::Transcode(x, codec::Format::kCbor, in, plain, codec::kInputPadding).ok()) return 0;
  const codec::Status s =
      fuzz::Transcode(x, codec::Format::kCbor, in, sorted, codec::kInputPadding, deterministic);
  if (!s.ok()) {
    // Sorting takes memory of its own, and two keys the reader tells apart may have one
    // encoding (then deterministic CBOR has no form for the map): only these may refuse
    // what the plain writer took.
    if (s.code == codec::ErrorCode::kBudgetExceeded || s.code == codec::ErrorCode::kDuplicateKey)
      return 0;
    fuzz::Fail("X -> CBOR succeeds but X -> deterministic CBOR fails");
  }
  if (sorted.view() != Sorted(plain.view(), 0, plain.view().size()))
    fuzz::Fail("deterministic CBOR differs from the plain output sorted");
  if (!fuzz::Validate(codec::Format::kCbor, sorted.view(), deterministic).ok())
    fuzz::Fail("validate --deterministic refuses the deterministic output");
  if (!fuzz::Transcode(codec::Format::kCbor, codec::Format::kCbor, sorted.view(), again, 0,
                       deterministic)
           .ok() ||
      again.view() != sorted.view())
    fuzz::Fail("deterministic CBOR written again deterministically changes");
  return 0;
}
