#pragma once

#include <cstdint>

namespace rosetta::codec {

// Per-request limits (DESIGN.md "Limits"). Server defaults, lowered per connection or per
// request, never raised: see LowerTo.
struct Limits {
  uint64_t max_input_bytes = 64ull << 20;
  uint64_t max_output_bytes = 256ull << 20;
  uint32_t max_depth = 128;
  uint64_t max_string_bytes = 64ull << 20;
  uint64_t max_items = 16ull << 20;
  uint64_t max_alloc_bytes = 512ull << 20;

  // Each field of `request` that is non-zero and lower than ours replaces ours; zero
  // means "keep", a higher value is ignored (a client can never raise a limit).
  Limits LowerTo(const Limits& request) const;
  bool operator==(const Limits&) const = default;
};

}  // namespace rosetta::codec
