// A pool of persistent threads that runs one step's job on 1..n threads:
// the CPU model replicas of nn::Trainer. Not thread-safe: one caller.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace sweep::nn {

// Runs f(0) on the calling thread and f(1..active-1) on persistent workers,
// and returns when all are done. Workers spin briefly for the next job
// (steps come every millisecond or so), then sleep on a futex
// (std::atomic::wait), so an idle pool costs nothing.
class StepPool {
 public:
  explicit StepPool(int n);
  ~StepPool();
  StepPool(const StepPool&) = delete;
  StepPool& operator=(const StepPool&) = delete;
  // Runs f on `active` threads (clamped to 1..n): workers at or above it
  // sit this job out.
  void Run(const std::function<void(int)>& f, int active);

 private:
  void Loop(int r);
  static constexpr uint64_t kJob = 1 << 16;  // gen_: job number * kJob + its thread count
  int n_;
  std::vector<std::thread> threads_;
  std::atomic<uint64_t> gen_{0};
  std::atomic<int> done_{0};
  std::atomic<bool> stop_{false};
  const std::function<void(int)>* job_ = nullptr;
};

}  // namespace sweep::nn
