// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A notification point with any number of subscribers, called in the order
// they subscribed (a trace writer and a summary counter may both watch the
// controller's commands; neither replaces the other).
#include <functional>
#include <utility>
#include <vector>

namespace vp {

template <class... Args>
class Hook {
 public:
  void subscribe(std::function<void(Args...)> fn) { subs_.push_back(std::move(fn)); }
  explicit operator bool() const { return !subs_.empty(); }
  size_t subscribers() const { return subs_.size(); }
  void operator()(Args... args) const {
    for (const auto& f : subs_) f(args...);
  }

 private:
  std::vector<std::function<void(Args...)>> subs_;
};

}  // namespace vp
