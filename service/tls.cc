#include "service/tls.h"

#include <openssl/ssl.h>

namespace rosetta::service {

namespace ssl = boost::asio::ssl;

namespace {

// ALPN protocol lists in their wire form (a length byte, then the name).
constexpr unsigned char kH2[] = "\x02h2";
constexpr unsigned char kHttp11[] = "\x08http/1.1";

// The slot of an SSL's ex data that holds its listener's ALPN list (Asio keeps its verify
// callback in the app data, and deletes it with the stream: not ours to use).
int AlpnIndex() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

// The server's choice: the one protocol of the connection's listener (set by UseTls), if
// the client offers it; else no ALPN at all.
int SelectAlpn(SSL* ssl, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
               unsigned int inlen, void*) {
  const auto* want = static_cast<const unsigned char*>(SSL_get_ex_data(ssl, AlpnIndex()));
  if (want == nullptr) return SSL_TLSEXT_ERR_NOACK;
  unsigned char* chosen = nullptr;
  unsigned char chosen_len = 0;
  if (SSL_select_next_proto(&chosen, &chosen_len, want, want[0] + 1u, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;
  *out = chosen;
  *outlen = chosen_len;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

std::unique_ptr<Tls> Tls::Load(const ServiceConfig& config, std::string* error) {
  std::unique_ptr<Tls> tls(new Tls(config));
  tls->context_ = tls->Build(error);
  if (!tls->context_) return nullptr;
  return tls;
}

bool Tls::Reload(std::string* error) {
  auto context = Build(error);
  if (!context) return false;
  std::lock_guard<std::mutex> lock(mu_);
  context_ = std::move(context);
  return true;
}

std::shared_ptr<ssl::context> Tls::Build(std::string* error) const {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  boost::system::error_code ec;
  auto failed = [&](const std::string& what) {
    *error = what + ": " + ec.message();
    return nullptr;
  };
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                           ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                           ssl::context::no_tlsv1_1 | ssl::context::single_dh_use,
                       ec);
  if (ec) return failed("TLS options");
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  context->use_certificate_chain_file(cert_, ec);
  if (ec) return failed("--tls-cert " + cert_);
  context->use_private_key_file(key_, ssl::context::pem, ec);
  if (ec) return failed("--tls-key " + key_);
  if (SSL_CTX_check_private_key(native) != 1) {
    *error = "--tls-key " + key_ + " does not match --tls-cert " + cert_;
    return nullptr;
  }
  if (!client_ca_.empty()) {
    context->load_verify_file(client_ca_, ec);
    if (ec) return failed("--tls-client-ca " + client_ca_);
    // The CA names sent in the CertificateRequest, so a client picks the right certificate.
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(client_ca_.c_str());
    if (names == nullptr) {
      *error = "--tls-client-ca " + client_ca_ + ": no certificate in it";
      return nullptr;
    }
    SSL_CTX_set_client_CA_list(native, names);
    context->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
    if (ec) return failed("--tls-client-ca");
  }
  // Resumed sessions (verified once) are tied to this server.
  static constexpr unsigned char kSessionContext[] = "rosettad";
  SSL_CTX_set_session_id_context(native, kSessionContext, sizeof kSessionContext - 1);
  SSL_CTX_set_alpn_select_cb(native, SelectAlpn, nullptr);
  return context;
}

void ByteStream::UseTls(std::shared_ptr<ssl::context> context, Alpn alpn) {
  context_ = std::move(context);
  tls_ = std::make_unique<ssl::stream<tcp::socket&>>(socket_, *context_);
  const unsigned char* want = alpn == Alpn::kH2 ? kH2 : alpn == Alpn::kHttp11 ? kHttp11 : nullptr;
  SSL_set_ex_data(tls_->native_handle(), AlpnIndex(), const_cast<unsigned char*>(want));
}

}  // namespace rosetta::service
