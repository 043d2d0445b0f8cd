#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rosetta/codec/format.h"
#include "rosetta/codec/limits.h"
#include "rosetta/codec/options.h"
#include "rosetta/codec/output.h"
#include "rosetta/codec/status.h"

namespace rosetta::codec {

struct TranscodeRequest;
struct TranscodeStats;
struct Context;

// What runs the formats that need a schema (FormatInfo::needs_schema): implemented by
// Schema (rosetta/codec/schema.h, the rosetta_codec_protobuf target), reached through the
// request. Declared here, with its vtable in the core, so that the core calls it without
// linking libprotobuf and without any process-wide registration.
class FormatSchema {
 public:
  // out is null for Validate.
  virtual Status Run(const TranscodeRequest& request, OutputBuffer* out,
                     TranscodeStats* stats) const = 0;
  // The size of a record of message_type in the `fixed` format; 0 when it has no fixed
  // layout (or is not loaded). Sequences of fixed records are cut with it.
  virtual uint32_t FixedRecordSize(std::string_view message_type) const = 0;

 protected:
  virtual ~FormatSchema();
};

// A JSON Schema a request is validated against (loaded by JsonSchemaSet,
// rosetta/codec/json_schema.h, the rosetta_codec_schema target, which links RE2). Declared
// here, with its vtable in the core, for the same reason as FormatSchema.
class JsonSchema {
 public:
  // Validates (out null) or transcodes (out already begun) request.input against this
  // schema in one pass, formats without a schema only; false with ctx.status set.
  virtual bool Run(Context& ctx, const TranscodeRequest& request, OutputBuffer* out) const = 0;
  virtual const std::string& name() const = 0;

 protected:
  virtual ~JsonSchema();
};

struct TranscodeRequest {
  Format from = Format::kJson;
  Format to = Format::kJson;
  std::string_view input;
  // Readable bytes after input.end(). The JSON reader (simdjson) needs 64; with less it
  // copies the input once into a padded buffer charged to the budget.
  size_t input_padding = 0;
  Limits limits;
  MappingOptions options;
  const FormatSchema* schema =
      nullptr;  // protobuf descriptors (a Schema); null for the other formats
  std::string_view message_type;
  // A record of a CBOR or MessagePack sequence (rosetta/codec/sequence.h): the reader stops
  // after the first data item and stores where it ends here; the bytes after it are the
  // next record, not trailing data. Null: the input is one whole document.
  uint64_t* item_end = nullptr;
  // JSON Schema validation in the same pass (rosetta/codec/json_schema.h): the payload's
  // data model, as `--to json` would write it, is checked against this schema while it is
  // read; a transcode's output is complete only for a valid payload. Null: no schema.
  const JsonSchema* json_schema = nullptr;
  // Null: the first violation ends the request (its Status, kSchemaViolation). Otherwise
  // every violation is appended here in input order, at most max_violations, and the
  // returned Status is the first one.
  std::vector<Status>* violations = nullptr;
  uint32_t max_violations = 16;
};

struct TranscodeStats {
  uint64_t allocated_bytes = 0;  // charged to the request's budget
  uint64_t peak_bytes = 0;
};

// Transcodes request.input into `out` (cleared first). On failure `out` holds a partial
// output that the caller must discard.
Status Transcode(const TranscodeRequest& request, OutputBuffer& out,
                 TranscodeStats* stats = nullptr);

// Reads request.input in format request.from under the same rules, writing nothing.
Status Validate(const TranscodeRequest& request, TranscodeStats* stats = nullptr);

// Bytes a caller should leave readable after the input to spare the JSON reader a copy.
inline constexpr size_t kInputPadding = 64;

// The buffer a streaming OutputBuffer (OutputBuffer::SetFlush) is given before a
// transcode: it grows past this only while a writer holds it.
inline constexpr size_t kStreamChunkBytes = size_t{1} << 20;

}  // namespace rosetta::codec
