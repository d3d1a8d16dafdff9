// signature_common.h - what the SIGNATURE operations of ML-DSA / Dilithium, composite ML-DSA
// and Falcon share: the OpenSSL 3.4/3.5 names the 3.0 headers lack, and the
// AlgorithmIdentifier of a signature whose parameters are absent.
#pragma once

#include "provctx/dispatch.h"
#include "provctx/provctx.h"

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>

#include <cstdint>
#include <vector>

// Function ids and parameter names from OpenSSL 3.4/3.5 that the 3.0 headers
// lack. A 3.0 core skips function ids it does not know.
#ifndef OSSL_FUNC_SIGNATURE_QUERY_KEY_TYPES
#define OSSL_FUNC_SIGNATURE_QUERY_KEY_TYPES 26
#endif
#ifndef OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_INIT
#define OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_INIT 27
#define OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_UPDATE 28
#define OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_FINAL 29
#define OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_INIT 30
#define OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_UPDATE 31
#define OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_FINAL 32
#endif
#ifndef OSSL_SIGNATURE_PARAM_CONTEXT_STRING
#define OSSL_SIGNATURE_PARAM_CONTEXT_STRING "context-string"
#endif
#ifndef OSSL_SIGNATURE_PARAM_DETERMINISTIC
#define OSSL_SIGNATURE_PARAM_DETERMINISTIC "deterministic"
#endif
#ifndef OSSL_SIGNATURE_PARAM_SIGNATURE
#define OSSL_SIGNATURE_PARAM_SIGNATURE "signature"
#endif

namespace mldsa::prov {

// AlgorithmIdentifier ::= SEQUENCE { OID } with the parameters absent (RFC 9881, the
// composite draft's Section 7; oqs-provider wrote Dilithium's and Falcon's the same way).
// False if the OID does not parse.
bool algorithm_id_der(const char* oid, std::vector<uint8_t>& out);

// get_ctx_params for a signature whose AlgorithmIdentifier is that of oid: fills
// "algorithm-id" if params asks for it. 0 with R_INTERNAL_ERROR raised if the OID does not parse.
int get_algorithm_id_param(const ProvCtx* ctx, OSSL_PARAM params[], const char* oid);

}  // namespace mldsa::prov

// The dispatch entries of a streaming and one-shot signature algorithm of
// variant V (Falcon's, composite's): each file defines these functions by
// these names. The last seven are OpenSSL 3.4+'s (older cores ignore them).
#define MLDSA_SIGNATURE_FUNCTIONS(V) \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_NEWCTX, newctx<V>), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_FREECTX, freectx), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_DUPCTX, dupctx), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_SIGN_INIT, sign_init), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_SIGN, sign_oneshot), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_VERIFY_INIT, verify_init), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_VERIFY, verify_oneshot), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, digest_sign_init), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, update), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL, sign_final), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_SIGN, sign_oneshot), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT, digest_verify_init), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE, update), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL, verify_final), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY, verify_oneshot), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, get_params), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, gettable), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, set_params), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, settable), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_QUERY_KEY_TYPES, query_key_types<V>), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_INIT, sign_init), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_UPDATE, update), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_FINAL, sign_final), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_INIT, verify_init), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_UPDATE, update), \
      MLDSA_FN(OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_FINAL, verify_message_final)
