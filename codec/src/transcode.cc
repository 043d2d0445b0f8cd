#include "rosetta/codec/transcode.h"

#include <array>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "core/context.h"
#include "fast_path/binary_to_json.h"
#include "read_any.h"
#include "record.h"

namespace rosetta::codec {

FormatSchema::~FormatSchema() = default;
JsonSchema::~JsonSchema() = default;

namespace {

// One function per (reader, writer) pair: each compiles to direct calls.
using PairFn = bool (*)(Context&, std::string_view, size_t, OutputBuffer&);

template <Format From, class Writer>
bool RunPair(Context& ctx, std::string_view input, size_t padding, OutputBuffer& out) {
  if constexpr ((From == Format::kCbor || From == Format::kMsgpack) &&
                std::is_same_v<Writer, JsonWriter>) {
    // The fast path first; on anything it does not take (fast_path/binary_to_json.h), the general
    // path from the start, with what the fast one wrote and charged undone. It writes compact
    // JSON with today's tag mapping only: pretty and timestamps_as_text take the general path.
    // With streaming output it may have handed bytes over before it gives up: the general
    // path then writes the same bytes again (each item it wrote is the general writer's),
    // and that many are dropped instead of handed over twice (OutputBuffer::SkipNext).
    const AllocationBudget budget = ctx.budget;
    const size_t size = out.size();
    const uint64_t flushed = out.flushed();
    if (!ctx.options.pretty && !ctx.options.timestamps_as_text) {
      if ((From == Format::kCbor ? FastCborToJson : FastMsgpackToJson)(ctx, input, out))
        return true;
    }
    // The output buffer keeps the capacity it grew to, free to the general path as the
    // capacity a thread's buffer keeps from an earlier request is (output.h).
    ctx.budget = budget;
    ctx.status = Status();
    ctx.located = false;
    if (out.flushed() == flushed) {
      out.Resize(size);
    } else {
      out.Resize(0);
      out.SkipNext(out.flushed() - flushed);
    }
  }
  Writer writer(ctx, out);
  if (!ctx.status.ok()) [[unlikely]]
    return false;  // its container stack did not fit the budget
  ctx.json_member_names = kIsJsonWriter<Writer>;
  ctx.tags_kept = kIsCborWriter<Writer>;
  return FormatCodec<From>::template Read<Writer>(ctx, writer, input, padding);
}

// The pair table, built from the registry: kPairs[from - 1][to - 1].
template <Format From, size_t... To>
constexpr std::array<PairFn, sizeof...(To)> PairRow(std::index_sequence<To...>) {
  return {RunPair<From, typename FormatCodec<kCodecFormats[To]>::Writer>...};
}
template <size_t... From>
constexpr auto PairTable(std::index_sequence<From...> seq) {
  return std::array<std::array<PairFn, sizeof...(From)>, sizeof...(From)>{
      PairRow<kCodecFormats[From]>(seq)...};
}
constexpr auto kPairs = PairTable(std::make_index_sequence<kCodecFormats.size()>());

// Into deterministic CBOR (option `deterministic`): its own writer type, so the plain
// writer carries no branch for it. kIntoDeterministicCbor[from - 1].
template <size_t... From>
constexpr std::array<PairFn, sizeof...(From)> DeterministicRow(std::index_sequence<From...>) {
  return {RunPair<kCodecFormats[From], DeterministicCborWriter>...};
}
constexpr auto kIntoDeterministicCbor =
    DeterministicRow(std::make_index_sequence<kCodecFormats.size()>());

// Into pretty JSON (option `pretty`): its own writer type too. kIntoPrettyJson[from - 1].
template <size_t... From>
constexpr std::array<PairFn, sizeof...(From)> PrettyJsonRow(std::index_sequence<From...>) {
  return {RunPair<kCodecFormats[From], PrettyJsonWriter>...};
}
constexpr auto kIntoPrettyJson = PrettyJsonRow(std::make_index_sequence<kCodecFormats.size()>());

Status Unsupported(Format f) {
  Status s;
  s.code = ErrorCode::kUnsupported;
  s.message = "format " + std::to_string(static_cast<int>(f)) + " is not one of " + FormatList();
  return s;
}

// A format read and written through descriptors: the request's schema runs it.
Status RunWithSchema(const TranscodeRequest& request, OutputBuffer* out, TranscodeStats* stats) {
  if (request.schema != nullptr) return request.schema->Run(request, out, stats);
  Status s;
  s.code = ErrorCode::kUnknownMessageType;
  s.message = "the " +
              std::string(FormatName(Info(request.from).needs_schema ? request.from : request.to)) +
              " format needs a descriptor set (--descriptor-set)";
  return s;
}

bool CheckInput(const TranscodeRequest& r, Status* s) {
  if (const OptionInfo* o = UnavailableOption(r.options)) {
    s->code = ErrorCode::kUnsupported;
    s->message = "option " + std::string(o->name) + " is not available in this build";
    return false;
  }
  if (r.input.size() <= r.limits.max_input_bytes) return true;
  s->code = ErrorCode::kInputTooLarge;
  s->offset = r.limits.max_input_bytes;
  s->message = "input of " + std::to_string(r.input.size()) + " bytes passes max_input_bytes " +
               std::to_string(r.limits.max_input_bytes);
  return false;
}

void Finish(const Context& ctx, TranscodeStats* stats) {
  if (stats) {
    stats->allocated_bytes = ctx.budget.used();
    stats->peak_bytes = ctx.budget.peak();
  }
}

}  // namespace

namespace {

// Transcode, and TranscodeRecord (`record`: appended to what `out` holds; record.h).
Status ValidateImpl(const TranscodeRequest& request, TranscodeStats* stats);

// A request with a JSON Schema and protobuf or fixed on one side: the payload is validated
// in a pass of its own before it is transcoded. Protobuf / fixed input is validated as the
// JSON it maps to (offsets are then in that JSON); JSON, CBOR or MessagePack input as is.
Status ValidateAgainstJsonSchema(const TranscodeRequest& request, TranscodeStats* stats) {
  TranscodeRequest check = request;
  if (!Info(request.from).needs_schema) {
    check.to = request.from;
    return ValidateImpl(check, stats);
  }
  OutputBuffer json;
  check.to = Format::kJson;
  check.json_schema = nullptr;
  check.options.pretty = false;
  Status s = RunWithSchema(check, &json, stats);
  if (!s.ok()) return s;
  TranscodeRequest validate = request;
  validate.from = Format::kJson;
  validate.input = std::string_view(json.data(), json.size());
  validate.input_padding = 0;
  validate.limits.max_input_bytes = ~uint64_t{0};
  return ValidateImpl(validate, stats);
}

Status TranscodeImpl(const TranscodeRequest& request, OutputBuffer& out, TranscodeStats* stats,
                     bool record) {
  Status status;
  if (!CheckInput(request, &status)) return status;
  const FormatInfo* from = FindFormat(static_cast<int>(request.from));
  const FormatInfo* to = FindFormat(static_cast<int>(request.to));
  if (from == nullptr) return Unsupported(request.from);
  if (to == nullptr) return Unsupported(request.to);
  if (request.json_schema != nullptr && (from->needs_schema || to->needs_schema)) {
    // JSON Schema and a format read or written through descriptors: validated first, in a
    // pass of its own (docs/schema.md).
    status = ValidateAgainstJsonSchema(request, stats);
    if (!status.ok()) return status;
  }
  if (from->needs_schema || to->needs_schema) {
    // The protobuf writer fills in message lengths after their content: its output is
    // not streamed (the caller finds it whole in the buffer).
    const OutputBuffer::Streaming streaming = out.TakeStreaming();
    Status s = RunWithSchema(request, &out, stats);
    out.RestoreStreaming(streaming);
    return s;
  }
  Context ctx(request.limits, request.options);
  ctx.item_end = request.item_end;
  if (record) {
    out.Continue(request.limits.max_output_bytes, &ctx.budget);
  } else {
    out.Begin(request.limits.max_output_bytes, &ctx.budget);
    // Most outputs are near the input's size: one allocation up front instead of a series
    // of doublings (untouched pages of a large block cost no memory); streaming output
    // needs no more than a chunk.
    uint64_t guess = request.input.size() + request.input.size() / 2 + 64;
    if (out.streaming() && guess > kStreamChunkBytes) guess = kStreamChunkBytes;
    if (out.capacity() < guess && guess <= request.limits.max_output_bytes &&
        guess <= ctx.budget.limit() / 2) {
      out.Ensure(guess);
    }
  }
  const int from_row = static_cast<int>(request.from) - 1;
  const PairFn run = request.to == Format::kCbor && request.options.deterministic
                         ? kIntoDeterministicCbor[from_row]
                     : request.to == Format::kJson && request.options.pretty
                         ? kIntoPrettyJson[from_row]
                         : kPairs[from_row][static_cast<int>(request.to) - 1];
  const bool ok = request.json_schema != nullptr
                      ? request.json_schema->Run(ctx, request, &out)
                      : run(ctx, request.input, request.input_padding, out);
  if (!ok && ctx.status.ok()) {
    ctx.status.code = ErrorCode::kSyntax;  // a reader stopped without saying why: never expected
    ctx.status.message = "transcode stopped";
  }
  Finish(ctx, stats);
  return std::move(ctx.status);
}

Status ValidateImpl(const TranscodeRequest& request, TranscodeStats* stats) {
  Status status;
  if (!CheckInput(request, &status)) return status;
  const FormatInfo* from = FindFormat(static_cast<int>(request.from));
  if (from == nullptr) return Unsupported(request.from);
  if (from->needs_schema) {
    if (request.json_schema != nullptr) return ValidateAgainstJsonSchema(request, stats);
    return RunWithSchema(request, nullptr, stats);
  }
  Context ctx(request.limits, request.options);
  ctx.tags_kept = true;  // a payload is judged in its own format, where tags are part of keys
  ctx.item_end = request.item_end;
  if (request.json_schema != nullptr) {
    if (!request.json_schema->Run(ctx, request, nullptr) && ctx.status.ok()) {
      ctx.status.code = ErrorCode::kSyntax;
      ctx.status.message = "validation stopped";
    }
    Finish(ctx, stats);
    return std::move(ctx.status);
  }
  NullSink sink;
  // validate --deterministic: CBOR must also be in RFC 8949 4.2.1 deterministic encoding.
  const bool read = request.from == Format::kCbor && request.options.deterministic
                        ? CborReader<NullSink, true>(ctx, sink).Read(request.input)
                        : ReadAny(request.from, ctx, sink, request.input, request.input_padding);
  if (!read && ctx.status.ok()) {
    ctx.status.code = ErrorCode::kSyntax;
    ctx.status.message = "validation stopped";
  }
  Finish(ctx, stats);
  return std::move(ctx.status);
}

}  // namespace

Status Transcode(const TranscodeRequest& request, OutputBuffer& out, TranscodeStats* stats) {
  return TranscodeImpl(request, out, stats, false);
}

Status Validate(const TranscodeRequest& request, TranscodeStats* stats) {
  return ValidateImpl(request, stats);
}

Status TranscodeRecord(const TranscodeRequest& request, OutputBuffer& out) {
  return TranscodeImpl(request, out, nullptr, true);
}

}  // namespace rosetta::codec
