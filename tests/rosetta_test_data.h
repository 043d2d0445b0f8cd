#pragma once

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

namespace rosetta::testing {

// The shared conformance and corpus data: $ROSETTA_DATA_DIR, else ../shared/data beside
// the project root (never copied into the project).
inline std::string DataDir() {
  if (const char* env = std::getenv("ROSETTA_DATA_DIR"); env && *env) return env;
  return ROSETTA_DEFAULT_DATA_DIR;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace rosetta::testing
