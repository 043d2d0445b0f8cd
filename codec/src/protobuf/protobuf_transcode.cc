// The protobuf pairs: protobuf into each format and each format into protobuf, each a
// (reader, writer) pair compiled to direct calls like the core's.
#include <string>

#include "cbor/cbor_writer.h"
#include "fixed/fixed_transcode.h"
#include "json/json_writer.h"
#include "msgpack/msgpack_writer.h"
#include "protobuf/protobuf_reader.h"
#include "protobuf/protobuf_schema.h"
#include "protobuf/protobuf_writer.h"
#include "read_any.h"
#include "rosetta/codec/schema.h"

namespace rosetta::codec {
namespace {

Status Failure(ErrorCode code, std::string message) {
  Status s;
  s.code = code;
  s.message = std::move(message);
  return s;
}

template <class W>
bool FromProtobuf(Context& ctx, W& writer, const Schema* schema, const MessageInfo& m,
                  std::string_view input, bool json) {
  if (!ctx.status.ok()) return false;
  return ProtobufReader<W>(ctx, writer, schema, m, json).Read(input);
}

}  // namespace

Status Schema::Run(const TranscodeRequest& r, OutputBuffer* out, TranscodeStats* stats) const {
  const MessageInfo* m = Find(r.message_type);
  if (m == nullptr) {
    return Failure(ErrorCode::kUnknownMessageType, "message type \"" + std::string(r.message_type) +
                                                       "\" is not in the loaded descriptors");
  }
  if (r.from == Format::kFixed || r.to == Format::kFixed) return RunFixed(this, *m, r, out, stats);
  MappingOptions options = r.options;
  // proto3 JSON writes bytes as standard base64 with padding.
  if (r.from == Format::kProtobuf && r.to == Format::kJson && out) options.base64_standard = true;
  Context ctx(r.limits, options);
  ctx.item_end = r.item_end;
  bool ok;
  if (out == nullptr) {  // Validate
    NullSink sink;
    ok = ProtobufReader<NullSink>(ctx, sink, this, *m, false).Read(r.input);
  } else {
    out->Begin(r.limits.max_output_bytes, &ctx.budget);
    if (r.from == Format::kProtobuf) {
      switch (r.to) {
        case Format::kJson: {
          if (options.pretty) {
            PrettyJsonWriter w(ctx, *out);
            ok = FromProtobuf(ctx, w, this, *m, r.input, true);
          } else {
            JsonWriter w(ctx, *out);
            ok = FromProtobuf(ctx, w, this, *m, r.input, true);
          }
          break;
        }
        case Format::kCbor: {
          if (options.deterministic) {
            DeterministicCborWriter w(ctx, *out);
            ok = FromProtobuf(ctx, w, this, *m, r.input, false);
          } else {
            CborWriter w(ctx, *out);
            ok = FromProtobuf(ctx, w, this, *m, r.input, false);
          }
          break;
        }
        case Format::kMsgpack: {
          MsgpackWriter w(ctx, *out);
          ok = FromProtobuf(ctx, w, this, *m, r.input, false);
          break;
        }
        default: {  // protobuf -> protobuf: parsed and written again (normalized)
          ProtobufWriter w(ctx, *out, this, *m);
          ok = FromProtobuf(ctx, w, this, *m, r.input, false);
        }
      }
    } else {
      ProtobufWriter w(ctx, *out, this, *m);
      ok = ctx.status.ok() && ReadAny(r.from, ctx, w, r.input, r.input_padding);
    }
  }
  if (!ok && ctx.status.ok())
    ctx.status = Failure(ErrorCode::kSyntax, "protobuf transcode stopped");
  if (stats) {
    stats->allocated_bytes = ctx.budget.used();
    stats->peak_bytes = ctx.budget.peak();
  }
  return std::move(ctx.status);
}

uint32_t Schema::FixedRecordSize(std::string_view message_type) const {
  const MessageInfo* m = Find(message_type);
  return m != nullptr && m->fixed != nullptr ? m->fixed->size : 0;
}

}  // namespace rosetta::codec
