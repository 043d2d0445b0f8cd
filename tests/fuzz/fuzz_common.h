#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "rosetta/codec/transcode.h"
#include "service/config.h"

namespace rosetta::fuzz {

// Every target runs under the production default limits (rosettad's), so that with
// -malloc_limit_mb=128 an allocation driven by a claim in the input is a crash.
inline codec::Limits ProductionLimits() { return service::ServiceConfig::DefaultLimits(); }

// The input with kInputPadding readable bytes after it, as the servers pass payloads.
struct Padded {
  explicit Padded(const uint8_t* data, size_t size) : bytes(data, data + size) {
    bytes.resize(size + codec::kInputPadding);
  }
  std::string_view view(size_t size) const {
    return {reinterpret_cast<const char*>(bytes.data()), size};
  }
  std::vector<uint8_t> bytes;
};

// A finding: the message names the property that failed.
[[noreturn]] inline void Fail(const char* what) {
  __builtin_fprintf(stderr, "fuzz property failed: %s\n", what);
  std::abort();
}

// Options to check a transcode's output with: the defaults (a transcode into JSON compares
// keys as the member names they become, so its output has no duplicates either).
inline codec::MappingOptions OutputCheck() { return {}; }

inline codec::Status Validate(codec::Format f, std::string_view input,
                              const codec::MappingOptions& options = {}) {
  codec::TranscodeRequest r;
  r.from = f;
  r.input = input;
  r.limits = ProductionLimits();
  r.options = options;
  return codec::Validate(r);
}

inline codec::Status Transcode(codec::Format from, codec::Format to, std::string_view input,
                               codec::OutputBuffer& out, size_t padding = 0,
                               const codec::MappingOptions& options = {}) {
  codec::TranscodeRequest r;
  r.from = from;
  r.to = to;
  r.input = input;
  r.input_padding = padding;
  r.limits = ProductionLimits();
  r.options = options;
  return codec::Transcode(r, out);
}

}  // namespace rosetta::fuzz
