#include "service/listener.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace rosetta::service {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

bool ParseListen(const std::string& listen, asio::io_context& io, tcp::endpoint* endpoint) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = listen.substr(0, colon);
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  unsigned long port = 0;
  try {
    port = std::stoul(listen.substr(colon + 1));
  } catch (...) {
    return false;
  }
  if (port > 65535) return false;
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (ec) {
    tcp::resolver resolver(io);
    auto results = resolver.resolve(host, "", ec);
    if (ec || results.empty()) return false;
    address = results.begin()->endpoint().address();
  }
  *endpoint = tcp::endpoint(address, static_cast<uint16_t>(port));
  return true;
}

Listener::Listener(IoPool& pool, Metrics& metrics, Transport transport, OnAccept on_accept)
    : pool_(pool), metrics_(metrics), transport_(transport), on_accept_(std::move(on_accept)) {}

Listener::~Listener() {
  if (reserve_fd_ >= 0) ::close(reserve_fd_);
}

int Listener::Start(const std::string& listen) {
  tcp::endpoint endpoint;
  if (!ParseListen(listen, pool_.io(0), &endpoint)) return -1;
  acceptor_ = std::make_unique<tcp::acceptor>(pool_.io(0));
  retry_ = std::make_unique<asio::steady_timer>(pool_.io(0));
  boost::system::error_code ec;
  acceptor_->open(endpoint.protocol(), ec);
  if (!ec) acceptor_->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_->bind(endpoint, ec);
  if (!ec) acceptor_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return -1;
  reserve_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int port = acceptor_->local_endpoint().port();
  asio::post(pool_.io(0), [this] { Accept(); });
  return port;
}

void Listener::Close() {
  if (closed_.exchange(true) || !acceptor_) return;
  asio::post(pool_.io(0), [this] {
    boost::system::error_code ec;
    acceptor_->close(ec);
    retry_->cancel();
  });
}

void Listener::Accept() {
  if (closed_) return;
  const size_t worker = pool_.Next();
  acceptor_->async_accept(pool_.io(worker),
                          [this, worker](boost::system::error_code ec, tcp::socket socket) {
                            if (ec == asio::error::operation_aborted || closed_) return;
                            if (!ec) {
                              on_accept_(std::move(socket), worker);
                              Accept();
                              return;
                            }
                            if (ec.value() == EMFILE || ec.value() == ENFILE) Shed();
                            // Out of descriptors or buffers: the connection stays in the backlog
                            // and the listener stays readable, so accepting again at once would
                            // spin a core for as long as the shortage lasts. Try again a little
                            // later.
                            retry_->expires_after(std::chrono::milliseconds(20));
                            retry_->async_wait([this](boost::system::error_code e) {
                              if (!e) Accept();
                            });
                          });
}

void Listener::Shed() {
  if (reserve_fd_ < 0) return;
  ::close(reserve_fd_);
  reserve_fd_ = -1;
  const int fd = ::accept4(acceptor_->native_handle(), nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) {
    ::close(fd);
    metrics_.Rejected(transport_, Rejection::kOutOfDescriptors);
  }
  reserve_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

}  // namespace rosetta::service
