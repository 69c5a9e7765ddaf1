#pragma once
/// @file
/// `ThreadPool`: the `Parallel` that runs chunks of work on threads (module tumble::core). The engine owns one per
/// World, with WorldSettings::threads threads; any other code that takes a `Parallel&` (LooseOctree::find_pairs,
/// PositionSolver::solve) can be handed one.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <tumble/core/parallel.hpp>

namespace tumble {

/// A fixed set of threads behind the `Parallel` interface. Workers are started by the constructor; `for_each_chunk`
/// hands out chunks through an atomic counter, the calling thread works too, and nothing is allocated per call (so
/// World::step stays free of heap allocation after warm-up). Between calls a worker spins for up to kSpin (pausing,
/// and yielding its core now and then) before it sleeps on a condition variable, and the caller spins as long for
/// the workers to finish before it sleeps: a step makes dozens of calls a few hundred microseconds apart, and waking
/// a sleeping thread costs tens of microseconds on each (task schedulers such as enkiTS, which Box2D v3's samples
/// use, and the .NET thread pool's semaphore spin the same way before they wait).
///
/// Chunk bounds are those of `Parallel` ([c * grain, min((c + 1) * grain, count)), never dependent on the thread
/// count); which thread runs which chunk, and in what order, is unspecified. One `for_each_chunk` call at a time:
/// the pool is not re-entrant (a chunk must not call `for_each_chunk` on the same pool) and not meant to be called
/// from several threads at once. An exception escaping a chunk is a programming error (std::terminate).
class ThreadPool final : public Parallel {
public:
    /// Starts `threads - 1` worker threads: together with the thread that calls `for_each_chunk`, `threads` threads
    /// run chunks. `threads` < 1 counts as 1 (no worker; every call runs serially on the caller). Throws
    /// `std::system_error` when the operating system cannot start a thread.
    explicit ThreadPool(int threads);
    /// Stops and joins the workers (no call may be running).
    ~ThreadPool() override;
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    /// Calls `body(begin, end)` once for every chunk of [0, count) (see `Parallel::for_each_chunk`) on the caller and
    /// the workers, and returns when all have finished. With no worker, or with at most one chunk, it runs the
    /// chunks in order on the caller, as `serial()` does. `grain` >= 1.
    void for_each_chunk(std::size_t count, std::size_t grain, FunctionRef<void(std::size_t, std::size_t)> body) override;
    /// The number of threads that run chunks: the workers plus the caller (>= 1).
    int threads() const override { return static_cast<int>(workers_.size()) + 1; }

    /// How long a worker waits for the next call, and the caller for the workers, before sleeping.
    static constexpr std::chrono::microseconds kSpin{200};

private:
    void work();     // runs chunks of the current job until none is left
    void worker();   // a worker thread's loop

    struct Job {
        FunctionRef<void(std::size_t, std::size_t)>* body = nullptr;
        std::size_t count = 0;
        std::size_t grain = 1;
        std::size_t chunks = 0;
    };
    Job job_;
    std::atomic<std::size_t> next_{0};  // next chunk to hand out
    std::mutex mutex_;  // guards the sleeps on start_ and finished_, and every change of generation_ and stop_
    std::condition_variable start_, finished_;
    std::atomic<std::uint64_t> generation_{0};  // bumped for every job (after job_ is written)
    std::atomic<int> running_{0};               // workers still inside the current job
    std::atomic<bool> stop_{false};
    std::vector<std::thread> workers_;
};

}  // namespace tumble
