// ThreadPool (thread_pool.hpp): workers parked on a condition variable, chunks handed out by an atomic counter.

#include <tumble/core/thread_pool.hpp>

#include <algorithm>

namespace tumble {

ThreadPool::ThreadPool(int threads) {
    const int workers = std::max(threads, 1) - 1;
    workers_.reserve(static_cast<std::size_t>(workers));
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { worker(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
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
        {
            std::unique_lock<std::mutex> lock(mutex_);
            start_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
        }
        work();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            --running_;
        }
        finished_.notify_one();
    }
}

void ThreadPool::for_each_chunk(std::size_t count, std::size_t grain, FunctionRef<void(std::size_t, std::size_t)> body) {
    const std::size_t chunks = chunk_count(count, grain);
    if (workers_.empty() || chunks <= 1) {
        serial().for_each_chunk(count, grain, body);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = {&body, count, grain, chunks};
        next_.store(0, std::memory_order_relaxed);
        running_ = static_cast<int>(workers_.size());
        ++generation_;
    }
    start_.notify_all();
    work();
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return running_ == 0; });
}

}  // namespace tumble
