/* batch_test.h - what the C tests of the bulk API share: the CHECK macro
 * (counts failures and goes on), the ML-DSA-44 sizes they use, a context or
 * exit, and the exit status from the failures. */
#pragma once

#include "mldsa_accel/batch.h"

#include <stdio.h>

static int failures = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

enum { KEYS = 3, PK = 1312, SK = 2560, SIG = 2420 }; /* ML-DSA-44 */

/* A context, or NULL after saying why. */
static mldsa_accel_batch* new_context(void) {
  int st = 0;
  char why[256] = "";
  mldsa_accel_batch* ctx = mldsa_accel_batch_new(&st, why, sizeof why);
  if (ctx == NULL) fprintf(stderr, "mldsa_accel_batch_new: %s (%s)\n", mldsa_accel_status_string(st), why);
  return ctx;
}

/* main's return: 0 when every check held. */
static int finish(void) {
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
