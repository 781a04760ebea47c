// Tick tuples for one bolt task (topology.tick.tuple.freq.secs), shared by shell and built-in
// bolts: from Start until Stop, every period it hands a tick InputTuple to the task's delivery
// function, which queues it like any input.
//
// Lives on the event loop. Stop (or destruction) guarantees no later delivery, also for a tick
// whose timer already fired but whose handler has not run yet.
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <functional>

#include "base/periodic_timer.hpp"
#include "runtime/tuple.hpp"

namespace sparse::runtime {

class TickSource {
 public:
  using Deliver = std::function<void(InputTuple&&)>;

  explicit TickSource(boost::asio::io_context& io) : ticker_(io) {}
  ~TickSource() { Stop(); }
  TickSource(const TickSource&) = delete;
  TickSource& operator=(const TickSource&) = delete;

  // Starts (or restarts) ticking every `period_secs`; does nothing for a period <= 0.
  void Start(std::int64_t period_secs, Deliver deliver);
  void Stop();

 private:
  // Its lifetime gate is what makes Stop final, also for a tick already fired.
  base::PeriodicTimer ticker_;
};

}  // namespace sparse::runtime
