#pragma once

#include "fixed/fixed_layout.h"
#include "rosetta/codec/schema.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::codec {

// A request with `fixed` on either side, for message type m (Schema::Run sends it here).
// With request.item_end (a sequence), fixed input may hold several whole records: each is
// read into the output format (into JSON, one line each) and *item_end gets their length.
Status RunFixed(const Schema* schema, const MessageInfo& m, const TranscodeRequest& request,
                OutputBuffer* out, TranscodeStats* stats);

}  // namespace rosetta::codec
