#include "rosetta/codec/status.h"

#include <array>

#include "rosetta/codec/format.h"
#include "rosetta/codec/limits.h"

namespace rosetta::codec {
namespace {

constexpr std::array<std::string_view, kErrorCodeCount> kCodeNames = {
    "ok",           "truncated",        "syntax",          "invalid_utf8",      "depth_exceeded", "input_too_large",
    "output_too_large", "string_too_large", "too_many_items", "budget_exceeded", "duplicate_key",  "unrepresentable",
    "schema_mismatch",  "unknown_message_type", "trailing_data", "unsupported",
};

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
      return true;
    default:
      return false;
  }
}

std::string Status::ToString() const {
  std::string s(CodeName(code));
  s += " at byte ";
  s += std::to_string(offset);
  s += ": ";
  s += message;
  return s;
}

Limits Limits::LowerTo(const Limits& r) const {
  auto lower = [](auto ours, auto theirs) { return theirs != 0 && theirs < ours ? theirs : ours; };
  Limits l;
  l.max_input_bytes = lower(max_input_bytes, r.max_input_bytes);
  l.max_output_bytes = lower(max_output_bytes, r.max_output_bytes);
  l.max_depth = lower(max_depth, r.max_depth);
  l.max_string_bytes = lower(max_string_bytes, r.max_string_bytes);
  l.max_items = lower(max_items, r.max_items);
  l.max_alloc_bytes = lower(max_alloc_bytes, r.max_alloc_bytes);
  return l;
}

std::optional<Format> ParseFormat(std::string_view name) {
  if (name == "json") return Format::kJson;
  if (name == "cbor") return Format::kCbor;
  if (name == "msgpack") return Format::kMsgpack;
  if (name == "protobuf") return Format::kProtobuf;
  return std::nullopt;
}

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kJson: return "json";
    case Format::kCbor: return "cbor";
    case Format::kMsgpack: return "msgpack";
    case Format::kProtobuf: return "protobuf";
  }
  return "unknown";
}

}  // namespace rosetta::codec
