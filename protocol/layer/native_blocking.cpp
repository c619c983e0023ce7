#include "layer/native_blocking.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

#include "messages/split_transfer.hpp"

namespace c3::mpi {
namespace {

bool g_available = false;

class Helper {
 public:
  void begin() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    run_ = true;
    wake_.notify_all();
  }
  // Returns once the helper no longer touches c3's state.
  void end() {
    std::unique_lock<std::mutex> lock(mutex_);
    run_ = false;
    idle_.wait(lock, [this] { return !busy_; });
  }
  void stop() {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      quit_ = true;
      wake_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return run_ || quit_; });
      if (quit_) return;
      busy_ = true;
      while (run_) {
        lock.unlock();
        split::complete_arrived_headers();
        std::this_thread::yield();
        lock.lock();
      }
      busy_ = false;
      idle_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::thread thread_;
  bool run_ = false, busy_ = false, quit_ = false;
};

Helper g_helper;

}  // namespace

void NativeBlocking::begin_helping() { g_helper.begin(); }
void NativeBlocking::end_helping() { g_helper.end(); }

void set_helper_available(bool available) { g_available = available; }
bool helper_available() { return g_available; }
void stop_helper() { g_helper.stop(); }

}  // namespace c3::mpi
