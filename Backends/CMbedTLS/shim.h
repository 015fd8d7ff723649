#ifndef CMBEDTLS_SHIM_H
#define CMBEDTLS_SHIM_H
#include <mbedtls/version.h>
#include <mbedtls/x509_crt.h>
#include <mbedtls/pk.h>
#include <mbedtls/ecp.h>
#include <mbedtls/md.h>
#include <mbedtls/error.h>
#include <mbedtls/oid.h>
#include <mbedtls/ssl.h>
#include <mbedtls/entropy.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/pkcs12.h>
#include <stdlib.h>
#include <string.h>

/*
 * Helpers for TLSTrustMbedTLS. Everything is `static inline` and prefixed `CMbedTLS_`.
 *
 * Several of them restate, with public API only, a static function of mbedTLS 2.28's
 * library/x509_crt.c (which Swift cannot call), so that the backend's own path builder uses
 * exactly the rules mbedtls_x509_crt_verify() uses. Each says which function it mirrors.
 */

/* The layout of mbedtls_x509_crt and friends is used directly from Swift: refuse to run against a
 * library whose major/minor version differs from these headers. */
static inline unsigned int CMbedTLS_header_version_number(void) { return MBEDTLS_VERSION_NUMBER; }

/*
 * The verification profile: what OpenSSL 3 accepts at security level 2 (112 bits), which the
 * OpenSSL backend sets (X509_VERIFY_PARAM_set_auth_level(param, 2)), so both refuse the same:
 * - signature digests of at least 112 bits: SHA-224 and up (never MD5, SHA-1 or RIPEMD-160);
 * - RSA keys of at least 2048 bits;
 * - elliptic curves of at least 224 bits (P-192 and secp192k1 refused).
 * That is mbedtls_x509_crt_profile_default (SHA-2 only, RSA >= 2048) without the 192-bit curves.
 */
static inline const mbedtls_x509_crt_profile *CMbedTLS_profile(void) {
    static const mbedtls_x509_crt_profile profile = {
        MBEDTLS_X509_ID_FLAG(MBEDTLS_MD_SHA224) | MBEDTLS_X509_ID_FLAG(MBEDTLS_MD_SHA256) |
        MBEDTLS_X509_ID_FLAG(MBEDTLS_MD_SHA384) | MBEDTLS_X509_ID_FLAG(MBEDTLS_MD_SHA512),
        0x0FFFFFFF, /* any public-key algorithm */
        MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_SECP224R1) | MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_SECP256R1) |
        MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_SECP384R1) | MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_SECP521R1) |
        MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_BP256R1) | MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_BP384R1) |
        MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_BP512R1) | MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_SECP224K1) |
        MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_SECP256K1),
        2048,
    };
    return &profile;
}

/* Mirrors x509_profile_check_key(): 0 when `pk` is acceptable under `profile`, -1 otherwise. */
static inline int CMbedTLS_check_key(const mbedtls_x509_crt_profile *profile, const mbedtls_pk_context *pk) {
    const mbedtls_pk_type_t type = mbedtls_pk_get_type(pk);
    if (type == MBEDTLS_PK_RSA || type == MBEDTLS_PK_RSASSA_PSS) {
        return mbedtls_pk_get_bitlen(pk) >= profile->rsa_min_bitlen ? 0 : -1;
    }
    if (type == MBEDTLS_PK_ECDSA || type == MBEDTLS_PK_ECKEY || type == MBEDTLS_PK_ECKEY_DH) {
        const mbedtls_ecp_group_id gid = mbedtls_pk_ec(*pk)->grp.id;
        if (gid == MBEDTLS_ECP_DP_NONE) return -1;
        return (profile->allowed_curves & MBEDTLS_X509_ID_FLAG(gid)) != 0 ? 0 : -1;
    }
    return -1;
}

/* Mirrors x509_string_cmp(). */
static inline int CMbedTLS_string_cmp(const mbedtls_x509_buf *a, const mbedtls_x509_buf *b) {
    if (a->tag == b->tag && a->len == b->len && memcmp(a->p, b->p, b->len) == 0) return 0;
    if ((a->tag == MBEDTLS_ASN1_UTF8_STRING || a->tag == MBEDTLS_ASN1_PRINTABLE_STRING) &&
        (b->tag == MBEDTLS_ASN1_UTF8_STRING || b->tag == MBEDTLS_ASN1_PRINTABLE_STRING) &&
        a->len == b->len) {
        for (size_t i = 0; i < a->len; i++) {
            unsigned char x = a->p[i], y = b->p[i];
            if (x == y) continue;
            unsigned char diff = x ^ y;
            if (diff == 32 && ((x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z'))) continue;
            return -1;
        }
        return 0;
    }
    return -1;
}

/* Mirrors x509_name_cmp(): 0 when the two names are equal by mbedTLS's rules
 * (same attribute types and structure, values equal or equal but for ASCII case). */
static inline int CMbedTLS_name_cmp(const mbedtls_x509_name *a, const mbedtls_x509_name *b) {
    while (a != NULL || b != NULL) {
        if (a == NULL || b == NULL) return -1;
        if (a->oid.tag != b->oid.tag || a->oid.len != b->oid.len ||
            memcmp(a->oid.p, b->oid.p, b->oid.len) != 0) return -1;
        if (CMbedTLS_string_cmp(&a->val, &b->val) != 0) return -1;
        if (a->next_merged != b->next_merged) return -1;
        a = a->next;
        b = b->next;
    }
    return 0;
}

/* Whether `parent`'s subject is `child`'s issuer, by mbedTLS's rules. */
static inline int CMbedTLS_is_issuer_name(const mbedtls_x509_crt *child, const mbedtls_x509_crt *parent) {
    return CMbedTLS_name_cmp(&child->issuer, &parent->subject) == 0;
}

/* Mirrors x509_crt_check_signature() (without PSA, not restartable): 0 when `parent`'s key
 * verifies `child`'s signature. Reads `parent` only, except for the EC comb table caveat
 * described at CMbedTLS_warm_up_key(). */
static inline int CMbedTLS_check_signature(const mbedtls_x509_crt *child, mbedtls_x509_crt *parent) {
    unsigned char hash[MBEDTLS_MD_MAX_SIZE];
    const mbedtls_md_info_t *md_info = mbedtls_md_info_from_type(child->sig_md);
    if (md_info == NULL) return -1;
    if (mbedtls_md(md_info, child->tbs.p, child->tbs.len, hash) != 0) return -1;
    if (!mbedtls_pk_can_do(&parent->pk, child->sig_pk)) return -1;
    return mbedtls_pk_verify_ext(child->sig_pk, child->sig_opts, &parent->pk, child->sig_md,
                                 hash, mbedtls_md_get_size(md_info), child->sig.p, child->sig.len);
}

/* mbedtls_x509_crt_check_extended_key_usage() for a purpose: 1 = serverAuth, 2 = clientAuth. */
static inline int CMbedTLS_check_extended_key_usage(const mbedtls_x509_crt *crt, int purpose) {
    if (purpose == 1) {
        return mbedtls_x509_crt_check_extended_key_usage(crt, MBEDTLS_OID_SERVER_AUTH,
                                                         MBEDTLS_OID_SIZE(MBEDTLS_OID_SERVER_AUTH));
    }
    return mbedtls_x509_crt_check_extended_key_usage(crt, MBEDTLS_OID_CLIENT_AUTH,
                                                     MBEDTLS_OID_SIZE(MBEDTLS_OID_CLIENT_AUTH));
}

/* Whether the keyUsage extension, when present, allows keyCertSign (0 = allowed). */
static inline int CMbedTLS_check_key_cert_sign(const mbedtls_x509_crt *crt) {
    return mbedtls_x509_crt_check_key_usage(crt, MBEDTLS_X509_KU_KEY_CERT_SIGN);
}

static inline int CMbedTLS_has_extension(const mbedtls_x509_crt *crt, int ext_type) {
    return (crt->ext_types & ext_type) != 0;
}

static inline int CMbedTLS_ext_key_usage_type(void) { return MBEDTLS_X509_EXT_EXTENDED_KEY_USAGE; }
static inline int CMbedTLS_key_usage_type(void) { return MBEDTLS_X509_EXT_KEY_USAGE; }
static inline int CMbedTLS_basic_constraints_type(void) { return MBEDTLS_X509_EXT_BASIC_CONSTRAINTS; }

/*
 * Makes a shared (anchor) EC key safe to verify with from many threads at once.
 *
 * With MBEDTLS_ECP_FIXED_POINT_OPTIM (on by default), the first multiplication of a group's base
 * point computes a comb table and stores it in the key's own group (grp->T): ECDSA verification
 * with an anchor's key writes to the anchor. Two threads doing that first verification together
 * race (and one may free a table the other is reading). Computing the table once, here, while the
 * anchor store is still private to one thread, leaves every later verification read-only.
 * Returns 0 on success (or for non-EC keys).
 */
static inline int CMbedTLS_warm_up_key(mbedtls_pk_context *pk) {
    const mbedtls_pk_type_t type = mbedtls_pk_get_type(pk);
    if (type != MBEDTLS_PK_ECKEY && type != MBEDTLS_PK_ECDSA && type != MBEDTLS_PK_ECKEY_DH) return 0;
    mbedtls_ecp_keypair *ec = mbedtls_pk_ec(*pk);
    if (ec == NULL || ec->grp.id == MBEDTLS_ECP_DP_NONE) return 0;
    if (mbedtls_ecp_get_type(&ec->grp) != MBEDTLS_ECP_TYPE_SHORT_WEIERSTRASS) return 0;
    mbedtls_ecp_point result;
    mbedtls_mpi one;
    mbedtls_ecp_point_init(&result);
    mbedtls_mpi_init(&one);
    int ret = mbedtls_mpi_lset(&one, 1);
    if (ret == 0) ret = mbedtls_ecp_mul(&ec->grp, &result, &one, &ec->grp.G, NULL, NULL);
    mbedtls_mpi_free(&one);
    mbedtls_ecp_point_free(&result);
    return ret;
}

/* Whether the EC group of `pk` holds its comb table (for tests of the warm-up). */
static inline int CMbedTLS_has_comb_table(mbedtls_pk_context *pk) {
    const mbedtls_pk_type_t type = mbedtls_pk_get_type(pk);
    if (type != MBEDTLS_PK_ECKEY && type != MBEDTLS_PK_ECDSA && type != MBEDTLS_PK_ECKEY_DH) return 0;
    return mbedtls_pk_ec(*pk)->grp.T != NULL;
}

#endif
