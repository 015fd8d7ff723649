#ifndef CMBEDTLS_SHIM_H
#define CMBEDTLS_SHIM_H
#include <mbedtls/version.h>
#include <mbedtls/x509_crt.h>
#include <mbedtls/pk.h>
#include <mbedtls/error.h>
#include <mbedtls/oid.h>
#include <mbedtls/ssl.h>
#include <mbedtls/entropy.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/pkcs12.h>
#endif
