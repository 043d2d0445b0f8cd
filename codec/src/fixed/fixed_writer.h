#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/context.h"
#include "fixed/fixed_layout.h"
#include "memory/budget_vector.h"
#include "rosetta/codec/output.h"
#include "rosetta/codec/sink.h"
#include "text/same_bytes.h"

namespace rosetta::codec {

// Writes one record of a fixed layout from events shaped like the reader's (a map of
// members by json_name or declared name, messages as maps): the record is reserved in
// the output filled with the fields' defaults (FixedLayout::defaults), and each member's
// value is stored at its offset, so an absent member is its default and members may come
// in any order. Integers are range-checked for their field
// (2^40 into int32, -1 into uint32: unrepresentable) and also taken as integral doubles
// and decimal strings; floats from any number or "NaN"/"Infinity"/"-Infinity" (a double
// beyond float's range is unrepresentable; others round to the nearest float); enums by
// name or number (a closed enum only its own numbers); null leaves the member at its default. An
// unknown member is schema_mismatch, or skipped whole with ignore_unknown_fields. The
// output is held (OutputBuffer::Hold) while the record is open. A root array of objects
// is that many records, back to back.
class FixedWriter {
 public:
  // refuse_duplicates: a member given twice (by either of its names) is duplicate_key;
  // the reader is then run without its own key check (allow_duplicate_keys), which only
  // sees names, not fields.
  FixedWriter(Context& ctx, OutputBuffer& out, const FixedLayout& layout, bool refuse_duplicates);

  bool Null() { return Value(Ev{Ev::kNull}); }
  bool Undefined() { return Value(Ev{Ev::kNull}); }
  bool Bool(bool b) { return Value(Ev{Ev::kBool, b}); }
  bool Simple(uint8_t) { return Value(Ev{Ev::kOther}); }
  bool Uint(uint64_t v) { return Value(Ev{Ev::kUint, v}); }
  bool NegInt(uint64_t n) { return Value(Ev{Ev::kNegInt, n}); }
  // A number into a float or double field (a mesh's every value) is stored here; what
  // needs a check or a message (a float beyond float's range, a NaN or infinity, any
  // other field kind) goes through Value.
  bool Double(double d) {
    if (due_ != nullptr && !skipping_) [[likely]] {
      char* const p = out_.data() + record_ + due_->offset;
      if (due_->kind == FixedKind::kFloat) {
        const auto f = static_cast<float>(d);
        if (std::isfinite(f)) [[likely]] {
          std::memcpy(p, &f, 4);
          Done();
          return true;
        }
      } else if (due_->kind == FixedKind::kDouble && std::isfinite(d)) {
        std::memcpy(p, &d, 8);
        Done();
        return true;
      }
    }
    return Value(Ev{Ev::kDouble, 0, d});
  }
  // A member name that is the next field of the open message, in declaration order (the
  // usual case) and not a message itself, is taken here; anything else in TextSlow.
  bool Text(std::string_view s) {
    if (due_ == nullptr && !skipping_ && !levels_.empty()) [[likely]] {
      Level& level = levels_.back();
      const FixedStep* const steps = layout_.steps.data();
      const uint32_t i = level.next;
      if (i < steps[level.begin].end && steps[i].kind != FixedKind::kBegin &&
          SameBytes(steps[i].key, s) && !(refuse_duplicates_ && seen_[i])) {
        if (refuse_duplicates_) seen_[i] = 1;
        level.next = i + 1;
        due_ = &steps[i];
        return true;
      }
    }
    return TextSlow(s);
  }
  bool Bytes(std::string_view) { return Value(Ev{Ev::kOther}); }
  bool BeginArray(uint64_t);
  bool EndArray();
  bool BeginMap(uint64_t);
  bool EndMap();
  bool Tag(uint64_t) { return true; }  // tags carry no meaning here: the item is kept

 private:
  struct Ev {
    enum Kind : uint8_t { kNull, kBool, kUint, kNegInt, kDouble, kText, kOther };
    Kind kind;
    uint64_t u = 0;
    double d = 0;
    std::string_view s = {};
  };
  struct Level {
    uint32_t begin;  // the message's kBegin step
    uint32_t next;   // the member step expected next (the usual order)
  };

  bool TextSlow(std::string_view s);
  bool Value(const Ev& ev);
  bool Store(const FixedStep& s, const Ev& ev);
  bool Integer(const FixedStep& s, const Ev& ev, int64_t min, uint64_t max, uint64_t* raw);
  bool Floating(const FixedStep& s, const Ev& ev, double* d);
  // The member step of the open message named `key`, or null.
  const FixedStep* Member(Level& level, std::string_view key);
  // The value of a member is done: a key is due again.
  void Done() { due_ = nullptr; }
  [[gnu::cold]] bool Mismatch(std::string message) {
    return ctx_.Fail(ErrorCode::kSchemaMismatch, std::move(message));
  }
  [[gnu::cold]] bool Unrepresentable(std::string message) {
    return ctx_.Fail(ErrorCode::kUnrepresentable, std::move(message));
  }
  [[gnu::cold]] bool OutputFull();

  Context& ctx_;
  OutputBuffer& out_;
  const FixedLayout& layout_;
  BudgetVector<Level, 8> levels_;
  std::vector<uint8_t> seen_;  // per step of the layout: given in the open record
  const bool refuse_duplicates_;
  uint64_t record_ = 0;             // where the open record starts in the output
  const FixedStep* due_ = nullptr;  // the member whose value is due (null: a key is due)
  bool skipping_ = false;           // an unknown member's value is being skipped
  uint32_t skip_depth_ = 0;         // containers open inside it
  bool done_ = false;               // the record (or the array of records) is complete
  bool array_ = false;              // the root is an array: each element a record
};

}  // namespace rosetta::codec
