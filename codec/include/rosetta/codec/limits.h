#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <type_traits>

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

// One row per limit: the only place a limit is named. `name` is the JSON config key, the
// TCP set-limits member and the gRPC Limits field; the flag is `--` + name with '-' for
// '_' (--max-input-bytes); the environment variable is ROSETTA_ + NAME. A new limit is a
// member of Limits and a row here.
struct LimitInfo {
  std::string_view name;
  std::string_view meaning;
  uint64_t server_default;  // rosettad's (ServiceConfig::DefaultLimits); the CLI's is Limits{}
  uint64_t hard_cap;        // no configuration or request may set more
  uint64_t (*get)(const Limits&);
  void (*set)(Limits&, uint64_t);
};

namespace limits_detail {
template <auto Member>
constexpr LimitInfo Row(std::string_view name, std::string_view meaning, uint64_t server_default,
                        uint64_t cap) {
  using T = std::remove_reference_t<decltype(std::declval<Limits&>().*Member)>;
  return {name,
          meaning,
          server_default,
          cap < uint64_t{T(~T{0})} ? cap : uint64_t{T(~T{0})},
          [](const Limits& l) -> uint64_t { return l.*Member; },
          [](Limits& l, uint64_t v) { l.*Member = static_cast<T>(v); }};
}
}  // namespace limits_detail

// The depth no configuration may pass: nesting is handled without recursion in the
// readers, but each level costs a stack entry charged to the budget.
inline constexpr uint64_t kMaxDepthCap = 100000;

inline constexpr std::array<LimitInfo, 6> kLimitTable = {
    limits_detail::Row<&Limits::max_input_bytes>("max_input_bytes", "largest payload accepted",
                                                 4 << 20, ~uint64_t{0}),
    limits_detail::Row<&Limits::max_output_bytes>("max_output_bytes", "largest output produced",
                                                  16 << 20, ~uint64_t{0}),
    limits_detail::Row<&Limits::max_depth>("max_depth", "deepest nesting of containers", 128,
                                           kMaxDepthCap),
    limits_detail::Row<&Limits::max_string_bytes>("max_string_bytes", "longest text or byte string",
                                                  4 << 20, ~uint64_t{0}),
    limits_detail::Row<&Limits::max_items>("max_items", "most items in one array or map", 1 << 20,
                                           ~uint64_t{0}),
    limits_detail::Row<&Limits::max_alloc_bytes>(
        "max_alloc_bytes", "bytes the codec may allocate for one request", 64 << 20, ~uint64_t{0}),
};

// The limits every row's server_default gives.
constexpr Limits ServerDefaultLimits() {
  Limits l;
  for (const LimitInfo& info : kLimitTable) info.set(l, info.server_default);
  return l;
}

// Every limit 0: "keep" for each, the start of a request's or connection's lowering.
constexpr Limits KeepLimits() {
  Limits l;
  for (const LimitInfo& info : kLimitTable) info.set(l, 0);
  return l;
}

// The row named `name` ("max_depth"), or null.
constexpr const LimitInfo* FindLimit(std::string_view name) {
  for (const LimitInfo& l : kLimitTable) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

}  // namespace rosetta::codec
