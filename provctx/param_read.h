// param_read.h - one OSSL_PARAM read as the type the provider expects. A
// parameter of another type, or with NULL data where bytes are needed,
// raises a reason naming it (OpenSSL's getters return a bare 0 for the
// first, and for the second dereference NULL or pass it on with its size).
#pragma once

#include "provctx/provctx.h"

#include <openssl/core.h>

#include <cstdint>
#include <span>
#include <string>

namespace mldsa::prov {

// An octet string (OSSL_PARAM_OCTET_STRING, or _PTR): out views the
// caller's bytes. NULL data of size 0 is the empty string.
bool read_octets(const ProvCtx* ctx, const OSSL_PARAM* p, std::span<const uint8_t>& out);

// An int from any type OSSL_PARAM_get_int converts (integer, unsigned, real).
bool read_int(const ProvCtx* ctx, const OSSL_PARAM* p, int& out);

// A UTF-8 string (OSSL_PARAM_UTF8_STRING, or _PTR), no longer than its
// data_size (0: up to its NUL). NULL data of size 0, or a NULL string
// pointer, is "" (how OSSL_ENCODER_CTX_set_cipher(ctx, NULL, NULL) says "none").
bool read_utf8(const ProvCtx* ctx, const OSSL_PARAM* p, std::string& out);

}  // namespace mldsa::prov
