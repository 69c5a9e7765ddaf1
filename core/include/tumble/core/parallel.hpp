#pragma once
/// @file
/// How Tumble's modules hand independent work to threads without depending on a thread library (module tumble::core;
/// `<tumble/parallel.hpp>` forwards here).
///
/// Work is split into chunks whose boundaries depend only on the item count and a grain size, never on the number of
/// threads: chunk c is [c * grain, min((c + 1) * grain, count)). Code that computes a result per chunk and merges the
/// chunks in order therefore gets bit-identical results with any number of threads. `ThreadPool`
/// (`<tumble/core/thread_pool.hpp>`) runs them on threads, and the engine owns one sized by WorldSettings::threads;
/// everything else takes a `Parallel&` and defaults to `serial()`.

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tumble {

template <class Signature>
class FunctionRef;

/// A non-owning, non-allocating reference to a callable, valid while the callable lives (a light std::function for
/// arguments that are called before the call that received them returns).
template <class R, class... Args>
class FunctionRef<R(Args...)> {
public:
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
    FunctionRef(F&& f) noexcept  // NOLINT(google-explicit-constructor): a reference wrapper, implicit on purpose
        : object_(const_cast<void*>(static_cast<const void*>(&f))),
          call_([](void* object, Args... args) -> R {
              return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
          }) {}
    R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
    void* object_;
    R (*call_)(void*, Args...);
};

/// Runs chunks of independent work, possibly on several threads.
class Parallel {
public:
    virtual ~Parallel() = default;
    /// Calls `body(begin, end)` once for every chunk [c * grain, min((c + 1) * grain, count)) of [0, count), in any
    /// order and possibly concurrently, and returns when all have finished. `grain` >= 1. Chunks must not write the
    /// same memory. An exception thrown by `body` is a programming error (std::terminate).
    virtual void for_each_chunk(std::size_t count, std::size_t grain,
                                FunctionRef<void(std::size_t, std::size_t)> body) = 0;
    /// Number of threads that may run chunks at once (>= 1).
    virtual int threads() const = 0;
};

/// Runs every chunk in order on the calling thread.
class Serial final : public Parallel {
public:
    void for_each_chunk(std::size_t count, std::size_t grain,
                        FunctionRef<void(std::size_t, std::size_t)> body) override {
        for (std::size_t begin = 0; begin < count; begin += grain) body(begin, begin + grain < count ? begin + grain : count);
    }
    int threads() const override { return 1; }
};

/// A shared serial executor (stateless, safe to use from any thread).
inline Serial& serial() {
    static Serial instance;
    return instance;
}

/// Number of chunks `for_each_chunk(count, grain, ...)` makes.
inline std::size_t chunk_count(std::size_t count, std::size_t grain) { return (count + grain - 1) / grain; }

}  // namespace tumble
