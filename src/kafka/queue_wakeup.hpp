// Tells the event loop that records arrived, without librdkafka's threads calling into the
// runtime: librdkafka writes a byte to a pipe when its queue goes from empty to non-empty
// (rd_kafka_queue_io_event_enable), and the loop, which watches the pipe, calls `on_data`.
//
// Lives on the loop thread. The queue must outlive this object (the destructor disables the
// event before closing the pipe, so librdkafka never writes to a closed descriptor).
#pragma once

#include <librdkafka/rdkafka.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/lifetime_gate.hpp"

namespace sparse::kafka {

class QueueWakeup {
 public:
  QueueWakeup(boost::asio::io_context& io, rd_kafka_queue_t* queue, std::function<void()> on_data);
  ~QueueWakeup();
  QueueWakeup(const QueueWakeup&) = delete;
  QueueWakeup& operator=(const QueueWakeup&) = delete;

  // Creates the pipe and starts watching; an error means no wake-ups (polling still works).
  std::optional<std::string> Start();

 private:
  void Arm();

  rd_kafka_queue_t* queue_;
  std::function<void()> on_data_;
  boost::asio::posix::stream_descriptor read_end_;
  int write_fd_ = -1;
  base::LifetimeGate gate_;
};

}  // namespace sparse::kafka
