// mldsa-accel-bench - bulk ML-DSA signing or verification through plain EVP
// calls with the mldsa-accel provider loaded: N threads, each running
// synchronous calls or M ASYNC jobs, on the CPU only or routed (CPU now or
// GPU batch queue, as the provider's settings say). Prints ops/s and latency
// percentiles as a table, one row per mode.
//
// It checks what it measures: every verification must accept, and every
// signature it makes is kept and verified by the core (cpu/) after the timed
// run; a failed or wrong one fails the run (exit 1). Each mode first runs the
// same load for --warmup seconds (0.5), untimed, then --seconds timed. With
// MLDSA_ACCEL_SIM_DEVICES=N the provider's GPU path runs on N simulated
// devices (kernels/device/sim/sim_device.h). --unchecked is for simulated devices that
// compute nothing (MLDSA_ACCEL_SIM_DEVICE_WORK=0, routing benchmarks): the
// routed rows' failed and wrong results are counted and printed but do not
// fail the run, and those rows say "unchecked".
//
//   mldsa-accel-bench [--op sign|verify] [--alg ML-DSA-44|ML-DSA-65|ML-DSA-87]
//                     [--threads N] [--async-jobs M] [--seconds S]
//                     [--modes cpu,routed] [--warmup S] [--msg-bytes B] [--provider-path DIR]
//                     [--unchecked]
#include <openssl/async.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cpu/mldsa.h"

#ifndef MLDSA_BENCH_PROVIDER_DIR
#define MLDSA_BENCH_PROVIDER_DIR "."
#endif

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  bool verify = false;
  std::string alg = "ML-DSA-44";
  unsigned threads = 1;
  unsigned jobs = 0;  // ASYNC jobs per thread; 0 = synchronous calls
  double seconds = 3;
  double warmup = 0.5;  // seconds of the same load before each mode's timed run
  std::vector<std::string> modes = {"cpu", "routed"};
  size_t msg_bytes = 64;
  std::string provider_path = MLDSA_BENCH_PROVIDER_DIR;
  bool unchecked = false;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "mldsa-accel-bench: %s\n"
               "usage: mldsa-accel-bench [--op sign|verify] [--alg ML-DSA-44|ML-DSA-65|ML-DSA-87]\n"
               "                         [--threads N] [--async-jobs M] [--seconds S] [--modes cpu,routed]\n"
               "                         [--warmup S] [--msg-bytes B] [--provider-path DIR] [--unchecked]\n"
               "  cpu:    the provider loaded with MLDSA_ACCEL_GPU=off\n"
               "  routed: the provider's own settings (openssl.cnf / MLDSA_ACCEL_*)\n",
               why);
  std::exit(2);
}

unsigned long number(const char* text, const char* what) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(text, &end, 10);
  if (end == text || *end != '\0') usage((std::string("bad number for ") + what).c_str());
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--op") {
      const std::string v = value();
      if (v != "sign" && v != "verify") usage("--op is sign or verify");
      o.verify = v == "verify";
    } else if (a == "--alg") {
      o.alg = value();
    } else if (a == "--threads") {
      o.threads = static_cast<unsigned>(number(value(), "--threads"));
    } else if (a == "--async-jobs") {
      o.jobs = static_cast<unsigned>(number(value(), "--async-jobs"));
    } else if (a == "--seconds") {
      o.seconds = std::atof(value());
    } else if (a == "--warmup") {
      o.warmup = std::atof(value());
    } else if (a == "--modes") {
      o.modes.clear();
      std::string v = value();
      for (size_t s = 0; s <= v.size();) {
        const size_t e = std::min(v.find(',', s), v.size());
        const std::string m = v.substr(s, e - s);
        if (m != "cpu" && m != "routed") usage("--modes takes cpu and/or routed");
        o.modes.push_back(m);
        s = e + 1;
      }
    } else if (a == "--msg-bytes") {
      o.msg_bytes = number(value(), "--msg-bytes");
    } else if (a == "--provider-path") {
      o.provider_path = value();
    } else if (a == "--unchecked") {
      o.unchecked = true;
    } else if (a == "--help" || a == "-h") {
      usage("bulk ML-DSA through EVP");
    } else {
      usage(("unknown option " + a).c_str());
    }
  }
  if (o.threads == 0 || o.seconds <= 0) usage("--threads and --seconds must be positive");
  if (o.warmup < 0) usage("--warmup must not be negative");
  return o;
}

// One operation through EVP; false on any failure.
struct Op {
  OSSL_LIB_CTX* libctx;
  EVP_PKEY* pkey;
  bool verify;
  const std::vector<uint8_t>* msg;
  const std::vector<uint8_t>* sig;  // verify: the signature to check
};

// One operation; a signature goes to sig (mldsa::MAX_SIG_BYTES), its length to *len.
bool run_op(const Op& op, uint8_t* sig, size_t* len) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  bool ok = false;
  if (md == nullptr) return false;
  if (op.verify) {
    ok = EVP_DigestVerifyInit_ex(md, nullptr, nullptr, op.libctx, nullptr, op.pkey, nullptr) == 1 &&
         EVP_DigestVerify(md, op.sig->data(), op.sig->size(), op.msg->data(), op.msg->size()) == 1;
  } else {
    *len = mldsa::MAX_SIG_BYTES;
    ok = EVP_DigestSignInit_ex(md, nullptr, nullptr, op.libctx, nullptr, op.pkey, nullptr) == 1 &&
         EVP_DigestSign(md, sig, len, op.msg->data(), op.msg->size()) == 1;
  }
  EVP_MD_CTX_free(md);
  return ok;
}

struct JobArgs {
  const Op* op;
  uint8_t* sig;
  size_t* len;
};
int job_main(void* arg) {
  const JobArgs& a = *static_cast<const JobArgs*>(arg);
  return run_op(*a.op, a.sig, a.len) ? 1 : 0;
}

struct ThreadResult {
  std::vector<double> latency_us;
  uint64_t failures = 0;
  std::vector<uint8_t> sigs;  // every signature made, back to back
};

void keep(const Op& op, ThreadResult& out, const uint8_t* sig, size_t len) {
  if (!op.verify) out.sigs.insert(out.sigs.end(), sig, sig + len);
}

void run_sync(const Op& op, Clock::time_point end, ThreadResult& out) {
  uint8_t sig[mldsa::MAX_SIG_BYTES];
  size_t len = 0;
  while (Clock::now() < end) {
    const auto t0 = Clock::now();
    if (run_op(op, sig, &len))
      keep(op, out, sig, len);
    else
      ++out.failures;
    out.latency_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
}

// M jobs on this thread: start one op per job, resume paused jobs when their
// wait fd is readable, start the next op when a job finishes.
void run_async(const Op& op, unsigned m, Clock::time_point end, ThreadResult& out) {
  if (ASYNC_init_thread(m, m) != 1) {
    out.failures++;
    return;
  }
  struct Job {
    ASYNC_JOB* job = nullptr;
    ASYNC_WAIT_CTX* wait = nullptr;
    Clock::time_point started;
    bool active = false;
    int ret = 0;
    uint8_t sig[mldsa::MAX_SIG_BYTES];
    size_t len = 0;
  };
  std::vector<Job> jobs(m);
  auto step = [&](Job& j) {
    // ASYNC_start_job copies the arguments for a new job; a resumed one keeps its own.
    JobArgs args{&op, j.sig, &j.len};
    const int rc = ASYNC_start_job(&j.job, j.wait, &j.ret, job_main, &args, sizeof args);
    if (rc == ASYNC_PAUSE) return;
    j.active = false;
    if (rc != ASYNC_FINISH || j.ret != 1)
      ++out.failures;
    else
      keep(op, out, j.sig, j.len);
    out.latency_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - j.started).count());
  };
  for (Job& j : jobs) j.wait = ASYNC_WAIT_CTX_new();
  for (;;) {
    const bool more = Clock::now() < end;
    size_t active = 0;
    for (Job& j : jobs) {
      if (!j.active && more) {
        j.active = true;
        j.started = Clock::now();
        step(j);
      }
      active += j.active;
    }
    if (active == 0 && !more) break;
    std::vector<pollfd> fds;
    std::vector<Job*> owner;
    for (Job& j : jobs) {
      if (!j.active) continue;
      OSSL_ASYNC_FD fd[8];
      size_t n = 0;
      ASYNC_WAIT_CTX_get_all_fds(j.wait, nullptr, &n);
      if (n == 0 || n > 8) {
        step(j);  // paused with nothing to wait on: resume at once
        continue;
      }
      ASYNC_WAIT_CTX_get_all_fds(j.wait, fd, &n);
      for (size_t k = 0; k < n; ++k) {
        fds.push_back({fd[k], POLLIN, 0});
        owner.push_back(&j);
      }
    }
    if (fds.empty()) continue;
    // Jobs that finished (on the CPU, say) start their next operation at
    // once: wait for the paused ones only when nothing else can run, as a
    // server's event loop would.
    const bool idle_jobs = more && active < jobs.size();
    if (poll(fds.data(), fds.size(), idle_jobs ? 0 : 10) <= 0) continue;
    for (size_t k = 0; k < fds.size(); ++k)
      if ((fds[k].revents & POLLIN) && owner[k]->active) step(*owner[k]);
  }
  for (Job& j : jobs) ASYNC_WAIT_CTX_free(j.wait);
  ASYNC_cleanup_thread();
}

struct Counters {
  uint64_t cpu = 0, queued = 0, batches = 0, fallbacks = 0;
  double mean_batch = 0;
  std::string devices;
};

Counters counters(OSSL_PROVIDER* prov) {
  Counters c;
  const char* devices = nullptr;
  OSSL_PARAM p[] = {
      OSSL_PARAM_uint64("requests-cpu", &c.cpu),   OSSL_PARAM_uint64("requests-queued", &c.queued),
      OSSL_PARAM_uint64("batches", &c.batches),    OSSL_PARAM_uint64("fallbacks", &c.fallbacks),
      OSSL_PARAM_double("mean-batch-size", &c.mean_batch), OSSL_PARAM_utf8_ptr("gpu-devices", &devices, 0),
      OSSL_PARAM_END,
  };
  OSSL_PROVIDER_get_params(prov, p);
  c.devices = devices ? devices : "?";
  return c;
}

double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
  return v[i];
}

// The signatures a run made, verified by the core (on threads threads, after
// the timing): how many do not verify, or all of them if the key cannot be read.
uint64_t wrong_signatures(EVP_PKEY* pkey, const std::string& alg, const std::vector<uint8_t>& msg,
                          const std::vector<ThreadResult>& results) {
  uint64_t made = 0;
  for (const ThreadResult& r : results) made += r.sigs.size();
  const mldsa::Params* p = mldsa::params_by_name(alg);
  uint8_t pk[mldsa::MAX_PK_BYTES];
  size_t pk_len = 0;
  std::unique_ptr<mldsa::PublicKey> pub;
  if (p == nullptr || EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_PUB_KEY, pk, sizeof pk, &pk_len) != 1 ||
      mldsa::PublicKey::decode(*p, {pk, pk_len}, pub) != mldsa::Status::ok) {
    std::fprintf(stderr, "cannot read the %s public key to check the signatures\n", alg.c_str());
    return made ? made : 1;
  }
  std::atomic<uint64_t> wrong{0};
  std::vector<std::thread> pool;
  for (const ThreadResult& r : results)
    pool.emplace_back([&, s = &r.sigs] {
      if (s->size() % p->sig_bytes != 0) ++wrong;
      for (size_t off = 0; off + p->sig_bytes <= s->size(); off += p->sig_bytes)
        if (mldsa::verify(*pub, msg, {}, {s->data() + off, p->sig_bytes}) != mldsa::Status::ok) ++wrong;
    });
  for (std::thread& t : pool) t.join();
  return wrong;
}

// One row: load the provider in a fresh library context (it reads its
// settings at load), make a key, run, report.
bool run_mode(const Options& o, const std::string& mode) {
  const char* saved = std::getenv("MLDSA_ACCEL_GPU");
  const std::optional<std::string> saved_gpu = saved ? std::optional<std::string>(saved) : std::nullopt;
  if (mode == "cpu") setenv("MLDSA_ACCEL_GPU", "off", 1);
  OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
  OSSL_PROVIDER_set_default_search_path(libctx, o.provider_path.c_str());
  OSSL_PROVIDER* prov = OSSL_PROVIDER_load(libctx, "mldsa-accel");
  OSSL_PROVIDER* deflt = OSSL_PROVIDER_load(libctx, "default");
  if (saved_gpu) setenv("MLDSA_ACCEL_GPU", saved_gpu->c_str(), 1); else unsetenv("MLDSA_ACCEL_GPU");
  if (prov == nullptr || deflt == nullptr) {
    std::fprintf(stderr, "cannot load mldsa-accel from %s:\n", o.provider_path.c_str());
    ERR_print_errors_fp(stderr);
    return false;
  }

  EVP_PKEY* pkey = nullptr;
  EVP_PKEY_CTX* kctx = EVP_PKEY_CTX_new_from_name(libctx, o.alg.c_str(), "provider=mldsa-accel");
  if (kctx == nullptr || EVP_PKEY_keygen_init(kctx) != 1 || EVP_PKEY_keygen(kctx, &pkey) != 1) {
    std::fprintf(stderr, "keygen for %s failed\n", o.alg.c_str());
    ERR_print_errors_fp(stderr);
    return false;
  }
  EVP_PKEY_CTX_free(kctx);
  std::vector<uint8_t> msg(o.msg_bytes, 0x5a), sig(EVP_PKEY_get_size(pkey));
  {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    size_t len = sig.size();
    if (EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx, nullptr, pkey, nullptr) != 1 ||
        EVP_DigestSign(md, sig.data(), &len, msg.data(), msg.size()) != 1) {
      std::fprintf(stderr, "signing failed\n");
      ERR_print_errors_fp(stderr);
      return false;
    }
    sig.resize(len);
    EVP_MD_CTX_free(md);
  }
  const Op op{libctx, pkey, o.verify, &msg, &sig};
  // The load for secs seconds; returns the wall time it took.
  auto run_pool = [&](double secs, std::vector<ThreadResult>& res) {
    const auto t0 = Clock::now();
    const auto end = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(secs));
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < o.threads; ++t)
      pool.emplace_back([&, t] { o.jobs ? run_async(op, o.jobs, end, res[t]) : run_sync(op, end, res[t]); });
    for (std::thread& th : pool) th.join();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  // The warm-up is not timed: in it the router's first bulk request makes
  // the GPU engine (a CUDA context, or a simulated device and its memory)
  // and the policy takes its first measurements, which a server pays once.
  // Its rate sizes each thread's store of signatures, touched now, so that
  // keeping every signature costs no page faults in the timed run (a
  // growing store was 1.6 faults a signature). Its results are checked too.
  std::vector<ThreadResult> warm(o.threads);
  const double warm_s = o.warmup > 0 ? run_pool(o.warmup, warm) : 0;
  std::vector<ThreadResult> results(o.threads);
  for (unsigned t = 0; t < o.threads; ++t) {
    const double rate = warm_s > 0 ? static_cast<double>(warm[t].latency_us.size()) / warm_s : 0;
    const size_t expect = static_cast<size_t>(1.5 * rate * o.seconds) + 64;
    results[t].latency_us.reserve(expect);
    if (!o.verify) {
      results[t].sigs.resize(expect * sig.size());  // touches the pages
      results[t].sigs.clear();                      // keeps them
    }
  }
  const Counters before = counters(prov);
  const double elapsed = run_pool(o.seconds, results);

  std::vector<double> all;
  uint64_t failures = 0;
  for (ThreadResult& r : results) {
    all.insert(all.end(), r.latency_us.begin(), r.latency_us.end());
    failures += r.failures;
  }
  for (const ThreadResult& r : warm) failures += r.failures;
  const Counters after = counters(prov);
  const uint64_t queued = after.queued - before.queued;
  const uint64_t batches = after.batches - before.batches;
  const double p50 = percentile(all, 0.50), p99 = percentile(all, 0.99);
  // --unchecked covers the routed rows only: the CPU's results are real.
  const bool unchecked = o.unchecked && mode == "routed";
  const std::string shown = unchecked ? mode + " (unchecked)" : mode;
  std::printf("| %-6s | %-9s | %-6s | %7u | %4u | %9zu | %10.0f | %9.1f | %9.1f | %7.0f%% | %7llu | %6.1f | %9llu | %s\n",
              shown.c_str(), o.alg.c_str(), o.verify ? "verify" : "sign", o.threads, o.jobs, all.size(),
              static_cast<double>(all.size()) / elapsed, p50, p99,
              all.empty() ? 0.0 : 100.0 * static_cast<double>(queued) / static_cast<double>(all.size()),
              static_cast<unsigned long long>(batches), batches ? static_cast<double>(queued) / static_cast<double>(batches) : 0.0,
              static_cast<unsigned long long>(after.fallbacks - before.fallbacks), after.devices.c_str());
  if (failures != 0) std::fprintf(stderr, "%s: %llu operations failed\n", mode.c_str(), static_cast<unsigned long long>(failures));
  const uint64_t wrong = o.verify ? 0 : wrong_signatures(pkey, o.alg, msg, results) + wrong_signatures(pkey, o.alg, msg, warm);
  if (wrong != 0)
    std::fprintf(stderr, "%s: %llu signatures do not verify\n", mode.c_str(), static_cast<unsigned long long>(wrong));

  EVP_PKEY_free(pkey);
  OSSL_PROVIDER_unload(deflt);
  OSSL_PROVIDER_unload(prov);
  OSSL_LIB_CTX_free(libctx);
  // Unchecked: counted above, not judged (the device computed nothing).
  return unchecked || (failures == 0 && wrong == 0);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::printf("| mode   | algorithm | op     | threads | jobs |       ops |      ops/s |  p50 (us) |  p99 (us) |   queued | batches |  batch | fallbacks | GPU\n");
  std::printf("|--------|-----------|--------|---------|------|-----------|------------|-----------|-----------|----------|---------|--------|-----------|----\n");
  bool ok = true;
  for (const std::string& mode : o.modes) ok = run_mode(o, mode) && ok;
  return ok ? 0 : 1;
}
