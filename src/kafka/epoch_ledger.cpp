#include "kafka/epoch_ledger.hpp"

namespace sparse::kafka {

void EpochLedger::Begun(Clock::time_point now) {
  state_ = State::kOpen;
  ++epoch_;
  records_ = 0;
  opened_at_ = now;
}

void EpochLedger::Emitted(std::int64_t n) {
  if (state_ == State::kOpen) records_ += n;
}

bool EpochLedger::MaybeClose(Clock::time_point now) {
  if (state_ != State::kOpen || records_ == 0) return false;
  const bool full = limits_.max_records > 0 && records_ >= limits_.max_records;
  if (!full && now - opened_at_ < limits_.max_age) return false;
  state_ = State::kDraining;
  return true;
}

bool EpochLedger::CloseNow() {
  if (state_ != State::kOpen || records_ == 0) return false;
  state_ = State::kDraining;
  return true;
}

bool EpochLedger::ReadyToCommit(std::int64_t outstanding) {
  if (state_ != State::kDraining || outstanding > 0) return false;
  state_ = State::kCommitting;
  return true;
}

void EpochLedger::Committed() {
  if (state_ != State::kCommitting) return;
  state_ = State::kIdle;
  consecutive_aborts_ = 0;
}

bool EpochLedger::Failed(const std::string& why) {
  if (state_ != State::kOpen && state_ != State::kDraining) return false;
  state_ = State::kAborting;
  last_failure_ = why;
  return true;
}

bool EpochLedger::CommitFailed(const std::string& why) {
  if (state_ != State::kCommitting) return false;
  state_ = State::kAborting;
  last_failure_ = why;
  return true;
}

void EpochLedger::Aborted() {
  if (state_ != State::kAborting) return;
  state_ = State::kIdle;
  ++consecutive_aborts_;
}

const char* EpochStateName(EpochLedger::State s) {
  switch (s) {
    case EpochLedger::State::kIdle:
      return "idle";
    case EpochLedger::State::kOpen:
      return "open";
    case EpochLedger::State::kDraining:
      return "draining";
    case EpochLedger::State::kCommitting:
      return "committing";
    case EpochLedger::State::kAborting:
      return "aborting";
  }
  return "?";
}

}  // namespace sparse::kafka
