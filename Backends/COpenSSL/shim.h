#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
// Headers of OpenSSL 3 that TLSTrust uses, plus small inline helpers for what the Clang importer
// cannot import (function-like macros such as sk_X509_num). Each helper is prefixed `COpenSSL_`.
#include <string.h>
#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/bio.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>

static inline STACK_OF(X509) *COpenSSL_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int COpenSSL_sk_X509_push(STACK_OF(X509) *sk, X509 *x) { return sk_X509_push(sk, x); }
static inline int COpenSSL_sk_X509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
static inline X509 *COpenSSL_sk_X509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }
/// Frees the stack only; the certificates in it are owned elsewhere.
static inline void COpenSSL_sk_X509_free(STACK_OF(X509) *sk) { sk_X509_free(sk); }
/// Frees the stack and drops one reference to each certificate in it.
static inline void COpenSSL_sk_X509_pop_free(STACK_OF(X509) *sk) { sk_X509_pop_free(sk, X509_free); }

/// CRL stacks for `X509_STORE_CTX_set0_crls` (the native verifier's revocation inputs).
static inline STACK_OF(X509_CRL) *COpenSSL_sk_X509_CRL_new_null(void) { return sk_X509_CRL_new_null(); }
/// Takes over the caller's reference to `crl` on success.
static inline int COpenSSL_sk_X509_CRL_push(STACK_OF(X509_CRL) *sk, X509_CRL *crl) { return sk_X509_CRL_push(sk, crl); }
/// Frees the stack and drops one reference to each CRL in it.
static inline void COpenSSL_sk_X509_CRL_pop_free(STACK_OF(X509_CRL) *sk) { sk_X509_CRL_pop_free(sk, X509_CRL_free); }

static inline int COpenSSL_X509_STORE_CTX_set_app_data(X509_STORE_CTX *ctx, void *data) {
    return X509_STORE_CTX_set_ex_data(ctx, 0, data);
}
static inline void *COpenSSL_X509_STORE_CTX_get_app_data(X509_STORE_CTX *ctx) {
    return X509_STORE_CTX_get_ex_data(ctx, 0);
}
static inline long COpenSSL_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }

// MARK: TLS (Backends/TLSTrustOpenSSL/OpenSSLTLS*.swift): macros over SSL_CTX_ctrl / SSL_ctrl and
// stacks of names, which the Clang importer cannot import.
static inline int COpenSSL_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_min_proto_version(ctx, version); }
static inline int COpenSSL_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_max_proto_version(ctx, version); }
static inline long COpenSSL_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_session_cache_mode(ctx, mode); }
static inline int COpenSSL_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }
static inline uint64_t COpenSSL_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }
static inline uint64_t COpenSSL_SSL_OP_IGNORE_UNEXPECTED_EOF(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }
static inline uint64_t COpenSSL_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline int COpenSSL_sk_X509_NAME_num(const STACK_OF(X509_NAME) *sk) { return sk_X509_NAME_num(sk); }
static inline X509_NAME *COpenSSL_sk_X509_NAME_value(const STACK_OF(X509_NAME) *sk, int i) { return sk_X509_NAME_value(sk, i); }

// MARK: OCSP stapling (status_request): macros over SSL_ctrl / SSL_CTX_callback_ctrl.
/// A client asks for a stapled OCSP response.
static inline int COpenSSL_SSL_request_ocsp_stapling(SSL *ssl) { return (int)SSL_set_tlsext_status_type(ssl, TLSEXT_STATUSTYPE_ocsp); }
/// The status callback: on a client it runs once the server's stapled response is known (or known
/// to be absent); on a server it chooses the response to staple.
static inline long COpenSSL_SSL_CTX_set_tlsext_status_cb(SSL_CTX *ctx, int (*cb)(SSL *, void *)) { return SSL_CTX_set_tlsext_status_cb(ctx, cb); }
/// The response the server stapled, as OpenSSL keeps it: its length (-1 when none), `*resp` pointing
/// into the SSL's own buffer.
static inline long COpenSSL_SSL_get_tlsext_status_ocsp_resp(SSL *ssl, const unsigned char **resp) {
    unsigned char *p = NULL;
    long length = SSL_get_tlsext_status_ocsp_resp(ssl, &p);
    *resp = p;
    return length;
}
/// A server staples a copy of `resp` (the SSL takes ownership of an OPENSSL_malloc'd buffer, so
/// the copy is made here); 1 on success.
static inline int COpenSSL_SSL_staple_ocsp_resp_copy(SSL *ssl, const unsigned char *resp, size_t length) {
    if (length == 0 || length > 0x7fffffff) return 0;
    unsigned char *copy = OPENSSL_malloc(length);
    if (copy == NULL) return 0;
    memcpy(copy, resp, length);
    if (SSL_set_tlsext_status_ocsp_resp(ssl, copy, (long)length) != 1) { OPENSSL_free(copy); return 0; }
    return 1;
}

#endif
