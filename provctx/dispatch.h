// dispatch.h - one entry of an OSSL_DISPATCH table: the function id and the
// function, cast to the generic type the table holds (OpenSSL casts it back
// by the id).
#pragma once

#define MLDSA_FN(id, f) {id, reinterpret_cast<void (*)(void)>(f)}
