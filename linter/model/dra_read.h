/* dra_read.h — the parts of resource.k8s.io's objects that several kinds share (selectors, a
 * claim's spec with its requests, a slice's devices), read by dra_read.c for dra.c. Not for
 * other files: dra.h is the interface. */
#ifndef SL_DRA_READ_H
#define SL_DRA_READ_H
#include "dra.h"

/* The versions of resource.k8s.io read: where a request's fields are (v1beta1: on the request,
 * else under exactly) and a device's (v1beta1: under basic). */
enum sl_dra_version { SL_DRA_V1BETA1, SL_DRA_V1BETA2, SL_DRA_V1, SL_DRA_UNKNOWN };

/* A list of {cel: {expression}} (seq NULL: none) into *out / *n (the caller's). */
void sl_dra_read_selectors(struct sl_read *c, const struct sl_ynode *seq, const char *path,
			   struct sl_dra_selector **out, size_t *n);
/* A ResourceClaimSpec (spec NULL: none) at path. */
void sl_dra_read_claim_spec(struct sl_read *c, const struct sl_ynode *spec, const char *path, enum sl_dra_version v,
			    struct sl_dra_claim_spec *out);
void sl_dra_claim_spec_free(struct sl_dra_claim_spec *s);
/* spec.devices of a ResourceSlice whose driver is driver (a bare attribute name is its). */
void sl_dra_read_devices(struct sl_read *c, const struct sl_ynode *seq, enum sl_dra_version v, const char *driver,
			 struct sl_resource_slice *s);
void sl_dra_devices_free(struct sl_dra_device *d, size_t n);
void sl_dra_selectors_free(struct sl_dra_selector *s, size_t n);

#endif
