#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "common/reader_state.h"
#include "common/scratch.h"
#include "json/json_number.h"
#include "json/json_scalar_reader.h"
#include "rosetta/codec/sink.h"

namespace rosetta::codec {

namespace ondemand = simdjson::ondemand;

// The per-thread simdjson parser: its buffers are reused from request to request.
ondemand::parser& ThreadJsonParser();
// Memory the parser works in for n bytes of input, charged to each JSON request.
inline uint64_t JsonParserBytes(size_t n) { return uint64_t{n} * 6 + 4096; }

// The contents of a JSON string that starts at p (after its opening quote) when it has no
// escapes: then its bytes in the input are its value, and simdjson's copy into its string
// buffer is not needed. False when a backslash comes before the closing quote. Only for
// strings simdjson's first stage has checked (closed, UTF-8, no raw control characters),
// in padded input: it reads whole words, up to 7 bytes past the closing quote.
inline bool RawJsonString(const char* p, std::string_view* s) {
  static_assert(std::endian::native == std::endian::little, "bytes are found by their place in a little-endian word");
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  for (const char* q = p;; q += 8) {
    uint64_t w;
    std::memcpy(&w, q, 8);
    const uint64_t quote = w ^ (kOnes * '"'), slash = w ^ (kOnes * '\\');
    // A zero byte's high bit: exact for the lowest one, which is all that is used.
    const uint64_t at_quote = (quote - kOnes) & ~quote & kHigh;
    const uint64_t at_slash = (slash - kOnes) & ~slash & kHigh;
    if ((at_quote | at_slash) == 0) continue;
    if (at_slash != 0 && (at_quote == 0 || std::countr_zero(at_slash) < std::countr_zero(at_quote))) return false;
    *s = {p, static_cast<size_t>(q - p) + (std::countr_zero(at_quote) >> 3)};
    return true;
  }
}

// Reads JSON (RFC 8259) on simdjson's On-Demand API, which validates UTF-8 and finds the
// structure with SIMD, and drives a sink directly from it: no tree, no tape. Depth,
// duplicate keys, exact integers and limits are ours (ReaderState, ScanJsonNumber).
// simdjson reports a malformed document without a usable location, so then the input is
// read again by JsonScalarReader, on the cold path, for the exact code, offset and path.
template <Sink S>
class JsonReader {
 public:
  JsonReader(Context& ctx, S& sink) : ctx_(ctx), st_(ctx), sink_(sink), scratch_(ctx), levels_(ctx) {}

  // `padding` readable bytes must follow the input (simdjson reads ahead): at least
  // SIMDJSON_PADDING, else the caller copies.
  bool Read(std::string_view input, size_t padding);

 private:
  struct Level {
    ondemand::array_iterator array;
    ondemand::object_iterator object;
    bool is_map;
    bool started;
  };

  // Malformed per simdjson: find out exactly where and why.
  [[gnu::cold]] bool Malformed(simdjson::error_code error);
  // A sink or limit error at the current position.
  [[gnu::cold]] bool FailHere() {
    st_.Locate(Offset());
    return false;
  }
  // A sink or limit error at the item that starts at `at` (simdjson's current location is
  // already past a scalar it has read).
  [[gnu::cold]] bool FailAt(const char* at) {
    if (!ctx_.located && at >= input_.data() && at <= input_.data() + input_.size()) {
      ctx_.status.offset = static_cast<uint64_t>(at - input_.data());
      ctx_.located = true;
    }
    return FailHere();
  }
  // By value: taking the hot path's value by address would keep it in memory (measured: JSON
  // reading 35-45% slower).
  [[gnu::cold, gnu::noinline]] bool FailAt(ondemand::value value) { return FailAt(value.raw_json_token().data()); }
  // A sink error at a container's close: simdjson is already past its ']' or '}'.
  [[gnu::cold]] bool CloseFailed() {
    uint64_t at = Offset();
    while (at > 0 && (input_[at - 1] == ' ' || input_[at - 1] == '\n' || input_[at - 1] == '\r' || input_[at - 1] == '\t')) --at;
    if (at > 0 && (input_[at - 1] == ']' || input_[at - 1] == '}')) --at;
    return FailAt(input_.data() + at);
  }
  // st_.Open was given no offset (it is known only here, on the failure path).
  [[gnu::cold, gnu::noinline]] bool OpenFailed(ondemand::value value) {
    ctx_.located = false;
    return FailAt(value);
  }
  [[gnu::cold]] uint64_t Offset() {
    const char* loc = nullptr;
    if (doc_ != nullptr && !doc_->current_location().get(loc) && loc >= input_.data() &&
        loc <= input_.data() + input_.size()) {
      return static_cast<uint64_t>(loc - input_.data());
    }
    return input_.size();
  }
  // Inlined into Read: passed as an argument, the 24-byte value went through the stack,
  // written in pieces and read back whole, a store-forwarding stall on every value
  // (measured: a quarter of JSON -> CBOR on citm_catalog).
  [[gnu::always_inline]] bool Value(ondemand::value value);
  bool Number(ondemand::value value);

  Context& ctx_;
  ReaderState st_;
  S& sink_;
  Scratch scratch_;
  BudgetVector<Level, 32> levels_;
  std::string_view input_;
  ondemand::document* doc_ = nullptr;
};

template <Sink S>
bool JsonReader<S>::Malformed(simdjson::error_code error) {
  // Re-read from scratch under the same limits, into no sink, for the real location.
  Context probe(ctx_.limits, ctx_.options);
  NullSink null;
  JsonScalarReader<NullSink> scalar(probe, null);
  if (!scalar.Read(input_)) {
    ctx_.status = probe.status;
    ctx_.located = true;
    return false;
  }
  ErrorCode code = error == simdjson::UTF8_ERROR ? ErrorCode::kInvalidUtf8
                   : error == simdjson::DEPTH_ERROR ? ErrorCode::kDepthExceeded
                   : error == simdjson::CAPACITY ? ErrorCode::kInputTooLarge
                                                 : ErrorCode::kSyntax;
  ctx_.FailAt(code, Offset(), std::string("malformed JSON: ") + simdjson::error_message(error));
  st_.Locate(ctx_.status.offset);
  return false;
}

template <Sink S>
bool JsonReader<S>::Number(ondemand::value value) {
  ondemand::number n;
  if (!value.get_number().get(n)) [[likely]] {
    switch (n.get_number_type()) {
      case ondemand::number_type::signed_integer: {
        int64_t v = n.get_int64();
        return v >= 0 ? sink_.Uint(static_cast<uint64_t>(v)) : sink_.NegInt(~static_cast<uint64_t>(v));
      }
      case ondemand::number_type::unsigned_integer:
        return sink_.Uint(n.get_uint64());
      default:
        // simdjson 3.0.1's get_number() gives 0.0 for decimals of 19 or more significant
        // digits (simdjson issue #2099): a zero is read again by our exact scanner below.
        if (n.get_double() != 0.0) [[likely]] return sink_.Double(n.get_double());
    }
  }
  // Out of simdjson's 64-bit range (bignums, -2^64..-2^63-1, doubles past DBL_MAX) or
  // malformed: our exact scanner decides.
  std::string_view token = value.raw_json_token();
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' || token.back() == '\t')) {
    token.remove_suffix(1);
  }
  size_t len = 0;
  JsonNumber num;
  NumberScan scan = ScanJsonNumber(token.data(), token.data() + token.size(), &len, &num, scratch_);
  if (scan == NumberScan::kNoBudget) return FailHere();
  if (scan != NumberScan::kOk || len != token.size()) return Malformed(simdjson::NUMBER_ERROR);
  switch (num.kind) {
    case JsonNumber::kUint: return sink_.Uint(num.u);
    case JsonNumber::kNegInt: return sink_.NegInt(num.u);
    case JsonNumber::kDouble: return sink_.Double(num.d);
    default: return sink_.Tag(num.negative ? kTagNegativeBignum : kTagPositiveBignum) && sink_.Bytes(num.bignum);
  }
}

// One value: a scalar goes to the sink; a container is opened and pushed.
template <Sink S>
inline bool JsonReader<S>::Value(ondemand::value value) {
  ondemand::json_type type;
  if (auto e = value.type().get(type)) [[unlikely]] return Malformed(e);
  switch (type) {
    case ondemand::json_type::array: {
      ondemand::array array;
      if (auto e = value.get_array().get(array)) [[unlikely]] return Malformed(e);
      if (!st_.Open(false, kUnknownLength, 0)) return OpenFailed(value);
      if (!sink_.BeginArray(kUnknownLength)) {
        st_.Close();  // the error's path is the container's own
        return FailAt(value);
      }
      ondemand::array_iterator it;
      if (auto e = array.begin().get(it)) [[unlikely]] return Malformed(e);
      if (!levels_.Push(Level{it, {}, false, false})) return FailAt(value);
      return true;
    }
    case ondemand::json_type::object: {
      ondemand::object object;
      if (auto e = value.get_object().get(object)) [[unlikely]] return Malformed(e);
      if (!st_.Open(true, kUnknownLength, 0)) return OpenFailed(value);
      if (!sink_.BeginMap(kUnknownLength)) {
        st_.Close();  // the error's path is the container's own
        return FailAt(value);
      }
      ondemand::object_iterator it;
      if (auto e = object.begin().get(it)) [[unlikely]] return Malformed(e);
      if (!levels_.Push(Level{{}, it, true, false})) return FailAt(value);
      return true;
    }
    case ondemand::json_type::number:
      if (!Number(value)) return ctx_.status.ok() ? Malformed(simdjson::NUMBER_ERROR) : FailAt(value);
      return true;
    case ondemand::json_type::string: {
      std::string_view s;
      if (auto e = value.get_string().get(s)) [[unlikely]] return Malformed(e);
      if (s.size() > ctx_.limits.max_string_bytes) [[unlikely]] return Malformed(simdjson::STRING_ERROR);
      if (!sink_.Text(s)) return FailAt(value);
      return true;
    }
    case ondemand::json_type::boolean: {
      bool b;
      if (auto e = value.get_bool().get(b)) [[unlikely]] return Malformed(e);
      if (!sink_.Bool(b)) return FailAt(value);
      return true;
    }
    default: {
      bool is_null;
      if (auto e = value.is_null().get(is_null)) [[unlikely]] return Malformed(e);
      if (!is_null) [[unlikely]] return Malformed(simdjson::N_ATOM_ERROR);
      if (!sink_.Null()) return FailAt(value);
      return true;
    }
  }
}

template <Sink S>
bool JsonReader<S>::Read(std::string_view input, size_t padding) {
  input_ = input;
  size_t i = 0;
  while (i < input.size() && (input[i] == ' ' || input[i] == '\n' || input[i] == '\r' || input[i] == '\t')) ++i;
  if (i == input.size() || (input[i] != '[' && input[i] != '{')) {
    // A scalar at the root (or nothing): simdjson would copy it anyway; read it directly.
    JsonScalarReader<S> scalar(ctx_, sink_);
    return scalar.Read(input);
  }
  if (!ctx_.budget.Charge(JsonParserBytes(input.size()))) {
    ctx_.BudgetExceeded(JsonParserBytes(input.size()));
    st_.Locate(0);  // refused before the first byte is read
    return false;
  }
  ondemand::parser& parser = ThreadJsonParser();
  if (parser.max_depth() < ctx_.limits.max_depth + 1u) {
    if (parser.allocate(input.size(), ctx_.limits.max_depth + 1u)) return Malformed(simdjson::MEMALLOC);
  }
  ondemand::document doc;
  if (auto e = parser.iterate(input.data(), input.size(), input.size() + padding).get(doc)) return Malformed(e);
  doc_ = &doc;
  ondemand::value root;
  if (auto e = doc.get_value().get(root)) return Malformed(e);
  if (!Value(root)) return false;
  const Limits& limits = ctx_.limits;
  while (!levels_.empty()) {
    // `level` and `f` are not used after Value(), which may grow both stacks.
    Level& level = levels_.back();
    Frame& f = st_.top();
    const size_t depth = levels_.size();
    bool more;
    ondemand::value value;
    if (level.is_map) {
      if (level.started) ++level.object;
      level.started = true;
      more = level.object != level.object;  // is_open(): the other operand is ignored
      if (more) {
        ondemand::field field;
        if (auto e = (*level.object).get(field)) [[unlikely]] return Malformed(e);
        std::string_view key;
        // Where the key starts, taken before unescaped_key() consumes it (field.key() is
        // undefined afterwards: simdjson assumes a live key).
        const char* key_at = reinterpret_cast<const char*>(field.key().raw()) - 1;
        if (!RawJsonString(key_at + 1, &key)) {  // it has escapes: simdjson unescapes it
          if (auto e = field.unescaped_key().get(key)) [[unlikely]] return Malformed(e);
        }
        if (key.size() > limits.max_string_bytes) [[unlikely]] return Malformed(simdjson::STRING_ERROR);
        if (f.index >= limits.max_items * 2) [[unlikely]] return Malformed(simdjson::TAPE_ERROR);
        if (!sink_.Text(key)) [[unlikely]] {
          ++f.index;  // the path names the member the sink refused
          st_.SetKey(KeyKind::kText, key, 0);
          return FailAt(key_at);
        }
        ++f.index;
        if (!st_.Key(KeyKind::kText, key, 0, 0)) {
          // A duplicate is located by the exact re-read; running out of budget is not.
          return ctx_.status.code == ErrorCode::kDuplicateKey ? Malformed(simdjson::TAPE_ERROR) : FailAt(key_at);
        }
        value = field.value();
      }
    } else {
      if (level.started) ++level.array;
      level.started = true;
      more = level.array != level.array;
      if (more) {
        if (auto e = (*level.array).get(value)) [[unlikely]] return Malformed(e);
        if (f.index >= limits.max_items) [[unlikely]] return Malformed(simdjson::TAPE_ERROR);
      }
    }
    if (more) {
      if (!Value(value)) return false;
      if (levels_.size() == depth) ++st_.top().index;  // a scalar: complete now
      continue;
    }
    const bool is_map = level.is_map;
    levels_.Pop();
    st_.Close();
    if (!(is_map ? sink_.EndMap() : sink_.EndArray())) return CloseFailed();
    if (!st_.empty()) ++st_.top().index;
  }
  const char* rest;
  if (doc.current_location().get(rest) != simdjson::OUT_OF_BOUNDS) return Malformed(simdjson::TRAILING_CONTENT);
  return true;
}

}  // namespace rosetta::codec
