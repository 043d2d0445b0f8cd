// The gRPC calls of a connection (grpc_connection.h): each whole request message becomes a
// Request for the one pipeline, or a health or reflection answer.
#include <array>
#include <string>
#include <tuple>

#include "rosetta/v1/transcoder.pb.h"
#include "service/grpc_connection.h"
#include "service/grpc_reflection.h"
#include "service/grpc_server.h"
#include "service/pipeline.h"

namespace rosetta::service {
namespace {

// The proto's Limits and Options fields, found once by the names of the codec's tables
// (limits.h, options.h): no field is spelled out here. service tests check that every row
// has its field and every field its row.
template <class Message, class Table>
auto FieldsByName(const Table& table) {
  std::array<const google::protobuf::FieldDescriptor*, std::tuple_size_v<Table>> fields{};
  for (size_t i = 0; i < table.size(); ++i) {
    fields[i] = Message::descriptor()->FindFieldByName(std::string(table[i].name));
  }
  return fields;
}

codec::Limits ToLimits(const ServiceConfig& config, const rosetta::v1::Limits& l) {
  static const auto fields = FieldsByName<rosetta::v1::Limits>(codec::kLimitTable);
  const google::protobuf::Reflection* reflection = l.GetReflection();
  codec::Limits request = codec::KeepLimits();
  for (size_t i = 0; i < fields.size(); ++i) {
    const google::protobuf::FieldDescriptor* f = fields[i];
    const uint64_t v = f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_UINT32
                           ? reflection->GetUInt32(l, f)
                           : reflection->GetUInt64(l, f);
    const codec::LimitInfo& info = codec::kLimitTable[i];
    info.set(request, v < info.hard_cap ? v : info.hard_cap);
  }
  return config.limits.LowerTo(request);
}

codec::MappingOptions ToOptions(const rosetta::v1::Options& o) {
  static const auto fields = FieldsByName<rosetta::v1::Options>(codec::kOptionTable);
  codec::MappingOptions options;
  const google::protobuf::Reflection* reflection = o.GetReflection();
  for (size_t i = 0; i < fields.size(); ++i)
    options.*codec::kOptionTable[i].field = reflection->GetBool(o, fields[i]);
  return options;
}

void ToError(const codec::Status& s, rosetta::v1::Error* e) {
  e->set_code(std::string(codec::CodeName(s.code)));
  e->set_offset(s.offset);
  e->set_path(s.path);
  e->set_message(s.message);
}

std::string Framed(const google::protobuf::MessageLite& m) {
  std::string out;
  const size_t size = m.ByteSizeLong();
  out.reserve(5 + size);
  grpc::AppendPrefix(&out, false, static_cast<uint32_t>(size));
  m.AppendToString(&out);
  return out;
}

// The request fields a Transcode / Validate names by number, read from the wire: the payload
// stays a view into the message. A Limits or Options given more than once (which protobuf
// merges) is read by libprotobuf from the whole message instead.
struct RequestFields {
  int format_in, format_out, payload, message_type, limits, schema, options;
};
constexpr RequestFields kTranscodeFields = {1, 2, 3, 4, 5, 6, 7};
constexpr RequestFields kValidateFields = {1, 1, 2, 3, 4, 5, 6};

template <class Full>
bool ReadRequest(std::string_view message, size_t padding, const RequestFields& n,
                 const ServiceConfig& config, Request* r, Full* full) {
  grpc::WireFields f;
  if (!grpc::ReadWireFields(message, &f)) return false;
  auto wire_ok = [&](int field, int wire) {
    return f.seen[field] == 0 || f.wire_type[field] == wire;
  };
  if (!wire_ok(n.format_in, 0) || !wire_ok(n.format_out, 0) || !wire_ok(n.payload, 2) ||
      !wire_ok(n.message_type, 2) || !wire_ok(n.limits, 2) || !wire_ok(n.schema, 2) ||
      !wire_ok(n.options, 2))
    return false;
  if (f.seen[n.limits] > 1 || f.seen[n.options] > 1) {
    if (!full->ParseFromArray(message.data(), static_cast<int>(message.size()))) return false;
    r->limits = ToLimits(config, full->limits());
    r->options = ToOptions(full->options());
  } else {
    r->limits = config.limits;
    if (f.seen[n.limits]) {
      rosetta::v1::Limits l;
      const std::string_view b = f.bytes[n.limits];
      if (!l.ParseFromArray(b.data(), static_cast<int>(b.size()))) return false;
      r->limits = ToLimits(config, l);
    }
    if (f.seen[n.options]) {
      rosetta::v1::Options o;
      const std::string_view b = f.bytes[n.options];
      if (!o.ParseFromArray(b.data(), static_cast<int>(b.size()))) return false;
      r->options = ToOptions(o);
    }
  }
  r->input = static_cast<codec::Format>(static_cast<int32_t>(f.varint[n.format_in]));
  r->output = static_cast<codec::Format>(static_cast<int32_t>(f.varint[n.format_out]));
  r->payload = f.bytes[n.payload];
  // Readable bytes after the payload: the rest of the message and the message's own padding.
  r->padding = r->payload.empty() ? 0
                                  : static_cast<size_t>(message.data() + message.size() -
                                                        (r->payload.data() + r->payload.size())) +
                                        padding;
  r->message_type = f.bytes[n.message_type];
  r->schema = f.bytes[n.schema];
  return true;
}

enum HealthStatus { kServing = 1, kNotServing = 2, kServiceUnknown = 3 };

bool KnownHealthService(std::string_view name) {
  return name.empty() || name == "rosetta.v1.Transcoder";
}

std::string HealthResponse(int status) {
  std::string out;
  grpc::AppendPrefix(&out, false, 2);
  out += '\x08';
  out += static_cast<char>(status);
  return out;
}

}  // namespace

void GrpcConnection::Handle(Stream& s, std::string_view message, size_t padding) {
  switch (s.method) {
    case GrpcMethod::kTranscode:
      HandleTranscode(s, message, padding, false);
      break;
    case GrpcMethod::kTranscodeStream:
      HandleTranscode(s, message, padding, true);
      if (draining_ && !s.finished) Finish(s, grpc::Code::kOk);  // drain: after this request
      break;
    case GrpcMethod::kValidate:
      HandleValidate(s, message, padding);
      break;
    case GrpcMethod::kHealthCheck:
      HandleHealthCheck(s, message);
      break;
    case GrpcMethod::kHealthWatch:
      HandleHealthWatch(s, message);
      break;
    case GrpcMethod::kReflection: {
      std::string answer;
      if (!ReflectionAnswer(message, &answer)) {
        Finish(s, grpc::Code::kInternal, "cannot parse the ServerReflectionRequest");
        break;
      }
      std::string framed;
      framed.reserve(5 + answer.size());
      grpc::AppendPrefix(&framed, false, static_cast<uint32_t>(answer.size()));
      framed += answer;
      SendMessage(s, std::move(framed));
      if (draining_) Finish(s, grpc::Code::kOk);
      break;
    }
    case GrpcMethod::kUnknown:
      break;
  }
}

void GrpcConnection::HandleTranscode(Stream& s, std::string_view message, size_t padding,
                                     bool stream) {
  RequestScope scope;
  Request r;
  r.op = Op::kTranscode;
  rosetta::v1::TranscodeRequest full;
  if (!ReadRequest(message, padding, kTranscodeFields, server_.config_, &r, &full)) {
    Finish(s, grpc::Code::kInternal, "cannot parse the TranscodeRequest message");
    return;
  }
  server_.pipeline_.Run(
      Transport::kGrpc, scope, r,
      [&](const codec::Status& st, std::string_view output) {
        if (st.ok()) {
          // TranscodeResponse{payload = 1}: its field header, then the output, one copy.
          const size_t size =
              output.empty() ? 0 : 1 + grpc::VarintSize(output.size()) + output.size();
          std::string framed;
          framed.reserve(5 + size);
          grpc::AppendPrefix(&framed, false, static_cast<uint32_t>(size));
          if (!output.empty()) {
            framed += '\x0a';
            grpc::AppendVarint(&framed, output.size());
            framed.append(output.data(), output.size());
          }
          SendMessage(s, std::move(framed));
          if (!stream) Finish(s, grpc::Code::kOk);
          return;
        }
        rosetta::v1::Error error;
        ToError(st, &error);
        if (stream) {
          // A bad message gets a response with `error` set, and the stream goes on.
          rosetta::v1::TranscodeResponse response;
          *response.mutable_error() = std::move(error);
          SendMessage(s, Framed(response));
          return;
        }
        Finish(s,
               codec::IsLimitError(st.code) ? grpc::Code::kResourceExhausted
                                            : grpc::Code::kInvalidArgument,
               st.ToString(), error.SerializeAsString());
      },
      s.read_allocations);
}

void GrpcConnection::FinishError(Stream& s, grpc::Code code, const codec::Status& status) {
  rosetta::v1::Error error;
  ToError(status, &error);
  Finish(s, code, status.ToString(), error.SerializeAsString());
}

void GrpcConnection::HandleValidate(Stream& s, std::string_view message, size_t padding) {
  RequestScope scope;
  Request r;
  r.op = Op::kValidate;
  rosetta::v1::ValidateRequest full;
  if (!ReadRequest(message, padding, kValidateFields, server_.config_, &r, &full)) {
    Finish(s, grpc::Code::kInternal, "cannot parse the ValidateRequest message");
    return;
  }
  r.output = r.input;
  r.all_violations = true;  // ValidateResponse.violations: every one, up to max_violations
  server_.pipeline_.Run(
      Transport::kGrpc, scope, r,
      [&](const codec::Status& st, std::string_view) {
        rosetta::v1::ValidateResponse response;
        response.set_valid(st.ok());
        if (!st.ok()) ToError(st, response.mutable_error());
        for (const codec::Status& v : Pipeline::Violations()) ToError(v, response.add_violations());
        SendMessage(s, Framed(response));
        Finish(s, grpc::Code::kOk);
      },
      s.read_allocations);
}

namespace {
bool ReadHealthService(std::string_view message, std::string* service) {
  grpc::WireFields f;
  if (!grpc::ReadWireFields(message, &f) || (f.seen[1] && f.wire_type[1] != 2)) return false;
  service->assign(f.bytes[1]);
  return true;
}
}  // namespace

void GrpcConnection::HandleHealthCheck(Stream& s, std::string_view message) {
  std::string service;
  if (!ReadHealthService(message, &service)) {
    Finish(s, grpc::Code::kInternal, "cannot parse the HealthCheckRequest");
    return;
  }
  if (!KnownHealthService(service)) {
    Finish(s, grpc::Code::kNotFound, "unknown service");
    return;
  }
  SendMessage(s, HealthResponse(server_.serving() ? kServing : kNotServing));
  Finish(s, grpc::Code::kOk);
}

void GrpcConnection::HandleHealthWatch(Stream& s, std::string_view message) {
  if (s.messages > 1) return;  // a server-streaming call reads one request
  if (!ReadHealthService(message, &s.watch_service)) {
    Finish(s, grpc::Code::kInternal, "cannot parse the HealthCheckRequest");
    return;
  }
  SendHealth(s);
  if (draining_) Finish(s, grpc::Code::kOk);
}

void GrpcConnection::SendHealth(Stream& s) {
  const int status = !KnownHealthService(s.watch_service) ? kServiceUnknown
                     : server_.serving()                  ? kServing
                                                          : kNotServing;
  if (status == s.last_health) return;
  s.last_health = status;
  SendMessage(s, HealthResponse(status));
}

}  // namespace rosetta::service
