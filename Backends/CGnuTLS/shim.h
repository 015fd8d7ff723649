#ifndef CGNUTLS_SHIM_H
#define CGNUTLS_SHIM_H
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <gnutls/x509-ext.h>
#include <gnutls/abstract.h>
#include <gnutls/pkcs12.h>
#endif
