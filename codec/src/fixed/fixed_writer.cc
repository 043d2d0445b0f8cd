#include "fixed/fixed_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <google/protobuf/descriptor.h>

namespace rosetta::codec {

FixedWriter::FixedWriter(Context& ctx, OutputBuffer& out, const FixedLayout& layout,
                         bool refuse_duplicates)
    : ctx_(ctx),
      out_(out),
      layout_(layout),
      levels_(ctx),
      seen_(refuse_duplicates ? layout.steps.size() : 0),
      refuse_duplicates_(refuse_duplicates) {}

bool FixedWriter::OutputFull() {
  if (out_.over_limit()) {
    return ctx_.Fail(ErrorCode::kOutputTooLarge, "output would pass max_output_bytes " +
                                                     std::to_string(ctx_.limits.max_output_bytes));
  }
  return ctx_.BudgetExceeded(out_.capacity());
}

const FixedStep* FixedWriter::Member(Level& level, std::string_view key) {
  const FixedStep* steps = layout_.steps.data();
  const uint32_t end = steps[level.begin].end;
  auto after = [&](uint32_t i) {
    return steps[i].kind == FixedKind::kBegin ? steps[i].end + 1 : i + 1;
  };
  auto matches = [&](const FixedStep& s) {
    return SameBytes(s.key, key) || SameBytes(s.field->name, key);
  };
  if (level.next < end && matches(steps[level.next])) [[likely]] {
    const uint32_t i = level.next;
    level.next = after(i);
    return &steps[i];
  }
  for (uint32_t i = level.begin + 1; i < end; i = after(i)) {
    if (matches(steps[i])) {
      level.next = after(i);
      return &steps[i];
    }
  }
  return nullptr;
}

bool FixedWriter::BeginMap(uint64_t) {
  if (skipping_) {
    ++skip_depth_;
    return true;
  }
  if (levels_.empty()) {  // a record
    if (done_) return Mismatch("a fixed record is one object (or an array of them)");
    const uint32_t size = layout_.size;
    if (!out_.Ensure(size)) return OutputFull();
    out_.Hold();  // members are stored at their offsets as they come
    record_ = out_.size();
    std::memcpy(out_.cursor(), layout_.defaults.data(), size);  // absent members: defaults
    if (refuse_duplicates_) std::memset(seen_.data(), 0, seen_.size());
    out_.Advance(size);
    return levels_.Push(Level{0, 1});
  }
  if (due_ == nullptr) return Mismatch("a map as a member name");
  if (due_->kind != FixedKind::kBegin)
    return Mismatch("field " + due_->field->name + " is not a message");
  const auto begin = static_cast<uint32_t>(due_ - layout_.steps.data());
  Done();
  return levels_.Push(Level{begin, begin + 1});
}

bool FixedWriter::EndMap() {
  if (skipping_) {
    if (--skip_depth_ == 0) skipping_ = false;
    return true;
  }
  levels_.Pop();
  if (levels_.empty()) {
    out_.Release();
    done_ = !array_;
  }
  return true;
}

bool FixedWriter::BeginArray(uint64_t) {
  if (skipping_) {
    ++skip_depth_;
    return true;
  }
  if (levels_.empty()) {
    if (array_ || done_) return Mismatch("an array in an array of records");
    array_ = true;  // records back to back
    return true;
  }
  if (due_ == nullptr) return Mismatch("an array as a member name");
  return Mismatch("field " + due_->field->name + " is not repeated: an array has no fixed size");
}

bool FixedWriter::EndArray() {
  if (!skipping_) {  // the root array of records
    array_ = false;
    done_ = true;
    return true;
  }
  if (--skip_depth_ == 0) skipping_ = false;
  return true;
}

bool FixedWriter::TextSlow(std::string_view s) {
  if (skipping_ || levels_.empty() || due_ != nullptr) return Value(Ev{Ev::kText, 0, 0, s});
  // A member name.
  Level& level = levels_.back();
  if (const FixedStep* step = Member(level, s)) [[likely]] {
    if (refuse_duplicates_) {
      uint8_t& seen = seen_[static_cast<size_t>(step - layout_.steps.data())];
      if (seen) [[unlikely]]
        return ctx_.Fail(ErrorCode::kDuplicateKey, "duplicate member \"" + std::string(s) +
                                                       "\" (field " + step->field->name + ")");
      seen = 1;
    }
    due_ = step;
    return true;
  }
  if (ctx_.options.ignore_unknown_fields) {
    skipping_ = true;
    skip_depth_ = 0;
    return true;
  }
  return Mismatch("no field \"" + std::string(s) + "\" in " +
                  layout_.steps[level.begin].message->full_name);
}

bool FixedWriter::Value(const Ev& ev) {
  if (skipping_) {
    if (skip_depth_ == 0) skipping_ = false;  // a scalar: the whole skipped value
    return true;
  }
  if (levels_.empty())
    return Mismatch("a fixed record is read from an object (or an array of them)");
  if (due_ == nullptr) {
    if (ev.kind == Ev::kUint || ev.kind == Ev::kNegInt)
      return Mismatch("an integer as a member name");
    return Mismatch("a member name must be text");
  }
  const FixedStep& s = *due_;
  Done();
  if (ev.kind == Ev::kNull) return true;  // the member stays zero
  if (s.kind == FixedKind::kBegin) return Mismatch("field " + s.field->name + " is a message");
  return Store(s, ev);
}

bool FixedWriter::Integer(const FixedStep& s, const Ev& ev, int64_t min, uint64_t max,
                          uint64_t* raw) {
  bool negative = false;
  uint64_t magnitude = 0;
  switch (ev.kind) {
    case Ev::kUint:
      magnitude = ev.u;
      break;
    case Ev::kNegInt:
      negative = true;
      if (ev.u == UINT64_MAX) return Unrepresentable("-2^64 does not fit field " + s.field->name);
      magnitude = ev.u + 1;
      break;
    case Ev::kDouble:
    case Ev::kText: {
      double d = ev.d;
      if (ev.kind == Ev::kText) {  // decimal integers as strings, as proto3 JSON writes them
        std::string_view t = ev.s;
        negative = !t.empty() && t.front() == '-';
        std::string_view digits = negative ? t.substr(1) : t;
        auto r = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
        if (r.ec == std::errc() && r.ptr == digits.data() + digits.size() && !digits.empty()) break;
        return Mismatch("\"" + std::string(t) + "\" is not an integer for field " + s.field->name);
      }
      if (!std::isfinite(d) || d != std::trunc(d))
        return Mismatch("not an integer for field " + s.field->name);
      if (d >= 18446744073709551616.0 || d <= -9223372036854775809.0)
        return Unrepresentable(std::to_string(d) + " does not fit field " + s.field->name);
      negative = d < 0;
      magnitude = negative ? static_cast<uint64_t>(-(d + 1)) + 1 : static_cast<uint64_t>(d);
      break;
    }
    default:
      return Mismatch("field " + s.field->name + " needs a number");
  }
  if (negative && magnitude != 0) {
    if (min == 0 || magnitude - 1 > static_cast<uint64_t>(-(min + 1))) {
      return Unrepresentable("-" + std::to_string(magnitude) + " does not fit field " +
                             s.field->name);
    }
    *raw = ~(magnitude - 1);
  } else {
    if (magnitude > max)
      return Unrepresentable(std::to_string(magnitude) + " does not fit field " + s.field->name);
    *raw = magnitude;
  }
  return true;
}

bool FixedWriter::Floating(const FixedStep& s, const Ev& ev, double* d) {
  switch (ev.kind) {
    case Ev::kUint:
      *d = static_cast<double>(ev.u);
      return true;
    case Ev::kNegInt:
      *d = -1.0 - static_cast<double>(ev.u);
      return true;
    case Ev::kDouble:
      *d = ev.d;
      return true;
    case Ev::kText:
      if (ev.s == "NaN") {
        *d = std::numeric_limits<double>::quiet_NaN();
      } else if (ev.s == "Infinity") {
        *d = std::numeric_limits<double>::infinity();
      } else if (ev.s == "-Infinity") {
        *d = -std::numeric_limits<double>::infinity();
      } else {
        auto r = std::from_chars(ev.s.data(), ev.s.data() + ev.s.size(), *d);
        if (r.ec != std::errc() || r.ptr != ev.s.data() + ev.s.size())
          return Mismatch("\"" + std::string(ev.s) + "\" is not a number for field " +
                          s.field->name);
      }
      return true;
    default:
      return Mismatch("field " + s.field->name + " needs a number");
  }
}

bool FixedWriter::Store(const FixedStep& s, const Ev& ev) {
  char* p = out_.data() + record_ + s.offset;
  uint64_t raw = 0;
  switch (s.kind) {
    case FixedKind::kBool:
      if (ev.kind != Ev::kBool) return Mismatch("field " + s.field->name + " needs true or false");
      *p = static_cast<char>(ev.u);
      return true;
    case FixedKind::kInt32: {
      if (!Integer(s, ev, INT32_MIN, INT32_MAX, &raw)) return false;
      const auto v = static_cast<uint32_t>(raw);
      std::memcpy(p, &v, 4);
      return true;
    }
    case FixedKind::kUint32: {
      if (!Integer(s, ev, 0, UINT32_MAX, &raw)) return false;
      const auto v = static_cast<uint32_t>(raw);
      std::memcpy(p, &v, 4);
      return true;
    }
    case FixedKind::kInt64:
      if (!Integer(s, ev, INT64_MIN, INT64_MAX, &raw)) return false;
      std::memcpy(p, &raw, 8);
      return true;
    case FixedKind::kUint64:
      if (!Integer(s, ev, 0, UINT64_MAX, &raw)) return false;
      std::memcpy(p, &raw, 8);
      return true;
    case FixedKind::kFloat: {
      double d;
      if (!Floating(s, ev, &d)) return false;
      const auto f = static_cast<float>(d);
      if (std::isfinite(d) && !std::isfinite(f))
        return Unrepresentable(std::to_string(d) + " is beyond float field " + s.field->name);
      std::memcpy(p, &f, 4);
      return true;
    }
    case FixedKind::kDouble: {
      double d;
      if (!Floating(s, ev, &d)) return false;
      std::memcpy(p, &d, 8);
      return true;
    }
    case FixedKind::kEnum: {
      int32_t number;
      if (ev.kind == Ev::kText) {
        // The names the layout keeps (one per number) first; an alias, or an enum whose
        // numbers are too spread out for that table, in the descriptor.
        size_t i = 0;
        while (i < s.enum_names.size() &&
               (s.enum_names[i].empty() || !SameBytes(s.enum_names[i], ev.s)))
          ++i;
        if (i < s.enum_names.size()) {
          number = static_cast<int32_t>(int64_t{s.enum_min} + static_cast<int64_t>(i));
        } else {
          const auto* value = s.enum_info->descriptor->FindValueByName(std::string(ev.s));
          if (value == nullptr) {
            return Mismatch("\"" + std::string(ev.s) + "\" is not a value of enum " +
                            s.enum_info->descriptor->full_name());
          }
          number = value->number();
        }
      } else {
        if (!Integer(s, ev, INT32_MIN, INT32_MAX, &raw)) return false;
        number = static_cast<int32_t>(static_cast<uint32_t>(raw));
        if (s.closed_enum && s.enum_info->descriptor->FindValueByNumber(number) == nullptr) {
          return Mismatch(std::to_string(number) + " is not a value of enum " +
                          s.enum_info->descriptor->full_name());
        }
      }
      std::memcpy(p, &number, 4);
      return true;
    }
    default:
      return Mismatch("field " + s.field->name + " is a message");
  }
}

}  // namespace rosetta::codec
