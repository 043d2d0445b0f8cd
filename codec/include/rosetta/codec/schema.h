#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rosetta/codec/transcode.h"

namespace rosetta::codec {

struct MessageInfo;

// Protobuf schemas loaded at run time from FileDescriptorSet files (`protoc
// --include_imports --descriptor_set_out`). Part of the rosetta_codec_protobuf target,
// which links libprotobuf for descriptors only: the wire format is read and written by
// rosetta. Immutable once loaded, so one Schema serves every thread.
class Schema final : public FormatSchema {
 public:
  ~Schema() override;

  // Loads each path: a FileDescriptorSet file, or a directory whose regular files are all
  // FileDescriptorSets. Null with *error set when a file cannot be read or built.
  static std::unique_ptr<Schema> Load(const std::vector<std::string>& paths, std::string* error);

  // The message type by its full name ("pkg.Msg", a leading '.' allowed), or null.
  const MessageInfo* Find(std::string_view full_name) const;
  // Every message type name loaded (for diagnostics and tests).
  std::vector<std::string> MessageNames() const;

  // Runs a request with protobuf on either side (FormatSchema); out is null for Validate.
  Status Run(const TranscodeRequest& request, OutputBuffer* out,
             TranscodeStats* stats) const override;
  uint32_t FixedRecordSize(std::string_view message_type) const override;

  struct Impl;

 private:
  explicit Schema(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rosetta::codec
