#include "runtime/tick_source.hpp"

#include "runtime/delivery.hpp"

namespace sparse::runtime {

void TickSource::Start(std::int64_t period_secs, Deliver deliver) {
  Stop();
  if (period_secs <= 0) return;
  period_secs_ = period_secs;
  deliver_ = std::move(deliver);
  gate_.Reopen();
  Arm();
}

void TickSource::Stop() {
  gate_.Close();
  timer_.cancel();
}

void TickSource::Arm() {
  timer_.expires_after(std::chrono::seconds(period_secs_));
  timer_.async_wait([this, running = gate_.ticket()](const boost::system::error_code& ec) {
    if (ec || !running) return;  // `this` may be gone when stopped: look at nothing else first
    InputTuple t;
    t.tick = true;
    t.tick_freq_secs = period_secs_;
    t.arrived_ns = NowNs();
    Arm();  // before delivering: the delivery may stop us
    deliver_(std::move(t));
  });
}

}  // namespace sparse::runtime
