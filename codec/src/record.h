#pragma once

#include <cstdint>

#include "rosetta/codec/output.h"
#include "rosetta/codec/status.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::codec {

// One record of a sequence (sequence.cc), under the request's limits as one document,
// its output appended to what `out` holds (OutputBuffer::Continue, not Begin); on failure
// what it appended is still there for the caller to cut off. A format that needs a schema
// runs through it as Transcode does (Begin: the caller gives it a buffer of its own).
// Validating a record is Validate with request.item_end.
Status TranscodeRecord(const TranscodeRequest& request, OutputBuffer& out);

}  // namespace rosetta::codec
