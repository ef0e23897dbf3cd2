// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Objects a model creates and retires on its hot path (a request's parts in
// flight): made from a free list, owned by the pool, so none leaks when a
// run ends with work in flight and no allocation is made once the pool has
// grown to the peak in flight.
#include <memory>
#include <utility>
#include <vector>

namespace vp {

template <class T>
class ObjectPool {
 public:
  // A fresh object, initialised from `args` as T{args...}.
  template <class... A>
  T* make(A&&... args) {
    T* p;
    if (free_.empty()) {
      all_.push_back(std::make_unique<T>());
      p = all_.back().get();
    } else {
      p = free_.back();
      free_.pop_back();
    }
    *p = T{std::forward<A>(args)...};
    return p;
  }
  void release(T* p) { free_.push_back(p); }
  size_t in_use() const { return all_.size() - free_.size(); }

 private:
  std::vector<std::unique_ptr<T>> all_;
  std::vector<T*> free_;
};

}  // namespace vp
