#ifndef CMBEDTLS_SHIM_H
#define CMBEDTLS_SHIM_H
#include <mbedtls/version.h>
#include <mbedtls/x509_crt.h>
#include <mbedtls/pk.h>
#include <mbedtls/rsa.h>
#include <mbedtls/ecp.h>
#include <mbedtls/md.h>
#include <mbedtls/error.h>
#include <mbedtls/oid.h>
#include <mbedtls/ssl.h>
#include <mbedtls/entropy.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/pkcs12.h>
#include <mbedtls/pkcs5.h>
#include <mbedtls/cipher.h>
#include <mbedtls/base64.h>
#include <mbedtls/net_sockets.h>
#include <stdlib.h>
#include <string.h>

/*
 * Helpers for TLSTrustMbedTLS, for what Swift cannot do itself. Everything is `static inline`
 * and prefixed `CMbedTLS_`. No validation rule lives here: the engine owns them all.
 */

/* Reads the next record (libmbedtls exports it; its prototype is in the internal ssl_internal.h).
 * Used only after a handshake failed because the peer closed the connection while we were
 * sending, to read the alert the peer sent before closing. */
int mbedtls_ssl_read_record(mbedtls_ssl_context *ssl, unsigned update_hs_digest);

/* The layout of mbedtls_x509_crt and friends is used directly from Swift: refuse to run against a
 * library whose major/minor version differs from these headers. */
static inline unsigned int CMbedTLS_header_version_number(void) { return MBEDTLS_VERSION_NUMBER; }

/* mbedtls_x509_crt_check_extended_key_usage() for a purpose (1 = serverAuth, 2 = clientAuth), with
 * mbedTLS's own OID constants (string-literal macros Swift cannot import); 0 = allowed. */
static inline int CMbedTLS_check_extended_key_usage(const mbedtls_x509_crt *crt, int purpose) {
    if (purpose == 1) {
        return mbedtls_x509_crt_check_extended_key_usage(crt, MBEDTLS_OID_SERVER_AUTH,
                                                         MBEDTLS_OID_SIZE(MBEDTLS_OID_SERVER_AUTH));
    }
    return mbedtls_x509_crt_check_extended_key_usage(crt, MBEDTLS_OID_CLIENT_AUTH,
                                                     MBEDTLS_OID_SIZE(MBEDTLS_OID_CLIENT_AUTH));
}

/*
 * Makes a shared EC key (an anchor's, or one imported for the engine) safe to verify with from
 * many threads at once.
 *
 * With MBEDTLS_ECP_FIXED_POINT_OPTIM (on by default), the first multiplication of a group's base
 * point computes a comb table and stores it in the key's own group (grp->T): ECDSA verification
 * with an anchor's key writes to the anchor. Two threads doing that first verification together
 * race (and one may free a table the other is reading). Computing the table once, here, while the
 * key is still private to one thread, leaves every later verification read-only.
 * Returns 0 on success (or for non-EC keys).
 *
 * The table depends on the curve only, never on the key: keys imported for the engine borrow the
 * one table per curve of a process-wide group instead (CMbedTLS_borrow_base_point_table), and only
 * curves without such a group are warmed key by key here (~10 M instructions on P-256: a whole
 * fixed-base scalar multiplication, table included).
 */
static inline int CMbedTLS_warm_up_group(mbedtls_ecp_group *grp) {
    if (grp->id == MBEDTLS_ECP_DP_NONE) return 0;
    if (mbedtls_ecp_get_type(grp) != MBEDTLS_ECP_TYPE_SHORT_WEIERSTRASS) return 0;
    mbedtls_ecp_point result;
    mbedtls_mpi one;
    mbedtls_ecp_point_init(&result);
    mbedtls_mpi_init(&one);
    int ret = mbedtls_mpi_lset(&one, 1);
    if (ret == 0) ret = mbedtls_ecp_mul(grp, &result, &one, &grp->G, NULL, NULL);
    mbedtls_mpi_free(&one);
    mbedtls_ecp_point_free(&result);
    return ret;
}

static inline int CMbedTLS_warm_up_key(mbedtls_pk_context *pk) {
    const mbedtls_pk_type_t type = mbedtls_pk_get_type(pk);
    if (type != MBEDTLS_PK_ECKEY && type != MBEDTLS_PK_ECDSA && type != MBEDTLS_PK_ECKEY_DH) return 0;
    mbedtls_ecp_keypair *ec = mbedtls_pk_ec(*pk);
    if (ec == NULL) return 0;
    return CMbedTLS_warm_up_group(&ec->grp);
}

/* The curve of an EC key whose group uses a comb table for its base point (short Weierstrass),
 * or MBEDTLS_ECP_DP_NONE (RSA keys, Montgomery curves). */
static inline mbedtls_ecp_group_id CMbedTLS_comb_group_id(mbedtls_pk_context *pk) {
    const mbedtls_pk_type_t type = mbedtls_pk_get_type(pk);
    if (type != MBEDTLS_PK_ECKEY && type != MBEDTLS_PK_ECDSA && type != MBEDTLS_PK_ECKEY_DH) return MBEDTLS_ECP_DP_NONE;
    mbedtls_ecp_keypair *ec = mbedtls_pk_ec(*pk);
    if (ec == NULL || ec->grp.id == MBEDTLS_ECP_DP_NONE) return MBEDTLS_ECP_DP_NONE;
    if (mbedtls_ecp_get_type(&ec->grp) != MBEDTLS_ECP_TYPE_SHORT_WEIERSTRASS) return MBEDTLS_ECP_DP_NONE;
    return ec->grp.id;
}

/* Loads curve `id` into `grp` (initialised by the caller) and computes its base-point table:
 * the process-wide group whose table keys of that curve borrow. 0 on success. */
static inline int CMbedTLS_load_base_point_group(mbedtls_ecp_group *grp, mbedtls_ecp_group_id id) {
    int ret = mbedtls_ecp_group_load(grp, id);
    if (ret == 0) ret = CMbedTLS_warm_up_group(grp);
    if (ret == 0 && grp->T == NULL) ret = MBEDTLS_ERR_ECP_FEATURE_UNAVAILABLE;
    return ret;
}

/*
 * Lends the base-point table of `shared` (a group of the same curve made by
 * CMbedTLS_load_base_point_group, never freed) to the key's group, so that its verifications
 * find the table computed (ecp_mul_comb only reads grp->T when it is set, and leaves it to the
 * group). The key must give it back before it is freed (CMbedTLS_return_base_point_table):
 * mbedtls_ecp_group_free would free it. Returns 0 when lent; nonzero (nothing changed) when the
 * key is not of that curve or has a table of its own.
 */
static inline int CMbedTLS_borrow_base_point_table(mbedtls_pk_context *pk, const mbedtls_ecp_group *shared) {
    if (shared == NULL || shared->T == NULL || CMbedTLS_comb_group_id(pk) != shared->id) return -1;
    mbedtls_ecp_keypair *ec = mbedtls_pk_ec(*pk);
    if (ec->grp.T != NULL || ec->grp.nbits != shared->nbits) return -1;
    ec->grp.T = shared->T;
    ec->grp.T_size = shared->T_size;
    return 0;
}

/* Takes a borrowed table back from the key's group before mbedtls_pk_free. */
static inline void CMbedTLS_return_base_point_table(mbedtls_pk_context *pk, const mbedtls_ecp_group *shared) {
    if (shared == NULL || CMbedTLS_comb_group_id(pk) == MBEDTLS_ECP_DP_NONE) return;
    mbedtls_ecp_keypair *ec = mbedtls_pk_ec(*pk);
    if (ec->grp.T == shared->T) {
        ec->grp.T = NULL;
        ec->grp.T_size = 0;
    }
}

/*
 * RSA keys shared by many threads, without a lock across the verification.
 *
 * mbedtls_rsa_public (2.28, MBEDTLS_THREADING_C) holds the context's own mutex for the whole
 * public-key operation, because mbedtls_mpi_exp_mod may store the Montgomery constant R^2 mod N in
 * ctx->RN on the key's first use. Threads verifying with one shared key (an intermediate's, an
 * anchor's) therefore took turns. CMbedTLS_rsa_precompute stores RN at import, with the same three
 * calls exp_mod makes, while the key is private to one thread; afterwards the public operation only
 * reads N, E and RN (exp_mod copies RN into a local when it is set and never frees it), so
 * CMbedTLS_rsa_verify runs it on a context of its own that borrows those three values: no lock,
 * no write to the shared key.
 */
static inline int CMbedTLS_rsa_precompute(mbedtls_pk_context *pk) {
    if (mbedtls_pk_get_type(pk) != MBEDTLS_PK_RSA) return 0;
    mbedtls_rsa_context *rsa = mbedtls_pk_rsa(*pk);
    if (rsa->RN.p != NULL) return 0;
    int ret = mbedtls_mpi_lset(&rsa->RN, 1);
    if (ret == 0) ret = mbedtls_mpi_shift_l(&rsa->RN, rsa->N.n * 2 * (sizeof(mbedtls_mpi_uint) * 8));
    if (ret == 0) ret = mbedtls_mpi_mod_mpi(&rsa->RN, &rsa->RN, &rsa->N);
    return ret;
}

/* PKCS#1 v1.5 (pss == 0) or RSASSA-PSS with MGF1 over `md` and a salt of `salt_len` bytes, as
 * mbedtls_pk_verify / mbedtls_pk_verify_ext do it for an RSA key: a signature of exactly the
 * modulus length, verified with mbedtls_rsa_rsassa_*_verify. 0 = valid. Requires
 * CMbedTLS_rsa_precompute to have run on the key (nonzero otherwise). */
static inline int CMbedTLS_rsa_verify(mbedtls_pk_context *pk, int pss, mbedtls_md_type_t md, int salt_len,
                                      const unsigned char *hash, unsigned int hash_len,
                                      const unsigned char *sig, size_t sig_len) {
    if (mbedtls_pk_get_type(pk) != MBEDTLS_PK_RSA) return MBEDTLS_ERR_PK_TYPE_MISMATCH;
    const mbedtls_rsa_context *shared = mbedtls_pk_rsa(*pk);
    if (shared->RN.p == NULL) return MBEDTLS_ERR_RSA_BAD_INPUT_DATA;
    if (sig_len != shared->len) return MBEDTLS_ERR_RSA_VERIFY_FAILED;
    mbedtls_rsa_context local;
    mbedtls_rsa_init(&local, MBEDTLS_RSA_PKCS_V15, 0);
    local.ver = shared->ver;
    local.len = shared->len;
    local.N = shared->N;    /* borrowed: read only, given back below */
    local.E = shared->E;
    local.RN = shared->RN;
    int ret = pss
        ? mbedtls_rsa_rsassa_pss_verify_ext(&local, NULL, NULL, MBEDTLS_RSA_PUBLIC, md, hash_len, hash, md, salt_len, sig)
        : mbedtls_rsa_rsassa_pkcs1_v15_verify(&local, NULL, NULL, MBEDTLS_RSA_PUBLIC, md, hash_len, hash, sig);
    mbedtls_mpi_init(&local.N);
    mbedtls_mpi_init(&local.E);
    mbedtls_mpi_init(&local.RN);
    mbedtls_rsa_free(&local);
    return ret;
}

/* Whether the EC group of `pk` holds its comb table (for tests of the warm-up). */
static inline int CMbedTLS_has_comb_table(mbedtls_pk_context *pk) {
    const mbedtls_pk_type_t type = mbedtls_pk_get_type(pk);
    if (type != MBEDTLS_PK_ECKEY && type != MBEDTLS_PK_ECDSA && type != MBEDTLS_PK_ECKEY_DH) return 0;
    return mbedtls_pk_ec(*pk)->grp.T != NULL;
}

#endif
