#include "load/generator/tls_client.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/ip/address.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rosetta::load {
namespace {

namespace ssl = boost::asio::ssl;

// OpenSSL's failure to open a file reads "asio.ssl error": say why first.
bool Readable(const std::string& path, const char* flag, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = std::string(flag) + " " + path + ": " + std::strerror(errno);
    return false;
  }
  std::fclose(f);
  return true;
}

}  // namespace

std::unique_ptr<ssl::context> MakeTlsContext(const TlsConfig& tls, std::string_view alpn,
                                             std::string* error) {
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  boost::system::error_code ec;
  if ((!tls.ca_file.empty() && !Readable(tls.ca_file, "--tls-ca", error)) ||
      (!tls.cert_file.empty() && (!Readable(tls.cert_file, "--tls-cert", error) ||
                                  !Readable(tls.key_file, "--tls-key", error))))
    return nullptr;
  if (!tls.ca_file.empty()) {
    ctx->load_verify_file(tls.ca_file, ec);
    if (ec) {
      *error = "--tls-ca " + tls.ca_file + ": " + ec.message();
      return nullptr;
    }
    ctx->set_verify_mode(ssl::verify_peer);
  } else {
    ctx->set_verify_mode(ssl::verify_none);
  }
  if (!tls.cert_file.empty()) {
    ctx->use_certificate_chain_file(tls.cert_file, ec);
    if (ec) {
      *error = "--tls-cert " + tls.cert_file + ": " + ec.message();
      return nullptr;
    }
    ctx->use_private_key_file(tls.key_file, ssl::context::pem, ec);
    if (ec) {
      *error = "--tls-key " + tls.key_file + ": " + ec.message();
      return nullptr;
    }
    if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
      *error = "--tls-key " + tls.key_file + " is not the key of --tls-cert " + tls.cert_file;
      return nullptr;
    }
  }
  if (!alpn.empty()) {
    // The wire form of the protocol list: each name after its length (RFC 7301 section 3.1).
    std::string wire(1, static_cast<char>(alpn.size()));
    wire += alpn;
    if (SSL_CTX_set_alpn_protos(ctx->native_handle(),
                                reinterpret_cast<const unsigned char*>(wire.data()),
                                static_cast<unsigned>(wire.size())) != 0) {  // 0 is success
      *error = "cannot set ALPN";
      return nullptr;
    }
  }
  return ctx;
}

bool PrepareTlsClient(SSL* ssl, const TlsConfig& tls, const std::string& host, std::string* error) {
  // Asio sets SSL_MODE_RELEASE_BUFFERS (memory of idle connections), which makes OpenSSL
  // allocate and free its 16 KiB record buffers for each read and write.
  SSL_clear_mode(ssl, SSL_MODE_RELEASE_BUFFERS);
  const std::string& name = tls.server_name.empty() ? host : tls.server_name;
  boost::system::error_code not_ip;
  boost::asio::ip::make_address(name, not_ip);
  if (not_ip && SSL_set_tlsext_host_name(ssl, name.c_str()) != 1) {
    *error = "cannot send the server name '" + name + "' (SNI)";
    return false;
  }
  if (tls.ca_file.empty()) return true;
  const int set = not_ip ? SSL_set1_host(ssl, name.c_str())
                         : X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name.c_str());
  if (set != 1) {
    *error = "cannot verify the server as '" + name + "'";
    return false;
  }
  return true;
}

std::string TlsHandshakeError(SSL* ssl, const TlsConfig& tls, const boost::system::error_code& ec) {
  std::string why = ec.message();
  const long verify = SSL_get_verify_result(ssl);
  if (!tls.ca_file.empty() && verify != X509_V_OK) {
    why += " (";
    why += X509_verify_cert_error_string(verify);
    why += ")";
  }
  return why;
}

}  // namespace rosetta::load
