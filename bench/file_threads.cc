// file_threads.cc - bench_file_threads: what the bulk tool's file loops and
// buffers are built on, measured on this machine (bench/RESULTS.md):
//
//   reading small files (open, read to the end, close; two files an item,
//   as a verify run) on one thread, and on every core as threads sharing the
//   descriptor table, threads with a copy each (unshare(CLONE_FILES)), and
//   processes; then in loops of 4096 items on threads started for each loop
//   (mldsa::parallel_for) and on threads kept (mldsa::WorkerPool);
//
//   creating small files (signatures: open with O_CREAT, write 2420 bytes,
//   close; each variant in a new folder, synced first, in an order that
//   turns each round, nothing deleted before the end) on one thread, and
//   on every core as threads in one folder (a sign run's output) and threads
//   in a folder each;
//
//   making 16 MiB present: 4 KiB pages populated in one call, and
//   mldsa::PageBuffer (2 MiB pages where the system allows them).
//
// usage: bench_file_threads DIR [ITEMS=10000] [ROUNDS=5]
// DIR: a folder to make the files in (a tmpfs such as /dev/shm keeps the
// disk out of it); they are deleted at the end. Prints a Markdown table of
// medians over the rounds (the variants alternate within each round).
#include "cpu/pages.h"
#include "cpu/parallel.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Files {
  int docs = -1, sigs = -1;
  size_t n = 0;
};

// One item: two small files read whole, as the tool reads a message and its
// signature (the second read() sees the end).
void read_item(const Files& f, size_t i, char* buf, size_t size) {
  char name[32];
  for (int which = 0; which < 2; ++which) {
    std::snprintf(name, sizeof name, which ? "s%06zu" : "d%06zu", i);
    const int fd = openat(which ? f.sigs : f.docs, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      std::perror(name);
      std::exit(1);
    }
    size_t got = 0;
    for (ssize_t r; (r = read(fd, buf + got, size - got)) > 0;) got += static_cast<size_t>(r);
    close(fd);
  }
}

void own_table(unsigned) { (void)unshare(CLONE_FILES); }

// Microseconds per item of each way to read all n items.
std::map<std::string, double> read_round(const Files& f, unsigned cores) {
  std::map<std::string, double> us;
  const size_t n = f.n;
  auto time = [&](const std::string& name, const std::function<void()>& run) {
    const auto t0 = Clock::now();
    run();
    us[name] = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / static_cast<double>(n);
  };
  static thread_local char buf[1 << 16];
  auto each = [&](size_t i, unsigned) { read_item(f, i, buf, sizeof buf); };
  time("1 thread", [&] { mldsa::parallel_for(n, 1, 4, each); });
  time("threads, shared table", [&] { mldsa::parallel_for(n, cores, 4, each); });
  time("threads, a table each", [&] {
    mldsa::parallel_for(n, cores, 4, [&](size_t i, unsigned w) {
      thread_local bool own = false;
      if (w != 0 && !own) own = (unshare(CLONE_FILES), true);
      each(i, w);
    });
  });
  time("processes", [&] {
    for (unsigned p = 0; p < cores; ++p) {
      if (fork() == 0) {
        for (size_t i = n * p / cores; i < n * (p + 1) / cores; ++i) read_item(f, i, buf, sizeof buf);
        _exit(0);
      }
    }
    while (wait(nullptr) > 0) {
    }
  });
  // As the tool's chunks: loops of 4096 items, threads with a table each.
  constexpr size_t kLoop = 4096;
  time("loops of 4096, threads started each loop", [&] {
    for (size_t first = 0; first < n; first += kLoop) {
      mldsa::parallel_for(std::min(kLoop, n - first), cores, 4, [&](size_t i, unsigned w) {
        thread_local bool own = false;
        if (w != 0 && !own) own = (unshare(CLONE_FILES), true);
        each(first + i, w);
      });
    }
  });
  time("loops of 4096, threads kept (WorkerPool)", [&] {
    mldsa::WorkerPool pool(cores, own_table);
    for (size_t first = 0; first < n; first += kLoop)
      pool.parallel_for(std::min(kLoop, n - first), 4, [&](size_t i, unsigned w) { each(first + i, w); });
  });
  return us;
}

// Items [from, to) of a signing run's output: files of 2420 bytes made in
// the folder dir.
void create_items(int dir, size_t from, size_t to) {
  static const std::string sig(2420, 's');
  char name[32];
  for (size_t i = from; i < to; ++i) {
    std::snprintf(name, sizeof name, "s%06zu.sig", i);
    const int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, sig.data(), sig.size()) != static_cast<ssize_t>(sig.size())) {
      std::perror(name);
      std::exit(1);
    }
    close(fd);
  }
}

// Microseconds per file of each way to create n files, the variants in an
// order that turns with round. The folders are new, synced before each
// variant is timed, and left for main to delete at the end: on ext4 without
// a journal (this project's VM) the kernel passes over inodes deleted in the
// last minutes when it makes a file: 90-180 us a file instead of 19 after
// many were deleted (bench/RESULTS.md).
std::map<std::string, double> create_round(const std::filesystem::path& base, size_t n, unsigned cores, int round) {
  std::map<std::string, double> us;
  int made = 0;  // folders of this round
  auto folder = [&] {
    const std::filesystem::path p = base / ("out" + std::to_string(round) + "-" + std::to_string(made++));
    std::filesystem::create_directories(p);
    return open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  };
  auto time = [&](const std::string& name, unsigned threads, unsigned folders) {
    std::vector<int> dirs;
    for (unsigned k = 0; k < folders; ++k) dirs.push_back(folder());
    sync();
    const auto t0 = Clock::now();
    mldsa::parallel_for(threads, threads, 1, [&](size_t part, unsigned worker) {
      if (worker != 0) (void)unshare(CLONE_FILES);
      create_items(dirs[part % folders], n * part / threads, n * (part + 1) / threads);
    });
    us[name] = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / static_cast<double>(n);
    for (const int d : dirs) close(d);
  };
  for (int k = 0; k < 3; ++k) {
    switch ((k + round) % 3) {
      case 0: time("1 thread", 1, 1); break;
      case 1: time("threads, one folder", cores, 1); break;
      default: time("threads, a folder each", cores, cores); break;
    }
  }
  return us;
}

// Milliseconds to make 16 MiB present and zeroed, both ways.
std::map<std::string, double> pages_round() {
  constexpr size_t kSize = size_t{16} << 20;
  std::map<std::string, double> ms;
  auto t0 = Clock::now();
  {
    mldsa::PageBuffer b(kSize);
    ms["16 MiB, PageBuffer (2 MiB pages)"] = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
  t0 = Clock::now();
  void* p = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
#ifdef MADV_POPULATE_WRITE
  (void)madvise(p, kSize, MADV_POPULATE_WRITE);
#endif
  std::memset(p, 0, kSize);
  ms["16 MiB, 4 KiB pages populated at once"] = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  munmap(p, kSize);
  return ms;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_file_threads DIR [ITEMS=10000] [ROUNDS=5]\n");
    return 2;
  }
  const std::filesystem::path dir = std::filesystem::path(argv[1]) / ("file_threads." + std::to_string(getpid()));
  Files f;
  f.n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  const unsigned cores = mldsa::usable_cpus();
  std::filesystem::create_directories(dir / "docs");
  std::filesystem::create_directories(dir / "sigs");
  std::string doc(100, 'd'), sig(2420, 's');
  for (size_t i = 0; i < f.n; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "d%06zu", i);
    FILE* d = std::fopen((dir / "docs" / name).c_str(), "wb");
    std::snprintf(name, sizeof name, "s%06zu", i);
    FILE* s = std::fopen((dir / "sigs" / name).c_str(), "wb");
    if (d == nullptr || s == nullptr) {
      std::perror("bench_file_threads: making the files");
      return 1;
    }
    std::fwrite(doc.data(), 1, doc.size(), d);
    std::fwrite(sig.data(), 1, sig.size(), s);
    std::fclose(d);
    std::fclose(s);
  }
  f.docs = open((dir / "docs").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  f.sigs = open((dir / "sigs").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  std::map<std::string, std::vector<double>> reads, creates, pages;
  for (int r = 0; r < rounds; ++r) {
    for (auto& [k, v] : read_round(f, cores)) reads[k].push_back(v);
    for (auto& [k, v] : create_round(dir, f.n, cores, r)) creates[k].push_back(v);
    for (auto& [k, v] : pages_round()) pages[k].push_back(v);
  }
  close(f.docs);
  close(f.sigs);
  std::filesystem::remove_all(dir);

  std::printf("%u cores; %zu items of two files (100 and 2420 bytes); median of %d rounds\n\n", cores, f.n, rounds);
  // A table of medians, each row's rate against the first's ("1 thread").
  auto rate_table = [&](const char* title, const char* unit, std::map<std::string, std::vector<double>>& us,
                        std::initializer_list<const char*> rows) {
    std::printf("| %s | %s | rate / (%u x 1 thread) |\n|---|---:|---:|\n", title, unit, cores);
    const double one = median(us[*rows.begin()]);
    for (const char* k : rows) {
      const double each = median(us[k]);
      if (k == *rows.begin()) std::printf("| %s | %.2f | - |\n", k, each);
      else std::printf("| %s | %.2f | %.0f%% |\n", k, each, 100.0 * one / (cores * each));
    }
  };
  rate_table("reading", "us/item", reads,
             {"1 thread", "threads, shared table", "threads, a table each", "processes",
              "loops of 4096, threads started each loop", "loops of 4096, threads kept (WorkerPool)"});
  std::printf("\n");
  rate_table("creating (2420 bytes each)", "us/file", creates, {"1 thread", "threads, one folder", "threads, a folder each"});
  std::printf("\n| memory | ms |\n|---|---:|\n");
  for (auto& [k, v] : pages) std::printf("| %s | %.2f |\n", k.c_str(), median(v));
  return 0;
}
