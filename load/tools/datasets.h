#pragma once

#include <string_view>

#include "rosetta/codec/format.h"

namespace rosetta::load {

// The data sets rosetta-datasets writes (shaped like those of
// github.com/djkoloski/rust_serialization_benchmark), each as DIR/NAME.{json,cbor,msgpack,pb},
// and the protobuf message type of each (load/tools/proto/, descriptor set DIR/datasets.desc).
struct DatasetInfo {
  std::string_view name;
  std::string_view message_type;
  std::string_view description;
};

inline constexpr DatasetInfo kDatasets[] = {
    {"log", "rosetta.bench.log.Logs", "10,000 HTTP access log records"},
    {"mesh", "rosetta.bench.mesh.Mesh", "125,000 triangles: 3 vertices + normal, float32"},
    {"minecraft_savedata", "rosetta.bench.minecraft_savedata.Players",
     "500 players: nested inventories, positions, enums as strings, optional fields"},
    {"mk48", "rosetta.bench.mk48.Updates",
     "1,000 game updates: contacts with positions, velocities, ids; terrain bytes"},
    {"log_1k", "rosetta.bench.log.Logs",
     "the first log records that fit in 1 KiB of JSON (service benchmarks)"},
};

inline const DatasetInfo* FindDataset(std::string_view name) {
  for (const DatasetInfo& d : kDatasets) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

// The file name extension of a format in a data set directory.
inline std::string_view DatasetExtension(codec::Format f) {
  switch (f) {
    case codec::Format::kJson:
      return "json";
    case codec::Format::kCbor:
      return "cbor";
    case codec::Format::kMsgpack:
      return "msgpack";
    case codec::Format::kProtobuf:
      return "pb";
    case codec::Format::kFixed:
      return "fixed";
  }
  return "bin";
}

}  // namespace rosetta::load
