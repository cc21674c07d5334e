// A thread with a stack of a given size, joined (runtime layer).
#include "runtime/deep_stack.h"

#include <pthread.h>

namespace rowjit::internal {

namespace {
thread_local int64_t t_stack_levels = kShallowDepth;
}  // namespace

int64_t StackLevels() { return t_stack_levels; }

Status RunOnThreadWithStack(int64_t levels, void (*fn)(void*), void* arg) {
  const size_t bytes = static_cast<size_t>(levels) * kStackPerLevel + (size_t{1} << 20);
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) {
    return MakeError(ErrorCode::kOutOfMemory, "cannot make a thread for a deep expression");
  }
  struct Start {
    void (*fn)(void*);
    void* arg;
    int64_t levels;
  } start{fn, arg, levels};
  pthread_t thread;
  const int rc = pthread_attr_setstacksize(&attr, bytes) == 0
                     ? pthread_create(&thread, &attr,
                                      [](void* p) -> void* {
                                        auto* s = static_cast<Start*>(p);
                                        t_stack_levels = s->levels;
                                        s->fn(s->arg);
                                        return nullptr;
                                      },
                                      &start)
                     : -1;
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    return MakeError(ErrorCode::kOutOfMemory,
                     "cannot make a thread with a {} MiB stack for a deep expression", bytes >> 20);
  }
  pthread_join(thread, nullptr);
  return Status::OK();
}

}  // namespace rowjit::internal
