#pragma once

#include <string>
#include <string_view>

namespace rosetta::service {

// Server reflection (grpc.reflection.v1 and v1alpha, whose messages are the same on the
// wire): one ServerReflectionResponse per ServerReflectionRequest, from the descriptors
// compiled into rosettad (rosetta.v1, grpc.health.v1, the reflection service itself).
// False when `request` is not a ServerReflectionRequest.
bool ReflectionAnswer(std::string_view request, std::string* answer);

}  // namespace rosetta::service
