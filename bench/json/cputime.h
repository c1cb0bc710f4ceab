// Thread CPU time in ns: the bench machine is shared (another engineer's
// builds), so time spent descheduled must not count.
#pragma once
#include <ctime>

inline double CpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}
