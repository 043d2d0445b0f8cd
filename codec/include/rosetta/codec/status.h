#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rosetta::codec {

// Stable error codes (DESIGN.md "Errors"). The snake_case names are a public contract.
enum class ErrorCode : uint8_t {
  kOk = 0,
  kTruncated,
  kSyntax,
  kInvalidUtf8,
  kDepthExceeded,
  kInputTooLarge,
  kOutputTooLarge,
  kStringTooLarge,
  kTooManyItems,
  kBudgetExceeded,
  kDuplicateKey,
  kUnrepresentable,
  kSchemaMismatch,
  kUnknownMessageType,
  kTrailingData,
  kUnsupported,
};
inline constexpr int kErrorCodeCount = 16;

// "truncated", "syntax", ...; "ok" for kOk.
std::string_view CodeName(ErrorCode code);
// True for the codes that mean a limit was hit (gRPC RESOURCE_EXHAUSTED).
bool IsLimitError(ErrorCode code);

// A failure: code, byte offset in the input, JSON Pointer (RFC 6901) of the value being
// read, and a human message. Built only on the failure path.
struct Status {
  ErrorCode code = ErrorCode::kOk;
  uint64_t offset = 0;
  std::string path;
  std::string message;

  bool ok() const { return code == ErrorCode::kOk; }
  // "CODE at byte OFFSET: MESSAGE"
  std::string ToString() const;
};

}  // namespace rosetta::codec
