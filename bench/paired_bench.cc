// paired_bench.cc - mldsa-accel next to other ML-DSA (issue 17) and round-3
// Falcon (issue 35) implementations, in one process.
//
// Every implementation runs the same operation in turn, blocks of --block
// calls each, alternating, until each has made --calls calls; a block's time
// over its calls is one sample. Per run, each implementation's figure is the
// median of its samples and the ratio is theirs / ours; the table gives the
// median over --runs runs (and the range). Alternating in small blocks keeps
// frequency changes and neighbours' load on the machine (a shared VM) from
// favouring whichever implementation happened to run first.
//
// Operations, as a caller with encoded keys meets them: keygen (fresh
// randomness, pk and sk bytes out), sign (from the encoded sk, 32-byte
// message, hedged), verify (from the encoded pk). Falcon signs in the
// compressed format (what liboqs's OQS_SIG_falcon_* make), from the encoded
// sk, with a fresh nonce and sampler seed. Ours: the core API (the
// seed or rnd drawn first, as the provider draws them, then
// PrivateKey::from_seed, sign_encoded; verify_encoded), one column per
// backend table named in --ours; the table is switched between blocks
// (NAME: the one this CPU gets; NAME@TUNING: that one, e.g.
// avx2@generic, avx2@zen5; a ":no-mask-hash" or ":no-expand-a-hash" suffix:
// the table without Backend::mask_hash or Backend::expand_a_hash;
// ":keygen-lanes=DDD": Backend::keygen_lanes_shapes set to the three digits,
// for 44, 65 and 87). Falcon's core has one path: --ours does not apply to it.
//
// The anchors are found at run time under --anchors DIR (or
// MLDSA_ACCEL_ANCHORS), as scripts/build-anchors.sh lays them out:
//   liboqs        DIR/liboqs/lib/liboqs.so       (liboqs's default build)
//   liboqs-avx2   DIR/liboqs-avx2/lib/liboqs.so  (no AVX-512, its SHA-3 included)
//   pqcrystals    DIR/pqcrystals/libpqcrystals_dilithium{2,3,5}_avx2.so
// An anchor that is not there is reported "not found" and left out; nothing
// is downloaded.
//
// Randomness: every implementation draws from the same source, the
// benchmark's random_bytes: getrandom (--rng os, the default: what the core
// API, pq-crystals and liboqs built without OpenSSL draw from), or OpenSSL's
// RAND_priv_bytes (--rng openssl: what the provider and liboqs's default
// build, with OpenSSL, draw from). Their cost differs by platform (in the VM
// of bench/RESULTS.md: getrandom 1.06 us a call with Debian 12's glibc, 0.12
// us with Debian 13's vDSO one; RAND_priv_bytes 1.7 us with OpenSSL 3.0,
// 1.4 us with 3.5) and is the same for every implementation, so it only
// dilutes the ratios. liboqs gets it through
// OQS_randombytes_custom_algorithm; pq-crystals calls `randombytes`, which
// this program exports, and a library's call to its own global function goes
// through its PLT, so ours is the one it reaches. Each implementation's
// keygen is checked to draw from it.
//
// Before timing, each anchor's signature is checked with our verify and ours
// with its verify (both are FIPS 204 ML-DSA, or both round-3 Falcon), so a
// mismatched library cannot slip into the table.
#include <dlfcn.h>
#include <openssl/rand.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cpu/backend.h"
#include "cpu/falcon/falcon.h"
#include "cpu/mldsa.h"

namespace {

using namespace mldsa;

constexpr size_t MSG_BYTES = 32;

[[noreturn]] void die(const std::string& what);

// One parameter set as the benchmark meets it: ML-DSA's or Falcon's.
struct Set {
  std::string name;  // "ML-DSA-44", "Falcon-512"
  const Params* mldsa = nullptr;
  const falcon::Params* falcon = nullptr;
  size_t pk_bytes = 0, sk_bytes = 0, sig_bytes = 0;  // sig: the largest (Falcon's varies)
  std::string oqs;  // liboqs's name: ml_dsa_44, falcon_512
};

Set set_named(const std::string& s) {
  Set set;
  if (s == "falcon512" || s == "falcon1024") {
    set.falcon = s == "falcon512" ? &falcon::falcon512() : &falcon::falcon1024();
    set.name = set.falcon->name;
    set.pk_bytes = set.falcon->pk_bytes;
    set.sk_bytes = set.falcon->sk_bytes;
    set.sig_bytes = set.falcon->sig_max_bytes;
    set.oqs = "falcon_" + s.substr(6);
    return set;
  }
  set.mldsa = params_by_name("ML-DSA-" + s);
  if (!set.mldsa) die("unknown parameter set " + s + " (44, 65, 87, falcon512, falcon1024)");
  set.name = set.mldsa->name;
  set.pk_bytes = set.mldsa->pk_bytes;
  set.sk_bytes = set.mldsa->sk_bytes;
  set.sig_bytes = set.mldsa->sig_bytes;
  set.oqs = "ml_dsa_" + s;
  return set;
}

struct Options {
  std::string anchors;
  std::vector<std::string> ours;
  std::vector<std::string> sets = {"44", "65", "87"};
  std::vector<std::string> ops = {"keygen", "sign", "verify"};
  int calls = 2000;
  int block = 16;
  int runs = 5;
  bool wall = false;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

double now_ns(bool wall) {
  timespec ts;
  clock_gettime(wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void die(const std::string& what) {
  std::fprintf(stderr, "bench_paired: %s\n", what.c_str());
  std::exit(1);
}

// The one source of randomness (see the top): getrandom through the core's
// os_random, or OpenSSL's (--rng openssl); g_draws counts its calls.
bool g_os_rng = true;
uint64_t g_draws = 0;
void random_bytes(uint8_t* out, size_t n) {
  ++g_draws;
  if (g_os_rng ? !os_random(out, n) : RAND_priv_bytes(out, static_cast<int>(n)) != 1)
    die(g_os_rng ? "getrandom failed" : "RAND_priv_bytes failed");
}

// One implementation of one parameter set: keygen, sign, verify on bytes.
struct Impl {
  std::string name;
  std::function<bool(uint8_t* pk, uint8_t* sk)> keygen;
  std::function<bool(uint8_t* sig, size_t* siglen, const uint8_t* msg, const uint8_t* sk)> sign;
  std::function<bool(const uint8_t* sig, size_t siglen, const uint8_t* msg, const uint8_t* pk)> verify;
  std::function<void()> enter = [] {};  // run before each block (selects our backend)
};

// A backend name, optionally with "@TUNING" (that one of its tables, e.g.
// avx2@generic, avx2@zen5; else the one this CPU gets) and ":no-mask-hash"
// or ":no-expand-a-hash" (the table without that entry) or
// ":keygen-lanes=DDD" (keygen_lanes_shapes, a digit 0-2 per shape), for an
// A/B of one choice in one process.
Impl ours(const Params& p, const std::string& spec) {
  Impl im;
  const size_t colon = spec.find(':');
  const std::string variant = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (!variant.empty() && variant != "no-mask-hash" && variant != "no-expand-a-hash" &&
      variant.rfind("keygen-lanes=", 0) != 0)
    die("unknown backend variant " + variant);
  const std::vector<const Backend*> tables = backend_tables(spec.substr(0, colon));
  if (tables.empty()) die("backend " + spec.substr(0, colon) + " is not available on this CPU");
  auto table = std::make_shared<Backend>(*tables.front());
  im.name = std::string("ours-") + table->name + '@' + table->tuning;
  if (!variant.empty()) im.name += ':' + variant;
  if (variant == "no-mask-hash") table->mask_hash = nullptr;
  if (variant == "no-expand-a-hash") table->expand_a_hash = nullptr;
  if (variant.rfind("keygen-lanes=", 0) == 0) {
    const std::string digits = variant.substr(13);
    if (digits.size() != 3 || digits.find_first_not_of("012") != std::string::npos)
      die("keygen-lanes= takes three digits 0-2 (44, 65, 87), not " + digits);
    if (!table->expand_a_hash && digits != "000") die("backend " + spec + " has no expand_a_hash");
    for (unsigned i = 0; i < 3; ++i) table->keygen_lanes_shapes[i] = static_cast<uint8_t>(digits[i] - '0');
  }
  im.enter = [table] { use_backend_for_testing(table.get()); };
  im.keygen = [&p](uint8_t* pk, uint8_t* sk) {
    uint8_t seed[SEED_BYTES];
    random_bytes(seed, sizeof seed);
    std::unique_ptr<PrivateKey> key;
    if (PrivateKey::from_seed(p, seed, key) != Status::ok) return false;
    std::memcpy(pk, key->public_key().encoded().data(), p.pk_bytes);
    std::memcpy(sk, key->encoded().data(), p.sk_bytes);
    return true;
  };
  im.sign = [&p](uint8_t* sig, size_t* siglen, const uint8_t* msg, const uint8_t* sk) {
    uint8_t rnd[RND_BYTES];
    random_bytes(rnd, sizeof rnd);
    *siglen = p.sig_bytes;
    return sign_encoded(p, {sk, p.sk_bytes}, {msg, MSG_BYTES}, {}, rnd, sig) == Status::ok;
  };
  im.verify = [&p](const uint8_t* sig, size_t siglen, const uint8_t* msg, const uint8_t* pk) {
    return verify_encoded(p, {pk, p.pk_bytes}, {msg, MSG_BYTES}, {}, {sig, siglen}) == Status::ok;
  };
  return im;
}

// Our Falcon core: the seed, nonce and sampler seed drawn as liboqs draws them.
Impl ours_falcon(const falcon::Params& p) {
  Impl im;
  im.name = "ours";
  im.keygen = [&p](uint8_t* pk, uint8_t* sk) {
    uint8_t seed[falcon::SEED_BYTES];
    random_bytes(seed, sizeof seed);
    falcon::keygen(p, seed, pk, sk);
    return true;
  };
  im.sign = [&p](uint8_t* sig, size_t* siglen, const uint8_t* msg, const uint8_t* sk) {
    uint8_t nonce[falcon::NONCE_BYTES], seed[falcon::SEED_BYTES];
    random_bytes(nonce, sizeof nonce);
    random_bytes(seed, sizeof seed);
    return falcon::sign(p, sk, msg, MSG_BYTES, nonce, seed, falcon::SigFormat::compressed, sig, siglen);
  };
  im.verify = [&p](const uint8_t* sig, size_t siglen, const uint8_t* msg, const uint8_t* pk) {
    return falcon::verify(p, pk, msg, MSG_BYTES, sig, siglen, falcon::SigFormat::compressed);
  };
  return im;
}

void* open_lib(const std::string& path) {
  // RTLD_LOCAL: liboqs and liboqs-avx2 export the same names; each keeps its own.
  return dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
}

template <typename Fn>
Fn sym(void* lib, const std::string& name) {
  return reinterpret_cast<Fn>(dlsym(lib, name.c_str()));
}

// liboqs: OQS_SIG_<ml_dsa_44, falcon_512, ...>_{keypair,sign,verify};
// OQS_SUCCESS is 0.
bool liboqs(const Set& set, const std::string& variant, const std::string& dir, Impl& im) {
  void* lib = open_lib(dir + "/" + variant + "/lib/liboqs.so");  // kept open for the process
  if (!lib) return false;
  if (auto init = sym<void (*)()>(lib, "OQS_init")) init();
  using Rng = void (*)(uint8_t*, size_t);
  if (auto custom = sym<void (*)(Rng)>(lib, "OQS_randombytes_custom_algorithm")) custom(random_bytes);
  const std::string pre = "OQS_SIG_" + set.oqs + "_";
  auto kp = sym<int (*)(uint8_t*, uint8_t*)>(lib, pre + "keypair");
  auto sg = sym<int (*)(uint8_t*, size_t*, const uint8_t*, size_t, const uint8_t*)>(lib, pre + "sign");
  auto vf = sym<int (*)(const uint8_t*, size_t, const uint8_t*, size_t, const uint8_t*)>(lib, pre + "verify");
  if (!kp || !sg || !vf) return false;
  const size_t sig_bytes = set.sig_bytes;
  const bool fixed = set.mldsa != nullptr;
  im.name = variant;
  im.keygen = [kp](uint8_t* pk, uint8_t* sk) { return kp(pk, sk) == 0; };
  im.sign = [sg, sig_bytes, fixed](uint8_t* sig, size_t* siglen, const uint8_t* msg, const uint8_t* sk) {
    *siglen = 0;
    return sg(sig, siglen, msg, MSG_BYTES, sk) == 0 && (fixed ? *siglen == sig_bytes : *siglen <= sig_bytes);
  };
  im.verify = [vf](const uint8_t* sig, size_t siglen, const uint8_t* msg, const uint8_t* pk) {
    return vf(msg, MSG_BYTES, sig, siglen, pk) == 0;
  };
  return true;
}

// pq-crystals/dilithium master (FIPS 204): pqcrystals_dilithium<m>_avx2_*,
// with a context string (empty here); 0 is success.
bool pqcrystals(const Params& p, const std::string& dir, Impl& im) {
  const std::string m = p.id == ParamSet::ML_DSA_44 ? "2" : p.id == ParamSet::ML_DSA_65 ? "3" : "5";
  void* lib = open_lib(dir + "/pqcrystals/libpqcrystals_dilithium" + m + "_avx2.so");
  if (!lib) return false;
  const std::string pre = "pqcrystals_dilithium" + m + "_avx2_";
  auto kp = sym<int (*)(uint8_t*, uint8_t*)>(lib, pre + "keypair");
  auto sg = sym<int (*)(uint8_t*, size_t*, const uint8_t*, size_t, const uint8_t*, size_t,
                        const uint8_t*)>(lib, pre + "signature");
  auto vf = sym<int (*)(const uint8_t*, size_t, const uint8_t*, size_t, const uint8_t*, size_t,
                        const uint8_t*)>(lib, pre + "verify");
  if (!kp || !sg || !vf) return false;
  const size_t sig_bytes = p.sig_bytes;
  im.name = "pqcrystals";
  im.keygen = [kp](uint8_t* pk, uint8_t* sk) { return kp(pk, sk) == 0; };
  im.sign = [sg, sig_bytes](uint8_t* sig, size_t* siglen, const uint8_t* msg, const uint8_t* sk) {
    *siglen = 0;
    return sg(sig, siglen, msg, MSG_BYTES, nullptr, 0, sk) == 0 && *siglen == sig_bytes;
  };
  im.verify = [vf](const uint8_t* sig, size_t siglen, const uint8_t* msg, const uint8_t* pk) {
    return vf(sig, siglen, msg, MSG_BYTES, nullptr, 0, pk) == 0;
  };
  return true;
}

// Per implementation, the material its timed calls use (its own keys).
struct Material {
  std::vector<uint8_t> pk, sk;
  std::vector<std::vector<uint8_t>> sigs;  // over msgs, for verify
};

void message(uint8_t* msg, uint64_t n) {
  std::memset(msg, 0xa5, MSG_BYTES);
  std::memcpy(msg, &n, sizeof n);
}

constexpr int POOL = 64;  // distinct signed messages verify cycles through

Material prepare(const Set& p, Impl& im) {
  Material m{std::vector<uint8_t>(p.pk_bytes), std::vector<uint8_t>(p.sk_bytes), {}};
  im.enter();
  const uint64_t draws = g_draws;
  if (!im.keygen(m.pk.data(), m.sk.data())) die(im.name + ": keygen failed");
  if (g_draws == draws) die(im.name + ": keygen did not draw from the benchmark's randomness (see --rng)");
  uint8_t msg[MSG_BYTES];
  for (int i = 0; i < POOL; i++) {
    message(msg, i);
    m.sigs.emplace_back(p.sig_bytes);
    size_t len = 0;
    if (!im.sign(m.sigs.back().data(), &len, msg, m.sk.data())) die(im.name + ": sign failed");
    m.sigs.back().resize(len);
    if (!im.verify(m.sigs.back().data(), len, msg, m.pk.data())) die(im.name + ": own signature rejected");
  }
  return m;
}

// Each implementation's signature must verify under ours and ours under it.
void cross_check(const Set& p, Impl& a, const Material& ma, Impl& b, const Material& mb) {
  uint8_t msg[MSG_BYTES];
  message(msg, 0);
  b.enter();
  if (!b.verify(ma.sigs[0].data(), ma.sigs[0].size(), msg, ma.pk.data()))
    die(b.name + " rejects a " + a.name + " signature (" + p.name + "): not the same scheme");
  a.enter();
  if (!a.verify(mb.sigs[0].data(), mb.sigs[0].size(), msg, mb.pk.data()))
    die(a.name + " rejects a " + b.name + " signature (" + p.name + "): not the same scheme");
}

// One run of one operation: the per-call median (ns) of each implementation.
std::vector<double> run_once(const Set& p, const std::string& op, std::vector<Impl>& impls,
                             std::vector<Material>& mats, const Options& o, uint64_t& counter) {
  std::vector<std::vector<double>> samples(impls.size());
  std::vector<uint8_t> pk(p.pk_bytes), sk(p.sk_bytes), sig(p.sig_bytes);
  uint8_t msg[MSG_BYTES];
  const int blocks = (o.calls + o.block - 1) / o.block;
  for (int b = 0; b < blocks; b++) {
    for (size_t i = 0; i < impls.size(); i++) {
      // Alternate the order too, so neither side always follows the other.
      const size_t k = (b % 2) ? impls.size() - 1 - i : i;
      Impl& im = impls[k];
      Material& m = mats[k];
      im.enter();
      bool ok = true;
      const double t0 = now_ns(o.wall);
      for (int c = 0; c < o.block; c++) {
        if (op == "keygen") {
          ok &= im.keygen(pk.data(), sk.data());
        } else if (op == "sign") {
          message(msg, ++counter);
          size_t len = 0;
          ok &= im.sign(sig.data(), &len, msg, m.sk.data());
        } else {
          const int j = static_cast<int>(counter++ % POOL);
          message(msg, j);
          ok &= im.verify(m.sigs[j].data(), m.sigs[j].size(), msg, m.pk.data());
        }
      }
      const double t1 = now_ns(o.wall);
      if (!ok) die(im.name + ": " + op + " failed during timing");
      samples[k].push_back((t1 - t0) / o.block);
    }
  }
  std::vector<double> med;
  for (auto& s : samples) med.push_back(median(s));
  return med;
}

// The CPU's model name and CPUID family / model (/proc/cpuinfo), for the record.
std::string cpu_model() {
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (!f) return "unknown";
  std::string name = "?", family = "?", model = "?";
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    char value[256];
    if (std::sscanf(line, "model name : %255[^\n]", value) == 1) name = value;
    else if (std::sscanf(line, "cpu family : %255[^\n]", value) == 1) family = value;
    else if (std::sscanf(line, "model : %255[^\n]", value) == 1) model = value;
    else if (line[0] == '\n') break;  // the first CPU's block is enough
  }
  std::fclose(f);
  return name + " (family " + family + ", model " + model + ")";
}

void usage() {
  std::fprintf(stderr,
               "usage: bench_paired [--anchors DIR] [--ours avx2,avx512,ref,avx2@generic,avx2@zen5,avx2:no-mask-hash,avx2:no-expand-a-hash,avx512:keygen-lanes=022]\n"
               "                    [--sets 44,65,87,falcon512,falcon1024]"
               "                    [--ops keygen,sign,verify] [--calls N] [--block N] [--runs N] [--wall] [--rng os|openssl]\n");
  std::exit(2);
}

}  // namespace

// pq-crystals's randomness (its randombytes.h), exported to the libraries
// this program loads (bench/CMakeLists.txt).
extern "C" void randombytes(uint8_t* out, size_t n) { random_bytes(out, n); }

int main(int argc, char** argv) {
  Options o;
  if (const char* e = std::getenv("MLDSA_ACCEL_ANCHORS")) o.anchors = e;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--anchors") o.anchors = val();
    else if (a == "--ours") o.ours = split(val());
    else if (a == "--ops") o.ops = split(val());
    else if (a == "--calls") o.calls = std::atoi(val().c_str());
    else if (a == "--block") o.block = std::atoi(val().c_str());
    else if (a == "--runs") o.runs = std::atoi(val().c_str());
    else if (a == "--wall") o.wall = true;
    else if (a == "--rng") {
      const std::string v = val();
      if (v != "openssl" && v != "os") die("--rng takes openssl or os, not " + v);
      g_os_rng = v == "os";
    }
    else if (a == "--sets") {
      o.sets = split(val());
      for (const std::string& s : o.sets) set_named(s);  // dies on an unknown name
    } else usage();
  }
  for (const std::string& op : o.ops)
    if (op != "keygen" && op != "sign" && op != "verify") die("unknown operation " + op);
  if (o.calls < 1 || o.block < 1 || o.runs < 1) usage();
  if (o.ours.empty()) o.ours = {backend_name()};

  std::printf("# bench_paired: %d calls per implementation and operation, blocks of %d, %d runs; %s time\n",
              o.calls, o.block, o.runs, o.wall ? "wall" : "thread CPU");
  std::printf("# anchors: %s\n", o.anchors.empty() ? "(none given: --anchors DIR)" : o.anchors.c_str());
  std::printf("# CPU: %s\n", cpu_model().c_str());
  std::printf("# randomness: %s for every implementation\n",
              g_os_rng ? "getrandom (--rng openssl: OpenSSL's instead)" : "OpenSSL's RAND_priv_bytes");
  bool header = false;
  for (const std::string& name_of_set : o.sets) {
    const Set p = set_named(name_of_set);
    std::vector<Impl> impls;
    if (p.falcon) impls.push_back(ours_falcon(*p.falcon));
    else for (const std::string& b : o.ours) impls.push_back(ours(*p.mldsa, b));
    for (const char* name : {"liboqs", "liboqs-avx2", "pqcrystals"}) {
      Impl im;
      const bool pqc = std::strcmp(name, "pqcrystals") == 0;
      if (pqc && p.falcon) continue;  // pq-crystals is ML-DSA only
      const bool found = !o.anchors.empty() &&
                         (pqc ? pqcrystals(*p.mldsa, o.anchors, im) : liboqs(p, name, o.anchors, im));
      if (found) impls.push_back(std::move(im));
      else std::printf("# %s (%s): not found\n", name, p.name.c_str());
    }
    std::vector<Material> mats;
    for (Impl& im : impls) mats.push_back(prepare(p, im));
    for (size_t i = 1; i < impls.size(); i++) cross_check(p, impls[0], mats[0], impls[i], mats[i]);
    if (!header) {
      std::printf("# every signature checked across implementations (each verifies the others')\n\n");
      std::printf("| set | op | impl | us/call (median of runs) | its time / %s's (median, range) |\n",
                  impls[0].name.c_str());
      std::printf("|---|---|---|---:|---:|\n");
      header = true;
    }
    uint64_t counter = 0;
    for (const std::string& op : o.ops) {
      std::vector<std::vector<double>> per_run(impls.size());   // us per call
      std::vector<std::vector<double>> ratio(impls.size());     // this / the first impl
      for (int r = 0; r < o.runs; r++) {
        const std::vector<double> med = run_once(p, op, impls, mats, o, counter);
        for (size_t i = 0; i < impls.size(); i++) {
          per_run[i].push_back(med[i] / 1e3);
          ratio[i].push_back(med[i] / med[0]);
        }
      }
      for (size_t i = 0; i < impls.size(); i++) {
        const auto [lo, hi] = std::minmax_element(ratio[i].begin(), ratio[i].end());
        std::printf("| %s | %s | %s | %.1f | %s |\n", p.name.c_str(), op.c_str(), impls[i].name.c_str(),
                    median(per_run[i]), i == 0 ? "1" : (std::to_string(median(ratio[i])).substr(0, 4) + " (" +
                    std::to_string(*lo).substr(0, 4) + "-" + std::to_string(*hi).substr(0, 4) + ")").c_str());
      }
    }
  }
  return 0;
}
