#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rosetta/codec/status.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::codec {

namespace schema {
struct Compiled;
}

struct JsonSchemaLoadOptions {
  // A schema's compiled size (nodes, regular expressions, constants) may not pass this.
  uint64_t max_schema_bytes = 64ull << 20;
  // The draft of a document without $schema: 4, 6, 7, 2019 or 2020.
  int default_draft = 2020;
  // Documents $refs may reach by URI (the test suite's remotes) but requests cannot name.
  struct Remote {
    std::string uri;
    std::string text;
    int default_draft = 2020;  // for a remote without $schema
  };
  std::vector<Remote> remotes;
};
// A set of JSON Schema documents compiled together (their $refs resolve among them and the
// built-in metaschemas; nothing is ever fetched). Compiled once, at load; requests only
// read it, so one set serves every thread. Part of the rosetta_codec_schema target (RE2).
class JsonSchemaSet {
 public:
  struct Document {
    std::string name;  // what a request calls it: the file name without ".json"
    std::string file;  // for error messages
    std::string text;  // the schema, JSON
    std::string uri;   // its retrieval URI (the base of a document without $id); empty:
                       // "file://" + the absolute path of `file`
  };
  using LoadOptions = JsonSchemaLoadOptions;

  ~JsonSchemaSet();

  // Compiles the documents together. Null with *error set to one line naming the file and
  // the schema location ("schema.json: /properties/a/pattern: ...") when any fails.
  static std::shared_ptr<const JsonSchemaSet> Load(std::vector<Document> documents,
                                                   std::string* error,
                                                   const LoadOptions& options = {});
  // Every *.json in dir (not recursive), each named by its file name without ".json".
  static std::shared_ptr<const JsonSchemaSet> LoadDir(const std::string& dir, std::string* error,
                                                      const LoadOptions& options = {});
  // Reads one file (name: its file name without ".json") together with every *.json of
  // extra_dir (empty: none), for the CLI's --schema FILE [--schema-dir DIR].
  static std::shared_ptr<const JsonSchemaSet> LoadFile(const std::string& file,
                                                       const std::string& extra_dir,
                                                       std::string* error,
                                                       const LoadOptions& options = {});

  // The schema named `name` (a document's name or its $id), or null.
  const JsonSchema* Find(std::string_view name) const;
  // Every document's name, sorted.
  std::vector<std::string> Names() const;
  // Bytes the compiled set holds (nodes, strings, regular expressions).
  uint64_t compiled_bytes() const;

 private:
  JsonSchemaSet() = default;
  std::unique_ptr<schema::Compiled> compiled_;
};

}  // namespace rosetta::codec
