// Passes every cluster event on to several observers, in the order they were added (e.g. the
// console, then the web view), so all of them see the same snapshots.
#pragma once

#include <algorithm>
#include <vector>

#include "runtime/local_cluster.hpp"

namespace sparse::runtime {

class FanoutObserver final : public ClusterObserver {
 public:
  // Observers are not owned; remove one before it is destroyed.
  void Add(ClusterObserver* o) { observers_.push_back(o); }
  void Remove(ClusterObserver* o) {
    observers_.erase(std::remove(observers_.begin(), observers_.end(), o), observers_.end());
  }

  void OnStarting(int ready, int total) override {
    for (auto* o : observers_) o->OnStarting(ready, total);
  }
  void OnRunning() override {
    for (auto* o : observers_) o->OnRunning();
  }
  void OnLog(const std::string& component, int task, int level, std::string_view msg) override {
    for (auto* o : observers_) o->OnLog(component, task, level, msg);
  }
  void OnStderr(const std::string& component, int task, std::string_view line) override {
    for (auto* o : observers_) o->OnStderr(component, task, line);
  }
  void OnComponentError(const std::string& component, int task, std::string_view msg) override {
    for (auto* o : observers_) o->OnComponentError(component, task, msg);
  }
  void OnTaskFailure(const runtime::FailureReport& report,
                     std::optional<std::chrono::milliseconds> restart_in) override {
    for (auto* o : observers_) o->OnTaskFailure(report, restart_in);
  }
  void OnStatus(const runtime::ClusterSnapshot& snapshot) override {
    for (auto* o : observers_) o->OnStatus(snapshot);
  }
  void OnStopping(const std::string& reason) override {
    for (auto* o : observers_) o->OnStopping(reason);
  }
  void OnFatal(const std::string& message) override {
    for (auto* o : observers_) o->OnFatal(message);
  }

 private:
  std::vector<ClusterObserver*> observers_;
};

}  // namespace sparse::runtime
