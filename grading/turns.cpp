#include "grading/turns.h"

namespace grade {

uint64_t Turns::ask() {
  const std::lock_guard<std::mutex> hold(mutex_);
  return next_ticket_++;
}

void Turns::enter(uint64_t ticket, Kind kind) {
  std::unique_lock<std::mutex> hold(mutex_);
  changed_.wait(hold, [&] { return ticket == next_in_ && (running_ == 0 || (kind == kind_ && kind != Kind::alone)); });
  ++next_in_;
  ++running_;
  kind_ = kind;
  // The run after this one may be of the same kind, and go in too.
  changed_.notify_all();
}

void Turns::leave() {
  const std::lock_guard<std::mutex> hold(mutex_);
  --running_;
  changed_.notify_all();
}

}  // namespace grade
