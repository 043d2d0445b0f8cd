#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <prometheus/counter.h>

#include "rosetta/codec/json_schema.h"

namespace rosetta::service {

class Metrics;

// One load of --schema-dir: the compiled set and, for each schema, the counter of the
// requests it refused (rosetta_schema_violations_total{schema}). Immutable once loaded; a
// SIGHUP reload makes a new one and the pipeline swaps it in whole (docs/schema.md).
class LoadedSchemas {
 public:
  struct Entry {
    const codec::JsonSchema* schema;
    prometheus::Counter* violations;
  };

  // Every *.json of dir, compiled together. Null with *error set to the loader's one line
  // ("DIR/order.json: /properties/id/pattern: ...") when any of them does not load.
  static std::shared_ptr<const LoadedSchemas> Load(const std::string& dir, Metrics& metrics,
                                                   std::string* error);

  // The schema a request names: a file name without ".json", or a schema's $id. Null when
  // none is loaded under that name.
  const Entry* Find(std::string_view name) const;
  size_t size() const { return by_name_.size(); }

 private:
  std::shared_ptr<const codec::JsonSchemaSet> set_;
  // By file name; a $id is resolved by the set and then found here by the schema's name.
  std::map<std::string, Entry, std::less<>> by_name_;
};

}  // namespace rosetta::service
