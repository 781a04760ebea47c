// A TCP forwarder that gives the embedded broker a fixed, well-known bootstrap address
// (localhost:9092 by default in `sparse kafka serve`), so a topology written against it runs
// unchanged against a real cluster that listens there too.
//
// Only bootstrapping goes through it: Kafka clients learn every broker's own address from the
// metadata they fetch, and then connect to the brokers directly. Runs its own thread; bytes are
// copied in both directions until either side closes.
#pragma once

#include <memory>
#include <string>

namespace sparse::kafka {

class BootstrapProxy {
 public:
  // Listens on host:port and forwards every connection to `target` ("host:port"). Returns
  // nullptr and sets `error` when the port cannot be bound.
  static std::unique_ptr<BootstrapProxy> Start(const std::string& host, int port,
                                               const std::string& target, std::string& error);
  ~BootstrapProxy();  // stops accepting, closes connections, joins the thread
  BootstrapProxy(const BootstrapProxy&) = delete;
  BootstrapProxy& operator=(const BootstrapProxy&) = delete;

  // The address it listens on ("127.0.0.1:9092").
  const std::string& address() const { return address_; }

  struct Impl;

 private:
  explicit BootstrapProxy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::string address_;
};

}  // namespace sparse::kafka
