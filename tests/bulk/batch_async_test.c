/* batch_async_test.c - the bulk C API's submissions (version 2) from C:
 * keygen, sign and verify submitted in several parts, one callback per
 * submission with every item's status and OpenSSL reason, batch_wait,
 * callbacks that submit more, deterministic signatures equal to the
 * synchronous call's (0 wrong results, on the CPU and on the simulated
 * device with corrupt-output faults), each error, and keys from EVP_PKEYs
 * (an ML-DSA key through the mldsa-accel provider when OPENSSL_MODULES
 * finds it; an Ed25519 key: unsupported). */
#include "batch_test.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 480, PARTS = 4 };

static uint8_t pks[KEYS][PK], sks[KEYS][SK], seeds[KEYS][32];
static uint8_t msgs[N][40], want[N][SIG], got[N][SIG], tampered[N][SIG];
static mldsa_accel_sign_item si[N];
static mldsa_accel_verify_item vi[N];

/* What the callbacks saw. They run on the context's submission thread;
 * mldsa_accel_batch_wait orders them before the main thread reads this. */
struct seen {
  int calls;
  long failed;
  int bad_reason; /* an item whose reason disagrees with its status */
  int op;
};

static int reason_fits(int status, int reason) {
  return (status == MLDSA_ACCEL_OK) == (reason == 0);
}

static void count(const mldsa_accel_completion* c) {
  struct seen* s = (struct seen*)c->user;
  ++s->calls;
  s->op = c->op;
  if (c->failed > 0) s->failed += c->failed;
  for (size_t i = 0; i < c->n; ++i) {
    const int st = c->op == MLDSA_ACCEL_OP_SIGN     ? ((mldsa_accel_sign_item*)c->items)[i].status
                   : c->op == MLDSA_ACCEL_OP_VERIFY ? ((mldsa_accel_verify_item*)c->items)[i].status
                                                    : ((mldsa_accel_keygen_item*)c->items)[i].status;
    if (!reason_fits(st, c->reasons[i])) ++s->bad_reason;
  }
}

/* A callback that submits the verification of what was just signed, and
 * checks that waiting from a callback is refused. */
static mldsa_accel_batch* g_ctx;
static struct seen chained;
static int wait_in_callback = 99;
static void sign_then_verify(const mldsa_accel_completion* c) {
  count(c);
  wait_in_callback = mldsa_accel_batch_wait(g_ctx);
  CHECK(mldsa_accel_verify_submit(g_ctx, vi, N, count, &chained) == MLDSA_ACCEL_OK);
}

/* Items with errors: each status and reason text. */
static const char* reason_texts[3];
static int error_status[3];
static void record_errors(const mldsa_accel_completion* c) {
  const mldsa_accel_sign_item* it = (const mldsa_accel_sign_item*)c->items;
  for (size_t i = 0; i < c->n && i < 3; ++i) {
    error_status[i] = it[i].status;
    reason_texts[i] = mldsa_accel_reason_string(c->reasons[i]);
  }
}

static void set_sign_items(mldsa_accel_key** priv, uint8_t (*out)[SIG]) {
  for (int i = 0; i < N; ++i)
    si[i] = (mldsa_accel_sign_item){priv[i % KEYS], msgs[i], 20, (const uint8_t*)"ctx", 3, out[i], SIG, -99};
}

static void check_from_pkey(mldsa_accel_batch* ctx, mldsa_accel_key* priv0) {
  mldsa_accel_key* k = NULL;
  EVP_PKEY* ed = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
  CHECK(ed != NULL);
  CHECK(mldsa_accel_key_from_pkey(ed, 1, &k) == MLDSA_ACCEL_ERR_UNSUPPORTED_KEY && k == NULL);
  CHECK(mldsa_accel_key_from_pkey(NULL, 1, &k) == MLDSA_ACCEL_ERR_ARGUMENT);
  EVP_PKEY_free(ed);
  /* Unloaded at the end: a provider left loaded keeps its instance (and the
   * router) past exit, which LeakSanitizer reports. */
  OSSL_PROVIDER* prov = OSSL_PROVIDER_load(NULL, "mldsa-accel");
  if (prov == NULL) {
    printf("skipped: ML-DSA EVP_PKEYs (the mldsa-accel provider is not in OPENSSL_MODULES)\n");
    return;
  }
  /* The same key pair as priv0 / pks[0], made by the provider from its seed
   * and public key; a signature with it equals priv0's (deterministic). */
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_octet_string("seed", seeds[0], 32),
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, pks[0], PK),
      OSSL_PARAM_construct_end(),
  };
  EVP_PKEY_CTX* pctx = EVP_PKEY_CTX_new_from_name(NULL, "ML-DSA-44", NULL);
  EVP_PKEY* pkey = NULL;
  CHECK(pctx != NULL && EVP_PKEY_fromdata_init(pctx) == 1 &&
        EVP_PKEY_fromdata(pctx, &pkey, EVP_PKEY_KEYPAIR, params) == 1);
  EVP_PKEY_CTX_free(pctx);
  if (pkey == NULL) {
    OSSL_PROVIDER_unload(prov);
    return;
  }
  mldsa_accel_key *kp = NULL, *kpub = NULL;
  CHECK(mldsa_accel_key_from_pkey(pkey, 1, &kp) == MLDSA_ACCEL_OK);
  CHECK(mldsa_accel_key_from_pkey(pkey, 0, &kpub) == MLDSA_ACCEL_OK);
  uint8_t pk[PK], s1[SIG], s2[SIG];
  size_t len = sizeof pk;
  CHECK(kpub != NULL && mldsa_accel_key_public(kpub, pk, &len) == MLDSA_ACCEL_OK && len == PK &&
        memcmp(pk, pks[0], PK) == 0);
  mldsa_accel_sign_item two[2] = {{kp, msgs[0], 20, NULL, 0, s1, SIG, -99}, {priv0, msgs[0], 20, NULL, 0, s2, SIG, -99}};
  CHECK(kp != NULL && mldsa_accel_sign(ctx, two, 2, MLDSA_ACCEL_DETERMINISTIC) == 0 && memcmp(s1, s2, SIG) == 0);
  /* A public-only EVP_PKEY has no private key to give. */
  EVP_PKEY* pubonly = NULL;
  OSSL_PARAM pub_params[] = {OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, pks[0], PK),
                             OSSL_PARAM_construct_end()};
  pctx = EVP_PKEY_CTX_new_from_name(NULL, "ML-DSA-44", NULL);
  CHECK(pctx != NULL && EVP_PKEY_fromdata_init(pctx) == 1 &&
        EVP_PKEY_fromdata(pctx, &pubonly, EVP_PKEY_PUBLIC_KEY, pub_params) == 1);
  EVP_PKEY_CTX_free(pctx);
  CHECK(mldsa_accel_key_from_pkey(pubonly, 1, &k) == MLDSA_ACCEL_ERR_KEY && k == NULL);
  printf("ML-DSA EVP_PKEYs: private and public keys taken, signatures equal\n");
  EVP_PKEY_free(pubonly);
  EVP_PKEY_free(pkey);
  mldsa_accel_key_free(kp);
  mldsa_accel_key_free(kpub);
  OSSL_PROVIDER_unload(prov);
}

int main(void) {
  mldsa_accel_batch* ctx = new_context();
  if (ctx == NULL) return 1;
  g_ctx = ctx;

  /* Keygen, submitted. */
  mldsa_accel_keygen_item kg[KEYS];
  memset(kg, 0, sizeof kg);
  for (int k = 0; k < KEYS; ++k) {
    for (int j = 0; j < 32; ++j) seeds[k][j] = (uint8_t)(k * 37 + j + 1);
    kg[k] = (mldsa_accel_keygen_item){seeds[k], pks[k], PK, sks[k], SK, NULL, -99};
  }
  struct seen keygen = {0};
  CHECK(mldsa_accel_keygen_submit(ctx, "ML-DSA-44", kg, KEYS, count, &keygen) == MLDSA_ACCEL_OK);
  CHECK(mldsa_accel_batch_wait(ctx) == MLDSA_ACCEL_OK);
  CHECK(keygen.calls == 1 && keygen.failed == 0 && keygen.bad_reason == 0 && keygen.op == MLDSA_ACCEL_OP_KEYGEN);
  mldsa_accel_key *priv[KEYS], *pub[KEYS];
  for (int k = 0; k < KEYS; ++k) {
    CHECK(kg[k].status == MLDSA_ACCEL_OK);
    CHECK(mldsa_accel_key_new("ML-DSA-44", 1, seeds[k], 32, &priv[k]) == MLDSA_ACCEL_OK);
    CHECK(mldsa_accel_key_new("ML-DSA-44", 0, pks[k], PK, &pub[k]) == MLDSA_ACCEL_OK);
  }

  /* The reference: the synchronous call, deterministic. */
  for (int i = 0; i < N; ++i) snprintf((char*)msgs[i], sizeof msgs[i], "async message %d", i);
  set_sign_items(priv, want);
  CHECK(mldsa_accel_sign(ctx, si, N, MLDSA_ACCEL_DETERMINISTIC) == 0);

  /* Submitted in PARTS parts, one callback each, equal to the reference. The
   * engine starts in the background: repeat until the device took part (with
   * the simulated device), at most 30 s; every round is compared. */
  const int want_device = getenv("MLDSA_ACCEL_SIM_DEVICES") != NULL;
  mldsa_accel_stats stats;
  const time_t deadline = time(NULL) + 30;
  int rounds = 0;
  long wrong = 0;
  for (;;) {
    memset(got, 0, sizeof got);
    set_sign_items(priv, got);
    struct seen parts = {0};
    for (int p = 0; p < PARTS; ++p)
      CHECK(mldsa_accel_sign_submit(ctx, si + p * (N / PARTS), N / PARTS, MLDSA_ACCEL_DETERMINISTIC, count, &parts) ==
            MLDSA_ACCEL_OK);
    CHECK(mldsa_accel_batch_wait(ctx) == MLDSA_ACCEL_OK);
    CHECK(parts.calls == PARTS && parts.failed == 0 && parts.bad_reason == 0 && parts.op == MLDSA_ACCEL_OP_SIGN);
    for (int i = 0; i < N; ++i) wrong += memcmp(got[i], want[i], SIG) != 0 || si[i].status != MLDSA_ACCEL_OK;
    ++rounds;
    CHECK(mldsa_accel_batch_stats(ctx, &stats) == MLDSA_ACCEL_OK);
    if (!want_device || stats.items_device > 0 || time(NULL) > deadline) break;
  }
  CHECK(wrong == 0);
  if (want_device) CHECK(stats.items_device > 0);
  /* What each device was given: one simulated device, or none on the CPU. */
  uint64_t per[4] = {0};
  size_t ndev = 0;
  if (want_device) CHECK(mldsa_accel_batch_device_items(ctx, per, &ndev) == MLDSA_ACCEL_ERR_ARGUMENT && ndev == 1);
  CHECK(mldsa_accel_batch_device_items(NULL, per, &ndev) == MLDSA_ACCEL_ERR_ARGUMENT);
  ndev = 4;
  CHECK(mldsa_accel_batch_device_items(ctx, per, &ndev) == MLDSA_ACCEL_OK && ndev == (want_device ? 1u : 0u));
  if (want_device) CHECK(per[0] > 0 && per[0] <= stats.items_device);

  /* Verify, submitted from a sign submission's callback: every other
   * signature tampered with. */
  for (int i = 0; i < N; ++i) {
    memcpy(tampered[i], want[i], SIG);
    if (i % 2) tampered[i][(i * 11) % SIG] ^= 0x10;
    vi[i] = (mldsa_accel_verify_item){pub[i % KEYS], msgs[i], 20, (const uint8_t*)"ctx", 3, tampered[i], SIG, -99};
  }
  set_sign_items(priv, got);
  struct seen first = {0};
  CHECK(mldsa_accel_sign_submit(ctx, si, N, MLDSA_ACCEL_DETERMINISTIC, sign_then_verify, &first) == MLDSA_ACCEL_OK);
  CHECK(mldsa_accel_batch_wait(ctx) == MLDSA_ACCEL_OK);
  CHECK(first.calls == 1 && chained.calls == 1 && chained.op == MLDSA_ACCEL_OP_VERIFY);
  CHECK(wait_in_callback == MLDSA_ACCEL_ERR_ARGUMENT);
  CHECK(chained.failed == N / 2 && chained.bad_reason == 0);
  long verdicts_wrong = 0;
  for (int i = 0; i < N; ++i)
    verdicts_wrong += i % 2 ? vi[i].status == MLDSA_ACCEL_OK : vi[i].status != MLDSA_ACCEL_OK;
  CHECK(verdicts_wrong == 0);

  /* Errors: each item's status and reason text; submission errors. */
  uint8_t long_ctx[256] = {0}, small[16];
  mldsa_accel_sign_item e[3] = {
      {priv[0], msgs[0], 20, long_ctx, 256, got[0], SIG, 0},
      {priv[0], msgs[0], 20, NULL, 0, small, sizeof small, 0},
      {pub[0], msgs[0], 20, NULL, 0, got[0], SIG, 0},
  };
  CHECK(mldsa_accel_sign_submit(ctx, e, 3, 0, record_errors, NULL) == MLDSA_ACCEL_OK);
  CHECK(mldsa_accel_batch_wait(ctx) == MLDSA_ACCEL_OK);
  CHECK(error_status[0] == MLDSA_ACCEL_ERR_CONTEXT && reason_texts[0] &&
        strcmp(reason_texts[0], "context string longer than 255 bytes") == 0);
  CHECK(error_status[1] == MLDSA_ACCEL_ERR_ARGUMENT && reason_texts[1] &&
        strcmp(reason_texts[1], "output buffer too small") == 0);
  CHECK(error_status[2] == MLDSA_ACCEL_ERR_KEY && reason_texts[2] && strstr(reason_texts[2], "no key") != NULL);
  CHECK(mldsa_accel_sign_submit(ctx, si, 1, 0, NULL, NULL) == MLDSA_ACCEL_ERR_ARGUMENT);
  CHECK(mldsa_accel_sign_submit(NULL, si, 1, 0, count, &first) == MLDSA_ACCEL_ERR_ARGUMENT);
  CHECK(mldsa_accel_verify_submit(ctx, NULL, 1, count, &first) == MLDSA_ACCEL_ERR_ARGUMENT);
  CHECK(mldsa_accel_keygen_submit(ctx, "ML-DSA-13", kg, 1, count, &first) == MLDSA_ACCEL_ERR_ARGUMENT);
  CHECK(mldsa_accel_batch_wait(NULL) == MLDSA_ACCEL_ERR_ARGUMENT);
  CHECK(strcmp(mldsa_accel_reason_string(0), "ok") == 0);
  CHECK(strcmp(mldsa_accel_status_string(MLDSA_ACCEL_ERR_UNSUPPORTED_KEY), "unknown status") != 0);

  check_from_pkey(ctx, priv[0]);

  /* Freeing the context waits for what is still submitted. */
  struct seen last = {0};
  set_sign_items(priv, got);
  CHECK(mldsa_accel_sign_submit(ctx, si, N, MLDSA_ACCEL_DETERMINISTIC, count, &last) == MLDSA_ACCEL_OK);
  CHECK(mldsa_accel_batch_stats(ctx, &stats) == MLDSA_ACCEL_OK);
  printf("async: %d rounds, %ld wrong results; items: %llu on the CPU, %llu on the device; device results checked "
         "%llu, wrong %llu; devices: %s\n",
         rounds, wrong, (unsigned long long)stats.items_cpu, (unsigned long long)stats.items_device,
         (unsigned long long)stats.device_checked, (unsigned long long)stats.device_wrong, stats.devices);
  mldsa_accel_batch_free(ctx);
  CHECK(last.calls == 1 && last.failed == 0);
  for (int i = 0; i < N; ++i) CHECK(memcmp(got[i], want[i], SIG) == 0);
  for (int k = 0; k < KEYS; ++k) {
    mldsa_accel_key_free(priv[k]);
    mldsa_accel_key_free(pub[k]);
  }
  return finish();
}
