#include "protobuf/protobuf_schema.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>

#include <google/protobuf/descriptor.pb.h>

#include "fixed/fixed_layout.h"

namespace rosetta::codec {

namespace pb = google::protobuf;

struct Schema::Impl {
  pb::DescriptorPool pool{pb::DescriptorPool::generated_pool()};
  std::map<std::string, std::unique_ptr<MessageInfo>, std::less<>> messages;
  std::map<const pb::EnumDescriptor*, std::unique_ptr<EnumInfo>> enums;

  MessageInfo* Info(const pb::Descriptor* d);
  const EnumInfo* Enum(const pb::EnumDescriptor* e) {
    auto& slot = enums[e];
    if (!slot)
      slot = std::make_unique<EnumInfo>(EnumInfo{e, e->full_name() == "google.protobuf.NullValue"});
    return slot.get();
  }
};

namespace {

WellKnown Classify(const std::string& name) {
  static const std::map<std::string, WellKnown, std::less<>> kKinds = {
      {"google.protobuf.Timestamp", WellKnown::kTimestamp},
      {"google.protobuf.Duration", WellKnown::kDuration},
      {"google.protobuf.DoubleValue", WellKnown::kDoubleValue},
      {"google.protobuf.FloatValue", WellKnown::kFloatValue},
      {"google.protobuf.Int64Value", WellKnown::kInt64Value},
      {"google.protobuf.UInt64Value", WellKnown::kUInt64Value},
      {"google.protobuf.Int32Value", WellKnown::kInt32Value},
      {"google.protobuf.UInt32Value", WellKnown::kUInt32Value},
      {"google.protobuf.BoolValue", WellKnown::kBoolValue},
      {"google.protobuf.StringValue", WellKnown::kStringValue},
      {"google.protobuf.BytesValue", WellKnown::kBytesValue},
      {"google.protobuf.Struct", WellKnown::kStruct},
      {"google.protobuf.Value", WellKnown::kValue},
      {"google.protobuf.ListValue", WellKnown::kListValue},
      {"google.protobuf.FieldMask", WellKnown::kFieldMask},
      {"google.protobuf.Empty", WellKnown::kEmpty},
      {"google.protobuf.Any", WellKnown::kAny},
  };
  auto it = kKinds.find(name);
  return it == kKinds.end() ? WellKnown::kNone : it->second;
}

WireType WireTypeOf(pb::FieldDescriptor::Type t) {
  switch (t) {
    case pb::FieldDescriptor::TYPE_DOUBLE:
    case pb::FieldDescriptor::TYPE_FIXED64:
    case pb::FieldDescriptor::TYPE_SFIXED64:
      return kI64;
    case pb::FieldDescriptor::TYPE_FLOAT:
    case pb::FieldDescriptor::TYPE_FIXED32:
    case pb::FieldDescriptor::TYPE_SFIXED32:
      return kI32;
    case pb::FieldDescriptor::TYPE_STRING:
    case pb::FieldDescriptor::TYPE_BYTES:
    case pb::FieldDescriptor::TYPE_MESSAGE:
      return kLen;
    case pb::FieldDescriptor::TYPE_GROUP:
      return kStartGroup;
    default:
      return kVarint;
  }
}

// libprotobuf's reasons for refusing a file, for the error message (instead of its log).
class BuildErrors : public pb::DescriptorPool::ErrorCollector {
 public:
  void AddError(const std::string& filename, const std::string& element_name, const pb::Message*,
                ErrorLocation, const std::string& message) override {
    if (!text.empty()) text += "; ";
    text +=
        element_name.empty() || element_name == filename ? message : element_name + ": " + message;
  }
  std::string text;
};

bool ReadSet(const std::string& path, pb::FileDescriptorSet* set, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read descriptor set " + path;
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  if (!set->ParseFromString(bytes)) {
    *error = path + " is not a FileDescriptorSet";
    return false;
  }
  return true;
}

}  // namespace

MessageInfo* Schema::Impl::Info(const pb::Descriptor* d) {
  auto it = messages.find(d->full_name());
  if (it != messages.end()) return it->second.get();
  auto owned = std::make_unique<MessageInfo>();
  MessageInfo* m = owned.get();
  messages.emplace(d->full_name(), std::move(owned));  // before the fields: types may recurse
  m->descriptor = d;
  m->full_name = d->full_name();
  m->well_known = Classify(m->full_name);
  m->oneof_count = d->oneof_decl_count();
  m->fields.resize(d->field_count());
  m->by_number.assign(1024, -1);
  for (int i = 0; i < d->field_count(); ++i) {
    const pb::FieldDescriptor* f = d->field(i);
    FieldInfo& fi = m->fields[i];
    fi.descriptor = f;
    fi.name = f->name();
    fi.json_name = f->json_name();
    fi.number = static_cast<uint32_t>(f->number());
    fi.type = f->type();
    fi.wire_type = WireTypeOf(f->type());
    fi.repeated = f->is_repeated();
    fi.packable = f->is_packable();
    fi.packed = f->is_packed();
    fi.is_map = f->is_map();
    fi.has_presence = f->has_presence();
    fi.oneof_index = f->real_containing_oneof() ? f->real_containing_oneof()->index() : -1;
    if (f->message_type()) fi.message = Info(f->message_type());
    if (f->enum_type()) fi.enum_info = Enum(f->enum_type());
    if (fi.number < 1024)
      m->by_number[fi.number] = static_cast<int16_t>(i);
    else
      m->by_large_number[fi.number] = i;
  }
  for (int i = 0; i < static_cast<int>(m->fields.size()); ++i) {
    m->by_name.emplace(m->fields[i].json_name, i);
    m->by_name.emplace(m->fields[i].name, i);
  }
  return m;
}

Schema::Schema(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Schema::~Schema() = default;

std::unique_ptr<Schema> Schema::Load(const std::vector<std::string>& paths, std::string* error) {
  auto impl = std::make_unique<Impl>();
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      *error = "cannot read descriptor set " + path;
      return nullptr;
    }
    if (!S_ISDIR(st.st_mode)) {
      files.push_back(path);
      continue;
    }
    DIR* dir = opendir(path.c_str());
    std::vector<std::string> entries;
    while (dirent* e = dir ? readdir(dir) : nullptr) {
      std::string full = path + "/" + e->d_name;
      if (e->d_name[0] != '.' && stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        entries.push_back(full);
    }
    if (dir) closedir(dir);
    std::sort(entries.begin(), entries.end());
    files.insert(files.end(), entries.begin(), entries.end());
  }
  for (const std::string& file : files) {
    pb::FileDescriptorSet set;
    if (!ReadSet(file, &set, error)) return nullptr;
    // --include_imports lists dependencies first. Files libprotobuf already has (the
    // well-known types) come from its generated pool, the underlay.
    for (const pb::FileDescriptorProto& proto : set.file()) {
      if (impl->pool.FindFileByName(proto.name()) != nullptr) continue;
      BuildErrors errors;
      if (impl->pool.BuildFileCollectingErrors(proto, &errors) == nullptr) {
        *error = file + ": cannot build " + proto.name() + ": " + errors.text +
                 " (are its imports included? use --include_imports)";
        return nullptr;
      }
    }
    for (const pb::FileDescriptorProto& proto : set.file()) {
      const pb::FileDescriptor* fd = impl->pool.FindFileByName(proto.name());
      for (int i = 0; fd && i < fd->message_type_count(); ++i) {
        std::vector<const pb::Descriptor*> todo = {fd->message_type(i)};
        while (!todo.empty()) {
          const pb::Descriptor* d = todo.back();
          todo.pop_back();
          impl->Info(d);
          for (int n = 0; n < d->nested_type_count(); ++n) todo.push_back(d->nested_type(n));
        }
      }
    }
  }
  // The well-known types are always known (an Any may name one), and the tables are
  // complete before any thread reads them: Find never writes.
  for (const char* name :
       {"Timestamp", "Duration", "DoubleValue", "FloatValue", "Int64Value", "UInt64Value",
        "Int32Value", "UInt32Value", "BoolValue", "StringValue", "BytesValue", "Struct", "Value",
        "ListValue", "FieldMask", "Empty", "Any"}) {
    if (const pb::Descriptor* d =
            impl->pool.FindMessageTypeByName(std::string("google.protobuf.") + name)) {
      impl->Info(d);
    }
  }
  // Each type's fixed layout (or the reason it has none), once every type is known.
  for (auto& [name, info] : impl->messages) info->fixed = BuildFixedLayout(*info);
  return std::unique_ptr<Schema>(new Schema(std::move(impl)));
}

const MessageInfo* Schema::Find(std::string_view full_name) const {
  if (!full_name.empty() && full_name.front() == '.') full_name.remove_prefix(1);
  auto it = impl_->messages.find(full_name);
  return it == impl_->messages.end() ? nullptr : it->second.get();
}

std::vector<std::string> Schema::MessageNames() const {
  std::vector<std::string> names;
  for (auto& [name, info] : impl_->messages) names.push_back(name);
  return names;
}

}  // namespace rosetta::codec
