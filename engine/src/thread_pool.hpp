#pragma once
// A small thread pool behind tumble::Parallel (not installed). Workers are started once and wait on a condition
// variable; a call hands out chunks through an atomic counter, the calling thread works too, and nothing is
// allocated per call, so World::step stays free of heap allocation after warm-up.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <tumble/parallel.hpp>

namespace tumble {

class ThreadPool final : public Parallel {
public:
    /// `threads` >= 1 threads in all: the caller plus threads - 1 workers.
    explicit ThreadPool(int threads);
    ~ThreadPool() override;
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    void for_each_chunk(std::size_t count, std::size_t grain, FunctionRef<void(std::size_t, std::size_t)> body) override;
    int threads() const override { return static_cast<int>(workers_.size()) + 1; }

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
    std::mutex mutex_;
    std::condition_variable start_, finished_;
    std::uint64_t generation_ = 0;  // bumped for every job
    int running_ = 0;               // workers still inside the current job
    bool stop_ = false;
    std::vector<std::thread> workers_;
};

}  // namespace tumble
