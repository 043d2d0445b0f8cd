#include "service/grpc_reflection.h"

#include <set>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include "grpc/health/v1/health.pb.h"
#include "grpc/reflection/v1/reflection.pb.h"
#include "grpc/reflection/v1alpha/reflection.pb.h"
#include "rosetta/v1/transcoder.pb.h"

namespace rosetta::service {
namespace {

namespace pb = google::protobuf;
namespace refl = ::grpc::reflection::v1;

// The services rosettad answers, in the order reflection lists them. Each one's
// descriptor is named here, which also links its generated file into the binary (and so
// into the generated pool reflection reads).
const std::vector<const pb::ServiceDescriptor*>& Services() {
  static const std::vector<const pb::ServiceDescriptor*> services = {
      rosetta::v1::TranscodeRequest::descriptor()->file()->FindServiceByName("Transcoder"),
      ::grpc::health::v1::HealthCheckRequest::descriptor()->file()->FindServiceByName("Health"),
      refl::ServerReflectionRequest::descriptor()->file()->FindServiceByName("ServerReflection"),
      ::grpc::reflection::v1alpha::ServerReflectionRequest::descriptor()->file()->FindServiceByName(
          "ServerReflection"),
  };
  return services;
}

// A file and every file it imports, each once, dependencies first (what gRPC's own
// reflection sends, so a client can build its pool from one answer).
void AddFile(const pb::FileDescriptor* file, std::set<const pb::FileDescriptor*>* seen,
             refl::FileDescriptorResponse* out) {
  if (!seen->insert(file).second) return;
  for (int i = 0; i < file->dependency_count(); ++i) AddFile(file->dependency(i), seen, out);
  pb::FileDescriptorProto proto;
  file->CopyTo(&proto);
  proto.SerializeToString(out->add_file_descriptor_proto());
}

void NotFound(refl::ServerReflectionResponse* response, const std::string& what) {
  response->mutable_error_response()->set_error_code(5);  // NOT_FOUND
  response->mutable_error_response()->set_error_message(what + " not found");
}

}  // namespace

bool ReflectionAnswer(std::string_view request_bytes, std::string* answer) {
  refl::ServerReflectionRequest request;
  if (!request.ParseFromArray(request_bytes.data(), static_cast<int>(request_bytes.size())))
    return false;
  const pb::DescriptorPool* pool = pb::DescriptorPool::generated_pool();
  Services();  // every service file linked in and registered
  refl::ServerReflectionResponse response;
  response.set_valid_host(request.host());
  *response.mutable_original_request() = request;
  std::set<const pb::FileDescriptor*> seen;
  switch (request.message_request_case()) {
    case refl::ServerReflectionRequest::kListServices:
      for (const pb::ServiceDescriptor* s : Services())
        response.mutable_list_services_response()->add_service()->set_name(s->full_name());
      break;
    case refl::ServerReflectionRequest::kFileByFilename: {
      const pb::FileDescriptor* file = pool->FindFileByName(request.file_by_filename());
      if (file == nullptr) {
        NotFound(&response, "file " + request.file_by_filename());
      } else {
        AddFile(file, &seen, response.mutable_file_descriptor_response());
      }
      break;
    }
    case refl::ServerReflectionRequest::kFileContainingSymbol: {
      const pb::FileDescriptor* file =
          pool->FindFileContainingSymbol(request.file_containing_symbol());
      if (file == nullptr) {
        NotFound(&response, "symbol " + request.file_containing_symbol());
      } else {
        AddFile(file, &seen, response.mutable_file_descriptor_response());
      }
      break;
    }
    case refl::ServerReflectionRequest::kFileContainingExtension: {
      const auto& ext = request.file_containing_extension();
      const pb::Descriptor* type = pool->FindMessageTypeByName(ext.containing_type());
      const pb::FieldDescriptor* field =
          type ? pool->FindExtensionByNumber(type, ext.extension_number()) : nullptr;
      if (field == nullptr) {
        NotFound(&response, "extension " + std::to_string(ext.extension_number()) + " of " +
                                ext.containing_type());
      } else {
        AddFile(field->file(), &seen, response.mutable_file_descriptor_response());
      }
      break;
    }
    case refl::ServerReflectionRequest::kAllExtensionNumbersOfType: {
      const pb::Descriptor* type =
          pool->FindMessageTypeByName(request.all_extension_numbers_of_type());
      if (type == nullptr) {
        NotFound(&response, "type " + request.all_extension_numbers_of_type());
        break;
      }
      std::vector<const pb::FieldDescriptor*> extensions;
      pool->FindAllExtensions(type, &extensions);
      auto* numbers = response.mutable_all_extension_numbers_response();
      numbers->set_base_type_name(type->full_name());
      for (const pb::FieldDescriptor* f : extensions) numbers->add_extension_number(f->number());
      break;
    }
    default:
      response.mutable_error_response()->set_error_code(12);  // UNIMPLEMENTED
      response.mutable_error_response()->set_error_message("unknown reflection request");
  }
  return response.SerializeToString(answer);
}

}  // namespace rosetta::service
