#include "multilang/shell_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <cstring>

#include "multilang/child_fds.hpp"
#include "multilang/child_reaper.hpp"
#include "multilang/loop_clock.hpp"

namespace sparse::multilang {

namespace bp = boost::process;
namespace asio = boost::asio;

std::string ExitStatus::Describe() const {
  if (signaled) {
    const char* name = ::strsignal(code);
    return "killed by signal " + std::to_string(code) +
           (name ? std::string(" (") + name + ")" : "");
  }
  return "exited with code " + std::to_string(code);
}

struct ShellProcess::Impl {
  explicit Impl(asio::io_context& io) : in(io), out(io), err(io), poll(io), grace(io) {}
  bp::async_pipe in;
  bp::async_pipe out;
  bp::async_pipe err;
  asio::steady_timer poll;
  asio::steady_timer grace;  // Terminate's SIGKILL
  std::array<char, 64 * 1024> out_buf{};
  std::array<char, 16 * 1024> err_buf{};
};

ShellProcess::ShellProcess(asio::io_context& io, ProcessOptions options, Callbacks callbacks)
    : io_(io),
      options_(std::move(options)),
      callbacks_(std::move(callbacks)),
      impl_(std::make_unique<Impl>(io)),
      reader_(options_.serializer, options_.max_message_bytes) {}

ShellProcess::~ShellProcess() {
  gate_.Close();
  if (pid_ > 0 && !exited_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    // Dead already (it was killed or exited a moment ago): reap it here; otherwise the reaper
    // does, so that no owner ever waits for a child here.
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == 0) ChildReaper::Instance().Adopt(pid_);
  }
  boost::system::error_code ignored;
  impl_->in.close(ignored);
  impl_->out.close(ignored);
  impl_->err.close(ignored);
}

std::optional<std::string> ShellProcess::Start() {
  if (options_.argv.empty()) return std::string("empty command");
  std::string exe = options_.argv[0];
  boost::filesystem::path exe_path;
  if (exe.find('/') == std::string::npos) {
    exe_path = bp::search_path(exe);
    if (exe_path.empty()) return "command not found on PATH: " + exe;
  } else {
    std::filesystem::path p(exe);
    if (p.is_relative()) p = options_.working_dir / p;
    if (!std::filesystem::exists(p)) return "no such file: " + p.string();
    exe_path = p.string();
  }
  std::vector<std::string> args(options_.argv.begin() + 1, options_.argv.end());

  bp::environment env = boost::this_process::environment();
  for (const auto& [k, v] : options_.env_overrides) env[k] = v;

  const pid_t parent = ::getpid();
  try {
    std::error_code ec;
    bp::child child(
        exe_path, bp::args(args), bp::std_in<impl_->in, bp::std_out> impl_->out,
        bp::std_err > impl_->err, bp::start_dir(options_.working_dir.string()), env,
        bp::extend::on_exec_setup = [parent](auto&) {
          // Own process group: a terminal's Ctrl-C reaches the runtime only, which drains.
          ::setpgid(0, 0);
          // Die with the runtime, even when it is SIGKILLed.
          ::prctl(PR_SET_PDEATHSIG, SIGKILL);
          // The runtime ignores SIGPIPE (a dead child's pipe is an error value there);
          // children get the default back.
          ::signal(SIGPIPE, SIG_DFL);
          if (::getppid() != parent) ::_exit(127);
          MarkInheritedDescriptorsCloseOnExec();
        });
    pid_ = child.id();
    child.detach();  // we reap it ourselves with waitpid
  } catch (const std::exception& e) {
    return "cannot start " + exe_path.string() + ": " + e.what();
  }
  // Reads of stdout are done by hand once epoll says it is readable; they must not block.
  const int out_fd = impl_->out.native_source();
  ::fcntl(out_fd, F_SETFL, ::fcntl(out_fd, F_GETFL) | O_NONBLOCK);
  ContinueReading();
  StartStderrRead();
  SchedulePoll(std::chrono::milliseconds(200));
  return std::nullopt;
}

void ShellProcess::Send(std::string_view bytes, std::size_t messages) {
  if (exited_ || bytes.empty()) return;
  queued_bytes_ += bytes.size();
  pending_messages_ += messages;
  pending_.append(bytes);
  // Everything sent while the current handler runs (a whole read batch of the runtime) goes out
  // in one write: one syscall and one wake-up of the child instead of one per message.
  if (!write_in_flight_ && !flush_posted_) {
    flush_posted_ = true;
    auto alive = gate_.ticket();
    asio::post(io_, [this, alive] {
      if (!alive) return;
      flush_posted_ = false;
      FlushWrites();
    });
  }
}

void ShellProcess::FlushWrites() {
  if (write_in_flight_ || pending_.empty() || !impl_->in.is_open()) return;
  writing_.swap(pending_);
  pending_.clear();
  writing_messages_ = pending_messages_;
  pending_messages_ = 0;
  write_in_flight_ = true;
  written_ = 0;
  write_progress_at_ = LoopClock::Now();
  WriteSome();
}

// One write at a time, as much as the pipe takes, so progress is seen (write_blocked_since).
void ShellProcess::WriteSome() {
  auto alive = gate_.ticket();
  impl_->in.async_write_some(asio::buffer(writing_.data() + written_, writing_.size() - written_),
                             [this, alive](const boost::system::error_code& ec, std::size_t n) {
                               if (!alive) return;
                               if (!ec) {
                                 written_ += n;
                                 write_progress_at_ = LoopClock::Now();
                                 if (written_ < writing_.size()) {
                                   WriteSome();
                                   return;
                                 }
                               }
                               write_in_flight_ = false;
                               queued_bytes_ -= std::min(queued_bytes_, writing_.size());
                               writing_.clear();
                               writing_messages_ = 0;
                               if (ec) {
                                 // The child is gone (its exit is reported) or closed its stdin
                                 // while running on (Storm's ShellBolt dies on this too).
                                 pending_.clear();
                                 pending_messages_ = 0;
                                 queued_bytes_ = 0;
                                 MarkBroken("cannot write to its stdin (" + ec.message() +
                                            "): it closed it or stopped reading");
                                 return;
                               }
                               FlushWrites();
                               if (callbacks_.on_written) callbacks_.on_written();
                             });
}

void ShellProcess::StartRead() {
  if (read_in_flight_ || reading_paused_ || stdout_eof_) return;
  read_in_flight_ = true;
  auto alive = gate_.ticket();
  // Wait for readiness, then read without blocking. (async_read_some first tries a speculative
  // read, which right after a batch mostly finds the pipe empty: a syscall for nothing.)
  // async_pipe hands out its descriptors only as const references; waiting does not modify it.
  auto& out = const_cast<asio::posix::stream_descriptor&>(impl_->out.source());
  out.async_wait(asio::posix::descriptor_base::wait_read,
                 [this, alive](const boost::system::error_code& ec) {
                   if (!alive) return;
                   read_in_flight_ = false;
                   if (ec) {
                     OnStdoutEnd();
                     return;
                   }
                   ReadAvailable();
                 });
}

void ShellProcess::ReadAvailable() {
  auto alive = gate_.ticket();
  const int fd = impl_->out.native_source();
  // Edge-triggered epoll: wait for readiness again only once the pipe is known to be drained
  // (a short read or EAGAIN); any byte written after that is a new edge. After a few full reads,
  // continue from the queue instead, so one chatty child cannot starve the other descriptors.
  bool drained = false;
  for (int round = 0; round < 4 && !reading_paused_; ++round) {
    const ssize_t n = ::read(fd, impl_->out_buf.data(), impl_->out_buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      drained = true;
      break;
    }
    if (n <= 0) {
      OnStdoutEnd();
      return;
    }
    reader_.Append(std::string_view(impl_->out_buf.data(), static_cast<std::size_t>(n)));
    if (!DeliverBuffered()) return;
    if (reader_.error()) {
      stdout_eof_ = true;
      callbacks_.on_stream_error(*reader_.error());
      return;
    }
    if (static_cast<std::size_t>(n) < impl_->out_buf.size()) {
      drained = true;
      break;
    }
  }
  if (drained) {
    StartRead();
  } else {
    ContinueReading();
  }
}

bool ShellProcess::DeliverBuffered() {
  auto alive = gate_.ticket();
  LoopClock::Batch batch;
  // One string for the whole batch (its buffer is swapped with the reader's for each message),
  // local so that it outlives a callback that destroys this object.
  std::string message;
  while (reader_.NextInto(message)) {
    callbacks_.on_message(message);
    if (!alive) return false;  // the owner may destroy us from a callback
  }
  return true;
}

void ShellProcess::ContinueReading() {
  if (read_in_flight_ || reading_paused_ || stdout_eof_) return;
  read_in_flight_ = true;
  auto alive = gate_.ticket();
  asio::post(io_, [this, alive] {
    if (!alive) return;
    read_in_flight_ = false;
    if (reading_paused_ || stdout_eof_) return;
    ReadAvailable();
  });
}

void ShellProcess::OnStdoutEnd() {
  stdout_eof_ = true;
  auto alive = gate_.ticket();
  CheckExited();
  if (!alive) return;
  if (!exited_) MarkBroken("closed its stdout (end of file) and is still running");
}

void ShellProcess::MarkBroken(std::string reason) {
  if (exited_) return;
  if (!broken_) {
    broken_ = std::move(reason);
    broken_at_ = std::chrono::steady_clock::now();
  }
  SchedulePoll(std::chrono::milliseconds(5));
}

void ShellProcess::StartStderrRead() {
  auto alive = gate_.ticket();
  impl_->err.async_read_some(asio::buffer(impl_->err_buf),
                             [this, alive](const boost::system::error_code& ec, std::size_t n) {
                               if (!alive) return;
                               ConsumeStderr(std::string_view(impl_->err_buf.data(), n));
                               if (!alive) return;
                               if (ec) {
                                 if (!stderr_partial_.empty()) {
                                   stderr_tail_.push_back(stderr_partial_.substr(0, 1024));
                                   if (callbacks_.on_stderr_line)
                                     callbacks_.on_stderr_line(stderr_partial_);
                                   if (!alive) return;
                                   stderr_partial_.clear();
                                 }
                                 return;
                               }
                               StartStderrRead();
                             });
}

void ShellProcess::ConsumeStderr(std::string_view data) {
  auto alive = gate_.ticket();
  while (!data.empty()) {
    auto nl = data.find('\n');
    if (nl == std::string_view::npos) {
      stderr_partial_.append(data);
      // A very long line is cut so a flood without newlines cannot grow memory.
      if (stderr_partial_.size() <= 8192) break;
      data = {};
    } else {
      stderr_partial_.append(data.substr(0, nl));
      data.remove_prefix(nl + 1);
    }
    if (!stderr_partial_.empty() && stderr_partial_.back() == '\r') stderr_partial_.pop_back();
    if (stderr_tail_.size() >= options_.stderr_tail_lines) stderr_tail_.pop_front();
    stderr_tail_.push_back(stderr_partial_.substr(0, 1024));
    if (callbacks_.on_stderr_line) callbacks_.on_stderr_line(stderr_partial_);
    if (!alive) return;
    stderr_partial_.clear();
  }
}

void ShellProcess::DrainStderrNow() {
  // The child is gone: whatever it wrote to stderr last is in the pipe now. Read it before
  // reporting the exit, so the report carries the child's last words.
  const int fd = impl_->err.native_source();
  if (fd < 0) return;
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  char buf[16384];
  for (int i = 0; i < 64; ++i) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    ConsumeStderr(std::string_view(buf, static_cast<std::size_t>(n)));
    if (!gate_.open()) return;
  }
}

void ShellProcess::PauseReading() {
  reading_paused_ = true;
}

void ShellProcess::ResumeReading() {
  if (!reading_paused_) return;
  reading_paused_ = false;
  // Messages may already be buffered from the last read.
  auto alive = gate_.ticket();
  asio::post(io_, [this, alive] {
    if (!alive || reading_paused_) return;
    // One string for the whole batch (its buffer is swapped with the reader's for each
    // message), local so that it outlives a callback that destroys this object.
    std::string message;
    while (reader_.NextInto(message)) {
      callbacks_.on_message(message);
      if (!alive || reading_paused_) return;
    }
    ReadAvailable();  // the pipe may hold data that raised no new edge
  });
}

void ShellProcess::Signal(int sig) {
  if (pid_ <= 0 || exited_) return;
  // The child leads its own group (set between fork and exec), so the group signal reaches it and
  // all it started. The signal to the pid alone is for a child that left that group; sent to a
  // child still leading it, it is a second delivery, and a second SIGTERM lands inside the
  // handler or `finally` the first one started (a storm.py component saving its state on exit).
  const bool leads_group = ::getpgid(pid_) == pid_;
  ::kill(-pid_, sig);
  if (!leads_group) ::kill(pid_, sig);
}

void ShellProcess::Terminate(std::chrono::milliseconds grace) {
  if (!running() || terminating_) return;
  terminating_ = true;
  Signal(SIGTERM);
  auto alive = gate_.ticket();
  impl_->grace.expires_after(grace);
  impl_->grace.async_wait([this, alive](const boost::system::error_code& ec) {
    if (ec || !alive || !running()) return;
    killed_after_grace_ = true;
    Signal(SIGKILL);
    SchedulePoll(std::chrono::milliseconds(5));  // report the exit as soon as it is reapable
  });
}

std::string ShellProcess::StderrTail() const {
  std::string r;
  for (const auto& l : stderr_tail_) {
    if (!r.empty()) r.push_back('\n');
    r += l;
  }
  return r;
}

void ShellProcess::SchedulePoll(std::chrono::milliseconds delay) {
  auto alive = gate_.ticket();
  impl_->poll.expires_after(delay);
  impl_->poll.async_wait([this, alive](const boost::system::error_code& ec) {
    if (ec || !alive) return;
    CheckExited();
    if (!alive || exited_) return;
    if (broken_ && !broken_reported_ &&
        std::chrono::steady_clock::now() - broken_at_ >= kBrokenGrace) {
      broken_reported_ = true;
      if (callbacks_.on_stream_error) callbacks_.on_stream_error(*broken_);
      if (!alive || exited_) return;
    }
    SchedulePoll(stdout_eof_ || broken_ ? std::chrono::milliseconds(10)
                                        : std::chrono::milliseconds(200));
  });
}

void ShellProcess::CheckExited() {
  if (exited_ || pid_ <= 0) return;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return;
  exited_ = true;
  ExitStatus es;
  if (r < 0) {
    es.code = -1;
  } else if (WIFSIGNALED(status)) {
    es.signaled = true;
    es.code = WTERMSIG(status);
  } else {
    es.code = WEXITSTATUS(status);
  }
  es.after_grace = killed_after_grace_;
  // Anything the group left behind (grandchildren) goes too.
  ::kill(-pid_, SIGKILL);
  boost::system::error_code ignored;
  impl_->poll.cancel();
  impl_->grace.cancel();
  impl_->in.close(ignored);
  pending_.clear();
  pending_messages_ = writing_messages_ = 0;
  queued_bytes_ = 0;
  // Everything the child wrote goes to the owner before its exit does: the messages still
  // buffered, then what is still in the pipe. (A read turn takes at most 4 x 64 KiB and then
  // yields to the loop, so this poll can come between two turns of a child's last burst.) The
  // group is dead, so the pipe holds a bounded amount; the bound guards against a descendant
  // that left the group and writes on.
  if (!reading_paused_) {
    if (!DeliverBuffered()) return;
    const int fd = impl_->out.native_source();  // non-blocking since Start
    for (int round = 0; round < 64 && fd >= 0 && !stdout_eof_ && !reader_.error(); ++round) {
      const ssize_t n = ::read(fd, impl_->out_buf.data(), impl_->out_buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // drained, or the end of the file
      reader_.Append(std::string_view(impl_->out_buf.data(), static_cast<std::size_t>(n)));
      if (!DeliverBuffered()) return;
    }
  }
  DrainStderrNow();
  if (!gate_.open()) return;
  if (callbacks_.on_exit) callbacks_.on_exit(es);
}

}  // namespace sparse::multilang
