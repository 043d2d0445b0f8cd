#pragma once

#include <cstddef>
#include <cstdint>

#include "rosetta/codec/output.h"
#include "rosetta/codec/status.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::codec {

// Sequences (DESIGN.md "Second wave", docs/formats.md "Sequences"): records read from a
// byte stream of any length in memory bounded by the largest record, each transcoded (or
// validated) on its own under the request's limits. Framing, in and out: JSON Lines (LF
// or CRLF; lines of only blanks skipped), CBOR sequence (RFC 8742: items back to back),
// MessagePack (values back to back), protobuf (each message after its varint length).

// Where a sequence's bytes come from: up to n bytes into p. Returns how many, 0 at the
// end of the input, -1 on an error (errno tells).
using ReadFn = ptrdiff_t (*)(void* arg, char* p, size_t n);
// A refused record: its status is located in the whole input (offset from the input's
// first byte; path starting with the record's index, "/3/user/id").
using RecordErrorFn = void (*)(void* arg, const Status& status);

struct SequenceRequest {
  // from, to, limits (each record's), options, schema and message_type; input unused.
  TranscodeRequest record;
  bool validate = false;    // no output
  bool keep_going = false;  // a refused record is skipped (reported), not the end
  ReadFn read = nullptr;
  void* read_arg = nullptr;
  RecordErrorFn on_error = nullptr;
  void* error_arg = nullptr;
  size_t read_bytes = size_t{1} << 20;  // asked of read at a time
};

// Kept up to date while the sequence runs (a progress line reads it from the read
// callback) and final when RunSequence returns.
struct SequenceProgress {
  uint64_t input_bytes = 0;  // read so far
  uint64_t records = 0;      // records done, good and refused
  uint64_t refused = 0;
  bool read_failed = false;  // read returned -1: the sequence ended there
  // A refused record ended the sequence: no keep_going, or a CBOR or MessagePack record
  // whose end could not be found (malformed, or longer than max_input_bytes).
  bool stopped = false;
};

// Runs the sequence. Records' output is appended to `out` (Begin'd here), each record's
// framing added (JSON Lines: a newline; protobuf: the varint length first); with
// OutputBuffer::SetFlush it is handed over between records once a chunk has gathered,
// and all of it at the end. A refused record leaves nothing in the output.
void RunSequence(const SequenceRequest& request, OutputBuffer& out, SequenceProgress* progress);

}  // namespace rosetta::codec
