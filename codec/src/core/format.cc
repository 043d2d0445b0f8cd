#include "rosetta/codec/format.h"

#include <optional>
#include <string>
#include <string_view>

namespace rosetta::codec {

std::optional<Format> ParseFormat(std::string_view name) {
  for (const FormatInfo& f : kFormatTable) {
    if (f.name == name) return f.format;
  }
  return std::nullopt;
}

std::string FormatList() {
  std::string list;
  for (const FormatInfo& f : kFormatTable) {
    if (!list.empty()) list += ", ";
    list += std::string(f.name) + " (" + std::to_string(static_cast<int>(f.format)) + ")";
  }
  return list;
}

std::string_view FormatName(Format format) {
  const FormatInfo* f = FindFormat(static_cast<int>(format));
  return f ? f->name : "unknown";
}

}  // namespace rosetta::codec
