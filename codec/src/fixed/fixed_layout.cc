#include "fixed/fixed_layout.h"

#include <google/protobuf/descriptor.h>
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace rosetta::codec {

namespace {

namespace pb = google::protobuf;

struct Builder {
  FixedLayout& layout;
  std::vector<const MessageInfo*> open;  // the messages being laid out (recursion check)
  std::string path;                      // of the field being laid out

  bool Refuse(std::string reason) {
    layout.error = std::move(reason);
    layout.error_path = path.empty() ? std::string() : path;
    return false;
  }

  bool Message(const MessageInfo& m, std::string_view key, const FieldInfo* field, uint32_t depth) {
    if (m.well_known != WellKnown::kNone)
      return Refuse(m.full_name + " has a JSON form of its own, not a fixed layout");
    if (std::find(open.begin(), open.end(), &m) != open.end())
      return Refuse("message " + m.full_name + " contains itself: no fixed size");
    if (m.fields.empty()) return Refuse("message " + m.full_name + " has no fields: no record");
    open.push_back(&m);
    layout.depth = std::max(layout.depth, depth);
    const size_t begin = layout.steps.size();
    FixedStep b{};
    b.kind = FixedKind::kBegin;
    b.fields = static_cast<uint32_t>(m.fields.size());
    b.key = key;
    b.field = field;
    b.message = &m;
    layout.steps.push_back(b);
    ++layout.items;
    // Field-number order, whatever the declaration order.
    std::vector<const FieldInfo*> fields;
    for (const FieldInfo& f : m.fields) fields.push_back(&f);
    std::sort(fields.begin(), fields.end(),
              [](const FieldInfo* a, const FieldInfo* b) { return a->number < b->number; });
    for (const FieldInfo* f : fields) {
      const size_t path_size = path.size();
      path += '/';
      path += f->json_name;
      if (!Field(*f, depth)) return false;
      path.resize(path_size);
    }
    FixedStep e{};
    e.kind = FixedKind::kEnd;
    layout.steps.push_back(e);
    layout.steps[begin].end = static_cast<uint32_t>(layout.steps.size() - 1);
    open.pop_back();
    return true;
  }

  bool Field(const FieldInfo& f, uint32_t depth) {
    if (f.is_map) return Refuse("map field has no fixed size");
    if (f.repeated) return Refuse("repeated field has no fixed size");
    if (f.oneof_index >= 0) return Refuse("oneof member has no fixed size (it may be absent)");
    using T = pb::FieldDescriptor;
    if (f.type == T::TYPE_MESSAGE) return Message(*f.message, f.json_name, &f, depth + 1);
    // proto2's required fields are always there; optional ones (either syntax) may not be.
    if (f.has_presence && !f.descriptor->is_required())
      return Refuse("optional field has no fixed size (it may be absent)");
    FixedStep s{};
    s.key = f.json_name;
    s.field = &f;
    s.offset = layout.size;
    uint32_t width = 4;
    switch (f.type) {
      case T::TYPE_BOOL:
        s.kind = FixedKind::kBool;
        width = 1;
        break;
      case T::TYPE_INT32:
      case T::TYPE_SINT32:
      case T::TYPE_SFIXED32:
        s.kind = FixedKind::kInt32;
        break;
      case T::TYPE_UINT32:
      case T::TYPE_FIXED32:
        s.kind = FixedKind::kUint32;
        break;
      case T::TYPE_INT64:
      case T::TYPE_SINT64:
      case T::TYPE_SFIXED64:
        s.kind = FixedKind::kInt64;
        width = 8;
        break;
      case T::TYPE_UINT64:
      case T::TYPE_FIXED64:
        s.kind = FixedKind::kUint64;
        width = 8;
        break;
      case T::TYPE_FLOAT:
        s.kind = FixedKind::kFloat;
        break;
      case T::TYPE_DOUBLE:
        s.kind = FixedKind::kDouble;
        width = 8;
        break;
      case T::TYPE_ENUM: {
        s.kind = FixedKind::kEnum;
        s.enum_info = f.enum_info;
        const pb::EnumDescriptor* d = f.enum_info->descriptor;
        s.closed_enum = d->file()->syntax() == pb::FileDescriptor::SYNTAX_PROTO2;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int i = 0; i < d->value_count(); ++i) {
          lo = std::min<int64_t>(lo, d->value(i)->number());
          hi = std::max<int64_t>(hi, d->value(i)->number());
        }
        if (d->value_count() > 0 && hi - lo < 256) {
          s.enum_min = static_cast<int32_t>(lo);
          s.enum_names.resize(static_cast<size_t>(hi - lo + 1));
          for (int i = 0; i < d->value_count(); ++i)
            s.enum_names[static_cast<size_t>(d->value(i)->number() - lo)] = d->value(i)->name();
        }
        break;
      }
      case T::TYPE_STRING:
        return Refuse("string field has no fixed size");
      case T::TYPE_BYTES:
        return Refuse("bytes field has no fixed size");
      default:
        return Refuse("group field has no fixed size");
    }
    layout.size += width;
    layout.steps.push_back(s);
    ++layout.items;
    return true;
  }
};

}  // namespace

const std::string_view* FixedStep::EnumNameSlow(int32_t v) const {
  // Names are the descriptor's strings, alive as long as the schema: a view of one is kept
  // per thread for the caller.
  const pb::EnumValueDescriptor* value = enum_info->descriptor->FindValueByNumber(v);
  if (value == nullptr) return nullptr;
  thread_local std::string_view name;
  name = value->name();
  return &name;
}

std::shared_ptr<const FixedLayout> BuildFixedLayout(const MessageInfo& m) {
  auto layout = std::make_shared<FixedLayout>();
  Builder b{*layout, {}, {}};
  if (!b.Message(m, {}, nullptr, 1)) {
    layout->steps.clear();
    layout->size = 0;
    return layout;
  }
  layout->defaults.assign(layout->size, '\0');
  for (const FixedStep& s : layout->steps) {
    if (s.kind == FixedKind::kBool || (s.kind == FixedKind::kEnum && s.closed_enum))
      layout->checks.push_back(&s);
    if (s.field == nullptr || s.kind == FixedKind::kBegin || s.kind == FixedKind::kEnd) continue;
    const pb::FieldDescriptor* f = s.field->descriptor;
    char* at = layout->defaults.data() + s.offset;
    auto put = [at](auto v) { std::memcpy(at, &v, sizeof v); };
    switch (s.kind) {
      case FixedKind::kBool:
        put(static_cast<uint8_t>(f->default_value_bool()));
        break;
      case FixedKind::kInt32:
        put(f->default_value_int32());
        break;
      case FixedKind::kUint32:
        put(f->default_value_uint32());
        break;
      case FixedKind::kInt64:
        put(f->default_value_int64());
        break;
      case FixedKind::kUint64:
        put(f->default_value_uint64());
        break;
      case FixedKind::kFloat:
        put(f->default_value_float());
        break;
      case FixedKind::kDouble:
        put(f->default_value_double());
        break;
      case FixedKind::kEnum:
        put(static_cast<int32_t>(f->default_value_enum()->number()));
        break;
      default:
        break;
    }
  }
  layout->json = BuildFixedEncoding(*layout, 1);
  layout->cbor = BuildFixedEncoding(*layout, 2);
  layout->msgpack = BuildFixedEncoding(*layout, 3);
  return layout;
}

}  // namespace rosetta::codec
