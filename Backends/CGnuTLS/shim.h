#ifndef CGNUTLS_SHIM_H
#define CGNUTLS_SHIM_H
// Headers of GnuTLS 3.7 that TLSTrust uses, plus small inline helpers for what the Clang importer
// cannot import (function-like macros). Each helper is prefixed `CGnuTLS_`.
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <gnutls/x509-ext.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/pkcs12.h>

/// Frees memory GnuTLS allocated for us (a `gnutls_datum_t`'s data, for instance). `gnutls_free`
/// is a global function pointer that applications may replace, so call through it.
static inline void CGnuTLS_free(void *p) { gnutls_free(p); }

/// Allocates memory GnuTLS will free (a stapled OCSP response handed to it from a callback).
/// `gnutls_malloc` is a global function pointer, like `gnutls_free`.
static inline void *CGnuTLS_malloc(size_t size) { return gnutls_malloc(size); }

/// `GNUTLS_PROFILE_TO_VFLAGS(profile)`: the verification-flag bits selecting a security profile.
static inline unsigned int CGnuTLS_profile_to_vflags(gnutls_certificate_verification_profiles_t profile) {
    return GNUTLS_PROFILE_TO_VFLAGS(profile);
}

#endif
