#include "rosetta/codec/status.h"

#include <array>
#include <string>

namespace rosetta::codec {
namespace {

constexpr std::array<std::string_view, kErrorCodeCount> kCodeNames = {
    "ok",
    "truncated",
    "syntax",
    "invalid_utf8",
    "depth_exceeded",
    "input_too_large",
    "output_too_large",
    "string_too_large",
    "too_many_items",
    "budget_exceeded",
    "duplicate_key",
    "unrepresentable",
    "schema_mismatch",
    "unknown_message_type",
    "trailing_data",
    "unsupported",
    "schema_violation",
    "unknown_schema",
    "not_deterministic",
    "overloaded",
};
// One name per code, the last one filled: a code added to the enum without its name (or
// a name without its code) does not compile.
static_assert(!kCodeNames.back().empty());

}  // namespace

std::string_view CodeName(ErrorCode code) { return kCodeNames[static_cast<size_t>(code)]; }

bool IsLimitError(ErrorCode code) {
  switch (code) {
    case ErrorCode::kDepthExceeded:
    case ErrorCode::kInputTooLarge:
    case ErrorCode::kOutputTooLarge:
    case ErrorCode::kStringTooLarge:
    case ErrorCode::kTooManyItems:
    case ErrorCode::kBudgetExceeded:
    case ErrorCode::kOverloaded:
      return true;
    default:
      return false;
  }
}

std::string Status::ToString(bool with_path) const {
  std::string s(CodeName(code));
  s += " at byte ";
  s += std::to_string(offset);
  if (with_path && !path.empty()) {
    s += " (";
    s += path;
    s += ')';
  }
  s += ": ";
  s += message;
  return s;
}

}  // namespace rosetta::codec
