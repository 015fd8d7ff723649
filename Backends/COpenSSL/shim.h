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
#include <openssl/ocsp.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/bio.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/core_names.h>

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

// MARK: Public keys built from their parts (Backends/TLSTrustOpenSSL/OpenSSLVerificationKey.swift),
// instead of d2i_PUBKEY: OpenSSL 3's d2i_PUBKEY sets up a decoder (OSSL_DECODER_CTX_new_for_pkey)
// on every call, about a million instructions under process-wide store locks.

/// An RSA public key from its modulus and public exponent, each big-endian and unsigned without
/// leading zero bytes: `EVP_PKEY_fromdata` on a key-management context of its own (an
/// `EVP_PKEY_CTX` is never shared between threads). NULL on failure, with OpenSSL's errors queued.
static inline EVP_PKEY *COpenSSL_RSA_public_key(const unsigned char *n, size_t n_len,
                                                const unsigned char *e, size_t e_len) {
    // OSSL_PARAM_construct_BN wants native byte order.
    unsigned char n_stack[1024], e_stack[16];
    unsigned char *n_native = n_len <= sizeof(n_stack) ? n_stack : OPENSSL_malloc(n_len);
    unsigned char *e_native = e_len <= sizeof(e_stack) ? e_stack : OPENSSL_malloc(e_len);
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    const unsigned int one = 1;
    const int little = *(const unsigned char *)&one == 1;
    if (n_native == NULL || e_native == NULL) goto done;
    for (size_t i = 0; i < n_len; i++) n_native[i] = little ? n[n_len - 1 - i] : n[i];
    for (size_t i = 0; i < e_len; i++) e_native[i] = little ? e[e_len - 1 - i] : e[i];
    {
        OSSL_PARAM params[3];
        params[0] = OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_RSA_N, n_native, n_len);
        params[1] = OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_RSA_E, e_native, e_len);
        params[2] = OSSL_PARAM_construct_end();
        ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
        if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1
            || EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1) {
            EVP_PKEY_free(pkey);
            pkey = NULL;
        }
    }
done:
    EVP_PKEY_CTX_free(ctx);
    if (n_native != n_stack) OPENSSL_free(n_native);
    if (e_native != e_stack) OPENSSL_free(e_native);
    return pkey;
}

/// An EC key holding only the domain parameters of a named curve ("P-256", "P-384", "P-521"): the
/// template that `COpenSSL_EC_public_key` copies. NULL on failure.
static inline EVP_PKEY *COpenSSL_EC_parameters_key(const char *group) {
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)group, 0);
    params[1] = OSSL_PARAM_construct_end();
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1
        || EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_KEY_PARAMETERS, params) != 1) {
        EVP_PKEY_free(pkey);
        pkey = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

/// An EC public key: a copy of `parameters` (from `COpenSSL_EC_parameters_key`, only read here, so
/// one template serves every thread) given the encoded point, which OpenSSL decodes with
/// EC_POINT_oct2point and refuses when it is not on the curve, as d2i_PUBKEY does. Copying the
/// template skips building the curve's group again (EC_GROUP_new_by_curve_name), which is most of
/// the cost of `EVP_PKEY_fromdata` for an EC key. NULL on failure, with OpenSSL's errors queued.
static inline EVP_PKEY *COpenSSL_EC_public_key(EVP_PKEY *parameters, const unsigned char *point, size_t point_len) {
    EVP_PKEY *pkey = EVP_PKEY_dup(parameters);
    if (pkey == NULL) return NULL;
    if (EVP_PKEY_set1_encoded_public_key(pkey, point, point_len) != 1) {
        EVP_PKEY_free(pkey);
        return NULL;
    }
    return pkey;
}

#endif
