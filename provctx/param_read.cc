// param_read.cc - typed reads of one OSSL_PARAM with named errors.
#include "provctx/param_read.h"

#include "provctx/errors.h"

#include <openssl/params.h>

#include <cstring>

namespace mldsa::prov {

namespace {

bool bad_type(const ProvCtx* ctx, const OSSL_PARAM* p, const char* expected) {
  MLDSA_RAISE_DETAIL(ctx, R_BAD_PARAM_TYPE, (std::string(p->key) + ": expected " + expected).c_str());
  return false;
}

bool null_data(const ProvCtx* ctx, const OSSL_PARAM* p) {
  MLDSA_RAISE_DETAIL(ctx, R_NULL_PARAM_DATA,
                     (std::string(p->key) + ": NULL data, size " + std::to_string(p->data_size)).c_str());
  return false;
}

}  // namespace

bool read_octets(const ProvCtx* ctx, const OSSL_PARAM* p, std::span<const uint8_t>& out) {
  if (p->data_type != OSSL_PARAM_OCTET_STRING && p->data_type != OSSL_PARAM_OCTET_PTR)
    return bad_type(ctx, p, "an octet string");
  // Checked before the getter, which dereferences a _PTR parameter's data.
  if (p->data == nullptr && (p->data_size != 0 || p->data_type == OSSL_PARAM_OCTET_PTR)) return null_data(ctx, p);
  const void* data = nullptr;
  size_t len = 0;
  if (!OSSL_PARAM_get_octet_string_ptr(p, &data, &len)) return bad_type(ctx, p, "an octet string");
  if (data == nullptr && len != 0) return null_data(ctx, p);  // a _PTR to NULL
  out = {static_cast<const uint8_t*>(data), len};
  return true;
}

bool read_int(const ProvCtx* ctx, const OSSL_PARAM* p, int& out) {
  if (p->data_type != OSSL_PARAM_INTEGER && p->data_type != OSSL_PARAM_UNSIGNED_INTEGER &&
      p->data_type != OSSL_PARAM_REAL)
    return bad_type(ctx, p, "an integer");
  if (p->data == nullptr) return null_data(ctx, p);
  if (!OSSL_PARAM_get_int(p, &out)) return bad_type(ctx, p, "an integer");
  return true;
}

bool read_utf8(const ProvCtx* ctx, const OSSL_PARAM* p, std::string& out) {
  if (p->data_type != OSSL_PARAM_UTF8_STRING && p->data_type != OSSL_PARAM_UTF8_PTR)
    return bad_type(ctx, p, "a UTF-8 string");
  if (p->data == nullptr && (p->data_size != 0 || p->data_type == OSSL_PARAM_UTF8_PTR)) return null_data(ctx, p);
  const char* s = nullptr;
  if (p->data != nullptr && !OSSL_PARAM_get_utf8_string_ptr(p, &s)) return bad_type(ctx, p, "a UTF-8 string");
  // The string ends at data_size, or at a NUL before it: never past the
  // caller's bytes. Size 0 means NUL-terminated, as OSSL_PARAM_utf8_string(
  // key, buf, 0) and a _PTR of size 0 give it (and OpenSSL's providers read it).
  out = s == nullptr ? std::string() : p->data_size != 0 ? std::string(s, strnlen(s, p->data_size)) : std::string(s);
  return true;
}

}  // namespace mldsa::prov
