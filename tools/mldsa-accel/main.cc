// main.cc - mldsa-accel: bulk ML-DSA keygen, sign and verify over a manifest
// of files, on the bulk C API (include/mldsa_accel/batch.h): every CPU core
// and the GPU (when there is one), each GPU result checked on the CPU.
#include "mldsa_accel/batch.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/provider.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr int kExitFailed = 1;  // an item failed (a signature that does not verify, a read error)
constexpr int kExitUsage = 2;   // bad command line, key or manifest

const char kHelp[] =
    "usage: mldsa-accel keygen --alg ALG --count N --out DIR [--json]\n"
    "       mldsa-accel sign   --key KEY --in MANIFEST --out DIR [--context TEXT] [--deterministic] [--json]\n"
    "       mldsa-accel verify --pub PUB --in MANIFEST --sigs DIR [--context TEXT] [--json]\n"
    "\n"
    "MANIFEST lists one file path per line; sign writes DIR/<file name>.sig for each,\n"
    "verify reads the same names from DIR and prints one line per failure.\n"
    "KEY / PUB: PEM or DER (any format the mldsa-accel provider reads; it is loaded from\n"
    "OpenSSL's modules directory or OPENSSL_MODULES), or raw FIPS 204 bytes (sk, pk, or a\n"
    "32-byte seed, which needs --alg). keygen writes DIR/key-<i>.seed (the private key's\n"
    "32-byte seed) and DIR/key-<i>.pub (pkEncode bytes).\n"
    "--alg: ML-DSA-44, ML-DSA-65 or ML-DSA-87. --json: one JSON object with items, failed,\n"
    "seconds, items_per_second, cpu_items, device_items, device_checked, device_wrong, devices.\n"
    "Exit status: 0 every item succeeded, 1 some item failed (listed), 2 usage or key error.\n"
    "The GPU is used as the provider uses it (MLDSA_ACCEL_GPU, ... ; docs/BULK.md).\n";

struct Options {
  std::string cmd, alg, key, in, out, sigs, context;
  size_t count = 0;
  bool json = false, deterministic = false;
};

bool read_file(const std::string& path, std::vector<uint8_t>& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !f.bad();
}

bool write_file(const std::string& path, const uint8_t* data, size_t len) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(len));
  return static_cast<bool>(f);
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The algorithm of raw key bytes from their length (FIPS 204's sizes).
const char* alg_of_length(size_t len, bool is_private) {
  static const std::map<size_t, const char*> pk = {{1312, "ML-DSA-44"}, {1952, "ML-DSA-65"}, {2592, "ML-DSA-87"}};
  static const std::map<size_t, const char*> sk = {{2560, "ML-DSA-44"}, {4032, "ML-DSA-65"}, {4896, "ML-DSA-87"}};
  const auto& m = is_private ? sk : pk;
  const auto it = m.find(len);
  return it == m.end() ? nullptr : it->second;
}

// PEM or DER through OpenSSL with the provider: the key's algorithm and raw bytes.
bool decode_with_openssl(const std::vector<uint8_t>& bytes, bool is_private, std::string& alg,
                         std::vector<uint8_t>& raw) {
  static OSSL_PROVIDER* prov = OSSL_PROVIDER_load(nullptr, "mldsa-accel");
  static OSSL_PROVIDER* deflt = OSSL_PROVIDER_load(nullptr, "default");
  (void)prov;
  (void)deflt;
  BIO* bio = BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size()));
  EVP_PKEY* pkey = is_private ? PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr)
                              : PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
  if (pkey == nullptr) {
    (void)BIO_reset(bio);
    pkey = is_private ? d2i_PrivateKey_bio(bio, nullptr) : d2i_PUBKEY_bio(bio, nullptr);
  }
  BIO_free(bio);
  if (pkey == nullptr) return false;
  const char* name = EVP_PKEY_get0_type_name(pkey);
  alg = name != nullptr ? name : "";
  size_t len = 0;
  const char* param = is_private ? OSSL_PKEY_PARAM_PRIV_KEY : OSSL_PKEY_PARAM_PUB_KEY;
  bool ok = EVP_PKEY_get_octet_string_param(pkey, param, nullptr, 0, &len) == 1;
  raw.resize(len);
  ok = ok && EVP_PKEY_get_octet_string_param(pkey, param, raw.data(), raw.size(), &len) == 1;
  EVP_PKEY_free(pkey);
  return ok;
}

mldsa_accel_key* load_key(const std::string& path, bool is_private, std::string alg) {
  std::vector<uint8_t> bytes;
  if (!read_file(path, bytes)) {
    std::fprintf(stderr, "mldsa-accel: cannot read %s\n", path.c_str());
    return nullptr;
  }
  std::vector<uint8_t> raw = bytes;
  if (const char* a = alg_of_length(bytes.size(), is_private)) {
    alg = a;
  } else if (!(is_private && bytes.size() == 32 && !alg.empty()) &&
             !decode_with_openssl(bytes, is_private, alg, raw)) {
    std::fprintf(stderr, "mldsa-accel: %s is not a %s key this tool reads (PEM, DER, raw; a seed needs --alg)\n",
                 path.c_str(), is_private ? "private" : "public");
    return nullptr;
  }
  mldsa_accel_key* key = nullptr;
  const int st = mldsa_accel_key_new(alg.c_str(), is_private, raw.data(), raw.size(), &key);
  OPENSSL_cleanse(bytes.data(), bytes.size());
  OPENSSL_cleanse(raw.data(), raw.size());
  if (st != MLDSA_ACCEL_OK)
    std::fprintf(stderr, "mldsa-accel: %s: %s (%s)\n", path.c_str(), mldsa_accel_status_string(st), alg.c_str());
  return key;
}

bool read_manifest(const std::string& path, std::vector<std::string>& files) {
  std::ifstream f(path);
  if (!f) return false;
  for (std::string line; std::getline(f, line);)
    if (!line.empty()) files.push_back(line);
  return true;
}

void summary(const Options& o, mldsa_accel_batch* ctx, size_t items, size_t failed, double seconds) {
  mldsa_accel_stats s{};
  mldsa_accel_batch_stats(ctx, &s);
  const double rate = seconds > 0 ? static_cast<double>(items) / seconds : 0;
  if (o.json) {
    std::string devices;
    for (const char* c = s.devices; *c; ++c) {
      if (*c == '"' || *c == '\\') devices += '\\';
      devices += *c;
    }
    std::printf("{\"op\":\"%s\",\"items\":%zu,\"failed\":%zu,\"seconds\":%.6f,\"items_per_second\":%.1f,"
                "\"cpu_items\":%llu,\"device_items\":%llu,\"device_checked\":%llu,\"device_wrong\":%llu,"
                "\"devices\":\"%s\"}\n",
                o.cmd.c_str(), items, failed, seconds, rate, static_cast<unsigned long long>(s.items_cpu),
                static_cast<unsigned long long>(s.items_device), static_cast<unsigned long long>(s.device_checked),
                static_cast<unsigned long long>(s.device_wrong), devices.c_str());
  } else {
    std::fprintf(stderr,
                 "%s: %zu items, %zu failed, %.3f s (%.1f items/s); CPU %llu, GPU %llu (results checked %llu, "
                 "wrong %llu); GPU: %s\n",
                 o.cmd.c_str(), items, failed, seconds, rate, static_cast<unsigned long long>(s.items_cpu),
                 static_cast<unsigned long long>(s.items_device), static_cast<unsigned long long>(s.device_checked),
                 static_cast<unsigned long long>(s.device_wrong), s.devices);
  }
}

int run(const Options& o, mldsa_accel_batch* ctx) {
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const auto* cctx = reinterpret_cast<const uint8_t*>(o.context.data());
  if (o.cmd == "keygen") {
    if (o.alg.empty() || o.count == 0 || o.out.empty()) return kExitUsage;
    std::vector<mldsa_accel_keygen_item> items(o.count);
    std::vector<std::vector<uint8_t>> pk(o.count, std::vector<uint8_t>(2592)), sk(o.count, std::vector<uint8_t>(4896)),
        seed(o.count, std::vector<uint8_t>(32));
    for (size_t i = 0; i < o.count; ++i)
      items[i] = {nullptr, pk[i].data(), pk[i].size(), sk[i].data(), sk[i].size(), seed[i].data(), 0};
    if (mldsa_accel_keygen(ctx, o.alg.c_str(), items.data(), items.size()) < 0) return kExitUsage;
    size_t failed = 0;
    mldsa_accel_key* k = nullptr;
    for (size_t i = 0; i < o.count; ++i) {
      size_t pk_len = pk[i].size();
      const std::string base = o.out + "/key-" + std::to_string(i);
      if (items[i].status != MLDSA_ACCEL_OK ||
          mldsa_accel_key_new(o.alg.c_str(), 1, seed[i].data(), 32, &k) != MLDSA_ACCEL_OK ||
          mldsa_accel_key_public(k, pk[i].data(), &pk_len) != MLDSA_ACCEL_OK ||
          !write_file(base + ".seed", seed[i].data(), 32) || !write_file(base + ".pub", pk[i].data(), pk_len)) {
        std::printf("key-%zu: failed\n", i);
        ++failed;
      }
      mldsa_accel_key_free(k);
      k = nullptr;
      OPENSSL_cleanse(sk[i].data(), sk[i].size());
      OPENSSL_cleanse(seed[i].data(), seed[i].size());
    }
    summary(o, ctx, o.count, failed, seconds());
    return failed ? kExitFailed : 0;
  }
  std::vector<std::string> files;
  if (o.in.empty() || !read_manifest(o.in, files)) {
    std::fprintf(stderr, "mldsa-accel: cannot read the manifest '%s'\n", o.in.c_str());
    return kExitUsage;
  }
  const bool sign = o.cmd == "sign";
  mldsa_accel_key* key = load_key(o.key, sign, o.alg);
  if (key == nullptr) return kExitUsage;
  const size_t sig_bytes = mldsa_accel_signature_size(key);
  const size_t n = files.size();
  std::vector<std::vector<uint8_t>> msgs(n), sigs(n);
  std::vector<bool> read_ok(n, true);
  for (size_t i = 0; i < n; ++i) {
    read_ok[i] = read_file(files[i], msgs[i]) &&
                 (sign || read_file((sign ? o.out : o.sigs) + "/" + base_name(files[i]) + ".sig", sigs[i]));
    if (sign) sigs[i].resize(sig_bytes);
  }
  size_t failed = 0;
  if (sign) {
    std::vector<mldsa_accel_sign_item> items(n);
    for (size_t i = 0; i < n; ++i)
      items[i] = {key, msgs[i].data(), msgs[i].size(), cctx, o.context.size(), sigs[i].data(), sigs[i].size(), 0};
    mldsa_accel_sign(ctx, items.data(), n, o.deterministic ? MLDSA_ACCEL_DETERMINISTIC : 0);
    for (size_t i = 0; i < n; ++i) {
      const char* why = !read_ok[i] ? "cannot read the file"
                        : items[i].status != MLDSA_ACCEL_OK ? mldsa_accel_status_string(items[i].status)
                        : !write_file(o.out + "/" + base_name(files[i]) + ".sig", sigs[i].data(), sig_bytes)
                            ? "cannot write the signature"
                            : nullptr;
      if (why != nullptr) {
        std::printf("%s: %s\n", files[i].c_str(), why);
        ++failed;
      }
    }
  } else {
    std::vector<mldsa_accel_verify_item> items(n);
    for (size_t i = 0; i < n; ++i)
      items[i] = {key, msgs[i].data(), msgs[i].size(), cctx, o.context.size(), sigs[i].data(), sigs[i].size(), 0};
    mldsa_accel_verify(ctx, items.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const char* why = !read_ok[i] ? "cannot read the file or its signature"
                        : items[i].status != MLDSA_ACCEL_OK ? mldsa_accel_status_string(items[i].status)
                                                            : nullptr;
      if (why != nullptr) {
        std::printf("%s: %s\n", files[i].c_str(), why);
        ++failed;
      }
    }
  }
  mldsa_accel_key_free(key);
  summary(o, ctx, n, failed, seconds());
  return failed ? kExitFailed : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kHelp, argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : 0;
  }
  o.cmd = argv[1];
  if (o.cmd != "keygen" && o.cmd != "sign" && o.cmd != "verify") {
    std::fprintf(stderr, "mldsa-accel: unknown command '%s'\n%s", argv[1], kHelp);
    return kExitUsage;
  }
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    std::string count;
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    } else if (a == "--json") o.json = true;
    else if (a == "--deterministic") o.deterministic = true;
    else if (a == "--alg") ok = value(o.alg);
    else if (a == "--key" || a == "--pub") ok = value(o.key);
    else if (a == "--in") ok = value(o.in);
    else if (a == "--out") ok = value(o.out);
    else if (a == "--sigs") ok = value(o.sigs);
    else if (a == "--context") ok = value(o.context);
    else if (a == "--count") {
      ok = value(count);
      char* end = nullptr;
      o.count = ok ? std::strtoull(count.c_str(), &end, 10) : 0;
      ok = ok && end != nullptr && *end == '\0' && o.count > 0;
    } else ok = false;
    if (!ok) {
      std::fprintf(stderr, "mldsa-accel: bad argument '%s'\n%s", a.c_str(), kHelp);
      return kExitUsage;
    }
  }
  if ((o.cmd == "sign" && (o.key.empty() || o.out.empty())) || (o.cmd == "verify" && (o.key.empty() || o.sigs.empty())) ||
      (o.cmd == "keygen" && (o.alg.empty() || o.count == 0 || o.out.empty()))) {
    std::fprintf(stderr, "mldsa-accel: missing arguments\n%s", kHelp);
    return kExitUsage;
  }
  int st = 0;
  char why[256] = "";
  mldsa_accel_batch* ctx = mldsa_accel_batch_new(&st, why, sizeof why);
  if (ctx == nullptr) {
    std::fprintf(stderr, "mldsa-accel: %s: %s\n", mldsa_accel_status_string(st), why);
    return kExitUsage;
  }
  const int rc = run(o, ctx);
  mldsa_accel_batch_free(ctx);
  return rc;
}
