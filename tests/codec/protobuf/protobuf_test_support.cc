#include "protobuf_test_support.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

namespace rosetta::codec {

void PrintTo(const Status& s, std::ostream* os) {
  *os << CodeName(s.code) << " at byte " << s.offset << " (" << s.path << "): " << s.message;
}

namespace prototest {
namespace {

namespace pb = google::protobuf;

struct LibprotobufSide {
  pb::DescriptorPool pool;
  pb::DynamicMessageFactory factory{&pool};
};

LibprotobufSide& Side() {
  static LibprotobufSide* side = [] {
    auto* s = new LibprotobufSide;
    std::ifstream in(DescriptorSetPath(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    pb::FileDescriptorSet set;
    if (!set.ParseFromString(bytes)) throw std::runtime_error("cannot read " + DescriptorSetPath());
    for (const pb::FileDescriptorProto& file : set.file()) {
      if (s->pool.BuildFile(file) == nullptr)
        throw std::runtime_error("cannot build " + file.name());
    }
    return s;
  }();
  return *side;
}

}  // namespace

std::string DescriptorSetPath() { return ROSETTA_TEST_DESCRIPTOR_SET; }

const Schema& TestSchema() {
  static const Schema* schema = [] {
    std::string error;
    std::unique_ptr<Schema> s = Schema::Load({DescriptorSetPath()}, &error);
    if (!s) throw std::runtime_error(error);
    return s.release();
  }();
  return *schema;
}

const pb::DescriptorPool& Pool() { return Side().pool; }

std::unique_ptr<pb::Message> NewMessage(std::string_view type) {
  const pb::Descriptor* d = Pool().FindMessageTypeByName(std::string(type));
  if (d == nullptr) throw std::invalid_argument("no message type " + std::string(type));
  return std::unique_ptr<pb::Message>(Side().factory.GetPrototype(d)->New());
}

std::string Wire(std::string_view text, std::string_view type) {
  std::unique_ptr<pb::Message> m = NewMessage(type);
  if (!pb::TextFormat::ParseFromString(std::string(text), m.get())) {
    ADD_FAILURE() << "not text format of " << type << ": " << text;
    return {};
  }
  // Deterministic: map entries sorted by key, so expected bytes can be compared.
  std::string out;
  {
    pb::io::StringOutputStream stream(&out);
    pb::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m->SerializeToCodedStream(&coded);
  }
  return out;
}

std::string Text(std::string_view wire, std::string_view type) {
  std::unique_ptr<pb::Message> m = NewMessage(type);
  if (!m->ParseFromArray(wire.data(), static_cast<int>(wire.size()))) return "<unparsable>";
  // Any contents printed as messages (canonical field order), not as their bytes.
  pb::TextFormat::Printer printer;
  printer.SetExpandAny(true);
  std::string text;
  printer.PrintToString(*m, &text);
  return text;
}

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

std::string Tag(uint32_t number, int wire_type) {
  return Varint(uint64_t{number} << 3 | static_cast<uint64_t>(wire_type));
}
std::string VarintField(uint32_t number, uint64_t v) { return Tag(number, 0) + Varint(v); }
std::string LenField(uint32_t number, std::string_view bytes) {
  return Tag(number, 2) + Varint(bytes.size()) + std::string(bytes);
}
std::string Fixed32Field(uint32_t number, uint32_t v) {
  std::string out = Tag(number, 5);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}
std::string Fixed64Field(uint32_t number, uint64_t v) {
  std::string out = Tag(number, 1);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

Result Convert(Format from, Format to, std::string_view input, std::string_view type,
               const MappingOptions& options, const Limits& limits) {
  std::string buffer(input);
  buffer.append(kInputPadding, '\0');
  TranscodeRequest request;
  request.from = from;
  request.to = to;
  request.input = std::string_view(buffer.data(), input.size());
  request.input_padding = kInputPadding;
  request.limits = limits;
  request.options = options;
  request.schema = &TestSchema();
  request.message_type = type;
  OutputBuffer out;
  Result r;
  r.status.message.reserve(256);
  r.status.path.reserve(256);
  {
    rosetta::heap::Watch watch;
    r.status = Transcode(request, out, &r.stats);
    r.heap = watch.Stop();
  }
  r.out = std::string(out.view());
  return r;
}

Result Check(Format from, std::string_view input, std::string_view type,
             const MappingOptions& options, const Limits& limits) {
  std::string buffer(input);
  buffer.append(kInputPadding, '\0');
  TranscodeRequest request;
  request.from = from;
  request.input = std::string_view(buffer.data(), input.size());
  request.input_padding = kInputPadding;
  request.limits = limits;
  request.options = options;
  request.schema = &TestSchema();
  request.message_type = type;
  Result r;
  {
    rosetta::heap::Watch watch;
    r.status = Validate(request, &r.stats);
    r.heap = watch.Stop();
  }
  return r;
}

}  // namespace prototest
}  // namespace rosetta::codec
