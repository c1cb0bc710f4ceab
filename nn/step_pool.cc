// The step pool: persistent worker threads woken per job.
#include "nn/step_pool.h"

#include <algorithm>

namespace sweep::nn {

namespace {

void Await(std::atomic<int>& v, int want) {
  for (int spin = 0; spin < 20000; ++spin)
    if (v.load(std::memory_order_acquire) == want) return;
  for (int got = v.load(); got != want; got = v.load()) v.wait(got);
}

}  // namespace

StepPool::StepPool(int n) : n_(n) {
  for (int r = 1; r < n; ++r) threads_.emplace_back([this, r] { Loop(r); });
}

StepPool::~StepPool() {
  stop_ = true;
  gen_.fetch_add(kJob);
  gen_.notify_all();
  for (auto& t : threads_) t.join();
}

void StepPool::Run(const std::function<void(int)>& f, int active) {
  job_ = &f;
  active = std::clamp(active, 1, n_);
  done_.store(0);
  // The job's number and its thread count change in one store, so a worker
  // that wakes late for a job it sits out can never read the next job's
  // count (and run that job twice).
  uint64_t g = gen_.load(std::memory_order_relaxed);
  gen_.store((g / kJob + 1) * kJob + static_cast<uint64_t>(active), std::memory_order_release);
  gen_.notify_all();
  f(0);
  Await(done_, active - 1);
}

void StepPool::Loop(int r) {
  uint64_t seen = 0;
  while (true) {
    uint64_t g = gen_.load(std::memory_order_acquire);
    for (int spin = 0; g == seen && spin < 20000; ++spin) g = gen_.load(std::memory_order_acquire);
    while (g == seen) {
      gen_.wait(seen);
      g = gen_.load(std::memory_order_acquire);
    }
    seen = g;
    if (stop_) return;
    if (r >= static_cast<int>(g % kJob)) continue;  // not one of this job's threads
    (*job_)(r);
    done_.fetch_add(1, std::memory_order_release);
    done_.notify_one();
  }
}

}  // namespace sweep::nn
