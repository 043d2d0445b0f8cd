#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rosetta/codec/format.h"
#include "rosetta/codec/limits.h"
#include "rosetta/codec/options.h"
#include "rosetta/codec/output.h"
#include "rosetta/codec/status.h"

namespace rosetta::codec {

class Schema;  // protobuf descriptors (codec/src/protobuf), null for the other formats

struct TranscodeRequest {
  Format from = Format::kJson;
  Format to = Format::kJson;
  std::string_view input;
  // Readable bytes after input.end(). The JSON reader (simdjson) needs 64; with less it
  // copies the input once into a padded buffer charged to the budget.
  size_t input_padding = 0;
  Limits limits;
  MappingOptions options;
  const Schema* schema = nullptr;
  std::string_view message_type;
};

struct TranscodeStats {
  uint64_t allocated_bytes = 0;  // charged to the request's budget
  uint64_t peak_bytes = 0;
};

// Transcodes request.input into `out` (cleared first). On failure `out` holds a partial
// output that the caller must discard.
Status Transcode(const TranscodeRequest& request, OutputBuffer& out, TranscodeStats* stats = nullptr);

// Reads request.input in format request.from under the same rules, writing nothing.
Status Validate(const TranscodeRequest& request, TranscodeStats* stats = nullptr);

// Bytes a caller should leave readable after the input to spare the JSON reader a copy.
inline constexpr size_t kInputPadding = 64;

}  // namespace rosetta::codec
