#include "kafka/bootstrap_proxy.hpp"

#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <thread>

namespace sparse::kafka {

namespace {

using boost::asio::ip::tcp;

// One client connection and its upstream connection; lives while either direction runs.
class Link : public std::enable_shared_from_this<Link> {
 public:
  Link(tcp::socket client, tcp::socket upstream)
      : client_(std::move(client)), upstream_(std::move(upstream)) {}

  void Start() {
    Pump(client_, upstream_, up_buf_);
    Pump(upstream_, client_, down_buf_);
  }

 private:
  void Pump(tcp::socket& from, tcp::socket& to, std::array<char, 65536>& buf) {
    auto self = shared_from_this();
    from.async_read_some(
        boost::asio::buffer(buf),
        [this, self, &from, &to, &buf](boost::system::error_code ec, std::size_t n) {
          if (ec) {
            Shutdown();
            return;
          }
          boost::asio::async_write(
              to, boost::asio::buffer(buf.data(), n),
              [this, self, &from, &to, &buf](boost::system::error_code ec2, std::size_t) {
                if (ec2) {
                  Shutdown();
                  return;
                }
                Pump(from, to, buf);
              });
        });
  }

  void Shutdown() {
    boost::system::error_code ignored;
    client_.close(ignored);
    upstream_.close(ignored);
  }

  tcp::socket client_;
  tcp::socket upstream_;
  std::array<char, 65536> up_buf_{};
  std::array<char, 65536> down_buf_{};
};

}  // namespace

struct BootstrapProxy::Impl {
  boost::asio::io_context io;
  tcp::acceptor acceptor{io};
  tcp::endpoint target;
  std::thread thread;

  void Accept() {
    acceptor.async_accept([this](boost::system::error_code ec, tcp::socket client) {
      if (ec) {
        if (ec == boost::asio::error::operation_aborted) return;
        Accept();
        return;
      }
      tcp::socket upstream(io);
      boost::system::error_code cec;
      upstream.connect(target, cec);  // loopback: immediate
      if (!cec) std::make_shared<Link>(std::move(client), std::move(upstream))->Start();
      Accept();
    });
  }
};

std::unique_ptr<BootstrapProxy> BootstrapProxy::Start(const std::string& host, int port,
                                                      const std::string& target,
                                                      std::string& error) {
  auto impl = std::make_unique<Impl>();
  const auto colon = target.rfind(':');
  boost::system::error_code ec;
  const auto target_addr = boost::asio::ip::make_address(target.substr(0, colon), ec);
  if (colon == std::string::npos || ec) {
    error = "bad target address `" + target + "`";
    return nullptr;
  }
  impl->target =
      tcp::endpoint(target_addr, static_cast<unsigned short>(std::stoi(target.substr(colon + 1))));
  const auto addr = boost::asio::ip::make_address(host, ec);
  if (ec) {
    error = "bad listen address `" + host + "`";
    return nullptr;
  }
  const tcp::endpoint listen(addr, static_cast<unsigned short>(port));
  impl->acceptor.open(listen.protocol(), ec);
  if (!ec) impl->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(listen, ec);
  if (!ec) impl->acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message();
    return nullptr;
  }
  const auto bound = impl->acceptor.local_endpoint();
  impl->Accept();
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->io.run(); });
  std::unique_ptr<BootstrapProxy> proxy(new BootstrapProxy(std::move(impl)));
  proxy->address_ = bound.address().to_string() + ":" + std::to_string(bound.port());
  return proxy;
}

BootstrapProxy::BootstrapProxy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BootstrapProxy::~BootstrapProxy() {
  boost::asio::post(impl_->io, [impl = impl_.get()] {
    boost::system::error_code ignored;
    impl->acceptor.close(ignored);
    impl->io.stop();
  });
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace sparse::kafka
