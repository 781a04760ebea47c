// Lets a callback that may run after its owner stopped (an Asio completion handler, a posted
// function, a timer) find out that it must do nothing. The owner closes the gate (in Stop/Close
// and in its destructor); every ticket taken before then reads closed from that moment on.
//
// Single-threaded, like the event loop that runs the callbacks: take tickets, test them and close
// the gate on the same thread. (A job on another thread may carry a ticket but must test it only
// in the continuation it posts back to the loop.)
#pragma once

#include <memory>
#include <utility>

namespace sparse::base {

class LifetimeGate {
 public:
  // What a callback keeps: true while the gate it came from is open (in its period, see Reopen).
  class Ticket {
   public:
    explicit operator bool() const { return open_ && *open_; }

   private:
    friend class LifetimeGate;
    explicit Ticket(std::shared_ptr<const bool> open) : open_(std::move(open)) {}
    std::shared_ptr<const bool> open_;
  };

  LifetimeGate() = default;
  ~LifetimeGate() { Close(); }
  LifetimeGate(const LifetimeGate&) = delete;
  LifetimeGate& operator=(const LifetimeGate&) = delete;

  Ticket ticket() const { return Ticket(open_); }
  bool open() const { return *open_; }
  // Every ticket taken so far reads closed from now on. Idempotent.
  void Close() { *open_ = false; }
  // Opens the gate again for new tickets (a component restarted on the same object); tickets of
  // the closed period stay closed.
  void Reopen() {
    if (!*open_) open_ = std::make_shared<bool>(true);
  }

  // `f` wrapped so that it does nothing once the gate has closed.
  template <class F>
  auto Guard(F f) const {
    return [t = ticket(), f = std::move(f)](auto&&... args) mutable {
      if (t) f(std::forward<decltype(args)>(args)...);
    };
  }

 private:
  std::shared_ptr<bool> open_ = std::make_shared<bool>(true);
};

}  // namespace sparse::base
