/* batch_api_test.c - the bulk C API from C: keygen, sign and verify of many
 * items in one call, deterministic signatures equal across calls (and, with
 * the simulated device, across the CPU and the device paths), tampered
 * signatures rejected, and each error code. ctest runs it on the CPU and on
 * the simulated device with corrupt-output faults: 0 wrong results. */
#include "batch_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

enum { N = 600 };

static uint8_t pks[KEYS][PK], sks[KEYS][SK], seeds[KEYS][32];
static uint8_t msgs[N][40], sigs[N][SIG], again[N][SIG];

/* Verifies vi's items again (a copy, statuses reset): how many answers are
 * not the expected ones (every odd item tampered with). */
static int verify_again(mldsa_accel_batch* ctx, const mldsa_accel_verify_item* vi) {
  static _Thread_local mldsa_accel_verify_item copy[N];
  for (int i = 0; i < N; ++i) {
    copy[i] = vi[i];
    copy[i].status = -99;
  }
  int wrong = mldsa_accel_verify(ctx, copy, N) != N / 2;
  for (int i = 0; i < N; ++i)
    wrong += !(copy[i].status == (i % 2 ? MLDSA_ACCEL_VERIFY_FAILED : MLDSA_ACCEL_OK) ||
               (i % 2 && copy[i].status == MLDSA_ACCEL_ERR_SIGNATURE));
  return wrong;
}

struct concurrent {
  mldsa_accel_batch* ctx;
  const mldsa_accel_verify_item* vi;
  int wrong;
};

static void* verify_rounds(void* arg) {
  struct concurrent* c = arg;
  for (int r = 0; r < 5; ++r) c->wrong += verify_again(c->ctx, c->vi);
  return NULL;
}

int main(void) {
  mldsa_accel_batch* ctx = new_context();
  if (ctx == NULL) return 1;

  /* Keygen from seeds. */
  mldsa_accel_keygen_item kg[KEYS];
  memset(kg, 0, sizeof kg);
  for (int k = 0; k < KEYS; ++k) {
    for (int j = 0; j < 32; ++j) seeds[k][j] = (uint8_t)(k * 41 + j);
    kg[k].seed = seeds[k];
    kg[k].pk = pks[k];
    kg[k].pk_size = PK;
    kg[k].sk = sks[k];
    kg[k].sk_size = SK;
  }
  CHECK(mldsa_accel_keygen(ctx, "ML-DSA-44", kg, KEYS) == 0);
  mldsa_accel_key *priv[KEYS], *pub[KEYS], *from_sk = NULL;
  for (int k = 0; k < KEYS; ++k) {
    CHECK(mldsa_accel_key_new("ML-DSA-44", 1, seeds[k], 32, &priv[k]) == MLDSA_ACCEL_OK);
    CHECK(mldsa_accel_key_new("ML-DSA-44", 0, pks[k], PK, &pub[k]) == MLDSA_ACCEL_OK);
    uint8_t pk[PK];
    size_t len = sizeof pk;
    CHECK(mldsa_accel_key_public(priv[k], pk, &len) == MLDSA_ACCEL_OK && len == PK && memcmp(pk, pks[k], PK) == 0);
  }
  CHECK(mldsa_accel_key_new("ML-DSA-44", 1, sks[0], SK, &from_sk) == MLDSA_ACCEL_OK);
  CHECK(mldsa_accel_signature_size(priv[0]) == SIG);

  /* Without a GPU a call of at most MLDSA_ACCEL_CALLER_ITEMS items computes
   * on the calling thread (batch.h; the bulk tool relies on it): its CPU
   * time is nearly all the process's, where threads sharing the work would
   * leave it about half (on two cores or more). */
  if (getenv("MLDSA_ACCEL_SIM_DEVICES") == NULL) {
    mldsa_accel_sign_item small[MLDSA_ACCEL_CALLER_ITEMS];
    struct timespec t0, p0, t1, p1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p0);
    for (int round = 0; round < 20; ++round) {
      for (int i = 0; i < MLDSA_ACCEL_CALLER_ITEMS; ++i)
        small[i] = (mldsa_accel_sign_item){priv[i % KEYS], msgs[i], 20, NULL, 0, sigs[i], SIG, -99};
      CHECK(mldsa_accel_sign(ctx, small, MLDSA_ACCEL_CALLER_ITEMS, 0) == 0);
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p1);
    const double thread = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    const double process = (double)(p1.tv_sec - p0.tv_sec) + 1e-9 * (double)(p1.tv_nsec - p0.tv_nsec);
    printf("calls of %d items: %.1f ms of CPU on the calling thread, %.1f ms in the process\n",
           MLDSA_ACCEL_CALLER_ITEMS, 1e3 * thread, 1e3 * process);
    CHECK(thread >= 0.9 * process);
  }

  /* Sign N messages (deterministic) twice; the results must be equal. The
   * engine starts in the background: repeat until the device took part
   * (with the simulated device), at most 30 s. */
  static mldsa_accel_sign_item si[N];
  static mldsa_accel_verify_item vi[N];
  const int want_device = getenv("MLDSA_ACCEL_SIM_DEVICES") != NULL;
  mldsa_accel_stats stats;
  const time_t deadline = time(NULL) + 30;
  int rounds = 0;
  for (;;) {
    for (int i = 0; i < N; ++i) {
      snprintf((char*)msgs[i], sizeof msgs[i], "message %d", i);
      si[i] = (mldsa_accel_sign_item){i == 0 ? from_sk : priv[i % KEYS], msgs[i], 20, (const uint8_t*)"ctx", 3,
                                      rounds == 0 ? sigs[i] : again[i], SIG, -99};
    }
    CHECK(mldsa_accel_sign(ctx, si, N, MLDSA_ACCEL_DETERMINISTIC) == 0);
    if (rounds > 0) CHECK(memcmp(sigs, again, sizeof sigs) == 0);
    ++rounds;
    CHECK(mldsa_accel_batch_stats(ctx, &stats) == MLDSA_ACCEL_OK);
    if (!want_device || stats.items_device > 0 || time(NULL) > deadline) break;
  }
  if (want_device) CHECK(stats.items_device > 0);

  /* Verify: every other signature tampered with. */
  for (int i = 0; i < N; ++i) {
    memcpy(again[i], sigs[i], SIG);
    if (i % 2) again[i][(i * 7) % SIG] ^= 0x04;
    vi[i] = (mldsa_accel_verify_item){pub[i % KEYS], msgs[i], 20, (const uint8_t*)"ctx", 3, again[i], SIG, -99};
  }
  CHECK(mldsa_accel_verify(ctx, vi, N) == N / 2);
  for (int i = 0; i < N; ++i)
    CHECK(vi[i].status == (i % 2 ? MLDSA_ACCEL_VERIFY_FAILED : MLDSA_ACCEL_OK) ||
          (i % 2 && vi[i].status == MLDSA_ACCEL_ERR_SIGNATURE));

  /* Calls from two threads at once on one context (one of them on the
   * context's kept threads, the other on threads of its own): each right. */
  struct concurrent a = {ctx, vi, 0}, b = {ctx, vi, 0};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, verify_rounds, &a) == 0);
  verify_rounds(&b);
  pthread_join(t, NULL);
  CHECK(a.wrong == 0 && b.wrong == 0);

  /* The child of a fork uses the parent's context (whose kept threads it
   * does not have) and frees it: right answers, no hang (20 s alarm). */
#if defined(UNDER_TSAN)
  printf("skipped under TSan: the fork check (fork after threads is unsupported)\n");
#else
  fflush(NULL);
  const pid_t child = fork();
  if (child == 0) {
    alarm(20);
    const int wrong = verify_again(ctx, vi);
    mldsa_accel_batch_free(ctx);
    _exit(wrong == 0 ? 0 : 3);
  }
  int child_status = 0;
  CHECK(child > 0 && waitpid(child, &child_status, 0) == child);
  CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
#endif

  /* Error codes. */
  CHECK(mldsa_accel_sign(NULL, si, 1, 0) == MLDSA_ACCEL_ERR_ARGUMENT);
  CHECK(mldsa_accel_sign(ctx, NULL, 0, 0) == 0);
  CHECK(mldsa_accel_verify(ctx, NULL, 0) == 0);
  CHECK(mldsa_accel_verify(ctx, NULL, 1) == MLDSA_ACCEL_ERR_ARGUMENT);
  CHECK(mldsa_accel_keygen(ctx, "ML-DSA-13", kg, 1) == MLDSA_ACCEL_ERR_ARGUMENT);
  mldsa_accel_key* bad = NULL;
  CHECK(mldsa_accel_key_new("ML-DSA-44", 0, pks[0], PK - 1, &bad) == MLDSA_ACCEL_ERR_KEY && bad == NULL);
  CHECK(mldsa_accel_key_new("nope", 0, pks[0], PK, &bad) == MLDSA_ACCEL_ERR_ARGUMENT);
  uint8_t long_ctx[256] = {0}, small[16];
  mldsa_accel_sign_item e[3] = {
      {priv[0], msgs[0], 20, long_ctx, 256, sigs[0], SIG, 0},
      {priv[0], msgs[0], 20, NULL, 0, small, sizeof small, 0},
      {pub[0], msgs[0], 20, NULL, 0, sigs[0], SIG, 0},
  };
  CHECK(mldsa_accel_sign(ctx, e, 3, 0) == 3);
  CHECK(e[0].status == MLDSA_ACCEL_ERR_CONTEXT);
  CHECK(e[1].status == MLDSA_ACCEL_ERR_ARGUMENT);
  CHECK(e[2].status == MLDSA_ACCEL_ERR_KEY);
  mldsa_accel_verify_item ev = {pub[0], msgs[0], 20, NULL, 0, sigs[0], 10, 0};
  CHECK(mldsa_accel_verify(ctx, &ev, 1) == 1 && ev.status == MLDSA_ACCEL_ERR_SIGNATURE);

  CHECK(mldsa_accel_batch_stats(ctx, &stats) == MLDSA_ACCEL_OK);
  printf("items: %llu on the CPU, %llu on the device (%llu batches); device results checked %llu, wrong %llu; "
         "devices: %s\n",
         (unsigned long long)stats.items_cpu, (unsigned long long)stats.items_device,
         (unsigned long long)stats.batches, (unsigned long long)stats.device_checked,
         (unsigned long long)stats.device_wrong, stats.devices);
  for (int k = 0; k < KEYS; ++k) {
    mldsa_accel_key_free(priv[k]);
    mldsa_accel_key_free(pub[k]);
  }
  mldsa_accel_key_free(from_sk);
  mldsa_accel_batch_free(ctx);
  return finish();
}
