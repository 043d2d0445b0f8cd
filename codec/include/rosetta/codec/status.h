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
  // second wave (DESIGN.md "Errors")
  kSchemaViolation,   // a payload that breaks its JSON Schema
  kUnknownSchema,     // a request names no loaded schema
  kNotDeterministic,  // CBOR that breaks RFC 8949 section 4.2.1 where it was required
  kOverloaded,        // refused by process-wide admission before any work
  kCount_,            // not a code: the number of codes
};
inline constexpr int kErrorCodeCount = static_cast<int>(ErrorCode::kCount_);

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
  // The one error line: "CODE at byte OFFSET: MESSAGE" (gRPC status, TCP data), or with
  // the path, "CODE at byte OFFSET (PATH): MESSAGE" (the CLI; no parentheses when empty).
  std::string ToString(bool with_path = false) const;
};

}  // namespace rosetta::codec
