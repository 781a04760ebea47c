// Calls a function every `period` on an Asio event loop, from Start until Stop (or
// destruction), so that an owner with periodic work does not re-arm a steady_timer by hand.
//
// Contract:
// - Single-threaded: Start, Stop and the destructor on the loop's thread, where the function
//   runs too.
// - The next call is armed once the function returns, `period` later (the period is the pause
//   between calls, so a slow call never makes calls pile up).
// - After Stop (also from inside the function) nothing more is called, not even a call whose
//   timer already fired and whose handler is queued. The function may destroy the timer's owner.
// - Start on a running timer starts over with the new period and function.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <functional>
#include <utility>

#include "base/lifetime_gate.hpp"

namespace sparse::base {

class PeriodicTimer {
 public:
  using Duration = std::chrono::steady_clock::duration;

  explicit PeriodicTimer(boost::asio::io_context& io) : timer_(io) { gate_.Close(); }
  ~PeriodicTimer() { Stop(); }
  PeriodicTimer(const PeriodicTimer&) = delete;
  PeriodicTimer& operator=(const PeriodicTimer&) = delete;

  void Start(Duration period, std::function<void()> tick) {
    Stop();
    period_ = period;
    tick_ = std::move(tick);
    gate_.Reopen();
    Arm();
  }
  void Stop() {
    gate_.Close();
    timer_.cancel();
  }
  bool running() const { return gate_.open(); }

 private:
  void Arm() {
    timer_.expires_after(period_);
    timer_.async_wait([this, t = gate_.ticket()](const boost::system::error_code& ec) {
      if (ec || !t) return;  // `this` may be gone once stopped: look at nothing else first
      // A copy: the call may Start the timer again, replacing tick_ while it runs.
      auto tick = tick_;
      tick();
      if (t) Arm();  // not stopped, restarted or destroyed by the call
    });
  }

  boost::asio::steady_timer timer_;
  Duration period_{};
  std::function<void()> tick_;
  LifetimeGate gate_;
};

}  // namespace sparse::base
