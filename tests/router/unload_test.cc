// unload_test.cc - nothing the module leaves in the application's objects
// points into it after unload: an ASYNC job signs through the batch queue
// (its wait ctx gets the queue's eventfd), the provider is unloaded and the
// module unmapped, and only then does the application free the wait ctx.
//
// Run with MLDSA_ACCEL_TEST_EXECUTOR=cpu and MLDSA_ACCEL_GPU_MIN_INFLIGHT=0
// (ctest sets them), so the job's request goes through the queue.
#include <gtest/gtest.h>

#include <openssl/async.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <dirent.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#ifndef MLDSA_PROVIDER_DIR
#error "MLDSA_PROVIDER_DIR must name the folder holding mldsa-accel.so"
#endif

namespace {

bool module_mapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("mldsa-accel.so") != std::string::npos) return true;
  return false;
}

size_t open_eventfds() {
  size_t n = 0;
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return 0;
  while (dirent* e = readdir(d)) {
    char target[256] = {};
    const std::string path = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t len = readlink(path.c_str(), target, sizeof target - 1);
    if (len > 0 && std::string(target, static_cast<size_t>(len)).find("eventfd") != std::string::npos) ++n;
  }
  closedir(d);
  return n;
}

struct Loaded {
  OSSL_LIB_CTX* libctx = nullptr;
  OSSL_PROVIDER* prov = nullptr;
  OSSL_PROVIDER* deflt = nullptr;
  EVP_PKEY* pkey = nullptr;

  bool load() {
    libctx = OSSL_LIB_CTX_new();
    if (libctx == nullptr || !OSSL_PROVIDER_set_default_search_path(libctx, MLDSA_PROVIDER_DIR)) return false;
    prov = OSSL_PROVIDER_load(libctx, "mldsa-accel");
    deflt = OSSL_PROVIDER_load(libctx, "default");
    EVP_PKEY_CTX* gen = EVP_PKEY_CTX_new_from_name(libctx, "ML-DSA-44", nullptr);
    const bool ok = prov != nullptr && deflt != nullptr && gen != nullptr && EVP_PKEY_keygen_init(gen) == 1 &&
                    EVP_PKEY_keygen(gen, &pkey) == 1;
    EVP_PKEY_CTX_free(gen);
    if (!ok) ERR_print_errors_fp(stderr);
    // The executor starts in the background at the first bulk request, which
    // runs on the CPU meanwhile; asking for gpu-devices waits until it is ready.
    const char* devices = nullptr;
    OSSL_PARAM q[] = {OSSL_PARAM_utf8_ptr("gpu-devices", &devices, 0), OSSL_PARAM_END};
    return ok && OSSL_PROVIDER_get_params(prov, q) == 1;
  }
  void unload() {
    EVP_PKEY_free(pkey);
    OSSL_PROVIDER_unload(prov);
    OSSL_PROVIDER_unload(deflt);
    OSSL_LIB_CTX_free(libctx);
    *this = Loaded{};
  }
};

struct SignArgs {
  Loaded* l;
  bool ok;
};

int sign_job(void* a) {
  SignArgs* args = *static_cast<SignArgs**>(a);
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  const unsigned char msg[] = "unload";
  unsigned char sig[4096];
  size_t len = sizeof sig;
  args->ok = md != nullptr &&
             EVP_DigestSignInit_ex(md, nullptr, nullptr, args->l->libctx, nullptr, args->l->pkey, nullptr) == 1 &&
             EVP_DigestSign(md, sig, &len, msg, sizeof msg) == 1;
  EVP_MD_CTX_free(md);
  return args->ok ? 1 : 0;
}

size_t wait_fds(ASYNC_WAIT_CTX* w) {
  size_t n = 0;
  ASYNC_WAIT_CTX_get_all_fds(w, nullptr, &n);
  return n;
}

// Runs one signing job in w to its end; returns how many fds w holds then
// (the queue's eventfd, registered before the request was queued: 1).
size_t run_job(Loaded& l, ASYNC_WAIT_CTX* w, bool& ok) {
  ASYNC_JOB* job = nullptr;
  int ret = 0;
  SignArgs args{&l, false};
  SignArgs* p = &args;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    const int rc = ASYNC_start_job(&job, w, &ret, sign_job, &p, sizeof p);
    if (rc != ASYNC_PAUSE) {
      ok = rc == ASYNC_FINISH && ret == 1 && args.ok;
      return wait_fds(w);
    }
    size_t n = wait_fds(w);
    std::vector<OSSL_ASYNC_FD> fds(n);
    if (n != 0) ASYNC_WAIT_CTX_get_all_fds(w, fds.data(), &n);
    std::vector<pollfd> pfds;
    for (OSSL_ASYNC_FD fd : fds) pfds.push_back({fd, POLLIN, 0});
    if (!pfds.empty()) poll(pfds.data(), pfds.size(), 100);
    if (std::chrono::steady_clock::now() > deadline) {
      ok = false;
      return wait_fds(w);
    }
  }
}

class Unload : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(ASYNC_init_thread(4, 0), 1);
    ASSERT_FALSE(module_mapped()) << "the module is loaded before the test loads it";
    ASSERT_EQ(open_eventfds(), 0u);
  }
  void TearDown() override { ASYNC_cleanup_thread(); }
};

TEST_F(Unload, WaitCtxFreedAfterTheModuleIsGone) {
  Loaded l;
  ASSERT_TRUE(l.load());
  ASYNC_WAIT_CTX* w = ASYNC_WAIT_CTX_new();
  ASSERT_NE(w, nullptr);
  bool ok = false;
  // The request went through the queue: the wait ctx holds the queue's fd.
  EXPECT_EQ(run_job(l, w, ok), 1u) << "no eventfd in the wait ctx (the request was not queued?)";
  EXPECT_TRUE(ok);
  EXPECT_EQ(open_eventfds(), 1u);
  l.unload();
  // The module must really be gone, or this test proves nothing.
  ASSERT_FALSE(module_mapped()) << "mldsa-accel.so still mapped after unload";
  // The provider took its fd back from the wait ctx and closed it.
  EXPECT_EQ(wait_fds(w), 0u);
  EXPECT_EQ(open_eventfds(), 0u);
  ASYNC_WAIT_CTX_free(w);  // before the fix: a call into the unmapped module
}

TEST_F(Unload, WaitCtxFreedWhileLoadedClosesItsFd) {
  Loaded l;
  ASSERT_TRUE(l.load());
  ASYNC_WAIT_CTX* w = ASYNC_WAIT_CTX_new();
  bool ok = false;
  EXPECT_EQ(run_job(l, w, ok), 1u);
  EXPECT_TRUE(ok);
  // A second job in the same wait ctx reuses the fd.
  EXPECT_EQ(run_job(l, w, ok), 1u);
  EXPECT_TRUE(ok);
  EXPECT_EQ(open_eventfds(), 1u);
  ASYNC_WAIT_CTX_free(w);
  EXPECT_EQ(open_eventfds(), 0u);
  l.unload();
  EXPECT_FALSE(module_mapped());
}

}  // namespace
