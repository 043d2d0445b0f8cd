// A request with a JSON Schema: the reader drives the validator, and the writer too when
// the request transcodes (both see every event once: one pass over the input).
#include "cbor/cbor_reader.h"
#include "cbor/cbor_writer.h"
#include "json/json_writer.h"
#include "msgpack/msgpack_writer.h"
#include "read_any.h"
#include "schema/validator.h"

namespace rosetta::codec::schema {
namespace {

// Every event to the validator, then to the writer.
template <class W>
class Tee {
 public:
  Tee(Validator& v, W& w) : v_(v), w_(w) {}
  void ItemStart(uint64_t offset) { v_.ItemStart(offset); }
  bool Null() { return v_.Null() && w_.Null(); }
  bool Undefined() { return v_.Undefined() && w_.Undefined(); }
  bool Bool(bool b) { return v_.Bool(b) && w_.Bool(b); }
  bool Simple(uint8_t s) { return v_.Simple(s) && w_.Simple(s); }
  bool Uint(uint64_t u) { return v_.Uint(u) && w_.Uint(u); }
  bool NegInt(uint64_t n) { return v_.NegInt(n) && w_.NegInt(n); }
  bool Double(double d) { return v_.Double(d) && w_.Double(d); }
  bool Text(std::string_view s) { return v_.Text(s) && w_.Text(s); }
  bool Bytes(std::string_view s) { return v_.Bytes(s) && w_.Bytes(s); }
  bool BeginArray(uint64_t n) { return v_.BeginArray(n) && w_.BeginArray(n); }
  bool EndArray() { return v_.EndArray() && w_.EndArray(); }
  bool BeginMap(uint64_t n) { return v_.BeginMap(n) && w_.BeginMap(n); }
  bool EndMap() { return v_.EndMap() && w_.EndMap(); }
  bool Tag(uint64_t t) { return v_.Tag(t) && w_.Tag(t); }

 private:
  Validator& v_;
  W& w_;
};

template <class W>
bool ReadInto(Context& ctx, Validator& v, const TranscodeRequest& request, OutputBuffer& out) {
  W writer(ctx, out);
  if (!ctx.status.ok()) return false;
  ctx.json_member_names = kIsJsonWriter<W>;
  ctx.tags_kept = kIsCborWriter<W>;
  Tee<W> tee(v, writer);
  return ReadAny(request.from, ctx, tee, request.input, request.input_padding);
}

}  // namespace

bool LoadedSchema::Run(Context& ctx, const TranscodeRequest& request, OutputBuffer* out) const {
  Validator v(ctx, *set_, root_, document_, request.violations, request.max_violations);
  bool read;
  if (out == nullptr) {
    // The instance is what `--to json` would write: integer keys are member names.
    ctx.json_member_names = true;
    ctx.tags_kept = false;
    read = request.from == Format::kCbor && request.options.deterministic
               ? CborReader<Validator, true>(ctx, v).Read(request.input)
               : ReadAny(request.from, ctx, v, request.input, request.input_padding);
  } else {
    switch (request.to) {
      case Format::kJson:
        read = request.options.pretty ? ReadInto<PrettyJsonWriter>(ctx, v, request, *out)
                                      : ReadInto<JsonWriter>(ctx, v, request, *out);
        break;
      case Format::kCbor:
        read = request.options.deterministic
                   ? ReadInto<DeterministicCborWriter>(ctx, v, request, *out)
                   : ReadInto<CborWriter>(ctx, v, request, *out);
        break;
      default:
        read = ReadInto<MsgpackWriter>(ctx, v, request, *out);
        break;
    }
  }
  const bool valid = v.Finish();
  return read && valid;
}

}  // namespace rosetta::codec::schema
