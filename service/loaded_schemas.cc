#include "service/loaded_schemas.h"

#include "service/metrics.h"

namespace rosetta::service {

std::shared_ptr<const LoadedSchemas> LoadedSchemas::Load(const std::string& dir, Metrics& metrics,
                                                         std::string* error) {
  std::shared_ptr<const codec::JsonSchemaSet> set = codec::JsonSchemaSet::LoadDir(dir, error);
  if (!set) return nullptr;
  auto loaded = std::make_shared<LoadedSchemas>();
  for (const std::string& name : set->Names()) {
    const codec::JsonSchema* schema = set->Find(name);
    if (schema == nullptr) continue;  // a name is always found; never expected
    // The label is a file name of the operator's directory, never a client's text.
    loaded->by_name_.emplace(name, Entry{schema, &metrics.SchemaViolations(name)});
  }
  loaded->set_ = std::move(set);
  return loaded;
}

const LoadedSchemas::Entry* LoadedSchemas::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it != by_name_.end()) return &it->second;
  const codec::JsonSchema* by_id = set_->Find(name);
  if (by_id == nullptr) return nullptr;
  it = by_name_.find(by_id->name());
  return it == by_name_.end() ? nullptr : &it->second;
}

}  // namespace rosetta::service
