// Reaps the children that nobody waits for any more: a ShellProcess destroyed while its child
// still runs kills the child and hands its pid over here, so destruction never blocks in
// waitpid and the child does not stay a zombie.
//
// One per runtime process (Instance()). Its thread starts with the first Adopt and polls
// waitpid(pid, WNOHANG) for exactly the pids it was given (never waitpid(-1): the runtime's other
// children, such as a `sparse jar` launcher's, are not its business), a few ms apart while it
// has any, and sleeps otherwise. It is never destroyed, so exiting never waits for a child that
// will not die: what is left then is reparented to init, which reaps it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace sparse::multilang {

class ChildReaper {
 public:
  static ChildReaper& Instance();

  // Takes over reaping `pid`, a child of this process that its owner has signalled to die (the
  // reaper sends nothing) and will not wait for. Thread-safe.
  void Adopt(pid_t pid);
  // Adopted and not reaped yet.
  std::size_t pending() const;
  // Adopted and reaped since the process started (for tests and diagnostics).
  std::uint64_t reaped() const;

 private:
  struct State;
  ChildReaper();
  ~ChildReaper() = default;
  State* state_;
};

}  // namespace sparse::multilang
