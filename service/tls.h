#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>  // before Asio: Boost 1.74 awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

#include "service/config.h"

namespace rosetta::service {

// What a listener asks of ALPN: gRPC needs h2; HTTP/1.1 picks http/1.1 even when a client
// offers h2 first (as curl does); the TCP frame protocol takes none.
enum class Alpn : uint8_t { kNone, kH2, kHttp11 };

// The one OpenSSL context of the gRPC, TCP and HTTP listeners (Asio's ssl), made from
// --tls-cert, --tls-key and --tls-client-ca: TLS 1.2 and 1.3 only, Debian's OpenSSL
// defaults for ciphers, client certificates required and verified when a client CA is
// given. Reload (SIGHUP) builds a new context from the same files and swaps it in: new
// handshakes get it, open connections keep the one they started with (each holds a
// reference); a reload that fails keeps the old one.
class Tls {
 public:
  // Null, with *error set, when the files do not make a context.
  static std::unique_ptr<Tls> Load(const ServiceConfig& config, std::string* error);

  bool Reload(std::string* error);
  std::shared_ptr<boost::asio::ssl::context> context() const {
    std::lock_guard<std::mutex> lock(mu_);
    return context_;
  }

 private:
  explicit Tls(const ServiceConfig& config)
      : cert_(config.tls_cert), key_(config.tls_key), client_ca_(config.tls_client_ca) {}
  std::shared_ptr<boost::asio::ssl::context> Build(std::string* error) const;

  const std::string cert_, key_, client_ca_;
  mutable std::mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> context_;
};

// A connection's byte stream: the socket itself, or TLS over it. Each front-end reads and
// writes through it, so the protocol code is the same with and without TLS.
class ByteStream {
 public:
  using tcp = boost::asio::ip::tcp;
  explicit ByteStream(tcp::socket socket) : socket_(std::move(socket)) {}

  // Makes the connection TLS (before any byte is read); the handshake is Handshake's.
  void UseTls(std::shared_ptr<boost::asio::ssl::context> context, Alpn alpn);
  bool tls() const { return tls_ != nullptr; }
  tcp::socket& socket() { return socket_; }

  template <class Handler>
  void Handshake(Handler&& handler) {
    tls_->async_handshake(boost::asio::ssl::stream_base::server, std::forward<Handler>(handler));
  }
  template <class Buffers, class Handler>
  void ReadSome(const Buffers& buffers, Handler&& handler) {
    if (tls_) return tls_->async_read_some(buffers, std::forward<Handler>(handler));
    socket_.async_read_some(buffers, std::forward<Handler>(handler));
  }
  // What can be read now without waiting (the socket is non-blocking): 0 and would_block
  // when nothing is. Over TLS, the records the kernel already holds are decrypted too.
  template <class Buffers>
  size_t ReadNow(const Buffers& buffers, boost::system::error_code& ec) {
    if (tls_) return tls_->read_some(buffers, ec);
    return socket_.read_some(buffers, ec);
  }
  template <class Buffers, class Handler>
  void Write(const Buffers& buffers, Handler&& handler) {
    if (tls_) return boost::asio::async_write(*tls_, buffers, std::forward<Handler>(handler));
    boost::asio::async_write(socket_, buffers, std::forward<Handler>(handler));
  }
  void Close() {
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

 private:
  tcp::socket socket_;
  std::shared_ptr<boost::asio::ssl::context> context_;  // the one this connection started with
  std::unique_ptr<boost::asio::ssl::stream<tcp::socket&>> tls_;
};

}  // namespace rosetta::service
