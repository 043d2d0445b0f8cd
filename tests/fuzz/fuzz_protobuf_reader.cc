// Protobuf reader over a fixed schema (fuzz_schema.proto): never crashes, never allocates
// what a length claims; what rosetta accepts, libprotobuf's own parser (DynamicMessage)
// accepts too, within libprotobuf's recursion limit of 100.
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>

#include <fstream>
#include <iterator>
#include <memory>

#include "core/context.h"
#include "feature_sink.h"
#include "fuzz_common.h"
#include "protobuf/protobuf_reader.h"
#include "rosetta/codec/schema.h"

namespace {

struct Fixture {
  Fixture() {
    std::string error;
    schema = rosetta::codec::Schema::Load({ROSETTA_FUZZ_SCHEMA}, &error);
    if (!schema) rosetta::fuzz::Fail(error.c_str());
    root = schema->Find("rosetta.fuzz.Root");
    std::ifstream in(ROSETTA_FUZZ_SCHEMA, std::ios::binary);
    google::protobuf::FileDescriptorSet set;
    set.ParseFromString(std::string(std::istreambuf_iterator<char>(in), {}));
    for (const auto& file : set.file()) {
      if (!pool.FindFileByName(file.name())) pool.BuildFile(file);
    }
    prototype = factory.GetPrototype(pool.FindMessageTypeByName("rosetta.fuzz.Root"));
  }
  std::unique_ptr<rosetta::codec::Schema> schema;
  const rosetta::codec::MessageInfo* root;
  google::protobuf::DescriptorPool pool;
  google::protobuf::DynamicMessageFactory factory{&pool};
  const google::protobuf::Message* prototype;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rosetta;
  static Fixture fixture;
  const std::string_view wire(reinterpret_cast<const char*>(data), size);
  const codec::Limits limits = fuzz::ProductionLimits();
  const codec::MappingOptions options;
  codec::Context ctx(limits, options);
  fuzz::FeatureSink features;
  const bool ours = codec::ProtobufReader<fuzz::FeatureSink>(ctx, features, fixture.schema.get(),
                                                             *fixture.root, false)
                        .Read(wire);
  if (ctx.budget.used() > 64 * size + (64 << 10))
    fuzz::Fail("allocated more than the input can justify");
  if (!ours) return 0;
  // Accepted: into every format and back to protobuf, valid each time.
  for (codec::Format to : {codec::Format::kJson, codec::Format::kCbor, codec::Format::kProtobuf}) {
    codec::TranscodeRequest r;
    r.from = codec::Format::kProtobuf;
    r.to = to;
    r.input = wire;
    r.limits = limits;
    r.schema = fixture.schema.get();
    r.message_type = "rosetta.fuzz.Root";
    codec::OutputBuffer out;
    codec::Status s = codec::Transcode(r, out);
    if (!s.ok()) continue;  // e.g. a Timestamp out of JSON's range, NaN in a Value
    codec::TranscodeRequest back = r;
    back.from = to;
    back.to = codec::Format::kProtobuf;
    back.input = out.view();
    codec::OutputBuffer again;
    codec::Status b = codec::Transcode(back, again);
    if (!b.ok() && b.code != codec::ErrorCode::kSchemaMismatch &&
        b.code != codec::ErrorCode::kDuplicateKey) {
      fuzz::Fail("a transcode of accepted protobuf does not transcode back");
    }
  }
  if (features.max_depth > 100) return 0;
  std::unique_ptr<google::protobuf::Message> message(fixture.prototype->New());
  if (!message->ParseFromArray(data, static_cast<int>(size)))
    fuzz::Fail("rosetta accepts protobuf that libprotobuf refuses");
  return 0;
}
