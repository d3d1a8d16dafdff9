/* batch.h - the bulk C API of mldsa-accel: many ML-DSA signatures,
 * verifications or key generations in one call, on every CPU core and the GPU
 * (when there is one), through the same router, engine, checks and CPU
 * fallback as the OpenSSL provider. Library: libmldsa-accel-batch.so.0
 * (pkg-config mldsa-accel-batch). See docs/BULK.md.
 *
 * Thread safety: a context may be used by many threads at once; keys are
 * read-only after mldsa_accel_key_new and may be shared by any number of
 * items, calls and threads. Item arrays belong to their call until it
 * returns. After fork(), a child may use a context made in the parent: its
 * work then runs on the CPU (the GPU engine stays the parent's).
 *
 * Settings come from the MLDSA_ACCEL_* environment variables the provider
 * reads (docs/BULK.md lists the ones that apply); openssl.cnf is not read. */
#ifndef MLDSA_ACCEL_BATCH_H
#define MLDSA_ACCEL_BATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1: the synchronous calls (version node MLDSA_ACCEL_BATCH_0); 2: submission
 * with a completion callback, keys from EVP_PKEYs, OpenSSL reasons, per-device counts
 * (MLDSA_ACCEL_BATCH_1). */
#define MLDSA_ACCEL_BATCH_API_VERSION 2

/* Status of a call or of one item. 0 is success; 1 is a verification that
 * ran and failed (a result, not an error); negative values are errors. */
enum {
  MLDSA_ACCEL_OK = 0,
  MLDSA_ACCEL_VERIFY_FAILED = 1,      /* the signature does not verify */
  MLDSA_ACCEL_ERR_ARGUMENT = -1,      /* a null pointer, an unknown algorithm, a buffer too small */
  MLDSA_ACCEL_ERR_KEY = -2,           /* key bytes of the wrong length or malformed */
  MLDSA_ACCEL_ERR_CONTEXT = -3,       /* context string over 255 bytes (or any, for round-3 Dilithium) */
  MLDSA_ACCEL_ERR_SIGNATURE = -4,     /* verify: signature of the wrong length or malformed encoding */
  MLDSA_ACCEL_ERR_RANDOM = -5,        /* the random source failed */
  MLDSA_ACCEL_ERR_MEMORY = -6,        /* out of memory */
  MLDSA_ACCEL_ERR_CONFIG = -7,        /* a bad MLDSA_ACCEL_* setting (mldsa_accel_batch_new) */
  MLDSA_ACCEL_ERR_INTERNAL = -8,      /* should not happen; please report it */
  MLDSA_ACCEL_ERR_UNSUPPORTED_KEY = -9 /* an EVP_PKEY of an algorithm the API does not take (version 2) */
};

/* A short English text for a status ("ok", "signature does not verify", ...). */
const char* mldsa_accel_status_string(int status);

typedef struct mldsa_accel_batch mldsa_accel_batch;
typedef struct mldsa_accel_key mldsa_accel_key;

/* A context: the router, its batch queue and (started in the background by
 * the first call that could use it) the GPU engine. NULL on a bad setting or
 * no memory, with *status set and the reason in error (NUL-terminated,
 * truncated to error_size); status and error may be NULL. */
mldsa_accel_batch* mldsa_accel_batch_new(int* status, char* error, size_t error_size);
/* Waits for work in flight inside the context's engine, then frees it. */
void mldsa_accel_batch_free(mldsa_accel_batch* ctx);

/* Keys. alg: "ML-DSA-44", "ML-DSA-65", "ML-DSA-87" (or round 3's
 * "Dilithium2/3/5"). A private key is its 32-byte seed or its FIPS 204 skEncode
 * bytes (checked: a key whose parts disagree is MLDSA_ACCEL_ERR_KEY); a public
 * key its pkEncode bytes. Key memory is zeroed when freed. */
int mldsa_accel_key_new(const char* alg, int is_private, const uint8_t* bytes, size_t len, mldsa_accel_key** out);
void mldsa_accel_key_free(mldsa_accel_key* key);
/* The encoded public key (of a private key too); *len in: the buffer's size,
 * out: the key's size. MLDSA_ACCEL_ERR_ARGUMENT when out is too small. */
int mldsa_accel_key_public(const mldsa_accel_key* key, uint8_t* out, size_t* len);
/* The signature size of the key's parameter set (0 for NULL). */
size_t mldsa_accel_signature_size(const mldsa_accel_key* key);

/* One item of a batch call: inputs set by the caller, status (and outputs)
 * set by the call. */
typedef struct {
  const mldsa_accel_key* key; /* private key */
  const uint8_t* msg;
  size_t msg_len;
  const uint8_t* ctx;         /* context string, may be NULL when ctx_len is 0 */
  size_t ctx_len;
  uint8_t* sig;               /* out: mldsa_accel_signature_size(key) bytes */
  size_t sig_size;            /* in: sig's size */
  int status;                 /* out */
} mldsa_accel_sign_item;

typedef struct {
  const mldsa_accel_key* key; /* public (or private) key */
  const uint8_t* msg;
  size_t msg_len;
  const uint8_t* ctx;
  size_t ctx_len;
  const uint8_t* sig;
  size_t sig_len;
  int status;                 /* out: MLDSA_ACCEL_OK or MLDSA_ACCEL_VERIFY_FAILED, or an error */
} mldsa_accel_verify_item;

typedef struct {
  const uint8_t* seed;        /* 32 bytes, or NULL: drawn from the random source */
  uint8_t* pk;                /* out: the public key (pk_size bytes at least) */
  size_t pk_size;
  uint8_t* sk;                /* out: the private key's skEncode bytes */
  size_t sk_size;
  uint8_t* seed_out;          /* out, may be NULL: the 32-byte seed used */
  int status;
} mldsa_accel_keygen_item;

/* Flags of mldsa_accel_sign. */
#define MLDSA_ACCEL_DETERMINISTIC 1u /* FIPS 204's deterministic variant (rnd = 0); default: hedged */

/* The batch calls: every item computed, each with its own status. Return: a
 * negative status when the call itself is wrong (ctx NULL, items NULL with
 * n > 0) and nothing was done, else the number of items whose status is not
 * MLDSA_ACCEL_OK (0: all succeeded; for verify, a signature that does not
 * verify counts). Big batches go to the GPU as batches of up to the
 * configured batch limit while the CPU cores take items from the same list,
 * so each side does what it does faster; until the GPU engine is ready (it is
 * built in the background) everything runs on the CPU. Every GPU result is
 * checked on the CPU before it is returned (docs/BULK.md). Key generation
 * runs on the CPU cores: no check of a GPU key costs less than making it.
 * Without a GPU, a sign or verify call of at most MLDSA_ACCEL_CALLER_ITEMS
 * items is computed on the calling thread alone: an application with threads
 * of its own (the bulk tool) can keep each busy with such calls, with no wait
 * for other threads. */
#define MLDSA_ACCEL_CALLER_ITEMS 16
long mldsa_accel_sign(mldsa_accel_batch* ctx, mldsa_accel_sign_item* items, size_t n, unsigned flags);
long mldsa_accel_verify(mldsa_accel_batch* ctx, mldsa_accel_verify_item* items, size_t n);
long mldsa_accel_keygen(mldsa_accel_batch* ctx, const char* alg, mldsa_accel_keygen_item* items, size_t n);

/* What a context did, for summaries. */
typedef struct {
  uint64_t items_cpu;           /* computed on the CPU */
  uint64_t items_device;        /* computed through the batch queue (GPU) */
  uint64_t batches;             /* GPU batches */
  uint64_t device_checked;      /* GPU results checked on the CPU */
  uint64_t device_wrong;        /* of those, wrong (recomputed on the CPU) */
  int device_out_of_service;    /* 1: the GPU made too many wrong results and is no longer used */
  char devices[160];            /* "NVIDIA H200 ...", "none: <reason>", or "starting" */
} mldsa_accel_stats;
int mldsa_accel_batch_stats(mldsa_accel_batch* ctx, mldsa_accel_stats* out);

/* ---- Version 2 (MLDSA_ACCEL_BATCH_1) ---------------------------------- */

/* An OpenSSL key (EVP_PKEY, from any provider: mldsa-accel's, OpenSSL 3.5's
 * built-in ML-DSA) as the API's key: is_private 1 takes its private key (its
 * seed when it has one, else its skEncode bytes), 0 its public key. An
 * EVP_PKEY that is not ML-DSA-44/65/87 (or round 3's Dilithium2/3/5) is
 * MLDSA_ACCEL_ERR_UNSUPPORTED_KEY; one without the part asked for
 * MLDSA_ACCEL_ERR_KEY. The EVP_PKEY is not kept. */
struct evp_pkey_st; /* OpenSSL's EVP_PKEY */
int mldsa_accel_key_from_pkey(const struct evp_pkey_st* pkey, int is_private, mldsa_accel_key** out);

/* The provider's OpenSSL reason of a status (the number ERR_GET_REASON gives
 * for the error the provider raises in the same case; 0 for MLDSA_ACCEL_OK)
 * and its text, the one `openssl` prints. Completions give each item's reason,
 * which is finer than its status (which part of a key is malformed, ...). */
const char* mldsa_accel_reason_string(int reason);

/* Asynchronous submission. A submit call queues its items and returns at
 * once; the context's submission thread then computes them as the
 * synchronous call would (same router, engine, checks and CPU fallback:
 * submissions run one after another, each on every core and the GPU) and
 * calls callback once per submission, on that thread, with every item's
 * status set. Items, keys, messages and output buffers belong to the
 * submission until its callback returns. A callback may submit more work; it
 * must not call mldsa_accel_batch_wait or mldsa_accel_batch_free (they
 * return MLDSA_ACCEL_ERR_ARGUMENT / would wait for themselves).
 * Return: MLDSA_ACCEL_OK (queued; the callback will be called), or a negative
 * status with nothing queued and no callback (ctx or callback NULL, items NULL
 * with n > 0, an unknown alg, no memory). n = 0 is queued too.
 * In the child of a fork(), submissions run before submit returns. */
enum { MLDSA_ACCEL_OP_SIGN = 1, MLDSA_ACCEL_OP_VERIFY = 2, MLDSA_ACCEL_OP_KEYGEN = 3 };
typedef struct {
  int op;               /* MLDSA_ACCEL_OP_* */
  void* items;          /* the submission's array: mldsa_accel_sign_item*, _verify_item* or _keygen_item* */
  size_t n;
  long failed;          /* what the synchronous call returns: items whose status is not OK, or a negative status */
  const int* reasons;   /* n entries, valid during the callback: each item's OpenSSL reason (0: OK) */
  void* user;           /* as given to submit */
} mldsa_accel_completion;
typedef void (*mldsa_accel_callback)(const mldsa_accel_completion* done);

int mldsa_accel_sign_submit(mldsa_accel_batch* ctx, mldsa_accel_sign_item* items, size_t n, unsigned flags,
                            mldsa_accel_callback callback, void* user);
int mldsa_accel_verify_submit(mldsa_accel_batch* ctx, mldsa_accel_verify_item* items, size_t n,
                              mldsa_accel_callback callback, void* user);
int mldsa_accel_keygen_submit(mldsa_accel_batch* ctx, const char* alg, mldsa_accel_keygen_item* items, size_t n,
                              mldsa_accel_callback callback, void* user);
/* Waits until every submission made before it (and those their callbacks
 * made) has been computed and its callback has returned. MLDSA_ACCEL_OK, or
 * MLDSA_ACCEL_ERR_ARGUMENT (ctx NULL, or called from a callback).
 * mldsa_accel_batch_free waits the same way first. */
int mldsa_accel_batch_wait(mldsa_accel_batch* ctx);

/* How many items each GPU device was given so far (out[i]: logical device
 * i, in the order MLDSA_ACCEL_GPUS and MLDSA_ACCEL_GPU_SPLIT make them; results it got wrong
 * and the CPU redid included). *n in: out's room; out: the number of
 * devices (0: no GPU engine, or not ready yet). MLDSA_ACCEL_ERR_ARGUMENT
 * when out is too small (*n then says how many) or ctx/n is NULL.
 * mldsa_accel_stats's items_cpu are the CPU's. */
int mldsa_accel_batch_device_items(mldsa_accel_batch* ctx, uint64_t* out, size_t* n);

#ifdef __cplusplus
}
#endif

#endif /* MLDSA_ACCEL_BATCH_H */
