// ThreadPool (thread_pool.hpp): workers that spin briefly and then sleep on a condition variable between jobs, chunks
// handed out by an atomic counter.

#include <tumble/core/thread_pool.hpp>

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tumble {
namespace {

void pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
}

// Spins until `done()` or kSpin has passed: pauses, and every 64th round yields the core (so that a spinning thread
// does not hold up one with work when there are more threads than cores). Returns done().
template <class Done>
bool spin_until(Done&& done) {
    const auto until = std::chrono::steady_clock::now() + ThreadPool::kSpin;
    for (unsigned round = 1;; ++round) {
        if (done()) return true;
        if (round % 64 == 0) {
            if (std::chrono::steady_clock::now() >= until) return done();
            std::this_thread::yield();
        } else {
            pause();
        }
    }
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
    const int workers = std::max(threads, 1) - 1;
    workers_.reserve(static_cast<std::size_t>(workers));
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { worker(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true, std::memory_order_release);
    }
    start_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void ThreadPool::work() {
    for (;;) {
        const std::size_t c = next_.fetch_add(1, std::memory_order_relaxed);
        if (c >= job_.chunks) return;
        const std::size_t begin = c * job_.grain;
        (*job_.body)(begin, std::min(begin + job_.grain, job_.count));
    }
}

void ThreadPool::worker() {
    std::uint64_t seen = 0;
    for (;;) {
        auto called = [&] {
            return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
        };
        if (!spin_until(called)) {
            std::unique_lock<std::mutex> lock(mutex_);
            start_.wait(lock, called);
        }
        if (stop_.load(std::memory_order_acquire)) return;
        seen = generation_.load(std::memory_order_acquire);
        work();
        if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            // The last worker out: a caller asleep on finished_ holds or waits for the mutex, so taking it here
            // means the notification cannot fall between its check and its sleep.
            { std::lock_guard<std::mutex> lock(mutex_); }
            finished_.notify_one();
        }
    }
}

void ThreadPool::for_each_chunk(std::size_t count, std::size_t grain, FunctionRef<void(std::size_t, std::size_t)> body) {
    const std::size_t chunks = chunk_count(count, grain);
    if (workers_.empty() || chunks <= 1) {
        serial().for_each_chunk(count, grain, body);
        return;
    }
    job_ = {&body, count, grain, chunks};
    next_.store(0, std::memory_order_relaxed);
    running_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    {
        // Under the mutex, so that a worker between its check and its sleep cannot miss the new generation.
        std::lock_guard<std::mutex> lock(mutex_);
        generation_.fetch_add(1, std::memory_order_release);
    }
    start_.notify_all();
    work();
    auto finished = [&] { return running_.load(std::memory_order_acquire) == 0; };
    if (spin_until(finished)) return;
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, finished);
}

}  // namespace tumble
