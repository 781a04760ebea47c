#include "runtime/tick_source.hpp"

#include "runtime/delivery.hpp"

namespace sparse::runtime {

void TickSource::Start(std::int64_t period_secs, Deliver deliver) {
  Stop();
  if (period_secs <= 0) return;
  // `deliver` is kept in the timer's function: a delivery that restarts or destroys this source
  // does not pull it from under the running call.
  ticker_.Start(std::chrono::seconds(period_secs), [period_secs, deliver = std::move(deliver)] {
    InputTuple t;
    t.tick = true;
    t.tick_freq_secs = period_secs;
    t.arrived_ns = NowNs();
    deliver(std::move(t));
  });
}

void TickSource::Stop() {
  ticker_.Stop();
}

}  // namespace sparse::runtime
