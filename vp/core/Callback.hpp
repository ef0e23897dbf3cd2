// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A move-only void() callable for the calendar's callbacks. std::function
// keeps only 16 bytes in place, so a lambda capturing `this` and two more
// words (a die, a transaction and an epoch) took a heap allocation and a
// free per callback; here up to 48 bytes of captures stay in place, and a
// capture that is trivially copyable moves as one memcpy.
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace vp {

class Callback {
 public:
  static constexpr size_t kInline = 48;

  Callback() = default;
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Callback>>>
  Callback(F&& f) {  // NOLINT: implicit, as std::function's
    emplace(std::forward<F>(f));
  }
  Callback(Callback&& o) noexcept { take(o); }
  // Makes `f` the callable of an empty Callback, in place (no move of its captures).
  template <class F>
  void emplace(F&& f) {
    using T = std::decay_t<F>;
    if constexpr (std::is_same_v<T, Callback>) {
      static_assert(!std::is_lvalue_reference_v<F>, "a Callback is moved in: pass std::move(it)");
      take(f);
    } else {
      if constexpr (fits<T>()) {
        new (buf_) T(std::forward<F>(f));
      } else {
        T* p = new T(std::forward<F>(f));
        std::memcpy(buf_, &p, sizeof p);
      }
      ops_ = &kOps<T>;
    }
  }
  // Destroys the callable: the Callback is empty again.
  void reset() {
    if (ops_ && ops_->destroy) ops_->destroy(buf_);
    ops_ = nullptr;
  }
  Callback& operator=(Callback&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;
  ~Callback() { reset(); }

  void operator()() { ops_->call(buf_); }
  explicit operator bool() const { return ops_ != nullptr; }

 private:
  struct Ops {
    void (*call)(void*);
    void (*move)(void* dst, void* src);  // null: a memcpy of the buffer moves it
    void (*destroy)(void*);              // null: nothing to destroy
  };
  template <class T>
  static constexpr bool fits() {
    return sizeof(T) <= kInline && alignof(T) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<T>;
  }
  template <class T>
  static T* target(void* b) {
    if constexpr (fits<T>())
      return std::launder(reinterpret_cast<T*>(b));
    else
      return *reinterpret_cast<T**>(b);
  }
  template <class T>
  static constexpr Ops make_ops() {
    Ops o{};
    o.call = [](void* b) { (*target<T>(b))(); };
    if constexpr (!fits<T>()) {
      o.move = nullptr;  // the pointer is copied
      o.destroy = [](void* b) { delete target<T>(b); };
    } else {
      if constexpr (!std::is_trivially_copyable_v<T>)
        o.move = [](void* d, void* s) {
          new (d) T(std::move(*target<T>(s)));
          target<T>(s)->~T();
        };
      if constexpr (!std::is_trivially_destructible_v<T>) o.destroy = [](void* b) { target<T>(b)->~T(); };
    }
    return o;
  }
  template <class T>
  static constexpr Ops kOps = make_ops<T>();

  void take(Callback& o) {
    ops_ = o.ops_;
    if (!ops_) return;
    if (ops_->move)
      ops_->move(buf_, o.buf_);
    else
      std::memcpy(buf_, o.buf_, kInline);
    o.ops_ = nullptr;
  }
  alignas(std::max_align_t) unsigned char buf_[kInline];
  const Ops* ops_ = nullptr;
};

}  // namespace vp
