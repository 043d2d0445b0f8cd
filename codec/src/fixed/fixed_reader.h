#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/context.h"
#include "fixed/fixed_layout.h"
#include "rosetta/codec/sink.h"

namespace rosetta::codec {

namespace fixed_detail {

template <class T>
inline T Load(const uint8_t* p) {
  static_assert(std::endian::native == std::endian::little,
                "a fixed record is little-endian, read as it lies");
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// "/position/label": the JSON Pointer of step i of a layout (its members' keys).
std::string PathTo(const FixedLayout& layout, size_t i);

// Whether the bytes of a record are a value of the type: a bool is 0 or 1 and a closed
// enum's number is one it defines (everything else any bytes can hold). Null when they
// are, else the step that breaks it.
const FixedStep* CheckRecord(const FixedLayout& layout, const uint8_t* p);

// The refusal of step s's bytes (CheckRecord's find) in a record at `at`.
Status BadValue(const FixedLayout& layout, const FixedStep& s, const uint8_t* record, uint64_t at);

}  // namespace fixed_detail

// Reads records of a fixed layout into a sink: the layout's steps run in order over the
// record's bytes (the compiled plan: an offset and a kind per step, no descriptor
// lookups), a message as a map of its fields' json_names, every field present. 64-bit
// integers are numbers (Uint / NegInt), floats Double (or the sink's Float when it has
// one: the JSON writer writes a float's own shortest text), enums their name (a number the
// type does not name: the number, in an open enum). A bool other than 0 or 1, or a
// number a closed enum does not define, is refused (schema_mismatch) at its byte.
template <Sink S>
class FixedReader {
 public:
  FixedReader(Context& ctx, S& sink, const FixedLayout& layout)
      : ctx_(ctx), sink_(sink), layout_(layout) {}

  // Checks the layout against the request's limits (max_depth, max_items) once.
  bool Limits() {
    if (layout_.depth > ctx_.limits.max_depth) {
      return Fail(ErrorCode::kDepthExceeded, 0,
                  "the record nests " + std::to_string(layout_.depth) +
                      " messages, deeper than max_depth " + std::to_string(ctx_.limits.max_depth));
    }
    if (layout_.items > ctx_.limits.max_items) {
      return Fail(ErrorCode::kTooManyItems, 0,
                  "a record is " + std::to_string(layout_.items) + " items, more than max_items " +
                      std::to_string(ctx_.limits.max_items));
    }
    return true;
  }

  // One record at p (layout.size bytes) starting at input offset `at`.
  bool Record(const uint8_t* p, uint64_t at) {
    const FixedStep* const steps = layout_.steps.data();
    const size_t n = layout_.steps.size();
    for (size_t i = 0; i < n; ++i) {
      const FixedStep& s = steps[i];
      if (!s.key.empty() && !Key(s.key)) [[unlikely]]
        return SinkFailed(i, at);
      bool ok;
      switch (s.kind) {
        case FixedKind::kBegin:
          ok = sink_.BeginMap(s.fields);
          break;
        case FixedKind::kEnd:
          ok = sink_.EndMap();
          break;
        case FixedKind::kBool: {
          const uint8_t b = p[s.offset];
          if (b > 1) [[unlikely]]
            return Bad(s, p, at);
          ok = sink_.Bool(b != 0);
          break;
        }
        case FixedKind::kInt32:
          ok = Signed(fixed_detail::Load<int32_t>(p + s.offset));
          break;
        case FixedKind::kUint32:
          ok = sink_.Uint(fixed_detail::Load<uint32_t>(p + s.offset));
          break;
        case FixedKind::kInt64:
          ok = Signed(fixed_detail::Load<int64_t>(p + s.offset));
          break;
        case FixedKind::kUint64:
          ok = sink_.Uint(fixed_detail::Load<uint64_t>(p + s.offset));
          break;
        case FixedKind::kFloat: {
          const float f = fixed_detail::Load<float>(p + s.offset);
          if constexpr (requires { sink_.Float(f); }) {
            ok = sink_.Float(f);
          } else {
            ok = sink_.Double(f);
          }
          break;
        }
        case FixedKind::kDouble:
          ok = sink_.Double(fixed_detail::Load<double>(p + s.offset));
          break;
        case FixedKind::kEnum: {
          const int32_t v = fixed_detail::Load<int32_t>(p + s.offset);
          if (s.enum_info->is_null_value) {
            ok = sink_.Null();
            break;
          }
          if (const std::string_view* name = s.EnumName(v)) {
            ok = sink_.Text(*name);
          } else if (s.closed_enum) [[unlikely]] {
            return Bad(s, p, at);
          } else {
            ok = Signed(v);
          }
          break;
        }
        default:
          ok = false;
      }
      if (!ok) [[unlikely]]
        return SinkFailed(i, at);
    }
    return true;
  }

 private:
  bool Key(std::string_view key) {
    if constexpr (requires { sink_.VerbatimText(key); }) {
      return sink_.VerbatimText(key);  // a json_name: letters, digits and '_' only
    } else {
      return sink_.Text(key);
    }
  }
  bool Signed(int64_t v) {
    return v >= 0 ? sink_.Uint(static_cast<uint64_t>(v)) : sink_.NegInt(~static_cast<uint64_t>(v));
  }
  [[gnu::cold]] bool Fail(ErrorCode code, uint64_t at, std::string message) {
    return ctx_.FailAt(code, at, std::move(message));
  }
  [[gnu::cold, gnu::noinline]] bool Bad(const FixedStep& s, const uint8_t* p, uint64_t at) {
    Status st = fixed_detail::BadValue(layout_, s, p, at);
    ctx_.FailAt(st.code, st.offset, std::move(st.message));
    ctx_.status.path = std::move(st.path);
    return false;
  }
  // The sink refused step i (its own error is in ctx_.status): located at the step.
  [[gnu::cold, gnu::noinline]] bool SinkFailed(size_t i, uint64_t at) {
    if (!ctx_.located) {
      const FixedStep& s = layout_.steps[i];
      ctx_.status.offset =
          at + (s.kind == FixedKind::kBegin || s.kind == FixedKind::kEnd ? 0 : s.offset);
      ctx_.status.path = fixed_detail::PathTo(layout_, i);
      ctx_.located = true;
    }
    return false;
  }

  Context& ctx_;
  S& sink_;
  const FixedLayout& layout_;
};

}  // namespace rosetta::codec
