// main.cc - mldsa-accel: bulk ML-DSA keygen, sign and verify over a manifest,
// a directory or a JSON Lines stream, on the bulk C API
// (include/mldsa_accel/batch.h): every CPU core and the GPU (when there is
// one), each GPU result checked on the CPU. Work goes in chunks (--chunk), so
// results are written as they come, a progress line can follow them, and
// Ctrl-C stops after the chunk in flight with what finished written.
#include "mldsa_accel/batch.h"

#include "cpu/pages.h"
#include "cpu/parallel.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/provider.h>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#if defined(__SANITIZE_THREAD__)
#define TOOL_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TOOL_UNDER_TSAN 1
#endif
#endif

namespace {

constexpr int kExitFailed = 1;        // an item failed (a signature that does not verify, a read error)
constexpr int kExitUsage = 2;         // bad command line, key or input
constexpr int kExitInterrupted = 130; // SIGINT: what finished is written (128 + SIGINT, as shells report it)

const char kHelp[] =
    "usage: mldsa-accel keygen --alg ALG --count N --out DIR [--resume] [--json]\n"
    "       mldsa-accel sign   --key KEY --in INPUT --out DIR [--context TEXT] [--deterministic] [--resume] [--json]\n"
    "       mldsa-accel verify --pub PUB --in INPUT --sigs DIR [--context TEXT] [--json]\n"
    "       mldsa-accel sign   --key KEY --in - [--context TEXT] [--deterministic] [--json]   (JSON Lines)\n"
    "       mldsa-accel verify --pub PUB --in - [--context TEXT] [--json]                     (JSON Lines)\n"
    "\n"
    "INPUT: a manifest (one file path per line) or a directory (every regular file in it).\n"
    "sign writes DIR/<file name>.sig for each, verify reads the same names from DIR and\n"
    "prints one line per failure. --in -: JSON Lines records on stdin, one result line each\n"
    "on stdout: sign {\"id\":..,\"msg\":B64[,\"ctx\":B64]} -> {\"id\":..,\"sig\":B64} or\n"
    "{\"id\":..,\"error\":TEXT}; verify {\"id\":..,\"msg\":B64,\"sig\":B64[,\"ctx\":B64]} ->\n"
    "{\"id\":..,\"ok\":true|false[,\"error\":TEXT]} (docs/BULK.md).\n"
    "KEY / PUB: PEM or DER (any format the mldsa-accel provider reads; it is loaded from\n"
    "OpenSSL's modules directory or OPENSSL_MODULES), or raw FIPS 204 bytes (sk, pk, or a\n"
    "32-byte seed, which needs --alg). keygen writes DIR/key-<i>.seed (the private key's\n"
    "32-byte seed) and DIR/key-<i>.pub (pkEncode bytes).\n"
    "--alg: ML-DSA-44, ML-DSA-65 or ML-DSA-87. --resume: skip items whose output file\n"
    "already exists whole (after Ctrl-C). --chunk N: items per chunk (default 4096).\n"
    "--json: the summary as one JSON object (stdout; stderr with --in -): items, failed,\n"
    "skipped, seconds, items_per_second, latency_p50_ms, latency_p99_ms, call_seconds,\n"
    "cpu_items, device_items, per_device (cpu, gpu0, gpu1, ...), device_checked,\n"
    "device_wrong, devices, interrupted.\n"
    "A progress line (items/s, ETA) is drawn on stderr when it is a terminal.\n"
    "Exit status: 0 every item succeeded, 1 some item failed (listed), 2 usage or key error,\n"
    "130 interrupted (what finished is written; the tool prints how to resume).\n"
    "The GPU is used as the provider uses it (MLDSA_ACCEL_GPU, ... ; docs/BULK.md).\n";

struct Options {
  std::string cmd, alg, key, in, out, sigs, context;
  size_t count = 0, chunk = 4096;
  bool json = false, deterministic = false, resume = false;
  std::vector<std::string> argv;  // for the resume hint
};

volatile std::sig_atomic_t g_interrupted = 0;
void on_sigint(int) {
  g_interrupted = 1;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the tool at once
}

// An open descriptor, closed when it goes.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// A folder the tool reads or writes many files in, opened once: each file is
// then opened relative to it (openat), a walk of one name rather than of the
// whole path (about 7% of reading a small file on the project's VM).
Fd open_folder(const std::string& path) { return Fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); }

// Bytes read from many small files, kept in a few large blocks: one
// allocation per file made each thread's heap grow a page at a time
// (mprotect, which takes the address space's lock) and kept a run over small
// files from scaling across cores. What read() returns stays valid until
// clear(); clear() keeps the blocks for the next chunk.
class ReadArena {
 public:
  // The whole file at path (relative to the folder dir, or AT_FDCWD) in
  // *out; false when it cannot be opened or read.
  bool read(int dir, const char* path, std::span<const uint8_t>& out) {
    const int fd = openat(dir, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    if (blocks_.empty()) next_block(0, 0);
    size_t start = used_;  // the file's first byte in the current block
    bool ok = true;
    for (;;) {
      if (used_ == blocks_[block_].size()) {  // full: the part read so far moves on
        struct stat st{};                      // to a block with room for the whole file
        const size_t size = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0;
        next_block(start, used_ - start, size + 4096);
        start = 0;
      }
      const ssize_t r = ::read(fd, blocks_[block_].data() + used_, blocks_[block_].size() - used_);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        ok = r == 0;
        break;
      }
      used_ += static_cast<size_t>(r);
    }
    close(fd);
    if (!ok) used_ = start;
    out = {blocks_[block_].data() + start, used_ - start};
    return ok;
  }
  // Every byte of every block cleared (what was read was secret: a key).
  void wipe() {
    for (mldsa::PageBuffer& b : blocks_) OPENSSL_cleanse(b.data(), b.size());
  }
  // Blocks made for one big file are let go; the others are kept.
  void clear() {
    std::erase_if(blocks_, [](const mldsa::PageBuffer& b) { return b.size() > kKeep; });
    block_ = used_ = 0;
  }

 private:
  static constexpr size_t kBlock = size_t{2} << 20;  // one huge page (cpu/pages.h)
  static constexpr size_t kKeep = 16 * kBlock;
  std::vector<mldsa::PageBuffer> blocks_;
  size_t block_ = 0, used_ = 0;  // the block being filled and its bytes in use

  // Moves to the next block with room for more than len bytes and for want
  // (a new one when the next is too small), copying there the len bytes at
  // from. Without a size to go by (not a regular file), room doubles.
  void next_block(size_t from, size_t len, size_t want = 0) {
    const size_t need = std::max({kBlock, 2 * len + 4096, want});
    const size_t at = blocks_.empty() ? 0 : block_ + 1;
    if (at == blocks_.size() || blocks_[at].size() < need)
      blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(at), mldsa::PageBuffer(need));
    if (len > 0) std::memcpy(blocks_[at].data(), blocks_[block_].data() + from, len);
    block_ = at;
    used_ = len;
  }
};

// Written in place: --resume takes a file of exactly the output's size as
// whole, and a write cut short (a killed process, a full disk) leaves a
// shorter one, which it redoes. No temporary name and rename: creating and
// renaming a second name per item kept threads signing many small files
// waiting on the directory's lock (bench/RESULTS.md). Symbolic links are
// not followed. A seed's file (mode 0600) is narrowed to 0600 if it existed.
bool write_file(int dir, const std::string& path, const uint8_t* data, size_t len, mode_t mode = 0644) {
  const int fd = openat(dir, path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) return false;
  bool ok = mode == 0644 || fchmod(fd, mode) == 0;
  size_t put = 0;
  while (ok && put < len) {
    const ssize_t w = ::write(fd, data + put, len - put);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    put += static_cast<size_t>(w);
  }
  return close(fd) == 0 && ok && put == len;
}

// Whether path (relative to dir) is a regular file of exactly len bytes (a
// finished output).
bool have_output(int dir, const std::string& path, size_t len) {
  struct stat st{};
  return fstatat(dir, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
         static_cast<size_t>(st.st_size) == len;
}

std::string_view base_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The algorithm of raw key bytes from their length (FIPS 204's sizes).
const char* alg_of_length(size_t len, bool is_private) {
  static const std::map<size_t, const char*> pk = {{1312, "ML-DSA-44"}, {1952, "ML-DSA-65"}, {2592, "ML-DSA-87"}};
  static const std::map<size_t, const char*> sk = {{2560, "ML-DSA-44"}, {4032, "ML-DSA-65"}, {4896, "ML-DSA-87"}};
  const auto& m = is_private ? sk : pk;
  const auto it = m.find(len);
  return it == m.end() ? nullptr : it->second;
}

// PEM or DER through OpenSSL with the provider, as the API's key.
mldsa_accel_key* decode_with_openssl(std::span<const uint8_t> bytes, bool is_private, int* st) {
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
  mldsa_accel_key* key = nullptr;
  *st = pkey != nullptr ? mldsa_accel_key_from_pkey(pkey, is_private, &key) : MLDSA_ACCEL_ERR_KEY;
  EVP_PKEY_free(pkey);
  return key;
}

mldsa_accel_key* load_key(const std::string& path, bool is_private, std::string alg) {
  ReadArena file;
  std::span<const uint8_t> bytes;
  if (!file.read(AT_FDCWD, path.c_str(), bytes)) {
    std::fprintf(stderr, "mldsa-accel: cannot read %s\n", path.c_str());
    return nullptr;
  }
  mldsa_accel_key* key = nullptr;
  int st = MLDSA_ACCEL_OK;
  if (const char* a = alg_of_length(bytes.size(), is_private)) {
    alg = a;
    st = mldsa_accel_key_new(alg.c_str(), is_private, bytes.data(), bytes.size(), &key);
  } else if (is_private && bytes.size() == 32 && !alg.empty()) {
    st = mldsa_accel_key_new(alg.c_str(), is_private, bytes.data(), bytes.size(), &key);
  } else {
    key = decode_with_openssl(bytes, is_private, &st);
    if (key == nullptr && st != MLDSA_ACCEL_ERR_UNSUPPORTED_KEY) {
      std::fprintf(stderr, "mldsa-accel: %s is not a %s key this tool reads (PEM, DER, raw; a seed needs --alg)\n",
                   path.c_str(), is_private ? "private" : "public");
      file.wipe();
      return nullptr;
    }
    alg = "from PEM/DER";
  }
  file.wipe();
  if (key == nullptr)
    std::fprintf(stderr, "mldsa-accel: %s: %s (%s)\n", path.c_str(), mldsa_accel_status_string(st), alg.c_str());
  return key;
}

// The inputs' names in one buffer, each ended by a NUL: one allocation for
// all of them, not one each (on the project's VM the pages of 10000 small
// allocations were most of the listing's time, which no other core shares).
// A directory's files are kept as names in it and opened relative to it; a
// manifest's as its lines.
class PathList {
 public:
  Fd dir;              // the listed directory (none: a manifest's paths)
  std::string prefix;  // "DIR/" before a directory's names in messages
  int folder() const { return dir.get() >= 0 ? dir.get() : AT_FDCWD; }
  // What to open relative to folder().
  const char* name(size_t i) const { return text_.data() + at_[i]; }
  // The path as the user would write it.
  std::string path(size_t i) const { return prefix + name(i); }
  size_t size() const { return at_.size(); }
  void add(std::string_view name) {
    at_.push_back(text_.size());
    text_.append(name);
    text_.push_back('\0');
  }
  void sort() {
    std::sort(at_.begin(), at_.end(),
              [&](size_t a, size_t b) { return std::strcmp(text_.data() + a, text_.data() + b) < 0; });
  }

 private:
  std::string text_;
  std::vector<size_t> at_;
};

// Manifest lines, or a directory's regular files (sorted by name).
bool list_inputs(const std::string& in, PathList& files) {
  struct stat st{};
  if (stat(in.c_str(), &st) != 0) return false;
  if (S_ISDIR(st.st_mode)) {
    files.dir = open_folder(in);
    files.prefix = in + "/";
    const int listed = files.dir.get() >= 0 ? dup(files.dir.get()) : -1;  // the folder opened, listed
    DIR* d = listed >= 0 ? fdopendir(listed) : nullptr;
    if (d == nullptr) {
      if (listed >= 0) close(listed);
      return false;
    }
    while (const dirent* e = readdir(d)) {
      struct stat fs{};  // a link to a regular file counts; d_type says "regular" without a stat
      if (e->d_type == DT_REG || ((e->d_type == DT_LNK || e->d_type == DT_UNKNOWN) &&
                                  fstatat(files.dir.get(), e->d_name, &fs, 0) == 0 && S_ISREG(fs.st_mode)))
        files.add(e->d_name);
    }
    closedir(d);
    files.sort();
    return true;
  }
  std::ifstream f(in);
  if (!f) return false;
  for (std::string line; std::getline(f, line);)
    if (!line.empty()) files.add(line);
  return true;
}

// ---- JSON Lines (--in -) ----

std::string b64_encode(const uint8_t* p, size_t n) {
  std::string out(4 * ((n + 2) / 3), '\0');
  const int len = n ? EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), p, static_cast<int>(n)) : 0;
  out.resize(static_cast<size_t>(len));
  return out;
}

bool b64_decode(const std::string& s, std::vector<uint8_t>& out) {
  if (s.size() % 4 != 0) return false;
  out.resize(s.size() / 4 * 3);
  const int len = s.empty() ? 0
                            : EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(s.data()),
                                              static_cast<int>(s.size()));
  if (len < 0) return false;
  size_t pad = 0;  // EVP_DecodeBlock counts the padding's zero bytes
  while (pad < 2 && pad < s.size() && s[s.size() - 1 - pad] == '=') ++pad;
  out.resize(static_cast<size_t>(len) - pad);
  return true;
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// One record: a flat JSON object. String values are unescaped; every value
// is also kept as its JSON text (raw), so "id" goes back exactly as it came.
struct Record {
  std::map<std::string, std::string> str, raw;
};

bool parse_string(const std::string& s, size_t& i, std::string& out) {
  if (i >= s.size() || s[i] != '"') return false;
  for (++i; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      ++i;
      return true;
    }
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= s.size()) return false;
    switch (s[i]) {
      case '"': case '\\': case '/': out += s[i]; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': {  // \u00XX only (ids and base64 are ASCII)
        if (i + 4 >= s.size()) return false;
        const unsigned long v = std::strtoul(s.substr(i + 1, 4).c_str(), nullptr, 16);
        if (v > 0x7f) return false;
        out += static_cast<char>(v);
        i += 4;
        break;
      }
      default: return false;
    }
  }
  return false;
}

bool parse_record(const std::string& s, Record& r) {
  size_t i = 0;
  auto ws = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
  };
  ws();
  if (i >= s.size() || s[i++] != '{') return false;
  ws();
  if (i < s.size() && s[i] == '}') return true;
  for (;;) {
    ws();
    std::string key;
    if (!parse_string(s, i, key)) return false;
    ws();
    if (i >= s.size() || s[i++] != ':') return false;
    ws();
    const size_t start = i;
    if (i < s.size() && s[i] == '"') {
      std::string v;
      if (!parse_string(s, i, v)) return false;
      r.str[key] = v;
    } else {  // a number, true, false or null: up to the next , or }
      while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ' ') ++i;
      if (i == start) return false;
      const std::string tok = s.substr(start, i - start);
      if (tok != "true" && tok != "false" && tok != "null" &&
          tok.find_first_not_of("-+.0123456789eE") != std::string::npos)
        return false;
    }
    r.raw[key] = s.substr(start, i - start);
    ws();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == '}') {
      ++i;
      ws();
      return i == s.size();
    }
    return false;
  }
}

// Lines from stdin: up to max, without waiting for more once one is there
// (a producer that waits for results is answered).
class LineReader {
 public:
  bool eof() const { return eof_ && buf_.empty(); }
  void read(size_t max, std::vector<std::string>& lines) {
    while (lines.size() < max) {
      const size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        lines.push_back(buf_.substr(0, nl));
        buf_.erase(0, nl + 1);
        continue;
      }
      if (eof_) {
        if (!buf_.empty()) lines.push_back(buf_);
        buf_.clear();
        return;
      }
      // Once a line is there, no waiting for more; before, waits in short
      // steps, so Ctrl-C is seen whichever thread the signal went to.
      pollfd p{0, POLLIN, 0};
      const int ready = poll(&p, 1, lines.empty() ? 200 : 0);
      if (ready == 0 && !lines.empty()) return;
      if (ready == 0 || (ready < 0 && errno == EINTR)) {
        if (g_interrupted) return;
        continue;
      }
      char chunk[65536];
      const ssize_t got = ::read(0, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) {
        if (g_interrupted) return;
        continue;
      }
      if (got <= 0) eof_ = true;
      else buf_.append(chunk, static_cast<size_t>(got));
    }
  }

 private:
  std::string buf_;
  bool eof_ = false;
};

// ---- progress, latencies, summary ----

using Clock = std::chrono::steady_clock;

struct Tally {
  Clock::time_point t0 = Clock::now();
  size_t total = 0;  // 0: unknown (a stream)
  size_t done = 0, failed = 0, skipped = 0;
  std::vector<double> latency_ms;  // one per computed item
  double call_seconds = 0;         // inside the C API's calls
  bool progress = false;
  double seconds() const { return std::chrono::duration<double>(Clock::now() - t0).count(); }
};

void draw_progress(const Tally& t, const char* cmd) {
  if (!t.progress) return;
  const double s = t.seconds();
  const double rate = s > 0 ? static_cast<double>(t.done) / s : 0;
  if (t.total > 0) {
    const size_t left = t.total - std::min(t.total, t.done + t.skipped);
    const double eta = rate > 0 ? static_cast<double>(left) / rate : 0;
    std::fprintf(stderr, "\r%s: %zu/%zu items, %.0f items/s, ETA %.0f s   ", cmd, t.done + t.skipped, t.total, rate,
                 eta);
  } else {
    std::fprintf(stderr, "\r%s: %zu items, %.0f items/s   ", cmd, t.done, rate);
  }
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

void summary(const Options& o, mldsa_accel_batch* ctx, const Tally& t, bool stream) {
  if (t.progress) std::fputs("\n", stderr);
  mldsa_accel_stats s{};
  mldsa_accel_batch_stats(ctx, &s);
  const double seconds = t.seconds();
  const double rate = seconds > 0 ? static_cast<double>(t.done) / seconds : 0;
  const double p50 = percentile(t.latency_ms, 0.50), p99 = percentile(t.latency_ms, 0.99);
  const auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  // What each device did: the CPU, then each GPU by its index.
  std::vector<uint64_t> gpu(64);
  size_t ngpu = gpu.size();
  if (mldsa_accel_batch_device_items(ctx, gpu.data(), &ngpu) != MLDSA_ACCEL_OK) ngpu = 0;
  std::string per_json = "{\"cpu\":" + std::to_string(s.items_cpu), per_text = "CPU " + std::to_string(s.items_cpu);
  for (size_t d = 0; d < ngpu; ++d) {
    per_json += ",\"gpu" + std::to_string(d) + "\":" + std::to_string(gpu[d]);
    per_text += ", GPU " + std::to_string(d) + " " + std::to_string(gpu[d]);
  }
  per_json += "}";
  if (o.json) {
    std::fprintf(stream ? stderr : stdout,
                 "{\"op\":\"%s\",\"items\":%zu,\"failed\":%zu,\"skipped\":%zu,\"seconds\":%.6f,"
                 "\"items_per_second\":%.1f,\"latency_p50_ms\":%.3f,\"latency_p99_ms\":%.3f,\"call_seconds\":%.6f,"
                 "\"cpu_items\":%llu,\"device_items\":%llu,\"device_checked\":%llu,\"device_wrong\":%llu,"
                 "\"per_device\":%s,\"devices\":\"%s\",\"interrupted\":%s}\n",
                 o.cmd.c_str(), t.done, t.failed, t.skipped, seconds, rate, p50, p99, t.call_seconds, u(s.items_cpu),
                 u(s.items_device), u(s.device_checked), u(s.device_wrong), per_json.c_str(), json_escape(s.devices).c_str(),
                 g_interrupted ? "true" : "false");
  } else {
    std::fprintf(stderr,
                 "%s: %zu items, %zu failed, %zu skipped, %.3f s (%.1f items/s, latency p50 %.1f ms, p99 %.1f ms); "
                 "%s (GPU results checked %llu, wrong %llu); GPU: %s\n",
                 o.cmd.c_str(), t.done, t.failed, t.skipped, seconds, rate, p50, p99, per_text.c_str(),
                 u(s.device_checked), u(s.device_wrong), s.devices);
  }
}

// The chunk's call time, as the latency of each of its items.
void add_latency(Tally& t, Clock::time_point start, size_t n) {
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  t.latency_ms.insert(t.latency_ms.end(), n, ms);
  t.call_seconds += ms / 1000;
}

void resume_hint(const Options& o, const Tally& t, bool stream) {
  if (stream) {
    std::fprintf(stderr,
                 "mldsa-accel: interrupted after %zu records (each has its result line): send the records after "
                 "them again to finish\n",
                 t.done);
    return;
  }
  std::string cmd = "mldsa-accel";
  for (const std::string& a : o.argv) {
    if (a == "--resume") continue;
    cmd += " '" + a + "'";
  }
  std::fprintf(stderr, "mldsa-accel: interrupted: %zu of %zu items done and written; to finish, run:\n  %s --resume\n",
               t.done + t.skipped, t.total, cmd.c_str());
}

// The threads that read and write a command's files (and, with no GPU,
// compute them): one per CPU the tool may use (on one thread, file system
// calls would cap verification, a few microseconds an item, at one core's
// rate), kept for the whole command (mldsa::WorkerPool: a loop or three a
// chunk), each on a CPU of its own during the loops. Threads that sleep
// between short loops of system calls look light to a scheduler: on the
// project's VM both were run on one CPU for whole loops (counted per item
// with sched_getcpu); with a CPU each, whole verify runs over 10000
// ~100-byte files went from 83-89% to 90-92% of the sum of each core's rate
// alone (bench/RESULTS.md). The caller's thread is confined to the first
// CPU only while a loop runs: between loops the bulk API computes on its
// own threads, which start with the caller's mask and go where the
// scheduler puts them. A slow or busy CPU's items go to the others
// (mldsa::Split).
// Each helper also takes its own copy of the descriptor table
// (unshare(CLONE_FILES)), so the folders the loops open files in are opened
// before the workers are made. Threads opening and closing thousands of
// files in one shared table contend for its lock, and every read on a shared
// table counts references on the file: on the project's VM two threads
// reading small files got 89% of twice one thread's rate sharing the table
// and 98% with a copy each (bench_file_threads). Where unshare is refused (a
// seccomp filter) they share it. Not under ThreadSanitizer, which keeps one
// table per process and takes one number opened by two threads for a race.
class FileWorkers : public mldsa::WorkerPool {
 public:
  FileWorkers() : FileWorkers(mldsa::affinity_cpus()) {}
  // f(j, w) for j in [0, n), w the worker (< size()), grain js at a time.
  template <typename F>
  void each(size_t n, size_t grain, F f) {
    const bool confined = cpus_.size() > 1 && mldsa::confine_thread({cpus_[0]});
    parallel_for(n, grain, f);
    if (confined) (void)mldsa::confine_thread(cpus_);
  }

 private:
  std::vector<int> cpus_;  // the mask the tool started with

  explicit FileWorkers(std::vector<int> cpus)
      : WorkerPool(mldsa::usable_cpus(),
                   [cpus](unsigned w) {
                     if (cpus.size() > 1) (void)mldsa::confine_thread({cpus[w % cpus.size()]});
#if !defined(TOOL_UNDER_TSAN)
                     (void)unshare(CLONE_FILES);
#endif
                   }),
        cpus_(std::move(cpus)) {}
};

// ---- the commands ----

// Items a worker takes at a time when there is no GPU: as many as the bulk
// API computes on the calling thread (include/mldsa_accel/batch.h).
constexpr size_t kGroup = MLDSA_ACCEL_CALLER_ITEMS;

// Whether the context has no GPU to give work to (none, or taken out of
// service): then big calls gain nothing. While its engine is starting it
// may get one, and the tool keeps making whole-chunk calls.
bool cpu_only(mldsa_accel_batch* ctx) {
  mldsa_accel_stats s{};
  return mldsa_accel_batch_stats(ctx, &s) == MLDSA_ACCEL_OK &&
         (s.device_out_of_service != 0 || std::strncmp(s.devices, "none", 4) == 0);
}

int keygen(const Options& o, mldsa_accel_batch* ctx, Tally& t) {
  mldsa_accel_key* probe = nullptr;
  uint8_t zero[32] = {0};
  if (mldsa_accel_key_new(o.alg.c_str(), 1, zero, 32, &probe) != MLDSA_ACCEL_OK) {
    std::fprintf(stderr, "mldsa-accel: unknown algorithm '%s'\n", o.alg.c_str());
    return kExitUsage;
  }
  size_t pk_bytes = 0;
  mldsa_accel_key_public(probe, nullptr, &pk_bytes);
  mldsa_accel_key_free(probe);
  const Fd out = open_folder(o.out);
  if (out.get() < 0) {
    std::fprintf(stderr, "mldsa-accel: cannot open the folder %s: %s\n", o.out.c_str(), std::strerror(errno));
    return kExitUsage;
  }
  FileWorkers workers;
  t.total = o.count;
  std::vector<size_t> todo;
  for (size_t i = 0; i < o.count; ++i) {
    const std::string base = "key-" + std::to_string(i);
    if (o.resume && have_output(out.get(), base + ".seed", 32) && have_output(out.get(), base + ".pub", pk_bytes))
      ++t.skipped;
    else todo.push_back(i);
  }
  for (size_t first = 0; first < todo.size() && !g_interrupted; first += o.chunk) {
    const size_t n = std::min(o.chunk, todo.size() - first);
    std::vector<mldsa_accel_keygen_item> items(n);
    std::vector<uint8_t> pk(n * 2592), sk(n * 4896), seed(n * 32);
    for (size_t j = 0; j < n; ++j)
      items[j] = {nullptr, &pk[j * 2592], 2592, &sk[j * 4896], 4896, &seed[j * 32], 0};
    const auto start = Clock::now();
    if (mldsa_accel_keygen(ctx, o.alg.c_str(), items.data(), n) < 0) return kExitUsage;
    add_latency(t, start, n);
    std::vector<const char*> whys(n, nullptr);
    workers.each(n, 4, [&](size_t j, unsigned) {
      // The seed is written last: a key whose seed file is whole is whole.
      const std::string base = "key-" + std::to_string(todo[first + j]);
      whys[j] = items[j].status != MLDSA_ACCEL_OK ? mldsa_accel_status_string(items[j].status)
                : !write_file(out.get(), base + ".pub", &pk[j * 2592], pk_bytes)  ? "cannot write the public key"
                : !write_file(out.get(), base + ".seed", &seed[j * 32], 32, 0600) ? "cannot write the seed"
                                                                                  : nullptr;
    });
    for (size_t j = 0; j < n; ++j) {  // in key order
      if (whys[j] != nullptr) {
        std::printf("key-%zu: %s\n", todo[first + j], whys[j]);
        ++t.failed;
      }
    }
    OPENSSL_cleanse(sk.data(), sk.size());
    OPENSSL_cleanse(seed.data(), seed.size());
    t.done += n;
    draw_progress(t, "keygen");
  }
  return 0;
}

int files(const Options& o, mldsa_accel_batch* ctx, mldsa_accel_key* key, Tally& t) {
  PathList inputs;
  if (!list_inputs(o.in, inputs)) {
    std::fprintf(stderr, "mldsa-accel: cannot read the manifest or directory '%s'\n", o.in.c_str());
    return kExitUsage;
  }
  const bool sign = o.cmd == "sign";
  const std::string& sig_folder = sign ? o.out : o.sigs;
  const Fd sig_dir = open_folder(sig_folder);
  if (sig_dir.get() < 0) {
    std::fprintf(stderr, "mldsa-accel: cannot open the folder %s: %s\n", sig_folder.c_str(), std::strerror(errno));
    return kExitUsage;
  }
  const size_t sig_bytes = mldsa_accel_signature_size(key);
  const auto* cctx = reinterpret_cast<const uint8_t*>(o.context.data());
  auto sig_name = [](std::string_view f) { return std::string(base_name(f)).append(".sig"); };
  t.total = inputs.size();
  std::vector<size_t> todo;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (sign && o.resume && have_output(sig_dir.get(), sig_name(inputs.name(i)), sig_bytes)) ++t.skipped;
    else todo.push_back(i);
  }
  // Reused by every chunk, and filled by the reading threads rather than in
  // a loop here (on a VM the first touch of a fresh page costs microseconds):
  // the files' bytes, the items and (sign) the signatures.
  FileWorkers workers;
  std::vector<ReadArena> arenas(workers.size());
  const size_t most = std::min(o.chunk, todo.size());
  const mldsa::PageBuffer made(sign ? most * sig_bytes : 0);
  const auto sign_items = std::make_unique_for_overwrite<mldsa_accel_sign_item[]>(sign ? most : 0);
  const auto verify_items = std::make_unique_for_overwrite<mldsa_accel_verify_item[]>(sign ? 0 : most);
  for (size_t first = 0; first < todo.size() && !g_interrupted; first += o.chunk) {
    const size_t n = std::min(o.chunk, todo.size() - first);
    std::vector<char> read_ok(n, 1);
    std::vector<const char*> whys(n, nullptr);
    for (ReadArena& a : arenas) a.clear();
    // Item j's files read into worker w's arena, and its request made.
    auto read = [&](size_t j, unsigned w) {
      const char* f = inputs.name(todo[first + j]);
      std::span<const uint8_t> msg, sig;
      read_ok[j] = arenas[w].read(inputs.folder(), f, msg) &&
                   (sign || arenas[w].read(sig_dir.get(), sig_name(f).c_str(), sig));
      // An item whose file could not be read goes without its key: the call
      // answers it at once instead of computing it.
      mldsa_accel_key* k = read_ok[j] ? key : nullptr;
      if (sign) sign_items[j] = {k, msg.data(), msg.size(), cctx, o.context.size(), made.data() + j * sig_bytes, sig_bytes, 0};
      else verify_items[j] = {k, msg.data(), msg.size(), cctx, o.context.size(), sig.data(), sig.size(), 0};
    };
    // Items [j, j + count) computed.
    auto call = [&](size_t j, size_t count) {
      if (sign) mldsa_accel_sign(ctx, sign_items.get() + j, count, o.deterministic ? MLDSA_ACCEL_DETERMINISTIC : 0);
      else mldsa_accel_verify(ctx, verify_items.get() + j, count);
    };
    // Item j's outcome, and (sign) its signature written.
    auto finish = [&](size_t j, unsigned) {
      const char* f = inputs.name(todo[first + j]);
      const int status = sign ? sign_items[j].status : verify_items[j].status;
      whys[j] = !read_ok[j] ? (sign ? "cannot read the file" : "cannot read the file or its signature")
                : status != MLDSA_ACCEL_OK ? mldsa_accel_status_string(status)
                : sign && !write_file(sig_dir.get(), sig_name(f), made.data() + j * sig_bytes, sig_bytes)
                    ? "cannot write the signature"
                    : nullptr;
    };
    if (workers.size() > 1 && cpu_only(ctx)) {
      // No GPU to give big calls to: each worker reads, computes (the API
      // computes a call of kGroup items on the calling thread) and writes a
      // group at a time, with no wait for the others until the chunk ends;
      // a chunk's latency and call time are its groups'. Signature files
      // are created by one thread at a time: a worker that finds another
      // creating queues its group and goes on computing, and whoever
      // creates takes what is queued: one creates while the other computes.
      // Two threads creating files at once made them at 85% of twice one
      // thread's rate on ext4 and 70% on a tmpfs, in one folder or a folder
      // each (bench_file_threads). Sign runs over 10000 ~100-byte
      // files on 2 cores went from 86-88% to 92-95% of the sum of each core
      // alone on ext4 (three loops a chunk: read, compute, write; without
      // the queue 88-92%), and verify runs from 89-92% to 91-93%. On one
      // thread there is nothing to wait for, and the three loops keep each
      // kind of work together: one thread alternating signing and creating
      // files on ext4 did 2-23% fewer items a second (bench/RESULTS.md).
      std::vector<std::vector<double>> ms(workers.size());  // per worker: each item's call time
      std::vector<double> busy(workers.size(), 0);            // per worker: ms in calls
      std::mutex queue_m, creating;
      std::vector<size_t> queued;  // groups computed and not yet written (sign)
      auto finish_group = [&](size_t g, unsigned w) {
        for (size_t j = g * kGroup; j < std::min(n, (g + 1) * kGroup); ++j) finish(j, w);
      };
      workers.each((n + kGroup - 1) / kGroup, 1, [&](size_t g, unsigned w) {
        const size_t lo = g * kGroup, hi = std::min(n, lo + kGroup);
        for (size_t j = lo; j < hi; ++j) read(j, w);
        const auto start = Clock::now();
        call(lo, hi - lo);
        const double took = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        ms[w].insert(ms[w].end(), hi - lo, took);
        busy[w] += took;
        if (!sign) return finish_group(g, w);
        {
          std::lock_guard<std::mutex> lock(queue_m);
          queued.push_back(g);
        }
        for (std::unique_lock<std::mutex> writer(creating, std::try_to_lock); writer.owns_lock();) {
          std::vector<size_t> take;
          {
            std::lock_guard<std::mutex> lock(queue_m);
            take.swap(queued);
          }
          if (take.empty()) break;
          for (const size_t q : take) finish_group(q, w);
        }
      });
      // What was queued after its writer's last look.
      workers.each(queued.size(), 1, [&](size_t k, unsigned w) { finish_group(queued[k], w); });
      // The call time as the workers' time in calls over their number (they
      // ran side by side, and the one creating files computes less):
      // items / call_seconds is the computation's rate.
      for (const std::vector<double>& m : ms) t.latency_ms.insert(t.latency_ms.end(), m.begin(), m.end());
      t.call_seconds += std::accumulate(busy.begin(), busy.end(), 0.0) / 1000 / workers.size();
    } else {
      workers.each(n, 4, read);
      const auto start = Clock::now();
      call(0, n);
      add_latency(t, start, n);
      workers.each(n, 4, finish);
    }
    for (size_t j = 0; j < n; ++j) {  // in input order
      const char* why = whys[j];
      if (why != nullptr) {
        std::printf("%s: %s\n", inputs.path(todo[first + j]).c_str(), why);
        ++t.failed;
      }
    }
    std::fflush(stdout);
    t.done += n;
    draw_progress(t, o.cmd.c_str());
  }
  return 0;
}

// --in -: JSON Lines records in, one result line per record out, in order.
int stream(const Options& o, mldsa_accel_batch* ctx, mldsa_accel_key* key, Tally& t) {
  const bool sign = o.cmd == "sign";
  const size_t sig_bytes = mldsa_accel_signature_size(key);
  LineReader in;
  std::vector<std::string> lines;
  while (!g_interrupted && !in.eof()) {
    lines.clear();
    in.read(o.chunk, lines);
    // Blank lines (a trailing newline too many, CRLF's \r) are no records.
    lines.erase(std::remove_if(lines.begin(), lines.end(),
                               [](const std::string& l) { return l.find_first_not_of(" \t\r") == std::string::npos; }),
                lines.end());
    const size_t n = lines.size();
    if (n == 0) continue;
    std::vector<std::string> ids(n, "null"), errors(n);
    std::vector<std::vector<uint8_t>> msgs(n), ctxs(n), sigs(n);
    for (size_t j = 0; j < n; ++j) {
      Record r;
      std::vector<uint8_t> c(o.context.begin(), o.context.end());
      if (!parse_record(lines[j], r)) {
        errors[j] = "not a JSON object of this tool's record format";
        continue;
      }
      if (r.raw.count("id")) ids[j] = r.raw["id"];
      if (!r.str.count("msg") || !b64_decode(r.str["msg"], msgs[j])) errors[j] = "\"msg\" missing or not base64";
      else if (r.str.count("ctx") && !b64_decode(r.str["ctx"], c)) errors[j] = "\"ctx\" not base64";
      else if (!sign && (!r.str.count("sig") || !b64_decode(r.str["sig"], sigs[j])))
        errors[j] = "\"sig\" missing or not base64";
      ctxs[j] = std::move(c);
      if (sign) sigs[j].resize(sig_bytes);
    }
    std::vector<int> status(n, MLDSA_ACCEL_OK);
    std::vector<size_t> at;  // the records that parsed
    for (size_t j = 0; j < n; ++j)
      if (errors[j].empty()) at.push_back(j);
    const auto start = Clock::now();
    if (sign) {
      std::vector<mldsa_accel_sign_item> items(at.size());
      for (size_t k = 0; k < at.size(); ++k) {
        const size_t j = at[k];
        items[k] = {key, msgs[j].data(), msgs[j].size(), ctxs[j].data(), ctxs[j].size(), sigs[j].data(), sig_bytes, 0};
      }
      mldsa_accel_sign(ctx, items.data(), items.size(), o.deterministic ? MLDSA_ACCEL_DETERMINISTIC : 0);
      for (size_t k = 0; k < at.size(); ++k) status[at[k]] = items[k].status;
    } else {
      std::vector<mldsa_accel_verify_item> items(at.size());
      for (size_t k = 0; k < at.size(); ++k) {
        const size_t j = at[k];
        items[k] = {key, msgs[j].data(), msgs[j].size(), ctxs[j].data(), ctxs[j].size(), sigs[j].data(),
                    sigs[j].size(), 0};
      }
      mldsa_accel_verify(ctx, items.data(), items.size());
      for (size_t k = 0; k < at.size(); ++k) status[at[k]] = items[k].status;
    }
    add_latency(t, start, at.size());
    std::string out;
    for (size_t j = 0; j < n; ++j) {
      const bool ok = errors[j].empty() && status[j] == MLDSA_ACCEL_OK;
      if (errors[j].empty() && !ok) errors[j] = mldsa_accel_status_string(status[j]);
      out += "{\"id\":" + ids[j];
      if (sign) out += ok ? ",\"sig\":\"" + b64_encode(sigs[j].data(), sig_bytes) + "\"" : "";
      else out += ok ? ",\"ok\":true" : ",\"ok\":false";
      if (!ok) out += ",\"error\":\"" + json_escape(errors[j]) + "\"";
      out += "}\n";
      t.failed += !ok;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    t.done += n;
    draw_progress(t, o.cmd.c_str());
  }
  return 0;
}

int run(const Options& o, mldsa_accel_batch* ctx) {
  Tally t;
  t.progress = isatty(2) == 1;
  int rc = 0;
  const bool streaming = o.in == "-";
  if (o.cmd == "keygen") {
    rc = keygen(o, ctx, t);
  } else {
    mldsa_accel_key* key = load_key(o.key, o.cmd == "sign", o.alg);
    if (key == nullptr) return kExitUsage;
    rc = streaming ? stream(o, ctx, key, t) : files(o, ctx, key, t);
    mldsa_accel_key_free(key);
  }
  if (rc != 0) return rc;
  summary(o, ctx, t, streaming);
  if (g_interrupted) {
    resume_hint(o, t, streaming);
    return kExitInterrupted;
  }
  return t.failed ? kExitFailed : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kHelp, argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : 0;
  }
  o.cmd = argv[1];
  o.argv.assign(argv + 1, argv + argc);
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
    auto number = [&](size_t& out) {
      std::string v;
      char* end = nullptr;
      out = value(v) ? std::strtoull(v.c_str(), &end, 10) : 0;
      return end != nullptr && *end == '\0' && out > 0;
    };
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    } else if (a == "--json") o.json = true;
    else if (a == "--deterministic") o.deterministic = true;
    else if (a == "--resume") o.resume = true;
    else if (a == "--alg") ok = value(o.alg);
    else if (a == "--key" || a == "--pub") ok = value(o.key);
    else if (a == "--in") ok = value(o.in);
    else if (a == "--out") ok = value(o.out);
    else if (a == "--sigs") ok = value(o.sigs);
    else if (a == "--context") ok = value(o.context);
    else if (a == "--count") ok = number(o.count);
    else if (a == "--chunk") ok = number(o.chunk);
    else ok = false;
    if (!ok) {
      std::fprintf(stderr, "mldsa-accel: bad argument '%s'\n%s", a.c_str(), kHelp);
      return kExitUsage;
    }
  }
  const bool streaming = o.in == "-";
  if ((o.cmd == "sign" && (o.key.empty() || o.in.empty() || (o.out.empty() && !streaming))) ||
      (o.cmd == "verify" && (o.key.empty() || o.in.empty() || (o.sigs.empty() && !streaming))) ||
      (o.cmd == "keygen" && (o.alg.empty() || o.count == 0 || o.out.empty()))) {
    std::fprintf(stderr, "mldsa-accel: missing arguments\n%s", kHelp);
    return kExitUsage;
  }
  // The output folder of sign and keygen is made if missing (as mkdir -p).
  if (!o.out.empty() && o.cmd != "verify" && !streaming) {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec || !std::filesystem::is_directory(o.out)) {
      std::fprintf(stderr, "mldsa-accel: cannot make the output folder %s: %s\n", o.out.c_str(),
                   ec ? ec.message().c_str() : "not a folder");
      return kExitUsage;
    }
  }
  if (o.resume && (streaming || o.cmd == "verify")) {
    std::fprintf(stderr, "mldsa-accel: --resume is for sign and keygen over files (a stream or a verify run "
                         "writes no files to resume from)\n");
    return kExitUsage;
  }
  int st = 0;
  char why[256] = "";
  mldsa_accel_batch* ctx = mldsa_accel_batch_new(&st, why, sizeof why);
  if (ctx == nullptr) {
    std::fprintf(stderr, "mldsa-accel: %s: %s\n", mldsa_accel_status_string(st), why);
    return kExitUsage;
  }
  // SIGINT after the context: its threads inherit the default mask either way;
  // the handler only sets a flag the chunk loops read.
  struct sigaction sa{};
  sa.sa_handler = on_sigint;
  sa.sa_flags = SA_RESTART;  // file calls on other threads go on; the stdin wait is a poll, which returns
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  const int rc = run(o, ctx);
  mldsa_accel_batch_free(ctx);
  return rc;
}
