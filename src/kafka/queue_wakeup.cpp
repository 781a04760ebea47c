#include "kafka/queue_wakeup.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sparse::kafka {

QueueWakeup::QueueWakeup(boost::asio::io_context& io, rd_kafka_queue_t* queue,
                         std::function<void()> on_data)
    : queue_(queue), on_data_(std::move(on_data)), read_end_(io) {}

QueueWakeup::~QueueWakeup() {
  gate_.Close();
  if (write_fd_ >= 0) {
    rd_kafka_queue_io_event_enable(queue_, -1, nullptr, 0);
    ::close(write_fd_);
  }
  boost::system::error_code ignored;
  read_end_.close(ignored);
}

std::optional<std::string> QueueWakeup::Start() {
  int fds[2];
  if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
    return std::string("cannot create a pipe: ") + std::strerror(errno);
  }
  read_end_.assign(fds[0]);
  write_fd_ = fds[1];
  rd_kafka_queue_io_event_enable(queue_, write_fd_, "1", 1);
  Arm();
  return std::nullopt;
}

void QueueWakeup::Arm() {
  auto alive = gate_.ticket();
  read_end_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                       [this, alive](const boost::system::error_code& ec) {
                         if (ec || !alive) return;
                         char buf[256];
                         while (::read(read_end_.native_handle(), buf, sizeof buf) > 0) {
                         }
                         on_data_();
                         if (alive) Arm();
                       });
}

}  // namespace sparse::kafka
