#include "json/json_reader.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <new>

#include <sys/mman.h>

#include "core/context.h"

namespace rosetta::codec {

namespace {

// Asks for the 2 MiB-aligned inside of [p, p + n) in transparent huge pages (madvise mode:
// the kernel gives them only where asked). A large document's index and string buffer
// are written once from front to back into fresh memory; in 4 KiB pages that is one page
// fault per 4 KiB, in huge pages one per 2 MiB. Only the pages touched are made, so a
// region used in part costs at most one huge page more than it holds.
void AdviseHugePages(void* p, size_t n) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t{1} << 21;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

}  // namespace

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
  if (strings != nullptr && cap >= kHugePagesFrom) {
    AdviseHugePages(impl->structural_indexes.get(), cap * sizeof(uint32_t));
    AdviseHugePages(strings.get(), cap);
  }
  return strings != nullptr;
}

uint32_t JsonIndex::CountItems(const char* b, const uint32_t* idx, uint32_t n, uint32_t max_depth) {
  const size_t most = n / 2 + 1;
  if (counts_capacity < most || counts_capacity > 4 * most + (size_t{1} << 16)) {
    counts.reset(new (std::nothrow) uint32_t[most]);
    counts_capacity = counts ? most : 0;
    if (!counts) return 0;
  }
  const size_t deepest = std::min<size_t>(max_depth, most) + 1;
  if (open_capacity < deepest || open_capacity > 4 * deepest + 1024) {
    open.reset(new (std::nothrow) OpenContainer[deepest]);
    open_capacity = open ? deepest : 0;
    if (!open) return 0;
  }
  uint32_t* const out = counts.get();
  OpenContainer* const stack = open.get();
  // Most structural characters are commas, colons, quotes and scalars: a comma is counted
  // without a branch, and only brackets branch.
  static constexpr auto kClass = [] {
    std::array<uint8_t, 256> t{};  // 0: other, 1: comma, 2: open, 3: close
    t[','] = 1;
    t['['] = t['{'] = 2;
    t[']'] = t['}'] = 3;
    return t;
  }();
  size_t depth = 0;
  uint32_t ordinal = 0;
  uint32_t commas = 0;  // of the innermost open container
  for (uint32_t k = 0; k < n; ++k) {
    const uint8_t c = kClass[static_cast<uint8_t>(b[idx[k]])];
    commas += c == 1;
    if (c < 2) continue;
    if (c == 2) {
      // Deeper than max_depth, or more containers than closed ones can be: the reader
      // refuses the document there.
      if (depth + 1 >= deepest || ordinal == most) return ordinal;
      stack[depth++] = OpenContainer{ordinal, commas, k};
      out[ordinal++] = kNoCount;
      commas = 0;
    } else {
      if (depth == 0) return ordinal;  // malformed: the reader refuses it here
      const OpenContainer& o = stack[--depth];
      out[o.ordinal] = o.opened + 1 == k ? 0 : commas + 1;
      commas = o.commas;
    }
  }
  return ordinal;
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
