// The client side of TLS for the stream transports (TCP frames, HTTP/1.1): one context
// per run from the --tls* flags; per connection, the name it sends (SNI) and verifies.
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <boost/asio/ssl.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "load/generator/load_run.h"

namespace rosetta::load {

// TLS 1.2 or 1.3; the server verified against tls.ca_file when given (else not at all); the
// client certificate of tls.cert_file when given; ALPN offering `alpn` unless it is empty.
// Null with *error when a file cannot be used.
std::unique_ptr<boost::asio::ssl::context> MakeTlsContext(const TlsConfig& tls,
                                                          std::string_view alpn,
                                                          std::string* error);

// Before the handshake: SNI with the server name (never an IP address, RFC 6066 section 3)
// and, when the server is verified, the name or address its certificate must carry. The
// server name is tls.server_name, or `host` without it.
bool PrepareTlsClient(SSL* ssl, const TlsConfig& tls, const std::string& host, std::string* error);

// Why a handshake failed: the error, and OpenSSL's verification result when that failed.
std::string TlsHandshakeError(SSL* ssl, const TlsConfig& tls, const boost::system::error_code& ec);

}  // namespace rosetta::load
