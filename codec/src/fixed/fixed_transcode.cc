// The `fixed` pairs: fixed records into every format and every format into fixed records,
// each a (reader, writer) pair compiled to direct calls; fixed into fixed is a check of
// the bytes and one copy.
#include "fixed/fixed_transcode.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "cbor/cbor_writer.h"
#include "fixed/fixed_encoder.h"
#include "fixed/fixed_reader.h"
#include "fixed/fixed_writer.h"
#include "json/json_writer.h"
#include "msgpack/msgpack_writer.h"
#include "protobuf/protobuf_reader.h"
#include "protobuf/protobuf_writer.h"
#include "read_any.h"

namespace rosetta::codec {

namespace fixed_detail {

std::string PathTo(const FixedLayout& layout, size_t i) {
  // The keys of the messages open at step i, then its own.
  std::vector<std::string_view> keys;
  for (size_t k = 0; k <= i && k < layout.steps.size(); ++k) {
    const FixedStep& s = layout.steps[k];
    if (s.kind == FixedKind::kBegin) {
      if (k == i) break;
      keys.push_back(s.key);
    } else if (s.kind == FixedKind::kEnd) {
      if (k == i) break;
      keys.pop_back();
    }
  }
  std::string path;
  for (std::string_view k : keys) {
    if (k.empty()) continue;  // the root
    path += '/';
    path += k;
  }
  const FixedStep& s = layout.steps[i];
  if (s.kind != FixedKind::kEnd && !s.key.empty()) {
    path += '/';
    path += s.key;
  }
  return path;
}

const FixedStep* CheckRecord(const FixedLayout& layout, const uint8_t* p) {
  for (const FixedStep* s : layout.checks) {
    if (s->kind == FixedKind::kBool) {
      if (p[s->offset] > 1) return s;
    } else if (s->EnumName(Load<int32_t>(p + s->offset)) == nullptr) {
      return s;
    }
  }
  return nullptr;
}

Status BadValue(const FixedLayout& layout, const FixedStep& s, const uint8_t* record, uint64_t at) {
  Status st;
  st.code = ErrorCode::kSchemaMismatch;
  st.offset = at + s.offset;
  st.path = PathTo(layout, static_cast<size_t>(&s - layout.steps.data()));
  if (s.kind == FixedKind::kBool) {
    st.message = "bool byte " + std::to_string(record[s.offset]) + " is neither 0 nor 1";
  } else {
    st.message = std::to_string(Load<int32_t>(record + s.offset)) + " is not a value of enum " +
                 s.enum_info->descriptor->full_name();
  }
  return st;
}

}  // namespace fixed_detail

namespace {

Status Failure(ErrorCode code, uint64_t offset, std::string message, std::string path = {}) {
  Status s;
  s.code = code;
  s.offset = offset;
  s.message = std::move(message);
  s.path = std::move(path);
  return s;
}

// Reads every record of the input into a new writer W each (a record is one document:
// into JSON, each followed by a newline when there are several).
template <class W, class... Args>
bool RecordsInto(Context& ctx, const FixedLayout& layout, std::string_view input, size_t records,
                 bool lines, OutputBuffer& out, Args&&... args) {
  const auto* p = reinterpret_cast<const uint8_t*>(input.data());
  for (size_t k = 0; k < records; ++k, p += layout.size) {
    W writer(ctx, out, args...);
    FixedReader<W> reader(ctx, writer, layout);
    if (!ctx.status.ok() || !reader.Record(p, uint64_t{k} * layout.size)) return false;
    if (lines) {
      if (!out.Ensure(1)) return ctx.Fail(ErrorCode::kOutputTooLarge, "output buffer full");
      out.Put('\n');
    }
  }
  return true;
}

}  // namespace

Status RunFixed(const Schema* schema, const MessageInfo& m, const TranscodeRequest& r,
                OutputBuffer* out, TranscodeStats* stats) {
  const FixedLayout& layout = *m.fixed;
  if (!layout.ok()) {
    return Failure(ErrorCode::kUnrepresentable, 0,
                   layout.error + " (" + m.full_name + " has no fixed layout)", layout.error_path);
  }
  Context ctx(r.limits, r.options);
  bool ok = true;
  if (r.from == Format::kFixed) {
    // One record, or (a sequence: item_end) as many whole records as the input holds.
    size_t records = 1;
    if (r.item_end != nullptr) {
      records = r.input.size() / layout.size;
      *r.item_end = uint64_t{records} * layout.size;
      if (records == 0) {
        return Failure(ErrorCode::kTruncated, r.input.size(),
                       "a record is " + std::to_string(layout.size) + " bytes; " +
                           std::to_string(r.input.size()) + " remain");
      }
    } else if (r.input.size() < layout.size) {
      return Failure(ErrorCode::kTruncated, r.input.size(),
                     "a record of " + m.full_name + " is " + std::to_string(layout.size) +
                         " bytes; the input has " + std::to_string(r.input.size()));
    } else if (r.input.size() > layout.size) {
      return Failure(ErrorCode::kTrailingData, layout.size,
                     std::to_string(r.input.size() - layout.size) + " bytes after the " +
                         std::to_string(layout.size) + "-byte record");
    }
    {
      NullSink none;
      if (!FixedReader<NullSink>(ctx, none, layout).Limits()) return std::move(ctx.status);
    }
    const auto* p = reinterpret_cast<const uint8_t*>(r.input.data());
    const bool lines = r.item_end != nullptr;
    if (out == nullptr || r.to == Format::kFixed) {
      // Validate, and fixed into fixed: the bytes are checked, then copied as they are.
      // When every check is a bool's (the common case), the bool bytes of all records are
      // OR-ed together first, without a branch per record; only a byte above 1 somewhere
      // sends the records through CheckRecord, which finds the first bad one.
      bool clean = layout.checks.empty();
      if (!clean && std::all_of(layout.checks.begin(), layout.checks.end(),
                                [](const FixedStep* s) { return s->kind == FixedKind::kBool; })) {
        uint8_t bits = 0;
        for (const FixedStep* s : layout.checks) {
          const uint8_t* q = p + s->offset;
          for (size_t k = 0; k < records; ++k) bits |= q[k * layout.size];
        }
        clean = bits <= 1;
      }
      for (size_t k = 0; k < records && !clean; ++k) {
        const uint8_t* record = p + k * layout.size;
        if (const FixedStep* bad = fixed_detail::CheckRecord(layout, record))
          return fixed_detail::BadValue(layout, *bad, record, uint64_t{k} * layout.size);
      }
      if (out != nullptr) {
        out->Begin(r.limits.max_output_bytes, &ctx.budget);
        const size_t n = records * layout.size;
        if (!out->Ensure(n)) {
          return Failure(
              out->over_limit() ? ErrorCode::kOutputTooLarge : ErrorCode::kBudgetExceeded, 0,
              "no room for " + std::to_string(n) + " bytes of output");
        }
        out->Append(p, n);
      }
    } else {
      out->Begin(r.limits.max_output_bytes, &ctx.budget);
      // The compiled encodings first (fixed_encoder.cc); the general path for what they
      // leave to it, from the start, with the output cut back.
      const bool compiled = (r.to == Format::kJson && !r.options.pretty) ||
                            (r.to == Format::kCbor && !r.options.deterministic) ||
                            r.to == Format::kMsgpack;
      if (compiled && EncodeFixed(layout, static_cast<uint8_t>(r.to), p, records, lines, *out)) {
        if (stats) {
          stats->allocated_bytes = ctx.budget.used();
          stats->peak_bytes = ctx.budget.peak();
        }
        return Status();
      }
      out->Resize(0);
      switch (r.to) {
        case Format::kJson:
          ok = r.options.pretty
                   ? RecordsInto<PrettyJsonWriter>(ctx, layout, r.input, records, lines, *out)
                   : RecordsInto<JsonWriter>(ctx, layout, r.input, records, lines, *out);
          break;
        case Format::kCbor:
          ok =
              r.options.deterministic
                  ? RecordsInto<DeterministicCborWriter>(ctx, layout, r.input, records, false, *out)
                  : RecordsInto<CborWriter>(ctx, layout, r.input, records, false, *out);
          break;
        case Format::kMsgpack:
          ok = RecordsInto<MsgpackWriter>(ctx, layout, r.input, records, false, *out);
          break;
        case Format::kProtobuf:
          // A sequence into protobuf frames each message with its length: one at a time.
          if (records != 1) {
            return Failure(ErrorCode::kUnsupported, 0,
                           "fixed records into protobuf are transcoded one at a time");
          }
          ok = RecordsInto<ProtobufWriter>(ctx, layout, r.input, 1, false, *out, schema, m);
          break;
        default:
          return Failure(ErrorCode::kUnsupported, 0, "no such output format");
      }
    }
  } else {
    // Into a record: the writer reserves it and stores each member at its offset, and
    // finds duplicates itself (by field: "userId" and "user_id" are one).
    MappingOptions names_unchecked = r.options;
    names_unchecked.allow_duplicate_keys = true;
    Context wctx(r.limits, names_unchecked);
    wctx.item_end = r.item_end;
    out->Begin(r.limits.max_output_bytes, &wctx.budget);
    FixedWriter writer(wctx, *out, layout, !r.options.allow_duplicate_keys);
    if (r.from == Format::kProtobuf) {
      ok = wctx.status.ok() &&
           ProtobufReader<FixedWriter>(wctx, writer, schema, m, false).Read(r.input);
    } else {
      ok = wctx.status.ok() && ReadAny(r.from, wctx, writer, r.input, r.input_padding);
    }
    if (!ok && wctx.status.ok())
      wctx.status = Failure(ErrorCode::kSyntax, 0, "fixed transcode stopped");
    if (stats) {
      stats->allocated_bytes = wctx.budget.used();
      stats->peak_bytes = wctx.budget.peak();
    }
    return std::move(wctx.status);
  }
  if (!ok && ctx.status.ok())
    ctx.status = Failure(ErrorCode::kSyntax, 0, "fixed transcode stopped");
  if (stats) {
    stats->allocated_bytes = ctx.budget.used();
    stats->peak_bytes = ctx.budget.peak();
  }
  return std::move(ctx.status);
}

}  // namespace rosetta::codec
