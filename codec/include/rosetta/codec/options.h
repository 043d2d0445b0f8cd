#pragma once

#include <array>
#include <string_view>

namespace rosetta::codec {

// Mapping options (docs/formats.md). Defaults are the strict, lossless mapping.
struct MappingOptions {
  bool allow_duplicate_keys = false;  // I-JSON (RFC 7493) refuses them by default
  bool base64_standard = false;       // bytes into JSON: base64 (RFC 4648 s4) instead of base64url
  bool nonfinite_as_null = false;     // NaN/Infinity into JSON: null instead of unrepresentable
  bool bignum_as_double = false;      // bignums into MessagePack: double instead of unrepresentable
  bool reject_unknown_fields =
      false;  // protobuf input: unknown field numbers are schema_mismatch, not skipped
  bool ignore_unknown_fields =
      false;  // protobuf output: unknown JSON member names are skipped, not schema_mismatch
  // Named by the contract (DESIGN.md "Second wave") but not in this build: a request that
  // sets one is refused with `unsupported` (OptionInfo::available).
  bool deterministic = false;
  bool pretty = false;
  bool format_assertion = false;
  bool timestamps_as_text = false;
};

// One row per option: the only place an option is named. `name` is the gRPC Options field
// and the TCP set-options member; the CLI flag is `--` + name with '-' for '_'. A new
// option is a member of MappingOptions and a row here.
struct OptionInfo {
  std::string_view name;
  std::string_view meaning;
  bool MappingOptions::*field;
  bool available;  // false: named by the contract, refused with `unsupported` when set
};

inline constexpr std::array<OptionInfo, 10> kOptionTable = {{
    {"allow_duplicate_keys", "accept repeated map keys (refused by default, RFC 7493)",
     &MappingOptions::allow_duplicate_keys, true},
    {"base64_standard", "bytes into JSON as base64 with padding (default base64url)",
     &MappingOptions::base64_standard, true},
    {"nonfinite_as_null", "NaN and infinities into JSON as null (default: refused)",
     &MappingOptions::nonfinite_as_null, true},
    {"bignum_as_double", "bignums into MessagePack as doubles (default: refused)",
     &MappingOptions::bignum_as_double, true},
    {"reject_unknown_fields", "protobuf input: unknown field numbers refused (default: skipped)",
     &MappingOptions::reject_unknown_fields, true},
    {"ignore_unknown_fields", "protobuf output: unknown member names skipped (default: refused)",
     &MappingOptions::ignore_unknown_fields, true},
    {"deterministic",
     "CBOR output in RFC 8949 section 4.2.1 deterministic form; validate: CBOR input must be",
     &MappingOptions::deterministic, true},
    {"pretty", "JSON output indented by two spaces", &MappingOptions::pretty, true},
    {"format_assertion", "JSON Schema: assert `format` (default: an annotation)",
     &MappingOptions::format_assertion, true},
    {"timestamps_as_text", "timestamps into JSON as RFC 3339 text",
     &MappingOptions::timestamps_as_text, true},
}};

constexpr const OptionInfo* FindOption(std::string_view name) {
  for (const OptionInfo& o : kOptionTable) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

// The first option set in `o` that this build does not have, or null.
constexpr const OptionInfo* UnavailableOption(const MappingOptions& o) {
  for (const OptionInfo& info : kOptionTable) {
    if (!info.available && o.*info.field) return &info;
  }
  return nullptr;
}

}  // namespace rosetta::codec
