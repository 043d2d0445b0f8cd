#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace rosetta::fuzz {

// Records what a document holds that a peer decoder may not model (for differential
// targets): simple values, undefined, non-text map keys, tags, depth.
struct FeatureSink {
  bool simple = false;
  bool non_text_key = false;
  bool tag = false;
  int depth = 0, max_depth = 0;
  std::vector<uint64_t> items;  // per open container: items so far (maps: keys and values)
  std::vector<bool> is_map;

  void Item(bool text) {
    if (!items.empty()) {
      if (is_map.back() && items.back() % 2 == 0 && !text) non_text_key = true;
      ++items.back();
    }
  }
  bool Null() { return Item(false), true; }
  bool Undefined() { return simple = true, Item(false), true; }
  bool Bool(bool) { return Item(false), true; }
  bool Simple(uint8_t) { return simple = true, Item(false), true; }
  bool Uint(uint64_t) { return Item(false), true; }
  bool NegInt(uint64_t) { return Item(false), true; }
  bool Double(double) { return Item(false), true; }
  bool Text(std::string_view) { return Item(true), true; }
  bool Bytes(std::string_view) { return Item(false), true; }
  bool Open(bool map) {
    Item(false);
    items.push_back(0);
    is_map.push_back(map);
    if (++depth > max_depth) max_depth = depth;
    return true;
  }
  bool Close() {
    items.pop_back();
    is_map.pop_back();
    --depth;
    return true;
  }
  bool BeginArray(uint64_t) { return Open(false); }
  bool BeginMap(uint64_t) { return Open(true); }
  bool EndArray() { return Close(); }
  bool EndMap() { return Close(); }
  bool Tag(uint64_t) { return tag = true; }
};

}  // namespace rosetta::fuzz
