#include "protobuf/protobuf_writer.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "cbor/cbor_reader.h"
#include "cbor/cbor_writer.h"
#include "protobuf/protobuf_wkt.h"

namespace rosetta::codec {

namespace {

using T = google::protobuf::FieldDescriptor;

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

char* PutVarintAt(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

bool IsSigned(T::Type t) {
  return t == T::TYPE_INT32 || t == T::TYPE_INT64 || t == T::TYPE_SINT32 || t == T::TYPE_SINT64 ||
         t == T::TYPE_SFIXED32 || t == T::TYPE_SFIXED64 || t == T::TYPE_ENUM;
}
// Marks "the value of an Any of a well-known type is due" (Empty has no field to point to).
const FieldInfo kAnyValueDue{};

bool Is32(T::Type t) {
  return t == T::TYPE_INT32 || t == T::TYPE_UINT32 || t == T::TYPE_SINT32 || t == T::TYPE_FIXED32 ||
         t == T::TYPE_SFIXED32 || t == T::TYPE_ENUM;
}

}  // namespace

// Members of an Any buffered until its "@type" is known.
struct ProtobufWriter::AnyBuffer {
  explicit AnyBuffer(Context& ctx) : writer(ctx, out) {}
  OutputBuffer out;
  CborWriter writer;
  uint32_t depth = 0;
};

ProtobufWriter::ProtobufWriter(Context& ctx, OutputBuffer& out, const Schema* schema,
                               const MessageInfo& root)
    : ctx_(ctx), out_(out), schema_(schema), root_(root), levels_(ctx) {}

ProtobufWriter::~ProtobufWriter() = default;

bool ProtobufWriter::OutputFull() {
  if (out_.over_limit()) {
    return ctx_.Fail(ErrorCode::kOutputTooLarge, "output would pass max_output_bytes " +
                                                     std::to_string(ctx_.limits.max_output_bytes));
  }
  return ctx_.BudgetExceeded(out_.capacity());
}

bool ProtobufWriter::Push(Level level) {
  if (levels_.size() >= ctx_.limits.max_depth) {
    return ctx_.Fail(ErrorCode::kDepthExceeded, "writer: nesting deeper than max_depth " +
                                                    std::to_string(ctx_.limits.max_depth));
  }
  return levels_.Push(level);
}

// The slot reserved one byte; a length of 128 or more needs a longer varint, so the
// content moves up by the difference.
bool ProtobufWriter::Fill(uint64_t slot) {
  const uint64_t len = out_.size() - slot - 1;
  if (len < 0x80) [[likely]] {
    out_.data()[slot] = static_cast<char>(len);
    return true;
  }
  const size_t n = VarintSize(len);
  if (!Room(n - 1)) return false;
  char* base = out_.data();
  std::memmove(base + slot + n, base + slot + 1, len);
  PutVarintAt(base + slot, len);
  out_.Resize(out_.size() + n - 1);
  return true;
}

bool ProtobufWriter::Tag(uint64_t tag) {
  if (tag != kTagPositiveBignum && tag != kTagNegativeBignum) return true;
  if (!levels_.empty() && levels_.back().mode == Mode::kAnyBuffer)
    return any_buffers_[levels_.back().count]->writer.Tag(tag);
  bignum_tag_ = tag;
  return true;
}

// A bignum's big-endian magnitude: an integer when it fits in 64 bits (CBOR allows such
// bignums); else a double (correctly rounded), which a floating-point field or a Value
// takes and an integer field refuses as unrepresentable.
bool ProtobufWriter::Bignum(std::string_view magnitude) {
  const bool negative = bignum_tag_ == kTagNegativeBignum;  // the value is -1 - magnitude
  bignum_tag_ = 0;
  auto byte = [&](size_t i) { return static_cast<uint8_t>(magnitude[i]); };
  size_t lead = 0;
  while (lead < magnitude.size() && byte(lead) == 0) ++lead;
  const size_t size = magnitude.size() - lead;
  if (size <= 8) {
    uint64_t n = 0;
    for (size_t i = lead; i < magnitude.size(); ++i) n = n << 8 | byte(i);
    return Event(negative ? Ev{Ev::kNegInt, n} : Ev{Ev::kUint, n});
  }
  // The top 64 bits (57 or more significant), the rest folded into a sticky bit: the
  // conversion to double then rounds as the exact value would.
  uint64_t top = 0;
  for (size_t i = lead; i < lead + 8; ++i) top = top << 8 | byte(i);
  bool rest_zero = true, rest_ones = true;
  for (size_t i = lead + 8; i < magnitude.size(); ++i) {
    rest_zero &= byte(i) == 0;
    rest_ones &= byte(i) == 0xff;
  }
  const int shift = static_cast<int>(8 * (size - 8));
  double d;
  if (negative && rest_ones) {  // magnitude + 1 carries into the top bits
    d = top == UINT64_MAX ? std::ldexp(1.0, 64 + shift)
                          : std::ldexp(static_cast<double>(top + 1), shift);
  } else {
    const bool sticky = negative || !rest_zero;  // magnitude + 1 leaves a non-zero rest
    d = std::ldexp(static_cast<double>(top | (sticky ? 1 : 0)), shift);
  }
  in_bignum_ = true;
  const bool ok = Event(Ev{Ev::kDouble, 0, negative ? -d : d});
  in_bignum_ = false;
  return ok;
}

bool ProtobufWriter::Event(const Ev& ev) {
  bignum_tag_ = 0;  // a tag applies to the one item that follows it
  if (levels_.empty()) {
    if (done_) return Mismatch("more than one root value");
    if (!MessageValue(root_, 0, ev, kNoSlot)) return false;
    if (levels_.empty()) done_ = true;
    return true;
  }
  Level& top = levels_.back();
  switch (top.mode) {
    case Mode::kSkip:
      if (ev.kind == Ev::kBeginArray || ev.kind == Ev::kBeginMap)
        ++top.skip_depth;
      else if (ev.kind == Ev::kEndArray || ev.kind == Ev::kEndMap)
        --top.skip_depth;
      if (top.skip_depth == 0) levels_.Pop();
      return true;
    case Mode::kAnyBuffer: {
      AnyBuffer& buffer = *any_buffers_[top.count];
      CborWriter& w = buffer.writer;
      switch (ev.kind) {
        case Ev::kNull:
          return w.Null();
        case Ev::kBool:
          return w.Bool(ev.u != 0);
        case Ev::kUint:
          return w.Uint(ev.u);
        case Ev::kNegInt:
          return w.NegInt(ev.u);
        case Ev::kDouble:
          return w.Double(ev.d);
        case Ev::kText:
          return w.Text(ev.s);
        case Ev::kBytes:
          return w.Bytes(ev.s);
        case Ev::kBeginArray:
          ++buffer.depth;
          return w.BeginArray(kUnknownLength);
        case Ev::kBeginMap:
          ++buffer.depth;
          return w.BeginMap(kUnknownLength);
        case Ev::kEndArray:
          --buffer.depth;
          return w.EndArray();
        case Ev::kEndMap:
          if (buffer.depth == 0) return w.EndMap() && AnyReplay();
          --buffer.depth;
          return w.EndMap();
      }
      return false;
    }
    case Mode::kMessage:
    case Mode::kAnyBody: {
      if (top.field == nullptr) {
        if (ev.kind == Ev::kEndMap) return Close(ev);
        return Key(top, ev);
      }
      const FieldInfo* f = top.field;
      top.field = nullptr;
      if (top.mode == Mode::kAnyBody && AnyHasValueMember(top.msg->well_known)) {
        return MessageValue(*top.msg, 0, ev, kNoSlot);  // "value": the well-known type's body
      }
      if (ev.kind == Ev::kNull && !(f->message && f->message->well_known == WellKnown::kValue) &&
          !(f->enum_info && f->enum_info->is_null_value)) {
        return true;  // null is the default: nothing on the wire
      }
      if (f->oneof_index >= 0 && f->oneof_index < 64) {
        // proto3 JSON: at most one member of a oneof (libprotobuf refuses the others too).
        const uint64_t bit = uint64_t{1} << f->oneof_index;
        if (top.oneofs & bit)
          return Mismatch("field " + f->name + ": another member of its oneof is already set");
        top.oneofs |= bit;
      }
      if (f->is_map) {
        if (ev.kind != Ev::kBeginMap)
          return Mismatch("field " + f->name + " is a map: expected an object");
        return Push(Level{
            Mode::kMap, f->message, f, {kNoSlot, kNoSlot, kNoSlot}, kNoSlot, 0, false, 0, 0, true});
      }
      if (f->repeated) {
        if (ev.kind != Ev::kBeginArray)
          return Mismatch("field " + f->name + " is repeated: expected an array");
        Level l{Mode::kRepeated, nullptr, f,    {kNoSlot, kNoSlot, kNoSlot}, kNoSlot, 0, f->packed,
                out_.size(),     0,       false};
        if (l.packed && !(Tag(f->number, kLen) && Slot(&l.slots[0]))) return false;
        return Push(l);
      }
      if (f->type == T::TYPE_MESSAGE) return MessageValue(*f->message, f->number, ev, kNoSlot);
      return Scalar(*f, ev, false);
    }
    case Mode::kRepeated: {
      if (ev.kind == Ev::kEndArray) return Close(ev);
      ++top.count;
      const FieldInfo& f = *top.field;
      if (f.type == T::TYPE_MESSAGE) return MessageValue(*f.message, f.number, ev, kNoSlot);
      if (ev.kind == Ev::kNull) return Mismatch("null element in repeated field " + f.name);
      return Scalar(f, ev, top.packed);
    }
    case Mode::kMap: {
      if (top.key_due) {
        if (ev.kind == Ev::kEndMap) return Close(ev);
        return MapKey(*top.field, ev);
      }
      top.key_due = true;
      const uint64_t entry = top.entry_slot;
      const FieldInfo& value = *top.msg->FieldByNumber(2);
      if (value.type == T::TYPE_MESSAGE) return MessageValue(*value.message, 2, ev, entry);
      if (ev.kind == Ev::kNull && !(value.enum_info && value.enum_info->is_null_value)) {
        return Mismatch("null map value");
      }
      // Map entries carry both key and value, even at the default, as libprotobuf writes them.
      return Scalar(value, ev, false, false) && Fill(entry);
    }
    case Mode::kAny: {
      if (ev.kind == Ev::kEndMap) return Close(ev);  // {}: the empty Any
      if (top.key_due) {
        if (ev.kind == Ev::kText && ev.s == "@type") {
          top.key_due = false;  // the type URL is due
          return true;
        }
        // "@type" is not first: buffer the members until it comes.
        auto buffer = std::make_unique<AnyBuffer>(ctx_);
        buffer->out.Begin(ctx_.limits.max_output_bytes, &ctx_.budget);
        top.mode = Mode::kAnyBuffer;
        top.count = static_cast<uint32_t>(any_buffers_.size());
        CborWriter& w = buffer->writer;
        any_buffers_.push_back(std::move(buffer));
        if (!w.BeginMap(kUnknownLength)) return false;
        return Event(ev);
      }
      if (ev.kind != Ev::kText) return Mismatch("Any \"@type\" must be a string");
      return AnyType(top, ev.s);
    }
  }
  return false;
}

bool ProtobufWriter::Key(Level& level, const Ev& ev) {
  if (ev.kind != Ev::kText)
    return Mismatch("member names of " + level.msg->full_name + " must be text");
  if (level.mode == Mode::kAnyBody && AnyHasValueMember(level.msg->well_known)) {
    if (ev.s != "value")
      return Mismatch("an Any of a well-known type has only \"@type\" and \"value\"");
    level.field = &kAnyValueDue;
    return true;
  }
  const FieldInfo* f = level.msg->FieldByName(ev.s);
  if (f == nullptr) {
    if (level.mode == Mode::kAnyBody && ev.s == "@type")
      return Mismatch("Any with two \"@type\" members");
    if (ctx_.options.ignore_unknown_fields) {
      return Push(Level{Mode::kSkip,
                        nullptr,
                        nullptr,
                        {kNoSlot, kNoSlot, kNoSlot},
                        kNoSlot,
                        0,
                        false,
                        0,
                        0,
                        false});
    }
    return Mismatch("unknown field \"" + std::string(ev.s) + "\" in " + level.msg->full_name);
  }
  level.field = f;
  return true;
}

bool ProtobufWriter::MapKey(const FieldInfo& map_field, const Ev& ev) {
  Level& level = levels_.back();
  const FieldInfo& key = *level.msg->FieldByNumber(1);
  Ev k = ev;
  if (key.type == T::TYPE_BOOL) {
    if (ev.kind == Ev::kText && (ev.s == "true" || ev.s == "false"))
      k = Ev{Ev::kBool, ev.s == "true" ? 1u : 0u};
    else if (ev.kind != Ev::kBool)
      return Mismatch("map key must be \"true\" or \"false\"");
  }
  uint64_t entry;
  if (!Tag(map_field.number, kLen) || !Slot(&entry)) return false;
  level.entry_slot = entry;
  level.key_due = false;
  // Map entries carry both key and value, as libprotobuf writes them.
  return Scalar(key, k, false, false);
}

bool ProtobufWriter::AnyType(Level& level, std::string_view url) {
  const MessageInfo* packed = schema_ ? schema_->Find(url.substr(url.rfind('/') + 1)) : nullptr;
  if (packed == nullptr) {
    ctx_.Fail(ErrorCode::kUnknownMessageType,
              "Any \"@type\" " + std::string(url) + " is not in the loaded descriptors");
    return false;
  }
  uint64_t value;
  if (!Tag(1, kLen) || !Room(10 + url.size())) return false;
  PutVarint(url.size());
  out_.Append(url.data(), url.size());
  if (!Tag(2, kLen) || !Slot(&value)) return false;
  level.mode = Mode::kAnyBody;
  level.msg = packed;
  level.field = nullptr;
  level.entry_slot = value;
  return true;
}

// The buffered members of an Any, replayed now that the whole object is known: "@type"
// first, then the rest in order.
bool ProtobufWriter::AnyReplay() {
  Level& level = levels_.back();
  std::unique_ptr<AnyBuffer> buffer = std::move(any_buffers_[level.count]);
  std::string_view bytes = buffer->out.view();
  // Pass 1: the value of the top-level "@type" member.
  struct TypeFinder {
    int depth = 0;
    uint64_t index = 0;  // items at depth 1
    bool next_is_type = false;
    std::string_view type;
    bool found = false;
    bool Item(bool is_text, std::string_view s) {
      if (depth == 1) {
        if (index % 2 == 0)
          next_is_type = is_text && s == "@type";
        else if (next_is_type && is_text)
          type = s, found = true;
        ++index;
      }
      return true;
    }
    bool Null() { return Item(false, {}); }
    bool Undefined() { return Item(false, {}); }
    bool Bool(bool) { return Item(false, {}); }
    bool Simple(uint8_t) { return Item(false, {}); }
    bool Uint(uint64_t) { return Item(false, {}); }
    bool NegInt(uint64_t) { return Item(false, {}); }
    bool Double(double) { return Item(false, {}); }
    bool Text(std::string_view s) { return Item(true, s); }
    bool Bytes(std::string_view) { return Item(false, {}); }
    bool BeginArray(uint64_t) {
      Item(false, {});
      return ++depth, true;
    }
    bool BeginMap(uint64_t) {
      Item(false, {});
      return ++depth, true;
    }
    bool EndArray() { return --depth, true; }
    bool EndMap() { return --depth, true; }
    bool Tag(uint64_t) { return true; }
  } finder;
  // The buffer is read back by readers of their own (their offsets are the buffer's, not
  // the input's). Their stacks come out of what is left of the request's budget, and
  // their peak is charged to it.
  Limits limits = ctx_.limits;
  limits.max_alloc_bytes = ctx_.budget.limit() - ctx_.budget.used();
  MappingOptions options = ctx_.options;
  options.allow_duplicate_keys = true;  // already checked when the members were read
  auto helper_done = [&](Context& helper, bool read) {
    if (!helper.status.ok() && ctx_.status.ok() && IsLimitError(helper.status.code)) {
      return ctx_.Fail(helper.status.code, std::move(helper.status.message));
    }
    if (!ctx_.budget.Charge(helper.budget.peak())) return ctx_.BudgetExceeded(helper.budget.peak());
    ctx_.budget.Release(helper.budget.peak());
    return read || !ctx_.status.ok() ? read : Mismatch("Any members could not be replayed");
  };
  {
    Context probe(limits, options);
    CborReader<TypeFinder> reader(probe, finder);
    const bool read = reader.Read(bytes);
    if (!helper_done(probe, read)) return false;
  }
  if (!finder.found) return Mismatch("Any without \"@type\"");
  level.mode = Mode::kAny;
  level.key_due = false;
  if (!AnyType(level, finder.type)) return false;
  // Pass 2: every member but "@type", into this writer; the outer map is this Any's.
  struct Replay {
    ProtobufWriter& w;
    int depth = 0;
    uint64_t index = 0;
    int skip = 0;  // the "@type" member (key and value)
    bool Top(bool is_key_type) {
      if (depth != 1) return false;
      if (index % 2 == 0 && is_key_type) skip = 2;
      ++index;
      if (skip > 0) {
        --skip;
        return true;
      }
      return false;
    }
    bool Null() { return Top(false) || w.Null(); }
    bool Undefined() { return Top(false) || w.Undefined(); }
    bool Bool(bool b) { return Top(false) || w.Bool(b); }
    bool Simple(uint8_t v) { return Top(false) || w.Simple(v); }
    bool Uint(uint64_t v) { return Top(false) || w.Uint(v); }
    bool NegInt(uint64_t v) { return Top(false) || w.NegInt(v); }
    bool Double(double d) { return Top(false) || w.Double(d); }
    bool Text(std::string_view s) { return Top(s == "@type") || w.Text(s); }
    bool Bytes(std::string_view s) { return Top(false) || w.Bytes(s); }
    bool BeginArray(uint64_t n) {
      bool skipped = Top(false);
      ++depth;
      return skipped || w.BeginArray(n);
    }
    bool BeginMap(uint64_t n) {
      if (depth++ == 0) return true;  // the Any's own braces
      --depth;
      bool skipped = Top(false);
      ++depth;
      return skipped || w.BeginMap(n);
    }
    bool EndArray() { return --depth, w.EndArray(); }
    bool EndMap() {
      if (--depth == 0) return true;
      return w.EndMap();
    }
    bool Tag(uint64_t t) { return w.Tag(t); }
  } replay{*this};
  limits.max_alloc_bytes = ctx_.budget.limit() - ctx_.budget.used();
  Context inner(limits, options);
  CborReader<Replay> reader(inner, replay);
  const bool read = reader.Read(bytes);
  if (!helper_done(inner, read)) return false;
  // The Any itself closes now: its EndMap was the one that ended the buffering.
  return Close(Ev{Ev::kEndMap});
}

bool ProtobufWriter::Close(const Ev&) {
  Level l = levels_.back();
  levels_.Pop();
  if (l.mode == Mode::kRepeated && l.packed && out_.size() == l.slots[0] + 1) {
    // An empty packed field (or one whose every element was skipped) is not written.
    out_.Resize(l.packed_tag_at);
    l.slots[0] = kNoSlot;
  }
  if ((l.mode == Mode::kAny || l.mode == Mode::kAnyBody) && l.entry_slot != kNoSlot &&
      !Fill(l.entry_slot))
    return false;
  if (!FillAll(l.slots)) return false;
  if (levels_.empty()) done_ = true;
  return true;
}

// A value of message type m: `number` is its field (0: the message itself, at the root or
// inside an Any), extra_slot a LengthSlot of the caller's to fill once it is complete.
bool ProtobufWriter::MessageValue(const MessageInfo& m, uint32_t number, const Ev& ev,
                                  uint64_t extra_slot) {
  uint64_t own = kNoSlot;
  auto open = [&]() { return number == 0 || (Tag(number, kLen) && Slot(&own)); };
  auto push = [&](Mode mode, const MessageInfo* msg, const FieldInfo* field, uint64_t inner_slot,
                  bool packed) {
    Level l{mode,   msg, field, {inner_slot, own, extra_slot},           kNoSlot, 0,
            packed, 0,   0,     mode == Mode::kMap || mode == Mode::kAny};
    if (inner_slot == kNoSlot) {
      l.slots[0] = own;
      l.slots[1] = extra_slot;
      l.slots[2] = kNoSlot;
    }
    return Push(l);
  };
  auto finish = [&]() {
    return (own == kNoSlot || Fill(own)) && (extra_slot == kNoSlot || Fill(extra_slot));
  };
  switch (m.well_known) {
    case WellKnown::kNone:
    case WellKnown::kEmpty:
      if (ev.kind != Ev::kBeginMap) return Mismatch(m.full_name + " must be an object");
      return open() && push(Mode::kMessage, &m, nullptr, kNoSlot, false);
    case WellKnown::kAny:
      if (ev.kind != Ev::kBeginMap) return Mismatch("google.protobuf.Any must be an object");
      return open() && push(Mode::kAny, &m, nullptr, kNoSlot, false);
    case WellKnown::kStruct:
      if (ev.kind != Ev::kBeginMap) return Mismatch("google.protobuf.Struct must be an object");
      return open() && push(Mode::kMap, m.fields[0].message, &m.fields[0], kNoSlot, false);
    case WellKnown::kListValue:
      if (ev.kind != Ev::kBeginArray) return Mismatch("google.protobuf.ListValue must be an array");
      return open() && push(Mode::kRepeated, nullptr, &m.fields[0], kNoSlot, false);
    case WellKnown::kValue: {
      if (!open()) return false;
      const FieldInfo* kind = nullptr;
      switch (ev.kind) {
        case Ev::kNull:
          kind = m.FieldByNumber(1);
          break;
        case Ev::kUint:
        case Ev::kNegInt:
        case Ev::kDouble:
          kind = m.FieldByNumber(2);
          break;
        case Ev::kText:
          kind = m.FieldByNumber(3);
          break;
        case Ev::kBool:
          kind = m.FieldByNumber(4);
          break;
        case Ev::kBeginMap:
        case Ev::kBeginArray: {
          const FieldInfo* member = m.FieldByNumber(ev.kind == Ev::kBeginMap ? 5 : 6);
          uint64_t inner;
          if (!Tag(member->number, kLen) || !Slot(&inner)) return false;
          const FieldInfo& content = member->message->fields[0];
          return push(ev.kind == Ev::kBeginMap ? Mode::kMap : Mode::kRepeated,
                      ev.kind == Ev::kBeginMap ? content.message : nullptr, &content, inner, false);
        }
        default:
          return Mismatch("google.protobuf.Value cannot hold a byte string");
      }
      // A oneof member is written even at its default.
      if (!Scalar(*kind, ev.kind == Ev::kNull ? Ev{Ev::kUint, 0} : ev, false, false)) return false;
      return finish();
    }
    case WellKnown::kTimestamp:
    case WellKnown::kDuration: {
      if (ev.kind != Ev::kText) return Mismatch(m.full_name + " must be a string");
      int64_t seconds;
      int32_t nanos;
      bool ok = m.well_known == WellKnown::kTimestamp ? ParseTimestamp(ev.s, &seconds, &nanos)
                                                      : ParseDuration(ev.s, &seconds, &nanos);
      if (!ok) return Mismatch("\"" + std::string(ev.s) + "\" is not a valid " + m.full_name);
      char body[24];
      char* p = body;
      if (seconds != 0)
        p = PutVarintAt(PutVarintAt(p, 1 << 3 | kVarint), static_cast<uint64_t>(seconds));
      if (nanos != 0)
        p = PutVarintAt(PutVarintAt(p, 2 << 3 | kVarint),
                        static_cast<uint64_t>(static_cast<int64_t>(nanos)));
      if (!Room(20 + (p - body))) return false;
      if (number) {
        PutVarint(uint64_t{number} << 3 | kLen);
        PutVarint(static_cast<uint64_t>(p - body));
      }
      out_.Append(body, p - body);
      return extra_slot == kNoSlot || Fill(extra_slot);
    }
    case WellKnown::kFieldMask: {
      if (ev.kind != Ev::kText) return Mismatch("google.protobuf.FieldMask must be a string");
      if (!open()) return false;
      std::string path;
      for (size_t start = 0; start <= ev.s.size();) {
        size_t comma = ev.s.find(',', start);
        if (comma == std::string_view::npos) comma = ev.s.size();
        path.clear();
        if (!AppendSnakePath(ev.s.substr(start, comma - start), path))
          return Mismatch("invalid FieldMask path");
        if (!path.empty()) {
          if (!Tag(1, kLen) || !Room(10 + path.size())) return false;
          PutVarint(path.size());
          out_.Append(path.data(), path.size());
        }
        start = comma + 1;
      }
      return finish();
    }
    default: {  // wrappers: the wrapped value
      if (ev.kind == Ev::kBeginMap || ev.kind == Ev::kBeginArray)
        return Mismatch(m.full_name + " must be a scalar");
      if (!open()) return false;
      if (ev.kind != Ev::kNull && !Scalar(m.fields[0], ev, false, true)) return false;
      return finish();
    }
  }
}

// One scalar of field f: converted per proto3 JSON, range-checked, and left out when it is
// the default of a field without presence.
bool ProtobufWriter::Scalar(const FieldInfo& f, const Ev& ev, bool packed_element) {
  return Scalar(f, ev, packed_element, !f.repeated && !f.has_presence);
}

bool ProtobufWriter::ToInteger(const FieldInfo& f, const Ev& ev, uint64_t* raw) {
  const bool is_signed = IsSigned(f.type);
  const bool narrow = Is32(f.type);
  const int64_t min = narrow ? INT32_MIN : INT64_MIN;
  const uint64_t max =
      is_signed ? (narrow ? INT32_MAX : INT64_MAX) : (narrow ? UINT32_MAX : UINT64_MAX);
  bool negative = false;
  uint64_t magnitude = 0;  // |v|
  switch (ev.kind) {
    case Ev::kUint:
      magnitude = ev.u;
      break;
    case Ev::kNegInt:
      negative = true;
      if (ev.u == UINT64_MAX) return Mismatch("integer out of range for field " + f.name);
      magnitude = ev.u + 1;
      break;
    case Ev::kDouble:
    case Ev::kText: {
      if (in_bignum_)
        return ctx_.Fail(ErrorCode::kUnrepresentable, "integer beyond 64 bits for field " + f.name);
      double d = ev.d;
      if (ev.kind == Ev::kText) {
        // Numbers as strings: exact integers first, else a number that is integral.
        std::string_view t = ev.s;
        negative = !t.empty() && t.front() == '-';
        std::string_view digits = negative ? t.substr(1) : t;
        auto r = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
        if (r.ec == std::errc() && r.ptr == digits.data() + digits.size() && !digits.empty() &&
            digits.front() != '+')
          break;
        auto rd = std::from_chars(t.data(), t.data() + t.size(), d);
        if (rd.ec != std::errc() || rd.ptr != t.data() + t.size()) {
          return Mismatch("\"" + std::string(t) + "\" is not an integer for field " + f.name);
        }
      }
      if (!std::isfinite(d) || d != std::trunc(d) || d >= 18446744073709551616.0 ||
          d <= -9223372036854775809.0) {
        return Mismatch("not an integer for field " + f.name);
      }
      negative = d < 0;
      magnitude = negative ? static_cast<uint64_t>(-(d + 1)) + 1 : static_cast<uint64_t>(d);
      break;
    }
    default:
      return Mismatch("field " + f.name + " needs a number");
  }
  if (negative && magnitude != 0) {
    if (!is_signed || magnitude - 1 > static_cast<uint64_t>(-(min + 1)))
      return Mismatch("integer out of range for field " + f.name);
    *raw = ~(magnitude - 1);  // two's complement of -magnitude
  } else {
    if (magnitude > max) return Mismatch("integer out of range for field " + f.name);
    *raw = magnitude;
  }
  return true;
}

bool ProtobufWriter::ToFloating(const FieldInfo& f, const Ev& ev, double* d) {
  switch (ev.kind) {
    case Ev::kUint:
      *d = static_cast<double>(ev.u);
      break;
    case Ev::kNegInt:
      *d = -1.0 - static_cast<double>(ev.u);
      break;
    case Ev::kDouble:
      *d = ev.d;
      break;
    case Ev::kText: {
      if (ev.s == "NaN")
        *d = std::numeric_limits<double>::quiet_NaN();
      else if (ev.s == "Infinity")
        *d = INFINITY;
      else if (ev.s == "-Infinity")
        *d = -INFINITY;
      else {
        // A decimal number; "nan", "inf" and the like are not proto3 JSON's spellings.
        auto r = std::from_chars(ev.s.data(), ev.s.data() + ev.s.size(), *d);
        if (r.ec != std::errc() || r.ptr != ev.s.data() + ev.s.size() || !std::isfinite(*d)) {
          return Mismatch("\"" + std::string(ev.s) + "\" is not a number for field " + f.name);
        }
      }
      break;
    }
    default:
      return Mismatch("field " + f.name + " needs a number");
  }
  if (in_bignum_ && !std::isfinite(*d))
    return ctx_.Fail(ErrorCode::kUnrepresentable,
                     "integer beyond the range of a double for field " + f.name);
  // A float takes what rounds to a finite float: up to FLT_MAX plus half its last unit,
  // so FLT_MAX as printed ("3.4028235e+38", shortest form) comes back.
  if (f.type == T::TYPE_FLOAT && std::isfinite(*d) && !(std::fabs(*d) < 0x1.ffffffp127)) {
    return Mismatch("float out of range for field " + f.name);
  }
  return true;
}

bool ProtobufWriter::Scalar(const FieldInfo& f, const Ev& ev, bool packed_element,
                            bool omit_default) {
  const uint8_t wire = f.wire_type;
  switch (f.type) {
    case T::TYPE_STRING:
    case T::TYPE_BYTES: {
      std::string_view data = ev.s;
      size_t size = data.size();
      bool decode = false;
      if (f.type == T::TYPE_STRING) {
        if (ev.kind != Ev::kText) return Mismatch("field " + f.name + " needs a string");
      } else if (ev.kind == Ev::kText) {
        decode = true;  // proto3 JSON: base64, standard or URL alphabet
        size = Base64DecodedSize(data);
      } else if (ev.kind != Ev::kBytes) {
        return Mismatch("field " + f.name + " needs bytes (base64 text or a byte string)");
      }
      if (decode && size == 0 && !data.empty()) {
        char none[1];
        if (!Base64Decode(data, none)) return Mismatch("field " + f.name + ": invalid base64");
      }
      if (omit_default && size == 0) return true;
      if (!Room(20 + size)) return false;
      if (!packed_element) PutVarint(uint64_t{f.number} << 3 | kLen);
      PutVarint(size);
      if (decode) {
        if (!Base64Decode(data, out_.cursor()))
          return Mismatch("field " + f.name + ": invalid base64");
        out_.Advance(size);
      } else {
        out_.Append(data.data(), size);
      }
      return true;
    }
    case T::TYPE_BOOL: {
      if (ev.kind != Ev::kBool) return Mismatch("field " + f.name + " needs true or false");
      if (omit_default && ev.u == 0) return true;
      if (!Room(12)) return false;
      if (!packed_element) PutVarint(uint64_t{f.number} << 3 | kVarint);
      PutVarint(ev.u);
      return true;
    }
    case T::TYPE_DOUBLE:
    case T::TYPE_FLOAT: {
      double d;
      if (!ToFloating(f, ev, &d)) return false;
      uint64_t bits = f.type == T::TYPE_DOUBLE ? std::bit_cast<uint64_t>(d)
                                               : std::bit_cast<uint32_t>(static_cast<float>(d));
      if (omit_default && bits == 0) return true;  // +0.0 only: -0.0 is written
      const int size = f.type == T::TYPE_DOUBLE ? 8 : 4;
      if (!Room(18)) return false;
      if (!packed_element) PutVarint(uint64_t{f.number} << 3 | wire);
      for (int i = 0; i < size; ++i) out_.Put(static_cast<char>(bits >> (8 * i)));
      return true;
    }
    default:
      break;
  }
  uint64_t raw = 0;
  if (f.type == T::TYPE_ENUM) {
    if (ev.kind == Ev::kText) {
      const auto* value = f.enum_info->descriptor->FindValueByName(std::string(ev.s));
      if (value == nullptr) {
        if (ctx_.options.ignore_unknown_fields) return true;
        return Mismatch("\"" + std::string(ev.s) + "\" is not a value of " +
                        f.enum_info->descriptor->full_name());
      }
      raw = static_cast<uint64_t>(static_cast<int64_t>(value->number()));
    } else if (ev.kind == Ev::kNull && f.enum_info->is_null_value) {
      raw = 0;
    } else if (!ToInteger(f, ev, &raw)) {
      return false;
    }
  } else if (!ToInteger(f, ev, &raw)) {
    return false;
  }
  if (omit_default && raw == 0) return true;
  if (!Room(20)) return false;
  if (!packed_element) PutVarint(uint64_t{f.number} << 3 | wire);
  switch (f.type) {
    case T::TYPE_SINT32: {
      const int32_t v = static_cast<int32_t>(raw);
      PutVarint(
          static_cast<uint32_t>((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31)));
      break;
    }
    case T::TYPE_SINT64: {
      const int64_t v = static_cast<int64_t>(raw);
      PutVarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
      break;
    }
    case T::TYPE_FIXED32:
    case T::TYPE_SFIXED32:
      for (int i = 0; i < 4; ++i) out_.Put(static_cast<char>(raw >> (8 * i)));
      break;
    case T::TYPE_FIXED64:
    case T::TYPE_SFIXED64:
      for (int i = 0; i < 8; ++i) out_.Put(static_cast<char>(raw >> (8 * i)));
      break;
    default:  // int32 and enums sign-extend to 64 bits on the wire
      PutVarint(raw);
  }
  return true;
}

}  // namespace rosetta::codec
