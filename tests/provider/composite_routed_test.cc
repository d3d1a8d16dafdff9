// composite_routed_test.cc - composite signing and verification through the router: with the
// test build of the module and its simulated GPU (ctest sets MLDSA_ACCEL_SIM_DEVICES and
// gpu_policy = always), the ML-DSA half of each composite operation is queued to the device,
// and the signatures verify (made there, checked on the CPU, and the other way round).
#include "tests/provider/provider_fixture.h"

#include <string>
#include <thread>

namespace mldsa::test {
namespace {

uint64_t queued(OSSL_PROVIDER* prov) {
  uint64_t n = 0;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_uint64("requests-queued", &n), OSSL_PARAM_construct_end()};
  return OSSL_PROVIDER_get_params(prov, params) == 1 ? n : 0;
}

// Asking for the devices waits until the engine, started in the background,
// is ready (until then every request runs on the CPU).
std::string gpu_devices(OSSL_PROVIDER* prov) {
  char* s = nullptr;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr("gpu-devices", &s, 0), OSSL_PARAM_construct_end()};
  return OSSL_PROVIDER_get_params(prov, params) == 1 && s != nullptr ? std::string(s) : std::string();
}

class CompositeRouted : public ProviderTest {};

TEST_F(CompositeRouted, MldsaHalfGoesThroughTheQueue) {
  if (std::getenv("MLDSA_ACCEL_SIM_DEVICES") == nullptr) GTEST_SKIP() << "skipped: needs MLDSA_ACCEL_SIM_DEVICES";
  const std::string devices = gpu_devices(prov_);
  ASSERT_FALSE(devices.empty() || devices.rfind("none", 0) == 0) << "no simulated device: " << devices;
  for (const char* name : {"MLDSA44-ECDSA-P256-SHA256", "MLDSA65-Ed25519-SHA512", "MLDSA87-Ed448-SHAKE256"}) {
    EVP_PKEY_CTX* g = EVP_PKEY_CTX_new_from_name(libctx_, name, nullptr);
    EVP_PKEY* key = nullptr;
    ASSERT_TRUE(g != nullptr && EVP_PKEY_keygen_init(g) == 1 && EVP_PKEY_generate(g, &key) == 1) << name;
    EVP_PKEY_CTX_free(g);
    const uint64_t before = queued(prov_);
    // Several threads at once, as a server signs.
    std::vector<std::thread> threads;
    std::vector<int> ok(8, 0);
    for (size_t t = 0; t < ok.size(); ++t) {
      threads.emplace_back([&, t] {
        const std::string msg = "routed composite " + std::to_string(t);
        EVP_MD_CTX* m = EVP_MD_CTX_new();
        size_t len = 0;
        std::vector<uint8_t> sig;
        bool good = EVP_DigestSignInit_ex(m, nullptr, nullptr, libctx_, nullptr, key, nullptr) == 1 &&
                    EVP_DigestSign(m, nullptr, &len, reinterpret_cast<const uint8_t*>(msg.data()), msg.size()) == 1;
        if (good) {
          sig.resize(len);
          good = EVP_DigestSign(m, sig.data(), &len, reinterpret_cast<const uint8_t*>(msg.data()), msg.size()) == 1;
          sig.resize(len);
        }
        good = good && EVP_DigestVerifyInit_ex(m, nullptr, nullptr, libctx_, nullptr, key, nullptr) == 1 &&
               EVP_DigestVerify(m, sig.data(), sig.size(), reinterpret_cast<const uint8_t*>(msg.data()),
                                msg.size()) == 1;
        EVP_MD_CTX_free(m);
        ok[t] = good ? 1 : 0;
      });
    }
    for (auto& th : threads) th.join();
    for (size_t t = 0; t < ok.size(); ++t) EXPECT_EQ(ok[t], 1) << name << " thread " << t;
    // Each sign and each verify queues its ML-DSA half.
    EXPECT_GE(queued(prov_) - before, 2 * ok.size()) << name;
    EVP_PKEY_free(key);
  }
}

}  // namespace
}  // namespace mldsa::test
