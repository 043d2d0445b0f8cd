#include "json/json_reader.h"

#include <cstring>
#include <memory>
#include <new>

#include "core/context.h"

namespace rosetta::codec {

JsonIndex& ThreadJsonIndex() {
  thread_local JsonIndex index;
  return index;
}

bool JsonIndex::Prepare(size_t n) {
  // Kept from request to request; made again when too small, or far larger than needed
  // (one huge document must not pin its memory on the thread for good).
  if (impl != nullptr && capacity >= n && capacity <= 4 * n + (size_t{1} << 20)) return true;
  const size_t cap = n < 4096 ? 4096 : n;
  if (impl == nullptr) {
    // max_depth is for simdjson's second stage, which is not used.
    if (simdjson::get_active_implementation()->create_dom_parser_implementation(cap, 1, impl))
      return false;
  } else if (impl->set_capacity(cap)) {
    capacity = 0;
    return false;
  }
  // parse_string stores whole vectors: up to SIMDJSON_PADDING past the last string.
  strings.reset(new (std::nothrow) char[cap + 2 * simdjson::SIMDJSON_PADDING]);
  capacity = strings ? cap : 0;
  return strings != nullptr;
}

bool ReadPadded(Context& ctx, std::string_view input, size_t padding, std::string_view* padded) {
  if (padding >= simdjson::SIMDJSON_PADDING) {
    *padded = input;
    return true;
  }
  // Input given without simdjson's read-ahead padding is copied once into this.
  struct PaddedCopy {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;
  };
  thread_local PaddedCopy copy;
  const size_t need = input.size() + simdjson::SIMDJSON_PADDING;
  if (!ctx.budget.Charge(need)) return ctx.BudgetExceeded(need);
  if (copy.capacity < need || copy.capacity > 4 * need + (1 << 20)) {
    copy.data.reset(new char[need]);
    copy.capacity = need;
  }
  std::memcpy(copy.data.get(), input.data(), input.size());
  std::memset(copy.data.get() + input.size(), 0, simdjson::SIMDJSON_PADDING);
  *padded = {copy.data.get(), input.size()};
  return true;
}

}  // namespace rosetta::codec
